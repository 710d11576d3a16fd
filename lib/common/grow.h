/* SPDX-License-Identifier: MIT */
/* Growable arrays: the one doubling rule every component uses, and overflow-checked
 * realloc for arrays sized exactly. */
#ifndef KTRACE_COMMON_GROW_H
#define KTRACE_COMMON_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Makes the array *arr, of *cap elements of elem bytes each, hold at least need
 * elements: the capacity doubles (from *cap, or 16) until it fits. Returns 0, or
 * -ENOMEM when memory runs out or the size in bytes would overflow; then *arr and *cap
 * are unchanged and still valid. Call it as kt_grow((void **)&p, &cap, n, sizeof(*p)).
 */
static inline int kt_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (elem && c > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, c * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

/*
 * realloc of *arr to n elements of elem bytes, NULL when n * elem overflows (as
 * reallocarray): for arrays sized exactly, and for byte buffers (elem 1) whose size the
 * caller computes. Like realloc, the old block stays valid when it returns NULL.
 */
static inline void *kt_realloc_array(void *arr, size_t n, size_t elem)
{
	if (elem && n > SIZE_MAX / elem)
		return NULL;
	return realloc(arr, n * elem);
}

#endif
