/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Darwin views (report and info). Internal. */
#ifndef KTRACE_VIEWS_DARWIN_COMMON_H
#define KTRACE_VIEWS_DARWIN_COMMON_H

#include <ktrace/darwin.h>

#include "common/outbuf.h"

/* "Darwin ktrace file V3 (libktrace)", "Darwin kdebug raw stream V2 (0x55aa0200)"... */
const char *kt_darwin_format_desc(const struct ktrace_darwin_info *info, char *buf, size_t len);
/* Short machine name: "darwin-v3", "darwin-raw". */
const char *kt_darwin_format_id(const struct ktrace_darwin_info *info);
int kt_darwin_version(const struct ktrace_darwin_info *info);
/* ns as seconds with 9 decimals. */
void kt_darwin_put_time(struct ktrace_out *o, uint64_t ns);
/* The name to show for debugid: codes table, then built-in names. */
const char *kt_darwin_event_name(const struct ktrace_darwin_codes *codes, uint32_t debugid,
				 char *buf, size_t len);
/* Writes s (at most max bytes, stops at NUL) with non-printable bytes as '?'; JSON or
 * CSV quoting when asked. Returns the number of characters written (unquoted). */
enum { KT_QUOTE_NONE, KT_QUOTE_CSV };
size_t kt_darwin_put_text(struct ktrace_out *o, const char *s, size_t max, int quote);

/* Stackshots (darwin_stackshot.c): the text listing of stackshot index (its tasks and
 * threads, or why it does not decode), and the JSON array of every stackshot with its
 * decoded tree. */
struct kt_json;
void kt_darwin_list_stackshot(struct ktrace_darwin *k, size_t index, struct ktrace_out *out);
int kt_darwin_json_stackshots(struct kt_json *j, struct ktrace_darwin *k, struct ktrace_error *err);

#endif
