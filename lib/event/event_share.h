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

/* The bytes of evs that a registry sharing its symbols does not need. */
size_t ftev_shared_bytes(const struct ktrace_events *evs);
/* What evs holds with its symbols, a kallsyms not parsed yet counted as it will be
 * (another registry of the same file holds as much again). */
size_t ftev_memory_with_syms(struct ktrace_events *evs);

#endif
