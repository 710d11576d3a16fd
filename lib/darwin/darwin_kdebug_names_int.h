/* SPDX-License-Identifier: MIT */
/* The built-in kdebug names table (kdebug_table.c), in the codes-file format. */
#ifndef KTRACE_DARWIN_KDEBUG_NAMES_H
#define KTRACE_DARWIN_KDEBUG_NAMES_H

#include <stddef.h>

#pragma GCC visibility push(hidden)
extern const char kt_kdebug_builtin_table[];
extern const size_t kt_kdebug_builtin_table_len;
#pragma GCC visibility pop

#endif
