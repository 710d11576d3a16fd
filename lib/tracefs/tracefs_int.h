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
/* snprintf for paths: 0, or -ENAMETOOLONG when it did not fit. */
int tfs_pathf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reads a small value file, trailing newline removed. */
int tfs_read_value(const char *dir, const char *name, char **out);
/* dir/name written or read (tfs_read_value), with a message naming the file. */
int tfs_dir_write(const char *dir, const char *name, const char *value, bool append,
		  struct ktrace_error *err);
int tfs_dir_read(const char *dir, const char *name, char **out, struct ktrace_error *err);
/* Sorted names of the subdirectories of path (dot entries skipped); directory order
 * when sorted is false. */
int tfs_list_dirs(const char *path, bool sorted, char ***out, size_t *n);
void tfs_free_names(char **names, size_t n);
/* The top buffer's directory or an instance's (checked to exist). */
int tfs_buffer_dir(const char *tracefs, const char *instance, char *out, size_t len,
		   struct ktrace_error *err);

/* ---- instances a recording creates (tracefs_leftovers.c) ---- */
/* Notes that this process created instance name / removed it. */
void tfs_instance_note(const char *name);
void tfs_instance_forget(const char *name);
/* The start time of process pid (field 22 of /proc/PID/stat), 0 when it is gone. */
unsigned long long tfs_process_start(long pid);

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
/* Sets the selected flag (to value) of the events a specification matches ("all",
 * "sys", "sys:ev", "ev", globs; the ftrace system never); returns how many. */
size_t tfs_select_events(struct tfs_events *e, const char *spec, bool value);
/* Whether event i matches spec (as tfs_select_events). */
bool tfs_event_matches(const struct tfs_events *e, size_t i, const char *spec);
/* " (did you mean sched:sched_switch, sched:sched_wakeup?)" for a specification that
 * matches nothing: the closest event and system names; "" when none is close. */
void tfs_suggest_text(const struct tfs_events *e, const char *spec, char *out, size_t len);

/* ---- per-CPU counters ---- */
struct tfs_counters {
	uint64_t overrun, commit_overrun, dropped, read, entries;
	bool ok;
};

int tfs_read_counters(const char *bufdir, unsigned int cpu, struct tfs_counters *c,
		      char **text);

/* ---- putting a buffer back: writes in order ---- */
struct tfs_step {
	char *file;               /* relative to the buffer's directory */
	char *value;
	bool append;
};

struct tfs_plan {
	struct tfs_step *v;
	size_t n;
	bool remove;              /* then remove the instance (it was created) */
};

int tfs_plan_add(struct tfs_plan *p, const char *file, const char *value, bool append);
void tfs_plan_free(struct tfs_plan *p);
/* Does every step (on after a failure; the first error is returned). */
int tfs_plan_run(const char *dir, const struct tfs_plan *p, struct ktrace_error *err);
/* The state file of a buffer ("" / NULL: the top one) in state_dir (NULL:
 * $KTRACE_STATE_DIR, else /run/ktrace). */
int tfs_state_path(const char *state_dir, const char *instance, char *out, size_t len,
		   struct ktrace_error *err);
/* Writes p as the state file path (merged into an existing one unless p removes the
 * instance: the values saved first stay). */
int tfs_state_save(const char *path, const struct tfs_plan *p, struct ktrace_error *err);
/* -ENOENT (err untouched) when there is no such file. */
int tfs_state_load(const char *path, struct tfs_plan *p, struct ktrace_error *err);
/* A value as state files and journals hold it (backslash, new line and tab written
 * \\, \n, \t; malloc'ed, NULL without memory), and back in place. */
char *tfs_escape(const char *s);
void tfs_unescape(char *s);

/* A file and the value it had. */
struct tfs_kv {
	char *file;
	char *value;
};

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
	struct tfs_kv *extra;     /* filters, options, cpumask: put back last first */
	size_t nextra;
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
	/* -m: the data rotates between two files of about max/2 each */
	int old_fd;               /* the previous half, or -1 */
	uint64_t old_bytes;
	uint64_t discarded;       /* bytes dropped by rotating */
	/* in_memory: what the live reader has consumed (holes punched behind it) */
	_Atomic uint64_t consumed;
	/* in_memory, a clock user space reads too: every record of this CPU stamped before
	 * this time has been captured (0: not known yet) */
	_Atomic uint64_t seen_to;
};

struct tfs_buffer {
	char *name;               /* "" for the top buffer */
	int journal_fd;           /* the top buffer's journal (tracefs_journal.c), or -1 */
	char *journal_path;
	char dir[4096];
	bool created;             /* an instance this session made */
	unsigned int page_size;
	char *header_page;        /* its events/header_page (its sub-buffer size), or NULL */
	size_t header_page_len;
	char *clock_text;         /* trace_clock file */
	char clock[64];           /* the selected clock */
	int clock_id;             /* capture: its clockid_t for clock_gettime, or -1 */
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
	/* reader behaviour */
	int idle_wait_ms;         /* longest sleep of a reader thread */
	uint64_t half_bytes;      /* -m: rotate a CPU's data at this size (0: never) */
	bool in_memory;           /* memfd storage, live reading */
	bool keep_data;           /* in_memory: files in tmpdir, read back but kept */
	int data_pipe[2];         /* in_memory: a byte each time data was captured */
	struct tfs_live *live;    /* in_memory: the live reader */
	bool live_ordered;        /* it holds records back (ktrace_tracefs_set_ordered) */
	bool keep_state;          /* start: nothing is put back at close */
	bool exclude_self;        /* record, stream: the process's threads left out */
	int *self;                /* then: their ids, sorted */
	size_t nself;
	bool function_tracer;     /* a tracer other than nop (set_ftrace_notrace_pid) */
};

/* ---- what a session changed, put back (tracefs_session.c) ---- */
/* The writes that put back what b's saved values describe, in order. */
int tfs_restore_plan(struct tfs_buffer *b, struct tfs_plan *p);
/* Does them (b->saved_valid is cleared); carries on after errors, the first is kept. */
int tfs_restore_buffer(struct tfs_buffer *b, struct ktrace_error *err);
void tfs_free_saved(struct tfs_saved *sv);

/* ---- the journal of a session on the top buffer (tracefs_journal.c) ----
 * Before a record, stream or start session changes a value of the top buffer, it
 * appends the value to a journal file (<state dir>/top.journal: $KTRACE_STATE_DIR, else
 * /run/ktrace), which names its owner (pid and start time): a second session finds the
 * buffer taken, and when the owner was killed (SIGKILL), what it changed can be named
 * and put back. The file goes when the session has put everything back. */
/* Takes the journal for b (the top buffer): 0; -EBUSY when a running process holds it,
 * -ESTALE when a killed one left it (err says which, and what to do), or an error. */
int tfs_journal_claim(struct tfs_buffer *b, const char *tracefs, bool recorder,
		      struct ktrace_error *err);
/* Notes the value of file before it changes ("tracing_on", "set_event"...; kind 's'),
 * an extra file ('x', put back last first) or a CPU's buffer size ('c', file the CPU
 * number). No-op without a journal. */
int tfs_journal_note(struct tfs_buffer *b, char kind, const char *file, const char *value,
		     struct ktrace_error *err);
/* Removes b's journal (everything was put back), closes it. */
void tfs_journal_release(struct tfs_buffer *b);
/* A killed session's journal as a leftover (name "", what it changed): 1, 0 when there
 * is none (or its session runs), or an error. */
int tfs_journal_leftover(const char *tracefs, struct ktrace_tracefs_leftover *lo,
			 struct ktrace_error *err);
/* Puts back what a killed session's journal noted, in the top buffer of tracefs, and
 * removes the journal (-EBUSY while its session runs, -ENOENT without one). */
int tfs_journal_undo(const char *tracefs, struct ktrace_error *err);
/* Removes a killed session's journal without putting anything back (the top buffer was
 * reset). */
void tfs_journal_forget(void);
/* Whether another process holds the buffer at dir (its pipes open for reading, or for
 * the top buffer a running session's journal): -EBUSY with who in err, else 0. */
int tfs_buffer_busy(const char *tracefs, const char *name, const char *dir,
		    struct ktrace_error *err);

/* The traced kernel's long size, from events/header_page (its commit field). */
unsigned int tfs_kernel_long(const char *tracefs);

/* tracefs_live.c */
void tfs_live_free(struct tfs_live *l);

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

#include "tracefs/tracefs_live.h"

#endif
