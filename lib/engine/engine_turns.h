/* SPDX-License-Identifier: MIT */
/*
 * Blocks written in turn: for sinks whose threads each read every record (a reader of
 * their own) and make the output of the blocks of records they take (kt_turns_claim). A thread queues each
 * of its blocks' output; the blocks go out in block order, whoever made them. Nothing
 * crosses from one thread to another but whole blocks, and only at their end: on the
 * VMs ktrace runs on, handing records over one by one cost more than reading them again.
 */
#ifndef KTRACE_ENGINE_TURNS_H
#define KTRACE_ENGINE_TURNS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the threads share. */
struct kt_turns {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t next;                     /* the block written next */
	_Atomic uint64_t claimed;          /* blocks taken by a thread (kt_turns_claim) */
	bool failed;                       /* a thread gave up: the others stop waiting */
	int write_error;                   /* the first from write */
	/* writes a block's bytes (one thread at a time, in block order): 0 or -errno */
	int (*write)(void *ctx, const void *p, size_t n);
	void *ctx;
};

#define KT_TURNS_QUEUE 4

/* One thread's blocks not written yet, oldest first, and the buffers it reuses. */
struct kt_turn_queue {
	struct kt_turn_block {
		uint64_t block;
		void *buf;
		size_t len, cap;
	} p[KT_TURNS_QUEUE];
	size_t n;
};

/*
 * Whether the calling thread makes block b, one of nthr threads: the first thread to get
 * there takes it. Every thread asks once for every block, in block order, when it has
 * read the records before it (all threads count the same records): a thread that formats
 * a block falls behind the others, who skip it, so the blocks go round by themselves, and
 * a thread that starts late (it opens its readers first) or loses its CPU for a while
 * takes fewer. Block 0 is the first thread's (tid 0): it starts with the trace's head.
 * One atomic step per block.
 */
static inline bool kt_turns_claim(struct kt_turns *t, uint64_t b, unsigned tid, unsigned nthr)
{
	uint64_t c;

	if (nthr < 2)
		return true;
	if (b == 0)
		return tid == 0;    /* taken at init: what goes before the first record is its */
	c = atomic_load_explicit(&t->claimed, memory_order_relaxed);
	return c == b && atomic_compare_exchange_strong_explicit(&t->claimed, &c, b + 1,
								 memory_order_relaxed,
								 memory_order_relaxed);
}

void kt_turns_init(struct kt_turns *t, int (*write)(void *ctx, const void *p, size_t n), void *ctx);
void kt_turns_fini(struct kt_turns *t);

/*
 * Queues block's output (*buf, *len bytes of *cap): the caller gets an empty buffer of
 * the queue's in exchange (*buf may be NULL with *cap 0). Writes the queue's blocks
 * whose turn it is, waiting for the other threads' when the queue is full. false when
 * the threads gave up.
 */
bool kt_turns_queue(struct kt_turns *t, struct kt_turn_queue *q, uint64_t block, void **buf,
		    size_t *len, size_t *cap);
/* Writes the queue's blocks whose turn it is; with wait, all of them. false when the
 * threads gave up. */
bool kt_turns_write(struct kt_turns *t, struct kt_turn_queue *q, bool wait);
/* A thread cannot go on: the others stop waiting for its blocks. */
void kt_turns_give_up(struct kt_turns *t);
void kt_turn_queue_free(struct kt_turn_queue *q);

#endif
