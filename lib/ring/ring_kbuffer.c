// SPDX-License-Identifier: MIT
/*
 * kbuffer: a reader for Linux ftrace ring-buffer sub-buffers.
 *
 * Sub-buffer layout: u64 timestamp, a kernel long "commit" (bits 0-26: bytes of event
 * data; bit 31: events were lost before this page; bit 30: their count is stored as a
 * long right after the data), then the records. Each record starts with a 32-bit
 * header holding a 5-bit type_len and a 27-bit time delta (the bitfield order follows
 * the kernel's endianness):
 *   type_len 1..28   data event, payload of type_len * 4 bytes follows
 *   type_len 0       data event, payload length (+ 4) in the next 32-bit word
 *   29 padding       next word: length of the discarded space
 *   30 time extend   next word: delta bits 27..58
 *   31 time stamp    next word: absolute time bits 27..58 (top bits from the current time)
 *
 * The walk is the same as libtraceevent's so that its users see the same positions,
 * sizes and timestamps; what differs is that every read is bounded and every step
 * moves forward, so corrupt input ends a walk instead of crashing or looping.
 */
#include <ktrace/kbuffer.h>

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "ring/ring_kbuffer_int.h"

#define KB_COMMIT_MASK   ((1u << 27) - 1)
#define KB_MISSED_EVENTS (1ULL << 31)
#define KB_MISSED_STORED (1ULL << 30)
#define KB_DELTA_MASK    ((1u << 27) - 1)
/* An absolute time stamp record lacks the top 5 bits; they come from the current time. */
#define KB_TS_TOP_BITS   (0xf8ULL << 56)
#define KB_UNKNOWN_LEN   SIZE_MAX

struct kbuffer {
	unsigned long long timestamp;  /* time of the current event */
	long long lost_events;         /* >0 count, -1 unknown count, 0 none */
	unsigned char *subbuffer;
	unsigned char *data;           /* subbuffer + start */
	size_t buflen;                 /* length of subbuffer, KB_UNKNOWN_LEN if not given */
	size_t avail;                  /* bytes readable from data on */
	unsigned int index;            /* payload of the current event, from data */
	unsigned int curr;             /* header of the current event, from data */
	unsigned int next;             /* header of the following record, from data */
	unsigned int size;             /* commit: end of the events, from data */
	unsigned int start;            /* 12 or 16: header size of a sub-buffer */
	unsigned int first;            /* curr of the first event of the sub-buffer */
	bool swap;                     /* data byte order differs from the host's */
	bool big;                      /* data is big-endian (header bitfield order) */
	bool long8;                    /* kernel long is 8 bytes */
	bool old_format;               /* Linux <= 2.6.30 layout */
	bool corrupt;                  /* the walk met inconsistent data and stopped */
	bool native_le;                /* little-endian data on a little-endian host, new format */
};

/* One decoded record header. */
struct kb_record {
	unsigned int type;             /* type_len (new format) or type (old format) */
	size_t payload;                /* offset of the payload, same base as the header */
	long long length;              /* payload length; < 0 means impossible */
	unsigned long long delta;      /* time delta, or absolute time for TIME_STAMP */
	bool is_event;                 /* a data event (not padding or time) */
};

static bool host_big_endian(void)
{
	const uint16_t probe = 1;
	unsigned char first;

	memcpy(&first, &probe, 1);
	return first == 0;
}

static inline uint32_t load32(bool swap, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t load64(bool swap, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

static inline void store32(bool swap, unsigned char *p, uint32_t v)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void store64(bool swap, unsigned char *p, uint64_t v)
{
	if (swap)
		v = __builtin_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

static inline uint64_t load_long(const struct kbuffer *kb, const unsigned char *p)
{
	return kb->long8 ? load64(kb->swap, p) : load32(kb->swap, p);
}

static inline unsigned int long_bytes(const struct kbuffer *kb)
{
	return kb->long8 ? 8 : 4;
}

static inline bool fits(size_t avail, size_t off, size_t n)
{
	return avail >= n && off <= avail - n;
}

/*
 * Decodes the record whose header is at base + off, reading nothing at or past
 * base + avail. now: the current time, for the top bits of an absolute time stamp.
 * Returns false when the header itself does not fit.
 */
static inline bool decode_record(bool swap, bool big, const unsigned char *base, size_t avail,
				 size_t off, unsigned long long now, struct kb_record *r)
{
	uint32_t word, type_len;
	size_t p = off + 4;

	if (!fits(avail, off, 4))
		return false;
	word = load32(swap, base + off);
	if (big) {
		type_len = word >> 27;
		r->delta = word & KB_DELTA_MASK;
	} else {
		type_len = word & 31;
		r->delta = word >> 5;
	}
	r->type = type_len;
	r->is_event = type_len < KBUFFER_TYPE_PADDING;

	switch (type_len) {
	case KBUFFER_TYPE_PADDING:
		/* The length word of the discarded space; the payload pointer stays on it.
		 * A padding record with delta 0 may end the page without room for the word:
		 * then it covers the rest of the page. */
		if (!fits(avail, p, 4)) {
			if (r->delta != 0)
				return false;
			r->length = (long long)(avail - p);
		} else {
			r->length = (int32_t)load32(swap, base + p);
		}
		break;
	case KBUFFER_TYPE_TIME_STAMP:
	case KBUFFER_TYPE_TIME_EXTEND: {
		unsigned long long ext;

		if (!fits(avail, p, 4))
			return false;
		ext = (unsigned long long)load32(swap, base + p) << TS_SHIFT;
		ext += r->delta;
		if (type_len == KBUFFER_TYPE_TIME_STAMP)
			ext |= now & KB_TS_TOP_BITS;
		r->delta = ext;
		r->length = 0;
		p += 4;
		break;
	}
	case 0: {
		int32_t len;

		if (!fits(avail, p, 4))
			return false;
		len = (int32_t)(load32(swap, base + p) - 4);
		if (len > INT32_MAX - 3)
			len = -1;  /* rounding up would overflow: impossible length */
		else
			len = (int32_t)(((uint32_t)len + 3) & ~3u);
		r->length = len;
		p += 4;
		break;
	}
	default:
		r->length = (long long)type_len * 4;
		break;
	}
	r->payload = p;
	return true;
}

/* The pre-2.6.31 layout: 2-bit type, 3-bit length in words, 27-bit delta. */
enum { OLD_PADDING, OLD_TIME_EXTEND, OLD_TIME_STAMP, OLD_DATA };

static inline bool decode_old_record(const struct kbuffer *kb, size_t off, struct kb_record *r)
{
	uint32_t word, type, len;
	size_t p = off + 4;

	if (!fits(kb->avail, off, 4))
		return false;
	word = load32(kb->swap, kb->data + off);
	if (kb->big) {
		type = (word >> 29) & 3;
		len = (word >> 27) & 7;
		r->delta = word & KB_DELTA_MASK;
	} else {
		type = word & 3;
		len = (word >> 2) & 7;
		r->delta = word >> 5;
	}
	r->type = type;
	r->is_event = type == OLD_DATA;

	switch (type) {
	case OLD_PADDING:
		/* The rest of the sub-buffer. */
		r->delta = 0;
		r->length = (long long)kb->size - (long long)p;
		break;
	case OLD_TIME_EXTEND:
		if (!fits(kb->avail, p, 4))
			return false;
		r->delta += (unsigned long long)load32(kb->swap, kb->data + p) << TS_SHIFT;
		r->length = 0;
		p += 4;
		break;
	case OLD_TIME_STAMP:
		return false;  /* never written by those kernels */
	default:
		if (len) {
			r->length = len * 4;
		} else {
			if (!fits(kb->avail, p, 4))
				return false;
			r->length = (long long)load32(kb->swap, kb->data + p) - 4;
			p += 4;
		}
		break;
	}
	r->payload = p;
	return true;
}

static void move_to_end(struct kbuffer *kb)
{
	kb->curr = kb->size;
	kb->next = kb->size;
	kb->index = kb->size;
}

static void stop_corrupt(struct kbuffer *kb)
{
	kb->corrupt = true;
	move_to_end(kb);
}

/*
 * Steps to the next data event, applying the time records on the way. 0 or -1 (end).
 * Works on local copies of the position: the byte loads alias the struct, and keeping
 * the walk in registers is what makes this fast.
 */
static __attribute__((noinline)) int advance(struct kbuffer *kb)
{
	const unsigned char *data = kb->data;
	const size_t avail = kb->avail;
	const unsigned int size = kb->size;
	unsigned long long ts = kb->timestamp;
	unsigned int next = kb->next;
	struct kb_record r;
	uint64_t end;

	for (;;) {
		if (next >= size) {
			kb->curr = next;
			kb->next = next;
			kb->timestamp = ts;
			return -1;
		}
		/* Common case: a native-order data event with its length in the header. */
		if (kb->native_le && fits(avail, next, 4)) {
			uint32_t word, type_len;

			memcpy(&word, data + next, 4);
			type_len = word & 31;
			if (type_len - 1 < 28u) {
				end = (uint64_t)next + 4 + type_len * 4;
				if (end > avail)
					goto corrupt;
				kb->timestamp = ts + (word >> 5);
				kb->curr = next;
				kb->index = next + 4;
				kb->next = (unsigned int)end;
				return 0;
			}
		}
		if (kb->old_format) {
			if (!decode_old_record(kb, next, &r))
				goto corrupt;
		} else if (!decode_record(kb->swap, kb->big, data, avail, next, ts, &r)) {
			goto corrupt;
		}
		if (r.type == KBUFFER_TYPE_TIME_STAMP && !kb->old_format)
			ts = r.delta;
		else
			ts += r.delta;
		if (r.length < 0)
			goto corrupt;
		end = (uint64_t)r.payload + (uint64_t)r.length;
		/* An event whose payload would run past the known end of the sub-buffer
		 * cannot be handed out. */
		if (end > UINT_MAX || (r.is_event && end > avail))
			goto corrupt;
		/* Skipped records move the position too, as libtraceevent's walk does:
		 * at the end, index is left on the last record seen. */
		kb->curr = next;
		kb->index = (unsigned int)r.payload;
		kb->next = (unsigned int)end;
		if (r.is_event) {
			kb->timestamp = ts;
			return 0;
		}
		next = (unsigned int)end;
	}
corrupt:
	kb->timestamp = ts;
	stop_corrupt(kb);
	return -1;
}

static bool host_kernel_is_64bit(void)
{
	struct utsname u;

	if (sizeof(long) == 8)
		return true;
	if (uname(&u) < 0)
		return false;
	return strstr(u.machine, "64") != NULL;
}

/* Sets kb up for a layout: 0, or -1 for a size or byte order there is not. */
static int kbuffer_setup(struct kbuffer *kb, enum kbuffer_long_size size, enum kbuffer_endian endian)
{
	bool long8, big;

	switch (size) {
	case KBUFFER_LSIZE_4:
		long8 = false;
		break;
	case KBUFFER_LSIZE_8:
		long8 = true;
		break;
	case KBUFFER_LSIZE_SAME_AS_HOST:
		long8 = host_kernel_is_64bit();
		break;
	default:
		return -1;
	}
	switch (endian) {
	case KBUFFER_ENDIAN_BIG:
		big = true;
		break;
	case KBUFFER_ENDIAN_LITTLE:
		big = false;
		break;
	case KBUFFER_ENDIAN_SAME_AS_HOST:
		big = host_big_endian();
		break;
	default:
		return -1;
	}
	memset(kb, 0, sizeof(*kb));
	kb->long8 = long8;
	kb->big = big;
	kb->swap = big != host_big_endian();
	kb->start = long8 ? 16 : 12;
	kb->native_le = !big && !kb->swap;
	return 0;
}

struct kbuffer *kbuffer_alloc(enum kbuffer_long_size size, enum kbuffer_endian endian)
{
	struct kbuffer probe, *kb;

	if (kbuffer_setup(&probe, size, endian))
		return NULL;
	kb = malloc(sizeof(*kb));
	if (kb)
		*kb = probe;
	return kb;
}

_Static_assert(sizeof(struct kbuffer) <= sizeof(struct kt_kbuffer_mem), "kt_kbuffer_mem too small");

struct kbuffer *kt_kbuffer_init(struct kt_kbuffer_mem *mem, enum kbuffer_long_size size,
				enum kbuffer_endian endian)
{
	struct kbuffer *kb = (struct kbuffer *)mem->b;

	return kbuffer_setup(kb, size, endian) ? NULL : kb;
}

struct kbuffer *kbuffer_dup(struct kbuffer *kbuf)
{
	struct kbuffer *copy;

	if (!kbuf)
		return NULL;
	copy = malloc(sizeof(*copy));
	if (copy)
		*copy = *kbuf;
	return copy;
}

void kbuffer_free(struct kbuffer *kbuf)
{
	free(kbuf);
}

/* Reads the commit word into size (clamped to what is readable) and the lost count. */
static void read_commit(struct kbuffer *kb)
{
	uint64_t commit = load_long(kb, kb->subbuffer + 8);
	unsigned int lb = long_bytes(kb);

	kb->size = (unsigned int)commit & KB_COMMIT_MASK;
	if (kb->size > kb->avail) {
		kb->size = (unsigned int)kb->avail;
		kb->corrupt = true;
	}
	if (!(commit & KB_MISSED_EVENTS))
		kb->lost_events = 0;
	else if ((commit & KB_MISSED_STORED) && fits(kb->avail, kb->size, lb))
		kb->lost_events = (long long)load_long(kb, kb->data + kb->size);
	else
		kb->lost_events = -1;
}

/*
 * Readers walk sub-buffers stored one after the other (a trace_pipe_raw dump, trace.dat
 * CPU data). The hardware prefetcher stops at page boundaries, so ask for the start of
 * the following sub-buffer now; a prefetch is only a hint and never faults.
 */
static inline void prefetch_following(const unsigned char *sub, size_t len)
{
	for (size_t i = 0; i < 512 && i < len; i += 64)
		__builtin_prefetch(sub + len + i);
}

int kbuffer_load_subbuffer_len(struct kbuffer *kbuf, void *subbuffer, size_t len)
{
	struct kbuffer *kb = kbuf;

	if (!kb || !subbuffer)
		return -1;
	if (len != KB_UNKNOWN_LEN && len < kb->start)
		return -1;  /* not even room for the sub-buffer header */
	kb->subbuffer = subbuffer;
	kb->buflen = len;
	kb->avail = len == KB_UNKNOWN_LEN ? KB_UNKNOWN_LEN : len - kb->start;
	kb->data = kb->subbuffer + kb->start;
	kb->corrupt = false;
	kb->timestamp = load64(kb->swap, kb->subbuffer);
	read_commit(kb);
	kb->curr = 0;
	kb->index = 0;
	kb->next = 0;
	advance(kb);
	kb->first = kb->curr;
	prefetch_following(kb->subbuffer, len == KB_UNKNOWN_LEN ? 4096 : len);
	return 0;
}

int kbuffer_load_subbuffer(struct kbuffer *kbuf, void *subbuffer)
{
	return kbuffer_load_subbuffer_len(kbuf, subbuffer, KB_UNKNOWN_LEN);
}

int kbuffer_refresh(struct kbuffer *kbuf)
{
	unsigned int old_size;

	if (!kbuf || !kbuf->subbuffer)
		return -1;
	old_size = kbuf->size;
	read_commit(kbuf);
	/* A walk that had reached the old end continues into the new events. */
	if (kbuf->size != old_size && kbuf->curr == kbuf->next)
		advance(kbuf);
	return 0;
}

void *kbuffer_read_event(struct kbuffer *kbuf, unsigned long long *ts)
{
	if (!kbuf || !kbuf->subbuffer || kbuf->curr >= kbuf->size)
		return NULL;
	if (ts)
		*ts = kbuf->timestamp;
	return kbuf->data + kbuf->index;
}

void *kbuffer_next_event(struct kbuffer *kbuf, unsigned long long *ts)
{
	unsigned int next;

	if (!kbuf || !kbuf->subbuffer)
		return NULL;
	/* The common step, a native-order data event right after the current one, is
	 * done here without a call; advance() handles everything (this case included). */
	next = kbuf->next;
	if (kbuf->native_le && next < kbuf->size && fits(kbuf->avail, next, 4)) {
		uint32_t word, type_len;

		memcpy(&word, kbuf->data + next, 4);
		type_len = word & 31;
		if (type_len - 1 < 28u && (uint64_t)next + 4 + type_len * 4 <= kbuf->avail) {
			kbuf->timestamp += word >> 5;
			kbuf->curr = next;
			kbuf->index = next + 4;
			kbuf->next = next + 4 + type_len * 4;
			if (ts)
				*ts = kbuf->timestamp;
			return kbuf->data + kbuf->index;
		}
	}
	if (advance(kbuf) < 0)
		return NULL;
	if (ts)
		*ts = kbuf->timestamp;
	return kbuf->data + kbuf->index;
}

unsigned long long kbuffer_timestamp(struct kbuffer *kbuf)
{
	return kbuf ? kbuf->timestamp : 0;
}

unsigned long long kbuffer_subbuf_timestamp(struct kbuffer *kbuf, void *subbuf)
{
	if (!kbuf || !subbuf)
		return 0;
	return load64(kbuf->swap, subbuf);
}

unsigned int kbuffer_ptr_delta(struct kbuffer *kbuf, void *ptr)
{
	uint32_t word;

	if (!kbuf || !ptr)
		return 0;
	word = load32(kbuf->swap, ptr);
	return kbuf->big ? (word & KB_DELTA_MASK) : (word >> 5);
}

void *kbuffer_translate_data(int swap, void *data, unsigned int *size)
{
	bool big = host_big_endian() ? !swap : !!swap;
	struct kb_record r;

	if (!data || !decode_record(!!swap, big, data, KB_UNKNOWN_LEN, 0, 0, &r))
		return NULL;
	if (!r.is_event)
		return NULL;
	if (size)
		*size = (unsigned int)r.length;
	return (unsigned char *)data + r.payload;
}

void *kbuffer_read_at_offset(struct kbuffer *kbuf, int offset, unsigned long long *ts)
{
	/* As in libtraceevent, the offset compares as unsigned: a negative one walks to
	 * the end. */
	unsigned int target = (unsigned int)offset;
	void *data;

	if (!kbuf)
		return NULL;
	target = target < kbuf->start ? 0 : target - kbuf->start;
	kbuffer_load_subbuffer_len(kbuf, kbuf->subbuffer, kbuf->buflen);
	data = kbuffer_read_event(kbuf, ts);
	while (kbuf->curr < target) {
		data = kbuffer_next_event(kbuf, ts);
		if (!data)
			break;
	}
	return data;
}

int kbuffer_read_buffer(struct kbuffer *kbuf, void *buffer, int len)
{
	unsigned char *out = buffer;
	unsigned int save_curr, last_next;
	uint32_t word;
	unsigned int copied;

	if (!kbuf || !kbuf->subbuffer || kbuf->curr >= kbuf->size)
		return 0;
	if (!buffer || len < 0 || (unsigned int)len < kbuf->start)
		return -1;
	/* The header and the first event must fit. */
	if ((unsigned int)len < (kbuf->next - kbuf->curr) + kbuf->start)
		return -1;

	/* The copy starts a sub-buffer of its own, stamped with the current time. */
	store64(kbuf->swap, out, kbuf->timestamp);
	len -= (int)kbuf->start;
	save_curr = kbuf->curr;
	last_next = kbuf->next;
	while ((unsigned int)len >= kbuf->next - save_curr) {
		last_next = kbuf->next;
		if (!kbuffer_next_event(kbuf, NULL))
			break;
	}
	copied = last_next - save_curr;
	if (!copied)
		return 0;
	memcpy(out + kbuf->start, kbuf->data + save_curr, copied);

	/* The first record's delta is now in the sub-buffer timestamp. */
	word = load32(kbuf->swap, out + kbuf->start);
	word &= kbuf->big ? ~KB_DELTA_MASK : 31u;
	store32(kbuf->swap, out + kbuf->start, word);

	if (kbuf->long8)
		store64(kbuf->swap, out + 8, copied);
	else
		store32(kbuf->swap, out + 8, copied);
	return (int)last_next;
}

int kbuffer_curr_index(struct kbuffer *kbuf)
{
	return kbuf ? (int)kbuf->curr : 0;
}

int kbuffer_curr_offset(struct kbuffer *kbuf)
{
	return kbuf ? (int)(kbuf->curr + kbuf->start) : 0;
}

int kbuffer_event_size(struct kbuffer *kbuf)
{
	return kbuf ? (int)(kbuf->next - kbuf->index) : 0;
}

int kbuffer_curr_size(struct kbuffer *kbuf)
{
	return kbuf ? (int)(kbuf->next - kbuf->curr) : 0;
}

int kbuffer_missed_events(struct kbuffer *kbuf)
{
	/* Lost events precede the sub-buffer, so only its first record reports them. */
	if (!kbuf || kbuf->curr)
		return 0;
	return (int)kbuf->lost_events;
}

int kbuffer_subbuffer_size(struct kbuffer *kbuf)
{
	return kbuf ? (int)kbuf->size : 0;
}

void *kbuffer_subbuffer(struct kbuffer *kbuf)
{
	return kbuf ? kbuf->subbuffer : NULL;
}

void kbuffer_set_old_format(struct kbuffer *kbuf)
{
	if (kbuf) {
		kbuf->old_format = true;
		kbuf->native_le = false;
	}
}

int kbuffer_start_of_data(struct kbuffer *kbuf)
{
	return kbuf ? (int)(kbuf->first + kbuf->start) : 0;
}

struct kbuffer_raw_info *kbuffer_raw_get(struct kbuffer *kbuf, void *subbuf,
					 struct kbuffer_raw_info *info)
{
	unsigned char *sb = subbuf, *ptr;
	size_t buflen, off, end;
	struct kb_record r;

	if (!kbuf || !subbuf || !info)
		return NULL;
	/* The length is known only for the sub-buffer that was loaded with it. */
	buflen = sb == kbuf->subbuffer ? kbuf->buflen : KB_UNKNOWN_LEN;
	if (!fits(buflen, 8, long_bytes(kbuf)))
		return NULL;
	end = kbuf->start + ((unsigned int)load_long(kbuf, sb + 8) & KB_COMMIT_MASK);
	if (end > buflen)
		end = buflen;
	ptr = info->next;
	if (!ptr || ptr < sb || (size_t)(ptr - sb) >= end)
		return NULL;
	off = (size_t)(ptr - sb);
	if (!decode_record(kbuf->swap, kbuf->big, sb, buflen, off, kbuf->timestamp, &r) ||
	    r.length < 0 || r.length > INT_MAX)
		return NULL;
	info->type = (int)r.type;
	info->delta = r.delta;
	info->length = (int)r.length;
	/* A record claiming to run past the data ends the walk at the end of the data. */
	if ((uint64_t)r.payload + (uint64_t)r.length > end)
		info->next = sb + end;
	else
		info->next = sb + r.payload + (size_t)r.length;
	return info;
}

int kbuffer_corrupt(struct kbuffer *kbuf)
{
	return kbuf ? kbuf->corrupt : 0;
}

int kbuffer_long_size(struct kbuffer *kbuf)
{
	return kbuf ? (int)long_bytes(kbuf) : 0;
}

int kbuffer_big_endian(struct kbuffer *kbuf)
{
	return kbuf ? kbuf->big : 0;
}

long long kbuffer_lost_events(struct kbuffer *kbuf)
{
	return kbuf ? kbuf->lost_events : 0;
}
