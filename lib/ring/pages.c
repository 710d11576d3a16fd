// SPDX-License-Identifier: MIT
/* Layout detection for raw ring-buffer dumps (see ktrace/ring.h). */
#include <ktrace/detect.h>
#include <ktrace/ring.h>
#include <ktrace/kbuffer.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/cursor.h"
#include "common/detect.h"

#define PAGES_CHECKED 32      /* sub-buffers looked at per candidate */
#define MIN_PAGE_SIZE 4096
#define MAX_PAGE_SIZE (1u << 20)
#define MIN_EVENT_SIZE 8      /* common_type, common_flags, common_preempt_count, common_pid */

/*
 * Checks one sub-buffer under a layout: -1 inconsistent, 0 empty, 1 consistent (the
 * walk over its records ends exactly on the commit size, as it does on every page the
 * kernel writes).
 */
static int score_page(struct kbuffer *kb, const uint8_t *page, size_t page_size, int long_size,
		      bool big)
{
	uint64_t commit = long_size == 8 ? kt_load_u64(page + 8, big) : kt_load_u32(page + 8, big);
	uint64_t flag_bits = (1ULL << 31) | (1ULL << 30);
	uint64_t high = commit >> 32;
	size_t size = (size_t)(commit & ((1u << 27) - 1));

	/* 64-bit kernels set the lost-events flags as ints: with RB_MISSED_EVENTS (bit 31)
	 * the word is sign-extended, 0xffffffff8.../0xffffffffc... */
	if (long_size == 8 && high == 0xffffffffu && (commit & (1ULL << 31)))
		commit &= 0xffffffffu;
	/* Only the commit bits and the two lost-events flags may be set. */
	if (commit & ~(flag_bits | ((1u << 27) - 1)))
		return -1;
	/* Read with 4-byte longs, a 64-bit kernel's sign-extended commit word leaves
	 * 0xffffffff where the first record would be. */
	if (long_size == 4 && (commit & (1ULL << 31)) && kt_load_u32(page + 12, big) == 0xffffffffu)
		return -1;
	if (size > page_size - 8 - (size_t)long_size)
		return -1;
	if (size == 0)
		return 0;
	if (kbuffer_load_subbuffer_len(kb, (void *)page, page_size) < 0)
		return -1;
	for (void *ev = kbuffer_read_event(kb, NULL); ev; ev = kbuffer_next_event(kb, NULL))
		/* every event starts with the 8 bytes of common fields (type, flags,
		 * preempt count, pid): a shorter one is not an event */
		if (kbuffer_event_size(kb) < MIN_EVENT_SIZE)
			return -1;
	if (kbuffer_corrupt(kb))
		return -1;
	/* a record that runs past the commit size: not what the kernel writes */
	return kbuffer_curr_index(kb) == kbuffer_subbuffer_size(kb) ? 1 : -1;
}

struct layout_score {
	int good, bad, pages;
};

/* Checks one candidate layout over the first sub-buffers. */
static struct layout_score score_layout(const uint8_t *data, size_t len, size_t page_size,
					int long_size, bool big)
{
	struct layout_score sc = { 0, 0, 0 };
	struct kbuffer *kb;
	size_t pages = len / page_size;

	if (pages > PAGES_CHECKED)
		pages = PAGES_CHECKED;
	if (!pages)
		return sc;
	kb = kbuffer_alloc(long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!kb)
		return sc;
	sc.pages = (int)pages;
	for (size_t i = 0; i < pages; i++) {
		int s = score_page(kb, data + i * page_size, page_size, long_size, big);

		/* a dump starts with a sub-buffer that holds records: the anchor */
		if (i == 0 && s <= 0) {
			sc.good = 0;
			sc.bad = (int)pages;
			break;
		}
		if (s < 0)
			sc.bad++;
		else if (s > 0)
			sc.good++;
	}
	kbuffer_free(kb);
	return sc;
}

/* Tolerates a damaged or empty sub-buffer now and then (trace_pipe_raw hands out
 * sub-buffers that hold records), not a wrong guess. */
static bool fits(struct layout_score sc)
{
	return sc.good > 0 && sc.good * 4 >= sc.pages * 3;
}

int ktrace_ring_detect(const void *data, size_t len, struct ktrace_ring_layout *layout)
{
	static const int long_sizes[] = { 8, 4 };
	static const int endians[] = { 0, 1 };
	size_t size;

	for (size = MIN_PAGE_SIZE; size <= MAX_PAGE_SIZE; size *= 2) {
		struct layout_score best = { 0, 0, 0 };
		int best_long = 0, best_big = 0, ties = 0;

		if (layout->page_size && layout->page_size != size)
			continue;
		for (int l = 0; l < 2; l++) {
			if (layout->long_size && layout->long_size != long_sizes[l])
				continue;
			for (int e = 0; e < 2; e++) {
				struct layout_score sc;

				if (layout->big_endian >= 0 && layout->big_endian != endians[e])
					continue;
				sc = score_layout(data, len, size, long_sizes[l], endians[e]);
				if (!fits(sc))
					continue;
				/* fewer damaged sub-buffers, then more records, is better */
				if (!best.good || sc.bad < best.bad ||
				    (sc.bad == best.bad && sc.good > best.good)) {
					best = sc;
					best_long = long_sizes[l];
					best_big = endians[e];
					ties = 0;
				} else if (sc.bad == best.bad && sc.good == best.good) {
					ties++;
				}
			}
		}
		/* The smallest sub-buffer size that explains the data wins: a larger one
		 * would skip the headers in between. */
		if (best.good) {
			layout->page_size = size;
			layout->long_size = best_long;
			layout->big_endian = best_big;
			/* two layouts explain the data equally well: no guessing */
			return ties ? KTRACE_RING_AMBIGUOUS : best.good;
		}
		if (layout->page_size)
			break;
	}
	return 0;
}

static bool ring_match(const uint8_t *p, size_t len)
{
	struct ktrace_ring_layout layout = { 0, 0, -1 };

	/* an ambiguous layout is still a ring-buffer dump: reading it says which fit */
	return ktrace_ring_detect(p, len, &layout) != 0;
}

const struct kt_detector kt_detector_ring = {
	KTRACE_FORMAT_FTRACE_PAGES, "ftrace ring-buffer pages", ring_match,
};
