// SPDX-License-Identifier: MIT
/*
 * KOFF reader: returns the records of a buffer oldest first, from a buffer file (read
 * with pread, never mapped, so that a file shrunk under us cannot fault), a memory
 * image, the memory of a crashed producer in a core file, or a snapshot.
 *
 * A live buffer is read in windows of consecutive sequence numbers, each in three
 * passes separated by system calls (or fences): the stamps, then the records, then the
 * stamps again. A record is shown only when both stamp reads and the record's own
 * stamp say "published as sequence number s"; since a stamp only ever grows, nothing
 * can have written the slot between the first and the last read.
 *
 * Records come out in time order (ties in sequence order): writers fill groups of
 * slots, so sequence order is time order only up to a bounded distance (layout.h,
 * "Time order"); the accepted records go through a heap of that many records, and the
 * earliest is returned whenever the heap holds more.
 */
#include <ktrace/detect.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/detect_table.h"
#include "common/opts.h"
#include "koff/koff_fmt.h"
#include "koff/koff_int.h"

#define WINDOW       2048u      /* records per window */
#define STR_CACHE    256u       /* direct-mapped cache of string-table entries */
#define ARG_STR_MAX  256u       /* longest %s argument shown */

struct str_cache_entry {
	uint32_t off;
	int ok;
	char *text;
};

/* A record accepted from the ring, waiting in the time-order heap. */
struct sort_item {
	uint64_t ns, seq;
	uint32_t slot;              /* index in sort_recs */
};

struct koff_reader {
	enum koff_source kind;
	struct koff_info info;
	struct koff_geom g;
	char *path;
	/* sources */
	int fd;                     /* KOFF_SRC_FILE */
	const uint8_t *mem;         /* KOFF_SRC_MEMORY */
	size_t mem_len;
	uint8_t *owned;             /* a stream read into memory */
	struct koff_core *core;     /* KOFF_SRC_CORE */
	uint64_t core_base;
	uint64_t core_size;
	struct koff_snap *snap;     /* KOFF_SRC_SNAPSHOT */
	bool live;
	/* iteration */
	uint64_t next, end;
	uint64_t win_first;
	uint32_t win_n, win_pos;
	bool summed;
	uint8_t *recs, *pass;       /* WINDOW records each */
	uint64_t *stamp_a, *stamp_c;
	struct koff_counts counts;
	/* time-order heap */
	struct sort_item *heap;
	uint32_t heap_n, heap_cap;      /* heap_cap: the sort window */
	uint8_t *sort_recs;             /* heap_cap + 1 records */
	uint32_t *free_slots, nfree;
	bool raw_done;
	struct str_cache_entry cache[STR_CACHE];
	char fmt_text[KOFF_MAX_STRING];
	char args_text[5][ARG_STR_MAX + 1];
};

/* ---- sources ----------------------------------------------------------------------- */

static int src_read(struct koff_reader *r, uint64_t off, void *dst, size_t len)
{
	switch (r->kind) {
	case KOFF_SRC_FILE: {
		size_t done = 0;

		while (done < len) {
			ssize_t n = pread(r->fd, (uint8_t *)dst + done, len - done,
					  (off_t)(off + done));

			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (n == 0)
				return -ENODATA;
			done += (size_t)n;
		}
		return 0;
	}
	case KOFF_SRC_MEMORY:
		if (off > r->mem_len || len > r->mem_len - off)
			return -ENODATA;
		memcpy(dst, r->mem + off, len);
		atomic_thread_fence(memory_order_seq_cst);
		return 0;
	case KOFF_SRC_CORE:
		if (off > r->core_size || len > r->core_size - off)
			return -ENODATA;
		return koff_core_read(r->core, r->core_base + off, dst, len);
	case KOFF_SRC_SNAPSHOT:
		break;
	}
	return -EINVAL;
}

static struct koff_reader *reader_new(enum koff_source kind)
{
	struct koff_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->kind = kind;
	r->fd = -1;
	r->info.source = kind;
	return r;
}

/* Reads and checks the header, and sets up the iteration. avail: bytes the source
 * holds. */
static int reader_setup(struct koff_reader *r, uint64_t avail, struct ktrace_error *err)
{
	uint8_t hdr[KOFF_HDR_SIZE];
	struct koff_geom *g = &r->g;
	int ret;

	if (avail < KOFF_HDR_SIZE)
		return ktrace_error_at(err, -ENODATA, avail,
				       "truncated: a KOFF buffer starts with a %u-byte header, "
				       "%llu bytes present", KOFF_HDR_SIZE, (unsigned long long)avail);
	ret = src_read(r, 0, hdr, sizeof(hdr));
	if (ret)
		return ktrace_error_at(err, ret, 0, "cannot read the buffer header: %s",
				       strerror(-ret));
	ret = koff_geom_decode(hdr, sizeof(hdr), avail, g, err);
	if (ret)
		return ret;
	r->info.version = g->version;
	r->info.allocated = g->state == KOFF_STATE_READY;
	r->info.nentries = (uint32_t)(g->nentries > KOFF_MAX_ENTRIES ? KOFF_MAX_ENTRIES
								    : g->nentries);
	r->info.enabled = g->enabled != 0;
	r->info.mask = g->mask;
	r->info.head = g->head;
	r->info.base = g->base;
	r->info.dropped = g->dropped;
	r->info.rejected = g->rejected;
	r->info.flushes = g->flushes;
	r->info.strtab_size = r->info.allocated ? g->strtab_size : 0;
	r->info.strtab_used = g->strtab_used > r->info.strtab_size ? r->info.strtab_size
								    : g->strtab_used;
	r->info.created_ns = g->created_ns;
	r->info.creator_pid = g->creator_pid;
	r->counts.dropped = g->dropped;
	if (!r->info.allocated)
		return 0;
	/* The head word is a hint: writers may have claimed numbers past it. */
	for (uint64_t k = 0; k < g->nentries; k++) {
		uint8_t st[8];
		uint64_t e = g->head, v;

		if (src_read(r, g->ring_off + (e & (g->nentries - 1)) * KOFF_REC_SIZE, st, 8))
			break;
		v = kt_load_u64(st, false);
		if (v != (KOFF_STAMP_BUSY | e) && v != e + g->nentries)
			break;
		g->head++;
	}
	r->info.head = g->head;
	if (g->base > g->head)
		g->base = g->head;
	r->next = g->head - g->base > g->nentries ? g->head - g->nentries : g->base;
	r->end = g->head;
	r->recs = malloc((size_t)WINDOW * KOFF_REC_SIZE);
	r->pass = r->live ? malloc((size_t)WINDOW * KOFF_REC_SIZE) : NULL;
	r->stamp_a = malloc(WINDOW * sizeof(uint64_t));
	r->stamp_c = malloc(WINDOW * sizeof(uint64_t));
	/* The sort window: the distance between sequence and time order the writers
	 * allow, with room for clock differences between threads (or the whole ring). */
	{
		uint64_t w = 2 * (uint64_t)g->max_age + 4 * (uint64_t)g->group + 256;

		r->heap_cap = (uint32_t)(w < g->nentries ? w : g->nentries);
	}
	r->heap = malloc((size_t)(r->heap_cap + 1) * sizeof(*r->heap));
	r->sort_recs = malloc((size_t)(r->heap_cap + 1) * KOFF_REC_SIZE);
	r->free_slots = malloc((size_t)(r->heap_cap + 1) * sizeof(*r->free_slots));
	if (!r->recs || (r->live && !r->pass) || !r->stamp_a || !r->stamp_c || !r->heap ||
	    !r->sort_recs || !r->free_slots)
		return kt_error_oom(err);
	for (uint32_t i = 0; i <= r->heap_cap; i++)
		r->free_slots[i] = r->heap_cap - i;
	r->nfree = r->heap_cap + 1;
	return 0;
}

static int open_file(const char *path, struct koff_reader **out, struct ktrace_error *err)
{
	struct koff_reader *r = reader_new(KOFF_SRC_FILE);
	struct stat st;
	int ret;

	*out = NULL;
	if (!r)
		return kt_error_oom(err);
	r->live = true;
	r->path = strdup(path);
	r->info.path = r->path;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = ktrace_error_set(err, -errno, "%s", strerror(errno));
		goto fail;
	}
	if (fstat(r->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = ktrace_error_set(err, -EINVAL, "not a regular file");
		goto fail;
	}
	ret = reader_setup(r, (uint64_t)st.st_size, err);
	if (ret)
		goto fail;
	*out = r;
	return 0;
fail:
	koff_reader_close(r);
	return ret;
}

static int open_memory(const void *data, size_t len, struct koff_reader **out,
		       struct ktrace_error *err)
{
	struct koff_reader *r = reader_new(KOFF_SRC_MEMORY);
	int ret;

	*out = NULL;
	if (!r)
		return kt_error_oom(err);
	r->mem = data;
	r->mem_len = len;
	r->live = true;     /* it may be a mapping of a file that producers write */
	ret = reader_setup(r, len, err);
	if (ret) {
		koff_reader_close(r);
		return ret;
	}
	*out = r;
	return 0;
}

/* The buffers of a core, as listed for users: named from NT_FILE when the mapping is
 * there, else from the anchor's slot. */
static int core_list(struct koff_core *core, struct koff_core_buffer *list, size_t max,
		     struct ktrace_error *err)
{
	struct koff_anchor_slot slots[KOFF_ANCHOR_SLOTS];
	bool first_default = false;
	int n = koff_core_buffers(core, slots, KOFF_ANCHOR_SLOTS, &first_default, err);

	for (int i = 0; i < n && (size_t)i < max; i++) {
		const char *mapped = koff_core_mapped_file(core, slots[i].addr);
		uint8_t probe[8];

		memset(&list[i], 0, sizeof(list[i]));
		snprintf(list[i].path, sizeof(list[i].path), "%s", mapped ? mapped : slots[i].path);
		list[i].addr = slots[i].addr;
		list[i].size = slots[i].size;
		list[i].is_default = i == 0 && first_default;
		list[i].in_core = koff_core_read(core, slots[i].addr, probe, sizeof(probe)) == 0;
	}
	return n;
}

static const char *last_part(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int open_core_common(struct koff_reader *r, const struct koff_reader_open_opts *o,
			    struct ktrace_error *err)
{
	struct koff_core_buffer list[KOFF_CORE_MAX_BUFFERS];
	char m[KTRACE_ERROR_MESSAGE_MAX];
	uint8_t probe[KOFF_HDR_SIZE];
	const char *want = o ? o->buffer : NULL;
	int n, pick = 0, ret;

	n = core_list(r->core, list, KOFF_CORE_MAX_BUFFERS, err);
	if (n < 0)
		return n;
	if (n == 0)
		return ktrace_error_set(err, -ENOENT,
					"the process had no KOFF buffer open when the core was written");
	if (want && *want) {
		pick = -1;
		for (int i = 0; i < n && pick < 0; i++)
			if (!strcmp(list[i].path, want))
				pick = i;
		for (int i = 0; i < n && pick < 0; i++)
			if (!strcmp(last_part(list[i].path), last_part(want)))
				pick = i;
		if (pick < 0) {
			size_t len = 0;

			m[0] = '\0';
			for (int i = 0; i < n; i++)
				len += (size_t)snprintf(m + len, len < sizeof(m) ? sizeof(m) - len : 0,
						       "%s%s", i ? ", " : "", list[i].path);
			return ktrace_error_set(err, -ENOENT, "no buffer named %s in the core (it "
						"lists %.*s)", want, 300, m);
		}
	}
	r->core_base = list[pick].addr;
	r->core_size = list[pick].size;
	r->path = strdup(list[pick].path);
	r->info.path = r->path;
	r->info.core_pid = koff_core_pid(r->core);
	r->info.load_bias = koff_core_bias(r->core);
	r->info.anchor_file = koff_core_anchor_file(r->core);
	r->info.anchor_addr = koff_core_anchor(r->core);
	r->info.core_buffers = (uint32_t)n;
	if (koff_core_read(r->core, r->core_base, probe, sizeof(probe)) < 0)
		return ktrace_error_set(err, -EFAULT,
					"the buffer %s (mapped at 0x%llx) is not in the core: its pages "
					"were not dumped (coredump_filter bit 3); dump the file itself "
					"with --buffer %s", r->path,
					(unsigned long long)r->core_base, r->path);
	ret = reader_setup(r, r->core_size, err);
	if (ret && err) {
		memcpy(m, err->message, sizeof(m));
		ktrace_error_set(err, ret, "buffer at 0x%llx in the core: %.200s",
				 (unsigned long long)r->core_base, m);
	}
	if (!ret && r->info.allocated && r->g.file_size > r->core_size)
		ret = ktrace_error_set(err, -EBADMSG, "buffer larger than its mapping");
	return ret;
}

/* A crash dump: o->core on disk, else o->core_image. */
static int open_core(const struct koff_reader_open_opts *o, struct koff_reader **out,
		     struct ktrace_error *err)
{
	struct koff_reader *r = reader_new(KOFF_SRC_CORE);
	int ret;

	*out = NULL;
	if (!r)
		return kt_error_oom(err);
	if (o->core)
		ret = koff_core_open(o->namelist, o->core, NULL, 0, NULL, 0, o, &r->core, err);
	else
		ret = koff_core_open(NULL, NULL, o->namelist_image, o->namelist_len, o->core_image,
				     o->core_len, o, &r->core, err);
	if (!ret)
		ret = open_core_common(r, o, err);
	if (ret) {
		koff_reader_close(r);
		return ret;
	}
	*out = r;
	return 0;
}

int koff_core_list_buffers(const struct koff_reader_open_opts *opts, struct koff_core_buffer *list,
			   size_t max, struct ktrace_error *err)
{
	struct koff_core_buffer all[KOFF_CORE_MAX_BUFFERS];
	struct koff_reader_open_opts o;
	struct koff_core *c;
	int n;

	if ((n = KT_OPTS_COPY(&o, opts, "koff_reader_open_opts", err)))
		return n;
	if (o.core)
		n = koff_core_open(o.namelist, o.core, NULL, 0, NULL, 0, &o, &c, err);
	else if (o.core_image)
		n = koff_core_open(NULL, NULL, o.namelist_image, o.namelist_len, o.core_image,
				   o.core_len, &o, &c, err);
	else
		return ktrace_error_set(err, -EINVAL, "no core to list the buffers of");
	if (n)
		return n;
	n = core_list(c, all, KOFF_CORE_MAX_BUFFERS, err);
	for (int i = 0; i < n && (size_t)i < max; i++)
		list[i] = all[i];
	koff_core_close(c);
	return n;
}

static int open_input(struct ktrace_input *in, struct koff_reader **out,
		      struct ktrace_error *err)
{
	const uint8_t *head;
	int64_t got;
	int ret;

	*out = NULL;
	got = ktrace_input_peek(in, 0, 16, &head, err);
	if (got < 0)
		return (int)got;
	if (got >= 4 && kt_load_u32(head, false) == KOFF_KT_MAGIC) {
		struct koff_reader *r = reader_new(KOFF_SRC_SNAPSHOT);

		if (!r)
			return kt_error_oom(err);
		ret = koff_snap_open(in, &r->snap, &r->info, err);
		if (ret) {
			koff_reader_close(r);
			return ret;
		}
		*out = r;
		return 0;
	}
	if (got < KOFF_MAGIC_LEN || memcmp(head, KOFF_MAGIC, KOFF_MAGIC_LEN))
		return ktrace_error_at(err, -EBADMSG, 0, "not a KOFF buffer or snapshot");
	if (ktrace_input_is_mapped(in)) {
		/* A regular file: read it with pread like `ktrace dump --buffer`, so that a
		 * buffer still being written (or shrunk) is read safely. */
		const char *name = ktrace_input_name(in);
		struct stat st;

		if (name && stat(name, &st) == 0 && S_ISREG(st.st_mode) &&
		    (int64_t)st.st_size == ktrace_input_size(in) &&
		    open_file(name, out, NULL) == 0)
			return 0;
		return open_memory(ktrace_input_data(in), (size_t)ktrace_input_size(in), out, err);
	}
	/* A stream: read the header, then as much as it says (bounded by the largest
	 * buffer a producer creates) into memory. */
	{
		struct koff_geom g;
		struct koff_reader *r;
		uint64_t size = KOFF_HDR_SIZE;

		ret = ktrace_input_get(in, 0, KOFF_HDR_SIZE, &head, err);
		if (ret)
			return ret;
		ret = koff_geom_decode(head, KOFF_HDR_SIZE, UINT64_MAX, &g, err);
		if (ret)
			return ret;
		if (g.state == KOFF_STATE_READY)
			size = g.file_size;
		if (size > (uint64_t)KOFF_MAX_ENTRIES * KOFF_REC_SIZE + KOFF_MAX_STRTAB + (1 << 20))
			return ktrace_error_at(err, -EFBIG, KOFF_H_FILE_SIZE,
					       "buffer size %llu too large to read from a stream",
					       (unsigned long long)size);
		ret = ktrace_input_get(in, 0, (size_t)size, &head, err);
		if (ret)
			return ret;
		r = reader_new(KOFF_SRC_MEMORY);
		if (!r)
			return kt_error_oom(err);
		r->owned = malloc((size_t)size);
		if (!r->owned) {
			koff_reader_close(r);
			return kt_error_oom(err);
		}
		memcpy(r->owned, head, (size_t)size);
		r->mem = r->owned;
		r->mem_len = (size_t)size;
		ret = reader_setup(r, size, err);
		if (ret) {
			koff_reader_close(r);
			return ret;
		}
		*out = r;
		return 0;
	}
}

int koff_reader_open(const struct koff_reader_open_opts *opts, struct koff_reader **out,
		     struct ktrace_error *err)
{
	struct koff_reader_open_opts o;
	int ret, n;

	*out = NULL;
	if ((ret = KT_OPTS_COPY(&o, opts, "koff_reader_open_opts", err)))
		return ret;
	n = !!o.path + !!o.data + !!o.input + !!o.core + !!o.core_image;
	if (n != 1)
		return ktrace_error_set(err, -EINVAL, "koff_reader_open: %s of path, data, input, "
					"core and core_image", n ? "only one" : "give one");
	if (o.path)
		return open_file(o.path, out, err);
	if (o.data)
		return open_memory(o.data, o.len, out, err);
	if (o.input)
		return open_input(o.input, out, err);
	return open_core(&o, out, err);
}

void koff_reader_close(struct koff_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->core)
		koff_core_close(r->core);
	if (r->snap)
		koff_snap_close(r->snap);
	for (unsigned i = 0; i < STR_CACHE; i++)
		free(r->cache[i].text);
	free(r->owned);
	free(r->recs);
	free(r->pass);
	free(r->stamp_a);
	free(r->stamp_c);
	free(r->heap);
	free(r->sort_recs);
	free(r->free_slots);
	free(r->path);
	free(r);
}

const struct koff_info *koff_reader_info(const struct koff_reader *r)
{
	return &r->info;
}

void koff_reader_counts(const struct koff_reader *r, struct koff_counts *c)
{
	if (r->kind == KOFF_SRC_SNAPSHOT)
		koff_snap_counts(r->snap, c);
	else
		*c = r->counts;
}

/* ---- strings ----------------------------------------------------------------------- */

/* The string-table entry at off, checked: inside the table, length bounded, terminated,
 * no NUL inside, and its hash matching (an entry being written fails that). */
static const char *strtab_get(struct koff_reader *r, uint32_t off)
{
	struct str_cache_entry *e = &r->cache[(off >> 3) % STR_CACHE];
	uint64_t size = r->g.strtab_size;
	uint8_t eh[8];
	uint32_t len, hash;
	char *text;

	if (e->text && e->off == off)
		return e->ok ? e->text : NULL;
	if (!off || (off & 7) || (uint64_t)off + 8 > size)
		return NULL;
	if (src_read(r, r->g.strtab_off + off, eh, 8))
		return NULL;
	len = kt_load_u32(eh, false);
	hash = kt_load_u32(eh + 4, false);
	if (len >= KOFF_MAX_STRING || (uint64_t)off + 8 + len + 1 > size)
		return NULL;
	text = malloc(len + 1);
	if (!text)
		return NULL;
	if (src_read(r, r->g.strtab_off + off + 8, text, len + 1) || text[len] != '\0' ||
	    strlen(text) != len || koff_hash_str(text, len) != hash) {
		free(text);
		return NULL;
	}
	free(e->text);
	e->text = text;
	e->off = off;
	e->ok = 1;
	return text;
}

/* ---- records ---------------------------------------------------------------------- */

static int read_slots(struct koff_reader *r, uint64_t first, uint32_t n, uint8_t *dst)
{
	uint64_t slot = first & (r->g.nentries - 1);
	uint64_t part = r->g.nentries - slot < n ? r->g.nentries - slot : n;
	int ret;

	ret = src_read(r, r->g.ring_off + slot * KOFF_REC_SIZE, dst, (size_t)part * KOFF_REC_SIZE);
	if (!ret && part < n)
		ret = src_read(r, r->g.ring_off, dst + part * KOFF_REC_SIZE,
			       (size_t)(n - part) * KOFF_REC_SIZE);
	return ret;
}

static int fill_window(struct koff_reader *r, struct ktrace_error *err)
{
	uint64_t left = r->end - r->next;
	uint32_t n = left < WINDOW ? (uint32_t)left : WINDOW;
	int ret;

	r->win_first = r->next;
	r->win_n = n;
	r->win_pos = 0;
	if (r->live) {
		ret = read_slots(r, r->win_first, n, r->pass);
		for (uint32_t i = 0; !ret && i < n; i++)
			r->stamp_a[i] = kt_load_u64(r->pass + (size_t)i * KOFF_REC_SIZE, false);
		if (!ret)
			ret = read_slots(r, r->win_first, n, r->recs);
		if (!ret)
			ret = read_slots(r, r->win_first, n, r->pass);
		for (uint32_t i = 0; !ret && i < n; i++)
			r->stamp_c[i] = kt_load_u64(r->pass + (size_t)i * KOFF_REC_SIZE, false);
	} else {
		ret = read_slots(r, r->win_first, n, r->recs);
		for (uint32_t i = 0; !ret && i < n; i++)
			r->stamp_a[i] = r->stamp_c[i] =
				kt_load_u64(r->recs + (size_t)i * KOFF_REC_SIZE, false);
	}
	if (ret)
		return ktrace_error_at(err, ret, r->g.ring_off +
				       (r->win_first & (r->g.nentries - 1)) * KOFF_REC_SIZE,
				       "cannot read records: %s", strerror(-ret));
	return 0;
}

/* A stamp that shows the slot was taken for a later sequence number than seq. */
static bool later(uint64_t stamp, uint64_t seq, uint64_t n)
{
	if (stamp & KOFF_STAMP_BUSY)
		return (stamp & ~KOFF_STAMP_BUSY) > seq;
	return stamp > seq + n;
}

static void resolve_strings(struct koff_reader *r, struct koff_record *rec, uint32_t str)
{
	bool own_process = r->kind == KOFF_SRC_CORE && rec->pid == r->info.core_pid;
	const char *fmt = NULL;
	struct koff_fmt f;

	rec->fmt = NULL;
	rec->fmt_error = 0;
	for (int i = 0; i < 5; i++)
		rec->strs[i] = NULL;
	/* The format: from the buffer's string table, else (crash dumps of the process
	 * that logged it) from its memory or its program file. */
	if (str)
		fmt = strtab_get(r, str);
	if (!fmt && own_process && rec->fmt_addr &&
	    koff_core_string(r->core, rec->fmt_addr, r->fmt_text, sizeof(r->fmt_text)) >= 0)
		fmt = r->fmt_text;
	if (!fmt)
		return;
	rec->fmt = fmt;
	if (koff_fmt_parse(fmt, strlen(fmt), &f)) {
		rec->fmt_error = 1;
		return;
	}
	/* %s arguments: readable only in the crashed process's memory. */
	for (int i = 0; i < f.nconv; i++) {
		const struct koff_conv *c = &f.c[i];
		int n;

		if (c->conv != 's' || !own_process || !rec->args[c->argi])
			continue;
		n = koff_core_string(r->core, rec->args[c->argi], r->args_text[c->argi],
				     sizeof(r->args_text[c->argi]));
		if (n >= 0 || n == -E2BIG)     /* a long string is shown cut */
			rec->strs[c->argi] = r->args_text[c->argi];
	}
}

/*
 * At the end: the records logged since the last flush are those published (the sum of
 * the slots' publication counts, read after the records) plus those being written;
 * the ones published but not shown were overwritten.
 */
static void sum_counts(struct koff_reader *r)
{
	uint64_t published = 0;

	r->summed = true;
	if (!r->info.allocated || !r->recs)
		return;
	for (uint64_t first = 0; first < r->g.nentries; first += WINDOW) {
		uint32_t n = r->g.nentries - first < WINDOW ? (uint32_t)(r->g.nentries - first)
							    : WINDOW;

		if (src_read(r, r->g.ring_off + first * KOFF_REC_SIZE, r->recs,
			     (size_t)n * KOFF_REC_SIZE))
			return;
		for (uint32_t i = 0; i < n; i++)
			published += kt_load_u64(r->recs + (size_t)i * KOFF_REC_SIZE + KOFF_R_COUNT,
						 false);
	}
	published = published >= r->g.flushed ? published - r->g.flushed : 0;
	if (published < r->counts.shown)       /* a flush raced with this dump */
		published = r->counts.shown;
	r->counts.logged = published + r->counts.unfinished;
	r->counts.overwritten = published - r->counts.shown;
}

/* Records accepted from the ring in sequence order: 1 with *seq_out and *rec_out (the
 * record's bytes, valid until the next call), 0 at the end, or an error. */
static int next_in_ring(struct koff_reader *r, uint64_t *seq_out, const uint8_t **rec_out,
			struct ktrace_error *err)
{
	for (;;) {
		const uint8_t *p;
		uint64_t seq, want, own;
		uint32_t i;
		int ret;

		if (r->win_pos >= r->win_n) {
			if (r->next >= r->end)
				return 0;
			ret = fill_window(r, err);
			if (ret)
				return ret;
			r->next += r->win_n;
		}
		i = r->win_pos++;
		seq = r->win_first + i;
		want = seq + r->g.nentries;
		p = r->recs + (size_t)i * KOFF_REC_SIZE;
		own = kt_load_u64(p + KOFF_R_STAMP, false);
		if (r->stamp_a[i] != want || r->stamp_c[i] != want || own != want) {
			/* Overwritten (taken for a later number, counted at the end from
			 * the publication counts), being written, or never claimed. */
			if (!later(r->stamp_a[i], seq, r->g.nentries) &&
			    !later(r->stamp_c[i], seq, r->g.nentries) &&
			    !later(own, seq, r->g.nentries)) {
				if (r->stamp_a[i] == (KOFF_STAMP_BUSY | seq) ||
				    r->stamp_c[i] == (KOFF_STAMP_BUSY | seq) ||
				    own == (KOFF_STAMP_BUSY | seq))
					r->counts.unfinished++;
				else
					r->counts.skipped++;
			}
			continue;
		}
		*seq_out = seq;
		*rec_out = p;
		return 1;
	}
}

static bool item_before(const struct sort_item *a, const struct sort_item *b)
{
	return a->ns != b->ns ? a->ns < b->ns : a->seq < b->seq;
}

static void heap_push(struct koff_reader *r, struct sort_item it)
{
	uint32_t i = r->heap_n++;

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (!item_before(&it, &r->heap[parent]))
			break;
		r->heap[i] = r->heap[parent];
		i = parent;
	}
	r->heap[i] = it;
}

static struct sort_item heap_pop(struct koff_reader *r)
{
	struct sort_item top = r->heap[0], last = r->heap[--r->heap_n];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= r->heap_n)
			break;
		if (c + 1 < r->heap_n && item_before(&r->heap[c + 1], &r->heap[c]))
			c++;
		if (!item_before(&r->heap[c], &last))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (r->heap_n)
		r->heap[i] = last;
	return top;
}

static void fill_record(struct koff_reader *r, const uint8_t *p, uint64_t seq,
			struct koff_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->seq = seq;
	rec->ns = kt_load_u64(p + KOFF_R_NS, false);
	rec->tid = kt_load_u64(p + KOFF_R_TID, false);
	rec->id = kt_load_u64(p + KOFF_R_ID, false);
	rec->fmt_addr = kt_load_u64(p + KOFF_R_FMT, false);
	for (int k = 0; k < 5; k++)
		rec->args[k] = kt_load_u64(p + KOFF_R_ARGS + 8 * k, false);
	rec->pid = kt_load_u32(p + KOFF_R_PID, false);
	rec->flags = kt_load_u32(p + KOFF_R_FLAGS, false);
	resolve_strings(r, rec, kt_load_u32(p + KOFF_R_STR, false));
}

int koff_reader_next(struct koff_reader *r, struct koff_record *rec, struct ktrace_error *err)
{
	struct sort_item it;

	if (r->kind == KOFF_SRC_SNAPSHOT)
		return koff_snap_next(r->snap, rec, err);
	if (!r->info.allocated || !r->heap)
		return 0;
	/* Fill the heap up to the sort window (or the end of the ring), then return its
	 * earliest record. */
	while (!r->raw_done && r->heap_n <= r->heap_cap) {
		const uint8_t *p = NULL;
		uint64_t seq = 0;
		int ret = next_in_ring(r, &seq, &p, err);

		if (ret < 0)
			return ret;
		if (ret == 0) {
			r->raw_done = true;
			break;
		}
		it.ns = kt_load_u64(p + KOFF_R_NS, false);
		it.seq = seq;
		it.slot = r->free_slots[--r->nfree];
		memcpy(r->sort_recs + (size_t)it.slot * KOFF_REC_SIZE, p, KOFF_REC_SIZE);
		heap_push(r, it);
		r->counts.shown++;
	}
	if (r->raw_done && !r->summed)
		sum_counts(r);
	if (!r->heap_n)
		return 0;
	it = heap_pop(r);
	r->free_slots[r->nfree++] = it.slot;
	fill_record(r, r->sort_recs + (size_t)it.slot * KOFF_REC_SIZE, it.seq, rec);
	return 1;
}

/* ---- formatting -------------------------------------------------------------------- */

size_t koff_record_format(const struct koff_record *rec, char tag[11], char *rest,
			  size_t restlen)
{
	struct koff_fmt f;
	size_t len, rest_at;
	int taglen;

	tag[0] = '\0';
	if (!rec->fmt) {
		return (size_t)snprintf(rest, restlen,
					"<format at 0x%llx not found> %llx %llx %llx %llx %llx",
					(unsigned long long)rec->fmt_addr,
					(unsigned long long)rec->args[0],
					(unsigned long long)rec->args[1],
					(unsigned long long)rec->args[2],
					(unsigned long long)rec->args[3],
					(unsigned long long)rec->args[4]);
	}
	len = strnlen(rec->fmt, KOFF_MAX_STRING);
	if (rec->fmt_error || koff_fmt_parse(rec->fmt, len, &f)) {
		char esc[128];

		koff_escape(rec->fmt, len > 60 ? 60 : len, esc, sizeof(esc));
		return (size_t)snprintf(rest, restlen, "<unusable format \"%s\">", esc);
	}
	taglen = koff_fmt_tag(rec->fmt, len, &rest_at);
	if (taglen > 0) {
		char esc[64];

		koff_escape(rec->fmt, (size_t)taglen > 40 ? 40 : (size_t)taglen, esc, sizeof(esc));
		esc[KOFF_TAG_WIDTH] = '\0';
		memcpy(tag, esc, strlen(esc) + 1);
	}
	return koff_fmt_render(rec->fmt, len, rest_at, &f, rec->args, rec->strs, rest, restlen);
}

/* A KOFF buffer file, or a snapshot (`ktrace dump -o`): a Darwin V3 container whose
 * first chunk after the header is KOFF's information chunk (tag 0x4b4f0001). */
static bool koff_match(const uint8_t *p, size_t len)
{
	uint64_t first;

	if (len >= 8 && !memcmp(p, "KOFFRING", 8))
		return true;
	if (len < 16 || kt_load_u32(p, false) != 0x55aa0300)
		return false;
	first = 16 + kt_load_u64(p + 8, false);
	first = (first + 7) & ~7ULL;
	return first >= 16 && first <= len - 4 && kt_load_u32(p + first, false) == 0x4b4f0001;
}

const struct kt_detector kt_detector_koff = { KTRACE_FORMAT_KOFF, "KOFF trace buffer", koff_match };
