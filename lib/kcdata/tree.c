// SPDX-License-Identifier: MIT
/* The decoded kcdata tree: dictionaries (insertion order, hashed when large), arrays,
 * integers and strings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kcdata/kcdata_int.h"

#define INDEX_FROM 16   /* dictionaries with this many entries get a hash index */

static uint32_t hash_key(const char *s)
{
	uint32_t h = 2166136261u;   /* FNV-1a */

	while (*s) {
		h ^= (uint8_t)*s++;
		h *= 16777619u;
	}
	return h;
}

struct kcdata_node *kc_node_new(enum kcdata_node_kind kind)
{
	struct kcdata_node *n = calloc(1, sizeof(*n));

	if (n)
		n->kind = (uint8_t)kind;
	return n;
}

struct kcdata_node *kc_node_int(uint64_t v, bool negative)
{
	struct kcdata_node *n = kc_node_new(KCDATA_NODE_INT);

	if (n) {
		n->v.u = v;
		n->negative = negative;
	}
	return n;
}

struct kcdata_node *kc_node_string(const char *s, size_t len)
{
	struct kcdata_node *n;

	if (len > UINT32_MAX - 1)
		return NULL;
	n = kc_node_new(KCDATA_NODE_STRING);
	if (!n)
		return NULL;
	n->v.str = malloc(len + 1);
	if (!n->v.str) {
		free(n);
		return NULL;
	}
	if (len)
		memcpy(n->v.str, s, len);
	n->v.str[len] = 0;
	n->count = (uint32_t)len;
	return n;
}

void kcdata_node_free(struct kcdata_node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case KCDATA_NODE_DICT:
		for (uint32_t i = 0; i < n->count; i++) {
			free(n->v.d.entries[i].key);
			kcdata_node_free(n->v.d.entries[i].val);
		}
		free(n->v.d.entries);
		free(n->v.d.index);
		break;
	case KCDATA_NODE_ARRAY:
		for (uint32_t i = 0; i < n->count; i++)
			kcdata_node_free(n->v.items[i]);
		free(n->v.items);
		break;
	case KCDATA_NODE_STRING:
		free(n->v.str);
		break;
	}
	free(n);
}

static int rebuild_index(struct kcdata_node *d)
{
	uint32_t cap = 64, *index;

	while (cap < d->count * 2u + 2)
		cap *= 2;
	index = calloc(cap, sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->count; i++) {
		uint32_t slot = d->v.d.entries[i].hash & (cap - 1);

		while (index[slot])
			slot = (slot + 1) & (cap - 1);
		index[slot] = i + 1;
	}
	free(d->v.d.index);
	d->v.d.index = index;
	d->v.d.index_cap = cap;
	return 0;
}

static long find_hashed(const struct kcdata_node *d, const char *key, uint32_t h)
{
	if (d->v.d.index) {
		uint32_t mask = d->v.d.index_cap - 1, slot = h & mask;

		while (d->v.d.index[slot]) {
			const struct kc_entry *e = &d->v.d.entries[d->v.d.index[slot] - 1];

			if (e->hash == h && !strcmp(e->key, key))
				return (long)(d->v.d.index[slot] - 1);
			slot = (slot + 1) & mask;
		}
		return -1;
	}
	for (uint32_t i = 0; i < d->count; i++)
		if (d->v.d.entries[i].hash == h && !strcmp(d->v.d.entries[i].key, key))
			return (long)i;
	return -1;
}

long kc_dict_find(const struct kcdata_node *d, const char *key)
{
	if (!d || d->kind != KCDATA_NODE_DICT)
		return -1;
	return find_hashed(d, key, hash_key(key));
}

int kc_dict_add(struct kcdata_node *d, const char *key, struct kcdata_node *val)
{
	struct kc_entry *e;
	char *k;

	if (d->count == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 4;

		e = cap > d->cap ? realloc(d->v.d.entries, cap * sizeof(*e)) : NULL;
		if (!e) {
			kcdata_node_free(val);
			return -ENOMEM;
		}
		d->v.d.entries = e;
		d->cap = cap;
	}
	k = strdup(key);
	if (!k) {
		kcdata_node_free(val);
		return -ENOMEM;
	}
	e = &d->v.d.entries[d->count++];
	e->key = k;
	e->hash = hash_key(key);
	e->val = val;
	if (d->count >= INDEX_FROM) {
		if (!d->v.d.index || d->count * 2u + 2 > d->v.d.index_cap) {
			if (rebuild_index(d))
				return -ENOMEM;   /* the entry stays; lookups fall back to a scan */
		} else {
			uint32_t mask = d->v.d.index_cap - 1, slot = e->hash & mask;

			while (d->v.d.index[slot])
				slot = (slot + 1) & mask;
			d->v.d.index[slot] = d->count;
		}
	}
	return 0;
}

void kc_dict_replace(struct kcdata_node *d, long i, struct kcdata_node *val)
{
	kcdata_node_free(d->v.d.entries[i].val);
	d->v.d.entries[i].val = val;
}

void kc_dict_remove(struct kcdata_node *d, const char *key)
{
	long i = kc_dict_find(d, key);

	if (i < 0)
		return;
	free(d->v.d.entries[i].key);
	kcdata_node_free(d->v.d.entries[i].val);
	memmove(&d->v.d.entries[i], &d->v.d.entries[i + 1],
		(d->count - (uint32_t)i - 1) * sizeof(struct kc_entry));
	d->count--;
	free(d->v.d.index);
	d->v.d.index = NULL;
	d->v.d.index_cap = 0;
	if (d->count >= INDEX_FROM)
		rebuild_index(d);   /* on failure lookups scan */
}

static int array_reserve(struct kcdata_node *a, uint32_t more)
{
	struct kcdata_node **items;
	uint32_t cap = a->cap ? a->cap : 4;

	if (more > UINT32_MAX - a->count)
		return -ENOMEM;
	if (a->count + more <= a->cap)
		return 0;
	while (cap < a->count + more)
		cap = cap > UINT32_MAX / 2 ? a->count + more : cap * 2;
	items = realloc(a->v.items, (size_t)cap * sizeof(*items));
	if (!items)
		return -ENOMEM;
	a->v.items = items;
	a->cap = cap;
	return 0;
}

int kc_array_push(struct kcdata_node *a, struct kcdata_node *val)
{
	if (array_reserve(a, 1)) {
		kcdata_node_free(val);
		return -ENOMEM;
	}
	a->v.items[a->count++] = val;
	return 0;
}

int kc_array_concat(struct kcdata_node *dst, struct kcdata_node *src)
{
	if (array_reserve(dst, src->count)) {
		kcdata_node_free(src);
		return -ENOMEM;
	}
	if (src->count)
		memcpy(dst->v.items + dst->count, src->v.items, src->count * sizeof(*src->v.items));
	dst->count += src->count;
	free(src->v.items);
	free(src);
	return 0;
}

/* ---- Public accessors ---- */

enum kcdata_node_kind kcdata_node_kind(const struct kcdata_node *n)
{
	return n ? (enum kcdata_node_kind)n->kind : (enum kcdata_node_kind)0;
}

size_t kcdata_node_count(const struct kcdata_node *n)
{
	if (!n || (n->kind != KCDATA_NODE_DICT && n->kind != KCDATA_NODE_ARRAY))
		return 0;
	return n->count;
}

const struct kcdata_node *kcdata_node_at(const struct kcdata_node *n, size_t i)
{
	if (!n || i >= n->count)
		return NULL;
	if (n->kind == KCDATA_NODE_DICT)
		return n->v.d.entries[i].val;
	if (n->kind == KCDATA_NODE_ARRAY)
		return n->v.items[i];
	return NULL;
}

const char *kcdata_node_key(const struct kcdata_node *n, size_t i)
{
	if (!n || n->kind != KCDATA_NODE_DICT || i >= n->count)
		return NULL;
	return n->v.d.entries[i].key;
}

const struct kcdata_node *kcdata_node_get(const struct kcdata_node *n, const char *key)
{
	long i = kc_dict_find(n, key);

	return i < 0 ? NULL : n->v.d.entries[i].val;
}

const struct kcdata_node *kcdata_node_path(const struct kcdata_node *n, const char *path)
{
	char key[256];

	while (n && *path) {
		size_t len = strcspn(path, ".");

		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = 0;
		n = kcdata_node_get(n, key);
		path += len;
		if (*path == '.')
			path++;
	}
	return n;
}

uint64_t kcdata_node_uint(const struct kcdata_node *n)
{
	return n && n->kind == KCDATA_NODE_INT ? n->v.u : 0;
}

int64_t kcdata_node_int(const struct kcdata_node *n)
{
	return (int64_t)kcdata_node_uint(n);
}

bool kcdata_node_is_negative(const struct kcdata_node *n)
{
	return n && n->kind == KCDATA_NODE_INT && n->negative;
}

const char *kcdata_node_string(const struct kcdata_node *n, size_t *len)
{
	if (!n || n->kind != KCDATA_NODE_STRING) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = n->count;
	return n->v.str;
}
