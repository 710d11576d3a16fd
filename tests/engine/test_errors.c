// SPDX-License-Identifier: MIT
/*
 * The paths the stream's errors give out (issue 30: a use after free printed freed
 * memory as the file name) are the caller's own strings, valid after the stream is
 * gone:
 *   - a file that fails to open: *err_path is the very pointer given in paths[];
 *   - damage found reading: ktrace_stream_error_path is that pointer, with or without
 *     read-ahead, and still is after ktrace_stream_close;
 *   - a sink's error about a record (kt_stream_record_error): the record's input and
 *     offset.
 * Inputs: the shared Darwin raw stream cut inside its first event (its reader finds
 * the damage on the stream's first read, inside ktrace_stream_open) and inside its
 * 101st event, and the bundled demo trace.dat.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/stream.h>

#include "engine/engine_stream_int.h"
#include "testlib.h"

#define DEMO "examples/sched_demo.dat"
#define DARWIN "../shared/data/darwin/coreprofilesessiontap.bin"   /* events at 0xd000 */

static char tmpdir[] = "/tmp/ktrace-test-errors.XXXXXX";

/* The first n bytes of src (all when n is 0) into a new file; its path (malloc'd, a copy
 * no stream knows of). */
static char *cut(const char *src, const char *name, long n)
{
	FILE *in = fopen(src, "rb"), *out;
	char *path = malloc(strlen(tmpdir) + strlen(name) + 2), buf[4096];
	size_t got;
	long left = n ? n : -1;

	if (!in || !path)
		return NULL;
	sprintf(path, "%s/%s", tmpdir, name);
	out = fopen(path, "wb");
	while (out && left && (got = fread(buf, 1, left > 0 && left < (long)sizeof(buf) ? (size_t)left
								 : sizeof(buf), in)) > 0) {
		fwrite(buf, 1, got, out);
		if (left > 0)
			left -= (long)got;
	}
	fclose(in);
	if (out)
		fclose(out);
	return path;
}

static long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return 0;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

static char *darwin;   /* the Darwin raw stream, cut in its first event */
static char *dcut;     /* the Darwin raw stream, cut in its 101st event */
static char *tdwhole;  /* the demo trace.dat whole */

static void open_error_path_is_the_callers(void)
{
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	const char *ep = NULL;
	/* a copy of the path: only pointer identity shows whose string came back */
	char *mine = strdup(darwin);
	const char *paths[2] = { tdwhole, mine };
	int ret;

	CHECK(mine != NULL);
	ret = ktrace_stream_open(&s, paths, 2, NULL, &err, &ep);
	CHECK(ret < 0);
	CHECK(s == NULL);
	CHECK(ep == mine);
	CHECK(err.has_offset);
	free(mine);
}

/* Reads dcut to its damage: the error's path is paths[0] itself, before and after the
 * stream is closed. */
static void read_error(unsigned flags)
{
	KTRACE_OPTS(ktrace_stream_opts, o, .flags = flags);
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	const struct ktrace_stream_record *r;
	char *mine = strdup(dcut);
	const char *paths[1] = { mine }, *ep;
	long n = 0;
	int ret;

	CHECK(mine != NULL);
	ret = ktrace_stream_open(&s, paths, 1, &o, &err, NULL);
	CHECK_EQ(ret, 0);
	if (ret) {
		free(mine);
		return;
	}
	while ((ret = ktrace_stream_next(s, &r, &err)) > 0)
		n++;
	CHECK_EQ(n, 100);
	CHECK(ret < 0);
	ep = ktrace_stream_error_path(s);
	CHECK(ep == mine);
	ktrace_stream_close(s);
	CHECK(ep == mine && !strcmp(ep, dcut));
	free(mine);
}

static void read_error_path_is_the_callers(void)
{
	read_error(0);
}

static void read_error_path_with_readahead(void)
{
	read_error(KTRACE_STREAM_READAHEAD);
}

/* A sink's error about the third record names its input (of two copies of the demo
 * trace, whose records tie: the first's come first) and the record's offset. */
static void record_error(unsigned flags)
{
	KTRACE_OPTS(ktrace_stream_opts, o, .flags = flags);
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	const struct ktrace_stream_record *r = NULL;
	const char *paths[2] = { DEMO, tdwhole };
	uint64_t off = 0;
	int ret, k = 0;

	ret = ktrace_stream_open(&s, paths, 2, &o, &err, NULL);
	CHECK_EQ(ret, 0);
	if (ret)
		return;
	CHECK(ktrace_stream_error_path(s) == NULL);
	while (k < 3 && (ret = ktrace_stream_next(s, &r, &err)) > 0)
		k++;
	CHECK_EQ(k, 3);
	if (k == 3) {
		off = r->offset;
		ret = kt_stream_record_error(s, r, &err, -ERANGE, "CPU %d: too big", r->cpu);
		CHECK_EQ(ret, -ERANGE);
		CHECK_EQ(err.code, -ERANGE);
		CHECK(err.has_offset);
		CHECK_EQ(err.offset, off);
		CHECK(strstr(err.message, "too big") != NULL);
		CHECK(ktrace_stream_error_path(s) == paths[r->source]);
		CHECK(r->source == 0);
	}
	ktrace_stream_close(s);
}

static void record_error_names_the_input(void)
{
	record_error(0);
}

static void record_error_with_readahead(void)
{
	record_error(KTRACE_STREAM_READAHEAD);
}

int main(void)
{
	long n = file_size(DEMO);

	PLAN(5);
	if (!mkdtemp(tmpdir) || n < 8192) {
		printf("not ok - setup (%s: %ld bytes)\n", DEMO, n);
		return 1;
	}
	tdwhole = cut(DEMO, "whole.dat", 0);
	dcut = cut(DARWIN, "cut100.bin", 0xd000 + 100 * 64 + 10);
	darwin = cut(DARWIN, "cut.bin", 0xd000 + 10);
	if (!tdwhole || !dcut || !darwin) {
		printf("not ok - setup (copies in %s)\n", tmpdir);
		return 1;
	}
	RUN(open_error_path_is_the_callers);
	RUN(read_error_path_is_the_callers);
	RUN(read_error_path_with_readahead);
	RUN(record_error_names_the_input);
	RUN(record_error_with_readahead);
	unlink(tdwhole);
	unlink(dcut);
	unlink(darwin);
	rmdir(tmpdir);
	free(tdwhole);
	free(dcut);
	free(darwin);
	return TEST_EXIT();
}
