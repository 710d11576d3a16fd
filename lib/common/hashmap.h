/* SPDX-License-Identifier: MIT */
/*
 * The hash map every component uses, and the string table (interning) built on it.
 *
 * struct kt_map maps a key of two 64-bit words (an integer key is (key, 0)) to a 32-bit
 * value, usually the index of an entry in the caller's own array: that array keeps the
 * insertion order, so nothing that is written out depends on the order of the slots.
 * Open addressing with linear probing; the slots double (through common/grow.h) when
 * half full; lookups allocate nothing. A map holds at most m->max keys (0: 2^31):
 * a put past that fails with -E2BIG, an allocation that fails with -ENOMEM, and in
 * both cases the map is left as it was.
 *
 * Keys too wide for two words (strings, byte strings, tuples) go in by their hash with
 * kt_map_add and are found with kt_map_find, which asks the caller whether an entry with
 * that hash is the one looked for. Do not mix the two ways in one map.
 *
 * The zeroed struct is an empty map.
 */
#ifndef KTRACE_COMMON_HASHMAP_H
#define KTRACE_COMMON_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"

struct kt_map_slot {
	uint64_t a, b;
	uint32_t val;
	uint32_t used;
};

struct kt_map {
	struct kt_map_slot *slots;
	size_t cap;             /* slots: 0 or a power of two */
	size_t n;               /* keys */
	size_t max;             /* most keys (0: 2^31) */
};

/* A 64-bit hash of s[0..len). */
uint64_t kt_hash_bytes(const void *s, size_t len);

/* A 64-bit mix of two words (for keys made of several fields). */
static inline uint64_t kt_hash_mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ h >> 29;
}

/* The value of key (a, b): true and *val, or false. (Inline: records look their
 * types up with it.) */
static inline bool kt_map_get(const struct kt_map *m, uint64_t a, uint64_t b, uint32_t *val)
{
	size_t s, mask = m->cap - 1;

	if (!m->cap)
		return false;
	for (s = (size_t)kt_hash_mix(a, b) & mask; m->slots[s].used; s = (s + 1) & mask)
		if (m->slots[s].a == a && m->slots[s].b == b) {
			*val = m->slots[s].val;
			return true;
		}
	return false;
}
/* Sets key (a, b) to val (added or replaced): 0, -ENOMEM or -E2BIG. */
int kt_map_put(struct kt_map *m, uint64_t a, uint64_t b, uint32_t val);
/* Removes key (a, b): true when it was there. */
bool kt_map_del(struct kt_map *m, uint64_t a, uint64_t b);

/* Whether the entry with value val is the key the caller looks for. */
typedef bool kt_map_eq(const void *ctx, uint32_t val);
/* The first value stored under hash for which eq(ctx, value) is true: true and *val. */
bool kt_map_find(const struct kt_map *m, uint64_t hash, kt_map_eq *eq, const void *ctx,
		 uint32_t *val);
/* Adds val under hash (another entry may have the same hash): 0, -ENOMEM or -E2BIG. */
int kt_map_add(struct kt_map *m, uint64_t hash, uint32_t val);

/* Makes room for n keys without growing again: 0, -ENOMEM or -E2BIG. */
int kt_map_reserve(struct kt_map *m, size_t n);
/* Frees the slots; the map is empty (keeping max) after. */
void kt_map_free(struct kt_map *m);

/*
 * Interned strings: one copy of each distinct string, numbered from 0 in the order they
 * came, stable (pointer and number) until kt_strtab_free. The strings live in the
 * table's arena; they may hold NUL bytes (the length decides). The zeroed struct is an
 * empty table.
 */
struct kt_str {
	const char *s;          /* NUL-terminated copy */
	size_t len;
};

struct kt_strtab {
	struct kt_map index;    /* hash of a string -> its number */
	struct kt_arena arena;
	struct kt_str *strs;    /* by number */
	size_t n, cap;
};

/* The number of s[0..len), added if new: 0, -ENOMEM or -E2BIG. */
int kt_strtab_id(struct kt_strtab *t, const char *s, size_t len, uint32_t *id);
/* The table's copy of s[0..len), added if new; NULL when out of memory. */
const char *kt_intern(struct kt_strtab *t, const char *s, size_t len);
/* The number of s if the table has it: true and *id. */
bool kt_strtab_find(const struct kt_strtab *t, const char *s, size_t len, uint32_t *id);
void kt_strtab_free(struct kt_strtab *t);

#endif
