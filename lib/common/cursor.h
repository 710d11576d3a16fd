/* SPDX-License-Identifier: MIT */
/*
 * The bounds-checked byte cursor every parser reads through.
 *
 * A cursor covers [data, data + len) of an input whose first byte is at file offset
 * `origin`, so that errors name the real file offset. Reads of u8/u16/u32/u64 and of
 * kernel longs (4 or 8 bytes) honour the cursor's byte order. A read that would pass
 * the end fails with -ENODATA and "offset X: truncated ..." in the cursor's error;
 * nothing is read and the position does not move.
 */
#ifndef KTRACE_COMMON_CURSOR_H
#define KTRACE_COMMON_CURSOR_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <ktrace/error.h>

struct kt_cursor {
	const uint8_t *data;
	size_t len;
	size_t pos;
	uint64_t origin;            /* file offset of data[0] */
	bool big_endian;
	unsigned int long_size;     /* 4 or 8 */
	struct ktrace_error *err;   /* may be NULL */
};

static inline void kt_cursor_init(struct kt_cursor *c, const void *data, size_t len,
				  uint64_t origin, struct ktrace_error *err)
{
	c->data = data;
	c->len = len;
	c->pos = 0;
	c->origin = origin;
	c->big_endian = false;
	c->long_size = 8;
	c->err = err;
}

static inline size_t kt_cursor_left(const struct kt_cursor *c)
{
	return c->len - c->pos;
}

static inline uint64_t kt_cursor_offset(const struct kt_cursor *c)
{
	return c->origin + c->pos;
}

/* Fails unless n more bytes are available; `what` names them in the message. */
static inline int kt_cursor_need(struct kt_cursor *c, size_t n, const char *what)
{
	if (n <= c->len - c->pos)
		return 0;
	return ktrace_error_at(c->err, -ENODATA, kt_cursor_offset(c),
			       "truncated: %s needs %zu bytes, %zu left", what ? what : "data", n,
			       c->len - c->pos);
}

/* Raw loads, no bounds check: for callers that checked already. */
static inline uint16_t kt_load_u16(const void *p, bool big)
{
	uint16_t v;

	memcpy(&v, p, 2);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return big ? __builtin_bswap16(v) : v;
#else
	return big ? v : __builtin_bswap16(v);
#endif
}

static inline uint32_t kt_load_u32(const void *p, bool big)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return big ? __builtin_bswap32(v) : v;
#else
	return big ? v : __builtin_bswap32(v);
#endif
}

static inline uint64_t kt_load_u64(const void *p, bool big)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return big ? __builtin_bswap64(v) : v;
#else
	return big ? v : __builtin_bswap64(v);
#endif
}

/* A 1, 2, 4 or 8-byte number in the byte order big says; 0 for any other size. */
static inline uint64_t kt_load_sized(const void *p, unsigned size, bool big)
{
	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		return kt_load_u16(p, big);
	case 4:
		return kt_load_u32(p, big);
	case 8:
		return kt_load_u64(p, big);
	default:
		return 0;
	}
}

/* u, a number of size bytes (1 to 8), sign-extended to 64 bits. */
static inline int64_t kt_sign_extend(uint64_t u, unsigned size)
{
	unsigned shift;

	if (size == 0 || size >= 8)
		return (int64_t)u;
	shift = 64 - 8 * size;
	return (int64_t)(u << shift) >> shift;
}

/* Raw stores, the writers' side of the loads above: v in the byte order big says. */
static inline void kt_store_u16(void *p, uint16_t v, bool big)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = big ? __builtin_bswap16(v) : v;
#else
	v = big ? v : __builtin_bswap16(v);
#endif
	memcpy(p, &v, 2);
}

static inline void kt_store_u32(void *p, uint32_t v, bool big)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = big ? __builtin_bswap32(v) : v;
#else
	v = big ? v : __builtin_bswap32(v);
#endif
	memcpy(p, &v, 4);
}

static inline void kt_store_u64(void *p, uint64_t v, bool big)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = big ? __builtin_bswap64(v) : v;
#else
	v = big ? v : __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

/* Whether all n bytes at p are zero (true for n 0): a page never written, or padding. */
static inline bool kt_all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	return !n || (!b[0] && !memcmp(b, b + 1, n - 1));
}

static inline int kt_cursor_u8(struct kt_cursor *c, uint8_t *v)
{
	int ret = kt_cursor_need(c, 1, "u8");

	if (!ret)
		*v = c->data[c->pos++];
	return ret;
}

static inline int kt_cursor_u16(struct kt_cursor *c, uint16_t *v)
{
	int ret = kt_cursor_need(c, 2, "u16");

	if (!ret) {
		*v = kt_load_u16(c->data + c->pos, c->big_endian);
		c->pos += 2;
	}
	return ret;
}

static inline int kt_cursor_u32(struct kt_cursor *c, uint32_t *v)
{
	int ret = kt_cursor_need(c, 4, "u32");

	if (!ret) {
		*v = kt_load_u32(c->data + c->pos, c->big_endian);
		c->pos += 4;
	}
	return ret;
}

static inline int kt_cursor_u64(struct kt_cursor *c, uint64_t *v)
{
	int ret = kt_cursor_need(c, 8, "u64");

	if (!ret) {
		*v = kt_load_u64(c->data + c->pos, c->big_endian);
		c->pos += 8;
	}
	return ret;
}

/* A kernel long: 4 or 8 bytes as the cursor's long_size says. */
static inline int kt_cursor_long(struct kt_cursor *c, uint64_t *v)
{
	uint32_t v32;
	int ret;

	if (c->long_size == 8)
		return kt_cursor_u64(c, v);
	ret = kt_cursor_u32(c, &v32);
	if (!ret)
		*v = v32;
	return ret;
}

/* Points *p at the next n bytes and moves past them. */
static inline int kt_cursor_bytes(struct kt_cursor *c, size_t n, const uint8_t **p,
				  const char *what)
{
	int ret = kt_cursor_need(c, n, what);

	if (!ret) {
		*p = c->data + c->pos;
		c->pos += n;
	}
	return ret;
}

static inline int kt_cursor_skip(struct kt_cursor *c, size_t n, const char *what)
{
	int ret = kt_cursor_need(c, n, what);

	if (!ret)
		c->pos += n;
	return ret;
}

/* Moves to an absolute position inside the cursor (0..len). */
static inline int kt_cursor_seek(struct kt_cursor *c, size_t pos)
{
	if (pos > c->len)
		return ktrace_error_at(c->err, -ENODATA, c->origin + c->len,
				       "truncated: offset 0x%llx is past the end",
				       (unsigned long long)(c->origin + pos));
	c->pos = pos;
	return 0;
}

/* A NUL-terminated string that must end before the cursor does; moves past the NUL. */
static inline int kt_cursor_cstring(struct kt_cursor *c, const char **s, size_t *slen,
				    const char *what)
{
	const uint8_t *start = c->data + c->pos;
	const uint8_t *nul = memchr(start, 0, c->len - c->pos);

	if (!nul)
		return ktrace_error_at(c->err, -ENODATA, kt_cursor_offset(c),
				       "truncated: %s has no terminating NUL", what ? what : "string");
	*s = (const char *)start;
	if (slen)
		*slen = (size_t)(nul - start);
	c->pos += (size_t)(nul - start) + 1;
	return 0;
}

#endif
