/* SPDX-License-Identifier: MIT */
/* Sinks: what the CLI prints (report, info, exports, timeline, live views). */
#ifndef KTRACE_VIEW_H
#define KTRACE_VIEW_H

#include <ktrace/api.h>

#include <stdbool.h>

#include <ktrace/darwin.h>
#include <ktrace/detect.h>
#include <ktrace/error.h>
#include <ktrace/ring.h>
#include <ktrace/input.h>
#include <ktrace/kcdata.h>
#include <ktrace/koff.h>

#include <ktrace/out.h>
#include <ktrace/stream.h>
#include <ktrace/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * `ktrace report` and `ktrace info` of one input, whatever its format: each picks what
 * the format read needs (lib/sinks/report/report.c, lib/sinks/info/info.c).
 */

/* Darwin kdebug data (V3 ktrace files and legacy raw streams). */
struct ktrace_view_darwin_opts {
	size_t sz;                              /* the struct's size: see KTRACE_OPTS */
	bool csv;                               /* report: CSV instead of columns */
	bool json;                              /* info: JSON */
	const struct ktrace_darwin_codes *codes;      /* names; may be NULL */
	const struct ktrace_darwin_filter *filter;    /* NULL or empty: every event */
	const int32_t *pids;                    /* report only these processes... */
	size_t npids;
	const char *const *procs;               /* ...or these process names */
	size_t nprocs;
	const struct ktrace_darwin_opts *kdebug;  /* reader options (V0, timebase); NULL:
						   * defaults */
	bool durations;                         /* report: one line per START/END pair */
};

/* The kinds of options a format's report or info takes (ktrace_report_takes,
 * ktrace_info_takes), for a program that refuses an option the input has no use for. */
enum {
	KTRACE_TAKES_PAGES = 1 << 0,      /* a raw-pages layout (layout below) */
	KTRACE_TAKES_DARWIN = 1 << 1,     /* Darwin reader and report options (darwin) */
	KTRACE_TAKES_FORMAT = 1 << 2,     /* an output format name (report: output) */
	KTRACE_TAKES_TRACEDAT = 1 << 3,   /* trace.dat options (trace-cmd report's; info:
					   * raw_ts) */
};

struct ktrace_view_text_opts;
struct ktrace_view_profile_opts;

/* Options of ktrace_report. Set sz to sizeof(struct ktrace_report_opts). */
struct ktrace_report_opts {
	size_t sz;
	/* what in holds (ktrace_detect_format, or what the caller says it is: raw pages
	 * whatever they look like, a Darwin V0 stream); KTRACE_FORMAT_UNKNOWN: detected */
	enum ktrace_format format;
	/* raw pages: the layout; fields at their "detect" values, or NULL: inferred */
	const struct ktrace_ring_layout *layout;
	/* Darwin: filters, names, CSV, durations, reader options; NULL: defaults */
	const struct ktrace_view_darwin_opts *darwin;
	/* the output format: kcdata "text" (NULL: the default), "json", "plist", "info"
	 * or "items"; Darwin "text" (NULL) or "json" (one document: the file's format and
	 * timebase, its stackshots' kcdata trees, then the events) */
	const char *output;
	/* trace.dat: the files (read by path, or from their inputs; in is not read) and
	 * trace-cmd report's options; NULL: a trace.dat input is refused (-ESPIPE) */
	const struct ktrace_view_text_opts *tracedat;
	/* trace.dat, records mode: --profile instead of the records (one file)... */
	const struct ktrace_view_profile_opts *profile;
	/* ...or -w: each sched_switch line followed by the wake-up latency of the task it
	 * switches to, then the average, longest and shortest latencies (one file) */
	bool wakeup;
	/* trace.dat: set on error, when not NULL, to the path at fault (or NULL) */
	const char **err_file;
};

/* The kinds of options (KTRACE_TAKES_*) ktrace_report uses for format f; every kind for
 * KTRACE_FORMAT_UNKNOWN (nothing to refuse before the input is known). */
KTRACE_API unsigned ktrace_report_takes(enum ktrace_format f);

/*
 * Checks o before anything is read: -EINVAL with err set when o asks for something the
 * report of o->format cannot do (Darwin: an output format other than text or json, json
 * with csv or durations), else 0.
 */
KTRACE_API int ktrace_report_check(const struct ktrace_report_opts *o, struct ktrace_error *err);

/*
 * Prints the report of in to out: for trace.dat files what Debian's trace-cmd 3.1.6
 * `trace-cmd report` prints, line for line (docs/report.md); for raw ring-buffer pages
 * every sub-buffer and event (file offset, timestamp, length, id, lost events); for
 * Darwin data one line per event (time, delta, CPU, thread, process, thread name,
 * qualifier, name, arguments, elapsed time of END events) or per START/END pair, as
 * columns, CSV or JSON; for KOFF data ktrace(1)'s lines; for kcdata the decoded tree
 * (text, JSON, XML plist) or a summary or listing of its items. Returns 0, or a negative
 * error code with err set after printing what could be read: -ENODATA, -EBADMSG or
 * -ENOTSUP for an input of an unknown or unsupported format; for trace.dat -EINVAL and
 * *err_file NULL for a bad -F filter (libtraceevent's message).
 */
KTRACE_API int ktrace_report(struct ktrace_input *in, const struct ktrace_report_opts *o,
			     struct ktrace_out *out, struct ktrace_error *err);

/* Options of ktrace_info. Set sz to sizeof(struct ktrace_info_opts). */
struct ktrace_info_opts {
	size_t sz;
	enum ktrace_format format;    /* as for ktrace_report */
	bool json;                    /* one JSON object instead of text */
	bool raw_ts;                  /* trace.dat: timestamps as the ring buffer has them */
	const struct ktrace_ring_layout *layout;      /* as for ktrace_report */
	const struct ktrace_view_darwin_opts *darwin; /* Darwin reader options; NULL:
						       * defaults (json is the field above) */
};

/* The kinds of options (KTRACE_TAKES_*) ktrace_info uses for format f; every kind for
 * KTRACE_FORMAT_UNKNOWN. */
KTRACE_API unsigned ktrace_info_takes(enum ktrace_format f);

/*
 * Prints a summary of in: for trace.dat the header, metadata and options, then per
 * buffer and CPU the events, first and last timestamps and lost events; for Darwin
 * data the format, versions, timebase, counts, first and last events and chunks; for
 * kcdata the begin type, items by type, containers, sizes and whether it decodes; for
 * raw pages the layout, sub-buffers, events, time range, lost events and events by id;
 * for KOFF data the header, records and counters. Every record is read, so this is also
 * a check of the data. Returns 0, or a negative error code with err set after printing
 * the summary of what could be read.
 */
KTRACE_API int ktrace_info(struct ktrace_input *in, const struct ktrace_info_opts *o,
			   struct ktrace_out *out, struct ktrace_error *err);

/* How a KOFF buffer is printed (ktrace dump, ktrace report). */
struct ktrace_view_koff_opts {
	size_t sz;          /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	uint64_t scale;     /* nanoseconds per time unit; ktrace(1)'s default is 1000000 */
	int verbose;        /* 1: header and counters, 2: also each record's details */
	int abs_time;       /* -t: every record line starts with its absolute time */
};

/*
 * Prints a KOFF buffer as ktrace(1) does: time-stamp lines "XXXX+<ctime>" and record
 * lines "tid:delta:correl tag:rest", oldest first (see docs/koff.md).
 */
KTRACE_API int ktrace_view_koff_reader(struct koff_reader *r, const struct ktrace_view_koff_opts *o,
			    struct ktrace_out *out, struct ktrace_error *err);

/* kcdata trees (<ktrace/kcdata.h>) printed as ktrace report prints them: JSON, XML
 * property list like libkdd's kdd -p, readable text. 0 or -ENOMEM. */
KTRACE_API int ktrace_view_kcdata_json(const struct kcdata_node *root, struct ktrace_out *out);
KTRACE_API int ktrace_view_kcdata_plist(const struct kcdata_node *root, struct ktrace_out *out);
KTRACE_API int ktrace_view_kcdata_text(const struct kcdata_node *root, struct ktrace_out *out);

/*
 * trace-cmd report's options for trace.dat files (ktrace_report_opts.tracedat; printed
 * by lib/sinks/report/report_tracedat_text.c over the engine, docs/report.md).
 */

struct ktrace_view_text_file {
	const char *path;             /* the file (its name in messages when input is set) */
	struct ktrace_input *input;   /* NULL, or an input to read instead (kept open) */
	const struct ktrace_stream_filter *filters;
	size_t nfilters;
	int64_t ts_offset;            /* --ts-offset, nanoseconds */
};

enum ktrace_view_text_mode {
	KTRACE_VIEW_TEXT_RECORDS = 0,
	KTRACE_VIEW_TEXT_STAT,         /* --stat */
	KTRACE_VIEW_TEXT_UNAME,        /* --uname (then the version, as trace-cmd does) */
	KTRACE_VIEW_TEXT_VERSION,      /* --version */
	KTRACE_VIEW_TEXT_CPUS,         /* --cpus, --first-event, --last-event */
	KTRACE_VIEW_TEXT_EVENTS,       /* -E */
	KTRACE_VIEW_TEXT_PRINTK,       /* -P */
	KTRACE_VIEW_TEXT_FUNCS,        /* -f */
	KTRACE_VIEW_TEXT_FILTER_TEST,  /* -T */
};

struct ktrace_view_text_opts {
	size_t sz;                    /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const struct ktrace_view_text_file *files;
	size_t nfiles;
	bool multi;                   /* several -i: lines are labelled with the file */
	enum ktrace_view_text_mode mode;
	bool nsec, raw, latency;      /* -t, -R, -l */
	bool ts_diff;                 /* --ts-diff */
	bool no_irqs, no_softirqs;    /* -I, -S */
	bool first_event, last_event;
	bool raw_ts, no_date;         /* --raw-ts, --nodate */
	bool debug;                   /* --debug */
	bool boundary;                /* --boundary: mark where each sub-buffer starts */
	const char *const *raw_events;   /* -r: events printed as with -R (patterns) */
	size_t nraw_events;
	const struct ktrace_stream_task *tasks;   /* in command-line order */
	size_t ntasks;
	const int *cpus;              /* --cpu: CPU ids to show; NULL for all */
	size_t ncpus;
	bool progress_unused;         /* (0.2: a progress line the library wrote itself;
				       * the library prints nothing: see progress below) */
	bool line_flush;              /* flush at line ends every few KiB (terminal) */
	unsigned threads;             /* 0: as many as the CPUs (big traces), 1: no threads */
	/* Called in output order with every record printed; the text it writes to buf (at
	 * most cap bytes; it returns the length) ends the record's line (report -w). */
	size_t (*line_suffix)(void *arg, struct ktrace_events *evs, const struct ktrace_record *rec,
			      char *buf, size_t cap);
	void *line_suffix_arg;
	/* called every 65536 records read (may be NULL): records so far and, for one
	 * uncompressed file, how far into its data they are in percent (-1: not known) */
	void (*progress)(void *arg, uint64_t records, int percent);
	void *progress_arg;
	/* oddities that lose nothing, as trace-cmd warns of them on stderr (a --comm name
	 * not in the saved cmdlines); NULL: not told (the library prints nothing) */
	void (*warn)(void *arg, const char *message);
	void *warn_arg;
};

/* `ktrace report --profile` (ktrace_report_opts.profile): per task, the time its events
 * took (sched_switch by state, wake-ups, interrupts, softirqs, system calls, function
 * graph) with their kernel stacks, as trace-cmd 3.1.6 prints them. One file (its top
 * buffer). */
struct ktrace_view_profile_opts {
	size_t sz;                    /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	bool by_comm;                 /* --by-comm: tasks of one name merged */
	bool global;                  /* -G: interrupts and softirqs as global events */
};

/* `ktrace stat`: the state of tracefs buffers as `trace-cmd stat` prints it (options:
 * their trace options too, as stat -o), or as one JSON object. */
KTRACE_API int ktrace_view_tracefs_state(const struct ktrace_tracefs_state *st, bool options, bool json,
					 struct ktrace_out *out, struct ktrace_error *err);

/*
 * `ktrace stream`: the records of a live (in_memory) tracefs session printed as
 * `ktrace report` prints them. ktrace_view_live_print prints every record captured so
 * far, in time order, and returns how many (or a negative error code).
 */
struct ktrace_view_live;
struct ktrace_view_live_opts {
	size_t sz;                    /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	bool nsec;                    /* nanosecond times (report -t) */
	bool raw;                     /* fields as name=value (report -R) */
};
KTRACE_API int ktrace_view_live_new(struct ktrace_tracefs_session *s, const struct ktrace_view_live_opts *o,
				    struct ktrace_view_live **out, struct ktrace_error *err);
KTRACE_API int64_t ktrace_view_live_print(struct ktrace_view_live *v, struct ktrace_out *out,
					  struct ktrace_error *err);
KTRACE_API void ktrace_view_live_free(struct ktrace_view_live *v);

/*
 * `ktrace top` (docs/top.md): the figures of a live (in_memory) tracefs session per
 * interval, from the model (per CPU busy, IRQ, softirq and idle time; threads by CPU
 * time with their wakeup latencies; IRQ handlers, softirq vectors, syscalls; context
 * switches, wakeups, IRQs). The view is made before tracing starts (it reads the event
 * formats), ktrace_view_top_begin says when it began (the session's clock, "mono" for
 * CLOCK_MONOTONIC) and where the first interval starts; ktrace_view_top_read reads the
 * records captured so far, those before until (later ones wait; with a clock user space
 * reads, in time order: a record waits until every CPU's reader has caught up with its
 * time); ktrace_view_top_ready reads them too and returns 1 when every CPU's records
 * before until have been read, 0 when a reader has not caught up yet (a late cut misses
 * what it has not read); ktrace_view_top_cut reads up to until and ends the interval
 * there: its figures are what ktrace_view_top_print prints (as often as asked, in any
 * order) until the next cut. Threads of the calling process are never shown.
 */
struct ktrace_view_top;
struct ktrace_view_top_opts {
	size_t sz;                    /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	bool syscalls;                /* syscall figures (the session records raw_syscalls) */
	unsigned max_threads;         /* threads kept at most before the model and the tables
					 start afresh at an interval's start (0: 65536, and
					 4 for each thread of the last interval beyond that) */
};
enum { KTRACE_TOP_SORT_CPU, KTRACE_TOP_SORT_LATENCY, KTRACE_TOP_SORT_WAKEUPS };
struct ktrace_view_top_print_opts {
	size_t sz;
	bool json;                    /* one JSON object on one line (ktrace-top/1) */
	bool screen;                  /* full-screen text: every line cleared to its end,
					 the screen's lines filled */
	unsigned width, height;       /* text: columns and lines at most (0: no limit) */
	int sort;                     /* KTRACE_TOP_SORT_* (text) */
	unsigned scroll;              /* thread rows passed over (text) */
	unsigned top;                 /* rows per list at most (0: text no limit, JSON 20) */
	const char *status;           /* text: shown at the end of the first line */
};
KTRACE_API int ktrace_view_top_new(struct ktrace_tracefs_session *s, const struct ktrace_view_top_opts *o,
				   struct ktrace_view_top **out, struct ktrace_error *err);
KTRACE_API int ktrace_view_top_begin(struct ktrace_view_top *v, uint64_t start, struct ktrace_error *err);
KTRACE_API int64_t ktrace_view_top_read(struct ktrace_view_top *v, uint64_t until,
					struct ktrace_error *err);
KTRACE_API int ktrace_view_top_ready(struct ktrace_view_top *v, uint64_t until, struct ktrace_error *err);
KTRACE_API int ktrace_view_top_cut(struct ktrace_view_top *v, uint64_t until, struct ktrace_error *err);
KTRACE_API int ktrace_view_top_print(struct ktrace_view_top *v, const struct ktrace_view_top_print_opts *p,
				     struct ktrace_out *out, struct ktrace_error *err);
KTRACE_API void ktrace_view_top_free(struct ktrace_view_top *v);

/*
 * `ktrace timeline`: a picture of the trace (lib/sinks/timeline/timeline_*.c, docs/timeline.md).
 * One lane per CPU with the running threads as coloured slices, one lane per thread
 * with its running, runnable and blocked states, every other event as a tick, lost
 * events as red marks, for any input the event stream reads.
 */
struct ktrace_view_timeline_opts {
	size_t sz;                    /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const char *const *paths;     /* the inputs, opened as one event stream */
	size_t npaths;
	const struct ktrace_stream_opts *stream;   /* -F, --cpu, --pid/--comm; may be NULL */
	bool svg;                     /* a static SVG picture instead of the HTML page */
	bool has_from, has_to;        /* --from/--to: the window (SVG: what is drawn; */
	uint64_t from, to;            /* HTML: the first view), ns in the trace's clock */
	unsigned top_threads;         /* thread lanes before "more" (0: 16) */
	const char *title;            /* the page's title (NULL: the first path) */
	/* called every 65536 records (may be NULL): records so far */
	void (*progress)(void *arg, uint64_t records);
	void *progress_arg;
	/* HTML: threads that make the report lines, each reading the inputs with a stream
	 * of its own (0: as many as the CPUs, at most 8, for inputs of 16 MiB or more that
	 * are regular files; 1: the caller's thread alone) */
	unsigned threads;
	/* HTML: how the page's data (the report lines and the records' columns) is
	 * compressed (KTRACE_TIMELINE_LINES_*): 0 by the inputs' size (LZ4 for 16 MiB or
	 * more of regular files, else deflate) */
	unsigned lines_codec;
};
#define KTRACE_TIMELINE_LINES_LZ4 1      /* several times faster to make, 1.3x bigger */
#define KTRACE_TIMELINE_LINES_DEFLATE 2

/*
 * Writes the page (a self-contained HTML file: its script, styles and the trace's data
 * inside) or the SVG picture of o's inputs to out. Returns 0; or a negative code with
 * err set and *err_path (may be NULL) the input at fault: when *drawn is true the
 * output was written anyway, with what could be read and the damage marked (damaged
 * input); when false nothing usable was written (an input that does not open, a bad
 * filter, out of memory). When out writes to an empty regular file open for reading and
 * writing (nothing written to it yet) the page is not written in order: its report
 * lines go in first and the rest is put in front of them at the end (the file's blocks
 * moved up, or the lines copied up), and the file is made durable as it grows
 * (fdatasync); out is then at the page's end, its file offset too.
 */
KTRACE_API int ktrace_view_timeline(const struct ktrace_view_timeline_opts *o, struct ktrace_out *out,
				    struct ktrace_error *err, const char **err_path, bool *drawn);
/*
 * `ktrace summary`: the figures a kernel engineer reads first, from the model of what
 * the system did (docs/model.md): per input its span, CPUs, events, lost events and
 * where the data is complete; per CPU the shares of busy, idle, IRQ and softirq time;
 * threads and processes by CPU time, threads by wakeup latency and by time runnable,
 * sleeping and blocked; IRQ handlers, softirq vectors, syscalls and events with their
 * counts and time; and what could not be computed, with why. Text, or JSON of the
 * schema docs/summary.md gives; every list holds at most top rows.
 */
struct ktrace_view_summary_opts {
	size_t sz;                    /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	bool json;
	unsigned top;                 /* rows per list (0: 10) */
	bool has_from, has_to;        /* the window: intervals cut to it, records and */
	uint64_t from, to;            /* latencies in it (ns in the trace's clock) */
};

/* Reads every record of s (an event stream of the inputs) and writes the summary of
 * them to out. 0, or a negative code with err set (a damaged input: the summary of what
 * could be read was written). */
KTRACE_API int ktrace_view_summary(struct ktrace_stream *s, const struct ktrace_view_summary_opts *o,
				   struct ktrace_out *out, struct ktrace_error *err);

/*
 * `ktrace diff`: what changed between two traces (or two sets of runs), on the figures
 * of `ktrace summary` (docs/diff.md): each input read with its own stream; entities
 * matched by name (threads by process name, name and rank among same-named threads,
 * never by pid); each change tested (Mann-Whitney U over time windows' rates, or over
 * the wakeup latencies) and called significant when p < alpha and it is at least
 * min_change percent. Text (the significant changes, biggest first) or JSON of the
 * schema ktrace-diff/1 (every row). fail_on: rules "METRIC[:ENTITY]>PCT" or "<PCT"
 * (docs/diff.md), *failed set when a significant change trips one.
 */
struct ktrace_view_diff_opts {
	size_t sz;                    /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const char *const *base;      /* the base side's inputs (at least one) */
	size_t nbase;
	const char *const *new_files; /* the new side's inputs (at least one) */
	size_t nnew;
	const struct ktrace_stream_opts *stream;   /* each input's stream (NULL: defaults) */
	bool json, all;               /* text: every row (all), else the top significant */
	unsigned top;                 /* text rows (0: 20) */
	bool has_min_change, has_alpha;
	double min_change;            /* percent (default 10) */
	double alpha;                 /* p below this (default 0.01) */
	const char *const *fail_on;
	size_t nfail_on;
};

/* 0, or a negative code with err set and *err_path the input at fault (NULL: none; a bad
 * rule or option is -EINVAL with *err_path NULL); a damaged input gives the diff of what
 * could be read, then its error. */
KTRACE_API int ktrace_view_diff(const struct ktrace_view_diff_opts *o, struct ktrace_out *out,
				bool *failed, struct ktrace_error *err, const char **err_path);

/*
 * `ktrace flamegraph`: where threads waited and what the traced events were doing, from
 * the kernel stacks `ktrace record -T` writes after every event (ftrace:kernel_stack;
 * lib/sinks/flamegraph/flamegraph_*.c, docs/flamegraph.md). Off-CPU: the time each
 * thread spent switched out (the model's S, D and other non-runnable states,
 * docs/model.md), in nanoseconds, under the stack of its switch-out; on-CPU: the stacks
 * of every other event, one each. Written as folded stacks (flamegraph.pl's input:
 * "frame;frame;...;frame VALUE" lines, outermost frame first) or as a self-contained
 * interactive SVG.
 */
enum {
	KTRACE_FLAMEGRAPH_AUTO = 0,     /* off-CPU when switches carry stacks, else on-CPU */
	KTRACE_FLAMEGRAPH_OFF_CPU = 1,
	KTRACE_FLAMEGRAPH_ON_CPU = 2,
};

enum {
	KTRACE_FLAMEGRAPH_BY_THREAD = 0,   /* root frame "comm-TID" */
	KTRACE_FLAMEGRAPH_BY_PROCESS = 1,  /* "comm-PID": the process (its leader's name) */
	KTRACE_FLAMEGRAPH_BY_COMM = 2,     /* "comm": every thread of that name together */
};

struct ktrace_view_flamegraph_opts {
	size_t sz;                    /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const char *const *paths;     /* the inputs, opened as one event stream */
	size_t npaths;
	const char *events_dir;       /* raw pages: a tracefs events/ directory; may be NULL */
	unsigned mode;                /* KTRACE_FLAMEGRAPH_AUTO, _OFF_CPU, _ON_CPU */
	unsigned by;                  /* KTRACE_FLAMEGRAPH_BY_* */
	bool svg;                     /* the SVG picture instead of folded lines */
	/* keep only these threads: a tid or process id in pids, or a name in comms (both
	 * empty: every thread but the idle one) */
	const int64_t *pids;
	size_t npids;
	const char *const *comms;
	size_t ncomms;
	const char *title;            /* the SVG's title (NULL: made from the mode) */
	/* called every 65536 records (may be NULL): records so far */
	void (*progress)(void *arg, uint64_t records);
	void *progress_arg;
};

/*
 * Writes the flame graph of o's inputs to out. Returns 0; or a negative code with err
 * set and *err_path (may be NULL) the input at fault: when *drawn is true the output
 * was written anyway from the records before the damage (damaged input); when false
 * nothing was written (an input that does not open, out of memory, -ENODATA: no kernel
 * stack of the kind asked for in the inputs).
 */
KTRACE_API int ktrace_view_flamegraph(const struct ktrace_view_flamegraph_opts *o,
				      struct ktrace_out *out, struct ktrace_error *err,
				      const char **err_path, bool *drawn);
/*
 * Exports of the event stream (<ktrace/stream.h>) for other tools: each reads every
 * record of s to the end and writes it to out as a stream (memory bounded by the
 * stream's windows and the threads of the trace, not by its records).
 */
struct ktrace_view_export_opts {
	size_t sz;                    /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	unsigned flags;               /* KTRACE_VIEW_EXPORT_* */
	/* called with the number of records read, every 65536 records (may be NULL) */
	void (*progress)(void *ctx, uint64_t records);
	void *progress_ctx;
	/* Perfetto: with threads >= 2 and open_stream, that many threads make the trace,
	 * each reading every record with a stream of its own (the one given, then more that
	 * open_stream opens the same way, without read-ahead) and writing the blocks of
	 * records it gets to first; the trace holds the same packets, its bundles cut at the
	 * blocks. A stream open_stream cannot open (a negative code) leaves one thread
	 * less: blocks go to the threads that get to them first. */
	unsigned threads;
	int (*open_stream)(void *ctx, struct ktrace_stream **s);
	void *open_ctx;
};

enum {
	/* Perfetto: every generic event as a GenericFtraceEvent (its name and field names
	 * in each event) instead of a self-describing message: for trace_processor
	 * versions before v50 (April 2025); about 3 times the size. */
	KTRACE_VIEW_EXPORT_LEGACY_GENERIC = 1 << 0,
};

/*
 * A Perfetto trace (protobuf; lib/sinks/export/export_perfetto.c tells its layout): the records in
 * FtraceEventBundles per CPU, typed where Perfetto has a message holding every field,
 * else generic with every field; the threads and processes the inputs name; the
 * traced system's uname; the lost events per CPU.
 * Chrome JSON (lib/sinks/export/export_chrome.c): the {"traceEvents": [...]} object form, with
 * the scheduling slices of every CPU as complete events, every other record as an
 * instant event with its fields in args, thread and process names, lost events.
 *
 * Both return 0, or a negative code with err set: when the stream stops at damaged
 * input (ktrace_stream_error_path names the file), the output is still a complete,
 * valid trace of the records before the damage; -ENOMEM leaves it incomplete.
 * Write errors are kept by out (ktrace_out_flush).
 */
KTRACE_API int ktrace_view_perfetto(struct ktrace_stream *s, const struct ktrace_view_export_opts *o,
				    struct ktrace_out *out, struct ktrace_error *err);
KTRACE_API int ktrace_view_chrome_json(struct ktrace_stream *s,
				       const struct ktrace_view_export_opts *o,
				       struct ktrace_out *out, struct ktrace_error *err);

#ifdef __cplusplus
}
#endif
#endif
