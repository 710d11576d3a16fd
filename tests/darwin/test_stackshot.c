// SPDX-License-Identifier: MIT
/*
 * Stackshots inside Darwin ktrace files: V3 files written with the ktrace_file writer
 * (a thread map, events, and stackshot chunks holding shared kcdata samples) read
 * back through ktrace_darwin_stackshot: the tree and its task and thread counts equal
 * what the kcdata decoder gives for the sample alone.
 *
 *   test_stackshot                         unit tests
 *   test_stackshot write OUT KCDATA...     writes OUT with one stackshot chunk per
 *                                          KCDATA file (for tests/darwin/stackshot.sh)
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/darwin.h>
#include <ktrace/kcdata.h>
#include <ktrace/ktrace_file.h>

#include "testlib.h"

#define KCDATA_DIR "../shared/data/kcdata/"

static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i); }

/* The plain kcdata of a sample (samples may be gzip'd): malloc'd, *len set. */
static uint8_t *read_kcdata(const char *path, size_t *len)
{
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct kcdata_buffer *b;
	uint8_t *copy = NULL;

	if (ktrace_input_open(path, &in, &err))
		return NULL;
	if (!kcdata_buffer_read(in, &b, &err)) {
		*len = kcdata_buffer_size(b);
		copy = malloc(*len);
		if (copy)
			memcpy(copy, kcdata_buffer_data(b), *len);
		kcdata_buffer_free(b);
	}
	ktrace_input_close(in);
	return copy;
}

/* A V3 file: a thread map (one thread), one events chunk of three events, then one
 * stackshot chunk per kcdata buffer (a chunk may also be given corrupt). */
static int write_file(const char *out, uint8_t *const *kc, const size_t *kclen, int n)
{
	struct ktrace_file_header h = { 0 };
	struct ktrace_file_writer *w;
	struct ktrace_error err = { 0 };
	uint8_t map[32] = { 0 }, ev[3 * 64] = { 0 };
	int ret;

	h.flavour = KTRACE_FILE_LIBKTRACE;
	h.major = 1;
	h.timebase_numer = 1;
	h.timebase_denom = 1;
	h.flags = KTRACE_FILE_FLAG_64BIT;
	put64(map, 0x77);
	put32(map + 8, 42);
	memcpy(map + 12, "stackshotter", 12);
	for (int i = 0; i < 3; i++) {
		put64(ev + 64 * i, 1000 + (uint64_t)i);
		put64(ev + 64 * i + 40, 0x77);
		put32(ev + 64 * i + 48, 0x01a1000a | (uint32_t)(i == 0 ? 1 : i == 2 ? 2 : 0));
	}
	ret = ktrace_file_writer_create(out, &h, &w, &err);
	if (!ret)
		ret = ktrace_file_writer_add_header_chunk(w, KTRACE_TAG_THREAD_MAP, 1, 0, map,
							  sizeof(map), &err);
	if (!ret)
		ret = ktrace_file_writer_add_events(w, 0, ev, sizeof(ev), true, &err);
	for (int i = 0; !ret && i < n; i++)
		ret = ktrace_file_writer_add_chunk(w, KTRACE_TAG_STACKSHOT, 1, 0, kc[i], kclen[i],
						   &err);
	if (!ret)
		ret = ktrace_file_writer_close(w, &err);
	else
		ktrace_file_writer_abort(w);
	if (ret)
		fprintf(stderr, "test_stackshot: %s\n", err.message);
	return ret;
}

static char tmp[128];

static void stackshots_read_back(void)
{
	static const char *const samples[] = { "stackshot-sample",
					       "delta-stackshot-sample-new-arrays",
					       "stackshot-sample-thread-groups" };
	uint8_t *kc[3];
	size_t len[3];
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_event ev;
	char path[160];
	int events = 0;

	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), KCDATA_DIR "%s", samples[i]);
		kc[i] = read_kcdata(path, &len[i]);
		CHECK(kc[i] != NULL);
		if (!kc[i])
			return;
	}
	snprintf(path, sizeof(path), "%s/s.ktrace", tmp);
	CHECK_EQ(write_file(path, kc, len, 3), 0);
	CHECK_EQ(ktrace_input_open(path, &in, &err), 0);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK_EQ(ktrace_darwin_stackshot_count(k, &err), 3);
	for (int i = 0; i < 3; i++) {
		struct ktrace_darwin_stackshot info;
		struct kcdata_node *root, *alone;
		uint64_t tasks, threads;

		CHECK_EQ(ktrace_darwin_stackshot(k, (size_t)i, &info, &root, &err), 0);
		CHECK_EQ(kcdata_decode(kc[i], len[i], &alone, &err), 0);
		ktrace_darwin_stackshot_count_tasks(alone, &tasks, &threads);
		CHECK_EQ(info.tasks, tasks);
		CHECK_EQ(info.threads, threads);
		CHECK_EQ(info.size, len[i]);
		CHECK(tasks > 0 && threads > 0);
		/* the same tree: as many entries under the root, same root key */
		CHECK_STR(kcdata_node_key(root, 0), kcdata_node_key(alone, 0));
		CHECK_EQ(kcdata_node_count(kcdata_node_at(root, 0)),
			 kcdata_node_count(kcdata_node_at(alone, 0)));
		kcdata_node_free(root);
		kcdata_node_free(alone);
	}
	/* known counts, from the samples' plists: 1 task with 4 threads, 170 tasks */
	{
		struct ktrace_darwin_stackshot info;

		CHECK_EQ(ktrace_darwin_stackshot(k, 0, &info, NULL, &err), 0);
		CHECK_EQ(info.tasks, 1);
		CHECK_EQ(info.threads, 4);
		CHECK_EQ(info.begin_type, KCDATA_BUFFER_BEGIN_STACKSHOT);
		CHECK_EQ(ktrace_darwin_stackshot(k, 1, &info, NULL, &err), 0);
		CHECK_EQ(info.tasks, 170);
		CHECK_EQ(info.begin_type, KCDATA_BUFFER_BEGIN_DELTA_STACKSHOT);
	}
	CHECK_EQ(ktrace_darwin_stackshot(k, 3, NULL, NULL, &err), -ENOENT);
	while (ktrace_darwin_next(k, &ev, &err) > 0)
		events++;
	CHECK_EQ(events, 3);
	ktrace_darwin_close(k);
	ktrace_input_close(in);

	/* A stackshot chunk that does not decode: an error naming the chunk; the events
	 * still read. */
	kc[0][20] ^= 0xff;
	kc[0][21] ^= 0xff;
	CHECK_EQ(write_file(path, kc, len, 1), 0);
	CHECK_EQ(ktrace_input_open(path, &in, &err), 0);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK_EQ(ktrace_darwin_stackshot_count(k, &err), 1);
	CHECK(ktrace_darwin_stackshot(k, 0, NULL, NULL, &err) < 0);
	CHECK(strstr(err.message, "stackshot chunk:") != NULL);
	events = 0;
	while (ktrace_darwin_next(k, &ev, &err) > 0)
		events++;
	CHECK_EQ(events, 3);
	ktrace_darwin_close(k);
	ktrace_input_close(in);
	unlink(path);
	for (int i = 0; i < 3; i++)
		free(kc[i]);
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "write")) {
		int n = argc - 3, ret;
		uint8_t **kc = calloc((size_t)n, sizeof(*kc));
		size_t *len = calloc((size_t)n, sizeof(*len));

		for (int i = 0; i < n; i++)
			if (!(kc[i] = read_kcdata(argv[3 + i], &len[i])))
				return 2;
		ret = write_file(argv[2], kc, len, n);
		for (int i = 0; i < n; i++)
			free(kc[i]);
		free(kc);
		free(len);
		return ret ? 1 : 0;
	}
	snprintf(tmp, sizeof(tmp), "/tmp/ktrace-stackshot-%d", (int)getpid());
	mkdir(tmp, 0700);
	PLAN(1);
	RUN(stackshots_read_back);
	rmdir(tmp);
	return TEST_EXIT();
}
