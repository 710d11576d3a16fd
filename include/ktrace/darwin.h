/* SPDX-License-Identifier: MIT */
/*
 * Darwin kdebug events: decoding of the events, thread maps and CPU maps of
 *   - V3 ktrace files (both flavours, see ktrace_file.h), and
 *   - the legacy raw streams: RAW_VERSION0 (no header: u32 thread count, thread map,
 *     events), RAW_VERSION1 0x55aa0101 (24-byte header, thread map, zero padding to a
 *     4 KiB boundary that may hold a CPU map, events) and RAW_VERSION2 0x55aa0200
 *     (0x120-byte header with flags and timebase frequency, then as V1);
 * plus debugid naming (trace codes files and built-in class names) and Apple's filter
 * descriptions.
 *
 * kd_buf (64-bit): u64 timestamp, u64 arg1..arg4, u64 arg5 (thread id), u32 debugid,
 * u32 cpuid, u64 unused. The 32-bit layout is u64 timestamp (CPU in bits 56-63), u32
 * arg1..arg5, u32 debugid. debugid: class bits 31-24, subclass 23-16, code 15-2,
 * function qualifier 1-0 (1 START, 2 END).
 */
#ifndef KTRACE_DARWIN_H
#define KTRACE_DARWIN_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/input.h>
#include <ktrace/ktrace_file.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KTRACE_DARWIN_CLASS(id)     (((uint32_t)(id) >> 24) & 0xffu)
#define KTRACE_DARWIN_SUBCLASS(id)  (((uint32_t)(id) >> 16) & 0xffu)
#define KTRACE_DARWIN_CSC(id)       (((uint32_t)(id) >> 16) & 0xffffu)
#define KTRACE_DARWIN_CODE(id)      (((uint32_t)(id) >> 2) & 0x3fffu)
#define KTRACE_DARWIN_FUNC(id)      ((uint32_t)(id) & 0x3u)
#define KTRACE_DARWIN_EVENTID(id)   ((uint32_t)(id) & ~0x3u)
#define KTRACE_DARWIN_FUNC_START    0x1u
#define KTRACE_DARWIN_FUNC_END      0x2u

#define KTRACE_RAW_VERSION0         0x55aa0000u
#define KTRACE_RAW_VERSION1         0x55aa0101u
#define KTRACE_RAW_VERSION2         0x55aa0200u

/* TRACE-class (class 7) events. */
#define KTRACE_TRACE_DATA_NEWTHREAD            0x07000004u
#define KTRACE_TRACE_DATA_EXEC                 0x07000008u
#define KTRACE_TRACE_DATA_THREAD_TERMINATE     0x0700000cu
#define KTRACE_TRACE_DATA_THREAD_TERMINATE_PID 0x07000010u
#define KTRACE_TRACE_STRING_GLOBAL             0x07010000u
#define KTRACE_TRACE_STRING_NEWTHREAD          0x07010004u
#define KTRACE_TRACE_STRING_EXEC               0x07010008u
#define KTRACE_TRACE_STRING_PROC_EXIT          0x0701000cu
#define KTRACE_TRACE_STRING_THREADNAME         0x07010010u
#define KTRACE_TRACE_STRING_THREADNAME_PREV    0x07010014u
#define KTRACE_TRACE_PANIC                     0x07020000u
#define KTRACE_TRACE_TIMESTAMPS                0x07020004u
#define KTRACE_TRACE_LOST_EVENTS               0x07020008u
#define KTRACE_TRACE_WRITING_EVENTS            0x0702000cu
#define KTRACE_TRACE_INFO_STRING               0x07020010u
#define KTRACE_TRACE_RETROGRADE_EVENTS         0x07020014u
#define KTRACE_TRACE_PAST_EVENTS               0x07020018u

enum ktrace_darwin_kind {
	KTRACE_DARWIN_V3 = 3,        /* V3 ktrace file (see info.flavour) */
	KTRACE_DARWIN_RAW_V0 = 0,
	KTRACE_DARWIN_RAW_V1 = 1,
	KTRACE_DARWIN_RAW_V2 = 2,
};

struct ktrace_darwin_info {
	enum ktrace_darwin_kind kind;
	uint32_t magic;              /* first word of the file (0 for V0) */
	enum ktrace_file_flavour flavour;   /* V3 only */
	uint16_t major, minor;       /* V3 header versions */
	bool is64;                   /* 64-bit kd_buf / thread map entries */
	size_t event_size;           /* 64 or 32 */
	uint64_t timebase_numer;     /* ns = ticks * numer / denom */
	uint64_t timebase_denom;
	bool timebase_known;         /* false: 1/1 assumed (V0/V1, or zero in the file) */
	uint64_t frequency;          /* V2: ticks per second; 0 otherwise */
	uint64_t start_timestamp;    /* V3 header timestamp */
	uint64_t walltime_secs;      /* V3 wall time, V1/V2 time of day */
	uint32_t walltime_usecs;
	int32_t minutes_west;
	uint32_t dst;
	uint32_t flags;              /* V3 / V2 flags */
	uint64_t thread_map_entries; /* entries stored (V1 counts padding entries) */
	uint64_t threads;            /* entries with a non-zero thread id */
	uint64_t cpus;               /* CPU map entries, 0 without a CPU map */
	uint64_t events_offset;      /* raw streams: file offset of the first event */
	int64_t events;              /* -1 when unknown before reading (streams) */
	uint64_t trailing_bytes;     /* raw streams: bytes after the last whole event */
};

struct ktrace_darwin_thread {
	uint64_t thread;
	int32_t pid;
	char command[21];            /* NUL-terminated (20 bytes in the file) */
};

struct ktrace_darwin_cpu {
	uint32_t cpu_id;
	uint32_t flags;              /* 0x1: an I/O processor */
	char name[9];
};

/* kdebug CPU numbers (the cores, then the I/O processors of the CPU map) are below this
 * on every Apple machine: an event with a bigger one is damage (ktrace_darwin_next). */
#define KTRACE_DARWIN_MAX_CPUS 1024

struct ktrace_darwin_event {
	uint64_t timestamp;          /* ticks as stored (CPU bits removed for 32-bit) */
	uint64_t ns;                 /* timestamp * numer / denom (saturated) */
	uint64_t arg[4];
	uint64_t thread;             /* arg5 */
	uint32_t debugid;
	uint32_t cpu;
	uint64_t offset;             /* file offset of the kd_buf */
};

struct ktrace_darwin_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	bool raw_v0;                 /* read a headerless RAW_VERSION0 stream */
	uint32_t timebase_numer;     /* both non-zero: override the file's timebase */
	uint32_t timebase_denom;
	bool no_thread_tracking;     /* do not learn thread names from TRACE events */
};

struct ktrace_darwin;

/*
 * Opens the kdebug data of an input (a V3 ktrace file or a legacy raw stream; V0 only
 * with opt->raw_v0). The input must outlive the reader. opt may be NULL. For mapped
 * inputs the thread and CPU maps are loaded and events counted here; for streams they
 * are picked up as the chunks go by.
 */
KTRACE_API int ktrace_darwin_open(struct ktrace_input *in, const struct ktrace_darwin_opts *opt,
		       struct ktrace_darwin **out, struct ktrace_error *err);
KTRACE_API void ktrace_darwin_close(struct ktrace_darwin *k);

KTRACE_API const struct ktrace_darwin_info *ktrace_darwin_get_info(const struct ktrace_darwin *k);
/* The V3 container, or NULL for raw streams. */
KTRACE_API struct ktrace_file *ktrace_darwin_file(const struct ktrace_darwin *k);
KTRACE_API const struct ktrace_darwin_thread *ktrace_darwin_threads(const struct ktrace_darwin *k,
							 size_t *count);
KTRACE_API const struct ktrace_darwin_thread *ktrace_darwin_find_thread(const struct ktrace_darwin *k,
							     uint64_t thread);
KTRACE_API const struct ktrace_darwin_cpu *ktrace_darwin_cpus(const struct ktrace_darwin *k,
						   size_t *count);
/* The name a thread gave itself (TRACE_STRING_THREADNAME events read so far; at most
 * 64 bytes), or NULL. The thread map's command is its process's name. */
KTRACE_API const char *ktrace_darwin_thread_name(const struct ktrace_darwin *k, uint64_t thread);

/*
 * Stackshots: the kcdata chunks (tag 0x8002) of a V3 file, decoded by the kcdata
 * decoder (libkdd's rules; <ktrace/kcdata.h>). Mapped inputs only (0 and -ESPIPE on
 * streams, whose chunks are gone once read past).
 */
struct kcdata_node;

/* What a stackshot holds: its chunk, and the tasks and threads its tree lists. */
struct ktrace_darwin_stackshot {
	uint64_t offset;             /* file offset of the chunk header */
	uint64_t size;               /* bytes of kcdata in the chunk */
	uint32_t begin_type;         /* kcdata begin magic (after decompression) */
	uint64_t tasks;              /* task_snapshots entries */
	uint64_t threads;            /* their thread_snapshots entries (and delta ones) */
};

/* The number of stackshot chunks, or a negative error code (a corrupt container). */
KTRACE_API int ktrace_darwin_stackshot_count(struct ktrace_darwin *k, struct ktrace_error *err);
/* Decodes stackshot i (0-based): fills *info when not NULL and, when root is not NULL,
 * sets *root to its tree (free it with kcdata_node_free). Returns 0, -ENOENT past the
 * last one, or a negative error code (the kcdata does not decode: err says why). */
KTRACE_API int ktrace_darwin_stackshot(struct ktrace_darwin *k, size_t i,
				       struct ktrace_darwin_stackshot *info,
				       struct kcdata_node **root, struct ktrace_error *err);
/* Counts the tasks and threads of a decoded stackshot tree. */
KTRACE_API void ktrace_darwin_stackshot_count_tasks(const struct kcdata_node *root, uint64_t *tasks,
						 uint64_t *threads);

/*
 * The next event in file order: 1 with *ev filled, 0 at the end, or a negative error
 * code (a partial event at the end, a corrupt chunk, an event of a CPU of
 * KTRACE_DARWIN_MAX_CPUS or more: -EBADMSG at its offset; reading ends there). Unless
 * no_thread_tracking, TRACE_DATA_NEWTHREAD/TRACE_STRING_NEWTHREAD and
 * TRACE_STRING_EXEC events update the thread table as they are read.
 */
KTRACE_API int ktrace_darwin_next(struct ktrace_darwin *k, struct ktrace_darwin_event *ev,
		       struct ktrace_error *err);
/* Restarts at the first event (mapped inputs only; -ESPIPE on streams). */
KTRACE_API int ktrace_darwin_rewind(struct ktrace_darwin *k, struct ktrace_error *err);
/* ticks -> nanoseconds with the reader's timebase, exact (128-bit), saturated. */
KTRACE_API uint64_t ktrace_darwin_ns(const struct ktrace_darwin *k, uint64_t ticks);

/*
 * Names. A codes table maps event ids (debugid without the qualifier bits) to names;
 * trace codes files (/usr/share/misc/trace.codes format) hold one "0xDEBUGID NAME" per
 * line, separated by tabs or spaces. Two more kinds of lines name classes and
 * subclasses: "class 0xCC NAME" and "subclass 0xCC 0xSS NAME". Blank lines, lines with
 * value 0 or without a name, and other lines are ignored; names are cut to 255 bytes.
 * Later definitions replace earlier ones.
 *
 * libktrace has a built-in table in this format (every class xnu defines, the
 * subclasses of its public headers, the scheduler, VM, IPC, timer, process, kqueue,
 * file-system, importance, turnstile, kperf, IOKit and socket events, the BSD system
 * calls as BSC_<name> and the Mach traps as MSC_<name>, by number); tables loaded by
 * the caller come before it.
 */
struct ktrace_darwin_codes;

KTRACE_API struct ktrace_darwin_codes *ktrace_darwin_codes_new(void);
KTRACE_API void ktrace_darwin_codes_free(struct ktrace_darwin_codes *c);
/* Returns the number of names added, or a negative error code. */
KTRACE_API int ktrace_darwin_codes_load_file(struct ktrace_darwin_codes *c, const char *path,
				  struct ktrace_error *err);
KTRACE_API int ktrace_darwin_codes_load_buffer(struct ktrace_darwin_codes *c, const char *text,
				    size_t len, struct ktrace_error *err);
KTRACE_API int ktrace_darwin_codes_add(struct ktrace_darwin_codes *c, uint32_t debugid, const char *name,
			    struct ktrace_error *err);
KTRACE_API size_t ktrace_darwin_codes_count(const struct ktrace_darwin_codes *c);
/* The name of debugid (qualifier ignored) in this table only, or NULL. */
KTRACE_API const char *ktrace_darwin_codes_lookup(const struct ktrace_darwin_codes *c, uint32_t debugid);
/* A class's or a subclass's name: from c (may be NULL), else built in; NULL if none. */
KTRACE_API const char *ktrace_darwin_codes_class(const struct ktrace_darwin_codes *c, uint32_t cls);
KTRACE_API const char *ktrace_darwin_codes_subclass(const struct ktrace_darwin_codes *c, uint32_t cls,
						 uint32_t subclass);
/*
 * The display name of debugid: its event name from c (may be NULL), else the built-in
 * one, else "CLASS_SUBCLASS:0xCODE", "CLASS:0xSS:0xCODE" or "0xCC:0xSS:0xCODE" with
 * the class and subclass names known. Returns buf.
 */
KTRACE_API const char *ktrace_darwin_event_name(const struct ktrace_darwin_codes *c, uint32_t debugid,
				     char *buf, size_t len);

/* Built-in names: "MACH", "BSD"... (NULL if unknown). */
KTRACE_API const char *ktrace_darwin_class_name(uint32_t cls);
/* "SCHED", "EXCP_SC"... (NULL if unknown). */
KTRACE_API const char *ktrace_darwin_subclass_name(uint32_t cls, uint32_t subclass);
/* The built-in name of a TRACE-class event ("TRACE_LOST_EVENTS"...), or NULL. */
KTRACE_API const char *ktrace_darwin_trace_event_name(uint32_t debugid);
/* ktrace_darwin_event_name without a codes table. Returns buf. */
KTRACE_API const char *ktrace_darwin_builtin_name(uint32_t debugid, char *buf, size_t len);

/*
 * Filter descriptions as Apple's tools take them: comma-separated C<class>,
 * S<class and subclass, 16 bits> and D<debugid> items (numbers in C syntax: 0x1, 1,
 * 0x010c); a description that starts with a digit is a single class-subclass. Several
 * descriptions add up. An empty filter matches every event. D matches ignore the
 * function qualifier.
 */
struct ktrace_darwin_filter;

KTRACE_API struct ktrace_darwin_filter *ktrace_darwin_filter_new(void);
KTRACE_API void ktrace_darwin_filter_free(struct ktrace_darwin_filter *f);
KTRACE_API int ktrace_darwin_filter_parse(struct ktrace_darwin_filter *f, const char *desc,
			       struct ktrace_error *err);
KTRACE_API bool ktrace_darwin_filter_empty(const struct ktrace_darwin_filter *f);
KTRACE_API bool ktrace_darwin_filter_match(const struct ktrace_darwin_filter *f, uint32_t debugid);

#ifdef __cplusplus
}
#endif
#endif
