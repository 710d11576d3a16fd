// SPDX-License-Identifier: MIT
/*
 * The decoded kcdata tree: dictionaries (insertion order, indexed when large), arrays,
 * integers and strings. Everything of one tree lives in an arena: nodes, strings,
 * child arrays (grown by copying, the old copy abandoned) and keys, which are interned
 * (a stackshot repeats the same few hundred keys millions of times) and numbered.
 * Dictionaries of INDEX_FROM entries or more are found through one kt_map for the whole
 * tree, keyed by (dictionary number, key number); smaller ones are scanned. Either way
 * a lookup gives a dictionary's first entry with that key. Freeing the root frees the
 * arena; freeing any other node does nothing.
 */
#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "kcdata/kcdata_int.h"

/* Dictionaries with this many entries are indexed. A kt_map slot is 24 bytes, so the
 * many 16-31 entry dictionaries of a stackshot (its structs) are scanned instead: at
 * 16 the index alone added 3.5 MB to the peak RSS of an 840 kB stackshot. */
#define INDEX_FROM 32
#define CHUNK_SIZE (256 * 1024)

struct kc_arena {
	struct kt_arena mem;
	/* interned keys: hash -> keys[] */
	struct kt_map key_index;
	const struct kc_key **keys;
	size_t nkeys, keys_cap;
	/* (dictionary number, key number) -> the dictionary's first entry with the key */
	struct kt_map dict_index;
	uint32_t ndicts;        /* dictionary numbers given out */
};

struct kc_key {
	uint32_t hash;
	uint32_t id;            /* index in keys[] */
	char s[];
};

/* The node kcdata_decode hands out owns the arena. */
struct kc_root {
	struct kcdata_node node;
	struct kc_arena *arena;
};

#define ROOT_FLAG 0x80          /* in kcdata_node.kind's high bit */

static inline uint8_t kind_of(const struct kcdata_node *n)
{
	return n->kind & ~ROOT_FLAG;
}

static uint32_t hash_key(const char *s)
{
	uint32_t h = 2166136261u;   /* FNV-1a */

	while (*s) {
		h ^= (uint8_t)*s++;
		h *= 16777619u;
	}
	return h;
}

struct kc_arena *kc_arena_new(void)
{
	struct kc_arena *a = calloc(1, sizeof(struct kc_arena));

	if (a)
		kt_arena_init(&a->mem, CHUNK_SIZE, CHUNK_SIZE);
	return a;
}

void kc_arena_free(struct kc_arena *a)
{
	if (!a)
		return;
	kt_arena_free(&a->mem);
	kt_map_free(&a->key_index);
	kt_map_free(&a->dict_index);
	free(a->keys);
	free(a);
}

void *kc_alloc(struct kc_arena *a, size_t n)
{
	n = (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
	if (!n)
		n = alignof(max_align_t);
	return kt_arena_alloc(&a->mem, n, alignof(max_align_t));
}

static void *kc_zalloc(struct kc_arena *a, size_t n)
{
	void *p = kc_alloc(a, n);

	if (p)
		memset(p, 0, n);
	return p;
}

struct key_want {
	const struct kc_arena *a;
	const char *key;
};

static bool same_key(const void *ctx, uint32_t i)
{
	const struct key_want *w = ctx;

	return !strcmp(w->a->keys[i]->s, w->key);
}

/* The arena's copy of key (its hash is h), or NULL when it has none. */
static const struct kc_key *find_key(const struct kc_arena *a, const char *key, uint32_t h)
{
	struct key_want w = { a, key };
	uint32_t i;

	return kt_map_find(&a->key_index, h, same_key, &w, &i) ? a->keys[i] : NULL;
}

/* The arena's copy of key, shared by every dictionary that uses it. */
static const struct kc_key *intern(struct kc_arena *a, const char *key)
{
	uint32_t h = hash_key(key);
	const struct kc_key *found = find_key(a, key, h);
	struct kc_key *k;
	size_t len;

	if (found)
		return found;
	if (a->nkeys >= UINT32_MAX)
		return NULL;
	len = strlen(key);
	if (kt_grow((void **)&a->keys, &a->keys_cap, a->nkeys + 1, sizeof(*a->keys)))
		return NULL;
	k = kc_alloc(a, sizeof(*k) + len + 1);
	if (!k || kt_map_add(&a->key_index, h, (uint32_t)a->nkeys))
		return NULL;
	k->hash = h;
	k->id = (uint32_t)a->nkeys;
	memcpy(k->s, key, len + 1);
	a->keys[a->nkeys++] = k;
	return k;
}

static struct kcdata_node *scalar_node(struct kc_arena *a, enum kcdata_node_kind kind)
{
	struct kcdata_node *n = kc_alloc(a, KC_SCALAR_NODE_SIZE);

	if (n) {
		memset(n, 0, KC_SCALAR_NODE_SIZE);
		n->kind = (uint8_t)kind;
	}
	return n;
}

struct kcdata_node *kc_node_new(struct kc_arena *a, enum kcdata_node_kind kind, uint32_t cap)
{
	struct kcdata_node *n;

	if (kind != KCDATA_NODE_DICT && kind != KCDATA_NODE_ARRAY)
		return scalar_node(a, kind);
	n = kc_zalloc(a, sizeof(*n));
	if (!n)
		return NULL;
	n->kind = (uint8_t)kind;
	if (cap) {
		size_t elem = kind == KCDATA_NODE_DICT ? sizeof(struct kc_entry)
						       : sizeof(struct kcdata_node *);
		void *p = kc_alloc(a, (size_t)cap * elem);

		if (!p)
			return NULL;
		if (kind == KCDATA_NODE_DICT)
			n->v.entries = p;
		else
			n->v.items = p;
		n->cap = cap;
	}
	return n;
}

struct kcdata_node *kc_node_int(struct kc_arena *a, uint64_t v, bool negative)
{
	struct kcdata_node *n = scalar_node(a, KCDATA_NODE_INT);

	if (n) {
		n->v.u = v;
		n->negative = negative;
	}
	return n;
}

struct kcdata_node *kc_node_string(struct kc_arena *a, const char *s, size_t len)
{
	struct kcdata_node *n;

	if (len > UINT32_MAX - 1)
		return NULL;
	n = scalar_node(a, KCDATA_NODE_STRING);
	if (!n)
		return NULL;
	n->v.str = kc_alloc(a, len + 1);
	if (!n->v.str)
		return NULL;
	if (len)
		memcpy(n->v.str, s, len);
	n->v.str[len] = 0;
	n->count = (uint32_t)len;
	return n;
}

struct kcdata_node *kc_root_new(struct kc_arena *a, const struct kcdata_node *top)
{
	struct kc_root *r = malloc(sizeof(*r));

	if (!r)
		return NULL;
	r->node = *top;
	r->node.kind |= ROOT_FLAG;
	r->arena = a;
	return &r->node;
}

void kcdata_node_free(struct kcdata_node *n)
{
	if (n && (n->kind & ROOT_FLAG)) {
		kc_arena_free(((struct kc_root *)n)->arena);
		free(n);
	}
}

static inline const struct kc_key *key_of(const char *key)
{
	return (const struct kc_key *)(key - offsetof(struct kc_key, s));
}

/* Records entry i of dictionary number id unless the dictionary has its key earlier:
 * 0, -ENOMEM or -E2BIG. */
static int index_entry(struct kc_arena *a, uint32_t id, const struct kcdata_node *d, uint32_t i)
{
	uint32_t key = key_of(d->v.entries[i].key)->id, first;

	if (kt_map_get(&a->dict_index, id, key, &first))
		return 0;
	return kt_map_put(&a->dict_index, id, key, i);
}

/* Puts all of d's entries in the tree's index as dictionary number id. On failure d
 * is left unindexed (lookups scan it): 0 or -ENOMEM. */
static int index_dict(struct kc_arena *a, struct kcdata_node *d, uint32_t id)
{
	d->tree = NULL;
	if (kt_map_reserve(&a->dict_index, a->dict_index.n + d->count))
		return -ENOMEM;
	for (uint32_t i = 0; i < d->count; i++)
		if (index_entry(a, id, d, i))
			return -ENOMEM;
	d->dict_id = id;
	d->tree = a;
	return 0;
}

static long find_hashed(const struct kcdata_node *d, const char *key, uint32_t h)
{
	if (d->tree) {
		const struct kc_key *k = find_key(d->tree, key, h);
		uint32_t i;

		if (k && kt_map_get(&d->tree->dict_index, d->dict_id, k->id, &i))
			return (long)i;
		return -1;
	}
	for (uint32_t i = 0; i < d->count; i++) {
		const char *k = d->v.entries[i].key;

		if (k == key || (key_of(k)->hash == h && !strcmp(k, key)))
			return (long)i;
	}
	return -1;
}

long kc_dict_find(const struct kcdata_node *d, const char *key)
{
	if (!d || kind_of(d) != KCDATA_NODE_DICT)
		return -1;
	return find_hashed(d, key, hash_key(key));
}

/* Room for more elements in a dictionary's entries or an array's items: a new arena
 * block twice as large, the old one abandoned. */
static int grow(struct kc_arena *a, struct kcdata_node *n, size_t elem, uint32_t more)
{
	uint32_t cap = n->cap ? n->cap : 4;
	void *p, **slot = kind_of(n) == KCDATA_NODE_DICT ? (void **)&n->v.entries
						      : (void **)&n->v.items;

	if (more > UINT32_MAX - n->count)
		return -ENOMEM;
	if (n->count + more <= n->cap)
		return 0;
	while (cap < n->count + more)
		cap = cap > UINT32_MAX / 2 ? n->count + more : cap * 2;
	p = kc_alloc(a, (size_t)cap * elem);
	if (!p)
		return -ENOMEM;
	if (n->count)
		memcpy(p, *slot, (size_t)n->count * elem);
	*slot = p;
	n->cap = cap;
	return 0;
}

int kc_dict_add(struct kc_arena *a, struct kcdata_node *d, const char *key,
		struct kcdata_node *val)
{
	const struct kc_key *k = intern(a, key);
	struct kc_entry *e;

	if (!k || grow(a, d, sizeof(struct kc_entry), 1))
		return -ENOMEM;
	e = &d->v.entries[d->count++];
	e->key = k->s;
	e->val = val;
	if (d->count < INDEX_FROM)
		return 0;
	if (d->tree) {
		if (!index_entry(a, d->dict_id, d, d->count - 1))
			return 0;
		d->tree = NULL;         /* lookups scan it from now on */
		return -ENOMEM;
	}
	if (a->ndicts == UINT32_MAX)
		return -ENOMEM;
	return index_dict(a, d, a->ndicts++);
}

void kc_dict_replace(struct kcdata_node *d, long i, struct kcdata_node *val)
{
	d->v.entries[i].val = val;
}

void kc_dict_remove(struct kc_arena *a, struct kcdata_node *d, const char *key)
{
	long i = kc_dict_find(d, key);

	if (i < 0)
		return;
	if (d->tree)            /* the entries after i move: index them again */
		for (uint32_t j = 0; j < d->count; j++)
			kt_map_del(&a->dict_index, d->dict_id, key_of(d->v.entries[j].key)->id);
	memmove(&d->v.entries[i], &d->v.entries[i + 1],
		(d->count - (uint32_t)i - 1) * sizeof(struct kc_entry));
	d->count--;
	if (d->tree && d->count >= INDEX_FROM)
		index_dict(a, d, d->dict_id);   /* on failure lookups scan */
	else
		d->tree = NULL;
}

int kc_array_push(struct kc_arena *a, struct kcdata_node *arr, struct kcdata_node *val)
{
	if (grow(a, arr, sizeof(*arr->v.items), 1))
		return -ENOMEM;
	arr->v.items[arr->count++] = val;
	return 0;
}

int kc_array_concat(struct kc_arena *a, struct kcdata_node *dst, struct kcdata_node *src)
{
	if (grow(a, dst, sizeof(*dst->v.items), src->count))
		return -ENOMEM;
	if (src->count)
		memcpy(dst->v.items + dst->count, src->v.items, src->count * sizeof(*src->v.items));
	dst->count += src->count;
	return 0;
}

/* ---- Public accessors ---- */

enum kcdata_node_kind kcdata_node_kind(const struct kcdata_node *n)
{
	return n ? (enum kcdata_node_kind)kind_of(n) : (enum kcdata_node_kind)0;
}

size_t kcdata_node_count(const struct kcdata_node *n)
{
	if (!n || (kind_of(n) != KCDATA_NODE_DICT && kind_of(n) != KCDATA_NODE_ARRAY))
		return 0;
	return n->count;
}

const struct kcdata_node *kcdata_node_at(const struct kcdata_node *n, size_t i)
{
	if (!n || i >= n->count)
		return NULL;
	if (kind_of(n) == KCDATA_NODE_DICT)
		return n->v.entries[i].val;
	if (kind_of(n) == KCDATA_NODE_ARRAY)
		return n->v.items[i];
	return NULL;
}

const char *kcdata_node_key(const struct kcdata_node *n, size_t i)
{
	if (!n || kind_of(n) != KCDATA_NODE_DICT || i >= n->count)
		return NULL;
	return n->v.entries[i].key;
}

const struct kcdata_node *kcdata_node_get(const struct kcdata_node *n, const char *key)
{
	long i = kc_dict_find(n, key);

	return i < 0 ? NULL : n->v.entries[i].val;
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
	return n && kind_of(n) == KCDATA_NODE_INT ? n->v.u : 0;
}

int64_t kcdata_node_int(const struct kcdata_node *n)
{
	return (int64_t)kcdata_node_uint(n);
}

bool kcdata_node_is_negative(const struct kcdata_node *n)
{
	return n && kind_of(n) == KCDATA_NODE_INT && n->negative;
}

const char *kcdata_node_string(const struct kcdata_node *n, size_t *len)
{
	if (!n || kind_of(n) != KCDATA_NODE_STRING) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = n->count;
	return n->v.str;
}
