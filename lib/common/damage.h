/* SPDX-License-Identifier: MIT */
/* Readers tell the damaged places they skip to the caller's function
 * (ktrace_error_damage_handler, <ktrace/error.h>). */
#ifndef KTRACE_COMMON_DAMAGE_H
#define KTRACE_COMMON_DAMAGE_H

#include <ktrace/error.h>

/* Tells the damage handler, if one is set, about err (with its offset) in input. */
void kt_damage(const char *input, const struct ktrace_error *err);

#endif
