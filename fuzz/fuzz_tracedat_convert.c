// SPDX-License-Identifier: MIT
/*
 * Fuzz harness for trace.dat conversion: any input the reader opens is converted (to
 * version 6, 7, 7 zstd or 7 zlib, chosen by the input's size) into a memory file, which
 * must then open, and hold everything the input holds: metadata, options, buffers, raw
 * CPU data and records (tests/tracedat/tdcompare.h). A difference is a crash.
 *
 * Records are compared only when the input's compressed chunks hold whole pages (as
 * trace-cmd writes them): a chunk ending inside a page makes the reader cut that page
 * short, which a rewritten file, chunked anew, does not reproduce.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/input.h>
#include <ktrace/tracedat.h>

#include "../tests/tracedat/tdcompare.h"

static const struct {
	unsigned int version;
	const char *comp;
} variants[] = { { 6, "none" }, { 7, "none" }, { 7, "zstd" }, { 7, "zlib" } };

struct piece_check {
	size_t page_size;
	bool whole;
	bool last_short;
};

static int check_piece(const void *data, size_t len, void *arg)
{
	struct piece_check *pc = arg;

	(void)data;
	if (pc->last_short)
		pc->whole = false;   /* a short piece that was not the last one */
	if (len % pc->page_size)
		pc->last_short = true;
	return 0;
}

/* True when every compressed chunk but the last of each CPU holds whole pages. */
static bool whole_page_chunks(struct tracedat *td)
{
	for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
		const struct tracedat_buffer *buf = tracedat_buffer(td, b);

		if (buf->latency || !buf->compressed)
			continue;
		for (size_t c = 0; c < buf->cpus; c++) {
			struct piece_check pc = { buf->page_size, true, false };

			if (tracedat_cpu_data(td, b, c, check_piece, &pc, NULL) || !pc.whole)
				return false;
		}
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	KTRACE_OPTS(tracedat_write_opts, wo);
	struct ktrace_input *in = NULL, *oin = NULL;
	struct tracedat *td = NULL, *out = NULL;
	struct tracedat_writer *w;
	struct stat st;
	void *map = NULL;
	size_t v = size % 4;
	char why[256];
	int ret;

	if (fd < 0) {
		fd = memfd_create("fuzz-convert", MFD_CLOEXEC);
		if (fd < 0)
			return 0;
	}
	if (ftruncate(fd, 0) < 0)
		return 0;
	if (ktrace_input_from_memory(data, size, "fuzz", &in, NULL))
		return 0;
	if (tracedat_open_input(in, 0, &td, NULL) || tracedat_header(td)->cpus > 4096)
		goto out;
	wo.version = variants[v].version;
	wo.compression = variants[v].comp;
	tracedat_write_opts_from(td, &wo);
	if (tracedat_writer_create_fd(fd, &wo, &w, NULL))
		goto out;
	ret = tracedat_convert(td, w, NULL);
	if (ret) {
		tracedat_writer_abort(w);
		goto out;
	}
	if (tracedat_writer_close(w, NULL))
		goto out;
	/* what was written must read back, and hold the same */
	if (fstat(fd, &st) < 0 || !st.st_size)
		__builtin_trap();
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		goto out;
	}
	if (ktrace_input_from_memory(map, (size_t)st.st_size, "converted", &oin, NULL) ||
	    tracedat_open_input(oin, 0, &out, NULL)) {
		fprintf(stderr, "converted file (v%u %s) does not open\n", variants[v].version,
			variants[v].comp);
		__builtin_trap();
	}
	if (whole_page_chunks(td) && !td_same(td, out, why, sizeof(why))) {
		fprintf(stderr, "conversion to v%u %s lost something: %s\n", variants[v].version,
			variants[v].comp, why);
		__builtin_trap();
	}
out:
	tracedat_close(out);
	ktrace_input_close(oin);
	if (map)
		munmap(map, (size_t)st.st_size);
	tracedat_close(td);
	ktrace_input_close(in);
	return 0;
}
