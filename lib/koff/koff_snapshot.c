// SPDX-License-Identifier: MIT
/*
 * KOFF snapshots: the records of a buffer, formats and %s strings resolved, saved as
 * a Darwin ktrace file (V3 chunked container, see ktrace(5)) with chunk tags of our
 * own:
 *
 *   file header  56 bytes: magic 0x55aa0300, version 1.0, header size 40 (no header
 *                chunks), timebase 1/1, timestamp 0, wall time of the snapshot,
 *                time zone, flags 0
 *   INFO         0x4b4f0001: 24 little-endian u64 words (see INFO_* below)
 *   STRINGS      0x4b4f0002: NUL-terminated strings; a reference is offset + 1
 *   RECORDS      0x4b4f0003: KOFF_KT_REC_SIZE-byte records (see R_* below)
 *
 * Chunk headers are {u32 tag, u16 major, u16 minor, u64 size}, 8-byte aligned.
 * Readers skip chunks they do not know, as ktrace(5) asks. The file is written by the
 * Darwin ktrace_file writer (temporary file renamed when complete).
 */
#include <ktrace/ktrace_file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/check.h"
#include "common/cursor.h"
#include "koff/koff_int.h"
#include "common/grow.h"
#include "common/hashmap.h"

enum {
	INFO_VERSION, INFO_SOURCE, INFO_NENTRIES, INFO_ALLOCATED, INFO_ENABLED, INFO_MASK,
	INFO_HEAD, INFO_BASE, INFO_DROPPED, INFO_REJECTED, INFO_FLUSHES, INFO_STRTAB_USED,
	INFO_STRTAB_SIZE, INFO_CREATED_NS, INFO_CREATOR_PID, INFO_CORE_PID, INFO_SNAPSHOT_NS,
	INFO_LOGGED, INFO_SHOWN, INFO_OVERWRITTEN, INFO_UNFINISHED, INFO_PATH, INFO_BIAS,
	INFO_SKIPPED, INFO_WORDS = 24
};
_Static_assert(INFO_WORDS * 8 >= KOFF_KT_INFO_SIZE, "info size");

/* Record layout in a RECORDS chunk. */
enum {
	R_SEQ = 0, R_NS = 8, R_TID = 16, R_ID = 24, R_FMT_ADDR = 32, R_ARGS = 40, R_PID = 80,
	R_FLAGS = 84, R_FMT = 88, R_FMT_ERROR = 92, R_STRS = 96   /* 5 x u32 -> 116, pad */
};
#define SNAP_REC 120u
#define MAX_STRINGS_CHUNK (256u << 20)

/* ---- writing -------------------------------------------------------------------------- */

struct pool {
	char *data;
	size_t len, cap;
	struct kt_map index;    /* strings already in the pool: hash -> offset + 1 */
};

struct pool_key {
	const struct pool *p;
	const char *s;
};

static bool pool_eq(const void *ctx, uint32_t at)
{
	const struct pool_key *k = ctx;

	return !strcmp(k->p->data + at - 1, k->s);
}

/* The offset + 1 of s in the pool, added if new; 0 when out of room or memory. */
static uint32_t pool_add(struct pool *p, const char *s)
{
	size_t n = strlen(s);
	uint64_t h = kt_hash_bytes(s, n);
	struct pool_key k = { p, s };
	uint32_t at;

	if (kt_map_find(&p->index, h, pool_eq, &k, &at))
		return at;
	if (p->len + n + 1 > MAX_STRINGS_CHUNK)
		return 0;
	if (kt_grow((void **)&p->data, &p->cap, p->len + n + 1, 1) ||
	    kt_map_add(&p->index, h, (uint32_t)p->len + 1))
		return 0;
	memcpy(p->data + p->len, s, n + 1);
	p->len += n + 1;
	return (uint32_t)(p->len - n);
}


int koff_snapshot_write(struct koff_reader *r, const char *path, struct ktrace_error *err)
{
	const struct koff_info *info = koff_reader_info(r);
	struct pool pool = { 0 };
	struct koff_counts counts;
	struct koff_record rec;
	uint8_t *recs = NULL, infob[INFO_WORDS * 8];
	struct ktrace_file_header hdr;
	struct ktrace_file_writer *w;
	size_t nrec = 0, cap = 0;
	struct timeval tv;
	struct tm tm;
	int ret;

	while ((ret = koff_reader_next(r, &rec, err)) > 0) {
		uint8_t *p;

		if (nrec == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			uint8_t *n = kt_realloc_array(recs, ncap, SNAP_REC);

			if (!n) {
				ret = kt_error_oom(err);
				goto out;
			}
			recs = n;
			cap = ncap;
		}
		p = recs + nrec++ * SNAP_REC;
		memset(p, 0, SNAP_REC);
		kt_store_u64(p + R_SEQ, rec.seq, false);
		kt_store_u64(p + R_NS, rec.ns, false);
		kt_store_u64(p + R_TID, rec.tid, false);
		kt_store_u64(p + R_ID, rec.id, false);
		kt_store_u64(p + R_FMT_ADDR, rec.fmt_addr, false);
		for (int i = 0; i < 5; i++)
			kt_store_u64(p + R_ARGS + 8 * i, rec.args[i], false);
		kt_store_u32(p + R_PID, rec.pid, false);
		kt_store_u32(p + R_FLAGS, rec.flags, false);
		kt_store_u32(p + R_FMT, rec.fmt ? pool_add(&pool, rec.fmt) : 0, false);
		kt_store_u32(p + R_FMT_ERROR, (uint32_t)rec.fmt_error, false);
		for (int i = 0; i < 5; i++)
			kt_store_u32(p + R_STRS + 4 * i, rec.strs[i] ? pool_add(&pool, rec.strs[i]) : 0, false);
	}
	if (ret < 0)
		goto out;
	koff_reader_counts(r, &counts);

	memset(infob, 0, sizeof(infob));
	kt_store_u64(infob + 8 * INFO_VERSION, 1, false);
	kt_store_u64(infob + 8 * INFO_SOURCE, info->source, false);
	kt_store_u64(infob + 8 * INFO_NENTRIES, info->nentries, false);
	kt_store_u64(infob + 8 * INFO_ALLOCATED, info->allocated, false);
	kt_store_u64(infob + 8 * INFO_ENABLED, info->enabled, false);
	kt_store_u64(infob + 8 * INFO_MASK, info->mask, false);
	kt_store_u64(infob + 8 * INFO_HEAD, info->head, false);
	kt_store_u64(infob + 8 * INFO_BASE, info->base, false);
	kt_store_u64(infob + 8 * INFO_DROPPED, info->dropped, false);
	kt_store_u64(infob + 8 * INFO_REJECTED, info->rejected, false);
	kt_store_u64(infob + 8 * INFO_FLUSHES, info->flushes, false);
	kt_store_u64(infob + 8 * INFO_STRTAB_USED, info->strtab_used, false);
	kt_store_u64(infob + 8 * INFO_STRTAB_SIZE, info->strtab_size, false);
	kt_store_u64(infob + 8 * INFO_CREATED_NS, info->created_ns, false);
	kt_store_u64(infob + 8 * INFO_CREATOR_PID, info->creator_pid, false);
	kt_store_u64(infob + 8 * INFO_CORE_PID, info->core_pid, false);
	kt_store_u64(infob + 8 * INFO_SNAPSHOT_NS, koff_now_ns(), false);
	kt_store_u64(infob + 8 * INFO_LOGGED, counts.logged, false);
	kt_store_u64(infob + 8 * INFO_SHOWN, counts.shown, false);
	kt_store_u64(infob + 8 * INFO_OVERWRITTEN, counts.overwritten, false);
	kt_store_u64(infob + 8 * INFO_UNFINISHED, counts.unfinished, false);
	kt_store_u64(infob + 8 * INFO_PATH, info->path ? pool_add(&pool, info->path) : 0, false);
	kt_store_u64(infob + 8 * INFO_BIAS, info->load_bias, false);
	kt_store_u64(infob + 8 * INFO_SKIPPED, counts.skipped, false);

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	memset(&hdr, 0, sizeof(hdr));
	hdr.flavour = KTRACE_FILE_LIBKTRACE;
	hdr.major = 1;
	hdr.minor = 0;
	hdr.timebase_numer = 1;                      /* nanoseconds */
	hdr.timebase_denom = 1;
	hdr.walltime_secs = (uint64_t)tv.tv_sec;
	hdr.walltime_usecs = (uint32_t)tv.tv_usec;
	hdr.minutes_west = (int32_t)(-tm.tm_gmtoff / 60);
	hdr.dst = tm.tm_isdst > 0;
	ret = ktrace_file_writer_create(path, &hdr, &w, err);
	if (ret)
		goto out;
	ret = ktrace_file_writer_add_chunk(w, KOFF_KT_INFO, 1, 0, infob, sizeof(infob), err);
	if (!ret)
		ret = ktrace_file_writer_add_chunk(w, KOFF_KT_STRINGS, 1, 0, pool.data, pool.len,
						   err);
	if (!ret)
		ret = ktrace_file_writer_add_chunk(w, KOFF_KT_RECORDS, 1, 0, recs,
						   (uint64_t)nrec * SNAP_REC, err);
	if (!ret)
		ret = ktrace_file_writer_close(w, err);
	else
		ktrace_file_writer_abort(w);
out:
	free(recs);
	free(pool.data);
	kt_map_free(&pool.index);
	return ret < 0 ? ret : 0;
}

/* ---- reading -------------------------------------------------------------------------- */

struct koff_snap {
	struct ktrace_input *in;
	struct koff_info *info;
	char *strings;
	size_t strings_len;
	uint64_t pos;             /* next chunk header */
	uint64_t rec_off, rec_left;   /* inside a RECORDS chunk */
	uint64_t info_words[INFO_WORDS];
	bool have_info, have_records;
	struct koff_counts counts;
};

static const char *snap_str(const struct koff_snap *s, uint64_t ref)
{
	if (!ref || !s->strings || ref > s->strings_len)
		return NULL;
	return s->strings + ref - 1;   /* the chunk ends with a NUL (checked) */
}

static void apply_info(struct koff_snap *s)
{
	struct koff_info *i = s->info;
	const uint64_t *w = s->info_words;

	i->source = KOFF_SRC_SNAPSHOT;
	i->version = (uint32_t)w[INFO_VERSION];
	i->nentries = (uint32_t)(w[INFO_NENTRIES] > KOFF_MAX_ENTRIES ? KOFF_MAX_ENTRIES
								    : w[INFO_NENTRIES]);
	i->allocated = w[INFO_ALLOCATED] != 0;
	i->enabled = w[INFO_ENABLED] != 0;
	i->mask = w[INFO_MASK];
	i->head = w[INFO_HEAD];
	i->base = w[INFO_BASE];
	i->dropped = w[INFO_DROPPED];
	i->rejected = w[INFO_REJECTED];
	i->flushes = w[INFO_FLUSHES];
	i->strtab_used = w[INFO_STRTAB_USED];
	i->strtab_size = w[INFO_STRTAB_SIZE];
	i->created_ns = w[INFO_CREATED_NS];
	i->creator_pid = (uint32_t)w[INFO_CREATOR_PID];
	i->core_pid = (uint32_t)w[INFO_CORE_PID];
	i->snapshot_ns = w[INFO_SNAPSHOT_NS];
	i->load_bias = w[INFO_BIAS];
	i->path = snap_str(s, w[INFO_PATH]);
	s->counts.logged = w[INFO_LOGGED];
	s->counts.overwritten = w[INFO_OVERWRITTEN];
	s->counts.unfinished = w[INFO_UNFINISHED];
	s->counts.skipped = w[INFO_SKIPPED];
	s->counts.dropped = w[INFO_DROPPED];
}

/* Walks chunks until inside a RECORDS chunk (1), at the end (0), or an error. */
static int snap_advance(struct koff_snap *s, struct ktrace_error *err)
{
	for (;;) {
		const uint8_t *h, *d;
		uint64_t size, padded;
		uint32_t tag;
		int64_t got;
		int ret;

		got = ktrace_input_peek(s->in, s->pos, 16, &h, err);
		if (got < 0)
			return (int)got;
		/* a snapshot always has a records chunk (maybe empty): the file was cut */
		KT_RETURN_ERROR_AT_IF(got == 0 && !s->have_records, err, -ENODATA, s->pos,
				      "truncated: the snapshot ends before its records chunk");
		if (got == 0)
			return 0;
		KT_RETURN_ERROR_AT_IF(got < 16, err, -ENODATA, s->pos,
				      "truncated: chunk header needs 16 bytes, %lld left",
				      (long long)got);
		tag = kt_load_u32(h, false);
		size = kt_load_u64(h + 8, false);
		KT_RETURN_ERROR_AT_IF(size > (1ULL << 40), err, -EBADMSG, s->pos + 8,
				      "chunk size %llu too large", (unsigned long long)size);
		padded = (size + 7) & ~7ULL;
		switch (tag) {
		case KOFF_KT_INFO:
			KT_RETURN_ERROR_AT_IF(size < INFO_WORDS * 8, err, -EBADMSG, s->pos + 8,
					      "info chunk of %llu bytes (needs %u)",
					      (unsigned long long)size, INFO_WORDS * 8);
			ret = ktrace_input_get(s->in, s->pos + 16, INFO_WORDS * 8, &d, err);
			if (ret)
				return ret;
			for (int i = 0; i < INFO_WORDS; i++)
				s->info_words[i] = kt_load_u64(d + 8 * i, false);
			s->have_info = true;
			apply_info(s);
			break;
		case KOFF_KT_STRINGS:
			KT_RETURN_ERROR_AT_IF(s->strings, err, -EBADMSG, s->pos,
					      "second strings chunk");
			KT_RETURN_ERROR_AT_IF(size > MAX_STRINGS_CHUNK, err, -EBADMSG, s->pos + 8,
					      "strings chunk of %llu bytes is too large",
					      (unsigned long long)size);
			ret = ktrace_input_get(s->in, s->pos + 16, (size_t)size, &d, err);
			if (ret)
				return ret;
			KT_RETURN_ERROR_AT_IF(size && d[size - 1] != '\0', err, -EBADMSG,
					      s->pos + 16 + size - 1,
					      "strings chunk does not end with a NUL");
			s->strings = malloc(size ? (size_t)size : 1);
			if (!s->strings)
				return kt_error_oom(err);
			if (size)
				memcpy(s->strings, d, (size_t)size);
			s->strings_len = (size_t)size;
			if (s->have_info)
				apply_info(s);
			break;
		case KOFF_KT_RECORDS:
			KT_RETURN_ERROR_AT_IF(size % SNAP_REC, err, -EBADMSG, s->pos + 8,
					      "records chunk of %llu bytes is not a multiple of %u",
					      (unsigned long long)size, SNAP_REC);
			s->rec_off = s->pos + 16;
			s->rec_left = size / SNAP_REC;
			s->have_records = true;
			s->pos += 16 + padded;
			return 1;
		default:
			break;    /* not ours: skipped */
		}
		s->pos += 16 + padded;
	}
}

int koff_snap_open(struct ktrace_input *in, struct koff_snap **out, struct koff_info *info,
		   struct ktrace_error *err)
{
	struct koff_snap *s;
	const uint8_t *h;
	uint64_t hsize;
	int ret;

	*out = NULL;
	ret = ktrace_input_get(in, 0, 16, &h, err);
	if (ret)
		return ret;
	if (kt_load_u32(h, false) != KOFF_KT_MAGIC)
		return ktrace_error_at(err, -EBADMSG, 0, "not a ktrace V3 file");
	hsize = kt_load_u64(h + 8, false);
	KT_RETURN_ERROR_AT_IF(hsize < KOFF_KT_V3_HDR - 16 || hsize > (1ULL << 30), err, -EBADMSG,
			      8, "bad header size %llu", (unsigned long long)hsize);
	s = calloc(1, sizeof(*s));
	if (!s)
		return kt_error_oom(err);
	s->in = in;
	s->info = info;
	s->pos = (16 + hsize + 7) & ~7ULL;
	ret = snap_advance(s, err);
	if (ret < 0) {
		koff_snap_close(s);
		return ret;
	}
	if (!s->have_info) {
		koff_snap_close(s);
		return ktrace_error_at(err, -EBADMSG, 16 + hsize, "no KOFF information chunk: not "
				       "a KOFF snapshot");
	}
	if (ret == 0)
		s->rec_left = 0;
	*out = s;
	return 0;
}

int koff_snap_next(struct koff_snap *s, struct koff_record *rec, struct ktrace_error *err)
{
	const uint8_t *p;
	int ret;

	while (!s->rec_left) {
		if (!s->rec_off)
			return 0;
		s->rec_off = 0;
		ret = snap_advance(s, err);
		if (ret <= 0)
			return ret;
	}
	ret = ktrace_input_get(s->in, s->rec_off, SNAP_REC, &p, err);
	if (ret)
		return ret;
	s->rec_off += SNAP_REC;
	s->rec_left--;
	memset(rec, 0, sizeof(*rec));
	rec->seq = kt_load_u64(p + R_SEQ, false);
	rec->ns = kt_load_u64(p + R_NS, false);
	rec->tid = kt_load_u64(p + R_TID, false);
	rec->id = kt_load_u64(p + R_ID, false);
	rec->fmt_addr = kt_load_u64(p + R_FMT_ADDR, false);
	for (int i = 0; i < 5; i++) {
		rec->args[i] = kt_load_u64(p + R_ARGS + 8 * i, false);
		rec->strs[i] = snap_str(s, kt_load_u32(p + R_STRS + 4 * i, false));
	}
	rec->pid = kt_load_u32(p + R_PID, false);
	rec->flags = kt_load_u32(p + R_FLAGS, false);
	rec->fmt = snap_str(s, kt_load_u32(p + R_FMT, false));
	rec->fmt_error = kt_load_u32(p + R_FMT_ERROR, false) != 0;
	s->counts.shown++;
	return 1;
}

void koff_snap_counts(const struct koff_snap *s, struct koff_counts *c)
{
	*c = s->counts;
}

void koff_snap_close(struct koff_snap *s)
{
	if (!s)
		return;
	free(s->strings);
	free(s);
}
