/* SPDX-License-Identifier: MIT */
/*
 * KOFF trace buffer: a flight recorder of fixed-format printf records.
 *
 * Producers (programs linking libktrace) log records into a circular buffer that is a
 * file under /dev/shm mapped shared by every process using it, so that it outlives
 * them. `ktrace dump` prints it, from the file or from a core dump of a producer.
 *
 * Producer side
 *   KOFF_TRACE(mask, id, fmt, ...)   logs one record into the process's default buffer
 *                                    when mask intersects the buffer's event mask
 *   koff_open / koff_log_raw / koff_close and the control calls below
 *
 * The default buffer is the file named by the environment variable KOFF_BUFFER, else
 * /dev/shm/koff-<program name>. It is created on first use with KOFF_ENTRIES entries
 * (default 32768) with tracing enabled and every mask bit set.
 *
 * Reader side
 *   koff_reader_* opens a buffer file, a memory image of one, a snapshot written by
 *   `ktrace dump -o`, or a program file plus a core of it, and returns the records
 *   oldest first, never a torn one.
 *
 * Functions returning int return 0 (or a count) on success and a negative errno code
 * on failure; those returning pointers return NULL and set errno.
 */
#ifndef KTRACE_KOFF_H
#define KTRACE_KOFF_H

#include <ktrace/api.h>

#ifndef __cplusplus
#include <stdatomic.h>
#endif
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/input.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KOFF_DEFAULT_ENTRIES 32768u

struct koff_buffer;
/* Where a crash dump finds the open buffers (its layout is internal). */
struct koff_anchor;
KTRACE_API extern struct koff_anchor koff_crash_anchor;

/* ---- raw calls ---------------------------------------------------------------- */

/* Creates the buffer file at path with nentries records (rounded up to a power of
 * two, at least 16, at most 4194304), or attaches to it when it exists already (its
 * size then stays what it is). nentries == 0 only attaches: NULL with errno ENOENT
 * when there is no such file. */
KTRACE_API struct koff_buffer *koff_open(const char *path, uint32_t nentries);
/* Logs one record with explicit values, whatever the mask and the enabled state.
 * args holds the five argument words (unused ones should be zero). The format must be
 * acceptable to the dumper (see koff_format_check). Returns 0, -EINVAL for a bad
 * format, -EAGAIN when the buffer is reserved but not allocated yet, -EBUSY when the
 * record was dropped because its slot was still being written a whole ring lap
 * earlier. */
KTRACE_API int koff_log_raw(struct koff_buffer *b, uint64_t tid, uint64_t ns, uint64_t id, const char *fmt,
		 const uint64_t args[5]);
KTRACE_API void koff_close(struct koff_buffer *b);

/* ---- opening with options and error messages ------------------------------------ */

struct koff_open_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	uint32_t nentries;       /* 0: attach only */
	uint32_t strtab_bytes;   /* string table size for a new buffer; 0: default 256 KiB,
				  * KOFF_NO_STRTAB: none (formats then only resolve from the
				  * program file in crash dumps) */
	int reserve;             /* create a reserved (not allocated) buffer if missing */
};
#define KOFF_NO_STRTAB UINT32_MAX

KTRACE_API struct koff_buffer *koff_buffer_open(const char *path, const struct koff_open_opts *o,
						struct ktrace_error *err);

/* -b: sizes a buffer that is not allocated yet (creating the reservation when there
 * is no file). Fails with -EBUSY and a clear message when it is allocated. */
KTRACE_API int koff_reserve(const char *path, uint32_t nentries, struct ktrace_error *err);

/* ---- control and counters ------------------------------------------------------ */

/* The current mask (the last one set, whether tracing is enabled or not). */
KTRACE_API uint64_t koff_get_mask(const struct koff_buffer *b);
/* Sets the mask; takes effect at once when tracing is enabled. */
KTRACE_API int koff_set_mask(struct koff_buffer *b, uint64_t mask);
/* Enables tracing with mask (allocating a reserved buffer first). */
KTRACE_API int koff_enable(struct koff_buffer *b, uint64_t mask, struct ktrace_error *err);
/* Enables tracing with the last mask used. */
KTRACE_API int koff_enable_last(struct koff_buffer *b, struct ktrace_error *err);
KTRACE_API int koff_disable(struct koff_buffer *b);
KTRACE_API int koff_is_enabled(const struct koff_buffer *b);
/* Empties the buffer: records logged before are no longer shown. */
KTRACE_API int koff_flush(struct koff_buffer *b);

struct koff_counters {
	uint32_t nentries;       /* ring size (requested size for a reserved buffer) */
	uint32_t allocated;      /* 0 while reserved */
	uint32_t enabled;
	uint64_t mask;
	uint64_t head;           /* next sequence number (a hint) */
	uint64_t base;           /* head at the last flush */
	uint64_t logged;         /* records published since the last flush */
	uint64_t overwritten;    /* at least this many of them overwritten since */
	uint64_t dropped;        /* given up: no free slot found */
	uint64_t rejected;       /* KOFF_TRACE calls with an unusable format */
	uint64_t flushes;
	uint64_t strtab_used, strtab_size, strtab_full;
};
KTRACE_API int koff_get_counters(const struct koff_buffer *b, struct koff_counters *c);
KTRACE_API const char *koff_path(const struct koff_buffer *b);

/* ---- the default buffer ---------------------------------------------------------- */

/* The default buffer, opened (created) on first use; NULL with errno when it cannot be
 * opened, in which case KOFF_TRACE logs nothing in this process. */
KTRACE_API struct koff_buffer *koff_default(void);
/* Writes the default buffer path (KOFF_BUFFER or /dev/shm/koff-<program>) to buf.
 * Returns its length, or -ENAMETOOLONG. */
KTRACE_API int koff_default_path(char *buf, size_t len);

/* Checks that a format is one the dumper accepts. Returns 0 or -EINVAL (with the
 * reason in err). */
KTRACE_API int koff_format_check(const char *fmt, struct ktrace_error *err);

#ifndef __cplusplus
/* The KOFF_TRACE fast path uses C11 atomics and _Generic: C only (C++ programs log with
 * koff_log_raw). */

/* Logs into an explicit buffer through a call-site cache (used by KOFF_TRACE_TO).
 * Applies the mask. */
struct koff_site {
	const char *fmt;
	uint32_t nargs;
	_Atomic uint32_t str;        /* string-table offset, for buffer `owner` */
	_Atomic uint64_t owner;      /* buffer identity the cache belongs to; 0 none */
	_Atomic int state;           /* 0 unchecked, 1 ok, -1 unusable format */
};

/* ---- KOFF_TRACE ---------------------------------------------------------------- */

/* The word the fast path tests: the default buffer's mask while tracing is enabled,
 * all ones before the default buffer is opened, 0 when it cannot be. */
KTRACE_API extern _Atomic(uint64_t) *_Atomic koff__gate;

KTRACE_API void koff__trace(struct koff_site *site, uint64_t mask, uint64_t id, uint64_t a0, uint64_t a1,
		 uint64_t a2, uint64_t a3, uint64_t a4);
KTRACE_API void koff__trace_to(struct koff_buffer *b, struct koff_site *site, uint64_t mask, uint64_t id,
		    uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4);

static inline __attribute__((format(printf, 1, 2), always_inline)) void
koff__printf_check(const char *fmt, ...)
{
	(void)fmt;
}

static inline uint64_t koff__dbl_word(double d)
{
	union { double d; uint64_t w; } u;

	u.d = d;
	return u.w;
}

/* One argument as a record word: integers and pointers by value, floating values by
 * their double bits. */
#define KOFF__W(x) _Generic((x),                                                        \
	float: koff__dbl_word((double)_Generic((x), float: (x), default: 0.0f)),       \
	double: koff__dbl_word(_Generic((x), double: (x), default: 0.0)),              \
	default: (uint64_t)_Generic((x), float: 0, double: 0, default: (x)))

#define KOFF__NARGS(...) KOFF__NARGS_(__VA_ARGS__, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define KOFF__NARGS_(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, n, ...) n
#define KOFF__CAT(a, b) KOFF__CAT_(a, b)
#define KOFF__CAT_(a, b) a##b
#define KOFF__FMT(f, ...) f

/* Words an argument takes once converted as in a call (an array is its address). */
#define KOFF__SZ(x) (sizeof(0 ? (x) : (x)) <= 8 ?                                     \
	(sizeof(0 ? (x) : (x)) + sizeof(void *) - 1) / sizeof(void *) : 99)
#define KOFF__WORDS_0(f) 0, 0, 0, 0, 0
#define KOFF__WORDS_1(f, a) KOFF__W(a), 0, 0, 0, 0
#define KOFF__WORDS_2(f, a, b) KOFF__W(a), KOFF__W(b), 0, 0, 0
#define KOFF__WORDS_3(f, a, b, c) KOFF__W(a), KOFF__W(b), KOFF__W(c), 0, 0
#define KOFF__WORDS_4(f, a, b, c, d) KOFF__W(a), KOFF__W(b), KOFF__W(c), KOFF__W(d), 0
#define KOFF__WORDS_5(f, a, b, c, d, e) KOFF__W(a), KOFF__W(b), KOFF__W(c), KOFF__W(d), KOFF__W(e)
#define KOFF__SIZE_0(f) 0
#define KOFF__SIZE_1(f, a) KOFF__SZ(a)
#define KOFF__SIZE_2(f, a, b) KOFF__SZ(a) + KOFF__SZ(b)
#define KOFF__SIZE_3(f, a, b, c) KOFF__SZ(a) + KOFF__SZ(b) + KOFF__SZ(c)
#define KOFF__SIZE_4(f, a, b, c, d) KOFF__SZ(a) + KOFF__SZ(b) + KOFF__SZ(c) + KOFF__SZ(d)
#define KOFF__SIZE_5(f, a, b, c, d, e) \
	KOFF__SZ(a) + KOFF__SZ(b) + KOFF__SZ(c) + KOFF__SZ(d) + KOFF__SZ(e)

#define KOFF__CHECK(...)                                                                \
	_Static_assert(KOFF__NARGS(__VA_ARGS__) <= 5, "KOFF_TRACE: at most 5 arguments"); \
	_Static_assert((KOFF__CAT(KOFF__SIZE_, KOFF__NARGS(__VA_ARGS__))(__VA_ARGS__)) <= 5, \
		       "KOFF_TRACE: arguments must fit in 5 pointer-size words");       \
	if (0)                                                                          \
		koff__printf_check(__VA_ARGS__)

/*
 * KOFF_TRACE(mask, id, fmt, ...): logs one record into the default buffer when mask
 * intersects the buffer's mask and tracing is enabled: thread id, wall-clock time in
 * nanoseconds, the correlator id, the format (a string literal, checked like printf's)
 * and up to 5 arguments of at most one 8-byte word each. More arguments, or arguments
 * that do not fit, are compile-time errors.
 */
#define KOFF_TRACE(mask, id, ...)                                                       \
	do {                                                                            \
		KOFF__CHECK(__VA_ARGS__);                                               \
		static struct koff_site koff__site_ = {                                 \
			KOFF__FMT(__VA_ARGS__, ~), KOFF__NARGS(__VA_ARGS__), 0, 0, 0 }; \
		uint64_t koff__m_ = (uint64_t)(mask);                                   \
		if (__builtin_expect((atomic_load_explicit(atomic_load_explicit(        \
			&koff__gate, memory_order_relaxed), memory_order_relaxed) & koff__m_) != 0, 0)) \
			koff__trace(&koff__site_, koff__m_, (uint64_t)(id),             \
				    KOFF__CAT(KOFF__WORDS_, KOFF__NARGS(__VA_ARGS__))(__VA_ARGS__)); \
	} while (0)

/* The same into an explicit buffer. */
#define KOFF_TRACE_TO(buf, mask, id, ...)                                               \
	do {                                                                            \
		KOFF__CHECK(__VA_ARGS__);                                               \
		static struct koff_site koff__site_ = {                                 \
			KOFF__FMT(__VA_ARGS__, ~), KOFF__NARGS(__VA_ARGS__), 0, 0, 0 }; \
		koff__trace_to((buf), &koff__site_, (uint64_t)(mask), (uint64_t)(id),   \
			       KOFF__CAT(KOFF__WORDS_, KOFF__NARGS(__VA_ARGS__))(__VA_ARGS__)); \
	} while (0)
#endif /* !__cplusplus */

/* ---- reading buffers ------------------------------------------------------------- */

struct koff_reader;

enum koff_source { KOFF_SRC_FILE, KOFF_SRC_MEMORY, KOFF_SRC_CORE, KOFF_SRC_SNAPSHOT };

struct koff_info {
	enum koff_source source;
	const char *path;          /* buffer file (as recorded in a core or snapshot) */
	uint32_t version;
	uint32_t allocated;        /* 0: reserved, no records */
	uint32_t nentries;
	uint32_t enabled;
	uint64_t mask;
	uint64_t head, base;
	uint64_t dropped, rejected, flushes;
	uint64_t strtab_used, strtab_size;
	uint64_t created_ns;
	uint32_t creator_pid;
	uint32_t core_pid;         /* KOFF_SRC_CORE: the crashed process */
	uint64_t snapshot_ns;      /* KOFF_SRC_SNAPSHOT: when it was taken */
	uint64_t load_bias;        /* KOFF_SRC_CORE: the program's */
	const char *anchor_file;   /* KOFF_SRC_CORE: the file the crash anchor was found
				    * in (the program, or the libktrace.so read) */
	uint64_t anchor_addr;      /* KOFF_SRC_CORE: the anchor's address */
	uint32_t core_buffers;     /* KOFF_SRC_CORE: buffers the anchor lists */
};

struct koff_record {
	uint64_t seq;
	uint64_t ns, tid, id;
	uint64_t fmt_addr;
	uint64_t args[5];
	uint32_t pid, flags;
	const char *fmt;           /* NULL when the format could not be found */
	const char *strs[5];       /* text of %s arguments the dumper could read, by word */
	int fmt_error;             /* the format was found but is not acceptable */
};

/* Complete once koff_reader_next has returned 0: logged = shown + overwritten +
 * unfinished. */
struct koff_counts {
	uint64_t logged;           /* records logged since the last flush */
	uint64_t shown;            /* records returned */
	uint64_t overwritten;      /* overwritten before or while they were read */
	uint64_t unfinished;       /* being written when read */
	uint64_t skipped;          /* sequence numbers in the window nobody claimed */
	uint64_t dropped;          /* the buffer's counter of records given up */
};

/*
 * What koff_reader_open reads: exactly one of path (a buffer file, read with pread so
 * that producers may keep writing it), data (a buffer file image in memory; the caller
 * keeps it alive), input (a buffer file or a snapshot written by `ktrace dump -o`, as a
 * ktrace_input that must outlive the reader), core (a crash dump on disk) or
 * core_image (a crash dump in memory, for fuzzing and tests).
 *
 * Crash dumps. namelist (or namelist_image): the program file; core: an ELF core of it
 * (kernel or gcore). The buffers are found through the crash anchor: in the program
 * itself when it is linked with libktrace.a (its symbol table), else in the
 * libktrace.so the core maps (its NT_FILE note gives the file and the load address;
 * the anchor is in the library's dynamic symbols, so a stripped program or library
 * will do). Opens the default buffer (else the first one listed), or the one buffer
 * names.
 */
struct koff_reader_open_opts {
	size_t sz;                  /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const char *path;
	const void *data;
	size_t len;
	struct ktrace_input *input;
	const char *namelist;       /* crash dump on disk: the program (NULL: none) */
	const char *core;           /* crash dump on disk: its core */
	const void *namelist_image; /* crash dump in memory */
	size_t namelist_len;
	const void *core_image;
	size_t core_len;
	/* crash dumps: */
	const char *sysroot;        /* prefix to the file names the core records */
	const char *lib;            /* libktrace.so to read instead of the one the core
				     * names (it moved); its build id must match */
	const char *buffer;         /* which buffer: its path or base name; NULL: default */
	const void *lib_image;      /* a memory image of that libktrace.so (with
				     * core_image no file is opened) */
	size_t lib_image_len;
};

#define KOFF_CORE_MAX_BUFFERS 8

/* A buffer a core's crash anchor lists. */
struct koff_core_buffer {
	char path[512];             /* as the core's NT_FILE note names the mapping, else
				     * as the producer recorded it */
	uint64_t addr, size;        /* where it was mapped, bytes mapped */
	int is_default;             /* the producer's default buffer */
	int in_core;                /* its first page is in the core */
};

KTRACE_API int koff_reader_open(const struct koff_reader_open_opts *opts, struct koff_reader **out,
				struct ktrace_error *err);
/* The buffers the crash dump of opts (core or core_image) lists, the default one first:
 * fills at most max entries and returns how many there are, or a negative error code. */
KTRACE_API int koff_core_list_buffers(const struct koff_reader_open_opts *opts,
				      struct koff_core_buffer *list, size_t max,
				      struct ktrace_error *err);
KTRACE_API void koff_reader_close(struct koff_reader *r);

KTRACE_API const struct koff_info *koff_reader_info(const struct koff_reader *r);
/* The next record, oldest first: 1 with *rec filled (its strings stay valid until the
 * next call), 0 at the end, or a negative error code. */
KTRACE_API int koff_reader_next(struct koff_reader *r, struct koff_record *rec, struct ktrace_error *err);
KTRACE_API void koff_reader_counts(const struct koff_reader *r, struct koff_counts *c);

/*
 * Formats a record as ktrace(1) shows it: tag (right-aligned, at most 10 columns) in
 * tag[], the formatted text after the tag's colon in rest[]. Formats that could not be
 * found or are not acceptable give a descriptive placeholder. Returns rest's length.
 */
KTRACE_API size_t koff_record_format(const struct koff_record *rec, char tag[11], char *rest,
			  size_t restlen);

/* Writes the records of r (from where it is) to a Darwin ktrace (V3 chunked) file,
 * through a temporary file renamed when complete. */
KTRACE_API int koff_snapshot_write(struct koff_reader *r, const char *path, struct ktrace_error *err);

#ifdef __cplusplus
}
#endif
#endif
