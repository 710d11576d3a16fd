/* SPDX-License-Identifier: MIT */
/*
 * Buffered output for report-style printing: writes to a file descriptor in large
 * blocks, with fast integer formatting. The first write error is kept and returned
 * by kt_out_flush (EPIPE included, so `ktrace report | head` stops quietly).
 */
#ifndef KTRACE_COMMON_OUTBUF_H
#define KTRACE_COMMON_OUTBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define KT_OUT_SIZE (256 * 1024)

struct ktrace_out {
	int fd;
	int error;        /* first negative errno from write, 0 if none */
	uint64_t flushed; /* bytes written to fd so far (where the buffer starts) */
	size_t len;
	char buf[KT_OUT_SIZE];
};

void kt_out_init(struct ktrace_out *o, int fd);
int kt_out_flush(struct ktrace_out *o);
void kt_out_write(struct ktrace_out *o, const void *p, size_t n);
/* printf's text, handed to put in one piece (however long): the one formatted-print
 * helper behind every output buffer's printf. 0, or -ENOMEM (nothing put). */
int kt_vformat(void (*put)(void *ctx, const char *p, size_t n), void *ctx, const char *fmt,
	       va_list ap);
void kt_out_printf(struct ktrace_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Decimal, right-aligned in width (0: no padding). */
void kt_out_u64(struct ktrace_out *o, uint64_t v, int width);
void kt_out_i64(struct ktrace_out *o, int64_t v, int width);
/* Lower-case hex without prefix, zero-padded to digits (0: no padding). */
void kt_out_hex(struct ktrace_out *o, uint64_t v, int digits);
void kt_out_spaces(struct ktrace_out *o, int n);

static inline void kt_out_putc(struct ktrace_out *o, char c)
{
	if (o->len == sizeof(o->buf))
		kt_out_flush(o);
	o->buf[o->len++] = c;
}

static inline void kt_out_puts(struct ktrace_out *o, const char *s)
{
	kt_out_write(o, s, strlen(s));
}

/* Formats v in decimal at the end of buf[0..32); returns the first digit. */
char *kt_fmt_u64(char buf[32], uint64_t v);

#endif
