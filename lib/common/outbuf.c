// SPDX-License-Identifier: MIT
#include "common/outbuf.h"

#include <ktrace/out.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void kt_out_init(struct ktrace_out *o, int fd)
{
	o->fd = fd;
	o->error = 0;
	o->flushed = 0;
	o->len = 0;
}

int kt_out_flush(struct ktrace_out *o)
{
	size_t done = 0;

	while (done < o->len && !o->error) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->error = -errno;
			break;
		}
		done += (size_t)n;
	}
	o->flushed += done;
	o->len = 0;
	return o->error;
}

void kt_out_write(struct ktrace_out *o, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		size_t room = sizeof(o->buf) - o->len;
		size_t k = n < room ? n : room;

		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
		if (o->len == sizeof(o->buf))
			kt_out_flush(o);
	}
}

int kt_vformat(void (*put)(void *ctx, const char *p, size_t n), void *ctx, const char *fmt,
	       va_list ap)
{
	char small[512], *big;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0 || (size_t)n < sizeof(small)) {
		va_end(again);
		if (n > 0)
			put(ctx, small, (size_t)n);
		return 0;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		va_end(again);
		return -ENOMEM;
	}
	vsnprintf(big, (size_t)n + 1, fmt, again);
	va_end(again);
	put(ctx, big, (size_t)n);
	free(big);
	return 0;
}

static void out_put(void *ctx, const char *p, size_t n)
{
	kt_out_write(ctx, p, n);
}

void kt_out_printf(struct ktrace_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kt_vformat(out_put, o, fmt, ap);
	va_end(ap);
}

char *kt_fmt_u64(char buf[32], uint64_t v)
{
	char *p = buf + 31;

	*p = 0;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

void kt_out_spaces(struct ktrace_out *o, int n)
{
	static const char sp[] = "                                ";

	while (n > 0) {
		int k = n < 32 ? n : 32;

		kt_out_write(o, sp, (size_t)k);
		n -= k;
	}
}

void kt_out_u64(struct ktrace_out *o, uint64_t v, int width)
{
	char buf[32];
	char *p = kt_fmt_u64(buf, v);
	int len = (int)(buf + 31 - p);

	kt_out_spaces(o, width - len);
	kt_out_write(o, p, (size_t)len);
}

void kt_out_i64(struct ktrace_out *o, int64_t v, int width)
{
	char buf[33];
	char *p = kt_fmt_u64(buf + 1, v < 0 ? -(uint64_t)v : (uint64_t)v);
	int len;

	if (v < 0)
		*--p = '-';
	len = (int)(buf + 32 - p);
	kt_out_spaces(o, width - len);
	kt_out_write(o, p, (size_t)len);
}

void kt_out_hex(struct ktrace_out *o, uint64_t v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	char buf[16];
	int n = 0;

	do {
		buf[15 - n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	while (n < digits && n < 16)
		buf[15 - n++] = '0';
	kt_out_write(o, buf + 16 - n, (size_t)n);
}

struct ktrace_out *ktrace_out_new(int fd)
{
	struct ktrace_out *o = malloc(sizeof(*o));

	if (o)
		kt_out_init(o, fd);
	return o;
}

void ktrace_out_write(struct ktrace_out *o, const void *p, size_t n)
{
	kt_out_write(o, p, n);
}

int ktrace_out_flush(struct ktrace_out *o)
{
	return kt_out_flush(o);
}

void ktrace_out_free(struct ktrace_out *o)
{
	free(o);
}
