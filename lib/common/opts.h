/* SPDX-License-Identifier: MIT */
/* The one checked copy of a caller's option struct (see KTRACE_OPTS in ktrace/api.h). */
#ifndef KTRACE_COMMON_OPTS_H
#define KTRACE_COMMON_OPTS_H

#include <stddef.h>

#include <ktrace/error.h>

/*
 * Copies the caller's options src into dst, the library's struct of dst_size bytes;
 * both start with `size_t sz`. dst ends up with src's fields, zero for those src is
 * too old to have, and dst->sz == dst_size. src NULL: dst is all defaults (zero).
 * Returns 0, or -EINVAL with a message naming what (the struct's name) when src->sz is
 * smaller than the sz field itself or when src is larger and a byte past dst_size is
 * not zero (an option this library does not know).
 */
int kt_opts_copy(void *dst, size_t dst_size, const void *src, const char *what,
		 struct ktrace_error *err);

/* The same for a struct type: KT_OPTS_COPY(&mine, theirs, "ktrace_stream_opts", err). */
#define KT_OPTS_COPY(dst, src, what, err) kt_opts_copy((dst), sizeof(*(dst)), (src), (what), (err))

#endif
