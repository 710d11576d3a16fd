// SPDX-License-Identifier: MIT
/*
 * Decompression buffers (lib/tracedat/tracedat_codec.c): a chunk-sized output is made
 * resident at once (kt_populate) and decompresses byte for byte; a big announced size
 * (plausible at 64:1, not proven) over damaged data is never made resident: the
 * decompression fails at once and the process's resident memory stays where it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "tracedat/tracedat_int.h"
#include "testlib.h"

/* Resident bytes of this process (/proc/self/statm), 0 when unknown. */
static size_t resident(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (size_t)res * (size_t)sysconf(_SC_PAGESIZE);
}

static void chunk_round_trip(void)
{
	size_t n = 40960, bound = ZSTD_compressBound(n), clen;
	uint8_t *in = malloc(n), *z = malloc(bound), *out = NULL;
	size_t cap = 0;
	struct td_codec c;

	CHECK(in && z);
	if (!in || !z)
		goto out;
	for (size_t i = 0; i < n; i++)
		in[i] = (uint8_t)(i * 7 / 13);
	clen = ZSTD_compress(z, bound, in, n, 1);
	CHECK(!ZSTD_isError(clen));
	CHECK_EQ(td_codec_init(&c, TD_CODEC_ZSTD), 0);
	CHECK_EQ(td_decompress_grow(&c, z, clen, &out, &cap, n), 0);
	CHECK(cap >= n && out && !memcmp(out, in, n));
	/* the same buffer again, already big enough */
	memset(out, 0, n);
	CHECK_EQ(td_decompress_grow(&c, z, clen, &out, &cap, n), 0);
	CHECK(out && !memcmp(out, in, n));
	td_codec_fini(&c);
out:
	free(in);
	free(z);
	free(out);
}

/* 1 MiB of bytes that are no zstd frame, announced as 60 MiB (within 64:1). */
static void damaged_big_not_resident(void)
{
	size_t slen = 1 << 20, want = (size_t)60 << 20, cap = 0, before, after;
	uint8_t *src = malloc(slen), *out = NULL;
	struct td_codec c;

	CHECK(src != NULL);
	if (!src)
		return;
	for (size_t i = 0; i < slen; i++)
		src[i] = (uint8_t)(i * 2654435761u >> 24);
	CHECK(td_size_plausible(slen, want));
	CHECK_EQ(td_codec_init(&c, TD_CODEC_ZSTD), 0);
	before = resident();
	CHECK(td_decompress_grow(&c, src, slen, &out, &cap, want) < 0);
	after = resident();
	/* the 60 MiB allocated for the announced size stay untouched (16 MiB: room for a
	 * sanitizer's shadow of the allocation) */
	CHECK(before > 0);
	CHECK(after < before + ((size_t)16 << 20));
	if (after >= before + ((size_t)16 << 20))
		printf("#   resident %zu -> %zu bytes\n", before, after);
	td_codec_fini(&c);
	free(out);
	free(src);
}

int main(void)
{
	PLAN(2);
	RUN(chunk_round_trip);
	RUN(damaged_big_not_resident);
	return TEST_EXIT();
}
