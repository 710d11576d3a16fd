/* SPDX-License-Identifier: MIT */
/*
 * Input sources: a regular file is mapped with mmap; a pipe, terminal or other
 * stream is read through a buffer that only ever holds the window a parser asks for,
 * so memory stays bounded by the largest page or chunk, not by the input size.
 */
#ifndef KTRACE_INPUT_H
#define KTRACE_INPUT_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ktrace/error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ktrace_input;

/* Opens path ("-" is standard input). Returns 0 or a negative error code. A file of
 * tracefs (or of debugfs's tracing directory), standard input from one included, is
 * refused (-EPERM, the message says how to capture first): a live trace_pipe_raw hands
 * out its events as it is read, taking them from the kernel's buffer. */
KTRACE_API int ktrace_input_open(const char *path, struct ktrace_input **out, struct ktrace_error *err);
/* Wraps memory the caller keeps alive for the input's lifetime. */
KTRACE_API int ktrace_input_from_memory(const void *data, size_t len, const char *name,
			     struct ktrace_input **out, struct ktrace_error *err);
KTRACE_API void ktrace_input_close(struct ktrace_input *in);

KTRACE_API const char *ktrace_input_name(const struct ktrace_input *in);
/* Total size in bytes, or -1 when it is not known in advance (a pipe). */
KTRACE_API int64_t ktrace_input_size(const struct ktrace_input *in);
/* True when the whole input is addressable at once (ktrace_input_data). */
KTRACE_API bool ktrace_input_is_mapped(const struct ktrace_input *in);
/* The whole input for mapped inputs, NULL for streams. */
KTRACE_API const uint8_t *ktrace_input_data(const struct ktrace_input *in);

/*
 * Makes len bytes at offset available and points *out at them. Returns 0, or
 * -ENODATA (with "offset X: ... truncated" in err) when the input ends first.
 * For streams the window stays valid until the next call, offsets may only move
 * forward (an offset before the previous window's start fails with -ESPIPE), and
 * len is the caller's responsibility: check it against the format's limits first.
 */
KTRACE_API int ktrace_input_get(struct ktrace_input *in, uint64_t offset, size_t len,
		     const uint8_t **out, struct ktrace_error *err);
/* Like ktrace_input_get but never fails for a short input: returns the number of bytes
 * available at offset (at most len; 0 at end of input), or a negative error code. */
KTRACE_API int64_t ktrace_input_peek(struct ktrace_input *in, uint64_t offset, size_t len,
			  const uint8_t **out, struct ktrace_error *err);

/*
 * Makes a stream input addressable at once: what is left of the stream is copied to
 * an anonymous temporary file (in $TMPDIR, else /tmp) that is then mapped, so that
 * formats which seek (trace.dat) can be read from a pipe. Memory stays bounded: the
 * copy is on disk, and at most KTRACE_SPOOL_MAX bytes (environment: a number of bytes,
 * or with K, M, G or T; 0 for no limit; default 4 GiB): beyond that it fails with
 * -EFBIG and a message that names the limit (-EINVAL for a value that is no size).
 * Nothing happens for an input that is mapped already. Fails with -ESPIPE when the
 * stream was read past its first window. (Check the first bytes before: an input that
 * cannot be the format wanted need not be copied.)
 */
KTRACE_API int ktrace_input_spool(struct ktrace_input *in, struct ktrace_error *err);

#ifdef __cplusplus
}
#endif
#endif
