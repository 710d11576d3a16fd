// SPDX-License-Identifier: MIT
/* The bounded output buffer with printf-compatible
 * integer and string conversions (the subset print fmts use, with glibc's results). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/event_int.h"
#include "common/grow.h"
#include "common/outbuf.h"

/* ---- output ---- */

static void out_fill(struct ktrace_out *o, char c, size_t n)
{
	while (n--)
		kt_out_putc(o, c);
}

/* ---- conversion specifications ---- */

void ftev_out_int_full(struct ktrace_out *o, const struct ftev_spec *spec, int width, int prec,
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

void ftev_out_zero_padded(struct ktrace_out *o, uint64_t value, unsigned width, char conv)
{
	char buf[24];
	bool hex = conv == 'x' || conv == 'X';
	unsigned n = hex ? kt_hex_len(value) : kt_dec_len(value);
	unsigned w = width > n ? width : n;

	memset(buf, '0', w - n);
	if (hex)
		kt_put_hex(buf + w, value, n, conv == 'X');
	else
		kt_put_dec(buf + w, value);
	/* noted: hex all w digits (zeros too), decimal the digits after the zeros */
	if (o->nums && conv != 'X' &&
	    (hex ? kt_out_note_num(o, o->len, w, value, w) : kt_out_note_num(o, o->len + (w - n), n, value, 0)))
		memset(buf, '0', w);
	kt_out_write(o, buf, w);
}

void ftev_out_int(struct ktrace_out *o, const struct ftev_spec *spec, int width, int prec,
		uint64_t value, bool is_signed)
{
	if (width <= 0 && prec < 0 && !spec->minus && !spec->zero && !spec->hash && !spec->plus &&
	    !spec->space) {
		/* plain %d %u %x: the common case */
		switch (spec->conv) {
		case 'd':
		case 'i':
			kt_out_i64(o, (int64_t)value, 0);
			return;
		case 'u':
			kt_out_u64(o, value, 0);
			return;
		case 'x':
			kt_out_hex(o, value, 0);
			return;
		case 'X':
			kt_out_hex_case(o, value, 0, true);
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

void ftev_out_int_full(struct ktrace_out *o, const struct ftev_spec *spec, int width, int prec,
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
		if (v) {
			unsigned n = kt_hex_len(v);

			kt_put_hex(d, v, n, spec->conv == 'X');
			d -= n;
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
		if (v) {
			kt_put_dec(d, v);
			d -= kt_dec_len(v);
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
			kt_out_spaces(o, (size_t)width - total);
	}
	if (sign)
		kt_out_putc(o, sign);
	kt_out_puts(o, prefix);
	out_fill(o, '0', nzero);
	kt_out_write(o, d, ndig);
	if (minus && width > 0 && (size_t)width > total)
		kt_out_spaces(o, (size_t)width - total);
}

void ftev_out_str(struct ktrace_out *o, const struct ftev_spec *spec, int width, int prec,
		const char *s, size_t n)
{
	bool minus = spec->minus;

	if (prec >= 0 && (size_t)prec < n)
		n = (size_t)prec;
	if (!minus && width > 0 && (size_t)width > n)
		kt_out_spaces(o, (size_t)width - n);
	kt_out_write(o, s, n);
	if (minus && width > 0 && (size_t)width > n)
		kt_out_spaces(o, (size_t)width - n);
}
