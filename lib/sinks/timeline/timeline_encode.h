/* SPDX-License-Identifier: MIT */
/*
 * The timeline page's data encoder: byte columns of varints, report lines split into
 * a shared skeleton and their numbers, raw deflate and base64 for embedding in HTML.
 *
 * A line is cut into pieces and holes: a hole is a decimal number (a digit run of at
 * most 15 digits without leading zeros, "0" itself included; leading zeros stay in
 * the piece) or a lower-case hex number of 1 to 16 digits (after "0x", or standing
 * alone with at least 8 digits, one of them a decimal digit). The numbers the formatter
 * noted as it wrote them (common/numspan.h) are holes as noted, the text between them
 * is cut by these rules ("0x" just before a noted number stays in the piece). The
 * pieces with hole marks make the skeleton, stored once in a dictionary; the line
 * keeps the skeleton's id and the holes' values. How a line was cut does not matter
 * to the decoder: timeline/page.js puts any line back together byte for byte:
 *
 *   skeleton bytes: 0x01 decimal hole, 0x02 hex hole, 0x03 next byte literal, else
 *                   literal
 *   line:           varint head: (skeleton id + 1) * 2 + 1 when the line's tag (a small
 *                   number the writer gives with it: the page's prefix style) is not
 *                   the line before's in the chunk (always for a chunk's first line),
 *                   then varint tag when it is not; skeleton id + 1 of 0: a literal
 *                   line, varint length and the bytes; else per hole:
 *                   decimal: varint value;
 *                   hex: x = the value XOR the last value of the same hole of the same
 *                   skeleton in the chunk (0 at first; pointers of one field differ in
 *                   their low bits): varint (x's low 32 bits) * 4 + 2 when its high 32
 *                   bits are not 0 + 1 when its digits are not the hole's last (0 at
 *                   first); then varint high 32 bits when not 0, varint digits when new
 */
#ifndef KTRACE_VIEWS_TIMELINE_ENCODE_H
#define KTRACE_VIEWS_TIMELINE_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hashmap.h"
#include "common/numspan.h"

struct tl_encoded;

struct tl_buf {
	uint8_t *p;
	size_t n, cap;
};

int tl_buf_put(struct tl_buf *b, const void *p, size_t n);
/* v as a varint (7 bits a byte, low first) at p (room for 10 bytes); its end. */
static inline uint8_t *tl_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}
int tl_buf_varint_slow(struct tl_buf *b, uint64_t v);
/* v as a varint at the end of b. 0 or -ENOMEM. */
static inline int tl_buf_varint(struct tl_buf *b, uint64_t v)
{
	if (b->cap - b->n < 10)
		return tl_buf_varint_slow(b, v);
	b->n = (size_t)(tl_put_varint(b->p + b->n, v) - b->p);
	return 0;
}
static inline uint64_t tl_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
void tl_buf_free(struct tl_buf *b);

/* A compressor kept from one block to the next (its state is big to set up). */
struct tl_zip {
	void *z;                       /* zlib's z_stream (parts), made on first use */
	void *ld;                      /* libdeflate's compressor (whole blocks) */
	void *lz4;                     /* liblz4's state (whole blocks) */
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
/* An LZ4 block (the block format alone: sequences of a token, literals, a 2-byte
 * offset and a match; no frame) of in[0..n) appended to out: several times deflate's
 * speed for about 1.3 times its size. 0 or -ENOMEM/-EIO/-EOVERFLOW (n over LZ4's
 * limit of about 2 GB). */
int tl_lz4(struct tl_zip *z, const uint8_t *in, size_t n, struct tl_buf *out);
void tl_zip_free(struct tl_zip *z);
/* Base64 of in[0..n) appended to out. */
int tl_base64(const uint8_t *in, size_t n, struct tl_buf *out);

/* The skeleton dictionary. */
#define TL_DICT_MAX_BYTES (24u << 20)   /* beyond: lines go literal */
#define TL_DICT_RECENT 1024
#define TL_DICT_HINTS 512
#define TL_HINT_WAYS 4                 /* skeletons kept per hint */
struct tl_skeleton {
	uint32_t at, len;              /* its bytes in the dictionary's data (after their
					* varint length) */
	uint32_t prev_at;              /* its hex holes' last values and digits:
					* prev[prev_at...], two per hole */
	uint32_t prev_gen;             /* the chunk those values are of (gen) */
};

/*
 * A line a hint's skeleton was last found for, as the formatter wrote it: the text
 * between its noted numbers, and the holes the split found in that text (digits of a
 * comm or a symbol, "swapper/1", "python3"). A later line of the same text around its
 * numbers has the same skeleton and those holes, without cutting it up again (the
 * skeleton's own pieces have hole marks there, so it does not fit them).
 */
#define TL_TMPL_TEXT 240
#define TL_TMPL_HOLES 16
struct tl_tmpl {
	bool valid;
	uint8_t nn, nlit;              /* noted numbers, holes of the text */
	uint16_t len;                  /* bytes of text */
	uint16_t seg[KT_NUMS_MAX + 1]; /* the text's pieces: before each number, after the
					* last */
	uint8_t hex[KT_NUMS_MAX];      /* per number: hex (1) or decimal (0) */
	uint8_t lit_before[KT_NUMS_MAX];       /* holes of the text before each number */
	struct kt_num lit[TL_TMPL_HOLES];      /* their values and kinds (hex: digits) */
	uint8_t text[TL_TMPL_TEXT];
};

struct tl_dict {
	struct kt_map index;           /* hash of a skeleton's bytes -> its id */
	struct tl_skeleton *skel;      /* per skeleton, in id order */
	size_t n, cap;
	struct tl_buf data;            /* varint length + bytes, per skeleton, in id order */
	struct tl_buf scratch;         /* the line's skeleton */
	struct tl_buf padded;          /* tl_encode_line's copy of its line */
	struct kt_num *holes;          /* the line's holes (at most one per byte): value,
					* hex digits (0 decimal) */
	size_t nh, cap_h, nhex;
	uint64_t *prev;                /* the skeletons' hex holes' last values, digits */
	size_t nprev, cap_prev;
	uint32_t gen;                  /* the current chunk */
	unsigned tag;                  /* the last line's tag in it (UINT_MAX: none yet) */
	uint64_t key;                  /* the line's skeleton's key of recent (0: none) */
	/* the skeletons met last, by a key of a few of their bytes: id + 1 (most lines
	 * find theirs here, without hashing it whole) */
	uint32_t recent[TL_DICT_RECENT];
	/* the skeletons the last lines of each hint had (tl_encode_line_nums), the latest
	 * first: id + 1 (0: none) */
	uint32_t hint[TL_DICT_HINTS][TL_HINT_WAYS];
	struct tl_tmpl *tmpl[TL_DICT_HINTS][TL_HINT_WAYS];   /* each way's line (NULL: none
							      * yet) */
	/* split: where in holes each noted number went (ntaken of them) */
	uint32_t note_hole[KT_NUMS_MAX];
	size_t ntaken;
};


void tl_dict_init(struct tl_dict *d);
void tl_dict_free(struct tl_dict *d);
/* A new chunk of lines: the hex holes' previous values start again from 0, the first
 * line says its tag. */
void tl_dict_new_chunk(struct tl_dict *d);
/* Appends the encoding of line[0..len) with its tag to out. 0 or -ENOMEM. */
int tl_encode_line(struct tl_dict *d, const char *line, size_t len, unsigned tag, struct tl_buf *out);
/* The same, with the numbers the formatter wrote (nums[0..nn), at from line): holes as
 * they are, not looked for and parsed again; a number not as numspan.h has it, or out
 * of order, is found by the scan instead. how: TL_ENC_ZEROED, the line has '0's where
 * the numbers' digits go (the formatter's notes, numspan.h): the encoder writes the
 * digits where it needs the text (a line stored whole); TL_ENC_NUL_ENDS, the line ends
 * at its first NUL if it has one (kt_stream_format_parts' nul_later: the encoder looks,
 * when it reads the bytes anyway). hint (-1: none) names lines that tend to
 * have few skeletons (the records of one event): a line that is one of the
 * TL_HINT_WAYS last skeletons of its hint with nums as its holes is encoded without
 * cutting it up. The 8 bytes after line[len - 1] must be readable (the scan reads 8 at
 * a time). */
int tl_encode_line_nums(struct tl_dict *d, const char *line, size_t len, const struct kt_num *nums,
			size_t nn, int hint, unsigned how, unsigned tag, struct tl_buf *out,
			struct tl_encoded *res);
#define TL_ENC_ZEROED 1u
#define TL_ENC_NUL_ENDS 2u

/* What tl_encode_line_nums made of a line (when res is not NULL): its skeleton's id (-1:
 * stored whole) and its holes (valid until the next call), which tl_encode_again
 * encodes as the same line again. */
struct tl_encoded {
	int64_t id;
	const struct kt_num *holes;
	size_t nh;
};
/* Appends the line of skeleton id with holes h[0..nh) (their value and hex width), as
 * tl_encode_line_nums gave them for it, and its tag to out. 0 or -ENOMEM. */
int tl_encode_again(struct tl_dict *d, uint32_t id, const struct kt_num *h, size_t nh, unsigned tag,
		    struct tl_buf *out);

#endif
