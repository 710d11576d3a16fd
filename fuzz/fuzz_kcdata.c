// SPDX-License-Identifier: MIT
/*
 * Fuzzes everything that reads kcdata: unwrapping (gzip, base64, compression, chunk
 * headers), the item iterator and its helpers, the decoder, the three tree printers
 * and the info/items views. Output goes to /dev/null.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <ktrace/input.h>
#include <ktrace/kcdata.h>

#include "common/outbuf.h"
#include "sinks/info/info.h"
#include "kcdata/kcdata_int.h"
#include <ktrace/view.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ktrace_out *sink(void)
{
	static struct ktrace_out *o;

	if (!o) {
		o = kt_out_new(-1);
		if (!o)
			abort();
		o->fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		kt_out_reset(o);
	}
	o->len = 0;
	o->error = 0;
	return o;
}

static void walk_items(const uint8_t *buf, size_t len)
{
	struct kcdata_iter *it;
	struct kcdata_item item;
	struct kcdata_array a;
	const char *desc;
	const uint8_t *d;
	uint32_t dl, ct;
	uint64_t id;

	if (kcdata_iter_new(buf, len, &it, NULL))
		return;
	while (kcdata_iter_next(it, &item, NULL) == 1) {
		(void)kcdata_item_length(&item);
		kcdata_item_array(&item, &a, NULL);
		kcdata_item_container(&item, &ct, &id, NULL);
		kcdata_item_desc(&item, &desc, &d, &dl, NULL);
	}
	kcdata_iter_free(it);
}

static void decode_and_print(const uint8_t *buf, size_t len)
{
	struct kcdata_node *root = NULL;
	struct ktrace_error err = { 0 };

	if (kcdata_decode(buf, len, &root, &err) == 0) {
		struct ktrace_out *o = sink();

		ktrace_view_kcdata_json(root, o);
		ktrace_view_kcdata_plist(root, o);
		ktrace_view_kcdata_text(root, o);
		kt_out_flush(o);
	}
	kcdata_node_free(root);
	/* what a damaged buffer leaves readable is printed too */
	root = NULL;
	if (kcdata_decode_partial(buf, len, &root, &err) != 0 && root) {
		struct ktrace_out *o = sink();

		ktrace_view_kcdata_json(root, o);
		ktrace_view_kcdata_text(root, o);
		kt_out_flush(o);
	}
	kcdata_node_free(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kcdata_buffer *b = NULL;
	struct ktrace_input *in = NULL;

	(void)kcdata_sniff(data, size);
	walk_items(data, size);
	decode_and_print(data, size);
	/* the unwrapping layers, with a small limit on what they may inflate to */
	if (kc_buffer_open_limited(data, size, 8u << 20, &b, NULL) == 0) {
		if (kcdata_buffer_wrapping(b)) {
			walk_items(kcdata_buffer_data(b), kcdata_buffer_size(b));
			decode_and_print(kcdata_buffer_data(b), kcdata_buffer_size(b));
		}
		kcdata_buffer_free(b);
		/* the summary views, only for inputs that do not inflate (size bound) */
		if (ktrace_input_from_memory(data, size, "fuzz", &in, NULL) == 0) {
			struct ktrace_out *o = sink();

			kt_info_kcdata(in, false, false, o, NULL);
			kt_info_kcdata(in, false, true, o, NULL);
			kt_info_kcdata(in, true, false, o, NULL);
			kt_out_flush(o);
			ktrace_input_close(in);
		}
	}
	return 0;
}
