// SPDX-License-Identifier: MIT
/*
 * Fuzzes tracedat_split (lib/tracedat/tracedat_pieces.c, tracedat_encode.c): arbitrary
 * bytes read as a trace.dat file and cut into pieces by records (merged) and by pages
 * (per CPU), written into a temporary directory; each piece written must open again
 * and give as many records as it was written with.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/input.h>
#include <ktrace/tracedat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void check_piece(void *arg, const char *path, uint64_t records)
{
	struct ktrace_error err = { 0 };
	struct tracedat *td;
	struct tracedat_iter *it;
	const struct tracedat_record *rec;
	uint64_t n = 0;

	(void)arg;
	if (tracedat_open(path, 0, &td, &err) < 0)
		abort();      /* a piece written is a valid file */
	if (tracedat_iter_new(td, TRACEDAT_ALL_BUFFERS, -1, &it, &err) == 0) {
		while (tracedat_iter_next(it, &rec, &err) == 1)
			n++;
		tracedat_iter_free(it);
	}
	tracedat_close(td);
	if (n != records)
		abort();
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	struct tracedat *td = NULL;
	char out[96];

	if (size > (2u << 20))
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/fuzz-split-%d", (int)getpid());
	mkdir(dir, 0700);
	snprintf(out, sizeof(out), "%s/p", dir);
	if (ktrace_input_from_memory(data, size, "fuzz.dat", &in, &err) < 0) {
		rmdir(dir);
		return 0;
	}
	if (tracedat_open_input(in, 0, &td, &err) == 0) {
		KTRACE_OPTS(tracedat_split_opts, o,
			.output = out, .unit = TRACEDAT_SPLIT_EVENTS, .count = 3, .repeat = true,
			.cpu = -1, .piece = check_piece);

		tracedat_split(td, &o, &err);
		o.unit = TRACEDAT_SPLIT_PAGES;
		o.count = 1;
		tracedat_split(td, &o, &err);
		tracedat_close(td);
	}
	ktrace_input_close(in);
	/* every piece was checked and removed */
	rmdir(dir);
	return 0;
}
