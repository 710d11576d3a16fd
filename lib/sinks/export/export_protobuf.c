// SPDX-License-Identifier: MIT
/* The protobuf wire format helpers (sinks/export/export_protobuf.h). */
#include "sinks/export/export_protobuf.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

void kt_pb_free(struct kt_pb_buf *b)
{
	free(b->p);
	*b = (struct kt_pb_buf){ 0 };
}

bool kt_pb_grow(struct kt_pb_buf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n < b->len || kt_grow((void **)&b->p, &b->cap, b->len + n, 1)) {
		b->oom = true;
		return false;
	}
	return true;
}

void kt_pb_fixed64(struct kt_pb_buf *b, uint32_t field, uint64_t v)
{
	uint8_t *p;

	if (!kt_pb_room(b, 13))
		return;
	p = kt_pb_put_varint(b->p + b->len, kt_pb_tag(field, KT_PB_FIXED64));
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	b->len = (size_t)(p - b->p);
}

void kt_pb_bytes(struct kt_pb_buf *b, uint32_t field, const void *data, size_t n)
{
	uint8_t *p;

	if (n > SIZE_MAX - 20 || !kt_pb_room(b, n + 20))
		return;
	p = kt_pb_put_varint(b->p + b->len, kt_pb_tag(field, KT_PB_LEN));
	p = kt_pb_put_varint(p, n);
	if (n)
		memcpy(p, data, n);
	b->len = (size_t)(p + n - b->p);
}

void kt_pb_raw(struct kt_pb_buf *b, const void *data, size_t n)
{
	if (!n || !kt_pb_room(b, n))
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* A message of 128 bytes or more: its length takes k > 1 bytes, so its contents move
 * k - 1 bytes up. */
void kt_pb_close_long(struct kt_pb_buf *b, size_t mark)
{
	size_t n = b->len - mark, k = kt_pb_varint_size(n);

	if (!kt_pb_room(b, k - 1))
		return;
	memmove(b->p + mark + k - 1, b->p + mark, n);
	kt_pb_put_varint(b->p + mark - 1, n);
	b->len += k - 1;
}
