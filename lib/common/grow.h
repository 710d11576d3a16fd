/* SPDX-License-Identifier: MIT */
/* Growable buffers: the one doubling rule every component uses. */
#ifndef KTRACE_COMMON_GROW_H
#define KTRACE_COMMON_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Makes buf (of *cap bytes) hold at least need bytes: the capacity doubles from
 * `initial` (or from *cap) until it fits. Returns the buffer to use from now on, or
 * NULL when memory runs out or the size would overflow; then buf and *cap are
 * unchanged and still valid.
 */
static inline void *kt_grow(void *buf, size_t *cap, size_t need, size_t initial)
{
	size_t c = *cap ? *cap : (initial ? initial : 16);
	void *p;

	if (need <= *cap)
		return buf;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return NULL;
		c *= 2;
	}
	p = realloc(buf, c);
	if (p)
		*cap = c;
	return p;
}

#endif
