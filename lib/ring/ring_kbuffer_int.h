/* SPDX-License-Identifier: MIT */
/* What the ring component shares inside itself of kbuffer (ring_kbuffer.c). */
#ifndef KTRACE_RING_KBUFFER_INT_H
#define KTRACE_RING_KBUFFER_INT_H

#include <stdalign.h>
#include <stddef.h>

#include <ktrace/kbuffer.h>

/* Room for a struct kbuffer that needs no allocation (checked in ring_kbuffer.c). */
struct kt_kbuffer_mem {
	alignas(max_align_t) unsigned char b[128];
};

#pragma GCC visibility push(hidden)
/* kbuffer_alloc's buffer made in mem (nothing to free): NULL for a size or byte order
 * kbuffer_alloc refuses. */
struct kbuffer *kt_kbuffer_init(struct kt_kbuffer_mem *mem, enum kbuffer_long_size size,
				enum kbuffer_endian endian);
#pragma GCC visibility pop

#endif
