/* SPDX-License-Identifier: MIT */
/*
 * Listings of what an event registry (ktrace/ftrace_event.h) learnt from a trace's
 * metadata, in the order libtraceevent keeps them: `trace-cmd report -f` prints the
 * functions, `-P` the printk formats.
 */
#ifndef KTRACE_FTRACE_META_H
#define KTRACE_FTRACE_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/ftrace_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* kallsyms functions kept (absolute symbols and ARM '$' symbols are not), sorted by
 * address as libtraceevent sorts them. */
size_t ktrace_events_function_count(struct ktrace_events *evs);
/* The i-th function: address, name, module (NULL for the kernel itself). */
void ktrace_events_function_at(struct ktrace_events *evs, size_t i, uint64_t *addr,
			       const char **name, const char **mod);

/* printk formats, sorted by address, as stored (quotes and a final "\n" removed). */
size_t ktrace_events_printk_count(struct ktrace_events *evs);
void ktrace_events_printk_at(struct ktrace_events *evs, size_t i, uint64_t *addr,
			     const char **fmt);

/*
 * trace-cmd's block-trace hack: when the ftrace "power", else "kmem_free", else
 * "user_stack" event exists (with the usual common fields), libtracecmd adds an ftrace
 * event "blktrace" with the next id, printed as its pid field. trace-cmd report does it
 * once the file is open (so -E does not list it, but -F patterns and records see it).
 * Returns 1 when added, 0 when not (no such event, or the id is taken).
 */
int ktrace_events_add_blktrace(struct ktrace_events *evs);

/* The pids the saved cmdlines give the name comm, in libtraceevent's search order
 * (tep_data_pid_from_comm); at most max of them in pids. Returns how many there are. */
size_t ktrace_events_comm_pids(struct ktrace_events *evs, const char *comm, int *pids, size_t max);

/*
 * Whether formatting a record of ev reads or changes state the registry keeps from one
 * record to the next (comm names learnt by the sched plugins, the function plugin's call
 * stacks, function-graph look-ahead, a bprint or field flag set by an earlier record):
 * such records must be formatted in output order by one registry. Records of the other
 * events give the same text from any registry loaded with the same metadata, in any
 * order, which lets `ktrace report` format them on several threads. raw: for -R output.
 */
bool ktrace_event_ordered(const struct ktrace_event *ev, bool raw);

/* The end of ev's last fixed-size field: formatting a record of ev may read that many
 * bytes from its start even when the record is shorter (a stack trace records fewer
 * frames than its caller[] array holds). */
uint32_t ktrace_event_fixed_size(const struct ktrace_event *ev);

#ifdef __cplusplus
}
#endif
#endif
