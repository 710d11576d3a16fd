/* SPDX-License-Identifier: MIT */
/*
 * The event stream: one API over every input ktrace reads, for every output (export,
 * SQL, timelines, your own tools).
 *
 * ktrace_stream_open takes one or more files of any supported format (detected by
 * content): trace-cmd trace.dat (every buffer and instance, several files), raw ftrace
 * ring-buffer pages (with the tracefs events/ directory for names and fields when
 * given), Darwin ktrace files and kdebug raw streams, and KOFF buffers, snapshots and
 * core files. ktrace_stream_next then hands out their records merged in time order,
 * one at a time, without formatting any text. Each record has its time in
 * nanoseconds, CPU, thread and process ids where known, the thread's name, the event's
 * system and name, and its fields by name with their types. Lost events come through
 * as records of kind KTRACE_STREAM_LOST with their count. The stream also gives what
 * a trace says about itself (machine, clock, CPUs, buffers) and its thread and process
 * tables, and applies trace-cmd's -F filters and a CPU selection itself.
 *
 * The line `ktrace report` prints for a record (byte for byte trace-cmd's for
 * trace.dat) is one call away: ktrace_stream_format.
 *
 * Memory stays bounded by pages and chunks, not by the size of the inputs. A stream is
 * used by one thread at a time; strings and records it hands out stay valid until the
 * next call of ktrace_stream_next (metadata and task tables, and the records' system
 * and name strings, until ktrace_stream_close).
 * Errors follow <ktrace/error.h>: a negative errno code, and err filled with a message,
 * the input offset and (ktrace_stream_error_path) the file concerned.
 */
#ifndef KTRACE_STREAM_H
#define KTRACE_STREAM_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/detect.h>
#include <ktrace/error.h>
#include <ktrace/event.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ktrace_stream;

/* One record filter in libtraceevent's syntax (trace-cmd report -F); negative: given
 * after -v (records that match are dropped). */
struct ktrace_stream_filter {
	const char *text;
	bool negative;
};

/* --pid PID or --comm NAME: trace-cmd turns them into one filter of the first file. */
struct ktrace_stream_task {
	const char *name;             /* a pid, or a comm */
	bool comm;
};

/* Options of ktrace_stream_open (declare them with KTRACE_OPTS: see ktrace/api.h). */
struct ktrace_stream_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const struct ktrace_stream_filter *filters;  /* trace.dat: applied to every file */
	size_t nfilters;
	const struct ktrace_stream_task *tasks;      /* trace.dat: --pid/--comm */
	size_t ntasks;
	const int *cpus;              /* keep only these CPUs; NULL: all */
	size_t ncpus;
	const char *events_dir;       /* raw pages: a tracefs "events" directory (or a copy)
				       * for event names and fields; NULL: ids only */
	const char *codes_file;       /* Darwin: trace.codes names added to the built-in ones */
	unsigned flags;               /* KTRACE_STREAM_* below */
	const char *const *names;     /* NULL, or a name per path to show in errors, damaged
				       * places and info instead of the path opened (a copy of
				       * standard input opened as /proc/self/fd/N: "-"); the
				       * caller's strings, kept until ktrace_stream_close */
	/* trace.dat: oddities that lose nothing, as trace-cmd warns of them on stderr (a
	 * --comm name not in the saved cmdlines); NULL: not told (the library prints
	 * nothing) */
	void (*warn)(void *arg, const char *message);
	void *warn_arg;
};

enum {
	KTRACE_STREAM_NO_LOST = 1 << 0,     /* no KTRACE_STREAM_LOST records */
	KTRACE_STREAM_RAW_TS = 1 << 1,      /* trace.dat: timestamps as recorded (no
					     * offsets, tsc2nsec or date corrections) */
	/* Read the inputs on a thread of the stream's own, ahead of the caller, which
	 * then gets copies of the records: records, fields and ktrace_stream_sched work
	 * as without it, ktrace_stream_format and _format_text do not (-ENOTSUP). For
	 * programs that spend as much time on each record as reading it takes (export):
	 * the two run on two CPUs. */
	KTRACE_STREAM_READAHEAD = 1 << 2,
};

/* What kind of record. */
enum ktrace_stream_kind {
	KTRACE_STREAM_EVENT = 0,
	KTRACE_STREAM_LOST = 1,       /* events lost before the next record of this CPU */
};

/* One record, as ktrace_stream_next hands it out (valid until the next call). */
struct ktrace_stream_record {
	enum ktrace_stream_kind kind;
	uint64_t ts;                  /* nanoseconds, in the trace's clock */
	int32_t cpu;                  /* -1: unknown */
	int64_t tid;                  /* thread id; -1: unknown */
	int64_t pid;                  /* process (thread group) id; -1: unknown */
	const char *comm;             /* the thread's name as known at this record; "" unknown */
	const char *system;           /* "sched", a kdebug class name, "koff"; "" unknown */
	const char *name;             /* "sched_switch", a kdebug code name, a KOFF tag...
				       * system and name live until ktrace_stream_close, and
				       * the records of one event of an input have the same
				       * two pointers (a table keyed by them needs no string
				       * compare) */
	uint32_t event_id;            /* the format's own id (ftrace type, kdebug debugid...) */
	uint32_t source;              /* the input's index in ktrace_stream_open's list */
	uint32_t buffer;              /* the buffer (trace.dat instance) within the input */
	uint64_t lost;                /* KTRACE_STREAM_LOST: how many (0: unknown) */
	uint64_t offset;              /* where the record is in its file (in decompressed
				       * data for compressed trace.dat) */
};

/*
 * Opens paths[0..npaths) (any supported format each) as one stream. opts may be NULL.
 * Returns 0 with *out set, or a negative code with err set and *err_path (when err_path
 * is not NULL) the input concerned, or NULL when the error concerns no input (a filter
 * that does not parse gives -EINVAL with libtraceevent's message). *err_path is the
 * caller's own string (paths[i], or opts' events_dir or codes_file), never memory of
 * the stream, which is gone when this returns.
 */
KTRACE_API int ktrace_stream_open(struct ktrace_stream **out, const char *const *paths,
				  size_t npaths, const struct ktrace_stream_opts *opts,
				  struct ktrace_error *err, const char **err_path);
KTRACE_API void ktrace_stream_close(struct ktrace_stream *s);

/*
 * How many threads a sink whose threads each open paths[0..npaths) again should start
 * (the Perfetto export's open_stream, the timeline's line threads): 1 when an input is
 * not a regular file ("-", a FIFO...); want when it is > 0; else one per CPU this
 * process may run on, at most cap, for inputs of 16 MiB or more together (a smaller
 * trace is done before another thread has opened them), else 1.
 */
KTRACE_API unsigned ktrace_stream_threads(const char *const *paths, size_t npaths, unsigned want,
					  unsigned cap);

/*
 * The next record in time order: 1 with *rec set, 0 at the end of every input, or a
 * negative code with err set when an input turns out truncated or corrupt (the records
 * before were good; ktrace_stream_error_path names the file). After an error the
 * stream has nothing more. A trace.dat input reads past its damaged places (each told
 * to the function of ktrace_error_damage_handler, <ktrace/error.h>): its error comes
 * once every record that could be read, of every input, came out.
 */
KTRACE_API int ktrace_stream_next(struct ktrace_stream *s, const struct ktrace_stream_record **rec,
				  struct ktrace_error *err);
/* The path of the input the last error concerns, or NULL: the caller's own string given
 * to ktrace_stream_open (paths[i], events_dir, codes_file), which stays valid after
 * ktrace_stream_close as long as the caller keeps it. */
KTRACE_API const char *ktrace_stream_error_path(const struct ktrace_stream *s);

/*
 * The fields of the current record (common fields such as common_pid left out), typed
 * as <ktrace/event.h> describes (struct ktrace_event_value: numbers, strings, arrays,
 * bytes; ktrace_event_array_at reads an array's elements). Darwin events have
 * debugid, class, subclass, code, func and arg1..arg4 (the stackshot records of a V3
 * file, system "kcdata", have offset, size, tasks, threads, error); KOFF records have tag, text,
 * correlator and their argument words.
 */
KTRACE_API size_t ktrace_stream_field_count(struct ktrace_stream *s);
/* Field i of the current record: 0, or -ENOENT past the last one. */
KTRACE_API int ktrace_stream_field(struct ktrace_stream *s, size_t i, struct ktrace_event_value *v);
/* Every field at once, in v[0..min(n, max)): returns n, the number of fields (as
 * ktrace_stream_field_count). One call a record instead of one a field. */
KTRACE_API size_t ktrace_stream_fields(struct ktrace_stream *s, struct ktrace_event_value *v,
				       size_t max);
/* The field called name: 0, or -ENOENT. */
KTRACE_API int ktrace_stream_field_by_name(struct ktrace_stream *s, const char *name,
					   struct ktrace_event_value *v);

/*
 * The format of the current record's event, for trace.dat and raw pages read with
 * their formats (<ktrace/event.h>: its fields, print fmt, system, name and id), or
 * NULL (other formats, lost-event records, events without a format, streams opened
 * with KTRACE_STREAM_READAHEAD). Valid until ktrace_stream_close.
 */
KTRACE_API const struct ktrace_event *ktrace_stream_event(struct ktrace_stream *s);

/*
 * The line `ktrace report` prints for the current record, without its newline: for
 * trace.dat exactly trace-cmd report's line (comm-pid, CPU, time, event name, text) as
 * long as every record is formatted in order (trace-cmd learns names and call stacks
 * from earlier records, as this does); for the other formats the line of their report.
 * Writes at most len bytes with a NUL (when len > 0) and returns the length of the
 * whole line (as snprintf), or a negative code. For a LOST record, the line trace-cmd
 * prints before the next record ("CPU:N [123 EVENTS DROPPED]").
 */
KTRACE_API int ktrace_stream_format(struct ktrace_stream *s, char *buf, size_t len);
/* Only the event's text (the part after the name column). */
KTRACE_API int ktrace_stream_format_text(struct ktrace_stream *s, char *buf, size_t len);

/* ---- scheduling: the context switches and wakeups of every format, in one shape ---- */

enum ktrace_stream_sched_kind {
	KTRACE_STREAM_SCHED_NONE = 0,   /* the record is neither */
	KTRACE_STREAM_SCHED_SWITCH,     /* sched:sched_switch; Darwin MACH_SCHED and
					 * MACH_STACK_HANDOFF */
	KTRACE_STREAM_SCHED_WAKEUP,     /* sched:sched_wakeup, sched_waking, sched_wakeup_new;
					 * Darwin MACH_MAKE_RUNNABLE */
};

#define KTRACE_STREAM_COMM_MAX 64

/* What a switch or a wakeup says. Threads not named by the record (Darwin's next
 * thread, the thread a Darwin wakeup makes runnable) are named from the thread map. */
struct ktrace_stream_sched {
	enum ktrace_stream_sched_kind kind;
	/* SWITCH: the thread that leaves the CPU */
	int64_t prev_tid;
	int32_t prev_prio;
	int64_t prev_state;           /* the kernel's value (Darwin: 0 when the thread was
				       * preempted, quantum expiry and yield included, 1 when
				       * it blocked) */
	char prev_state_text[24];     /* as trace-cmd's sched plugin prints it: S, D, T, t,
				       * Z, X, x, W joined by '|', R for none */
	char prev_comm[KTRACE_STREAM_COMM_MAX];
	/* SWITCH: the thread that runs next; WAKEUP: the thread woken */
	int64_t next_tid;
	int32_t next_prio;
	char next_comm[KTRACE_STREAM_COMM_MAX];
	int32_t target_cpu;           /* WAKEUP: the CPU it is to run on; -1 unknown */
};

/*
 * The scheduling meaning of the current record: 1 with *out filled for a context switch
 * or a wakeup, 0 (kind NONE) for any other record. Fields the record lacks stay 0 (""
 * for names; a switch or wakeup needs at least its thread ids).
 */
KTRACE_API int ktrace_stream_sched(struct ktrace_stream *s, struct ktrace_stream_sched *out);

/* ---- what the inputs say about themselves ---- */

struct ktrace_stream_source {
	const char *path;
	enum ktrace_format format;
	const char *sysname, *release, *version, *machine;   /* the traced system ("" unknown) */
	const char *clock;            /* "local", "mono", "mach_absolute_time"... ("" unknown) */
	uint32_t cpus;                /* CPUs the trace covers (0 unknown) */
	size_t nbuffers;              /* trace.dat: buffers (top first, then instances) */
	const char *const *buffer_names;   /* nbuffers names ("" for the top buffer) */
	const char *nodename;         /* the traced system's host name ("" unknown) */
};

KTRACE_API size_t ktrace_stream_source_count(const struct ktrace_stream *s);
KTRACE_API const struct ktrace_stream_source *ktrace_stream_source(const struct ktrace_stream *s,
								   size_t i);

/* A thread the inputs name (saved cmdlines and tgids, Darwin thread maps), known when
 * the stream opens; names learnt later come with the records' comm. */
struct ktrace_stream_task_info {
	uint32_t source;              /* the input it comes from */
	int64_t tid;
	int64_t pid;                  /* -1: unknown */
	const char *comm;             /* "" unknown */
};

KTRACE_API size_t ktrace_stream_task_count(const struct ktrace_stream *s);
KTRACE_API const struct ktrace_stream_task_info *ktrace_stream_task(const struct ktrace_stream *s,
								   size_t i);

#ifdef __cplusplus
}
#endif
#endif
