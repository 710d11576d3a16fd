// SPDX-License-Identifier: MIT
/* The arena (arena.h). */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/bigmem.h"

struct kt_arena_block {
	struct kt_arena_block *next;
	size_t used, size;
	alignas(16) unsigned char data[];
};

void *kt_arena_alloc(struct kt_arena *a, size_t size, size_t align)
{
	struct kt_arena_block *b = a->head;
	size_t first = a->first ? a->first : 4096, most = a->most ? a->most : 64 * 1024;
	size_t at = 0;

	if (!size)
		size = 1;
	if (b) {
		at = (b->used + align - 1) & ~(align - 1);
		if (at > b->size)
			at = b->size;
	}
	if (!b || b->size - at < size) {
		size_t want;

		if (size > SIZE_MAX - sizeof(*b) - 16)
			return NULL;
		if (b && size > most / 4) {
			/* a big object: a block of its own, behind the one being filled */
			struct kt_arena_block *big = malloc(sizeof(*big) + size);

			if (!big)
				return NULL;
			big->size = big->used = size;
			big->next = b->next;
			b->next = big;
			a->total += size;
			return big->data;
		}
		want = b ? (b->size * 2 > most ? most : b->size * 2) : first;
		if (want < first)
			want = first;
		if (want < size)
			want = size;
		b = malloc(sizeof(*b) + want);
		if (!b)
			return NULL;
		if (a->populate && want == most)
			kt_populate(b, sizeof(*b) + want);
		b->size = want;
		b->next = a->head;
		a->head = b;
		a->total += want;
		at = 0;
	}
	b->used = at + size;
	return b->data + at;
}

void *kt_arena_zalloc(struct kt_arena *a, size_t size, size_t align)
{
	void *p = kt_arena_alloc(a, size, align);

	if (p)
		memset(p, 0, size);
	return p;
}

char *kt_arena_strdup(struct kt_arena *a, const char *s, size_t len)
{
	char *p = len < SIZE_MAX ? kt_arena_alloc(a, len + 1, 1) : NULL;

	if (p) {
		memcpy(p, s, len);
		p[len] = 0;
	}
	return p;
}

void kt_arena_free(struct kt_arena *a)
{
	while (a->head) {
		struct kt_arena_block *b = a->head;

		a->head = b->next;
		free(b);
	}
	a->total = 0;
}
