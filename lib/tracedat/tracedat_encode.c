// SPDX-License-Identifier: MIT
/*
 * Ring-buffer sub-buffers made from records, the way the kernel lays them out: a
 * header (timestamp of the first record, then a commit word of the kernel's long size:
 * the bytes of data, bit 31 when events were lost before the page, bit 30 when their
 * count follows the data), then records: a 32-bit word of type_len (5 bits) and time
 * delta (27 bits) - low bits first on little-endian machines, high bits first on
 * big-endian ones - then for type_len 0 a length word, then the payload padded to 4
 * bytes. A delta that does not fit 27 bits gets a time-extend record (type_len 30)
 * before the record. A page starts for the first record, for a record after lost
 * events, for one that does not fit, and for one whose time goes back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracedat/tracedat_int.h"

#define TS_BITS 27
#define TYPE_TIME_EXTEND 30
#define MAX_SMALL 112         /* 28 words: the largest payload type_len can say */
#define MISSED_EVENTS (1ull << 31)
#define MISSED_STORED (1ull << 30)

static void put32(const struct td_pages *p, uint8_t *dst, uint32_t v)
{
	if (p->big_endian)
		v = __builtin_bswap32(v);
	memcpy(dst, &v, 4);
}

static void put_long(const struct td_pages *p, uint8_t *dst, uint64_t v)
{
	if (p->long_size == 4) {
		put32(p, dst, (uint32_t)v);
		return;
	}
	if (p->big_endian)
		v = __builtin_bswap64(v);
	memcpy(dst, &v, 8);
}

static uint32_t header_word(const struct td_pages *p, uint32_t type_len, uint32_t delta)
{
	return p->big_endian ? (type_len << TS_BITS) | delta : (delta << 5) | type_len;
}

static size_t header_size(const struct td_pages *p)
{
	return 8 + p->long_size;
}

/* Bytes a record takes (without a time extend). */
static size_t record_bytes(uint32_t size)
{
	size_t padded = ((size_t)size + 3) & ~(size_t)3;

	return 4 + padded + (size && size <= MAX_SMALL && !(size & 3) ? 0 : 4);
}

int td_pages_init(struct td_pages *p, int fd, unsigned int page_size, unsigned int long_size,
		  bool big_endian)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->page_size = page_size;
	p->long_size = long_size == 4 ? 4 : 8;
	p->big_endian = big_endian;
	p->page = malloc(page_size);
	return p->page ? 0 : -ENOMEM;
}

void td_pages_free(struct td_pages *p)
{
	free(p->page);
	p->page = NULL;
}

/* Room left in the open page (keeping room for the lost-events count). */
static size_t room(const struct td_pages *p)
{
	size_t end = p->page_size - (p->missed > 0 ? p->long_size : 0);
	size_t at = header_size(p) + p->used;

	return at < end ? end - at : 0;
}

bool td_pages_starts_page(const struct td_pages *p, uint64_t ts, uint32_t size, long long missed)
{
	size_t need = record_bytes(size);

	if (!p->open || missed || ts < p->last_ts)
		return true;
	if (ts - p->last_ts >= (1ull << TS_BITS))
		need += 8;
	return need > room(p);
}

int td_pages_flush(struct td_pages *p)
{
	uint64_t commit = p->used;
	const uint8_t *b = p->page;
	size_t n = p->page_size;

	if (!p->open)
		return 0;
	if (p->missed) {
		commit |= MISSED_EVENTS;
		if (p->missed > 0) {
			commit |= MISSED_STORED;
			put_long(p, p->page + header_size(p) + p->used, (uint64_t)p->missed);
		}
	}
	put_long(p, p->page + 8, commit);
	while (n) {
		ssize_t w = write(p->fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w;
		n -= (size_t)w;
	}
	p->bytes += p->page_size;
	p->pages++;
	p->open = false;
	return 0;
}

int td_pages_add(struct td_pages *p, uint64_t ts, const void *data, uint32_t size, long long missed)
{
	uint64_t delta;
	uint8_t *at;
	int ret;

	if (td_pages_starts_page(p, ts, size, missed)) {
		if ((ret = td_pages_flush(p)))
			return ret;
		memset(p->page, 0, p->page_size);
		if (p->big_endian) {
			uint64_t v = __builtin_bswap64(ts);

			memcpy(p->page, &v, 8);
		} else {
			memcpy(p->page, &ts, 8);
		}
		p->open = true;
		p->used = 0;
		p->last_ts = ts;
		p->missed = missed;
		if (record_bytes(size) > room(p))
			return -EINVAL;
	}
	at = p->page + header_size(p) + p->used;
	delta = ts - p->last_ts;
	if (delta >= (1ull << TS_BITS)) {
		put32(p, at, header_word(p, TYPE_TIME_EXTEND, (uint32_t)(delta & ((1u << TS_BITS) - 1))));
		put32(p, at + 4, (uint32_t)(delta >> TS_BITS));
		at += 8;
		p->used += 8;
		delta = 0;
	}
	if (size && size <= MAX_SMALL && !(size & 3)) {
		put32(p, at, header_word(p, size / 4, (uint32_t)delta));
		at += 4;
	} else {
		put32(p, at, header_word(p, 0, (uint32_t)delta));
		put32(p, at + 4, size + 4);
		at += 8;
	}
	memcpy(at, data, size);
	p->used += record_bytes(size);
	p->last_ts = ts;
	return 0;
}
