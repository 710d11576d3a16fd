// SPDX-License-Identifier: MIT
/* KOFF format strings: a strict printf-subset parser and a renderer that never passes
 * a format it read to the C library. */
#include "koff/koff_fmt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int fail(struct koff_fmt *f, size_t pos, const char *why)
{
	f->err_pos = (uint32_t)pos;
	f->why = why;
	return -EINVAL;
}

/* Digits for a width or precision; clamps, never overflows. */
static int16_t parse_num(const char *fmt, size_t len, size_t *i)
{
	int v = 0;

	while (*i < len && fmt[*i] >= '0' && fmt[*i] <= '9') {
		if (v <= KOFF_FMT_MAX_WIDTH)
			v = v * 10 + (fmt[*i] - '0');
		(*i)++;
	}
	return (int16_t)(v > KOFF_FMT_MAX_WIDTH ? KOFF_FMT_MAX_WIDTH : v);
}

int koff_fmt_parse(const char *fmt, size_t len, struct koff_fmt *f)
{
	size_t i = 0;

	memset(f, 0, sizeof(*f));
	while (i < len) {
		struct koff_conv c;
		size_t start;

		if (fmt[i] == '\0')
			return fail(f, i, "NUL inside the format");
		if (fmt[i] != '%') {
			i++;
			continue;
		}
		start = i++;
		if (i < len && fmt[i] == '%') {
			i++;
			continue;
		}
		memset(&c, 0, sizeof(c));
		c.start = (uint32_t)start;
		c.width = -1;
		c.prec = -1;
		/* flags */
		for (; i < len; i++) {
			uint8_t bit = 0;

			switch (fmt[i]) {
			case '-': bit = KF_MINUS; break;
			case '+': bit = KF_PLUS; break;
			case ' ': bit = KF_SPACE; break;
			case '#': bit = KF_HASH; break;
			case '0': bit = KF_ZERO; break;
			case '\'': case 'I':
				return fail(f, i, "locale-dependent flag");
			}
			if (!bit)
				break;
			c.flags |= bit;
		}
		/* width */
		if (i < len && fmt[i] == '*') {
			i++;
			if (f->nwords >= 5)
				return fail(f, start, "more than 5 argument words");
			c.width = -2;
			c.warg = (uint8_t)f->nwords++;
		} else if (i < len && fmt[i] >= '1' && fmt[i] <= '9') {
			c.width = parse_num(fmt, len, &i);
			if (i < len && fmt[i] == '$')
				return fail(f, i, "positional argument");
		}
		/* precision */
		if (i < len && fmt[i] == '.') {
			i++;
			if (i < len && fmt[i] == '*') {
				i++;
				if (f->nwords >= 5)
					return fail(f, start, "more than 5 argument words");
				c.prec = -2;
				c.parg = (uint8_t)f->nwords++;
			} else {
				c.prec = parse_num(fmt, len, &i);
			}
		}
		/* length */
		c.len = KL_NONE;
		if (i < len) {
			switch (fmt[i]) {
			case 'h':
				c.len = KL_H;
				if (i + 1 < len && fmt[i + 1] == 'h') {
					c.len = KL_HH;
					i++;
				}
				i++;
				break;
			case 'l':
				c.len = KL_L;
				if (i + 1 < len && fmt[i + 1] == 'l') {
					c.len = KL_LL;
					i++;
				}
				i++;
				break;
			case 'j': c.len = KL_J; i++; break;
			case 'z': c.len = KL_Z; i++; break;
			case 't': c.len = KL_T; i++; break;
			case 'L': case 'q':
				return fail(f, i, "long double or quad argument");
			}
		}
		if (i >= len)
			return fail(f, start, "incomplete conversion");
		c.conv = fmt[i];
		switch (c.conv) {
		case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
			break;
		case 'c': case 's': case 'p':
			if (c.len != KL_NONE)
				return fail(f, i, "wide character or string conversion");
			break;
		case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
			if (c.len != KL_NONE && c.len != KL_L)
				return fail(f, i, "bad length for a floating conversion");
			break;
		case 'n':
			return fail(f, i, "%n conversion");
		default:
			return fail(f, i, "unsupported conversion");
		}
		i++;
		if (f->nconv >= KOFF_FMT_MAX_CONV || f->nwords >= 5)
			return fail(f, start, "more than 5 argument words");
		c.argi = (uint8_t)f->nwords++;
		c.end = (uint32_t)i;
		f->c[f->nconv++] = c;
	}
	return 0;
}

int koff_fmt_tag(const char *fmt, size_t len, size_t *rest_at)
{
	for (size_t i = 0; i < len; i++) {
		if (fmt[i] == '%' || fmt[i] == '\0')
			break;
		if (fmt[i] == ':') {
			*rest_at = i + 1;
			return (int)(i > 0x7fffffff ? 0x7fffffff : i);
		}
	}
	*rest_at = 0;
	return -1;
}

/* Bounded output. */
struct sink {
	char *p;
	size_t cap;   /* bytes available including the NUL */
	size_t n;
};

static void put(struct sink *s, const char *p, size_t n)
{
	if (!s->cap)
		return;
	if (n > s->cap - 1 - s->n)
		n = s->cap - 1 - s->n;
	memcpy(s->p + s->n, p, n);
	s->n += n;
	s->p[s->n] = '\0';
}

static void put_escaped(struct sink *s, const char *p, size_t n)
{
	for (size_t i = 0; i < n && s->n + 1 < s->cap; i++) {
		unsigned char ch = (unsigned char)p[i];
		char esc[5];

		if (ch >= 0x20 && ch != 0x7f) {
			put(s, (const char *)&p[i], 1);
		} else if (ch == '\n') {
			put(s, "\\n", 2);
		} else if (ch == '\t') {
			put(s, "\\t", 2);
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", ch);
			put(s, esc, 4);
		}
	}
}

size_t koff_escape(const char *s, size_t n, char *out, size_t outlen)
{
	struct sink k = { out, outlen, 0 };

	if (outlen)
		out[0] = '\0';
	put_escaped(&k, s, n);
	return k.n;
}

/* Builds "%<flags><width>.<prec><lenmod><conv>" from checked fields only. */
static void mini_format(char *mf, uint8_t flags, int width, int prec, const char *lenmod,
			char conv)
{
	size_t n = 0;

	mf[n++] = '%';
	if (flags & KF_MINUS) mf[n++] = '-';
	if (flags & KF_PLUS) mf[n++] = '+';
	if (flags & KF_SPACE) mf[n++] = ' ';
	if (flags & KF_HASH) mf[n++] = '#';
	if (flags & KF_ZERO) mf[n++] = '0';
	if (width > 0)
		n += (size_t)snprintf(mf + n, 8, "%d", width);
	if (prec >= 0)
		n += (size_t)snprintf(mf + n, 9, ".%d", prec);
	while (*lenmod)
		mf[n++] = *lenmod++;
	mf[n++] = conv;
	mf[n] = '\0';
}

static int clamp_arg(uint64_t w, bool *neg)
{
	int32_t v = (int32_t)(uint32_t)w;

	*neg = v < 0;
	if (v < 0)
		v = v == INT32_MIN ? INT32_MAX : -v;
	return v > KOFF_FMT_MAX_WIDTH ? KOFF_FMT_MAX_WIDTH : v;
}

static void render_conv(struct sink *s, const struct koff_conv *c, const uint64_t args[5],
			const char *const strs[5])
{
	/* mini format: at most "%-+ #0" + 3 + ".256" + "ll" + conv */
	char mf[32], buf[KOFF_FMT_MAX_WIDTH * 2 + 64];
	uint64_t w = args[c->argi];
	uint8_t flags = c->flags;
	int width = c->width, prec = c->prec;
	bool neg;
	int n = 0;

	if (width == -2) {
		width = clamp_arg(args[c->warg], &neg);
		if (neg)
			flags |= KF_MINUS;
	}
	if (prec == -2) {
		prec = clamp_arg(args[c->parg], &neg);
		if (neg)
			prec = -1;
	}
	switch (c->conv) {
	case 'd': case 'i': {
		long long v;

		switch (c->len) {
		case KL_NONE: v = (int32_t)(uint32_t)w; break;
		case KL_HH: v = (signed char)(uint8_t)w; break;
		case KL_H: v = (int16_t)(uint16_t)w; break;
		default: v = (long long)w; break;
		}
		flags &= (uint8_t)~KF_HASH;
		mini_format(mf, flags, width, prec, "ll", 'd');
		n = snprintf(buf, sizeof(buf), mf, v);
		break;
	}
	case 'u': case 'o': case 'x': case 'X': {
		unsigned long long v;

		switch (c->len) {
		case KL_NONE: v = (uint32_t)w; break;
		case KL_HH: v = (uint8_t)w; break;
		case KL_H: v = (uint16_t)w; break;
		default: v = w; break;
		}
		flags &= (uint8_t)~(KF_PLUS | KF_SPACE);
		if (c->conv == 'u')
			flags &= (uint8_t)~KF_HASH;
		mini_format(mf, flags, width, prec, "ll", c->conv);
		n = snprintf(buf, sizeof(buf), mf, v);
		break;
	}
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
		double d;

		memcpy(&d, &w, sizeof(d));
		mini_format(mf, flags, width, prec, "", c->conv);
		n = snprintf(buf, sizeof(buf), mf, d);
		break;
	}
	case 'p': {
		char hex[24];

		/* "0x..." like glibc, "(nil)" for 0, padded by hand. */
		if (w)
			snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)w);
		else
			snprintf(hex, sizeof(hex), "(nil)");
		mini_format(mf, flags & KF_MINUS, width, -1, "", 's');
		n = snprintf(buf, sizeof(buf), mf, hex);
		break;
	}
	case 'c': case 's': {
		char text[KOFF_FMT_MAX_WIDTH + 8], ch = (char)(uint8_t)w;
		const char *src;
		size_t srclen;

		if (c->conv == 'c') {
			src = &ch;
			srclen = 1;
		} else if (strs && strs[c->argi]) {
			src = strs[c->argi];
			srclen = strlen(src);
			if (prec >= 0 && (size_t)prec < srclen)
				srclen = (size_t)prec;
		} else if (!w) {
			src = "(null)";
			srclen = 6;
		} else {
			char ph[24];

			snprintf(ph, sizeof(ph), "<0x%llx>", (unsigned long long)w);
			src = ph;
			srclen = strlen(ph);
			koff_escape(src, srclen, text, sizeof(text));
			goto pad;
		}
		/* Escape first, then pad: the escaped text is what is shown. Long strings are
		 * emitted directly (no padding needed past the maximum width). */
		if (srclen > KOFF_FMT_MAX_WIDTH) {
			put_escaped(s, src, srclen);
			return;
		}
		koff_escape(src, srclen, text, sizeof(text));
pad:
		mini_format(mf, flags & KF_MINUS, width, -1, "", 's');
		n = snprintf(buf, sizeof(buf), mf, text);
		break;
	}
	}
	if (n > 0)
		put(s, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

size_t koff_fmt_render(const char *fmt, size_t len, size_t from, const struct koff_fmt *f,
		       const uint64_t args[5], const char *const strs[5], char *out, size_t outlen)
{
	struct sink s = { out, outlen, 0 };
	size_t i = from;
	int ci = 0;

	if (outlen)
		out[0] = '\0';
	if (len && fmt[len - 1] == '\n')
		len--;
	/* Skip conversions that lie before `from` (there are none when from is the end of
	 * a tag, which cannot contain '%'). */
	while (ci < f->nconv && f->c[ci].start < from)
		ci++;
	while (i < len) {
		size_t lit = i;

		while (i < len && fmt[i] != '%')
			i++;
		put_escaped(&s, fmt + lit, i - lit);
		if (i >= len)
			break;
		if (i + 1 < len && fmt[i + 1] == '%') {
			put(&s, "%", 1);
			i += 2;
			continue;
		}
		if (ci < f->nconv && f->c[ci].start == i) {
			render_conv(&s, &f->c[ci], args, strs);
			i = f->c[ci].end;
			ci++;
			continue;
		}
		/* Not a parsed conversion (cannot happen with a successful parse). */
		put(&s, "%", 1);
		i++;
	}
	return s.n;
}
