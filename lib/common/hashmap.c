// SPDX-License-Identifier: MIT
/* The hash map and the string table (hashmap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/hashmap.h"

#define MAP_MAX_DEFAULT ((size_t)1 << 31)

uint64_t kt_hash_bytes(const void *s, size_t len)
{
	const unsigned char *p = s;
	uint64_t a = 0x9e3779b97f4a7c15ULL ^ len, b = 0x632be59bd9b4e019ULL, v, w;

	/* sixteen bytes at a time in two lanes, whose multiplies overlap (a record of 64
	 * bytes hashes in half the time of one lane) */
	for (; len >= 16; p += 16, len -= 16) {
		memcpy(&v, p, 8);
		memcpy(&w, p + 8, 8);
		a = (a ^ v) * 0xff51afd7ed558ccdULL;
		b = (b ^ w) * 0xc4ceb9fe1a85ec53ULL;
		a ^= a >> 29;
		b ^= b >> 29;
	}
	if (len >= 8) {
		memcpy(&v, p, 8);
		a = (a ^ v) * 0xff51afd7ed558ccdULL;
		a ^= a >> 29;
		p += 8;
		len -= 8;
	}
	if (len) {
		v = 0;
		memcpy(&v, p, len);
		b = (b ^ v) * 0xc4ceb9fe1a85ec53ULL;
		b ^= b >> 29;
	}
	return kt_hash_mix(a, b);
}

static inline size_t slot_of(uint64_t a, uint64_t b, size_t cap)
{
	return (size_t)kt_hash_mix(a, b) & (cap - 1);
}

/* New slots for at least want keys (at most half full), the keys moved over. */
static int map_resize(struct kt_map *m, size_t want)
{
	struct kt_map_slot *slots = NULL;
	size_t cap = 0;

	if (want > SIZE_MAX / 2 || kt_grow((void **)&slots, &cap, want * 2, sizeof(*slots)))
		return -ENOMEM;
	memset(slots, 0, cap * sizeof(*slots));
	for (size_t i = 0; i < m->cap; i++) {
		size_t s;

		if (!m->slots[i].used)
			continue;
		s = slot_of(m->slots[i].a, m->slots[i].b, cap);
		while (slots[s].used)
			s = (s + 1) & (cap - 1);
		slots[s] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int kt_map_reserve(struct kt_map *m, size_t n)
{
	if (n > (m->max ? m->max : MAP_MAX_DEFAULT))
		return -E2BIG;
	if (n * 2 <= m->cap)
		return 0;
	return map_resize(m, n);
}

/* Room for one more key. */
static int map_room(struct kt_map *m)
{
	if (m->n >= (m->max ? m->max : MAP_MAX_DEFAULT))
		return -E2BIG;
	if ((m->n + 1) * 2 <= m->cap)
		return 0;
	return map_resize(m, m->cap ? m->cap : 8);
}

int kt_map_put(struct kt_map *m, uint64_t a, uint64_t b, uint32_t val)
{
	size_t s;
	int ret;

	if (m->cap)
		for (s = slot_of(a, b, m->cap); m->slots[s].used; s = (s + 1) & (m->cap - 1))
			if (m->slots[s].a == a && m->slots[s].b == b) {
				m->slots[s].val = val;
				return 0;
			}
	ret = map_room(m);
	if (ret)
		return ret;
	for (s = slot_of(a, b, m->cap); m->slots[s].used; s = (s + 1) & (m->cap - 1))
		;
	m->slots[s] = (struct kt_map_slot){ a, b, val, 1 };
	m->n++;
	return 0;
}

bool kt_map_del(struct kt_map *m, uint64_t a, uint64_t b)
{
	size_t s, mask = m->cap - 1;

	if (!m->cap)
		return false;
	for (s = slot_of(a, b, m->cap); m->slots[s].used; s = (s + 1) & mask)
		if (m->slots[s].a == a && m->slots[s].b == b)
			break;
	if (!m->slots[s].used)
		return false;
	/* backward shift: later keys of the run move into the hole when their home slot
	 * is not between the hole and them */
	for (size_t j = (s + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
		size_t home = slot_of(m->slots[j].a, m->slots[j].b, m->cap);

		if (((j - home) & mask) >= ((j - s) & mask)) {
			m->slots[s] = m->slots[j];
			s = j;
		}
	}
	m->slots[s].used = 0;
	m->n--;
	return true;
}

bool kt_map_find(const struct kt_map *m, uint64_t hash, kt_map_eq *eq, const void *ctx,
		 uint32_t *val)
{
	size_t s;

	if (!m->cap)
		return false;
	for (s = slot_of(hash, 0, m->cap); m->slots[s].used; s = (s + 1) & (m->cap - 1))
		if (m->slots[s].a == hash && eq(ctx, m->slots[s].val)) {
			*val = m->slots[s].val;
			return true;
		}
	return false;
}

int kt_map_add(struct kt_map *m, uint64_t hash, uint32_t val)
{
	size_t s;
	int ret = map_room(m);

	if (ret)
		return ret;
	for (s = slot_of(hash, 0, m->cap); m->slots[s].used; s = (s + 1) & (m->cap - 1))
		;
	m->slots[s] = (struct kt_map_slot){ hash, 0, val, 1 };
	m->n++;
	return 0;
}

void kt_map_free(struct kt_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

/* ---- interned strings ---- */

struct str_key {
	const struct kt_strtab *t;
	const char *s;
	size_t len;
};

static bool str_eq(const void *ctx, uint32_t id)
{
	const struct str_key *k = ctx;
	const struct kt_str *e = &k->t->strs[id];

	return e->len == k->len && !memcmp(e->s, k->s, k->len);
}

bool kt_strtab_find(const struct kt_strtab *t, const char *s, size_t len, uint32_t *id)
{
	struct str_key k = { t, s, len };

	return kt_map_find(&t->index, kt_hash_bytes(s, len), str_eq, &k, id);
}

int kt_strtab_id(struct kt_strtab *t, const char *s, size_t len, uint32_t *id)
{
	uint64_t h = kt_hash_bytes(s, len);
	struct str_key k = { t, s, len };
	char *d;
	int ret;

	if (kt_map_find(&t->index, h, str_eq, &k, id))
		return 0;
	if (t->n >= UINT32_MAX ||
	    kt_grow((void **)&t->strs, &t->cap, t->n + 1, sizeof(*t->strs)))
		return -ENOMEM;
	/* the copy first: a number in the map always has its string (a copy the map
	 * could not take stays unused in the arena until the table is freed) */
	d = kt_arena_strdup(&t->arena, s, len);
	if (!d)
		return -ENOMEM;
	ret = kt_map_add(&t->index, h, (uint32_t)t->n);
	if (ret)
		return ret;
	t->strs[t->n] = (struct kt_str){ d, len };
	*id = (uint32_t)t->n++;
	return 0;
}

const char *kt_intern(struct kt_strtab *t, const char *s, size_t len)
{
	uint32_t id;

	return kt_strtab_id(t, s, len, &id) ? NULL : t->strs[id].s;
}

void kt_strtab_free(struct kt_strtab *t)
{
	kt_map_free(&t->index);
	kt_arena_free(&t->arena);
	free(t->strs);
	t->strs = NULL;
	t->n = t->cap = 0;
}
