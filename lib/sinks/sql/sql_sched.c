// SPDX-License-Identifier: MIT
/*
 * sched_slice and thread_state from the scheduler's events.
 *
 * Linux (one buffer per input: the first with a sched_switch, as instances record the
 * same CPUs): sched_switch on a CPU ends the slice of the thread that ran there (end_state:
 * prev_state as the kernel's print fmt prints it) and starts the next thread's; the
 * first switch of a CPU only starts one, and the slice still open at the end has
 * dur -1. A thread switched out gets a thread_state interval in its prev_state (S, D,
 * R+...) until it is woken (sched_waking, sched_wakeup, sched_wakeup_new) or switched
 * in again; a woken thread is runnable ("R", with its waker and the wakeup's target
 * CPU) until the switch that puts it on a CPU: the wakeup latency.
 *
 * Darwin: MACH_SCHED and MACH_STACK_HANDOFF (DBG_MACH_SCHED codes 0 and 2) are the
 * context switches, logged by the thread going off the CPU with arg1 its reason (AST
 * bits), arg2 the thread coming on, arg3/arg4 their priorities; end_state is "R+" when
 * the reason has AST_PREEMPT, else "S". MACH_MAKE_RUNNABLE (code 6) wakes arg1.
 *
 * Process relations: task_newtask (clone flags) and sched_process_fork name the parent;
 * sched_process_exec gives the process its command line (the file executed).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ktrace/darwin.h>
#include <ktrace/event.h>

#include "common/check.h"
#include "sinks/sql/sql_int.h"

#define DARWIN_SCHED_CLASS 0x0140   /* class MACH, subclass DBG_MACH_SCHED */
#define DARWIN_MACH_SCHED 0x0
#define DARWIN_STACK_HANDOFF 0x2
#define DARWIN_MAKE_RUNNABLE 0x6
#define AST_PREEMPT 0x1
#define CLONE_THREAD 0x00010000

bool sql_field_int(struct ktrace_stream *s, const char *name, int64_t *v)
{
	struct ktrace_event_value f;

	if (ktrace_stream_field_by_name(s, name, &f))
		return false;
	if (f.type == KTRACE_EVENT_SIGNED)
		*v = f.i;
	else if (f.type == KTRACE_EVENT_UNSIGNED)
		*v = (int64_t)f.u;
	else
		return false;
	return true;
}

static size_t field_str(struct ktrace_stream *s, const char *name, const char **p)
{
	struct ktrace_event_value f;

	if (ktrace_stream_field_by_name(s, name, &f) || f.type != KTRACE_EVENT_STRING)
		return 0;
	*p = f.data;
	return f.len;
}

static int name_thread(struct ktrace_sql *q, int64_t utid, struct ktrace_stream *s, const char *field)
{
	const char *p = NULL;
	size_t n = field_str(s, field, &p);
	return n ? sql_thread_set_name(q, utid, p, n) : 0;
}

/* Ends the thread's open state interval at ts (a thread_state row). */
static int end_state(struct ktrace_sql *q, int64_t utid, uint64_t ts, struct ktrace_error *err)
{
	struct sql_thread *t = sql_thread_at(q, utid);
	sqlite3_stmt *st = q->ins[INS_THREAD_STATE];

	if (!t || (t->state != SQL_TS_OFF && t->state != SQL_TS_WOKEN))
		return 0;
	t->state = SQL_TS_UNKNOWN;
	sqlite3_bind_int64(st, 1, t->state_id);
	sqlite3_bind_int64(st, 2, q->traces[sql_thread_entry(q, utid)->scope].trace_id);
	sqlite3_bind_int64(st, 3, (int64_t)t->state_ts);
	sqlite3_bind_int64(st, 4, ts >= t->state_ts ? (int64_t)(ts - t->state_ts) : 0);
	sql_bind_i64(st, 5, t->state_cpu, t->state_cpu < 0);
	sqlite3_bind_int64(st, 6, utid);
	sql_bind_text(st, 7, t->state_name ? t->state_name : "", false);
	sql_bind_i64(st, 8, t->waker_utid, !t->waker_utid);
	return sql_insert(q, INS_THREAD_STATE, err);
}

/* Ends the CPU's open slice at ts (still_open: the trace ended first, dur -1). end:
 * its end state (NULL: unknown). */
static int end_slice(struct ktrace_sql *q, uint32_t trace, int32_t cpu, struct sql_cpu *c,
		     uint64_t ts, bool still_open, const char *end, struct ktrace_error *err)
{
	sqlite3_stmt *st = q->ins[INS_SCHED_SLICE];

	if (!c->open)
		return 0;
	c->open = false;
	sqlite3_bind_int64(st, 1, c->id);
	sqlite3_bind_int64(st, 2, q->traces[trace].trace_id);
	sqlite3_bind_int64(st, 3, (int64_t)c->ts);
	sqlite3_bind_int64(st, 4, still_open ? -1 : ts >= c->ts ? (int64_t)(ts - c->ts) : 0);
	sqlite3_bind_int64(st, 5, cpu);
	sqlite3_bind_int64(st, 6, c->utid);
	sql_bind_text(st, 7, end, !end);
	sql_bind_i64(st, 8, c->priority, !c->has_priority);
	return sql_insert(q, INS_SCHED_SLICE, err);
}

/* A context switch on cpu at ts: prev goes off in state (interned), next comes on. */
static int switch_threads(struct ktrace_sql *q, uint32_t trace, int32_t cpu, uint64_t ts,
			  int64_t prev, const char *state, int64_t next, bool has_prio, int64_t prio,
			  struct ktrace_error *err)
{
	struct sql_cpu *c = sql_cpu_of(q, trace, cpu);
	struct sql_thread *pt = sql_thread_at(q, prev), *nt = sql_thread_at(q, next);
	int ret;

	if (!c)
		return cpu < 0 || cpu >= 65536 ? 0 : kt_error_oom(err);
	if (c->open) {
		bool same = c->utid == prev;
		struct sql_thread *ct = sql_thread_at(q, c->utid);

		ret = end_slice(q, trace, cpu, c, ts, false, same ? state : NULL, err);
		if (ret)
			return ret;
		if (!same && ct && ct->state == SQL_TS_RUNNING && ct->state_cpu == cpu)
			ct->state = SQL_TS_UNKNOWN;
	}
	if (pt && !pt->is_idle) {
		/* a thread switched out while woken keeps its runnable interval */
		if (pt->state != SQL_TS_WOKEN) {
			pt->state = SQL_TS_OFF;
			pt->state_id = ++q->next_state_id;
			pt->state_ts = ts;
			pt->state_cpu = cpu;
			pt->state_name = state;
			pt->waker_utid = 0;
		}
	} else if (pt) {
		pt->state = SQL_TS_UNKNOWN;
	}
	if (nt) {
		ret = end_state(q, next, ts, err);
		if (ret)
			return ret;
		nt->state = SQL_TS_RUNNING;
		nt->state_cpu = cpu;
		c->open = true;
		c->id = ++q->next_sched_id;
		c->utid = next;
		c->ts = ts;
		c->priority = prio;
		c->has_priority = has_prio;
	}
	return 0;
}

/* woken becomes runnable at ts (woken by waker, to run on cpu). */
static int wake(struct ktrace_sql *q, int64_t woken, int64_t waker, int32_t cpu, uint64_t ts,
		struct ktrace_error *err)
{
	struct sql_thread *t = sql_thread_at(q, woken);
	int ret;

	if (!t || t->is_idle || t->state == SQL_TS_RUNNING || t->state == SQL_TS_WOKEN)
		return 0;
	/* a preempted thread is runnable already */
	if (t->state == SQL_TS_OFF && t->state_name && t->state_name[0] == 'R')
		return 0;
	ret = end_state(q, woken, ts, err);
	if (ret)
		return ret;
	t->state = SQL_TS_WOKEN;
	t->state_id = ++q->next_state_id;
	t->state_ts = ts;
	t->state_cpu = cpu;
	t->state_name = kt_intern(&q->strings, "R", 1);
	t->waker_utid = waker;
	return t->state_name ? 0 : kt_error_oom(err);
}

static const char *intern_state(struct ktrace_sql *q, const char *text)
{
	return kt_intern(&q->strings, text, strlen(text));
}

static int linux_switch(struct ktrace_sql *q, struct ktrace_stream *s,
			const struct ktrace_stream_record *r, struct ktrace_error *err)
{
	struct sql_trace *tr = sql_trace_of(q, r->source);
	int64_t prev_pid, next_pid, prev_state = 0, prio = 0;
	bool has_prio, has_state;
	int64_t prev, next;
	const char *state = NULL;
	char text[32];
	int ret;

	if (!tr || !sql_field_int(s, "prev_pid", &prev_pid) || !sql_field_int(s, "next_pid", &next_pid))
		return 0;
	has_state = sql_field_int(s, "prev_state", &prev_state);
	has_prio = sql_field_int(s, "next_prio", &prio);
	/* a negative pid (damage) is no thread (0), as the record's own thread can be */
	if (sql_thread_id(q, r->source, prev_pid, &prev) || sql_thread_id(q, r->source, next_pid, &next))
		return kt_error_oom(err);
	if ((ret = name_thread(q, prev, s, "prev_comm")) || (ret = name_thread(q, next, s, "next_comm")))
		return ktrace_error_set(err, ret, "out of memory");
	if (has_state) {
		const struct ktrace_event *ev = ktrace_stream_event(s);

		if (ev && ev != tr->switch_ev) {
			sql_prev_state_free(tr->states);
			tr->states = sql_prev_state_parse(ktrace_event_print_args(ev));
			tr->switch_ev = ev;
		}
		sql_prev_state_text(tr->states, (uint64_t)prev_state, text, sizeof(text));
		state = intern_state(q, text);
		if (!state)
			return kt_error_oom(err);
	}
	return switch_threads(q, r->source, r->cpu, r->ts, prev, state, next, has_prio, prio, err);
}

static int linux_wake(struct ktrace_sql *q, struct ktrace_stream *s,
		      const struct ktrace_stream_record *r, int64_t utid, struct ktrace_error *err)
{
	int64_t pid, cpu, woken;

	if (!sql_field_int(s, "pid", &pid))
		return 0;
	if (!sql_field_int(s, "target_cpu", &cpu) || cpu < 0 || cpu > INT32_MAX)
		cpu = -1;
	if (sql_thread_id(q, r->source, pid, &woken) || name_thread(q, woken, s, "comm"))
		return kt_error_oom(err);
	return wake(q, woken, utid, (int32_t)cpu, r->ts, err);
}

/* The parent of a new process: the process of the thread that made it. */
static int new_task(struct ktrace_sql *q, uint32_t trace, int64_t parent_utid, int64_t child_tid,
		    bool thread, bool known)
{
	struct sql_process *p;
	int64_t child, upid, parent_upid;
	const struct kt_thread *parent;

	if (sql_thread_id(q, trace, child_tid, &child))
		return -ENOMEM;
	parent = sql_thread_entry(q, parent_utid);   /* (after the add: it moves them) */
	if (!known)
		return 0;
	if (thread)
		return parent && parent->pid >= 0 ? sql_thread_set_pid(q, child, parent->pid) : 0;
	if (sql_thread_set_pid(q, child, child_tid))
		return -ENOMEM;
	if (sql_process_id(q, trace, child_tid, &upid))
		return -ENOMEM;
	p = sql_process_at(q, upid);
	if (p && parent && parent->pid >= 0 && parent->pid != child_tid) {
		if (sql_process_id(q, trace, parent->pid, &parent_upid))
			return -ENOMEM;
		p->parent_upid = parent_upid;
	}
	return 0;
}

static int fork_event(struct ktrace_sql *q, struct ktrace_stream *s,
		      const struct ktrace_stream_record *r, int64_t utid, bool newtask)
{
	int64_t child, flags = 0, parent_pid;
	int64_t parent = utid;
	bool known = newtask;

	if (!sql_field_int(s, newtask ? "pid" : "child_pid", &child) || child < 0)
		return 0;
	if (!newtask) {
		if (sql_field_int(s, "parent_pid", &parent_pid) &&
		    sql_thread_id(q, r->source, parent_pid, &parent))
			return -ENOMEM;
	} else if (!sql_field_int(s, "clone_flags", &flags)) {
		known = false;
	}
	if (new_task(q, r->source, parent, child, (flags & CLONE_THREAD) != 0, known))
		return -ENOMEM;
	return name_thread(q, sql_thread_find(q, r->source, child), s,
			   newtask ? "comm" : "child_comm");
}

static int exec_event(struct ktrace_sql *q, struct ktrace_stream *s,
		      const struct ktrace_stream_record *r, int64_t utid)
{
	int64_t pid, upid;
	const char *file = NULL;
	size_t n = field_str(s, "filename", &file);
	const struct kt_thread *t = sql_thread_entry(q, utid);
	struct sql_process *p;

	if (!t)
		return 0;
	if (!sql_field_int(s, "pid", &pid))
		pid = t->pid >= 0 ? t->pid : t->id;
	if (sql_thread_set_pid(q, utid, pid) || sql_process_id(q, r->source, pid, &upid))
		return -ENOMEM;
	p = sql_process_at(q, upid);
	if (p && n && sql_set_text(&p->cmdline, file, n))
		return -ENOMEM;
	return 0;
}

static int darwin_sched(struct ktrace_sql *q, struct ktrace_stream *s,
			const struct ktrace_stream_record *r, int64_t utid, struct ktrace_error *err)
{
	uint32_t id = r->event_id;
	uint32_t code = KTRACE_DARWIN_CODE(id);
	struct ktrace_event_value a[4];
	const char *state;

	if ((id >> 16) != DARWIN_SCHED_CLASS)
		return 0;
	if (code != DARWIN_MACH_SCHED && code != DARWIN_STACK_HANDOFF && code != DARWIN_MAKE_RUNNABLE)
		return 0;
	static const char *const args[4] = { "arg1", "arg2", "arg3", "arg4" };

	for (int i = 0; i < 4; i++)
		if (ktrace_stream_field_by_name(s, args[i], &a[i]))
			return 0;
	if (code == DARWIN_MAKE_RUNNABLE) {
		int64_t woken;

		if (sql_thread_id(q, r->source, (int64_t)(a[0].u & INT64_MAX), &woken))
			return kt_error_oom(err);
		return wake(q, woken, utid, -1, r->ts, err);
	}
	{
		int64_t next;

		state = intern_state(q, a[0].u & AST_PREEMPT ? "R+" : "S");
		if (sql_thread_id(q, r->source, (int64_t)(a[1].u & INT64_MAX), &next) || !state)
			return kt_error_oom(err);
		return switch_threads(q, r->source, r->cpu, r->ts, utid, state, next, true,
				      (int64_t)a[3].u, err);
	}
}

int sql_sched_record(struct ktrace_sql *q, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		     const struct sql_name *n, int64_t utid, int64_t id, struct ktrace_error *err)
{
	struct sql_trace *tr = sql_trace_of(q, r->source);

	(void)id;
	if (!tr)
		return 0;
	if (tr->format == KTRACE_FORMAT_DARWIN_V3 || tr->format == KTRACE_FORMAT_DARWIN_RAW)
		return darwin_sched(q, s, r, utid, err);
	switch (n->kind) {
	case SQL_EV_SWITCH:
		/* one buffer's switches: instances record the same CPUs */
		if (tr->sched_buffer < 0)
			tr->sched_buffer = r->buffer;
		if (tr->sched_buffer != r->buffer)
			return 0;
		return linux_switch(q, s, r, err);
	case SQL_EV_WAKE:
		if (tr->sched_buffer >= 0 && tr->sched_buffer != r->buffer)
			return 0;
		return linux_wake(q, s, r, utid, err);
	case SQL_EV_FORK:
	case SQL_EV_NEWTASK:
		if (fork_event(q, s, r, utid, n->kind == SQL_EV_NEWTASK))
			return kt_error_oom(err);
		return 0;
	case SQL_EV_EXEC:
		if (exec_event(q, s, r, utid))
			return kt_error_oom(err);
		return 0;
	default:
		return 0;
	}
}

int sql_sched_finish(struct ktrace_sql *q, struct ktrace_error *err)
{
	int ret;

	for (uint32_t t = 0; t < q->npaths; t++)
		for (size_t c = 0; c < q->ncpus_state[t]; c++) {
			ret = end_slice(q, t, (int32_t)c, &q->cpus_state[t][c], 0, true, NULL, err);
			if (ret)
				return ret;
		}
	/* intervals still open: dur -1 */
	for (size_t i = 0; i < q->threads.n; i++) {
		struct sql_thread *t = kt_threads_ext(&q->threads, i);
		sqlite3_stmt *st = q->ins[INS_THREAD_STATE];

		if (t->state != SQL_TS_OFF && t->state != SQL_TS_WOKEN)
			continue;
		t->state = SQL_TS_UNKNOWN;
		sqlite3_bind_int64(st, 1, t->state_id);
		sqlite3_bind_int64(st, 2, q->traces[q->threads.v[i].scope].trace_id);
		sqlite3_bind_int64(st, 3, (int64_t)t->state_ts);
		sqlite3_bind_int64(st, 4, -1);
		sql_bind_i64(st, 5, t->state_cpu, t->state_cpu < 0);
		sqlite3_bind_int64(st, 6, (int64_t)i + 1);
		sql_bind_text(st, 7, t->state_name ? t->state_name : "", false);
		sql_bind_i64(st, 8, t->waker_utid, !t->waker_utid);
		ret = sql_insert(q, INS_THREAD_STATE, err);
		if (ret)
			return ret;
	}
	return 0;
}
