// SPDX-License-Identifier: MIT
/*
 * The scheduling meaning of ftrace records (<ktrace/stream.h> ktrace_stream_sched):
 * sched:sched_switch, sched_wakeup, sched_waking and sched_wakeup_new, read from their
 * fields by name, for the trace.dat and raw-page sources.
 */
#include <string.h>

#include "engine/stream_int.h"

static void copy_comm(char *dst, const struct ktrace_event_value *v)
{
	size_t n = 0;

	if (v->type == KTRACE_EVENT_STRING || v->type == KTRACE_EVENT_BYTES) {
		const char *p = v->data;

		while (n < v->len && n < KTRACE_STREAM_COMM_MAX - 1 && p[n])
			n++;
		memcpy(dst, p, n);
	}
	dst[n] = 0;
}

static bool number(const struct ktrace_event_value *v, int64_t *out)
{
	if (v->type == KTRACE_EVENT_SIGNED)
		*out = v->i;
	else if (v->type == KTRACE_EVENT_UNSIGNED)
		*out = (int64_t)v->u;
	else
		return false;
	return true;
}

int kt_sched_from_fields(struct kt_source *src, struct ktrace_stream_sched *out)
{
	const struct ktrace_stream_record *r = &src->rec;
	bool sw, have_prev = false, have_next = false;
	size_t n;

	if (strcmp(r->system, "sched") || strncmp(r->name, "sched_", 6))
		return 0;
	if (!strcmp(r->name + 6, "switch"))
		sw = true;
	else if (!strcmp(r->name + 6, "wakeup") || !strcmp(r->name + 6, "waking") ||
		 !strcmp(r->name + 6, "wakeup_new"))
		sw = false;
	else
		return 0;
	n = src->ops->field_count(src);
	for (size_t i = 0; i < n; i++) {
		struct ktrace_event_value v;
		const char *f;
		int64_t x = 0;

		if (src->ops->field(src, i, &v))
			continue;
		f = v.name;
		if (sw && !strncmp(f, "prev_", 5)) {
			f += 5;
			if (!strcmp(f, "comm"))
				copy_comm(out->prev_comm, &v);
			else if (!strcmp(f, "pid") && number(&v, &x))
				out->prev_tid = x, have_prev = true;
			else if (!strcmp(f, "prio") && number(&v, &x))
				out->prev_prio = (int32_t)x;
			else if (!strcmp(f, "state") && number(&v, &x))
				out->prev_state = x;
			continue;
		}
		if (sw && strncmp(f, "next_", 5))
			continue;
		if (sw)
			f += 5;
		if (!strcmp(f, "comm"))
			copy_comm(out->next_comm, &v);
		else if (!strcmp(f, "pid") && number(&v, &x))
			out->next_tid = x, have_next = true;
		else if (!strcmp(f, "prio") && number(&v, &x))
			out->next_prio = (int32_t)x;
		else if (!sw && !strcmp(f, "target_cpu") && number(&v, &x))
			out->target_cpu = (int32_t)x;
	}
	if (!have_next || (sw && !have_prev))
		return 0;
	out->kind = sw ? KTRACE_STREAM_SCHED_SWITCH : KTRACE_STREAM_SCHED_WAKEUP;
	if (sw)
		ktrace_event_task_state((uint64_t)out->prev_state, out->prev_state_text,
					sizeof(out->prev_state_text));
	return 1;
}
