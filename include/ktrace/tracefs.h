/* SPDX-License-Identifier: MIT */
/*
 * Recording kernel events from tracefs into trace.dat files (`ktrace record`, `ktrace
 * extract`).
 *
 * A session captures one or more ring buffers (the top one or tracefs instances): one
 * reader thread per CPU moves whole sub-buffers from per_cpu/cpuN/trace_pipe_raw into a
 * temporary file with splice(2); when the session stops, what is left in the ring
 * buffer (including the last, partly filled sub-buffers) is read out, and
 * ktrace_tracefs_write assembles the trace.dat file: header texts, the formats of the
 * recorded events, kallsyms, printk formats, saved command lines, uname, trace clock,
 * per-CPU statistics (CPUSTAT options) and the CPU data.
 *
 * Only tracefs is needed: it is mounted at /sys/kernel/tracing when it is not mounted
 * (and unmounted again at the end), and nothing outside it is written (trace-cmd writes
 * /proc/sys/kernel/ftrace_enabled, which fails on some systems).
 *
 * A record session changes the tracefs state it needs (tracing_on, enabled events,
 * buffer size, clock, current tracer, event pid filter, the lists and filters that
 * leave the recorder's own threads out (ktrace_tracefs_start), event-fork,
 * record-tgid, and buffer_percent, set to 1 so that the readers wake up early) and
 * ktrace_tracefs_restore puts back every value it changed, and removes the instance it
 * created; ktrace_tracefs_close does it too when it was not done. The library installs
 * no signal handlers: callers stop the session on SIGINT/SIGTERM and then restore.
 * Against SIGKILL, a session on the top buffer writes each value down in a journal
 * before it changes it (see ktrace_tracefs_leftovers): what a killed one changed is
 * named and put back.
 *
 * Reading a buffer consumes its events, and two readers of one buffer split them: a
 * session does not take a buffer in use. Record, stream and start refuse (-EBUSY) a
 * buffer another process reads (its trace_pipe_raw or trace_pipe open) and the top
 * buffer while another session runs there; record and stream also refuse the top
 * buffer while ktrace start's tracing is on it (its state file exists). Extract refuses
 * a buffer another process reads.
 */
#ifndef KTRACE_TRACEFS_H
#define KTRACE_TRACEFS_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ktrace/error.h>
#include <ktrace/tracedat.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ktrace_tracefs_session;

struct ktrace_tracefs_record_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const char *tracefs;             /* tracefs directory; NULL: find it (mount it) */
	const char *instance;            /* NULL: the top buffer; else an instance created
	                                    for the session (it must not exist) and removed */
	const char *const *events;       /* event specifications: "all", "SYSTEM",
	                                    "SYSTEM:EVENT", "EVENT", with fnmatch globs */
	size_t nevents;
	unsigned long buffer_kb;         /* per-CPU ring-buffer size in KiB; 0: keep */
	const char *clock;               /* trace clock; NULL: keep */
	const pid_t *pids;               /* trace only these processes (set_event_pid) */
	size_t npids;
	bool follow_forks;               /* ...and their children (options/event-fork) */
	const char *tmpdir;              /* where per-CPU data is kept until written; NULL:
	                                    the current directory */
	bool no_tgids;                   /* do not record tgids (options/record-tgid) nor
	                                    save saved_tgids (TRACEDAT_OPT_SAVED_TGIDS) */
	/* Per events[i] (each array NULL or nevents long): */
	const char *const *filters;      /* a filter for the events it selects (NULL: none),
	                                    written to their events/S/E/filter (-f) */
	const bool *disable;             /* true: leave the events it selects out (-v) */
	bool stacktrace;                 /* options/stacktrace: a kernel stack after every
	                                    event (-T) */
	const char *cpumask;             /* tracing_cpumask (-M, hex); NULL: keep */
	const char *tracer;              /* current_tracer (-p); NULL: nop. With a tracer,
	                                    events are optional */
	const char *const *options;      /* trace options (-O): "NAME" sets options/NAME,
	                                    "noNAME" clears it */
	size_t noptions;
	unsigned long max_kb;            /* keep about the last max_kb KiB of data per CPU
	                                    (-m; 0: everything) */
	unsigned long sleep_us;          /* longest sleep of a reader between two looks at
	                                    its buffer (-s; 0: one second) */
	bool in_memory;                  /* per-CPU data in memory (memfd) instead of files,
	                                    read back by the live view (ktrace/view.h) */
	bool trace_self;                 /* keep the events of the calling process's own
	                                    threads (false: ktrace_tracefs_start leaves
	                                    them out, see there) */
	bool keep_data;                  /* in_memory: the data read back is kept (in files
	                                    in tmpdir, not memory) for ktrace_tracefs_write
	                                    after stop (ktrace top --record) */
};

struct ktrace_tracefs_extract_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const char *tracefs;             /* NULL: find it (mount it) */
	const char *const *instances;    /* instances to save (they must exist) */
	size_t ninstances;
	bool top;                        /* save the top buffer too (the default when no
	                                    instance is named) */
	bool all;                        /* the top buffer and every instance */
	const char *tmpdir;
};

/* Kernel counters of one CPU (per_cpu/cpuN/stats), differences over the session. */
struct ktrace_cpu_stats {
	unsigned int cpu;
	uint64_t events;                 /* events in the sub-buffers captured (what the
	                                    file holds) */
	uint64_t overrun;                /* events overwritten before they were read */
	uint64_t commit_overrun;         /* events lost while a write was interrupted */
	uint64_t dropped;                /* events dropped, the buffer being full
	                                    (overwrite mode off) */
	uint64_t unread;                 /* "entries": events still in the buffer at the
	                                    end, not in the file (0 unless reading failed,
	                                    or extract stopped reading a busy buffer) */
	uint64_t lost;                   /* overrun + commit_overrun + dropped + unread */
	uint64_t bytes;                  /* bytes of sub-buffers captured */
	uint64_t pages;                  /* sub-buffers captured */
	int64_t lost_marked;             /* sum of the lost-events counts the sub-buffer
	                                    headers carry (-1: some had no count) */
	char *stats_text;                /* the stats file as read at the end */
	uint64_t discarded;              /* -m: bytes of older data dropped to keep under
	                                    the cap */
};

/* Progress figures while recording (sums over every CPU and buffer). */
struct ktrace_progress {
	uint64_t events;
	uint64_t bytes;
	uint64_t lost;
};

/* Finds the tracefs mount point; mounts it at /sys/kernel/tracing when mount_it is true
 * and it is not mounted (*mounted is then set). *dir is malloc'ed. */
KTRACE_API int ktrace_tracefs_find(bool mount_it, char **dir, bool *mounted, struct ktrace_error *err);

/* Record: finds tracefs, creates the instance, saves the state, then configures the
 * buffer (tracing off, buffer emptied, events, size, clock, pids) and opens the per-CPU
 * readers. Tracing is not on yet. On failure everything changed is put back. -EBUSY
 * for a buffer in use (above), -ESTALE when a killed session left the top buffer
 * changed (ktrace_tracefs_remove_leftover with name "" puts it back first). */
KTRACE_API int ktrace_tracefs_record_open(const struct ktrace_tracefs_record_opts *opts, struct ktrace_tracefs_session **out,
		       struct ktrace_error *err);
/* Extract: the buffers named, read as they are; nothing in tracefs is changed (their
 * content is consumed). -EBUSY when another process reads one of them. */
KTRACE_API int ktrace_tracefs_extract_open(const struct ktrace_tracefs_extract_opts *opts, struct ktrace_tracefs_session **out,
			struct ktrace_error *err);

/* Record: starts the reader threads, then turns tracing on. Unless opts' trace_self,
 * the process's threads (the caller's and the readers, read from /proc/self/task now)
 * are left out of the trace first: added to set_event_notrace_pid (and, with a tracer,
 * set_ftrace_notrace_pid) where the kernel has them, and a common_pid filter on the
 * selected sched_switch, sched_wakeup, sched_wakeup_new and sched_waking events (after
 * their filter), which the kernel keeps when the other task is not excluded; all put
 * back by ktrace_tracefs_restore. Threads created after this call, and processes forked
 * before it (a command run under tracing), are traced. */
KTRACE_API int ktrace_tracefs_start(struct ktrace_tracefs_session *s, struct ktrace_error *err);
/* Figures so far (cheap: reads the stats files). */
KTRACE_API void ktrace_tracefs_progress(struct ktrace_tracefs_session *s, struct ktrace_progress *p);
/* Record: turns tracing off, reads what is left, stops the threads, reads the counters.
 * Extract: reads every CPU's data now. */
KTRACE_API int ktrace_tracefs_stop(struct ktrace_tracefs_session *s, struct ktrace_error *err);

KTRACE_API size_t ktrace_tracefs_buffer_count(const struct ktrace_tracefs_session *s);
/* "" for the top buffer. */
KTRACE_API const char *ktrace_tracefs_buffer_name(const struct ktrace_tracefs_session *s, size_t buffer);
KTRACE_API size_t ktrace_tracefs_cpu_count(const struct ktrace_tracefs_session *s, size_t buffer);
KTRACE_API const struct ktrace_cpu_stats *ktrace_tracefs_cpu_stats(const struct ktrace_tracefs_session *s,
							size_t buffer, size_t i);

/* Writes the trace.dat file (after stop). wopts: version and compression (byte order,
 * long and page size are the machine's). */
KTRACE_API int ktrace_tracefs_write(struct ktrace_tracefs_session *s, const char *path,
			 const struct tracedat_write_opts *wopts, struct ktrace_error *err);
/* Puts back every tracefs value the session changed, removes its instance. Idempotent.
 * (The file can still be written afterwards.) */
KTRACE_API int ktrace_tracefs_restore(struct ktrace_tracefs_session *s, struct ktrace_error *err);
/* Stops the threads if needed, restores, unmounts tracefs if the session mounted it,
 * frees. */
KTRACE_API void ktrace_tracefs_close(struct ktrace_tracefs_session *s);

/* ------------------------------------------------------------------ files and names */

/* Reads tracefs file name of a buffer (instance NULL or "": the top one) whole: *text
 * is malloc'ed and NUL-terminated. tracefs NULL: found (not mounted). */
KTRACE_API int ktrace_tracefs_read(const char *tracefs, const char *instance, const char *name,
				   char **text, size_t *len, struct ktrace_error *err);
/* Opens tracefs file name of a buffer (open(2) flags); returns the descriptor or a
 * negative error code. */
KTRACE_API int ktrace_tracefs_open(const char *tracefs, const char *instance, const char *name,
				   int flags, struct ktrace_error *err);

/* The entries of tracefs directory name of a buffer ("options", "instances",
 * "events"...), in directory order; dirs_only: subdirectories only. *names as for
 * ktrace_tracefs_list_events. */
KTRACE_API int ktrace_tracefs_list_dir(const char *tracefs, const char *instance, const char *name,
				       bool dirs_only, char ***names, size_t *n,
				       struct ktrace_error *err);

/*
 * Events as `trace-cmd list -e REGEX` selects them, "system:event" each: regex NULL or
 * "" gives every event of available_events; otherwise "SYS[:EV]" with case-insensitive
 * POSIX basic regular expressions matched anywhere: the events of the systems SYS
 * matches (those EV matches when given), and, without ":" in the text, the events whose
 * own name SYS matches (the ftrace system's included). *names is a malloc'ed array of
 * malloc'ed strings (ktrace_tracefs_free_names). -EINVAL for a bad regular expression.
 */
KTRACE_API int ktrace_tracefs_list_events(const char *tracefs, const char *regex, char ***names,
					  size_t *n, struct ktrace_error *err);
KTRACE_API void ktrace_tracefs_free_names(char **names, size_t n);

/* ------------------------------------------------------------------ state */

/* One system of a buffer: events/SYSTEM/enable ('0', '1', or 'X' when some of its
 * events are enabled, which are then listed), in directory order. */
struct ktrace_tracefs_system_state {
	char *name;
	char enable;
	char **enabled;
	size_t nenabled;
};

/* A per-event setting that is not the default (a filter, a trigger). */
struct ktrace_tracefs_event_setting {
	char *system, *event, *value;
};

struct ktrace_tracefs_option_state {
	char *name;
	bool on;
};

/* What `ktrace stat` shows of a buffer; texts as the files hold them, trailing white
 * space removed; NULL for a file this buffer does not have. */
struct ktrace_tracefs_buffer_state {
	char *name;                      /* "" for the top buffer */
	char *tracing_on;
	char *tracer;
	char *events_enable;             /* events/enable: "0", "1" or "X" */
	struct ktrace_tracefs_system_state *systems;
	size_t nsystems;
	struct ktrace_tracefs_event_setting *filters, *triggers;
	size_t nfilters, ntriggers;
	char *ftrace_filter, *ftrace_notrace, *graph_function, *graph_notrace;
	char *buffer_size_kb;            /* "1410", "X" (per CPU, see cpu_kb), "7 (expanded:
	                                    1408)" */
	char **cpu_kb;                   /* per CPU id 0..ncpu_kb-1 when buffer_size_kb is X */
	size_t ncpu_kb;
	char *buffer_total_size_kb;
	char *clock;                     /* the selected one */
	char *cpumask;
	bool cpumask_all;                /* every CPU of the machine is set */
	char *max_latency;
	char *kprobe_events, *uprobe_events, *synthetic_events;
	char *event_pid, *event_notrace_pid, *ftrace_pid, *ftrace_notrace_pid;
	struct ktrace_tracefs_option_state *options;   /* in directory order */
	size_t noptions;
	char *error_log;
};

struct ktrace_tracefs_state {
	char *tracefs;
	struct ktrace_tracefs_buffer_state *buffers;
	size_t nbuffers;
	char **instances;                /* every instance, in directory order */
	size_t ninstances;
	int stack_tracer;                /* /proc/sys/kernel/stack_tracer_enabled: 0, 1, or
	                                    -1 when it cannot be read */
	unsigned int machine_cpus;
};

/* Reads the state of the buffers named (NULL/"" the top one), or with all of the top
 * one and every instance. tracefs NULL: found (never mounted). */
KTRACE_API int ktrace_tracefs_state_read(const char *tracefs, const char *const *instances, size_t n,
					 bool all, struct ktrace_tracefs_state **out,
					 struct ktrace_error *err);
KTRACE_API void ktrace_tracefs_state_free(struct ktrace_tracefs_state *st);

/* ------------------------------------------------------------------ control */

/*
 * Tracing without a recorder (ktrace start): configures the buffer as record does
 * (opts; instance created when missing, kept when it exists) and turns tracing on. The
 * values changed are saved in state_dir (NULL: $KTRACE_STATE_DIR, else /run/ktrace),
 * one file per buffer, so that ktrace_tracefs_reset with restore puts them back; a
 * second start keeps the first values saved.
 */
KTRACE_API int ktrace_tracefs_start_tracing(const struct ktrace_tracefs_record_opts *opts,
					    const char *state_dir, struct ktrace_error *err);

/* Which buffers ktrace stop/restart/clear/reset act on. */
struct ktrace_tracefs_target {
	const char *tracefs;             /* NULL: find it (mount it for reset) */
	const char *const *instances;    /* named instances (they must exist) */
	size_t ninstances;
	bool top;                        /* the top buffer too (the default without names) */
	bool all;                        /* the top buffer and every instance */
};

/* tracing_on of the buffers: 0 (stop) or 1 (restart). */
KTRACE_API int ktrace_tracefs_set_tracing(const struct ktrace_tracefs_target *t, bool on,
					  struct ktrace_error *err);
/* Empties the buffers (their events and counters). */
KTRACE_API int ktrace_tracefs_clear(const struct ktrace_tracefs_target *t, struct ktrace_error *err);

struct ktrace_tracefs_reset_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	bool restore;                    /* put back what ktrace start saved (buffers it did
	                                    not change are reset) */
	bool remove;                     /* remove the instances named (with all: every one) */
	const char *state_dir;           /* as for ktrace_tracefs_start_tracing */
};

/*
 * Puts the buffers back to the kernel's defaults, as `trace-cmd reset` does and more:
 * tracing off, tracer nop, every event off, event filters, triggers, pid filters and
 * function filters cleared, clock local, every CPU traced, max latency 0, buffers
 * emptied, buffer size and trace options those a new instance gets, error log cleared,
 * then tracing on; for the top buffer, dynamic events (kprobes, uprobes, synthetic)
 * removed. With restore, the values ktrace start saved are written back instead.
 */
KTRACE_API int ktrace_tracefs_reset(const struct ktrace_tracefs_target *t,
				    const struct ktrace_tracefs_reset_opts *o, struct ktrace_error *err);

/* ------------------------------------------------------------------ live reading */

/* A record of an in_memory session (ktrace stream). */
struct ktrace_tracefs_record {
	size_t buffer;                   /* buffer index */
	unsigned int cpu;
	uint64_t ts;                     /* ring-buffer timestamp */
	const void *data;                /* payload (common_type first) */
	uint32_t size;
	uint32_t avail;                  /* bytes readable at data (to the end of its page) */
	long long missed_events;         /* events lost before it: 0, count, -1 unknown */
};

/* Waits until data was captured or timeout_ms passed (a signal ends it too). */
KTRACE_API void ktrace_tracefs_wait(struct ktrace_tracefs_session *s, int timeout_ms);
/*
 * What killed sessions left behind (SIGKILL: nothing can be put back then).
 * - Instances that ktrace record (or stream) created and could not remove: every
 *   instance they create is noted in a registry (/run/ktrace/instances, or
 *   $KTRACE_INSTANCE_REGISTRY) until it is removed. Such a leftover is an instance in
 *   tracefs (its mount point) whose recorder is gone.
 * - The top buffer as a killed record, stream or start left it: before such a session
 *   changes a value of the top buffer it writes the value down in a journal
 *   ($KTRACE_STATE_DIR/top.journal, else /run/ktrace/top.journal, naming its process);
 *   the journal goes once everything is put back. A journal whose process is gone is a
 *   leftover with name "" and what it changed in what.
 * *out is malloc'ed (free it with ktrace_tracefs_leftovers_free); 0 or a negative code.
 */
struct ktrace_tracefs_leftover {
	char *name;        /* instance name; "" for the top buffer */
	int pid;           /* the recorder that created it (changed it) */
	char *what;        /* the top buffer: "a recording (pid 123) that was killed changed
	                      set_event, options/record-tgid, ... (now: 26 events enabled)";
	                      else NULL */
};
KTRACE_API int ktrace_tracefs_leftovers(const char *tracefs, struct ktrace_tracefs_leftover **out,
					size_t *n, struct ktrace_error *err);
KTRACE_API void ktrace_tracefs_leftovers_free(struct ktrace_tracefs_leftover *v, size_t n);
/* An instance (name): turns tracing and events off in it and removes it (and its
 * registry entry). The top buffer (name ""): puts back every value the journal of a
 * killed session noted (as they were before it) and removes the journal; -EBUSY while
 * that session still runs, -ENOENT when there is no journal. */
KTRACE_API int ktrace_tracefs_remove_leftover(const char *tracefs, const char *name,
					      struct ktrace_error *err);

#ifdef __cplusplus
}
#endif
#endif
