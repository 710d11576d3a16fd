// SPDX-License-Identifier: MIT
/* KOFF buffer header: decoding and checking, shared by producers and readers. */
#include <errno.h>
#include <string.h>

#include "common/check.h"
#include "common/cursor.h"
#include "koff/koff_int.h"

uint32_t koff_round_entries(uint32_t n)
{
	uint32_t r = KOFF_MIN_ENTRIES;

	if (n >= KOFF_MAX_ENTRIES)
		return KOFF_MAX_ENTRIES;
	while (r < n)
		r <<= 1;
	return r;
}

/* Slots per group: 64 in rings of 4096 entries or more; in smaller rings fewer, so that
 * there are at least 64 groups for the writers to share. Every group costs its writer
 * one fetch-and-add on the shared head and one compare-and-swap of a line the other
 * writers wrote last: on hosts where a cache line crossing CPUs costs 150 to 200 ns, two
 * threads paid 63 ns a record with groups of 16, 29 ns with 64 (one thread: 13 ns). */
static uint32_t group_for(uint64_t nentries)
{
	uint32_t g = KOFF_MAX_GROUP;

	while (g > 1 && (uint64_t)g * 64 > nentries)
		g >>= 1;
	return g;
}

void koff_geom_layout(struct koff_geom *g, uint64_t nentries, uint64_t strtab)
{
	g->version = KOFF_VERSION;
	g->hdr_size = KOFF_HDR_SIZE;
	g->rec_size = KOFF_REC_SIZE;
	/* One hash slot per 64 bytes of strings, from 64 to KOFF_HASH_SLOTS. */
	g->hash_slots = 0;
	if (strtab) {
		g->hash_slots = 64;
		while (g->hash_slots < KOFF_HASH_SLOTS && (uint64_t)g->hash_slots * 64 < strtab)
			g->hash_slots <<= 1;
	}
	g->ptr_size = sizeof(void *);
	g->nentries = nentries;
	g->group = group_for(nentries);
	g->max_age = nentries / 4 < KOFF_MAX_AGE ? (uint32_t)(nentries / 4) : KOFF_MAX_AGE;
	g->hash_off = KOFF_HDR_SIZE;
	g->ring_off = g->hash_off + (uint64_t)g->hash_slots * 4;
	g->ring_off = (g->ring_off + 4095) & ~4095ULL;
	g->strtab_off = g->ring_off + nentries * KOFF_REC_SIZE;
	g->strtab_size = strtab;
	g->file_size = g->strtab_off + strtab;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int koff_geom_decode(const uint8_t *hdr, size_t hdr_len, uint64_t avail, struct koff_geom *g,
		     struct ktrace_error *err)
{
	uint32_t order;

	memset(g, 0, sizeof(*g));
	KT_RETURN_ERROR_AT_IF(hdr_len < KOFF_HDR_SIZE, err, -ENODATA, hdr_len,
			      "truncated: the KOFF header needs %u bytes, %zu present",
			      KOFF_HDR_SIZE, hdr_len);
	KT_RETURN_ERROR_AT_IF(memcmp(hdr, KOFF_MAGIC, KOFF_MAGIC_LEN), err, -EBADMSG, 0,
			      "not a KOFF trace buffer (bad magic)");
	order = kt_load_u32(hdr + KOFF_H_BYTE_ORDER, false);
	KT_RETURN_ERROR_AT_IF(order != KOFF_BYTE_ORDER, err, -ENOTSUP, KOFF_H_BYTE_ORDER,
			      "buffer written with another byte order (0x%08x)", order);
	g->version = kt_load_u32(hdr + KOFF_H_VERSION, false);
	KT_RETURN_ERROR_AT_IF(g->version < KOFF_VERSION_MIN || g->version > KOFF_VERSION, err,
			      -ENOTSUP, KOFF_H_VERSION,
			      "KOFF buffer version %u: this libktrace reads versions %u to %u%s",
			      g->version, KOFF_VERSION_MIN, KOFF_VERSION,
			      g->version > KOFF_VERSION ? " (a newer libktrace wrote it)" : "");
	g->hdr_size = kt_load_u32(hdr + KOFF_H_HDR_SIZE, false);
	g->rec_size = kt_load_u32(hdr + KOFF_H_REC_SIZE, false);
	g->nentries = kt_load_u64(hdr + KOFF_H_NENTRIES, false);
	g->ring_off = kt_load_u64(hdr + KOFF_H_RING_OFF, false);
	g->strtab_off = kt_load_u64(hdr + KOFF_H_STRTAB_OFF, false);
	g->strtab_size = kt_load_u64(hdr + KOFF_H_STRTAB_SIZE, false);
	g->hash_off = kt_load_u64(hdr + KOFF_H_HASH_OFF, false);
	g->hash_slots = kt_load_u32(hdr + KOFF_H_HASH_SLOTS, false);
	g->ptr_size = kt_load_u32(hdr + KOFF_H_PTR_SIZE, false);
	g->file_size = kt_load_u64(hdr + KOFF_H_FILE_SIZE, false);
	g->created_ns = kt_load_u64(hdr + KOFF_H_CREATED_NS, false);
	g->state = kt_load_u32(hdr + KOFF_H_STATE, false);
	g->creator_pid = kt_load_u32(hdr + KOFF_H_CREATOR_PID, false);
	g->group = g->version >= 2 ? kt_load_u32(hdr + KOFF_H_GROUP, false) : 1;
	g->max_age = g->version >= 2 ? kt_load_u32(hdr + KOFF_H_MAX_AGE, false) : 0;
	g->gate = kt_load_u64(hdr + KOFF_H_GATE, false);
	g->mask = kt_load_u64(hdr + KOFF_H_MASK, false);
	g->enabled = kt_load_u32(hdr + KOFF_H_ENABLED, false);
	g->head = kt_load_u64(hdr + KOFF_H_HEAD, false);
	g->base = kt_load_u64(hdr + KOFF_H_BASE, false);
	g->flushed = kt_load_u64(hdr + KOFF_H_FLUSHED, false);
	g->dropped = kt_load_u64(hdr + KOFF_H_DROPPED, false);
	g->rejected = kt_load_u64(hdr + KOFF_H_REJECTED, false);
	g->flushes = kt_load_u64(hdr + KOFF_H_FLUSHES, false);
	g->strtab_used = kt_load_u64(hdr + KOFF_H_STRTAB_USED, false);
	g->strtab_full = kt_load_u64(hdr + KOFF_H_STRTAB_FULL, false);

	KT_RETURN_ERROR_AT_IF(g->hdr_size != KOFF_HDR_SIZE, err, -EBADMSG, KOFF_H_HDR_SIZE,
			      "header size %u (expected %u)", g->hdr_size, KOFF_HDR_SIZE);
	KT_RETURN_ERROR_AT_IF(g->rec_size != KOFF_REC_SIZE, err, -EBADMSG, KOFF_H_REC_SIZE,
			      "record size %u (expected %u)", g->rec_size, KOFF_REC_SIZE);
	KT_RETURN_ERROR_AT_IF(g->ptr_size != 4 && g->ptr_size != 8, err, -EBADMSG, KOFF_H_PTR_SIZE,
			      "pointer size %u", g->ptr_size);
	if (g->state != KOFF_STATE_READY) {
		/* Reserved (or being allocated): only the requested size matters. */
		if (g->state != KOFF_STATE_RESERVED && g->state != KOFF_STATE_ALLOCATING)
			return ktrace_error_at(err, -EBADMSG, KOFF_H_STATE, "bad buffer state %u",
					       g->state);
		KT_RETURN_ERROR_AT_IF(g->nentries > KOFF_MAX_ENTRIES, err, -EBADMSG,
				      KOFF_H_NENTRIES, "requested size %llu exceeds %u entries",
				      (unsigned long long)g->nentries, KOFF_MAX_ENTRIES);
		return 0;
	}
	if (!is_pow2(g->nentries) || g->nentries < KOFF_MIN_ENTRIES ||
	    g->nentries > KOFF_MAX_ENTRIES)
		return ktrace_error_at(err, -EBADMSG, KOFF_H_NENTRIES,
				       "bad entry count %llu (a power of two from %u to %u)",
				       (unsigned long long)g->nentries, KOFF_MIN_ENTRIES,
				       KOFF_MAX_ENTRIES);
	if (!is_pow2(g->group) || g->group > KOFF_MAX_GROUP || g->group > g->nentries)
		return ktrace_error_at(err, -EBADMSG, KOFF_H_GROUP,
				       "bad group size %u (a power of two up to %u)", g->group,
				       KOFF_MAX_GROUP);
	KT_RETURN_ERROR_AT_IF(g->max_age > KOFF_MAX_AGE || g->max_age >= g->nentries, err,
			      -EBADMSG, KOFF_H_MAX_AGE, "bad maximum age %u", g->max_age);
	KT_RETURN_ERROR_AT_IF(g->hash_slots && (!is_pow2(g->hash_slots) || g->hash_slots > 65536),
			      err, -EBADMSG, KOFF_H_HASH_SLOTS, "bad hash slot count %u",
			      g->hash_slots);
	KT_RETURN_ERROR_AT_IF(g->strtab_size > KOFF_MAX_STRTAB || (g->strtab_size & 7), err,
			      -EBADMSG, KOFF_H_STRTAB_SIZE, "bad string table size %llu",
			      (unsigned long long)g->strtab_size);
	/* Every region lies after the header, in order, without overlap; all values are
	 * bounded above so the sums cannot overflow once each is checked. */
	if (g->hash_off < KOFF_HDR_SIZE || g->hash_off > (1ULL << 40) ||
	    g->ring_off < g->hash_off + (uint64_t)g->hash_slots * 4 || g->ring_off > (1ULL << 40) ||
	    (g->ring_off & 7) || (g->hash_off & 3) ||
	    g->strtab_off < g->ring_off + g->nentries * KOFF_REC_SIZE ||
	    g->strtab_off > (1ULL << 40) || (g->strtab_off & 7) ||
	    g->file_size < g->strtab_off + g->strtab_size || g->file_size > (1ULL << 41))
		return ktrace_error_at(err, -EBADMSG, KOFF_H_NENTRIES,
				       "inconsistent buffer layout (ring at 0x%llx, strings at 0x%llx, "
				       "file size %llu)", (unsigned long long)g->ring_off,
				       (unsigned long long)g->strtab_off,
				       (unsigned long long)g->file_size);
	KT_RETURN_ERROR_AT_IF(g->file_size > avail, err, -ENODATA, avail,
			      "truncated: the buffer needs %llu bytes, %llu present",
			      (unsigned long long)g->file_size, (unsigned long long)avail);
	return 0;
}
