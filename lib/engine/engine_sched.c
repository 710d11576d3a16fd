// SPDX-License-Identifier: MIT
/*
 * The scheduling meaning of ftrace records (<ktrace/stream.h> ktrace_stream_sched):
 * sched:sched_switch, sched_wakeup, sched_waking and sched_wakeup_new, read from their
 * fields by name, for the trace.dat and raw-page sources; and the copies of their
 * records that read-ahead hands to the caller's thread.
 */
#include <errno.h>
#include <string.h>

#include "engine/engine_stream_int.h"

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

int kt_sched_ftrace(const struct ktrace_stream_record *r, size_t n,
		    int (*field)(const void *ctx, size_t i, struct ktrace_event_value *v),
		    const void *ctx, struct ktrace_stream_sched *out)
{
	bool sw, have_prev = false, have_next = false;

	if (strcmp(r->system, "sched") || strncmp(r->name, "sched_", 6))
		return 0;
	if (!strcmp(r->name + 6, "switch"))
		sw = true;
	else if (!strcmp(r->name + 6, "wakeup") || !strcmp(r->name + 6, "waking") ||
		 !strcmp(r->name + 6, "wakeup_new"))
		sw = false;
	else
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct ktrace_event_value v;
		const char *f;
		int64_t x = 0;

		if (field(ctx, i, &v))
			continue;
		f = v.name;
		if (sw && !strncmp(f, "prev_", 5)) {
			f += 5;
			if (!strcmp(f, "comm"))
				copy_comm(out->prev_comm, &v);
			else if (!strcmp(f, "pid") && kt_value_int(&v, &x))
				out->prev_tid = x, have_prev = true;
			else if (!strcmp(f, "prio") && kt_value_int(&v, &x))
				out->prev_prio = (int32_t)x;
			else if (!strcmp(f, "state") && kt_value_int(&v, &x))
				out->prev_state = x;
			continue;
		}
		if (sw && strncmp(f, "next_", 5))
			continue;
		if (sw)
			f += 5;
		if (!strcmp(f, "comm"))
			copy_comm(out->next_comm, &v);
		else if (!strcmp(f, "pid") && kt_value_int(&v, &x))
			out->next_tid = x, have_next = true;
		else if (!strcmp(f, "prio") && kt_value_int(&v, &x))
			out->next_prio = (int32_t)x;
		else if (!sw && !strcmp(f, "target_cpu") && kt_value_int(&v, &x))
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

static int source_field(const void *ctx, size_t i, struct ktrace_event_value *v)
{
	struct kt_source *src = (struct kt_source *)ctx;

	return src->ops->field(src, i, v);
}

int kt_sched_from_fields(struct kt_source *src, struct ktrace_stream_sched *out)
{
	return kt_sched_ftrace(&src->rec, src->ops->fields(src, NULL, 0), source_field, src, out);
}

/* ---- the read-ahead copy of an ftrace record ---- */

size_t kt_ftrace_snap_size(uint32_t size)
{
	return (sizeof(struct kt_ftrace_snap) + size + 7) & ~(size_t)7;
}

void kt_ftrace_snap_write(void *data, struct ktrace_events *evs, const struct ktrace_event *ev,
			  const struct ktrace_record *kr, bool raw)
{
	struct kt_ftrace_snap *f = data;

	f->evs = evs;
	f->ev = ev;
	f->size = kr->size;
	f->raw = raw;
	if (kr->size)
		memcpy(f->data, kr->data, kr->size);
}

int kt_ftrace_snap_raw(const void *data, struct kt_ftrace_raw *out)
{
	const struct kt_ftrace_snap *f = data;

	if (f->raw || !f->ev)
		return -ENOENT;
	*out = (struct kt_ftrace_raw){ f->evs, f->ev, f->data, f->size };
	return 0;
}

int kt_ftrace_snap_field(const void *data, size_t i, struct ktrace_event_value *v)
{
	const struct kt_ftrace_snap *f = data;
	struct ktrace_record kr = { .data = f->data, .size = f->size };

	if (!f->raw)
		return ktrace_event_field_value(f->evs, f->ev, i, &kr, v);
	memset(v, 0, sizeof(*v));
	if (i)
		return -ENOENT;
	v->name = "data";
	v->type = KTRACE_EVENT_BYTES;
	v->data = f->data;
	v->len = f->size;
	return 0;
}

size_t kt_ftrace_snap_fields(const void *data, struct ktrace_event_value *v, size_t max)
{
	const struct kt_ftrace_snap *f = data;
	struct ktrace_record kr = { .data = f->data, .size = f->size };

	if (!f->raw)
		return ktrace_event_field_values(f->evs, f->ev, &kr, v, max);
	if (max)
		kt_ftrace_snap_field(data, 0, v);
	return 1;
}

static int snap_field(const void *ctx, size_t i, struct ktrace_event_value *v)
{
	return kt_ftrace_snap_field(ctx, i, v);
}

int kt_ftrace_snap_sched(const struct ktrace_stream_record *r, const void *data,
			 struct ktrace_stream_sched *out)
{
	return kt_sched_ftrace(r, kt_ftrace_snap_fields(data, NULL, 0), snap_field, data, out);
}
