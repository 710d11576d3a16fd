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

#include "common/check.h"
#include "common/grow.h"
#include "common/json.h"
#include <ktrace/view.h>

#include "common/outbuf.h"
#include "sinks/info/info.h"

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

static void wrapping_text(struct ktrace_out *o, unsigned int w)
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
static void list_item(struct ktrace_out *o, const struct kcdata_item *it, int depth,
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

static const char *kind_name(uint32_t kind)
{
	return kind == 0 ? "item" : kind == 1 ? "array element" : "container";
}

static void print_json(struct ktrace_out *out, const struct kcdata_buffer *buf, const struct type_count *counts,
		       size_t ncounts, const uint64_t stats[4], int max_depth, bool ended,
		       uint64_t end_offset, int status, const char *error)
{
	static const char *const wrap_names[] = { "gzip", "base64", "compressed", "chunk" };
	uint32_t begin = kcdata_buffer_begin_type(buf);
	struct kt_json j;

	kt_json_init(&j, out, 2);
	kt_json_begin_object(&j, false);
	kt_json_key_cstr(&j, "format");
	kt_json_string(&j, "kcdata", 6);
	kt_json_key_cstr(&j, "begin_magic");
	kt_json_u64(&j, begin);
	kt_json_key_cstr(&j, "begin_type");
	kt_json_string(&j, kcdata_begin_name(begin), strlen(kcdata_begin_name(begin)));
	kt_json_key_cstr(&j, "root_key");
	kt_json_string(&j, kcdata_root_key(begin), strlen(kcdata_root_key(begin)));
	kt_json_key_cstr(&j, "size");
	kt_json_u64(&j, kcdata_buffer_size(buf));
	kt_json_key_cstr(&j, "wrapping");
	kt_json_begin_array(&j, true);
	for (int i = 0; i < 4; i++)
		if (kcdata_buffer_wrapping(buf) & (1u << i))
			kt_json_string(&j, wrap_names[i], strlen(wrap_names[i]));
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "items");
	kt_json_u64(&j, stats[0]);
	kt_json_key_cstr(&j, "arrays");
	kt_json_u64(&j, stats[1]);
	kt_json_key_cstr(&j, "containers");
	kt_json_u64(&j, stats[2]);
	kt_json_key_cstr(&j, "max_depth");
	kt_json_u64(&j, (uint64_t)max_depth);
	kt_json_key_cstr(&j, "end_offset");
	if (ended)
		kt_json_u64(&j, end_offset);
	else
		kt_json_null(&j);
	kt_json_key_cstr(&j, "trailing_bytes");
	if (ended)
		kt_json_u64(&j, kcdata_buffer_size(buf) - end_offset - 16);
	else
		kt_json_null(&j);
	kt_json_key_cstr(&j, "types");
	kt_json_begin_array(&j, false);
	for (size_t i = 0; i < ncounts;) {
		size_t k = i;
		uint64_t n = 0, bytes = 0;
		const char *name = name_of(counts[i].type);

		while (k < ncounts && !cmp_count(&counts[i], &counts[k])) {
			n += counts[k].count;
			bytes += counts[k].bytes;
			k++;
		}
		kt_json_begin_object(&j, true);
		kt_json_key_cstr(&j, "type");
		kt_json_u64(&j, counts[i].type);
		kt_json_key_cstr(&j, "name");
		kt_json_string(&j, name, strlen(name));
		kt_json_key_cstr(&j, "kind");
		kt_json_string(&j, kind_name(counts[i].kind), strlen(kind_name(counts[i].kind)));
		kt_json_key_cstr(&j, "count");
		kt_json_u64(&j, n);
		kt_json_key_cstr(&j, "bytes");
		kt_json_u64(&j, bytes);
		kt_json_end_object(&j);
		i = k;
	}
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "decodes");
	kt_json_bool(&j, status == 0);
	kt_json_key_cstr(&j, "error");
	if (error)
		kt_json_string(&j, error, strlen(error));
	else
		kt_json_null(&j);
	kt_json_end_object(&j);
	kt_json_finish(&j);
}

static void print_text(struct ktrace_out *out, const struct kcdata_buffer *buf, const struct type_count *counts,
		       size_t ncounts, const uint64_t stats[4], int max_depth, bool ended,
		       uint64_t end_offset, int status)
{
	uint32_t begin = kcdata_buffer_begin_type(buf);

	kt_out_printf(out, "kcdata %s buffer, %zu bytes", kcdata_begin_name(begin),
		      kcdata_buffer_size(buf));
	wrapping_text(out, kcdata_buffer_wrapping(buf));
	kt_out_printf(out, "\nbegin magic: 0x%08x (root key %s)\n", begin, kcdata_root_key(begin));
	kt_out_printf(out, "items: %" PRIu64 " (%" PRIu64 " arrays, %" PRIu64
		      " containers, nested %d deep)\n", stats[0], stats[1], stats[2], max_depth);
	if (ended)
		kt_out_printf(out, "end: BUFFER_END at 0x%" PRIx64 ", %zu bytes after it\n", end_offset,
			      (size_t)(kcdata_buffer_size(buf) - end_offset - 16));
	else
		kt_out_puts(out, "end: no BUFFER_END\n");
	for (size_t i = 0; i < ncounts;) {
		size_t k = i;
		uint64_t n = 0, bytes = 0;

		while (k < ncounts && !cmp_count(&counts[i], &counts[k])) {
			n += counts[k].count;
			bytes += counts[k].bytes;
			k++;
		}
		if (i == 0 || counts[i].kind != counts[i - 1].kind)
			kt_out_puts(out, counts[i].kind == 0 ? "items by type:\n"
					 : counts[i].kind == 1 ? "array elements by type:\n"
							       : "containers by type:\n");
		kt_out_printf(out, "  0x%-8x %-34s %10" PRIu64 " %s %12" PRIu64 " bytes\n",
			      counts[i].type, name_of(counts[i].type), n,
			      counts[i].kind == 2 ? "   " : counts[i].kind ? "el." : "x  ", bytes);
		i = k;
	}
	kt_out_puts(out, status ? "decodes: no (see the error)\n" : "decodes: yes\n");
}

int kt_info_kcdata(struct ktrace_input *in, bool items, bool json, struct ktrace_out *out,
			    struct ktrace_error *err)
{
	struct kcdata_buffer *buf = NULL;
	struct kcdata_iter *it = NULL;
	struct kcdata_node *root = NULL;
	struct type_count *counts = NULL;
	struct ktrace_error scratch = { 0 };
	struct kcdata_item item;
	size_t ncounts = 0, cap = 0;
	uint64_t stats[4] = { 0 }, end_offset = 0;   /* items, arrays, containers */
	int depth = 0, max_depth = 0, ret;
	bool ended = false;
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64];

	ret = kcdata_buffer_read(in, &buf, err);
	if (ret)
		return ret;
	ret = kcdata_iter_new(kcdata_buffer_data(buf), kcdata_buffer_size(buf), &it, err);
	while (!ret) {
		struct type_count *c;
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
		if (items) {
			list_item(out, &item, depth, &scratch);
			if (t == KCDATA_TYPE_CONTAINER_BEGIN)
				depth++;
			continue;
		}
		stats[0]++;
		if (ncounts == cap) {
			size_t ncap = cap ? cap * 2 : 256;

			c = kt_realloc_array(counts, ncap, sizeof(*c));
			if (!c) {
				ret = kt_error_oom(err);
				break;
			}
			counts = c;
			cap = ncap;
		}
		c = &counts[ncounts++];
		c->type = t;
		c->kind = 0;
		c->count = 1;
		c->bytes = item.size;
		if (t == KCDATA_TYPE_CONTAINER_BEGIN) {
			uint32_t ct;
			uint64_t id;

			stats[2]++;
			if (!kcdata_item_container(&item, &ct, &id, &scratch)) {
				c->type = ct;
				c->kind = 2;
			}
			if (++depth > max_depth)
				max_depth = depth;
		} else if (t == KCDATA_TYPE_ARRAY) {
			struct kcdata_array a;

			stats[1]++;
			if (!kcdata_item_array(&item, &a, &scratch)) {
				c->type = a.elem_type;
				c->kind = 1;
				c->count = a.count;
			}
		}
	}
	if (!items && ret >= 0) {
		qsort(counts, ncounts, sizeof(*counts), cmp_count);
		/* Whether libkdd's rules accept it. */
		ret = kcdata_decode(kcdata_buffer_data(buf), kcdata_buffer_size(buf), &root, err);
	}
	if (!items) {
		if (json)
			print_json(out, buf, counts, ncounts, stats, max_depth, ended, end_offset, ret,
				   ret ? ktrace_error_format(err, msg, sizeof(msg)) : NULL);
		else
			print_text(out, buf, counts, ncounts, stats, max_depth, ended, end_offset, ret);
	}
	kcdata_node_free(root);
	free(counts);
	kcdata_iter_free(it);
	kcdata_buffer_free(buf);
	return ret;
}
