// SPDX-License-Identifier: MIT
/*
 * Blocks taken by the first thread to get to them and written in turn
 * (lib/engine/engine_turns.h): block 0 is the first thread's, every block is taken by exactly
 * one thread, and the blocks go out in block order whoever made them, with 1, 2 and 5
 * threads racing through the same blocks.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "engine/engine.h"
#include "testlib.h"

#define NBLOCKS 20000

static uint64_t written[NBLOCKS];
static size_t nwritten;
static _Atomic unsigned taken[NBLOCKS];

/* The writer of the turns: one block's bytes (its number) at a time. */
static int write_block(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	if (n == sizeof(uint64_t) && nwritten < NBLOCKS)
		memcpy(&written[nwritten++], p, n);
	return 0;
}

struct racer {
	struct kt_turns *t;
	unsigned tid, nthr;
	uint64_t mine;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	struct kt_turn_queue q = { 0 };
	void *buf = NULL;
	size_t len = 0, cap = 0;

	for (uint64_t b = 0; b < NBLOCKS; b++) {
		if (!kt_turns_claim(r->t, b, r->tid, r->nthr))
			continue;
		atomic_fetch_add(&taken[b], 1);
		r->mine++;
		if (cap < sizeof(b)) {
			free(buf);
			buf = malloc(64);
			cap = 64;
		}
		memcpy(buf, &b, sizeof(b));
		len = sizeof(b);
		if (!kt_turns_queue(r->t, &q, b, &buf, &len, &cap))
			break;
	}
	kt_turns_write(r->t, &q, true);
	free(buf);
	kt_turn_queue_free(&q);
	return NULL;
}

static void run_threads(unsigned nthr)
{
	struct kt_turns t;
	struct racer r[8];
	pthread_t th[8];
	uint64_t sum = 0;

	memset(taken, 0, sizeof(taken));
	nwritten = 0;
	kt_turns_init(&t, write_block, NULL);
	for (unsigned i = 0; i < nthr; i++) {
		r[i] = (struct racer){ &t, i, nthr, 0 };
		CHECK_EQ(pthread_create(&th[i], NULL, race, &r[i]), 0);
	}
	for (unsigned i = 0; i < nthr; i++) {
		pthread_join(th[i], NULL);
		sum += r[i].mine;
	}
	kt_turns_fini(&t);
	CHECK_EQ(sum, NBLOCKS);
	CHECK_EQ(nwritten, NBLOCKS);
	for (uint64_t b = 0; b < NBLOCKS; b++) {
		if (atomic_load(&taken[b]) != 1 || written[b] != b) {
			printf("#   %u threads: block %llu taken %u times, written %llu-th: %llu\n",
			       nthr, (unsigned long long)b, atomic_load(&taken[b]),
			       (unsigned long long)b, (unsigned long long)written[b]);
			tl_case_failed = 1;
			break;
		}
	}
	CHECK(r[0].mine >= 1);    /* block 0 at least */
}

/* One thread, then several: the same blocks, each taken once, written in order. */
static void blocks_taken_once_written_in_order(void)
{
	run_threads(1);
	run_threads(2);
	run_threads(5);
}

/* Block 0 is the first thread's, whoever asks first; then the first to ask takes. */
static void block_zero_and_first_come(void)
{
	struct kt_turns t;

	kt_turns_init(&t, write_block, NULL);
	CHECK(!kt_turns_claim(&t, 0, 1, 2));   /* another thread asks for block 0 first */
	CHECK(kt_turns_claim(&t, 0, 0, 2));
	CHECK(kt_turns_claim(&t, 1, 1, 2));    /* thread 1 gets to block 1 first */
	CHECK(!kt_turns_claim(&t, 1, 0, 2));
	CHECK(kt_turns_claim(&t, 2, 1, 2));    /* and to block 2 */
	CHECK(!kt_turns_claim(&t, 2, 0, 2));   /* taken just above */
	CHECK(kt_turns_claim(&t, 3, 0, 2));
	CHECK(kt_turns_claim(&t, 7, 0, 1));    /* one thread: every block is its own */
	kt_turns_fini(&t);
}

int main(void)
{
	PLAN(2);
	RUN(block_zero_and_first_come);
	RUN(blocks_taken_once_written_in_order);
	return TEST_EXIT();
}
