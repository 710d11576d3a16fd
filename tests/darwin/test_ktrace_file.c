// SPDX-License-Identifier: MIT
/*
 * Unit tests of the ktrace_file container (reader and writer) and of the chunk rules:
 * files are built byte by byte here, independently of the writer, and the writer's
 * output is compared with hand-built bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/darwin.h>
#include <ktrace/detect.h>
#include <ktrace/ktrace_file.h>

#include "testlib.h"

/* --- a byte builder ---------------------------------------------------------- */

struct bb {
	uint8_t d[1 << 16];
	size_t n;
};

static void b_u8(struct bb *b, uint8_t v) { b->d[b->n++] = v; }
static void b_u16(struct bb *b, uint16_t v) { b_u8(b, (uint8_t)v); b_u8(b, (uint8_t)(v >> 8)); }
static void b_u32(struct bb *b, uint32_t v) { b_u16(b, (uint16_t)v); b_u16(b, (uint16_t)(v >> 16)); }
static void b_u64(struct bb *b, uint64_t v) { b_u32(b, (uint32_t)v); b_u32(b, (uint32_t)(v >> 32)); }
static void b_bytes(struct bb *b, const void *p, size_t n) { memcpy(b->d + b->n, p, n); b->n += n; }
static void b_zero(struct bb *b, size_t n) { memset(b->d + b->n, 0, n); b->n += n; }
static void b_pad8(struct bb *b) { while (b->n & 7) b_u8(b, 0); }

/* File header: magic, 1.0, header size, timebase 125/3, timestamp, walltime, flags. */
static void b_header(struct bb *b, uint32_t magic, uint64_t header_size, uint32_t flags)
{
	b_u32(b, magic);
	b_u16(b, 1);
	b_u16(b, 0);
	b_u64(b, header_size);
	b_u32(b, 125);
	b_u32(b, 3);
	b_u64(b, 0x1000);          /* timestamp */
	b_u64(b, 1700000000);      /* walltime secs */
	b_u32(b, 123456);          /* usecs */
	b_u32(b, (uint32_t)-60);   /* minutes west */
	b_u32(b, 1);               /* dst */
	b_u32(b, flags);
}

static void b_chunk(struct bb *b, uint32_t tag, uint64_t size, const void *data, size_t n)
{
	b_u32(b, tag);
	b_u16(b, 1);
	b_u16(b, 0);
	b_u64(b, size);
	if (data)
		b_bytes(b, data, n);
	else
		b_zero(b, n);
}

/* A 64-bit kd_buf. */
static void b_event(struct bb *b, uint64_t ts, uint64_t a1, uint64_t thread, uint32_t debugid,
		    uint32_t cpu)
{
	b_u64(b, ts);
	b_u64(b, a1);
	b_u64(b, a1 + 1);
	b_u64(b, a1 + 2);
	b_u64(b, a1 + 3);
	b_u64(b, thread);
	b_u32(b, debugid);
	b_u32(b, cpu);
	b_u64(b, 0);
}

static void b_thread(struct bb *b, uint64_t tid, int32_t pid, const char *cmd)
{
	char c[20] = { 0 };

	memcpy(c, cmd, strnlen(cmd, sizeof(c)));
	b_u64(b, tid);
	b_u32(b, (uint32_t)pid);
	b_bytes(b, c, 20);
}

/* Opens memory, iterates every chunk; returns the iteration result (0 = clean end) and
 * the number of chunks in *n. */
static int walk(const void *data, size_t len, int *n, struct ktrace_chunk *chunks,
		struct ktrace_error *err)
{
	struct ktrace_file *f;
	struct ktrace_chunk_iter it;
	struct ktrace_chunk c;
	int ret = ktrace_file_open_memory(data, len, "mem", &f, err);

	*n = 0;
	if (ret < 0)
		return ret;
	ktrace_file_chunks_begin(f, &it);
	while ((ret = ktrace_file_next_chunk(f, &it, &c, err)) > 0) {
		if (chunks)
			chunks[*n] = c;
		(*n)++;
	}
	ktrace_file_close(f);
	return ret;
}

/* Reads every event through the kdebug reader. */
static int count_events(const void *data, size_t len, int64_t *n, struct ktrace_error *err)
{
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_event ev;
	int ret;

	*n = 0;
	ktrace_input_from_memory(data, len, "mem", &in, err);
	ret = ktrace_darwin_open(in, NULL, &k, err);
	if (ret < 0) {
		ktrace_input_close(in);
		return ret;
	}
	while ((ret = ktrace_darwin_next(k, &ev, err)) > 0)
		(*n)++;
	ktrace_darwin_close(k);
	ktrace_input_close(in);
	return ret;
}

/* A libktrace-flavour file: header chunk (3 bytes, padded), thread map, unknown chunk
 * of odd size, zero-size null chunk, two events chunks. */
static void build_sample(struct bb *b)
{
	struct bb tm = { .n = 0 };

	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40 + 24, 1);
	b_chunk(b, KTRACE_TAG_CONFIG, 3, "abc", 3);
	b_pad8(b);
	b_thread(&tm, 0x100, 42, "launchd");
	b_thread(&tm, 0x200, 77, "a_very_long_name_of_20");
	b_chunk(b, KTRACE_TAG_THREAD_MAP, tm.n, tm.d, tm.n);
	b_chunk(b, 0x7777, 13, "thirteen byte", 13);
	b_pad8(b);
	b_chunk(b, KTRACE_TAG_NULL, 0, NULL, 0);
	b_chunk(b, KTRACE_TAG_EVENTS, 8 + 2 * 64, NULL, 0);
	b_u64(b, 0);
	b_event(b, 300, 0x10, 0x100, 0x01400081, 1);
	b_event(b, 600, 0x20, 0x200, 0x01400082, 2);
	b_chunk(b, KTRACE_TAG_EVENTS, 8 + 64, NULL, 0);
	b_u64(b, 0);
	b_event(b, 900, 0x30, 0x300, 0x07020008, 0);
}

static void header_fields(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	struct ktrace_file *f;
	const struct ktrace_file_header *h;

	build_sample(b);
	CHECK_EQ(ktrace_file_open_memory(b->d, b->n, "mem", &f, &err), 0);
	h = ktrace_file_get_header(f);
	CHECK_EQ(h->flavour, KTRACE_FILE_LIBKTRACE);
	CHECK_EQ(h->major, 1);
	CHECK_EQ(h->minor, 0);
	CHECK_EQ(h->header_size, 64);
	CHECK_EQ(h->timebase_numer, 125);
	CHECK_EQ(h->timebase_denom, 3);
	CHECK_EQ(h->timestamp, 0x1000);
	CHECK_EQ(h->walltime_secs, 1700000000);
	CHECK_EQ(h->walltime_usecs, 123456);
	CHECK_EQ(h->minutes_west, -60);
	CHECK_EQ(h->dst, 1);
	CHECK_EQ(h->flags, 1);
	CHECK_EQ(ktrace_file_body_offset(f), 80);
	CHECK_EQ(ktrace_file_event_size(f), 64);
	ktrace_file_close(f);
	free(b);
}

static void chunks_in_order_with_padding(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	struct ktrace_chunk c[16];
	int n;

	build_sample(b);
	CHECK_EQ(walk(b->d, b->n, &n, c, &err), 0);
	CHECK_EQ(n, 6);
	CHECK_EQ(c[0].tag, KTRACE_TAG_CONFIG);
	CHECK(c[0].in_header);
	CHECK_EQ(c[0].offset, 56);
	CHECK_EQ(c[0].size, 3);
	CHECK_EQ(c[1].tag, KTRACE_TAG_THREAD_MAP);
	CHECK(!c[1].in_header);
	CHECK_EQ(c[1].offset, 80);
	CHECK_EQ(c[2].tag, 0x7777);
	CHECK_EQ(c[2].offset, 80 + 16 + 64);
	CHECK_EQ(c[2].size, 13);
	CHECK_EQ(c[3].tag, KTRACE_TAG_NULL);
	CHECK_EQ(c[3].offset, 160 + 16 + 16);      /* 13 bytes padded to 16 */
	CHECK_EQ(c[3].size, 0);
	CHECK_EQ(c[4].tag, KTRACE_TAG_EVENTS);
	CHECK_EQ(c[4].offset, 192 + 16);           /* zero-size chunk: header only */
	CHECK_EQ(c[4].data_size, 136);
	CHECK_EQ(c[5].offset, 208 + 16 + 136);
	free(b);
}

static void find_chunk_by_tag(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	struct ktrace_file *f;
	struct ktrace_chunk c;
	const uint8_t *p;

	build_sample(b);
	CHECK_EQ(ktrace_file_open_memory(b->d, b->n, "mem", &f, &err), 0);
	CHECK_EQ(ktrace_file_find_chunk(f, 0x7777, &c, &err), 1);
	CHECK_EQ(ktrace_file_chunk_data(f, &c, &p, &err), 0);
	CHECK(p && !memcmp(p, "thirteen byte", 13));
	CHECK_EQ(ktrace_file_chunk_read(f, &c, 9, 4, &p, &err), 0);
	CHECK(p && !memcmp(p, "byte", 4));
	CHECK_EQ(ktrace_file_chunk_read(f, &c, 10, 4, &p, &err), -EINVAL);
	CHECK_EQ(ktrace_file_find_chunk(f, 0x4242, &c, &err), 0);
	ktrace_file_close(f);
	free(b);
}

static void unknown_chunks_skipped_by_decoder(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	int64_t n;

	build_sample(b);
	CHECK_EQ(count_events(b->d, b->n, &n, &err), 0);
	CHECK_EQ(n, 3);
	free(b);
}

static void header_size_disagreements(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	int n;

	/* Header size that leaves out the padding of the last header chunk: accepted, the
	 * body starts at the next multiple of 8. */
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40 + 16 + 3, 1);
	b_chunk(b, KTRACE_TAG_CONFIG, 3, "abc", 3);
	b_pad8(b);
	b_chunk(b, 0x7777, 0, NULL, 0);
	CHECK_EQ(walk(b->d, b->n, &n, NULL, &err), 0);
	CHECK_EQ(n, 2);

	/* Stray bytes after the last header chunk: too few for a chunk header. */
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40 + 24 + 8, 1);
	b_chunk(b, KTRACE_TAG_CONFIG, 3, "abc", 3);
	b_pad8(b);
	b_zero(b, 8);
	CHECK_EQ(walk(b->d, b->n, &n, NULL, &err), -EBADMSG);
	CHECK_EQ(n, 1);
	CHECK(err.has_offset && err.offset == 80);
	CHECK(strstr(err.message, "stray bytes") != NULL);

	/* A header chunk larger than the header. */
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40 + 24, 1);
	b_chunk(b, KTRACE_TAG_CONFIG, 100, NULL, 104);
	CHECK_EQ(walk(b->d, b->n, &n, NULL, &err), -EBADMSG);
	CHECK(err.offset == 56);
	CHECK(strstr(err.message, "past the end of the header") != NULL);

	/* Smaller than the fixed fields. */
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 39, 1);
	CHECK_EQ(walk(b->d, b->n, &n, NULL, &err), -EBADMSG);

	/* Larger than the file, and absurdly large. */
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 4096, 1);
	CHECK_EQ(walk(b->d, b->n, &n, NULL, &err), -ENODATA);
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, UINT64_MAX - 3, 1);
	CHECK(walk(b->d, b->n, &n, NULL, &err) < 0);
	free(b);
}

static void chunk_past_end(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	char msg[300];
	int n;

	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40, 1);
	b_chunk(b, 0x7777, 8, "12345678", 8);
	b_chunk(b, 0x7778, 9999999, "xy", 2);
	CHECK_EQ(walk(b->d, b->n, &n, NULL, &err), -ENODATA);
	CHECK_EQ(n, 1);
	CHECK_STR(ktrace_error_format(&err, msg, sizeof(msg)),
		  "offset 0x50: chunk 0x7778: size 9999999 runs past the end of the file "
		  "(2 bytes left)");
	/* A size that overflows a 64-bit offset. */
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40, 1);
	b_chunk(b, 0x7777, UINT64_MAX - 8, NULL, 0);
	CHECK(walk(b->d, b->n, &n, NULL, &err) < 0);
	/* A truncated chunk header. */
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40, 1);
	b_zero(b, 10);
	CHECK_EQ(walk(b->d, b->n, &n, NULL, &err), -ENODATA);
	CHECK(strstr(err.message, "truncated chunk header") != NULL);
	free(b);
}

static void every_truncation_is_clean(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	struct ktrace_chunk c[16];
	int n, full, boundaries = 0, ok = 0;
	int64_t ev;

	build_sample(b);
	CHECK_EQ(walk(b->d, b->n, &full, c, &err), 0);
	for (size_t len = 0; len <= b->n; len++) {
		uint8_t *copy = malloc(len ? len : 1);   /* exact size: ASan sees overreads */
		bool at_boundary = len == b->n;
		int ret;

		memcpy(copy, b->d, len);
		for (int i = 1; i < full; i++)
			if (len == c[i].offset && !c[i].in_header)
				at_boundary = true;
		ret = walk(copy, len, &n, NULL, &err);
		if (at_boundary) {
			boundaries++;
			ok += ret == 0;
		} else if (ret == 0) {
			/* Only a cut inside the padding after a chunk's data ends cleanly. */
			bool in_padding = false;

			for (int i = 0; i < full; i++) {
				uint64_t end = c[i].data_offset + c[i].data_size;

				if (len >= end && len < ((end + 7) & ~7ULL))
					in_padding = true;
			}
			CHECK(in_padding);
		}
		ret = count_events(copy, len, &ev, &err);
		CHECK(ret <= 0);
		CHECK(ev <= 3);
		free(copy);
	}
	CHECK_EQ(boundaries, ok);
	CHECK_EQ(boundaries, full);   /* the four body boundaries, plus the whole file */
	free(b);
}

static void events_chunk_length_rules(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	struct ktrace_chunk c[4];
	int64_t ev;
	int n;

	/* Newer kernels: the size leaves out the 8-byte timestamp. */
	b->n = 0;
	b_header(b, KTRACE_FILE_KERNEL_MAGIC, 40, 1);
	b_chunk(b, KTRACE_TAG_EVENTS, 2 * 64, NULL, 0);
	b_u64(b, 0);
	b_event(b, 1, 1, 1, 0x01400080, 0);
	b_event(b, 2, 1, 1, 0x01400080, 0);
	b_chunk(b, KTRACE_TAG_EVENTS, 0, NULL, 0);   /* empty: just the timestamp */
	b_u64(b, 0);
	b_chunk(b, KTRACE_TAG_EVENTS, 64, NULL, 0);
	b_u64(b, 0);
	b_event(b, 3, 1, 1, 0x01400080, 0);
	CHECK_EQ(walk(b->d, b->n, &n, c, &err), 0);
	CHECK_EQ(n, 3);
	CHECK_EQ(c[0].data_size, 136);
	CHECK_EQ(c[1].data_size, 8);
	CHECK_EQ(c[2].offset, 56 + 152 + 24);
	CHECK_EQ(count_events(b->d, b->n, &ev, &err), 0);
	CHECK_EQ(ev, 3);

	/* A size that fits neither rule: the whole events are read, then an error. */
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40, 1);
	b_chunk(b, KTRACE_TAG_EVENTS, 8 + 64 + 20, NULL, 0);
	b_u64(b, 0);
	b_event(b, 1, 1, 1, 0x01400080, 0);
	b_zero(b, 20);
	CHECK_EQ(count_events(b->d, b->n, &ev, &err), -EBADMSG);
	CHECK_EQ(ev, 1);
	CHECK(strstr(err.message, "20 stray bytes") != NULL);

	/* An events chunk too small for its timestamp. */
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40, 1);
	b_chunk(b, KTRACE_TAG_EVENTS, 4, "abcd", 4);
	CHECK_EQ(count_events(b->d, b->n, &ev, &err), -EBADMSG);
	free(b);
}

static void kernel_flavour_header(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	const struct ktrace_darwin_cpu *cpus;
	size_t ncpus;

	/* The kernel's layout: the header length counts the CPU map sub-chunk. */
	b->n = 0;
	b_header(b, KTRACE_FILE_KERNEL_MAGIC, 40 + 16 + 2 * 16, 1);
	b_chunk(b, KTRACE_TAG_CPU_MAP, 32, NULL, 0);
	b_u32(b, 0); b_u32(b, 0); b_bytes(b, "AP\0\0\0\0\0\0", 8);
	b_u32(b, 1); b_u32(b, 1); b_bytes(b, "SMC12345", 8);
	b_chunk(b, KTRACE_TAG_THREAD_MAP, 32, NULL, 0);
	b_thread(b, 7, 1, "kernel_task");
	ktrace_input_from_memory(b->d, b->n, "mem", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK_EQ(ktrace_darwin_get_info(k)->flavour, KTRACE_FILE_KERNEL);
	CHECK_EQ(ktrace_darwin_get_info(k)->major, 1);
	cpus = ktrace_darwin_cpus(k, &ncpus);
	CHECK_EQ(ncpus, 2);
	CHECK_STR(cpus[0].name, "AP");
	CHECK_EQ(cpus[1].flags, 1);
	CHECK_STR(cpus[1].name, "SMC12345");
	CHECK_STR(ktrace_darwin_find_thread(k, 7)->command, "kernel_task");
	CHECK_EQ(ktrace_darwin_get_info(k)->events, 0);
	ktrace_darwin_close(k);
	ktrace_input_close(in);
	free(b);
}

static void bad_magic_and_short_files(void)
{
	static const uint8_t junk[64] = { 1, 2, 3, 4 };
	struct ktrace_error err = { 0 };
	struct ktrace_file *f;
	struct bb *b = calloc(1, sizeof(*b));

	CHECK_EQ(ktrace_file_open_memory(junk, sizeof(junk), "j", &f, &err), -EBADMSG);
	CHECK(f == NULL);
	b_header(b, KTRACE_FILE_MAGIC, 40, 1);
	for (size_t len = 0; len < 56; len++)
		CHECK_EQ(ktrace_file_open_memory(b->d, len, "s", &f, &err), -ENODATA);
	CHECK_EQ(ktrace_file_open_memory(b->d, 56, "s", &f, &err), 0);
	ktrace_file_close(f);
	free(b);
}

static void detection(void)
{
	struct bb *b = calloc(1, sizeof(*b));

	b_header(b, KTRACE_FILE_KERNEL_MAGIC, 40, 1);
	CHECK_EQ(ktrace_detect_format(b->d, b->n), KTRACE_FORMAT_DARWIN_V3);
	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40, 1);
	CHECK_EQ(ktrace_detect_format(b->d, b->n), KTRACE_FORMAT_DARWIN_V3);
	/* The kernel tag alone, with a header size that cannot be, is not enough. */
	b->n = 0;
	b_header(b, KTRACE_FILE_KERNEL_MAGIC, 8, 1);
	CHECK(ktrace_detect_format(b->d, b->n) != KTRACE_FORMAT_DARWIN_V3);
	b->n = 0;
	b_u32(b, 0x55aa0200);
	b_zero(b, 60);
	CHECK_EQ(ktrace_detect_format(b->d, b->n), KTRACE_FORMAT_DARWIN_RAW);
	b->d[0] = 0x01;
	b->d[1] = 0x01;
	CHECK_EQ(ktrace_detect_format(b->d, b->n), KTRACE_FORMAT_DARWIN_RAW);
	free(b);
}

static char tmpdir[64];

static void writer_bytes_exact(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	struct ktrace_file_writer *w;
	struct ktrace_file_header h = { 0 };
	struct bb ev = { .n = 0 };
	char path[128];
	uint8_t *got = malloc(1 << 16);
	FILE *fp;
	size_t n;
	struct stat st;

	snprintf(path, sizeof(path), "%s/w.ktrace", tmpdir);
	h.flavour = KTRACE_FILE_LIBKTRACE;
	h.major = 1;
	h.timebase_numer = 125;
	h.timebase_denom = 3;
	h.timestamp = 0x1000;
	h.walltime_secs = 1700000000;
	h.walltime_usecs = 123456;
	h.minutes_west = -60;
	h.dst = 1;
	h.flags = 1;
	b_event(&ev, 300, 0x10, 0x100, 0x01400081, 1);
	CHECK_EQ(ktrace_file_writer_create(path, &h, &w, &err), 0);
	CHECK_EQ(ktrace_file_writer_add_header_chunk(w, KTRACE_TAG_CONFIG, 1, 0, "abc", 3, &err), 0);
	CHECK_EQ(ktrace_file_writer_add_chunk(w, 0x7777, 1, 0, "thirteen byte", 13, &err), 0);
	CHECK_EQ(stat(path, &st), -1);    /* nothing at the destination before close */
	CHECK_EQ(ktrace_file_writer_add_header_chunk(w, 1, 1, 0, "x", 1, &err), -EINVAL);
	CHECK_EQ(ktrace_file_writer_add_events(w, 0, ev.d, ev.n, true, &err), 0);
	CHECK_EQ(ktrace_file_writer_add_chunk(w, KTRACE_TAG_NULL, 1, 0, NULL, 0, &err), 0);
	CHECK_EQ(ktrace_file_writer_close(w, &err), 0);

	b->n = 0;
	b_header(b, KTRACE_FILE_MAGIC, 40 + 24, 1);
	b_chunk(b, KTRACE_TAG_CONFIG, 3, "abc", 3);
	b_pad8(b);
	b_chunk(b, 0x7777, 13, "thirteen byte", 13);
	b_pad8(b);
	b_chunk(b, KTRACE_TAG_EVENTS, 8 + 64, NULL, 0);
	b_u64(b, 0);
	b_bytes(b, ev.d, ev.n);
	b_chunk(b, KTRACE_TAG_NULL, 0, NULL, 0);

	fp = fopen(path, "rb");
	CHECK(fp != NULL);
	n = fp ? fread(got, 1, 1 << 16, fp) : 0;
	if (fp)
		fclose(fp);
	CHECK_EQ(n, b->n);
	CHECK(n == b->n && !memcmp(got, b->d, n));
	unlink(path);

	/* Kernel flavour, newer events rule, streamed chunk data. */
	h.flavour = KTRACE_FILE_KERNEL;
	CHECK_EQ(ktrace_file_writer_create(path, &h, &w, &err), 0);
	CHECK_EQ(ktrace_file_writer_begin_chunk(w, KTRACE_TAG_EVENTS, 1, 0, 64, 72, &err), 0);
	CHECK_EQ(ktrace_file_writer_append(w, "\0\0\0\0\0\0\0\0", 8, &err), 0);
	CHECK_EQ(ktrace_file_writer_add_chunk(w, 0x7777, 1, 0, "x", 1, &err), -EINVAL);
	CHECK_EQ(ktrace_file_writer_append(w, ev.d, 32, &err), 0);
	CHECK_EQ(ktrace_file_writer_append(w, ev.d + 32, 32, &err), 0);
	CHECK_EQ(ktrace_file_writer_append(w, ev.d, 1, &err), -EINVAL);
	CHECK_EQ(ktrace_file_writer_close(w, &err), 0);
	b->n = 0;
	b_header(b, KTRACE_FILE_KERNEL_MAGIC, 40, 1);
	b_chunk(b, KTRACE_TAG_EVENTS, 64, NULL, 0);
	b_u64(b, 0);
	b_bytes(b, ev.d, ev.n);
	fp = fopen(path, "rb");
	n = fp ? fread(got, 1, 1 << 16, fp) : 0;
	if (fp)
		fclose(fp);
	CHECK(n == b->n && !memcmp(got, b->d, n));
	unlink(path);

	/* An aborted writer leaves nothing behind. */
	CHECK_EQ(ktrace_file_writer_create(path, &h, &w, &err), 0);
	CHECK_EQ(ktrace_file_writer_add_chunk(w, 0x7777, 1, 0, "x", 1, &err), 0);
	ktrace_file_writer_abort(w);
	CHECK_EQ(stat(path, &st), -1);
	CHECK(ktrace_file_writer_create("/nonexistent/dir/f", &h, &w, &err) < 0);
	free(got);
	free(b);
}

static void stream_input(void)
{
	struct bb *b = calloc(1, sizeof(*b));
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_event ev;
	int fds[2], saved = dup(0), n = 0, ret;

	build_sample(b);
	CHECK_EQ(pipe(fds), 0);
	CHECK_EQ(write(fds[1], b->d, b->n), (ssize_t)b->n);
	close(fds[1]);
	dup2(fds[0], 0);
	close(fds[0]);
	CHECK_EQ(ktrace_input_open("-", &in, &err), 0);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK_EQ(ktrace_darwin_get_info(k)->events, -1);
	while ((ret = ktrace_darwin_next(k, &ev, &err)) > 0) {
		n++;
		if (n == 2)
			CHECK_STR(ktrace_darwin_find_thread(k, ev.thread)->command,
				  "a_very_long_name_of_");
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(n, 3);
	CHECK_EQ(ktrace_darwin_rewind(k, &err), -ESPIPE);
	ktrace_darwin_close(k);
	ktrace_input_close(in);
	dup2(saved, 0);
	close(saved);
	free(b);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ktrace-darwin-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	PLAN(13);
	RUN(detection);
	RUN(header_fields);
	RUN(chunks_in_order_with_padding);
	RUN(find_chunk_by_tag);
	RUN(unknown_chunks_skipped_by_decoder);
	RUN(header_size_disagreements);
	RUN(chunk_past_end);
	RUN(every_truncation_is_clean);
	RUN(events_chunk_length_rules);
	RUN(kernel_flavour_header);
	RUN(bad_magic_and_short_files);
	RUN(writer_bytes_exact);
	RUN(stream_input);
	rmdir(tmpdir);
	return TEST_EXIT();
}
