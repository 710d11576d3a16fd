// SPDX-License-Identifier: MIT
/*
 * KOFF producer: writing records and interning format strings. Lock-free and safe
 * for many threads in several processes sharing one buffer.
 *
 * A record is claimed with one atomic operation: the writer reads the head word as a
 * hint for the next sequence number s and compare-and-swaps the stamp of slot
 * s & (nentries - 1) from a ready value v <= s to BUSY | s. Only one writer can win a
 * slot; a writer that loses, or finds the slot taken for s already (v > s) or still
 * held by a writer from a lap of the ring earlier, tries the next number. It then
 * moves the head hint past s, fills the record, counts it in the slot's publication
 * count (it owns the slot, so a plain store does), and publishes it by storing
 * s + nentries into the stamp (release). Numbers nobody claimed are holes the dumper
 * skips; the number of records logged is the sum of the publication counts.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "koff/fmt.h"
#include "koff/producer.h"

/* Per thread: the buffer last written and the number after the one claimed there, so
 * that a thread's records never go back in sequence even when the head hint does. */
static __thread __attribute__((tls_model("initial-exec"))) uint64_t last_ident, last_next;

/* Does the stamp w show the slot taken for number n or a later one? */
static inline bool taken_from(uint64_t w, uint64_t n, uint64_t nentries)
{
	if (w & KOFF_STAMP_BUSY)
		return (w & ~KOFF_STAMP_BUSY) >= n;
	return w >= n + nentries;
}

static inline __attribute__((always_inline)) int
write_record(struct koff_buffer *b, struct koff_rec *ring, uint64_t tid, uint64_t ns,
	     uint64_t id, uint64_t fmt, uint32_t str, uint32_t flags, const uint64_t args[5])
{
	_Atomic(uint64_t) *head = koff_h64(b, KOFF_H_HEAD), *stamp;
	uint64_t s = atomic_load_explicit(head, memory_order_relaxed), v, count, step = 2;
	struct koff_rec *r;
	unsigned tries = 0;

	/* Right after this thread's own last record (the usual case of a thread logging
	 * alone), s is where the ring is being filled; otherwise check it below. */
	bool own = last_ident == b->ident && s <= last_next;

	if (__builtin_expect(own, 1))
		s = last_next;
	for (;;) {
		r = &ring[s & b->slot_mask];
		stamp = (_Atomic(uint64_t) *)&r->stamp;
		v = atomic_load_explicit(stamp, memory_order_relaxed);
		if (__builtin_expect(!(v & KOFF_STAMP_BUSY) && v <= s, 1)) {
			/* Free. Unless the next number is taken already: then s is a
			 * number left behind (a hole, or a stale hint) and is left alone,
			 * so that records keep the order they were claimed in. */
			uint64_t w = own ? 0 : atomic_load_explicit(
				(_Atomic(uint64_t) *)&ring[(s + 1) & b->slot_mask].stamp,
				memory_order_relaxed);

			if (__builtin_expect(own || !taken_from(w, s + 1, b->nentries), 1)) {
				if (__builtin_expect(atomic_compare_exchange_strong_explicit(
						stamp, &v, KOFF_STAMP_BUSY | s, memory_order_relaxed,
						memory_order_relaxed), 1))
					break;
				if (!(v & KOFF_STAMP_BUSY) && v <= s)
					continue;       /* changed under us, still free: again */
			} else {
				v = s;                  /* go on past s */
			}
		}
		/*
		 * Taken (the slot shows s or a later number, published or being
		 * written), or held by a writer a lap behind: try further on. The
		 * head word is not moved atomically, so a writer preempted at the
		 * wrong moment can set it back: after a few numbers in a row found
		 * taken, the steps double, so that a stale hint is caught up with in
		 * a few tries (numbers jumped over that nobody takes are holes the
		 * dumper skips).
		 */
		if (__builtin_expect(++tries >= KOFF_CLAIM_TRIES, 0)) {
			atomic_fetch_add_explicit(koff_h64(b, KOFF_H_DROPPED), 1,
						  memory_order_relaxed);
			return -EBUSY;
		}
		if (v == s)
			;                               /* left behind: past it */
		else if (v & KOFF_STAMP_BUSY)
			v &= ~KOFF_STAMP_BUSY;          /* the number being written */
		else
			v -= b->nentries;               /* the number published there */
		if (v >= s) {
			uint64_t jump = s + (tries > 4 ? step : 1);

			if (tries > 4 && step < b->nentries)
				step <<= 1;
			v = v + 1 > jump ? v + 1 : jump;
		} else {
			v = s + 1;
		}
		s = atomic_load_explicit(head, memory_order_relaxed);
		s = s > v ? s : v;
		own = false;
	}
	last_ident = b->ident;
	last_next = s + 1;
	if (atomic_load_explicit(head, memory_order_relaxed) <= s)
		atomic_store_explicit(head, s + 1, memory_order_relaxed);
	__builtin_prefetch(&ring[(s + 4) & b->slot_mask], 1, 3);
	__builtin_prefetch(&ring[(s + 4) & b->slot_mask].args[4], 1, 3);
	/* Readers that see any of the stores below see the busy stamp too. */
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->ns, ns, memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->tid, tid, memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->id, id, memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->fmt, fmt, memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->args[0], args[0], memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->args[1], args[1], memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->args[2], args[2], memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->args[3], args[3], memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->args[4], args[4], memory_order_relaxed);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* str and pid as one 64-bit store */
	atomic_store_explicit((_Atomic(uint64_t) *)&r->str,
			      (uint64_t)str | (uint64_t)koff_self_pid() << 32, memory_order_relaxed);
#else
	atomic_store_explicit((_Atomic(uint32_t) *)&r->str, str, memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint32_t) *)&r->pid, koff_self_pid(), memory_order_relaxed);
#endif
	atomic_store_explicit((_Atomic(uint32_t) *)&r->flags, flags, memory_order_relaxed);
	count = atomic_load_explicit((_Atomic(uint64_t) *)&r->count, memory_order_relaxed);
	atomic_store_explicit((_Atomic(uint64_t) *)&r->count, count + 1, memory_order_relaxed);
	atomic_store_explicit(stamp, s + b->nentries, memory_order_release);
	return 0;
}

int koff_write_record(struct koff_buffer *b, uint64_t tid, uint64_t ns, uint64_t id,
		      uint64_t fmt, uint32_t str, uint32_t flags, const uint64_t args[5])
{
	struct koff_rec *ring = atomic_load_explicit(&b->ring, memory_order_acquire);

	if (__builtin_expect(!ring, 0)) {
		ring = koff_buffer_ring(b);
		if (!ring)
			return -EAGAIN;
	}
	return write_record(b, ring, tid, ns, id, fmt, str, flags, args);
}

/* ---- string table ---------------------------------------------------------------- */

/* Does the entry at off hold s? Checks the offset first: the table is shared with
 * other processes and is never trusted. */
static bool entry_is(const struct koff_buffer *b, uint32_t off, uint32_t hash, const char *s,
		     size_t len)
{
	uint32_t elen, ehash;

	if (off < 8 || (off & 7) || (uint64_t)off + 8 + len + 1 > b->strtab_size)
		return false;
	memcpy(&elen, b->strtab + off, 4);
	memcpy(&ehash, b->strtab + off + 4, 4);
	return elen == len && ehash == hash && !memcmp(b->strtab + off + 8, s, len) &&
	       b->strtab[off + 8 + len] == '\0';
}

static uint32_t entry_new(struct koff_buffer *b, uint32_t hash, const char *s, size_t len)
{
	uint64_t size = (8 + len + 1 + 7) & ~7ULL;
	uint64_t off = atomic_fetch_add(koff_h64(b, KOFF_H_STRTAB_USED), size);
	uint32_t l32 = (uint32_t)len;

	if (off < 8 || off > b->strtab_size || size > b->strtab_size - off) {
		atomic_fetch_add(koff_h64(b, KOFF_H_STRTAB_FULL), 1);
		return 0;
	}
	memcpy(b->strtab + off, &l32, 4);
	memcpy(b->strtab + off + 4, &hash, 4);
	memcpy(b->strtab + off + 8, s, len);
	b->strtab[off + 8 + len] = '\0';
	atomic_thread_fence(memory_order_release);
	return (uint32_t)off;
}

uint32_t koff_intern(struct koff_buffer *b, const char *s, size_t len)
{
	uint32_t hash, fresh = 0;

	if (!koff_buffer_ring(b) || !b->strtab || len >= KOFF_MAX_STRING)
		return 0;
	hash = koff_hash_str(s, (uint32_t)len);
	if (!b->hash_slots)
		return entry_new(b, hash, s, len);
	for (uint32_t probe = 0; probe < b->hash_slots; probe++) {
		_Atomic(uint32_t) *slot = &b->hash[(hash + probe) & (b->hash_slots - 1)];
		uint32_t off = atomic_load_explicit(slot, memory_order_acquire);

		if (!off) {
			if (!fresh)
				fresh = entry_new(b, hash, s, len);
			if (!fresh)
				return 0;
			if (atomic_compare_exchange_strong_explicit(slot, &off, fresh,
								    memory_order_release,
								    memory_order_acquire))
				return fresh;
			/* Someone filled this slot meanwhile: off is theirs. */
		}
		if (entry_is(b, off, hash, s, len))
			return off;
	}
	/* Index full: the entry (if any) still serves this record. */
	return fresh ? fresh : entry_new(b, hash, s, len);
}

/* ---- KOFF_TRACE and the raw call --------------------------------------------------- */

/* First use of a call site: is its format usable? */
static __attribute__((noinline)) int site_check_slow(struct koff_site *site)
{
	struct koff_fmt f;
	size_t len = site->fmt ? strnlen(site->fmt, KOFF_MAX_STRING) : KOFF_MAX_STRING;
	int state = len < KOFF_MAX_STRING && !koff_fmt_parse(site->fmt, len, &f) &&
			    (uint32_t)f.nwords <= site->nargs ? 1 : -1;

	atomic_store_explicit(&site->state, state, memory_order_release);
	return state;
}

/* First use of a call site with this buffer: its format's string-table offset. */
static __attribute__((noinline)) uint32_t site_str_slow(struct koff_buffer *b,
							 struct koff_site *site)
{
	uint32_t str = koff_intern(b, site->fmt, strlen(site->fmt));

	/* Not cached while the buffer is not allocated: retried on the next call. */
	if (str || (b->strtab == NULL && atomic_load(&b->ring))) {
		atomic_store_explicit(&site->str, str, memory_order_relaxed);
		atomic_store_explicit(&site->owner, b->ident, memory_order_release);
	}
	return str;
}

static inline __attribute__((always_inline)) void
trace_into(struct koff_buffer *b, struct koff_site *site, uint64_t id, const uint64_t args[5])
{
	struct koff_rec *ring = atomic_load_explicit(&b->ring, memory_order_acquire);
	int state = atomic_load_explicit(&site->state, memory_order_acquire);
	uint32_t str;

	if (__builtin_expect(state <= 0, 0)) {
		if (state == 0)
			state = site_check_slow(site);
		if (state < 0) {
			atomic_fetch_add_explicit(koff_h64(b, KOFF_H_REJECTED), 1,
						  memory_order_relaxed);
			return;
		}
	}
	if (__builtin_expect(!ring, 0)) {
		ring = koff_buffer_ring(b);
		if (!ring)
			return;
	}
	if (__builtin_expect(atomic_load_explicit(&site->owner, memory_order_acquire) == b->ident,
			     1))
		str = atomic_load_explicit(&site->str, memory_order_relaxed);
	else
		str = site_str_slow(b, site);
	write_record(b, ring, koff_self_tid(), koff_stamp_fast(), id, (uint64_t)(uintptr_t)site->fmt,
		     str, KOFF_RF_SITE, args);
}

void koff__trace(struct koff_site *site, uint64_t mask, uint64_t id, uint64_t a0, uint64_t a1,
		 uint64_t a2, uint64_t a3, uint64_t a4)
{
	uint64_t args[5] = { a0, a1, a2, a3, a4 };
	struct koff_buffer *b = atomic_load_explicit(&koff__default_buffer, memory_order_acquire);

	if (__builtin_expect(!b, 0)) {
		b = koff_default();
		if (!b)
			return;
	}
	/* The first call of the process lands here through the boot gate: the real mask
	 * is checked now that the buffer is open. */
	if (__builtin_expect(!(atomic_load_explicit(koff_h64(b, KOFF_H_GATE),
						     memory_order_relaxed) & mask), 0))
		return;
	trace_into(b, site, id, args);
}

void koff__trace_to(struct koff_buffer *b, struct koff_site *site, uint64_t mask, uint64_t id,
		    uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4)
{
	uint64_t args[5] = { a0, a1, a2, a3, a4 };

	if (!b || !(atomic_load_explicit(koff_h64(b, KOFF_H_GATE), memory_order_relaxed) & mask))
		return;
	trace_into(b, site, id, args);
}

int koff_log_raw(struct koff_buffer *b, uint64_t tid, uint64_t ns, uint64_t id, const char *fmt,
		 const uint64_t args[5])
{
	static const uint64_t zero[5];
	struct koff_fmt f;
	size_t len;

	if (!b || !fmt)
		return -EINVAL;
	len = strnlen(fmt, KOFF_MAX_STRING);
	if (len >= KOFF_MAX_STRING || koff_fmt_parse(fmt, len, &f))
		return -EINVAL;
	if (!koff_buffer_ring(b))
		return -EAGAIN;
	return koff_write_record(b, tid, ns, id, (uint64_t)(uintptr_t)fmt, koff_intern(b, fmt, len),
				 KOFF_RF_RAW, args ? args : zero);
}
