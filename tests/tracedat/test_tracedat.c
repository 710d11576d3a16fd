// SPDX-License-Identifier: MIT
/*
 * Unit tests of the trace.dat reader against the shared conformance files and the
 * values trace-cmd 3.1.6 prints for them (../shared/data/ftrace/expected), then its
 * behaviour on damaged input: every sampled prefix and many corrupted copies of real
 * files must either read or fail with an error naming an offset, without crashing,
 * hanging or allocating more than the input justifies.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <unistd.h>

#include <ktrace/input.h>
#include <ktrace/tracedat.h>

#include "testlib.h"
#include "tracedat/v7file.h"

#if defined(__SANITIZE_ADDRESS__)
#define TRACK_ALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRACK_ALLOC 0
#endif
#endif
#ifndef TRACK_ALLOC
#define TRACK_ALLOC 1
#endif

#if TRACK_ALLOC
/* Allocation accounting: the program's malloc family wraps glibc's, recording the
 * largest single request and the peak of live bytes. */
#include <malloc.h>
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);

static size_t live, peak, biggest;

static void note(void *p, size_t req)
{
	if (!p)
		return;
	live += malloc_usable_size(p);
	if (live > peak)
		peak = live;
	if (req > biggest)
		biggest = req;
}

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	note(p, n);
	return p;
}

void *calloc(size_t n, size_t m)
{
	void *p = __libc_calloc(n, m);

	note(p, n * m);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;

	if (old)
		live -= malloc_usable_size(old);
	p = __libc_realloc(old, n);
	if (!p && old && n)
		live += malloc_usable_size(old);
	note(p, n);
	return p;
}

void free(void *p)
{
	if (p)
		live -= malloc_usable_size(p);
	__libc_free(p);
}

static void reset_alloc_stats(void)
{
	peak = live;
	biggest = 0;
}
#endif

#ifndef SHARED_DIR
#define SHARED_DIR "../shared/data/ftrace"
#endif

static char *path_of(const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", SHARED_DIR, name);
	return buf;
}

static uint8_t *slurp(const char *name, size_t *len)
{
	FILE *f = fopen(path_of(name), "rb");
	uint8_t *buf;
	struct stat st;

	if (!f || fstat(fileno(f), &st) < 0) {
		printf("# cannot open %s\n", path_of(name));
		if (f)
			fclose(f);
		return NULL;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)st.st_size;
	return buf;
}

static struct tracedat *open_file(const char *name)
{
	struct ktrace_error err = { 0 };
	struct tracedat *td = NULL;
	char msg[512];
	int ret = tracedat_open(path_of(name), 0, &td, &err);

	if (ret)
		printf("# %s: %s\n", name, ktrace_error_format(&err, msg, sizeof(msg)));
	return td;
}

static bool text_starts(const char *text, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(text, prefix, n);
}

static void schedviz_v6_metadata(void)
{
	struct tracedat *td = open_file("schedviz_cpu0.v6.dat");
	const struct tracedat_header *h;
	const struct tracedat_cpu *cpu;
	const char *t;
	size_t len;

	CHECK(td);
	if (!td)
		return;
	h = tracedat_header(td);
	/* schedviz_cpu0.v6.dump-summary.txt */
	CHECK_EQ(h->version, 6);
	CHECK_EQ(h->big_endian, 0);
	CHECK_EQ(h->long_size, 8);
	CHECK_EQ(h->kernel_long_size, 8);
	CHECK_EQ(h->page_size, 4096);
	CHECK_STR(h->compression, "none");
	CHECK_EQ(h->cpus, 1);
	CHECK_EQ(h->options, 0);
	CHECK_EQ(tracedat_header_page(td, &t, &len), 0);
	CHECK_EQ(len, 205);
	CHECK(text_starts(t, len, "\tfield: u64 timestamp;"));
	CHECK_EQ(tracedat_header_event(td, &t, &len), 0);
	CHECK_EQ(len, 205);
	CHECK_EQ(tracedat_ftrace_format_count(td), 0);
	CHECK_EQ(tracedat_system_count(td), 1);
	CHECK_STR(tracedat_system_name(td, 0), "sched");
	CHECK_EQ(tracedat_system_event_count(td, 0), 4);
	CHECK_EQ(tracedat_event_format(td, 0, 0, &t, &len), 0);
	CHECK(text_starts(t, len, "name: "));
	CHECK_EQ(tracedat_event_format(td, 0, 4, &t, &len), -ENOENT);
	CHECK_EQ(tracedat_kallsyms_size(td), 0);
	CHECK_EQ(tracedat_printk_size(td), 0);
	CHECK_EQ(tracedat_cmdlines_size(td), 0);
	CHECK(tracedat_clock(td) == NULL);   /* "No tracing clock saved in the file" */
	CHECK_EQ(tracedat_buffer_count(td), 1);
	CHECK_STR(tracedat_buffer(td, 0)->name, "");
	CHECK_EQ(tracedat_buffer(td, 0)->cpus, 1);
	cpu = tracedat_buffer_cpu(td, 0, 0);
	CHECK(cpu != NULL);
	if (cpu) {
		CHECK_EQ(cpu->cpu, 0);
		CHECK_EQ(cpu->size, 86016);
		CHECK_EQ(cpu->data_size, 86016);
		CHECK_EQ(cpu->offset % 4096, 0);
	}
	tracedat_close(td);
}

static void v7_metadata(void)
{
	struct tracedat *td = open_file("trappy_tests_trace.v7zstd.dat");
	struct ktrace_error err = { 0 };
	const struct tracedat_header *h;
	const char *t;
	size_t len, nsec;
	int done = 0;

	CHECK(td);
	if (!td)
		return;
	h = tracedat_header(td);
	/* trappy_tests_trace.v7zstd.dump-summary.txt */
	CHECK_EQ(h->version, 7);
	CHECK_EQ(h->long_size, 8);
	CHECK_EQ(h->kernel_long_size, 4);   /* 32-bit ARM kernel: commit is 4 bytes */
	CHECK_STR(h->compression, "zstd");
	CHECK_STR(h->compression_version, "1.5.4");
	CHECK_EQ(h->options, 20);
	CHECK_EQ(h->sections, 11);
	CHECK_EQ(h->cpus, 8);
	CHECK_EQ(tracedat_ftrace_format_count(td), 13);
	CHECK_EQ(tracedat_system_count(td), 44);
	CHECK_EQ(tracedat_kallsyms_size(td), 2004831);
	CHECK_EQ(tracedat_printk_size(td), 1636);
	CHECK_EQ(tracedat_cmdlines_size(td), 1842);
	CHECK_EQ(tracedat_header_page(td, &t, &len), 0);
	CHECK_EQ(len, 205);
	CHECK_EQ(tracedat_header_event(td, &t, &len), 0);
	CHECK_EQ(len, 180);
	/* kallsyms is loaded on demand */
	CHECK_EQ(tracedat_kallsyms(td, &t, &len, &err), 0);
	CHECK_EQ(len, 2004831);
	CHECK(len > 10 && memchr(t, '\n', 100) != NULL);
	CHECK_EQ(tracedat_cmdlines(td, &t, &len, &err), 0);
	CHECK_EQ(len, 1842);
	CHECK_STR(tracedat_clock(td), "local");
	CHECK_EQ(tracedat_buffer_count(td), 1);
	CHECK(tracedat_buffer(td, 0)->compressed);
	nsec = tracedat_section_count(td);
	CHECK_EQ(nsec, 11);
	for (size_t i = 0; i < nsec; i++) {
		const struct tracedat_section *s = tracedat_section(td, i);

		if (s->id == TRACEDAT_OPT_HEADER_INFO) {
			CHECK_STR(s->description, "headers");
			done++;
		}
	}
	CHECK_EQ(done, 1);
	for (size_t i = 0; i < tracedat_option_count(td); i++)
		if (tracedat_option(td, i)->id == TRACEDAT_OPT_CPUSTAT)
			done++;
	CHECK_EQ(done, 9);   /* 8 CPUSTAT options */
	CHECK_STR(tracedat_option_name(TRACEDAT_OPT_TSC2NSEC), "TSC2NSEC");
	CHECK(tracedat_option_name(999) == NULL);
	tracedat_close(td);
}

/* synthetic_edge.report-R-t.txt and report-debug.txt: timestamps, dropped-events
 * markers, and the page/record offsets (SUBBUFFER START [ts:0x1000], [delta:0x10:..]). */
static void synthetic_edge_records(const char *name, bool compressed)
{
	static const uint64_t ts[] = { 1000001000ull, 6000001000ull, 10000000500ull,
				       10000000507ull, 11000000000ull, 12000000003ull };
	static const long long missed[] = { 0, 0, 0, 0, 42, -1 };
	static const uint64_t page[] = { 0x1000, 0x1000, 0x1000, 0x1000, 0x2000, 0x3000 };
	static const uint64_t in_page[] = { 0x10, 0x5c, 0xec, 0x130, 0x10, 0x10 };
	struct tracedat *td = open_file(name);
	struct ktrace_error err = { 0 };
	const struct tracedat_record *r;
	struct tracedat_iter *it;
	uint64_t base = 0;
	int n = 0, ret;

	CHECK(td);
	if (!td)
		return;
	CHECK_EQ(tracedat_iter_new(td, 0, -1, &it, &err), 0);
	while ((ret = tracedat_iter_next(it, &r, &err)) > 0) {
		if (n < 6) {
			if (n == 0)
				base = r->page_offset - (compressed ? 0 : 0x1000);
			CHECK_EQ(r->ts, ts[n]);
			CHECK_EQ(r->raw_ts, ts[n]);
			CHECK_EQ(r->missed_events, missed[n]);
			CHECK_EQ(r->compressed, compressed);
			CHECK_EQ(r->page_offset - base, page[n] - (compressed ? 0x1000 : 0));
			CHECK_EQ(r->offset - r->page_offset, in_page[n]);
			CHECK_EQ(r->size, 64);
			CHECK_EQ(r->cpu, 0);
			CHECK_EQ(r->buffer, 0);
			CHECK(r->page != NULL && r->page_len == 4096);
			CHECK((const uint8_t *)r->data >= (const uint8_t *)r->page &&
			      (const uint8_t *)r->data + r->size <= (const uint8_t *)r->page + r->page_len);
		}
		n++;
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(n, 6);
	CHECK_EQ(base, 0);
	tracedat_iter_free(it);
	tracedat_close(td);
}

static void synthetic_edge_v6(void)
{
	synthetic_edge_records("synthetic_edge.v6.dat", false);
}

static void synthetic_edge_v7zstd(void)
{
	synthetic_edge_records("synthetic_edge.v7zstd.dat", true);
}

static void schedviz_all_versions_same_records(void)
{
	static const char *const names[] = { "schedviz_cpu0.v6.dat", "schedviz_cpu0.v7none.dat",
					      "schedviz_cpu0.v7zstd.dat" };
	uint64_t sum[3] = { 0 }, first[3] = { 0 }, last[3] = { 0 };
	int count[3] = { 0 };

	for (int f = 0; f < 3; f++) {
		struct tracedat *td = open_file(names[f]);
		struct ktrace_error err = { 0 };
		const struct tracedat_record *r;
		struct tracedat_iter *it;

		CHECK(td);
		if (!td)
			continue;
		CHECK_EQ(tracedat_iter_new(td, TRACEDAT_ALL_BUFFERS, -1, &it, &err), 0);
		while (tracedat_iter_next(it, &r, &err) > 0) {
			const uint8_t *p = r->data;

			if (!count[f]++)
				first[f] = r->ts;
			last[f] = r->ts;
			for (uint32_t i = 0; i < r->size; i++)
				sum[f] = sum[f] * 31 + p[i];
		}
		tracedat_iter_free(it);
		tracedat_close(td);
	}
	for (int f = 0; f < 3; f++) {
		/* schedviz_cpu0.report-t.txt: 1366 records, 1396.206979287 .. 1398.183247250 */
		CHECK_EQ(count[f], 1366);
		CHECK_EQ(first[f], 1396206979287ull);
		CHECK_EQ(last[f], 1398183247250ull);
		CHECK_EQ(sum[f], sum[0]);
	}
}

/* Sparse CPU ids (0, 1, 2, 5), merge order, per-CPU iteration. */
static void sparse_cpus_and_merge_order(void)
{
	struct tracedat *td = open_file("trappy_tests_raw_trace.v7zstd.dat");
	struct ktrace_error err = { 0 };
	const struct tracedat_record *r;
	struct tracedat_iter *it;
	static const unsigned int ids[] = { 0, 1, 2, 5 };
	uint64_t prev_ts = 0;
	unsigned int prev_cpu = 0;
	int total = 0, per_cpu = 0, ret;

	CHECK(td);
	if (!td)
		return;
	CHECK_EQ(tracedat_buffer(td, 0)->cpus, 4);
	for (int i = 0; i < 4; i++) {
		const struct tracedat_cpu *c = tracedat_buffer_cpu(td, 0, (size_t)i);

		CHECK_EQ(c->cpu, ids[i]);
		CHECK(c->chunks >= 1);
		/* trace-cmd 3.1.6 records the compressed size 4 bytes short */
		CHECK_EQ(c->stored_size, c->size + 4);
	}
	CHECK_EQ(tracedat_header(td)->cpus, 6);
	CHECK_EQ(tracedat_iter_new(td, TRACEDAT_ALL_BUFFERS, -1, &it, &err), 0);
	while ((ret = tracedat_iter_next(it, &r, &err)) > 0) {
		if (total) {
			CHECK(r->ts >= prev_ts);
			if (r->ts == prev_ts)
				CHECK(r->cpu > prev_cpu);  /* ties: lowest CPU first */
		}
		CHECK_EQ(ids[r->cpu_index], r->cpu);
		prev_ts = r->ts;
		prev_cpu = r->cpu;
		total++;
	}
	CHECK_EQ(ret, 0);
	tracedat_iter_free(it);
	CHECK_EQ(total, 757);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(tracedat_iter_new(td, 0, (int)ids[i], &it, &err), 0);
		while (tracedat_iter_next(it, &r, &err) > 0) {
			CHECK_EQ(r->cpu, ids[i]);
			per_cpu++;
		}
		tracedat_iter_free(it);
	}
	CHECK_EQ(per_cpu, 757);
	CHECK_EQ(tracedat_iter_new(td, 3, -1, &it, &err), -EINVAL);
	tracedat_close(td);
}

static int collect_text(const char *text, size_t len, void *arg)
{
	char *buf = arg;
	size_t have = strlen(buf);

	if (have + len < 256) {
		memcpy(buf + have, text, len);
		buf[have + len] = 0;
	}
	return 0;
}

/* Latency (text) buffers of v6, v7 and v7 zlib (fuzz seeds made by mkcorpus.py). */
static void latency_text(void)
{
	static const char *const names[] = { "latency.v6.dat", "latency.v7none.dat",
					      "latency.v7zlib.dat" };

	for (int i = 0; i < 3; i++) {
		struct ktrace_error err = { 0 };
		const struct tracedat_record *r;
		struct tracedat_iter *it;
		struct tracedat *td;
		char path[256], buf[256] = "";

		snprintf(path, sizeof(path), "fuzz/corpus/fuzz_tracedat/%s", names[i]);
		CHECK_EQ(tracedat_open(path, 0, &td, &err), 0);
		if (!td)
			continue;
		CHECK_EQ(tracedat_buffer_count(td), 1);
		CHECK(tracedat_buffer(td, 0)->latency);
		CHECK_EQ(tracedat_buffer(td, 0)->compressed, i == 2);
		CHECK_EQ(tracedat_latency_text(td, 0, collect_text, buf, &err), 0);
		CHECK_STR(buf, "# tracer: irqsoff\n#\n  <idle>-0  0d.h1  1us : foo\n");
		CHECK_EQ(tracedat_iter_new(td, 0, -1, &it, &err), 0);
		CHECK_EQ(tracedat_iter_next(it, &r, &err), 0);
		tracedat_iter_free(it);
		tracedat_close(td);
	}
}

static void refuses_non_tracedat(void)
{
	static const uint8_t junk[64] = "not a trace file";
	static const uint8_t v5[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', '5', 0,
				      0, 8, 0, 16, 0, 0 };
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct tracedat *td;
	char msg[300];

	ktrace_input_from_memory(junk, sizeof(junk), "junk", &in, &err);
	CHECK_EQ(tracedat_open_input(in, 0, &td, &err), -EBADMSG);
	CHECK_STR(ktrace_error_format(&err, msg, sizeof(msg)),
		  "offset 0x0: not a trace.dat file (bad magic)");
	ktrace_input_close(in);
	ktrace_input_from_memory(v5, sizeof(v5), "v5", &in, &err);
	CHECK_EQ(tracedat_open_input(in, 0, &td, &err), -ENOTSUP);
	ktrace_input_close(in);
}

/* Opens and reads everything of data[0..len); returns the error code (0 when all read).
 * Errors must name an offset inside the input. */
static int read_all(const uint8_t *data, size_t len, bool *bad_error)
{
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct tracedat *td;
	struct tracedat_iter *it;
	const struct tracedat_record *r;
	const char *t;
	size_t tl;
	int ret;
	uint8_t *copy = malloc(len ? len : 1);   /* exact size: ASan sees overruns */

	memcpy(copy, data, len);
	ktrace_input_from_memory(copy, len, "mem", &in, &err);
	ret = tracedat_open_input(in, 0, &td, &err);
	if (!ret) {
		tracedat_kallsyms(td, &t, &tl, NULL);
		tracedat_printk_formats(td, &t, &tl, NULL);
		tracedat_cmdlines(td, &t, &tl, NULL);
		ret = tracedat_iter_new(td, TRACEDAT_ALL_BUFFERS, -1, &it, &err);
		if (!ret) {
			uint64_t n = 0;

			while ((ret = tracedat_iter_next(it, &r, &err)) > 0) {
				/* touch the record: ASan checks it lies in memory we own */
				volatile uint8_t sink = r->size ? ((const uint8_t *)r->data)[r->size - 1] : 0;

				(void)sink;
				n++;
			}
			tracedat_iter_free(it);
		}
		tracedat_close(td);
	}
	if (ret < 0 && ret != -ENOMEM &&
	    (!err.has_offset || !err.message[0] || err.offset > len + 16)) {
		char msg[400];

		printf("# error without a useful offset (len %zu): %s\n", len,
		       ktrace_error_format(&err, msg, sizeof(msg)));
		*bad_error = true;
	}
	ktrace_input_close(in);
	free(copy);
	return ret;
}

/* Reads data with the built-in page walker and with kbuffer: the records (and the
 * error, if any) must be the same. Returns false on a difference. */
static bool walkers_agree(const uint8_t *data, size_t len)
{
	struct ktrace_input *in;
	struct tracedat *td[2] = { NULL, NULL };
	struct tracedat_iter *it[2] = { NULL, NULL };
	int ret[2];
	bool same = true;

	ktrace_input_from_memory(data, len, "mem", &in, NULL);
	ret[0] = tracedat_open_input(in, 0, &td[0], NULL);
	ret[1] = tracedat_open_input(in, TRACEDAT_KBUFFER_WALK, &td[1], NULL);
	if (ret[0] || ret[1]) {
		same = ret[0] == ret[1];
		goto out;
	}
	tracedat_iter_new(td[0], TRACEDAT_ALL_BUFFERS, -1, &it[0], NULL);
	tracedat_iter_new(td[1], TRACEDAT_ALL_BUFFERS, -1, &it[1], NULL);
	for (;;) {
		const struct tracedat_record *a, *b;
		struct ktrace_error ea = { 0 }, eb = { 0 };

		ret[0] = tracedat_iter_next(it[0], &a, &ea);
		ret[1] = tracedat_iter_next(it[1], &b, &eb);
		if (ret[0] != ret[1]) {
			same = false;
			break;
		}
		if (ret[0] <= 0) {
			same = ret[0] == 0 || (ea.offset == eb.offset && !strcmp(ea.message, eb.message));
			break;
		}
		if (a->ts != b->ts || a->raw_ts != b->raw_ts || a->size != b->size ||
		    a->record_size != b->record_size || (const uint8_t *)a->data - (const uint8_t *)a->page !=
		    (const uint8_t *)b->data - (const uint8_t *)b->page ||
		    memcmp(a->data, b->data, a->size) ||
		    a->missed_events != b->missed_events || a->offset != b->offset ||
		    a->page_offset != b->page_offset || a->cpu != b->cpu || a->buffer != b->buffer) {
			printf("#   walkers differ at offset 0x%llx: ts %llu/%llu size %u/%u missed %lld/%lld offset 0x%llx\n",
			       (unsigned long long)a->offset, (unsigned long long)a->ts,
			       (unsigned long long)b->ts, a->size, b->size, a->missed_events,
			       b->missed_events, (unsigned long long)b->offset);
			same = false;
			break;
		}
	}
out:
	tracedat_iter_free(it[0]);
	tracedat_iter_free(it[1]);
	tracedat_close(td[0]);
	tracedat_close(td[1]);
	ktrace_input_close(in);
	return same;
}

static const char *const damage_files[] = {
	"synthetic_edge.v6.dat", "synthetic_edge.v7zstd.dat", "schedviz_cpu0.v6.dat",
	"schedviz_cpu0.v7none.dat", "schedviz_cpu0.v7zstd.dat",
	"trappy_tests_raw_trace.v7zstd.dat", "trappy_tests_trace.v7zstd.dat",
	"trappy_tests_trace.v6.dat",
};

static void check_alloc(size_t len, const char *what)
{
#if TRACK_ALLOC
	/* What the reader may hold: a few chunk/page buffers, format tables and the
	 * decompressed metadata (a bounded multiple of what is compressed). */
	size_t budget = (1u << 20) + 16 * len;

	if (biggest > budget || peak - live > budget + (1u << 20)) {
		printf("#   %s (len %zu): biggest allocation %zu, peak %zu\n", what, len, biggest,
		       peak - live);
		tl_case_failed = 1;
	}
#else
	(void)len;
	(void)what;
#endif
}

static uint64_t rng(void);

/* The reader's page walker and kbuffer give the same records, on real files and on
 * damaged copies of them. */
static void walker_matches_kbuffer(void)
{
	for (size_t f = 0; f < sizeof(damage_files) / sizeof(damage_files[0]); f++) {
		size_t len;
		uint8_t *data = slurp(damage_files[f], &len);
		uint8_t *copy;

		CHECK(data != NULL);
		if (!data)
			continue;
		CHECK(walkers_agree(data, len));
		copy = malloc(len);
		for (int i = 0; i < 100; i++) {
			memcpy(copy, data, len);
			/* damage the ring-buffer data: the last 3/4 of the file */
			for (int k = 0; k < 3; k++)
				copy[len / 4 + (size_t)(rng() % (len - len / 4))] = (uint8_t)rng();
			if (!walkers_agree(copy, len)) {
				printf("#   %s: walkers differ on damaged copy %d\n", damage_files[f], i);
				tl_case_failed = 1;
				break;
			}
		}
		free(copy);
		free(data);
	}
}

static void truncated_prefixes(void)
{
	for (size_t f = 0; f < sizeof(damage_files) / sizeof(damage_files[0]); f++) {
		size_t len, cuts = 0, errors = 0;
		uint8_t *data = slurp(damage_files[f], &len);
		bool bad = false;

		CHECK(data != NULL);
		if (!data)
			continue;
		for (size_t cut = 0; cut < len; ) {
#if TRACK_ALLOC
			reset_alloc_stats();
#endif
			if (read_all(data, cut, &bad) < 0)
				errors++;
			check_alloc(cut, damage_files[f]);
			cuts++;
			/* every cut in the first 2 KiB, then about 150 more, some near the end */
			if (cut < 2048)
				cut++;
			else if (len - cut < 64)
				cut += 7;
			else
				cut += (len - 2048) / 150 + 1 + cut % 13;
		}
		CHECK(!bad);
		CHECK(errors > 0);
		CHECK_EQ(read_all(data, len, &bad), 0);
		printf("#   %s: %zu prefixes, %zu errors\n", damage_files[f], cuts, errors);
		free(data);
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void corrupted_copies(void)
{
	for (size_t f = 0; f < sizeof(damage_files) / sizeof(damage_files[0]); f++) {
		size_t len, errors = 0;
		uint8_t *data = slurp(damage_files[f], &len);
		uint8_t *copy;
		bool bad = false;
		int rounds = len > (1u << 20) ? 60 : 300;

		CHECK(data != NULL);
		if (!data)
			continue;
		copy = malloc(len);
		for (int i = 0; i < rounds; i++) {
			int flips = 1 + (int)(rng() % 4);

			memcpy(copy, data, len);
			for (int k = 0; k < flips; k++) {
				/* mostly in the metadata and first pages, sometimes anywhere */
				size_t span = rng() % 3 ? (len < 65536 ? len : 65536) : len;
				size_t pos = (size_t)(rng() % span);
				uint64_t how = rng();

				switch (how % 4) {
				case 0: copy[pos] ^= (uint8_t)(1u << (how >> 8) % 8); break;
				case 1: copy[pos] = 0xff; break;
				case 2: copy[pos] = 0; break;
				default: copy[pos] = (uint8_t)(how >> 16); break;
				}
			}
#if TRACK_ALLOC
			reset_alloc_stats();
#endif
			if (read_all(copy, len, &bad) < 0)
				errors++;
			check_alloc(len, damage_files[f]);
		}
		CHECK(!bad);
		printf("#   %s: %d corrupted copies, %zu errors\n", damage_files[f], rounds, errors);
		free(copy);
		free(data);
	}
}


/* ---- big compressed sections ---- */

/* A version 7 file (comp) with the given kallsyms and printk texts and no CPU data, in a
 * memfd; -1 on failure. */
static int write_big_v7(const char *comp, const char *ks, size_t kslen, const char *pk, size_t pklen)
{
	struct ktrace_error err = { 0 };
	struct tracedat_writer *w;
	int fd, ret;

	if (v7_begin(comp, "tracedat-big-sections", &fd, &w, &err))
		return -1;
	ret = tracedat_writer_kallsyms(w, ks, kslen, &err);
	if (!ret)
		ret = tracedat_writer_printk(w, pk, pklen, &err);
	if (!ret)
		ret = tracedat_writer_set_cpus(w, 1, &err);
	if (!ret && tracedat_writer_add_buffer(w, "", "local", 0, false, &err) < 0)
		ret = -1;
	return v7_end(w, fd, ret, &err);
}

/* Sections that decompress to 1 MB or more go into huge-page memory and a kallsyms is
 * kept from the open on (tracedat.c: TD_BIG_SECTION, TD_KEEP_LAZY_BYTES): the texts come
 * back byte for byte from zstd and zlib files; damage in the middle of the kallsyms
 * section is an error, at the open or when the text is asked for. */
static void big_sections(void)
{
	static const char *const comps[] = { "zstd", "zlib" };
	size_t kscap = 3u << 20, pkcap = 2u << 20, kslen = 0, pklen = 0;
	char *ks = malloc(kscap), *pk = malloc(pkcap);

	CHECK(ks && pk);
	if (!ks || !pk)
		goto out;
	for (unsigned int i = 0; kslen + 64 < kscap; i++)
		kslen += (size_t)snprintf(ks + kslen, kscap - kslen, "ffffffff8%07x T symbol_%u_%x\n",
					  i * 16, i, i * 2654435761u);
	for (unsigned int i = 0; pklen + 64 < pkcap / 2 + (1u << 20) && pklen + 64 < pkcap; i++)
		pklen += (size_t)snprintf(pk + pklen, pkcap - pklen, "0xffffffff9%07x : \"format %u\\n\"\n",
					  i * 8, i);
	CHECK(kslen > (2u << 20) && pklen > (1u << 20));
	for (size_t c = 0; c < sizeof(comps) / sizeof(comps[0]); c++) {
		struct ktrace_error err = { 0 };
		int fd = write_big_v7(comps[c], ks, kslen, pk, pklen);
		struct tracedat *td = fd >= 0 ? v7_open(fd, &err) : NULL;
		const struct tracedat_section *sec = NULL;
		const char *t;
		size_t len;
		struct stat st;
		uint8_t *bytes;
		int bad, ret;

		CHECK(td != NULL);
		if (!td) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		CHECK_EQ(tracedat_kallsyms_size(td), (int64_t)kslen);
		CHECK_EQ(tracedat_kallsyms(td, &t, &len, &err), 0);
		CHECK(len == kslen && !memcmp(t, ks, kslen));
		CHECK_EQ(tracedat_printk_formats(td, &t, &len, &err), 0);
		CHECK(len == pklen && !memcmp(t, pk, pklen));
		for (size_t i = 0; i < tracedat_section_count(td); i++)
			if (tracedat_section(td, i)->id == TRACEDAT_OPT_KALLSYMS)
				sec = tracedat_section(td, i);
		CHECK(sec != NULL && (sec->flags & 1));
		/* the same file damaged: the kallsyms block's uncompressed size off by 4096
		 * (an error with both codecs), or bytes in the middle of its compressed data
		 * (an error for zlib, which checks a sum; zstd frames carry none: read as far
		 * as it goes, without a crash) */
		bytes = NULL;
		if (sec && !fstat(fd, &st) && (bytes = malloc((size_t)st.st_size)) &&
		    pread(fd, bytes, (size_t)st.st_size, 0) == st.st_size) {
			for (int kind = 0; kind < 2; kind++) {
				uint64_t at = sec->offset + 16 + (kind ? 8 + (sec->size - 8) / 2 : 4);
				struct tracedat *btd;

				for (uint64_t k = at; k < at + (kind ? 64 : 2) && k < (uint64_t)st.st_size; k++)
					bytes[k] ^= kind ? 0x5a : 0x10;
				bad = memfd_create("tracedat-big-bad", MFD_CLOEXEC);
				CHECK(bad >= 0 && write(bad, bytes, (size_t)st.st_size) == st.st_size);
				if (bad < 0)
					continue;
				err.message[0] = 0;
				btd = v7_open(bad, &err);
				ret = btd ? tracedat_kallsyms(btd, &t, &len, &err) : -1;
				if (!kind || !strcmp(comps[c], "zlib")) {
					CHECK(ret < 0);
					if (ret < 0)
						CHECK(err.message[0] != 0);
				}
				tracedat_close(btd);
				close(bad);
				for (uint64_t k = at; k < at + (kind ? 64 : 2) && k < (uint64_t)st.st_size; k++)
					bytes[k] ^= kind ? 0x5a : 0x10;
			}
		}
		free(bytes);
		tracedat_close(td);
		close(fd);
	}
out:
	free(ks);
	free(pk);
}

int main(int argc, char **argv)
{
	PLAN(12);
	RUN(schedviz_v6_metadata);
	RUN(v7_metadata);
	RUN(synthetic_edge_v6);
	RUN(synthetic_edge_v7zstd);
	RUN(schedviz_all_versions_same_records);
	RUN(sparse_cpus_and_merge_order);
	RUN(latency_text);
	RUN(refuses_non_tracedat);
	RUN(walker_matches_kbuffer);
	RUN(truncated_prefixes);
	RUN(corrupted_copies);
	RUN(big_sections);
	return TEST_EXIT();
}
