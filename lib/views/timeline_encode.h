/* SPDX-License-Identifier: MIT */
/*
 * The timeline page's data encoder: byte columns of varints, report lines split into
 * a shared skeleton and their numbers, raw deflate and base64 for embedding in HTML.
 *
 * A line is cut into pieces and holes: a hole is a decimal number (a digit run of at
 * most 15 digits without leading zeros, "0" itself included; leading zeros stay in
 * the piece) or a lower-case hex number of 1 to 16 digits (after "0x", or standing
 * alone with at least 8 digits, one of them a decimal digit). The pieces with hole
 * marks make the skeleton, stored once in a dictionary; the line keeps the skeleton's
 * id and the holes' values. timeline/page.js puts the line back together byte for byte:
 *
 *   skeleton bytes: 0x01 decimal hole, 0x02 hex hole, 0x03 next byte literal, else
 *                   literal
 *   line:           varint skeleton id + 1 (0: a literal line, varint length and the
 *                   bytes), then per hole: decimal: varint value; hex: varint digits,
 *                   then the value XOR the last value of the same hole of the same
 *                   skeleton in the chunk (0 at first; pointers of one field differ in
 *                   their low bits): varint high 32 bits, varint low 32 bits
 */
#ifndef KTRACE_VIEWS_TIMELINE_ENCODE_H
#define KTRACE_VIEWS_TIMELINE_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_buf {
	uint8_t *p;
	size_t n, cap;
};

int tl_buf_put(struct tl_buf *b, const void *p, size_t n);
int tl_buf_varint(struct tl_buf *b, uint64_t v);
static inline uint64_t tl_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
void tl_buf_free(struct tl_buf *b);

/* A compressor kept from one block to the next (its state is big to set up). */
struct tl_zip {
	void *z;                       /* zlib's z_stream (parts), made on first use */
	void *ld;                      /* libdeflate's compressor (whole blocks) */
};

/* The page's deflate level, the fastest (zlib's a third of level 6's time for 1.2x the
 * size on big traces; libdeflate's level 1 faster still). */
#define TL_DEFLATE_LEVEL 1

/* Raw deflate (RFC 1951) of in[0..n) appended to out (libdeflate: several times zlib's
 * speed at its level). 0 or -ENOMEM/-EIO. */
int tl_deflate(struct tl_zip *z, const uint8_t *in, size_t n, struct tl_buf *out, int level);
/* The next part of one raw deflate stream (each part ends on a byte boundary: sync
 * flush); finish ends the stream. 0 or -ENOMEM/-EIO. */
int tl_deflate_part(struct tl_zip *z, const uint8_t *in, size_t n, struct tl_buf *out, int level,
		    bool finish);
void tl_zip_free(struct tl_zip *z);
/* Base64 of in[0..n) appended to out. */
int tl_base64(const uint8_t *in, size_t n, struct tl_buf *out);

/* The skeleton dictionary. */
#define TL_DICT_MAX_BYTES (24u << 20)   /* beyond: lines go literal */
#define TL_DICT_RECENT 1024
struct tl_skeleton {
	uint64_t hash;
	uint32_t off;                  /* its bytes in the dictionary's data */
	uint32_t prev_at;              /* its hex holes' last values: prev[prev_at...] */
	uint32_t prev_gen;             /* the chunk those values are of (gen) */
};

struct tl_hole {
	uint64_t value;
	uint8_t width;                 /* 0: decimal, else the hex digits */
};

struct tl_dict {
	uint32_t *slots;               /* skeleton id + 1, open addressing */
	size_t nslots;
	struct tl_skeleton *skel;      /* per skeleton, in id order */
	size_t n, cap;
	struct tl_buf data;            /* varint length + bytes, per skeleton, in id order */
	struct tl_buf scratch;         /* the line's skeleton */
	struct tl_hole *holes;         /* the line's holes (at most one per byte) */
	size_t nh, cap_h, nhex;
	uint64_t *prev;                /* the skeletons' hex holes' last values */
	size_t nprev, cap_prev;
	uint32_t gen;                  /* the current chunk */
	/* the skeletons met last, by a key of a few of their bytes: id + 1 (most lines
	 * find theirs here, without hashing it whole) */
	uint32_t recent[TL_DICT_RECENT];
};


void tl_dict_init(struct tl_dict *d);
void tl_dict_free(struct tl_dict *d);
/* A new chunk of lines: the hex holes' previous values start again from 0. */
void tl_dict_new_chunk(struct tl_dict *d);
/* Appends the encoding of line[0..len) to out. 0 or -ENOMEM. */
int tl_encode_line(struct tl_dict *d, const char *line, size_t len, struct tl_buf *out);

#endif
