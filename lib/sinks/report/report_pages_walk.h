/* SPDX-License-Identifier: MIT */
/* The walk over a raw ring-buffer dump that the page listing and the page summary
 * share: layout detection, then every sub-buffer and event in file order. Internal. */
#ifndef KTRACE_VIEWS_PAGES_WALK_H
#define KTRACE_VIEWS_PAGES_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/input.h>
#include <ktrace/kbuffer.h>
#include <ktrace/ring.h>

struct kt_pages_visitor {
	void *arg;
	/* The layout is known; before the first sub-buffer. */
	void (*layout)(void *arg, const struct ktrace_ring_layout *layout);
	/* A sub-buffer loaded in kb (lost events: kbuffer_lost_events); zero when every
	 * byte of it is zero (a buffer never written, or padding: no header, no records). */
	void (*page)(void *arg, uint64_t index, uint64_t offset, struct kbuffer *kb, const uint8_t *page,
		     bool zero);
	/* An event of it: the file offset of its header, timestamp, payload. */
	void (*event)(void *arg, uint64_t offset, unsigned long long ts, struct kbuffer *kb,
		      const void *data);
};

/*
 * Detects the layout (the fields of *layout left at their "detect" values) from the
 * first KTRACE_RING_DETECT_BYTES, then
 * visits every sub-buffer and event. A corrupt sub-buffer (records inconsistent, or
 * the last one running past the commit size) is reported after the walk goes on
 * through the others; a truncated last sub-buffer stops it. Returns 0, or the first
 * error (negative, with the offset in err). *pages gets the sub-buffers visited.
 */
int kt_pages_walk(struct ktrace_input *in, struct ktrace_ring_layout *layout,
		  const struct kt_pages_visitor *v, uint64_t *pages, struct ktrace_error *err);

#endif
