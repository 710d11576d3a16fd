/* SPDX-License-Identifier: MIT */
/* The summary of each format that ktrace_info (info.c) picks from; the kcdata sink and
 * the fuzz harnesses call them too. Each prints, as text or as one JSON object, what it
 * could read, then returns 0 or a negative error code with err set. Internal. */
#ifndef KTRACE_SINKS_INFO_H
#define KTRACE_SINKS_INFO_H

#include <stdbool.h>

#include <ktrace/error.h>
#include <ktrace/input.h>
#include <ktrace/out.h>
#include <ktrace/ring.h>
#include <ktrace/view.h>

/* A raw ring-buffer dump: the layout (fields at their "detect" values inferred and
 * filled in), the numbers of sub-buffers and events, the time range, lost events and
 * events by id (every sub-buffer is walked). */
int kt_info_pages(struct ktrace_input *in, struct ktrace_ring_layout *layout, bool json,
		  struct ktrace_out *out, struct ktrace_error *err);

/* Darwin data: format, versions, timebase, counts, first/last event, chunks (o->json:
 * as JSON). */
int kt_info_darwin(struct ktrace_input *in, const struct ktrace_view_darwin_opts *o,
		   struct ktrace_out *out, struct ktrace_error *err);

/* A trace.dat file: header, metadata and option summary, then per buffer and CPU the
 * event counts, first/last timestamps and lost events (every record is visited).
 * flags: TRACEDAT_* open flags (TRACEDAT_MAPPED_FILE only when in is mapped). */
int kt_info_tracedat(struct ktrace_input *in, unsigned int flags, bool json,
		     struct ktrace_out *out, struct ktrace_error *err);

/* A KOFF buffer file or snapshot: its header, the records (count, first and last time,
 * processes and threads) and counters. */
int kt_info_koff(struct ktrace_input *in, bool json, struct ktrace_out *out,
		 struct ktrace_error *err);

/* kcdata: a summary (begin type, item counts by type, containers, sizes, whether it
 * decodes; printed also when the data turns out corrupt), or with items a listing of
 * every item from the iterator. */
int kt_info_kcdata(struct ktrace_input *in, bool items, bool json, struct ktrace_out *out,
		   struct ktrace_error *err);

#endif
