// SPDX-License-Identifier: MIT
/*
 * The other derived tables: lost_events; counter_track/counter (power/cpu_frequency
 * and power/cpu_idle per CPU, kmem/rss_stat per thread, trace_marker "C|pid|name|value"
 * lines); slice, nested intervals per thread:
 *   - Darwin: an event with DBG_FUNC_START opens, the next DBG_FUNC_END of the same
 *     event id on the same thread closes (DBG_TRACE's string events excepted);
 *   - trace_marker (ftrace/print): "B|pid|name" opens, "E|pid" closes the innermost
 *     open one of the thread (the atrace convention);
 *   - KOFF: a record whose text starts with the word "begin" opens, one starting with
 *     "end" closes, matched by tag and correlator id (by tag and thread when the id
 *     is 0).
 * A slice still open at the end has dur -1; an end without its start is left out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/darwin.h>

#include "common/check.h"
#include "common/grow.h"
#include "sinks/sql/sql_int.h"

#define DBG_TRACE 7

/* ---- counters ---- */

struct track_key {
	const struct ktrace_sql *q;
	struct sql_counter_track want;
};

static bool track_eq(const void *ctx, uint32_t v)
{
	const struct track_key *k = ctx;
	const struct sql_counter_track *t = &k->q->tracks[v - 1];

	/* names are interned: the pointer is the name */
	return t->name == k->want.name && t->cpu == k->want.cpu && t->utid == k->want.utid &&
	       t->trace == k->want.trace;
}

static int64_t track_of(struct ktrace_sql *q, uint32_t trace, const char *name, int32_t cpu,
			int64_t utid)
{
	uint64_t h = kt_hash_mix((uint64_t)trace << 32 | (uint32_t)cpu,
				 (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ULL ^ (uint64_t)utid);
	struct track_key k = { q, { trace, name, cpu, utid } };
	uint32_t v;

	if (kt_map_find(&q->track_index, h, track_eq, &k, &v))
		return (int64_t)v;
	if (kt_grow((void **)&q->tracks, &q->cap_tracks, q->ntracks + 1, sizeof(*q->tracks)) ||
	    kt_map_add(&q->track_index, h, (uint32_t)q->ntracks + 1))
		return 0;
	q->tracks[q->ntracks++] = k.want;
	return (int64_t)q->ntracks;
}

static int counter(struct ktrace_sql *q, const struct ktrace_stream_record *r, const char *name,
		   size_t len, int32_t cpu, int64_t utid, double value, struct ktrace_error *err)
{
	const char *n = kt_intern(&q->strings, name, len);
	int64_t track = n ? track_of(q, r->source, n, cpu, utid) : 0;
	sqlite3_stmt *st = q->ins[INS_COUNTER];

	if (!track)
		return kt_error_oom(err);
	sqlite3_bind_int64(st, 1, ++q->next_counter_id);
	sqlite3_bind_int64(st, 2, q->traces[r->source].trace_id);
	sqlite3_bind_int64(st, 3, track);
	sqlite3_bind_int64(st, 4, (int64_t)r->ts);
	sqlite3_bind_double(st, 5, value);
	return sql_insert(q, INS_COUNTER, err);
}

static int cpu_counter(struct ktrace_sql *q, struct ktrace_stream *s,
		       const struct ktrace_stream_record *r, const char *name, struct ktrace_error *err)
{
	int64_t state, cpu;

	if (!sql_field_int(s, "state", &state) || !sql_field_int(s, "cpu_id", &cpu) || cpu < 0 || cpu > INT32_MAX)
		return 0;
	return counter(q, r, name, strlen(name), (int32_t)cpu, 0, (double)state, err);
}

static int rss_counter(struct ktrace_sql *q, struct ktrace_stream *s,
		       const struct ktrace_stream_record *r, int64_t utid, struct ktrace_error *err)
{
	static const char *const members[] = { "mem.rss.file", "mem.rss.anon", "mem.swap", "mem.rss.shmem" };
	int64_t curr, member, size;

	if (!sql_field_int(s, "member", &member) || !sql_field_int(s, "size", &size) || member < 0 || member > 3)
		return 0;
	/* the thread's own mm only: another task's is not known by thread */
	if (sql_field_int(s, "curr", &curr) && !curr)
		return 0;
	if (!utid)
		return 0;
	return counter(q, r, members[member], strlen(members[member]), -1, utid, (double)size, err);
}

/* ---- slices ---- */

/* Keys of the open-slice stacks: (a, b) with the kind in b's top bits. */
enum { KEY_DARWIN = 1, KEY_MARKER = 2, KEY_KOFF_ID = 3, KEY_KOFF_TID = 4 };

static uint64_t key_b(unsigned kind, uint32_t trace, uint64_t x)
{
	return (uint64_t)kind << 60 ^ (uint64_t)trace << 40 ^ x;
}

static int open_slice(struct ktrace_sql *q, uint64_t a, uint64_t b,
		      const struct ktrace_stream_record *r, int64_t utid, const char *category,
		      const char *name, int64_t arg_set_id, struct ktrace_error *err)
{
	struct sql_thread *t = sql_thread_at(q, utid);
	struct sql_open_slice *o;
	uint32_t top = 0, n;

	if (!category || !name)
		return kt_error_oom(err);
	kt_map_get(&q->open_index, a, b, &top);
	if (q->open_free) {
		n = q->open_free - 1;
		q->open_free = q->open[n].prev;
	} else {
		if (q->nopen >= UINT32_MAX - 1 ||
		    kt_grow((void **)&q->open, &q->cap_open, q->nopen + 1, sizeof(*q->open)))
			return kt_error_oom(err);
		n = (uint32_t)q->nopen++;
	}
	o = &q->open[n];
	memset(o, 0, sizeof(*o));
	o->ts = r->ts;
	o->cpu = r->cpu;
	o->utid = utid;
	o->category = category;
	o->name = name;
	o->id = ++q->next_slice_row;
	o->arg_set_id = arg_set_id;
	o->prev = top;
	o->trace = r->source;
	if (t) {
		struct sql_open_slice *parent = t->top_slice ? &q->open[t->top_slice - 1] : NULL;

		o->depth = t->open_slices++;
		/* the parent is the innermost slice still open on the thread */
		if (parent && parent->id == t->top_slice_id)
			o->parent_id = parent->id;
		o->thread_prev = t->top_slice;
		o->thread_prev_id = t->top_slice_id;
		t->top_slice = n + 1;
		t->top_slice_id = o->id;
	}
	if (kt_map_put(&q->open_index, a, b, n + 1))
		return kt_error_oom(err);
	return 0;
}

static int write_slice(struct ktrace_sql *q, const struct sql_open_slice *o, int64_t dur,
		       struct ktrace_error *err)
{
	sqlite3_stmt *st = q->ins[INS_SLICE];

	sqlite3_bind_int64(st, 1, o->id);
	sqlite3_bind_int64(st, 2, q->traces[o->trace].trace_id);
	sqlite3_bind_int64(st, 3, (int64_t)o->ts);
	sqlite3_bind_int64(st, 4, dur);
	sql_bind_i64(st, 5, o->cpu, o->cpu < 0);
	sql_bind_i64(st, 6, o->utid, !o->utid);
	sqlite3_bind_text(st, 7, o->category, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, o->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, o->depth);
	sql_bind_i64(st, 10, o->parent_id, !o->parent_id);
	sql_bind_i64(st, 11, o->arg_set_id, !o->arg_set_id);
	return sql_insert(q, INS_SLICE, err);
}

/* Takes node n off its thread's chain of open slices. */
static void thread_unlink(struct ktrace_sql *q, uint32_t n)
{
	struct sql_open_slice *o = &q->open[n];
	struct sql_thread *t = sql_thread_at(q, o->utid);

	if (!t)
		return;
	if (t->open_slices)
		t->open_slices--;
	if (t->top_slice == n + 1 && t->top_slice_id == o->id) {
		t->top_slice = o->thread_prev;
		t->top_slice_id = o->thread_prev_id;
		/* an enclosing slice closed before this one (not nested): the chain ends */
		if (t->top_slice && q->open[t->top_slice - 1].id != t->top_slice_id)
			t->top_slice = 0;
	}
}

static int close_slice(struct ktrace_sql *q, uint64_t a, uint64_t b, uint64_t ts,
		       struct ktrace_error *err)
{
	uint32_t top;
	struct sql_open_slice *o;
	int ret;

	if (!kt_map_get(&q->open_index, a, b, &top) || !top)
		return 0;
	o = &q->open[top - 1];
	ret = write_slice(q, o, ts >= o->ts ? (int64_t)(ts - o->ts) : 0, err);
	if (ret)
		return ret;
	thread_unlink(q, top - 1);
	if (kt_map_put(&q->open_index, a, b, o->prev))
		return kt_error_oom(err);
	o->id = 0;
	o->prev = q->open_free;
	q->open_free = top;
	return 0;
}

static int darwin_slice(struct ktrace_sql *q, const struct ktrace_stream_record *r, int64_t utid,
			int64_t id, struct ktrace_error *err)
{
	uint32_t func = KTRACE_DARWIN_FUNC(r->event_id);
	uint32_t ev = KTRACE_DARWIN_EVENTID(r->event_id);
	uint64_t a = (uint64_t)r->tid, b = key_b(KEY_DARWIN, r->source, ev);

	if (KTRACE_DARWIN_CLASS(ev) == DBG_TRACE)
		return 0;
	if (func == KTRACE_DARWIN_FUNC_START) {
		const char *cat = kt_intern(&q->strings, r->system, strlen(r->system));
		const char *name = kt_intern(&q->strings, r->name, strlen(r->name));

		return open_slice(q, a, b, r, utid, cat, name, id, err);
	}
	if (func == KTRACE_DARWIN_FUNC_END)
		return close_slice(q, a, b, r->ts, err);
	return 0;
}

/* trace_marker lines: "B|pid|name", "E|pid", "C|pid|name|value". */
static int marker(struct ktrace_sql *q, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		  int64_t utid, int64_t id, struct ktrace_error *err)
{
	struct ktrace_event_value f;
	const char *p, *end, *bar1, *bar2;
	uint64_t a = (uint64_t)r->tid, b = key_b(KEY_MARKER, r->source, 0);

	if (ktrace_stream_field_by_name(s, "buf", &f) || f.type != KTRACE_EVENT_STRING || f.len < 3)
		return 0;
	p = f.data;
	end = p + f.len;
	while (end > p && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	if (p[1] != '|' || end - p < 3)
		return 0;
	bar1 = memchr(p + 2, '|', (size_t)(end - p - 2));
	switch (p[0]) {
	case 'B': {
		const char *name, *cat;

		if (!bar1)
			return 0;
		name = kt_intern(&q->strings, bar1 + 1, (size_t)(end - bar1 - 1));
		cat = kt_intern(&q->strings, "trace_marker", 12);
		return open_slice(q, a, b, r, utid, cat, name, id, err);
	}
	case 'E':
		return close_slice(q, a, b, r->ts, err);
	case 'C': {
		char num[64];
		char *e;
		double v;
		int64_t pid, ctid;
		size_t n;

		if (!bar1 || !(bar2 = memchr(bar1 + 1, '|', (size_t)(end - bar1 - 1))))
			return 0;
		n = (size_t)(end - bar2 - 1);
		if (!n || n >= sizeof(num))
			return 0;
		memcpy(num, bar2 + 1, n);
		num[n] = 0;
		v = strtod(num, &e);
		if (e == num || *e)
			return 0;
		pid = strtoll(p + 2, &e, 10);
		if (e != bar1)
			return 0;
		/* (a negative pid: a counter of no thread) */
		if (sql_thread_id(q, r->source, pid, &ctid))
			return kt_error_oom(err);
		return counter(q, r, bar1 + 1, (size_t)(bar2 - bar1 - 1), -1, ctid, v, err);
	}
	default:
		return 0;
	}
}

static int koff_slice(struct ktrace_sql *q, struct ktrace_stream *s,
		      const struct ktrace_stream_record *r, int64_t utid, int64_t id,
		      struct ktrace_error *err)
{
	struct ktrace_event_value text, cid;
	const char *p, *name;
	uint32_t name_id;
	bool begin;
	uint64_t a, b;

	if (ktrace_stream_field_by_name(s, "text", &text) || text.type != KTRACE_EVENT_STRING)
		return 0;
	p = text.data;
	if (text.len >= 5 && !strncmp(p, "begin", 5) && (text.len == 5 || p[5] == ' '))
		begin = true;
	else if (text.len >= 3 && !strncmp(p, "end", 3) && (text.len == 3 || p[3] == ' '))
		begin = false;
	else
		return 0;
	/* (the name's number in the string table, not a hash of it: two names never
	 * share a stack) */
	if (kt_strtab_id(&q->strings, r->name, strlen(r->name), &name_id))
		return kt_error_oom(err);
	name = q->strings.strs[name_id].s;
	if (!ktrace_stream_field_by_name(s, "id", &cid) && cid.u) {
		a = cid.u;
		b = key_b(KEY_KOFF_ID, r->source, name_id);
	} else {
		a = (uint64_t)r->tid;
		b = key_b(KEY_KOFF_TID, r->source, name_id);
	}
	if (begin)
		return open_slice(q, a, b, r, utid, kt_intern(&q->strings, "koff", 4), name, id, err);
	return close_slice(q, a, b, r->ts, err);
}

int sql_derive_record(struct ktrace_sql *q, struct ktrace_stream *s,
		      const struct ktrace_stream_record *r, const struct sql_name *n, int64_t utid,
		      int64_t id, struct ktrace_error *err)
{
	struct sql_trace *tr = sql_trace_of(q, r->source);

	if (!tr)
		return 0;
	switch (tr->format) {
	case KTRACE_FORMAT_DARWIN_V3:
	case KTRACE_FORMAT_DARWIN_RAW:
		return darwin_slice(q, r, utid, id, err);
	case KTRACE_FORMAT_KOFF:
	case KTRACE_FORMAT_ELF:
		return koff_slice(q, s, r, utid, id, err);
	default:
		break;
	}
	switch (n->kind) {
	case SQL_EV_CPU_FREQ:
		return cpu_counter(q, s, r, "cpufreq", err);
	case SQL_EV_CPU_IDLE:
		return cpu_counter(q, s, r, "cpuidle", err);
	case SQL_EV_RSS:
		return rss_counter(q, s, r, utid, err);
	case SQL_EV_PRINT:
		return marker(q, s, r, utid, id, err);
	default:
		return 0;
	}
}

int sql_lost_record(struct ktrace_sql *q, const struct ktrace_stream_record *r,
		    struct ktrace_error *err)
{
	struct sql_trace *tr = sql_trace_of(q, r->source);
	sqlite3_stmt *st = q->ins[INS_LOST];

	if (!tr)
		return 0;
	if (r->lost <= (uint64_t)INT64_MAX - (uint64_t)tr->lost)
		tr->lost += (int64_t)r->lost;
	sqlite3_bind_int64(st, 1, tr->trace_id);
	sql_bind_i64(st, 2, r->cpu, r->cpu < 0);
	sqlite3_bind_int64(st, 3, (int64_t)r->ts);
	sql_bind_i64(st, 4, (int64_t)(r->lost & INT64_MAX), !r->lost);
	return sql_insert(q, INS_LOST, err);
}

int sql_derive_finish(struct ktrace_sql *q, struct ktrace_error *err)
{
	sqlite3_stmt *st = q->ins[INS_COUNTER_TRACK];
	int ret;

	/* open slices: dur -1, in the order they opened */
	for (size_t i = 0; i < q->nopen; i++) {
		struct sql_open_slice *o = &q->open[i];

		if (!o->id)
			continue;
		ret = write_slice(q, o, -1, err);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < q->ntracks; i++) {
		const struct sql_counter_track *t = &q->tracks[i];

		sqlite3_bind_int64(st, 1, (int64_t)i + 1);
		sqlite3_bind_int64(st, 2, q->traces[t->trace].trace_id);
		sqlite3_bind_text(st, 3, t->name, -1, SQLITE_STATIC);
		sql_bind_i64(st, 4, t->cpu, t->cpu < 0);
		sql_bind_i64(st, 5, t->utid, !t->utid);
		ret = sql_insert(q, INS_COUNTER_TRACK, err);
		if (ret)
			return ret;
	}
	return 0;
}
