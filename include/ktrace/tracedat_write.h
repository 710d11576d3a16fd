/* SPDX-License-Identifier: MIT */
/*
 * tracedat_write: writes trace-cmd "trace.dat" files, version 6 (sequential layout) or
 * version 7 (sections, optionally compressed with zstd or zlib), that trace-cmd reads
 * as its own.
 *
 * The file is written to a temporary name next to the destination and renamed over it
 * by tracedat_writer_close: an interrupted or failed write never leaves a partial file
 * under the final name (tracedat_writer_abort removes the temporary file).
 *
 * A file is written in this order (each metadata step may be skipped: it is then
 * written empty):
 *
 *   1. tracedat_writer_headers             header_page and header_event texts
 *   2. tracedat_writer_add_ftrace_format   formats of the "ftrace" system (repeatable)
 *   3. tracedat_writer_add_event_format    other formats, grouped by system (repeatable)
 *   4. tracedat_writer_kallsyms, _printk, _cmdlines
 *   5. tracedat_writer_set_cpus, _add_option, _add_buffer (any order among themselves)
 *   6. data, buffer by buffer in the order they were added: for each CPU (increasing
 *      ids; CPUs without data may be skipped) tracedat_writer_cpu_begin, any number of
 *      tracedat_writer_cpu_write / _cpu_copy_fd, tracedat_writer_cpu_end; or
 *      tracedat_writer_latency_write for a latency (text) buffer
 *   7. tracedat_writer_close
 *
 * CPU data is the ring buffer's sub-buffers as the kernel wrote them (a copy of
 * per_cpu/cpuN/trace_pipe_raw); it is placed at an offset aligned to the buffer's page
 * size and, when compressing, stored in chunks of 10 pages as trace-cmd does ("u32
 * chunk count", then per chunk "u32 compressed size, u32 size, bytes"). Metadata
 * sections are compressed as one block each. Options are kept in memory and written
 * before the data (version 6) or in one options section after it (version 7), followed
 * by the section-name strings.
 *
 * Memory use is bounded by one metadata section, the options and one chunk, never by the
 * size of the CPU data. Errors follow ktrace/error.h; after an error the writer refuses
 * further work and tracedat_writer_close fails (and removes the temporary file).
 */
#ifndef KTRACE_TRACEDAT_WRITE_H
#define KTRACE_TRACEDAT_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/tracedat.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tracedat_writer;

struct tracedat_write_opts {
	unsigned int version;        /* 6 or 7; 0 means 7 */
	const char *compression;     /* NULL or "none", "zstd", "zlib" (version 7 only) */
	int level;                   /* compression level; 0: zstd 3, zlib 6 */
	bool big_endian;             /* byte order of the traced machine (and of the file) */
	unsigned int long_size;      /* header byte: the traced user space's long; 0: 8 */
	unsigned int page_size;      /* header page size; 0: 4096 (version 6: the page size
	                                of every buffer) */
};

/* Creates path's temporary twin (path.tmpXXXXXX) and writes the initial header. */
int tracedat_writer_create(const char *path, const struct tracedat_write_opts *opts,
			   struct tracedat_writer **out, struct ktrace_error *err);
/* The same into fd (seekable, written from offset 0, never renamed nor closed by the
 * writer): for memory files and tests. */
int tracedat_writer_create_fd(int fd, const struct tracedat_write_opts *opts,
			      struct tracedat_writer **out, struct ktrace_error *err);

/* Metadata. Texts are copied or written at once; the caller may free them on return. */
int tracedat_writer_headers(struct tracedat_writer *w, const char *header_page,
			    size_t page_len, const char *header_event, size_t event_len,
			    struct ktrace_error *err);
int tracedat_writer_add_ftrace_format(struct tracedat_writer *w, const char *text, size_t len,
				      struct ktrace_error *err);
/* Formats of one system must be added one after the other. */
int tracedat_writer_add_event_format(struct tracedat_writer *w, const char *system,
				     const char *text, size_t len, struct ktrace_error *err);
int tracedat_writer_kallsyms(struct tracedat_writer *w, const char *text, size_t len,
			     struct ktrace_error *err);
int tracedat_writer_printk(struct tracedat_writer *w, const char *text, size_t len,
			   struct ktrace_error *err);
int tracedat_writer_cmdlines(struct tracedat_writer *w, const char *text, size_t len,
			     struct ktrace_error *err);

/* The number of CPUs of the traced machine (trace-cmd report's "cpus=N"). Version 6
 * writes it before the first data (every buffer's CPU table has that many entries;
 * default 1, and data of higher CPUs is then refused); version 7 writes it as a CPUCOUNT
 * option (default: the highest CPU id given data + 1). */
int tracedat_writer_set_cpus(struct tracedat_writer *w, unsigned int cpus,
			     struct ktrace_error *err);
/* An option, copied. The options the writer produces itself are refused (-EINVAL):
 * DONE, BUFFER, BUFFER_TEXT, CPUCOUNT, STRINGS and the section options 16-21. */
int tracedat_writer_add_option(struct tracedat_writer *w, uint16_t id, const void *data,
			       uint32_t size, struct ktrace_error *err);
/* Declares a buffer: name "" for the top buffer, clock name ("local"; NULL or "" means
 * "local"), page (sub-buffer) size (0: the header's), latency: a text buffer. Returns
 * its index (>= 0) or a negative error code. Version 6 puts the top buffer first (one
 * is added, empty, when there is none), allows no other buffer next to a latency one,
 * and one page size for all. */
int tracedat_writer_add_buffer(struct tracedat_writer *w, const char *name, const char *clock,
			       unsigned int page_size, bool latency, struct ktrace_error *err);

/* CPU data of a buffer. */
int tracedat_writer_cpu_begin(struct tracedat_writer *w, unsigned int buffer, unsigned int cpu,
			      struct ktrace_error *err);
int tracedat_writer_cpu_write(struct tracedat_writer *w, const void *data, size_t len,
			      struct ktrace_error *err);
/* Appends len bytes of fd from offset (copy_file_range when nothing is compressed). */
int tracedat_writer_cpu_copy_fd(struct tracedat_writer *w, int fd, uint64_t offset,
				uint64_t len, struct ktrace_error *err);
int tracedat_writer_cpu_end(struct tracedat_writer *w, struct ktrace_error *err);
/* Text of a latency buffer; may be called several times for the same buffer. */
int tracedat_writer_latency_write(struct tracedat_writer *w, unsigned int buffer,
				  const void *text, size_t len, struct ktrace_error *err);

/* Bytes written so far (the file size once closed). */
uint64_t tracedat_writer_size(const struct tracedat_writer *w);
/* The version being written (6 or 7). */
unsigned int tracedat_writer_version(const struct tracedat_writer *w);

/* Completes the file (buffers without data are written empty), then renames it to its
 * final name. The writer is freed whatever the result; on failure nothing is left
 * under the final name nor the temporary one. */
int tracedat_writer_close(struct tracedat_writer *w, struct ktrace_error *err);
/* Gives up: frees the writer and removes the temporary file. */
void tracedat_writer_abort(struct tracedat_writer *w);

/*
 * Conversion: copies everything td holds into w (created with the wanted version and
 * compression): metadata, every option (those describing the file layout are written
 * anew), every buffer with its raw CPU data (pages copied as they are, so every record
 * stays), latency texts. The caller then closes w. Fails with -ENOTSUP for what version
 * 6 cannot express (several page sizes, a named or additional latency buffer).
 */
int tracedat_convert(struct tracedat *td, struct tracedat_writer *w, struct ktrace_error *err);
/* Writer options that keep td's byte order, long size and page size. */
void tracedat_write_opts_from(const struct tracedat *td, struct tracedat_write_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
