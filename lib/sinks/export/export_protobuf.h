/* SPDX-License-Identifier: MIT */
/*
 * The protobuf wire format, written by hand (no generated code, no library): varints,
 * zigzag, fixed 64-bit and length-delimited fields, into a growable byte buffer.
 *
 * A nested message is opened with kt_pb_open, which writes its tag and a one-byte
 * length, and closed with kt_pb_close, which stores the real length (moving the
 * message's bytes when the length needs more than one byte): every length is written
 * in its shortest form. A buffer that cannot grow sets oom and keeps its contents.
 */
#ifndef KTRACE_VIEWS_PROTOBUF_H
#define KTRACE_VIEWS_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { KT_PB_VARINT = 0, KT_PB_FIXED64 = 1, KT_PB_LEN = 2 };

struct kt_pb_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

void kt_pb_free(struct kt_pb_buf *b);
/* Room for n more bytes: true, or false with oom set. */
bool kt_pb_grow(struct kt_pb_buf *b, size_t n);

static inline bool kt_pb_room(struct kt_pb_buf *b, size_t n)
{
	return b->cap - b->len >= n || kt_pb_grow(b, n);
}

static inline size_t kt_pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Writes v as a varint at p (at most 10 bytes); returns the end. */
static inline uint8_t *kt_pb_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t kt_pb_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline uint64_t kt_pb_tag(uint32_t field, unsigned wire)
{
	return (uint64_t)field << 3 | wire;
}

/* field = v (int32, int64, uint32, uint64, bool, enum: negative int32/int64 values are
 * written sign-extended, as protobuf does) */
static inline void kt_pb_varint(struct kt_pb_buf *b, uint32_t field, uint64_t v)
{
	if (!kt_pb_room(b, 15))
		return;
	b->len = (size_t)(kt_pb_put_varint(kt_pb_put_varint(b->p + b->len,
							    kt_pb_tag(field, KT_PB_VARINT)), v) - b->p);
}

/* field = v (sint32, sint64) */
static inline void kt_pb_sint(struct kt_pb_buf *b, uint32_t field, int64_t v)
{
	kt_pb_varint(b, field, kt_pb_zigzag(v));
}

/* field = v (fixed64) */
void kt_pb_fixed64(struct kt_pb_buf *b, uint32_t field, uint64_t v);
/* field = n bytes (string, bytes, or an encoded message) */
void kt_pb_bytes(struct kt_pb_buf *b, uint32_t field, const void *data, size_t n);
static inline void kt_pb_string(struct kt_pb_buf *b, uint32_t field, const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	kt_pb_bytes(b, field, s, n);
}
/* Raw bytes, no tag. */
void kt_pb_raw(struct kt_pb_buf *b, const void *data, size_t n);

/* Starts message field `field`: returns the mark kt_pb_close takes. */
static inline size_t kt_pb_open(struct kt_pb_buf *b, uint32_t field)
{
	if (!kt_pb_room(b, 6))
		return b->len;
	b->len = (size_t)(kt_pb_put_varint(b->p + b->len, kt_pb_tag(field, KT_PB_LEN)) - b->p);
	b->p[b->len++] = 0;
	return b->len;
}

void kt_pb_close_long(struct kt_pb_buf *b, size_t mark);

static inline void kt_pb_close(struct kt_pb_buf *b, size_t mark)
{
	size_t n = b->len - mark;

	if (b->oom)
		return;
	if (n < 0x80)
		b->p[mark - 1] = (uint8_t)n;
	else
		kt_pb_close_long(b, mark);
}

#endif
