// SPDX-License-Identifier: MIT
/*
 * The scheduling meaning of ftrace records (<ktrace/stream.h> ktrace_stream_sched):
 * sched:sched_switch, sched_wakeup, sched_waking and sched_wakeup_new, read from their
 * fields by name, for the trace.dat and raw-page sources; and the copies of their
 * records that read-ahead hands to the caller's thread.
 */
#include <errno.h>
#include <string.h>

#include "common/cursor.h"
#include "engine/engine_stream_int.h"
#include "event/event_share.h"

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

/* Where the record's event keeps the fields of a switch or wakeup, found by their
 * names (a field met twice: its last place). */
static void plan_event(struct kt_sched_plan *p, const struct ktrace_stream_record *r,
		       const struct kt_ftrace_raw *raw, size_t n,
		       int (*field)(const void *ctx, size_t i, struct ktrace_event_value *v),
		       const void *ctx)
{
	bool sw;

	*p = (struct kt_sched_plan){ .name = r->name, .source = r->source,
				     .event_id = r->event_id };
	for (size_t k = 0; k < KT_SCHED_NFIELDS; k++)
		p->field[k] = -1;
	if (strcmp(r->system, "sched") || strncmp(r->name, "sched_", 6))
		return;
	if (!strcmp(r->name + 6, "switch"))
		sw = true;
	else if (!strcmp(r->name + 6, "wakeup") || !strcmp(r->name + 6, "waking") ||
		 !strcmp(r->name + 6, "wakeup_new"))
		sw = false;
	else
		return;
	for (size_t i = 0; i < n && i <= INT32_MAX; i++) {
		struct ktrace_event_value v;
		const char *f;
		int base = KT_SCHED_NEXT_COMM;

		if (field(ctx, i, &v))
			continue;
		p->big = v.big_endian;
		f = v.name;
		if (sw && !strncmp(f, "prev_", 5))
			base = KT_SCHED_PREV_COMM;
		else if (sw && strncmp(f, "next_", 5))
			continue;
		if (sw)
			f += 5;
		if (!strcmp(f, "comm"))
			p->field[base] = (int32_t)i;
		else if (!strcmp(f, "pid"))
			p->field[base + 1] = (int32_t)i;
		else if (!strcmp(f, "prio"))
			p->field[base + 2] = (int32_t)i;
		else if (sw && base == KT_SCHED_PREV_COMM && !strcmp(f, "state"))
			p->field[KT_SCHED_PREV_STATE] = (int32_t)i;
		else if (!sw && !strcmp(f, "target_cpu"))
			p->field[KT_SCHED_TARGET_CPU] = (int32_t)i;
	}
	p->kind = sw ? KTRACE_STREAM_SCHED_SWITCH : KTRACE_STREAM_SCHED_WAKEUP;
	p->raw_end = raw ? 1 : 0;
	for (int k = 0; k < KT_SCHED_NFIELDS; k++) {
		uint32_t size = 0;

		p->cls[k] = FTEV_FIELD_OTHER;
		if (raw && p->field[k] >= 0 && k != KT_SCHED_PREV_COMM && k != KT_SCHED_NEXT_COMM) {
			p->cls[k] = (uint8_t)ftev_field_class(raw->ev, (size_t)p->field[k], &p->off[k],
							      &size);
			if (p->cls[k] == FTEV_FIELD_OTHER || p->off[k] > UINT32_MAX - 8)
				p->raw_end = 0;
			else if (p->raw_end && p->off[k] + size > p->raw_end)
				p->raw_end = p->off[k] + size;
		}
		p->size[k] = (uint8_t)size;
	}
}

/* Number field k, present, from the record's bytes (kt_sched_plan's raw_end holds). */
static int64_t raw_field(const struct kt_sched_plan *p, int k, const uint8_t *data)
{
	uint64_t u = kt_load_sized(data + p->off[k], p->size[k], p->big);

	return p->cls[k] == FTEV_FIELD_SIGNED ? kt_sign_extend(u, p->size[k]) : (int64_t)u;
}

/* kt_sched_ftrace's numbers when the plan's raw_end holds for the record: the fields
 * straight from its bytes. */
static int sched_numbers(const struct kt_sched_plan *p, const uint8_t *data, struct ktrace_stream_sched *out)
{
	bool sw = p->kind == KTRACE_STREAM_SCHED_SWITCH;

	if (p->field[KT_SCHED_NEXT_PID] < 0 || (sw && p->field[KT_SCHED_PREV_PID] < 0))
		return 0;
	out->next_tid = raw_field(p, KT_SCHED_NEXT_PID, data);
	if (p->field[KT_SCHED_NEXT_PRIO] >= 0)
		out->next_prio = (int32_t)raw_field(p, KT_SCHED_NEXT_PRIO, data);
	if (sw) {
		out->prev_tid = raw_field(p, KT_SCHED_PREV_PID, data);
		if (p->field[KT_SCHED_PREV_PRIO] >= 0)
			out->prev_prio = (int32_t)raw_field(p, KT_SCHED_PREV_PRIO, data);
		if (p->field[KT_SCHED_PREV_STATE] >= 0)
			out->prev_state = raw_field(p, KT_SCHED_PREV_STATE, data);
	} else if (p->field[KT_SCHED_TARGET_CPU] >= 0) {
		out->target_cpu = (int32_t)raw_field(p, KT_SCHED_TARGET_CPU, data);
	}
	out->kind = sw ? KTRACE_STREAM_SCHED_SWITCH : KTRACE_STREAM_SCHED_WAKEUP;
	return 1;
}

/* Number field k of the plan read from the record's bytes, as ktrace_event_field_value
 * reads it: false when the record is too short to hold it (no number then either). */
static bool raw_number(const struct kt_sched_plan *p, int k, const struct kt_ftrace_raw *raw,
		       int64_t *x)
{
	if ((uint64_t)p->off[k] + p->size[k] > raw->size)
		return false;
	*x = raw_field(p, k, raw->data);
	return true;
}

int kt_sched_ftrace(struct kt_sched_cache *cache, const struct ktrace_stream_record *r,
		    const struct kt_ftrace_raw *raw, size_t n,
		    int (*field)(const void *ctx, size_t i, struct ktrace_event_value *v),
		    const void *ctx, bool names, struct ktrace_stream_sched *out)
{
	struct kt_sched_plan *p = &cache->plan[(r->event_id ^ r->source * 7) % 16];
	bool sw, have_prev = false, have_next = false;

	if (p->name != r->name || p->event_id != r->event_id || p->source != r->source)
		plan_event(p, r, raw, n, field, ctx);
	if (!p->kind)
		return 0;
	if (!names && raw && p->raw_end && raw->size >= p->raw_end)
		return sched_numbers(p, raw->data, out);
	sw = p->kind == KTRACE_STREAM_SCHED_SWITCH;
	for (int k = 0; k < KT_SCHED_NFIELDS; k++) {
		struct ktrace_event_value v;
		int64_t x = 0;

		if (p->field[k] < 0 || (!names && (k == KT_SCHED_PREV_COMM || k == KT_SCHED_NEXT_COMM)))
			continue;
		if (raw && p->cls[k] != FTEV_FIELD_OTHER) {
			if (!raw_number(p, k, raw, &x))
				continue;
		} else {
			if (field(ctx, (size_t)p->field[k], &v))
				continue;
			if (k == KT_SCHED_PREV_COMM || k == KT_SCHED_NEXT_COMM) {
				copy_comm(k == KT_SCHED_PREV_COMM ? out->prev_comm : out->next_comm, &v);
				continue;
			}
			if (!kt_value_int(&v, &x))
				continue;
		}
		switch (k) {
		case KT_SCHED_PREV_PID: out->prev_tid = x, have_prev = true; break;
		case KT_SCHED_PREV_PRIO: out->prev_prio = (int32_t)x; break;
		case KT_SCHED_PREV_STATE: out->prev_state = x; break;
		case KT_SCHED_NEXT_PID: out->next_tid = x, have_next = true; break;
		case KT_SCHED_NEXT_PRIO: out->next_prio = (int32_t)x; break;
		case KT_SCHED_TARGET_CPU: out->target_cpu = (int32_t)x; break;
		}
	}
	if (!have_next || (sw && !have_prev))
		return 0;
	out->kind = sw ? KTRACE_STREAM_SCHED_SWITCH : KTRACE_STREAM_SCHED_WAKEUP;
	if (sw && names)
		ktrace_event_task_state((uint64_t)out->prev_state, out->prev_state_text,
					sizeof(out->prev_state_text));
	return 1;
}

static int source_field(const void *ctx, size_t i, struct ktrace_event_value *v)
{
	struct kt_source *src = (struct kt_source *)ctx;

	return src->ops->field(src, i, v);
}

int kt_sched_from_fields(struct kt_source *src, struct kt_sched_cache *cache, bool names,
			 struct ktrace_stream_sched *out)
{
	struct kt_ftrace_raw raw;
	bool has_raw = src->ops->raw && !src->ops->raw(src, &raw);

	return kt_sched_ftrace(cache, &src->rec, has_raw ? &raw : NULL, src->ops->fields(src, NULL, 0),
			       source_field, src, names, out);
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

int kt_ftrace_snap_sched(struct kt_sched_cache *cache, const struct ktrace_stream_record *r,
			 const void *data, bool names, struct ktrace_stream_sched *out)
{
	struct kt_ftrace_raw raw;
	bool has_raw = !kt_ftrace_snap_raw(data, &raw);

	return kt_sched_ftrace(cache, r, has_raw ? &raw : NULL, kt_ftrace_snap_fields(data, NULL, 0),
			       snap_field, data, names, out);
}
