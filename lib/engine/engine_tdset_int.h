/* SPDX-License-Identifier: MIT */
/*
 * The engine's trace.dat source: a set of trace.dat files read the way trace-cmd report
 * reads them, as one stream of records in time order.
 *
 * Every file gets one event registry (<ktrace/event.h>), shared by its buffers as
 * trace-cmd shares its tep handle between a file and its instances. The records of all
 * buffers of all files are merged by timestamp: trace-cmd's order is the order of its
 * handles (every file's top buffer, in command-line order, then the instances of each
 * file), then the CPU, for equal timestamps. Each buffer is read with its own iterator
 * (a "stream"), so that a sink can look at the record that follows one in its buffer
 * (trace-cmd prints a function-graph leaf as one line and skips its exit record).
 *
 * The set applies trace-cmd's record filters itself (-F with -v, --pid/--comm, --cpu,
 * -I/-S) and hands the records that pass, one at a time, without formatting them.
 * Memory stays bounded by the iterators' windows (pages and chunks), not by the files.
 * The engine's own: sinks read the set through engine/engine.h (kt_td_*).
 */
#ifndef KTRACE_ENGINE_TDSET_H
#define KTRACE_ENGINE_TDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/event.h>
#include <ktrace/input.h>
#include <ktrace/stream.h>
#include <ktrace/tracedat.h>

#include "engine/engine.h"

/* A metadata text of a file, kept to load more registries (worker threads). */
struct kt_mtext {
	const char *system;           /* NULL for header_page / kallsyms... */
	const char *text;
	size_t len;
};

/* One input file: its reader, registry and filters. */
struct kt_tdfile {
	const char *path;
	const char *base;                  /* the name without directories */
	struct tracedat *td;
	struct ktrace_events *evs;
	const struct ktrace_event *fg_entry;    /* funcgraph_entry, if any */
	/* formats and texts, to load more registries */
	struct kt_mtext header_page, kallsyms, printk, cmdlines;
	struct kt_mtext btf;               /* trace-cmd 3.4's BTF (binary), len 0: none */
	struct kt_mtext *formats;
	size_t nformats;
	/* filters: trace-cmd's tracecmd_filter, shared by the file's buffers */
	const struct ktrace_stream_filter *filter_args;
	size_t nfilter_args;
	struct ktrace_event_filter **pos, **neg;
	size_t npos, nneg;
	int kstack_id, ustack_id;          /* kernel_stack / user_stack ids (-1: none) */
	bool *last_printed;                /* per CPU id */
	size_t nlast;
	char *task_text;                   /* the --pid/--comm filter */
	/* how trace-cmd shows its times */
	bool usecs;                        /* times in seconds (not a raw counter) */
	bool use_trace_clock;              /* --ts-diff rounds to microseconds */
	unsigned ncpus;                    /* "cpus=N" */
	size_t ninstances;
	bool share_symbols;                /* registries made from now on share evs's symbols */
	bool borrowed;                     /* td and the texts belong to another set's file */
	struct ktrace_input *own_input;    /* the input td reads, when the set opened it */
};

/* One buffer of one file: its records in timestamp order. */
struct kt_tdstream {
	struct kt_tdfile *f;
	unsigned buffer;
	const char *label;                 /* the buffer name ("" for a top buffer) */
	struct tracedat_iter *it;
	const struct tracedat_record *head;   /* the next record; NULL at the end */
	uint64_t *vbase;                   /* debug_offsets: trace-cmd's offsets of compressed data */
	uint64_t map_size;                 /* trace-cmd's mapping window (uncompressed) */
	unsigned page_size;
	uint64_t *cpu_end;                 /* per CPU index: the end of its data in the file */
	const void *last_page;             /* the page of the last record visited */
};

struct kt_tdset {
	struct kt_tdset_opts o;
	struct kt_tdfile *files;
	size_t nfiles;
	struct kt_tdstream *streams;
	size_t nstreams, cap_streams;
	struct ktrace_error *err;
	const char *err_file;              /* the file an error concerns, or NULL */
	/* a stream whose records ended with damage (the damage was told, the set goes on
	 * with the others): the last such error, the set's at its end */
	bool damaged;
	struct ktrace_error damage;
	const char *damage_file;
	bool ended;                        /* every record went out (the error of the
					    * last kt_tdset_next is that damage) */
	uint64_t visited;                  /* records looked at, filtered or not */
	uint64_t span;                     /* bytes of distinct pages the records came from */
	bool filtering;                    /* some filter applies (kt_tdset_drop) */
	bool lazy_avail;                   /* kt_tdset_next leaves kr.avail 0 (unfiltered
					    * records): the caller fills it for the records it
					    * formats (kt_tdrec_avail) */
};

/* An empty set for nfiles files; 0 or -ENOMEM. */
int kt_tdset_init(struct kt_tdset *set, size_t nfiles, const struct kt_tdset_opts *o,
		  struct ktrace_error *err);
/* Opens file i (path, or input when not NULL; ts_offset in ns) with its registry. */
int kt_tdset_open_file(struct kt_tdset *set, size_t i, const char *path, struct ktrace_input *input,
		       int64_t ts_offset);
/* The same for a file read through path but named `name` in messages (a copy of standard
 * input read through /proc/self/fd/N): damaged places are told with that name. */
int kt_tdset_open_file_as(struct kt_tdset *set, size_t i, const char *path, const char *name,
			  int64_t ts_offset);
/* The file's filters; the --pid/--comm tasks go to the first file only (as trace-cmd).
 * A filter that does not parse gives -EINVAL with libtraceevent's message (err_file
 * NULL: a usage error). */
int kt_tdset_add_filters(struct kt_tdset *set, struct kt_tdfile *f, const struct ktrace_stream_filter *filters,
			 size_t nfilters, const struct ktrace_stream_task *tasks, size_t ntasks);
/* Adds a buffer of a file as a stream, and reads its first record. multi: several files
 * (a top buffer is labelled with the file name). */
int kt_tdset_add_stream(struct kt_tdset *set, struct kt_tdfile *f, size_t buffer, bool multi);
/* Adds every buffer of every file in trace-cmd's order (the top buffers, then the
 * instances of each file). */
int kt_tdset_add_all_streams(struct kt_tdset *set, bool multi);
void kt_tdset_close(struct kt_tdset *set);

/*
 * A second set over src's files, for another thread: the same tracedat readers (read
 * only), registries of its own (sharing src's symbols: kt_tdfile_share_symbols first),
 * the same filters, and streams of the same buffers in the same order, read by
 * iterators of its own from their first record. Call it before src's streams moved;
 * the records then come out of both sets alike. 0 or a negative code (err).
 */
int kt_tdset_clone(struct kt_tdset *dst, const struct kt_tdset *src, struct ktrace_error *err);

/*
 * Lets `readers` sets over the same files (this one and its clones, one per thread)
 * share the decompressed chunks of compressed data (lib/tracedat/tracedat_share.c):
 * each chunk is then decompressed about once for all of them instead of once per set.
 * Call it once, before kt_tdset_clone; the streams of the set and of its clones join
 * by themselves. 0 or -ENOMEM (err).
 */
int kt_tdset_share_chunks(struct kt_tdset *set, unsigned readers);

/* A new registry of f loaded the way trace-cmd loads its tep handle. NULL with errno.
 * For worker threads (safe to call from several at once) after
 * kt_tdfile_share_symbols: the registries then share one symbol table. */
struct ktrace_events *kt_tdfile_registry(const struct kt_tdfile *f, const struct kt_tdset_opts *o);
/* The registries made from now on share the symbol table of f's own registry (call it
 * from the thread that uses f->evs, before the workers start). 0 or -ENOMEM. */
int kt_tdfile_share_symbols(struct kt_tdfile *f);

/* Whether rec (of file f) is filtered out: -F/-v, --pid/--comm, --cpu, -I/-S. */
bool kt_tdset_drop(struct kt_tdset *set, struct kt_tdfile *f, const struct tracedat_record *rec,
		  const struct ktrace_record *kr, const struct ktrace_event *ev);
/* What formatting a record may read (see kt_tdstream_fill_record). */
uint32_t kt_tdstream_avail(const struct kt_tdstream *s, const struct tracedat_record *rec);

/* The error of a record of an unknown event after lost events (lost_unknown_ends):
 * -EBADMSG with set->err and set->err_file. */
int kt_tdset_lost_unknown(struct kt_tdset *set, const struct kt_tdstream *s,
			  const struct tracedat_record *rec);
/* After s's iterator returned the error ret (its head is NULL): the end of its records
 * with damage goes into set->damage (0: the set goes on with its other streams); any
 * other error is the set's (ret, err_file). */
int kt_tdset_stream_error(struct kt_tdset *set, struct kt_tdstream *s, int ret);
/* The end of the set's records: 0, or the damage some stream ended with (else the last
 * damage found at open in one of its files, which no stream met). */
int kt_tdset_end(struct kt_tdset *set);

/* Moves s past its head. 0 or a negative error code. */
static inline int kt_tdset_advance(struct kt_tdset *set, struct kt_tdstream *s)
{
	int ret = tracedat_iter_next(s->it, &s->head, set->err);

	if (ret > 0)
		return 0;
	s->head = NULL;
	return ret < 0 ? kt_tdset_stream_error(set, s, ret) : 0;
}

/* A record as the event registry takes it, but for its avail (left as it is). */
static inline void kt_td_record_fields(const struct tracedat_record *rec, struct ktrace_record *kr)
{
	kr->data = rec->data;
	kr->size = rec->size;
	kr->cpu = (int)rec->cpu;
	kr->ts = rec->ts;
	kr->next = NULL;
}

/* A record as the event registry takes it (avail: what formatting may read, as trace-cmd
 * reads on within its mapping window or decompressed chunk). */
static inline void kt_tdstream_fill_record(const struct kt_tdstream *s,
					   const struct tracedat_record *rec, struct ktrace_record *kr)
{
	kt_td_record_fields(rec, kr);
	kr->avail = kt_tdstream_avail(s, rec);
}

/*
 * The next record in merged order that passes the filters: 1 with *out filled (the
 * record stays the head of its stream until kt_tdset_advance), 0 at the end, or a
 * negative error code (set->err, set->err_file). Inline: it runs once per record.
 */
static inline int kt_tdset_next(struct kt_tdset *set, struct kt_tdrec *out)
{
	for (;;) {
		struct kt_tdstream *best = NULL;
		const struct tracedat_record *rec;
		struct kt_tdfile *f;
		int ret;

		if (set->nstreams == 1) {
			best = set->streams[0].head ? &set->streams[0] : NULL;
		} else {
			for (size_t i = 0; i < set->nstreams; i++) {
				struct kt_tdstream *s = &set->streams[i];

				if (s->head && (!best || s->head->ts < best->head->ts))
					best = s;
			}
		}
		if (!best)
			return kt_tdset_end(set);
		rec = best->head;
		f = best->f;
		set->visited++;
		if (rec->page != best->last_page) {
			best->last_page = rec->page;
			set->span += rec->page_len;
		}
		kt_td_record_fields(rec, &out->kr);
		out->kr.avail = set->lazy_avail && !set->filtering ? 0 : kt_tdstream_avail(best, rec);
		out->ev = ktrace_event_record_event(f->evs, &out->kr);
		if (__builtin_expect(rec->missed_events != 0, 0) && !out->ev && set->o.lost_unknown_ends)
			return kt_tdset_lost_unknown(set, best, rec);
		if (set->filtering && kt_tdset_drop(set, f, rec, &out->kr, out->ev)) {
			ret = kt_tdset_advance(set, best);
			if (ret)
				return ret;
			continue;
		}
		out->s = best;
		out->rec = rec;
		return 1;
	}
}

/* t's kr.avail, if kt_tdset_next left it out. */
static inline void kt_tdrec_avail(struct kt_tdrec *t)
{
	if (!t->kr.avail)
		t->kr.avail = kt_tdstream_avail(t->s, t->rec);
}

#endif
