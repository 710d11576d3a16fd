/* SPDX-License-Identifier: MIT */
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
#ifndef KTRACE_TRACEDAT_H
#define KTRACE_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/input.h>

#ifdef __cplusplus
extern "C" {
#endif

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
	TRACEDAT_OPT_BTF_FILE = 23,
	TRACEDAT_OPT_LAST_BOOT_INFO = 24,
	TRACEDAT_OPT_MODULES_FILE = 25,
	/* ktrace's own: the kernel's saved_tgids text ("pid tgid" lines). trace-cmd has no
	 * place for it and skips the option. */
	TRACEDAT_OPT_SAVED_TGIDS = 0x8001,
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

/* Opens a trace.dat file (mmap'ed; pipes are refused) and reads all its metadata. */
int tracedat_open(const char *path, unsigned int flags, struct tracedat **out,
		  struct ktrace_error *err);
/* The same over an input the caller keeps open until tracedat_close (it must be
 * addressable at once: a mapped file or memory). */
int tracedat_open_input(struct ktrace_input *in, unsigned int flags, struct tracedat **out,
			struct ktrace_error *err);
void tracedat_close(struct tracedat *td);

const struct tracedat_header *tracedat_header(const struct tracedat *td);
const char *tracedat_name(const struct tracedat *td);

/* Header texts from tracefs events/header_page and events/header_event. */
int tracedat_header_page(const struct tracedat *td, const char **text, size_t *len);
int tracedat_header_event(const struct tracedat *td, const char **text, size_t *len);

/* Format files of the "ftrace" system (events/ftrace/<event>/format). */
size_t tracedat_ftrace_format_count(const struct tracedat *td);
int tracedat_ftrace_format(const struct tracedat *td, size_t i, const char **text, size_t *len);
/* Other event systems, in file order, and their format files. */
size_t tracedat_system_count(const struct tracedat *td);
const char *tracedat_system_name(const struct tracedat *td, size_t sys);
size_t tracedat_system_event_count(const struct tracedat *td, size_t sys);
int tracedat_event_format(const struct tracedat *td, size_t sys, size_t i, const char **text,
			  size_t *len);

/* Texts that may be large and are kept compressed until asked for (v7): these load
 * them on first use, so they can fail (corrupt data) and take err. The byte counts
 * `trace-cmd dump` prints are available without loading (the _size functions). */
int tracedat_kallsyms(struct tracedat *td, const char **text, size_t *len,
		      struct ktrace_error *err);
int tracedat_printk_formats(struct tracedat *td, const char **text, size_t *len,
			    struct ktrace_error *err);
int tracedat_cmdlines(struct tracedat *td, const char **text, size_t *len,
		      struct ktrace_error *err);
/* Sizes recorded in the file; -1 when the file has no such section. */
int64_t tracedat_kallsyms_size(const struct tracedat *td);
int64_t tracedat_printk_size(const struct tracedat *td);
int64_t tracedat_cmdlines_size(const struct tracedat *td);

/* Options in file order (the DONE options of v7 sections included). */
size_t tracedat_option_count(const struct tracedat *td);
const struct tracedat_option *tracedat_option(const struct tracedat *td, size_t i);
/* "DATE", "BUFFER"... ("SAVED_TGIDS" for ktrace's own) or NULL for an unknown id. */
const char *tracedat_option_name(unsigned int id);

/* Values of common options; NULL / false when the file has none. */
const char *tracedat_uname(const struct tracedat *td);
const char *tracedat_tracer_version(const struct tracedat *td);   /* VERSION option */
const char *tracedat_clock(const struct tracedat *td);            /* top buffer's clock */
/* The full trace_clock text ("[local] global counter ..."), NULL if not saved. */
const char *tracedat_clock_text(const struct tracedat *td);
bool tracedat_trace_id(const struct tracedat *td, uint64_t *id);
bool tracedat_tsc2nsec(const struct tracedat *td, uint32_t *mult, uint32_t *shift,
		       uint64_t *offset);
/* Sum of the DATE (converted to ns) and OFFSET options applied to timestamps. */
int64_t tracedat_ts_offset(const struct tracedat *td);
/* Adds to the offset applied to every corrected timestamp (trace-cmd --ts-offset). */
void tracedat_add_ts_offset(struct tracedat *td, int64_t offset);
/* Applies the file's timestamp corrections to a raw timestamp of buffer/cpu. */
uint64_t tracedat_correct_ts(const struct tracedat *td, unsigned int buffer, unsigned int cpu,
			     uint64_t raw_ts);

/* Version 7 sections (none for version 6). */
size_t tracedat_section_count(const struct tracedat *td);
const struct tracedat_section *tracedat_section(const struct tracedat *td, size_t i);

/* Things a reader would want to know but that did not stop it: unknown options,
 * oddities in the section walk... */
size_t tracedat_warning_count(const struct tracedat *td);
const char *tracedat_warning(const struct tracedat *td, size_t i);

/* Buffers: the top buffer first (when the file has one), then instances in file order. */
size_t tracedat_buffer_count(const struct tracedat *td);
const struct tracedat_buffer *tracedat_buffer(const struct tracedat *td, size_t i);
/* CPU entries of a buffer, sorted by CPU id (ids may be sparse in version 7). */
const struct tracedat_cpu *tracedat_buffer_cpu(const struct tracedat *td, size_t buffer,
					       size_t i);
/* Index of the buffer with that name, or -1. */
int tracedat_find_buffer(const struct tracedat *td, const char *name);

/* A latency buffer's text, handed to fn piece by piece (decompressed if needed). */
int tracedat_latency_text(struct tracedat *td, size_t buffer,
			  int (*fn)(const char *text, size_t len, void *arg), void *arg,
			  struct ktrace_error *err);

/* The ring-buffer data of one CPU of a buffer (cpu_index as for tracedat_buffer_cpu),
 * exactly the sub-buffers the kernel wrote, handed to fn in file order in pieces of at
 * most a few MiB: slices of the mapping for uncompressed data, one decompressed chunk at
 * a time otherwise. fn returns 0 to go on, or a negative code that stops the walk and is
 * returned as is. Used to copy or convert a file without decoding its records. */
int tracedat_cpu_data(struct tracedat *td, size_t buffer, size_t cpu_index,
		      int (*fn)(const void *data, size_t len, void *arg), void *arg,
		      struct ktrace_error *err);

/* Iteration. buffer: an index, or TRACEDAT_ALL_BUFFERS to merge every buffer (the way
 * trace-cmd report shows instances). cpu: a CPU id, or -1 for all. Ties in timestamp
 * go to the lower buffer index, then the lower CPU id. */
#define TRACEDAT_ALL_BUFFERS (-1)
int tracedat_iter_new(struct tracedat *td, int buffer, int cpu, struct tracedat_iter **out,
		      struct ktrace_error *err);
/* 1 with *rec set (valid until the next call), 0 at the end, or a negative error code
 * (corrupt data; err names the offset). For uncompressed data, rec->data points into
 * the file's mapping, where it stays readable; the iterator hands the pages its streams
 * have left behind back to the kernel (madvise), so that memory stays bounded (reading
 * them again costs a read from the page cache, not a wrong result). */
int tracedat_iter_next(struct tracedat_iter *it, const struct tracedat_record **rec,
		       struct ktrace_error *err);
void tracedat_iter_free(struct tracedat_iter *it);
/* For callers that use records after the next call (uncompressed data): from now on a
 * record's pages are handed back only once its stream has read the returned number of
 * bytes past it; between 1 and 8 MiB, less when there are many streams (CPUs and
 * buffers), so that what stays resident is about 32 MiB at most. */
size_t tracedat_iter_keep_mapped(struct tracedat_iter *it);

#ifdef __cplusplus
}
#endif
#endif
