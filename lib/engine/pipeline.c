// SPDX-License-Identifier: MIT
/* The ordered chunk pipeline (engine/pipeline.h). */
#include "engine/pipeline.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

enum { C_FREE, C_FILLED, C_DONE };

struct pipeline {
	const struct kt_pipeline_ops *ops;
	void *arg;
	void *const *chunks;
	uint8_t *state;                /* per chunk: C_* */
	bool *failed;                  /* per chunk: its work failed */
	size_t nchunks;
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_free;
	uint64_t filled, taken, written;
	bool finished, writing, stop;
	struct kt_pipeline_result *res;
};

struct worker {
	struct pipeline *p;
	void *wctx;
	pthread_t th;
};

/* With mu held: emits the finished chunks in order, unless another thread does. */
static void emit_ready(struct pipeline *p)
{
	if (p->writing)
		return;
	p->writing = true;
	for (;;) {
		size_t k = p->written % p->nchunks;
		int ret = 0;

		if (p->written == p->filled || p->state[k] != C_DONE)
			break;
		pthread_mutex_unlock(&p->mu);
		if (!p->failed[k] && !p->res->emit_error)
			ret = p->ops->emit(p->arg, p->chunks[k]);
		pthread_mutex_lock(&p->mu);
		if (ret && !p->res->emit_error) {
			p->res->emit_error = ret;
			p->stop = true;
		}
		p->state[k] = C_FREE;
		p->written++;
		pthread_cond_broadcast(&p->cv_free);
	}
	p->writing = false;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pipeline *p = w->p;
	int init = p->ops->worker_init ? p->ops->worker_init(w->wctx) : 0;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		size_t k;
		int ret;

		while (p->taken == p->filled && !p->finished)
			pthread_cond_wait(&p->cv_work, &p->mu);
		if (p->taken == p->filled)
			break;
		k = p->taken++ % p->nchunks;
		pthread_mutex_unlock(&p->mu);
		ret = init ? init : p->ops->work(w->wctx, p->chunks[k]);
		pthread_mutex_lock(&p->mu);
		if (ret) {
			p->failed[k] = true;
			p->stop = true;
			if (!p->res->work_error)
				p->res->work_error = ret;
		}
		p->state[k] = C_DONE;
		emit_ready(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void kt_pipeline_run(const struct kt_pipeline_ops *ops, void *arg, void *const *chunks,
		     size_t nchunks, void *const *wctx, size_t nworkers,
		     struct kt_pipeline_result *res)
{
	struct pipeline p = { .ops = ops, .arg = arg, .chunks = chunks, .nchunks = nchunks,
			      .res = res };
	struct worker *w = calloc(nworkers ? nworkers : 1, sizeof(*w));
	size_t started = 0;

	*res = (struct kt_pipeline_result){ 0 };
	p.state = calloc(nchunks ? nchunks : 1, sizeof(*p.state));
	p.failed = calloc(nchunks ? nchunks : 1, sizeof(*p.failed));
	if (!w || !p.state || !p.failed || nchunks < 2 || !nworkers) {
		res->start_error = -ENOMEM;
		goto out;
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv_work, NULL);
	pthread_cond_init(&p.cv_free, NULL);
	for (size_t i = 0; i < nworkers; i++) {
		w[i].p = &p;
		w[i].wctx = wctx[i];
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i])) {
			res->start_error = -EAGAIN;
			break;
		}
		started++;
	}
	while (!res->start_error) {
		size_t k = p.filled % nchunks, n = 0;
		bool end;
		int ret;

		pthread_mutex_lock(&p.mu);
		while (p.state[k] != C_FREE && !p.stop)
			pthread_cond_wait(&p.cv_free, &p.mu);
		end = p.stop;
		pthread_mutex_unlock(&p.mu);
		if (end)
			break;
		ret = ops->fill(arg, chunks[k], &n);
		end = ret || !n;
		if (ret)
			res->fill_error = ret;
		pthread_mutex_lock(&p.mu);
		if (n) {
			p.state[k] = C_FILLED;
			p.filled++;
			pthread_cond_signal(&p.cv_work);
		}
		pthread_mutex_unlock(&p.mu);
		if (end)
			break;
	}
	pthread_mutex_lock(&p.mu);
	p.finished = true;
	pthread_cond_broadcast(&p.cv_work);
	pthread_mutex_unlock(&p.mu);
	for (size_t i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv_work);
	pthread_cond_destroy(&p.cv_free);
out:
	free(p.state);
	free(p.failed);
	free(w);
}
