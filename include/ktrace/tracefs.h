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
 * buffer size, clock, current tracer, event pid filter, event-fork, record-tgid, and
 * buffer_percent, set to 1 so that the readers wake up early) and
 * ktrace_tracefs_restore puts back every value it changed, and removes the instance it
 * created; ktrace_tracefs_close does it too when it was not done. The library installs
 * no signal handlers: callers stop the session on SIGINT/SIGTERM and then restore.
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
};

struct ktrace_tracefs_extract_opts {
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
 * readers. Tracing is not on yet. On failure everything changed is put back. */
KTRACE_API int ktrace_tracefs_record_open(const struct ktrace_tracefs_record_opts *opts, struct ktrace_tracefs_session **out,
		       struct ktrace_error *err);
/* Extract: the buffers named, read as they are; nothing in tracefs is changed (their
 * content is consumed). */
KTRACE_API int ktrace_tracefs_extract_open(const struct ktrace_tracefs_extract_opts *opts, struct ktrace_tracefs_session **out,
			struct ktrace_error *err);

/* Adds a process to the event pid filter (record; before or after start). */
KTRACE_API int ktrace_tracefs_add_pid(struct ktrace_tracefs_session *s, pid_t pid, struct ktrace_error *err);
/* Record: starts the reader threads, then turns tracing on. */
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

/*
 * Instances that ktrace record created and could not remove (it was killed with
 * SIGKILL): every instance record creates is noted in a registry (/run/ktrace/instances,
 * or $KTRACE_INSTANCE_REGISTRY) until it is removed. A leftover is an instance in
 * tracefs (its mount point) whose recorder is gone. *out is malloc'ed (free it with
 * ktrace_tracefs_leftovers_free); 0 or a negative code.
 */
struct ktrace_tracefs_leftover {
	char *name;        /* instance name */
	int pid;           /* the recorder that created it */
};
KTRACE_API int ktrace_tracefs_leftovers(const char *tracefs, struct ktrace_tracefs_leftover **out,
					size_t *n, struct ktrace_error *err);
KTRACE_API void ktrace_tracefs_leftovers_free(struct ktrace_tracefs_leftover *v, size_t n);
/* Turns tracing and events off in instance name and removes it (and its registry
 * entry). */
KTRACE_API int ktrace_tracefs_remove_leftover(const char *tracefs, const char *name,
					      struct ktrace_error *err);

#ifdef __cplusplus
}
#endif
#endif
