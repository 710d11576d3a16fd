// SPDX-License-Identifier: MIT
/*
 * The summary's text and JSON forms (docs/summary.md: the schema). Every list is
 * sorted biggest first (ties: the smaller id, the name) and holds at most top rows; its
 * size before the cut is given beside it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "sinks/summary/summary_int.h"

#define SCHEMA "ktrace-summary/1"

/* ---- lists ---- */

enum sort_key { BY_CPU, BY_LATENCY, BY_RUNNABLE, BY_SLEEPING, BY_BLOCKED };

struct proc {
	int64_t pid;
	const char *name;
	uint64_t threads, cpu_ns, sys_n, sys_ns;
};

struct view {
	struct sm *sm;
	uint32_t input;
	struct kt_json j;
	struct ktrace_out *out;
	size_t *idx;                  /* threads of the input */
	size_t nidx;
	struct proc *procs;
	size_t nprocs, cap_procs;
};

static uint64_t thread_key(const struct sm_thread *t, enum sort_key k)
{
	switch (k) {
	case BY_CPU:
		return t->cpu_ns;
	case BY_LATENCY:
		return t->p99;
	case BY_RUNNABLE:
		return t->runnable_ns;
	case BY_SLEEPING:
		return t->sleeping_ns;
	default:
		return t->blocked_ns;
	}
}

static int thread_order(const void *a, const void *b, void *arg)
{
	const struct view *v = ((const void **)arg)[0];
	enum sort_key k = *(const enum sort_key *)((const void **)arg)[1];
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct sm_thread *tx = sm_thread_at(v->sm, x), *ty = sm_thread_at(v->sm, y);
	uint64_t kx = thread_key(tx, k), ky = thread_key(ty, k);
	int64_t ix = v->sm->threads.v[x].id, iy = v->sm->threads.v[y].id;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (k == BY_LATENCY && tx->lat_max != ty->lat_max)
		return tx->lat_max > ty->lat_max ? -1 : 1;
	return ix < iy ? -1 : ix > iy;
}

/* The input's threads with a non-zero key, sorted: how many. */
static size_t sorted_threads(struct view *v, enum sort_key k)
{
	const void *arg[2] = { v, &k };
	size_t n = 0;

	for (size_t i = 0; i < v->sm->threads.n; i++)
		if (v->sm->threads.v[i].scope == v->input && v->sm->threads.v[i].id != 0 &&
		    (k == BY_LATENCY ? sm_thread_at(v->sm, i)->lat_n
				     : thread_key(sm_thread_at(v->sm, i), k)))
			v->idx[n++] = i;
	qsort_r(v->idx, n, sizeof(*v->idx), thread_order, arg);
	return n;
}

static int named_order(const void *a, const void *b, void *arg)
{
	const struct sm_named *x = a, *y = b;
	bool by_count = *(const bool *)arg;
	uint64_t kx = by_count ? x->n : x->ns, ky = by_count ? y->n : y->ns;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int proc_order(const void *a, const void *b, void *arg)
{
	const struct proc *x = a, *y = b;
	bool by_sys = *(const bool *)arg;
	uint64_t kx = by_sys ? x->sys_ns : x->cpu_ns, ky = by_sys ? y->sys_ns : y->cpu_ns;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The input's processes: its threads grouped by pid (a thread of unknown pid its own
 * process), named after the main thread, else the first named thread. */
static int gather_procs(struct view *v)
{
	struct kt_map index = { 0 };
	int ret = 0;

	for (size_t i = 0; i < v->sm->threads.n && !ret; i++) {
		const struct kt_thread *t = &v->sm->threads.v[i];
		const struct sm_thread *x = sm_thread_at(v->sm, i);
		int64_t pid = t->pid >= 0 ? t->pid : t->id;
		struct proc *p;
		uint32_t k;

		if (t->scope != v->input || t->id == 0)
			continue;
		if (!kt_map_get(&index, (uint64_t)pid, 0, &k)) {
			if (kt_grow((void **)&v->procs, &v->cap_procs, v->nprocs + 1, sizeof(*v->procs)) ||
			    kt_map_put(&index, (uint64_t)pid, 0, (uint32_t)v->nprocs)) {
				ret = -ENOMEM;
				break;
			}
			k = (uint32_t)v->nprocs++;
			v->procs[k] = (struct proc){ .pid = pid };
		}
		p = &v->procs[k];
		if (t->name && (!p->name || t->id == pid))
			p->name = t->name;
		p->threads++;
		p->cpu_ns += x->cpu_ns;
		p->sys_n += x->sys_n;
		p->sys_ns += x->sys_ns;
	}
	kt_map_free(&index);
	return ret;
}

/* The named totals of a kind of the input, sorted: copied into *out (freed by the
 * caller), how many. */
static size_t sorted_named(struct view *v, enum sm_kind k, bool by_count, struct sm_named **out)
{
	size_t n = 0;

	*out = kt_realloc_array(NULL, v->sm->nnamed[k] ? v->sm->nnamed[k] : 1, sizeof(**out));
	if (!*out)
		return 0;
	for (size_t i = 0; i < v->sm->nnamed[k]; i++)
		if (v->sm->named[k][i].input == v->input)
			(*out)[n++] = v->sm->named[k][i];
	qsort_r(*out, n, sizeof(**out), named_order, &by_count);
	return n;
}

/* ---- text ---- */

static const char *thread_name(const struct view *v, size_t i)
{
	const char *n = v->sm->threads.v[i].name;

	return n && *n ? n : "?";
}

/* v ns as milliseconds with 3 decimals. */
static void put_ms(struct ktrace_out *o, uint64_t ns, int width)
{
	kt_out_printf(o, "%*llu.%03llu", width > 4 ? width - 4 : 0, (unsigned long long)(ns / 1000000),
		      (unsigned long long)(ns / 1000 % 1000));
}

/* ns as microseconds with 3 decimals, right-aligned in width with a space before it at
 * least (a wait of 10 s and more fills a column of 11). */
static void put_us(struct ktrace_out *o, uint64_t ns, int width)
{
	kt_out_printf(o, " %*llu.%03llu", width > 5 ? width - 5 : 0, (unsigned long long)(ns / 1000),
		      (unsigned long long)(ns % 1000));
}

static void put_pct(struct ktrace_out *o, uint64_t part, uint64_t whole, int width)
{
	uint64_t per_mille = whole ? (part * 1000 + whole / 2) / whole : 0;

	kt_out_printf(o, "%*llu.%llu%%", width - 3, (unsigned long long)(per_mille / 10),
		      (unsigned long long)(per_mille % 10));
}

/* Seconds as report prints them (6 decimals). */
static void put_secs(struct ktrace_out *o, uint64_t ns)
{
	kt_out_printf(o, "%llu.%06llu", (unsigned long long)(ns / 1000000000),
		      (unsigned long long)(ns / 1000 % 1000000));
}

static uint64_t known_ns(const struct sm *sm, const struct sm_input *in, const struct sm_cpu *c)
{
	uint64_t lo = in->first_ts > sm->lo ? in->first_ts : sm->lo;
	uint64_t hi = in->last_ts < sm->hi ? in->last_ts : sm->hi;
	uint64_t span = hi > lo ? hi - lo : 0;

	return span > c->gap_ns ? span - c->gap_ns : 0;
}

static void more(struct ktrace_out *o, size_t shown, size_t n)
{
	if (n > shown)
		kt_out_printf(o, "  (%zu more)\n", n - shown);
}

/* What could not be computed, and why: the lines of "not computed". */
static size_t notes(struct view *v, const char **out, size_t max)
{
	unsigned lacks = sm_lacks(v->sm, v->input);
	size_t n = 0;

	/* (no switch: the wakeup latencies are said with it) */
	if (lacks & SM_LACKS_SWITCH)
		lacks &= ~(unsigned)SM_LACKS_WAKEUP;
	for (unsigned bit = 1; bit & SM_LACKS_ALL; bit <<= 1)
		if ((lacks & bit) && n < max)
			out[n++] = sm_lacks_why(bit);
	return n;
}

/* CPUs: those the input says it has, else those with records. */
static unsigned cpus_of(const struct sm_input *in)
{
	unsigned n = 0;

	for (size_t c = 0; c < in->ncpus; c++)
		n += in->cpus[c].seen;
	return in->src && in->src->cpus > n ? in->src->cpus : n;
}

static void text_input(struct view *v)
{
	struct ktrace_out *o = v->out;
	const struct sm *sm = v->sm;
	const struct sm_input *in = &sm->in[v->input];
	unsigned top = sm->o.top;
	size_t n, ngaps;
	struct sm_named *nm;
	const char *why[8];
	uint64_t from = kt_model_complete_from(sm->model, v->input);

	kt_model_gaps(sm->model, v->input, &ngaps);
	kt_out_printf(o, "%s: %s, %u CPUs, %llu events, %llu lost in %llu places\n",
		      in->src ? in->src->path : "?",
		      in->src ? ktrace_detect_format_name(in->src->format) : "?",
		      cpus_of(in), (unsigned long long)in->events,
		      (unsigned long long)in->lost, (unsigned long long)in->lost_marks);
	if (in->any) {
		kt_out_puts(o, "  from ");
		put_secs(o, in->first_ts);
		kt_out_puts(o, " to ");
		put_secs(o, in->last_ts);
		kt_out_puts(o, " (");
		put_ms(o, in->last_ts - in->first_ts, 1);
		kt_out_puts(o, " ms); every CPU's data complete from ");
		put_secs(o, from);
		kt_out_printf(o, ", %zu gaps of lost events after that\n", ngaps);
	}

	kt_out_puts(o, "\nCPU        known ms      busy     idle      irq  softirq\n");
	for (size_t c = 0; c < in->ncpus; c++) {
		const struct sm_cpu *x = &in->cpus[c];
		uint64_t k = known_ns(sm, in, x);

		if (!x->seen)
			continue;
		kt_out_printf(o, "%-4zu", c);
		put_ms(o, k, 14);
		put_pct(o, x->busy_ns, k, 10);
		put_pct(o, x->idle_ns, k, 9);
		put_pct(o, x->irq_ns, k, 9);
		put_pct(o, x->softirq_ns, k, 9);
		kt_out_puts(o, "\n");
	}

	n = sorted_threads(v, BY_CPU);
	kt_out_printf(o, "\nThreads by CPU time (%zu)                  cpu ms   slices\n", n);
	for (size_t i = 0; i < n && i < top; i++) {
		const struct sm_thread *t = sm_thread_at(sm, v->idx[i]);
		char who[64];

		snprintf(who, sizeof(who), "%s %lld", thread_name(v, v->idx[i]),
			 (long long)sm->threads.v[v->idx[i]].id);
		kt_out_printf(o, "  %-32.32s", who);
		put_ms(o, t->cpu_ns, 12);
		kt_out_printf(o, " %8llu\n", (unsigned long long)t->slices);
	}
	more(o, top, n);
	{
		bool by_sys = false;

		if (v->nprocs)
			qsort_r(v->procs, v->nprocs, sizeof(*v->procs), proc_order, &by_sys);
		n = 0;
		while (n < v->nprocs && v->procs[n].cpu_ns)
			n++;
		kt_out_printf(o, "\nProcesses by CPU time (%zu)                cpu ms  threads\n", n);
		for (size_t i = 0; i < n && i < top; i++) {
			char who[64];

			snprintf(who, sizeof(who), "%s %lld", v->procs[i].name ? v->procs[i].name : "?",
				 (long long)v->procs[i].pid);
			kt_out_printf(o, "  %-32.32s", who);
			put_ms(o, v->procs[i].cpu_ns, 12);
			kt_out_printf(o, " %8llu\n", (unsigned long long)v->procs[i].threads);
		}
		more(o, top, n);
	}

	n = sorted_threads(v, BY_LATENCY);
	kt_out_printf(o, "\nThreads by wakeup latency (%zu)      count     p50 us     p90 us     p99 us     max us\n", n);
	for (size_t i = 0; i < n && i < top; i++) {
		const struct sm_thread *t = sm_thread_at(sm, v->idx[i]);
		char who[64];

		snprintf(who, sizeof(who), "%s %lld", thread_name(v, v->idx[i]),
			 (long long)sm->threads.v[v->idx[i]].id);
		kt_out_printf(o, "  %-28.28s %9llu", who, (unsigned long long)t->lat_n);
		put_us(o, t->p50, 11);
		put_us(o, t->p90, 11);
		put_us(o, t->p99, 11);
		put_us(o, t->lat_max, 11);
		kt_out_puts(o, "\n");
	}
	more(o, top, n);

	{
		static const char *const titles[] = { "runnable (R, R+)", "sleeping (S)", "blocked (D)" };
		static const enum sort_key keys[] = { BY_RUNNABLE, BY_SLEEPING, BY_BLOCKED };

		for (int k = 0; k < 3; k++) {
			n = sorted_threads(v, keys[k]);
			kt_out_printf(o, "\nThreads by time %s (%zu)\n", titles[k], n);
			for (size_t i = 0; i < n && i < top; i++) {
				char who[64];

				snprintf(who, sizeof(who), "%s %lld", thread_name(v, v->idx[i]),
					 (long long)sm->threads.v[v->idx[i]].id);
				kt_out_printf(o, "  %-32.32s", who);
				put_ms(o, thread_key(sm_thread_at(sm, v->idx[i]), keys[k]), 12);
				kt_out_puts(o, " ms\n");
			}
			more(o, top, n);
		}
	}

	{
		static const char *const titles[] = { "IRQ handlers", "softirq vectors", "syscalls" };

		for (int k = SM_IRQ; k <= SM_SYSCALL; k++) {
			n = sorted_named(v, (enum sm_kind)k, false, &nm);
			kt_out_printf(o, "\n%s (%zu)%*s count    time ms\n", titles[k], n,
				      (int)(30 - strlen(titles[k])), "");
			for (size_t i = 0; nm && i < n && i < top; i++) {
				kt_out_printf(o, "  %-32.32s %9llu", nm[i].name, (unsigned long long)nm[i].n);
				put_ms(o, nm[i].ns, 11);
				kt_out_puts(o, "\n");
			}
			more(o, top, n);
			free(nm);
		}
	}
	if (sm->nnamed[SM_SYSCALL]) {
		bool by_sys = true;

		if (v->nprocs)
			qsort_r(v->procs, v->nprocs, sizeof(*v->procs), proc_order, &by_sys);
		kt_out_puts(o, "\nsyscalls by process                    count    time ms\n");
		for (size_t i = 0; i < v->nprocs && i < top && v->procs[i].sys_n; i++) {
			char who[64];

			snprintf(who, sizeof(who), "%s %lld", v->procs[i].name ? v->procs[i].name : "?",
				 (long long)v->procs[i].pid);
			kt_out_printf(o, "  %-32.32s %9llu", who, (unsigned long long)v->procs[i].sys_n);
			put_ms(o, v->procs[i].sys_ns, 11);
			kt_out_puts(o, "\n");
		}
	}

	n = sorted_named(v, SM_EVENT, true, &nm);
	kt_out_printf(o, "\nEvents (%zu names)                           count\n", n);
	for (size_t i = 0; nm && i < n && i < top; i++) {
		char what[96];

		snprintf(what, sizeof(what), "%s%s%s", nm[i].system && *nm[i].system ? nm[i].system : "",
			 nm[i].system && *nm[i].system ? ":" : "", nm[i].name);
		kt_out_printf(o, "  %-40.40s %9llu\n", what, (unsigned long long)nm[i].n);
	}
	more(o, top, n);
	free(nm);

	n = notes(v, why, 8);
	if (n) {
		kt_out_puts(o, "\nNot computed:\n");
		for (size_t i = 0; i < n; i++)
			kt_out_printf(o, "  %s\n", why[i]);
	}
}

/* ---- JSON ---- */

static void json_thread(struct view *v, size_t i, enum sort_key k)
{
	struct kt_json *j = &v->j;
	const struct kt_thread *t = &v->sm->threads.v[i];
	const struct sm_thread *x = sm_thread_at(v->sm, i);

	kt_json_begin_object(j, true);
	kt_json_kv_i64(j, "tid", t->id);
	kt_json_kv_i64(j, "pid", t->pid >= 0 ? t->pid : t->id);
	kt_json_kv_cstr(j, "name", t->name ? t->name : "");
	switch (k) {
	case BY_CPU:
		kt_json_kv_u64(j, "cpu_ns", x->cpu_ns);
		kt_json_kv_u64(j, "slices", x->slices);
		break;
	case BY_LATENCY:
		kt_json_kv_u64(j, "count", x->lat_n);
		kt_json_kv_u64(j, "p50_ns", x->p50);
		kt_json_kv_u64(j, "p90_ns", x->p90);
		kt_json_kv_u64(j, "p99_ns", x->p99);
		kt_json_kv_u64(j, "max_ns", x->lat_max);
		break;
	default:
		kt_json_kv_u64(j, "runnable_ns", x->runnable_ns);
		kt_json_kv_u64(j, "sleeping_ns", x->sleeping_ns);
		kt_json_kv_u64(j, "blocked_ns", x->blocked_ns);
		break;
	}
	kt_json_end_object(j);
}

static void json_threads(struct view *v, const char *key, enum sort_key k)
{
	size_t n = sorted_threads(v, k);

	kt_json_key_cstr(&v->j, key);
	kt_json_begin_object(&v->j, false);
	kt_json_kv_u64(&v->j, "total", n);
	kt_json_key_cstr(&v->j, "rows");
	kt_json_begin_array(&v->j, false);
	for (size_t i = 0; i < n && i < v->sm->o.top; i++)
		json_thread(v, v->idx[i], k);
	kt_json_end_array(&v->j);
	kt_json_end_object(&v->j);
}

static void json_named(struct view *v, const char *key, enum sm_kind k, bool by_count)
{
	struct sm_named *nm;
	size_t n = sorted_named(v, k, by_count, &nm);

	kt_json_key_cstr(&v->j, key);
	kt_json_begin_object(&v->j, false);
	kt_json_kv_u64(&v->j, "total", n);
	kt_json_key_cstr(&v->j, "rows");
	kt_json_begin_array(&v->j, false);
	for (size_t i = 0; nm && i < n && i < v->sm->o.top; i++) {
		kt_json_begin_object(&v->j, true);
		if (k == SM_EVENT)
			kt_json_kv_cstr(&v->j, "system", nm[i].system ? nm[i].system : "");
		kt_json_kv_cstr(&v->j, "name", nm[i].name);
		kt_json_kv_u64(&v->j, "count", nm[i].n);
		if (k != SM_EVENT)
			kt_json_kv_u64(&v->j, "ns", nm[i].ns);
		kt_json_end_object(&v->j);
	}
	kt_json_end_array(&v->j);
	kt_json_end_object(&v->j);
	free(nm);
}

static void json_procs(struct view *v, const char *key, bool by_sys)
{
	size_t n = 0;

	if (v->nprocs)
		qsort_r(v->procs, v->nprocs, sizeof(*v->procs), proc_order, &by_sys);
	for (size_t i = 0; i < v->nprocs; i++)
		n += by_sys ? v->procs[i].sys_n != 0 : v->procs[i].cpu_ns != 0;
	kt_json_key_cstr(&v->j, key);
	kt_json_begin_object(&v->j, false);
	kt_json_kv_u64(&v->j, "total", n);
	kt_json_key_cstr(&v->j, "rows");
	kt_json_begin_array(&v->j, false);
	for (size_t i = 0; i < n && i < v->sm->o.top; i++) {
		kt_json_begin_object(&v->j, true);
		kt_json_kv_i64(&v->j, "pid", v->procs[i].pid);
		kt_json_kv_cstr(&v->j, "name", v->procs[i].name ? v->procs[i].name : "");
		kt_json_kv_u64(&v->j, "threads", v->procs[i].threads);
		if (by_sys) {
			kt_json_kv_u64(&v->j, "count", v->procs[i].sys_n);
			kt_json_kv_u64(&v->j, "ns", v->procs[i].sys_ns);
		} else {
			kt_json_kv_u64(&v->j, "cpu_ns", v->procs[i].cpu_ns);
		}
		kt_json_end_object(&v->j);
	}
	kt_json_end_array(&v->j);
	kt_json_end_object(&v->j);
}

static void json_input(struct view *v)
{
	struct kt_json *j = &v->j;
	const struct sm *sm = v->sm;
	const struct sm_input *in = &sm->in[v->input];
	const char *why[8];
	size_t ngaps, n;

	kt_model_gaps(sm->model, v->input, &ngaps);
	kt_json_begin_object(j, false);
	kt_json_kv_cstr(j, "path", in->src ? in->src->path : "");
	kt_json_kv_cstr(j, "format", in->src ? ktrace_detect_format_name(in->src->format) : "");
	kt_json_kv_u64(j, "cpus", cpus_of(in));
	kt_json_kv_u64(j, "events", in->events);
	kt_json_kv_u64(j, "lost_events", in->lost);
	kt_json_kv_u64(j, "lost_marks", in->lost_marks);
	kt_json_kv_opt_u64(j, "start_ns", in->any, in->first_ts);
	kt_json_kv_opt_u64(j, "end_ns", in->any, in->last_ts);
	kt_json_kv_opt_u64(j, "complete_from_ns", in->any, kt_model_complete_from(sm->model, v->input));
	kt_json_kv_u64(j, "gaps", ngaps);

	kt_json_key_cstr(j, "cpu");
	kt_json_begin_array(j, false);
	for (size_t c = 0; c < in->ncpus; c++) {
		const struct sm_cpu *x = &in->cpus[c];

		if (!x->seen)
			continue;
		kt_json_begin_object(j, true);
		kt_json_kv_u64(j, "cpu", c);
		kt_json_kv_u64(j, "known_ns", known_ns(sm, in, x));
		kt_json_kv_u64(j, "busy_ns", x->busy_ns);
		kt_json_kv_u64(j, "idle_ns", x->idle_ns);
		kt_json_kv_u64(j, "irq_ns", x->irq_ns);
		kt_json_kv_u64(j, "irq_count", x->irq_n);
		kt_json_kv_u64(j, "softirq_ns", x->softirq_ns);
		kt_json_kv_u64(j, "softirq_count", x->softirq_n);
		kt_json_end_object(j);
	}
	kt_json_end_array(j);

	json_threads(v, "threads_by_cpu_time", BY_CPU);
	json_procs(v, "processes_by_cpu_time", false);
	json_threads(v, "threads_by_wakeup_latency", BY_LATENCY);
	json_threads(v, "threads_by_runnable_time", BY_RUNNABLE);
	json_threads(v, "threads_by_sleeping_time", BY_SLEEPING);
	json_threads(v, "threads_by_blocked_time", BY_BLOCKED);
	json_named(v, "irq_handlers", SM_IRQ, false);
	json_named(v, "softirq_vectors", SM_SOFTIRQ, false);
	json_named(v, "syscalls", SM_SYSCALL, false);
	json_procs(v, "syscalls_by_process", true);
	json_named(v, "events", SM_EVENT, true);

	n = notes(v, why, 8);
	kt_json_key_cstr(j, "not_computed");
	kt_json_begin_array(j, false);
	for (size_t i = 0; i < n; i++)
		kt_json_cstr(j, why[i]);
	kt_json_end_array(j);
	kt_json_end_object(j);
}

int sm_print(struct sm *sm, struct ktrace_out *out)
{
	struct view v = { .sm = sm, .out = out };
	int ret = 0;

	v.idx = kt_realloc_array(NULL, sm->threads.n ? sm->threads.n : 1, sizeof(*v.idx));
	if (!v.idx)
		return -ENOMEM;
	if (sm->o.json) {
		kt_json_init(&v.j, out, 2);
		kt_json_begin_object(&v.j, false);
		kt_json_kv_cstr(&v.j, "schema", SCHEMA);
		kt_json_kv_u64(&v.j, "top", sm->o.top);
		kt_json_kv_opt_u64(&v.j, "from_ns", sm->o.has_from, sm->o.from);
		kt_json_kv_opt_u64(&v.j, "to_ns", sm->o.has_to, sm->o.to);
		kt_json_key_cstr(&v.j, "inputs");
		kt_json_begin_array(&v.j, false);
	}
	for (uint32_t i = 0; i < sm->nin && !ret; i++) {
		v.input = i;
		v.nprocs = 0;
		ret = gather_procs(&v);
		if (ret)
			break;
		if (sm->o.json) {
			json_input(&v);
		} else {
			if (i)
				kt_out_puts(out, "\n");
			text_input(&v);
		}
	}
	if (sm->o.json)
		kt_json_finish(&v.j);
	free(v.idx);
	free(v.procs);
	return ret ? ret : out->error;
}
