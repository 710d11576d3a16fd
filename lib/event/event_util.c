// SPDX-License-Identifier: MIT
/* String builder and the bounded output buffer with printf-compatible
 * integer and string conversions (the subset print fmts use, with glibc's results). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/event_int.h"
#include "common/grow.h"
#include "common/outbuf.h"

/* ---- string builder ---- */

void ftev_str_add(struct ftev_str *s, const char *p, size_t n)
{
	if (s->oom)
		return;
	if (s->len + n + 1 > s->cap) {
		if (kt_grow((void **)&s->p, &s->cap, s->len + n + 1, 1)) {
			s->oom = true;
			return;
		}
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

const char ftev_dec_pairs[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

const char ftev_hex_pairs[2][512] = {
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
	"000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
	"202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
	"404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F"
	"606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"
	"808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9F"
	"A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"
	"C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"
	"E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF",
};

bool ftev_note_num(struct ftev_out *o, size_t at, unsigned len, uint64_t v, unsigned hex)
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

void ftev_out_num_slow(struct ftev_out *o, uint64_t v, bool hex, bool upper)
{
	char buf[24];
	unsigned n = hex ? ftev_hex_len(v) : ftev_dec_len(v);

	if (hex)
		ftev_put_hex(buf + n, v, n, upper);
	else
		ftev_put_dec(buf + n, v);
	ftev_out_write(o, buf, n);
}

static void out_put(void *ctx, const char *p, size_t n)
{
	ftev_out_write(ctx, p, n);
}

void ftev_out_printf(struct ftev_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kt_vformat(out_put, o, fmt, ap);
	va_end(ap);
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
	spec->plain = !spec->minus && !spec->zero && !spec->hash && !spec->plus && !spec->space &&
		      !spec->width_star && !spec->prec_star && spec->width < 0 && spec->prec < 0;
	return p[1] == 0;
}

void ftev_out_zero_padded(struct ftev_out *o, uint64_t value, unsigned width, char conv)
{
	char buf[24];
	bool hex = conv == 'x' || conv == 'X';
	unsigned n = hex ? ftev_hex_len(value) : ftev_dec_len(value);
	unsigned w = width > n ? width : n;

	memset(buf, '0', w - n);
	if (hex)
		ftev_put_hex(buf + w, value, n, conv == 'X');
	else
		ftev_put_dec(buf + w, value);
	/* noted: hex all w digits (zeros too), decimal the digits after the zeros */
	if (o->nums && conv != 'X' &&
	    (hex ? ftev_note_num(o, o->len, w, value, w) : ftev_note_num(o, o->len + (w - n), n, value, 0)))
		memset(buf, '0', w);
	ftev_out_write(o, buf, w);
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
		ftev_out_zero_padded(o, value, (unsigned)width, spec->conv);
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
