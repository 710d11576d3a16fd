/* SPDX-License-Identifier: MIT */
#ifndef KTRACE_VERSION_H
#define KTRACE_VERSION_H

#include <ktrace/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, e.g. "0.1.0". */
KTRACE_API const char *ktrace_version(void);

#ifdef __cplusplus
}
#endif
#endif
