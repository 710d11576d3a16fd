/* SPDX-License-Identifier: MIT */
/*
 * The engine's worker threads, offered to sinks: an ordered pipeline of chunks.
 *
 * The calling thread fills chunks with records one after the other (fill); worker
 * threads turn filled chunks into output (work), several chunks at once; one thread at a
 * time hands the finished chunks on in the order they were filled (emit). Chunks are the
 * sink's own structures: the pipeline only moves pointers between the three roles and
 * waits when every chunk is in use. A sink's output is thus the single-threaded one, in
 * order, whatever the number of workers.
 */
#ifndef KTRACE_ENGINE_PIPELINE_H
#define KTRACE_ENGINE_PIPELINE_H

#include <stddef.h>

struct kt_pipeline_ops {
	/* The calling thread: fills chunk with the next records, *n of them (0 at the end).
	 * A negative code stops the pipeline after the records already in chunk. */
	int (*fill)(void *arg, void *chunk, size_t *n);
	/* A worker, once, before any chunk: 0 or a negative code (its chunks then fail). */
	int (*worker_init)(void *wctx);
	/* A worker: the chunk's output. A negative code stops the pipeline. */
	int (*work)(void *wctx, void *chunk);
	/* One thread at a time, in fill order: hands the chunk's output on and empties it.
	 * A negative code stops the pipeline. Not called for a chunk whose work failed or
	 * after an emit error. */
	int (*emit)(void *arg, void *chunk);
};

struct kt_pipeline_result {
	int fill_error;        /* from fill */
	int work_error;        /* the first from worker_init or work */
	int emit_error;        /* the first from emit */
	int start_error;       /* -EAGAIN/-ENOMEM when a thread could not start (0 else) */
};

/*
 * Runs the pipeline with nchunks chunks (at least 2) and one thread per worker context
 * (wctx[0..nworkers), at least 1). Returns when every filled chunk was emitted or the
 * pipeline stopped; the errors are in *res.
 */
void kt_pipeline_run(const struct kt_pipeline_ops *ops, void *arg, void *const *chunks,
		     size_t nchunks, void *const *wctx, size_t nworkers,
		     struct kt_pipeline_result *res);

#endif
