/* SPDX-License-Identifier: MIT */
/* ktrace event component: ftrace event formats, print engine, filters, listings. */
#ifndef KTRACE_EVENT_H
#define KTRACE_EVENT_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>

#ifdef __cplusplus
extern "C" {
#endif

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

struct ktrace_events;
struct ktrace_event;

/*
 * A new empty registry. long_size (4 or 8) is the traced system's long as trace-cmd
 * hands it to libtraceevent (the trace.dat header byte); it sizes pointers, "%ld"
 * arguments of bprint and sizeof(long). big_endian: byte order of the record data.
 * Returns NULL with errno set (EINVAL, ENOMEM).
 */
KTRACE_API struct ktrace_events *ktrace_event_new(int long_size, bool big_endian);
KTRACE_API void ktrace_event_free(struct ktrace_events *evs);

/* Options that change output the way trace-cmd's command line does. */
enum ktrace_event_option {
	/* Time format of func_repeats' "last_ts:" (trace-cmd report default: usecs). */
	KTRACE_EVOPT_TS_USECS = 0,   /* "%6.1000d" */
	KTRACE_EVOPT_TS_NSECS,       /* report -t: "%9.1d" */
	KTRACE_EVOPT_TS_RAW,         /* raw timestamps: "%d" */
};
KTRACE_API void ktrace_event_set_ts_format(struct ktrace_events *evs, enum ktrace_event_option ts);

/*
 * Metadata. Every parser takes the text and its length (no NUL needed) and copies what
 * it keeps. Errors are negative codes with err filled; like libtraceevent, a bad line
 * in kallsyms / printk formats / cmdlines stops that file's parsing but keeps what
 * came before it (the function still returns an error).
 */
KTRACE_API int ktrace_event_parse_header_page(struct ktrace_events *evs, const char *text, size_t len,
				    struct ktrace_error *err);
/*
 * Adds one event format ("name: ...\nID: ...\nformat:\n..."). system is the events/
 * directory it came from ("ftrace" for the ftrace formats of a trace.dat). Like
 * libtraceevent, an event whose fields or print fmt cannot be parsed is still added
 * (it prints as "[FAILED TO PARSE]"); only a missing name or ID is an error.
 * *out (may be NULL) receives the event.
 */
KTRACE_API int ktrace_event_add_format(struct ktrace_events *evs, const char *system, const char *text,
			     size_t len, const struct ktrace_event **out, struct ktrace_error *err);
KTRACE_API int ktrace_event_parse_kallsyms(struct ktrace_events *evs, const char *text, size_t len,
				 struct ktrace_error *err);
KTRACE_API int ktrace_event_parse_printk_formats(struct ktrace_events *evs, const char *text, size_t len,
				       struct ktrace_error *err);
KTRACE_API int ktrace_event_parse_cmdlines(struct ktrace_events *evs, const char *text, size_t len,
				 struct ktrace_error *err);
/* Adds a pid -> comm mapping (kept: the first one registered for a pid wins once the
 * table has been looked up, as in libtraceevent). */
KTRACE_API int ktrace_event_register_comm(struct ktrace_events *evs, int pid, const char *comm);

/* Lookups. */
KTRACE_API size_t ktrace_event_count(const struct ktrace_events *evs);
KTRACE_API const struct ktrace_event *ktrace_event_at(const struct ktrace_events *evs, size_t index);
KTRACE_API const struct ktrace_event *ktrace_event_find(struct ktrace_events *evs, int id);
KTRACE_API const struct ktrace_event *ktrace_event_find_by_name(const struct ktrace_events *evs,
						      const char *system, const char *name);
KTRACE_API const char *ktrace_event_name(const struct ktrace_event *ev);
KTRACE_API const char *ktrace_event_system(const struct ktrace_event *ev);
KTRACE_API int ktrace_event_id(const struct ktrace_event *ev);
/* The print fmt (or the fields) could not be parsed: trace-cmd prints the event as
 * "[FAILED TO PARSE]" followed by its raw fields, and so do we. */
KTRACE_API bool ktrace_event_failed(const struct ktrace_event *ev);
KTRACE_API const char *ktrace_event_print_fmt(const struct ktrace_event *ev);   /* NULL if none */
/* The print fmt's arguments as the format gives them ("REC->prev_comm, ..."), or NULL. */
KTRACE_API const char *ktrace_event_print_args(const struct ktrace_event *ev);
/* Function name containing addr (kallsyms), or NULL; *start gets its address. */
KTRACE_API const char *ktrace_event_function(struct ktrace_events *evs, uint64_t addr, uint64_t *start);

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
	 * ktrace_event_format sets KTRACE_EVFMT_OUT_CONSUMED_NEXT in *out_flags.
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
KTRACE_API const struct ktrace_event *ktrace_event_record_event(struct ktrace_events *evs,
						      const struct ktrace_record *rec);
/* common_pid of a record (libtraceevent's tep_data_pid), -1 when unknown. */
KTRACE_API int ktrace_event_record_pid(struct ktrace_events *evs, const struct ktrace_record *rec);
/* common_flags (TRACE_FLAG_* bits), -1 when unknown. */
KTRACE_API int ktrace_event_record_flags(struct ktrace_events *evs, const struct ktrace_record *rec);
/* The comm of a pid: "<idle>" for 0, "<...>" when unknown (libtraceevent's
 * find_cmdline). The string lives as long as the registry. */
KTRACE_API const char *ktrace_event_comm(struct ktrace_events *evs, int pid);

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
KTRACE_API size_t ktrace_event_format(struct ktrace_events *evs, const struct ktrace_record *rec,
			    unsigned flags, char *buf, size_t cap, unsigned *out_flags);
/*
 * Fields of an event, as its format declares them (the common_* fields left out), and
 * their values in a record, typed: a number (SIGNED/UNSIGNED, 1 to 8 bytes), a string
 * (char arrays and __data_loc char[], up to the first NUL), an array of numbers
 * (fixed or __data_loc, elements of 1, 2, 4 or 8 bytes in the record's byte order), or
 * bytes (anything else). A value that lies outside the record is empty.
 */
enum ktrace_event_value_type {
	KTRACE_EVENT_SIGNED = 0,
	KTRACE_EVENT_UNSIGNED,
	KTRACE_EVENT_STRING,
	KTRACE_EVENT_BYTES,
	KTRACE_EVENT_ARRAY,
};

struct ktrace_event_value {
	const char *name;
	enum ktrace_event_value_type type;
	int64_t i;                   /* SIGNED (sign-extended from its size) */
	uint64_t u;                  /* UNSIGNED, and the bits of SIGNED */
	const void *data;            /* STRING, BYTES, ARRAY: in the record */
	uint32_t len;                /* bytes at data */
	uint32_t count;              /* ARRAY: elements */
	uint8_t elem_size;           /* ARRAY: 1, 2, 4 or 8 */
	bool elem_signed;
	bool big_endian;             /* the record's byte order */
};

KTRACE_API size_t ktrace_event_field_count(const struct ktrace_event *ev);
KTRACE_API const char *ktrace_event_field_name(const struct ktrace_event *ev, size_t i);
/* Field i's value in rec (an event of ev): 0, or -ENOENT when there is no field i. */
KTRACE_API int ktrace_event_field_value(struct ktrace_events *evs, const struct ktrace_event *ev,
					size_t i, const struct ktrace_record *rec,
					struct ktrace_event_value *v);
/* For analyses that read records themselves (trace-cmd report -w, --profile): the index
 * of the field called name (common fields left out), or -1; where field i lies in a
 * record (offset and size as the format declares them; 0 or -ENOENT); and field i's
 * number as libtraceevent's tep_read_number_field reads it (unsigned, from a field of
 * 1, 2, 4 or 8 bytes; 0, or -1 for another size or a field past the readable bytes). */
KTRACE_API int ktrace_event_field_index(const struct ktrace_event *ev, const char *name);
KTRACE_API int ktrace_event_field_layout(const struct ktrace_event *ev, size_t i, uint32_t *offset,
					 uint32_t *size);
KTRACE_API int ktrace_event_field_number(const struct ktrace_events *evs, const struct ktrace_event *ev,
					 size_t i, const struct ktrace_record *rec, uint64_t *val);
/* Every field's value at once: v[0..min(n, max)) where n, returned, is the number of
 * fields of ev (as ktrace_event_field_count). */
KTRACE_API size_t ktrace_event_field_values(struct ktrace_events *evs, const struct ktrace_event *ev,
					   const struct ktrace_record *rec,
					   struct ktrace_event_value *v, size_t max);
/* Element k of an ARRAY value, sign-extended when elem_signed; 0 past the end. */
KTRACE_API uint64_t ktrace_event_array_at(const struct ktrace_event_value *v, size_t k);

/* The task state libtraceevent's sched plugin prints for a sched_switch prev_state:
 * the letters S, D, T, t, Z, X, x, W of its low 8 bits joined by '|', R for none.
 * Writes at most cap bytes with a NUL; returns the length of the whole text. */
KTRACE_API size_t ktrace_event_task_state(uint64_t state, char *buf, size_t cap);

/* The latency column of report -l ("dNh1." ...: irqs-off, need-resched, hard/softirq,
 * preempt depth), as TEP_PRINT_LATENCY prints it. Same return convention. */
KTRACE_API size_t ktrace_event_latency(struct ktrace_events *evs, const struct ktrace_record *rec,
			     char *buf, size_t cap);

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

struct ktrace_event_filter;

/*
 * Parses text against the events of evs. NULL with errno set and a message in err
 * (libtraceevent's, e.g. "Syntax error", "Unknown op token ~~") when the text names no
 * event or its expression does not parse.
 */
KTRACE_API struct ktrace_event_filter *ktrace_event_filter_new(struct ktrace_events *evs, const char *text,
					struct ktrace_error *err);
KTRACE_API void ktrace_event_filter_free(struct ktrace_event_filter *f);

/* Results of ktrace_event_filter_match (libtraceevent's tep_filter_match). */
enum ktrace_event_filter_result {
	KTRACE_EVENT_FILTER_NONE = 0,      /* the filter holds no event */
	KTRACE_EVENT_FILTER_NOT_FOUND,     /* the record's event is not in the filter */
	KTRACE_EVENT_FILTER_MISS,
	KTRACE_EVENT_FILTER_MATCH,
};

/* Tests one record (formatted in output order, like ktrace_event_format: the comm
 * table it reads is the one the sched plugins update while printing). */
KTRACE_API enum ktrace_event_filter_result ktrace_event_filter_match(struct ktrace_event_filter *f,
					      const struct ktrace_record *rec);

/* The filter kept for an event, written back the way libtraceevent writes it
 * ("(prev_pid == 1) && (next_comm == \"bash\")", "TRUE", "FALSE"); NULL when the event
 * is not in the filter. malloc'd. */
KTRACE_API char *ktrace_event_filter_string(const struct ktrace_event_filter *f, int event_id);
/* Events of the filter in increasing id order: count and the i-th. */
KTRACE_API size_t ktrace_event_filter_event_count(const struct ktrace_event_filter *f);
KTRACE_API const struct ktrace_event *ktrace_event_filter_event(const struct ktrace_event_filter *f, size_t i);

/*
 * Listings of what an event registry (ktrace/event.h) learnt from a trace's
 * metadata, in the order libtraceevent keeps them: `trace-cmd report -f` prints the
 * functions, `-P` the printk formats.
 */

/* kallsyms functions kept (absolute symbols and ARM '$' symbols are not), sorted by
 * address as libtraceevent sorts them. */
KTRACE_API size_t ktrace_event_function_count(struct ktrace_events *evs);
/* The i-th function: address, name, module (NULL for the kernel itself). */
KTRACE_API void ktrace_event_function_at(struct ktrace_events *evs, size_t i, uint64_t *addr,
			       const char **name, const char **mod);

/* printk formats, sorted by address, as stored (quotes and a final "\n" removed). */
KTRACE_API size_t ktrace_event_printk_count(struct ktrace_events *evs);
KTRACE_API void ktrace_event_printk_at(struct ktrace_events *evs, size_t i, uint64_t *addr,
			     const char **fmt);

#ifdef __cplusplus
}
#endif
#endif
