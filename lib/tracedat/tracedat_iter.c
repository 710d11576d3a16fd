// SPDX-License-Identifier: MIT
/*
 * trace.dat record iteration: one stream per (buffer, CPU), each walking its pages
 * with kbuffer, merged by timestamp with a binary heap.
 *
 * Uncompressed data is read straight from the mapping; pages a stream has finished
 * with are handed back to the kernel (madvise) so the resident set stays small even
 * for huge files. Compressed data is decompressed one chunk (at most 10 pages) at a
 * time per stream; the iterators of several threads may share the decompressed chunks
 * (tracedat_iter_share, tracedat_share.c).
 */
#include <ktrace/kbuffer.h>
#include <ktrace/tracedat.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/bigmem.h"
#include "common/check.h"
#include "common/cursor.h"
#include "common/damage.h"
#include "tracedat/tracedat_skip.h"
#include "common/grow.h"
#include "common/input_file.h"
#include "tracedat/tracedat_int.h"
#include "tracedat/tracedat_share.h"

/* Consumed mapped data is released in steps of this many bytes, or of half the bytes
 * kept for the caller (tracedat_iter_keep_mapped: all streams together keep about
 * TD_KEEP_TOTAL resident), at least TD_RELEASE_MIN: each release (madvise) flushes the
 * TLBs of every CPU the process runs on, with IPIs, costly on a VM (a v7 report of 17 MB
 * of zstd chunks, two threads: 357 releases at half of a 256 KiB keep, 127 in steps of
 * 2 MiB, 4-8% faster; 3 MiB more resident). */
#define TD_RELEASE_STEP (4u << 20)
#define TD_RELEASE_MIN (2u << 20)
/* Uncompressed data of a file is read into blocks of about this many bytes (a whole
 * number of sub-buffers), used again once nothing may look at them. */
#define TD_BLOCK (256u << 10)
#define TD_KEEP_TOTAL (32u << 20)
#define TD_KEEP_MIN (1u << 20)
#define TD_KEEP_MAX (8u << 20)

struct td_block {
	uint8_t *mem;
	size_t cap;                /* bytes allocated */
	uint64_t pos;              /* data offset of mem[0] */
	size_t len;                /* bytes read */
	struct td_zslot *slot;     /* a shared chunk held instead of mem's bytes */
};

struct td_stream {
	struct tracedat *td;
	struct tracedat_iter *it;
	struct td_buffer *b;
	struct td_cpu *cpu;
	unsigned int buffer;
	bool host_sync;
	struct kbuffer *kb;
	uint64_t pos;              /* next page, as an offset in the CPU's (uncompressed) data */
	uint64_t end;              /* bytes of data */
	/* compressed data */
	uint64_t chunk_next;       /* file offset of the next chunk header */
	uint32_t chunks_left;
	uint8_t *chunk;            /* the chunk's buffer when nothing is kept */
	const uint8_t *chunk_data; /* the current chunk's bytes (chunk, or a block's) */
	size_t chunk_cap, chunk_len;
	uint64_t chunk_pos;        /* data offset of the chunk's first byte */
	uint64_t chunk_file;       /* file offset of the current chunk header */
	/* current page */
	const uint8_t *page;
	size_t page_len;
	uint64_t page_pos;
	/* the built-in page walker (kbuffer is used instead for the old ring-buffer
	 * layout and with TRACEDAT_KBUFFER_WALK) */
	bool use_kb;
	bool big;                  /* big-endian data */
	unsigned int hdr;          /* sub-buffer header size: 12 or 16 */
	const uint8_t *pdata;      /* page + hdr */
	size_t avail;              /* page_len - hdr */
	size_t commit;             /* bytes of records */
	size_t next;               /* next record header, from pdata */
	uint64_t wts;              /* time of the last record walked */
	long long page_lost;
	bool correct;              /* timestamps need correcting */
	int zreader;               /* reader id of the shared chunks (-1: not shared) */
	uint64_t released;         /* file offset up to which mapped pages were released */
	uint64_t keep;             /* bytes read past a record before its pages go (0: none) */
	/* uncompressed data of a file read into blocks, oldest first (read_blocks); or,
	 * when keep is set, the decompressed chunks of a compressed stream */
	bool read_blocks;
	struct td_block *blocks;
	size_t nblocks, blocks_cap;
	/* current record, or the error met */
	struct tracedat_record rec;
	int error;
	struct ktrace_error err;
	/* damaged sub-buffers left behind: a run of them not told yet (one place), from
	 * its first one's error to data offset dmg_next */
	size_t dmg_pages;
	uint64_t dmg_next;
	struct ktrace_error dmg;
	bool dmg_rest;             /* the run's first sub-buffer gave records before */
	bool page_read;            /* a record of the current page went out (set on its
				    * first one, which always takes stream_fill_slow) */
	bool strict;               /* tracedat_cpu_data: damage is an error, nothing skipped */
	uint8_t *scratch;          /* kbuffer: the page cut by the end of the file, its commit
				    * made what is left */
};

struct tracedat_iter {
	struct tracedat *td;
	struct td_stream *streams;
	size_t nstreams;
	size_t *heap;
	size_t nheap;
	struct td_codec codec;
	long last;                 /* stream whose record was handed out last, or -1 */
	bool started;
	bool raw;
	bool ended;                /* every record handed out */
	int error;
	struct ktrace_error err;
	size_t sys_page;
	/* damage: places left behind (the first TD_MAX_DAMAGE kept, the last one also
	 * apart), and the damage found at open in the data read (the last one) */
	size_t ndamage;
	struct ktrace_error damage;
	struct ktrace_error *places;
	size_t nplaces, places_cap;
	const struct ktrace_error *open_damage;
};

/* ------------------------------------------------------------------ timestamps */

/* (a * mul) >> shift on 64 bits, as the kernel's mul_u64_u32_shr. */
static uint64_t mul_u64_u32_shr(uint64_t a, uint32_t mul, unsigned int shift)
{
	unsigned __int128 r = (unsigned __int128)a * mul;

	if (shift >= 128)
		return 0;
	return (uint64_t)(r >> shift);
}

static uint64_t tsync_calc(uint64_t ts, uint32_t flags, const struct td_tsync_sample *min,
			   const struct td_tsync_sample *max)
{
	int64_t tscor = min->offset;

	if (flags & 1) {   /* interpolate between the two samples */
		int64_t delta = (int64_t)((uint64_t)max->time - (uint64_t)min->time);
		int64_t off = (int64_t)((ts - (uint64_t)min->time) *
					((uint64_t)max->offset - (uint64_t)min->offset));
		int64_t num = (int64_t)((uint64_t)off + (uint64_t)(delta / 2));

		if (delta && !(num == INT64_MIN && delta == -1))
			tscor = (int64_t)((uint64_t)min->offset + (uint64_t)(num / delta));
	}
	ts *= (uint64_t)min->scaling;
	ts = min->fraction >= 0 && min->fraction < 64 ? ts >> min->fraction : 0;
	/* ts - |tscor| or ts + tscor: the same thing modulo 2^64 */
	return ts + (uint64_t)tscor;
}

static uint64_t host_sync(const struct tracedat *td, unsigned int cpu, uint64_t ts)
{
	const struct td_tsync_cpu *tc;
	const struct td_tsync_sample *s;
	size_t n;
	long lo, hi, mid;

	if (cpu >= td->tsync_cpus)
		return ts;
	tc = &td->tsync[cpu];
	s = tc->samples;
	n = tc->count;
	if (n == 0)
		return ts;
	if (n == 1)
		return ts + (uint64_t)s[0].offset;
	if (n == 2 || ts <= (uint64_t)s[0].time)
		return tsync_calc(ts, td->tsync_flags, &s[0], &s[1]);
	if (ts >= (uint64_t)s[n - 1].time)
		return tsync_calc(ts, td->tsync_flags, &s[n - 2], &s[n - 1]);
	lo = 0;
	hi = (long)n - 1;
	mid = (lo + hi) / 2;
	while (lo <= hi) {
		if (ts < (uint64_t)s[mid].time)
			hi = mid - 1;
		else if (ts > (uint64_t)s[mid].time)
			lo = mid + 1;
		else
			break;
		mid = (lo + hi) / 2;
	}
	if (mid < 0)
		mid = 0;
	if ((size_t)mid + 1 >= n)
		mid = (long)n - 2;
	return tsync_calc(ts, td->tsync_flags, &s[mid], &s[mid + 1]);
}

static uint64_t correct_ts(const struct tracedat *td, bool sync, unsigned int cpu, uint64_t ts)
{
	if (td->flags & TRACEDAT_RAW_TS)
		return ts;
	if (sync && td->tsync)
		ts = host_sync(td, cpu, ts);
	if (td->has_tsc && td->tsc_mult)
		ts = mul_u64_u32_shr(ts, td->tsc_mult, td->tsc_shift);
	return ts + (uint64_t)td->ts_offset;
}

uint64_t tracedat_correct_ts(const struct tracedat *td, unsigned int buffer, unsigned int cpu,
			     uint64_t raw_ts)
{
	bool sync = buffer < td->nbufs && td->bufs[buffer].host_sync;

	return correct_ts(td, sync, cpu, raw_ts);
}

/* ------------------------------------------------------------------ streams */

static void release_mapped(struct td_stream *s, uint64_t upto, size_t sys_page)
{
	struct tracedat *td = s->td;
	uint64_t start, end;

	if (!td->release_pages ||
	    upto < s->released + (s->keep / 2 > TD_RELEASE_MIN ? s->keep / 2 : TD_RELEASE_MIN) + s->keep)
		return;
	upto -= s->keep;       /* what callers may still look at stays */
	start = (s->released + sys_page - 1) & ~((uint64_t)sys_page - 1);
	end = upto & ~((uint64_t)sys_page - 1);
	if (end > start)
		madvise((void *)(td->map + start), (size_t)(end - start), MADV_DONTNEED);
	s->released = upto;
}

static int stream_error(struct td_stream *s, int code, uint64_t offset, const char *detail)
{
	s->error = code;
	ktrace_error_at(&s->err, code, offset, "%s%s%sCPU %u: %s", s->b->pub.name[0] ? "buffer \"" : "", s->b->pub.name,
			s->b->pub.name[0] ? "\" " : "", s->cpu->pub.cpu, detail);
	return code;
}

/* Tells the run of damaged sub-buffers left behind, if any: one damaged place. */
static void flush_damage(struct td_stream *s)
{
	struct tracedat_iter *it = s->it;
	struct ktrace_error e = s->dmg;
	size_t n = s->dmg_pages;
	size_t len = strnlen(e.message, sizeof(e.message));

	if (!n)
		return;
	s->dmg_pages = 0;
	if (n == 1)
		snprintf(e.message + len, sizeof(e.message) - len, ", %s skipped",
			 s->dmg_rest ? "the rest of the sub-buffer" : "sub-buffer");
	else
		snprintf(e.message + len, sizeof(e.message) - len, ", %zu sub-buffers skipped", n);
	if (it->nplaces < TD_MAX_DAMAGE &&
	    !kt_grow((void **)&it->places, &it->places_cap, it->nplaces + 1, sizeof(*it->places)))
		it->places[it->nplaces++] = e;
	it->ndamage++;
	it->damage = e;
	kt_damage(tracedat_name(s->td), &e);
}

/* A damaged sub-buffer, or chunk of `pages` sub-buffers, found at file offset `at`,
 * holding data offsets [from, to): left behind, the stream reads on after it (one
 * place is told for a run of them: flush_damage). rest: the sub-buffer's records before
 * the damage went out. 0, or for a strict stream the error. */
static int page_damage(struct td_stream *s, int code, uint64_t at, uint64_t from, uint64_t to,
		       size_t pages, bool rest, const char *detail)
{
	char where[48] = "";

	if (s->strict)
		return stream_error(s, code, at, detail);
	if (s->dmg_pages && s->dmg_next == from) {
		s->dmg_pages += pages;
		s->dmg_next = to;
		return 0;
	}
	flush_damage(s);
	/* in a chunk (at names the chunk): which of its sub-buffers */
	if (s->b->pub.compressed && s->chunk_data && from >= s->chunk_pos &&
	    to <= s->chunk_pos + s->chunk_len)
		snprintf(where, sizeof(where), "chunk's sub-buffer %" PRIu64 ": ",
			 (from - s->chunk_pos) / s->b->pub.page_size);
	ktrace_error_at(&s->dmg, code, at, "%s%s%sCPU %u: %s%s", s->b->pub.name[0] ? "buffer \"" : "",
			s->b->pub.name, s->b->pub.name[0] ? "\" " : "", s->cpu->pub.cpu, where, detail);
	s->dmg_pages = pages;
	s->dmg_next = to;
	s->dmg_rest = rest;
	return 0;
}

/* The block for data from offset at on (read pages, or a kept decompressed chunk): the
 * oldest once the walk is keep bytes past its end (what tracedat_iter_keep_mapped and
 * tracedat_iter_keep promise callers), else a new one; its length 0 until filled. NULL
 * when out of memory. */
static struct td_block *next_block(struct td_stream *s, uint64_t at)
{
	if (s->nblocks && s->blocks[0].pos + s->blocks[0].len + s->keep <= at) {
		struct td_block old = s->blocks[0];

		if (old.slot) {
			td_zs_put(s->cpu, old.slot);
			old.slot = NULL;
		}
		memmove(&s->blocks[0], &s->blocks[1], (s->nblocks - 1) * sizeof(*s->blocks));
		s->blocks[s->nblocks - 1] = old;
	} else {
		if (kt_grow((void **)&s->blocks, &s->blocks_cap, s->nblocks + 1, sizeof(*s->blocks)))
			return NULL;
		memset(&s->blocks[s->nblocks++], 0, sizeof(*s->blocks));
	}
	s->blocks[s->nblocks - 1].pos = at;
	s->blocks[s->nblocks - 1].len = 0;
	return &s->blocks[s->nblocks - 1];
}

/* Decompresses the next chunk of a compressed stream: into the stream's one buffer, or
 * with keep set into a block of its own that stays until the walk is keep bytes past.
 * A shared stream (always with blocks) takes the chunk from its CPU's shared ones
 * instead when it can, its block holding it as long. */
static int next_chunk(struct td_stream *s, struct td_codec *codec, size_t sys_page)
{
	struct tracedat *td = s->td;
	struct td_block *b = NULL;
	struct td_zslot *slot = NULL;
	uint8_t **buf = &s->chunk;
	size_t *cap = &s->chunk_cap;
	uint64_t at = s->chunk_pos + s->chunk_len;
	uint32_t csize, usize;

	if (!s->chunks_left)
		return stream_error(s, -EBADMSG, s->chunk_next, "no chunk left");
	/* after a damaged chunk header, the chunks found again (check_cpu_data) */
	if (s->cpu->resync_at && s->cpu->pub.chunks - s->chunks_left == s->cpu->resync_chunk)
		s->chunk_next = s->cpu->resync_at;
	/* check_cpu_data validated every chunk header and size already */
	csize = kt_load_u32(td->map + s->chunk_next, td->hdr.big_endian);
	usize = kt_load_u32(td->map + s->chunk_next + 4, td->hdr.big_endian);
	if (s->keep || s->zreader >= 0) {
		b = next_block(s, at);
		if (!b)
			return stream_error(s, -ENOMEM, s->chunk_next, "out of memory for a chunk");
		buf = &b->mem;
		cap = &b->cap;
	}
	if (s->zreader >= 0)
		slot = td_zs_get(s->cpu, s->zreader, s->cpu->pub.chunks - s->chunks_left, codec,
				 td->map + s->chunk_next + 8, csize, usize);
	if (slot) {
		b->slot = slot;
		s->chunk_data = td_zs_data(slot);
	} else {
		switch (td_decompress_grow(codec, td->map + s->chunk_next + 8, csize, buf, cap,
					   usize)) {
		case 0:
			break;
		case -ENOMEM:
			return stream_error(s, -ENOMEM, s->chunk_next, "out of memory for a chunk");
		default: {
			/* left behind: the stream goes on with the next chunk */
			size_t ps = s->b->pub.page_size;
			int ret = page_damage(s, -EBADMSG, s->chunk_next, at, at + usize,
					      (usize + ps - 1) / ps, false, "cannot decompress chunk");

			if (ret)
				return ret;
			buf = NULL;
			break;
		}
		}
		s->chunk_data = buf ? *buf : NULL;
	}
	if (b)
		b->len = s->chunk_data ? usize : 0;
	s->chunk_pos += s->chunk_len;
	s->chunk_len = usize;
	s->chunk_file = s->chunk_next;
	s->chunk_next += 8 + (uint64_t)csize;
	s->chunks_left--;
	if (!s->chunk_data)
		s->pos = s->chunk_pos + usize;     /* a damaged chunk: its pages skipped */
	release_mapped(s, s->chunk_file, sys_page);
	return 0;
}

/* The block that holds the page at data offset s->pos (page_len bytes), read from the
 * file. A block is used again once the walk is keep bytes past its end (what
 * tracedat_iter_keep_mapped promises callers); until then a new one is added. */
static int block_page(struct td_stream *s, size_t ps, const uint8_t **page)
{
	struct td_block *b = s->nblocks ? &s->blocks[s->nblocks - 1] : NULL;
	uint64_t left = s->end - s->pos;
	size_t len;
	int ret;

	if (b && s->pos >= b->pos && s->pos - b->pos + s->page_len <= b->len) {
		*page = b->mem + (s->pos - b->pos);
		return 0;
	}
	len = TD_BLOCK > ps ? TD_BLOCK / ps * ps : ps;
	if (len > left)
		len = (size_t)left;
	b = next_block(s, s->pos);
	if (!b)
		return -ENOMEM;
	if (b->cap < len) {
		uint8_t *mem = kt_realloc_array(b->mem, len, 1);

		if (!mem)
			return -ENOMEM;
		/* filled by pread right away: resident in one call, not a fault per page */
		kt_populate(mem + b->cap, len - b->cap);
		b->mem = mem;
		b->cap = len;
	}
	b->len = len;
	ret = kt_input_pread(s->td->in, b->mem, len, s->cpu->pub.offset + s->pos);
	if (ret) {
		b->len = 0;
		return ret;
	}
	*page = b->mem;
	return 0;
}

/* Whether the stream's current page is the last one of data cut short by the end of
 * the file (its records are read up to there; the cut was told at open). */
static bool cut_page(const struct td_stream *s)
{
	return s->cpu->cut_page && !s->b->pub.compressed && s->pos >= s->end;
}

/* Loads the next page that reads: 1 loaded, 0 no more, < 0 error. A damaged page (or
 * chunk) is left behind (page_damage) and the next one loaded. */
static int next_page(struct td_stream *s, struct td_codec *codec, size_t sys_page)
{
	struct tracedat *td = s->td;
	size_t ps = s->b->pub.page_size;
	unsigned int hdr = (unsigned int)td->hdr.kernel_long_size + 8;
	uint64_t page_file;
	int ret;

next:
	if (s->pos >= s->end) {
		flush_damage(s);
		return 0;
	}
	if (s->b->pub.compressed) {
		uint64_t in;

		while (s->pos >= s->chunk_pos + s->chunk_len) {
			if (s->pos >= s->end)
				goto next;
			ret = next_chunk(s, codec, sys_page);
			if (ret)
				return ret;
		}
		in = s->pos - s->chunk_pos;
		s->page_len = s->chunk_len - in < ps ? (size_t)(s->chunk_len - in) : ps;
		s->page = s->chunk_data + in;
		page_file = s->chunk_file;
	} else {
		page_file = s->cpu->pub.offset + s->pos;
		s->page_len = s->end - s->pos < ps ? (size_t)(s->end - s->pos) : ps;
		if (s->read_blocks) {
			ret = block_page(s, ps, &s->page);
			if (ret == -ENOMEM)
				return stream_error(s, ret, page_file, "out of memory for a block");
			if (ret)
				return stream_error(s, ret, page_file, "cannot read the file");
		} else {
			s->page = td->map + page_file;
			release_mapped(s, page_file, sys_page);
		}
	}
	s->page_pos = s->pos;
	s->pos += s->page_len;
	s->page_read = false;
	if (s->strict && cut_page(s))
		return stream_error(s, s->cpu->cut.code, s->cpu->cut.offset, s->cpu->cut.message);
	if (s->page_len < hdr) {
		s->page = NULL;
		if (cut_page(s))
			goto next;
		ret = page_damage(s, -ENODATA, page_file, s->page_pos, s->pos, 1, false,
				  "truncated sub-buffer at the end of the data");
		if (ret)
			return ret;
		goto next;
	}
	s->rec.page = s->page;
	s->rec.page_len = s->page_len;
	if (s->b->pub.compressed) {
		s->rec.page_offset = s->page_pos;
		s->rec.chunk_offset = s->chunk_file;
		s->rec.chunk_end = s->chunk_pos + s->chunk_len;
	} else {
		s->rec.page_offset = s->cpu->pub.offset + s->page_pos;
		s->rec.chunk_offset = 0;
		s->rec.chunk_end = 0;
	}
	if (s->use_kb) {
		uint64_t commit = hdr == 16 ? kt_load_u64(s->page + 8, s->big)
					    : kt_load_u32(s->page + 8, s->big);

		if (cut_page(s) && (commit & ((1u << 27) - 1)) > s->page_len - hdr) {
			/* the records before the end of the file, as the walker reads them:
			 * kbuffer reads up to the commit (a lost count after it is gone) */
			if (!s->scratch && !(s->scratch = malloc(ps)))
				return stream_error(s, -ENOMEM, page_file, "out of memory for a page");
			memcpy(s->scratch, s->page, s->page_len);
			commit = (commit & (1ull << 31)) | (s->page_len - hdr);
			if (hdr == 16)
				kt_store_u64(s->scratch + 8, commit, s->big);
			else
				kt_store_u32(s->scratch + 8, (uint32_t)commit, s->big);
			s->page = s->scratch;
			s->rec.page = s->page;
		}
		kbuffer_load_subbuffer_len(s->kb, (void *)s->page, s->page_len);
		if (kbuffer_corrupt(s->kb)) {
			s->page = NULL;
			if (cut_page(s))
				goto next;
			ret = page_damage(s, -EBADMSG, page_file, s->page_pos, s->pos, 1, false,
					  "sub-buffer commit size exceeds the page");
			if (ret)
				return ret;
			goto next;
		}
		return 1;
	}
	/* u64 timestamp, kernel long commit: bits 0-26 bytes of records, bit 31 events
	 * were lost before the page, bit 30 their count follows the records */
	{
		uint64_t commit = hdr == 16 ? kt_load_u64(s->page + 8, s->big)
					    : kt_load_u32(s->page + 8, s->big);

		s->pdata = s->page + hdr;
		s->avail = s->page_len - hdr;
		s->commit = (size_t)(commit & ((1u << 27) - 1));
		s->wts = kt_load_u64(s->page, s->big);
		s->next = 0;
		if (s->commit > s->avail) {
			if (cut_page(s)) {
				/* the records before the end of the file */
				s->commit = s->avail;
			} else {
				s->page = NULL;
				ret = page_damage(s, -EBADMSG, page_file, s->page_pos, s->pos, 1, false,
						  "sub-buffer commit size exceeds the page");
				if (ret)
					return ret;
				goto next;
			}
		}
		if (!(commit & (1ull << 31)))
			s->page_lost = 0;
		else if ((commit & (1ull << 30)) && s->avail - s->commit >= hdr - 8)
			s->page_lost = (long long)(hdr == 16 ? kt_load_u64(s->pdata + s->commit, s->big)
							     : kt_load_u32(s->pdata + s->commit, s->big));
		else
			s->page_lost = -1;
	}
	return 1;
}

/*
 * Walks to the next event of the page, as kbuffer does (same records, timestamps and
 * sizes), filling the record. 1 an event, 0 end of the page, -1 corrupt.
 */
static inline __attribute__((always_inline)) int walk_next(struct td_stream *s,
							       struct tracedat_record *r)
{
	const uint8_t *d = s->pdata;
	size_t avail = s->avail;

	while (s->next < s->commit) {
		size_t off = s->next, payload;
		uint32_t w, type_len;
		uint64_t delta, length;

		if (avail - off < 4)
			return -1;
		/* Hardware prefetchers stop at page boundaries, and the next page of this
		 * CPU follows this one (in the file or the chunk): read ahead by hand. A
		 * prefetch never faults, whatever the address. */
		__builtin_prefetch(d + off + 1024);
		w = kt_load_u32(d + off, s->big);
		if (s->big) {
			type_len = w >> 27;
			delta = w & ((1u << 27) - 1);
		} else {
			type_len = w & 31;
			delta = w >> 5;
		}
		switch (type_len) {
		case KBUFFER_TYPE_PADDING:
			s->wts += delta;
			if (avail - off < 8) {
				/* a padding ending the page may lack its length word */
				if (delta)
					return -1;
				length = avail - off - 4;
			} else {
				int32_t l = (int32_t)kt_load_u32(d + off + 4, s->big);

				if (l < 0)
					return -1;
				length = (uint64_t)l;
			}
			s->next = (size_t)(off + 4 + length > SIZE_MAX / 2 ? SIZE_MAX / 2
									   : off + 4 + length);
			continue;
		case KBUFFER_TYPE_TIME_EXTEND:
			if (avail - off < 8)
				return -1;
			s->wts += ((uint64_t)kt_load_u32(d + off + 4, s->big) << TS_SHIFT) + delta;
			s->next = off + 8;
			continue;
		case KBUFFER_TYPE_TIME_STAMP: {
			uint64_t ext;

			if (avail - off < 8)
				return -1;
			ext = ((uint64_t)kt_load_u32(d + off + 4, s->big) << TS_SHIFT) + delta;
			s->wts = ext | (s->wts & (0xf8ull << 56));
			s->next = off + 8;
			continue;
		}
		case 0: {
			int32_t l;

			if (avail - off < 8)
				return -1;
			l = (int32_t)(kt_load_u32(d + off + 4, s->big) - 4);
			if (l > INT32_MAX - 3)
				return -1;
			l = (int32_t)(((uint32_t)l + 3) & ~3u);
			if (l < 0)
				return -1;
			length = (uint64_t)l;
			payload = off + 8;
			break;
		}
		default:
			length = (uint64_t)type_len * 4;
			payload = off + 4;
			break;
		}
		s->wts += delta;
		if (length > avail - payload)
			return -1;
		r->raw_ts = s->wts;
		r->data = d + payload;
		r->size = (uint32_t)length;
		r->record_size = (uint32_t)(payload + length - off);
		r->missed_events = off == 0 ? s->page_lost : 0;
		r->offset = r->page_offset + s->hdr + off;
		s->next = payload + (size_t)length;
		return 1;
	}
	return 0;
}

/* Positions the stream on its next record (the kbuffer's current event or later).
 * 1 a record, 0 end of data, < 0 error (kept in the stream). */
static __attribute__((noinline)) int stream_fill_slow(struct td_stream *s, struct td_codec *codec,
						      size_t sys_page, bool raw)
{
	struct tracedat_record *r = &s->rec;
	int ret;

	for (;;) {
		if (s->page && !s->use_kb) {
			ret = walk_next(s, r);
			if (ret > 0) {
				/* a page that reads ends the run of damaged ones before */
				if (s->dmg_pages)
					flush_damage(s);
				s->page_read = true;
				r->ts = !s->correct ? r->raw_ts
					: correct_ts(s->td, s->host_sync, s->cpu->pub.cpu, r->raw_ts);
				return 1;
			}
			if (ret < 0) {
				uint64_t at = s->b->pub.compressed ? s->chunk_file
								   : s->cpu->pub.offset + s->page_pos;

				s->page = NULL;
				/* the records before the place went out; a record cut by the
				 * end of the file is the cut told at open */
				ret = cut_page(s) ? 0
				      : page_damage(s, -EBADMSG, at, s->page_pos, s->page_pos + s->page_len, 1,
						    s->page_read, "corrupt sub-buffer (a record runs past its end)");
				if (ret)
					return ret;
			}
		} else if (s->page) {
			unsigned long long ts;
			void *data = kbuffer_read_event(s->kb, &ts);

			if (data) {
				long long lost = kbuffer_lost_events(s->kb);

				if (s->dmg_pages)
					flush_damage(s);
				s->page_read = true;

				r->raw_ts = ts;
				r->ts = raw ? ts : correct_ts(s->td, s->host_sync, s->cpu->pub.cpu, ts);
				r->data = data;
				r->size = (uint32_t)kbuffer_event_size(s->kb);
				r->record_size = (uint32_t)kbuffer_curr_size(s->kb);
				/* trace-cmd reports lost events on the page's first record only
				 * when it starts the data (no time record before it) */
				r->missed_events = kbuffer_curr_index(s->kb) == 0 ? lost : 0;
				r->offset = r->page_offset + (uint64_t)kbuffer_curr_offset(s->kb);
				kbuffer_next_event(s->kb, NULL);   /* the walk is one ahead */
				return 1;
			}
			if (kbuffer_corrupt(s->kb)) {
				uint64_t at = s->b->pub.compressed ? s->chunk_file
								   : s->cpu->pub.offset + s->page_pos;

				s->page = NULL;
				ret = cut_page(s) ? 0
				      : page_damage(s, -EBADMSG, at, s->page_pos, s->page_pos + s->page_len, 1,
						    s->page_read, "corrupt sub-buffer (a record runs past its end)");
				if (ret)
					return ret;
			}
		}
		s->page = NULL;
		ret = next_page(s, codec, sys_page);
		if (ret <= 0)
			return ret;
	}
}

/* The same, the next record of the page walked here (most records), the rest there. */
static inline __attribute__((always_inline)) int stream_fill(struct td_stream *s,
							      struct td_codec *codec,
							      size_t sys_page, bool raw)
{
	if (s->page && !s->use_kb && walk_next(s, &s->rec) > 0) {
		s->rec.ts = !s->correct ? s->rec.raw_ts
			  : correct_ts(s->td, s->host_sync, s->cpu->pub.cpu, s->rec.raw_ts);
		return 1;
	}
	return stream_fill_slow(s, codec, sys_page, raw);
}

/* ------------------------------------------------------------------ heap */

static bool before(const struct tracedat_iter *it, size_t a, size_t b)
{
	const struct td_stream *x = &it->streams[a], *y = &it->streams[b];

	if (x->rec.ts != y->rec.ts)
		return x->rec.ts < y->rec.ts;
	return a < b;
}

static void heap_push(struct tracedat_iter *it, size_t s)
{
	size_t i = it->nheap++;

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(it, s, it->heap[parent]))
			break;
		it->heap[i] = it->heap[parent];
		i = parent;
	}
	it->heap[i] = s;
}

static size_t heap_pop(struct tracedat_iter *it)
{
	size_t top = it->heap[0];
	size_t last = it->heap[--it->nheap];
	size_t i = 0, n = it->nheap;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		size_t cand = last;

		if (l >= n)
			break;
		if (before(it, it->heap[l], cand)) {
			m = l;
			cand = it->heap[l];
		}
		if (r < n && before(it, it->heap[r], cand))
			m = r;
		if (m == i)
			break;
		it->heap[i] = it->heap[m];
		i = m;
	}
	if (n)
		it->heap[i] = last;
	return top;
}

/* ------------------------------------------------------------------ iterator */

/* The entries of a buffer to read: all of them (cpu < 0), or the one of the CPU (the
 * entries are sorted by CPU id), found by binary search: a file may claim many CPUs. */
static void cpu_range(const struct td_buffer *buf, int cpu, size_t *lo, size_t *hi)
{
	size_t l = 0, u = buf->ncpus;

	if (cpu < 0) {
		*lo = 0;
		*hi = buf->ncpus;
		return;
	}
	while (l < u) {
		size_t m = l + (u - l) / 2;

		if (buf->cpus[m].pub.cpu < (unsigned int)cpu)
			l = m + 1;
		else
			u = m;
	}
	*lo = l;
	*hi = l < buf->ncpus && buf->cpus[l].pub.cpu == (unsigned int)cpu ? l + 1 : l;
}

int tracedat_iter_new(struct tracedat *td, int buffer, int cpu, struct tracedat_iter **out,
		      struct ktrace_error *err)
{
	struct tracedat_iter *it;
	size_t first = 0, last = td->nbufs, n = 0;
	long page = sysconf(_SC_PAGESIZE);

	*out = NULL;
	if (buffer != TRACEDAT_ALL_BUFFERS) {
		if (buffer < 0 || (size_t)buffer >= td->nbufs)
			return ktrace_error_set(err, -EINVAL, "no buffer %d", buffer);
		first = (size_t)buffer;
		last = first + 1;
	}
	it = calloc(1, sizeof(*it));
	if (!it)
		return kt_error_oom(err);
	it->td = td;
	it->last = -1;
	it->raw = td->flags & TRACEDAT_RAW_TS;
	it->sys_page = page > 0 ? (size_t)page : 4096;
	for (size_t b = first; b < last; b++) {
		size_t lo, hi;

		if (!td->bufs[b].pub.latency) {
			cpu_range(&td->bufs[b], cpu, &lo, &hi);
			n += hi - lo;
		}
	}
	it->streams = calloc(n ? n : 1, sizeof(*it->streams));
	it->heap = calloc(n ? n : 1, sizeof(*it->heap));
	if (!it->streams || !it->heap || td_codec_init(&it->codec, td->codec_kind)) {
		tracedat_iter_free(it);
		return kt_error_oom(err);
	}
	for (size_t b = first; b < last; b++) {
		struct td_buffer *buf = &td->bufs[b];
		size_t lo, hi;

		if (buf->pub.latency)
			continue;
		cpu_range(buf, cpu, &lo, &hi);
		for (size_t c = lo; c < hi; c++) {
			struct td_stream *s;

			if (buf->cpus[c].damaged)
				it->open_damage = &buf->cpus[c].cut;
			if (!buf->cpus[c].pub.data_size)
				continue;
			s = &it->streams[it->nstreams++];
			s->td = td;
			s->it = it;
			s->b = buf;
			s->cpu = &buf->cpus[c];
			s->buffer = (unsigned int)b;
			s->host_sync = buf->host_sync;
			s->end = s->cpu->pub.data_size;
			s->chunk_next = s->cpu->first_chunk;
			s->chunks_left = s->cpu->pub.chunks;
			s->zreader = -1;
			s->released = buf->pub.compressed ? s->cpu->first_chunk : s->cpu->pub.offset;
			s->read_blocks = !buf->pub.compressed && (td->flags & TRACEDAT_READ_COPIES) &&
					 kt_input_pread(td->in, NULL, 0, 0) == 0;
			s->rec.buffer = (unsigned int)b;
			s->rec.cpu = s->cpu->pub.cpu;
			s->rec.cpu_index = (unsigned int)c;
			s->rec.compressed = buf->pub.compressed;
			s->kb = kbuffer_alloc(td->hdr.kernel_long_size == 4 ? KBUFFER_LSIZE_4
									     : KBUFFER_LSIZE_8,
					      td->hdr.big_endian ? KBUFFER_ENDIAN_BIG
								 : KBUFFER_ENDIAN_LITTLE);
			if (!s->kb) {
				tracedat_iter_free(it);
				return kt_error_oom(err);
			}
			if (td->hdr.old_format)
				kbuffer_set_old_format(s->kb);
			s->use_kb = td->hdr.old_format || (td->flags & TRACEDAT_KBUFFER_WALK);
			s->big = td->hdr.big_endian;
			s->hdr = td->hdr.kernel_long_size + 8;
			s->correct = !it->raw && (td->ts_offset || (td->has_tsc && td->tsc_mult) ||
						  (buf->host_sync && td->tsync));
		}
	}
	/* records lost beyond one CPU's data (the layout recovered at open) */
	if (td->data_damaged && td->ndamage && !it->open_damage)
		it->open_damage = &td->damage[tracedat_damage_count(td) - 1];
	*out = it;
	return 0;
}

int tracedat_iter_share(struct tracedat_iter *it)
{
	for (size_t i = 0; i < it->nstreams; i++) {
		struct td_stream *s = &it->streams[i];

		if (s->b->pub.compressed && s->zreader < 0)
			s->zreader = td_zs_attach(s->cpu, s->cpu->pub.chunks - s->chunks_left);
	}
	return 0;
}

void tracedat_iter_keep(struct tracedat_iter *it, size_t bytes)
{
	for (size_t i = 0; i < it->nstreams; i++)
		it->streams[i].keep = bytes;
}

size_t tracedat_iter_keep_mapped(struct tracedat_iter *it)
{
	size_t keep = it->nstreams ? TD_KEEP_TOTAL / it->nstreams : TD_KEEP_MAX;

	if (keep > TD_KEEP_MAX)
		keep = TD_KEEP_MAX;
	if (keep < TD_KEEP_MIN)
		keep = TD_KEEP_MIN;
	for (size_t i = 0; i < it->nstreams; i++)
		it->streams[i].keep = keep;
	return keep;
}

/* Puts a stream back in the merge after stream_fill: with its record, or with its
 * error (ordered at the time of its last record, so that what precedes the damage
 * comes out first). */
static void requeue(struct tracedat_iter *it, size_t i, int ret)
{
	if (ret != 0)
		heap_push(it, i);
}

/* Moves the current stream to its next record: true when it is still the earliest of
 * the merge (it stays the current one), false when it went back into the merge. */
static inline __attribute__((always_inline)) bool move_current(struct tracedat_iter *it)
{
	struct td_stream *s = &it->streams[it->last];
	int ret = stream_fill(s, &it->codec, it->sys_page, it->raw);

	/* still the earliest: no need to go through the heap */
	if (ret > 0 && (!it->nheap || before(it, (size_t)it->last, it->heap[0])))
		return true;
	requeue(it, (size_t)it->last, ret);
	it->last = -1;
	return false;
}

/* Every record went out: 0, or the error of the damage met (the last place told, else
 * the damage found at open in the data read), kept as the iterator's. */
static int iter_end(struct tracedat_iter *it, struct ktrace_error *err)
{
	const struct ktrace_error *e = it->ndamage ? &it->damage : it->open_damage;

	it->ended = true;
	if (!e)
		return 0;
	it->err = *e;
	it->error = e->code < 0 ? e->code : -EBADMSG;
	if (err)
		*err = it->err;
	return it->error;
}

bool tracedat_iter_ended(const struct tracedat_iter *it)
{
	return it->ended;
}

size_t tracedat_iter_damage_count(const struct tracedat_iter *it)
{
	return it->nplaces;
}

const struct ktrace_error *tracedat_iter_damage(const struct tracedat_iter *it, size_t i)
{
	return i < it->nplaces ? &it->places[i] : NULL;
}

/* The merge's earliest stream becomes the current one: 1 with *rec its record, 0 at the
 * end, or its error (kept in the iterator). */
static int take_earliest(struct tracedat_iter *it, const struct tracedat_record **rec,
			 struct ktrace_error *err)
{
	struct td_stream *s;
	size_t i;

	if (!it->nheap)
		return iter_end(it, err);
	i = heap_pop(it);
	s = &it->streams[i];
	if (s->error) {
		it->error = s->error;
		it->err = s->err;
		if (err)
			*err = s->err;
		return s->error;
	}
	it->last = (long)i;
	*rec = &s->rec;
	return 1;
}

int tracedat_iter_next(struct tracedat_iter *it, const struct tracedat_record **rec,
		       struct ktrace_error *err)
{
	*rec = NULL;
	if (it->error) {
		if (err)
			*err = it->err;
		return it->error;
	}
	if (!it->started) {
		it->started = true;
		for (size_t i = 0; i < it->nstreams; i++)
			requeue(it, i, stream_fill(&it->streams[i], &it->codec, it->sys_page, it->raw));
	} else if (it->last >= 0 && move_current(it)) {
		*rec = &it->streams[it->last].rec;
		return 1;
	}
	return take_earliest(it, rec, err);
}

int tracedat_iter_skip(struct tracedat_iter *it, const struct tracedat_skip *how, uint64_t max,
		       uint64_t *skipped, const struct tracedat_record **rec,
		       struct ktrace_error *err)
{
	uint64_t n = 0;
	int ret;

	*skipped = 0;
	*rec = NULL;
	if (it->error) {
		if (err)
			*err = it->err;
		return it->error;
	}
	if (!it->started || it->last < 0)
		return 0;
	for (;;) {
		const struct td_stream *s = &it->streams[it->last];
		const struct tracedat_record *r = &s->rec;
		size_t i;

		if (n == max || r->size < (uint64_t)how->id_offset + 2)
			break;
		i = kt_load_u16(r->data + how->id_offset, s->big);
		if (i >= how->nids ||
		    (how->skip ? how->skip[i] != 1 && (how->skip[i] != 2 || !how->check(how->arg, r, i))
			       : !how->check(how->arg, r, i)))
			break;
		n++;
		/* as tracedat_iter_next moves on */
		if (!move_current(it)) {
			ret = take_earliest(it, rec, err);
			if (ret <= 0) {
				*skipped = n;
				*rec = NULL;
				return ret;
			}
		}
	}
	*skipped = n;
	*rec = &it->streams[it->last].rec;
	return 1;
}

/* A stream's memory (its CPU's shared chunks let go). */
static void stream_free(struct td_stream *s)
{
	kbuffer_free(s->kb);
	free(s->chunk);
	free(s->scratch);
	for (size_t b = 0; b < s->nblocks; b++) {
		if (s->blocks[b].slot)
			td_zs_put(s->cpu, s->blocks[b].slot);
		free(s->blocks[b].mem);
	}
	free(s->blocks);
	td_zs_detach(s->cpu, s->zreader);
}

int tracedat_iter_only_cpus(struct tracedat_iter *it, const int *cpus, size_t n)
{
	size_t kept = 0;

	if (it->started)
		return -EBUSY;
	for (size_t i = 0; i < it->nstreams; i++) {
		bool wanted = false;

		for (size_t k = 0; k < n && !wanted; k++)
			wanted = cpus[k] >= 0 && (unsigned int)cpus[k] == it->streams[i].cpu->pub.cpu;
		if (!wanted)
			stream_free(&it->streams[i]);
		else
			it->streams[kept++] = it->streams[i];
	}
	it->nstreams = kept;
	return 0;
}

void tracedat_iter_free(struct tracedat_iter *it)
{
	if (!it)
		return;
	for (size_t i = 0; i < it->nstreams; i++)
		stream_free(&it->streams[i]);
	free(it->streams);
	free(it->heap);
	free(it->places);
	td_codec_fini(&it->codec);
	free(it);
}

/* ------------------------------------------------------------------ latency text */

int tracedat_latency_text(struct tracedat *td, size_t buffer,
			  int (*fn)(const char *text, size_t len, void *arg), void *arg,
			  struct ktrace_error *err)
{
	struct td_buffer *b;
	struct td_codec codec;
	uint64_t off, end;
	uint32_t count;
	uint8_t *buf = NULL;
	size_t cap = 0;
	int ret = 0;

	if (buffer >= td->nbufs || !td->bufs[buffer].pub.latency)
		return ktrace_error_set(err, -EINVAL, "buffer %zu has no latency text", buffer);
	b = &td->bufs[buffer];
	off = b->latency_offset;
	end = off + b->latency_size;
	if (!b->pub.compressed)
		return fn((const char *)td->map + off, (size_t)b->latency_size, arg);
	if (end - off < 4)
		return ktrace_error_at(err, -ENODATA, off, "truncated: latency chunk count");
	if (td_codec_init(&codec, td->codec_kind))
		return kt_error_oom(err);
	count = kt_load_u32(td->map + off, td->hdr.big_endian);
	off += 4;
	for (uint32_t i = 0; i < count && !ret; i++) {
		uint32_t csize, usize;

		if (end - off < 8) {
			ret = ktrace_error_at(err, -ENODATA, off, "truncated: latency chunk header");
			break;
		}
		csize = kt_load_u32(td->map + off, td->hdr.big_endian);
		usize = kt_load_u32(td->map + off + 4, td->hdr.big_endian);
		if (csize > end - off - 8) {
			ret = ktrace_error_at(err, -ENODATA, off, "truncated: latency chunk");
			break;
		}
		if (usize > TD_PAGES_PER_CHUNK * (uint64_t)TD_MAX_PAGE_SIZE) {
			ret = ktrace_error_at(err, -EBADMSG, off, "latency chunk of %u bytes", usize);
			break;
		}
		ret = td_decompress_grow(&codec, td->map + off + 8, csize, &buf, &cap, usize);
		if (ret) {
			ret = ret == -ENOMEM ? kt_error_oom(err)
					     : ktrace_error_at(err, -EBADMSG, off,
							       "cannot decompress latency chunk");
			break;
		}
		ret = fn(buf ? (const char *)buf : "", usize, arg);
		off += 8 + (uint64_t)csize;
	}
	free(buf);
	td_codec_fini(&codec);
	return ret;
}

/* ------------------------------------------------------------------ raw CPU data */

/* Uncompressed data is handed out in slices of this many bytes. */
#define TD_CPU_DATA_SLICE (4u << 20)

/* Walks every record of the stream's current page, as stream_fill would: 0, or the
 * reader's error for a corrupt page (kept in the stream). */
static int check_page(struct td_stream *s)
{
	uint64_t at = s->b->pub.compressed ? s->chunk_file : s->cpu->pub.offset + s->page_pos;
	int ret = 0;

	if (s->use_kb) {
		while (kbuffer_read_event(s->kb, NULL))
			kbuffer_next_event(s->kb, NULL);
		ret = kbuffer_corrupt(s->kb) ? -1 : 0;
	} else {
		struct tracedat_record r = s->rec;

		while ((ret = walk_next(s, &r)) > 0)
			;
	}
	if (ret < 0)
		return stream_error(s, -EBADMSG, at, "corrupt sub-buffer (a record runs past its end)");
	return 0;
}

/* Whether buffer has a CPU cpu_index with records (not a latency buffer's text). */
static bool cpu_of(const struct tracedat *td, size_t buffer, size_t cpu_index)
{
	return buffer < td->nbufs && !td->bufs[buffer].pub.latency &&
	       cpu_index < td->bufs[buffer].ncpus;
}

/* An iterator of that CPU alone whose one stream stops at any damage (strict). */
static int strict_cpu_iter(struct tracedat *td, size_t buffer, size_t cpu_index,
			   struct tracedat_iter **it, struct ktrace_error *err)
{
	int ret = tracedat_iter_new(td, (int)buffer, (int)td->bufs[buffer].cpus[cpu_index].pub.cpu,
				    it, err);

	if (!ret)
		(*it)->streams[0].strict = true;
	return ret;
}

/* Where the built-in walker is on a page: what walk_next reads. */
struct page_walk {
	const uint8_t *pdata;
	size_t avail, commit, next;
	uint64_t wts, page_offset;
	long long lost;
};

static void walk_save(const struct td_stream *s, struct page_walk *w)
{
	*w = (struct page_walk){ s->pdata, s->avail, s->commit, s->next, s->wts,
				 s->rec.page_offset, s->page_lost };
}

static void walk_load(struct td_stream *s, const struct page_walk *w)
{
	s->pdata = w->pdata;
	s->avail = w->avail;
	s->commit = w->commit;
	s->next = w->next;
	s->wts = w->wts;
	s->rec.page_offset = w->page_offset;
	s->page_lost = w->lost;
}

static uint64_t walk_ts(const struct td_stream *s)
{
	return !s->correct ? s->rec.raw_ts : correct_ts(s->td, s->host_sync, s->cpu->pub.cpu,
							 s->rec.raw_ts);
}

/*
 * tracedat_cpu_span's walk of the mapped pages of an uncompressed CPU: only the records
 * it needs, the page's first (the CPU's first, the lost-events mark's) and, before a
 * mark, the last of the page with records before it, walked again from its start (its
 * bytes are still mapped). A corrupt record among those stops it as damage; one
 * elsewhere does not change what it finds.
 */
static int span_pages(struct td_stream *s, struct td_codec *codec, size_t sys_page,
		      struct tracedat_cpu_span *out,
		      int (*gap)(void *arg, uint64_t from, uint64_t to), void *arg)
{
	struct page_walk prev = { 0 }, here;
	int ret;

	while ((ret = next_page(s, codec, sys_page)) > 0) {
		uint64_t first, last = 0;

		walk_save(s, &here);
		ret = walk_next(s, &s->rec);
		if (ret < 0)
			return stream_error(s, -EBADMSG, s->rec.page_offset,
					    "corrupt sub-buffer (a record runs past its end)");
		if (!ret)
			continue;
		first = walk_ts(s);
		if (s->rec.missed_events && out->has) {
			walk_load(s, &prev);
			while ((ret = walk_next(s, &s->rec)) > 0)
				last = walk_ts(s);
			if (ret < 0)
				return stream_error(s, -EBADMSG, prev.page_offset,
						    "corrupt sub-buffer (a record runs past its end)");
			if ((ret = gap(arg, last, first)) != 0)
				return ret;
		}
		if (!out->has)
			out->first = first;
		out->has = true;
		prev = here;
	}
	return ret;
}

int tracedat_cpu_span(struct tracedat *td, size_t buffer, size_t cpu_index,
		      struct tracedat_cpu_span *out,
		      int (*gap)(void *arg, uint64_t from, uint64_t to), void *arg,
		      struct ktrace_error *err)
{
	struct tracedat_iter *it;
	struct td_stream *s;
	uint64_t last = 0;
	int ret;

	*out = (struct tracedat_cpu_span){ 0 };
	if (!cpu_of(td, buffer, cpu_index))
		return ktrace_error_set(err, -EINVAL, "no CPU %zu in buffer %zu", cpu_index, buffer);
	if (td->bufs[buffer].cpus[cpu_index].damaged)
		return ktrace_error_set(err, -EBADMSG, "CPU %zu of buffer %zu is damaged", cpu_index,
					buffer);
	if (!td->bufs[buffer].cpus[cpu_index].pub.data_size)
		return 0;
	/* that CPU's stream as the merge reads it; any damage stops it, untold */
	ret = strict_cpu_iter(td, buffer, cpu_index, &it, err);
	if (ret)
		return ret;
	s = &it->streams[0];
	if (!s->use_kb && !s->read_blocks && !s->b->pub.compressed)
		ret = span_pages(s, &it->codec, it->sys_page, out, gap, arg);
	else
		while ((ret = stream_fill(s, &it->codec, it->sys_page, it->raw)) > 0) {
			const struct tracedat_record *r = &s->rec;

			if (r->missed_events && out->has && (ret = gap(arg, last, r->ts)) != 0)
				break;
			if (!out->has)
				out->first = r->ts;
			out->has = true;
			last = r->ts;
		}
	if (ret < 0 && s->error && err)
		*err = s->err;
	tracedat_iter_free(it);
	return ret < 0 ? ret : 0;
}

int tracedat_cpu_data(struct tracedat *td, size_t buffer, size_t cpu_index,
		      int (*fn)(const void *data, size_t len, void *arg), void *arg,
		      struct ktrace_error *err)
{
	struct tracedat_iter *it;
	struct td_stream *s;
	int ret;

	if (!cpu_of(td, buffer, cpu_index))
		return ktrace_error_set(err, -EINVAL, "no CPU %zu in buffer %zu", cpu_index, buffer);
	if (!td->bufs[buffer].cpus[cpu_index].pub.data_size) {
		const struct td_cpu *c = &td->bufs[buffer].cpus[cpu_index];

		if (!c->damaged)
			return 0;
		if (err)
			*err = c->cut;
		return c->cut.code < 0 ? c->cut.code : -EBADMSG;
	}
	ret = strict_cpu_iter(td, buffer, cpu_index, &it, err);
	if (ret)
		return ret;
	/* the one stream of that CPU: its pages, each checked as the reader checks it */
	s = &it->streams[0];
	while ((ret = next_page(s, &it->codec, it->sys_page)) > 0) {
		if ((ret = check_page(s)) < 0)
			break;
		if ((ret = fn(s->page, s->page_len, arg)) != 0)
			break;
	}
	if (ret < 0 && s->error && err)
		*err = s->err;
	/* data cut short at open: the pages before the place, then its error */
	if (!ret && s->cpu->damaged) {
		ret = s->cpu->cut.code < 0 ? s->cpu->cut.code : -EBADMSG;
		if (err)
			*err = s->cpu->cut;
	}
	tracedat_iter_free(it);
	return ret < 0 ? ret : 0;
}
