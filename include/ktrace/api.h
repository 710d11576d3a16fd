/* SPDX-License-Identifier: MIT */
/*
 * KTRACE_API marks the declarations libktrace.so exports. The library is built with
 * -fvisibility=hidden, so everything without the mark stays internal, and the explicit
 * symbol list lib/libktrace.map names the same set with its version.
 */
#ifndef KTRACE_API_H
#define KTRACE_API_H

#include <string.h>

#if defined(KTRACE_BUILDING) && defined(__GNUC__)
#define KTRACE_API __attribute__((visibility("default")))
#else
#define KTRACE_API
#endif

/*
 * Option structs. Every public struct of options starts with `size_t sz`, the size of
 * the struct the caller was compiled with, so that the library can grow a struct
 * without breaking programs built against an older header: a smaller (older) struct
 * reads as if its missing fields were zero, a larger (newer) one is accepted when the
 * fields this library does not know are all zero, and rejected with -EINVAL otherwise.
 * A NULL pointer to options means all defaults.
 *
 * KTRACE_OPTS(TYPE, NAME, ...) declares `struct TYPE NAME` with every byte zeroed
 * (padding too), sz set, and the designated initializers given:
 *
 *	KTRACE_OPTS(ktrace_stream_opts, opts, .events_dir = dir, .flags = f);
 *	ret = ktrace_stream_open(&s, paths, n, &opts, &err, &bad_path);
 *
 * (GNU C: a statement expression, as libbpf's LIBBPF_OPTS.)
 */
#define KTRACE_OPTS(TYPE, NAME, ...)                                                    \
	struct TYPE NAME = __extension__ ({                                             \
		memset(&NAME, 0, sizeof(struct TYPE));                                  \
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };                \
	})

#endif
