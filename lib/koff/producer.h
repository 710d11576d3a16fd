/* SPDX-License-Identifier: MIT */
/* The producer's view of an open buffer (buffer.c opens it, log.c writes records). */
#ifndef KTRACE_KOFF_PRODUCER_H
#define KTRACE_KOFF_PRODUCER_H

#include <pthread.h>
#include <stdatomic.h>

#include "koff/internal.h"

struct koff_buffer {
	char *path;
	int fd;
	uint64_t ident;             /* process-unique, keys call-site caches */
	uint8_t *hdr;               /* header page, mapped for the buffer's lifetime */
	uint8_t *full;              /* the whole file once allocated (NULL while reserved) */
	size_t full_len;
	_Atomic(struct koff_rec *) ring;   /* published once allocated */
	/* Local copies of the geometry, checked when the file was mapped: nothing below is
	 * ever re-read from the shared file. */
	uint64_t nentries, slot_mask;
	uint8_t *strtab;
	uint64_t strtab_size;
	_Atomic(uint32_t) *hash;
	uint32_t hash_slots;
	pthread_mutex_t lock;       /* serialises remapping */
	int anchor_slot;            /* -1 when not registered */
	int is_default;
};

static inline _Atomic(uint64_t) *koff_h64(const struct koff_buffer *b, unsigned off)
{
	return (_Atomic(uint64_t) *)(void *)(b->hdr + off);
}

static inline _Atomic(uint32_t) *koff_h32(const struct koff_buffer *b, unsigned off)
{
	return (_Atomic(uint32_t) *)(void *)(b->hdr + off);
}

/* Maps the allocated buffer if it became allocated since; returns the ring or NULL. */
struct koff_rec *koff_buffer_ring(struct koff_buffer *b);

/* Writes one record (log.c). Returns 0, -EAGAIN (not allocated) or -EBUSY (dropped). */
int koff_write_record(struct koff_buffer *b, uint64_t tid, uint64_t ns, uint64_t id,
		      uint64_t fmt, uint32_t str, uint32_t flags, const uint64_t args[5]);
/* Offset of the string in the buffer's string table, adding it if needed; 0 when the
 * buffer has no table or it is full. */
uint32_t koff_intern(struct koff_buffer *b, const char *s, size_t len);

uint32_t koff_self_pid(void);
uint64_t koff_self_tid(void);

#endif
