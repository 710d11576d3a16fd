/* SPDX-License-Identifier: MIT */
/*
 * What the live view (lib/sinks/report/report_live.c, `ktrace stream`) uses of a tracefs
 * session beside the public API: not exported.
 */
#ifndef KTRACE_TRACEFS_LIVE_H
#define KTRACE_TRACEFS_LIVE_H

#include <stdbool.h>
#include <sys/types.h>

#include <ktrace/error.h>
#include <ktrace/tracefs.h>

struct ktrace_events;

/* Adds a process to the event pid filter (record; before or after start). */
int ktrace_tracefs_add_pid(struct ktrace_tracefs_session *s, pid_t pid, struct ktrace_error *err);

/* The next record of an in_memory session, merged in timestamp order over the data
 * captured so far: 1 with *rec (valid until the next call), 0 when none is waiting. */
int ktrace_tracefs_next_record(struct ktrace_tracefs_session *s,
			       const struct ktrace_tracefs_record **rec, struct ktrace_error *err);

/* Ordered (before the first record is read): ktrace_tracefs_next_record holds a record
 * back until every CPU's data up to its time has been captured, where the trace clock
 * is one user space reads ("mono", "mono_raw", "boot", "tai"; else not ordered). */
void ktrace_tracefs_set_ordered(struct ktrace_tracefs_session *s);

/* *to: the time before which every CPU's records have been captured, of an ordered
 * session once the records returned before it are read (UINT64_MAX: not ordered). */
int ktrace_tracefs_captured_to(struct ktrace_tracefs_session *s, uint64_t *to,
			       struct ktrace_error *err);

/* Loads into an event registry (ktrace/event.h) what formatting the session's records
 * needs: header_page, the formats of the recorded events and of the ftrace system,
 * kallsyms and printk formats (the saved command lines: ktrace_tracefs_load_cmdlines,
 * when a task is met, as the kernel updates them while tracing). */
int ktrace_tracefs_load_events(struct ktrace_tracefs_session *s, struct ktrace_events *evs,
			       struct ktrace_error *err);

/* Adds the saved command lines tracefs has now (processes started since). */
int ktrace_tracefs_load_cmdlines(struct ktrace_tracefs_session *s, struct ktrace_events *evs,
				 struct ktrace_error *err);

/* Whether tid is one of the threads the session left out of the trace (its own: the
 * kernel still records their switches to and wakeups of traced tasks). */
bool ktrace_tracefs_own_thread(const struct ktrace_tracefs_session *s, int tid);

/* The trace clock of the session's first buffer ("local"...). */
const char *ktrace_tracefs_clock(const struct ktrace_tracefs_session *s);

#endif
