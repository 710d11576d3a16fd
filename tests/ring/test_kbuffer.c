// SPDX-License-Identifier: MIT
/*
 * kbuffer unit tests on hand-built sub-buffers whose expected positions, sizes and
 * timestamps are worked out by hand from the ring-buffer layout (see the comments at
 * each page), plus the cases real dumps rarely show: corrupt commits, records running
 * past the end, impossible lengths, refresh, dup, read_buffer, old format, NULLs.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/kbuffer.h>

#include "testlib.h"

#define PAGE 4096

struct page_builder {
	uint8_t page[PAGE];
	size_t pos;     /* next record, from the start of the page */
	bool big;
	int long_size;
};

static void put32(struct page_builder *b, size_t at, uint32_t v)
{
	if (b->big)
		v = __builtin_bswap32(v);
	memcpy(b->page + at, &v, 4);
}

static void put64(struct page_builder *b, size_t at, uint64_t v)
{
	if (b->big)
		v = __builtin_bswap64(v);
	memcpy(b->page + at, &v, 8);
}

static void begin(struct page_builder *b, uint64_t ts, bool big, int long_size)
{
	memset(b, 0, sizeof(*b));
	b->big = big;
	b->long_size = long_size;
	put64(b, 0, ts);
	b->pos = long_size == 8 ? 16 : 12;
}

static void header(struct page_builder *b, uint32_t type_len, uint32_t delta)
{
	put32(b, b->pos, b->big ? (type_len << 27) | delta : (delta << 5) | type_len);
	b->pos += 4;
}

/* A data event with n payload words (n <= 28 in the header, else with a length word). */
static void event(struct page_builder *b, uint32_t delta, uint32_t words, uint8_t fill)
{
	if (words <= 28) {
		header(b, words, delta);
	} else {
		header(b, 0, delta);
		put32(b, b->pos, words * 4 + 4);
		b->pos += 4;
	}
	memset(b->page + b->pos, fill, words * 4);
	b->pos += words * 4;
}

static void extend(struct page_builder *b, uint64_t delta, uint32_t type)
{
	header(b, type, (uint32_t)(delta & ((1u << 27) - 1)));
	put32(b, b->pos, (uint32_t)(delta >> 27));
	b->pos += 4;
}

/* Discarded space: the length word counts itself and what follows it. */
static void padding(struct page_builder *b, uint32_t delta, uint32_t len)
{
	header(b, 29, delta);
	put32(b, b->pos, len);
	b->pos += len;
}

/* Sets commit to the data written so far, with optional lost-event flags and count. */
static void finish(struct page_builder *b, uint64_t flags, int64_t lost)
{
	size_t start = b->long_size == 8 ? 16 : 12;
	uint64_t commit = (b->pos - start) | flags;

	if (b->long_size == 8)
		put64(b, 8, commit);
	else
		put32(b, 8, (uint32_t)commit);
	if (lost >= 0) {
		if (b->long_size == 8)
			put64(b, b->pos, (uint64_t)lost);
		else
			put32(b, b->pos, (uint32_t)lost);
	}
}

static struct page_builder pb;

/*
 * Page: ts 1000; event A (delta 5, 2 words) at data 0; time extend of 1<<30 at 12;
 * event B (delta 7, 40 words: type_len 0) at 20; padding (delta 1, 12 bytes) at 188;
 * event C (delta 2, 1 word) at 200; time stamp 5<<27|3 at 208; event D (delta 1, 3 words)
 * at 216; the data ends at 232.
 */
static void build_mixed(bool big, int long_size)
{
	begin(&pb, 1000, big, long_size);
	event(&pb, 5, 2, 0xaa);
	extend(&pb, 1ULL << 30, KBUFFER_TYPE_TIME_EXTEND);
	event(&pb, 7, 40, 0xbb);
	padding(&pb, 1, 8);
	event(&pb, 2, 1, 0xcc);
	extend(&pb, (5ULL << 27) | 3, KBUFFER_TYPE_TIME_STAMP);
	event(&pb, 1, 3, 0xdd);
	finish(&pb, 0, -1);
}

static void walk_mixed_layout(bool big, int long_size)
{
	struct kbuffer *kb = kbuffer_alloc(long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					   big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	unsigned int start = long_size == 8 ? 16 : 12;
	unsigned long long ts;
	uint8_t *ev;

	build_mixed(big, long_size);
	CHECK_EQ(kbuffer_load_subbuffer_len(kb, pb.page, PAGE), 0);
	CHECK_EQ(kbuffer_subbuffer_size(kb), 232);
	CHECK_EQ(kbuffer_start_of_data(kb), start);
	CHECK_EQ(kbuffer_missed_events(kb), 0);

	ev = kbuffer_read_event(kb, &ts);
	CHECK(ev == pb.page + start + 4);
	CHECK_EQ(ts, 1005);
	CHECK_EQ(kbuffer_curr_index(kb), 0);
	CHECK_EQ(kbuffer_curr_offset(kb), start);
	CHECK_EQ(kbuffer_event_size(kb), 8);
	CHECK_EQ(kbuffer_curr_size(kb), 12);

	ev = kbuffer_next_event(kb, &ts);         /* B, after the extend */
	CHECK(ev && ev[0] == 0xbb);
	CHECK_EQ(ts, 1005 + (1ULL << 30) + 7);
	CHECK_EQ(kbuffer_curr_index(kb), 20);
	CHECK_EQ(kbuffer_event_size(kb), 160);
	CHECK_EQ(kbuffer_curr_size(kb), 168);

	ev = kbuffer_next_event(kb, &ts);         /* C, after the padding (delta 1) */
	CHECK(ev && ev[0] == 0xcc);
	CHECK_EQ(ts, 1005 + (1ULL << 30) + 7 + 1 + 2);
	CHECK_EQ(kbuffer_curr_index(kb), 200);

	ev = kbuffer_next_event(kb, &ts);         /* D, after the absolute time stamp */
	CHECK(ev && ev[0] == 0xdd);
	CHECK_EQ(ts, (5ULL << 27) + 3 + 1);
	CHECK_EQ(kbuffer_curr_index(kb), 216);
	CHECK_EQ(kbuffer_event_size(kb), 12);

	CHECK(kbuffer_next_event(kb, &ts) == NULL);
	CHECK(kbuffer_read_event(kb, &ts) == NULL);
	CHECK_EQ(kbuffer_curr_index(kb), 232);
	CHECK_EQ(kbuffer_corrupt(kb), 0);

	/* Positioning: at B's header finds B; inside B finds the first event starting at
	 * or after the offset, C (libtraceevent's rule). */
	ev = kbuffer_read_at_offset(kb, (int)start + 20, &ts);
	CHECK(ev && ev[0] == 0xbb);
	CHECK_EQ(kbuffer_curr_index(kb), 20);
	ev = kbuffer_read_at_offset(kb, (int)start + 60, &ts);
	CHECK(ev && ev[0] == 0xcc);
	CHECK_EQ(kbuffer_curr_index(kb), 200);
	kbuffer_free(kb);
}

static void mixed_page_little_endian_64(void) { walk_mixed_layout(false, 8); }
static void mixed_page_big_endian_64(void) { walk_mixed_layout(true, 8); }
static void mixed_page_little_endian_32(void) { walk_mixed_layout(false, 4); }
static void mixed_page_big_endian_32(void) { walk_mixed_layout(true, 4); }

static void lost_events_flags(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);

	begin(&pb, 50, false, 8);
	event(&pb, 1, 1, 1);
	finish(&pb, (1ULL << 31) | (1ULL << 30), 4242);
	kbuffer_load_subbuffer_len(kb, pb.page, PAGE);
	CHECK_EQ(kbuffer_missed_events(kb), 4242);
	CHECK_EQ(kbuffer_lost_events(kb), 4242);

	begin(&pb, 50, false, 8);
	event(&pb, 1, 1, 1);
	finish(&pb, 1ULL << 31, -1);
	kbuffer_load_subbuffer_len(kb, pb.page, PAGE);
	CHECK_EQ(kbuffer_missed_events(kb), -1);

	/* Only the first record reports them (libtraceevent's rule): a time extend first
	 * hides them from kbuffer_missed_events, not from kbuffer_lost_events. */
	begin(&pb, 50, false, 8);
	extend(&pb, 1ULL << 28, KBUFFER_TYPE_TIME_EXTEND);
	event(&pb, 1, 1, 1);
	finish(&pb, (1ULL << 31) | (1ULL << 30), 7);
	kbuffer_load_subbuffer_len(kb, pb.page, PAGE);
	CHECK_EQ(kbuffer_missed_events(kb), 0);
	CHECK_EQ(kbuffer_lost_events(kb), 7);

	/* The stored count would lie past the page: counted as unknown. */
	begin(&pb, 50, false, 8);
	event(&pb, 1, 1, 1);
	finish(&pb, (1ULL << 31) | (1ULL << 30), -1);
	kbuffer_load_subbuffer_len(kb, pb.page, 16 + 8 + 4);
	CHECK_EQ(kbuffer_missed_events(kb), -1);
	kbuffer_free(kb);
}

static void corrupt_commit_is_clamped(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	int n = 0;

	begin(&pb, 1, false, 8);
	for (int i = 0; i < 10; i++)
		event(&pb, 1, 3, (uint8_t)i);
	put64(&pb, 8, 9999999);                   /* commit far beyond the page */
	CHECK_EQ(kbuffer_load_subbuffer_len(kb, pb.page, 256), 0);
	CHECK_EQ(kbuffer_subbuffer_size(kb), 240);
	for (void *e = kbuffer_read_event(kb, NULL); e; e = kbuffer_next_event(kb, NULL))
		n++;
	CHECK_EQ(n, 10);                          /* the tail (zeros) ends the walk */
	CHECK(kbuffer_corrupt(kb));
	kbuffer_free(kb);
}

static void record_past_end_stops_walk(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	int n = 0;

	begin(&pb, 1, false, 8);
	event(&pb, 1, 2, 1);
	header(&pb, 0, 1);                        /* type_len 0 with a huge length word */
	put32(&pb, pb.pos, 0x7ffffff0);
	pb.pos += 4;
	finish(&pb, 0, -1);
	CHECK_EQ(kbuffer_load_subbuffer_len(kb, pb.page, PAGE), 0);
	for (void *e = kbuffer_read_event(kb, NULL); e; e = kbuffer_next_event(kb, NULL))
		n++;
	CHECK_EQ(n, 1);
	CHECK(kbuffer_corrupt(kb));

	/* A length word smaller than itself is impossible too. */
	begin(&pb, 1, false, 8);
	header(&pb, 0, 1);
	put32(&pb, pb.pos, 0);
	pb.pos += 4;
	finish(&pb, 0, -1);
	kbuffer_load_subbuffer_len(kb, pb.page, PAGE);
	CHECK(kbuffer_read_event(kb, NULL) == NULL);
	CHECK(kbuffer_corrupt(kb));

	/* Too short for a header at all. */
	CHECK_EQ(kbuffer_load_subbuffer_len(kb, pb.page, 8), -1);
	kbuffer_free(kb);
}

static void refresh_sees_new_events(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned long long ts;

	begin(&pb, 100, false, 8);
	event(&pb, 1, 1, 1);
	finish(&pb, 0, -1);
	kbuffer_load_subbuffer_len(kb, pb.page, PAGE);
	CHECK(kbuffer_next_event(kb, NULL) == NULL);
	event(&pb, 2, 1, 2);                      /* the producer appends */
	finish(&pb, 0, -1);
	CHECK_EQ(kbuffer_refresh(kb), 0);
	CHECK(kbuffer_read_event(kb, &ts) != NULL);
	CHECK_EQ(ts, 103);
	CHECK_EQ(kbuffer_refresh(NULL), -1);
	kbuffer_free(kb);
}

static void dup_walks_independently(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE), *copy;

	build_mixed(false, 8);
	kbuffer_load_subbuffer_len(kb, pb.page, PAGE);
	kbuffer_next_event(kb, NULL);
	copy = kbuffer_dup(kb);
	CHECK(copy != NULL);
	CHECK(kbuffer_subbuffer(copy) == pb.page);
	CHECK_EQ(kbuffer_curr_index(copy), 20);
	kbuffer_next_event(copy, NULL);
	CHECK_EQ(kbuffer_curr_index(copy), 200);
	CHECK_EQ(kbuffer_curr_index(kb), 20);
	kbuffer_free(copy);
	kbuffer_free(kb);
}

static void read_buffer_makes_a_subbuffer(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct kbuffer *back = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	static uint8_t out[PAGE];
	unsigned long long ts;
	uint8_t *ev;
	int r;

	build_mixed(false, 8);
	kbuffer_load_subbuffer_len(kb, pb.page, PAGE);
	kbuffer_next_event(kb, NULL);             /* start the copy at B */
	CHECK_EQ(kbuffer_read_buffer(kb, out, 16 + 10), -1);   /* B does not fit */
	r = kbuffer_read_buffer(kb, out, 16 + 168 + 12);        /* B fits, B + C do not */
	CHECK_EQ(r, 188);
	CHECK_EQ(kbuffer_load_subbuffer_len(back, out, PAGE), 0);
	ev = kbuffer_read_event(back, &ts);
	CHECK(ev && ev[0] == 0xbb);
	CHECK_EQ(ts, 1005 + (1ULL << 30) + 7);   /* B's time moved into the page header */
	CHECK_EQ(kbuffer_subbuffer_size(back), 168);
	/* kb now stands on the first record not copied. */
	CHECK_EQ(kbuffer_curr_index(kb), 200);
	r = kbuffer_read_buffer(kb, out, PAGE);
	CHECK_EQ(r, 232);
	kbuffer_load_subbuffer_len(back, out, PAGE);
	ev = kbuffer_read_event(back, NULL);
	CHECK(ev && ev[0] == 0xcc);
	CHECK_EQ(kbuffer_read_buffer(kb, out, PAGE), 0);          /* nothing left */
	kbuffer_free(back);
	kbuffer_free(kb);
}

static void translate_data_both_orders(void)
{
	uint8_t rec[16];
	unsigned int size = 0;
	uint32_t w;

	w = (3u << 5) | 2;                        /* LE: type_len 2, delta 3 */
	memcpy(rec, &w, 4);
	CHECK(kbuffer_translate_data(0, rec, &size) == rec + 4);
	CHECK_EQ(size, 8);
	w = __builtin_bswap32((2u << 27) | 3);    /* BE layout, swapped */
	memcpy(rec, &w, 4);
	CHECK(kbuffer_translate_data(1, rec, &size) == rec + 4);
	CHECK_EQ(size, 8);
	w = (3u << 5) | 30;                       /* a time extend: no event */
	memcpy(rec, &w, 4);
	CHECK(kbuffer_translate_data(0, rec, &size) == NULL);
}

static void raw_get_lists_every_record(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct kbuffer_raw_info info = { 0 };
	static const int types[] = { 2, 30, 0, 29, 1, 31, 3 };
	int n = 0;

	build_mixed(false, 8);
	kbuffer_load_subbuffer_len(kb, pb.page, PAGE);
	info.next = pb.page + 16;
	while (kbuffer_raw_get(kb, pb.page, &info)) {
		if (n < 7)
			CHECK_EQ(info.type, types[n]);
		n++;
	}
	CHECK_EQ(n, 7);
	kbuffer_free(kb);
}

static void old_format_layout(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned long long ts;
	uint32_t w;
	uint8_t *ev;

	/* 2.6.30 layout: type in bits 0-1 (3 data), length words in 2-4, delta above. */
	begin(&pb, 10, false, 8);
	w = (4u << 5) | (2u << 2) | 3;
	put32(&pb, 16, w);
	w = (1u << 5) | 1;                        /* time extend: delta 1 + (2 << 27) */
	put32(&pb, 28, w);
	put32(&pb, 32, 2);
	w = (1u << 5) | (1u << 2) | 3;
	put32(&pb, 36, w);
	pb.pos = 44;
	finish(&pb, 0, -1);
	kbuffer_set_old_format(kb);
	kbuffer_load_subbuffer_len(kb, pb.page, PAGE);
	ev = kbuffer_read_event(kb, &ts);
	CHECK(ev == pb.page + 20);
	CHECK_EQ(ts, 14);
	CHECK_EQ(kbuffer_event_size(kb), 8);
	ev = kbuffer_next_event(kb, &ts);
	CHECK(ev == pb.page + 40);
	CHECK_EQ(ts, 14 + 1 + (2ULL << 27) + 1);
	CHECK(kbuffer_next_event(kb, NULL) == NULL);
	kbuffer_free(kb);
}

static void alloc_arguments_and_nulls(void)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);

	CHECK(kb != NULL);
	CHECK_EQ(kbuffer_long_size(kb), sizeof(long) == 8 ? 8 : kbuffer_long_size(kb));
	CHECK(kbuffer_alloc((enum kbuffer_long_size)7, KBUFFER_ENDIAN_BIG) == NULL);
	CHECK(kbuffer_alloc(KBUFFER_LSIZE_8, (enum kbuffer_endian)9) == NULL);
	CHECK(kbuffer_subbuffer(kb) == NULL);
	CHECK(kbuffer_read_event(kb, NULL) == NULL);
	CHECK(kbuffer_next_event(kb, NULL) == NULL);
	CHECK_EQ(kbuffer_load_subbuffer(kb, NULL), -1);
	CHECK_EQ(kbuffer_load_subbuffer(NULL, pb.page), -1);
	CHECK(kbuffer_read_at_offset(kb, 0, NULL) == NULL);
	CHECK(kbuffer_dup(NULL) == NULL);
	kbuffer_free(kb);
	kbuffer_free(NULL);
}

int main(void)
{
	PLAN(14);
	RUN(mixed_page_little_endian_64);
	RUN(mixed_page_big_endian_64);
	RUN(mixed_page_little_endian_32);
	RUN(mixed_page_big_endian_32);
	RUN(lost_events_flags);
	RUN(corrupt_commit_is_clamped);
	RUN(record_past_end_stops_walk);
	RUN(refresh_sees_new_events);
	RUN(dup_walks_independently);
	RUN(read_buffer_makes_a_subbuffer);
	RUN(translate_data_both_orders);
	RUN(raw_get_lists_every_record);
	RUN(old_format_layout);
	RUN(alloc_arguments_and_nulls);
	return TEST_EXIT();
}
