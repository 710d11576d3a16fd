// SPDX-License-Identifier: MIT
/* `ktrace report` for raw ring-buffer dumps. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include <ktrace/detect.h>
#include <ktrace/kbuffer.h>

#include "common/cursor.h"
#include <ktrace/view.h>

#include "common/outbuf.h"

struct pages_totals {
	uint64_t pages;
	uint64_t events;
	uint64_t lost_known;      /* sum of stored lost-event counts */
	uint64_t pages_lost;      /* sub-buffers preceded by lost events */
	uint64_t pages_lost_unknown;
};

static void print_page_header(struct ktrace_out *o, uint64_t index, uint64_t offset,
			      struct kbuffer *kb, void *page)
{
	long long missed = kbuffer_lost_events(kb);

	kt_out_printf(o, "sub-buffer %" PRIu64 " at 0x%" PRIx64 ": timestamp %llu, commit %d",
		      index, offset, kbuffer_subbuf_timestamp(kb, page), kbuffer_subbuffer_size(kb));
	if (missed > 0)
		kt_out_printf(o, ", missed %lld events before it", missed);
	else if (missed < 0)
		kt_out_puts(o, ", missed events before it (count unknown)");
	kt_out_putc(o, '\n');
}

/* Walks one sub-buffer, printing its events. Returns false if it was corrupt. */
static bool report_page(struct ktrace_out *o, struct kbuffer *kb, const uint8_t *page,
			const struct ktrace_ring_layout *layout, uint64_t index, uint64_t offset,
			struct pages_totals *t)
{
	unsigned long long ts;
	void *data;
	long long missed;

	kbuffer_load_subbuffer_len(kb, (void *)page, layout->page_size);
	missed = kbuffer_lost_events(kb);
	if (missed) {
		t->pages_lost++;
		if (missed > 0)
			t->lost_known += (uint64_t)missed;
		else
			t->pages_lost_unknown++;
	}
	print_page_header(o, index, offset, kb, (void *)page);
	for (data = kbuffer_read_event(kb, &ts); data; data = kbuffer_next_event(kb, &ts)) {
		int len = kbuffer_event_size(kb);

		kt_out_puts(o, "  0x");
		kt_out_hex(o, offset + (uint64_t)kbuffer_curr_offset(kb), 8);
		kt_out_u64(o, ts, 20);
		kt_out_i64(o, len, 7);
		if (len >= 2) {
			kt_out_u64(o, kt_load_u16(data, layout->big_endian), 7);
		} else {
			kt_out_spaces(o, 6);
			kt_out_putc(o, '-');
		}
		kt_out_putc(o, '\n');
		t->events++;
	}
	t->pages++;
	/* the last record must end on the commit size, not run past it */
	return !kbuffer_corrupt(kb) && kbuffer_curr_index(kb) <= kbuffer_subbuffer_size(kb);
}

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

int ktrace_view_pages(struct ktrace_input *in, struct ktrace_ring_layout *layout,
		      struct ktrace_out *out, struct ktrace_error *err)
{
	struct pages_totals t = { 0 };
	const uint8_t *head, *page;
	struct kbuffer *kb;
	uint64_t offset = 0;
	int64_t got;
	int ret = 0;

	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, err);
	if (got < 0)
		return (int)got;
	if (got == 0)
		return ktrace_error_at(err, -ENODATA, 0, "empty input: no sub-buffers");
	if (!layout->page_size || !layout->long_size || layout->big_endian < 0) {
		struct ktrace_ring_layout given = *layout;
		int score = ktrace_ring_detect(head, (size_t)got, layout);

		if (score == KTRACE_RING_AMBIGUOUS)
			return ambiguous(head, (size_t)got, &given, layout->page_size, err);
		if (score <= 0)
			return ktrace_error_at(err, -EBADMSG, 0,
					       "not a ring-buffer dump: no sub-buffer layout fits "
					       "(try --page-size, --long-size, --endian)");
	}
	kb = kbuffer_alloc(layout->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   layout->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!kb)
		return ktrace_error_set(err, -ENOMEM, "out of memory");

	kt_out_printf(out, "# %s: ftrace ring-buffer sub-buffers of %zu bytes, %s-endian, %d-byte kernel longs\n",
		      ktrace_input_name(in), layout->page_size,
		      layout->big_endian ? "big" : "little", layout->long_size);
	kt_out_puts(out, "#     offset           timestamp length     id\n");
	for (;;) {
		got = ktrace_input_peek(in, offset, layout->page_size, &page, err);
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
		if (!report_page(out, kb, page, layout, t.pages, offset, &t) && !ret) {
			/* Keep going: the other sub-buffers are still worth printing. */
			ret = ktrace_error_at(err, -EBADMSG, offset,
					      "sub-buffer %" PRIu64 " is corrupt (commit %d, records "
					      "inconsistent after offset 0x%" PRIx64 ")",
					      t.pages - 1, kbuffer_subbuffer_size(kb),
					      offset + (uint64_t)kbuffer_curr_offset(kb));
		}
		offset += layout->page_size;
	}
	kt_out_printf(out, "# %" PRIu64 " sub-buffers, %" PRIu64 " events", t.pages, t.events);
	if (t.pages_lost)
		kt_out_printf(out, "; events lost before %" PRIu64 " sub-buffers (%" PRIu64
			      " counted%s)", t.pages_lost, t.lost_known,
			      t.pages_lost_unknown ? ", some uncounted" : "");
	kt_out_putc(out, '\n');
	kbuffer_free(kb);
	return ret;
}
