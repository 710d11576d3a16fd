/* SPDX-License-Identifier: MIT */
/* Internal state of the tracefs recorder, shared by its source files. */
#ifndef KTRACE_TRACEFS_INT_H
#define KTRACE_TRACEFS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ktrace/error.h>
#include <ktrace/tracefs.h>

/* ---- files ---- */

/* Reads a whole file (tracefs and /proc files have no size): *buf is malloc'ed and
 * NUL-terminated. max: refuse more than this many bytes. */
int tfs_read_file(const char *path, size_t max, char **buf, size_t *len);
/* Writes text to a file (O_TRUNC unless append). 0 or -errno. */
int tfs_write_file(const char *path, const char *text, bool append);
/* path = dir/name (snprintf into a PATH_MAX buffer). */
int tfs_path(char *out, size_t len, const char *dir, const char *name);
/* Reads a small value file, trailing newline removed. */
int tfs_read_value(const char *dir, const char *name, char **out);

/* ---- instances a recording creates (tracefs_leftovers.c) ---- */
/* Notes that this process created instance name / removed it. */
void tfs_instance_note(const char *name);
void tfs_instance_forget(const char *name);

/* ---- events ---- */
struct tfs_event {
	char *system;
	char *name;
	bool selected;
};

struct tfs_events {
	struct tfs_event *ev;     /* sorted by system, then name */
	size_t n;
};

/* Every event that has a format file under dir/events. */
int tfs_list_events(const char *dir, struct tfs_events *out, struct ktrace_error *err);
void tfs_free_events(struct tfs_events *e);
/* Marks the events a specification selects ("all", "sys", "sys:ev", "ev", globs);
 * returns how many it matched. */
size_t tfs_select_events(struct tfs_events *e, const char *spec);

/* ---- per-CPU counters ---- */
struct tfs_counters {
	uint64_t overrun, commit_overrun, dropped, read, entries;
	bool ok;
};

int tfs_read_counters(const char *bufdir, unsigned int cpu, struct tfs_counters *c,
		      char **text);

/* ---- saved state of a buffer (record) ---- */
struct tfs_saved {
	char *tracing_on;
	char *buffer_kb;          /* NULL when not changed */
	char **cpu_kb;            /* per-CPU sizes when they differed ("X") */
	size_t ncpu_kb;
	char *clock;              /* NULL when not changed */
	char *tracer;             /* NULL when not changed */
	char *set_event;          /* saved list, NULL when not changed */
	bool events_changed;
	char *event_pid;          /* NULL when not changed */
	char *event_fork;         /* NULL when not changed */
	char *record_tgid;        /* NULL when not changed */
	char *buffer_percent;     /* NULL when not changed */
	bool tracing_changed;
};

/* ---- capture ---- */
struct tfs_cpu {
	unsigned int cpu;
	int trace_fd;             /* per_cpu/cpuN/trace_pipe_raw */
	int out_fd;               /* temporary file */
	int pipefd[2];
	_Atomic uint64_t bytes;
	pthread_t thread;
	bool thread_started;
	int error;                /* -errno of the first failure */
	const char *error_what;
	struct tfs_counters start, end;
	struct ktrace_cpu_stats stats;
};

struct tfs_buffer {
	char *name;               /* "" for the top buffer */
	char dir[4096];
	bool created;             /* an instance this session made */
	unsigned int page_size;
	char *clock_text;         /* trace_clock file */
	char clock[64];           /* the selected clock */
	struct tfs_cpu *cpus;
	size_t ncpus;
	struct tfs_saved saved;
	bool saved_valid;
	bool selected_sys_enable; /* unused */
};

struct ktrace_tracefs_session {
	bool record;
	char *tracefs;
	bool mounted;
	char *tmpdir;
	struct tfs_buffer *bufs;
	size_t nbufs;
	struct tfs_events events; /* record: every event, the recorded ones selected */
	bool all_formats;         /* extract: save every format */
	bool save_tgids;          /* record: saved_tgids into the file */
	int stop_pipe[2];
	bool started, stopped, restored, flushed;
	unsigned int ncpus_machine;
};

/* Opens the per-CPU readers of b (trace_pipe_raw, temp files, pipes). */
int tfs_capture_open(struct ktrace_tracefs_session *s, struct tfs_buffer *b, struct ktrace_error *err);
/* Starts one thread per CPU. */
int tfs_capture_start(struct ktrace_tracefs_session *s, struct tfs_buffer *b, struct ktrace_error *err);
/* Wakes and joins the threads (s->stop_pipe must have been written). */
void tfs_capture_join(struct tfs_buffer *b);
/* Reads everything left (whole sub-buffers with splice, then the partial ones). */
int tfs_capture_drain(struct tfs_buffer *b, struct tfs_cpu *c, uint64_t limit,
		      struct ktrace_error *err);
/* Closes descriptors (the temp files too when all is true). */
void tfs_capture_close(struct tfs_buffer *b, bool all);
/* Scans the captured sub-buffers: pages and lost-events marks. */
void tfs_capture_scan(struct tfs_buffer *b, struct tfs_cpu *c, unsigned int long_size,
		      bool big_endian);

#endif
