/* SPDX-License-Identifier: MIT */
/*
 * The timeline's two writers, fed record by record by ktrace_view_timeline
 * (timeline.c) after the model (timeline_model.h) has taken each record:
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
#include "views/timeline_encode.h"
#include "views/timeline_model.h"

/* Where the input turned out damaged (the stream's error), for the writers to mark. */
struct tl_damage {
	bool set;
	uint64_t ts;                   /* the last record read before it */
	char message[KTRACE_ERROR_MESSAGE_MAX + 512];
};

/* ---- HTML ---- */

#define TL_ECHUNK 65536                /* records per column chunk */
#define TL_LCHUNK 4096                 /* records per line chunk */
#define TL_MAX_LABELS 256
#define TL_JOBS 6                      /* chunks in flight to the worker */

/* A chunk for the worker: 'e' columns (encoded), 'f' the end of the columns, or 'l' raw
 * lines to encode. */
struct tl_job {
	int kind;
	uint32_t index;
	struct tl_buf data;
};

struct tl_html {
	struct ktrace_out *out;
	const struct ktrace_view_timeline_opts *o;
	struct tl_model *m;
	struct tl_dict dict;
	struct tl_buf col[5];          /* ts delta, cpu + 1, name, task + 1, arguments */
	size_t ecount;                 /* records in the current column chunk */
	uint32_t nechunks;
	uint64_t prev_ts;
	bool started;
	struct tl_job *cur_lines;      /* the line chunk being filled (raw lines) */
	size_t lcount;
	uint32_t nlchunks;
	struct tl_buf packed, b64;
	char *line;
	size_t line_cap;
	uint8_t *style;                /* per input: the prefix style that fitted last */
	size_t ninputs;
	uint64_t literal_lines;        /* lines whose prefix did not fit a style */
	char *labels[TL_MAX_LABELS];   /* the line labels seen (buffer, file names) */
	size_t nlabels;
	/* the worker thread (dict, packed, b64, enc and the output are its own while it
	 * runs); jobs go through queue in order and come back to freejobs */
	struct tl_job jobs[TL_JOBS];
	struct tl_job *queue[TL_JOBS], *freejobs[TL_JOBS];
	size_t qhead, nqueued, nfree;
	pthread_t worker;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool threaded, stop;
	int error;                     /* the worker's first error */
	struct tl_buf enc;
	struct tl_zip zip, ezip;       /* blocks of their own; the column stream */
};

int tl_html_begin(struct tl_html *h, struct ktrace_out *out, struct tl_model *m,
		  struct ktrace_stream *s, const struct ktrace_view_timeline_opts *o);
int tl_html_add(struct tl_html *h, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		const struct tl_rec *tr);
int tl_html_end(struct tl_html *h, struct ktrace_stream *s, const struct tl_damage *dmg);
void tl_html_free(struct tl_html *h);

/* ---- SVG ---- */

#define TL_BINS 1000
#define TL_SVG_MAX_THREADS 1024        /* threads given bins of their own */

struct tl_cpubins {
	uint32_t *best;                /* the thread with most time in the bin */
	float *best_ns, *busy_ns;
	uint32_t *ticks, *lost_marks;
	uint64_t *lost;
};

struct tl_threadbins {
	float *ns[3];                  /* running, runnable, blocked */
	uint32_t *ticks;
};

struct tl_svg {
	const struct ktrace_view_timeline_opts *o;
	struct tl_model *m;
	uint64_t origin, binw;         /* bin i covers [origin + i binw, +binw) */
	bool fixed, started;
	struct tl_cpubins *cpus;
	size_t ncpus;
	struct tl_threadbins **threads;   /* per thread index, NULL beyond the cap */
	size_t nthreads;
	int error;
};

int tl_svg_init(struct tl_svg *v, struct tl_model *m, const struct ktrace_view_timeline_opts *o);
/* The sink the model feeds slices and states to. */
struct tl_sink tl_svg_sink(struct tl_svg *v);
/* Ticks and lost marks. */
int tl_svg_add(struct tl_svg *v, const struct ktrace_stream_record *r, const struct tl_rec *tr,
	       uint64_t ts);
int tl_svg_write(struct tl_svg *v, struct ktrace_stream *s, struct ktrace_out *out,
		 const struct tl_damage *dmg);
void tl_svg_free(struct tl_svg *v);

/* The trace's own time as trace-cmd prints it: "%llu.%06llu" seconds (µs rounded). */
void tl_format_ts(char *buf, size_t len, uint64_t ns);

#endif
