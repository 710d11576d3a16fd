/* SPDX-License-Identifier: MIT */
/*
 * Raw ftrace ring-buffer dumps: a sequence of equal-sized sub-buffers, as read from
 * tracefs per_cpu/cpuN/trace_pipe_raw. They carry no magic number, so the layout
 * (sub-buffer size, kernel long size, byte order) is inferred from the page headers.
 */
#ifndef KTRACE_FTRACE_PAGES_H
#define KTRACE_FTRACE_PAGES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ktrace_pages_layout {
	size_t page_size;   /* sub-buffer size in bytes; 0 = detect */
	int long_size;      /* kernel long: 4 or 8; 0 = detect */
	int big_endian;     /* 0 little, 1 big; -1 = detect */
};

/*
 * Fills in the unknown fields of *layout from the first len bytes of a dump and
 * returns a confidence score: 0 when no layout explains the data, more when more
 * sub-buffers were consistent with the chosen one. Known fields are kept as given.
 */
int ktrace_pages_detect(const void *data, size_t len, struct ktrace_pages_layout *layout);

#ifdef __cplusplus
}
#endif
#endif
