// SPDX-License-Identifier: MIT
/*
 * KOFF producer: writing records and interning format strings. Lock-free and safe
 * for many threads in several processes sharing one buffer.
 *
 * A thread takes the ring a group of slots at a time (layout.h): one fetch-and-add on
 * the head word gives it `group` consecutive sequence numbers, one compare-and-swap of
 * the group word makes their slots its own for this lap of the ring, and its records
 * then go into them with plain stores. Two threads logging at once thus touch the
 * shared head word once per group, and never the same slot or cache line. A record
 * still costs one atomic step for readers to see: the release store of its stamp.
 *
 * Before each record the thread checks that its group is still young: if the head has
 * moved more than max_age numbers past the next one (other threads logged meanwhile)
 * or a flush passed it, the rest of the group is abandoned (holes readers skip) and a
 * new group taken, so that sequence numbers and time stamps never drift far apart.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "koff/koff_fmt.h"
#include "koff/koff_producer_int.h"

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/*
 * The group word (layout.h): bit 63 set while held, then the holder's process id in
 * bits 32-62; the low 32 bits are a lap of the ring (number >> lap_shift, truncated):
 * the lap it is held for, or the first lap it may be taken for once released. Laps
 * compare as serial numbers, so the truncation does not matter.
 */
static inline uint32_t lap_of(const struct koff_buffer *b, uint64_t n)
{
	return (uint32_t)(n >> b->lap_shift);
}

static inline uint64_t held_word(const struct koff_buffer *b, uint64_t n)
{
	return KOFF_STAMP_BUSY | (uint64_t)(koff_self_pid() & 0x7fffffffu) << 32 | lap_of(b, n);
}

/* Gives group g (of buffer b) back for the next lap, and forgets it. */
static void release(struct koff_buffer *b, struct koff_group *g)
{
	struct koff_rec *ring = atomic_load_explicit(&b->ring, memory_order_acquire);
	uint64_t held;

	if (ring && g->ident == b->ident) {
		held = held_word(b, g->first);
		atomic_compare_exchange_strong_explicit(
			(_Atomic(uint64_t) *)&ring[g->first & b->slot_mask].group, &held,
			(uint32_t)(lap_of(b, g->first) + 1), memory_order_release,
			memory_order_relaxed);
	}
	memset(g, 0, sizeof(*g));
}

void koff_release_group(struct koff_buffer *b)
{
	for (int i = 0; i < KOFF_THREAD_GROUPS; i++)
		if (koff__self.g[i].ident == b->ident)
			release(b, &koff__self.g[i]);
}

/* Gives back a group of a buffer that may be closed already: through the registry of
 * open buffers, whose lock keeps it mapped meanwhile. */
static void release_by_ident(struct koff_group *g)
{
	struct koff_buffer *b;

	if (!g->ident)
		return;
	pthread_mutex_lock(&koff_registry_lock);
	b = koff_registry_find(g->ident);
	if (b)
		release(b, g);
	pthread_mutex_unlock(&koff_registry_lock);
	memset(g, 0, sizeof(*g));
}

/* Thread exit: the groups the thread was filling go back to their buffers. */
static void thread_exit(void *unused)
{
	(void)unused;
	for (int i = 0; i < KOFF_THREAD_GROUPS; i++)
		release_by_ident(&koff__self.g[i]);
}

static void exit_key_create(void)
{
	pthread_key_create(&exit_key, thread_exit);
}

/* May a group whose word is v be taken for number n? */
static bool group_free(const struct koff_buffer *b, uint64_t v, uint64_t n)
{
	int32_t laps = (int32_t)(lap_of(b, n) - (uint32_t)v);
	pid_t holder;

	if (!(v & KOFF_STAMP_BUSY))
		return laps >= 0;
	/* Held. Only a dead process's group is taken over (it may have died in the middle
	 * of a record; a live holder, even one stopped for long, still owns its slots). */
	holder = (pid_t)((v >> 32) & 0x7fffffff);
	return laps >= 2 && holder > 0 && kill(holder, 0) < 0 && errno == ESRCH;
}

/* The calling thread's time stamp: never behind its previous one (a new clock anchor
 * may be a little behind the extrapolation), so that each thread keeps its order in
 * the time-sorted dump. */
static inline __attribute__((always_inline)) uint64_t thread_stamp(void)
{
	uint64_t ns = koff_stamp_fast();

	if (__builtin_expect(ns < koff__self.last_ns, 0))
		ns = koff__self.last_ns;
	koff__self.last_ns = ns;
	return ns;
}

/*
 * The group the calling thread fills in b, moved to the front of its groups (the fast
 * path looks at g[0] only): when the thread holds none there, the front slot is made
 * free for one, giving back the group of the buffer written longest ago.
 */
static __attribute__((noinline)) void front_group(struct koff_buffer *b)
{
	struct koff_group keep;
	int i;

	for (i = 0; i < KOFF_THREAD_GROUPS - 1; i++)
		if (koff__self.g[i].ident == b->ident)
			break;
	if (koff__self.g[i].ident != b->ident) {
		if (koff__self.g[i].ident == 0) {
			/* a free slot */
		} else {
			release_by_ident(&koff__self.g[i]);
		}
	}
	keep = koff__self.g[i];
	memmove(&koff__self.g[1], &koff__self.g[0], (size_t)i * sizeof(keep));
	koff__self.g[0] = keep;
}

/*
 * Takes a new group: returns its first number, or UINT64_MAX when none could be had
 * (every group tried still held by a writer a lap or more behind). A group is free for
 * number g when its word shows it released for this lap or an earlier one, or held two
 * laps or more behind by a process that no longer exists.
 *
 * ns non-NULL: the record's time stamp is taken (again) once the group is claimed, and
 * checked young after that: a record's time is never older than its group's claim,
 * which keeps sequence numbers and time stamps close (layout.h, "Time order").
 */
static __attribute__((noinline)) uint64_t claim_group(struct koff_buffer *b,
						       struct koff_rec *ring, uint64_t *ns)
{
	_Atomic(uint64_t) *head = koff_h64(b, KOFF_H_HEAD);
	struct koff_group *grp;
	int saved_errno = errno;     /* logging never changes errno */
	uint64_t result = UINT64_MAX;

	if (koff__self.g[0].ident != b->ident) {
		front_group(b);
		grp = &koff__self.g[0];
		/* still good for the next record? */
		if (grp->ident == b->ident && grp->next < grp->end &&
		    atomic_load_explicit(head, memory_order_relaxed) - grp->next <= b->max_age &&
		    atomic_load_explicit(koff_h64(b, KOFF_H_BASE),
					 memory_order_relaxed) <= grp->next)
			return grp->next;
	}
	grp = &koff__self.g[0];
	if (grp->ident == b->ident)
		release(b, grp);     /* used up, or too old */
	if (__builtin_expect(!koff__self.exit_hook, 0)) {
		pthread_once(&exit_key_once, exit_key_create);
		pthread_setspecific(exit_key, &koff__self);
		koff__self.exit_hook = 1;
	}
	for (unsigned tries = 0; tries < KOFF_CLAIM_TRIES; tries++) {
		uint64_t g = atomic_fetch_add_explicit(head, b->group, memory_order_relaxed);
		_Atomic(uint64_t) *word = (_Atomic(uint64_t) *)&ring[g & b->slot_mask].group;
		uint64_t v = atomic_load_explicit(word, memory_order_relaxed);

		if (group_free(b, v, g) && atomic_compare_exchange_strong_explicit(
				word, &v, held_word(b, g), memory_order_acquire,
				memory_order_relaxed)) {
			grp->ident = b->ident;
			grp->first = g;
			grp->next = g;
			grp->end = g + b->group;
			if (ns)
				*ns = thread_stamp();
			if (!ns || atomic_load_explicit(head, memory_order_relaxed) - g <= b->max_age) {
				result = g;
				break;
			}
			release(b, grp);   /* preempted since the claim: again */
			continue;
		}
		/* Still held by a writer a lap or more behind: these numbers are holes. */
	}
	if (result == UINT64_MAX)
		atomic_fetch_add_explicit(koff_h64(b, KOFF_H_DROPPED), 1, memory_order_relaxed);
	errno = saved_errno;
	return result;
}

/*
 * Writes one record. take_time: the time stamp is the thread's clock, read here before
 * the group is checked young (else ns as given, for koff_log_raw).
 */
static inline __attribute__((always_inline)) int
write_record(struct koff_buffer *b, struct koff_rec *ring, uint64_t tid, bool take_time,
	     uint64_t ns, uint64_t id, uint64_t fmt, uint32_t str, uint32_t flags,
	     const uint64_t args[5])
{
	uint64_t s = koff__self.g[0].next, count;
	_Atomic(uint64_t) *stamp;
	struct koff_rec *r;

	if (take_time)
		ns = thread_stamp();
	if (__builtin_expect(koff__self.g[0].ident != b->ident || s >= koff__self.g[0].end ||
			     atomic_load_explicit(koff_h64(b, KOFF_H_HEAD),
						  memory_order_relaxed) - s > b->max_age ||
			     atomic_load_explicit(koff_h64(b, KOFF_H_BASE),
						  memory_order_relaxed) > s, 0)) {
		s = claim_group(b, ring, take_time ? &ns : NULL);
		if (s == UINT64_MAX)
			return -EBUSY;
	}
	r = &ring[s & b->slot_mask];
	stamp = (_Atomic(uint64_t) *)&r->stamp;
	atomic_store_explicit(stamp, KOFF_STAMP_BUSY | s, memory_order_relaxed);
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
	koff__self.g[0].next = s + 1;
	if (__builtin_expect(s + 1 == koff__self.g[0].end, 0))
		release(b, &koff__self.g[0]);
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
	return write_record(b, ring, tid, false, ns, id, fmt, str, flags, args);
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
	write_record(b, ring, koff_self_tid(), true, 0, id, (uint64_t)(uintptr_t)site->fmt, str,
		     KOFF_RF_SITE, args);
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
