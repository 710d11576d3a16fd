// SPDX-License-Identifier: MIT
/*
 * Fuzz harness: loads arbitrary bytes as a ring-buffer sub-buffer (length given, so the
 * bounded loader is used) and drives every kbuffer call over it. The first byte picks the
 * layout: bit 0 long size, bit 1 endianness, bit 2 old format. Any read outside the input
 * is caught by the sanitizers (the input is copied to an exact-size allocation), and a
 * walk that does not end within len steps traps as an endless loop. Also runs the
 * layout detection and the `ktrace report` view for raw dumps on the same bytes.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/ring.h>
#include <ktrace/input.h>
#include <ktrace/kbuffer.h>

#include <ktrace/view.h>

#include "common/outbuf.h"
#include "sinks/report/report.h"
#include "sinks/info/info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(struct kbuffer *kb, uint8_t *page, size_t len)
{
	unsigned long long ts;
	size_t steps = 0;
	void *ev;

	for (ev = kbuffer_read_event(kb, &ts); ev; ev = kbuffer_next_event(kb, &ts)) {
		uint8_t *rec = page + kbuffer_curr_offset(kb);
		unsigned int sz;

		if (++steps > len)
			__builtin_trap();  /* no progress: endless loop */
		(void)kbuffer_curr_index(kb);
		(void)kbuffer_curr_size(kb);
		(void)kbuffer_event_size(kb);
		(void)kbuffer_missed_events(kb);
		(void)kbuffer_timestamp(kb);
		/* An event handed out lies inside the buffer. */
		if ((uint8_t *)ev < page || (uint8_t *)ev + kbuffer_event_size(kb) > page + len)
			__builtin_trap();
		/* These take a bare pointer: only call them where 8 bytes are there. */
		if (rec + 8 <= page + len) {
			(void)kbuffer_ptr_delta(kb, rec);
			(void)kbuffer_translate_data(kbuffer_big_endian(kb), rec, &sz);
		}
	}
	(void)kbuffer_next_event(kb, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kbuffer_raw_info info;
	struct kbuffer *kb, *copy;
	uint8_t *page, *out;
	uint8_t mode;
	size_t len, steps;

	if (size < 1)
		return 0;
	mode = data[0];
	len = size - 1;
	page = malloc(len ? len : 1);
	if (!page)
		return 0;
	memcpy(page, data + 1, len);

	kb = kbuffer_alloc(mode & 1 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
			   mode & 2 ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!kb) {
		free(page);
		return 0;
	}
	if (mode & 4)
		kbuffer_set_old_format(kb);
	if (kbuffer_load_subbuffer_len(kb, page, len) == 0) {
		(void)kbuffer_subbuf_timestamp(kb, page);
		(void)kbuffer_subbuffer_size(kb);
		(void)kbuffer_start_of_data(kb);
		(void)kbuffer_subbuffer(kb);
		walk(kb, page, len);
		(void)kbuffer_refresh(kb);
		walk(kb, page, len);

		/* Positioning at offsets before, inside and after the data. */
		for (int off = -1; off < (int)len + 24; off += 1 + (int)len / 7)
			if (kbuffer_read_at_offset(kb, off, NULL))
				walk(kb, page, len);

		/* Raw records from the start of the data. */
		kbuffer_load_subbuffer_len(kb, page, len);
		info.next = page + (kbuffer_long_size(kb) == 8 ? 16 : 12);
		steps = 0;
		while (kbuffer_raw_get(kb, page, &info)) {
			if (++steps > len)
				__builtin_trap();
		}

		/* Copy out as a sub-buffer of its own, into a buffer of a fuzzed size. */
		copy = kbuffer_dup(kb);
		kbuffer_load_subbuffer_len(copy, page, len);
		out = malloc(len + 16);
		if (out && copy) {
			int room = (int)((mode >> 3) * (len + 16) / 31);
			int r = kbuffer_read_buffer(copy, out, room);

			if (r > 0) {
				struct kbuffer *again = kbuffer_dup(copy);

				if (again && kbuffer_load_subbuffer_len(again, out, (size_t)room) == 0)
					walk(again, out, (size_t)room);
				kbuffer_free(again);
			}
		}
		free(out);
		kbuffer_free(copy);
	}
	kbuffer_free(kb);

	/* The raw-dump report over the same bytes, to /dev/null. */
	{
		struct ktrace_ring_layout layout = { 0, 0, -1 };
		struct ktrace_error err;
		struct ktrace_input *in;
		static struct ktrace_out *o;

		if (!o)
			o = kt_out_new(-1);
		if (o && ktrace_input_from_memory(page, len, "fuzz", &in, &err) == 0) {
			int fd = open("/dev/null", O_WRONLY);

			o->fd = fd;
			kt_out_reset(o);
			if (mode & 8)
				layout.page_size = 64 + (mode >> 4) * 8;
			kt_report_pages(in, &layout, o, &err);
			/* the summary (info, text and JSON) walks the same pages */
			{
				struct ktrace_ring_layout l2 = { layout.page_size, 0, -1 };

				kt_info_pages(in, &l2, mode & 1, o, &err);
			}
			kt_out_flush(o);
			close(fd);
			ktrace_input_close(in);
		}
	}
	free(page);
	return 0;
}
