/* SPDX-License-Identifier: MIT */
/* Views: what the CLI prints, one function per format and report style. */
#ifndef KTRACE_VIEWS_H
#define KTRACE_VIEWS_H

#include <ktrace/error.h>
#include <ktrace/ftrace_pages.h>
#include <ktrace/input.h>
#include <ktrace/koff.h>

#include "common/outbuf.h"

/*
 * Lists every sub-buffer of a raw ring-buffer dump and every event in it: file
 * offset, timestamp, length, event id, and lost-event counts. layout fields left at
 * their "detect" values are inferred. Returns 0, or a negative error code with err set
 * (after printing everything that could be read) for truncated or corrupt input.
 */
int ktrace_view_pages(struct ktrace_input *in, struct ktrace_pages_layout *layout,
		      struct kt_out *out, struct ktrace_error *err);

/* How a KOFF buffer is printed (ktrace dump, ktrace report). */
struct koff_view_opts {
	uint64_t scale;     /* nanoseconds per time unit; ktrace(1)'s default is 1000000 */
	int verbose;        /* 1: header and counters, 2: also each record's details */
	int abs_time;       /* -t: every record line starts with its absolute time */
};

/*
 * Prints a KOFF buffer as ktrace(1) does: time-stamp lines "XXXX+<ctime>" and record
 * lines "tid:delta:correl tag:rest", oldest first (see docs/koff.md).
 */
int ktrace_view_koff_reader(struct koff_reader *r, const struct koff_view_opts *o,
			    struct kt_out *out, struct ktrace_error *err);
/* The same for `ktrace report` on a buffer file or a snapshot, with default options. */
int ktrace_view_koff(struct ktrace_input *in, struct kt_out *out, struct ktrace_error *err);

#endif
