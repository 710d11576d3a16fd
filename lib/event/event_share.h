/* SPDX-License-Identifier: MIT */
/*
 * What other library components may do with an event registry beyond the public API
 * (<ktrace/event.h>): share what is immutable once loaded between registries of the
 * same trace (the engine's worker threads load one registry each).
 */
#ifndef KTRACE_EVENT_SHARE_H
#define KTRACE_EVENT_SHARE_H

#include <ktrace/event.h>

#include "common/numspan.h"

/* Whether printing a record registers the comms its sched plugin names (as in
 * libtraceevent: the default). A reader that registers every record's
 * (ktrace_event_learn_comms) as it reads it turns it off, or a record it prints would
 * register them twice: before the first lookup both copies are kept, and the lookup
 * then finds another of the pid's names than trace-cmd. */
void ftev_print_learns(struct ktrace_events *evs, bool learns);

/* Puts evs's symbol table in address order now (it keeps behaving as before: names
 * resolve in kallsyms order until its first function lookup, as in libtraceevent),
 * so that other registries can share it. Call it from the thread that owns evs, before
 * any ftev_share_symbols(..., evs). */
void ftev_prepare_share(struct ktrace_events *evs);

/*
 * dst, which has no kallsyms yet, uses src's symbol table instead of a copy of its own:
 * src must have been prepared, outlive dst and not be given kallsyms again; the table is
 * only read from then on, so dst may be used in another thread than src (a deferred
 * table is made under src's lock by the first registry that needs it). 0, or -EINVAL.
 */
int ftev_share_symbols(struct ktrace_events *dst, const struct ktrace_events *src);

/* Keeps kallsyms text (valid as long as evs) to parse on first need: a trace whose
 * records never name a kernel function is read without making the table. Lines that do
 * not parse end the table, as ktrace_event_parse_kallsyms does (without the error). */
void ftev_defer_kallsyms(struct ktrace_events *evs, const char *text, size_t len);

/* Keeps the traced kernel's BTF (trace-cmd 3.4's BTF section; valid as long as evs) to
 * parse when a function-graph entry first shows arguments: they are then named and
 * typed as trace-cmd 3.4 prints them (event/event_btf.c). */
void ftev_defer_btf(struct ktrace_events *evs, const void *data, size_t len);

/* Field i of ev when ktrace_event_field_value reads it as a number from where it lies
 * (a record that holds it): FTEV_FIELD_SIGNED or _UNSIGNED with its offset and size (1,
 * 2, 4 or 8), else FTEV_FIELD_OTHER (strings, arrays, other sizes; or no field i). */
enum { FTEV_FIELD_OTHER, FTEV_FIELD_SIGNED, FTEV_FIELD_UNSIGNED };
int ftev_field_class(const struct ktrace_event *ev, size_t i, uint32_t *offset, uint32_t *size);

/* Where records of evs keep their event id, once a record was looked up
 * (ktrace_event_record_event): 0 with *offset when it is a 2-byte field there, as on
 * every kernel; -1 when not known (yet). */
int ftev_type_field(const struct ktrace_events *evs, uint32_t *offset);

/* ktrace_event_format (no flags) that notes in nums the numbers it writes
 * (common/numspan.h; at: the offset in buf) and leaves '0's in their place: the caller
 * has their values. A number that did not fit in buf, or past KT_NUMS_MAX, is not noted
 * and written as digits. */
size_t ftev_format_nums(struct ktrace_events *evs, const struct ktrace_record *rec, char *buf,
			size_t cap, struct kt_nums *nums);

/* Whether the text of ev's records (what follows the prefix) depends on the record's
 * bytes alone (besides what evs holds once loaded: formats, symbols, printk formats):
 * no print handler that keeps state from one record to the next (the function
 * plugin's call depth, the function graph's look at the next record), reads the
 * record's time or CPU, or registers a comm while printing (ftev_print_learns on). A
 * sink may then keep the text it made for a record's bytes and use it again. */
bool ftev_text_from_record(const struct ktrace_events *evs, const struct ktrace_event *ev);

/* The bytes of evs that a registry sharing its symbols does not need. */
size_t ftev_shared_bytes(const struct ktrace_events *evs);
/* What evs holds with its symbols, a kallsyms not parsed yet counted as it will be
 * (another registry of the same file holds as much again). */
size_t ftev_memory_with_syms(struct ktrace_events *evs);

/* ---- for the engine and the report sink only (not exported) ---- */

/* Bytes the registry holds (formats, compiled print fmts, symbols, comms): about what
 * another registry loaded with the same metadata costs. */
size_t ktrace_event_memory(const struct ktrace_events *evs);

/*
 * Teaches the registry the comms a record names, exactly as libtraceevent's sched
 * plugin does when it prints sched_switch (prev_comm for prev_pid, next_comm for
 * next_pid) and sched_wakeup (comm for pid), without formatting the text: for a reader
 * that does not format every record in order. 1 when the record is of such an event.
 */
int ktrace_event_learn_comms(struct ktrace_events *evs, const struct ktrace_record *rec);

/*
 * A record printed, but not by this registry's reader (another thread prints it, or
 * the reader passes over it): trace-cmd looks its comm up before its event prints
 * (except for pid 0), and the first lookup orders the names registered so far; from
 * then on a pid keeps its first name. Call it in output order, before
 * ktrace_event_learn_comms of the same record. ktrace_event_comms_ordered: whether
 * that first lookup was made (then ktrace_event_comm_passed does nothing).
 */
void ktrace_event_comm_passed(struct ktrace_events *evs, const struct ktrace_record *rec);
bool ktrace_event_comms_ordered(const struct ktrace_events *evs);

/*
 * trace-cmd's block-trace hack: when the ftrace "power", else "kmem_free", else
 * "user_stack" event exists (with the usual common fields), libtracecmd adds an ftrace
 * event "blktrace" with the next id, printed as its pid field. trace-cmd report does it
 * once the file is open (so -E does not list it, but -F patterns and records see it).
 * Returns 1 when added, 0 when not (no such event, or the id is taken).
 */
int ktrace_event_add_blktrace(struct ktrace_events *evs);

/* The pids the saved cmdlines give the name comm, in libtraceevent's search order
 * (tep_data_pid_from_comm); at most max of them in pids. Returns how many there are. */
size_t ktrace_event_comm_pids(struct ktrace_events *evs, const char *comm, int *pids, size_t max);

/*
 * Whether formatting a record of ev reads or changes state the registry keeps from one
 * record to the next (comm names learnt by the sched plugins, the function plugin's call
 * stacks, function-graph look-ahead, a bprint or field flag set by an earlier record):
 * such records must be formatted in output order by one registry. Records of the other
 * events give the same text from any registry loaded with the same metadata, in any
 * order, which lets `ktrace report` format them on several threads. raw: for -R output.
 */
bool ktrace_event_ordered(const struct ktrace_event *ev, bool raw);

/* The same, finer: records of ev may be formatted in any order (ANY), or only in
 * output order (IN_ORDER), or their text in any order provided that
 * ktrace_event_learn_comms sees them in output order, in the registry whose comm
 * lookups must follow trace-cmd's (LEARN_IN_ORDER: sched_switch, sched_wakeup). */
enum ktrace_event_order {
	KTRACE_EVENT_ANY_ORDER = 0,
	KTRACE_EVENT_LEARN_IN_ORDER,
	KTRACE_EVENT_IN_ORDER,
};
enum ktrace_event_order ktrace_event_order(const struct ktrace_event *ev, bool raw);

/* The end of ev's last fixed-size field: formatting a record of ev may read that many
 * bytes from its start even when the record is shorter (a stack trace records fewer
 * frames than its caller[] array holds). */
uint32_t ktrace_event_fixed_size(const struct ktrace_event *ev);

#endif
