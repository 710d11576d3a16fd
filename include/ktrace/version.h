/* SPDX-License-Identifier: MIT */
#ifndef KTRACE_VERSION_H
#define KTRACE_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, e.g. "0.1.0". */
const char *ktrace_version(void);

#ifdef __cplusplus
}
#endif
#endif
