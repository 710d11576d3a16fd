/* SPDX-License-Identifier: MIT */
/*
 * Inside `ktrace top` (<ktrace/view.h> ktrace_view_top, docs/top.md): the stream over a
 * live session (top_source.c) that the model reads, and the figures per interval
 * (top.c).
 */
#ifndef KTRACE_SINKS_TOP_INT_H
#define KTRACE_SINKS_TOP_INT_H

#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/stream.h>
#include <ktrace/tracefs.h>

struct top_source;

/*
 * A stream of one input over the records of the in_memory session sess as they are
 * captured: ktrace_stream_next gives 0 when none is waiting (more may come later), and
 * holds back every record at or after the time top_source_until set (none before the
 * first call), so that an interval is cut where the records before it are all read. A
 * record captured later than newer ones of another CPU is handed out with the time of
 * the newest handed out before (the model's times never go back): top_source_late
 * counts them. *src belongs to the stream.
 */
int top_stream_open(struct ktrace_tracefs_session *sess, struct ktrace_stream **out,
		    struct top_source **src, struct ktrace_error *err);
void top_source_until(struct top_source *t, uint64_t until);
uint64_t top_source_late(const struct top_source *t);
/* The name the kernel has for tid (sched_switch names, saved command lines): "" when
 * not known. */
const char *top_source_comm(struct top_source *t, int64_t tid);

#endif
