// SPDX-License-Identifier: MIT
/*
 * Decompressed chunks shared by the iterators of several threads (tracedat_share.h).
 *
 * The problem. A multi-threaded report reads every record in every thread, each thread
 * with iterators of its own (so that nothing crosses between CPUs per record). On a
 * version 7 file every iterator decompressed every chunk (10 sub-buffers) of every CPU:
 * with N threads, N times the decompression work and N times the buffers.
 *
 * The design. Each compressed CPU entry of the file gets a small cache of decompressed
 * chunks (struct td_zcpu), guarded by one mutex, which its readers (one stream per
 * iterator that joined, tracedat_iter_share) use by chunk index:
 *
 *  - A reader that needs chunk k looks for it among the CPU's buffers (a handful: a
 *    linear scan, once per chunk of 10 pages, under the lock). Found and complete: it
 *    takes a reference and reads it. Found but still being decompressed by another
 *    reader: it waits for that one chunk (a few tens of microseconds; nobody holds the
 *    lock while decompressing). Not there: it takes a free buffer, marks it as chunk k
 *    being made, and decompresses into it outside the lock; the others then find it.
 *  - A reader holds its reference as long as it would have kept its own copy (the
 *    iterator's keep rule: until its walk is keep bytes past the chunk), then puts it.
 *  - Each reader publishes the index of the chunk it reads (pos). A buffer is free
 *    again when nobody holds it and every reader is past its chunk (chunk < min pos;
 *    a reader that has not joined yet counts as being at chunk 0, one that left as
 *    being past everything): a chunk is thus made once and dropped once all readers
 *    read it.
 *  - Memory stays bounded: a CPU has at most `cap` buffers (about readers x
 *    TD_SHARE_READER_BYTES of chunks), made as they are first needed and then used
 *    again. When all of them hold chunks a reader still needs (a thread stalled, or
 *    one far ahead of the others), the reader that needs another chunk decompresses it
 *    into a buffer of its own, as without sharing; it never waits for a slower reader.
 *  - A chunk that does not decompress is not kept: the reader's own attempt meets the
 *    damage again and reports it exactly as without sharing.
 *
 * Nothing is allocated per record: one lock round per chunk for the get, one for the
 * put; buffers are allocated once and used again.
 */
#include "tracedat/tracedat_share.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/cursor.h"

/* Bytes of chunks a CPU may keep per reader: its keep window (the report keeps 256 KiB
 * per stream) and what it may be ahead of or behind the other readers. */
#define TD_SHARE_READER_BYTES ((size_t)512 << 10)
#define TD_SHARE_MIN_SLOTS 4u
#define TD_ZNONE UINT64_MAX

struct td_zslot {
	uint64_t chunk;             /* the chunk it holds (TD_ZNONE: none) */
	uint8_t *mem;
	size_t cap;
	unsigned refs;              /* readers that may still look at it */
	bool ready;                 /* decompressed (else a reader is decompressing it) */
};

struct td_zcpu {
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* a chunk was made (or given up) */
	struct td_zslot *slots;     /* cap of them; nslots made so far */
	size_t nslots, cap;
	uint64_t *pos;              /* per reader: the chunk it reads (TD_ZNONE: gone) */
	unsigned readers, joined;
	uint64_t chunks;
	uint64_t shared, private_, waits;
};

int tracedat_share_chunks(struct tracedat *td, unsigned readers)
{
	size_t n = 0, k = 0;

	if (td->zcpus || !readers)
		return -EINVAL;
	for (size_t b = 0; b < td->nbufs; b++)
		if (td->bufs[b].pub.compressed && !td->bufs[b].pub.latency)
			n += td->bufs[b].ncpus;
	if (!n)
		return 0;
	td->zcpus = calloc(n, sizeof(*td->zcpus));
	if (!td->zcpus)
		return -ENOMEM;
	for (size_t b = 0; b < td->nbufs; b++) {
		struct td_buffer *buf = &td->bufs[b];
		size_t chunk = (size_t)buf->pub.page_size * TD_PAGES_PER_CHUNK;
		size_t per = chunk ? TD_SHARE_READER_BYTES / chunk : 0;

		if (!buf->pub.compressed || buf->pub.latency)
			continue;
		if (per < TD_SHARE_MIN_SLOTS)
			per = TD_SHARE_MIN_SLOTS;
		for (size_t c = 0; c < buf->ncpus; c++) {
			struct td_zcpu *zc = &td->zcpus[k];

			zc->readers = readers;
			zc->cap = per * readers;
			zc->chunks = buf->cpus[c].pub.chunks;
			zc->slots = calloc(zc->cap, sizeof(*zc->slots));
			zc->pos = calloc(readers, sizeof(*zc->pos));
			if (!zc->slots || !zc->pos ||
			    pthread_mutex_init(&zc->mu, NULL)) {
				free(zc->slots);
				free(zc->pos);
				td_share_free(td);
				return -ENOMEM;
			}
			if (pthread_cond_init(&zc->cv, NULL)) {
				pthread_mutex_destroy(&zc->mu);
				free(zc->slots);
				free(zc->pos);
				td_share_free(td);
				return -ENOMEM;
			}
			buf->cpus[c].zc = zc;
			td->nzcpus = ++k;
		}
	}
	return 0;
}

void td_share_free(struct tracedat *td)
{
	for (size_t i = 0; i < td->nzcpus; i++) {
		struct td_zcpu *zc = &td->zcpus[i];

		for (size_t s = 0; s < zc->nslots; s++)
			free(zc->slots[s].mem);
		free(zc->slots);
		free(zc->pos);
		pthread_mutex_destroy(&zc->mu);
		pthread_cond_destroy(&zc->cv);
	}
	for (size_t b = 0; b < td->nbufs; b++)
		for (size_t c = 0; c < td->bufs[b].ncpus; c++)
			td->bufs[b].cpus[c].zc = NULL;
	free(td->zcpus);
	td->zcpus = NULL;
	td->nzcpus = 0;
}

void tracedat_share_stats(const struct tracedat *td, struct tracedat_share_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < td->nzcpus; i++) {
		struct td_zcpu *zc = &td->zcpus[i];

		pthread_mutex_lock(&zc->mu);
		st->chunks += zc->chunks;
		st->shared += zc->shared;
		st->private_ += zc->private_;
		st->waits += zc->waits;
		st->buffers += zc->nslots;
		st->buffers_max += zc->cap;
		pthread_mutex_unlock(&zc->mu);
	}
}

int td_zs_attach(struct td_cpu *cpu, uint64_t at)
{
	struct td_zcpu *zc = cpu->zc;
	int r = -1;

	if (!zc)
		return -1;
	pthread_mutex_lock(&zc->mu);
	if (zc->joined < zc->readers) {
		r = (int)zc->joined++;
		zc->pos[r] = at;
	}
	pthread_mutex_unlock(&zc->mu);
	return r;
}

void td_zs_detach(struct td_cpu *cpu, int reader)
{
	struct td_zcpu *zc = cpu->zc;

	if (!zc || reader < 0)
		return;
	pthread_mutex_lock(&zc->mu);
	zc->pos[reader] = TD_ZNONE;
	pthread_mutex_unlock(&zc->mu);
}

/* Under the lock: the chunk every reader is at or past. */
static uint64_t min_pos(const struct td_zcpu *zc)
{
	uint64_t m = TD_ZNONE;

	for (unsigned r = 0; r < zc->readers; r++)
		if (zc->pos[r] < m)
			m = zc->pos[r];
	return m;
}

/* Spins this many times (a pause each, about 100 us in all) for a chunk another reader
 * is decompressing (tens of microseconds) before sleeping on the condition: going to
 * sleep and being woken costs a context switch each side and an IPI, on a VM as much as
 * the wait itself, and leaves the CPU idle meanwhile. */
#define TD_SPIN 2000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* With zc->mu held (and held again on return): waits without the lock, for a while,
 * until slot is ready or holds another chunk; whether it stopped waiting for that.
 * The answer is the one seen with the lock held again: a maker that finished (and
 * broadcast) between the last look and the lock has no other wake-up to give, and a
 * waiter that then slept on the condition slept for good (a report --threads 3 of a
 * v7 file hung so under load). */
static bool spin_for(struct td_zcpu *zc, struct td_zslot *slot, uint64_t chunk)
{
	bool done = false;

	pthread_mutex_unlock(&zc->mu);
	for (unsigned i = 0; i < TD_SPIN && !done; i++) {
		cpu_relax();
		done = __atomic_load_n(&slot->ready, __ATOMIC_ACQUIRE) ||
		       __atomic_load_n(&slot->chunk, __ATOMIC_RELAXED) != chunk;
	}
	pthread_mutex_lock(&zc->mu);
	return __atomic_load_n(&slot->ready, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&slot->chunk, __ATOMIC_RELAXED) != chunk;
}

struct td_zslot *td_zs_get(struct td_cpu *cpu, int reader, uint64_t chunk, struct td_codec *codec,
			   const uint8_t *src, uint32_t csize, uint32_t usize)
{
	struct td_zcpu *zc = cpu->zc;
	struct td_zslot *slot;
	bool waited = false;
	int ret;

	pthread_mutex_lock(&zc->mu);
	zc->pos[reader] = chunk;
	for (;;) {
		struct td_zslot *found = NULL, *free_slot = NULL;
		uint64_t passed = min_pos(zc);

		for (size_t i = 0; i < zc->nslots; i++) {
			struct td_zslot *s = &zc->slots[i];

			if (s->chunk == chunk) {
				found = s;
				break;
			}
			/* a free buffer: the latest chunk every reader is done with (its
			 * bytes the likeliest to be still in a cache) */
			if (!s->refs && (s->chunk == TD_ZNONE || s->chunk < passed) &&
			    (!free_slot || free_slot->chunk == TD_ZNONE ||
			     (s->chunk != TD_ZNONE && s->chunk > free_slot->chunk)))
				free_slot = s;
		}
		if (found && found->ready) {
			found->refs++;
			pthread_mutex_unlock(&zc->mu);
			return found;
		}
		if (found) {
			/* another reader is making it: a chunk's decompression away */
			if (!waited)
				zc->waits++;
			waited = true;
			if (!spin_for(zc, found, chunk))
				pthread_cond_wait(&zc->cv, &zc->mu);
			continue;
		}
		if (!free_slot && zc->nslots < zc->cap) {
			free_slot = &zc->slots[zc->nslots++];
			memset(free_slot, 0, sizeof(*free_slot));
		}
		if (!free_slot) {
			/* every buffer holds a chunk a reader still needs */
			zc->private_++;
			pthread_mutex_unlock(&zc->mu);
			return NULL;
		}
		slot = free_slot;
		__atomic_store_n(&slot->chunk, chunk, __ATOMIC_RELAXED);
		__atomic_store_n(&slot->ready, false, __ATOMIC_RELAXED);
		slot->refs = 1;
		break;
	}
	pthread_mutex_unlock(&zc->mu);

	ret = td_decompress_grow(codec, src, csize, &slot->mem, &slot->cap, usize);

	pthread_mutex_lock(&zc->mu);
	if (ret) {
		/* not kept: whoever waits for it makes its own attempt */
		__atomic_store_n(&slot->chunk, TD_ZNONE, __ATOMIC_RELAXED);
		slot->refs = 0;
		slot = NULL;
		zc->private_++;
	} else {
		__atomic_store_n(&slot->ready, true, __ATOMIC_RELEASE);
		zc->shared++;
	}
	pthread_cond_broadcast(&zc->cv);
	pthread_mutex_unlock(&zc->mu);
	return slot;
}

const uint8_t *td_zs_data(const struct td_zslot *slot)
{
	return slot->mem;
}

void td_zs_put(struct td_cpu *cpu, struct td_zslot *slot)
{
	struct td_zcpu *zc = cpu->zc;

	pthread_mutex_lock(&zc->mu);
	slot->refs--;
	pthread_mutex_unlock(&zc->mu);
}
