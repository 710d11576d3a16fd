/* SPDX-License-Identifier: MIT */
/*
 * Inside the event stream (<ktrace/stream.h>): each input format is a source that hands
 * out its records in time order; the stream merges the sources. All trace.dat inputs
 * form one source (the engine's tdset, merged as trace-cmd merges several files); every
 * other input is a source of its own.
 */
#ifndef KTRACE_ENGINE_STREAM_INT_H
#define KTRACE_ENGINE_STREAM_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <ktrace/error.h>
#include <ktrace/input.h>
#include <ktrace/stream.h>

#include "common/numspan.h"
#include "engine/engine.h"

struct kt_source;

struct kt_ftrace_raw;

/* Where the fields of a switch or wakeup are (kt_sched_ftrace): found by name on an
 * event's first record, kept per (source, event id) by the stream's reading thread. */
enum { KT_SCHED_PREV_COMM, KT_SCHED_PREV_PID, KT_SCHED_PREV_PRIO, KT_SCHED_PREV_STATE,
       KT_SCHED_NEXT_COMM, KT_SCHED_NEXT_PID, KT_SCHED_NEXT_PRIO, KT_SCHED_TARGET_CPU,
       KT_SCHED_NFIELDS };

struct kt_sched_plan {
	const char *name;          /* the event's name (NULL: an empty slot) */
	uint32_t source, event_id;
	int kind;                  /* KTRACE_STREAM_SCHED_*, 0: neither */
	int32_t field[KT_SCHED_NFIELDS];  /* the field's index, -1: none */
	/* a number field where it lies in the record's bytes (ftev_field_class: cls
	 * FTEV_FIELD_OTHER when it is read as a value instead) */
	uint8_t cls[KT_SCHED_NFIELDS], size[KT_SCHED_NFIELDS];
	uint32_t off[KT_SCHED_NFIELDS];
	bool big;
	/* every number field present lies in the record's bytes, before raw_end (0: not so):
	 * records of that many bytes or more are read without a test per field */
	uint32_t raw_end;
};

struct kt_sched_cache {
	struct kt_sched_plan plan[16];
};

struct kt_source_ops {
	/* Loads the next record into src->rec (the previous one is given up): 1, 0 at the
	 * end, or a negative code with err set (src->err_path the file). */
	int (*advance)(struct kt_source *src, struct ktrace_error *err);
	/* Field i of the current record (an event): 0, or -ENOENT with *f cleared past the
	 * last one. */
	int (*field)(struct kt_source *src, size_t i, struct ktrace_event_value *f);
	/* The current record's fields (an event): how many it has, the first max of them
	 * into v (fields(src, NULL, 0): the count). */
	size_t (*fields)(struct kt_source *src, struct ktrace_event_value *v, size_t max);
	/* The record's line (text_only: its text) as snprintf would: the whole length. */
	int (*format)(struct kt_source *src, char *buf, size_t len, bool text_only);
	/* The record's switch or wakeup (<ktrace/stream.h> ktrace_stream_sched): 1, or 0
	 * when it is neither. NULL: the format has none. */
	int (*sched)(struct kt_source *src, struct kt_sched_cache *cache, bool names,
		     struct ktrace_stream_sched *out);
	void (*close)(struct kt_source *src);

	/*
	 * Read-ahead (KTRACE_STREAM_READAHEAD, engine/readahead.c): on the stream's thread,
	 * snap_size and snap_write copy what the fields of the current record (an event)
	 * need (8-aligned, snap_size bytes); on the caller's thread, the snap_* functions
	 * read the fields and scheduling meaning from that copy alone (the source's state
	 * belongs to the other thread).
	 */
	size_t (*snap_size)(struct kt_source *src);
	void (*snap_write)(struct kt_source *src, void *data);
	int (*snap_field)(const void *data, size_t i, struct ktrace_event_value *f);
	size_t (*snap_fields)(const void *data, struct ktrace_event_value *v, size_t max);
	int (*snap_sched)(struct kt_sched_cache *cache, const struct ktrace_stream_record *r,
			  const void *data, bool names, struct ktrace_stream_sched *out);
	/* The current record's ftrace bytes and event format (kt_stream_ftrace_raw,
	 * ktrace_stream_event): 0, or -ENOENT. May be NULL (not an ftrace source). */
	int (*raw)(struct kt_source *src, struct kt_ftrace_raw *out);
	int (*snap_raw)(const void *data, struct kt_ftrace_raw *out);
	/* kt_stream_skip: what advance does, moving past the records how accepts first (at
	 * most max, *skipped of them). May be NULL. */
	int (*skip)(struct kt_source *src, uint64_t max, const struct kt_stream_skip *how,
		    uint64_t *skipped, struct ktrace_error *err);
	/* Bytes of event formats and symbols the source holds (what another stream of the
	 * same inputs would hold again). May be NULL (little). */
	size_t (*registry_bytes)(struct kt_source *src);
	/* Bytes of record data its inputs hold once decompressed (kt_stream_data_bytes).
	 * May be NULL: as many as its files. */
	uint64_t (*data_bytes)(struct kt_source *src);
};

struct kt_source {
	const struct kt_source_ops *ops;
	struct kt_line_parts line;         /* set by format (0: unknown) */
	bool omit_prefix;                  /* format may leave out a prefix it tells of */
	bool want_nums;                    /* format may tell of the numbers it wrote */
	bool nul_later;                    /* format may leave a NUL to the caller */
	bool label_only;                   /* format may leave the text out (with the
					    * prefix: KT_FORMAT_LABEL_ONLY) */
	bool labels_lines;                 /* lines may start with a label (kt_stream_labels_lines) */
	struct ktrace_stream *stream;
	bool stable_comm;                  /* rec.comm lives as long as the stream (read-ahead
					    * need not copy it) */
	/* With read-ahead, the caller's thread reads ops at every record while the
	 * reading thread writes rec: a cache line's worth of bytes between them (a shared
	 * line made export 2x slower on 2 CPUs) */
	char apart[64];
	struct ktrace_stream_record rec;   /* the head record when has */
	uint32_t input;                    /* the input's index, set in rec.source by the
					    * stream (unless several_inputs) */
	bool several_inputs;               /* the source sets rec.source itself (trace.dat) */
	bool has, done;
	bool live;                         /* advance again when it had none (a live
					    * source: 0 is "none yet", not its end) */
	const char *err_path;              /* the file of the last error */
};

/* A stream of one input read by the source make opens (a live one: ktrace top), its
 * info named name. 0 or a negative code (err set). */
int kt_stream_open_source(struct ktrace_stream **out, const char *name, enum ktrace_format format,
			  const struct ktrace_stream_opts *opts,
			  int (*make)(struct ktrace_stream *s, void *arg, struct kt_source **src,
				      struct ktrace_error *err),
			  void *arg, struct ktrace_error *err);

/* The source of a stream's first input (kt_stream_open_source's). */
struct kt_source *kt_stream_first_source(struct ktrace_stream *s);

/* The stream's options and what sources may add to it. */
const struct ktrace_stream_opts *kt_stream_opts(const struct ktrace_stream *s);
/* The name the user gave for a path the sources were given (a copy of standard input
 * or of a FIFO is read through /proc/self/fd/N). */
const char *kt_stream_shown(const struct ktrace_stream *s, const char *path);
/* A new description of input index (paths[index]); NULL when out of memory. The
 * strings given are copied. */
struct ktrace_stream_source *kt_stream_add_info(struct ktrace_stream *s, uint32_t index,
						const char *path, enum ktrace_format format);
/* Memory (8-aligned) that lives until ktrace_stream_close; NULL when out of memory. */
void *kt_stream_alloc(struct ktrace_stream *s, size_t size);
/* Copies a string into the stream's storage (lives until ktrace_stream_close); NULL
 * when out of memory. */
const char *kt_stream_strdup(struct ktrace_stream *s, const char *str, size_t len);
/* The one copy of str in the stream's storage (equal strings, the same pointer),
 * living until ktrace_stream_close: for record names whose text a source rewrites in
 * place. NULL when out of memory. */
const char *kt_stream_intern(struct ktrace_stream *s, const char *str);
/* The input an error of ktrace_stream_open concerns. */
void kt_stream_set_err_path(struct ktrace_stream *s, const char *path);
int kt_stream_add_task(struct ktrace_stream *s, uint32_t source, int64_t tid, int64_t pid,
		       const char *comm);
/* Splits a uname text ("Linux host 6.1.0 #1 SMP ... x86_64") into the info's fields. */
void kt_stream_set_uname(struct ktrace_stream *s, struct ktrace_stream_source *info,
			 const char *uname);

/* The sources, one opener per format. Each returns 0 with *out, or a negative code. */
int kt_source_tracedat(struct ktrace_stream *s, const char *const *paths, const uint32_t *index,
		       size_t n, struct kt_source **out, struct ktrace_error *err);
int kt_source_ring(struct ktrace_stream *s, const char *path, uint32_t index,
		   struct kt_source **out, struct ktrace_error *err);
int kt_source_darwin(struct ktrace_stream *s, const char *path, uint32_t index,
		     struct kt_source **out, struct ktrace_error *err);
int kt_source_koff(struct ktrace_stream *s, const char *path, uint32_t index,
		   struct kt_source **out, struct ktrace_error *err);

/* sched:sched_switch and the sched wakeups from their ftrace fields (trace.dat, raw
 * pages with formats): 1 with out filled, or 0. field reads field i of the record r
 * (n fields) from ctx; raw, when not NULL, is the record's bytes and format, where its
 * number fields are read straight from; where the fields are is found once per event
 * and kept in cache. names: the comms and prev_state_text too (else they stay empty).
 * kt_sched_from_fields reads the source's current record. */
int kt_sched_ftrace(struct kt_sched_cache *cache, const struct ktrace_stream_record *r,
		    const struct kt_ftrace_raw *raw, size_t n,
		    int (*field)(const void *ctx, size_t i, struct ktrace_event_value *v),
		    const void *ctx, bool names, struct ktrace_stream_sched *out);
int kt_sched_from_fields(struct kt_source *src, struct kt_sched_cache *cache, bool names,
			 struct ktrace_stream_sched *out);

/* The copy of an ftrace record for read-ahead (trace.dat, raw pages): the registry and
 * event its fields are read with (the registries do not change while records are
 * read), and its bytes. raw: no formats, one "data" field of the payload. */
struct kt_ftrace_snap {
	struct ktrace_events *evs;
	const struct ktrace_event *ev;
	uint32_t size;
	bool raw;
	uint8_t data[];
};

size_t kt_ftrace_snap_size(uint32_t size);
int kt_ftrace_snap_raw(const void *data, struct kt_ftrace_raw *out);
void kt_ftrace_snap_write(void *data, struct ktrace_events *evs, const struct ktrace_event *ev,
			  const struct ktrace_record *kr, bool raw);
int kt_ftrace_snap_field(const void *data, size_t i, struct ktrace_event_value *f);
size_t kt_ftrace_snap_fields(const void *data, struct ktrace_event_value *v, size_t max);
int kt_ftrace_snap_sched(struct kt_sched_cache *cache, const struct ktrace_stream_record *r,
			 const void *data, bool names, struct ktrace_stream_sched *out);

/* ---- read-ahead (engine/readahead.c) ---- */

struct kt_readahead;

/* The next record of the sources in time order, on the calling thread: what
 * ktrace_stream_next does without read-ahead (s->cur is its source). */
int kt_stream_direct_next(struct ktrace_stream *s, const struct ktrace_stream_record **rec,
			  struct kt_source **src, struct ktrace_error *err);
/* The file of the last error of kt_stream_direct_next. */
const char *kt_stream_direct_error_path(const struct ktrace_stream *s);
/* Starts the thread that reads s ahead; 0 or a negative code. */
int kt_readahead_start(struct ktrace_stream *s, struct kt_readahead **out,
		       struct ktrace_error *err);
/* The next record's copy, on the caller's thread: 1 with *rec (and *src, *data: its
 * source and the source's copy), 0 at the end, or the error that stopped the reading
 * (err set, *err_path its file). */
int kt_readahead_next(struct kt_readahead *ra, const struct ktrace_stream_record **rec,
		      const struct kt_source **src, const void **data, struct ktrace_error *err,
		      const char **err_path);
/* kt_stream_fields_only's work. */
void kt_readahead_fields_only(struct kt_readahead *ra,
			      bool (*wanted)(void *arg, const struct ktrace_stream_record *r),
			      void *arg);
/* Stops the thread and frees everything. */
void kt_readahead_stop(struct kt_readahead *ra);

/* The generic line of a non-ftrace record, in trace-cmd's layout:
 * "%16s-%-5d [%03d] %5lu.%06lu: %-20s %s" (comm-tid, CPU, time, name, text). */
int kt_stream_generic_line(const struct ktrace_stream_record *r, const char *text, char *buf,
			   size_t len);

#endif
