/* SPDX-License-Identifier: MIT */
/*
 * Inside `ktrace summary` (<ktrace/view.h> ktrace_view_summary): the figures it gathers
 * from the model and the stream (summary.c), and their text and JSON forms
 * (summary_print.c). docs/summary.md has the rules and the JSON schema.
 */
#ifndef KTRACE_SINKS_SUMMARY_INT_H
#define KTRACE_SINKS_SUMMARY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/view.h>

#include "sinks/summary/summary.h"

/* The text or JSON of what sm gathered. 0 or -ENOMEM. */
int sm_print(struct sm *sm, struct ktrace_out *out);

#endif
