// SPDX-License-Identifier: MIT
#include "common/outbuf.h"

#include <ktrace/out.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/grow.h"

struct ktrace_out *kt_out_new(int fd)
{
	struct ktrace_out *o = malloc(sizeof(*o) + KT_OUT_SIZE);

	if (o) {
		/* the block right after the struct */
		*o = (struct ktrace_out){ .buf = (char *)(o + 1), .cap = KT_OUT_SIZE,
					  .to = KT_OUT_TO_FD, .fd = fd };
	}
	return o;
}

void kt_out_reset(struct ktrace_out *o)
{
	o->len = 0;
	o->error = 0;
}

int kt_out_flush(struct ktrace_out *o)
{
	size_t done = 0;

	if (o->to != KT_OUT_TO_FD)
		return o->error;
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

/* Room for n more bytes in a heap string (and its NUL); false when out of memory. */
static bool heap_room(struct ktrace_out *o, size_t n)
{
	if (o->error)
		return false;
	if (o->len + n + 1 < o->len || kt_grow((void **)&o->buf, &o->cap, o->len + n + 1, 1)) {
		o->error = -ENOMEM;
		o->cap = o->len;        /* every later write comes here, and is dropped */
		return false;
	}
	return true;
}

void kt_out_write_slow(struct ktrace_out *o, const void *src, size_t n)
{
	const char *s = src;

	switch (o->to) {
	case KT_OUT_TO_MEM:
		if (o->len < o->cap) {
			size_t room = o->cap - o->len;

			memcpy(o->buf + o->len, s, n < room ? n : room);
		}
		o->len += n;
		return;
	case KT_OUT_TO_HEAP:
		if (heap_room(o, n)) {
			memcpy(o->buf + o->len, s, n);
			o->len += n;
		}
		return;
	}
	while (n) {
		size_t room = o->cap - o->len;
		size_t k = n < room ? n : room;

		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
		if (o->len == o->cap)
			kt_out_flush(o);
	}
}

void kt_out_putc_slow(struct ktrace_out *o, char c)
{
	switch (o->to) {
	case KT_OUT_TO_MEM:
		if (o->len < o->cap)
			o->buf[o->len] = c;
		o->len++;
		return;
	case KT_OUT_TO_HEAP:
		if (heap_room(o, 1))
			o->buf[o->len++] = c;
		return;
	}
	kt_out_flush(o);
	o->buf[o->len++] = c;
}

const char *kt_out_str(struct ktrace_out *o)
{
	if (!o->buf || o->error || !heap_room(o, 0))
		return "";
	o->buf[o->len] = 0;
	return o->buf;
}

void kt_out_heap_free(struct ktrace_out *o)
{
	free(o->buf);
	*o = KT_OUT_HEAP;
}

void kt_out_spaces(struct ktrace_out *o, ptrdiff_t n)
{
	static const char sp[32] = "                                ";

	while (n > 0) {
		size_t k = n < 32 ? (size_t)n : 32;

		kt_out_write(o, sp, k);
		n -= (ptrdiff_t)k;
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
		return n < 0 ? -EOVERFLOW : 0;
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
	/* (a heap string that lost text is failed; elsewhere, as printf's, it is dropped) */
	if (kt_vformat(out_put, o, fmt, ap) && o->to == KT_OUT_TO_HEAP && !o->error)
		o->error = -ENOMEM;
	va_end(ap);
}

bool kt_out_note_num(struct ktrace_out *o, size_t at, unsigned len, uint64_t v, unsigned hex)
{
	struct kt_nums *m = o->nums;
	struct kt_num *x;

	if (m->n >= KT_NUMS_MAX || at + len > o->cap || at > UINT32_MAX || (hex ? hex > 16 : len > 15))
		return false;
	x = &m->v[m->n++];
	x->value = v;
	x->at = (uint32_t)at;
	x->len = (uint8_t)len;
	x->hex = (uint8_t)hex;
	return true;
}

void kt_out_num_slow(struct ktrace_out *o, uint64_t v, int width, bool hex, bool upper)
{
	char buf[24];
	char *e;

	if (hex) {
		e = kt_fmt_hex(buf, v, width > 0 ? (unsigned)width : 0, upper);
	} else {
		e = kt_fmt_dec(buf, v);
		kt_out_spaces(o, width - (e - buf));
	}
	kt_out_write(o, buf, (size_t)(e - buf));
}

void kt_out_i64_width(struct ktrace_out *o, int64_t v, int width)
{
	char buf[24];
	char *e = kt_fmt_i64(buf, v);

	kt_out_spaces(o, width - (e - buf));
	kt_out_write(o, buf, (size_t)(e - buf));
}

struct ktrace_out *ktrace_out_new(int fd)
{
	return kt_out_new(fd);
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
