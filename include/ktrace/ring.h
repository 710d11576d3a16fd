/* SPDX-License-Identifier: MIT */
/* ktrace ring component: raw ftrace ring-buffer sub-buffers (the libtraceevent-compatible kbuffer API is <ktrace/kbuffer.h>). */
#ifndef KTRACE_RING_H
#define KTRACE_RING_H

#include <ktrace/api.h>

#include <stddef.h>



#ifdef __cplusplus
extern "C" {
#endif

/*
 * Raw ftrace ring-buffer dumps: a sequence of equal-sized sub-buffers, as read from
 * tracefs per_cpu/cpuN/trace_pipe_raw. They carry no magic number, so the layout
 * (sub-buffer size, kernel long size, byte order) is inferred from the page headers.
 */



struct ktrace_ring_layout {
	size_t page_size;   /* sub-buffer size in bytes; 0 = detect */
	int long_size;      /* kernel long: 4 or 8; 0 = detect */
	int big_endian;     /* 0 little, 1 big; -1 = detect */
};

/*
 * Fills in the unknown fields of *layout from the first len bytes of a dump (up to
 * KTRACE_RING_DETECT_BYTES are used) and returns a confidence score: 0 when no layout
 * explains the data, more when more sub-buffers were consistent with the chosen one.
 * Known fields are kept as given. A sub-buffer whose bytes are all zero (a buffer
 * never written, or padding) fits every layout and counts neither way; no layout
 * explains data that is all zero. A layout explains the data when its first other
 * sub-buffer and at least 3 in 4 of the others (of the first 32) are consistent: the
 * commit word holds only the size and the lost-events flags (sign-extended on 64-bit
 * kernels), and the walk over the records ends exactly on the commit size. The
 * smallest sub-buffer size that explains the data wins (a larger one would skip the
 * headers in between), unless no header it reads (a sub-buffer with or without
 * records) sits at an odd index: what follows each header up to the next even index
 * is then zero or not a header, as in sub-buffers twice as big (the kernel zeroes the
 * part of a sub-buffer it does not use), and the bigger size is taken when it fits
 * with the same long size and byte order. KTRACE_RING_AMBIGUOUS (negative) when two
 * long sizes or byte orders explain the data equally well: *layout then holds one of
 * them, and the caller should ask which (fixing the other fields tells them apart).
 */
#define KTRACE_RING_AMBIGUOUS (-1)
/* The bytes from a dump's start that ktrace_ring_detect looks at, at most: two of the
 * largest sub-buffers it considers (1 MiB). */
#define KTRACE_RING_DETECT_BYTES (2u << 20)
KTRACE_API int ktrace_ring_detect(const void *data, size_t len, struct ktrace_ring_layout *layout);

#ifdef __cplusplus
}
#endif
#endif
