// SPDX-License-Identifier: MIT
/*
 * kcdata summaries from the item iterator: what `ktrace report --format info` prints
 * (begin type, item counts by type, containers, sizes) and the raw item listing of
 * `--format items`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/kcdata.h>

#include "common/json.h"
#include "views/views.h"

struct type_count {
	uint32_t type;
	uint32_t kind;        /* 0 item, 1 array elements, 2 container */
	uint64_t count;
	uint64_t bytes;
};

static int cmp_count(const void *a, const void *b)
{
	const struct type_count *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return 0;
}

static const char *name_of(uint32_t type)
{
	const char *n = kcdata_type_name(type);

	if (n)
		return n;
	switch (type) {
	case KCDATA_TYPE_BINDATA_DESC: return "bindata_desc";
	case KCDATA_TYPE_ARRAY: return "array";
	case KCDATA_TYPE_CONTAINER_END: return "container_end";
	case KCDATA_TYPE_NESTED_KCDATA: return "nested_kcdata";
	case KCDATA_TYPE_BUFFER_END: return "buffer_end";
	}
	if ((type & ~0xfu) == KCDATA_TYPE_ARRAY_PAD0)
		return "array_pad";
	if (kcdata_begin_name(type))
		return kcdata_begin_name(type);
	return "?";
}

static void wrapping_text(struct kt_out *o, unsigned int w)
{
	static const char *const names[] = { "gzip", "base64", "kcdata compression",
					      "Darwin chunk" };
	bool first = true;

	for (int i = 3; i >= 0; i--) {
		if (!(w & (1u << i)))
			continue;
		kt_out_puts(o, first ? " (from " : ", ");
		kt_out_puts(o, names[i]);
		first = false;
	}
	if (!first)
		kt_out_putc(o, ')');
}

/* One line of the item listing. */
static void list_item(struct kt_out *o, const struct kcdata_item *it, int depth,
		      struct ktrace_error *scratch)
{
	uint32_t t = kcdata_item_type(it);

	kt_out_puts(o, "0x");
	kt_out_hex(o, it->offset, 8);
	kt_out_spaces(o, 2 + 2 * depth);
	kt_out_printf(o, "type 0x%x %s size %u flags 0x%" PRIx64, it->type, name_of(t), it->size,
		      it->flags);
	if (t == KCDATA_TYPE_ARRAY) {
		struct kcdata_array a;

		if (!kcdata_item_array(it, &a, scratch))
			kt_out_printf(o, ": %u x %u bytes of 0x%x %s", a.count, a.elem_size, a.elem_type,
				      name_of(a.elem_type));
		else
			kt_out_puts(o, ": invalid array");
	} else if (t == KCDATA_TYPE_CONTAINER_BEGIN || t == KCDATA_TYPE_CONTAINER_END) {
		uint32_t ct;
		uint64_t id;

		if (!kcdata_item_container(it, &ct, &id, scratch))
			kt_out_printf(o, ": 0x%x %s id %" PRIu64, ct, name_of(ct), id);
	} else if (t >= KCDATA_TYPE_STRING_DESC && t <= KCDATA_TYPE_BINDATA_DESC) {
		const char *desc;
		const uint8_t *data;
		uint32_t len;

		if (!kcdata_item_desc(it, &desc, &data, &len, scratch)) {
			kt_out_puts(o, ": ");
			kt_json_write_string(o, desc, strlen(desc));
		}
	}
	kt_out_putc(o, '\n');
}

int ktrace_view_kcdata_info(struct ktrace_input *in, bool items, struct kt_out *out,
			    struct ktrace_error *err)
{
	struct kcdata_buffer *buf = NULL;
	struct kcdata_iter *it = NULL;
	struct kcdata_node *root = NULL;
	struct type_count *counts = NULL;
	struct ktrace_error scratch = { 0 };
	struct kcdata_item item;
	size_t ncounts = 0, cap = 0;
	uint64_t nitems = 0, ncontainers = 0, narrays = 0, end_offset = 0;
	int depth = 0, max_depth = 0, ret;
	bool ended = false;

	ret = kcdata_buffer_read(in, &buf, err);
	if (ret)
		return ret;
	if (!items) {
		uint32_t begin = kcdata_buffer_begin_type(buf);

		kt_out_printf(out, "kcdata %s buffer, %zu bytes", kcdata_begin_name(begin),
			      kcdata_buffer_size(buf));
		wrapping_text(out, kcdata_buffer_wrapping(buf));
		kt_out_printf(out, "\nbegin magic: 0x%08x (root key %s)\n", begin, kcdata_root_key(begin));
	}
	ret = kcdata_iter_new(kcdata_buffer_data(buf), kcdata_buffer_size(buf), &it, err);
	while (!ret) {
		uint32_t t;

		ret = kcdata_iter_next(it, &item, err);
		if (ret < 0)
			break;
		if (ret == 0) {
			ended = true;
			end_offset = item.offset;
			if (items)
				list_item(out, &item, 0, &scratch);
			break;
		}
		ret = 0;
		t = kcdata_item_type(&item);
		if (t == KCDATA_TYPE_CONTAINER_END && depth > 0)
			depth--;
		if (items)
			list_item(out, &item, depth, &scratch);
		nitems++;
		if (ncounts == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct type_count *c = realloc(counts, ncap * sizeof(*c));

			if (!c) {
				ret = ktrace_error_set(err, -ENOMEM, "out of memory");
				break;
			}
			counts = c;
			cap = ncap;
		}
		struct type_count *c = &counts[ncounts++];

		c->type = t;
		c->kind = 0;
		c->count = 1;
		c->bytes = item.size;
		if (t == KCDATA_TYPE_CONTAINER_BEGIN) {
			uint32_t ct;
			uint64_t id;

			ncontainers++;
			if (!kcdata_item_container(&item, &ct, &id, &scratch)) {
				c->type = ct;
				c->kind = 2;
			}
			if (++depth > max_depth)
				max_depth = depth;
		} else if (t == KCDATA_TYPE_ARRAY) {
			struct kcdata_array a;

			narrays++;
			if (!kcdata_item_array(&item, &a, &scratch)) {
				c->type = a.elem_type;
				c->kind = 1;
				c->count = a.count;
			}
		}
	}
	if (!ret && !items) {
		size_t total = kcdata_buffer_size(buf);

		kt_out_printf(out, "items: %" PRIu64 " (%" PRIu64 " arrays, %" PRIu64
			      " containers, nested %d deep)\n", nitems, narrays, ncontainers, max_depth);
		kt_out_printf(out, "end: BUFFER_END at 0x%" PRIx64 ", %zu bytes after it\n", end_offset,
			      (size_t)(total - end_offset - 16));
		qsort(counts, ncounts, sizeof(*counts), cmp_count);
		for (size_t i = 0; i < ncounts;) {
			size_t j = i;
			uint64_t n = 0, bytes = 0;

			while (j < ncounts && !cmp_count(&counts[i], &counts[j])) {
				n += counts[j].count;
				bytes += counts[j].bytes;
				j++;
			}
			if (i == 0 || counts[i].kind != counts[i - 1].kind)
				kt_out_puts(out, counts[i].kind == 0 ? "items by type:\n"
						 : counts[i].kind == 1 ? "array elements by type:\n"
								       : "containers by type:\n");
			kt_out_printf(out, "  0x%-8x %-34s %10" PRIu64 " %s %12" PRIu64 " bytes\n",
				      counts[i].type, name_of(counts[i].type), n,
				      counts[i].kind == 2 ? "   " : counts[i].kind ? "el." : "x  ", bytes);
			i = j;
		}
		/* Whether libkdd's rules accept it. */
		ret = kcdata_decode(kcdata_buffer_data(buf), total, &root, err);
		kt_out_puts(out, ret ? "decodes: no (see the error)\n" : "decodes: yes\n");
	}
	(void)ended;
	kcdata_node_free(root);
	free(counts);
	kcdata_iter_free(it);
	kcdata_buffer_free(buf);
	return ret;
}
