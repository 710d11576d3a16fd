// SPDX-License-Identifier: MIT
/* The walk over a raw ring-buffer dump (see pages_walk.h). */
#include "common/check.h"
#include "sinks/report/report_pages_walk.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "common/cursor.h"

/* The message for data that two layouts explain equally well. */
static int ambiguous(const uint8_t *head, size_t len, const struct ktrace_ring_layout *given,
		     size_t page_size, struct ktrace_error *err)
{
	static const int longs[] = { 8, 4 };
	char list[256] = "";
	size_t n = 0;

	for (int l = 0; l < 2; l++)
		for (int big = 0; big < 2; big++) {
			struct ktrace_ring_layout try = { page_size, longs[l], big };

			if ((given->long_size && given->long_size != longs[l]) ||
			    (given->big_endian >= 0 && given->big_endian != big) ||
			    ktrace_ring_detect(head, len, &try) <= 0)
				continue;
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
					      "%s%d-byte longs %s-endian", n ? ", " : "", longs[l],
					      big ? "big" : "little");
			if (n >= sizeof(list))
				n = sizeof(list) - 1;
		}
	return ktrace_error_at(err, -EBADMSG, 0, "%zu-byte sub-buffers fit with more than one "
			       "layout (%s): say which with --long-size and --endian", page_size,
			       list);
}

static int detect_layout(struct ktrace_input *in, struct ktrace_ring_layout *layout,
			 struct ktrace_error *err)
{
	struct ktrace_ring_layout given = *layout;
	const uint8_t *head;
	int64_t got = ktrace_input_peek(in, 0, KTRACE_RING_DETECT_BYTES, &head, err);
	int score;

	if (got < 0)
		return (int)got;
	if (got == 0)
		return ktrace_error_at(err, -ENODATA, 0, "empty input: no sub-buffers");
	if (layout->page_size && layout->long_size && layout->big_endian >= 0)
		return 0;
	score = ktrace_ring_detect(head, (size_t)got, layout);
	if (score == KTRACE_RING_AMBIGUOUS)
		return ambiguous(head, (size_t)got, &given, layout->page_size, err);
	/* Zero sub-buffers fit every layout: nothing to tell it by, and no guess. */
	if (score <= 0 && kt_all_zero(head, (size_t)got))
		return ktrace_error_at(err, -EBADMSG, 0, "%s %lld bytes are zero: no sub-buffer "
				       "holds data to tell the layout by (a buffer never "
				       "written?); --page-size, --long-size and --endian list "
				       "them", got < KTRACE_RING_DETECT_BYTES ? "all" : "the first",
				       (long long)got);
	if (score <= 0)
		return ktrace_error_at(err, -EBADMSG, 0,
				       "not a ring-buffer dump: no sub-buffer layout fits "
				       "(try --page-size, --long-size, --endian)");
	return 0;
}

/* Walks one loaded sub-buffer. False when it is corrupt. */
static bool walk_page(struct kbuffer *kb, uint64_t offset, const struct kt_pages_visitor *v)
{
	unsigned long long ts;
	void *data;

	for (data = kbuffer_read_event(kb, &ts); data; data = kbuffer_next_event(kb, &ts))
		if (v->event)
			v->event(v->arg, offset + (uint64_t)kbuffer_curr_offset(kb), ts, kb, data);
	/* the last record must end on the commit size, not run past it */
	return !kbuffer_corrupt(kb) && kbuffer_curr_index(kb) <= kbuffer_subbuffer_size(kb);
}

int kt_pages_walk(struct ktrace_input *in, struct ktrace_ring_layout *layout,
		  const struct kt_pages_visitor *v, uint64_t *pages, struct ktrace_error *err)
{
	const uint8_t *page;
	struct kbuffer *kb;
	uint64_t offset = 0, index = 0;
	int ret = detect_layout(in, layout, err);

	*pages = 0;
	if (ret)
		return ret;
	kb = kbuffer_alloc(layout->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   layout->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!kb)
		return kt_error_oom(err);
	if (v->layout)
		v->layout(v->arg, layout);
	for (;; index++, offset += layout->page_size) {
		int64_t got = ktrace_input_peek(in, offset, layout->page_size, &page, err);

		if (got < 0) {
			ret = (int)got;
			break;
		}
		if (got == 0)
			break;
		if ((size_t)got < layout->page_size) {
			ret = ktrace_error_at(err, -ENODATA, offset,
					      "truncated sub-buffer: %lld of %zu bytes",
					      (long long)got, layout->page_size);
			break;
		}
		kbuffer_load_subbuffer_len(kb, (void *)page, layout->page_size);
		if (v->page)
			v->page(v->arg, index, offset, kb, page,
				kt_all_zero(page, layout->page_size));
		if (!walk_page(kb, offset, v) && !ret) {
			/* keep going: the other sub-buffers are still worth reading */
			ret = ktrace_error_at(err, -EBADMSG, offset,
					      "sub-buffer %" PRIu64 " is corrupt (commit %d, records "
					      "inconsistent after offset 0x%" PRIx64 ")",
					      index, kbuffer_subbuffer_size(kb),
					      offset + (uint64_t)kbuffer_curr_offset(kb));
		}
		(*pages)++;
	}
	kbuffer_free(kb);
	return ret;
}
