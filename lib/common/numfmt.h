/* SPDX-License-Identifier: MIT */
/*
 * The number formatter: decimal and hex digits written straight into memory, two
 * digits a step from tables of digit pairs ("00".."99", "00".."ff" and "00".."FF").
 * Every printer of the library (the output buffer, trace-cmd's line prefix, the
 * event print formats, JSON...) writes its numbers with these; none keeps its own.
 * Callers make the room: 20 bytes for a decimal, 16 for hex, 21 for a signed one.
 */
#ifndef KTRACE_COMMON_NUMFMT_H
#define KTRACE_COMMON_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern const char kt_dec_pairs[200];
extern const char kt_hex_pairs[2][512];

/* Number of decimal digits of v (1..20). */
static inline unsigned kt_dec_len(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	unsigned t = ((64u - (unsigned)__builtin_clzll(v | 1)) * 1233u) >> 12;

	return t + (v >= p10[t]) + !v;
}

/* Writes the decimal digits of v so that they end just before end. */
static inline void kt_put_dec(char *end, uint64_t v)
{
	while (v > 0xffffffffu) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, kt_dec_pairs + 2 * r, 2);
	}
	{
		uint32_t w = (uint32_t)v;

		while (w >= 100) {
			unsigned r = w % 100;

			w /= 100;
			end -= 2;
			memcpy(end, kt_dec_pairs + 2 * r, 2);
		}
		if (w >= 10) {
			end -= 2;
			memcpy(end, kt_dec_pairs + 2 * w, 2);
		} else {
			end[-1] = (char)('0' + w);
		}
	}
}

/* Number of hex digits of v (1..16). */
static inline unsigned kt_hex_len(uint64_t v)
{
	return v ? (67u - (unsigned)__builtin_clzll(v)) / 4 : 1;
}

/* Writes the n lowest hex digits of v so that they end just before end. */
static inline void kt_put_hex(char *end, uint64_t v, unsigned n, bool upper)
{
	const char *pairs = kt_hex_pairs[upper];

	for (; n >= 2; n -= 2) {
		end -= 2;
		memcpy(end, pairs + 2 * (v & 0xff), 2);
		v >>= 8;
	}
	if (n)
		end[-1] = pairs[2 * (v & 15) + 1];
}

/* ---- forward writers: each writes at p and returns the end ---- */

/* "%llu" */
static inline char *kt_fmt_dec(char *p, uint64_t v)
{
	unsigned n = kt_dec_len(v);

	kt_put_dec(p + n, v);
	return p + n;
}

/* "%lld" */
static inline char *kt_fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return kt_fmt_dec(p, -(uint64_t)v);
	}
	return kt_fmt_dec(p, (uint64_t)v);
}

/* "%*llu": right-aligned in width (room for max(width, 20) bytes). */
static inline char *kt_fmt_dec_width(char *p, uint64_t v, int width)
{
	int n = (int)kt_dec_len(v);

	if (n < width) {
		memset(p, ' ', (size_t)(width - n));
		p += width - n;
	}
	kt_put_dec(p + n, v);
	return p + n;
}

/* "%0*llu" of a v below 10^digits: exactly digits digits (at most 20). */
static inline char *kt_fmt_dec_zero(char *p, uint64_t v, unsigned digits)
{
	memset(p, '0', digits);
	kt_put_dec(p + digits, v);
	return p + digits;
}

/* "%0*llx" (or X): at least digits hex digits (at most 16). */
static inline char *kt_fmt_hex(char *p, uint64_t v, unsigned digits, bool upper)
{
	unsigned n = kt_hex_len(v);

	if (n < digits)
		n = digits > 16 ? 16 : digits;
	kt_put_hex(p + n, v, n, upper);
	return p + n;
}

/* Bytes b[0..n) as 2n lower-case hex digits (no separator). */
static inline char *kt_fmt_hex_bytes(char *p, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		memcpy(p + 2 * i, kt_hex_pairs[0] + 2 * b[i], 2);
	return p + 2 * n;
}

#endif
