// SPDX-License-Identifier: MIT
/* Blocks written in turn (engine/engine.h). */
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>

void kt_turns_init(struct kt_turns *t, int (*write)(void *ctx, const void *p, size_t n), void *ctx)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	t->write = write;
	t->ctx = ctx;
	atomic_init(&t->claimed, 1);    /* block 0: the first thread's (kt_turns_claim) */
}

void kt_turns_fini(struct kt_turns *t)
{
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
}

bool kt_turns_write(struct kt_turns *t, struct kt_turn_queue *q, bool wait)
{
	bool ok = true;

	pthread_mutex_lock(&t->mu);
	while (q->n) {
		struct kt_turn_block *p = &q->p[0], done;

		if (t->failed) {
			ok = false;
			break;
		}
		if (t->next != p->block) {
			if (!wait)
				break;
			pthread_cond_wait(&t->cv, &t->mu);
			continue;
		}
		/* this block's turn: nobody else writes until next moves */
		pthread_mutex_unlock(&t->mu);
		{
			int ret = t->write_error ? 0 : t->write(t->ctx, p->buf, p->len);

			pthread_mutex_lock(&t->mu);
			if (ret && !t->write_error)
				t->write_error = ret;
		}
		t->next++;
		pthread_cond_broadcast(&t->cv);
		done = *p;
		memmove(&q->p[0], &q->p[1], (q->n - 1) * sizeof(q->p[0]));
		done.len = 0;
		q->p[--q->n] = done;     /* its buffer is used again */
	}
	pthread_mutex_unlock(&t->mu);
	return ok;
}

bool kt_turns_queue(struct kt_turns *t, struct kt_turn_queue *q, uint64_t block, void **buf,
		    size_t *len, size_t *cap)
{
	struct kt_turn_block *p;
	void *spare;
	size_t spare_cap;

	if (q->n == KT_TURNS_QUEUE && !kt_turns_write(t, q, true))
		return false;
	p = &q->p[q->n++];
	spare = p->buf;
	spare_cap = p->cap;
	p->block = block;
	p->buf = *buf;
	p->len = *len;
	p->cap = *cap;
	*buf = spare;
	*cap = spare_cap;
	*len = 0;
	return kt_turns_write(t, q, q->n == KT_TURNS_QUEUE);
}

void kt_turns_give_up(struct kt_turns *t)
{
	pthread_mutex_lock(&t->mu);
	t->failed = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

void kt_turn_queue_free(struct kt_turn_queue *q)
{
	for (size_t i = 0; i < KT_TURNS_QUEUE; i++)
		free(q->p[i].buf);
	memset(q, 0, sizeof(*q));
}
