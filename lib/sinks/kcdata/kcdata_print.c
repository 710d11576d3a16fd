// SPDX-License-Identifier: MIT
/*
 * `ktrace report` for kcdata: the decoded tree as readable text, as JSON, or as an
 * XML property list laid out like the one libkdd's kdd tool writes (keys sorted,
 * tab indentation).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/kcdata.h>

#include "common/grow.h"
#include "common/json.h"
#include "sinks/kcdata/kcdata.h"
#include <ktrace/view.h>

#include "common/outbuf.h"
#include "sinks/info/info.h"

struct entry {
	const char *key;
	const struct kcdata_node *val;
};

static int cmp_bytes(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

/* Digit runs compare as numbers, so that container ids come out in order. */
static int cmp_natural(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)((const struct entry *)a)->key;
	const unsigned char *y = (const unsigned char *)((const struct entry *)b)->key;

	while (*x && *y) {
		if (*x >= '0' && *x <= '9' && *y >= '0' && *y <= '9') {
			const unsigned char *xs = x, *ys = y;
			size_t xl, yl;

			while (*xs == '0' && xs[1] >= '0' && xs[1] <= '9')
				xs++;
			while (*ys == '0' && ys[1] >= '0' && ys[1] <= '9')
				ys++;
			for (x = xs; *x >= '0' && *x <= '9'; x++)
				;
			for (y = ys; *y >= '0' && *y <= '9'; y++)
				;
			xl = (size_t)(x - xs);
			yl = (size_t)(y - ys);
			if (xl != yl)
				return xl < yl ? -1 : 1;
			int c = memcmp(xs, ys, xl);

			if (c)
				return c;
			continue;
		}
		if (*x != *y)
			return *x < *y ? -1 : 1;
		x++;
		y++;
	}
	return *x ? 1 : *y ? -1 : 0;
}

/* Sorting buffers, one per nesting level, kept from one dictionary to the next. */
#define SORT_LEVELS 512

struct sorter {
	int depth;
	struct entry *lv[SORT_LEVELS];
	size_t cap[SORT_LEVELS];
};

static struct sorter *sorter_new(void)
{
	return calloc(1, sizeof(struct sorter));
}

static void sorter_free(struct sorter *st)
{
	if (!st)
		return;
	for (int i = 0; i < SORT_LEVELS; i++)
		free(st->lv[i]);
	free(st);
}

/* The entries of a non-empty dictionary, sorted, in the buffer of the next level
 * (give it back with release()); NULL when out of memory or too deep. */
static struct entry *sorted_entries(struct sorter *st, const struct kcdata_node *d, size_t *n,
				    int (*cmp)(const void *, const void *))
{
	size_t count = kcdata_node_count(d);
	int level = st->depth;
	struct entry *e;

	*n = count;
	if (level >= SORT_LEVELS)
		return NULL;
	if (count > st->cap[level]) {
		size_t cap = count < 64 ? 64 : count * 2;

		e = kt_realloc_array(st->lv[level], cap, sizeof(*e));
		if (!e)
			return NULL;
		st->lv[level] = e;
		st->cap[level] = cap;
	}
	e = st->lv[level];
	for (size_t i = 0; i < count; i++) {
		e[i].key = kcdata_node_key(d, i);
		e[i].val = kcdata_node_at(d, i);
	}
	/* Dictionaries are often in order already. */
	for (size_t i = 1; i < count; i++) {
		if (cmp(&e[i - 1], &e[i]) > 0) {
			qsort(e, count, sizeof(*e), cmp);
			break;
		}
	}
	st->depth++;
	return e;
}

static void release(struct sorter *st)
{
	st->depth--;
}

static bool is_scalar(const struct kcdata_node *n)
{
	enum kcdata_node_kind k = kcdata_node_kind(n);

	return k == KCDATA_NODE_INT || k == KCDATA_NODE_STRING;
}

static bool all_scalars(const struct kcdata_node *a)
{
	for (size_t i = 0; i < kcdata_node_count(a); i++)
		if (!is_scalar(kcdata_node_at(a, i)))
			return false;
	return true;
}

/* ---- JSON ---- */

static int json_node(struct kt_json *j, struct sorter *st, const struct kcdata_node *n)
{
	size_t count, len;
	struct entry *e;
	const char *str;

	switch (kcdata_node_kind(n)) {
	case KCDATA_NODE_DICT:
		kt_json_begin_object(j, false);
		if (kcdata_node_count(n)) {
			e = sorted_entries(st, n, &count, cmp_bytes);
			if (!e)
				return -ENOMEM;
			for (size_t i = 0; i < count; i++) {
				kt_json_key_cstr(j, e[i].key);
				if (json_node(j, st, e[i].val)) {
					release(st);
					return -ENOMEM;
				}
			}
			release(st);
		}
		kt_json_end_object(j);
		return 0;
	case KCDATA_NODE_ARRAY:
		kt_json_begin_array(j, all_scalars(n));
		for (size_t i = 0; i < kcdata_node_count(n); i++)
			if (json_node(j, st, kcdata_node_at(n, i)))
				return -ENOMEM;
		kt_json_end_array(j);
		return 0;
	case KCDATA_NODE_INT:
		if (kcdata_node_is_negative(n))
			kt_json_i64(j, kcdata_node_int(n));
		else
			kt_json_u64(j, kcdata_node_uint(n));
		return 0;
	case KCDATA_NODE_STRING:
		str = kcdata_node_string(n, &len);
		kt_json_string(j, str, len);
		return 0;
	}
	kt_json_null(j);
	return 0;
}

int kt_kcdata_json_tree(struct kt_json *j, const struct kcdata_node *root)
{
	struct sorter *st = sorter_new();
	int ret = st ? json_node(j, st, root) : -ENOMEM;

	sorter_free(st);
	return ret;
}

int ktrace_view_kcdata_json(const struct kcdata_node *root, struct ktrace_out *out)
{
	struct kt_json *j = malloc(sizeof(*j));
	struct sorter *st = sorter_new();
	int ret = -ENOMEM;

	if (j && st) {
		kt_json_init(j, out, 2);
		ret = json_node(j, st, root);
		kt_json_finish(j);
	}
	sorter_free(st);
	free(j);
	return ret;
}

/* ---- XML property list ---- */

/* Text for XML: '&', '<', '>' escaped; bytes that are not UTF-8 taken as Latin-1;
 * control characters XML cannot hold become U+FFFD. */
static void xml_text(struct ktrace_out *o, const char *str, size_t len)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0;

	while (i < len) {
		uint32_t cp;

		switch (s[i]) {
		case '&': kt_out_puts(o, "&amp;"); i++; continue;
		case '<': kt_out_puts(o, "&lt;"); i++; continue;
		case '>': kt_out_puts(o, "&gt;"); i++; continue;
		}
		i += kt_utf8_next(s + i, len - i, &cp);
		if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xfffe || cp == 0xffff)
			cp = 0xfffd;
		kt_utf8_put(o, cp);
	}
}

static void tabs(struct ktrace_out *o, int n)
{
	while (n-- > 0)
		kt_out_putc(o, '\t');
}

static int plist_node(struct ktrace_out *o, struct sorter *st, const struct kcdata_node *n, int depth)
{
	size_t count, len;
	struct entry *e;
	const char *s;

	tabs(o, depth);
	switch (kcdata_node_kind(n)) {
	case KCDATA_NODE_DICT:
		if (!kcdata_node_count(n)) {
			kt_out_puts(o, "<dict/>\n");
			return 0;
		}
		e = sorted_entries(st, n, &count, cmp_bytes);
		if (!e)
			return -ENOMEM;
		kt_out_puts(o, "<dict>\n");
		for (size_t i = 0; i < count; i++) {
			tabs(o, depth + 1);
			kt_out_puts(o, "<key>");
			xml_text(o, e[i].key, strlen(e[i].key));
			kt_out_puts(o, "</key>\n");
			if (plist_node(o, st, e[i].val, depth + 1)) {
				release(st);
				return -ENOMEM;
			}
		}
		release(st);
		tabs(o, depth);
		kt_out_puts(o, "</dict>\n");
		return 0;
	case KCDATA_NODE_ARRAY:
		if (!kcdata_node_count(n)) {
			kt_out_puts(o, "<array/>\n");
			return 0;
		}
		kt_out_puts(o, "<array>\n");
		for (size_t i = 0; i < kcdata_node_count(n); i++)
			if (plist_node(o, st, kcdata_node_at(n, i), depth + 1))
				return -ENOMEM;
		tabs(o, depth);
		kt_out_puts(o, "</array>\n");
		return 0;
	case KCDATA_NODE_INT:
		kt_out_puts(o, "<integer>");
		if (kcdata_node_is_negative(n))
			kt_out_i64(o, kcdata_node_int(n), 0);
		else
			kt_out_u64(o, kcdata_node_uint(n), 0);
		kt_out_puts(o, "</integer>\n");
		return 0;
	case KCDATA_NODE_STRING:
		s = kcdata_node_string(n, &len);
		kt_out_puts(o, "<string>");
		xml_text(o, s, len);
		kt_out_puts(o, "</string>\n");
		return 0;
	}
	return 0;
}

int ktrace_view_kcdata_plist(const struct kcdata_node *root, struct ktrace_out *out)
{
	struct sorter *st = sorter_new();
	int ret;

	if (!st)
		return -ENOMEM;
	kt_out_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
		    "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
		    "<plist version=\"1.0\">\n");
	ret = plist_node(out, st, root, 0);
	kt_out_puts(out, "</plist>\n");
	sorter_free(st);
	return ret;
}

/* ---- Text ---- */

/* 16 integers 0..255 under a key naming a UUID print as one. */
static bool print_uuid(struct ktrace_out *o, const char *key, const struct kcdata_node *a)
{
	if (!key || (!strstr(key, "UUID") && !strstr(key, "uuid")) ||
	    kcdata_node_kind(a) != KCDATA_NODE_ARRAY || kcdata_node_count(a) != 16)
		return false;
	for (size_t i = 0; i < 16; i++) {
		const struct kcdata_node *b = kcdata_node_at(a, i);

		if (kcdata_node_kind(b) != KCDATA_NODE_INT || kcdata_node_is_negative(b) ||
		    kcdata_node_uint(b) > 255)
			return false;
	}
	for (size_t i = 0; i < 16; i++) {
		uint64_t b = kcdata_node_uint(kcdata_node_at(a, i));

		if (i == 4 || i == 6 || i == 8 || i == 10)
			kt_out_putc(o, '-');
		kt_out_write(o, kt_hex_pairs[1] + 2 * b, 2);
	}
	return true;
}

static void text_scalar(struct ktrace_out *o, const struct kcdata_node *n)
{
	size_t len;
	const char *s;

	if (kcdata_node_kind(n) == KCDATA_NODE_STRING) {
		s = kcdata_node_string(n, &len);
		kt_json_write_string(o, s, len);
	} else if (kcdata_node_is_negative(n)) {
		kt_out_i64(o, kcdata_node_int(n), 0);
	} else {
		kt_out_u64(o, kcdata_node_uint(n), 0);
	}
}

static int text_node(struct ktrace_out *o, struct sorter *st, const char *key,
		     const struct kcdata_node *n, int indent, bool in_list);

/* The value part after "key:" (or "- "). */
static int text_value(struct ktrace_out *o, struct sorter *st, const char *key,
		      const struct kcdata_node *n, int indent)
{
	size_t count = kcdata_node_count(n);

	if (is_scalar(n)) {
		kt_out_putc(o, ' ');
		text_scalar(o, n);
		kt_out_putc(o, '\n');
		return 0;
	}
	if (!count) {
		kt_out_puts(o, kcdata_node_kind(n) == KCDATA_NODE_DICT ? " {}\n" : " []\n");
		return 0;
	}
	if (kcdata_node_kind(n) == KCDATA_NODE_ARRAY && all_scalars(n)) {
		kt_out_putc(o, ' ');
		if (print_uuid(o, key, n)) {
			kt_out_putc(o, '\n');
			return 0;
		}
		kt_out_putc(o, '[');
		for (size_t i = 0; i < count; i++) {
			if (i) {
				kt_out_putc(o, ',');
				if (i % 16 == 0) {
					kt_out_putc(o, '\n');
					kt_out_spaces(o, indent + 1);
				} else {
					kt_out_putc(o, ' ');
				}
			}
			text_scalar(o, kcdata_node_at(n, i));
		}
		kt_out_puts(o, "]\n");
		return 0;
	}
	kt_out_putc(o, '\n');
	if (kcdata_node_kind(n) == KCDATA_NODE_DICT) {
		struct entry *e = sorted_entries(st, n, &count, cmp_natural);

		if (!e)
			return -ENOMEM;
		for (size_t i = 0; i < count; i++) {
			if (text_node(o, st, e[i].key, e[i].val, indent + 2, false)) {
				release(st);
				return -ENOMEM;
			}
		}
		release(st);
		return 0;
	}
	for (size_t i = 0; i < count; i++)
		if (text_node(o, st, NULL, kcdata_node_at(n, i), indent + 2, true))
			return -ENOMEM;
	return 0;
}

static int text_node(struct ktrace_out *o, struct sorter *st, const char *key,
		     const struct kcdata_node *n, int indent, bool in_list)
{
	kt_out_spaces(o, indent);
	if (in_list) {
		/* A list element: a dictionary's entries follow "- " on the same column. */
		if (kcdata_node_kind(n) == KCDATA_NODE_DICT && kcdata_node_count(n)) {
			size_t count;
			struct entry *e = sorted_entries(st, n, &count, cmp_natural);

			if (!e)
				return -ENOMEM;
			kt_out_puts(o, "- ");
			for (size_t i = 0; i < count; i++) {
				if (i)
					kt_out_spaces(o, indent + 2);
				kt_out_puts(o, e[i].key);
				kt_out_putc(o, ':');
				if (text_value(o, st, e[i].key, e[i].val, indent + 2)) {
					release(st);
					return -ENOMEM;
				}
			}
			release(st);
			return 0;
		}
		kt_out_putc(o, '-');
		return text_value(o, st, NULL, n, indent);
	}
	kt_out_puts(o, key);
	kt_out_putc(o, ':');
	return text_value(o, st, key, n, indent);
}

int ktrace_view_kcdata_text(const struct kcdata_node *root, struct ktrace_out *out)
{
	struct sorter *st = sorter_new();
	struct entry *e;
	size_t count;
	int ret = 0;

	if (!st)
		return -ENOMEM;
	if (kcdata_node_count(root)) {
		e = sorted_entries(st, root, &count, cmp_natural);
		if (!e)
			ret = -ENOMEM;
		for (size_t i = 0; e && i < count && !ret; i++)
			ret = text_node(out, st, e[i].key, e[i].val, 0, false);
	}
	sorter_free(st);
	return ret;
}

/* ---- The view ---- */

int kt_kcdata_report(struct ktrace_input *in, const char *format, struct ktrace_out *out,
		       struct ktrace_error *err)
{
	struct kcdata_buffer *buf = NULL;
	struct kcdata_node *root = NULL;
	int ret;

	if (!format)
		format = "text";
	if (!strcmp(format, "info") || !strcmp(format, "items"))
		return kt_info_kcdata(in, !strcmp(format, "items"), false, out, err);
	if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "plist"))
		return ktrace_error_set(err, -EINVAL,
					"unknown format '%s' for kcdata (text, json, plist, info, items)",
					format);
	ret = kcdata_buffer_read(in, &buf, err);
	if (ret)
		return ret;
	/* what decodes is printed, then the error that stopped the decoding */
	ret = kcdata_decode_partial(kcdata_buffer_data(buf), kcdata_buffer_size(buf), &root, err);
	if (root) {
		int r;

		if (!strcmp(format, "json"))
			r = ktrace_view_kcdata_json(root, out);
		else if (!strcmp(format, "plist"))
			r = ktrace_view_kcdata_plist(root, out);
		else
			r = ktrace_view_kcdata_text(root, out);
		if (r && !ret)
			ret = ktrace_error_set(err, r, "out of memory");
	}
	kcdata_node_free(root);
	kcdata_buffer_free(buf);
	return ret;
}
