/* SPDX-License-Identifier: MIT */
/*
 * The KOFF buffer file: on-disk (and in-memory, it is mapped shared) layout.
 *
 *   offset 0            header page (KOFF_HDR_SIZE bytes): identity, geometry, the
 *                       control words (gate, mask, enabled) and the counters, each hot
 *                       word on its own cache line
 *   hash_offset         string-table hash index: hash_slots 32-bit offsets
 *   ring_offset         nentries records of KOFF_REC_SIZE bytes (nentries a power of 2)
 *   strtab_offset       string table: strtab_size bytes of entries {u32 len, u32 hash,
 *                       text, NUL, padding to 8}; offset 0 is never an entry
 *
 * All words are in the producer's byte order, which the header records (byte_order);
 * the dumper only reads buffers of its own byte order and word size.
 *
 * A buffer that was sized with `ktrace dump -b` but not yet enabled is "reserved": the
 * file is the header page only, state is KOFF_STATE_RESERVED and nentries holds the
 * requested size. Enabling allocates it in place (the file grows, the ring and string
 * table are initialised, state becomes KOFF_STATE_READY).
 *
 * Record protocol (version 2, see log.c). The ring is cut into groups of `group`
 * consecutive slots (a power of two, at most 64; version 2 buffers made before
 * 2026-11-26 have 16). A writer takes a whole group at a
 * time: one fetch-and-add of `group` on the head word gives it the sequence numbers
 * b..b+group-1 (b a multiple of group), and one compare-and-swap of the group word (in
 * the first slot of the group) from "released for this lap or an earlier one" to
 * "held for this lap by process P" makes the group's slots its own for that lap (a
 * group held by a process that has died is taken over two laps later). It then
 * writes its records into them
 * with plain stores: per record it stores KOFF_STAMP_BUSY | s into the slot's stamp,
 * fills the record, adds one to the slot's publication count and publishes by storing
 * s + nentries into the stamp (release). When its group is used up (or abandoned) it
 * releases the group word for the next lap. A stamp therefore only grows, and a reader
 * accepts record s only when the stamp reads s + nentries both before and after it
 * copied the record. The number of records logged is the sum of the slots'
 * publication counts. Numbers of a group that its writer abandons are holes that
 * readers skip.
 *
 * Time order: a writer never writes number s once the head has moved more than
 * max_age past it (it abandons the rest of its group and takes a new one), so a record
 * logged later than record s has a number below s + max_age + group at most; readers
 * restore the time order of the records with a sort over a window of that many
 * numbers (plus slack for clock differences between threads).
 *
 * Version 1 (one compare-and-swap per record, no groups) is still read.
 */
#ifndef KTRACE_KOFF_LAYOUT_H
#define KTRACE_KOFF_LAYOUT_H

#include <stdint.h>

#define KOFF_MAGIC          "KOFFRING"   /* 8 bytes, no NUL */
#define KOFF_MAGIC_LEN      8
#define KOFF_VERSION        2           /* written by this producer */
#define KOFF_VERSION_MIN    1           /* oldest version readers accept */
#define KOFF_BYTE_ORDER     0x01020304u  /* as written by the producer */

#define KOFF_HDR_SIZE       4096u
#define KOFF_REC_SIZE       128u
#define KOFF_HASH_SLOTS     4096u
#define KOFF_MIN_ENTRIES    16u
#define KOFF_MAX_ENTRIES    (1u << 22)   /* 512 MiB of records */
#define KOFF_DEFAULT_STRTAB (256u * 1024)
#define KOFF_MAX_STRTAB     (64u * 1024 * 1024)
#define KOFF_MAX_STRING     4096u        /* longest format or interned string */

#define KOFF_STATE_RESERVED 0u
#define KOFF_STATE_ALLOCATING 1u
#define KOFF_STATE_READY    2u

#define KOFF_STAMP_BUSY     (1ULL << 63)
#define KOFF_CLAIM_TRIES    1024u        /* groups a writer tries before giving up */
#define KOFF_MAX_GROUP      64u          /* slots per group */
#define KOFF_MAX_AGE        4096u        /* see "Time order" above */

/* Record flags. */
#define KOFF_RF_SITE        0x1u  /* format from a KOFF_TRACE call site (a literal) */
#define KOFF_RF_RAW         0x2u  /* logged by koff_log_raw */

/* Header field offsets (bytes). */
enum {
	KOFF_H_MAGIC = 0,         /* char[8] */
	KOFF_H_VERSION = 8,       /* u32 */
	KOFF_H_HDR_SIZE = 12,     /* u32 */
	KOFF_H_REC_SIZE = 16,     /* u32 */
	KOFF_H_BYTE_ORDER = 20,   /* u32 */
	KOFF_H_NENTRIES = 24,     /* u64 */
	KOFF_H_RING_OFF = 32,     /* u64 */
	KOFF_H_STRTAB_OFF = 40,   /* u64 */
	KOFF_H_STRTAB_SIZE = 48,  /* u64 */
	KOFF_H_HASH_OFF = 56,     /* u64 */
	KOFF_H_HASH_SLOTS = 64,   /* u32 */
	KOFF_H_PTR_SIZE = 68,     /* u32 */
	KOFF_H_FILE_SIZE = 72,    /* u64 */
	KOFF_H_CREATED_NS = 80,   /* u64 */
	KOFF_H_STATE = 88,        /* u32 (atomic) */
	KOFF_H_CREATOR_PID = 92,  /* u32 */
	KOFF_H_GROUP = 96,        /* u32: slots per group (version 2) */
	KOFF_H_MAX_AGE = 100,     /* u32: see "Time order" (version 2) */
	KOFF_H_GATE = 128,        /* u64 atomic: mask while enabled, 0 while disabled */
	KOFF_H_MASK = 136,        /* u64 atomic: the last mask set */
	KOFF_H_ENABLED = 144,     /* u32 atomic */
	KOFF_H_HEAD = 256,        /* u64 atomic: next sequence number (a hint) */
	KOFF_H_BASE = 320,        /* u64 atomic: first sequence number after the last flush */
	KOFF_H_FLUSHED = 328,     /* u64 atomic: records published before the last flush */
	KOFF_H_DROPPED = 384,     /* u64 atomic: records given up (no free slot found) */
	KOFF_H_REJECTED = 392,    /* u64 atomic: KOFF_TRACE calls with an unusable format */
	KOFF_H_FLUSHES = 400,     /* u64 atomic */
	KOFF_H_STRTAB_USED = 448, /* u64 atomic: bytes handed out (may exceed the size) */
	KOFF_H_STRTAB_FULL = 456, /* u64 atomic: registrations refused for lack of room */
};

/* One record, KOFF_REC_SIZE bytes. */
struct koff_rec {
	uint64_t stamp;     /* publication word (atomic) */
	uint64_t ns;        /* wall clock, nanoseconds since the epoch */
	uint64_t tid;
	uint64_t id;        /* correlator */
	uint64_t fmt;       /* address of the format in the producing process */
	uint64_t args[5];
	uint32_t str;       /* string-table offset of the format text, 0 if none */
	uint32_t pid;
	uint32_t flags;
	uint32_t reserved0;
	uint64_t count;     /* records published in this slot since the buffer was made */
	uint64_t group;     /* first slot of a group (version 2): the group word, see log.c */
	uint64_t reserved[2];
};

/* Offsets inside a record, for readers that go through byte cursors. */
enum {
	KOFF_R_STAMP = 0, KOFF_R_NS = 8, KOFF_R_TID = 16, KOFF_R_ID = 24, KOFF_R_FMT = 32,
	KOFF_R_ARGS = 40, KOFF_R_STR = 80, KOFF_R_PID = 84, KOFF_R_FLAGS = 88, KOFF_R_COUNT = 96,
	KOFF_R_GROUP = 104,
};

/* The crash anchor: a global in the producer that lists the mapped buffers, found by
 * the crash dumper through the symbol table (symbol KOFF_ANCHOR_SYMBOL). */
#define KOFF_ANCHOR_SYMBOL  "koff_crash_anchor"
#define KOFF_ANCHOR_MAGIC   "KOFF-ANCHOR-v1\n"   /* 16 bytes with the NUL */
#define KOFF_ANCHOR_SLOTS   8
#define KOFF_ANCHOR_PATH    104

struct koff_anchor_slot {
	uint64_t addr;      /* where the whole file is mapped, 0 when unused */
	uint64_t size;      /* bytes mapped */
	char path[KOFF_ANCHOR_PATH];
};

struct koff_anchor {
	char magic[16];
	uint32_t version;
	uint32_t slots;             /* KOFF_ANCHOR_SLOTS */
	uint32_t default_slot;      /* index + 1 of the default buffer, 0 if none */
	uint32_t reserved;
	struct koff_anchor_slot slot[KOFF_ANCHOR_SLOTS];
};

_Static_assert(sizeof(struct koff_rec) == KOFF_REC_SIZE, "record size");
_Static_assert(sizeof(struct koff_anchor_slot) == 120, "anchor slot size");

static inline uint32_t koff_hash_str(const char *s, uint32_t len)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < len; i++) {
		h ^= (uint8_t)s[i];
		h *= 16777619u;
	}
	return h ? h : 1;
}

#endif
