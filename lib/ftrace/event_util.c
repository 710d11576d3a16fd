// SPDX-License-Identifier: MIT
/* Arena, string builder and the bounded output buffer with printf-compatible
 * integer and string conversions (the subset print fmts use, with glibc's results). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace/event_internal.h"
#include "common/grow.h"

/* ---- arena ---- */

struct ftev_arena_chunk {
	struct ftev_arena_chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

#define EV_CHUNK_MIN (64 * 1024)

static void *arena_get(struct ftev_arena *a, size_t size, size_t align);

void *ftev_arena_alloc(struct ftev_arena *a, size_t size)
{
	void *p = arena_get(a, size ? size : 1, 16);

	if (p)
		memset(p, 0, size);
	return p;
}

void *ftev_arena_alloc_raw(struct ftev_arena *a, size_t size)
{
	return arena_get(a, size ? size : 1, 8);
}

static void *arena_get(struct ftev_arena *a, size_t size, size_t align)
{
	struct ftev_arena_chunk *c = a->head;
	void *p;

	if (c) {
		c->used = (c->used + align - 1) & ~(align - 1);
		if (c->used > c->size)
			c->used = c->size;
	}
	size = (size + 7) & ~(size_t)7;
	if (!c || c->size - c->used < size) {
		/* chunks grow from 4 KiB to 64 KiB: a registry with a few formats stays small */
		size_t chunk = c ? (c->size * 2 > EV_CHUNK_MIN ? EV_CHUNK_MIN : c->size * 2) : 4096;
		size_t want = size > chunk ? size : chunk;

		c = malloc(sizeof(*c) + want);
		if (!c)
			return NULL;
		c->size = want;
		c->used = 0;
		c->next = a->head;
		a->head = c;
		a->total += want;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

char *ftev_arena_strndup(struct ftev_arena *a, const char *s, size_t n)
{
	char *p = ftev_arena_alloc_raw(a, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

void ftev_arena_free(struct ftev_arena *a)
{
	struct ftev_arena_chunk *c = a->head, *next;

	while (c) {
		next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->total = 0;
}

/* ---- string builder ---- */

void ftev_str_add(struct ftev_str *s, const char *p, size_t n)
{
	if (s->oom)
		return;
	if (s->len + n + 1 > s->cap) {
		char *np = kt_grow(s->p, &s->cap, s->len + n + 1, 64);

		if (!np) {
			s->oom = true;
			return;
		}
		s->p = np;
	}
	memcpy(s->p + s->len, p, n);
	s->len += n;
	s->p[s->len] = 0;
}

void ftev_str_free(struct ftev_str *s)
{
	free(s->p);
	memset(s, 0, sizeof(*s));
}

/* ---- output ---- */

void ftev_out_write_slow(struct ftev_out *o, const char *p, size_t n)
{
	if (o->len < o->cap) {
		size_t room = o->cap - o->len;

		memcpy(o->buf + o->len, p, n < room ? n : room);
	}
	o->len += n;
}

void ftev_out_spaces(struct ftev_out *o, size_t n)
{
	static const char sp[32] = "                                ";

	while (n) {
		size_t k = n < 32 ? n : 32;

		ftev_out_write(o, sp, k);
		n -= k;
	}
}

static void out_fill(struct ftev_out *o, char c, size_t n)
{
	while (n--)
		ftev_out_putc(o, c);
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void ftev_out_u64(struct ftev_out *o, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		p[0] = digit_pairs[2 * r];
		p[1] = digit_pairs[2 * r + 1];
	}
	if (v >= 10) {
		p -= 2;
		p[0] = digit_pairs[2 * v];
		p[1] = digit_pairs[2 * v + 1];
	} else {
		*--p = (char)('0' + v);
	}
	ftev_out_write(o, p, (size_t)(buf + sizeof(buf) - p));
}

void ftev_out_i64(struct ftev_out *o, int64_t v)
{
	if (v < 0) {
		ftev_out_putc(o, '-');
		ftev_out_u64(o, -(uint64_t)v);
	} else {
		ftev_out_u64(o, (uint64_t)v);
	}
}

void ftev_out_hex(struct ftev_out *o, uint64_t v, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char buf[16];
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;

	for (int i = n - 1; i >= 0; i--) {
		buf[i] = digits[v & 15];
		v >>= 4;
	}
	ftev_out_write(o, buf, (size_t)n);
}

void ftev_out_hex2(struct ftev_out *o, unsigned v)
{
	static const char digits[] = "0123456789abcdef";
	char b[2] = { digits[(v >> 4) & 15], digits[v & 15] };

	ftev_out_write(o, b, 2);
}

void ftev_out_printf(struct ftev_out *o, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		ftev_out_write(o, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (!big)
			return;
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		ftev_out_write(o, big, (size_t)n);
		free(big);
	}
}

/* ---- conversion specifications ---- */

void ftev_out_int_full(struct ftev_out *o, const struct ftev_spec *spec, int width, int prec,
		     uint64_t value, bool is_signed);

bool ftev_spec_parse(const char *fmt, struct ftev_spec *spec)
{
	const char *p = fmt;

	memset(spec, 0, sizeof(*spec));
	spec->width = -1;
	spec->prec = -1;
	if (*p != '%')
		return false;
	p++;
	for (;; p++) {
		if (*p == '-')
			spec->minus = true;
		else if (*p == '0')
			spec->zero = true;
		else if (*p == '#')
			spec->hash = true;
		else if (*p == '+')
			spec->plus = true;
		else if (*p == ' ')
			spec->space = true;
		else
			break;
	}
	if (*p == '*') {
		spec->width_star = true;
		p++;
	} else if (*p >= '0' && *p <= '9') {
		int w = 0;

		while (*p >= '0' && *p <= '9') {
			if (w < 100000)
				w = w * 10 + (*p - '0');
			p++;
		}
		spec->width = w;
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			spec->prec_star = true;
			p++;
		} else {
			int pr = 0;

			while (*p >= '0' && *p <= '9') {
				if (pr < 100000)
					pr = pr * 10 + (*p - '0');
				p++;
			}
			spec->prec = pr;
		}
	}
	/* length modifiers: the value is converted by the caller already */
	while (*p == 'h' || *p == 'l' || *p == 'L' || *p == 'z' || *p == 'Z' || *p == 'q' ||
	       *p == 'j' || *p == 't')
		p++;
	switch (*p) {
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 's': case 'p':
		spec->conv = *p;
		break;
	default:
		return false;
	}
	return p[1] == 0;
}

void ftev_out_int(struct ftev_out *o, const struct ftev_spec *spec, int width, int prec,
		uint64_t value, bool is_signed)
{
	if (width <= 0 && prec < 0 && !spec->minus && !spec->zero && !spec->hash && !spec->plus &&
	    !spec->space) {
		/* plain %d %u %x: the common case */
		switch (spec->conv) {
		case 'd':
		case 'i':
			ftev_out_i64(o, (int64_t)value);
			return;
		case 'u':
			ftev_out_u64(o, value);
			return;
		case 'x':
			ftev_out_hex(o, value, false);
			return;
		case 'X':
			ftev_out_hex(o, value, true);
			return;
		default:
			break;
		}
	}
	if (spec->zero && width > 0 && width <= 24 && prec < 0 && !spec->minus && !spec->hash &&
	    !spec->plus && !spec->space &&
	    (spec->conv == 'x' || spec->conv == 'X' || spec->conv == 'u' ||
	     ((spec->conv == 'd' || spec->conv == 'i') && (int64_t)value >= 0))) {
		/* "%08lx" and friends */
		char buf[24];
		char *p = buf + sizeof(buf);
		const char *digits = spec->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
		uint64_t v = value;
		int n;

		if (spec->conv == 'x' || spec->conv == 'X') {
			do {
				*--p = digits[v & 15];
				v >>= 4;
			} while (v);
		} else {
			do {
				*--p = (char)('0' + v % 10);
				v /= 10;
			} while (v);
		}
		n = (int)(buf + sizeof(buf) - p);
		while (n < width) {
			*--p = '0';
			n++;
		}
		ftev_out_write(o, p, (size_t)n);
		return;
	}
	ftev_out_int_full(o, spec, width, prec, value, is_signed);
}

void ftev_out_int_full(struct ftev_out *o, const struct ftev_spec *spec, int width, int prec,
		     uint64_t value, bool is_signed)
{
	char digits[32];
	char *d = digits + sizeof(digits);
	const char *prefix = "";
	char sign = 0;
	size_t ndig, nzero = 0, total;
	uint64_t v = value;
	bool minus = spec->minus;

	if (is_signed) {
		int64_t s = (int64_t)value;

		if (s < 0) {
			sign = '-';
			v = -(uint64_t)s;
		} else if (spec->plus) {
			sign = '+';
		} else if (spec->space) {
			sign = ' ';
		}
	}
	switch (spec->conv) {
	case 'x':
	case 'X': {
		const char *hex = spec->conv == 'x' ? "0123456789abcdef" : "0123456789ABCDEF";

		while (v) {
			*--d = hex[v & 15];
			v >>= 4;
		}
		if (spec->hash && value)
			prefix = spec->conv == 'x' ? "0x" : "0X";
		break;
	}
	case 'o':
		while (v) {
			*--d = (char)('0' + (v & 7));
			v >>= 3;
		}
		break;
	default:
		while (v) {
			*--d = (char)('0' + v % 10);
			v /= 10;
		}
		break;
	}
	ndig = (size_t)(digits + sizeof(digits) - d);
	if (prec < 0) {
		if (!ndig) {
			*--d = '0';
			ndig = 1;
		}
	} else if ((size_t)prec > ndig) {
		nzero = (size_t)prec - ndig;
	}
	if (spec->conv == 'o' && spec->hash && !nzero && (!ndig || *d != '0'))
		nzero = 1;
	total = (sign ? 1 : 0) + strlen(prefix) + nzero + ndig;
	if (!minus && width > 0 && (size_t)width > total) {
		if (spec->zero && prec < 0)
			nzero += (size_t)width - total;
		else
			ftev_out_spaces(o, (size_t)width - total);
	}
	if (sign)
		ftev_out_putc(o, sign);
	ftev_out_puts(o, prefix);
	out_fill(o, '0', nzero);
	ftev_out_write(o, d, ndig);
	if (minus && width > 0 && (size_t)width > total)
		ftev_out_spaces(o, (size_t)width - total);
}

void ftev_out_str(struct ftev_out *o, const struct ftev_spec *spec, int width, int prec,
		const char *s, size_t n)
{
	bool minus = spec->minus;

	if (prec >= 0 && (size_t)prec < n)
		n = (size_t)prec;
	if (!minus && width > 0 && (size_t)width > n)
		ftev_out_spaces(o, (size_t)width - n);
	ftev_out_write(o, s, n);
	if (minus && width > 0 && (size_t)width > n)
		ftev_out_spaces(o, (size_t)width - n);
}
