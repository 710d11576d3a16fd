/* SPDX-License-Identifier: MIT */
/* The kcdata report (kcdata_print.c) and the kcdata tree as JSON inside a larger
 * document. Internal. */
#ifndef KTRACE_VIEWS_KCDATA_JSON_H
#define KTRACE_VIEWS_KCDATA_JSON_H

#include <ktrace/error.h>
#include <ktrace/input.h>
#include <ktrace/kcdata.h>
#include <ktrace/out.h>

#include "common/json.h"

/* Writes root as the next value of j, as `ktrace report --format json` does (keys
 * sorted). 0 or -ENOMEM. */
int kt_kcdata_json_tree(struct kt_json *j, const struct kcdata_node *root);

/*
 * `ktrace report` for kcdata: reads the whole input (raw, gzip'd, base64, compressed
 * kcdata or a Darwin chunk), decodes it with libkdd's rules and prints the tree as
 * format "text" (NULL: the default, readable), "json" or "plist" (XML property list
 * like libkdd's kdd -p); "info" and "items" go to kt_info_kcdata. When the buffer does
 * not decode, the part that does is printed (a complete document) before the error is
 * returned.
 */
int kt_kcdata_report(struct ktrace_input *in, const char *format, struct ktrace_out *out,
		     struct ktrace_error *err);

#endif
