// SPDX-License-Identifier: MIT
/* The start of a record's line as trace-cmd report prints it, without printf: the
 * report's lines (lib/engine/engine_source_tracedat.c) and the timeline page's (which rebuilds
 * them from columns) share it. */
#ifndef KTRACE_ENGINE_LINE_PREFIX_H
#define KTRACE_ENGINE_LINE_PREFIX_H

#include <stddef.h>
#include <stdint.h>

enum {
	KT_PREFIX_USECS = 1,     /* "%16s-%-5d [%03d] %5lu.%06lu: %s: %*s" (20 - name) */
	KT_PREFIX_NSECS = 2,     /* the same with the time as "%12lu" nanoseconds */
	KT_PREFIX_GENERIC = 3,   /* other formats: "<...>" for no comm, "[---]" for no CPU,
				    "%-20s " for the name (kt_stream_generic_line) */
};

/* The prefix of style st into p (room for 256 + name + comm bytes); returns its length. */
size_t kt_line_prefix(char *p, int st, const char *comm, int64_t tid, int cpu, uint64_t ts,
		      const char *name);

#endif
