// SPDX-License-Identifier: MIT
/* `ktrace report` for raw ring-buffer dumps: every sub-buffer and every event. */
#include <inttypes.h>

#include <ktrace/view.h>

#include "common/cursor.h"
#include "common/outbuf.h"
#include "sinks/report/report.h"
#include "sinks/report/report_pages_walk.h"

struct listing {
	struct ktrace_out *out;
	const char *name;
	bool have_layout, big_endian;
	uint64_t pages, zero_pages, events;
	uint64_t lost_known;      /* sum of stored lost-event counts */
	uint64_t pages_lost;      /* sub-buffers preceded by lost events */
	uint64_t pages_lost_unknown;
};

static void on_layout(void *arg, const struct ktrace_ring_layout *layout)
{
	struct listing *l = arg;

	l->have_layout = true;
	l->big_endian = layout->big_endian;
	kt_out_printf(l->out, "# %s: ftrace ring-buffer sub-buffers of %zu bytes, %s-endian, "
		      "%d-byte kernel longs\n", l->name, layout->page_size,
		      layout->big_endian ? "big" : "little", layout->long_size);
	kt_out_puts(l->out, "#     offset           timestamp length     id\n");
}

static void on_page(void *arg, uint64_t index, uint64_t offset, struct kbuffer *kb,
		    const uint8_t *page, bool zero)
{
	struct listing *l = arg;
	long long missed = kbuffer_lost_events(kb);

	if (zero) {
		/* no header: a timestamp 0 and a commit 0 would be made up */
		l->pages++;
		l->zero_pages++;
		kt_out_printf(l->out, "sub-buffer %" PRIu64 " at 0x%" PRIx64 ": empty, every byte "
			      "zero (never written, or padding)\n", index, offset);
		return;
	}
	if (missed) {
		l->pages_lost++;
		if (missed > 0)
			l->lost_known += (uint64_t)missed;
		else
			l->pages_lost_unknown++;
	}
	l->pages++;
	kt_out_printf(l->out, "sub-buffer %" PRIu64 " at 0x%" PRIx64 ": timestamp %llu, commit %d",
		      index, offset, kbuffer_subbuf_timestamp(kb, (void *)page),
		      kbuffer_subbuffer_size(kb));
	if (missed > 0)
		kt_out_printf(l->out, ", missed %lld events before it", missed);
	else if (missed < 0)
		kt_out_puts(l->out, ", missed events before it (count unknown)");
	kt_out_putc(l->out, '\n');
}

static void on_event(void *arg, uint64_t offset, unsigned long long ts, struct kbuffer *kb,
		     const void *data)
{
	struct listing *l = arg;
	struct ktrace_out *o = l->out;
	int len = kbuffer_event_size(kb);

	kt_out_puts(o, "  0x");
	kt_out_hex(o, offset, 8);
	kt_out_u64(o, ts, 20);
	kt_out_i64(o, len, 7);
	if (len >= 2) {
		kt_out_u64(o, kt_load_u16(data, l->big_endian), 7);
	} else {
		kt_out_spaces(o, 6);
		kt_out_putc(o, '-');
	}
	kt_out_putc(o, '\n');
	l->events++;
}

int kt_report_pages(struct ktrace_input *in, struct ktrace_ring_layout *layout,
		      struct ktrace_out *out, struct ktrace_error *err)
{
	struct listing l = { .out = out, .name = ktrace_input_name(in) };
	struct kt_pages_visitor v = { &l, on_layout, on_page, on_event };
	uint64_t pages;
	int ret = kt_pages_walk(in, layout, &v, &pages, err);

	if (!l.have_layout)
		return ret;
	kt_out_printf(out, "# %" PRIu64 " sub-buffers", l.pages);
	if (l.zero_pages)
		kt_out_printf(out, " (%" PRIu64 " all zero)", l.zero_pages);
	kt_out_printf(out, ", %" PRIu64 " events", l.events);
	if (l.pages_lost)
		kt_out_printf(out, "; events lost before %" PRIu64 " sub-buffers (%" PRIu64
			      " counted%s)", l.pages_lost, l.lost_known,
			      l.pages_lost_unknown ? ", some uncounted" : "");
	kt_out_putc(out, '\n');
	return ret;
}
