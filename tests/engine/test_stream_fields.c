// SPDX-License-Identifier: MIT
/*
 * The stream's field calls agree with each other and with the event format
 * (ktrace_stream_fields, _field, _field_by_name, ktrace_stream_event) over the bundled
 * sample trace.
 */
#include <errno.h>
#include <string.h>

#include <ktrace/api.h>
#include <ktrace/event.h>
#include <ktrace/stream.h>

#include "testlib.h"

#define DEMO "examples/sched_demo.dat"

static int same_value(const struct ktrace_event_value *a, const struct ktrace_event_value *b)
{
	if (!a->name || !b->name || strcmp(a->name, b->name) || a->type != b->type)
		return 0;
	if (a->type == KTRACE_EVENT_SIGNED || a->type == KTRACE_EVENT_UNSIGNED)
		return a->u == b->u;
	return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

static void fields_agree(void)
{
	KTRACE_OPTS(ktrace_stream_opts, o);
	const char *paths[] = { DEMO };
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	const struct ktrace_stream_record *r;
	struct ktrace_event_value v[32], w;
	long records = 0, switches = 0, bad = 0;
	int ret;

	CHECK_EQ(ktrace_stream_open(&s, paths, 1, &o, &err, NULL), 0);
	if (!s)
		return;
	while ((ret = ktrace_stream_next(s, &r, &err)) > 0) {
		const struct ktrace_event *ev = ktrace_stream_event(s);
		size_t n = ktrace_stream_fields(s, v, 32);

		records++;
		if (r->kind != KTRACE_STREAM_EVENT)
			continue;
		if (!ev || strcmp(ktrace_event_name(ev), r->name) ||
		    strcmp(ktrace_event_system(ev), r->system) ||
		    ktrace_event_field_count(ev) != n || n != ktrace_stream_field_count(s) || n > 32) {
			bad++;
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			if (ktrace_stream_field(s, i, &w) || !same_value(&v[i], &w))
				bad++;
			if (ktrace_stream_field_by_name(s, v[i].name, &w) || !same_value(&v[i], &w))
				bad++;
		}
		if (ktrace_stream_field_by_name(s, "no_such_field", &w) != -ENOENT)
			bad++;
		if (!strcmp(r->name, "sched_switch")) {
			switches++;
			if (ktrace_stream_field_by_name(s, "prev_pid", &w) || w.type != KTRACE_EVENT_SIGNED)
				bad++;
		}
	}
	CHECK_EQ(ret, 0);
	CHECK(records > 100);
	CHECK(switches > 10);
	CHECK_EQ(bad, 0);
	ktrace_stream_close(s);
}

int main(void)
{
	PLAN(1);
	RUN(fields_agree);
	return tl_failed_cases != 0;
}
