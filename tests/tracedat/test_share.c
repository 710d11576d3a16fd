// SPDX-License-Identifier: MIT
/*
 * Decompressed chunks shared by several iterators (lib/tracedat/tracedat_share.c), on
 * a version 7 file written here (zstd and zlib, 2 CPUs of 100 chunks each): readers
 * that go along together decompress every chunk exactly once in all; a reader that
 * stalls while another reads everything keeps the cache within its bound (the other
 * decompresses by itself); three threads see the same records as a reader of its own;
 * damage gives every shared reader the records before it and the error an unshared
 * reader gets.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ktrace/tracedat.h>

#include "testlib.h"
#include "tracedat/tracedat_share.h"
#include "tracedat/v7file.h"

#define PAGES_PER_CPU 1000u        /* 100 chunks of 10 pages */
#define NCPUS 2u
#define READERS 3u
#define KEEP ((size_t)256 << 10)   /* what the report keeps per stream */

/* A full little-endian sub-buffer of 8-byte records (4 bytes of payload each). */
static void make_page(uint8_t *p, uint64_t ts, uint32_t seed)
{
	unsigned int n = (4096 - 16) / 8;

	memset(p, 0, 4096);
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(ts >> (8 * i));
	for (int i = 0; i < 8; i++)
		p[8 + i] = (uint8_t)((uint64_t)(n * 8) >> (8 * i));
	for (unsigned int k = 0; k < n; k++) {
		uint8_t *r = p + 16 + 8 * k;
		uint32_t w = (7u << 5) | 1u;       /* delta 7, 4 bytes of payload */
		uint32_t v = seed * 2654435761u + k;

		memcpy(r, &w, 4);
		memcpy(r + 4, &v, 4);
	}
}

/* The test file in a memory file: its descriptor, or -1. */
static int write_file(const char *comp)
{
	struct ktrace_error err = { 0 };
	struct tracedat_writer *w;
	static uint8_t page[4096];
	int fd, ret;

	if (v7_begin(comp, "tracedat-share-test", &fd, &w, &err))
		return -1;
	ret = tracedat_writer_set_cpus(w, NCPUS, &err);
	if (!ret && tracedat_writer_add_buffer(w, "", "local", 0, false, &err) < 0)
		ret = -1;
	for (unsigned int c = 0; c < NCPUS && !ret; c++) {
		ret = tracedat_writer_cpu_begin(w, 0, c, &err);
		for (unsigned int i = 0; i < PAGES_PER_CPU && !ret; i++) {
			make_page(page, 1000 + 5000ull * i + c, c * 100000 + i);
			ret = tracedat_writer_cpu_write(w, page, sizeof(page), &err);
		}
		if (!ret)
			ret = tracedat_writer_cpu_end(w, &err);
	}
	return v7_end(w, fd, ret, &err);
}

static struct tracedat *open_fd(int fd)
{
	struct ktrace_error err = { 0 };

	return v7_open(fd, &err);
}

/* One reader: its iterator, what it saw, how it ended. */
struct reader {
	struct tracedat *td;
	struct tracedat_iter *it;
	size_t keep;
	uint64_t n, sum;
	int ret;                        /* 1 reading, 0 at the end, < 0 error */
	struct ktrace_error err;
};

static void reader_open(struct reader *r, struct tracedat *td, size_t keep, bool share)
{
	memset(r, 0, sizeof(*r));
	r->td = td;
	r->keep = keep;
	r->ret = 1;
	r->sum = 1469598103934665603ull;
	CHECK_EQ(tracedat_iter_new(td, TRACEDAT_ALL_BUFFERS, -1, &r->it, &r->err), 0);
	if (keep)
		tracedat_iter_keep(r->it, keep);
	if (share)
		CHECK_EQ(tracedat_iter_share(r->it), 0);
}

static void mix(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 1099511628211ull;
}

/* Reads up to max records (all: UINT64_MAX); false at the end or an error. */
static bool reader_run(struct reader *r, uint64_t max)
{
	const struct tracedat_record *rec;

	for (uint64_t k = 0; k < max && r->ret > 0; k++) {
		r->ret = tracedat_iter_next(r->it, &rec, &r->err);
		if (r->ret <= 0)
			break;
		mix(&r->sum, &rec->ts, sizeof(rec->ts));
		mix(&r->sum, &rec->cpu, sizeof(rec->cpu));
		mix(&r->sum, rec->data, rec->size);
		r->n++;
	}
	return r->ret > 0;
}

/* The records of td read by an iterator of its own. */
static void reference(struct tracedat *td, struct reader *ref)
{
	reader_open(ref, td, 0, false);
	reader_run(ref, UINT64_MAX);
	tracedat_iter_free(ref->it);
}

static void same_as(const struct reader *r, const struct reader *ref)
{
	CHECK_EQ(r->ret, ref->ret);
	CHECK_EQ(r->n, ref->n);
	CHECK(r->sum == ref->sum);
	if (ref->ret < 0) {
		CHECK_EQ(r->err.code, ref->err.code);
		CHECK_EQ(r->err.offset, ref->err.offset);
		CHECK_STR(r->err.message, ref->err.message);
	}
}

/* Readers that go along together (the report's threads, in turns here): each chunk is
 * decompressed once for all of them. */
static void together(const char *comp)
{
	int fd = write_file(comp);
	struct tracedat *td = fd >= 0 ? open_fd(fd) : NULL;
	struct tracedat_share_stats st;
	struct reader ref, r[READERS];
	bool more = true;

	CHECK(td != NULL);
	if (!td)
		return;
	reference(td, &ref);
	CHECK_EQ(ref.ret, 0);
	CHECK_EQ(ref.n, NCPUS * PAGES_PER_CPU * ((4096 - 16) / 8));
	CHECK_EQ(tracedat_share_chunks(td, READERS), 0);
	CHECK_EQ(tracedat_share_chunks(td, READERS), -EINVAL);
	/* the report's keep, and one reader that keeps nothing */
	for (unsigned int i = 0; i < READERS; i++)
		reader_open(&r[i], td, i == 1 ? 0 : KEEP, true);
	/* in turns, 1000 records at a time, each reader a few pages from the others */
	for (unsigned int i = 0; i < READERS; i++)
		reader_run(&r[i], 1500 * i);
	while (more) {
		more = false;
		for (unsigned int i = 0; i < READERS; i++)
			more |= reader_run(&r[i], 1000);
	}
	for (unsigned int i = 0; i < READERS; i++)
		same_as(&r[i], &ref);
	tracedat_share_stats(td, &st);
	CHECK_EQ(st.chunks, NCPUS * PAGES_PER_CPU / 10);
	CHECK_EQ(st.shared, st.chunks);
	CHECK_EQ(st.private_, 0);
	CHECK(st.buffers <= st.buffers_max);
	for (unsigned int i = 0; i < READERS; i++)
		tracedat_iter_free(r[i].it);
	/* a fourth reader finds no place: it reads by itself, the same records */
	{
		struct reader extra[READERS + 1];

		for (unsigned int i = 0; i <= READERS; i++)
			reader_open(&extra[i], td, KEEP, true);
		reader_run(&extra[READERS], UINT64_MAX);
		same_as(&extra[READERS], &ref);
		for (unsigned int i = 0; i <= READERS; i++)
			tracedat_iter_free(extra[i].it);
	}
	tracedat_close(td);
	close(fd);
}

static void together_zstd(void)
{
	together("zstd");
}

static void together_zlib(void)
{
	together("zlib");
}

/* One reader reads everything while the others wait: the cache stays within its bound
 * and the readers still see every record. */
static void stalled_reader_bounded(void)
{
	int fd = write_file("zstd");
	struct tracedat *td = fd >= 0 ? open_fd(fd) : NULL;
	struct tracedat_share_stats st;
	struct reader ref, r[READERS];

	CHECK(td != NULL);
	if (!td)
		return;
	reference(td, &ref);
	CHECK_EQ(tracedat_share_chunks(td, READERS), 0);
	for (unsigned int i = 0; i < READERS; i++)
		reader_open(&r[i], td, KEEP, true);
	for (unsigned int i = 0; i < READERS; i++) {
		reader_run(&r[i], UINT64_MAX);
		same_as(&r[i], &ref);
		tracedat_share_stats(td, &st);
		CHECK(st.buffers <= st.buffers_max);
	}
	CHECK(st.buffers_max < st.chunks);
	CHECK(st.private_ > 0);
	CHECK(st.shared <= st.chunks);
	CHECK(st.shared + st.private_ < READERS * st.chunks);
	for (unsigned int i = 0; i < READERS; i++)
		tracedat_iter_free(r[i].it);
	tracedat_close(td);
	close(fd);
}

static void *thread_main(void *arg)
{
	reader_run(arg, UINT64_MAX);
	return NULL;
}

/* Three threads, each with its iterator: the records of a reader of its own. */
static void threads(void)
{
	int fd = write_file("zstd");
	struct tracedat *td = fd >= 0 ? open_fd(fd) : NULL;
	struct tracedat_share_stats st;
	struct reader ref, r[READERS];
	pthread_t th[READERS];

	CHECK(td != NULL);
	if (!td)
		return;
	reference(td, &ref);
	CHECK_EQ(tracedat_share_chunks(td, READERS), 0);
	for (unsigned int i = 0; i < READERS; i++)
		reader_open(&r[i], td, KEEP, true);
	for (unsigned int i = 0; i < READERS; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, thread_main, &r[i]), 0);
	for (unsigned int i = 0; i < READERS; i++)
		pthread_join(th[i], NULL);
	for (unsigned int i = 0; i < READERS; i++) {
		same_as(&r[i], &ref);
		tracedat_iter_free(r[i].it);
	}
	tracedat_share_stats(td, &st);
	/* a chunk enters the cache at most once (it leaves when every reader is past it) */
	CHECK(st.shared > 0 && st.shared <= st.chunks);
	CHECK(st.shared + st.private_ >= st.chunks);
	CHECK(st.buffers <= st.buffers_max);
	tracedat_close(td);
	close(fd);
}

/* A chunk of CPU 1 that does not decompress: every shared reader gets the records before
 * it and the error, as a reader of its own. */
static void damaged_chunk(const char *comp)
{
	int fd = write_file(comp);
	struct tracedat *td = fd >= 0 ? open_fd(fd) : NULL;
	struct tracedat_iter *it;
	const struct tracedat_record *rec;
	struct ktrace_error err = { 0 };
	struct reader ref, r[READERS];
	uint64_t at = 0;
	bool more = true;
	int ret;

	CHECK(td != NULL);
	if (!td)
		return;
	/* the file offset of a record in the middle of CPU 1's chunks */
	CHECK_EQ(tracedat_iter_new(td, TRACEDAT_ALL_BUFFERS, 1, &it, &err), 0);
	for (uint64_t k = 0; (ret = tracedat_iter_next(it, &rec, &err)) > 0; k++)
		if (k == (uint64_t)PAGES_PER_CPU / 2 * ((4096 - 16) / 8))
			at = rec->chunk_offset;
	tracedat_iter_free(it);
	tracedat_close(td);
	CHECK(at != 0);
	{
		/* garble the compressed bytes after the chunk's header */
		uint8_t junk[64];

		memset(junk, 0x5a, sizeof(junk));
		CHECK_EQ(pwrite(fd, junk, sizeof(junk), (off_t)at + 8 + 16), (ssize_t)sizeof(junk));
	}
	td = open_fd(fd);
	CHECK(td != NULL);
	if (!td)
		return;
	reference(td, &ref);
	CHECK_EQ(ref.ret, -EBADMSG);
	CHECK_EQ(ref.err.offset, at);
	CHECK_EQ(tracedat_share_chunks(td, READERS), 0);
	for (unsigned int i = 0; i < READERS; i++)
		reader_open(&r[i], td, KEEP, true);
	while (more) {
		more = false;
		for (unsigned int i = 0; i < READERS; i++)
			more |= reader_run(&r[i], 700);
	}
	for (unsigned int i = 0; i < READERS; i++) {
		same_as(&r[i], &ref);
		tracedat_iter_free(r[i].it);
	}
	tracedat_close(td);
	close(fd);
}

static void damaged_zstd(void)
{
	damaged_chunk("zstd");
}

static void damaged_zlib(void)
{
	damaged_chunk("zlib");
}

/* Nothing to share in a file without compressed data. */
static void uncompressed(void)
{
	int fd = write_file("none");
	struct tracedat *td = fd >= 0 ? open_fd(fd) : NULL;
	struct tracedat_share_stats st;
	struct reader ref, r;

	CHECK(td != NULL);
	if (!td)
		return;
	reference(td, &ref);
	CHECK_EQ(tracedat_share_chunks(td, READERS), 0);
	reader_open(&r, td, KEEP, true);
	reader_run(&r, UINT64_MAX);
	same_as(&r, &ref);
	tracedat_iter_free(r.it);
	tracedat_share_stats(td, &st);
	CHECK_EQ(st.chunks, 0);
	CHECK_EQ(st.shared, 0);
	tracedat_close(td);
	close(fd);
}

int main(void)
{
	PLAN(7);
	RUN(together_zstd);
	RUN(together_zlib);
	RUN(stalled_reader_bounded);
	RUN(threads);
	RUN(damaged_zstd);
	RUN(damaged_zlib);
	RUN(uncompressed);
	return TEST_EXIT();
}
