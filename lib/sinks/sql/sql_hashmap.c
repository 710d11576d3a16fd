// SPDX-License-Identifier: MIT
/*
 * The registries' hash map (two 64-bit words to a 32-bit value, open addressing) and
 * the pool of interned strings built on it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sinks/sql/sql_int.h"

static size_t slot_of(uint64_t a, uint64_t b, size_t cap)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return (size_t)h & (cap - 1);
}

bool sql_map_get(const struct sql_map *m, uint64_t a, uint64_t b, uint32_t *v)
{
	size_t s;

	if (!m->cap)
		return false;
	s = slot_of(a, b, m->cap);
	while (m->slots[s].used) {
		if (m->slots[s].a == a && m->slots[s].b == b) {
			*v = m->slots[s].v;
			return true;
		}
		s = (s + 1) & (m->cap - 1);
	}
	return false;
}

static int map_grow(struct sql_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct sql_map_slot *n;

	if (cap > SIZE_MAX / sizeof(*n) / 2)
		return -ENOMEM;
	n = calloc(cap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		size_t s;

		if (!m->slots[i].used)
			continue;
		s = slot_of(m->slots[i].a, m->slots[i].b, cap);
		while (n[s].used)
			s = (s + 1) & (cap - 1);
		n[s] = m->slots[i];
	}
	free(m->slots);
	m->slots = n;
	m->cap = cap;
	return 0;
}

int sql_map_put(struct sql_map *m, uint64_t a, uint64_t b, uint32_t v)
{
	size_t s;

	if ((m->n + 1) * 4 > m->cap * 3 && map_grow(m))
		return -ENOMEM;
	s = slot_of(a, b, m->cap);
	while (m->slots[s].used) {
		if (m->slots[s].a == a && m->slots[s].b == b) {
			m->slots[s].v = v;
			return 0;
		}
		s = (s + 1) & (m->cap - 1);
	}
	m->slots[s] = (struct sql_map_slot){ a, b, v, true };
	m->n++;
	return 0;
}

void sql_map_free(struct sql_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* ---- interned strings ---- */

struct strblock {
	struct strblock *next;
	size_t used, cap;
	char data[];
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (uint8_t)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static char *pool_copy(struct sql_strpool *p, const char *s, size_t len)
{
	struct strblock *b = p->blocks;
	char *d;

	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > 8192 ? len + 1 : 8192;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = p->blocks;
		p->blocks = b;
	}
	d = b->data + b->used;
	memcpy(d, s, len);
	d[len] = 0;
	b->used += len + 1;
	return d;
}

/* Strings are keyed by (hash, probe number): equal hashes of different strings take
 * the next probe numbers. */
const char *sql_intern(struct sql_strpool *p, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len);
	uint32_t v;
	char *d;

	for (uint64_t probe = 0;; probe++) {
		if (!sql_map_get(&p->index, h, probe, &v))
			break;
		if (!strncmp(p->strs[v], s, len) && !p->strs[v][len])
			return p->strs[v];
	}
	if (kt_grow((void **)&p->strs, &p->cap, p->n + 1, sizeof(*p->strs)))
		return NULL;
	d = pool_copy(p, s, len);
	if (!d)
		return NULL;
	for (uint64_t probe = 0;; probe++) {
		if (!sql_map_get(&p->index, h, probe, &v)) {
			if (sql_map_put(&p->index, h, probe, (uint32_t)p->n))
				return NULL;
			break;
		}
	}
	p->strs[p->n++] = d;
	return d;
}

void sql_strpool_free(struct sql_strpool *p)
{
	while (p->blocks) {
		struct strblock *b = p->blocks;

		p->blocks = b->next;
		free(b);
	}
	free(p->strs);
	sql_map_free(&p->index);
	memset(p, 0, sizeof(*p));
}
