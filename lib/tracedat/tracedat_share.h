/* SPDX-License-Identifier: MIT */
/*
 * Decompressed chunks shared by the iterators of several threads (library-internal; the
 * design is described at the top of tracedat_share.c).
 *
 * A report with several threads reads every record of a version 7 file in every thread,
 * each with iterators of its own. Without sharing, each thread would decompress every
 * chunk; with tracedat_share_chunks and tracedat_iter_share, the first iterator to need
 * a chunk decompresses it into a buffer the others use too.
 */
#ifndef KTRACE_TRACEDAT_SHARE_H
#define KTRACE_TRACEDAT_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/tracedat.h>

#include "tracedat/tracedat_int.h"

/*
 * Lets up to `readers` iterators of td (made with tracedat_iter_new, in any thread)
 * share the decompressed chunks of its compressed buffers: call it once, before the
 * iterators are shared (tracedat_iter_share). Each of its CPUs keeps at most about
 * readers * TD_SHARE_READER_BYTES of chunks (see tracedat_share.c). 0 (also for a file
 * without compressed data, where there is nothing to share), -EINVAL (called twice, or
 * readers 0) or -ENOMEM.
 */
int tracedat_share_chunks(struct tracedat *td, unsigned readers);

/*
 * The iterator's compressed streams take their chunks from td's shared ones from now on
 * (each stream one of the readers of its CPU): call it from the thread that uses it,
 * before or after records were read, never twice. A stream whose CPU already has
 * `readers` iterators, or of a file without tracedat_share_chunks, goes on
 * decompressing by itself. 0.
 */
int tracedat_iter_share(struct tracedat_iter *it);

/* What the shared chunks of td did, summed over its CPUs (for tests and measures). */
struct tracedat_share_stats {
	uint64_t chunks;            /* chunks of the compressed CPU data */
	uint64_t shared;            /* decompressed into a shared buffer */
	uint64_t private_;          /* decompressed by a stream for itself (cache full) */
	uint64_t waits;             /* a reader waited for another to finish a chunk */
	size_t buffers;             /* shared buffers made */
	size_t buffers_max;         /* the most buffers a CPU may have */
};
void tracedat_share_stats(const struct tracedat *td, struct tracedat_share_stats *st);

/* ---- for the iterator (tracedat_iter.c) ---- */

struct td_zslot;

/* The reader id of a new reader of cpu's shared chunks, which reads chunk `at` next, or
 * -1 when the CPU has no shared chunks or all its readers are there. */
int td_zs_attach(struct td_cpu *cpu, uint64_t at);
/* The reader is gone (its iterator is freed): it holds no chunk any more. */
void td_zs_detach(struct td_cpu *cpu, int reader);
/*
 * The shared buffer of chunk `chunk` of cpu (at file offset `file`: csize compressed
 * bytes after its 8-byte header, usize once decompressed), held for the reader until
 * td_zs_put; decompressed with codec when no reader did it before. NULL when the
 * caller must decompress it by itself: every buffer the CPU may have holds a chunk a
 * reader still needs, or no memory, or the chunk does not decompress (the caller's
 * own attempt then finds and reports the damage as without sharing).
 */
struct td_zslot *td_zs_get(struct td_cpu *cpu, int reader, uint64_t chunk, struct td_codec *codec,
			   const uint8_t *src, uint32_t csize, uint32_t usize);
/* The chunk's bytes (usize of them). */
const uint8_t *td_zs_data(const struct td_zslot *slot);
/* The reader will not look at the chunk any more. */
void td_zs_put(struct td_cpu *cpu, struct td_zslot *slot);
/* Frees td's shared chunks (tracedat_close, when no iterator is left). */
void td_share_free(struct tracedat *td);

#endif
