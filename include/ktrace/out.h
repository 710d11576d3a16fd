/* SPDX-License-Identifier: MIT */
/*
 * Buffered output for the library's sinks (<ktrace/view.h>): writes to a file descriptor
 * in large blocks. The first write error is kept and returned by ktrace_out_flush
 * (EPIPE included, so that `ktrace report | head` stops quietly).
 */
#ifndef KTRACE_OUT_H
#define KTRACE_OUT_H

#include <ktrace/api.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ktrace_out;

/* A new output to fd (not closed by the library). NULL with errno on failure. */
KTRACE_API struct ktrace_out *ktrace_out_new(int fd);
/* Appends bytes; errors are kept for ktrace_out_flush. */
KTRACE_API void ktrace_out_write(struct ktrace_out *o, const void *p, size_t n);
/* Writes what is buffered. Returns 0 or the first write error (negative errno). */
KTRACE_API int ktrace_out_flush(struct ktrace_out *o);
/* Frees o without flushing. */
KTRACE_API void ktrace_out_free(struct ktrace_out *o);

#ifdef __cplusplus
}
#endif
#endif
