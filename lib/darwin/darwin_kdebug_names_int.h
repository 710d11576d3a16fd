/* SPDX-License-Identifier: MIT */
/* The built-in kdebug names table (kdebug_table.c), in the codes-file format. */
#ifndef KTRACE_DARWIN_KDEBUG_NAMES_H
#define KTRACE_DARWIN_KDEBUG_NAMES_H

#include <stddef.h>

struct ktrace_error;

#pragma GCC visibility push(hidden)
extern const char kt_kdebug_builtin_table[];
extern const size_t kt_kdebug_builtin_table_len;
/* Loads the built-in table (once a process): 0, or -ENOMEM (err says so) when it could
 * not be, and the names it holds would be missing. */
int kt_darwin_builtin_names(struct ktrace_error *err);
#pragma GCC visibility pop

#endif
