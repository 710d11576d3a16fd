/* SPDX-License-Identifier: MIT */
/*
 * What the library's sinks (lib/sinks/<name>/) may use of the engine beside the public
 * event stream (<ktrace/stream.h>): the one engine header a sink includes
 * (scripts/layering.py checks it). Everything else of lib/engine is the engine's own
 * (engine_*_int.h: the sources, the trace.dat set, read-ahead).
 *
 *  - more of a stream's record: how its line starts (kt_stream_format_parts), its
 *    ftrace bytes (kt_stream_ftrace_raw), errors about it (kt_stream_record_error);
 *  - passing over records (kt_stream_skip) and what another stream of the same inputs
 *    costs (kt_stream_registry_bytes), for sinks that read with several threads;
 *  - parallel formatting: blocks of output made by several threads, written in turn
 *    (kt_turns_*);
 *  - trace-cmd's line prefix (kt_line_prefix);
 *  - inputs that can be read once only, copied for readers that open them by name
 *    (kt_spool_*).
 */
#ifndef KTRACE_ENGINE_H
#define KTRACE_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/event.h>
#include <ktrace/stream.h>

#include "common/numspan.h"

/* ---- a stream's records ---- */

/* How the line the last format call made starts (kt_stream_format_parts): label bytes
 * (a buffer or file name column), then prefix bytes that kt_line_prefix makes in style
 * (below) from the record's comm, tid, CPU, time and name; style 0 when
 * the source does not say. omitted: the prefix was left out as asked (prefix 0), the
 * label followed by the text. */
struct kt_line_parts {
	int style;
	size_t label, prefix;
	bool omitted;
	/* the numbers the formatter wrote in the record's text (common/numspan.h; at from
	 * text_at, the text's start in the line), when the source knows them: valid until
	 * the stream moves on. Their digits are '0's in the line (numspan.h). */
	const struct kt_num *nums;
	unsigned nnums;
	size_t text_at;
	/* the text was not looked through for a NUL, which ends a line (trace-cmd prints
	 * with printf("%.*s")): the caller looks (KT_FORMAT_NUL_LATER) */
	bool nul_later;
};

/* What kt_stream_skip may move past: the event records accept returns true for (event
 * id, thread id, CPU, time in ns), which the caller then never sees. */
struct kt_stream_skip {
	bool (*accept)(void *arg, uint32_t event_id, int64_t tid, int32_t cpu, uint64_t ts);
	void *arg;
};

/* An ftrace record as its source has it: the registry and event format its fields are
 * read with, and its bytes. */
struct kt_ftrace_raw {
	struct ktrace_events *evs;
	const struct ktrace_event *ev;
	const uint8_t *data;
	uint32_t size;
};

/* For sinks that read fields themselves (the Perfetto export's numbers): the current
 * record's bytes when it is an event of an ftrace source with formats (trace.dat, raw
 * pages with an events directory), read-ahead or not. 0, or -ENOENT. */
int kt_stream_ftrace_raw(struct ktrace_stream *s, struct kt_ftrace_raw *out);

/*
 * For sinks that use few of the records (the threads of the Perfetto export pass over
 * the records other threads write): moves past the current record, then past the
 * records that follow it while how->accept takes them (at most max: *skipped), without
 * handing them out; the next ktrace_stream_next gives the first record not taken.
 * Records that need more than their event, thread and time (lost-event marks, records
 * that teach comms with names not known yet) are never skipped. Only streams of one
 * trace.dat source without read-ahead or --cpu skip: on the others it does nothing
 * (*skipped 0) and ktrace_stream_next moves on as usual. 0 or a negative code.
 */
int kt_stream_skip(struct ktrace_stream *s, uint64_t max, const struct kt_stream_skip *how,
		   uint64_t *skipped, struct ktrace_error *err);

/* ktrace_stream_format, and how the line starts (*parts: the source's, valid until the
 * stream moves on; style 0 when not known, all 0 after an error). how: with
 * KT_FORMAT_OMIT_PREFIX, a prefix the source can tell of is left out (omitted); with
 * KT_FORMAT_NUL_LATER, the source may leave the text's end at a NUL to the caller
 * (nul_later: the line ends at its first NUL, if any; the final newline is gone either
 * way). */
#define KT_FORMAT_OMIT_PREFIX 1u
#define KT_FORMAT_NUL_LATER 2u
int kt_stream_format_parts(struct ktrace_stream *s, char *buf, size_t len,
			   const struct kt_line_parts **parts, unsigned how);

/* Bytes of event formats and symbols the stream's sources hold: what each further
 * stream of the same inputs costs (the sinks that read with several streams). */
size_t kt_stream_registry_bytes(struct ktrace_stream *s);

/* A sink's error about record r of s (a record its output cannot hold): err set with
 * the message at r's offset, and ktrace_stream_error_path(s) then names r's input (the
 * caller's string). Returns code. */
int kt_stream_record_error(struct ktrace_stream *s, const struct ktrace_stream_record *r,
			   struct ktrace_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* ---- parallel formatting: blocks written in turn (engine_turns.c) ---- */

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

/* ---- trace-cmd's line prefix (engine_line_prefix.c) ---- */

enum {
	KT_PREFIX_USECS = 1,     /* "%16s-%-5d [%03d] %5lu.%06lu: %s: %*s" (20 - name) */
	KT_PREFIX_NSECS = 2,     /* the same with the time as "%12lu" nanoseconds */
	KT_PREFIX_GENERIC = 3,   /* other formats: "<...>" for no comm, "[---]" for no CPU,
				    "%-20s " for the name (kt_stream_generic_line) */
};

/* The prefix of style st into p (room for 256 + name + comm bytes); returns its length. */
size_t kt_line_prefix(char *p, int st, const char *comm, int64_t tid, int cpu, uint64_t ts,
		      const char *name);

/* ---- inputs read once (engine_spool.c) ---- */

/* True for "-" and a FIFO. */
bool kt_spool_needed(const char *path);
/* For such a path: 0 with *fd the copy's descriptor (the caller closes it; a regular
 * file on standard input is not copied: *fd is a descriptor of its own on it); for any
 * other path: 0 with *fd = -1 (nothing read). Else a negative errno with err set
 * ("unrecognised file format", "empty file", the limit, a full $TMPDIR...). */
int kt_spool_once(const char *path, int *fd, struct ktrace_error *err);

#endif
