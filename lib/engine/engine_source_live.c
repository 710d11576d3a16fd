// SPDX-License-Identifier: MIT
/*
 * The stream's live source (ktrace top): the records of an in_memory tracefs session
 * (tracefs_live.c), read with the session's event formats, handed out up to a time the
 * caller moves on. See engine.h (kt_stream_open_live).
 */
#include <ktrace/event.h>
#include <ktrace/tracefs.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/check.h"
#include "engine/engine_stream_int.h"
#include "event/event_share.h"
#include "engine/engine.h"
#include "tracefs/tracefs_live.h"

struct live_source {
	struct kt_source src;
	struct ktrace_tracefs_session *sess;
	struct ktrace_events *evs;
	const struct ktrace_event *ev;     /* the current record's event (NULL: unknown) */
	struct ktrace_record kr;
	struct ktrace_tracefs_record pending;   /* read, not handed out yet (has_pending) */
	bool has_pending, lost_out;
	uint64_t until, last_ts, late;
	struct timespec last_reload;
};

/* The pending record as the current one: 1. */
static int hand_out(struct live_source *t)
{
	struct ktrace_stream_record *rec = &t->src.rec;
	const struct ktrace_tracefs_record *p = &t->pending;
	uint64_t ts = p->ts;

	if (ts < t->last_ts) {
		ts = t->last_ts;
		t->late++;
	}
	t->last_ts = ts;
	memset(rec, 0, sizeof(*rec));
	rec->ts = ts;
	rec->cpu = (int32_t)p->cpu;
	rec->tid = rec->pid = -1;
	rec->comm = rec->system = rec->name = "";
	if (p->missed_events && !t->lost_out) {
		/* the lost-events mark first, then the record (next call) */
		rec->kind = KTRACE_STREAM_LOST;
		rec->lost = p->missed_events > 0 ? (uint64_t)p->missed_events : 0;
		t->lost_out = true;
		t->ev = NULL;
		return 1;
	}
	t->has_pending = t->lost_out = false;
	rec->kind = KTRACE_STREAM_EVENT;
	t->kr = (struct ktrace_record){ .data = p->data, .size = p->size, .cpu = (int)p->cpu,
					.ts = p->ts, .avail = p->avail };
	t->ev = ktrace_event_record_event(t->evs, &t->kr);
	if (t->ev) {
		rec->tid = ktrace_event_record_pid(t->evs, &t->kr);
		rec->comm = ktrace_event_comm(t->evs, (int)rec->tid);
		rec->system = ktrace_event_system(t->ev);
		rec->name = ktrace_event_name(t->ev);
		rec->event_id = (uint32_t)ktrace_event_id(t->ev);
		ktrace_event_learn_comms(t->evs, &t->kr);
	} else {
		rec->system = "ftrace";
		rec->name = "unknown";
	}
	return 1;
}

static int live_advance(struct kt_source *src, struct ktrace_error *err)
{
	struct live_source *t = (struct live_source *)src;
	const struct ktrace_tracefs_record *r;
	int ret;

	if (!t->has_pending) {
		ret = ktrace_tracefs_next_record(t->sess, &r, err);
		if (ret <= 0)
			return ret;
		/* (valid until the next call, which comes after it was handed out) */
		t->pending = *r;
		t->has_pending = true;
	}
	if (t->pending.ts >= t->until)
		return 0;
	return hand_out(t);
}

static int live_field(struct kt_source *src, size_t i, struct ktrace_event_value *v)
{
	struct live_source *t = (struct live_source *)src;

	if (!t->ev || src->rec.kind != KTRACE_STREAM_EVENT) {
		memset(v, 0, sizeof(*v));
		return -ENOENT;
	}
	return ktrace_event_field_value(t->evs, t->ev, i, &t->kr, v);
}

static size_t live_fields(struct kt_source *src, struct ktrace_event_value *v, size_t max)
{
	struct live_source *t = (struct live_source *)src;
	size_t n = t->ev && src->rec.kind == KTRACE_STREAM_EVENT ? ktrace_event_field_count(t->ev) : 0;

	for (size_t i = 0; i < n && i < max; i++)
		live_field(src, i, &v[i]);
	return n;
}

static int live_format(struct kt_source *src, char *buf, size_t len, bool text_only)
{
	return text_only ? snprintf(buf, len, "%s", "") : kt_stream_generic_line(&src->rec, "", buf, len);
}

static int live_raw(struct kt_source *src, struct kt_ftrace_raw *out)
{
	struct live_source *t = (struct live_source *)src;

	if (src->rec.kind != KTRACE_STREAM_EVENT || !t->ev)
		return -ENOENT;
	*out = (struct kt_ftrace_raw){ t->evs, t->ev, t->kr.data, t->kr.size };
	return 0;
}

static void live_close(struct kt_source *src)
{
	struct live_source *t = (struct live_source *)src;

	ktrace_event_free(t->evs);
	free(t);
}

static const struct kt_source_ops live_ops = {
	.advance = live_advance,
	.field = live_field,
	.fields = live_fields,
	.format = live_format,
	.sched = kt_sched_from_fields,
	.close = live_close,
	.raw = live_raw,
};

static int make(struct ktrace_stream *s, void *arg, struct kt_source **out, struct ktrace_error *err)
{
	struct live_source *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return kt_error_oom(err);
	t->src.ops = &live_ops;
	t->src.stream = s;
	t->src.live = true;
	t->sess = arg;
	ktrace_tracefs_set_ordered(t->sess);
	t->evs = ktrace_event_new((int)sizeof(long), __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (!t->evs) {
		free(t);
		return kt_error_oom(err);
	}
	ftev_print_learns(t->evs, false);   /* (every record's are, as it is read) */
	ret = ktrace_tracefs_load_events(t->sess, t->evs, err);
	if (ret) {
		live_close(&t->src);
		return ret;
	}
	*out = &t->src;
	return 0;
}

int kt_stream_open_live(struct ktrace_tracefs_session *sess, struct ktrace_stream **out,
			struct ktrace_error *err)
{
	KTRACE_OPTS(ktrace_stream_opts, o);

	return kt_stream_open_source(out, "tracefs", KTRACE_FORMAT_FTRACE_PAGES, &o, make, sess, err);
}

static struct live_source *live_of(struct ktrace_stream *s)
{
	struct kt_source *src = kt_stream_first_source(s);

	return src && src->ops == &live_ops ? (struct live_source *)src : NULL;
}

void kt_stream_live_until(struct ktrace_stream *s, uint64_t until)
{
	struct live_source *t = live_of(s);

	if (t)
		t->until = until;
}

int kt_stream_live_captured_to(struct ktrace_stream *s, uint64_t *to, struct ktrace_error *err)
{
	struct live_source *t = live_of(s);

	*to = UINT64_MAX;
	return t ? ktrace_tracefs_captured_to(t->sess, to, err) : 0;
}

uint64_t kt_stream_live_late(struct ktrace_stream *s)
{
	struct live_source *t = live_of(s);

	return t ? t->late : 0;
}

const char *kt_stream_live_comm(struct ktrace_stream *s, int64_t tid)
{
	struct live_source *t = live_of(s);
	const char *comm;
	struct timespec now;
	struct ktrace_error ignore = { 0 };

	if (!t)
		return "";
	comm = ktrace_event_comm(t->evs, (int)tid);
	if (strcmp(comm, "<...>"))
		return comm;
	/* the saved command lines again, ten times a second at most */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - t->last_reload.tv_sec) * 1000000000ll + (now.tv_nsec - t->last_reload.tv_nsec) >=
	    100000000ll) {
		t->last_reload = now;
		ktrace_tracefs_load_cmdlines(t->sess, t->evs, &ignore);
		comm = ktrace_event_comm(t->evs, (int)tid);
	}
	return strcmp(comm, "<...>") ? comm : "";
}
