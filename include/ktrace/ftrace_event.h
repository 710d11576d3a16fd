/* SPDX-License-Identifier: MIT */
/*
 * ftrace event formats and their print formats.
 *
 * A `struct ktrace_events` holds what a trace carries besides its records: the
 * header_page text, every event `format` text (by system), kallsyms, printk formats
 * and saved cmdlines. Each format's `print fmt:` is compiled once, when it is added;
 * formatting a record then evaluates the compiled form and writes the text Debian's
 * trace-cmd 3.1.6 / libtraceevent 1.7.1 (with libtraceevent1-plugin and trace-cmd's
 * own function-graph handlers) prints for it, byte for byte: the part of a report
 * line after the event name column ("prev_comm=... ==> ..." or, with plugins,
 * "cat:10937 [120] R ==> ..."), or the -R "name=value" list.
 *
 * Quirks of libtraceevent are reproduced on purpose (its operator precedence, '^'
 * evaluating to 0, "%c" printed as ">c<", the [FAILED TO PARSE] cases, comm names
 * learnt from sched events...). See docs/eventfmt.md.
 *
 * Formatting never allocates in the steady state and never reads outside the record
 * it is given. The registry keeps state that trace-cmd keeps too (learnt comm names,
 * the function plugin's call stacks, a few per-field flags), so records must be
 * formatted in output order, one at a time: a registry is not thread-safe.
 */
#ifndef KTRACE_FTRACE_EVENT_H
#define KTRACE_FTRACE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ktrace_events;
struct ktrace_event;

/*
 * A new empty registry. long_size (4 or 8) is the traced system's long as trace-cmd
 * hands it to libtraceevent (the trace.dat header byte); it sizes pointers, "%ld"
 * arguments of bprint and sizeof(long). big_endian: byte order of the record data.
 * Returns NULL with errno set (EINVAL, ENOMEM).
 */
struct ktrace_events *ktrace_events_new(int long_size, bool big_endian);
void ktrace_events_free(struct ktrace_events *evs);

/* Options that change output the way trace-cmd's command line does. */
enum ktrace_events_option {
	/* Time format of func_repeats' "last_ts:" (trace-cmd report default: usecs). */
	KTRACE_EVOPT_TS_USECS = 0,   /* "%6.1000d" */
	KTRACE_EVOPT_TS_NSECS,       /* report -t: "%9.1d" */
	KTRACE_EVOPT_TS_RAW,         /* raw timestamps: "%d" */
};
void ktrace_events_set_ts_format(struct ktrace_events *evs, enum ktrace_events_option ts);

/*
 * Metadata. Every parser takes the text and its length (no NUL needed) and copies what
 * it keeps. Errors are negative codes with err filled; like libtraceevent, a bad line
 * in kallsyms / printk formats / cmdlines stops that file's parsing but keeps what
 * came before it (the function still returns an error).
 */
int ktrace_events_parse_header_page(struct ktrace_events *evs, const char *text, size_t len,
				    struct ktrace_error *err);
/*
 * Adds one event format ("name: ...\nID: ...\nformat:\n..."). system is the events/
 * directory it came from ("ftrace" for the ftrace formats of a trace.dat). Like
 * libtraceevent, an event whose fields or print fmt cannot be parsed is still added
 * (it prints as "[FAILED TO PARSE]"); only a missing name or ID is an error.
 * *out (may be NULL) receives the event.
 */
int ktrace_events_add_format(struct ktrace_events *evs, const char *system, const char *text,
			     size_t len, const struct ktrace_event **out, struct ktrace_error *err);
int ktrace_events_parse_kallsyms(struct ktrace_events *evs, const char *text, size_t len,
				 struct ktrace_error *err);
int ktrace_events_parse_printk_formats(struct ktrace_events *evs, const char *text, size_t len,
				       struct ktrace_error *err);
int ktrace_events_parse_cmdlines(struct ktrace_events *evs, const char *text, size_t len,
				 struct ktrace_error *err);
/* Adds a pid -> comm mapping (kept: the first one registered for a pid wins once the
 * table has been looked up, as in libtraceevent). */
int ktrace_events_register_comm(struct ktrace_events *evs, int pid, const char *comm);

/* Lookups. */
size_t ktrace_events_count(const struct ktrace_events *evs);
const struct ktrace_event *ktrace_events_at(const struct ktrace_events *evs, size_t index);
const struct ktrace_event *ktrace_events_find(struct ktrace_events *evs, int id);
const struct ktrace_event *ktrace_events_find_by_name(const struct ktrace_events *evs,
						      const char *system, const char *name);
const char *ktrace_event_name(const struct ktrace_event *ev);
const char *ktrace_event_system(const struct ktrace_event *ev);
int ktrace_event_id(const struct ktrace_event *ev);
/* The print fmt (or the fields) could not be parsed: trace-cmd prints the event as
 * "[FAILED TO PARSE]" followed by its raw fields, and so do we. */
bool ktrace_event_failed(const struct ktrace_event *ev);
const char *ktrace_event_print_fmt(const struct ktrace_event *ev);   /* NULL if none */
/* Function name containing addr (kallsyms), or NULL; *start gets its address. */
const char *ktrace_events_function(struct ktrace_events *evs, uint64_t addr, uint64_t *start);

/* One ring-buffer record: the event payload as kbuffer_read_event returns it. */
struct ktrace_record {
	const void *data;
	uint32_t size;
	int cpu;
	uint64_t ts;       /* nanoseconds, as trace-cmd computed them */
	/*
	 * The record that follows this one in output order (all CPUs merged), or NULL.
	 * Only a funcgraph_entry looks at it: when it is the matching funcgraph_exit,
	 * trace-cmd prints the pair as one leaf line and skips the exit record; then
	 * ktrace_events_format sets KTRACE_EVFMT_OUT_CONSUMED_NEXT in *out_flags.
	 */
	const struct ktrace_record *next;
	/*
	 * Bytes readable at data (0: just size). libtraceevent reads fixed-size fields
	 * past the end of records shorter than their format (kernel_stack's caller[8]
	 * holds only the frames recorded, then the next record's bytes follow), and
	 * trace-cmd has the CPU's data mapped contiguously: give the distance to the end
	 * of the contiguous data to print what trace-cmd prints. Nothing is read
	 * beyond it.
	 */
	uint32_t avail;
};

/* The event a record belongs to (by common_type), or NULL ("[UNKNOWN EVENT]"). */
const struct ktrace_event *ktrace_events_record_event(struct ktrace_events *evs,
						      const struct ktrace_record *rec);
/* common_pid of a record (libtraceevent's tep_data_pid), -1 when unknown. */
int ktrace_events_record_pid(struct ktrace_events *evs, const struct ktrace_record *rec);
/* common_flags (TRACE_FLAG_* bits), -1 when unknown. */
int ktrace_events_record_flags(struct ktrace_events *evs, const struct ktrace_record *rec);
/* The comm of a pid: "<idle>" for 0, "<...>" when unknown (libtraceevent's
 * find_cmdline). The string lives as long as the registry. */
const char *ktrace_events_comm(struct ktrace_events *evs, int pid);

enum {
	KTRACE_EVFMT_RAW = 1 << 0,   /* trace-cmd report -R: " name=value" for every field */
};
enum {
	KTRACE_EVFMT_OUT_CONSUMED_NEXT = 1 << 0,   /* rec->next was printed with this one */
};

/*
 * Formats a record's event text into buf (cap bytes, NUL-terminated when cap > 0).
 * Returns the length of the whole text (like snprintf: when it is >= cap the text was
 * truncated; call again with a larger buffer). The text is exactly what
 * tep_print_event(..., "%s", TEP_PRINT_INFO or TEP_PRINT_INFO_RAW) appends, including
 * a trailing newline some events end with (trace-cmd report removes one trailing
 * newline from the whole line). An unknown event gives "[UNKNOWN EVENT]".
 * out_flags (may be NULL) receives KTRACE_EVFMT_OUT_* bits.
 */
size_t ktrace_events_format(struct ktrace_events *evs, const struct ktrace_record *rec,
			    unsigned flags, char *buf, size_t cap, unsigned *out_flags);
/* The latency column of report -l ("dNh1." ...: irqs-off, need-resched, hard/softirq,
 * preempt depth), as TEP_PRINT_LATENCY prints it. Same return convention. */
size_t ktrace_events_latency(struct ktrace_events *evs, const struct ktrace_record *rec,
			     char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
