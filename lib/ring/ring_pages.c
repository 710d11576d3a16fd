// SPDX-License-Identifier: MIT
/* Layout detection for raw ring-buffer dumps (see ktrace/ring.h). */
#include <ktrace/detect.h>
#include <ktrace/ring.h>
#include <ktrace/kbuffer.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/detect_table.h"
#include "ring/ring_kbuffer_int.h"

#define PAGES_CHECKED 32      /* sub-buffers looked at per candidate */
#define MIN_PAGE_SIZE 4096
#define MAX_PAGE_SIZE (1u << 20)
#define MIN_EVENT_SIZE 8      /* common_type, common_flags, common_preempt_count, common_pid */

/* What one sub-buffer says about a layout. */
enum page_verdict {
	PAGE_BAD = -1,        /* inconsistent: against the layout */
	PAGE_EMPTY = 0,       /* a header without records: counted, but not for it */
	PAGE_GOOD = 1,        /* records that end exactly on the commit size: for it */
	PAGE_ZERO = 2,        /* every byte zero (never written, or padding): neither */
};

/*
 * Checks one sub-buffer under a layout (a PAGE_ZERO one is known before): PAGE_GOOD
 * when the walk over its records ends exactly on the commit size, as it does on every
 * page the kernel writes.
 */
static enum page_verdict score_page(struct kbuffer *kb, const uint8_t *page, size_t page_size,
				    int long_size, bool big)
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
		return PAGE_BAD;
	/* Read with 4-byte longs, a 64-bit kernel's sign-extended commit word leaves
	 * 0xffffffff where the first record would be. */
	if (long_size == 4 && (commit & (1ULL << 31)) && kt_load_u32(page + 12, big) == 0xffffffffu)
		return PAGE_BAD;
	if (size > page_size - 8 - (size_t)long_size)
		return PAGE_BAD;
	if (size == 0)
		return PAGE_EMPTY;
	if (kbuffer_load_subbuffer_len(kb, (void *)page, page_size) < 0)
		return PAGE_BAD;
	for (void *ev = kbuffer_read_event(kb, NULL); ev; ev = kbuffer_next_event(kb, NULL))
		/* every event starts with the 8 bytes of common fields (type, flags,
		 * preempt count, pid): a shorter one is not an event */
		if (kbuffer_event_size(kb) < MIN_EVENT_SIZE)
			return PAGE_BAD;
	if (kbuffer_corrupt(kb))
		return PAGE_BAD;
	/* a record that runs past the commit size: not what the kernel writes */
	if (kbuffer_curr_index(kb) != kbuffer_subbuffer_size(kb))
		return PAGE_BAD;
	/* The kernel zeroes what a sub-buffer does not use (after the count of lost events
	 * it may store there): in a sub-buffer bigger than the smallest, bytes that are not
	 * zero past the end of its data are another sub-buffer's (one damaged, or the
	 * data read with too big a size), never its own. */
	if (page_size > MIN_PAGE_SIZE) {
		size_t end = 8 + (size_t)long_size + size;

		if (commit & (1ULL << 30))
			end += (size_t)long_size;      /* RB_MISSED_STORED: the count */
		if (end < page_size && !kt_all_zero(page + end, page_size - end))
			return PAGE_BAD;
	}
	return PAGE_GOOD;
}

/* The sub-buffers of one size looked at, and which of them are all zero. */
struct size_view {
	const uint8_t *data;
	size_t page_size, pages;
	bool zero[PAGES_CHECKED];
};

static void view_size(struct size_view *v, const uint8_t *data, size_t len, size_t page_size)
{
	v->data = data;
	v->page_size = page_size;
	v->pages = len / page_size;
	if (v->pages > PAGES_CHECKED)
		v->pages = PAGES_CHECKED;
	for (size_t i = 0; i < v->pages; i++)
		v->zero[i] = kt_all_zero(data + i * page_size, page_size);
}

struct layout_score {
	int good, bad, pages;     /* pages: those that are not all zero */
	bool odd_header;          /* one of them that reads as a header at an odd index */
};

/* Checks one candidate layout over the first sub-buffers. All-zero ones are neither
 * for nor against it: a buffer never written, or padding, fits every layout. */
static struct layout_score score_layout(const struct size_view *v, int long_size, bool big)
{
	struct layout_score sc = { 0 };
	/* no allocation: detection cannot run out of memory and pick another layout */
	struct kt_kbuffer_mem mem;
	struct kbuffer *kb = kt_kbuffer_init(&mem, long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					     big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);

	if (NEVER(!kb))
		return sc;
	for (size_t i = 0; i < v->pages; i++) {
		enum page_verdict s;

		if (v->zero[i])
			continue;
		s = score_page(kb, v->data + i * v->page_size, v->page_size, long_size, big);
		/* a dump starts with a sub-buffer that holds records (after any zero
		 * ones): the anchor */
		if (!sc.pages && s != PAGE_GOOD) {
			sc.good = 0;
			break;
		}
		sc.pages++;
		if (s == PAGE_BAD) {
			sc.bad++;
			continue;
		}
		sc.good += s == PAGE_GOOD;
		if (i & 1)
			sc.odd_header = true;
	}
	return sc;
}

/* Tolerates a damaged or empty sub-buffer now and then (trace_pipe_raw hands out
 * sub-buffers that hold records), not a wrong guess. */
static bool fits(struct layout_score sc)
{
	return sc.good > 0 && sc.good * 4 >= sc.pages * 3;
}

/* The best long size and byte order for one sub-buffer size (fields of *layout that are
 * set are kept): its score, 0 when none fits, KTRACE_RING_AMBIGUOUS when two fit
 * equally well. */
static int detect_size(const struct size_view *v, struct ktrace_ring_layout *layout,
		       struct layout_score *out)
{
	static const int long_sizes[] = { 8, 4 };
	static const int endians[] = { 0, 1 };
	struct layout_score best = { 0 };
	int best_long = 0, best_big = 0, ties = 0;

	for (int l = 0; l < 2; l++) {
		if (layout->long_size && layout->long_size != long_sizes[l])
			continue;
		for (int e = 0; e < 2; e++) {
			struct layout_score sc;

			if (layout->big_endian >= 0 && layout->big_endian != endians[e])
				continue;
			sc = score_layout(v, long_sizes[l], endians[e]);
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
	*out = best;
	if (!best.good)
		return 0;
	layout->page_size = v->page_size;
	layout->long_size = best_long;
	layout->big_endian = best_big;
	/* two layouts explain the data equally well: no guessing */
	return ties ? KTRACE_RING_AMBIGUOUS : best.good;
}

int ktrace_ring_detect(const void *data, size_t len, struct ktrace_ring_layout *layout)
{
	struct ktrace_ring_layout found = *layout;
	struct size_view v;
	int found_score = 0;

	for (size_t size = MIN_PAGE_SIZE; size <= MAX_PAGE_SIZE; size *= 2) {
		struct ktrace_ring_layout try = found_score ? found : *layout;
		struct layout_score sc;
		int score;

		if (layout->page_size && layout->page_size != size)
			continue;
		try.page_size = 0;
		view_size(&v, data, len, size);
		score = detect_size(&v, &try, &sc);
		/* The smallest sub-buffer size that explains the data wins: a larger one
		 * would skip the headers in between. */
		if (!score && !found_score)
			continue;
		if (!score || (found_score && score == KTRACE_RING_AMBIGUOUS))
			break;
		found = try;
		found_score = score;
		/* Unless no header sits where a sub-buffer twice as big could not start
		 * (at an odd index): then what follows each header up to the next even
		 * index is zero or not a header, the unused end of a bigger sub-buffer
		 * (the kernel zeroes what a sub-buffer does not use) or its records, and
		 * the bigger size explains the data, if it fits with the same long size
		 * and byte order. */
		if (layout->page_size || score == KTRACE_RING_AMBIGUOUS || sc.odd_header ||
		    len % (2 * size))
			break;
	}
	if (!found_score)
		return 0;
	*layout = found;
	return found_score;
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
