/* SPDX-License-Identifier: MIT */
/*
 * Buffered output for the library's sinks (<ktrace/view.h>): writes to a file descriptor
 * in large blocks. The first write error is kept and returned by ktrace_out_flush
 * (EPIPE included, so that `ktrace report | head` stops quietly).
 */
#ifndef KTRACE_OUT_H
#define KTRACE_OUT_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <ktrace/error.h>

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

/*
 * An output file made the way the library's own writers make theirs:
 *   - a regular file, or a new one, is written under a temporary name beside it
 *     ("PATH.tmpXXXXXX", open for reading and writing) and renamed over PATH by
 *     ktrace_out_file_commit; an existing file keeps its mode and (when allowed) its
 *     owner, and is replaced only when the user may write it (as cp and a shell's
 *     redirection judge it; root may); a symbolic link is followed;
 *   - "-" (standard output), a FIFO or a device is written in place, as a stream;
 *   - a directory or anything else is refused.
 * The temporary file is removed by ktrace_out_file_abort, by a failed commit, and by
 * any fatal signal (SIGINT, SIGTERM, SIGHUP...) at its default action: the signals are
 * held from before the file exists until its removal is arranged.
 */
struct ktrace_out_file;

/* 0 with *out, or a negative errno with a message naming path in err. */
KTRACE_API int ktrace_out_file_open(const char *path, struct ktrace_out_file **out,
				    struct ktrace_error *err);
/* The descriptor to write to. */
KTRACE_API int ktrace_out_file_fd(const struct ktrace_out_file *f);
/* True for standard output, a FIFO or a device (written in place). */
KTRACE_API bool ktrace_out_file_is_stream(const struct ktrace_out_file *f);
/* fsync and rename (or close the stream), then frees f: 0, or a negative errno with a
 * message naming the file in err (the temporary file is then removed). */
KTRACE_API int ktrace_out_file_commit(struct ktrace_out_file *f, struct ktrace_error *err);
/* Removes the temporary file and frees f (what went to a stream stays). NULL is fine. */
KTRACE_API void ktrace_out_file_abort(struct ktrace_out_file *f);

#ifdef __cplusplus
}
#endif
#endif
