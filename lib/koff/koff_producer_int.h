/* SPDX-License-Identifier: MIT */
/* The producer's view of an open buffer (buffer.c opens it, log.c writes records). */
#ifndef KTRACE_KOFF_PRODUCER_H
#define KTRACE_KOFF_PRODUCER_H

#include <pthread.h>
#include <stdatomic.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "koff/koff_int.h"

/* Library-internal: not exported from libktrace.so. */
#pragma GCC visibility push(hidden)

struct koff_buffer {
	char *path;
	int fd;
	uint64_t ident;             /* process-unique, keys call-site caches */
	uint8_t *hdr;               /* header page, mapped for the buffer's lifetime */
	uint8_t *full;              /* the whole file once allocated (NULL while reserved) */
	size_t full_len;
	_Atomic(struct koff_rec *) ring;   /* published once allocated */
	struct koff_buffer *next_open;     /* registry of open buffers */
	/* Local copies of the geometry, checked when the file was mapped: nothing below is
	 * ever re-read from the shared file. */
	uint64_t nentries, slot_mask;
	uint32_t group, max_age, lap_shift;
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

/* A group of slots a thread is filling (log.c). */
struct koff_group {
	uint64_t ident;             /* buffer the group belongs to, 0 none */
	uint64_t next, end;         /* next number to write, end of the group */
	uint64_t first;             /* the group's first number */
};

#define KOFF_THREAD_GROUPS 4    /* buffers a thread writes into without giving groups up */

/*
 * What a producing thread keeps for itself, in one place (initial-exec TLS: no call to
 * look it up, also in libktrace.so): its id, its clock anchor, the last time stamp it
 * gave, and the groups it is filling, the one of the buffer it wrote last first.
 */
struct koff_thread {
	uint64_t tid;               /* 0 until known; reset in a forked child */
	uint64_t anchor_tsc, anchor_ns;
	uint64_t last_ns;           /* time stamps of a thread never go back */
	struct koff_group g[KOFF_THREAD_GROUPS];
	int exit_hook;              /* the thread-exit release is registered */
};
extern __thread struct koff_thread koff__self __attribute__((tls_model("initial-exec")));

/* The process id, cached (reset in a forked child). */
extern uint32_t koff__pid_cache;
uint32_t koff_self_pid_slow(void);
uint64_t koff_self_tid_slow(void);

static inline uint32_t koff_self_pid(void)
{
	return __builtin_expect(koff__pid_cache != 0, 1) ? koff__pid_cache : koff_self_pid_slow();
}

static inline uint64_t koff_self_tid(void)
{
	return __builtin_expect(koff__self.tid != 0, 1) ? koff__self.tid : koff_self_tid_slow();
}

/* Gives back the calling thread's group in b, if it holds one (koff_close). */
void koff_release_group(struct koff_buffer *b);
/* The open buffer with this identity, or NULL; call with koff_registry_lock held. */
extern pthread_mutex_t koff_registry_lock;
struct koff_buffer *koff_registry_find(uint64_t ident);

/* Record time stamps (clock.c): the TSC extrapolated from a per-thread anchor where
 * the kernel keeps time with it, else clock_gettime. */
#if defined(__x86_64__)
#define HAVE_TSC 1
extern _Atomic int koff__tsc_state;
extern _Atomic uint64_t koff__tsc_mult, koff__tsc_limit;
#endif
uint64_t koff_stamp_ns(void);

static inline uint64_t koff_stamp_fast(void)
{
#ifdef HAVE_TSC
	if (__builtin_expect(atomic_load_explicit(&koff__tsc_state, memory_order_relaxed) > 0, 1)) {
		uint64_t d = __rdtsc() - koff__self.anchor_tsc;

		if (__builtin_expect(d < atomic_load_explicit(&koff__tsc_limit,
							      memory_order_relaxed), 1))
			return koff__self.anchor_ns +
			       (uint64_t)(((unsigned __int128)d *
					   atomic_load_explicit(&koff__tsc_mult,
								memory_order_relaxed)) >> 32);
	}
#endif
	return koff_stamp_ns();
}

/* The default buffer once open. */
extern _Atomic(struct koff_buffer *) koff__default_buffer;

#pragma GCC visibility pop

#endif
