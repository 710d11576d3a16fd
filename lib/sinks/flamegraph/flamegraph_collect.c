// SPDX-License-Identifier: MIT
/*
 * The weights of `ktrace flamegraph`: which kernel stack each switched-out interval of
 * the model (docs/model.md) goes to, and the stacks of the other events.
 *
 * `ktrace record -T` writes an ftrace:kernel_stack record after every event, on the same
 * CPU, with the same thread. So the first record on CPU c after a sched_switch on c is,
 * when it is a kernel_stack of the thread switched out, the stack of that switch-out;
 * any other record there means that switch-out has no stack. A kernel_stack that follows
 * another event of the same thread on its CPU is that event's stack (on-CPU).
 *
 * The model hands out an interval when it ends, which may be before its stack record
 * comes (the thread woken on another CPU between the switch and its stack): such an
 * interval waits in its thread (one at most) for the stack. Intervals whose switch-out
 * has no stack are weighed under "[no stack]", so every thread's total is the model's.
 *
 * Frames are symbolised from the trace's kallsyms with the function report prints
 * `=> name (address)` lines with (ktrace_event_function); an address kallsyms has no
 * function for is written 0xADDRESS. The innermost frames of the tracing machinery
 * (trace_event_raw_event_*, __traceiter_*...: how the stack was taken) are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "sinks/flamegraph/flamegraph_int.h"

enum { ST_NONE = 0, ST_WAIT, ST_KNOWN };

struct fg_thread {
	uint64_t out_ts;              /* its last switch-out */
	uint32_t stack;               /* ST_KNOWN: that switch-out's stack */
	uint8_t st;
	bool held;                    /* an interval waiting for the stack */
	uint32_t held_label;
	uint64_t held_dur;
};

struct fg_cpu {
	uint32_t input;
	int32_t cpu;
	int64_t wait_tid;             /* switched out here by the last record: -1 none */
	int64_t last_tid;             /* the last other event here: its thread... */
	const char *last_name;        /* ...and name (NULL: none, or a stack since) */
};

/* ---- strings ---- */

/* A name as one frame: no ';' (the separator), no white space (flamegraph.pl splits
 * the count off at the last space), printable ASCII. */
static void frame_clean(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == ';' || c == ' ' || c == '\t')
			p[i] = '_';
		else if (c < 0x21 || c >= 0x7f)
			p[i] = '?';
	}
}

static int str_id(struct fg *g, const char *s, size_t len, uint32_t *id, struct ktrace_error *err)
{
	if (kt_strtab_id(&g->strs, s, len, id))
		return kt_error_oom(err);
	return 0;
}

/* "[text]" cleaned, as a string id. */
static int label_id(struct fg *g, const char *text, uint32_t *id, struct ktrace_error *err)
{
	char buf[96];
	int n = snprintf(buf, sizeof(buf), "[%s]", text);

	if (n < 0 || (size_t)n >= sizeof(buf))
		n = (int)sizeof(buf) - 1, buf[n - 1] = ']';
	frame_clean(buf, (size_t)n);
	return str_id(g, buf, (size_t)n, id, err);
}

/* ---- tables ---- */

static struct fg_thread *thread_ext(struct fg *g, uint32_t input, int64_t tid, uint32_t *index)
{
	struct kt_thread *th = kt_threads_add(&g->threads, input, tid);

	if (!th)
		return NULL;
	*index = (uint32_t)kt_threads_index(&g->threads, th);
	return kt_threads_ext(&g->threads, *index);
}

static void name_thread(struct fg *g, uint32_t input, int64_t tid, int64_t pid, const char *comm)
{
	struct kt_thread *th;

	if (tid < 0)
		return;
	th = kt_threads_add(&g->threads, input, tid);
	if (!th)
		return;   /* (out of memory comes back at the next add) */
	if (pid >= 0)
		th->pid = pid;
	if (comm && *comm && strcmp(comm, "<...>"))
		(void)kt_thread_set_name(&g->threads, th, comm, strlen(comm));
}

static struct fg_cpu *cpu_state(struct fg *g, uint32_t input, int32_t cpu)
{
	uint32_t i;

	if (kt_map_get(&g->cmap, input, (uint64_t)(uint32_t)cpu, &i))
		return &g->cpus[i];
	if (kt_grow((void **)&g->cpus, &g->cap_cpus, g->ncpus + 1, sizeof(*g->cpus)))
		return NULL;
	if (kt_map_put(&g->cmap, input, (uint64_t)(uint32_t)cpu, (uint32_t)g->ncpus))
		return NULL;
	g->cpus[g->ncpus] = (struct fg_cpu){ .input = input, .cpu = cpu, .wait_tid = -1, .last_tid = -1 };
	return &g->cpus[g->ncpus++];
}

static int add_entry(struct fg *g, uint32_t thread, uint32_t label, uint32_t stack, bool on_cpu,
		     uint64_t value, struct ktrace_error *err)
{
	uint64_t a = (uint64_t)thread << 32 | label, b = (uint64_t)stack << 1 | on_cpu;
	uint32_t i;

	if (kt_map_get(&g->emap, a, b, &i)) {
		g->e[i].value += value;
		return 0;
	}
	if (kt_grow((void **)&g->e, &g->cap, g->n + 1, sizeof(*g->e)) || kt_map_put(&g->emap, a, b, (uint32_t)g->n))
		return kt_error_oom(err);
	g->e[g->n++] = (struct fg_entry){ thread, label, stack, on_cpu, value };
	return 0;
}

/* ---- stacks ---- */

static bool tracing_frame(const char *name)
{
	static const char *const prefixes[] = {
		"trace_event_raw_event_", "__traceiter_", "perf_trace_", "__bpf_trace_",
		"trace_event_buffer_", "ftrace_trace_stack", "__ftrace_trace_stack",
		"__trace_stack", "trace_buffer_unlock_commit",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Word k of caller[] (ls bytes each, from off). */
static uint64_t caller_at(const struct kt_ftrace_raw *raw, uint32_t off, uint32_t ls, bool be, size_t k)
{
	const uint8_t *p = raw->data + off + k * ls;
	uint64_t addr = 0;

	for (uint32_t b = 0; b < ls; b++)
		addr |= (uint64_t)p[be ? ls - 1 - b : b] << (8 * b);
	return addr;
}

/* The frames of the current kernel_stack record, outermost first, as a string id
 * (FG_NO_STACK: the record cannot be read as one, or holds no frame). */
static int stack_id(struct fg *g, uint32_t *id, struct ktrace_error *err)
{
	struct kt_ftrace_raw raw;
	struct ktrace_record kr = { 0 };
	struct ktrace_event_value v;
	uint32_t off, size, ls;
	size_t n = 0, inner = 0, len = 0;
	int fi;

	*id = FG_NO_STACK;
	if (kt_stream_ftrace_raw(g->s, &raw) || !raw.ev)
		return 0;
	fi = ktrace_event_field_index(raw.ev, "caller");
	if (fi < 0 || ktrace_event_field_layout(raw.ev, (size_t)fi, &off, &size))
		return 0;
	kr.data = raw.data;
	kr.size = raw.size;
	if (ktrace_event_field_value(raw.evs, raw.ev, (size_t)fi, &kr, &v) ||
	    (v.elem_size != 4 && v.elem_size != 8) || off >= raw.size)
		return 0;
	ls = v.elem_size;
	/* as report reads caller[]: the words up to the record's end or a -1, innermost
	 * first */
	for (size_t max = (raw.size - off) / ls; n < max; n++) {
		uint64_t addr = caller_at(&raw, off, ls, v.big_endian, n);

		if ((ls == 8 && addr == UINT64_MAX) || (int32_t)addr == -1)
			break;
	}
	/* the innermost frames of the tracing machinery */
	for (; inner < n; inner++) {
		const char *fn = ktrace_event_function(raw.evs, caller_at(&raw, off, ls, v.big_endian, inner),
						       NULL);

		if (!fn || !tracing_frame(fn))
			break;
	}
	for (size_t k = n; k-- > inner;) {
		uint64_t addr = caller_at(&raw, off, ls, v.big_endian, k);
		const char *fn = ktrace_event_function(raw.evs, addr, NULL);
		char hex[24];
		size_t fl;

		if (!fn) {
			snprintf(hex, sizeof(hex), "0x%" PRIx64, addr);
			fn = hex;
		}
		fl = strlen(fn);
		if (kt_grow((void **)&g->frames, &g->frames_cap, len + fl + 2, 1))
			return kt_error_oom(err);
		if (len)
			g->frames[len++] = ';';
		memcpy(g->frames + len, fn, fl);
		frame_clean(g->frames + len, fl);
		len += fl;
	}
	if (!len)
		return 0;
	return str_id(g, g->frames, len, id, err);
}

/* The switch-out of th now has its stack (or FG_NO_STACK): the interval waiting for it
 * gets it. */
static int resolve(struct fg *g, uint32_t ti, uint32_t stack, struct ktrace_error *err)
{
	struct fg_thread *t = kt_threads_ext(&g->threads, ti);
	uint32_t label = t->held_label;
	uint64_t dur = t->held_dur;
	bool held = t->held;

	t->st = ST_KNOWN;
	t->stack = stack;
	t->held = false;
	return held ? add_entry(g, ti, label, stack == FG_NO_STACK ? g->no_stack : stack, false, dur, err)
		    : 0;
}

/* ---- the model's intervals ---- */

static int model_state(void *ctx, const struct kt_model_state *m, struct ktrace_error *err)
{
	struct fg *g = ctx;
	struct fg_thread *t;
	uint32_t ti, label;
	/* (still open at the end: until the input's end, model.md) */
	uint64_t dur = kt_model_state_ns(g->model, m);
	int ret;

	/* switched out, not runnable: S, D, T, t, X, Z, P, I, W... ("R", "R+": preempted;
	 * "?": unknown; X, Z, x still open at the end: it exited, nothing waits) */
	if (m->tid <= 0 || !dur || m->state[0] == 'R' || m->state[0] == '?' ||
	    (m->dur < 0 && strchr("XZx", m->state[0])))
		return 0;
	t = thread_ext(g, m->input, m->tid, &ti);
	if (!t)
		return kt_error_oom(err);
	if ((ret = label_id(g, m->state, &label, err)))
		return ret;
	t = kt_threads_ext(&g->threads, ti);   /* (the table may have moved) */
	if (t->out_ts == m->ts && t->st == ST_WAIT) {
		if (t->held && (ret = add_entry(g, ti, t->held_label, g->no_stack, false, t->held_dur, err)))
			return ret;
		t->held = true;
		t->held_label = label;
		t->held_dur = dur;
		return 0;
	}
	return add_entry(g, ti, label,
			 t->out_ts == m->ts && t->st == ST_KNOWN && t->stack != FG_NO_STACK ? t->stack
											: g->no_stack,
			 false, dur, err);
}

/* ---- records ---- */

int fg_init(struct fg *g, struct ktrace_stream *s, struct ktrace_error *err)
{
	const struct kt_model_ops ops = { .ctx = g, .state = model_state };
	int ret;

	g->s = s;
	kt_threads_init(&g->threads, KT_THREADS_PER_SOURCE, KTRACE_STREAM_COMM_MAX - 1,
			sizeof(struct fg_thread));
	if (kt_threads_load(&g->threads, s) || str_id(g, "[no stack]", 10, &g->no_stack, err))
		return kt_error_oom(err);
	ret = kt_model_open_stream(&g->model, s, &ops, err);
	return ret;
}

static bool is_stack_record(const struct ktrace_stream_record *r)
{
	return r->name[0] == 'k' && !strcmp(r->name, "kernel_stack") && !strcmp(r->system, "ftrace");
}

int fg_record(struct fg *g, const struct ktrace_stream_record *r, struct ktrace_error *err)
{
	struct fg_cpu *c = NULL;
	bool stack = false;
	uint32_t ti, id;
	int ret;

	g->records++;
	if (r->kind == KTRACE_STREAM_EVENT && r->cpu >= 0) {
		struct ktrace_stream_sched sc;

		if (!(c = cpu_state(g, r->source, r->cpu)))
			return kt_error_oom(err);
		stack = is_stack_record(r);
		if (c->wait_tid == 0) {
			/* the idle thread's switch-out: its stack is no event's */
			c->wait_tid = -1;
			if (stack && r->tid == 0) {
				g->switch_stacks++;
				stack = false;
			}
		} else if (c->wait_tid > 0) {
			int64_t wt = c->wait_tid;
			struct fg_thread *t = thread_ext(g, r->source, wt, &ti);

			c->wait_tid = -1;
			if (!t)
				return kt_error_oom(err);
			id = FG_NO_STACK;
			if (t->st == ST_WAIT && stack && r->tid == wt) {
				if ((ret = stack_id(g, &id, err)))
					return ret;
				g->switch_stacks++;
				stack = false;   /* (the switch's: not an on-CPU stack) */
				c->last_name = NULL;
			}
			if (t->st == ST_WAIT && (ret = resolve(g, ti, id, err)))
				return ret;
		}
		if (stack) {
			const char *ev = c->last_name && c->last_tid == r->tid ? c->last_name : "unknown event";
			uint32_t label;

			name_thread(g, r->source, r->tid, r->pid, r->comm);
			if ((ret = stack_id(g, &id, err)) || (ret = label_id(g, ev, &label, err)))
				return ret;
			if (!thread_ext(g, r->source, r->tid, &ti))
				return kt_error_oom(err);
			if ((ret = add_entry(g, ti, label, id == FG_NO_STACK ? g->no_stack : id, true, 1, err)))
				return ret;
			g->on_stacks++;
			c->last_name = NULL;
		} else if (!is_stack_record(r)) {
			if (ktrace_stream_sched(g->s, &sc) == 1 && sc.kind == KTRACE_STREAM_SCHED_SWITCH) {
				struct fg_thread *t;

				g->switches++;
				name_thread(g, r->source, sc.prev_tid, -1, sc.prev_comm);
				name_thread(g, r->source, sc.next_tid, -1, sc.next_comm);
				if (sc.prev_tid > 0) {
					t = thread_ext(g, r->source, sc.prev_tid, &ti);
					if (!t)
						return kt_error_oom(err);
					/* a switch-out on another CPU still waiting: it had none */
					if (t->st == ST_WAIT && (ret = resolve(g, ti, FG_NO_STACK, err)))
						return ret;
					t = kt_threads_ext(&g->threads, ti);
					t->out_ts = r->ts;
					t->st = ST_WAIT;
				}
				c->wait_tid = sc.prev_tid >= 0 ? sc.prev_tid : -1;
				c->last_name = NULL;
			} else {
				name_thread(g, r->source, r->tid, r->pid, r->comm);
				c->last_name = r->name;
				c->last_tid = r->tid;
			}
		}
	}
	return kt_model_record(g->model, g->s, r, err);
}

int fg_finish(struct fg *g, struct ktrace_error *err)
{
	int ret = kt_model_finish(g->model, err);

	for (size_t i = 0; !ret && i < g->threads.n; i++) {
		struct fg_thread *t = kt_threads_ext(&g->threads, i);

		if (t->st == ST_WAIT)
			ret = resolve(g, (uint32_t)i, FG_NO_STACK, err);
	}
	return ret;
}

void fg_free(struct fg *g)
{
	kt_model_free(g->model);
	kt_threads_free(&g->threads);
	kt_strtab_free(&g->strs);
	kt_map_free(&g->emap);
	kt_map_free(&g->cmap);
	free(g->e);
	free(g->cpus);
	free(g->frames);
}
