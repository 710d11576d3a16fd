// SPDX-License-Identifier: MIT
/*
 * Decoding a kcdata buffer into a tree, with the rules of Apple's libkdd (as of
 * xnu-8020), so that the tree equals the dictionary libkdd builds:
 *
 *  - the result is { <root key of the begin magic>: { items... } };
 *  - an item of a known type becomes either its fields merged into the parent (basic
 *    one-field types, data-with-description items, types whose fields ask for it) or
 *    parent[<type name>] = { fields... }; a field that does not fit in the item's
 *    payload is left out, an array field is cut to what fits, a char array is a string
 *    ending at the first NUL;
 *  - an unknown type becomes parent["Type_0x<type>"] = [ payload bytes ];
 *  - an array item becomes parent[<element type name>] = [ elements ];
 *  - a container becomes parent[<container type name>][<decimal id>] = { items... };
 *  - a repeated key is an error unless both values are arrays, which are joined;
 *  - a nested buffer's dictionary is merged into its parent;
 *  - type definitions (at the top level) teach the decoder new types and appear as
 *    "typedef[<name>]".
 *
 * libkdd reads past the data it was given in a few corner cases and crashes in
 * others; here those are errors (or, for reads, stay inside the buffer). Work and
 * memory are bounded by a budget proportional to the buffer size.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "kcdata/kcdata_int.h"


struct session {
	struct kc_arena *arena;   /* the tree's memory */
	const uint8_t *base;      /* outermost buffer: offsets in errors are from here */
	const uint8_t *end;
	struct ktrace_error *err;
	/* types seen so far (libkdd caches a type the first time it is looked up, and a
	 * type definition only registers a type that is not cached yet) */
	struct kt_map type_index; /* id -> types[] */
	struct kc_type **types;
	size_t ntypes, cap_types;
	/* budgets */
	uint64_t nodes, max_nodes;
	uint64_t work, max_work;
	int depth;
	/* kcdata_decode_partial: keep what was decoded before an error */
	bool partial;
	struct kcdata_node *partial_tree;
};

static uint64_t off(const struct session *s, const void *p)
{
	return (uint64_t)((const uint8_t *)p - s->base);
}

static int nomem(struct session *s)
{
	return kt_error_oom(s->err);
}

static int too_big(struct session *s, const void *where)
{
	return ktrace_error_at(s->err, -E2BIG, off(s, where),
			       "decoded tree would be too large for a %zu-byte buffer",
			       (size_t)(s->end - s->base));
}

/* Counts cost units of nodes about to be made (strings cost by length). */
static int charge(struct session *s, uint64_t units, const void *where)
{
	s->nodes += units;
	if (s->nodes > s->max_nodes)
		return too_big(s, where);
	return 0;
}

static int charge_work(struct session *s, uint64_t units, const void *where)
{
	s->work += units;
	if (s->work > s->max_work)
		return too_big(s, where);
	return 0;
}

/* ---- Types ---- */

static void free_type(struct kc_type *t)
{
	if (t) {
		free(t->fields);
		free(t);
	}
}

static int cache_type(struct session *s, uint32_t id, struct kc_type *t)
{
	if (kt_grow((void **)&s->types, &s->cap_types, s->ntypes + 1, sizeof(*s->types)) ||
	    kt_map_put(&s->type_index, id, 0, (uint32_t)s->ntypes)) {
		free_type(t);
		return nomem(s);
	}
	s->types[s->ntypes++] = t;
	return 0;
}

/* The cached type of id, or NULL. */
static struct kc_type *cached_type(const struct session *s, uint32_t id)
{
	uint32_t i;

	return kt_map_get(&s->type_index, id, 0, &i) ? s->types[i] : NULL;
}

/* libkdd's getKCDataTypeForID: the cached type, else the built-in one, else the
 * default "Type_0x%x" byte array; cached from then on. */
static int lookup_type(struct session *s, uint32_t id, const struct kc_type **out)
{
	struct kc_type *t;

	if ((*out = cached_type(s, id)))
		return 0;
	t = calloc(1, sizeof(*t));
	if (!t)
		return nomem(s);
	if (id == KCDATA_TYPE_NESTED_KCDATA) {
		t->id = id;
		t->kind = KC_NESTED;
		t->merge = true;
		snprintf(t->name, sizeof(t->name), "EmbeddedKcdataBuffer");
	} else if (kc_builtin_type(id, t)) {
		if (t->nfields && !t->fields) {
			free(t);
			return nomem(s);
		}
	} else {
		t->fields = calloc(1, sizeof(*t->fields));
		if (!t->fields) {
			free(t);
			return nomem(s);
		}
		t->id = KCDATA_ST_UINT8;
		t->kind = KC_BASIC;
		t->merge = true;
		t->nfields = 1;
		t->fields[0].flags = KCDATA_SUBTYPE_FLAG_ARRAY;
		t->fields[0].elem_type = KCDATA_ST_UINT8;
		t->fields[0].size = 0xffffu << 16 | 1;
		snprintf(t->name, sizeof(t->name), "Type_0x%x", id);
	}
	if (cache_type(s, id, t))
		return -ENOMEM;
	*out = t;
	return 0;
}

/* libkdd's KCDataTypeNameForID: a container's key. */
static int container_name(struct session *s, uint32_t id, char *buf, size_t len)
{
	const struct kc_type *t;
	int ret = lookup_type(s, id, &t);

	if (ret)
		return ret;
	if (strstr(t->name, "Type_"))
		snprintf(buf, len, "%" PRIu32, id);
	else
		snprintf(buf, len, "%s", t->name);
	return 0;
}

/* ---- Values ---- */

/* Reads an integer of the subtype's width at p; bytes past the buffer read as 0 (only
 * in-buffer type definitions can ask for more than a field holds). */
static struct kcdata_node *scalar(struct session *s, uint8_t elem_type, const uint8_t *p)
{
	uint8_t raw[8] = { 0 };
	unsigned int w = kc_subtype_width(elem_type);
	size_t avail = p < s->end ? (size_t)(s->end - p) : 0;
	uint64_t u;
	int64_t v;

	memcpy(raw, p, w < avail ? w : avail);
	switch (elem_type) {
	case KCDATA_ST_CHAR: {
		size_t len = raw[0] != 0;

		return kc_node_string(s->arena, (const char *)raw, len);
	}
	case KCDATA_ST_INT8:   v = (int8_t)raw[0]; break;
	case KCDATA_ST_UINT8:  return kc_node_int(s->arena, raw[0], false);
	case KCDATA_ST_INT16:  v = (int16_t)kt_load_u16(raw, false); break;
	case KCDATA_ST_UINT16: return kc_node_int(s->arena, kt_load_u16(raw, false), false);
	case KCDATA_ST_INT32:  v = (int32_t)kt_load_u32(raw, false); break;
	case KCDATA_ST_UINT32: return kc_node_int(s->arena, kt_load_u32(raw, false), false);
	case KCDATA_ST_INT64:  v = (int64_t)kt_load_u64(raw, false); break;
	case KCDATA_ST_UINT64: return kc_node_int(s->arena, kt_load_u64(raw, false), false);
	default:
		return kc_node_string(s->arena, "<Unknown error occurred>", 24);
	}
	u = (uint64_t)v;
	return kc_node_int(s->arena, u, v < 0);
}

/* One field of data[0..length) (libkdd's basic type parse): *out is NULL when the
 * field does not fit at all. */
static int field_value(struct session *s, const struct kc_field *f, const uint8_t *data,
		       uint32_t length, struct kcdata_node **out)
{
	uint32_t count = kc_field_count(f), elem_size, n;
	const uint8_t *p = data + f->offset;
	struct kcdata_node *arr;

	*out = NULL;
	if (charge_work(s, 1, data))
		return -E2BIG;
	if (length <= f->offset || count == 0)
		return 0;
	elem_size = kc_field_total_size(f) / count;
	if (elem_size == 0)
		return 0;
	n = (length - f->offset) / elem_size;
	if (n > count)
		n = count;
	if (n == 0)
		return 0;
	if (n == 1) {
		if (charge(s, 1, p))
			return -E2BIG;
		*out = scalar(s, f->elem_type, p);
		return *out ? 0 : nomem(s);
	}
	if (f->elem_type == KCDATA_ST_CHAR) {
		const uint8_t *nul = memchr(p, 0, n);
		size_t len = nul ? (size_t)(nul - p) : n;

		if (charge(s, 1 + len / 16, p))
			return -E2BIG;
		*out = kc_node_string(s->arena, (const char *)p, len);
		return *out ? 0 : nomem(s);
	}
	if (charge(s, 1 + (uint64_t)n, p))
		return -E2BIG;
	arr = kc_node_new(s->arena, KCDATA_NODE_ARRAY, n);
	if (!arr)
		return nomem(s);
	for (uint32_t i = 0; i < n; i++) {
		struct kcdata_node *v = scalar(s, f->elem_type, p + (size_t)elem_size * i);

		if (!v || kc_array_push(s->arena, arr, v)) {
			return nomem(s);
		}
	}
	*out = arr;
	return 0;
}

/* Sets d[key] = v, replacing an existing value (v is consumed). */
static int dict_set(struct session *s, struct kcdata_node *d, const char *key,
		    struct kcdata_node *v)
{
	long i = kc_dict_find(d, key);

	if (i >= 0) {
		kc_dict_replace(d, i, v);
		return 0;
	}
	return kc_dict_add(s->arena, d, key, v) ? nomem(s) : 0;
}

static int decode_buffer(struct session *s, const uint8_t *buf, size_t len,
			 struct kcdata_node **out);

/* The "fields" list of a type definition item: one line per subtype descriptor. */
static int typedef_field_lines(struct session *s, const uint8_t *data, uint32_t length,
			       struct kcdata_node *d)
{
	struct kcdata_node *arr;
	uint32_t n;

	if (length < KCDATA_TYPEDEF_HEADER_SIZE)
		return ktrace_error_at(s->err, -EBADMSG, off(s, data),
				       "type definition of %u bytes is too short", length);
	n = (length - KCDATA_TYPEDEF_HEADER_SIZE) / KCDATA_SUBTYPE_DESC_SIZE;
	if (charge(s, 1 + (uint64_t)n * 6, data))
		return -E2BIG;
	arr = kc_node_new(s->arena, KCDATA_NODE_ARRAY, n);
	if (!arr)
		return nomem(s);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = data + KCDATA_TYPEDEF_HEADER_SIZE + (size_t)i * KCDATA_SUBTYPE_DESC_SIZE;
		struct kc_field f = { .flags = e[0], .elem_type = e[1] };
		char line[128];
		int len;

		f.offset = kt_load_u16(e + 2, false);
		f.size = kt_load_u32(e + 4, false);
		memcpy(f.name, e + 8, KC_NAME_MAX);
		if (f.flags & KCDATA_SUBTYPE_FLAG_ARRAY)
			len = snprintf(line, sizeof(line), "[%d,%d] %s  %s[%d];", f.offset,
				       (int32_t)kc_field_total_size(&f), kc_subtype_name(f.elem_type),
				       f.name, (int)kc_field_count(&f));
		else
			len = snprintf(line, sizeof(line), "[%d,%d] %s  %s;", f.offset,
				       (int32_t)kc_field_total_size(&f), kc_subtype_name(f.elem_type),
				       f.name);
		struct kcdata_node *str = kc_node_string(s->arena, line, (size_t)len);

		if (!str || kc_array_push(s->arena, arr, str)) {
			return nomem(s);
		}
	}
	return dict_set(s, d, "fields", arr);
}

/*
 * libkdd's parseData: the dictionary an item of type t with payload data[0..length)
 * turns into (before it is merged into, or named in, its parent).
 */
static int parse_data(struct session *s, const struct kc_type *t, const uint8_t *data,
		      uint32_t length, struct kcdata_node **out)
{
	struct kcdata_node *d, *v;
	int ret;

	*out = NULL;
	if (t->kind == KC_NESTED)
		return decode_buffer(s, data, length, out);
	if (charge(s, 1, data))
		return -E2BIG;
	d = kc_node_new(s->arena, KCDATA_NODE_DICT, t->nfields + t->typedef_fields);
	if (!d)
		return nomem(s);
	for (uint32_t i = 0; i < t->nfields; i++) {
		ret = field_value(s, &t->fields[i], data, length, &v);
		if (!ret && v)
			ret = dict_set(s, d, t->kind == KC_BASIC ? t->name : t->fields[i].name, v);
		if (ret)
			goto fail;
	}
	if (t->typedef_fields && (ret = typedef_field_lines(s, data, length, d)))
		goto fail;
	if (t->desc_key) {
		/* d[desc] = d["data"]; then "desc" and "data" go. An item too short to hold
		 * a description makes libkdd throw; here it is an error. */
		long di = kc_dict_find(d, "desc"), vi = kc_dict_find(d, "data");
		struct kcdata_node *desc = di >= 0 ? d->v.entries[di].val : NULL;
		struct kcdata_node *val = NULL;
		char *key;

		if (!desc || desc->kind != KCDATA_NODE_STRING) {
			ret = ktrace_error_at(s->err, -EBADMSG, off(s, data),
					      "item of %u bytes has no description", length);
			goto fail;
		}
		key = strdup(desc->v.str);
		if (!key) {
			ret = nomem(s);
			goto fail;
		}
		if (vi >= 0) {
			val = d->v.entries[vi].val;
			d->v.entries[vi].val = NULL;
		}
		if (val)
			ret = dict_set(s, d, key, val);
		else
			kc_dict_remove(s->arena, d, key);
		free(key);
		if (ret)
			goto fail;
		kc_dict_remove(s->arena, d, "desc");
		kc_dict_remove(s->arena, d, "data");
	}
	*out = d;
	return 0;
fail:
	return ret;
}

/*
 * libkdd's mergedict: moves every entry of obj into container. A key already present
 * is an error unless both values are arrays, which are joined. obj is consumed.
 */
static int merge(struct session *s, struct kcdata_node *container, struct kcdata_node *obj,
		 const void *where)
{
	int ret = 0;

	for (uint32_t i = 0; i < obj->count && !ret; i++) {
		struct kc_entry *e = &obj->v.entries[i];
		long at = kc_dict_find(container, e->key);
		struct kcdata_node *v = e->val;

		e->val = NULL;
		if (at < 0) {
			if (kc_dict_add(s->arena, container, e->key, v))
				ret = nomem(s);
			continue;
		}
		struct kcdata_node *old = container->v.entries[at].val;

		if (old->kind == KCDATA_NODE_ARRAY && v->kind == KCDATA_NODE_ARRAY) {
			if (kc_array_concat(s->arena, old, v))
				ret = nomem(s);
		} else {
			ret = ktrace_error_at(s->err, -EBADMSG, off(s, where), "repeated key: %s",
					      e->key);
		}
	}
	return ret;
}

/* Wraps v as { key: v } (v consumed). */
static int wrap(struct session *s, const char *key, struct kcdata_node *v, struct kcdata_node **out)
{
	struct kcdata_node *d = kc_node_new(s->arena, KCDATA_NODE_DICT, 1);

	*out = NULL;
	if (!d) {
		return nomem(s);
	}
	if (kc_dict_add(s->arena, d, key, v)) {
		return nomem(s);
	}
	*out = d;
	return 0;
}

/* ---- Items ---- */

struct item {
	const uint8_t *hdr;
	uint32_t type;            /* raw */
	uint32_t size;
	uint64_t flags;
	const uint8_t *payload;
};

/* libkdd's kcdata_iter_valid: the header and the payload fit before end. */
static bool item_at(const uint8_t *p, const uint8_t *end, struct item *it)
{
	if ((size_t)(end - p) < KCDATA_HEADER_SIZE)
		return false;
	it->hdr = p;
	it->type = kt_load_u32(p, false);
	it->size = kt_load_u32(p + 4, false);
	it->flags = kt_load_u64(p + 8, false);
	it->payload = p + KCDATA_HEADER_SIZE;
	return it->size <= (size_t)(end - p) - KCDATA_HEADER_SIZE;
}

static const uint8_t *item_next(const struct item *it)
{
	return it->payload + it->size;
}

static struct kcdata_item public_item(const struct session *s, const struct item *it)
{
	struct kcdata_item pi = {
		.type = it->type, .size = it->size, .flags = it->flags,
		.offset = off(s, it->hdr), .payload = it->payload,
	};
	return pi;
}

static uint32_t item_type(const struct item *it)
{
	return (it->type & ~0xfu) == KCDATA_TYPE_ARRAY_PAD0 ? KCDATA_TYPE_ARRAY : it->type;
}

/* libkdd's parseKCDataArray: { <element type name>: [ elements ] }. */
static int parse_array(struct session *s, const struct item *it, struct kcdata_node **out)
{
	struct kcdata_item pi = public_item(s, it);
	struct kcdata_array a;
	const struct kc_type *t;
	struct kcdata_node *arr;
	int ret;

	*out = NULL;
	if (kcdata_item_array(&pi, &a, s->err) < 0)
		return -EBADMSG;
	ret = lookup_type(s, a.elem_type, &t);
	if (ret)
		return ret;
	if (charge(s, 1 + a.count / 4, it->hdr))
		return -E2BIG;
	arr = kc_node_new(s->arena, KCDATA_NODE_ARRAY, a.count);
	if (!arr)
		return nomem(s);
	for (uint32_t i = 0; i < a.count; i++) {
		const uint8_t *e = a.data + (size_t)i * a.elem_size;
		struct kcdata_node *d, *v;

		ret = parse_data(s, t, e, a.elem_size, &d);
		if (ret)
			goto fail;
		if (t->merge) {
			if (d->count != 1) {
				ret = ktrace_error_at(s->err, -EBADMSG, off(s, e),
						      "array element %u of type 0x%x (%u bytes) gives %u values, not 1",
						      i, a.elem_type, a.elem_size, d->count);
				goto fail;
			}
			v = d->v.entries[0].val;
			d->v.entries[0].val = NULL;
		} else {
			v = d;
		}
		if (kc_array_push(s->arena, arr, v)) {
			ret = nomem(s);
			goto fail;
		}
	}
	return wrap(s, t->name, arr, out);
fail:
	return ret;
}

/* A plain item: its fields merged into the parent, or { type name: fields }. */
static int parse_item(struct session *s, const struct item *it, struct kcdata_node *parent)
{
	struct kcdata_item pi = public_item(s, it);
	const struct kc_type *t;
	struct kcdata_node *d;
	int ret = lookup_type(s, item_type(it), &t);

	if (ret)
		return ret;
	ret = parse_data(s, t, it->payload, kcdata_item_length(&pi), &d);
	if (ret)
		return ret;
	if (!t->merge && (ret = wrap(s, t->name, d, &d)))
		return ret;
	return merge(s, parent, d, it->hdr);
}

/* Adds value under parent[key][id] (libkdd's container bookkeeping). */
static int add_container(struct session *s, struct kcdata_node *parent, const char *key,
			 uint64_t id, struct kcdata_node *value, const void *where)
{
	char ids[24];
	long i = kc_dict_find(parent, key);
	struct kcdata_node *byid;

	snprintf(ids, sizeof(ids), "%" PRIu64, id);
	if (i < 0) {
		byid = kc_node_new(s->arena, KCDATA_NODE_DICT, 0);
		if (!byid || kc_dict_add(s->arena, parent, key, byid)) {
			return nomem(s);
		}
	} else {
		byid = parent->v.entries[i].val;
		if (byid->kind != KCDATA_NODE_DICT) {
			return ktrace_error_at(s->err, -EBADMSG, off(s, where),
					       "repeated key: %s (an item and a container)", key);
		}
	}
	if (kc_dict_find(byid, ids) >= 0) {
		return ktrace_error_at(s->err, -EBADMSG, off(s, where),
				       "repeated container id: %s[%s]", key, ids);
	}
	return kc_dict_add(s->arena, byid, ids, value) ? nomem(s) : 0;
}

/*
 * libkdd's parseKCDataContainer: *pp is at a CONTAINER_BEGIN; on success it is at the
 * matching CONTAINER_END, *key names the container type and *out holds its items.
 */
static int parse_container(struct session *s, const uint8_t **pp, const uint8_t *end,
			   char *key, size_t keylen, struct kcdata_node **out)
{
	struct item begin = { 0 }, it;
	struct kcdata_node *container = NULL, *subs = NULL;
	const uint8_t *p = *pp;
	bool found_end = false;
	int ret;

	*out = NULL;
	if (!item_at(p, end, &begin) || begin.size < 4)
		return ktrace_error_at(s->err, -EBADMSG, off(s, p),
				       "invalid container: begin item of %u bytes", begin.size);
	if (++s->depth > KC_MAX_DEPTH) {
		s->depth--;
		return ktrace_error_at(s->err, -EBADMSG, off(s, p),
				       "containers nested deeper than %d", KC_MAX_DEPTH);
	}
	ret = container_name(s, kt_load_u32(begin.payload, false), key, keylen);
	if (ret)
		goto out;
	if (charge(s, 2, p)) {
		ret = -E2BIG;
		goto out;
	}
	container = kc_node_new(s->arena, KCDATA_NODE_DICT, 0);
	subs = kc_node_new(s->arena, KCDATA_NODE_DICT, 0);
	if (!container || !subs) {
		ret = nomem(s);
		goto out;
	}
	for (p = item_next(&begin); item_at(p, end, &it) && it.type != KCDATA_TYPE_BUFFER_END;
	     p = item_next(&it)) {
		uint32_t type = item_type(&it);

		if ((ret = charge_work(s, 1, p)))
			goto out;
		if (type == KCDATA_TYPE_CONTAINER_END) {
			if (it.flags != begin.flags) {
				ret = ktrace_error_at(s->err, -EBADMSG, off(s, p),
						      "container end id %" PRIu64 " does not match begin id %" PRIu64
						      " at 0x%" PRIx64, it.flags, begin.flags,
						      off(s, begin.hdr));
				goto out;
			}
			found_end = true;
			break;
		}
		if (type == KCDATA_TYPE_ARRAY) {
			struct kcdata_node *d;

			ret = parse_array(s, &it, &d);
			if (!ret)
				ret = merge(s, container, d, it.hdr);
		} else if (type == KCDATA_TYPE_CONTAINER_BEGIN) {
			char subkey[48];
			struct kcdata_node *sub;
			const uint8_t *q = p;

			ret = parse_container(s, &q, end, subkey, sizeof(subkey), &sub);
			if (!ret)
				ret = add_container(s, subs, subkey, it.flags, sub, p);
			else if (s->partial && sub)
				add_container(s, subs, subkey, it.flags, sub, p);
			if (!ret && item_at(q, end, &it))
				p = q;   /* the loop steps over the sub-container's end */
		} else {
			ret = parse_item(s, &it, container);
		}
		if (ret)
			goto out;
	}
	if (!found_end) {
		ret = ktrace_error_at(s->err, -EBADMSG, off(s, begin.hdr),
				      "missing container end for %s id %" PRIu64, key, begin.flags);
		goto out;
	}
	ret = merge(s, container, subs, begin.hdr);
	subs = NULL;
	if (ret)
		goto out;
	*pp = p;
	*out = container;
	container = NULL;
out:
	if (ret && s->partial && container) {
		/* what the container held before the error, for kcdata_decode_partial */
		if (subs)
			merge(s, container, subs, begin.hdr);
		*out = container;
	}
	s->depth--;
	return ret;
}

/* Builds a type from a TYPEDEFINITION payload (libkdd's getTypeFromTypeDef). */
static int type_from_typedef(struct session *s, const struct item *it, uint32_t length,
			     struct kc_type **out)
{
	const uint8_t *d = it->payload;
	uint32_t n;
	struct kc_type *t;
	char name[KC_NAME_MAX + 1] = { 0 };

	*out = NULL;
	if (length < KCDATA_TYPEDEF_HEADER_SIZE)
		return ktrace_error_at(s->err, -EBADMSG, off(s, it->hdr),
				       "type definition of %u bytes is too short", length);
	n = kt_load_u32(d + 4, false);
	if (n > (length - KCDATA_TYPEDEF_HEADER_SIZE) / KCDATA_SUBTYPE_DESC_SIZE)
		return ktrace_error_at(s->err, -EBADMSG, off(s, it->hdr),
				       "type definition of %u fields does not fit in %u bytes", n,
				       length);
	if (charge_work(s, n, it->hdr))
		return -E2BIG;
	memcpy(name, d + 8, KC_NAME_MAX);
	t = calloc(1, sizeof(*t));
	if (!t || (n && !(t->fields = calloc(n, sizeof(*t->fields))))) {
		free(t);
		return nomem(s);
	}
	t->nfields = n;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = d + KCDATA_TYPEDEF_HEADER_SIZE + (size_t)i * KCDATA_SUBTYPE_DESC_SIZE;
		struct kc_field *f = &t->fields[i];

		f->flags = e[0];
		f->elem_type = e[1];
		f->offset = kt_load_u16(e + 2, false);
		f->size = kt_load_u32(e + 4, false);
		memcpy(f->name, e + 8, KC_NAME_MAX);
		if (f->flags & KCDATA_SUBTYPE_FLAG_MERGE)
			t->merge = true;
	}
	if (n == 1 && !(t->fields[0].flags & KCDATA_SUBTYPE_FLAG_STRUCT)) {
		/* A basic type; libkdd registers it under its element type (sic). */
		t->kind = KC_BASIC;
		t->id = t->fields[0].elem_type;
		t->merge = true;
		snprintf(t->name, sizeof(t->name), "%s", t->fields[0].name);
	} else {
		t->kind = KC_STRUCT;
		t->id = kt_load_u32(d, false);
		t->desc_key = t->id >= KCDATA_TYPE_STRING_DESC && t->id <= KCDATA_TYPE_BINDATA_DESC;
		t->merge = t->merge || t->desc_key;
		t->typedef_fields = t->id == KCDATA_TYPE_TYPEDEFINITION;
		snprintf(t->name, sizeof(t->name), "%s", name);
	}
	*out = t;
	return 0;
}

static int parse_typedef(struct session *s, const struct item *it, struct kcdata_node *root)
{
	struct kcdata_item pi = public_item(s, it);
	uint32_t length = kcdata_item_length(&pi);
	const struct kc_type *meta;
	struct kcdata_node *d;
	struct kc_type *t;
	char key[64];
	int ret = type_from_typedef(s, it, length, &t);

	if (ret)
		return ret;
	snprintf(key, sizeof(key), "typedef[%s]", t->name);
	if (t->id != 0 && !cached_type(s, t->id)) {
		if ((ret = cache_type(s, t->id, t)))
			return ret;
	} else {
		free_type(t);
	}
	ret = lookup_type(s, KCDATA_TYPE_TYPEDEFINITION, &meta);
	if (!ret)
		ret = parse_data(s, meta, it->payload, length, &d);
	if (!ret)
		ret = dict_set(s, root, key, d);
	return ret;
}

/* libkdd's parseKCDataBuffer. */
static int decode_buffer(struct session *s, const uint8_t *buf, size_t len,
			 struct kcdata_node **out)
{
	uint32_t root_type = len >= 4 ? kt_load_u32(buf, false) : 0;
	const char *root_key = kcdata_root_key(root_type);
	struct kcdata_node *root = NULL, *result = NULL;
	const uint8_t *p, *end = buf + len;
	struct item it;
	int ret;

	*out = NULL;
	if (!root_key) {
		if (root_type == KCDATA_BUFFER_BEGIN_COMPRESSED)
			return ktrace_error_at(s->err, -EBADMSG, off(s, buf),
					       "compressed kcdata must be decompressed first");
		return ktrace_error_at(s->err, -EBADMSG, off(s, buf),
				       "not a kcdata buffer: invalid begin magic 0x%08x", root_type);
	}
	if (!item_at(buf, end, &it))
		return ktrace_error_at(s->err, -EBADMSG, off(s, buf), "initial item is invalid");
	if (++s->depth > KC_MAX_DEPTH) {
		s->depth--;
		return ktrace_error_at(s->err, -EBADMSG, off(s, buf),
				       "nested buffers deeper than %d", KC_MAX_DEPTH);
	}
	if (charge(s, 2, buf)) {
		ret = -E2BIG;
		goto out;
	}
	root = kc_node_new(s->arena, KCDATA_NODE_DICT, 0);
	if (!root) {
		ret = nomem(s);
		goto out;
	}
	for (p = buf; item_at(p, end, &it) && it.type != KCDATA_TYPE_BUFFER_END; p = item_next(&it)) {
		uint32_t type = item_type(&it);

		if ((ret = charge_work(s, 1, p)))
			goto out;
		if (it.type == root_type)
			continue;
		if (type == KCDATA_TYPE_ARRAY) {
			struct kcdata_node *d;

			ret = parse_array(s, &it, &d);
			if (!ret)
				ret = merge(s, root, d, it.hdr);
		} else if (type == KCDATA_TYPE_CONTAINER_BEGIN) {
			char key[48];
			struct kcdata_node *c;
			const uint8_t *q = p;

			ret = parse_container(s, &q, end, key, sizeof(key), &c);
			if (!ret)
				ret = add_container(s, root, key, it.flags, c, p);
			else if (s->partial && c)
				add_container(s, root, key, it.flags, c, p);
			if (!ret && item_at(q, end, &it))
				p = q;
		} else if (type == KCDATA_TYPE_TYPEDEFINITION) {
			ret = parse_typedef(s, &it, root);
		} else {
			ret = parse_item(s, &it, root);
		}
		if (ret)
			goto out;
	}
	if (!item_at(p, end, &it)) {
		if ((size_t)(end - p) < KCDATA_HEADER_SIZE)
			ret = ktrace_error_at(s->err, -EBADMSG, off(s, p),
					      "missing buffer end marker (%zu bytes left)",
					      (size_t)(end - p));
		else
			ret = ktrace_error_at(s->err, -EBADMSG, off(s, p),
					      "invalid item: type 0x%x size %u exceeds the %zu bytes left",
					      it.type, it.size, (size_t)(end - p) - KCDATA_HEADER_SIZE);
		goto out;
	}
	ret = wrap(s, root_key, root, &result);
	root = NULL;
	if (!ret)
		*out = result;
out:
	/* the outermost buffer: keep what was decoded before the error */
	if (ret && s->partial && s->depth == 1 && root && root->count &&
	    wrap(s, root_key, root, &result) == 0)
		s->partial_tree = result;
	s->depth--;
	return ret;
}

static int decode(const void *buf, size_t len, bool partial, struct kcdata_node **out,
		  struct ktrace_error *err)
{
	struct kcdata_node *top = NULL;
	struct session s = {
		.base = buf, .end = (const uint8_t *)buf + len, .err = err,
		.max_nodes = 4 * (uint64_t)len + 65536,
		.max_work = 64 * (uint64_t)len + (1u << 20),
		.partial = partial,
	};
	int ret;

	*out = NULL;
	if (!buf && len)
		return ktrace_error_set(err, -EINVAL, "no buffer");
	if (len > KCDATA_MAX_BUFFER_SIZE)
		return ktrace_error_set(err, -E2BIG, "kcdata buffer of %zu bytes is too large", len);
	s.arena = kc_arena_new();
	if (!s.arena)
		return kt_error_oom(err);
	ret = decode_buffer(&s, buf ? buf : (const void *)"", len, &top);
	if (!ret) {
		*out = kc_root_new(s.arena, top);
		if (!*out)
			ret = kt_error_oom(err);
	} else if (s.partial_tree) {
		*out = kc_root_new(s.arena, s.partial_tree);
	}
	if (!*out)
		kc_arena_free(s.arena);
	for (size_t i = 0; i < s.ntypes; i++)
		free_type(s.types[i]);
	free(s.types);
	kt_map_free(&s.type_index);
	return ret;
}

int kcdata_decode(const void *buf, size_t len, struct kcdata_node **out, struct ktrace_error *err)
{
	return decode(buf, len, false, out, err);
}

int kcdata_decode_partial(const void *buf, size_t len, struct kcdata_node **out,
			  struct ktrace_error *err)
{
	return decode(buf, len, true, out, err);
}
