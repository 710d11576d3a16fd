/* SPDX-License-Identifier: MIT */
/*
 * KTRACE_API marks the declarations libktrace.so exports. The library is built with
 * -fvisibility=hidden, so everything without the mark stays internal, and the explicit
 * symbol list lib/libktrace.map names the same set with its version.
 */
#ifndef KTRACE_API_H
#define KTRACE_API_H

#if defined(KTRACE_BUILDING) && defined(__GNUC__)
#define KTRACE_API __attribute__((visibility("default")))
#else
#define KTRACE_API
#endif

#endif
