/* SPDX-License-Identifier: MIT */
/*
 * Event filters in libtraceevent's syntax (`trace-cmd report -F`), evaluated exactly as
 * libtraceevent 1.7.1 evaluates them:
 *
 *     EVENTS[:EXPRESSION]
 *
 * EVENTS is a comma-separated list of "system/event" or "name" (matched against the
 * system or the event name); each part is a POSIX basic regular expression anchored at
 * both ends and matched without case ("sched", "sched_.*", "irq/.*_entry"). EXPRESSION
 * combines comparisons of fields (== != < > <= >=, =~ and !~ with a regular expression
 * for strings), bit tests (&) and arithmetic, with &&, || (no precedence between them:
 * left to right), ! and parentheses. The pseudo fields COMM (the task's name) and CPU
 * are known to every event. A field the event does not have makes its comparison
 * false. The expression is parsed once per matching event, with libtraceevent's
 * grammar and its quirks (see docs/report.md).
 */
#ifndef KTRACE_FTRACE_FILTER_H
#define KTRACE_FTRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include <ktrace/error.h>
#include <ktrace/ftrace_event.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ktrace_filter;

/*
 * Parses text against the events of evs. NULL with errno set and a message in err
 * (libtraceevent's, e.g. "Syntax error", "Unknown op token ~~") when the text names no
 * event or its expression does not parse.
 */
struct ktrace_filter *ktrace_filter_new(struct ktrace_events *evs, const char *text,
					struct ktrace_error *err);
void ktrace_filter_free(struct ktrace_filter *f);

/* Results of ktrace_filter_match (libtraceevent's tep_filter_match). */
enum ktrace_filter_result {
	KTRACE_FILTER_NONE = 0,      /* the filter holds no event */
	KTRACE_FILTER_NOT_FOUND,     /* the record's event is not in the filter */
	KTRACE_FILTER_MISS,
	KTRACE_FILTER_MATCH,
};

/* Tests one record (formatted in output order, like ktrace_events_format: the comm
 * table it reads is the one the sched plugins update while printing). */
enum ktrace_filter_result ktrace_filter_match(struct ktrace_filter *f,
					      const struct ktrace_record *rec);

/* The filter kept for an event, written back the way libtraceevent writes it
 * ("(prev_pid == 1) && (next_comm == \"bash\")", "TRUE", "FALSE"); NULL when the event
 * is not in the filter. malloc'd. */
char *ktrace_filter_string(const struct ktrace_filter *f, int event_id);
/* Events of the filter in increasing id order: count and the i-th. */
size_t ktrace_filter_event_count(const struct ktrace_filter *f);
const struct ktrace_event *ktrace_filter_event(const struct ktrace_filter *f, size_t i);

#ifdef __cplusplus
}
#endif
#endif
