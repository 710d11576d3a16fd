// SPDX-License-Identifier: MIT
/* `ktrace info` for raw ring-buffer dumps: layout, sub-buffers, events, time range,
 * lost events and events by id, as text or JSON. Every sub-buffer is walked. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include <ktrace/view.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "sinks/info/info.h"
#include "sinks/report/report.h"

#define MAX_IDS 65536            /* event ids are 16 bits */

struct summary {
	struct ktrace_ring_layout layout;
	bool have_layout;
	uint64_t pages, empty, zero, events;  /* zero: empty ones with every byte zero */
	uint64_t lost_known, pages_lost, pages_lost_unknown;
	uint64_t first_ts, last_ts;
	uint64_t *by_id;             /* events per id, MAX_IDS entries */
	uint64_t short_events;       /* payloads too short to hold an id */
};

static void on_layout(void *arg, const struct ktrace_ring_layout *layout)
{
	struct summary *s = arg;

	s->layout = *layout;
	s->have_layout = true;
}

static void on_page(void *arg, uint64_t index, uint64_t offset, struct kbuffer *kb,
		    const uint8_t *page, bool zero)
{
	struct summary *s = arg;
	long long missed = kbuffer_lost_events(kb);

	s->pages++;
	if (!kbuffer_subbuffer_size(kb))
		s->empty++;
	s->zero += zero;
	if (missed) {
		s->pages_lost++;
		if (missed > 0)
			s->lost_known += (uint64_t)missed;
		else
			s->pages_lost_unknown++;
	}
}

static void on_event(void *arg, uint64_t offset, unsigned long long ts, struct kbuffer *kb,
		     const void *data)
{
	struct summary *s = arg;

	if (!s->events)
		s->first_ts = ts;
	s->last_ts = ts;
	s->events++;
	if (kbuffer_event_size(kb) >= 2)
		s->by_id[kt_load_u16(data, s->layout.big_endian)]++;
	else
		s->short_events++;
}

static void print_text(const struct summary *s, struct ktrace_input *in, const char *failure,
		       struct ktrace_out *o)
{
	size_t ids = 0;

	kt_out_printf(o, "%-19s%s", "File:", ktrace_input_name(in));
	if (ktrace_input_size(in) >= 0)
		kt_out_printf(o, " (%" PRId64 " bytes)", ktrace_input_size(in));
	kt_out_printf(o, "\n%-19s%s\n", "Format:", "ftrace ring-buffer sub-buffers (trace_pipe_raw)");
	kt_out_printf(o, "%-19s%zu bytes\n", "Sub-buffer size:", s->layout.page_size);
	kt_out_printf(o, "%-19s%d bytes\n", "Kernel long:", s->layout.long_size);
	kt_out_printf(o, "%-19s%s endian\n", "Byte order:", s->layout.big_endian ? "big" : "little");
	kt_out_printf(o, "%-19s%" PRIu64 " (%" PRIu64 " empty", "Sub-buffers:", s->pages, s->empty);
	if (s->zero)
		kt_out_printf(o, ", %" PRIu64 " of them all zero", s->zero);
	kt_out_puts(o, ")\n");
	kt_out_printf(o, "%-19s%" PRIu64 "\n", "Events:", s->events);
	if (s->events)
		kt_out_printf(o, "%-19s%" PRIu64 " to %" PRIu64 " (%" PRIu64 " ns)\n", "Timestamps:",
			      s->first_ts, s->last_ts,
			      s->last_ts >= s->first_ts ? s->last_ts - s->first_ts : 0);
	kt_out_printf(o, "%-19s", "Lost events:");
	if (!s->pages_lost)
		kt_out_puts(o, "none marked\n");
	else
		kt_out_printf(o, "%" PRIu64 " counted before %" PRIu64 " sub-buffers%s\n",
			      s->lost_known, s->pages_lost - s->pages_lost_unknown,
			      s->pages_lost_unknown ? ", more (uncounted) before others" : "");
	for (size_t id = 0; id < MAX_IDS; id++)
		ids += s->by_id[id] != 0;
	kt_out_printf(o, "%-19s%zu ids\n", "Events by id:", ids);
	for (size_t id = 0; id < MAX_IDS; id++)
		if (s->by_id[id])
			kt_out_printf(o, "  %5zu %12" PRIu64 "\n", id, s->by_id[id]);
	if (failure)
		kt_out_printf(o, "%-19s%s\n", "Error:", failure);
}

static void print_json(const struct summary *s, struct ktrace_input *in, const char *failure,
		       struct ktrace_out *o)
{
	struct kt_json j;

	kt_json_init(&j, o, 2);
	kt_json_begin_object(&j, false);
	kt_json_kv_cstr(&j, "file", ktrace_input_name(in));
	kt_json_kv_cstr(&j, "format", "ftrace-pages");
	kt_json_kv_opt_u64(&j, "size", ktrace_input_size(in) >= 0, (uint64_t)ktrace_input_size(in));
	kt_json_kv_u64(&j, "page_size", s->layout.page_size);
	kt_json_kv_u64(&j, "long_size", (uint64_t)s->layout.long_size);
	kt_json_key_cstr(&j, "endian");
	kt_json_cstr(&j, s->layout.big_endian ? "big" : "little");
	kt_json_kv_u64(&j, "sub_buffers", s->pages);
	kt_json_kv_u64(&j, "empty_sub_buffers", s->empty);
	kt_json_kv_u64(&j, "zero_sub_buffers", s->zero);
	kt_json_kv_u64(&j, "events", s->events);
	kt_json_kv_opt_u64(&j, "first_ts", s->events, s->first_ts);
	kt_json_kv_opt_u64(&j, "last_ts", s->events, s->last_ts);
	kt_json_kv_u64(&j, "lost_counted", s->lost_known);
	kt_json_kv_u64(&j, "sub_buffers_after_loss", s->pages_lost);
	kt_json_kv_u64(&j, "sub_buffers_after_uncounted_loss", s->pages_lost_unknown);
	kt_json_key_cstr(&j, "event_ids");
	kt_json_begin_array(&j, false);
	for (size_t id = 0; id < MAX_IDS; id++) {
		if (!s->by_id[id])
			continue;
		kt_json_begin_object(&j, true);
		kt_json_kv_u64(&j, "id", id);
		kt_json_kv_u64(&j, "events", s->by_id[id]);
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "error");
	kt_json_cstr(&j, failure);
	kt_json_end_object(&j);
	kt_json_finish(&j);
}

int kt_info_pages(struct ktrace_input *in, struct ktrace_ring_layout *layout, bool json,
			   struct ktrace_out *out, struct ktrace_error *err)
{
	struct summary s = { 0 };
	struct kt_pages_visitor v = { &s, on_layout, on_page, on_event };
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64];
	uint64_t pages;
	int ret;

	s.by_id = calloc(MAX_IDS, sizeof(*s.by_id));
	if (!s.by_id)
		return kt_error_oom(err);
	ret = kt_pages_walk(in, layout, &v, &pages, err);
	/* what was read is summarised, with the error that stopped the reading */
	if (s.have_layout) {
		const char *failure = ret < 0 ? ktrace_error_format(err, msg, sizeof(msg)) : NULL;

		if (json)
			print_json(&s, in, failure, out);
		else
			print_text(&s, in, failure, out);
	}
	free(s.by_id);
	return ret;
}
