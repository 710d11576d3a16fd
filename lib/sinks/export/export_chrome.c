// SPDX-License-Identifier: MIT
/*
 * `ktrace export --format json`: the event stream in Chrome's trace event format, the
 * {"traceEvents": [...]} object form, written as a stream (lib/common/json.c), one
 * event per line:
 *
 * - the CPUs are the threads of a process "CPUs" (pid CPU_PID, tid = the CPU): what
 *   ran on each CPU is a complete event ("ph": "X") per scheduling slice of the model
 *   (engine_model.h, docs/model.md: the Running intervals of sched_slice), named after
 *   the thread, args tid, prio (when a switch gave it) and the state it left in (none
 *   when the slice ran into missing data); a slice still open at the end lasts to the
 *   input's end, as the model counts it;
 * - every other record is an instant event of its thread ("ph": "i", "s": "t") named
 *   after the event, its system as "cat", its fields in args (arrays as arrays, other
 *   bytes in hex) and its CPU as common_cpu;
 * - lost events are global instants ("s": "g") "lost events" with args cpu and count;
 * - "ph": "M" process_name and thread_name for the threads the inputs name and those
 *   the records name later (again when a name changes).
 * - several inputs stay apart: the pids and tids of input i are written plus i << 32
 *   (input 0's as they are), so the same pid in two inputs is two processes.
 *
 * Times ("ts", "dur") are in microseconds with three decimals, so nanoseconds survive.
 */
#include <ktrace/view.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/opts.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "engine/engine.h"
#include "sinks/export/export_order.h"

#define CPU_PID 2147483647            /* the "CPUs" process: no real pid reaches it */
#define MAX_CPUS 65536
#define PROGRESS_EVERY 65536

/* thread_table flags */
enum { T_NAMED = 1 };

struct cj_cpu {
	bool seen;
	/* the last switch: the thread it put on, under the name it had then */
	uint64_t switch_ts;
	int64_t switch_tid;
	char switch_comm[KTRACE_STREAM_COMM_MAX];
};

struct cj {
	struct ktrace_stream *s;
	struct kt_model *model;
	struct kt_json j;
	struct cj_cpu *cpus;
	size_t ncpus;
	struct kt_threads threads;    /* flags: T_NAMED when its thread_name went out */
	struct kt_threads procs;      /* by pid: T_NAMED when its process_name went out */
	char *hex;                    /* bytes values in hex */
	size_t hex_cap;
};

static bool no_name(const char *comm)
{
	return !*comm || (*comm == '<' && (!strcmp(comm, "<...>") || !strcmp(comm, "<idle>")));
}

static void key_str(struct kt_json *j, const char *k, const char *v)
{
	kt_json_key_cstr(j, k);
	kt_json_string(j, v, strlen(v));
}

static void key_i64(struct kt_json *j, const char *k, int64_t v)
{
	kt_json_key_cstr(j, k);
	kt_json_i64(j, v);
}

static void key_ts(struct kt_json *j, const char *k, uint64_t ns)
{
	kt_json_key_cstr(j, k);
	kt_json_fixed(j, ns, 3);
}

/* {"ph": "M", "pid": pid[, "tid": tid], "name": what, "args": {"name": name}} */
static void meta(struct cj *c, const char *what, int64_t pid, int64_t tid, const char *name)
{
	struct kt_json *j = &c->j;

	kt_json_begin_object(j, true);
	key_str(j, "ph", "M");
	key_str(j, "name", what);
	key_i64(j, "pid", pid);
	if (tid >= 0)
		key_i64(j, "tid", tid);
	kt_json_key_cstr(j, "args");
	kt_json_begin_object(j, true);
	key_str(j, "name", name);
	kt_json_end_object(j);
	kt_json_end_object(j);
}

static int64_t pid_of(const struct kt_thread *th)
{
	return th->pid >= 0 ? th->pid : th->id;
}

/* A pid or tid of input as the JSON writes it: inputs apart. */
static int64_t json_id(uint32_t input, int64_t id)
{
	return id + (int64_t)input * 4294967296;
}

/* thread_name of th (and process_name of its process when not out yet). */
static int name_thread(struct cj *c, struct kt_thread *th)
{
	int64_t pid = pid_of(th);
	struct kt_thread *p;

	const char *comm = kt_thread_name(th);

	meta(c, "thread_name", json_id(th->scope, pid), json_id(th->scope, th->id), comm);
	th->flags |= T_NAMED;
	p = kt_threads_add(&c->procs, th->scope, pid);
	if (!p)
		return -ENOMEM;
	/* a process is named after its main thread, else after the first thread met */
	if (!(p->flags & T_NAMED) || (th->id == pid && strcmp(kt_thread_name(p), comm))) {
		if (kt_thread_set_name(&c->procs, p, comm, strlen(comm)) < 0)
			return -ENOMEM;
		p->flags |= T_NAMED;
		meta(c, "process_name", json_id(th->scope, pid), -1, comm);
	}
	return 0;
}

/* A thread the records name: its names go out when new or changed. */
static int learn(struct cj *c, uint32_t input, int64_t tid, int64_t pid, const char *comm)
{
	struct kt_thread *th;

	if (tid < 0 || no_name(comm))
		return 0;
	th = kt_threads_find(&c->threads, input, tid);
	if (th && (th->flags & T_NAMED) && !strncmp(kt_thread_name(th), comm, KTRACE_STREAM_COMM_MAX - 1))
		return 0;
	if (!th && !(th = kt_threads_add(&c->threads, input, tid)))
		return -ENOMEM;
	if (pid >= 0 && th->pid < 0)
		th->pid = pid;
	if (kt_thread_set_name(&c->threads, th, comm, strlen(comm)) < 0)
		return -ENOMEM;
	return name_thread(c, th);
}

static struct cj_cpu *get_cpu(struct cj *c, const struct ktrace_stream_record *r, int *err)
{
	uint32_t cpu = r->cpu < 0 ? 0 : (uint32_t)r->cpu;
	char name[32];

	if (cpu >= MAX_CPUS) {
		*err = -ERANGE;
		return NULL;
	}
	if (cpu >= c->ncpus) {
		size_t n = c->ncpus ? c->ncpus : 8;
		struct cj_cpu *v;

		while (n <= cpu)
			n *= 2;
		v = kt_realloc_array(c->cpus, n, sizeof(*v));
		if (!v) {
			*err = -ENOMEM;
			return NULL;
		}
		memset(v + c->ncpus, 0, (n - c->ncpus) * sizeof(*v));
		c->cpus = v;
		c->ncpus = n;
	}
	if (!c->cpus[cpu].seen) {
		struct kt_json *j = &c->j;

		c->cpus[cpu].seen = true;
		snprintf(name, sizeof(name), "CPU %u", cpu);
		meta(c, "thread_name", CPU_PID, cpu, name);
		kt_json_begin_object(j, true);
		key_str(j, "ph", "M");
		key_str(j, "name", "thread_sort_index");
		key_i64(j, "pid", CPU_PID);
		key_i64(j, "tid", cpu);
		kt_json_key_cstr(j, "args");
		kt_json_begin_object(j, true);
		key_i64(j, "sort_index", cpu);
		kt_json_end_object(j);
		kt_json_end_object(j);
	}
	return &c->cpus[cpu];
}

/* One scheduling slice of a CPU. state: the state it left in, NULL still running. */
static void slice(struct cj *c, uint32_t cpu, uint64_t start, uint64_t end, int64_t tid,
		  const char *comm, const int32_t *prio, const char *state)
{
	struct kt_json *j = &c->j;
	char tname[32];

	if (no_name(comm)) {
		snprintf(tname, sizeof(tname), "%lld", (long long)tid);
		comm = tname;
	}
	kt_json_begin_object(j, true);
	key_str(j, "ph", "X");
	key_str(j, "cat", "sched");
	key_str(j, "name", comm);
	key_i64(j, "pid", CPU_PID);
	key_i64(j, "tid", cpu);
	key_ts(j, "ts", start);
	key_ts(j, "dur", end > start ? end - start : 0);
	kt_json_key_cstr(j, "args");
	kt_json_begin_object(j, true);
	key_i64(j, "tid", tid);
	if (prio)
		key_i64(j, "prio", *prio);
	if (state)
		key_str(j, "end_state", state);
	kt_json_end_object(j);
	kt_json_end_object(j);
}

/* A Running interval of the model: a slice of its CPU (one still open lasts to the
 * input's end: kt_model_state_ns). */
static int model_slice(void *ctx, const struct kt_model_state *m, struct ktrace_error *err)
{
	struct cj *c = ctx;
	const struct kt_thread *th;
	uint64_t end;

	(void)err;
	if (strcmp(m->state, "Running") || m->cpu < 0 || (size_t)m->cpu >= c->ncpus)
		return 0;
	const struct cj_cpu *cc = &c->cpus[m->cpu];
	const char *comm;

	/* named as the switch that began it named it (a slice begun by a thread's records:
	 * as the thread is named now) */
	if (cc->switch_tid == m->tid && cc->switch_ts == m->ts) {
		comm = cc->switch_comm;
	} else {
		th = kt_threads_find(&c->threads, m->input, m->tid);
		comm = th ? kt_thread_name(th) : "";
	}
	end = m->ts + kt_model_state_ns(c->model, m);
	slice(c, (uint32_t)m->cpu, m->ts, end, m->tid, comm,
	      m->has_priority ? &m->priority : NULL, m->end_state);
	return 0;
}

static void value(struct cj *c, const struct ktrace_event_value *v)
{
	struct kt_json *j = &c->j;

	switch (v->type) {
	case KTRACE_EVENT_SIGNED:
		kt_json_i64(j, v->i);
		break;
	case KTRACE_EVENT_UNSIGNED:
		kt_json_u64(j, v->u);
		break;
	case KTRACE_EVENT_STRING:
		kt_json_string(j, v->data, v->len);
		break;
	case KTRACE_EVENT_ARRAY:
		kt_json_begin_array(j, true);
		for (size_t k = 0; k < v->count; k++) {
			uint64_t x = ktrace_event_array_at(v, k);

			if (v->elem_signed)
				kt_json_i64(j, (int64_t)x);
			else
				kt_json_u64(j, x);
		}
		kt_json_end_array(j);
		break;
	case KTRACE_EVENT_BYTES:
		if (kt_grow((void **)&c->hex, &c->hex_cap, (size_t)v->len * 2 + 1, 1)) {
			kt_json_null(j);
			break;
		}
		kt_fmt_hex_bytes(c->hex, v->data, v->len);
		kt_json_string(j, c->hex, (size_t)v->len * 2);
		break;
	}
}

static void instant(struct cj *c, const struct ktrace_stream_record *r)
{
	struct kt_json *j = &c->j;
	const struct kt_thread *th = r->tid >= 0 ? kt_threads_find(&c->threads, r->source, r->tid)
						 : NULL;
	int64_t tid = r->tid >= 0 ? r->tid : 0;
	int64_t pid = r->pid >= 0 ? r->pid : th && th->pid >= 0 ? th->pid : tid;
	struct ktrace_event_value vals[64];
	size_t n = ktrace_stream_fields(c->s, vals, 64);

	kt_json_begin_object(j, true);
	key_str(j, "ph", "i");
	key_str(j, "s", "t");
	key_str(j, "cat", *r->system ? r->system : "unknown");
	key_str(j, "name", *r->name ? r->name : "unknown");
	key_i64(j, "pid", json_id(r->source, pid));
	key_i64(j, "tid", json_id(r->source, tid));
	key_ts(j, "ts", r->ts);
	kt_json_key_cstr(j, "args");
	kt_json_begin_object(j, true);
	for (size_t i = 0; i < n; i++) {
		struct ktrace_event_value v;

		if (i < 64)
			v = vals[i];
		else if (ktrace_stream_field(c->s, i, &v))
			continue;
		kt_json_key_cstr(j, v.name);
		value(c, &v);
	}
	if (r->cpu >= 0)
		key_i64(j, "common_cpu", r->cpu);
	kt_json_end_object(j);
	kt_json_end_object(j);
}

static void lost(struct cj *c, const struct ktrace_stream_record *r)
{
	struct kt_json *j = &c->j;

	kt_json_begin_object(j, true);
	key_str(j, "ph", "i");
	key_str(j, "s", "g");
	key_str(j, "cat", "ktrace");
	key_str(j, "name", "lost events");
	key_i64(j, "pid", CPU_PID);
	key_i64(j, "tid", r->cpu < 0 ? 0 : r->cpu);
	key_ts(j, "ts", r->ts);
	kt_json_key_cstr(j, "args");
	kt_json_begin_object(j, true);
	key_i64(j, "cpu", r->cpu);
	kt_json_key_cstr(j, "count");
	if (r->lost)
		kt_json_u64(j, r->lost);
	else
		kt_json_null(j);   /* the kernel did not say how many */
	kt_json_end_object(j);
	kt_json_end_object(j);
}

static int put_record(struct cj *c, const struct ktrace_stream_record *r)
{
	struct ktrace_stream_sched sc;
	struct cj_cpu *cc;
	int err = 0;

	cc = get_cpu(c, r, &err);
	if (!cc)
		return err;
	if (r->kind == KTRACE_STREAM_LOST) {
		lost(c, r);
		return 0;
	}
	err = learn(c, r->source, r->tid, r->pid, r->comm);
	if (err)
		return err;
	if (ktrace_stream_sched(c->s, &sc) && sc.kind == KTRACE_STREAM_SCHED_SWITCH) {
		err = learn(c, r->source, sc.prev_tid, -1, sc.prev_comm);
		if (!err)
			err = learn(c, r->source, sc.next_tid, -1, sc.next_comm);
		cc->switch_ts = r->ts;
		cc->switch_tid = sc.next_tid;
		snprintf(cc->switch_comm, sizeof(cc->switch_comm), "%s", sc.next_comm);
		return err;
	}
	instant(c, r);
	return 0;
}

/* 0 or -ENOMEM. */
static int header(struct cj *c)
{
	struct kt_json *j = &c->j;
	uint32_t *order;
	int err = kt_export_thread_order(&c->threads, &order);

	if (err)
		return err;

	kt_json_begin_object(j, false);
	key_str(j, "displayTimeUnit", "ns");
	kt_json_key_cstr(j, "otherData");
	kt_json_begin_object(j, true);
	for (size_t i = 0; i < ktrace_stream_source_count(c->s); i++) {
		const struct ktrace_stream_source *src = ktrace_stream_source(c->s, i);
		char key[48];

		if (!src)
			continue;
		snprintf(key, sizeof(key), "input%zu", i);
		key_str(j, key, src->path);
		snprintf(key, sizeof(key), "input%zu_format", i);
		key_str(j, key, ktrace_detect_format_name(src->format));
		if (*src->sysname) {
			snprintf(key, sizeof(key), "input%zu_system", i);
			kt_json_key_cstr(j, key);
			kt_json_begin_array(j, true);
			kt_json_string(j, src->sysname, strlen(src->sysname));
			kt_json_string(j, src->release, strlen(src->release));
			kt_json_string(j, src->version, strlen(src->version));
			kt_json_string(j, src->machine, strlen(src->machine));
			kt_json_end_array(j);
		}
	}
	kt_json_end_object(j);
	kt_json_key_cstr(j, "traceEvents");
	kt_json_begin_array(j, false);
	meta(c, "process_name", CPU_PID, -1, "CPUs");
	/* the threads the inputs name when they open, in the exports' order */
	for (size_t i = 0; i < c->threads.n; i++) {
		struct kt_thread *th = &c->threads.v[order[i]];

		if (!no_name(kt_thread_name(th)))
			name_thread(c, th);
	}
	free(order);
	return 0;
}

int ktrace_view_chrome_json(struct ktrace_stream *s, const struct ktrace_view_export_opts *o,
			    struct ktrace_out *out, struct ktrace_error *err)
{
	struct ktrace_view_export_opts opts;
	struct cj *c;
	const struct ktrace_stream_record *r;
	uint64_t n = 0;
	int ret, sret = 0;

	ret = KT_OPTS_COPY(&opts, o, "ktrace_view_export_opts", err);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return kt_error_oom(err);
	c->s = s;
	kt_json_init(&c->j, out, 1);
	kt_threads_init(&c->threads, KT_THREADS_NEGATIVE | KT_THREADS_PER_SOURCE,
			KTRACE_STREAM_COMM_MAX - 1, 0);
	kt_threads_init(&c->procs, KT_THREADS_PER_SOURCE, KTRACE_STREAM_COMM_MAX - 1, 0);
	ret = kt_threads_load(&c->threads, s);
	if (!ret) {
		const struct kt_model_ops ops = { .ctx = c, .state = model_slice };

		ret = kt_model_open_stream(&c->model, s, &ops, err);
		if (ret) {
			kt_threads_free(&c->threads);
			kt_threads_free(&c->procs);
			free(c);
			return ret;
		}
	}
	if (!ret)
		ret = header(c);
	if (!ret) {
		while ((sret = ktrace_stream_next(s, &r, err)) > 0) {
			/* (the model first: the slice a switch ends goes out under the name
			 * the switch that began it gave) */
			ret = kt_model_record(c->model, s, r, err);
			if (!ret)
				ret = put_record(c, r);
			if (ret)
				break;
			if (++n % PROGRESS_EVERY == 0 && opts.progress)
				opts.progress(opts.progress_ctx, n);
		}
	}
	if (!ret || ret == -ERANGE) {
		/* the slices still open last to the input's end (a record the trace cannot
		 * hold ends it as damage does) */
		kt_model_finish(c->model, err);
		kt_json_end_array(&c->j);
		kt_json_end_object(&c->j);
		kt_json_finish(&c->j);
		if (ret == -ERANGE)
			kt_stream_record_error(s, r, err, ret, "CPU %d: the JSON form takes CPUs 0 to %d",
					       r->cpu, MAX_CPUS - 1);
		else
			ret = sret < 0 ? sret : 0;
	} else if (ret == -ENOMEM) {
		kt_json_finish(&c->j);   /* (complete even so, where it is kept: a stream) */
		ktrace_error_set(err, ret, "out of memory");
	}
	kt_model_free(c->model);
	kt_threads_free(&c->threads);
	kt_threads_free(&c->procs);
	free(c->cpus);
	free(c->hex);
	free(c);
	return ret;
}
