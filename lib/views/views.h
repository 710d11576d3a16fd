/* SPDX-License-Identifier: MIT */
/* Views: what the CLI prints, one function per format and report style. */
#ifndef KTRACE_VIEWS_H
#define KTRACE_VIEWS_H

#include <stdbool.h>

#include <ktrace/error.h>
#include <ktrace/ftrace_pages.h>
#include <ktrace/input.h>
#include <ktrace/kcdata.h>

#include "common/outbuf.h"

/*
 * Lists every sub-buffer of a raw ring-buffer dump and every event in it: file
 * offset, timestamp, length, event id, and lost-event counts. layout fields left at
 * their "detect" values are inferred. Returns 0, or a negative error code with err set
 * (after printing everything that could be read) for truncated or corrupt input.
 */
int ktrace_view_pages(struct ktrace_input *in, struct ktrace_pages_layout *layout,
		      struct kt_out *out, struct ktrace_error *err);

/*
 * kcdata (kcdata_report.c): reads the whole input (raw, gzip'd, base64, compressed
 * kcdata or a Darwin chunk), decodes it with libkdd's rules and prints the tree as
 * format "text" (default, readable), "json" or "plist" (XML property list like
 * libkdd's kdd -p); "info" and "items" go to ktrace_view_kcdata_info. Nothing is
 * printed when the buffer does not decode.
 */
int ktrace_view_kcdata(struct ktrace_input *in, const char *format, struct kt_out *out,
		       struct ktrace_error *err);
/* A summary (begin type, item counts by type, containers, sizes; items false) or a
 * listing of every item (items true) from the iterator. */
int ktrace_view_kcdata_info(struct ktrace_input *in, bool items, struct kt_out *out,
			    struct ktrace_error *err);
/* The tree printers; 0 or -ENOMEM. */
int ktrace_kcdata_print_json(const struct kcdata_node *root, struct kt_out *out);
int ktrace_kcdata_print_plist(const struct kcdata_node *root, struct kt_out *out);
int ktrace_kcdata_print_text(const struct kcdata_node *root, struct kt_out *out);

#endif
