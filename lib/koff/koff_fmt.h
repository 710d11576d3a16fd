/* SPDX-License-Identifier: MIT */
/*
 * KOFF format strings: parsing and safe rendering.
 *
 * A format read from a buffer is never handed to printf. It is parsed into literal
 * text and conversions; only conversions a record can satisfy are accepted (at most
 * five argument words: d i u o x X c p s f F e E g G a A with the flags - + space # 0,
 * a width and a precision given as digits or '*', and the length modifiers hh h l ll
 * j z t). Rendering formats each conversion through a format that this code builds
 * from the parsed fields, with a value of the matching C type, into a bounded buffer.
 */
#ifndef KTRACE_KOFF_FMT_H
#define KTRACE_KOFF_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Library-internal: not exported from libktrace.so. */
#pragma GCC visibility push(hidden)

#define KOFF_FMT_MAX_CONV  5     /* conversions that take arguments */
#define KOFF_FMT_MAX_WIDTH 256   /* widths and precisions are clamped to this */
#define KOFF_TAG_WIDTH     10

enum koff_len { KL_NONE, KL_HH, KL_H, KL_L, KL_LL, KL_J, KL_Z, KL_T };

struct koff_conv {
	uint32_t start, end;    /* the conversion's span [start, end) in the format */
	char conv;              /* d i u o x X c p s f F e E g G a A */
	uint8_t len;            /* enum koff_len */
	uint8_t flags;          /* KF_* */
	uint8_t argi;           /* argument word holding the value */
	int16_t width;          /* -1 none, -2 from argument word warg */
	int16_t prec;           /* -1 none, -2 from argument word parg */
	uint8_t warg, parg;
};

enum { KF_MINUS = 1, KF_PLUS = 2, KF_SPACE = 4, KF_HASH = 8, KF_ZERO = 16 };

struct koff_fmt {
	int nconv;
	int nwords;             /* argument words consumed */
	struct koff_conv c[KOFF_FMT_MAX_CONV];
	uint32_t err_pos;       /* where parsing failed */
	const char *why;        /* why it failed */
};

/* Parses fmt[0..len). Returns 0, or -EINVAL with f->why and f->err_pos set. */
int koff_fmt_parse(const char *fmt, size_t len, struct koff_fmt *f);

/*
 * Splits a format into its tag (the text before the first ':' when no '%' comes
 * before it) and the rest (after that colon; the whole format when there is no tag).
 * Returns the tag length, or -1 when the format has no tag; *rest_at is where the rest
 * starts.
 */
int koff_fmt_tag(const char *fmt, size_t len, size_t *rest_at);

/*
 * Renders fmt[from..len) with the record's argument words. strs[i] is the string for
 * argument word i when a %s refers to it and the dumper could read it (NULL: shown as
 * <0x...>). Control characters are escaped (\n, \t, \xNN) and a final newline in the
 * format is dropped. Always NUL-terminates out (when outlen > 0); returns the length
 * written.
 */
size_t koff_fmt_render(const char *fmt, size_t len, size_t from, const struct koff_fmt *f,
		       const uint64_t args[5], const char *const strs[5], char *out, size_t outlen);

/* Appends s[0..n) to out with control characters escaped, as render does. */
size_t koff_escape(const char *s, size_t n, char *out, size_t outlen);

#pragma GCC visibility pop

#endif
