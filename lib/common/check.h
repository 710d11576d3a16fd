/* SPDX-License-Identifier: MIT */
/*
 * Error helpers for the library (zstd's RETURN_ERROR_IF, SQLite's NEVER/ALWAYS):
 *
 *   KT_RETURN_ERROR_IF(cond, err, code, fmt...)   when cond, sets err (code, message)
 *                                                 and returns code from the caller
 *   KT_RETURN_ERROR_AT_IF(cond, err, code, offset, fmt...)   the same, at a file offset
 *   KT_FORWARD_IF_ERROR(expr)                     returns expr's value when negative
 *   kt_error_oom(err)                             -ENOMEM with "out of memory" in err
 *
 *   if (NEVER(cond))    cond cannot be true; if (ALWAYS(cond))   cond cannot be false.
 *   Builds with KTRACE_DEBUG (make SAN=1) assert it; other builds only test cond, so
 *   the code after it keeps handling the impossible case harmlessly.
 */
#ifndef KTRACE_COMMON_CHECK_H
#define KTRACE_COMMON_CHECK_H

#include <assert.h>
#include <errno.h>

#include <ktrace/error.h>

/* -ENOMEM, and err (when not NULL) says "out of memory": the one place that text is. */
int kt_error_oom(struct ktrace_error *err);

#define KT_RETURN_ERROR_IF(cond, err, code, ...)                                           \
	do {                                                                               \
		if (cond)                                                                  \
			return ktrace_error_set((err), (code), __VA_ARGS__);               \
	} while (0)

#define KT_RETURN_ERROR_AT_IF(cond, err, code, offset, ...)                                \
	do {                                                                               \
		if (cond)                                                                  \
			return ktrace_error_at((err), (code), (offset), __VA_ARGS__);      \
	} while (0)

#define KT_FORWARD_IF_ERROR(expr)                                                          \
	do {                                                                               \
		int kt_fwd_ret_ = (expr);                                                  \
		if (kt_fwd_ret_ < 0)                                                       \
			return kt_fwd_ret_;                                                \
	} while (0)

#ifdef KTRACE_DEBUG
#define NEVER(x) ((x) ? (assert(!"NEVER: " #x), 1) : 0)
#define ALWAYS(x) ((x) ? 1 : (assert(!"ALWAYS: " #x), 0))
#else
#define NEVER(x) (!!(x))
#define ALWAYS(x) (!!(x))
#endif

#endif
