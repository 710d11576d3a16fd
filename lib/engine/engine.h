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
 *  - the one thread and process table every sink keeps its threads in (kt_threads_*,
 *    engine_threads.h);
 *  - inputs that can be read once only, copied for readers that open them by name
 *    (kt_spool_*);
 *  - trace.dat files read as trace-cmd report reads them (kt_td_*): the engine's set of
 *    files, buffers and filters merged in trace-cmd's order, and its parallel reading
 *    (kt_td_threads: every thread reads every record with readers of its own, each
 *    makes the output of the blocks it takes, written in turn).
 */
#ifndef KTRACE_ENGINE_H
#define KTRACE_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/numfmt.h"

#include <ktrace/error.h>
#include <ktrace/event.h>
#include <ktrace/input.h>
#include <ktrace/stream.h>
#include <ktrace/tracedat.h>

#include "common/numspan.h"
#include "engine/engine_threads.h"     /* the one thread/process table (kt_threads_*) */
#include "engine/engine_model.h"       /* the model of what the system did (kt_model_*) */

/* ---- a stream's records ---- */

/* A field's value as a signed number (signed and unsigned integers): true and *out, or
 * false for any other type. */
static inline bool kt_value_int(const struct ktrace_event_value *v, int64_t *out)
{
	if (v->type == KTRACE_EVENT_SIGNED)
		*out = v->i;
	else if (v->type == KTRACE_EVENT_UNSIGNED)
		*out = (int64_t)v->u;
	else
		return false;
	return true;
}

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
	/* the text was left out as asked (KT_FORMAT_LABEL_ONLY): the line is the label */
	bool text_left;
};

/* For a read-ahead stream whose caller reads the fields of a few events only: records
 * for which wanted returns false come without their bytes (no fields, sched info or
 * raw record), which the reading thread then does not copy. wanted runs on that thread
 * and its answer must depend on the record's input and event id alone (it is kept per
 * id); records read ahead before the call keep their bytes. Once per stream; without
 * read-ahead, nothing. */
void kt_stream_fields_only(struct ktrace_stream *s,
			   bool (*wanted)(void *arg, const struct ktrace_stream_record *r), void *arg);

/* Library-internal stream flag (beside KTRACE_STREAM_*): with opts.cpus, a trace.dat's
 * other CPUs are left unread, their lost events and damage unseen, and kt_stream_skip
 * works: for walks split by CPU (the model's completeness walk). */
#define KT_STREAM_CPUS_ONLY (1u << 30)

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
/* With KT_FORMAT_OMIT_PREFIX: where the prefix is left out, the label alone
 * (text_left), for a caller that has the text already (kt_stream_text_key). */
#define KT_FORMAT_LABEL_ONLY 4u
int kt_stream_format_parts(struct ktrace_stream *s, char *buf, size_t len,
			   const struct kt_line_parts **parts, unsigned how);

/* For sinks that keep the lines they made: the bytes that decide the current record's
 * text after its prefix (KT_FORMAT_OMIT_PREFIX): two records of one input, buffer and
 * event (the same name pointer) with the same bytes have the same text. 0 with *key and
 * *n set (valid until the stream moves on), or -ENOENT when the text depends on more
 * than the record (ftev_text_from_record) or the source does not say. */
int kt_stream_text_key(struct ktrace_stream *s, const uint8_t **key, size_t *n);
/* Whether lines of s may start with a label (trace-cmd's buffer or file column: a
 * trace.dat with instances, several files). When not, the lines whose prefix is left
 * out (KT_FORMAT_OMIT_PREFIX) start the same for every record of an input: its prefix's
 * style alone. */
bool kt_stream_labels_lines(const struct ktrace_stream *s);

/* Bytes of event formats and symbols the stream's sources hold: what each further
 * stream of the same inputs costs (the sinks that read with several streams). */
size_t kt_stream_registry_bytes(struct ktrace_stream *s);

/* The bytes of record data the stream's inputs hold once decompressed (a trace.dat's
 * CPU data; the file's size for other formats), paths[0..n) being its inputs; UINT64_MAX
 * when one is not a regular file: for sinks that choose how many threads to read with
 * and how hard to work by the size of the data (a zstd trace.dat is a tenth of it). */
uint64_t kt_stream_data_bytes(struct ktrace_stream *s, const char *const *paths, size_t n);

/* ktrace_stream_sched without the names: prev_comm, next_comm and prev_state_text stay
 * empty (the model reads the numbers alone). */
int kt_stream_sched_numbers(struct ktrace_stream *s, struct ktrace_stream_sched *out);

/* Whether every record's comm lives, unchanged, as long as the stream: then two comms
 * at one address are the same name (sinks that compare them with the last one met). */
bool kt_stream_stable_comm(const struct ktrace_stream *s);

/* The paths another stream of s's inputs opens (n of them, valid while s is open): the
 * caller's paths, or the copies of those that can be read once (standard input, FIFOs);
 * *names: the names s shows for them (ktrace_stream_opts.names of the other stream). */
const char *const *kt_stream_reopen_paths(const struct ktrace_stream *s, size_t *n,
					  const char *const **names);

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

/* ---- trace-cmd's line prefix (engine_line_prefix.c): the one writer of it. Its pieces
 * (comm-pid, CPU, time, name columns) are inline for the report's hot loop, which keeps
 * caches of them; kt_line_prefix puts them together for the stream's lines and the
 * timeline's. Each piece writes at p and returns the end; the caller makes room. ---- */

/* "%*s-%-5d": comm[0..len) right-aligned in width (cut to width when cut: "%8.8s"),
 * then the pid left-aligned in 5. Room: max(len, width) + 27. */
static inline char *kt_prefix_comm(char *p, const char *comm, size_t len, int64_t pid,
				   size_t width, bool cut)
{
	char *q;

	if (cut && len > width)
		len = width;
	if (len < width) {
		memset(p, ' ', width - len);
		p += width - len;
	}
	memcpy(p, comm, len);
	p += len;
	*p++ = '-';
	q = p;
	p = kt_fmt_i64(p, pid);
	if (p - q < 5) {
		memset(p, ' ', (size_t)(5 - (p - q)));
		p = q + 5;
	}
	return p;
}

/* "%03u" of a CPU (the part between the brackets). Room: 10. */
static inline char *kt_prefix_cpu(char *p, unsigned cpu)
{
	if (cpu < 1000) {
		p[0] = (char)('0' + cpu / 100);
		memcpy(p + 1, kt_dec_pairs + 2 * (cpu % 100), 2);
		return p + 3;
	}
	return kt_fmt_dec(p, cpu);
}

/* The seconds part of the time column last written ("%5llu."), kept by a caller that
 * writes many lines of the same second; zeroed: none yet. */
struct kt_prefix_secs {
	uint64_t key;                  /* the seconds + 1 */
	uint8_t len;
	char text[32];
};

/* The time column "%5llu.%06llu" of ts rounded to microseconds, or with nsec9
 * "%5llu.%09llu" of ts. secs may be NULL. Room: 32 + 16. */
static inline char *kt_prefix_time(char *p, struct kt_prefix_secs *secs, uint64_t ts, bool nsec9)
{
	uint64_t sec, frac;

	if (nsec9) {
		sec = ts / 1000000000u;
		frac = ts % 1000000000u;
	} else {
		ts = ts / 1000 + (ts % 1000 >= 500);      /* (ts + 500) / 1000 without overflow */
		sec = ts / 1000000u;
		frac = ts % 1000000u;
	}
	if (!secs) {
		p = kt_fmt_dec_width(p, sec, 5);
		*p++ = '.';
	} else {
		if (sec + 1 != secs->key) {
			char *q = kt_fmt_dec_width(secs->text, sec, 5);

			*q++ = '.';
			secs->len = (uint8_t)(q - secs->text);
			secs->key = sec + 1;
		}
		memcpy(p, secs->text, 16);  /* fixed size: the longest (20 digits) has its own copy */
		if (secs->len > 16)
			memcpy(p, secs->text, secs->len);
		p += secs->len;
	}
	{
		/* 32-bit steps that do not wait on each other much */
		uint32_t fr = (uint32_t)frac, a, b, rest;

		if (nsec9) {
			uint32_t top = fr / 1000000u;

			fr -= top * 1000000u;
			*p++ = (char)('0' + top / 100);
			memcpy(p, kt_dec_pairs + 2 * (top % 100), 2);
			p += 2;
		}
		a = fr / 10000u;
		rest = fr - a * 10000u;
		b = rest / 100u;
		memcpy(p, kt_dec_pairs + 2 * a, 2);
		memcpy(p + 2, kt_dec_pairs + 2 * b, 2);
		memcpy(p + 4, kt_dec_pairs + 2 * (rest - b * 100u), 2);
		return p + 6;
	}
}

/* "name: " and the padding to 20 trace-cmd puts after a shorter name. Room: len + 22. */
static inline char *kt_prefix_name(char *p, const char *name, size_t len)
{
	memcpy(p, name, len);
	p += len;
	*p++ = ':';
	*p++ = ' ';
	if (len < 20) {
		memset(p, ' ', 20 - len);
		p += 20 - len;
	}
	return p;
}

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

/* ---- trace.dat files as trace-cmd report reads them (engine_tdwalk.c) ---- */

/* The engine's set of trace.dat files (engine_tdset.c), a file of it and a buffer of a
 * file (a stream of records in time order): opaque to sinks. */
struct kt_tdset;
struct kt_tdfile;
struct kt_tdstream;

/* How the files are read and filtered. */
struct kt_tdset_opts {
	bool raw_ts, no_date;         /* --raw-ts, --nodate (tracedat open flags) */
	bool read_copies;             /* TRACEDAT_READ_COPIES: records used within the keep */
	bool nsec;                    /* times in ns (-t): func_repeats' last_ts format */
	bool listing;                 /* -E/-P/-f: no blktrace event (libtracecmd adds it later) */
	bool debug_offsets;           /* keep trace-cmd's offsets of compressed data (--debug) */
	const int *cpus;              /* --cpu: CPU ids to keep; NULL for all */
	size_t ncpus;
	bool cpus_unread;             /* the other CPUs' data left unread (KT_STREAM_CPUS_ONLY) */
	bool no_irqs, no_softirqs;    /* -I, -S */
	/* trace-cmd report's end: its walk stops at a record that follows lost events when
	 * the record's event is unknown (libtracecmd's missed-events callback fails); the
	 * set then ends there with an error (kt_tdset_lost_unknown) */
	bool lost_unknown_ends;
	/* oddities that lose nothing, as trace-cmd warns of them (a --comm name not in the
	 * saved cmdlines); NULL: not told (the library prints nothing) */
	void (*warn)(void *arg, const char *message);
	void *warn_arg;
};

/* A record that passed the filters: the head of its stream, not yet moved past. */
struct kt_tdrec {
	struct kt_tdstream *s;
	const struct tracedat_record *rec;
	struct ktrace_record kr;
	const struct ktrace_event *ev;     /* NULL: an event the registry does not know */
};

/* A new set for nfiles files (err: where its errors go, for as long as it lives);
 * lazy_avail: kt_td_next may leave kr.avail 0 for unfiltered records (kt_td_avail).
 * 0 with *out, or a negative code. */
int kt_td_open(struct kt_tdset **out, size_t nfiles, const struct kt_tdset_opts *o,
	       bool lazy_avail, struct ktrace_error *err);
void kt_td_close(struct kt_tdset *set);
/* Opens file i (path, or input when not NULL; ts_offset in ns) with its registry. */
int kt_td_open_file(struct kt_tdset *set, size_t i, const char *path, struct ktrace_input *input,
		    int64_t ts_offset);
struct kt_tdfile *kt_td_file(struct kt_tdset *set, size_t i);
/* The file's filters (-F, -v); the --pid/--comm tasks go to the first file only (as
 * trace-cmd). A filter that does not parse gives -EINVAL (kt_td_err_file NULL: a
 * usage error). */
int kt_td_add_filters(struct kt_tdset *set, struct kt_tdfile *f,
		      const struct ktrace_stream_filter *filters, size_t nfilters,
		      const struct ktrace_stream_task *tasks, size_t ntasks);
/* Adds a buffer of a file as a stream and reads its first record. multi: several files
 * (a top buffer is labelled with the file name). */
int kt_td_add_stream(struct kt_tdset *set, struct kt_tdfile *f, size_t buffer, bool multi);
/* The next record in merged order that passes the filters: 1 with *out (the head of its
 * stream until kt_td_advance), 0 at the end, or a negative code (kt_td_err_file). */
int kt_td_next(struct kt_tdset *set, struct kt_tdrec *out);
/* Moves s past its head. 0 or a negative code. */
int kt_td_advance(struct kt_tdset *set, struct kt_tdstream *s);
/* t's kr.avail, if kt_td_next left it out. */
void kt_td_avail(struct kt_tdrec *t);
/* The record that follows t in its buffer (the head of t's stream once t is moved past):
 * true with *next filled, false at the end of the buffer. */
bool kt_td_peek(const struct kt_tdrec *t, struct ktrace_record *next);
/* The end of the set's records: 0, or the damage some stream ended with. */
int kt_td_end(struct kt_tdset *set);
/* Every record went out (the last error of kt_td_next is the damage the data ended with). */
bool kt_td_ended(const struct kt_tdset *set);
/* The file the last error concerns, or NULL. */
const char *kt_td_err_file(const struct kt_tdset *set);
/* Damage the caller met reading the set's files another way (a listing): the set's end
 * (kt_td_end) tells it. */
void kt_td_set_damage(struct kt_tdset *set, const struct ktrace_error *damage, const char *file);
/* Records looked at (filtered or not), and bytes of the distinct pages they came from. */
uint64_t kt_td_visited(const struct kt_tdset *set);
uint64_t kt_td_span(const struct kt_tdset *set);

/* A file of the set: its index, name, reader, registry (this set's, one per thread),
 * trace-cmd's time format (usecs: seconds, else a raw counter; trace_clock: --ts-diff in
 * microseconds), "cpus=N", number of instances, funcgraph_entry (NULL: none). */
size_t kt_td_file_index(const struct kt_tdset *set, const struct kt_tdfile *f);
const char *kt_tdfile_path(const struct kt_tdfile *f);
const char *kt_tdfile_base(const struct kt_tdfile *f);
struct tracedat *kt_tdfile_td(const struct kt_tdfile *f);
struct ktrace_events *kt_tdfile_events(const struct kt_tdfile *f);
bool kt_tdfile_usecs(const struct kt_tdfile *f);
bool kt_tdfile_trace_clock(const struct kt_tdfile *f);
unsigned kt_tdfile_ncpus(const struct kt_tdfile *f);
size_t kt_tdfile_ninstances(const struct kt_tdfile *f);
const struct ktrace_event *kt_tdfile_fg_entry(const struct kt_tdfile *f);
/* -T: each filter of f (-F/-v in order, then --pid/--comm's) as libtraceevent prints it,
 * event by event: fn(arg, event, text). Returns how many filters f has. */
size_t kt_tdfile_filters(const struct kt_tdfile *f,
			 void (*fn)(void *arg, const struct ktrace_event *ev, const char *text),
			 void *arg);

/* A record's stream: its file, and its label (the buffer name, "" for a top buffer). */
struct kt_tdfile *kt_tdstream_file(const struct kt_tdstream *s);
const char *kt_tdstream_label(const struct kt_tdstream *s);
/* --debug: the record's offset as trace-cmd tells it (in decompressed data, trace-cmd's
 * offsets) and the buffer's page size. */
uint64_t kt_tdstream_offset(const struct kt_tdstream *s, const struct tracedat_record *rec,
			    unsigned *page_size);
/* trace-cmd's offsets of decompressed CPU data (one per CPU entry of the buffer). */
void kt_td_virtual_offsets(struct tracedat *td, size_t buffer, uint64_t *base);

/*
 * Passes over records of one buffer (a set of one stream, no filters) that the caller
 * does not print, at most max: skip[id] (nids ids) says of an event id whether its
 * records are passed over (1), passed over once learn took them (2: learn(arg, kr) is
 * called, then they are passed), or not (0). *n: how many were. Returns 0 when max
 * records were passed, 1 when the next record (or the end) is for kt_td_next, or a
 * negative code.
 */
int kt_td_skip(struct kt_tdset *set, const uint8_t *skip, size_t nids,
	       void (*learn)(void *arg, const struct ktrace_record *kr), void *arg, uint64_t max,
	       uint64_t *n);

/*
 * Parallel reading: nthr threads (the caller and nthr - 1 more) each read every record
 * of the set, the others with sets of their own (registries sharing the first's symbols,
 * readers sharing its decompressed chunks), each keeping `keep` bytes of read pages.
 * The caller's part of the reading is ops->run(arg, 0, set); for thread k, ops->start
 * makes its state on the caller's thread (NULL: no more threads), ops->run(state, k,
 * its set) reads on that thread, and ops->done(arg, state, ret) hands back how it ended
 * on the caller's thread once it joined (its set closed). A thread whose set cannot be
 * made runs nothing (ret 0). Call it before the set's streams moved. Returns the
 * caller's part's result, or a negative code (the set's err) when the threads could
 * not share.
 */
struct kt_td_threads_ops {
	void *(*start)(void *arg, unsigned tid);
	int (*run)(void *state, unsigned tid, struct kt_tdset *set, struct ktrace_error *err);
	void (*done)(void *arg, void *state, int ret, const struct ktrace_error *err);
};
int kt_td_threads(struct kt_tdset *set, unsigned nthr, size_t keep,
		  const struct kt_td_threads_ops *ops, void *arg);
/* Keeps `keep` bytes of read pages of every buffer (tracedat_iter_keep). */
void kt_td_keep(struct kt_tdset *set, size_t keep);
/* Bytes a further set of the same files costs (its registries), the files' size, and
 * the bytes of ring-buffer pages their buffers hold (decompressed: the reading's work). */
size_t kt_td_registry_bytes(const struct kt_tdset *set);
uint64_t kt_td_file_bytes(const struct kt_tdset *set);
uint64_t kt_td_data_bytes(const struct kt_tdset *set);

/*
 * A stream of one input over the records of the in_memory tracefs session sess as they
 * are captured (engine_source_live.c; ktrace top): ktrace_stream_next gives 0 when none
 * is waiting (more may come later), and holds back every record at or after the time
 * kt_stream_live_until set (none before the first call), so that an interval is cut
 * where the records before it are all read. The records come in time order: one is
 * held back until every CPU's reader has caught up with its time, where the session's
 * trace clock is one user space reads ("mono"...; ktrace_tracefs_set_ordered);
 * kt_stream_live_captured_to says up to when (UINT64_MAX: not ordered). Else, and for a
 * reader later than that allows for, a record captured later than newer ones of
 * another CPU is handed out with the time of the newest handed out before (the model's
 * times never go back): kt_stream_live_late counts them. kt_stream_live_comm: the name
 * the kernel has for tid (sched_switch names, saved command lines), "" when not known.
 */
struct ktrace_tracefs_session;
int kt_stream_open_live(struct ktrace_tracefs_session *sess, struct ktrace_stream **out,
			struct ktrace_error *err);
void kt_stream_live_until(struct ktrace_stream *s, uint64_t until);
uint64_t kt_stream_live_late(struct ktrace_stream *s);
int kt_stream_live_captured_to(struct ktrace_stream *s, uint64_t *to, struct ktrace_error *err);
const char *kt_stream_live_comm(struct ktrace_stream *s, int64_t tid);

#endif
