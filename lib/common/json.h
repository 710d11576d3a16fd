/* SPDX-License-Identifier: MIT */
/*
 * A streaming JSON writer on top of struct ktrace_out, for every format's JSON output.
 *
 * Values are written in document order; the writer inserts commas, colons, new lines
 * and indentation. Strings are taken as bytes: valid UTF-8 is kept as it is; '"',
 * '\\', control characters (below 0x20, and DEL) and every byte that is not part of a
 * valid, shortest-form UTF-8 sequence are escaped (\u00NN: such a byte reads back as
 * the code point of the same number). The output is always valid UTF-8 and valid
 * JSON. Numbers are written exactly (64-bit integers, never through double).
 *
 * This is the only JSON writer of the library: every JSON output goes through it.
 */
#ifndef KTRACE_COMMON_JSON_H
#define KTRACE_COMMON_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/outbuf.h"

#define KT_JSON_MAX_DEPTH 512   /* deeper nesting is not supported (commas are lost) */

struct kt_json {
	struct ktrace_out *out;
	int indent;                 /* spaces per level; 0 writes everything on one line */
	int depth;
	bool after_key;             /* the next value follows "key": */
	uint8_t count[KT_JSON_MAX_DEPTH];    /* 0: container empty so far, 1: has values */
	uint8_t flow[KT_JSON_MAX_DEPTH];     /* container written on one line */
	char closer[KT_JSON_MAX_DEPTH];      /* '}' or ']': what ends the container */
};

void kt_json_init(struct kt_json *j, struct ktrace_out *out, int indent);

/* flow: keep this container on one line ("[1, 2, 3]") even when indenting. */
void kt_json_begin_object(struct kt_json *j, bool flow);
void kt_json_end_object(struct kt_json *j);
void kt_json_begin_array(struct kt_json *j, bool flow);
void kt_json_end_array(struct kt_json *j);

/* An object key; the next call writes its value. */
void kt_json_key(struct kt_json *j, const char *key, size_t len);
static inline void kt_json_key_cstr(struct kt_json *j, const char *key)
{
	kt_json_key(j, key, __builtin_strlen(key));
}

void kt_json_string(struct kt_json *j, const char *s, size_t len);
/* A NUL-terminated string, or null when s is NULL. */
void kt_json_cstr(struct kt_json *j, const char *s);
void kt_json_u64(struct kt_json *j, uint64_t v);
void kt_json_i64(struct kt_json *j, int64_t v);
/* A number already written as JSON text (a real, "1.5e+20"), copied as it is. */
void kt_json_number(struct kt_json *j, const char *text, size_t len);
/* v / 10^decimals with exactly `decimals` digits after the point (0 to 18): times in
 * microseconds from nanoseconds as kt_json_fixed(j, ns, 3). */
void kt_json_fixed(struct kt_json *j, uint64_t v, unsigned decimals);
void kt_json_bool(struct kt_json *j, bool v);
void kt_json_null(struct kt_json *j);
/* A key and its value in one call (cstr: null when NULL). */
void kt_json_kv_u64(struct kt_json *j, const char *key, uint64_t v);
void kt_json_kv_i64(struct kt_json *j, const char *key, int64_t v);
void kt_json_kv_cstr(struct kt_json *j, const char *key, const char *s);
void kt_json_kv_bool(struct kt_json *j, const char *key, bool v);
/* v, or null when have is false (a timestamp of nothing). */
void kt_json_kv_opt_u64(struct kt_json *j, const char *key, bool have, uint64_t v);
/* Ends the document with a new line, first ending whatever is still open (a key
 * without its value gets null): a document cut short by an error is still complete
 * JSON, the error going to the caller. */
void kt_json_finish(struct kt_json *j);

/* Writes s as a quoted, escaped JSON string. */
void kt_json_write_string(struct ktrace_out *o, const char *s, size_t len);

/*
 * Decodes one character of s[0..len) (len > 0): the code point, and the number of
 * bytes it used. A byte that does not start a valid, shortest-form UTF-8 sequence of
 * a Unicode scalar value decodes as itself, one byte long (so a return of 1 with a
 * code point >= 0x80 marks an invalid byte).
 */
size_t kt_utf8_next(const uint8_t *s, size_t len, uint32_t *cp);

/* Writes code point cp as UTF-8. */
void kt_utf8_put(struct ktrace_out *o, uint32_t cp);

#endif
