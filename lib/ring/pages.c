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

/* Scores one sub-buffer: -1 inconsistent, 0 empty, 1 plausible, 2 walk ends on commit. */
static int score_page(struct kbuffer *kb, const uint8_t *page, size_t page_size, int long_size,
		      bool big)
{
	uint64_t commit = long_size == 8 ? kt_load_u64(page + 8, big) : kt_load_u32(page + 8, big);
	uint64_t flag_bits = (1ULL << 31) | (1ULL << 30);
	size_t size = (size_t)(commit & ((1u << 27) - 1));

	/* Only the commit bits and the two lost-events flags may be set. */
	if (commit & ~(flag_bits | ((1u << 27) - 1)))
		return -1;
	if (size > page_size - 8 - (size_t)long_size)
		return -1;
	if (size == 0)
		return 0;
	if (kbuffer_load_subbuffer_len(kb, (void *)page, page_size) < 0)
		return -1;
	while (kbuffer_read_event(kb, NULL))
		kbuffer_next_event(kb, NULL);
	if (kbuffer_corrupt(kb))
		return -1;
	return kbuffer_curr_index(kb) == kbuffer_subbuffer_size(kb) ? 2 : 1;
}

/* Total score of one candidate layout over the first sub-buffers, 0 if it fails. */
static int score_layout(const uint8_t *data, size_t len, size_t page_size, int long_size, bool big)
{
	struct kbuffer *kb;
	size_t pages = len / page_size, i;
	int total = 0, bad = 0, nonempty = 0;

	if (pages == 0)
		return 0;
	if (pages > PAGES_CHECKED)
		pages = PAGES_CHECKED;
	kb = kbuffer_alloc(long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!kb)
		return 0;
	for (i = 0; i < pages; i++) {
		int s = score_page(kb, data + i * page_size, page_size, long_size, big);

		if (s < 0)
			bad++;
		else
			total += s;
		if (s > 0)
			nonempty++;
	}
	kbuffer_free(kb);
	/* Tolerate a damaged sub-buffer now and then, not a wrong guess. */
	if (!nonempty || bad * 4 > (int)pages)
		return 0;
	return total;
}

int ktrace_ring_detect(const void *data, size_t len, struct ktrace_ring_layout *layout)
{
	static const int long_sizes[] = { 8, 4 };
	static const int endians[] = { 0, 1 };
	size_t size;

	for (size = MIN_PAGE_SIZE; size <= MAX_PAGE_SIZE; size *= 2) {
		int best = 0, best_long = 0, best_big = 0;

		if (layout->page_size && layout->page_size != size)
			continue;
		for (int l = 0; l < 2; l++) {
			if (layout->long_size && layout->long_size != long_sizes[l])
				continue;
			for (int e = 0; e < 2; e++) {
				int s;

				if (layout->big_endian >= 0 && layout->big_endian != endians[e])
					continue;
				s = score_layout(data, len, size, long_sizes[l], endians[e]);
				if (s > best) {
					best = s;
					best_long = long_sizes[l];
					best_big = endians[e];
				}
			}
		}
		/* The smallest sub-buffer size that explains the data wins: a larger one
		 * would skip the headers in between. */
		if (best > 0) {
			layout->page_size = size;
			layout->long_size = best_long;
			layout->big_endian = best_big;
			return best;
		}
		if (layout->page_size)
			break;
	}
	return 0;
}

static bool ring_match(const uint8_t *p, size_t len)
{
	struct ktrace_ring_layout layout = { 0, 0, -1 };

	return ktrace_ring_detect(p, len, &layout) > 0;
}

const struct kt_detector kt_detector_ring = {
	KTRACE_FORMAT_FTRACE_PAGES, "ftrace ring-buffer pages", ring_match,
};
