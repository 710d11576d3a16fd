// SPDX-License-Identifier: MIT
/*
 * The timeline page's line encoding (lib/views/timeline_encode.h): every line comes back
 * byte for byte from its encoding and the dictionary, decoded here by the rules the
 * header writes down (a decoder of the test's own, as the page's script is one of its
 * own): skeletons with decimal and hex holes and escaped bytes, literal lines, hex
 * values XOR the last value of the same hole of the same skeleton, which starts again
 * at every chunk. Lines: random bytes from an alphabet that makes numbers, words, "0x",
 * long digit runs and leading zeros, and lines of a few fixed shapes with random values
 * (the same skeletons again and again, as in a trace).
 */
#include <stdio.h>
#include <stdlib.h>

#include "views/timeline_encode.h"
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

/* prev[id][j]: the last value of hex hole j of skeleton id in this chunk, when gen[id]
 * is the chunk's. */
static uint64_t (*prev)[MAX_HEX];
static uint32_t *prev_gen;

/* One encoded line at *p into out; its length, or -1 when it does not decode. */
static long decode_line(const uint8_t **p, const uint8_t *end, const uint8_t **sk, const size_t *sklen,
			size_t nsk, uint32_t chunk, char *out, size_t cap)
{
	int bad = 0;
	uint64_t id = get_varint(p, end, &bad);
	size_t n = 0;
	unsigned hx = 0;

	if (bad)
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
		prev_gen[id] = chunk + 1;
	}
	for (size_t i = 0; i < sklen[id]; i++) {
		uint8_t b = sk[id][i];
		char num[32];
		int k;

		if (b == 1) {
			k = snprintf(num, sizeof(num), "%llu", (unsigned long long)get_varint(p, end, &bad));
		} else if (b == 2) {
			uint64_t w = get_varint(p, end, &bad), hi = get_varint(p, end, &bad),
				 lo = get_varint(p, end, &bad), v;

			if (hx >= MAX_HEX || w < 1 || w > 16)
				return -1;
			v = (hi << 32 | lo) ^ prev[id][hx];
			prev[id][hx++] = v;
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
	static const uint8_t *sk[MAX_SKELETONS];
	static size_t sklen[MAX_SKELETONS];
	struct tl_dict d;
	struct tl_buf enc = { 0 };
	unsigned seed = 12345;
	size_t bad = 0, checked = 0, literal = 0;

	prev = calloc(MAX_SKELETONS, sizeof(*prev));
	prev_gen = calloc(MAX_SKELETONS, sizeof(*prev_gen));
	CHECK(prev && prev_gen);
	if (!prev || !prev_gen)
		return;
	tl_dict_init(&d);
	for (uint32_t chunk = 0; chunk < 60; chunk++) {
		const uint8_t *p, *end;
		size_t nsk;

		enc.n = 0;
		tl_dict_new_chunk(&d);
		for (size_t i = 0; i < CHUNK; i++) {
			lens[i] = random_line(lines[i], &seed);
			CHECK_EQ(tl_encode_line(&d, lines[i], lens[i], &enc), 0);
		}
		nsk = load_skeletons(&d, sk, sklen);
		p = enc.p;
		end = enc.p + enc.n;
		for (size_t i = 0; i < CHUNK; i++) {
			char out[512];
			const uint8_t *at = p;
			long n = decode_line(&p, end, sk, sklen, nsk, chunk, out, sizeof(out));

			literal += *at == 0;
			checked++;
			if (n != (long)lens[i] || memcmp(out, lines[i], lens[i])) {
				if (!bad++)
					fprintf(stderr, "# line %zu of chunk %u: %.*s\n", i, chunk, (int)lens[i], lines[i]);
				break;
			}
		}
		CHECK(p == end || bad);
	}
	CHECK_EQ(bad, 0);
	CHECK(checked == 60 * CHUNK);
	CHECK(literal == 0);                 /* the dictionary never filled up */
	CHECK(d.n > 100 && d.n < 60 * CHUNK);   /* shapes met again, random lines new */
	tl_buf_free(&enc);
	tl_dict_free(&d);
	free(prev);
	free(prev_gen);
}

int main(void)
{
	RUN(round_trip);
	return TEST_EXIT();
}
