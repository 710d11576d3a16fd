// SPDX-License-Identifier: MIT
/* The timeline page's data encoder (timeline_encode.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <lz4.h>
#include <zlib.h>

#include "common/check.h"
#include "common/grow.h"
#include "sinks/timeline/timeline_encode.h"

int tl_buf_put(struct tl_buf *b, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (n > SIZE_MAX - b->n || kt_grow((void **)&b->p, &b->cap, b->n + n, 1))
		return -ENOMEM;
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

int tl_buf_varint_slow(struct tl_buf *b, uint64_t v)
{
	uint8_t tmp[10];

	return tl_buf_put(b, tmp, (size_t)(tl_put_varint(tmp, v) - tmp));
}

void tl_buf_free(struct tl_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int tl_deflate(struct tl_zip *zp, const uint8_t *in, size_t n, struct tl_buf *out, int level)
{
	size_t bound, got;

	if (!zp->ld) {
		zp->ld = libdeflate_alloc_compressor(level);
		if (!zp->ld)
			return -ENOMEM;
	}
	bound = libdeflate_deflate_compress_bound(zp->ld, n);
	if (kt_grow((void **)&out->p, &out->cap, out->n + bound, 1))
		return -ENOMEM;
	got = libdeflate_deflate_compress(zp->ld, in, n, out->p + out->n, bound);
	if (!got)
		return -EIO;
	out->n += got;
	return 0;
}

int tl_deflate_part(struct tl_zip *zp, const uint8_t *in, size_t n, struct tl_buf *out, int level,
		    bool finish)
{
	z_stream *z;
	int ret;

	if (!zp->z) {
		zp->z = calloc(1, sizeof(z_stream));
		if (!zp->z)
			return -ENOMEM;
		if (deflateInit2((z_stream *)zp->z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(zp->z);
			zp->z = NULL;
			return -ENOMEM;
		}
	}
	z = zp->z;
	z->next_in = (Bytef *)(uintptr_t)in;
	z->avail_in = (uInt)n;
	do {
		size_t room = n / 2 + 4096;

		if (kt_grow((void **)&out->p, &out->cap, out->n + room, 1))
			return -ENOMEM;
		z->next_out = out->p + out->n;
		z->avail_out = (uInt)(out->cap - out->n);
		ret = deflate(z, finish ? Z_FINISH : Z_SYNC_FLUSH);
		if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)
			return -EIO;
		out->n = (size_t)(z->next_out - out->p);
	} while (z->avail_out == 0 || (finish && ret != Z_STREAM_END));
	return 0;
}

int tl_lz4(struct tl_zip *zp, const uint8_t *in, size_t n, struct tl_buf *out)
{
	int bound, got;

	if (n > LZ4_MAX_INPUT_SIZE)
		return -EOVERFLOW;
	if (!zp->lz4) {
		zp->lz4 = malloc((size_t)LZ4_sizeofState());
		if (!zp->lz4)
			return -ENOMEM;
	}
	bound = LZ4_compressBound((int)n);
	if (kt_grow((void **)&out->p, &out->cap, out->n + (size_t)bound, 1))
		return -ENOMEM;
	got = LZ4_compress_fast_extState(zp->lz4, (const char *)in, (char *)out->p + out->n, (int)n,
					 bound, 1);
	if (got <= 0)
		return -EIO;
	out->n += (size_t)got;
	return 0;
}

void tl_zip_free(struct tl_zip *zp)
{
	if (zp->ld) {
		libdeflate_free_compressor(zp->ld);
		zp->ld = NULL;
	}
	free(zp->lz4);
	zp->lz4 = NULL;
	if (zp->z) {
		deflateEnd((z_stream *)zp->z);
		free(zp->z);
		zp->z = NULL;
	}
}

int tl_base64(const uint8_t *in, size_t n, struct tl_buf *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t need = (n + 2) / 3 * 4;
	char *p;
	size_t i;

	if (kt_grow((void **)&out->p, &out->cap, out->n + need, 1))
		return -ENOMEM;
	p = (char *)out->p + out->n;
	for (i = 0; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		*p++ = tab[v >> 18];
		*p++ = tab[(v >> 12) & 63];
		*p++ = tab[(v >> 6) & 63];
		*p++ = tab[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);

		*p++ = tab[v >> 18];
		*p++ = tab[(v >> 12) & 63];
		*p++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*p++ = '=';
	}
	out->n += need;
	return 0;
}

/* ---- skeletons ---- */

void tl_dict_init(struct tl_dict *d)
{
	memset(d, 0, sizeof(*d));
	d->tag = UINT_MAX;
}

void tl_dict_free(struct tl_dict *d)
{
	kt_map_free(&d->index);
	free(d->skel);
	tl_buf_free(&d->data);
	tl_buf_free(&d->scratch);
	tl_buf_free(&d->padded);
	free(d->holes);
	free(d->prev);
	for (size_t i = 0; i < TL_DICT_HINTS; i++)
		for (size_t j = 0; j < TL_HINT_WAYS; j++)
			free(d->tmpl[i][j]);
	memset(d, 0, sizeof(*d));
}

void tl_dict_new_chunk(struct tl_dict *d)
{
	d->gen++;
	d->tag = UINT_MAX;      /* the chunk's first line says its tag */
}

/* What the splitter needs to know of a byte: a decimal digit, a hex letter (a-f), a
 * word byte (letters, digits, '_'), a byte the skeleton escapes (1 to 3). */
enum { F_DIGIT = 1, F_HEXL = 2, F_WORD = 4, F_ESC = 8 };
static const uint8_t byte_flags[256] = {
	0, 8, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 0, 0, 0, 0, 0, 0,
	0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 4,
	0, 6, 6, 6, 6, 6, 6, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* The fast path's view of a byte: bit 0 it goes to the skeleton as it is after a byte
 * that is not a word byte, bit 1 after a word byte (a hex letter inside a word), bit 2
 * it is a word byte. */
static const uint8_t plain_flags[256] = {
	3, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3,
	3, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 3, 3, 3, 3, 7,
	3, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
};

/* A hole of the line: width 0 decimal, else the digits of a hex number (1 to 16). */
static inline void add_hole(struct tl_dict *d, uint64_t v, unsigned width)
{
	d->holes[d->nh].value = v;
	d->holes[d->nh++].hex = (uint8_t)width;
	d->nhex += width != 0;
}

static inline unsigned hex_digit(uint8_t c)
{
	return byte_flags[c] & F_DIGIT ? c - '0' : c - 'a' + 10;
}

/* The bytes of v (each its high bit) that are a decimal digit or a byte the skeleton
 * escapes (1 to 3). swar_between: the bytes b with lo < b < hi, for lo < hi <= 128 (bytes
 * of 128 and more never), exactly: no borrow or carry crosses a byte. */
#define SWAR_ONES 0x0101010101010101ULL
#define SWAR_LOW7 0x7f7f7f7f7f7f7f7fULL
#define SWAR_HIGH 0x8080808080808080ULL
static inline uint64_t swar_between(uint64_t v, unsigned lo, unsigned hi)
{
	uint64_t low = v & SWAR_LOW7;

	return (SWAR_ONES * (127 + hi) - low) & ~v & (low + SWAR_ONES * (127 - lo)) & SWAR_HIGH;
}

/* The bytes of v below hi (hi <= 128), exactly. */
static inline uint64_t swar_below(uint64_t v, unsigned hi)
{
	return (SWAR_ONES * (127 + hi) - (v & SWAR_LOW7)) & ~v & SWAR_HIGH;
}

static inline uint64_t swar_special(uint64_t v)
{
	return swar_between(v, '0' - 1, '9' + 1) | swar_between(v, 0, 4);
}

/* The high bits of the first r bytes (1 to 8) of a word, as swar_between gives them. */
static inline uint64_t swar_first(size_t r)
{
	return ~0ull >> (8 * (8 - r));
}

/* Whether note m is a hole split takes after position i of a line of len bytes: in
 * order, within the line and as numspan.h has it. */
static inline bool note_takes(const struct kt_num *m, size_t i, size_t len)
{
	size_t at = m->at, n = m->len;

	return at >= i && n && at <= len && n <= len - at && (m->hex ? m->hex == n && n <= 16 : n <= 15);
}

/*
 * Cuts s[i..end) into skeleton bytes at k and holes (d->holes), by timeline_encode.h's
 * rules, s[from..i) having been copied to the skeleton as it is (no digit, nothing to
 * escape); returns the skeleton's new end. Runs of 8 bytes with no digit and nothing to
 * escape are copied as they are; a hex number standing alone that starts in such a run
 * is found when its first digit is (the letters before it are taken back). Whether
 * the byte before a position is a word byte is all the state the rules keep, so it is
 * read from the line.
 */
static uint8_t *scan(struct tl_dict *d, const uint8_t *s, size_t from, size_t i, size_t end,
		     uint8_t *k)
{
	const unsigned word_from = from ? (plain_flags[s[from - 1]] >> 2) & 1 : 0;
	size_t copied_to = i;        /* bytes before were copied 8 at a time */
	unsigned word = i ? (plain_flags[s[i - 1]] >> 2) & 1 : 0;   /* the byte before i */

	while (i < end) {
		size_t stop = i + 8, r = end - i < 8 ? end - i : 8;
		uint64_t w8, in = swar_first(r);

		/* 8 bytes at a time (the line has 8 readable bytes past its end, the
		 * skeleton room for 8 more) */
		memcpy(&w8, s + i, 8);
		if (!(swar_special(w8) & in)) {
			memcpy(k, s + i, 8);
			k += r;
			i += r;
			word = (plain_flags[s[i - 1]] >> 2) & 1;
			copied_to = i;
			continue;
		}
		if (stop > end)
			stop = end;
		while (i < stop) {
			uint8_t c = s[i], f, g = plain_flags[c];

			/* most bytes: plain text, or a hex letter inside a word */
			if ((g >> word) & 1) {
				*k++ = c;
				word = (g >> 2) & 1;
				i++;
				continue;
			}
			f = byte_flags[c];
			if (f & F_ESC) {
				*k++ = 3;
				*k++ = c;
				word = 0;
				i++;
				continue;
			}
			if (word && (f & F_DIGIT) && i > from && from < copied_to &&
			    (byte_flags[s[i - 1]] & F_HEXL) && !(byte_flags[s[i - 1]] & F_DIGIT)) {
				/* hex letters copied in a run before this digit: if they start a
				 * word, a hex number may start there */
				size_t j = i;

				while (j > from && i - j < 16 && (byte_flags[s[j - 1]] & F_HEXL) &&
				       !(byte_flags[s[j - 1]] & F_DIGIT))
					j--;
				if (j < copied_to &&
				    (j == from ? !word_from : !(byte_flags[s[j - 1]] & F_WORD))) {
					k -= i - j;
					i = j;
					word = 0;
					copied_to = j;
					continue;
				}
			}
			if (c == '0' && i + 2 < end && s[i + 1] == 'x' &&
			    byte_flags[s[i + 2]] & (F_DIGIT | F_HEXL)) {
				size_t j = i + 2;
				uint64_t v = 0;

				while (j < end && byte_flags[s[j]] & (F_DIGIT | F_HEXL) && j - (i + 2) < 16)
					v = v << 4 | hex_digit(s[j++]);
				*k++ = '0';
				*k++ = 'x';
				*k++ = 2;
				add_hole(d, v, (unsigned)(j - i - 2));
				i = j;
				word = 1;
				continue;
			}
			if (c == '0' && i + 1 < end && s[i + 1] == 'x') {
				/* "0x" before what is not a hex digit here (a number noted apart) */
				*k++ = '0';
				*k++ = 'x';
				i += 2;
				word = 1;
				continue;
			}
			if (!word) {
				/* a hex number standing alone: 8 to 16 digits, a decimal one among them */
				size_t j = i;
				uint8_t all = 0;
				uint64_t v = 0;

				while (j < end && byte_flags[s[j]] & (F_DIGIT | F_HEXL) && j - i <= 16) {
					all |= byte_flags[s[j]];
					v = v << 4 | hex_digit(s[j]);
					j++;
				}
				if (j - i >= 8 && j - i <= 16 && (all & F_DIGIT) &&
				    (j == end || !(byte_flags[s[j]] & F_WORD))) {
					*k++ = 2;
					add_hole(d, v, (unsigned)(j - i));
					i = j;
					word = 1;
					continue;
				}
			}
			if (f & F_DIGIT) {
				size_t j = i;
				uint64_t v = 0;

				while (j < end && byte_flags[s[j]] & F_DIGIT)
					j++;
				while (j - i > 1 && s[i] == '0')
					*k++ = s[i++];
				while (j - i > 15)
					*k++ = s[i++];
				while (j - i > 1 && s[i] == '0')
					*k++ = s[i++];
				for (; i < j; i++)
					v = v * 10 + (uint64_t)(s[i] - '0');
				*k++ = 1;
				add_hole(d, v, 0);
				word = 1;
				continue;
			}
			/* a hex letter starting a word, not a number */
			*k++ = c;
			word = 1;
			i++;
		}
	}
	return k;
}

/* The key of d->recent (skeleton_id) taken in 8 bytes of the skeleton at a time, as
 * split writes them (read back at once from the skeleton, bytes written moments before
 * in other pieces would stall the load). */
static inline uint64_t key_step(uint64_t key, uint64_t w)
{
	key = (key ^ w) * 0x9E3779B97F4A7C15ULL;
	return key ^ (key >> 29);
}

/* s[i..end) into the skeleton at k, key (key_step) taken of what is written, or 0 when
 * the scan writes it: 8 bytes at a time as they are while they hold no
 * digit and nothing to escape (the line has 8 readable bytes past its end, the skeleton
 * room for 8 more), the rest by scan. */
static inline uint8_t *literal(struct tl_dict *d, const uint8_t *s, size_t i, size_t end, uint8_t *k,
			       uint64_t *key)
{
	const size_t from = i;

	while (i < end) {
		size_t r = end - i < 8 ? end - i : 8;
		uint64_t w8, in = swar_first(r);

		memcpy(&w8, s + i, 8);
		if (swar_special(w8) & in) {
			*key = 0;        /* (the skeleton's key is read from it instead) */
			return scan(d, s, from, i, end, k);
		}
		memcpy(k, s + i, 8);
		*key = key_step(*key, w8 & in);
		k += r;
		i += r;
	}
	return k;
}

/* Splits line into d->scratch (skeleton) and its holes (d->holes: at most one per
 * byte), by timeline_encode.h's rules; the numbers nums[0..nn) (at from line, in order)
 * are holes as they are, the text around them is scanned. The skeleton is sized first
 * for the worst case (every byte escaped), then written directly. */
static int split(struct tl_dict *d, const char *line, size_t len, const struct kt_num *nums,
		 size_t nn)
{
	const uint8_t *s = (const uint8_t *)line;
	uint64_t key = 1;
	bool keyed = true;           /* key is of the whole skeleton (no scan) */
	uint8_t *k;
	size_t i = 0;

	if (len > SIZE_MAX / 16 ||
	    kt_grow((void **)&d->scratch.p, &d->scratch.cap, 2 * len + 16, 1))
		return -ENOMEM;
	if (kt_grow((void **)&d->holes, &d->cap_h, len + 1, sizeof(*d->holes)))
		return -ENOMEM;
	d->nh = d->nhex = 0;
	d->ntaken = 0;
	k = d->scratch.p;
	for (size_t x = 0; x < nn; x++) {
		const struct kt_num *m = &nums[x];

		/* a number out of order, out of the line or not as numspan.h has it: the
		 * scan finds it */
		if (!note_takes(m, i, len))
			continue;
		if (i < m->at) {
			k = literal(d, s, i, m->at, k, &key);
			keyed &= key != 0;
		}
		*k++ = m->hex ? 2 : 1;
		key = key_step(key, m->hex ? 2 : 1);
		if (d->ntaken < KT_NUMS_MAX)
			d->note_hole[d->ntaken] = (uint32_t)d->nh;
		d->ntaken++;
		add_hole(d, m->value, m->hex);
		i = (size_t)m->at + m->len;
	}
	if (i < len) {
		k = literal(d, s, i, len, k, &key);
		keyed &= key != 0;
	}
	d->scratch.n = (size_t)(k - d->scratch.p);
	d->key = keyed ? key_step(key, d->scratch.n) | 1 : 0;
	return 0;
}

/* Whether skeleton id is the one in d->scratch. */
static bool same_skeleton(const struct tl_dict *d, uint32_t id)
{
	return d->skel[id].len == d->scratch.n &&
	       !memcmp(d->data.p + d->skel[id].at, d->scratch.p, d->scratch.n);
}

/* The slot of d->recent for the skeleton in d->scratch: its length and its first,
 * middle and last 8 bytes. */
static size_t recent_key(const struct tl_dict *d)
{
	const uint8_t *p = d->scratch.p;
	size_t n = d->scratch.n;
	uint64_t a = 0, b = 0, c = 0;

	if (n >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n / 2 - 4, 8);
		memcpy(&c, p + n - 8, 8);
	} else {
		memcpy(&a, p, n);
	}
	a = (a ^ (b << 1) ^ (c << 2) ^ n) * 0x9E3779B97F4A7C15ULL;
	return (size_t)(a >> 54) & (TL_DICT_RECENT - 1);
}

static bool is_scratch(const void *d, uint32_t id)
{
	return same_skeleton(d, id);
}

/* The id of the skeleton in d->scratch, added when new; -1 when the dictionary is
 * full; -2 out of memory. */
static int64_t skeleton_id(struct tl_dict *d)
{
	size_t rk = d->key ? (size_t)(d->key >> 54) & (TL_DICT_RECENT - 1) : recent_key(d);
	uint32_t r = d->recent[rk];
	uint64_t h;
	uint32_t id;

	if (r && same_skeleton(d, r - 1))
		return r - 1;
	h = kt_hash_bytes(d->scratch.p, d->scratch.n);
	if (kt_map_find(&d->index, h, is_scratch, d, &id)) {
		d->recent[rk] = id + 1;
		return id;
	}
	if (d->data.n + d->scratch.n > TL_DICT_MAX_BYTES || d->n >= UINT32_MAX - 1)
		return -1;
	if (kt_grow((void **)&d->skel, &d->cap, d->n + 1, sizeof(*d->skel)))
		return -2;
	/* its hex holes' last values and digits (the same count in every line of the
	 * skeleton) */
	if (d->nprev + 2 * d->nhex + 2 > UINT32_MAX ||
	    kt_grow((void **)&d->prev, &d->cap_prev, d->nprev + 2 * d->nhex + 1, sizeof(*d->prev)))
		return -2;
	d->skel[d->n].prev_at = (uint32_t)d->nprev;
	d->skel[d->n].prev_gen = d->gen - 1;
	d->nprev += 2 * d->nhex;
	if (tl_buf_varint(&d->data, d->scratch.n))
		return -2;
	d->skel[d->n].at = (uint32_t)d->data.n;
	d->skel[d->n].len = (uint32_t)d->scratch.n;
	/* (and 8 bytes of room past it: fits reads 8 bytes at a time) */
	if (tl_buf_put(&d->data, d->scratch.p, d->scratch.n) ||
	    kt_grow((void **)&d->data.p, &d->data.cap, d->data.n + 8, 1))
		return -2;
	if (kt_map_add(&d->index, h, (uint32_t)d->n))
		return -2;
	d->recent[rk] = (uint32_t)d->n + 1;
	return (int64_t)d->n++;
}

/* The line's head (timeline_encode.h): id + 1 (0: a literal line) and whether its tag
 * differs from the line before's in the chunk, then the tag if it does. p has room. */
static uint8_t *put_head(struct tl_dict *d, uint8_t *p, uint64_t id1, unsigned tag)
{
	bool changed = tag != d->tag;

	p = tl_put_varint(p, id1 << 1 | changed);
	if (changed)
		p = tl_put_varint(p, tag);
	d->tag = tag;
	return p;
}

/* The line of skeleton id: its head, then its holes h[0..nh) (timeline_encode.h). */
static int put_holes(struct tl_dict *d, uint32_t id, const struct kt_num *h, size_t nh,
		     unsigned tag, struct tl_buf *out)
{
	struct tl_skeleton *sk = &d->skel[id];
	uint64_t *prev = d->prev + sk->prev_at;
	uint8_t *p;

	if (nh > (SIZE_MAX - 32) / 16 ||
	    kt_grow((void **)&out->p, &out->cap, out->n + 16 * nh + 32, 1))
		return -ENOMEM;
	if (sk->prev_gen != d->gen) {
		/* first line of the skeleton in this chunk: its hex holes' last values and
		 * digits 0 */
		for (size_t i = 0, x = 0; i < nh; i++)
			if (h[i].hex) {
				prev[x++] = 0;
				prev[x++] = 0;
			}
		sk->prev_gen = d->gen;
	}
	p = put_head(d, out->p + out->n, (uint64_t)id + 1, tag);
	for (size_t i = 0; i < nh; i++) {
		uint64_t v = h[i].value, x, hi;
		unsigned w = h[i].hex;

		if (!w) {
			p = tl_put_varint(p, v);
			continue;
		}
		x = v ^ prev[0];
		hi = x >> 32;
		p = tl_put_varint(p, (x & 0xffffffffu) << 2 | (uint64_t)(hi != 0) << 1 | (w != prev[1]));
		if (hi)
			p = tl_put_varint(p, hi);
		if (w != prev[1])
			p = tl_put_varint(p, w);
		prev[0] = v;
		prev[1] = w;
		prev += 2;
	}
	out->n = (size_t)(p - out->p);
	return 0;
}

/* A literal line: its head, its length and its bytes. */
static int put_literal(struct tl_dict *d, const char *line, size_t len, unsigned tag,
		       struct tl_buf *out)
{
	if (kt_grow((void **)&out->p, &out->cap, out->n + 32, 1))
		return -ENOMEM;
	out->n = (size_t)(put_head(d, out->p + out->n, 0, tag) - out->p);
	return tl_buf_varint(out, len) || tl_buf_put(out, line, len) ? -ENOMEM : 0;
}

/* Whether a[0..n) and b[0..n) are the same bytes, none of them 0 to 3 (a NUL, which
 * may end a line still (TL_ENC_NUL_ENDS), a skeleton's marks and escape); 8 readable
 * bytes past both. */
static inline bool same_plain(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x, y, in = swar_first(n - i < 8 ? n - i : 8);

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (((x ^ y) & in) || (swar_below(x, 4) & in))
			return false;
	}
	return true;
}

/* Whether line[0..len) is skeleton id with the holes nums[0..nn), all as numspan.h has
 * them: the text between the numbers the skeleton's pieces, a mark of the number's kind
 * for each. */
static bool fits(const struct tl_dict *d, uint32_t id, const uint8_t *s, size_t len,
		 const struct kt_num *nums, size_t nn)
{
	const uint8_t *q = d->data.p + d->skel[id].at, *qend = q + d->skel[id].len;
	size_t i = 0;

	for (size_t x = 0; x < nn; x++) {
		size_t seg = nums[x].at - i;

		if (!note_takes(&nums[x], i, len) || (size_t)(qend - q) <= seg ||
		    q[seg] != (nums[x].hex ? 2 : 1) || !same_plain(s + i, q, seg))
			return false;
		q += seg + 1;
		i = (size_t)nums[x].at + nums[x].len;
	}
	return (size_t)(qend - q) == len - i && same_plain(s + i, q, len - i);
}

/* A copy of line[0..len) (in d->padded, 8 bytes past it readable) with the digits of
 * the notes of nums[0..nn) that split takes written where the formatter left '0's;
 * NULL out of memory. */
static const char *with_digits(struct tl_dict *d, const char *line, size_t len,
			       const struct kt_num *nums, size_t nn)
{
	char *c;

	if (len > SIZE_MAX - 8 || kt_grow((void **)&d->padded.p, &d->padded.cap, len + 8, 1))
		return NULL;
	c = (char *)d->padded.p;
	memcpy(c, line, len);
	memset(c + len, 0, 8);
	for (size_t x = 0, i = 0; x < nn; x++) {
		/* the notes split takes (the others' text is the line's as it is) */
		if (!note_takes(&nums[x], i, len))
			continue;
		i = (size_t)nums[x].at + nums[x].len;
		kt_num_write(c + nums[x].at, &nums[x]);
	}
	return c;
}

/* Whether line[0..len) with the notes nums[0..nn) is t's text around its numbers. */
static bool tmpl_fits(const struct tl_tmpl *t, const uint8_t *s, size_t len,
		      const struct kt_num *nums, size_t nn)
{
	const uint8_t *q = t->text;
	size_t i = 0;

	if (!t->valid || t->nn != nn)
		return false;
	for (size_t x = 0; x < nn; x++) {
		size_t seg = nums[x].at - i;

		if (!note_takes(&nums[x], i, len) || seg != t->seg[x] || !nums[x].hex != !t->hex[x] ||
		    memcmp(s + i, q, seg))
			return false;
		q += seg;
		i = (size_t)nums[x].at + nums[x].len;
	}
	return len - i == t->seg[nn] && !memcmp(s + i, q, len - i);
}

/* t's holes with nums[0..nn) among them, in the line's order, into d->holes (room for
 * every byte of the line and more: split's). */
static int tmpl_holes(struct tl_dict *d, const struct tl_tmpl *t, const struct kt_num *nums,
		      size_t nn)
{
	size_t n = 0;

	if (kt_grow((void **)&d->holes, &d->cap_h, (size_t)t->nlit + nn + 1, sizeof(*d->holes)))
		return -ENOMEM;
	for (size_t x = 0, k = 0; x <= nn; x++) {
		/* the text's holes before number x (after the last one: the rest) */
		for (size_t to = x < nn ? t->lit_before[x] : t->nlit; k < to; k++)
			d->holes[n++] = t->lit[k];
		if (x < nn)
			d->holes[n++] = nums[x];
	}
	d->nh = n;
	return 0;
}

/* Keeps line[0..len) (its notes nums[0..nn), all taken by the split just made) as the
 * line of *slot, or leaves *slot without one: a line whose text has no holes (the
 * skeleton's pieces are its text: fits finds it), too long, with too many holes or
 * with a byte below 4 (a NUL, a mark) in its text. */
static void tmpl_keep(struct tl_dict *d, struct tl_tmpl **slot, const uint8_t *s, size_t len,
		      const struct kt_num *nums, size_t nn)
{
	struct tl_tmpl *t = *slot;
	size_t i = 0, nlit = d->nh - nn;

	if (t)
		t->valid = false;
	if (d->ntaken != nn || !nlit)
		return;
	if (!t && !(t = *slot = calloc(1, sizeof(*t))))
		return;
	if (nn > KT_NUMS_MAX || nlit > TL_TMPL_HOLES)
		return;
	t->len = 0;
	for (size_t x = 0; x <= nn; x++) {
		size_t end = x < nn ? nums[x].at : len, seg = end - i;

		if (t->len + seg > TL_TMPL_TEXT)
			return;
		for (size_t b = 0; b < seg; b++)
			if (s[i + b] < 4)
				return;
		memcpy(t->text + t->len, s + i, seg);
		t->len = (uint16_t)(t->len + seg);
		t->seg[x] = (uint16_t)seg;
		if (x < nn) {
			t->hex[x] = nums[x].hex != 0;
			t->lit_before[x] = (uint8_t)(d->note_hole[x] - x);
			i = (size_t)nums[x].at + nums[x].len;
		}
	}
	for (size_t k = 0, x = 0, n = 0; k < d->nh; k++) {
		if (x < nn && d->note_hole[x] == k) {
			x++;
			continue;
		}
		t->lit[n++] = d->holes[k];
	}
	t->nn = (uint8_t)nn;
	t->nlit = (uint8_t)nlit;
	t->valid = true;
}

/* Moves way j of a hint's ways (its skeleton and line) to the front. */
static void way_first(uint32_t *last, struct tl_tmpl **tmpl, unsigned j)
{
	uint32_t id1 = last[j];
	struct tl_tmpl *t = tmpl[j];

	memmove(last + 1, last, j * sizeof(*last));
	memmove(tmpl + 1, tmpl, j * sizeof(*tmpl));
	last[0] = id1;
	tmpl[0] = t;
}

int tl_encode_line(struct tl_dict *d, const char *line, size_t len, unsigned tag, struct tl_buf *out)
{
	/* a copy with the 8 bytes past its end that the scan reads */
	if (len > SIZE_MAX - 8 || kt_grow((void **)&d->padded.p, &d->padded.cap, len + 8, 1))
		return -ENOMEM;
	memcpy(d->padded.p, line, len);
	memset(d->padded.p + len, 0, 8);
	return tl_encode_line_nums(d, (const char *)d->padded.p, len, NULL, 0, -1, 0, tag, out, NULL);
}

int tl_encode_again(struct tl_dict *d, uint32_t id, const struct kt_num *h, size_t nh, unsigned tag,
		    struct tl_buf *out)
{
	if (NEVER(id >= d->n))
		return -EINVAL;
	return put_holes(d, id, h, nh, tag, out);
}

/* The line's skeleton and holes into *res (if any), then the line out. */
static int put_line(struct tl_dict *d, uint32_t id, const struct kt_num *h, size_t nh, unsigned tag,
		    struct tl_buf *out, struct tl_encoded *res)
{
	if (res)
		*res = (struct tl_encoded){ id, h, nh };
	return put_holes(d, id, h, nh, tag, out);
}

int tl_encode_line_nums(struct tl_dict *d, const char *line, size_t len, const struct kt_num *nums,
			size_t nn, int hint, unsigned how, unsigned tag, struct tl_buf *out,
			struct tl_encoded *res)
{
	uint32_t *last = hint >= 0 ? d->hint[(unsigned)hint % TL_DICT_HINTS] : NULL;
	struct tl_tmpl **tmpl = hint >= 0 ? d->tmpl[(unsigned)hint % TL_DICT_HINTS] : NULL;
	int64_t id;

	for (unsigned j = 0; last && j < TL_HINT_WAYS && last[j]; j++) {
		/* one of the hint's last skeletons, nums its holes, or the text of its last
		 * line around nums (with holes of its own): first from now on */
		if (fits(d, last[j] - 1, (const uint8_t *)line, len, nums, nn)) {
			way_first(last, tmpl, j);
			return put_line(d, last[0] - 1, nums, nn, tag, out, res);
		}
		if (tmpl[j] && tmpl_fits(tmpl[j], (const uint8_t *)line, len, nums, nn)) {
			way_first(last, tmpl, j);
			if (tmpl_holes(d, tmpl[0], nums, nn))
				return -ENOMEM;
			return put_line(d, last[0] - 1, d->holes, d->nh, tag, out, res);
		}
	}
	/* (fits takes no NUL: the line ends at its first one; the notes past it are not
	 * taken) */
	if (how & TL_ENC_NUL_ENDS)
		len = strnlen(line, len);
	if (split(d, line, len, nums, nn))
		return -ENOMEM;
	id = skeleton_id(d);
	if (id == -2)
		return -ENOMEM;
	if (id < 0 && (how & TL_ENC_ZEROED) && !(line = with_digits(d, line, len, nums, nn)))
		return -ENOMEM;
	if (last && id >= 0) {
		/* first of the hint's skeletons (the last one goes if it is new), with this
		 * line */
		unsigned j = 0;

		while (j < TL_HINT_WAYS - 1 && last[j] && last[j] != (uint32_t)id + 1)
			j++;
		way_first(last, tmpl, j);
		last[0] = (uint32_t)id + 1;
		tmpl_keep(d, &tmpl[0], (const uint8_t *)line, len, nums, nn);
	}
	if (res)
		res->id = -1;
	if (id < 0)
		return put_literal(d, line, len, tag, out);
	return put_line(d, (uint32_t)id, d->holes, d->nh, tag, out, res);
}
