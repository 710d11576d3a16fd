/* SPDX-License-Identifier: MIT */
/* Format detection by content (never by file name), shared by every subcommand. */
#ifndef KTRACE_DETECT_H
#define KTRACE_DETECT_H

#include <ktrace/api.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ktrace_format {
	KTRACE_FORMAT_UNKNOWN = 0,
	KTRACE_FORMAT_FTRACE_PAGES,   /* raw per_cpu/cpuN/trace_pipe_raw sub-buffers */
	KTRACE_FORMAT_TRACEDAT,       /* trace-cmd trace.dat, any version */
	KTRACE_FORMAT_DARWIN_V3,      /* Darwin ktrace file, V3 chunked container */
	KTRACE_FORMAT_DARWIN_RAW,     /* Darwin legacy kdebug raw stream (V1/V2) */
	KTRACE_FORMAT_KCDATA,         /* Apple kernel chunked data */
	KTRACE_FORMAT_KOFF,           /* KOFF circular trace buffer file */
	KTRACE_FORMAT_ELF,            /* ELF program or core file */
};

/* How many leading bytes ktrace_detect_format wants to see (it copes with fewer). */
#define KTRACE_DETECT_BYTES 65536

/* Looks at the first len bytes of an input and runs the detectors of every format
 * the engine reads (lib/engine/engine_formats.c), in order. */
KTRACE_API enum ktrace_format ktrace_detect_format(const void *head, size_t len);
KTRACE_API const char *ktrace_detect_format_name(enum ktrace_format format);

#ifdef __cplusplus
}
#endif
#endif
