// SPDX-License-Identifier: MIT
/*
 * The scheduling tables from the model (engine_model.h, docs/model.md): sched_slice
 * (its Running intervals), thread_state (every interval of every thread but the idle
 * one), wakeup_latency, and the irq, softirq and syscall rows of slice. Beside it, what
 * the scheduler's records tell of threads and processes: names (sched_switch, the
 * wakeups), parents (task_newtask's clone flags, sched_process_fork) and command lines
 * (sched_process_exec: the file executed).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/check.h"
#include "sinks/sql/sql_int.h"

#define CLONE_THREAD 0x00010000

bool sql_field_int(struct ktrace_stream *s, const char *name, int64_t *v)
{
	struct ktrace_event_value f;

	return !ktrace_stream_field_by_name(s, name, &f) && kt_value_int(&f, v);
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

/* Names the thread whose id is field pidf after field commf (a negative id is no thread). */
static int name_task(struct ktrace_sql *q, uint32_t trace, struct ktrace_stream *s,
		     const char *pidf, const char *commf)
{
	int64_t pid, utid;

	if (!sql_field_int(s, pidf, &pid) || pid < 0)
		return 0;
	if (sql_thread_id(q, trace, pid, &utid))
		return -ENOMEM;
	return name_thread(q, utid, s, commf);
}

/* ---- the model's intervals (engine_model.h, docs/model.md) ---- */

static int model_state(void *ctx, const struct kt_model_state *m, struct ktrace_error *err)
{
	struct ktrace_sql *q = ctx;
	int64_t trace_id = q->traces[m->input].trace_id, utid, waker = 0;
	sqlite3_stmt *st;
	int ret;

	if (sql_thread_id(q, m->input, m->tid, &utid) ||
	    (m->waker_tid >= 0 && sql_thread_id(q, m->input, m->waker_tid, &waker)))
		return kt_error_oom(err);
	if (m->state[0] == 'R' && !strcmp(m->state, "Running")) {
		st = q->ins[INS_SCHED_SLICE];
		sqlite3_bind_int64(st, 1, ++q->next_sched_id);
		sqlite3_bind_int64(st, 2, trace_id);
		sqlite3_bind_int64(st, 3, (int64_t)m->ts);
		sqlite3_bind_int64(st, 4, m->dur);
		sqlite3_bind_int64(st, 5, m->cpu);
		sqlite3_bind_int64(st, 6, utid);
		sql_bind_text(st, 7, m->end_state, !m->end_state);
		sql_bind_i64(st, 8, m->priority, !m->has_priority);
		ret = sql_insert(q, INS_SCHED_SLICE, err);
		if (ret)
			return ret;
	}
	/* the idle thread has CPU slices, no states */
	if (m->tid == 0)
		return 0;
	st = q->ins[INS_THREAD_STATE];
	sqlite3_bind_int64(st, 1, ++q->next_state_id);
	sqlite3_bind_int64(st, 2, trace_id);
	sqlite3_bind_int64(st, 3, (int64_t)m->ts);
	sqlite3_bind_int64(st, 4, m->dur);
	sql_bind_i64(st, 5, m->cpu, m->cpu < 0);
	sqlite3_bind_int64(st, 6, utid);
	sql_bind_text(st, 7, m->state, false);
	sql_bind_i64(st, 8, waker, !waker);
	return sql_insert(q, INS_THREAD_STATE, err);
}

static int model_latency(void *ctx, const struct kt_model_latency *l, struct ktrace_error *err)
{
	struct ktrace_sql *q = ctx;
	sqlite3_stmt *st = q->ins[INS_WAKEUP_LATENCY];
	int64_t utid, waker = 0;

	if (sql_thread_id(q, l->input, l->tid, &utid) ||
	    (l->waker_tid >= 0 && sql_thread_id(q, l->input, l->waker_tid, &waker)))
		return kt_error_oom(err);
	sqlite3_bind_int64(st, 1, q->traces[l->input].trace_id);
	sqlite3_bind_int64(st, 2, utid);
	sqlite3_bind_int64(st, 3, (int64_t)l->ts);
	sqlite3_bind_int64(st, 4, l->dur);
	sqlite3_bind_int64(st, 5, l->cpu);
	sql_bind_i64(st, 6, waker, !waker);
	return sql_insert(q, INS_WAKEUP_LATENCY, err);
}

static int model_kslice(void *ctx, const struct kt_model_kslice *k, struct ktrace_error *err)
{
	struct ktrace_sql *q = ctx;
	sqlite3_stmt *st = q->ins[INS_SLICE];
	int64_t utid = 0;

	if (k->tid >= 0 && sql_thread_id(q, k->input, k->tid, &utid))
		return kt_error_oom(err);
	sqlite3_bind_int64(st, 1, ++q->next_slice_row);
	sqlite3_bind_int64(st, 2, q->traces[k->input].trace_id);
	sqlite3_bind_int64(st, 3, (int64_t)k->ts);
	sqlite3_bind_int64(st, 4, k->dur);
	sql_bind_i64(st, 5, k->cpu, k->cpu < 0);
	sql_bind_i64(st, 6, utid, !utid);
	sql_bind_text(st, 7, k->category, false);
	sql_bind_text(st, 8, k->name, false);
	sqlite3_bind_int64(st, 9, 0);
	sql_bind_i64(st, 10, 0, true);
	sql_bind_i64(st, 11, 0, true);
	return sql_insert(q, INS_SLICE, err);
}

int sql_model_open(struct ktrace_sql *q, struct ktrace_error *err, const char **err_path)
{
	const struct kt_model_ops ops = {
		.ctx = q, .state = model_state, .latency = model_latency, .kslice = model_kslice,
	};

	return kt_model_open(&q->model, (const char *const *)q->open_paths, q->npaths, &q->sopts,
			     &ops, err, err_path);
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

int sql_sched_record(struct ktrace_sql *q, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		     const struct sql_name *n, int64_t utid, int64_t id, struct ktrace_error *err)
{
	int ret = 0;

	(void)id;
	switch (n->kind) {
	case SQL_EV_SWITCH:
		if ((ret = name_task(q, r->source, s, "prev_pid", "prev_comm")) ||
		    (ret = name_task(q, r->source, s, "next_pid", "next_comm")))
			return kt_error_oom(err);
		return 0;
	case SQL_EV_WAKE:
		if (name_task(q, r->source, s, "pid", "comm"))
			return kt_error_oom(err);
		return 0;
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
		return ret;
	}
}
