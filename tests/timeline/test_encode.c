// SPDX-License-Identifier: MIT
/*
 * The timeline page's line encoding (lib/sinks/timeline/timeline_encode.h): every line comes back
 * byte for byte from its encoding and the dictionary, decoded here by the rules the
 * header writes down (a decoder of the test's own, as the page's script is one of its
 * own): skeletons with decimal and hex holes and escaped bytes, literal lines, hex
 * values XOR the last value of the same hole of the same skeleton and digits when not
 * the hole's last, which start again at every chunk, and each line's tag, said when it
 * changes. Lines: random bytes from an alphabet that makes numbers, words, "0x",
 * long digit runs and leading zeros, and lines of a few fixed shapes with random values
 * (the same skeletons again and again, as in a trace).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/timeline/timeline_encode.h"
#include "testlib.h"

#define CHUNK 4096
#define MAX_SKELETONS 200000
#define MAX_HEX 64

static uint64_t get_varint(const uint8_t **p, const uint8_t *end, int *bad)
{
	uint64_t v = 0;

	for (int sh = 0; sh < 64; sh += 7) {
		uint8_t b;

		if (*p >= end) {
			*bad = 1;
			return 0;
		}
		b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
	*bad = 1;
	return 0;
}

/* The dictionary's skeletons (varint length, bytes each, in id order). */
static size_t load_skeletons(const struct tl_dict *d, const uint8_t **sk, size_t *len)
{
	const uint8_t *p = d->data.p, *end = d->data.p + d->data.n;
	size_t n = 0;
	int bad = 0;

	while (p < end && n < MAX_SKELETONS) {
		len[n] = (size_t)get_varint(&p, end, &bad);
		sk[n++] = p;
		p += len[n - 1];
	}
	return bad ? 0 : n;
}

/* prev[id][j], prev_w[id][j]: the last value and digits of hex hole j of skeleton id
 * in this chunk, when gen[id] is the chunk's. */
static uint64_t (*prev)[MAX_HEX];
static uint8_t (*prev_w)[MAX_HEX];
static uint32_t *prev_gen;

/* One encoded line at *p into out; its length, or -1 when it does not decode. *tag:
 * the tag of the line before in the chunk (UINT_MAX at its start), then this one's. */
static long decode_line(const uint8_t **p, const uint8_t *end, const uint8_t **sk, const size_t *sklen,
			size_t nsk, uint32_t chunk, char *out, size_t cap, unsigned *tag)
{
	int bad = 0;
	uint64_t head = get_varint(p, end, &bad), id = head >> 1;
	size_t n = 0;
	unsigned hx = 0;

	if (head & 1) {
		uint64_t t = get_varint(p, end, &bad);

		if (t >= UINT_MAX)
			return -1;
		*tag = (unsigned)t;
	}
	if (bad || *tag == UINT_MAX)
		return -1;
	if (!id) {
		uint64_t l = get_varint(p, end, &bad);

		if (bad || l > cap || l > (uint64_t)(end - *p))
			return -1;
		memcpy(out, *p, l);
		*p += l;
		return (long)l;
	}
	if (id > nsk)
		return -1;
	id--;
	if (prev_gen[id] != chunk + 1) {
		memset(prev[id], 0, sizeof(prev[id]));
		memset(prev_w[id], 0, sizeof(prev_w[id]));
		prev_gen[id] = chunk + 1;
	}
	for (size_t i = 0; i < sklen[id]; i++) {
		uint8_t b = sk[id][i];
		char num[32];
		int k;

		if (b == 1) {
			k = snprintf(num, sizeof(num), "%llu", (unsigned long long)get_varint(p, end, &bad));
		} else if (b == 2) {
			uint64_t x = get_varint(p, end, &bad), hi = 0, w, v;

			if (hx >= MAX_HEX || x >> 34)
				return -1;
			if (x & 2)
				hi = get_varint(p, end, &bad);
			w = x & 1 ? get_varint(p, end, &bad) : prev_w[id][hx];
			if (w < 1 || w > 16 || hi >> 32 || ((x & 2) && !hi) ||
			    ((x & 1) && w == prev_w[id][hx]))
				return -1;      /* (not as the encoder writes them) */
			v = (hi << 32 | x >> 2) ^ prev[id][hx];
			prev[id][hx] = v;
			prev_w[id][hx++] = (uint8_t)w;
			k = snprintf(num, sizeof(num), "%0*llx", (int)w, (unsigned long long)v);
		} else {
			if (b == 3 && ++i >= sklen[id])
				return -1;
			num[0] = (char)sk[id][i];
			k = 1;
		}
		if (bad || n + (size_t)k > cap)
			return -1;
		memcpy(out + n, num, (size_t)k);
		n += (size_t)k;
	}
	return (long)n;
}

/* prev and prev_gen for MAX_SKELETONS skeletons; false (a failed check) without. */
static bool prev_alloc(void)
{
	prev = calloc(MAX_SKELETONS, sizeof(*prev));
	prev_w = calloc(MAX_SKELETONS, sizeof(*prev_w));
	prev_gen = calloc(MAX_SKELETONS, sizeof(*prev_gen));
	CHECK(prev && prev_w && prev_gen);
	return prev && prev_w && prev_gen;
}

static void prev_free(void)
{
	free(prev);
	free(prev_w);
	free(prev_gen);
	prev = NULL;
	prev_w = NULL;
	prev_gen = NULL;
}

/* Decodes chunk (enc, d's skeletons) and compares its n lines with lines[i * stride]
 * (lens[i] bytes each) and tags[i]: the lines that differ (the first one shown; the
 * check stops there), and how many were stored whole into *literal. */
static size_t check_chunk(const struct tl_dict *d, const struct tl_buf *enc, uint32_t chunk,
			  const char *lines, size_t stride, const size_t *lens, const unsigned *tags,
			  size_t n, size_t *literal)
{
	static const uint8_t *sk[MAX_SKELETONS];
	static size_t sklen[MAX_SKELETONS];
	size_t nsk = load_skeletons(d, sk, sklen);
	const uint8_t *p = enc->p, *end = enc->p + enc->n;
	unsigned tag = UINT_MAX;

	for (size_t i = 0; i < n; i++) {
		const char *want = lines + i * stride;
		const uint8_t *at = p;
		char out[512];
		long got = decode_line(&p, end, sk, sklen, nsk, chunk, out, sizeof(out), &tag);

		*literal += *at < 2;
		if (got != (long)lens[i] || memcmp(out, want, lens[i]) || tag != tags[i]) {
			fprintf(stderr, "# line %zu of chunk %u: %.*s\n", i, chunk, (int)lens[i], want);
			return 1;
		}
	}
	CHECK(p == end);
	return 0;
}

static size_t random_line(char *s, unsigned *seed)
{
	static const char alpha[] = "0000123456789abcdefxx_gqzAZ -:=/.\x01\x02\x03";
	static const char *const shapes[] = {
		"kmalloc: call_site=0x%016llx ptr=0x%016llx bytes_req=%u bytes_alloc=%u",
		"sched_switch: prev_comm=kworker/%u:%u prev_pid=%u ==> next_pid=%u",
		"addr %llx and %llx at 0x%llx",
		"id=%u seq=%020llu off=%08u",
	};
	size_t n = 0;

	if (rand_r(seed) % 2) {
		int k = rand_r(seed) % 4;
		unsigned long long a = 0xffff888100000000ULL + (unsigned long long)(rand_r(seed) % 65536) * 64,
				   b = (unsigned long long)rand_r(seed) << 20 | (unsigned)rand_r(seed);

		if (k == 0)
			return (size_t)sprintf(s, shapes[0], 0xffffffff81000000ULL + (unsigned)rand_r(seed) % 4096, a,
					       (unsigned)rand_r(seed) % 512, 512u);
		if (k == 1)
			return (size_t)sprintf(s, shapes[1], (unsigned)rand_r(seed) % 4, (unsigned)rand_r(seed) % 3,
					       (unsigned)rand_r(seed) % 70000, (unsigned)rand_r(seed) % 70000);
		if (k == 2)
			return (size_t)sprintf(s, shapes[2], a, b, a ^ b);
		return (size_t)sprintf(s, shapes[3], (unsigned)rand_r(seed), b * 1000003ULL, (unsigned)rand_r(seed) % 1000);
	}
	for (int len = rand_r(seed) % 60; (int)n < len; n++)
		s[n] = alpha[rand_r(seed) % (sizeof(alpha) - 1)];
	return n;
}

static void round_trip(void)
{
	static char lines[CHUNK][128];
	static size_t lens[CHUNK];
	static unsigned tags[CHUNK];
	struct tl_dict d;
	struct tl_buf enc = { 0 };
	unsigned seed = 12345;
	size_t bad = 0, literal = 0;
	uint32_t chunk;

	if (!prev_alloc())
		return;
	tl_dict_init(&d);
	for (chunk = 0; chunk < 60 && !bad; chunk++) {
		enc.n = 0;
		tl_dict_new_chunk(&d);
		for (size_t i = 0; i < CHUNK; i++) {
			lens[i] = random_line(lines[i], &seed);
			/* runs of one tag, now and then another (as prefix styles go) */
			tags[i] = rand_r(&seed) % 50 ? (i ? tags[i - 1] : chunk % 3) : (unsigned)rand_r(&seed) % 1100;
			CHECK_EQ(tl_encode_line(&d, lines[i], lens[i], tags[i], &enc), 0);
		}
		bad += check_chunk(&d, &enc, chunk, lines[0], sizeof(lines[0]), lens, tags, CHUNK, &literal);
	}
	CHECK_EQ(bad, 0);
	CHECK(chunk == 60);
	CHECK(literal == 0);                 /* the dictionary never filled up */
	CHECK(d.n > 100 && d.n < 60 * CHUNK);   /* shapes met again, random lines new */
	tl_buf_free(&enc);
	tl_dict_free(&d);
	prev_free();
}

/* A line of literal pieces and numbers noted as a formatter notes them (numspan.h):
 * decimal, hex, zero-padded hex, numbers next to each other and to digits of the text;
 * one line in 8 also has a note that is not as numspan.h has it (out of order, past the
 * line, hex digits not its length, empty), which the encoder must pass over. */
static size_t noted_line(char *s, struct kt_num *nums, size_t *nn, unsigned *seed, int *hint)
{
	static const char alpha[] = "ab_=x 0:/9fq\x01";
	size_t n = 0;
	int pieces = rand_r(seed) % 8;

	*nn = 0;
	*hint = -1;
	if (rand_r(seed) % 2) {
		/* one of a few shapes, its hint the shape (a shape's lines mostly have one
		 * skeleton: the one the hint remembers), sometimes another hint's */
		static const char *const shapes[] = { "memcg_id=", " item=", " ptr=0x", " name=" };
		int shape = rand_r(seed) % 3;
		unsigned long long v = (unsigned)rand_r(seed);

		*hint = rand_r(seed) % 16 ? shape : 2 - shape;
		for (int i = 0; i <= shape; i++) {
			n += (size_t)sprintf(s + n, "%s", shapes[i]);
			if (i == 2) {
				int k = sprintf(s + n, "%llx", v << 20);

				nums[(*nn)++] = (struct kt_num){ v << 20, (uint32_t)n, (uint8_t)k, (uint8_t)k };
				n += (size_t)k;
			} else {
				int k = sprintf(s + n, "%llu", v + (unsigned)i);

				nums[(*nn)++] = (struct kt_num){ v + (unsigned)i, (uint32_t)n, (uint8_t)k, 0 };
				n += (size_t)k;
			}
		}
		if (rand_r(seed) % 8 == 0)
			n += (size_t)sprintf(s + n, " extra\x02");   /* not the skeleton, and a byte to escape */
		memset(s + n, 'Z', 8);
		return n;
	}
	for (int i = 0; i < pieces && *nn < KT_NUMS_MAX - 1; i++) {
		int kind = rand_r(seed) % 4, len = rand_r(seed) % 7;
		unsigned long long v = (unsigned long long)rand_r(seed) << 31 | (unsigned)rand_r(seed);
		int k;

		for (int j = 0; j < len; j++)
			s[n++] = alpha[rand_r(seed) % (sizeof(alpha) - 1)];
		if (kind == 0) {
			v %= 1000000000000000ULL;
			k = sprintf(s + n, "%llu", v);
			nums[*nn] = (struct kt_num){ v, (uint32_t)n, (uint8_t)k, 0 };
		} else if (kind == 1) {
			k = sprintf(s + n, "%llx", v);
			nums[*nn] = (struct kt_num){ v, (uint32_t)n, (uint8_t)k, (uint8_t)k };
		} else if (kind == 2) {
			v &= 0xffff;
			k = sprintf(s + n, "%08llx", v);
			nums[*nn] = (struct kt_num){ v, (uint32_t)n, 8, 8 };
		} else {
			k = sprintf(s + n, "0x%llx", v);
			nums[*nn] = (struct kt_num){ v, (uint32_t)n + 2, (uint8_t)(k - 2), (uint8_t)(k - 2) };
		}
		n += (size_t)k;
		++*nn;
	}
	if (*nn && rand_r(seed) % 8 == 0) {
		struct kt_num bad = nums[rand_r(seed) % *nn];
		int how = rand_r(seed) % 4;

		if (how == 0)
			bad.at = (uint32_t)n + 3;          /* past the line */
		else if (how == 1)
			bad.len = 0;
		else if (how == 2)
			bad.hex = (uint8_t)(bad.len + 1);  /* not its length */
		else
			bad.at = 0;                        /* out of order (after the others) */
		nums[(*nn)++] = bad;
	}
	memset(s + n, 'Z', 8);                      /* the 8 readable bytes past the end */
	return n;
}

/* Lines with noted numbers come back byte for byte; lines of one shape whose values are
 * noted share one skeleton. */
static void noted_numbers(void)
{
	static char lines[CHUNK][400];
	static size_t lens[CHUNK];
	static unsigned tags[CHUNK];
	struct kt_num nums[KT_NUMS_MAX];
	struct tl_dict d;
	struct tl_buf enc = { 0 };
	unsigned seed = 777;
	size_t bad = 0, before, literal = 0;

	if (!prev_alloc())
		return;
	tl_dict_init(&d);
	for (uint32_t chunk = 0; chunk < 20 && !bad; chunk++) {
		enc.n = 0;
		tl_dict_new_chunk(&d);
		for (size_t i = 0; i < CHUNK; i++) {
			char zeroed[400];
			size_t nn;
			int hint;

			lens[i] = noted_line(lines[i], nums, &nn, &seed, &hint);
			tags[i] = i % 7 ? 1 : 5;
			if (chunk % 2) {
				/* as the formatter leaves it: '0's for the digits of the notes
				 * the encoder takes (numspan.h) */
				memcpy(zeroed, lines[i], lens[i] + 8);
				for (size_t x = 0, at = 0; x < nn; x++) {
					const struct kt_num *m = &nums[x];

					if (m->at < at || !m->len || m->at + m->len > lens[i] ||
					    (m->hex && m->hex != m->len))
						continue;
					memset(zeroed + m->at, '0', m->len);
					at = m->at + m->len;
				}
				CHECK_EQ(tl_encode_line_nums(&d, zeroed, lens[i], nums, nn, hint, TL_ENC_ZEROED, tags[i], &enc, NULL), 0);
			} else {
				CHECK_EQ(tl_encode_line_nums(&d, lines[i], lens[i], nums, nn, hint, 0, tags[i], &enc, NULL), 0);
			}
		}
		bad += check_chunk(&d, &enc, chunk, lines[0], sizeof(lines[0]), lens, tags, CHUNK, &literal);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(literal, 0);
	/* one shape, its numbers noted: one skeleton whatever the values */
	before = d.n;
	tl_dict_new_chunk(&d);
	for (int i = 0; i < 1000; i++) {
		char line[128];
		unsigned long long a = (unsigned long long)rand_r(&seed) * 7919, b = (unsigned)rand_r(&seed);
		int k1 = sprintf(line, "page=0x"), k2 = sprintf(line + k1, "%llx", a);
		int k3 = sprintf(line + k1 + k2, " order="), k4 = sprintf(line + k1 + k2 + k3, "%llu", b);

		nums[0] = (struct kt_num){ a, (uint32_t)k1, (uint8_t)k2, (uint8_t)k2 };
		nums[1] = (struct kt_num){ b, (uint32_t)(k1 + k2 + k3), (uint8_t)k4, 0 };
		memset(line + k1 + k2 + k3 + k4, 0, 8);
		CHECK_EQ(tl_encode_line_nums(&d, line, (size_t)(k1 + k2 + k3 + k4), nums, 2, i % 2 ? 7 : -1, 0, 0, &enc, NULL), 0);
	}
	CHECK_EQ(d.n, before + 1);
	{
		/* a line whose raw bytes are the hint's skeleton, marks included: not that
		 * skeleton (its \1 would read a number); it comes back as it is */
		static const uint8_t *sk1[MAX_SKELETONS];
		static size_t sklen1[MAX_SKELETONS];
		char a[24] = "a5b", b[24] = "a\1b";
		struct kt_num five = { 5, 1, 1, 0 };
		const uint8_t *p;
		char out[64];
		long n;
		size_t nsk, from;
		unsigned tag = 0;     /* the line before's */

		tl_dict_new_chunk(&d);
		memset(a + 3, 0, 8);
		memset(b + 3, 0, 8);
		CHECK_EQ(tl_encode_line_nums(&d, a, 3, &five, 1, 9, 0, 0, &enc, NULL), 0);
		from = enc.n;
		CHECK_EQ(tl_encode_line_nums(&d, b, 3, NULL, 0, 9, 0, 0, &enc, NULL), 0);
		nsk = load_skeletons(&d, sk1, sklen1);
		p = enc.p + from;
		n = decode_line(&p, enc.p + enc.n, sk1, sklen1, nsk, 21, out, sizeof(out), &tag);
		CHECK(n == 3 && !memcmp(out, b, 3));
	}
	tl_buf_free(&enc);
	tl_dict_free(&d);
	prev_free();
}

/* A hex number standing alone whose first digit comes after 8 or more of its letters
 * (the scan copies letters 8 at a time and takes them back): a hole wherever it starts,
 * so lines of that shape share one skeleton per position. */
static void hex_after_letters(void)
{
	struct tl_dict d;
	struct tl_buf enc = { 0 };
	unsigned seed = 99;

	tl_dict_init(&d);
	tl_dict_new_chunk(&d);
	for (int i = 0; i < 2000; i++) {
		char line[96];
		int pad = i % 9, n = sprintf(line, "at%*s ", pad, "");

		for (int j = 0; j < 9; j++)
			line[n++] = (char)('a' + rand_r(&seed) % 6);
		n += sprintf(line + n, "%07x end", (unsigned)rand_r(&seed) % 0xfffffff);
		CHECK_EQ(tl_encode_line(&d, line, (size_t)n, 0, &enc), 0);
	}
	CHECK_EQ(d.n, 9);              /* one skeleton per padding: "at<pad> \2 end" */
	tl_buf_free(&enc);
	tl_dict_free(&d);
}

/* With the dictionary full, a line is stored whole: a line whose digits the formatter
 * left as '0's comes back with its digits. */
static void full_dictionary(void)
{
	static const uint8_t *sk[1];
	size_t sklen[1] = { 0 };
	struct tl_dict d;
	struct tl_buf enc = { 0 };
	unsigned seed = 5;
	char line[300 + 8], out[64];
	struct kt_num num = { 4096, 4, 4, 0 };
	const uint8_t *p;
	size_t from;
	long n;
	int lines = 0;

	tl_dict_init(&d);
	tl_dict_new_chunk(&d);
	/* skeletons of 300 letters each, all different, then of 8 to fill what is left:
	 * to TL_DICT_MAX_BYTES */
	while (d.data.n + 9 <= TL_DICT_MAX_BYTES && lines < 400000) {
		size_t len = d.data.n + 300 <= TL_DICT_MAX_BYTES ? 300 : 8;

		for (size_t i = 0; i < len; i++)
			line[i] = (char)('g' + rand_r(&seed) % 19);
		memset(line + len, 0, 8);
		CHECK_EQ(tl_encode_line(&d, line, len, 0, &enc), 0);
		lines++;
	}
	memcpy(line, "len=0000 end", 12);
	memset(line + 12, 0, 8);
	from = enc.n;
	CHECK_EQ(tl_encode_line_nums(&d, line, 12, &num, 1, -1, TL_ENC_ZEROED, 0, &enc, NULL), 0);
	p = enc.p + from;
	n = decode_line(&p, enc.p + enc.n, sk, sklen, 0, 0, out, sizeof(out), &(unsigned){ 0 });
	CHECK(enc.p[from] == 0);             /* stored whole, its tag the line before's */
	CHECK(n == 12 && !memcmp(out, "len=4096 end", 12));
	tl_buf_free(&enc);
	tl_dict_free(&d);
}

/* TL_ENC_NUL_ENDS: a line ends at its first NUL, on the hint's fast path (the line is
 * its skeleton's but for what follows the NUL) and on the slow one; the notes past the
 * NUL are not holes. Without the flag the NUL is a byte of the line. */
static void nul_ends_line(void)
{
	static const uint8_t *sk[MAX_SKELETONS];
	static size_t sklen[MAX_SKELETONS];
	static const struct {
		const char *text;
		size_t len;
		unsigned how;
		const char *want;
		size_t want_len;
	} cases[] = {
		{ "pid=0000 done", 13, TL_ENC_ZEROED, "pid=4242 done", 13 },   /* the skeleton */
		{ "pid=0000 done\0 x=00", 20, TL_ENC_ZEROED | TL_ENC_NUL_ENDS, "pid=4242 done", 13 },
		{ "pid=0000 do\0ne", 15, TL_ENC_ZEROED | TL_ENC_NUL_ENDS, "pid=4242 do", 11 },
		{ "\0pid=0000 done", 14, TL_ENC_ZEROED | TL_ENC_NUL_ENDS, "", 0 },
		{ "pid=0000 done\0", 14, TL_ENC_ZEROED, "pid=4242 done\0", 14 },
		/* the skeleton of the line before fits but for its NUL */
		{ "pid=0000 done\0", 14, TL_ENC_ZEROED | TL_ENC_NUL_ENDS, "pid=4242 done", 13 },
	};
	struct tl_dict d;
	struct tl_buf enc = { 0 };
	unsigned tag = UINT_MAX;
	size_t from[6], nsk;
	const uint8_t *p;

	CHECK(prev_alloc());
	tl_dict_init(&d);
	tl_dict_new_chunk(&d);
	for (size_t i = 0; i < 6; i++) {
		char line[64] = { 0 };
		/* pid's digits as '0's, and a second number past the NUL in case 1 */
		struct kt_num nums[2] = { { 4242, 4, 4, 0 }, { 77, 18, 2, 0 } };

		memcpy(line, cases[i].text, cases[i].len);
		from[i] = enc.n;
		CHECK_EQ(tl_encode_line_nums(&d, line, cases[i].len, nums, i == 1 ? 2 : 1, 3,
					     cases[i].how, 0, &enc, NULL), 0);
	}
	nsk = load_skeletons(&d, sk, sklen);
	p = enc.p;
	for (size_t i = 0; i < 6; i++) {
		char out[64];
		long n;

		CHECK(p == enc.p + from[i]);
		n = decode_line(&p, enc.p + enc.n, sk, sklen, nsk, 1, out, sizeof(out), &tag);
		CHECK_EQ(n, (long)cases[i].want_len);
		CHECK(n >= 0 && !memcmp(out, cases[i].want, cases[i].want_len));
	}
	tl_buf_free(&enc);
	tl_dict_free(&d);
	prev_free();
}

/* Lines of sched_switch's shape whose text around the noted numbers has digits of its
 * own ("python3", "swapper/1", "kworker/0:2", a pointer after "0x"): the text's holes
 * and the notes come back in order, and a hint changes nothing in the bytes (the
 * encoding with hints, which reuses the holes of the text of a way's last line, equals
 * the one without, which cuts every line up). */
static void text_digits(void)
{
	static const char *const comms[] = { "python3", "swapper/1", "kworker/0:2", "sh", "ls" };
	static const char *const states[] = { "S", "D", "R+", "X 0x1f2e3d4c5b" };
	static char lines[CHUNK][128];
	static size_t lens[CHUNK];
	static unsigned tags[CHUNK];
	struct tl_dict with, without;
	struct tl_buf a = { 0 }, b = { 0 };
	unsigned seed = 4242;
	size_t bad = 0, literal = 0;

	if (!prev_alloc())
		return;
	tl_dict_init(&with);
	tl_dict_init(&without);
	for (uint32_t chunk = 0; chunk < 4 && !bad; chunk++) {
		a.n = b.n = 0;
		tl_dict_new_chunk(&with);
		tl_dict_new_chunk(&without);
		for (size_t i = 0; i < CHUNK; i++) {
			struct kt_num nums[4];
			char *l = lines[i];
			size_t n = 0, nn = 0;
			unsigned v[4];

			for (int k = 0; k < 4; k++)
				v[k] = (unsigned)rand_r(&seed) % (k % 2 ? 140 : 40000);
			/* "%s:%u [%u] %s ==> %s:%u [%u]", each number noted */
			n += (size_t)sprintf(l + n, "%s:", comms[rand_r(&seed) % 5]);
			for (int k = 0; k < 4; k++) {
				int w;

				if (k == 2)
					n += (size_t)sprintf(l + n, " %s ==> %s:", states[rand_r(&seed) % 4],
							     comms[rand_r(&seed) % 5]);
				else if (k)
					n += (size_t)sprintf(l + n, k == 1 ? " [" : " [");
				w = sprintf(l + n, "%u", v[k]);
				nums[nn++] = (struct kt_num){ v[k], (uint32_t)n, (uint8_t)w, 0 };
				n += (size_t)w;
				if (k % 2)
					l[n++] = ']';
			}
			memset(l + n, 0, 8);
			lens[i] = n;
			tags[i] = 1;
			CHECK_EQ(tl_encode_line_nums(&with, l, n, nums, nn, 3, 0, 1, &a, NULL), 0);
			CHECK_EQ(tl_encode_line_nums(&without, l, n, nums, nn, -1, 0, 1, &b, NULL), 0);
		}
		bad += check_chunk(&with, &a, chunk, lines[0], sizeof(lines[0]), lens, tags, CHUNK, &literal);
		CHECK(a.n == b.n && !memcmp(a.p, b.p, a.n));
		CHECK(with.n == without.n);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(literal, 0);
	/* the skeletons are the text's shapes (comms and states, digits as holes), not one
	 * per value */
	CHECK(with.n <= 5 * 4 * 5);
	tl_buf_free(&a);
	tl_buf_free(&b);
	tl_dict_free(&with);
	tl_dict_free(&without);
	prev_free();
}

int main(void)
{
	PLAN(6);
	RUN(round_trip);
	RUN(noted_numbers);
	RUN(hex_after_letters);
	RUN(full_dictionary);
	RUN(nul_ends_line);
	RUN(text_digits);
	return TEST_EXIT();
}
