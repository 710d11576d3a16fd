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

struct kt_source;

struct kt_source_ops {
	/* Loads the next record into src->rec (the previous one is given up): 1, 0 at the
	 * end, or a negative code with err set (src->err_path the file). */
	int (*advance)(struct kt_source *src, struct ktrace_error *err);
	size_t (*field_count)(struct kt_source *src);
	int (*field)(struct kt_source *src, size_t i, struct ktrace_event_value *f);
	/* The record's line (text_only: its text) as snprintf would: the whole length. */
	int (*format)(struct kt_source *src, char *buf, size_t len, bool text_only);
	void (*close)(struct kt_source *src);
};

struct kt_source {
	const struct kt_source_ops *ops;
	struct ktrace_stream *stream;
	struct ktrace_stream_record rec;   /* the head record when has */
	bool has, done;
	const char *err_path;              /* the file of the last error */
};

/* The stream's options and what sources may add to it. */
const struct ktrace_stream_opts *kt_stream_opts(const struct ktrace_stream *s);
/* A new description of input index (paths[index]); NULL when out of memory. The
 * strings given are copied. */
struct ktrace_stream_source *kt_stream_add_info(struct ktrace_stream *s, uint32_t index,
						const char *path, enum ktrace_format format);
/* Memory (8-aligned) that lives until ktrace_stream_close; NULL when out of memory. */
void *kt_stream_alloc(struct ktrace_stream *s, size_t size);
/* Copies a string into the stream's storage (lives until ktrace_stream_close); NULL
 * when out of memory. */
const char *kt_stream_strdup(struct ktrace_stream *s, const char *str, size_t len);
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

/* The generic line of a non-ftrace record, in trace-cmd's layout:
 * "%16s-%-5d [%03d] %5lu.%06lu: %-20s %s" (comm-tid, CPU, time, name, text). */
int kt_stream_generic_line(const struct ktrace_stream_record *r, const char *text, char *buf,
			   size_t len);

#endif
