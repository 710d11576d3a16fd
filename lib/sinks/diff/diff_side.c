// SPDX-License-Identifier: MIT
/*
 * `ktrace diff`: each input read with its own stream and the summary's gathering (the
 * series kept, from its complete time on: sinks/summary/summary.h), two inputs at a
 * time; then per side the entities, named so that the two sides match (docs/diff.md):
 * processes by name, threads by process name, name and rank among the threads of that
 * name (by tid), CPUs by number, handlers, vectors, syscalls and events by name.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "sinks/diff/diff_int.h"

/* ---- reading the inputs ---- */

struct job {
	struct df *d;
	pthread_mutex_t lock;
	size_t next, total, err_i;
	int ret;
	struct ktrace_error err;
	const char *err_path;
	struct ktrace_stream **streams;
};

static struct df_file *file_at(struct df *d, size_t i)
{
	return i < d->side[0].nfiles ? &d->side[0].files[i] : &d->side[1].files[i - d->side[0].nfiles];
}

static void *worker(void *arg)
{
	struct job *j = arg;

	for (;;) {
		struct ktrace_error err = { 0 };
		const char *bad = NULL;
		struct df_file *f;
		struct ktrace_stream *s = NULL;
		size_t i;
		int ret;

		pthread_mutex_lock(&j->lock);
		i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->total)
			return NULL;
		f = file_at(j->d, i);
		ret = ktrace_stream_open(&s, &f->path, 1, j->d->o.stream, &err, &bad);
		if (!ret) {
			KTRACE_OPTS(ktrace_view_summary_opts, so);

			j->streams[i] = s;
			ret = sm_gather(&f->sm, s, &so, true, true, &err);
			if (ret)
				bad = ktrace_stream_error_path(s);
			if (ret && (!f->sm || !f->sm->gathered)) {
				sm_free(f->sm);
				f->sm = NULL;
			}
		}
		if (ret) {
			pthread_mutex_lock(&j->lock);
			/* the first input's error in the order given */
			if (!j->ret || i < j->err_i) {
				j->ret = ret;
				j->err = err;
				j->err_path = bad ? bad : f->path;
				j->err_i = i;
			}
			pthread_mutex_unlock(&j->lock);
		}
	}
}

int df_gather(struct df *d, struct ktrace_error *err, const char **err_path)
{
	struct job j = { .d = d, .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t th;
	bool two;

	j.total = d->side[0].nfiles + d->side[1].nfiles;
	j.streams = calloc(j.total, sizeof(*j.streams));
	if (!j.streams)
		return kt_error_oom(err);
	two = j.total > 1 && !pthread_create(&th, NULL, worker, &j);
	worker(&j);
	if (two)
		pthread_join(th, NULL);
	d->streams = j.streams;
	d->nstreams = j.total;
	for (size_t i = 0; i < j.total; i++)
		if (!file_at(d, i)->sm && !j.ret) {
			j.ret = kt_error_oom(&j.err);
			j.err_path = NULL;
		}
	if (j.ret) {
		*err = j.err;
		*err_path = j.err_path;
	}
	return j.ret;
}

/* ---- a side's entities ---- */

static struct df_ent *ent_of(struct df *d, struct df_side *side, enum df_kind kind, const char *key)
{
	const char *k = kt_intern(&d->strings, key, strlen(key));
	uint32_t i;
	struct df_ent *e;

	if (!k)
		return NULL;
	if (kt_map_get(&side->index, kind, (uint64_t)(uintptr_t)k, &i))
		return &side->ents[i];
	if (kt_grow((void **)&side->ents, &side->cap_ents, side->nents + 1, sizeof(*side->ents)) ||
	    kt_map_put(&side->index, kind, (uint64_t)(uintptr_t)k, (uint32_t)side->nents))
		return NULL;
	e = &side->ents[side->nents++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->key = k;
	if (!(e->win = calloc((size_t)DF_SLOTS * (side->nwin ? side->nwin : 1), sizeof(*e->win)))) {
		side->nents--;
		kt_map_del(&side->index, kind, (uint64_t)(uintptr_t)k);
		return NULL;
	}
	return e;
}

/* File f's windows: the slots its complete time reaches, the last merged into the one
 * before when shorter than half a slot. */
static void windows(struct df_file *f)
{
	const struct sm *sm = f->sm;
	uint64_t t0 = sm->t0, end = f->end;
	size_t n;

	f->nwin = 0;
	if (end <= t0)
		return;
	n = (size_t)((end - t0 + sm->w - 1) / sm->w);
	if (n > SM_SLOTS)
		n = SM_SLOTS;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = t0 + i * sm->w, b = a + sm->w;

		f->wdur[i] = (double)((b < end ? b : end) - a) / 1e9;
	}
	if (n > 1 && f->wdur[n - 1] * 2e9 < (double)sm->w) {
		f->wdur[n - 2] += f->wdur[n - 1];
		n--;
	}
	f->nwin = n;
}

/* Adds series ser (1-based, 0 none) of file f into slot k of e's windows, and total. */
static void add_series(const struct df_side *side, const struct df_file *f, struct df_ent *e,
		       unsigned k, uint32_t ser, uint64_t total)
{
	e->total[k] += (double)total;
	if (!ser)
		return;
	for (size_t i = 0; i < SM_SLOTS; i++) {
		size_t w = i < f->nwin ? i : f->nwin - 1;
		uint64_t v = f->sm->ser[ser - 1].v[i];

		if (v && f->nwin && f->wdur[w] > 0)
			e->win[(size_t)k * side->nwin + f->win0 + w] += (double)v / f->wdur[w];
	}
}

static int add_hist(struct df_ent *e, const struct sm_hist_entry *h, size_t n)
{
	if (kt_grow((void **)&e->hist, &e->cap_hist, e->nhist + n, sizeof(*e->hist)))
		return -ENOMEM;
	memcpy(e->hist + e->nhist, h, n * sizeof(*h));
	e->nhist += n;
	return 0;
}

static int bucket_order(const void *a, const void *b)
{
	const struct sm_hist_entry *x = a, *y = b;

	return x->bucket < y->bucket ? -1 : x->bucket > y->bucket;
}

struct th {
	size_t i;
	int64_t tid;
	const char *proc, *name;
};

static int th_order(const void *a, const void *b)
{
	const struct th *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static const char *nm(const char *s)
{
	return s && *s ? s : "?";
}

static int file_threads(struct df *d, struct df_side *side, struct df_file *f)
{
	const struct sm *sm = f->sm;
	struct kt_map procs = { 0 }, rank = { 0 };
	struct th *v = kt_realloc_array(NULL, sm->threads.n ? sm->threads.n : 1, sizeof(*v));
	size_t n = 0;
	int ret = -ENOMEM;

	if (!v)
		return -ENOMEM;
	/* process names: the main thread's, else the first named thread's */
	for (size_t i = 0; i < sm->threads.n; i++) {
		const struct kt_thread *t = &sm->threads.v[i];
		int64_t pid = t->pid >= 0 ? t->pid : t->id;
		uint32_t k;

		if (t->id == 0 || !t->name)
			continue;
		if (!kt_map_get(&procs, (uint64_t)pid, 0, &k) || t->id == pid) {
			if (kt_map_put(&procs, (uint64_t)pid, 0, (uint32_t)i))
				goto out;
		}
	}
	for (size_t i = 0; i < sm->threads.n; i++) {
		const struct kt_thread *t = &sm->threads.v[i];
		const struct sm_thread *x = sm_thread_at(sm, i);
		int64_t pid = t->pid >= 0 ? t->pid : t->id;
		uint32_t k;

		if (t->id == 0 || t->scope != 0)
			continue;
		if (!x->cpu_ns && !x->runnable_ns && !x->sleeping_ns && !x->blocked_ns && !x->lat_n &&
		    !x->sys_n)
			continue;
		v[n].i = i;
		v[n].tid = t->id;
		v[n].name = nm(t->name);
		v[n].proc = kt_map_get(&procs, (uint64_t)pid, 0, &k) ? nm(sm->threads.v[k].name) : v[n].name;
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), th_order);
	for (size_t k = 0; k < n; k++) {
		const struct sm_thread *x = sm_thread_at(sm, v[k].i);
		char key[300];
		const char *base;
		uint32_t seen = 0;
		size_t ei;
		struct df_ent *e, *p;

		snprintf(key, sizeof(key), "%s/%s", v[k].proc, v[k].name);
		if (!(base = kt_intern(&d->strings, key, strlen(key))))
			goto out;
		kt_map_get(&rank, (uint64_t)(uintptr_t)base, 0, &seen);
		if (kt_map_put(&rank, (uint64_t)(uintptr_t)base, 0, seen + 1))
			goto out;
		if (seen)
			snprintf(key + strlen(key), sizeof(key) - strlen(key), "#%u", seen + 1);
		/* (adding an entity moves them: the thread's found again after its process) */
		if (!(e = ent_of(d, side, DK_THREAD, key)))
			goto out;
		ei = (size_t)(e - side->ents);
		if (!(p = ent_of(d, side, DK_PROCESS, v[k].proc)))
			goto out;
		e = &side->ents[ei];
		e->seen = p->seen = true;
		add_series(side, f, e, 0, x->ser ? x->ser + SMS_CPU : 0, x->cpu_ns);
		add_series(side, f, e, 1, x->ser ? x->ser + SMS_RUNNABLE : 0, x->runnable_ns);
		add_series(side, f, e, 2, x->ser ? x->ser + SMS_SLEEPING : 0, x->sleeping_ns);
		add_series(side, f, e, 3, x->ser ? x->ser + SMS_BLOCKED : 0, x->blocked_ns);
		add_series(side, f, e, 4, x->ser ? x->ser + SMS_WAKEUPS : 0, x->lat_n);
		add_series(side, f, p, 0, x->ser ? x->ser + SMS_CPU : 0, x->cpu_ns);
		add_series(side, f, p, 1, x->ser ? x->ser + SMS_SYS_N : 0, x->sys_n);
		add_series(side, f, p, 2, x->ser ? x->ser + SMS_SYS_NS : 0, x->sys_ns);
		if (x->lat_n) {
			e->lat_n += x->lat_n;
			if (x->lat_max > e->lat_max)
				e->lat_max = x->lat_max;
			if (add_hist(e, sm->hist_e + x->hist_off, x->hist_n))
				goto out;
		}
	}
	ret = 0;
out:
	kt_map_free(&procs);
	kt_map_free(&rank);
	free(v);
	return ret;
}

static int file_ents(struct df *d, struct df_side *side, struct df_file *f)
{
	const struct sm *sm = f->sm;
	const struct sm_input *in = &sm->in[0];
	struct df_ent *e;
	char key[300];
	static const enum df_kind kinds[] = { [SM_IRQ] = DK_IRQ, [SM_SOFTIRQ] = DK_SOFTIRQ,
					      [SM_SYSCALL] = DK_SYSCALL, [SM_EVENT] = DK_EVENT };

	if (!(e = ent_of(d, side, DK_TRACE, "trace")))
		return -ENOMEM;
	e->seen = true;
	add_series(side, f, e, 0, in->ser, in->lost);
	for (size_t c = 0; c < in->ncpus; c++) {
		const struct sm_cpu *x = &in->cpus[c];

		if (!x->seen)
			continue;
		snprintf(key, sizeof(key), "cpu%zu", c);
		if (!(e = ent_of(d, side, DK_CPU, key)))
			return -ENOMEM;
		e->seen = true;
		add_series(side, f, e, 0, x->ser ? x->ser + SMS_BUSY : 0, x->busy_ns);
		add_series(side, f, e, 1, x->ser ? x->ser + SMS_IRQ : 0, x->irq_ns);
		add_series(side, f, e, 2, x->ser ? x->ser + SMS_SOFTIRQ : 0, x->softirq_ns);
	}
	for (int k = 0; k < SM_KINDS; k++) {
		for (size_t i = 0; i < sm->nnamed[k]; i++) {
			const struct sm_named *x = &sm->named[k][i];

			if (k == SM_EVENT && x->system && *x->system)
				snprintf(key, sizeof(key), "%s:%s", x->system, nm(x->name));
			else
				snprintf(key, sizeof(key), "%s", nm(x->name));
			if (!(e = ent_of(d, side, kinds[k], key)))
				return -ENOMEM;
			e->seen = true;
			add_series(side, f, e, 0, x->ser ? x->ser + SMS_N : 0, x->n);
			add_series(side, f, e, 1, x->ser ? x->ser + SMS_NS : 0, x->ns);
		}
	}
	return file_threads(d, side, f);
}

int df_side_build(struct df *d, unsigned s)
{
	struct df_side *side = &d->side[s];
	double complete = 0;

	side->nwin = 0;
	for (size_t i = 0; i < side->nfiles; i++) {
		struct df_file *f = &side->files[i];
		const struct sm_input *in = &f->sm->in[0];

		f->start = in->any ? in->first_ts : 0;
		f->end = in->any ? in->last_ts : 0;
		f->complete_from = f->sm->t0;
		windows(f);
		f->win0 = side->nwin;
		side->nwin += f->nwin;
		if (f->end > f->complete_from)
			side->secs += (double)(f->end - f->complete_from) / 1e9;
		if (f->end > f->start)
			side->span += (double)(f->end - f->start) / 1e9;
		if (f->end > f->complete_from)
			complete += (double)(f->end - f->complete_from) / 1e9;
	}
	for (size_t i = 0; i < side->nfiles; i++) {
		side->lacks |= sm_lacks(side->files[i].sm, 0);
		if (file_ents(d, side, &side->files[i]))
			return -ENOMEM;
	}
	for (size_t i = 0; i < side->nents; i++) {
		struct df_ent *e = &side->ents[i];

		if (e->kind == DK_TRACE)
			e->complete = side->span > 0 ? complete / side->span * 100 : 0;
		if (!e->lat_n)
			continue;
		/* the side's histogram: by bucket, the files' counts of a bucket summed */
		qsort(e->hist, e->nhist, sizeof(*e->hist), bucket_order);
		{
			size_t n = 0;

			for (size_t k = 0; k < e->nhist; k++) {
				if (n && e->hist[n - 1].bucket == e->hist[k].bucket)
					e->hist[n - 1].count += e->hist[k].count;
				else
					e->hist[n++] = e->hist[k];
			}
			e->nhist = n;
		}
		e->value[0] = (double)sm_quantile(e->hist, e->nhist, e->lat_n, 50, e->lat_max);
		e->value[1] = (double)sm_quantile(e->hist, e->nhist, e->lat_n, 90, e->lat_max);
		e->value[2] = (double)sm_quantile(e->hist, e->nhist, e->lat_n, 99, e->lat_max);
		e->value[3] = (double)e->lat_max;
	}
	return 0;
}

void df_side_free(struct df_side *side)
{
	for (size_t i = 0; i < side->nfiles; i++)
		sm_free(side->files[i].sm);
	free(side->files);
	for (size_t i = 0; i < side->nents; i++) {
		free(side->ents[i].win);
		free(side->ents[i].hist);
	}
	free(side->ents);
	kt_map_free(&side->index);
}
