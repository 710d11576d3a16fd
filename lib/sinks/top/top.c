// SPDX-License-Identifier: MIT
/*
 * `ktrace top` (<ktrace/view.h> ktrace_view_top, docs/top.md): the figures of a live
 * session per interval. The records are read through the live source (engine_source_live.c) into
 * the model (engine_model.h, kt_model_open_live) as they are captured; the model's
 * intervals are cut at the interval's bounds: a Running slice, IRQ or softirq counts
 * with the part of it inside the interval, those still open at the interval's end with
 * the part so far (kt_model_cpu_now). Wakeup latencies count in the interval where the
 * thread was switched in, their quantiles from the summary's histogram (summary.h).
 * Threads of the calling process (top itself) are never shown.
 */
#include <ktrace/view.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "common/json.h"
#include "common/opts.h"
#include "common/outbuf.h"
#include "engine/engine.h"
#include "sinks/summary/summary.h"

/* A thread's figures in the current interval (its thread table entry's data). */
struct tt {
	uint64_t cpu_ns, slices, lat_n, lat_max, sys_n, sys_ns;
	bool pid_known;
	const char *pname;           /* its process's name (names), NULL: not known */
};

struct tcpu {
	uint64_t busy_ns, idle_ns, irq_ns, softirq_ns, irq_n, softirq_n;
};

/* A named total of the interval: IRQ handler, softirq vector or syscall. */
enum { TN_IRQ, TN_SOFTIRQ, TN_SYSCALL, TN_KINDS };
struct tnamed {
	const char *name;            /* the model's (lives as long as it) */
	uint64_t n, ns;
};

/* A thread row of the snapshot: its own copy of what it shows (the tables may start
 * afresh before it is printed again). */
struct trow {
	uint32_t th;                 /* thread table index when made */
	int64_t tid, pid;            /* pid -1: not known */
	const char *name, *pname;    /* the snapshot's strings */
	uint64_t cpu_ns, slices, lat_n, p50, p90, p99, max, sys_n, sys_ns;
};

struct snap {
	bool has;
	uint64_t seq, from, to;
	struct tcpu *cpus;
	size_t ncpus;
	struct trow *rows;
	size_t nrows;
	struct tnamed *named[TN_KINDS];
	size_t nnamed[TN_KINDS];
	uint64_t switches, wakeups, irqs, events, lost;
	bool restarted;              /* the model started afresh at from */
	bool behind;                 /* cut before every CPU's reader caught up with to, or
					records came after newer ones: figures may miss some */
	struct kt_strtab strs;       /* the names its rows and named totals show */
};

struct ktrace_view_top {
	struct ktrace_view_top_opts o;
	struct ktrace_stream *s;
	struct kt_model *model;
	uint64_t a;                  /* the current interval's start */
	uint64_t seq;
	struct kt_threads threads;   /* data: struct tt */
	struct tcpu *cpus;
	size_t ncpus;
	struct kt_map hist;          /* (thread, latency bucket) -> count */
	struct kt_map named_index;   /* (kind, name pointer) -> named[kind][] */
	struct tnamed *named[TN_KINDS];
	size_t nnamed[TN_KINDS], cap_named[TN_KINDS];
	uint64_t events, lost, switches0, wakeups0, late0;
	pid_t *self;                 /* the calling process's threads */
	size_t nself, cap_self;
	struct snap snap;
	struct kt_strtab names;      /* process names */
	bool restart_told;           /* the next snapshot says it started afresh */
};

/* Threads kept at most by default (the model's and top's tables), beyond 4 for each
 * thread of the last interval: a machine that keeps starting processes does not make
 * a long run's memory grow without end. */
#define TOP_MAX_THREADS 65536

/* ---- the model's intervals ---- */

/* The part of [ts, ts + dur) in the current interval (its end is at most now). */
static uint64_t inside(const struct ktrace_view_top *v, uint64_t ts, int64_t dur)
{
	uint64_t end = ts + (uint64_t)dur, from = ts > v->a ? ts : v->a;

	return dur >= 0 && end > from ? end - from : 0;
}

static struct tcpu *cpu_at(struct ktrace_view_top *v, int32_t cpu)
{
	if (cpu < 0 || cpu >= 65536)
		return NULL;
	if ((size_t)cpu >= v->ncpus) {
		struct tcpu *c = kt_realloc_array(v->cpus, (size_t)cpu + 1, sizeof(*c));

		if (!c)
			return NULL;
		memset(c + v->ncpus, 0, ((size_t)cpu + 1 - v->ncpus) * sizeof(*c));
		v->cpus = c;
		v->ncpus = (size_t)cpu + 1;
	}
	return &v->cpus[cpu];
}

static struct tt *thread_at(struct ktrace_view_top *v, int64_t tid, uint32_t *index)
{
	struct kt_thread *th = kt_threads_add(&v->threads, 0, tid);

	if (!th)
		return NULL;
	*index = (uint32_t)kt_threads_index(&v->threads, th);
	return kt_threads_ext(&v->threads, *index);
}

static int on_state(void *ctx, const struct kt_model_state *s, struct ktrace_error *err)
{
	struct ktrace_view_top *v = ctx;
	uint64_t ns = inside(v, s->ts, s->dur);
	struct tcpu *c;
	struct tt *t;
	uint32_t i;

	if (s->dur < 0 || strcmp(s->state, "Running") || !(c = cpu_at(v, s->cpu)))
		return 0;
	if (s->tid == 0) {
		c->idle_ns += ns;
		return 0;
	}
	c->busy_ns += ns;
	if (!(t = thread_at(v, s->tid, &i)))
		return kt_error_oom(err);
	t->cpu_ns += ns;
	t->slices++;
	return 0;
}

static int on_latency(void *ctx, const struct kt_model_latency *l, struct ktrace_error *err)
{
	struct ktrace_view_top *v = ctx;
	uint32_t i, count = 0;
	struct tt *t = thread_at(v, l->tid, &i);
	uint64_t b = sm_bucket_of((uint64_t)l->dur);

	if (!t)
		return kt_error_oom(err);
	t->lat_n++;
	if ((uint64_t)l->dur > t->lat_max)
		t->lat_max = (uint64_t)l->dur;
	kt_map_get(&v->hist, i, b, &count);
	if (count < UINT32_MAX && kt_map_put(&v->hist, i, b, count + 1))
		return kt_error_oom(err);
	return 0;
}

static struct tnamed *named_at(struct ktrace_view_top *v, int kind, const char *name)
{
	uint32_t i;

	if (kt_map_get(&v->named_index, (uint64_t)kind, (uint64_t)(uintptr_t)name, &i))
		return &v->named[kind][i];
	if (kt_grow((void **)&v->named[kind], &v->cap_named[kind], v->nnamed[kind] + 1,
		    sizeof(struct tnamed)) ||
	    kt_map_put(&v->named_index, (uint64_t)kind, (uint64_t)(uintptr_t)name,
		       (uint32_t)v->nnamed[kind]))
		return NULL;
	v->named[kind][v->nnamed[kind]] = (struct tnamed){ .name = name };
	return &v->named[kind][v->nnamed[kind]++];
}

static int on_kslice(void *ctx, const struct kt_model_kslice *k, struct ktrace_error *err)
{
	struct ktrace_view_top *v = ctx;
	uint64_t ns = inside(v, k->ts, k->dur);
	int kind = !strcmp(k->category, "irq") ? TN_IRQ : !strcmp(k->category, "softirq") ? TN_SOFTIRQ
										      : TN_SYSCALL;
	struct tnamed *n;
	struct tcpu *c;

	if (k->dur < 0)
		return 0;
	if (kind == TN_SYSCALL && !v->o.syscalls)
		return 0;
	if (!(n = named_at(v, kind, k->name ? k->name : "?")))
		return kt_error_oom(err);
	n->n++;
	n->ns += ns;
	if (kind == TN_SYSCALL) {
		uint32_t i;
		struct tt *t = k->tid > 0 ? thread_at(v, k->tid, &i) : NULL;

		if (t) {
			t->sys_n++;
			t->sys_ns += ns;
		}
		return 0;
	}
	if (!(c = cpu_at(v, k->cpu)))
		return 0;
	if (kind == TN_IRQ) {
		c->irq_ns += ns;
		c->irq_n++;
	} else {
		c->softirq_ns += ns;
		c->softirq_n++;
	}
	return 0;
}

/* ---- reading ---- */

int ktrace_view_top_new(struct ktrace_tracefs_session *sess, const struct ktrace_view_top_opts *o,
			struct ktrace_view_top **out, struct ktrace_error *err)
{
	struct ktrace_view_top *v = calloc(1, sizeof(*v));
	int ret;

	*out = NULL;
	if (!v)
		return kt_error_oom(err);
	if ((ret = KT_OPTS_COPY(&v->o, o, "ktrace_view_top_opts", err))) {
		free(v);
		return ret;
	}
	kt_threads_init(&v->threads, 0, 0, sizeof(struct tt));
	if ((ret = kt_stream_open_live(sess, &v->s, err))) {
		ktrace_view_top_free(v);
		return ret;
	}
	*out = v;
	return 0;
}

static int open_model(struct ktrace_view_top *v, uint64_t start, struct ktrace_error *err)
{
	struct kt_model_ops ops = { .ctx = v, .state = on_state, .latency = on_latency,
				    .kslice = on_kslice };
	struct utsname u;

	if (uname(&u) < 0)
		u.machine[0] = 0;
	return kt_model_open_live(&v->model, start, u.machine, &ops, err);
}

int ktrace_view_top_begin(struct ktrace_view_top *v, uint64_t start, struct ktrace_error *err)
{
	if (v->model)
		return ktrace_error_set(err, -EINVAL, "ktrace top: begun already");
	v->a = start;
	kt_stream_live_until(v->s, start);
	return open_model(v, start, err);
}

/* Past the threads it keeps, the model and the tables start afresh at the interval's
 * start (what the model knew of each CPU and thread is learnt again from the records:
 * this interval's figures may miss what ran through its start unseen). */
static int restart(struct ktrace_view_top *v, struct ktrace_error *err)
{
	size_t most = v->o.max_threads ? v->o.max_threads : TOP_MAX_THREADS + 4 * v->snap.nrows;

	if (v->threads.n <= most)
		return 0;
	kt_model_free(v->model);
	v->model = NULL;
	kt_threads_free(&v->threads);
	kt_threads_init(&v->threads, 0, 0, sizeof(struct tt));
	kt_map_free(&v->hist);
	kt_map_free(&v->named_index);
	for (int k = 0; k < TN_KINDS; k++) {
		free(v->named[k]);
		v->named[k] = NULL;
		v->nnamed[k] = v->cap_named[k] = 0;
	}
	kt_strtab_free(&v->names);
	memset(&v->names, 0, sizeof(v->names));
	v->switches0 = v->wakeups0 = 0;
	v->restart_told = true;
	return open_model(v, v->a, err);
}

int64_t ktrace_view_top_read(struct ktrace_view_top *v, uint64_t until, struct ktrace_error *err)
{
	const struct ktrace_stream_record *r;
	int64_t n = 0;
	int ret;

	if (!v->model)
		return ktrace_error_set(err, -EINVAL, "ktrace top: not begun");
	kt_stream_live_until(v->s, until);
	while ((ret = ktrace_stream_next(v->s, &r, err)) == 1) {
		if (r->kind == KTRACE_STREAM_LOST)
			v->lost += r->lost;
		else
			v->events++;
		n++;
		if ((ret = kt_model_record(v->model, v->s, r, err)))
			return ret;
	}
	return ret < 0 ? ret : n;
}

int ktrace_view_top_ready(struct ktrace_view_top *v, uint64_t until, struct ktrace_error *err)
{
	uint64_t to;
	int64_t n = ktrace_view_top_read(v, until, err);
	int ret;

	if (n < 0)
		return (int)n;
	if ((ret = kt_stream_live_captured_to(v->s, &to, err)))
		return ret;
	return to >= until;
}

/* The threads of the calling process, read again. */
static void read_self(struct ktrace_view_top *v)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	v->nself = 0;
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
		    !kt_grow((void **)&v->self, &v->cap_self, v->nself + 1, sizeof(*v->self)))
			v->self[v->nself++] = (pid_t)atoi(e->d_name);
	closedir(d);
}

static bool is_self(const struct ktrace_view_top *v, int64_t tid)
{
	for (size_t i = 0; i < v->nself; i++)
		if (v->self[i] == tid)
			return true;
	return false;
}

/* The snapshot's latency quantiles of each row, from the interval's histogram. */
static int quantiles(struct ktrace_view_top *v, uint32_t *row_of)
{
	struct sm_hist_entry *e;
	size_t n;

	if (sm_hist_entries(&v->hist, &e, &n))
		return -ENOMEM;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && e[j].thread == e[i].thread; j++)
			;
		if (row_of[e[i].thread]) {
			struct trow *r = &v->snap.rows[row_of[e[i].thread] - 1];

			r->p50 = sm_quantile(e + i, j - i, r->lat_n, 50, r->max);
			r->p90 = sm_quantile(e + i, j - i, r->lat_n, 90, r->max);
			r->p99 = sm_quantile(e + i, j - i, r->lat_n, 99, r->max);
		}
	}
	free(e);
	return 0;
}

/* The process of thread i: its pid and name from /proc (once; -1 when gone). */
static const struct kt_thread *resolve(struct ktrace_view_top *v, uint32_t i, const char **pname)
{
	struct kt_thread *th = &v->threads.v[i];
	struct tt *t = kt_threads_ext(&v->threads, i);
	char path[64], buf[512];

	if (!th->name || !*th->name) {
		const char *c = kt_stream_live_comm(v->s, th->id);

		if (*c) {
			free(th->name);
			th->name = strdup(c);
		}
	}
	if (!t->pid_known) {
		int fd;
		ssize_t n;

		t->pid_known = true;
		th->pid = th->id == 0 ? 0 : -1;
		snprintf(path, sizeof(path), "/proc/%lld/status", (long long)th->id);
		fd = th->id > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0) {
				char *p;

				buf[n] = 0;
				p = strstr(buf, "\nTgid:");
				if (p)
					th->pid = strtoll(p + 6, NULL, 10);
			}
		}
	}
	if (!t->pname && th->pid > 0) {
		/* the process's name as /proc has it now, else as the trace named it */
		const char *name = "";
		int fd;
		ssize_t n = 0;

		snprintf(path, sizeof(path), "/proc/%lld/comm", (long long)th->pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		if (n > 0) {
			buf[n] = 0;
			buf[strcspn(buf, "\n")] = 0;
			name = buf;
		} else {
			name = kt_stream_live_comm(v->s, th->pid);
		}
		t->pname = kt_intern(&v->names, name, strlen(name));
	}
	*pname = t->pname ? t->pname : "";
	return th;
}

int ktrace_view_top_cut(struct ktrace_view_top *v, uint64_t until, struct ktrace_error *err)
{
	struct snap *sn = &v->snap;
	uint64_t switches, wakeups, captured;
	uint32_t *row_of = NULL;
	int ret;

	if ((ret = ktrace_view_top_ready(v, until, err)) < 0)
		return ret;
	captured = (uint64_t)ret;
	if (until < v->a)
		until = v->a;
	/* what is open at the end: the part so far */
	for (size_t k = 0; k < kt_model_cpu_count(v->model, 0); k++) {
		struct kt_model_cpu_now now;
		struct tcpu *c = cpu_at(v, (int32_t)k);

		if (!c)
			return kt_error_oom(err);
		if (!kt_model_cpu_now(v->model, 0, (int32_t)k, &now))
			continue;
		if (now.tid >= 0 && now.since < until) {
			uint64_t ns = until - (now.since > v->a ? now.since : v->a);

			if (now.tid == 0) {
				c->idle_ns += ns;
			} else {
				uint32_t i;
				struct tt *t = thread_at(v, now.tid, &i);

				if (!t)
					return kt_error_oom(err);
				c->busy_ns += ns;
				t->cpu_ns += ns;
			}
		}
		if (now.irq && now.irq_ts < until)
			c->irq_ns += until - (now.irq_ts > v->a ? now.irq_ts : v->a);
		if (now.softirq && now.softirq_ts < until)
			c->softirq_ns += until - (now.softirq_ts > v->a ? now.softirq_ts : v->a);
	}
	/* the snapshot */
	read_self(v);
	sn->has = true;
	sn->restarted = v->restart_told;
	v->restart_told = false;
	kt_strtab_free(&sn->strs);
	sn->seq = ++v->seq;
	sn->from = v->a;
	sn->to = until;
	free(sn->cpus);
	sn->cpus = v->ncpus ? kt_realloc_array(NULL, v->ncpus, sizeof(*sn->cpus)) : NULL;
	if (v->ncpus && !sn->cpus)
		return kt_error_oom(err);
	if (v->ncpus)
		memcpy(sn->cpus, v->cpus, v->ncpus * sizeof(*sn->cpus));
	sn->ncpus = v->ncpus;
	sn->nrows = 0;
	free(sn->rows);
	sn->rows = NULL;
	row_of = calloc(v->threads.n ? v->threads.n : 1, sizeof(*row_of));
	if (!row_of)
		return kt_error_oom(err);
	for (size_t i = 0; i < v->threads.n; i++) {
		struct tt *t = kt_threads_ext(&v->threads, i);

		if ((!t->cpu_ns && !t->lat_n && !t->sys_n) || is_self(v, v->threads.v[i].id))
			continue;
		row_of[i] = (uint32_t)++sn->nrows;
	}
	sn->rows = sn->nrows ? calloc(sn->nrows, sizeof(*sn->rows)) : NULL;
	if (sn->nrows && !sn->rows) {
		free(row_of);
		return kt_error_oom(err);
	}
	for (size_t i = 0; i < v->threads.n; i++) {
		struct tt *t = kt_threads_ext(&v->threads, i);

		if (row_of[i]) {
			const char *pname;
			const struct kt_thread *th = resolve(v, (uint32_t)i, &pname);
			const char *name = kt_thread_name(th);
			struct trow *r = &sn->rows[row_of[i] - 1];

			*r = (struct trow){
				.th = (uint32_t)i, .tid = th->id, .pid = th->pid,
				.name = kt_intern(&sn->strs, name, strlen(name)),
				.pname = kt_intern(&sn->strs, pname, strlen(pname)),
				.cpu_ns = t->cpu_ns, .slices = t->slices,
				.lat_n = t->lat_n, .max = t->lat_max, .sys_n = t->sys_n,
				.sys_ns = t->sys_ns,
			};
			if (!r->name || !r->pname) {
				free(row_of);
				return kt_error_oom(err);
			}
		}
	}
	ret = quantiles(v, row_of);
	free(row_of);
	if (ret)
		return kt_error_oom(err);
	for (int k = 0; k < TN_KINDS; k++) {
		free(sn->named[k]);
		sn->named[k] = NULL;
		sn->nnamed[k] = 0;
		for (size_t i = 0; i < v->nnamed[k]; i++) {
			if (!v->named[k][i].n && !v->named[k][i].ns)
				continue;
			if (!sn->named[k] &&
			    !(sn->named[k] = kt_realloc_array(NULL, v->nnamed[k], sizeof(struct tnamed))))
				return kt_error_oom(err);
			sn->named[k][sn->nnamed[k]] = v->named[k][i];
			/* (a copy of the name: the model's may go before the snapshot does) */
			if (!(sn->named[k][sn->nnamed[k]++].name =
				      kt_intern(&sn->strs, v->named[k][i].name, strlen(v->named[k][i].name))))
				return kt_error_oom(err);
		}
	}
	kt_model_counts(v->model, 0, &switches, &wakeups);
	sn->switches = switches - v->switches0;
	sn->wakeups = wakeups - v->wakeups0;
	v->switches0 = switches;
	v->wakeups0 = wakeups;
	sn->irqs = 0;
	for (size_t k = 0; k < v->ncpus; k++)
		sn->irqs += v->cpus[k].irq_n;
	sn->events = v->events;
	sn->lost = v->lost;
	sn->behind = !captured || kt_stream_live_late(v->s) != v->late0;
	v->late0 = kt_stream_live_late(v->s);
	/* a new interval */
	v->events = v->lost = 0;
	if (v->ncpus)
		memset(v->cpus, 0, v->ncpus * sizeof(*v->cpus));
	for (size_t i = 0; i < v->threads.n; i++) {
		struct tt *t = kt_threads_ext(&v->threads, i);
		bool known = t->pid_known;
		const char *pname = t->pname;

		memset(t, 0, sizeof(*t));
		t->pid_known = known;
		t->pname = pname;
	}
	for (int k = 0; k < TN_KINDS; k++)
		for (size_t i = 0; i < v->nnamed[k]; i++)
			v->named[k][i].n = v->named[k][i].ns = 0;
	kt_map_free(&v->hist);
	v->a = until;
	/* past the threads it keeps: afresh from the next interval on (the snapshot has
	 * copies of what it shows) */
	return restart(v, err);
}

void ktrace_view_top_free(struct ktrace_view_top *v)
{
	if (!v)
		return;
	kt_model_free(v->model);
	ktrace_stream_close(v->s);
	kt_threads_free(&v->threads);
	kt_map_free(&v->hist);
	kt_map_free(&v->named_index);
	for (int k = 0; k < TN_KINDS; k++) {
		free(v->named[k]);
		free(v->snap.named[k]);
	}
	free(v->cpus);
	free(v->self);
	free(v->snap.cpus);
	free(v->snap.rows);
	kt_strtab_free(&v->snap.strs);
	kt_strtab_free(&v->names);
	free(v);
}

/* ---- printing ---- */

static int sort_mode;

static int row_order(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;

	switch (sort_mode) {
	case KTRACE_TOP_SORT_LATENCY:
		if (x->p99 != y->p99)
			return x->p99 > y->p99 ? -1 : 1;
		if (x->max != y->max)
			return x->max > y->max ? -1 : 1;
		break;
	case KTRACE_TOP_SORT_WAKEUPS:
		if (x->lat_n != y->lat_n)
			return x->lat_n > y->lat_n ? -1 : 1;
		break;
	default:
		break;
	}
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return x->th < y->th ? -1 : x->th > y->th;
}

static int named_order(const void *a, const void *b)
{
	const struct tnamed *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A duration as text: "-" for none, "850ns", "12.3us", "4.56ms", "1.23s". */
static void dur_text(char *b, size_t len, uint64_t ns, bool none)
{
	if (none)
		snprintf(b, len, "-");
	else if (ns < 1000)
		snprintf(b, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(b, len, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(b, len, "%.2fms", (double)ns / 1e6);
	else
		snprintf(b, len, "%.2fs", (double)ns / 1e9);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

/* Lines of text: each cut to width, at most height of them (0: no limit each). */
struct lines {
	struct ktrace_out *out;
	unsigned width, height, n;
	bool eol_clear;
};

static void line(struct lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(struct lines *l, const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	int n;

	if (l->height && l->n >= l->height)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(b))
		n = sizeof(b) - 1;
	if (l->width && (unsigned)n > l->width)
		n = (int)l->width;
	kt_out_write(l->out, b, (size_t)n);
	if (l->eol_clear)
		kt_out_puts(l->out, "\033[K");
	l->n++;
	if (!l->height || l->n < l->height)
		kt_out_putc(l->out, '\n');
}

static const char *const sort_names[] = { "cpu", "latency", "wakeups" };

static void print_text(struct ktrace_view_top *v, const struct ktrace_view_top_print_opts *p,
		       struct ktrace_out *out)
{
	struct snap *sn = &v->snap;
	uint64_t dt = sn->to - sn->from, busy = 0, irq = 0, softirq = 0;
	struct lines l = { out, p->width, p->height, 0, p->screen };
	unsigned rows_max, shown = 0;
	char b1[16], b2[16], b3[16];

	line(&l, "ktrace top  interval %llu  %.3f s  %.0f switches/s  %.0f wakeups/s  %.0f IRQs/s  "
	     "sort: %s%s%s",
	     (unsigned long long)sn->seq, (double)dt / 1e9, per_sec(sn->switches, dt),
	     per_sec(sn->wakeups, dt), per_sec(sn->irqs, dt), sort_names[p->sort % 3],
	     p->status ? "  " : "", p->status ? p->status : "");
	if (sn->lost)
		line(&l, "  %llu events lost in this interval (the figures miss them)",
		     (unsigned long long)sn->lost);
	if (sn->behind)
		line(&l, "  a CPU's reader was late: the figures may miss some of its records");
	if (sn->restarted)
		line(&l, "  more threads than top keeps: its model started afresh at this interval "
			 "(what ran through its start unseen is missing)");
	line(&l, "CPU     busy      irq  softirq     idle");
	for (size_t k = 0; k < sn->ncpus; k++) {
		const struct tcpu *c = &sn->cpus[k];

		busy += c->busy_ns;
		irq += c->irq_ns;
		softirq += c->softirq_ns;
		if (p->screen && p->height && sn->ncpus > 8 && l.n + 12 > p->height)
			continue;
		line(&l, "%-4zu %6.1f%% %7.1f%% %7.1f%% %7.1f%%", k, pct(c->busy_ns, dt), pct(c->irq_ns, dt),
		     pct(c->softirq_ns, dt), pct(c->idle_ns, dt));
	}
	if (sn->ncpus > 1)
		line(&l, "all  %6.1f%% %7.1f%% %7.1f%%  (%% of one CPU)", pct(busy, dt), pct(irq, dt),
		     pct(softirq, dt));
	line(&l, "%s", "");
	line(&l, "%7s %7s %-16s %-16s %6s %7s %6s %8s %8s %8s", "TID", "PID", "THREAD", "PROCESS",
	     "CPU%", "SLICES", "WAKEUP", "LAT p50", "p99", "max");
	sort_mode = p->sort;
	if (sn->nrows > 1)
		qsort(sn->rows, sn->nrows, sizeof(*sn->rows), row_order);
	rows_max = p->top ? p->top : UINT32_MAX;
	/* (scrolled past the end: the last row stays) */
	for (size_t i = p->scroll < sn->nrows ? p->scroll : sn->nrows ? sn->nrows - 1 : 0;
	     i < sn->nrows && shown < rows_max;
	     i++, shown++) {
		const struct trow *r = &sn->rows[i];
		char pid[24];

		if (p->screen && p->height && l.n >= p->height - (v->o.syscalls ? 4u : 0u))
			break;
		snprintf(pid, sizeof(pid), r->pid >= 0 ? "%lld" : "-", (long long)r->pid);
		dur_text(b1, sizeof(b1), r->p50, !r->lat_n);
		dur_text(b2, sizeof(b2), r->p99, !r->lat_n);
		dur_text(b3, sizeof(b3), r->max, !r->lat_n);
		line(&l, "%7lld %7s %-16.16s %-16.16s %5.1f%% %7llu %6llu %8s %8s %8s", (long long)r->tid,
		     pid, r->name, r->pname, pct(r->cpu_ns, dt), (unsigned long long)r->slices,
		     (unsigned long long)r->lat_n, b1, b2, b3);
	}
	if (sn->nrows > shown)
		line(&l, "  (%zu threads, %zu more)", sn->nrows, sn->nrows - shown);
	if (v->o.syscalls) {
		struct tnamed *n = sn->named[TN_SYSCALL];
		size_t k = sn->nnamed[TN_SYSCALL];

		if (k > 1)
			qsort(n, k, sizeof(*n), named_order);
		line(&l, "%s", "");
		line(&l, "%-24s %10s %10s %12s", "SYSCALL", "count/s", "avg", "in it/s");
		for (size_t i = 0; i < k && i < (p->top ? p->top : 10); i++) {
			dur_text(b1, sizeof(b1), n[i].n ? n[i].ns / n[i].n : 0, !n[i].n);
			dur_text(b2, sizeof(b2), dt ? (uint64_t)((double)n[i].ns * 1e9 / (double)dt) : 0, false);
			line(&l, "%-24.24s %10.0f %10s %12s", n[i].name, per_sec(n[i].n, dt), b1, b2);
		}
	}
	/* the rest of the screen empty */
	while (p->screen && p->height && l.n < p->height)
		line(&l, "%s", "");
}

static void json_named(struct kt_json *j, const char *key, struct tnamed *n, size_t k, unsigned top)
{
	if (k > 1)
		qsort(n, k, sizeof(*n), named_order);
	kt_json_key_cstr(j, key);
	kt_json_begin_object(j, false);
	kt_json_key_cstr(j, "total");
	kt_json_u64(j, k);
	kt_json_key_cstr(j, "rows");
	kt_json_begin_array(j, false);
	for (size_t i = 0; i < k && i < top; i++) {
		kt_json_begin_object(j, false);
		kt_json_key_cstr(j, "name");
		kt_json_cstr(j, n[i].name);
		kt_json_key_cstr(j, "count");
		kt_json_u64(j, n[i].n);
		kt_json_key_cstr(j, "ns");
		kt_json_u64(j, n[i].ns);
		kt_json_end_object(j);
	}
	kt_json_end_array(j);
	kt_json_end_object(j);
}

static void json_thread(struct kt_json *j, const struct trow *r)
{
	kt_json_key_cstr(j, "tid");
	kt_json_i64(j, r->tid);
	kt_json_key_cstr(j, "pid");
	if (r->pid >= 0)
		kt_json_i64(j, r->pid);
	else
		kt_json_null(j);
	kt_json_key_cstr(j, "name");
	kt_json_cstr(j, r->name);
	kt_json_key_cstr(j, "process");
	kt_json_cstr(j, r->pname);
}

static void print_json(struct ktrace_view_top *v, const struct ktrace_view_top_print_opts *p,
		       struct ktrace_out *out)
{
	struct snap *sn = &v->snap;
	unsigned top = p->top ? p->top : 20;
	struct kt_json j;
	size_t k;

	kt_json_init(&j, out, 0);
	kt_json_begin_object(&j, false);
	kt_json_key_cstr(&j, "schema");
	kt_json_cstr(&j, "ktrace-top/1");
	kt_json_key_cstr(&j, "interval");
	kt_json_u64(&j, sn->seq);
	kt_json_key_cstr(&j, "from_ns");
	kt_json_u64(&j, sn->from);
	kt_json_key_cstr(&j, "to_ns");
	kt_json_u64(&j, sn->to);
	kt_json_key_cstr(&j, "duration_ns");
	kt_json_u64(&j, sn->to - sn->from);
	kt_json_key_cstr(&j, "events");
	kt_json_u64(&j, sn->events);
	kt_json_key_cstr(&j, "lost_events");
	kt_json_u64(&j, sn->lost);
	kt_json_key_cstr(&j, "model_restarted");
	kt_json_bool(&j, sn->restarted);
	kt_json_key_cstr(&j, "readers_behind");
	kt_json_bool(&j, sn->behind);
	kt_json_key_cstr(&j, "context_switches");
	kt_json_u64(&j, sn->switches);
	kt_json_key_cstr(&j, "wakeups");
	kt_json_u64(&j, sn->wakeups);
	kt_json_key_cstr(&j, "irqs");
	kt_json_u64(&j, sn->irqs);
	kt_json_key_cstr(&j, "cpu");
	kt_json_begin_array(&j, false);
	for (k = 0; k < sn->ncpus; k++) {
		const struct tcpu *c = &sn->cpus[k];

		kt_json_begin_object(&j, false);
		kt_json_key_cstr(&j, "cpu");
		kt_json_u64(&j, k);
		kt_json_key_cstr(&j, "busy_ns");
		kt_json_u64(&j, c->busy_ns);
		kt_json_key_cstr(&j, "idle_ns");
		kt_json_u64(&j, c->idle_ns);
		kt_json_key_cstr(&j, "irq_ns");
		kt_json_u64(&j, c->irq_ns);
		kt_json_key_cstr(&j, "irq_count");
		kt_json_u64(&j, c->irq_n);
		kt_json_key_cstr(&j, "softirq_ns");
		kt_json_u64(&j, c->softirq_ns);
		kt_json_key_cstr(&j, "softirq_count");
		kt_json_u64(&j, c->softirq_n);
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	/* threads by CPU time, then by wakeup latency */
	for (int pass = 0; pass < 2; pass++) {
		size_t shown = 0;

		sort_mode = pass ? KTRACE_TOP_SORT_LATENCY : KTRACE_TOP_SORT_CPU;
		if (sn->nrows > 1)
			qsort(sn->rows, sn->nrows, sizeof(*sn->rows), row_order);
		kt_json_key_cstr(&j, pass ? "threads_by_wakeup_latency" : "threads_by_cpu_time");
		kt_json_begin_object(&j, false);
		kt_json_key_cstr(&j, "total");
		for (k = 0; k < sn->nrows; k++)
			shown += pass ? sn->rows[k].lat_n > 0 : sn->rows[k].cpu_ns > 0;
		kt_json_u64(&j, shown);
		kt_json_key_cstr(&j, "rows");
		kt_json_begin_array(&j, false);
		shown = 0;
		for (k = 0; k < sn->nrows && shown < top; k++) {
			const struct trow *r = &sn->rows[k];

			if (pass ? !r->lat_n : !r->cpu_ns)
				continue;
			shown++;
			kt_json_begin_object(&j, false);
			json_thread(&j, r);
			if (!pass) {
				kt_json_key_cstr(&j, "cpu_ns");
				kt_json_u64(&j, r->cpu_ns);
				kt_json_key_cstr(&j, "slices");
				kt_json_u64(&j, r->slices);
			} else {
				kt_json_key_cstr(&j, "count");
				kt_json_u64(&j, r->lat_n);
				kt_json_key_cstr(&j, "p50_ns");
				kt_json_u64(&j, r->p50);
				kt_json_key_cstr(&j, "p90_ns");
				kt_json_u64(&j, r->p90);
				kt_json_key_cstr(&j, "p99_ns");
				kt_json_u64(&j, r->p99);
				kt_json_key_cstr(&j, "max_ns");
				kt_json_u64(&j, r->max);
			}
			kt_json_end_object(&j);
		}
		kt_json_end_array(&j);
		kt_json_end_object(&j);
	}
	json_named(&j, "irq_handlers", sn->named[TN_IRQ], sn->nnamed[TN_IRQ], top);
	json_named(&j, "softirq_vectors", sn->named[TN_SOFTIRQ], sn->nnamed[TN_SOFTIRQ], top);
	if (v->o.syscalls)
		json_named(&j, "syscalls", sn->named[TN_SYSCALL], sn->nnamed[TN_SYSCALL], top);
	kt_json_end_object(&j);
	kt_out_putc(out, '\n');
}

int ktrace_view_top_print(struct ktrace_view_top *v, const struct ktrace_view_top_print_opts *p,
			  struct ktrace_out *out, struct ktrace_error *err)
{
	struct ktrace_view_top_print_opts o;
	int ret;

	if ((ret = KT_OPTS_COPY(&o, p, "ktrace_view_top_print_opts", err)))
		return ret;
	if (!v->snap.has)
		return 0;
	if (o.json)
		print_json(v, &o, out);
	else
		print_text(v, &o, out);
	return 0;
}
