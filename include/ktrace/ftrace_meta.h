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
