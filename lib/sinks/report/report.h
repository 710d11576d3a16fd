/* SPDX-License-Identifier: MIT */
/* The report of each format that ktrace_report (report.c) picks from; the info sink and
 * the fuzz harnesses call them too. Internal. */
#ifndef KTRACE_SINKS_REPORT_H
#define KTRACE_SINKS_REPORT_H

#include <ktrace/detect.h>
#include <ktrace/error.h>
#include <ktrace/input.h>
#include <ktrace/out.h>
#include <ktrace/ring.h>
#include <ktrace/view.h>

/* what the info and kcdata sinks use of the report's helpers: Darwin names and times,
 * stackshot listings, the walk over raw sub-buffers */
#include "sinks/report/report_darwin_common.h"
#include "sinks/report/report_pages_walk.h"

/*
 * Lists every sub-buffer of a raw ring-buffer dump and every event in it: file
 * offset, timestamp, length, event id, and lost-event counts (report_pages.c). layout
 * fields left at their "detect" values are inferred, and filled in. Returns 0, or a
 * negative error code with err set (after printing everything that could be read) for
 * truncated or corrupt input.
 */
int kt_report_pages(struct ktrace_input *in, struct ktrace_ring_layout *layout,
		    struct ktrace_out *out, struct ktrace_error *err);

/*
 * Darwin kdebug data (report_darwin.c): one line per event (time, delta, CPU, thread,
 * pid and process, thread name, qualifier, name, arg1..arg4, elapsed time of END events
 * matched with their START); with durations one line per START/END pair and a summary
 * by event; CSV or JSON as o says. Returns 0, or a negative error code with err set
 * after printing what could be read.
 */
int kt_report_darwin(struct ktrace_input *in, const struct ktrace_view_darwin_opts *o,
		     struct ktrace_out *out, struct ktrace_error *err);

/* A KOFF buffer file or snapshot as ktrace(1) prints it, with its default options
 * (report_koff.c). */
int kt_report_koff(struct ktrace_input *in, struct ktrace_out *out, struct ktrace_error *err);

/*
 * trace.dat (report_tracedat_text.c, report_latency.c, report_profile.c): the report of
 * every file of o as trace-cmd 3.1.6 prints it; with -w (one file) each sched_switch
 * line followed by the wake-up latency, then the latency summary; with --profile (one
 * file, its top buffer) the per-task profile instead of the records. Return 0, or a
 * negative error code with err set (and *err_file, if not NULL, the path at fault or
 * NULL) after printing what could be printed; a bad -F filter gives -EINVAL with
 * libtraceevent's message.
 */
int ktrace_view_tracedat_text(const struct ktrace_view_text_opts *o, struct ktrace_out *out,
			      struct ktrace_error *err, const char **err_file);
int ktrace_view_tracedat_wakeup(const struct ktrace_view_text_opts *o, struct ktrace_out *out,
				struct ktrace_error *err, const char **err_file);
int ktrace_view_tracedat_profile(const struct ktrace_view_text_opts *o,
				 const struct ktrace_view_profile_opts *po,
				 struct ktrace_out *out, struct ktrace_error *err,
				 const char **err_file);

/* f, or when f is KTRACE_FORMAT_UNKNOWN the format in's first bytes tell. */
enum ktrace_format kt_report_format_of(struct ktrace_input *in, enum ktrace_format f,
				       struct ktrace_error *err);

/* The error for an input that neither report nor info reads (format: what it was
 * detected as): an empty file, data that is all zero, an unrecognised or unsupported
 * format. Returns the negative code set in err. */
int kt_report_unhandled(struct ktrace_input *in, enum ktrace_format format,
			struct ktrace_error *err);

#endif
