/* SPDX-License-Identifier: MIT */
/*
 * The arena: objects and strings carved out of blocks that are freed all at once. Blocks
 * grow from `first` bytes, doubling up to `most`; an object larger than a quarter of
 * `most` gets a block of its own (and the current block keeps filling). Memory is
 * bounded by what the caller puts in, never by a guess.
 */
#ifndef KTRACE_COMMON_ARENA_H
#define KTRACE_COMMON_ARENA_H

#include <stdbool.h>
#include <stddef.h>

struct kt_arena_block;

struct kt_arena {
	struct kt_arena_block *head;    /* the block being filled, then older ones */
	size_t first, most;             /* block sizes (0: 4 KiB and 64 KiB) */
	size_t total;                   /* bytes of every block */
	bool populate;                  /* make full-size blocks resident at once */
};

/* An arena with these block sizes (the zeroed struct is an arena with the defaults). */
static inline void kt_arena_init(struct kt_arena *a, size_t first, size_t most)
{
	*a = (struct kt_arena){ .first = first, .most = most };
}

/* size bytes aligned to align (a power of two, at most 16), not zeroed; NULL when out of
 * memory. A size of 0 gives a valid pointer too. */
void *kt_arena_alloc(struct kt_arena *a, size_t size, size_t align);
/* The same, zeroed. */
void *kt_arena_zalloc(struct kt_arena *a, size_t size, size_t align);
/* A NUL-terminated copy of s[0..len); NULL when out of memory. */
char *kt_arena_strdup(struct kt_arena *a, const char *s, size_t len);
/* Frees every block; the arena is empty (with the same block sizes) after. */
void kt_arena_free(struct kt_arena *a);

#endif
