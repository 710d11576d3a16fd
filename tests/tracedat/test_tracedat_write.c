// SPDX-License-Identifier: MIT
/*
 * Unit tests of the trace.dat writer: conversions of the shared files and the test
 * data into every version and compression keep everything the reader sees (metadata,
 * options, buffers, raw CPU data, records); hand-written files (sparse CPUs, latency
 * text, big-endian data, empty files) read back as written; misuse is refused; the
 * temporary file is renamed only when the file is complete and removed otherwise.
 * (trace-cmd's view of the same conversions is checked by convert.sh.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/input.h>
#include <ktrace/tracedat.h>

#include "testlib.h"
#include "tracedat/tdcompare.h"

#define SHARED_DIR "../shared/data/ftrace"

static const struct {
	unsigned int version;
	const char *comp;
} variants[] = { { 6, "none" }, { 7, "none" }, { 7, "zstd" }, { 7, "zlib" } };

/* A memory file and a reader over it. */
struct memout {
	int fd;
	void *map;
	size_t len;
	struct ktrace_input *in;
	struct tracedat *td;
};

static int memout_new(struct memout *m)
{
	memset(m, 0, sizeof(*m));
	m->fd = memfd_create("tracedat-write-test", MFD_CLOEXEC);
	return m->fd;
}

static int memout_open(struct memout *m, char *why, size_t len)
{
	struct ktrace_error err = { 0 };
	struct stat st;

	if (fstat(m->fd, &st) < 0 || !st.st_size)
		return -1;
	m->len = (size_t)st.st_size;
	m->map = mmap(NULL, m->len, PROT_READ, MAP_SHARED, m->fd, 0);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return -1;
	}
	if (ktrace_input_from_memory(m->map, m->len, "output", &m->in, &err) ||
	    tracedat_open_input(m->in, 0, &m->td, &err)) {
		ktrace_error_format(&err, why, len);
		return -1;
	}
	return 0;
}

static void memout_free(struct memout *m)
{
	tracedat_close(m->td);
	ktrace_input_close(m->in);
	if (m->map)
		munmap(m->map, m->len);
	if (m->fd >= 0)
		close(m->fd);
}

/* Converts td into a memory file; 0 and an open reader in m, or the error code. */
static int convert_mem(struct tracedat *td, unsigned int version, const char *comp,
		       struct memout *m, char *why, size_t len)
{
	KTRACE_OPTS(tracedat_write_opts, wo, .version = version, .compression = comp);
	struct ktrace_error err = { 0 };
	struct tracedat_writer *w;
	int ret;

	if (memout_new(m) < 0)
		return -errno;
	tracedat_write_opts_from(td, &wo);
	ret = tracedat_writer_create_fd(m->fd, &wo, &w, &err);
	if (!ret) {
		ret = tracedat_convert(td, w, &err);
		if (ret)
			tracedat_writer_abort(w);
		else
			ret = tracedat_writer_close(w, &err);
	}
	if (ret) {
		ktrace_error_format(&err, why, len);
		return ret;
	}
	return memout_open(m, why, len) ? -EBADMSG : 0;
}

static void convert_file_all_variants(const char *path, bool expect_v6)
{
	struct ktrace_error err = { 0 };
	struct tracedat *td;
	char why[512];

	if (tracedat_open(path, 0, &td, &err)) {
		printf("#   %s: %s\n", path, ktrace_error_format(&err, why, sizeof(why)));
		CHECK(!"source opens");
		return;
	}
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		struct memout m;
		int ret = convert_mem(td, variants[v].version, variants[v].comp, &m, why, sizeof(why));

		if (ret == -ENOTSUP && variants[v].version == 6 && !expect_v6) {
			memout_free(&m);
			continue;
		}
		if (ret) {
			printf("#   %s -> v%u %s: %s\n", path, variants[v].version, variants[v].comp, why);
			CHECK(!"conversion");
		} else {
			CHECK_EQ(tracedat_header(m.td)->version, variants[v].version);
			CHECK_STR(tracedat_header(m.td)->compression, variants[v].comp);
			if (!td_same(td, m.td, why, sizeof(why))) {
				printf("#   %s -> v%u %s: %s\n", path, variants[v].version,
				       variants[v].comp, why);
				CHECK(!"conversion keeps everything");
			}
			/* and back: the converted file converts to the same */
			{
				struct memout m2;

				if (convert_mem(m.td, 7, "zstd", &m2, why, sizeof(why)) ||
				    !td_same(td, m2.td, why, sizeof(why))) {
					printf("#   %s -> v%u %s -> v7 zstd: %s\n", path,
					       variants[v].version, variants[v].comp, why);
					CHECK(!"second conversion keeps everything");
				}
				memout_free(&m2);
			}
		}
		memout_free(&m);
	}
	tracedat_close(td);
}

static void converts_shared_files(void)
{
	DIR *d = opendir(SHARED_DIR);
	struct dirent *de;
	int n = 0;

	CHECK(d);
	while (d && (de = readdir(d))) {
		char path[512];
		size_t len = strlen(de->d_name);

		if (len < 4 || strcmp(de->d_name + len - 4, ".dat"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", SHARED_DIR, de->d_name);
		convert_file_all_variants(path, true);
		n++;
	}
	if (d)
		closedir(d);
	CHECK(n >= 8);
}

/* The fuzz seeds: instance with dropped-events marks, latency buffers (v6, v7, zlib). */
static void converts_seed_files(void)
{
	static const char *const names[] = {
		"instance.v6.dat", "instance.v7none.dat", "instance.v7zlib.dat", "latency.v6.dat",
		"latency.v7none.dat", "latency.v7zlib.dat",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[256];

		snprintf(path, sizeof(path), "fuzz/corpus/fuzz_tracedat/%s", names[i]);
		convert_file_all_variants(path, true);
	}
}

/* ------------------------------------------------------------------ hand-made files */

/* A sub-buffer holding n 8-byte records (type_len 1: 4 bytes of payload), delta 1000. */
static void make_page(uint8_t *p, size_t ps, bool big, uint64_t ts, unsigned int n, uint32_t seed)
{
	memset(p, 0, ps);
	for (int i = 0; i < 8; i++)
		p[big ? 7 - i : i] = (uint8_t)(ts >> (8 * i));
	for (int i = 0; i < 8; i++)
		p[8 + (big ? 7 - i : i)] = (uint8_t)((uint64_t)(n * 8) >> (8 * i));
	for (unsigned int k = 0; k < n; k++) {
		uint8_t *r = p + 16 + 8 * k;
		uint32_t w = big ? (1u << 27) | 1000u : (1000u << 5) | 1u;
		uint32_t payload = seed + k;

		for (int i = 0; i < 4; i++) {
			r[big ? 3 - i : i] = (uint8_t)(w >> (8 * i));
			r[4 + (big ? 3 - i : i)] = (uint8_t)(payload >> (8 * i));
		}
	}
}

static const char header_page_text[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static int write_handmade(int fd, unsigned int version, const char *comp, bool big,
			  struct ktrace_error *err)
{
	KTRACE_OPTS(tracedat_write_opts, wo, .version = version, .compression = comp,
		    .big_endian = big, .page_size = 4096);
	struct tracedat_writer *w;
	static uint8_t page[4096];
	int ret, inst;

	ret = tracedat_writer_create_fd(fd, &wo, &w, err);
	if (ret)
		return ret;
	if ((ret = tracedat_writer_headers(w, header_page_text, sizeof(header_page_text) - 1,
					   "h", 1, err)) ||
	    (ret = tracedat_writer_add_event_format(w, "s1", "fmt a", 5, err)) ||
	    (ret = tracedat_writer_add_event_format(w, "s1", "fmt b", 5, err)) ||
	    (ret = tracedat_writer_add_event_format(w, "s2", "fmt c", 5, err)) ||
	    (ret = tracedat_writer_cmdlines(w, "1 init\n", 7, err)) ||
	    (ret = tracedat_writer_set_cpus(w, 4, err)) ||
	    (ret = tracedat_writer_add_option(w, TRACEDAT_OPT_UNAME, "Linux x", 8, err)) ||
	    (ret = tracedat_writer_add_option(w, TRACEDAT_OPT_TRACECLOCK, "local [global]", 15,
					      err)))
		goto fail;
	if ((ret = tracedat_writer_add_buffer(w, "", "global", 0, false, err)) < 0 ||
	    (inst = tracedat_writer_add_buffer(w, "inst", "mono", 0, false, err)) < 0) {
		ret = ret < 0 ? ret : inst;
		goto fail;
	}
	/* top: CPUs 1 and 3 (sparse), 25 pages on CPU 3 so that chunks split */
	if ((ret = tracedat_writer_cpu_begin(w, 0, 1, err)))
		goto fail;
	make_page(page, sizeof(page), big, 5000, 3, 100);
	if ((ret = tracedat_writer_cpu_write(w, page, sizeof(page), err)) ||
	    (ret = tracedat_writer_cpu_end(w, err)) ||
	    (ret = tracedat_writer_cpu_begin(w, 0, 3, err)))
		goto fail;
	for (unsigned int i = 0; i < 25; i++) {
		make_page(page, sizeof(page), big, 10000 + 100000ull * i, 1 + i % 7, 1000 * i);
		if ((ret = tracedat_writer_cpu_write(w, page, sizeof(page), err)))
			goto fail;
	}
	if ((ret = tracedat_writer_cpu_end(w, err)))
		goto fail;
	/* an empty CPU, begun and ended */
	if ((ret = tracedat_writer_cpu_begin(w, (unsigned int)inst, 0, err)) ||
	    (ret = tracedat_writer_cpu_end(w, err)) ||
	    (ret = tracedat_writer_cpu_begin(w, (unsigned int)inst, 2, err)))
		goto fail;
	make_page(page, sizeof(page), big, 7000, 2, 77);
	if ((ret = tracedat_writer_cpu_write(w, page, sizeof(page), err)) ||
	    (ret = tracedat_writer_cpu_end(w, err)))
		goto fail;
	return tracedat_writer_close(w, err);
fail:
	tracedat_writer_abort(w);
	return ret;
}

static void handmade_files_read_back(void)
{
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		for (int big = 0; big < 2; big++) {
			struct ktrace_error err = { 0 };
			struct memout m;
			const struct tracedat_record *r;
			struct tracedat_iter *it;
			const struct tracedat_buffer *b;
			char why[512];
			const char *t;
			size_t len;
			int n = 0, ret;
			uint64_t payload_sum = 0;

			CHECK(memout_new(&m) >= 0);
			ret = write_handmade(m.fd, variants[v].version, variants[v].comp, big, &err);
			if (ret)
				printf("#   v%u %s: %s\n", variants[v].version, variants[v].comp,
				       ktrace_error_format(&err, why, sizeof(why)));
			CHECK_EQ(ret, 0);
			if (ret || memout_open(&m, why, sizeof(why))) {
				memout_free(&m);
				CHECK(!"opens");
				continue;
			}
			CHECK_EQ(tracedat_header(m.td)->big_endian, big);
			CHECK_EQ(tracedat_header(m.td)->cpus, 4);
			CHECK_EQ(tracedat_header(m.td)->kernel_long_size, 8);
			CHECK_EQ(tracedat_buffer_count(m.td), 2);
			b = tracedat_buffer(m.td, 1);
			CHECK_STR(b->name, "inst");
			CHECK_STR(tracedat_buffer(m.td, 0)->clock, "global");
			if (variants[v].version >= 7)
				CHECK_STR(b->clock, "mono");
			CHECK_EQ(tracedat_system_count(m.td), 2);
			CHECK_EQ(tracedat_system_event_count(m.td, 0), 2);
			CHECK_STR(tracedat_system_name(m.td, 1), "s2");
			CHECK_EQ(tracedat_event_format(m.td, 1, 0, &t, &len), 0);
			CHECK(len == 5 && !memcmp(t, "fmt c", 5));
			CHECK_EQ(tracedat_cmdlines(m.td, &t, &len, &err), 0);
			CHECK(len == 7 && !memcmp(t, "1 init\n", 7));
			CHECK_STR(tracedat_uname(m.td), "Linux x");
			CHECK_EQ(tracedat_iter_new(m.td, TRACEDAT_ALL_BUFFERS, -1, &it, &err), 0);
			while ((ret = tracedat_iter_next(it, &r, &err)) > 0) {
				uint32_t p = big ? ((uint32_t)((const uint8_t *)r->data)[0] << 24 |
						    (uint32_t)((const uint8_t *)r->data)[1] << 16 |
						    (uint32_t)((const uint8_t *)r->data)[2] << 8 |
						    ((const uint8_t *)r->data)[3])
						 : (uint32_t)((const uint8_t *)r->data)[0] |
						   (uint32_t)((const uint8_t *)r->data)[1] << 8 |
						   (uint32_t)((const uint8_t *)r->data)[2] << 16 |
						   (uint32_t)((const uint8_t *)r->data)[3] << 24;

				CHECK_EQ(r->size, 4);
				payload_sum += p;
				n++;
			}
			CHECK_EQ(ret, 0);
			tracedat_iter_free(it);
			/* 3 + sum(1 + i % 7, i < 25) + 2 records */
			CHECK_EQ(n, 3 + 94 + 2);
			{
				uint64_t want = 100 + 101 + 102 + 77 + 78;

				for (unsigned int i = 0; i < 25; i++)
					for (unsigned int k = 0; k < 1 + i % 7; k++)
						want += 1000 * i + k;
				CHECK_EQ(payload_sum, want);
			}
			/* CPU 3 of the top buffer: 25 pages (3 chunks when compressed) */
			{
				const struct tracedat_cpu *c = NULL;

				for (size_t k = 0; k < tracedat_buffer(m.td, 0)->cpus; k++)
					if (tracedat_buffer_cpu(m.td, 0, k)->cpu == 3)
						c = tracedat_buffer_cpu(m.td, 0, k);
				CHECK(c);
				if (c) {
					CHECK_EQ(c->data_size, 25 * 4096);
					CHECK_EQ(c->chunks, strcmp(variants[v].comp, "none") ? 3 : 0);
					CHECK_EQ(c->offset % 4096, 0);
					/* the size recorded is the real one */
					CHECK_EQ(c->size, c->stored_size);
				}
			}
			CHECK_EQ(tracedat_warning_count(m.td), 0);
			memout_free(&m);
		}
	}
}

static int collect(const char *text, size_t len, void *arg)
{
	struct { char *buf; size_t len; } *c = arg;
	char *n = realloc(c->buf, c->len + len + 1);

	if (!n)
		return -ENOMEM;
	memcpy(n + c->len, text, len);
	c->len += len;
	n[c->len] = 0;
	c->buf = n;
	return 0;
}

static void latency_buffers(void)
{
	static char text[100000];

	for (size_t i = 0; i < sizeof(text) - 1; i++)
		text[i] = (char)('a' + (i * 7 + i / 13) % 26);
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		KTRACE_OPTS(tracedat_write_opts, wo, .version = variants[v].version,
			    .compression = variants[v].comp);
		struct ktrace_error err = { 0 };
		struct tracedat_writer *w;
		struct memout m;
		struct { char *buf; size_t len; } got = { NULL, 0 };
		char why[256];
		int b, ret;

		CHECK(memout_new(&m) >= 0);
		CHECK_EQ(tracedat_writer_create_fd(m.fd, &wo, &w, &err), 0);
		b = tracedat_writer_add_buffer(w, "", NULL, 0, true, &err);
		CHECK_EQ(b, 0);
		/* version 6: nothing else next to a latency buffer */
		if (variants[v].version == 6)
			CHECK_EQ(tracedat_writer_add_buffer(w, "x", NULL, 0, false, &err), -ENOTSUP);
		ret = tracedat_writer_latency_write(w, 0, text, 60000, &err);
		if (ret)
			printf("#   %s\n", ktrace_error_format(&err, why, sizeof(why)));
		CHECK_EQ(ret, 0);
		CHECK_EQ(tracedat_writer_latency_write(w, 0, text + 60000, sizeof(text) - 60001, &err), 0);
		CHECK_EQ(tracedat_writer_close(w, &err), 0);
		CHECK_EQ(memout_open(&m, why, sizeof(why)), 0);
		if (m.td) {
			CHECK(tracedat_buffer(m.td, 0)->latency);
			CHECK_EQ(tracedat_latency_text(m.td, 0, collect, &got, &err), 0);
			CHECK_EQ(got.len, sizeof(text) - 1);
			CHECK(got.buf && !memcmp(got.buf, text, sizeof(text) - 1));
		}
		free(got.buf);
		memout_free(&m);
	}
}

static void empty_files(void)
{
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		KTRACE_OPTS(tracedat_write_opts, wo, .version = variants[v].version,
			    .compression = variants[v].comp);
		struct ktrace_error err = { 0 };
		struct tracedat_writer *w;
		struct memout m;
		char why[256];

		CHECK(memout_new(&m) >= 0);
		CHECK_EQ(tracedat_writer_create_fd(m.fd, &wo, &w, &err), 0);
		CHECK_EQ(tracedat_writer_close(w, &err), 0);
		CHECK_EQ(memout_open(&m, why, sizeof(why)), 0);
		if (m.td) {
			const struct tracedat_record *r;
			struct tracedat_iter *it;

			CHECK_EQ(tracedat_header(m.td)->version, variants[v].version);
			CHECK_EQ(tracedat_iter_new(m.td, TRACEDAT_ALL_BUFFERS, -1, &it, &err), 0);
			CHECK_EQ(tracedat_iter_next(it, &r, &err), 0);
			tracedat_iter_free(it);
		}
		memout_free(&m);
	}
}

static void misuse_is_refused(void)
{
	KTRACE_OPTS(tracedat_write_opts, wo, .version = 6);
	struct ktrace_error err = { 0 };
	struct tracedat_writer *w;
	struct memout m;
	int fd = memout_new(&m);

	CHECK(fd >= 0);
	wo.compression = "zstd";
	CHECK_EQ(tracedat_writer_create_fd(fd, &wo, &w, &err), -EINVAL);
	wo.compression = "lz4";
	wo.version = 7;
	CHECK_EQ(tracedat_writer_create_fd(fd, &wo, &w, &err), -EINVAL);
	wo.compression = NULL;
	wo.version = 5;
	CHECK_EQ(tracedat_writer_create_fd(fd, &wo, &w, &err), -EINVAL);
	wo.version = 7;
	wo.page_size = 3000;
	CHECK_EQ(tracedat_writer_create_fd(fd, &wo, &w, &err), -EINVAL);
	wo.page_size = 0;

	wo.version = 6;
	CHECK_EQ(tracedat_writer_create_fd(fd, &wo, &w, &err), 0);
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_BUFFER, "x", 1, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_CPUCOUNT, "xxxx", 4, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_KALLSYMS, "x", 1, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_DATE, "0x10", 5, &err), 0);
	CHECK_EQ(tracedat_writer_kallsyms(w, "k", 1, &err), 0);
	/* out of order */
	CHECK_EQ(tracedat_writer_add_ftrace_format(w, "f", 1, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_headers(w, "a", 1, "b", 1, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_add_buffer(w, "", NULL, 8192, false, &err), -ENOTSUP);
	CHECK_EQ(tracedat_writer_add_buffer(w, "i", NULL, 0, false, &err), 1);  /* top added */
	CHECK_EQ(tracedat_writer_add_buffer(w, "i", NULL, 0, false, &err), -EINVAL);
	/* v6 without a CPU count: one CPU */
	CHECK_EQ(tracedat_writer_cpu_begin(w, 1, 1, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_set_cpus(w, 2, &err), -EINVAL);   /* too late */
	tracedat_writer_abort(w);

	CHECK_EQ(ftruncate(fd, 0), 0);
	wo.version = 7;
	CHECK_EQ(tracedat_writer_create_fd(fd, &wo, &w, &err), 0);
	CHECK_EQ(tracedat_writer_add_buffer(w, "a", NULL, 0, false, &err), 0);
	CHECK_EQ(tracedat_writer_add_buffer(w, "b", NULL, 0, false, &err), 1);
	CHECK_EQ(tracedat_writer_cpu_write(w, "x", 1, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_cpu_begin(w, 1, 2, &err), 0);
	CHECK_EQ(tracedat_writer_cpu_begin(w, 1, 3, &err), -EINVAL);   /* 2 not ended */
	CHECK_EQ(tracedat_writer_cpu_end(w, &err), 0);
	CHECK_EQ(tracedat_writer_cpu_begin(w, 1, 1, &err), -EINVAL);   /* decreasing */
	CHECK_EQ(tracedat_writer_cpu_begin(w, 0, 0, &err), -EINVAL);   /* buffer passed */
	CHECK_EQ(tracedat_writer_latency_write(w, 1, "x", 1, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_DATE, "1", 2, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_close(w, &err), 0);
	memout_free(&m);
}

/* Files: the temporary twin, renamed only when complete, removed otherwise. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void temporary_file_and_rename(void)
{
	char dir[] = "/tmp/ktrace-writer-XXXXXX", path[256], data[256];
	KTRACE_OPTS(tracedat_write_opts, wo, .version = 7, .compression = "zstd");
	struct ktrace_error err = { 0 };
	struct tracedat_writer *w;
	struct tracedat *td;
	struct stat st;
	int fd;

	CHECK(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.dat", dir);
	snprintf(data, sizeof(data), "%s/cpu.raw", dir);
	/* a data file copied with cpu_copy_fd */
	fd = open(data, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	{
		static uint8_t page[4096];

		for (int i = 0; i < 12; i++) {
			make_page(page, sizeof(page), false, 1000 + 10000ull * i, 5, (uint32_t)i);
			CHECK_EQ(write(fd, page, sizeof(page)), (ssize_t)sizeof(page));
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		wo.compression = pass ? "none" : "zstd";
		CHECK_EQ(tracedat_writer_create(path, &wo, &w, &err), 0);
		CHECK_EQ(stat(path, &st), -1);          /* not there yet */
		CHECK_EQ(count_entries(dir), 2);        /* cpu.raw and the temporary file */
		CHECK_EQ(tracedat_writer_headers(w, header_page_text, sizeof(header_page_text) - 1,
						 "h", 1, &err), 0);
		CHECK_EQ(tracedat_writer_add_buffer(w, "", NULL, 0, false, &err), 0);
		CHECK_EQ(tracedat_writer_cpu_begin(w, 0, 0, &err), 0);
		CHECK_EQ(tracedat_writer_cpu_copy_fd(w, fd, 4096, 11 * 4096, &err), 0);
		CHECK_EQ(tracedat_writer_cpu_end(w, &err), 0);
		CHECK_EQ(tracedat_writer_close(w, &err), 0);
		CHECK_EQ(count_entries(dir), 2);        /* cpu.raw and out.dat */
		CHECK_EQ(tracedat_open(path, 0, &td, &err), 0);
		if (td) {
			const struct tracedat_record *r;
			struct tracedat_iter *it;
			int n = 0;

			CHECK_EQ(tracedat_buffer_cpu(td, 0, 0)->data_size, 11 * 4096);
			CHECK_EQ(tracedat_iter_new(td, 0, -1, &it, &err), 0);
			while (tracedat_iter_next(it, &r, &err) > 0)
				n++;
			tracedat_iter_free(it);
			CHECK_EQ(n, 55);
			tracedat_close(td);
		}
		CHECK_EQ(unlink(path), 0);
	}
	/* copying past the end of the source fails, and nothing is left behind */
	CHECK_EQ(tracedat_writer_create(path, &wo, &w, &err), 0);
	CHECK_EQ(tracedat_writer_add_buffer(w, "", NULL, 0, false, &err), 0);
	CHECK_EQ(tracedat_writer_cpu_begin(w, 0, 0, &err), 0);
	CHECK(tracedat_writer_cpu_copy_fd(w, fd, 0, 13 * 4096, &err) < 0);
	CHECK(tracedat_writer_close(w, &err) < 0);
	CHECK_EQ(count_entries(dir), 1);
	/* abort removes the temporary file */
	CHECK_EQ(tracedat_writer_create(path, &wo, &w, &err), 0);
	CHECK_EQ(count_entries(dir), 2);
	tracedat_writer_abort(w);
	CHECK_EQ(count_entries(dir), 1);
	/* a directory that does not exist */
	CHECK(tracedat_writer_create("/nonexistent-dir/x.dat", &wo, &w, &err) < 0);
	close(fd);
	unlink(data);
	rmdir(dir);
}

/* Version 6 from a version 7 file with several page sizes is refused. */
static void v6_limits(void)
{
	KTRACE_OPTS(tracedat_write_opts, wo, .version = 7);
	struct ktrace_error err = { 0 };
	struct tracedat_writer *w;
	struct memout m, m2;
	static uint8_t page[8192];
	char why[256];
	int ret;

	CHECK(memout_new(&m) >= 0);
	CHECK_EQ(tracedat_writer_create_fd(m.fd, &wo, &w, &err), 0);
	CHECK_EQ(tracedat_writer_add_buffer(w, "", NULL, 4096, false, &err), 0);
	CHECK_EQ(tracedat_writer_add_buffer(w, "big", NULL, 8192, false, &err), 1);
	CHECK_EQ(tracedat_writer_cpu_begin(w, 1, 0, &err), 0);
	make_page(page, sizeof(page), false, 1, 3, 9);
	CHECK_EQ(tracedat_writer_cpu_write(w, page, sizeof(page), &err), 0);
	CHECK_EQ(tracedat_writer_cpu_end(w, &err), 0);
	CHECK_EQ(tracedat_writer_close(w, &err), 0);
	CHECK_EQ(memout_open(&m, why, sizeof(why)), 0);
	if (m.td) {
		CHECK_EQ(tracedat_buffer(m.td, 1)->page_size, 8192);
		ret = convert_mem(m.td, 6, "none", &m2, why, sizeof(why));
		CHECK_EQ(ret, -ENOTSUP);
		memout_free(&m2);
		ret = convert_mem(m.td, 7, "zlib", &m2, why, sizeof(why));
		CHECK_EQ(ret, 0);
		if (!ret)
			CHECK(td_same(m.td, m2.td, why, sizeof(why)));
		memout_free(&m2);
	}
	memout_free(&m);
}

int main(void)
{
	PLAN(8);
	RUN(converts_shared_files);
	RUN(converts_seed_files);
	RUN(handmade_files_read_back);
	RUN(latency_buffers);
	RUN(empty_files);
	RUN(misuse_is_refused);
	RUN(temporary_file_and_rename);
	RUN(v6_limits);
	return TEST_EXIT();
}
