/* SPDX-License-Identifier: MIT */
/*
 * The timeline's two writers, fed record by record by ktrace_view_timeline
 * (timeline_write.c) after timeline_model.h has classified each record, and fed the
 * engine's model's thread intervals (engine_model.h) as the model hands them out:
 *   timeline_html.c: the interactive page (its script and styles from timeline/, the
 *                    data as compressed columns and report lines);
 *   timeline_svg.c:  a static picture, every lane in fixed time bins.
 */
#ifndef KTRACE_VIEWS_TIMELINE_WRITERS_H
#define KTRACE_VIEWS_TIMELINE_WRITERS_H

#include <pthread.h>

#include <ktrace/stream.h>
#include <ktrace/view.h>

#include "common/outbuf.h"
#include "engine/engine.h"
#include "sinks/timeline/timeline_encode.h"
#include "sinks/timeline/timeline_model.h"

/* Where the input turned out damaged (the stream's error), for the writers to mark. */
struct tl_damage {
	bool set;
	uint64_t ts;                   /* the last record read before it */
	char message[KTRACE_ERROR_MESSAGE_MAX + 512];
};

/* ---- HTML ---- */

#define TL_ECHUNK 65536                /* records per column chunk */
#define TL_SCHUNK 65536                /* thread intervals per state chunk */
#define TL_LCHUNK 4096                 /* records per line chunk */
#define TL_MAX_LABELS 256
#define TL_MAX_THREADS 8

struct tl_html;
struct tl_memo_line;

/* Where the page's head and its line chunks go (timeline_layout.c). */
struct tl_layout {
	enum { TL_IN_ORDER, TL_LINES_AFTER, TL_HEAD_FIRST, TL_GAP } how;
	struct ktrace_out *dest;       /* the caller's output */
	struct ktrace_out *spill;      /* the anonymous file of the part that waits */
	struct ktrace_out *far;        /* TL_GAP: the output again, from TL_GAP_AT on */
	uint64_t start;                /* where the page starts in dest */
	/* TL_HEAD_FIRST into a named file: the thread that makes it durable as it grows */
	pthread_t sync_th;
	bool syncing, locks, conds, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t written, synced;      /* under mu: bytes of dest written, made durable */
	int sync_err;                  /* under mu: the first failed sync's (-errno) */
	uint64_t signalled;            /* (the writers' own, under the page's lock) */
};

/* Chooses the layout for dest (nothing written to it yet by the page). */
void tl_layout_open(struct tl_layout *y, struct ktrace_out *dest);
/* Where the head goes, and the line chunks. */
struct ktrace_out *tl_layout_head(struct tl_layout *y);
struct ktrace_out *tl_layout_lines(struct tl_layout *y);
/* After blocks were written (under the page's lock). */
void tl_layout_wrote(struct tl_layout *y);
/* The head complete: the parts in place, dest at the page's end (0, or a negative
 * code with err set). */
int tl_layout_join(struct tl_layout *y, struct ktrace_error *err);
void tl_layout_free(struct tl_layout *y);

/* One thread's part of the report lines (timeline_lines.c): the line chunks it makes,
 * encoded with a skeleton dictionary of its own ("dict<dict_id>" in the page). */
struct tl_lines {
	_Alignas(64) struct tl_html *h;
	unsigned tid, dict_id;
	struct tl_dict dict;
	uint8_t *style;                /* per input: the prefix style that fitted last */
	char *line;
	size_t line_cap;
	struct tl_buf enc, packed, b64;
	struct tl_zip zip;
	struct kt_num nums[KT_NUMS_MAX]; /* the line's numbers from the encoded part's start */
	uint64_t block;                /* the chunk being made, UINT64_MAX none */
	size_t count;                  /* its lines so far */
	bool own;                      /* the current chunk is this thread's */
	uint64_t last_ts;              /* the records' times made monotonic */
	uint64_t literal;              /* lines whose prefix did not fit a style */
	struct tl_memo_line *memo;     /* lines made, by their record's bytes
					* (timeline_lines.c; NULL: none yet), memo_slots */
	size_t memo_slots;
	uint64_t memo_tries, memo_hits;   /* lookups since the last look, lines found */
	bool labels;                   /* its stream's lines may have labels
					* (kt_stream_labels_lines) */
	int label_ids[TL_MAX_LABELS];  /* the labels this thread has met: page index, length */
	size_t label_len[TL_MAX_LABELS], nlabels;
	/* a thread of its own (not the first): */
	pthread_t th;
	bool running, started;
	_Atomic bool retire;           /* stop at the next chunk (the model thread's lines
					* take this thread's place: tl_html_drive_spare) */
	uint64_t nchunks;              /* chunks made */
	int ret;
	struct ktrace_error err;
};

struct tl_html {
	struct ktrace_out *out;        /* the head's (tl_layout_head) */
	struct tl_layout layout;       /* its dest: the caller's output */
	const struct ktrace_view_timeline_opts *o;
	struct tl_model *m;
	size_t ninputs;
	struct tl_buf col[5];          /* ts delta, cpu + 1, name, task + 1, arguments */
	size_t ecount;                 /* records in the current column chunk */
	uint32_t nechunks;
	uint64_t prev_ts;
	bool started;
	struct tl_buf packed, b64, chunk;
	struct tl_zip ezip;            /* the column stream */
	/* the model's thread intervals, in state chunks ("s0"...), made by the model thread
	 * (timeline_write.c) with buffers of its own (cache lines of their own too: the
	 * caller's thread writes the columns' for every record) */
	_Alignas(64) struct tl_buf states[5];  /* its columns */
	struct tl_buf schunk, spacked, sb64;
	uint64_t sbase;                /* the first record's time */
	size_t scount;                 /* intervals in the current state chunk */
	uint32_t nschunks;
	uint64_t sprev;                /* the last interval's end */
	uint64_t *prev_end;            /* per thread: its last closed interval's end */
	size_t nprev_end;
	/* the model's wakeup latencies, in wakeup chunks ("w0"...), made as the state chunks */
	struct tl_buf wakes[3];        /* their columns */
	size_t wcount;                 /* latencies in the current wakeup chunk */
	uint32_t nwchunks;
	uint64_t wprev;                /* the last latency's end */
	uint64_t nwakes;
	uint32_t *smap;                /* the model thread's threads -> the page's (at the end) */
	size_t nsmap;
	struct tl_zip szip;
	/* the line threads: lines[0] is the caller's, lines[driven] (if >= 0) the model
	 * thread's (timeline_write.c, from lines[spare]), the others run tl_lines_thread
	 * (each on cache lines of its own) */
	struct tl_lines lines[TL_MAX_THREADS];
	unsigned nthr;
	int spare, driven;
	bool lz4;                      /* line and column chunks in LZ4 blocks (big inputs),
					* else deflate */
	struct kt_turns claims;        /* which thread makes which line chunk */
	_Atomic bool stop;             /* the first thread failed: the others stop */
	/* under mu: the output, the labels, the lines written, the line threads that have
	 * tried to open their streams (opened_cv: one more) */
	pthread_mutex_t mu;
	pthread_cond_t opened_cv;
	bool has_cv;
	unsigned nopened;
	char *labels[TL_MAX_LABELS];
	size_t nlabels;
	uint64_t lines_written;
};

/* The page's head, and its line threads started. model_lines: when there are two line
 * threads or more, one more set of lines is kept for a model thread (the spare). */
int tl_html_begin(struct tl_html *h, struct ktrace_out *out, struct tl_model *m,
		  struct ktrace_stream *s, const struct ktrace_view_timeline_opts *o, bool model_lines);
/* The spare lines for the model thread to make (NULL: none), the last line thread told
 * to stop at its next chunk in their favour. */
struct tl_lines *tl_html_drive_spare(struct tl_html *h);
/* Waits until every other line thread has tried to open its stream (the opens of the
 * inputs in a fixed order: theirs, then the model's). */
void tl_html_wait_opened(struct tl_html *h);
int tl_html_add(struct tl_html *h, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		const struct tl_rec *tr);
/* The state chunks' times start from ts (the first record's), before any interval. */
void tl_html_states_from(struct tl_html *h, uint64_t ts);
/* An interval of the engine's model (thread: its index in the model thread's threads,
 * smap says which of the page's it is; state: tl_model_state's index). 0 or -ENOMEM. */
int tl_html_state(struct tl_html *h, uint32_t thread, uint32_t state, const struct kt_model_state *st);
/* A wakeup latency of the model: thread and waker (TL_NO_THREAD: unknown) numbered as
 * tl_html_state's. 0 or -ENOMEM. */
int tl_html_latency(struct tl_html *h, uint32_t thread, uint32_t waker, const struct kt_model_latency *l);
/* The rest of the page; 0, or a negative code with err set. */
int tl_html_end(struct tl_html *h, struct ktrace_stream *s, const struct tl_damage *dmg,
		struct ktrace_error *err);
void tl_html_free(struct tl_html *h);

/* One data block of the page, <script type="text/x-ktl" id="<id><k>" data-n="<n>"
 * [data-d="<dict>"]> with b64 inside (dict < 0: none), written whole under the page's
 * lock (a line chunk, dict >= 0, where the layout puts them); lines: the report lines
 * it holds. */
void tl_html_put_block(struct tl_html *h, const char *id, uint64_t k, size_t n, int dict,
		       const struct tl_buf *b64, uint64_t lines, bool lz4);

int tl_lines_init(struct tl_lines *l, struct tl_html *h, unsigned dict_id);
void tl_lines_free(struct tl_lines *l);
/* Record k of the stream (the current one of s): its line made when its chunk is this
 * thread's (*own). 0 or -ENOMEM. */
int tl_lines_record(struct tl_lines *l, unsigned tid, struct ktrace_stream *s,
		    const struct ktrace_stream_record *r, uint64_t k, bool *own);
/* The last chunk out. */
int tl_lines_finish(struct tl_lines *l);
/* kt_stream_skip's test (arg: a struct tl_lines) for records whose lines another thread
 * makes: every record taken, its time kept (the page's times stay monotonic, as the
 * thread that makes its line has them). */
bool tl_lines_passed(void *arg, uint32_t event_id, int64_t tid, int32_t cpu, uint64_t ts);
/* pthread start routine of the other line threads (arg: their struct tl_lines). */
void *tl_lines_thread(void *arg);

/* ---- SVG ---- */

#define TL_BINS 1000
#define TL_SVG_MAX_THREADS 1024        /* threads given bins of their own (the first met) */

struct tl_cpubins {
	uint32_t *best;                /* the thread with most time in the bin */
	float *best_ns, *busy_ns;
	uint32_t *ticks, *lost_marks;
	uint64_t *lost;
};

struct tl_threadbins {
	float *ns[TL_NSTATES];         /* running, runnable, blocked, unknown (enum tl_state) */
	uint32_t *ticks;
};

struct tl_svg {
	const struct ktrace_view_timeline_opts *o;
	struct tl_model *m;
	uint64_t origin, binw;         /* bin i covers [origin + i binw, +binw) */
	bool fixed, started;
	struct tl_cpubins *cpus;
	size_t ncpus;
	struct tl_threadbins **threads;   /* per thread index, NULL: none (beyond the cap) */
	size_t nthreads, nbins_threads;
	int error;
};

int tl_svg_init(struct tl_svg *v, struct tl_model *m, const struct ktrace_view_timeline_opts *o);
/* An interval of the engine's model (thread: its index in the timeline's threads, drawn
 * as draw; a Running one is also its CPU's slice); end: where it ends. */
void tl_svg_state(struct tl_svg *v, uint32_t thread, enum tl_state draw,
		  const struct kt_model_state *st, uint64_t end);
/* Ticks and lost marks. */
int tl_svg_add(struct tl_svg *v, const struct ktrace_stream_record *r, const struct tl_rec *tr,
	       uint64_t ts);
int tl_svg_write(struct tl_svg *v, struct ktrace_stream *s, struct ktrace_out *out,
		 const struct tl_damage *dmg);
void tl_svg_free(struct tl_svg *v);

/* The trace's own time as trace-cmd prints it: "%llu.%06llu" seconds (µs rounded). */
void tl_format_ts(char *buf, size_t len, uint64_t ns);

#endif
