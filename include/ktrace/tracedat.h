/* SPDX-License-Identifier: MIT */
/* ktrace tracedat component: trace-cmd trace.dat reader, iterator and writer. */
#ifndef KTRACE_TRACEDAT_H
#define KTRACE_TRACEDAT_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/input.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * tracedat: a reader for trace-cmd "trace.dat" files, versions 6 and 7.
 *
 * Version 6 is a sequential layout (header texts, event formats, kallsyms, printk
 * formats, saved cmdlines, CPU count, options, then a "flyrecord" table of per-CPU
 * data). Version 7 is made of sections located through chained OPTIONS sections;
 * metadata sections and CPU data may be compressed with zstd or zlib.
 *
 * Opening a file parses and validates all metadata; the ring-buffer data is read
 * while iterating, one sub-buffer ("page") at a time: mmap'ed for uncompressed data,
 * decompressed chunk by chunk otherwise, so memory stays bounded whatever the file
 * size. Records of all CPUs of a buffer (or of all buffers) come out merged in
 * timestamp order, with timestamps corrected the way trace-cmd corrects them.
 *
 * Texts returned by the accessors (header_page, formats, kallsyms...) are NOT
 * NUL-terminated: use the length. They stay valid until tracedat_close.
 * Errors follow ktrace/error.h: negative errno codes, message and file offset in err.
 */




struct tracedat;
struct tracedat_iter;

/* Option ids (the same numbers in versions 6 and 7). */
enum tracedat_option_id {
	TRACEDAT_OPT_DONE = 0,
	TRACEDAT_OPT_DATE = 1,
	TRACEDAT_OPT_CPUSTAT = 2,
	TRACEDAT_OPT_BUFFER = 3,
	TRACEDAT_OPT_TRACECLOCK = 4,
	TRACEDAT_OPT_UNAME = 5,
	TRACEDAT_OPT_HOOK = 6,
	TRACEDAT_OPT_OFFSET = 7,
	TRACEDAT_OPT_CPUCOUNT = 8,
	TRACEDAT_OPT_VERSION = 9,
	TRACEDAT_OPT_PROCMAPS = 10,
	TRACEDAT_OPT_TRACEID = 11,
	TRACEDAT_OPT_TIME_SHIFT = 12,
	TRACEDAT_OPT_GUEST = 13,
	TRACEDAT_OPT_TSC2NSEC = 14,
	TRACEDAT_OPT_STRINGS = 15,
	TRACEDAT_OPT_HEADER_INFO = 16,
	TRACEDAT_OPT_FTRACE_EVENTS = 17,
	TRACEDAT_OPT_EVENT_FORMATS = 18,
	TRACEDAT_OPT_KALLSYMS = 19,
	TRACEDAT_OPT_PRINTK = 20,
	TRACEDAT_OPT_CMDLINES = 21,
	TRACEDAT_OPT_BUFFER_TEXT = 22,
	/* trace-cmd 3.4 (version 7 only): the offset of a section holding the traced
	 * kernel's /sys/kernel/btf/vmlinux, and of one holding its /proc/modules, as they
	 * are (compressed as one block when the file is). */
	TRACEDAT_OPT_BTF_FILE = 23,
	/* trace-cmd 3.4: "instance:text" (NUL-terminated), the last_boot_info file of an
	 * instance mapped on a persistent ring buffer. */
	TRACEDAT_OPT_LAST_BOOT_INFO = 24,
	TRACEDAT_OPT_MODULES_FILE = 25,
	/* ktrace's own: the kernel's saved_tgids text ("pid tgid" lines). trace-cmd has no
	 * place for it and skips the option. */
	TRACEDAT_OPT_SAVED_TGIDS = 0x8001,
	/* ktrace's own: the BTF and modules files themselves, in the option, where the
	 * file has no section trace-cmd reads for them (version 6, and version 7 without
	 * compression, which trace-cmd 3.4 cannot read a BTF or modules section of).
	 * trace-cmd skips them. */
	TRACEDAT_OPT_KTRACE_BTF = 0x8002,
	TRACEDAT_OPT_KTRACE_MODULES = 0x8003,
};

/* Flags of tracedat_open / tracedat_open_input. */
enum {
	/* Report raw ring-buffer timestamps: no TSC2NSEC, DATE, OFFSET or TIME_SHIFT
	 * correction (trace-cmd report --raw-ts). */
	TRACEDAT_RAW_TS = 1 << 0,
	/* Ignore the DATE option (trace-cmd report --nodate). */
	TRACEDAT_NO_DATE = 1 << 1,
	/* tracedat_open_input only: the input maps a file (ktrace_input_open of a regular
	 * file), so pages already read may be dropped from memory to keep the resident
	 * set small (they are read again from the file if touched). Never set it for
	 * ktrace_input_from_memory inputs. tracedat_open sets it by itself. */
	TRACEDAT_MAPPED_FILE = 1 << 2,
	/* Walk sub-buffers with kbuffer (ktrace/kbuffer.h) instead of the reader's own
	 * faster walker; the records are the same (the tests check it). */
	TRACEDAT_KBUFFER_WALK = 1 << 3,
	/* Read uncompressed data into buffers the iterator uses again (read calls) instead
	 * of walking the file's mapping: faster where the first touch of each page is
	 * costly, as in virtual machines. rec->data then stays valid until the next
	 * tracedat_iter_next call only, or, once tracedat_iter_keep_mapped was called,
	 * until its stream has read that many bytes past it. No effect for inputs without
	 * a file (ktrace_input_from_memory). */
	TRACEDAT_READ_COPIES = 1 << 4,
};

/* The initial header and what the whole file says about the traced machine. */
struct tracedat_header {
	unsigned int version;            /* 6 or 7 */
	bool big_endian;                 /* byte order of the file and the traced kernel */
	unsigned int long_size;          /* header byte: the traced user space's long (4/8) */
	unsigned int kernel_long_size;   /* size of header_page's commit field (4/8) */
	unsigned int page_size;          /* header page size (v7 buffers carry their own) */
	const char *compression;         /* "none" (always for v6), "zstd" or "zlib" */
	const char *compression_version; /* "" when none */
	uint64_t options_offset;         /* v7: first OPTIONS section; v6: 0 */
	unsigned int cpus;               /* CPUs as trace-cmd counts them ("cpus=N") */
	unsigned int sections;           /* v7: sections found walking the file; v6: 0 */
	unsigned int options;            /* options as `trace-cmd dump` counts them */
	bool old_format;                 /* pre-2.6.31 ring buffer (empty header_page) */
	uint64_t file_size;
};

/* One option as stored in the file. data points to size bytes (not NUL-terminated). */
struct tracedat_option {
	uint16_t id;
	uint32_t size;
	const uint8_t *data;
	uint64_t offset;      /* file offset of the option header; for options inside a
	                         compressed section, the offset of that section */
};

/* A buffer: the top one (name "") or an instance. */
struct tracedat_buffer {
	const char *name;         /* "" for the top buffer */
	const char *clock;        /* trace clock name ("local"...), "" when unknown */
	unsigned int page_size;   /* sub-buffer size */
	unsigned int cpus;        /* number of CPU entries (see tracedat_buffer_cpu) */
	bool latency;             /* a latency (text) buffer: no records */
	bool compressed;          /* CPU data (or latency text) is compressed */
	uint64_t offset;          /* v7: offset of its section; v6: of its flyrecord table */
};

/* One CPU's data in a buffer. */
struct tracedat_cpu {
	unsigned int cpu;         /* CPU id */
	uint64_t offset;          /* file offset of the data (of the chunk count if compressed) */
	uint64_t size;            /* size as recorded in the file */
	uint64_t data_size;       /* bytes of ring-buffer pages (uncompressed) */
	uint64_t stored_size;     /* bytes the data really occupies in the file */
	uint32_t chunks;          /* compressed chunks, 0 when not compressed */
};

/* A version 7 section, as found walking the file from its header. */
struct tracedat_section {
	uint16_t id;              /* the matching option id (16 = headers, 3 = buffer...) */
	uint16_t flags;           /* 1: compressed */
	uint64_t offset;          /* file offset of the 16-byte section header */
	uint64_t size;            /* bytes after the header */
	const char *description;  /* from the STRINGS sections, "" if not found */
};

/* One event record, as tracedat_iter_next returns it. */
struct tracedat_record {
	unsigned int buffer;      /* buffer index (0..tracedat_buffer_count-1) */
	unsigned int cpu;         /* CPU id */
	unsigned int cpu_index;   /* index of that CPU in tracedat_buffer_cpu() */
	uint64_t ts;              /* corrected timestamp (the raw one with TRACEDAT_RAW_TS) */
	uint64_t raw_ts;          /* timestamp as the ring buffer encodes it */
	const void *data;         /* event payload (starts with the common_type field) */
	uint32_t size;            /* payload bytes */
	uint32_t record_size;     /* header + payload bytes */
	/* Events lost just before this record, reported where trace-cmd reports them
	 * (the first record of a page whose header says so): 0 none, >0 the count,
	 * -1 lost but the count is unknown. */
	long long missed_events;
	/* Position. For uncompressed data, file offsets. For compressed data, offsets in
	 * the CPU's decompressed stream, and chunk_offset is the file offset of the
	 * compressed chunk holding the page (0 for uncompressed data). */
	bool compressed;
	uint64_t page_offset;     /* start of the page (sub-buffer header) */
	uint64_t offset;          /* start of the record header */
	uint64_t chunk_offset;
	/* Compressed data: where the decompressed chunk holding the page ends (stream
	 * offset); the chunk's bytes after the record follow it in memory. */
	uint64_t chunk_end;
	/* The whole page, for callers that walk it themselves (kbuffer_raw_get...). */
	const void *page;
	size_t page_len;
};

/* Opens a trace.dat file and reads all its metadata. A file is mapped; a pipe ("-" is
 * standard input) is copied to a temporary file first (ktrace_input_spool). */
KTRACE_API int tracedat_open(const char *path, unsigned int flags, struct tracedat **out,
		  struct ktrace_error *err);
/* The same over an input the caller keeps open until tracedat_close (a stream input
 * is spooled to a temporary file by ktrace_input_spool first). */
KTRACE_API int tracedat_open_input(struct ktrace_input *in, unsigned int flags, struct tracedat **out,
			struct ktrace_error *err);
KTRACE_API void tracedat_close(struct tracedat *td);

KTRACE_API const struct tracedat_header *tracedat_header(const struct tracedat *td);
KTRACE_API const char *tracedat_name(const struct tracedat *td);

/* Header texts from tracefs events/header_page and events/header_event. */
KTRACE_API int tracedat_header_page(const struct tracedat *td, const char **text, size_t *len);
KTRACE_API int tracedat_header_event(const struct tracedat *td, const char **text, size_t *len);

/* Format files of the "ftrace" system (events/ftrace/<event>/format). */
KTRACE_API size_t tracedat_ftrace_format_count(const struct tracedat *td);
KTRACE_API int tracedat_ftrace_format(const struct tracedat *td, size_t i, const char **text, size_t *len);
/* Other event systems, in file order, and their format files. */
KTRACE_API size_t tracedat_system_count(const struct tracedat *td);
KTRACE_API const char *tracedat_system_name(const struct tracedat *td, size_t sys);
KTRACE_API size_t tracedat_system_event_count(const struct tracedat *td, size_t sys);
KTRACE_API int tracedat_event_format(const struct tracedat *td, size_t sys, size_t i, const char **text,
			  size_t *len);

/* Texts that may be large and are kept compressed until asked for (v7): these load
 * them on first use, so they can fail (corrupt data) and take err. The byte counts
 * `trace-cmd dump` prints are available without loading (the _size functions). */
KTRACE_API int tracedat_kallsyms(struct tracedat *td, const char **text, size_t *len,
		      struct ktrace_error *err);
KTRACE_API int tracedat_printk_formats(struct tracedat *td, const char **text, size_t *len,
			    struct ktrace_error *err);
KTRACE_API int tracedat_cmdlines(struct tracedat *td, const char **text, size_t *len,
		      struct ktrace_error *err);
/* Sizes recorded in the file; -1 when the file has no such section. */
KTRACE_API int64_t tracedat_kallsyms_size(const struct tracedat *td);
KTRACE_API int64_t tracedat_printk_size(const struct tracedat *td);
KTRACE_API int64_t tracedat_cmdlines_size(const struct tracedat *td);
/* The traced kernel's BTF (/sys/kernel/btf/vmlinux, binary) and /proc/modules text
 * that trace-cmd 3.4 saves (BTF_FILE / MODULES_FILE sections, or ktrace's own options),
 * loaded on first use like kallsyms; -ENOENT (with an empty result) when the file has
 * none. Their sizes (uncompressed), -1 when absent. */
KTRACE_API int tracedat_btf(struct tracedat *td, const void **data, size_t *len,
			    struct ktrace_error *err);
KTRACE_API int tracedat_modules(struct tracedat *td, const char **text, size_t *len,
				struct ktrace_error *err);
KTRACE_API int64_t tracedat_btf_size(const struct tracedat *td);
KTRACE_API int64_t tracedat_modules_size(const struct tracedat *td);

/* Options in file order (the DONE options of v7 sections included). */
KTRACE_API size_t tracedat_option_count(const struct tracedat *td);
KTRACE_API const struct tracedat_option *tracedat_option(const struct tracedat *td, size_t i);
/* "DATE", "BUFFER"... ("SAVED_TGIDS", "KTRACE_BTF", "KTRACE_MODULES" for ktrace's own)
 * or NULL for an unknown id. */
KTRACE_API const char *tracedat_option_name(unsigned int id);

/* Values of common options; NULL / false when the file has none. */
KTRACE_API const char *tracedat_uname(const struct tracedat *td);
KTRACE_API const char *tracedat_tracer_version(const struct tracedat *td);   /* VERSION option */
KTRACE_API const char *tracedat_clock(const struct tracedat *td);            /* top buffer's clock */
/* The full trace_clock text ("[local] global counter ..."), NULL if not saved. */
KTRACE_API const char *tracedat_clock_text(const struct tracedat *td);
KTRACE_API bool tracedat_trace_id(const struct tracedat *td, uint64_t *id);
KTRACE_API bool tracedat_tsc2nsec(const struct tracedat *td, uint32_t *mult, uint32_t *shift,
		       uint64_t *offset);
/* Sum of the DATE (converted to ns) and OFFSET options applied to timestamps. */
KTRACE_API int64_t tracedat_ts_offset(const struct tracedat *td);
/* Adds to the offset applied to every corrected timestamp (trace-cmd --ts-offset). */
KTRACE_API void tracedat_add_ts_offset(struct tracedat *td, int64_t offset);
/* Applies the file's timestamp corrections to a raw timestamp of buffer/cpu. */
KTRACE_API uint64_t tracedat_correct_ts(const struct tracedat *td, unsigned int buffer, unsigned int cpu,
			     uint64_t raw_ts);

/* Version 7 sections (none for version 6). */
KTRACE_API size_t tracedat_section_count(const struct tracedat *td);
KTRACE_API const struct tracedat_section *tracedat_section(const struct tracedat *td, size_t i);

/* Oddities that lose nothing: unknown options, options of the other version, second
 * copies of a file... (what is lost or cannot be trusted is damage, below). */
KTRACE_API size_t tracedat_warning_count(const struct tracedat *td);
KTRACE_API const char *tracedat_warning(const struct tracedat *td, size_t i);

/*
 * Damage found at open that did not stop it: CPU data cut short by the end of the file
 * or by a chunk that cannot be found, metadata lost at the end of a version 7 file...
 * Each place is told to the damage handler (<ktrace/error.h>) as it is found; the CPU
 * data that can be read is what tracedat_buffer_cpu describes (data_size, chunks), and
 * iterators over damaged data end with the damage's error instead of 0. Places in the
 * order found (the first 256).
 */
KTRACE_API size_t tracedat_damage_count(const struct tracedat *td);
KTRACE_API const struct ktrace_error *tracedat_damage(const struct tracedat *td, size_t i);

/* Buffers: the top buffer first (when the file has one), then instances in file order. */
KTRACE_API size_t tracedat_buffer_count(const struct tracedat *td);
KTRACE_API const struct tracedat_buffer *tracedat_buffer(const struct tracedat *td, size_t i);
/* CPU entries of a buffer, sorted by CPU id (ids may be sparse in version 7). */
KTRACE_API const struct tracedat_cpu *tracedat_buffer_cpu(const struct tracedat *td, size_t buffer,
					       size_t i);
/* Index of the buffer with that name, or -1. */
KTRACE_API int tracedat_find_buffer(const struct tracedat *td, const char *name);

/* A latency buffer's text, handed to fn piece by piece (decompressed if needed). */
KTRACE_API int tracedat_latency_text(struct tracedat *td, size_t buffer,
			  int (*fn)(const char *text, size_t len, void *arg), void *arg,
			  struct ktrace_error *err);

/* The ring-buffer data of one CPU of a buffer (cpu_index as for tracedat_buffer_cpu),
 * exactly the sub-buffers the kernel wrote, handed to fn in file order one sub-buffer at
 * a time. Each is checked first as tracedat_iter_next checks it (its records walked, not
 * formatted): a truncated or corrupt one stops the walk with the reader's error and
 * offset, before fn sees it (nothing is skipped: data cut short at open ends with its
 * damage's error, after the sub-buffers before it). fn returns 0 to go on, or a negative code that stops the
 * walk and is returned as is. Used to copy or convert a file. */
KTRACE_API int tracedat_cpu_data(struct tracedat *td, size_t buffer, size_t cpu_index,
		      int (*fn)(const void *data, size_t len, void *arg), void *arg,
		      struct ktrace_error *err);

/* Iteration. buffer: an index, or TRACEDAT_ALL_BUFFERS to merge every buffer (the way
 * trace-cmd report shows instances). cpu: a CPU id, or -1 for all. Ties in timestamp
 * go to the lower buffer index, then the lower CPU id. */
#define TRACEDAT_ALL_BUFFERS (-1)
KTRACE_API int tracedat_iter_new(struct tracedat *td, int buffer, int cpu, struct tracedat_iter **out,
		      struct ktrace_error *err);
/*
 * 1 with *rec set (valid until the next call), 0 at the end, or a negative error code
 * with err set. A damaged sub-buffer or compressed chunk is left behind and the CPU's
 * next one read: each damaged place (a run of damaged sub-buffers is one) is told to
 * the damage handler (<ktrace/error.h>) with its offset, and the end of the records is
 * then the last damage's error instead of 0 (tracedat_iter_ended is true from then on),
 * as it is for data cut short at open (tracedat_damage). Any other error (no memory, a
 * failed read) ends the iteration where it happens. For uncompressed data, rec->data
 * points into the file's mapping, where it stays readable; the iterator hands the pages
 * its streams have left behind back to the kernel (madvise), so that memory stays
 * bounded (reading them again costs a read from the page cache, not a wrong result).
 */
KTRACE_API int tracedat_iter_next(struct tracedat_iter *it, const struct tracedat_record **rec,
		       struct ktrace_error *err);
/* Whether every record has been handed out: the last call returned 0 or the damage
 * error that ends the records of damaged data. */
KTRACE_API bool tracedat_iter_ended(const struct tracedat_iter *it);
/* The damaged places the iterator left behind so far (each told to the damage handler
 * as it was met), in that order (the first 256); the damage found at open is
 * tracedat_damage's. */
KTRACE_API size_t tracedat_iter_damage_count(const struct tracedat_iter *it);
KTRACE_API const struct ktrace_error *tracedat_iter_damage(const struct tracedat_iter *it, size_t i);
KTRACE_API void tracedat_iter_free(struct tracedat_iter *it);
/* For callers that use records after the next call (uncompressed data): from now on a
 * record's pages are handed back (with TRACEDAT_READ_COPIES: its buffer is used again)
 * only once its stream has read the returned number of bytes past it; between 1 and 8 MiB, less when there are many streams (CPUs and
 * buffers), so that what stays resident is about 32 MiB at most. */
KTRACE_API size_t tracedat_iter_keep_mapped(struct tracedat_iter *it);
/* The same with a number of bytes of the caller's choosing (a reader that uses its
 * records within a few pages keeps its buffers in the CPU's cache with a small one).
 * Compressed data too: from this call on, each decompressed chunk has a buffer of its
 * own, used again once its stream has read bytes past it, so records stay valid as
 * long as uncompressed ones. */
KTRACE_API void tracedat_iter_keep(struct tracedat_iter *it, size_t bytes);

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
 *   5. tracedat_writer_set_cpus, _add_option, _add_buffer, _btf, _modules (any order
 *      among themselves)
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




struct tracedat_writer;

struct tracedat_write_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	unsigned int version;        /* 6 or 7; 0 means 7 */
	const char *compression;     /* NULL or "none", "zstd", "zlib" (version 7 only) */
	int level;                   /* compression level; 0: zstd 3, zlib 6 */
	bool big_endian;             /* byte order of the traced machine (and of the file) */
	unsigned int long_size;      /* header byte: the traced user space's long; 0: 8 */
	unsigned int page_size;      /* header page size; 0: 4096 (version 6: the page size
	                                of every buffer) */
	/* NULL, or called every few MiB of ring-buffer data with the bytes taken so far
	 * (for a progress line). */
	void (*progress)(void *arg, uint64_t data_bytes);
	void *progress_arg;
};

/* Creates the output and writes the initial header. A regular file (or a new one) is
 * written under a temporary name beside it (PATH.tmpXXXXXX) and renamed over it by
 * tracedat_writer_close, keeping an existing file's mode; a symbolic link's target is
 * replaced; a FIFO, a device or "-" (standard output) gets the file as a stream,
 * built in $TMPDIR first. A failed or aborted writer leaves nothing under path, and
 * the temporary file goes on SIGINT, SIGTERM and the other fatal signals. */
KTRACE_API int tracedat_writer_create(const char *path, const struct tracedat_write_opts *opts,
			   struct tracedat_writer **out, struct ktrace_error *err);
/* The same into fd (seekable, written from offset 0, never renamed nor closed by the
 * writer): for memory files and tests. */
KTRACE_API int tracedat_writer_create_fd(int fd, const struct tracedat_write_opts *opts,
			      struct tracedat_writer **out, struct ktrace_error *err);

/* Metadata. Texts are copied or written at once; the caller may free them on return. */
KTRACE_API int tracedat_writer_headers(struct tracedat_writer *w, const char *header_page,
			    size_t page_len, const char *header_event, size_t event_len,
			    struct ktrace_error *err);
KTRACE_API int tracedat_writer_add_ftrace_format(struct tracedat_writer *w, const char *text, size_t len,
				      struct ktrace_error *err);
/* Formats of one system must be added one after the other. */
KTRACE_API int tracedat_writer_add_event_format(struct tracedat_writer *w, const char *system,
				     const char *text, size_t len, struct ktrace_error *err);
KTRACE_API int tracedat_writer_kallsyms(struct tracedat_writer *w, const char *text, size_t len,
			     struct ktrace_error *err);
KTRACE_API int tracedat_writer_printk(struct tracedat_writer *w, const char *text, size_t len,
			   struct ktrace_error *err);
KTRACE_API int tracedat_writer_cmdlines(struct tracedat_writer *w, const char *text, size_t len,
			     struct ktrace_error *err);

/* The number of CPUs of the traced machine (trace-cmd report's "cpus=N"). Version 6
 * writes it before the first data (every buffer's CPU table has that many entries;
 * default 1, and data of higher CPUs is then refused); version 7 writes it as a CPUCOUNT
 * option (default: the highest CPU id given data + 1). */
KTRACE_API int tracedat_writer_set_cpus(struct tracedat_writer *w, unsigned int cpus,
			     struct ktrace_error *err);
/* An option, copied. The options the writer produces itself are refused (-EINVAL):
 * DONE, BUFFER, BUFFER_TEXT, CPUCOUNT, STRINGS, the section options 16-21, BTF_FILE,
 * MODULES_FILE and ktrace's KTRACE_BTF / KTRACE_MODULES (see below). */
KTRACE_API int tracedat_writer_add_option(struct tracedat_writer *w, uint16_t id, const void *data,
			       uint32_t size, struct ktrace_error *err);
/* The traced kernel's BTF (/sys/kernel/btf/vmlinux) and /proc/modules, as trace-cmd
 * 3.4 saves them (step 5; the metadata steps before are completed): in a compressed
 * version 7 file, a BTF_FILE / MODULES_FILE section, compressed as one block (trace-cmd
 * 3.4 reads no other kind); otherwise in ktrace's own KTRACE_BTF / KTRACE_MODULES
 * option, which trace-cmd skips and ktrace reads back. At most 4 GiB; once each. */
KTRACE_API int tracedat_writer_btf(struct tracedat_writer *w, const void *data, size_t len,
				   struct ktrace_error *err);
KTRACE_API int tracedat_writer_modules(struct tracedat_writer *w, const char *text, size_t len,
				       struct ktrace_error *err);
/* Declares a buffer: name "" for the top buffer, clock name ("local"; NULL or "" means
 * "local"), page (sub-buffer) size (0: the header's), latency: a text buffer. Returns
 * its index (>= 0) or a negative error code. Version 6 puts the top buffer first (one
 * is added, empty, when there is none), allows no other buffer next to a latency one,
 * and one page size for all. */
KTRACE_API int tracedat_writer_add_buffer(struct tracedat_writer *w, const char *name, const char *clock,
			       unsigned int page_size, bool latency, struct ktrace_error *err);

/* CPU data of a buffer. */
KTRACE_API int tracedat_writer_cpu_begin(struct tracedat_writer *w, unsigned int buffer, unsigned int cpu,
			      struct ktrace_error *err);
KTRACE_API int tracedat_writer_cpu_write(struct tracedat_writer *w, const void *data, size_t len,
			      struct ktrace_error *err);
/* Appends len bytes of fd from offset (copy_file_range when nothing is compressed). */
KTRACE_API int tracedat_writer_cpu_copy_fd(struct tracedat_writer *w, int fd, uint64_t offset,
				uint64_t len, struct ktrace_error *err);
KTRACE_API int tracedat_writer_cpu_end(struct tracedat_writer *w, struct ktrace_error *err);
/* Text of a latency buffer; may be called several times for the same buffer. */
KTRACE_API int tracedat_writer_latency_write(struct tracedat_writer *w, unsigned int buffer,
				  const void *text, size_t len, struct ktrace_error *err);

/* Bytes written so far (the file size once closed). */
KTRACE_API uint64_t tracedat_writer_size(const struct tracedat_writer *w);
/* The version being written (6 or 7). */
KTRACE_API unsigned int tracedat_writer_version(const struct tracedat_writer *w);

/* Completes the file (buffers without data are written empty), then renames it to its
 * final name. The writer is freed whatever the result; on failure nothing is left
 * under the final name nor the temporary one. */
KTRACE_API int tracedat_writer_close(struct tracedat_writer *w, struct ktrace_error *err);
/* Gives up: frees the writer and removes the temporary file. */
KTRACE_API void tracedat_writer_abort(struct tracedat_writer *w);

/*
 * Conversion: copies everything td holds into w (created with the wanted version and
 * compression): metadata, every option (those describing the file layout are written
 * anew), every buffer with its raw CPU data (pages copied as they are, so every record
 * stays), latency texts. The caller then closes w. Fails with -ENOTSUP for what version
 * 6 cannot express (several page sizes, a named or additional latency buffer).
 */
KTRACE_API int tracedat_convert(struct tracedat *td, struct tracedat_writer *w, struct ktrace_error *err);
/* Writer options that keep td's byte order, long size and page size. */
KTRACE_API void tracedat_write_opts_from(const struct tracedat *td, struct tracedat_write_opts *opts);

/*
 * Cutting a file into pieces (ktrace split, as trace-cmd split), each a trace.dat file
 * of its own with all the metadata and options of td and the records of one stretch:
 * the records are written anew into sub-buffers (with their raw timestamps, so the
 * file's time corrections apply to them as they did), in every buffer they came from.
 * The pieces' reports, one after the other, are the report of td (within start..end).
 */
enum tracedat_split_unit {
	TRACEDAT_SPLIT_NONE = 0,      /* one piece: everything from start to end */
	TRACEDAT_SPLIT_SECONDS,
	TRACEDAT_SPLIT_MSECS,
	TRACEDAT_SPLIT_USECS,
	TRACEDAT_SPLIT_EVENTS,
	TRACEDAT_SPLIT_PAGES,         /* sub-buffers, per CPU */
};

struct tracedat_split_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const char *output;           /* pieces are OUTPUT.1, or with repeat OUTPUT.0001,
	                                 OUTPUT.0002... */
	enum tracedat_split_unit unit;
	uint64_t count;               /* units in a piece */
	bool repeat;                  /* pieces until the end (else only the first) */
	bool per_cpu;                 /* each CPU counts its own units (always for pages) */
	int cpu;                      /* only the records of this CPU; -1: all */
	uint64_t start, end;          /* times (as reported) the records lie in; 0: open */
	const struct tracedat_write_opts *wopts;   /* NULL: td's version and compression */
	/* called for each piece written: its path and records */
	void (*piece)(void *arg, const char *path, uint64_t records);
	void *arg;
};

/* Writes the pieces; returns how many, or a negative error code (a piece being written
 * is removed). Files with latency (text) buffers or the pre-2.6.31 ring buffer are
 * refused (-ENOTSUP). */
KTRACE_API int tracedat_split(struct tracedat *td, const struct tracedat_split_opts *o,
			      struct ktrace_error *err);

#ifdef __cplusplus
}
#endif
#endif
