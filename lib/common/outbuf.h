/* SPDX-License-Identifier: MIT */
/*
 * The output buffer: every printer of the library writes text through it. One buffer,
 * three places its bytes go:
 *   - a file descriptor (kt_out_new, ktrace_out_new): written out in blocks of
 *     KT_OUT_SIZE; the first write error is kept and returned by kt_out_flush (EPIPE
 *     included, so `ktrace report | head` stops quietly);
 *   - caller memory (KT_OUT_MEM): what does not fit is counted, not written, so len
 *     is the length the whole text needs (snprintf's rule; buf may be NULL, cap 0);
 *   - a growing heap string (KT_OUT_HEAP): kt_out_str gives it NUL-terminated; when
 *     memory runs out error is -ENOMEM and nothing more is added.
 * Writes are inline while the buffer has room; numbers go through common/numfmt.h.
 */
#ifndef KTRACE_COMMON_OUTBUF_H
#define KTRACE_COMMON_OUTBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/numfmt.h"
#include "common/numspan.h"

#define KT_OUT_SIZE (256 * 1024)

enum { KT_OUT_TO_HEAP = 0, KT_OUT_TO_MEM = 1, KT_OUT_TO_FD = 2 };

struct ktrace_out {
	char *buf;
	size_t cap;
	size_t len;            /* in memory: may exceed cap (the length the text needs) */
	struct kt_nums *nums;  /* in memory, when set: the numbers written, noted and left
				* as '0's (numspan.h); text read back must not be kept */
	int to;                /* KT_OUT_TO_* (zeroed: an empty heap string) */
	int fd;
	int error;             /* first negative errno (write, or -ENOMEM), 0 if none */
	uint64_t flushed;      /* to fd: bytes written so far (where the buffer starts) */
};

/* A buffer over memory p[0..cap), for an initializer. */
#define KT_OUT_MEM(p, n) ((struct ktrace_out){ .buf = (p), .cap = (n), .to = KT_OUT_TO_MEM })
/* An empty growing heap string (kt_out_heap_free frees it). */
#define KT_OUT_HEAP ((struct ktrace_out){ .to = KT_OUT_TO_HEAP })

/* A new buffer to fd (not closed by it); NULL when out of memory. free() frees it. */
struct ktrace_out *kt_out_new(int fd);
/* Empties o (nothing written) and clears its error; to fd, flushed is kept. */
void kt_out_reset(struct ktrace_out *o);
/* To fd: writes what is buffered; returns 0 or the first error. */
int kt_out_flush(struct ktrace_out *o);
/* A heap string's text, NUL-terminated ("" when empty or out of memory). */
const char *kt_out_str(struct ktrace_out *o);
void kt_out_heap_free(struct ktrace_out *o);

void kt_out_write_slow(struct ktrace_out *o, const void *p, size_t n);
void kt_out_putc_slow(struct ktrace_out *o, char c);

static inline void kt_out_write(struct ktrace_out *o, const void *src, size_t n)
{
	const char *p = src;

	if (__builtin_expect(o->len <= o->cap && n <= o->cap - o->len, 1)) {
		char *d;

		if (!n)         /* (buf may be NULL: a call that asks for the length) */
			return;
		d = o->buf + o->len;
		o->len += n;
		/* short pieces: two overlapping fixed-size copies, no call */
		if (n >= 8 && n <= 16) {
			memcpy(d, p, 8);
			memcpy(d + n - 8, p + n - 8, 8);
		} else if (n >= 4 && n < 8) {
			memcpy(d, p, 4);
			memcpy(d + n - 4, p + n - 4, 4);
		} else if (n < 4) {
			d[0] = p[0];
			d[n / 2] = p[n / 2];
			d[n - 1] = p[n - 1];
		} else {
			memcpy(d, p, n);
		}
		return;
	}
	kt_out_write_slow(o, p, n);
}

static inline void kt_out_putc(struct ktrace_out *o, char c)
{
	if (__builtin_expect(o->len < o->cap, 1)) {
		o->buf[o->len++] = c;
		return;
	}
	kt_out_putc_slow(o, c);
}

static inline void kt_out_puts(struct ktrace_out *o, const char *s)
{
	kt_out_write(o, s, strlen(s));
}

/* A string literal, without strlen. */
#define kt_out_lit(o, s) kt_out_write((o), (s), sizeof(s) - 1)

/* n spaces (none when n <= 0). */
void kt_out_spaces(struct ktrace_out *o, ptrdiff_t n);

/* printf's text, handed to put in one piece (however long): the one formatted-print
 * helper behind the output buffer's printf. 0, or -ENOMEM or -EOVERFLOW (nothing put). */
int kt_vformat(void (*put)(void *ctx, const char *p, size_t n), void *ctx, const char *fmt,
	       va_list ap);
void kt_out_printf(struct ktrace_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- numbers ---- */

/* Notes a number about to be written at o->buf[at..at+len) in o->nums (numspan.h's
 * rules: hex 0 decimal of at most 15 digits, else lower-case hex of hex = len digits);
 * called only when o->nums is set. True when noted: the caller then writes len '0's
 * instead of the digits (the consumer of the notes has the value; numspan.h). */
bool kt_out_note_num(struct ktrace_out *o, size_t at, unsigned len, uint64_t v, unsigned hex);
/* A number that did not fit in the room left, or padded to a width (0: none). */
void kt_out_num_slow(struct ktrace_out *o, uint64_t v, int width, bool hex, bool upper);

/* Decimal, right-aligned in width (0: no padding). Unpadded ones are noted in nums. */
static inline void kt_out_u64(struct ktrace_out *o, uint64_t v, int width)
{
	if (__builtin_expect(width <= 0 && o->len <= o->cap && o->cap - o->len >= 20, 1)) {
		unsigned n = kt_dec_len(v);

		if (__builtin_expect(o->nums != NULL, 0) && kt_out_note_num(o, o->len, n, v, 0))
			memcpy(o->buf + o->len, "00000000000000000000", n);
		else
			kt_put_dec(o->buf + o->len + n, v);
		o->len += n;
		return;
	}
	kt_out_num_slow(o, v, width, false, false);
}

void kt_out_i64_width(struct ktrace_out *o, int64_t v, int width);

static inline void kt_out_i64(struct ktrace_out *o, int64_t v, int width)
{
	if (width > 0) {
		kt_out_i64_width(o, v, width);
	} else if (v < 0) {
		kt_out_putc(o, '-');
		kt_out_u64(o, -(uint64_t)v, 0);
	} else {
		kt_out_u64(o, (uint64_t)v, 0);
	}
}

/* Hex without prefix, zero-padded to digits (0: no padding; at most 16), upper or
 * lower case. Unpadded lower-case ones are noted in nums. */
static inline void kt_out_hex_case(struct ktrace_out *o, uint64_t v, int digits, bool upper)
{
	if (__builtin_expect(digits <= 0 && o->len <= o->cap && o->cap - o->len >= 16, 1)) {
		unsigned n = kt_hex_len(v);

		if (__builtin_expect(o->nums != NULL, 0) && !upper && kt_out_note_num(o, o->len, n, v, n))
			memcpy(o->buf + o->len, "0000000000000000", n);
		else
			kt_put_hex(o->buf + o->len + n, v, n, upper);
		o->len += n;
		return;
	}
	kt_out_num_slow(o, v, digits, true, upper);
}

/* Lower-case hex without prefix, zero-padded to digits (0: no padding). */
static inline void kt_out_hex(struct ktrace_out *o, uint64_t v, int digits)
{
	kt_out_hex_case(o, v, digits, false);
}

/* "%02x" of a byte */
static inline void kt_out_hex2(struct ktrace_out *o, unsigned v)
{
	kt_out_write(o, kt_hex_pairs[0] + 2 * (v & 0xff), 2);
}

#endif
