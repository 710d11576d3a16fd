/* SPDX-License-Identifier: MIT */
/* KOFF internals shared by the producer, the readers and the snapshot code. */
#ifndef KTRACE_KOFF_INTERNAL_H
#define KTRACE_KOFF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/koff.h>

#include "koff/koff_layout_int.h"

/* Library-internal: not exported from libktrace.so. */
#pragma GCC visibility push(hidden)

/* The header fields a reader or an attaching producer relies on, decoded. */
struct koff_geom {
	uint32_t version, hdr_size, rec_size, state, hash_slots, ptr_size, creator_pid;
	uint32_t group, max_age;   /* version 2; version 1 reads as group 1, max_age 0 */
	uint64_t nentries, ring_off, strtab_off, strtab_size, hash_off, file_size, created_ns;
	/* control and counters (a snapshot; they move while producers run) */
	uint64_t gate, mask, head, base, flushed, dropped, rejected, flushes, strtab_used, strtab_full;
	uint32_t enabled;
};

/*
 * Decodes a header page (at least KOFF_HDR_SIZE bytes) and checks it: magic, version,
 * byte order, and for an allocated buffer a geometry that is self-consistent and fits
 * in avail bytes (the file size, or what the core holds). Returns 0 or -EBADMSG /
 * -ENODATA / -ENOTSUP with err set.
 */
int koff_geom_decode(const uint8_t *hdr, size_t hdr_len, uint64_t avail, struct koff_geom *g,
		     struct ktrace_error *err);

/* The geometry of a new buffer with nentries (already a power of two) and strtab bytes. */
void koff_geom_layout(struct koff_geom *g, uint64_t nentries, uint64_t strtab);

/* Rounds a requested size to the ring size actually used. */
uint32_t koff_round_entries(uint32_t n);

/* Wall clock in nanoseconds: clock_gettime, and the producer's cheaper equivalent for
 * record time stamps (clock.c). */
uint64_t koff_now_ns(void);
uint64_t koff_stamp_ns(void);

/* Snapshot chunk tags (our own range) in the Darwin V3 container. */
#define KOFF_KT_MAGIC      0x55aa0300u
#define KOFF_KT_INFO       0x4b4f0001u
#define KOFF_KT_STRINGS    0x4b4f0002u
#define KOFF_KT_RECORDS    0x4b4f0003u
#define KOFF_KT_V3_HDR     56u          /* the file header structure */
#define KOFF_KT_REC_SIZE   104u         /* one record in a RECORDS chunk */
#define KOFF_KT_INFO_SIZE  160u

/* Reader hooks for the snapshot reader (reader.c <-> snapshot.c). */
struct koff_snap;
int koff_snap_open(struct ktrace_input *in, struct koff_snap **out, struct koff_info *info,
		   struct ktrace_error *err);
int koff_snap_next(struct koff_snap *s, struct koff_record *rec, struct ktrace_error *err);
void koff_snap_counts(const struct koff_snap *s, struct koff_counts *c);
void koff_snap_close(struct koff_snap *s);

/* ELF core access (elfcore.c). */
struct koff_core;
int koff_core_open(const char *namelist, const char *core, const void *nl_mem, size_t nl_len,
		   const void *core_mem, size_t core_len, const struct koff_reader_open_opts *o,
		   struct koff_core **out, struct ktrace_error *err);
void koff_core_close(struct koff_core *c);
/* Copies len bytes of the crashed process's memory at addr from the core. Returns 0,
 * or -EFAULT when part of it is not in the core. */
int koff_core_read(struct koff_core *c, uint64_t addr, void *dst, size_t len);
/* Reads a NUL-terminated string of at most max bytes at addr, from the core, else from
 * the program file. Returns its length, or -EFAULT. */
int koff_core_string(struct koff_core *c, uint64_t addr, char *dst, size_t max);
/* The buffers the crash anchor lists; index 0 is the default one when it exists.
 * Returns the number found (0..KOFF_ANCHOR_SLOTS) or a negative error code. */
int koff_core_buffers(struct koff_core *c, struct koff_anchor_slot *slots, int max,
		      bool *first_is_default, struct ktrace_error *err);
uint32_t koff_core_pid(const struct koff_core *c);
uint64_t koff_core_bias(const struct koff_core *c);
uint64_t koff_core_anchor(const struct koff_core *c);
/* The file the anchor's symbol was found in (program or library). */
const char *koff_core_anchor_file(const struct koff_core *c);
/* The file an address is mapped from, per the core's NT_FILE note, or NULL. */
const char *koff_core_mapped_file(const struct koff_core *c, uint64_t addr);

#pragma GCC visibility pop

#endif
