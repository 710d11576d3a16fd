// SPDX-License-Identifier: MIT
/*
 * KOFF producer: creating, attaching, allocating and controlling buffer files, the
 * default buffer, and the crash anchor that lets a dumper find buffers in a core.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/check.h"
#include "common/opts.h"
#include "common/outfile.h"
#include "koff/koff_fmt.h"
#include "koff/koff_producer_int.h"

/* ---- crash anchor ------------------------------------------------------------------ */

/* Found by `ktrace dump NAMELIST CORE` through the symbol table: lists where each open
 * buffer is mapped. Initialised data, so it lives in .data and is dumped with it. */
__attribute__((used)) struct koff_anchor koff_crash_anchor = {
	.magic = KOFF_ANCHOR_MAGIC,
	.version = 1,
	.slots = KOFF_ANCHOR_SLOTS,
};

static pthread_mutex_t anchor_lock = PTHREAD_MUTEX_INITIALIZER;

static void anchor_set(struct koff_buffer *b)
{
	struct koff_anchor_slot *s;
	uint8_t *addr = b->full ? b->full : b->hdr;
	size_t size = b->full ? b->full_len : KOFF_HDR_SIZE;

	pthread_mutex_lock(&anchor_lock);
	if (b->anchor_slot < 0) {
		for (int i = 0; i < KOFF_ANCHOR_SLOTS; i++) {
			if (!koff_crash_anchor.slot[i].addr) {
				b->anchor_slot = i;
				break;
			}
		}
	}
	if (b->anchor_slot >= 0) {
		s = &koff_crash_anchor.slot[b->anchor_slot];
		snprintf(s->path, sizeof(s->path), "%s", b->path);
		s->size = size;
		__atomic_store_n(&s->addr, (uint64_t)(uintptr_t)addr, __ATOMIC_RELEASE);
		if (b->is_default)
			koff_crash_anchor.default_slot = (uint32_t)b->anchor_slot + 1;
	}
	pthread_mutex_unlock(&anchor_lock);
}

static void anchor_clear(struct koff_buffer *b)
{
	pthread_mutex_lock(&anchor_lock);
	if (b->anchor_slot >= 0) {
		memset(&koff_crash_anchor.slot[b->anchor_slot], 0, sizeof(struct koff_anchor_slot));
		if (koff_crash_anchor.default_slot == (uint32_t)b->anchor_slot + 1)
			koff_crash_anchor.default_slot = 0;
		b->anchor_slot = -1;
	}
	pthread_mutex_unlock(&anchor_lock);
}

/* ---- process identity ---------------------------------------------------------------- */

uint32_t koff__pid_cache;
__thread struct koff_thread koff__self __attribute__((tls_model("initial-exec")));
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* The child is another process: new ids, and the group the forking thread was filling
 * stays the parent's. */
static void after_fork_child(void)
{
	koff__pid_cache = 0;
	koff__self.tid = 0;
	memset(koff__self.g, 0, sizeof(koff__self.g));
}

static void setup_process(void)
{
	const char *e = getenv("KOFF_COREDUMP");
	FILE *f;

	pthread_atfork(NULL, NULL, after_fork_child);
	/* Shared file mappings are left out of core dumps unless bit 3 of the process's
	 * coredump_filter is set: set it, so that a crash dump holds the buffer. */
	if (e && !strcmp(e, "0"))
		return;
	f = fopen("/proc/self/coredump_filter", "r+");
	if (f) {
		unsigned long v;

		if (fscanf(f, "%lx", &v) == 1 && !(v & 0x8)) {
			rewind(f);
			fprintf(f, "0x%lx", v | 0x8);
		}
		fclose(f);
	}
}

uint32_t koff_self_pid_slow(void)
{
	koff__pid_cache = (uint32_t)getpid();
	return koff__pid_cache;
}

uint64_t koff_self_tid_slow(void)
{
	koff__self.tid = (uint64_t)syscall(SYS_gettid);
	return koff__self.tid;
}

/* ---- registry of open buffers (for the thread-exit release of a group) ------------- */

pthread_mutex_t koff_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct koff_buffer *open_buffers;

struct koff_buffer *koff_registry_find(uint64_t ident)
{
	for (struct koff_buffer *b = open_buffers; b; b = b->next_open)
		if (b->ident == ident)
			return b;
	return NULL;
}

static void registry_add(struct koff_buffer *b)
{
	pthread_mutex_lock(&koff_registry_lock);
	b->next_open = open_buffers;
	open_buffers = b;
	pthread_mutex_unlock(&koff_registry_lock);
}

static void registry_remove(struct koff_buffer *b)
{
	pthread_mutex_lock(&koff_registry_lock);
	for (struct koff_buffer **p = &open_buffers; *p; p = &(*p)->next_open) {
		if (*p == b) {
			*p = b->next_open;
			break;
		}
	}
	pthread_mutex_unlock(&koff_registry_lock);
}

/* ---- mapping --------------------------------------------------------------------------- */

static _Atomic(uint64_t) next_ident = 1;

static struct koff_buffer *buffer_new(const char *path)
{
	struct koff_buffer *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->path = strdup(path);
	if (!b->path) {
		free(b);
		return NULL;
	}
	b->fd = -1;
	b->anchor_slot = -1;
	b->ident = atomic_fetch_add(&next_ident, 1);
	pthread_mutex_init(&b->lock, NULL);
	registry_add(b);
	return b;
}

static void buffer_free(struct koff_buffer *b)
{
	if (!b)
		return;
	registry_remove(b);
	anchor_clear(b);
	if (b->full)
		munmap(b->full, b->full_len);
	if (b->hdr)
		munmap(b->hdr, KOFF_HDR_SIZE);
	if (b->fd >= 0)
		close(b->fd);
	pthread_mutex_destroy(&b->lock);
	free(b->path);
	free(b);
}

/* Maps the whole allocated file and publishes the ring. Called with b->lock held (or
 * before the buffer is shared). */
static int map_full(struct koff_buffer *b, struct ktrace_error *err)
{
	struct koff_geom g;
	struct stat st;
	uint8_t *map;
	int ret;

	if (b->full)
		return 0;
	if (fstat(b->fd, &st) < 0)
		return ktrace_error_set(err, -errno, "%s: %s", b->path, strerror(errno));
	ret = koff_geom_decode(b->hdr, KOFF_HDR_SIZE, (uint64_t)st.st_size, &g, err);
	if (ret)
		return ret;
	if (g.state != KOFF_STATE_READY)
		return -EAGAIN;
	if (g.version != KOFF_VERSION)
		return ktrace_error_set(err, -EPROTO,
					"%s: KOFF buffer version %u, made by another libktrace (this "
					"one writes version %u): dump it, then remove it to start a new "
					"one", b->path, g.version, KOFF_VERSION);
	map = mmap(NULL, (size_t)g.file_size, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	if (map == MAP_FAILED)
		return ktrace_error_set(err, -errno, "%s: mmap: %s", b->path, strerror(errno));
	b->full = map;
	b->full_len = (size_t)g.file_size;
	b->nentries = g.nentries;
	b->slot_mask = g.nentries - 1;
	b->group = g.group;
	b->max_age = g.max_age;
	b->lap_shift = (uint32_t)__builtin_ctzll(g.nentries);
	b->strtab = g.strtab_size ? map + g.strtab_off : NULL;
	b->strtab_size = g.strtab_size;
	b->hash = g.hash_slots ? (_Atomic(uint32_t) *)(void *)(map + g.hash_off) : NULL;
	b->hash_slots = g.hash_slots;
	atomic_store_explicit(&b->ring, (struct koff_rec *)(void *)(map + g.ring_off),
			      memory_order_release);
	anchor_set(b);
	return 0;
}

struct koff_rec *koff_buffer_ring(struct koff_buffer *b)
{
	struct koff_rec *ring = atomic_load_explicit(&b->ring, memory_order_acquire);

	if (ring)
		return ring;
	if (atomic_load_explicit(koff_h32(b, KOFF_H_STATE), memory_order_acquire) !=
	    KOFF_STATE_READY)
		return NULL;
	pthread_mutex_lock(&b->lock);
	map_full(b, NULL);
	pthread_mutex_unlock(&b->lock);
	return atomic_load_explicit(&b->ring, memory_order_acquire);
}

/* Fills a new file (fd, sized already) with an allocated buffer's initial state. */
static int init_allocated(int fd, uint8_t *hdr, uint64_t nentries, uint64_t strtab,
			  const char *path, struct ktrace_error *err)
{
	struct koff_geom g;
	uint8_t *map;
	struct koff_rec *ring;

	koff_geom_layout(&g, nentries, strtab);
	if (ftruncate(fd, (off_t)g.file_size) < 0)
		return ktrace_error_set(err, -errno, "%s: cannot size the buffer to %llu bytes: %s",
					path, (unsigned long long)g.file_size, strerror(errno));
	map = mmap(NULL, (size_t)g.file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return ktrace_error_set(err, -errno, "%s: mmap: %s", path, strerror(errno));
	ring = (struct koff_rec *)(void *)(map + g.ring_off);
	for (uint64_t i = 0; i < nentries; i++)
		ring[i].stamp = i;       /* slot i is ready for sequence number i */
	munmap(map, (size_t)g.file_size);
	memcpy(hdr + KOFF_H_VERSION, &g.version, 4);
	memcpy(hdr + KOFF_H_NENTRIES, &g.nentries, 8);
	memcpy(hdr + KOFF_H_GROUP, &g.group, 4);
	memcpy(hdr + KOFF_H_MAX_AGE, &g.max_age, 4);
	memcpy(hdr + KOFF_H_RING_OFF, &g.ring_off, 8);
	memcpy(hdr + KOFF_H_STRTAB_OFF, &g.strtab_off, 8);
	memcpy(hdr + KOFF_H_STRTAB_SIZE, &g.strtab_size, 8);
	memcpy(hdr + KOFF_H_HASH_OFF, &g.hash_off, 8);
	memcpy(hdr + KOFF_H_HASH_SLOTS, &g.hash_slots, 4);
	memcpy(hdr + KOFF_H_FILE_SIZE, &g.file_size, 8);
	atomic_store((_Atomic(uint64_t) *)(void *)(hdr + KOFF_H_STRTAB_USED), 8);
	atomic_store_explicit((_Atomic(uint32_t) *)(void *)(hdr + KOFF_H_STATE), KOFF_STATE_READY,
			      memory_order_release);
	return 0;
}

static void init_header(uint8_t *hdr, uint64_t nentries)
{
	uint32_t v;
	uint64_t v64;

	memset(hdr, 0, KOFF_HDR_SIZE);
	memcpy(hdr + KOFF_H_MAGIC, KOFF_MAGIC, KOFF_MAGIC_LEN);
	v = KOFF_VERSION; memcpy(hdr + KOFF_H_VERSION, &v, 4);
	v = KOFF_HDR_SIZE; memcpy(hdr + KOFF_H_HDR_SIZE, &v, 4);
	v = KOFF_REC_SIZE; memcpy(hdr + KOFF_H_REC_SIZE, &v, 4);
	v = KOFF_BYTE_ORDER; memcpy(hdr + KOFF_H_BYTE_ORDER, &v, 4);
	v = sizeof(void *); memcpy(hdr + KOFF_H_PTR_SIZE, &v, 4);
	memcpy(hdr + KOFF_H_NENTRIES, &nentries, 8);
	v64 = KOFF_HDR_SIZE; memcpy(hdr + KOFF_H_FILE_SIZE, &v64, 8);
	v64 = koff_now_ns(); memcpy(hdr + KOFF_H_CREATED_NS, &v64, 8);
	v = (uint32_t)getpid(); memcpy(hdr + KOFF_H_CREATOR_PID, &v, 4);
	v = KOFF_STATE_RESERVED; memcpy(hdr + KOFF_H_STATE, &v, 4);
	/* A new buffer traces everything; a reservation waits for -e. */
	v64 = ~0ULL; memcpy(hdr + KOFF_H_MASK, &v64, 8);
}

/*
 * Creates the file complete under a temporary name and links it into place, so that
 * nobody ever sees a half-initialised buffer. Returns 0, or -EEXIST when someone else
 * created it first (the caller then attaches).
 */
static int create_file(const char *path, uint64_t nentries, uint64_t strtab, bool reserve,
		       struct ktrace_error *err)
{
	struct kt_outfile *f;
	uint8_t *hdr;
	int fd, ret;

	/* never replaced, never through a symbolic link: -EEXIST means someone else made it */
	ret = kt_outfile_open(path, KT_OUTFILE_CREATE_ONLY | KT_OUTFILE_NO_SYNC, &f, err);
	if (ret)
		return ret;
	fd = kt_outfile_fd(f);
	if (ftruncate(fd, KOFF_HDR_SIZE) < 0) {
		ret = ktrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	hdr = mmap(NULL, KOFF_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (hdr == MAP_FAILED) {
		ret = ktrace_error_set(err, -errno, "%s: mmap: %s", path, strerror(errno));
		goto fail;
	}
	init_header(hdr, nentries);
	if (!reserve) {
		ret = init_allocated(fd, hdr, nentries, strtab, path, err);
		if (!ret) {
			uint32_t one = 1;

			memcpy(hdr + KOFF_H_ENABLED, &one, 4);
			memcpy(hdr + KOFF_H_GATE, hdr + KOFF_H_MASK, 8);
		}
	}
	munmap(hdr, KOFF_HDR_SIZE);
	if (ret)
		goto fail;
	return kt_outfile_commit(f, err);
fail:
	kt_outfile_abort(f);
	return ret;
}

/* Opens an existing buffer file and maps its header (and the rest if allocated). */
static struct koff_buffer *attach(const char *path, bool must_own, struct ktrace_error *err)
{
	struct koff_buffer *b;
	struct koff_geom g;
	struct stat st;
	int ret;

	b = buffer_new(path);
	if (!b) {
		kt_error_oom(err);
		errno = ENOMEM;
		return NULL;
	}
	b->fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (b->fd < 0) {
		ret = -errno;
		ktrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	if (fstat(b->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = ktrace_error_set(err, -EINVAL, "%s: not a regular file", path);
		goto fail;
	}
	if (must_own && st.st_uid != geteuid()) {
		ret = ktrace_error_set(err, -EPERM, "%s: owned by another user", path);
		goto fail;
	}
	if ((uint64_t)st.st_size < KOFF_HDR_SIZE) {
		ret = ktrace_error_set(err, -EBADMSG, "%s: not a KOFF buffer (%lld bytes)", path,
				       (long long)st.st_size);
		goto fail;
	}
	b->hdr = mmap(NULL, KOFF_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	if (b->hdr == MAP_FAILED) {
		b->hdr = NULL;
		ret = ktrace_error_set(err, -errno, "%s: mmap: %s", path, strerror(errno));
		goto fail;
	}
	ret = koff_geom_decode(b->hdr, KOFF_HDR_SIZE, (uint64_t)st.st_size, &g, err);
	if (ret) {
		char m[KTRACE_ERROR_MESSAGE_MAX];

		if (err) {
			memcpy(m, err->message, sizeof(m));
			ktrace_error_set(err, ret, "%s: %.200s", path, m);
		}
		goto fail;
	}
	if (g.state == KOFF_STATE_READY) {
		ret = map_full(b, err);
		if (ret)
			goto fail;
	} else {
		anchor_set(b);
	}
	return b;
fail:
	buffer_free(b);
	errno = -ret;
	return NULL;
}

struct koff_buffer *koff_buffer_open(const char *path, const struct koff_open_opts *opts,
				     struct ktrace_error *err)
{
	struct koff_open_opts copy;
	const struct koff_open_opts *o = &copy;
	uint64_t strtab;
	int cret;

	pthread_once(&atfork_once, setup_process);
	if ((cret = KT_OPTS_COPY(&copy, opts, "koff_open_opts", err))) {
		errno = -cret;
		return NULL;
	}
	if (!path || !*path) {
		ktrace_error_set(err, -EINVAL, "no buffer path");
		errno = EINVAL;
		return NULL;
	}
	if (o->strtab_bytes == KOFF_NO_STRTAB)
		strtab = 0;
	else if (!o->strtab_bytes)
		strtab = KOFF_DEFAULT_STRTAB;
	else
		strtab = o->strtab_bytes > KOFF_MAX_STRTAB ? KOFF_MAX_STRTAB
							   : (o->strtab_bytes + 7) & ~7ULL;
	for (int tries = 0; tries < 8; tries++) {
		struct koff_buffer *b = attach(path, false, err);
		int ret;

		if (b || errno != ENOENT || !(o->nentries || o->reserve))
			return b;
		ret = create_file(path, koff_round_entries(o->nentries ? o->nentries
								: KOFF_DEFAULT_ENTRIES),
				  strtab, o->reserve, err);
		if (ret && ret != -EEXIST) {
			errno = -ret;
			return NULL;
		}
		/* Created (or someone else was faster): attach on the next turn. */
	}
	errno = EAGAIN;
	return NULL;
}

struct koff_buffer *koff_open(const char *path, uint32_t nentries)
{
	struct koff_open_opts o = { .sz = sizeof(o), .nentries = nentries };

	return koff_buffer_open(path, &o, NULL);
}

void koff_close(struct koff_buffer *b)
{
	if (!b || b->is_default)
		return;
	koff_release_group(b);
	buffer_free(b);
}

const char *koff_path(const struct koff_buffer *b)
{
	return b->path;
}

/* ---- control ---------------------------------------------------------------------- */

/* Control operations are rare and may come from several processes: an advisory file
 * lock serialises them (it is released if the holder dies). */
static void ctl_lock(struct koff_buffer *b)
{
	while (flock(b->fd, LOCK_EX) < 0 && errno == EINTR)
		;
}

static void ctl_unlock(struct koff_buffer *b)
{
	flock(b->fd, LOCK_UN);
}

static int allocate_reserved(struct koff_buffer *b, struct ktrace_error *err)
{
	uint32_t state;
	uint64_t n;
	int ret = 0;

	state = atomic_load(koff_h32(b, KOFF_H_STATE));
	if (state != KOFF_STATE_READY) {
		/* RESERVED, or ALLOCATING left over by a process that died under the lock. */
		atomic_store(koff_h32(b, KOFF_H_STATE), KOFF_STATE_ALLOCATING);
		n = atomic_load(koff_h64(b, KOFF_H_NENTRIES));
		n = koff_round_entries(n ? (uint32_t)(n > KOFF_MAX_ENTRIES ? KOFF_MAX_ENTRIES : n)
					 : KOFF_DEFAULT_ENTRIES);
		ret = init_allocated(b->fd, b->hdr, n, KOFF_DEFAULT_STRTAB, b->path, err);
		if (ret)
			atomic_store(koff_h32(b, KOFF_H_STATE), KOFF_STATE_RESERVED);
	}
	if (!ret) {
		pthread_mutex_lock(&b->lock);
		ret = map_full(b, err);
		pthread_mutex_unlock(&b->lock);
	}
	return ret;
}

static int enable_with(struct koff_buffer *b, bool use_last, uint64_t mask,
		       struct ktrace_error *err)
{
	int ret;

	ctl_lock(b);
	ret = allocate_reserved(b, err);
	if (!ret) {
		if (use_last)
			mask = atomic_load(koff_h64(b, KOFF_H_MASK));
		atomic_store(koff_h64(b, KOFF_H_MASK), mask);
		atomic_store(koff_h32(b, KOFF_H_ENABLED), 1);
		atomic_store(koff_h64(b, KOFF_H_GATE), mask);
	}
	ctl_unlock(b);
	return ret;
}

int koff_enable(struct koff_buffer *b, uint64_t mask, struct ktrace_error *err)
{
	return enable_with(b, false, mask, err);
}

int koff_enable_last(struct koff_buffer *b, struct ktrace_error *err)
{
	return enable_with(b, true, 0, err);
}

int koff_disable(struct koff_buffer *b)
{
	ctl_lock(b);
	atomic_store(koff_h32(b, KOFF_H_ENABLED), 0);
	atomic_store(koff_h64(b, KOFF_H_GATE), 0);
	ctl_unlock(b);
	return 0;
}

int koff_is_enabled(const struct koff_buffer *b)
{
	return atomic_load(koff_h32(b, KOFF_H_ENABLED)) != 0;
}

uint64_t koff_get_mask(const struct koff_buffer *b)
{
	return atomic_load(koff_h64(b, KOFF_H_MASK));
}

int koff_set_mask(struct koff_buffer *b, uint64_t mask)
{
	ctl_lock(b);
	atomic_store(koff_h64(b, KOFF_H_MASK), mask);
	if (atomic_load(koff_h32(b, KOFF_H_ENABLED)))
		atomic_store(koff_h64(b, KOFF_H_GATE), mask);
	ctl_unlock(b);
	return 0;
}

/* Records published so far: the sum of the slots' publication counts. */
static uint64_t published(struct koff_buffer *b)
{
	struct koff_rec *ring = koff_buffer_ring(b);
	uint64_t sum = 0;

	for (uint64_t i = 0; ring && i < b->nentries; i++)
		sum += atomic_load_explicit((_Atomic(uint64_t) *)&ring[i].count,
					    memory_order_relaxed);
	return sum;
}

int koff_flush(struct koff_buffer *b)
{
	ctl_lock(b);
	atomic_store(koff_h64(b, KOFF_H_BASE), atomic_load(koff_h64(b, KOFF_H_HEAD)));
	atomic_store(koff_h64(b, KOFF_H_FLUSHED), published(b));
	atomic_fetch_add(koff_h64(b, KOFF_H_FLUSHES), 1);
	ctl_unlock(b);
	return 0;
}

int koff_get_counters(const struct koff_buffer *b, struct koff_counters *c)
{
	uint64_t n;

	memset(c, 0, sizeof(*c));
	c->allocated = atomic_load(koff_h32(b, KOFF_H_STATE)) == KOFF_STATE_READY;
	n = c->allocated ? b->nentries : atomic_load(koff_h64(b, KOFF_H_NENTRIES));
	if (c->allocated && !b->nentries)
		n = atomic_load(koff_h64(b, KOFF_H_NENTRIES));
	c->nentries = (uint32_t)(n > KOFF_MAX_ENTRIES ? KOFF_MAX_ENTRIES : n);
	c->enabled = atomic_load(koff_h32(b, KOFF_H_ENABLED)) != 0;
	c->mask = atomic_load(koff_h64(b, KOFF_H_MASK));
	c->base = atomic_load(koff_h64(b, KOFF_H_BASE));
	c->head = atomic_load(koff_h64(b, KOFF_H_HEAD));
	if (c->allocated) {
		uint64_t sum = published((struct koff_buffer *)b);
		uint64_t flushed = atomic_load(koff_h64(b, KOFF_H_FLUSHED));

		c->logged = sum > flushed ? sum - flushed : 0;
	}
	c->overwritten = c->logged > c->nentries ? c->logged - c->nentries : 0;
	c->dropped = atomic_load(koff_h64(b, KOFF_H_DROPPED));
	c->rejected = atomic_load(koff_h64(b, KOFF_H_REJECTED));
	c->flushes = atomic_load(koff_h64(b, KOFF_H_FLUSHES));
	c->strtab_used = atomic_load(koff_h64(b, KOFF_H_STRTAB_USED));
	c->strtab_size = b->strtab_size;
	if (c->strtab_used > c->strtab_size)
		c->strtab_used = c->strtab_size;
	c->strtab_full = atomic_load(koff_h64(b, KOFF_H_STRTAB_FULL));
	return 0;
}

int koff_reserve(const char *path, uint32_t nentries, struct ktrace_error *err)
{
	struct koff_open_opts o = { .sz = sizeof(o), .nentries = nentries, .reserve = 1 };
	struct koff_buffer *b;
	uint64_t n = koff_round_entries(nentries);
	int ret = 0;

	if (!nentries)
		return ktrace_error_set(err, -EINVAL, "a buffer needs at least one entry");
	b = koff_buffer_open(path, &o, err);
	if (!b)
		return -errno;
	ctl_lock(b);
	if (atomic_load(koff_h32(b, KOFF_H_STATE)) == KOFF_STATE_READY) {
		ret = ktrace_error_set(err, -EBUSY,
				       "%s: the buffer is already allocated with %llu entries; it "
				       "cannot be resized or freed (remove the file to start over)",
				       path, (unsigned long long)b->nentries);
	} else {
		atomic_store(koff_h64(b, KOFF_H_NENTRIES), n);
	}
	ctl_unlock(b);
	koff_close(b);
	return ret;
}

int koff_format_check(const char *fmt, struct ktrace_error *err)
{
	struct koff_fmt f;
	size_t len;

	if (!fmt)
		return ktrace_error_set(err, -EINVAL, "no format");
	len = strnlen(fmt, KOFF_MAX_STRING);
	if (len >= KOFF_MAX_STRING)
		return ktrace_error_set(err, -EINVAL, "format longer than %u bytes",
					KOFF_MAX_STRING - 1);
	if (koff_fmt_parse(fmt, len, &f))
		return ktrace_error_at(err, -EINVAL, f.err_pos, "format \"%.60s\": %s", fmt, f.why);
	return 0;
}

/* ---- the default buffer ------------------------------------------------------------ */

static _Atomic(uint64_t) gate_boot = ~0ULL;   /* before the first KOFF_TRACE */
static _Atomic(uint64_t) gate_off = 0;        /* the default buffer could not be opened */
_Atomic(uint64_t) *_Atomic koff__gate = &gate_boot;

_Atomic(struct koff_buffer *) koff__default_buffer;
static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static int default_errno;

int koff_default_path(char *buf, size_t len)
{
	const char *env = getenv("KOFF_BUFFER");
	char name[65];
	size_t n = 0;
	int r;

	if (env && *env) {
		r = snprintf(buf, len, "%s", env);
	} else {
		const char *p = program_invocation_short_name;

		for (; p && *p && n < sizeof(name) - 1; p++)
			name[n++] = (*p == '/' || *p <= ' ') ? '_' : *p;
		name[n] = '\0';
		r = snprintf(buf, len, "/dev/shm/koff-%s", n ? name : "unknown");
	}
	if (r < 0 || (size_t)r >= len)
		return -ENAMETOOLONG;
	return r;
}

static uint32_t env_u32(const char *name, uint32_t dflt)
{
	const char *e = getenv(name);
	unsigned long long v;
	char *end;

	if (!e || !*e)
		return dflt;
	errno = 0;
	v = strtoull(e, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return dflt;
	return (uint32_t)v;
}

struct koff_buffer *koff_default(void)
{
	struct koff_buffer *b = atomic_load_explicit(&koff__default_buffer, memory_order_acquire);
	struct koff_open_opts o = { .sz = sizeof(o) };
	char path[PATH_MAX];

	if (b)
		return b;
	pthread_mutex_lock(&default_lock);
	b = atomic_load(&koff__default_buffer);
	if (!b && !default_errno) {
		o.nentries = env_u32("KOFF_ENTRIES", KOFF_DEFAULT_ENTRIES);
		if (!o.nentries)
			o.nentries = KOFF_DEFAULT_ENTRIES;
		o.strtab_bytes = env_u32("KOFF_STRTAB", 0);
		if (getenv("KOFF_STRTAB") && o.strtab_bytes == 0)
			o.strtab_bytes = KOFF_NO_STRTAB;
		o.reserve = 0;
		if (koff_default_path(path, sizeof(path)) < 0) {
			default_errno = ENAMETOOLONG;
		} else {
			b = koff_buffer_open(path, &o, NULL);
			if (!b)
				default_errno = errno ? errno : EIO;
		}
		if (b) {
			b->is_default = 1;
			anchor_set(b);
			atomic_store(&koff__default_buffer, b);
			atomic_store(&koff__gate, koff_h64(b, KOFF_H_GATE));
		} else {
			atomic_store(&koff__gate, &gate_off);
		}
	}
	pthread_mutex_unlock(&default_lock);
	if (!b)
		errno = default_errno;
	return b;
}
