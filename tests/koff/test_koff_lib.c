// SPDX-License-Identifier: MIT
/*
 * KOFF library tests: the ktrace(1) page's example replayed through koff_log_raw,
 * the format parser and renderer (checked against the C library's printf with the
 * original format and typed arguments), record order and counters across ring wraps,
 * control calls, and hostile buffer contents.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ktrace/koff.h>

#include "common/outbuf.h"
#include "koff/koff_fmt.h"
#include "koff/koff_int.h"
#include "testlib.h"
#include <ktrace/view.h>

static char bufpath[256];

/* A reader of the buffer file at path. */
static int open_path(const char *path, struct koff_reader **out, struct ktrace_error *err)
{
	KTRACE_OPTS(koff_reader_open_opts, o, .path = path);

	return koff_reader_open(&o, out, err);
}

static void fresh_path(const char *what)
{
	snprintf(bufpath, sizeof(bufpath), "/dev/shm/koff-test-%d-%s", (int)getpid(), what);
	unlink(bufpath);
}

/* Runs the view over the buffer file and returns its output (static buffer). */
static const char *view_of(const char *path, const struct ktrace_view_koff_opts *o)
{
	static char text[1 << 20];
	struct ktrace_error err = { 0 };
	struct koff_reader *r;
	struct ktrace_out *out = kt_out_new(-1);
	char tmp[] = "/tmp/koff-view-XXXXXX";
	int fd = mkstemp(tmp);
	ssize_t n;

	text[0] = '\0';
	if (fd < 0 || !out || open_path(path, &r, &err)) {
		printf("#   cannot read %s: %s\n", path, err.message);
		free(out);
		return text;
	}
	unlink(tmp);
	out->fd = fd;
	kt_out_reset(out);
	if (ktrace_view_koff_reader(r, o, out, &err))
		printf("#   view: %s\n", err.message);
	kt_out_flush(out);
	koff_reader_close(r);
	free(out);
	n = pread(fd, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	close(fd);
	return text;
}

static char *slurp(const char *path)
{
	static char text[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	return text;
}

#define MS 1000000ULL
#define T0 (990015556ULL * 1000000000ULL + 772 * MS)   /* 2001-05-16 12:19:16.772 UTC */

/* Acceptance 1: the EXAMPLES section of ktrace(1). */
static void example_replayed(void)
{
	static const uint64_t none[5];
	const uint64_t mount[5] = { 0x3f7738, 0x43fab8 };
	const uint64_t attr[5] = { 0x10 };
	struct ktrace_view_koff_opts o = { .sz = sizeof(o), .scale = 1000000 };
	struct koff_buffer *b;

	fresh_path("example");
	setenv("TZ", "UTC", 1);
	tzset();
	b = koff_open(bufpath, 64);
	CHECK(b != NULL);
	if (!b)
		return;
	/* Thread ids and correlators with high bits set: only the low 32 are shown. */
	CHECK_EQ(koff_log_raw(b, 0xabcd0000001bdd20ULL, T0, 0, "_init:", none), 0);
	CHECK_EQ(koff_log_raw(b, 0x00fe5d20, T0 + 3190 * MS + 123456, 0, "io_reaper: sleep", none),
		 0);
	CHECK_EQ(koff_log_raw(b, 0x7fff000005c6d780ULL, T0 + 3240 * MS, 0x100000000ULL,
			      "odmmount: vfsp %x mvp %x", mount), 0);
	CHECK_EQ(koff_log_raw(b, 0x001bdd20, T0 + 50220 * MS + 999999, 0, "_fini:", none), 0);
	/* 12:20:24.842: 68.07 s after the time stamp, past 16 bits of milliseconds. */
	CHECK_EQ(koff_log_raw(b, 0x05325440, T0 + 68070 * MS, 0xffffffff7836c820ULL,
			      "odmgetattr: flags %x", attr), 0);
	CHECK_EQ(koff_log_raw(b, 0x1005325440ULL, T0 + 68070 * MS + 5, 0x7836c820,
			      "odmgetattr: flags %x", attr), 0);
	koff_close(b);
	CHECK_STR(view_of(bufpath, &o), slurp("tests/koff/data/example.expected"));
	unlink(bufpath);
}

static void timestamp_every_100_lines(void)
{
	static const uint64_t none[5];
	struct ktrace_view_koff_opts o = { .sz = sizeof(o), .scale = 1000000 };
	struct koff_buffer *b;
	const char *text;
	int lines = 0, stamps = 0, since = 0, worst = 0;

	fresh_path("stamps");
	b = koff_open(bufpath, 1024);
	CHECK(b != NULL);
	if (!b)
		return;
	for (int i = 0; i < 250; i++)
		koff_log_raw(b, 1, T0 + (uint64_t)i * MS, (uint64_t)i, "tick: step", none);
	koff_close(b);
	text = view_of(bufpath, &o);
	for (const char *p = text; *p; p++) {
		if (p == text || p[-1] == '\n') {
			lines++;
			if (p[4] == '+') {
				stamps++;
				since = 0;
			}
			since++;
			if (since > worst)
				worst = since;
		}
	}
	CHECK_EQ(lines, 250 + 3);
	CHECK_EQ(stamps, 3);
	CHECK(worst <= 100);
	unlink(bufpath);
}

/* Tags: right-aligned, cut to 10 columns; formats without a tag. */
static void tags_and_rest(void)
{
	struct koff_record rec = { 0 };
	char tag[11], rest[256];

	rec.fmt = "averyverylongtag: x %d";
	rec.args[0] = (uint64_t)-5;
	koff_record_format(&rec, tag, rest, sizeof(rest));
	CHECK_STR(tag, "averyveryl");
	CHECK_STR(rest, " x -5");
	rec.fmt = "no tag %u here";
	rec.args[0] = 7;
	koff_record_format(&rec, tag, rest, sizeof(rest));
	CHECK_STR(tag, "");
	CHECK_STR(rest, "no tag 7 here");
	rec.fmt = "%d: percent first";
	koff_record_format(&rec, tag, rest, sizeof(rest));
	CHECK_STR(tag, "");
	CHECK_STR(rest, "7: percent first");
	rec.fmt = "alert:* boom\n";
	koff_record_format(&rec, tag, rest, sizeof(rest));
	CHECK_STR(tag, "alert");
	CHECK_STR(rest, "* boom");
	rec.fmt = NULL;
	rec.fmt_addr = 0x1234;
	koff_record_format(&rec, tag, rest, sizeof(rest));
	CHECK(strstr(rest, "<format at 0x1234 not found>") == rest);
}

/* The renderer against the C library's printf with the real format and types. */
static int render_same(const char *fmt, const uint64_t w[5], const char *want)
{
	struct koff_fmt f;
	char got[512];

	if (koff_fmt_parse(fmt, strlen(fmt), &f)) {
		printf("#   refused \"%s\"\n", fmt);
		return 0;
	}
	koff_fmt_render(fmt, strlen(fmt), 0, &f, w, NULL, got, sizeof(got));
	if (strcmp(got, want)) {
		printf("#   \"%s\": got \"%s\", printf gives \"%s\"\n", fmt, got, want);
		return 0;
	}
	return 1;
}

#define SAME(fmt, words, ...)                                                            \
	do {                                                                            \
		char want_[512];                                                        \
		snprintf(want_, sizeof(want_), fmt, __VA_ARGS__);                       \
		CHECK(render_same(fmt, (const uint64_t[5])words, want_));               \
	} while (0)
#define W(...) { __VA_ARGS__ }

static void render_matches_printf(void)
{
	double d = -1234.5678;
	uint64_t dw;
	int i42 = -42;
	unsigned u = 0xfffffffeu;

	memcpy(&dw, &d, 8);
	SAME("%d|%5d|%-5d|%05d|%+d", W((uint64_t)-42, (uint64_t)-42, (uint64_t)-42, (uint64_t)-42,
				       (uint64_t)-42), i42, i42, i42, i42, i42);
	SAME("% d|%+d", W(42, 42), 42, 42);
	SAME("%u %x %X %o %#x", W(u, u, u, u, u), u, u, u, u, u);
	SAME("%#o %#x", W(0, 0), 0u, 0u);
	SAME("%ld %lu %lx %lld %llu", W(~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL), -1L, ~0UL, ~0UL, -1LL,
	     ~0ULL);
	SAME("%jd %zu %td", W(~0ULL, 12345, ~0ULL), (intmax_t)-1, (size_t)12345, (ptrdiff_t)-1);
	SAME("%hhd %hhu %hd %hu", W(0x1ff, 0x1ff, 0x18000, 0x18000), (signed char)-1,
	     (unsigned char)0xff, (short)-32768, (unsigned short)0x8000);
	SAME("%.3d %8.3x %-8.2u|", W(7, 7, 7), 7, 7u, 7u);
	SAME("%c%c", W('A', 'z'), 'A', 'z');
	SAME("%p %p", W(0xdeadbeef, 0), (void *)0xdeadbeef, (void *)0);
	SAME("%f %.2e %g %10.3f %a", W(dw, dw, dw, dw, dw), d, d, d, d, d);
	SAME("100%% %*d %-*d|", W(6, 42, 6, 42), 6, 42, 6, 42);
	SAME("%.*f", W(2, dw), 2, d);
}
#undef SAME
#undef W

static void hostile_formats_refused(void)
{
	static const char *const bad[] = {
		"%n", "x %hn", "%1$d", "%Lf", "%ls", "%lc", "%q", "%", "%5", "%'d", "%Id",
		"%d%d%d%d%d%d", "%*.*d%*.*d", "%k", "%m",
	};
	static const char *const good[] = {
		"", "plain", "%%", "%d%d%d%d%d", "%*d%*d%d", "%s", "tag: %p %c %x",
	};
	struct koff_fmt f;
	struct ktrace_error err = { 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (koff_fmt_parse(bad[i], strlen(bad[i]), &f) != -EINVAL)
			printf("#   accepted \"%s\"\n", bad[i]);
		CHECK_EQ(koff_format_check(bad[i], &err), -EINVAL);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (koff_fmt_parse(good[i], strlen(good[i]), &f))
			printf("#   refused \"%s\": %s\n", good[i], f.why);
		CHECK_EQ(koff_format_check(good[i], &err), 0);
	}
}

static void escapes_and_strings(void)
{
	struct koff_fmt f;
	const char *fmt = "ctl\x1b[31m %s|%5s|%.2s|%s";
	const char *strs[5] = { "a\nb", "xy", "long", NULL };
	const uint64_t a[5] = { 1, 2, 3, 0x5555 };
	char got[256];

	CHECK_EQ(koff_fmt_parse(fmt, strlen(fmt), &f), 0);
	koff_fmt_render(fmt, strlen(fmt), 0, &f, a, strs, got, sizeof(got));
	CHECK_STR(got, "ctl\\x1b[31m a\\nb|   xy|lo|<0x5555>");
	/* A huge width is clamped, the output is bounded. */
	fmt = "%999999999d";
	CHECK_EQ(koff_fmt_parse(fmt, strlen(fmt), &f), 0);
	koff_fmt_render(fmt, strlen(fmt), 0, &f, a, NULL, got, 16);
	CHECK_EQ(strlen(got), 15);
}

/* Records come out oldest first across wraps, with counters that add up. */
static void wrap_and_counts(void)
{
	struct ktrace_error err = { 0 };
	struct koff_counters kc;
	struct koff_reader *r;
	struct koff_record rec;
	struct koff_counts c;
	struct koff_buffer *b;
	uint64_t args[5] = { 0 }, expect = 1000 - 64;
	int ok = 1;

	fresh_path("wrap");
	b = koff_open(bufpath, 50);   /* rounded up to 64 */
	CHECK(b != NULL);
	if (!b)
		return;
	for (uint64_t i = 0; i < 1000; i++) {
		args[0] = i;
		koff_log_raw(b, 7, T0 + i, i, "seq: %lu", args);
	}
	koff_get_counters(b, &kc);
	CHECK_EQ(kc.nentries, 64);
	CHECK_EQ(kc.logged, 1000);
	CHECK_EQ(kc.overwritten, 1000 - 64);
	CHECK_EQ(open_path(bufpath, &r, &err), 0);
	while (koff_reader_next(r, &rec, &err) > 0) {
		if (rec.args[0] != expect || rec.id != expect || rec.seq != expect)
			ok = 0;
		expect++;
	}
	CHECK(ok);
	CHECK_EQ(expect, 1000);
	koff_reader_counts(r, &c);
	CHECK_EQ(c.logged, 1000);
	CHECK_EQ(c.shown, 64);
	CHECK_EQ(c.overwritten, 1000 - 64);
	CHECK_EQ(c.unfinished, 0);
	koff_reader_close(r);

	/* Flush: nothing left to show, counters restart. */
	koff_flush(b);
	CHECK_EQ(open_path(bufpath, &r, &err), 0);
	CHECK_EQ(koff_reader_next(r, &rec, &err), 0);
	koff_reader_counts(r, &c);
	CHECK_EQ(c.logged, 0);
	koff_reader_close(r);
	koff_log_raw(b, 7, T0, 5, "after: flush", args);
	CHECK_EQ(open_path(bufpath, &r, &err), 0);
	CHECK_EQ(koff_reader_next(r, &rec, &err), 1);
	CHECK_EQ(rec.id, 5);
	koff_reader_close(r);
	koff_close(b);
	unlink(bufpath);
}

/* The mask, enable/disable and reservations through the API. */
static void control_calls(void)
{
	struct ktrace_error err = { 0 };
	struct koff_counters kc;
	struct koff_buffer *b, *other;

	fresh_path("ctl");
	CHECK(koff_open(bufpath, 0) == NULL);   /* 0: attach only */
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(koff_reserve(bufpath, 100, &err), 0);
	b = koff_open(bufpath, 0);
	CHECK(b != NULL);
	if (!b)
		return;
	koff_get_counters(b, &kc);
	CHECK_EQ(kc.allocated, 0);
	CHECK_EQ(kc.nentries, 128);
	CHECK_EQ(koff_log_raw(b, 1, 2, 3, "x:", NULL), -EAGAIN);
	CHECK_EQ(koff_reserve(bufpath, 300, &err), 0);      /* still resizable */
	other = koff_open(bufpath, 0);                       /* attached while reserved */
	CHECK(other != NULL);
	CHECK_EQ(koff_enable(b, 0x6, &err), 0);
	/* The other handle (another producer) maps the buffer once it is allocated. */
	CHECK_EQ(koff_log_raw(other, 1, 2, 3, "other:", NULL), 0);
	koff_close(other);
	koff_get_counters(b, &kc);
	CHECK_EQ(kc.allocated, 1);
	CHECK_EQ(kc.nentries, 512);
	CHECK_EQ(kc.enabled, 1);
	CHECK_EQ(koff_get_mask(b), 0x6);
	CHECK_EQ(koff_log_raw(b, 1, 2, 3, "x:", NULL), 0);
	CHECK_EQ(koff_reserve(bufpath, 300, &err), -EBUSY);
	CHECK(strstr(err.message, "already allocated with 512 entries") != NULL);
	koff_disable(b);
	CHECK_EQ(koff_is_enabled(b), 0);
	CHECK_EQ(koff_enable_last(b, &err), 0);
	CHECK_EQ(koff_get_mask(b), 0x6);
	koff_set_mask(b, 0x10);
	CHECK_EQ(koff_get_mask(b), 0x10);
	koff_close(b);
	unlink(bufpath);
}

/* A buffer file scribbled on by a malicious process: bad stamps, string offsets and
 * formats are shown as placeholders or skipped, never trusted. */
static void hostile_buffer(void)
{
	struct ktrace_error err = { 0 };
	struct ktrace_view_koff_opts o = { .sz = sizeof(o), .scale = 1000000, .verbose = 1 };
	struct koff_buffer *b;
	struct koff_geom g;
	uint8_t *map;
	const char *text;
	struct stat st;
	int fd;

	fresh_path("hostile");
	b = koff_open(bufpath, 16);
	CHECK(b != NULL);
	if (!b)
		return;
	for (int i = 0; i < 8; i++) {
		static const char *const fmts[8] = { "r0: %d", "r1: %d", "r2: %d", "r3: %d",
						      "r4: %d", "r5: %d", "r6: %d", "r7: %d" };

		koff_log_raw(b, 1, T0 + (uint64_t)i, (uint64_t)i, fmts[i], (uint64_t[5]){ 1 });
	}
	koff_close(b);
	fd = open(bufpath, O_RDWR);
	fstat(fd, &st);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		return;
	CHECK_EQ(koff_geom_decode(map, (size_t)st.st_size, (uint64_t)st.st_size, &g, &err), 0);
	{
		struct koff_rec *ring = (struct koff_rec *)(void *)(map + g.ring_off);
		uint32_t bad_len = 0xffffff00u;

		ring[1].str = 0xfffffff8u;                  /* outside the table */
		ring[2].str = 3;                            /* misaligned */
		ring[3].stamp = 12345;                      /* torn/foreign */
		memcpy(map + g.strtab_off + ring[4].str, &bad_len, 4);   /* entry length */
		/* An entry whose text is a hostile format, hash fixed up to match. */
		memcpy(map + g.strtab_off + ring[5].str + 8, "%n%s", 4);
		{
			uint32_t h = koff_hash_str("%n%s", 4), l = 4;

			memcpy(map + g.strtab_off + ring[5].str, &l, 4);
			memcpy(map + g.strtab_off + ring[5].str + 4, &h, 4);
			map[g.strtab_off + ring[5].str + 12] = 0;
		}
	}
	text = view_of(bufpath, &o);
	CHECK(strstr(text, "<unusable format \"%n%s\">") != NULL);
	CHECK(strstr(text, "not found>") != NULL);
	CHECK(strstr(text, "shown 7") != NULL);
	/* Geometry lies: each is refused with a message. */
	{
		uint64_t n = 3;

		memcpy(map + KOFF_H_NENTRIES, &n, 8);
		CHECK_EQ(open_path(bufpath, &(struct koff_reader *){ NULL }, &err),
			 -EBADMSG);
		n = 1ULL << 40;
		memcpy(map + KOFF_H_NENTRIES, &n, 8);
		CHECK_EQ(open_path(bufpath, &(struct koff_reader *){ NULL }, &err),
			 -EBADMSG);
		n = 16;
		memcpy(map + KOFF_H_NENTRIES, &n, 8);
		n = (uint64_t)st.st_size + 4096;
		memcpy(map + KOFF_H_FILE_SIZE, &n, 8);
		CHECK_EQ(open_path(bufpath, &(struct koff_reader *){ NULL }, &err),
			 -ENODATA);
	}
	munmap(map, (size_t)st.st_size);
	/* Truncated under the reader: read errors, not a crash. */
	CHECK_EQ(ftruncate(fd, 100), 0);
	CHECK(open_path(bufpath, &(struct koff_reader *){ NULL }, &err) < 0);
	close(fd);
	unlink(bufpath);
}

static int count_records(struct koff_reader *r, uint64_t *last_id)
{
	struct ktrace_error err = { 0 };
	struct koff_record rec;
	int n = 0;

	while (koff_reader_next(r, &rec, &err) > 0) {
		*last_id = rec.id;
		n++;
	}
	koff_reader_close(r);
	return n;
}

/* koff_reader_open reads each kind of source it is given, and only one. */
static void reader_open_sources(void)
{
	static const uint64_t args[5] = { 0 };
	struct ktrace_error err = { 0 };
	struct koff_core_buffer list[KOFF_CORE_MAX_BUFFERS];
	struct koff_buffer *b;
	struct koff_reader *r = NULL;
	struct ktrace_input *in;
	uint64_t id = 0;
	char *data;
	int fd;
	struct stat st;

	fresh_path("sources");
	b = koff_open(bufpath, 16);
	CHECK(b != NULL);
	if (!b)
		return;
	for (uint64_t i = 1; i <= 3; i++)
		koff_log_raw(b, 7, T0 + i, i, "n: %lu", args);
	koff_close(b);
	{
		KTRACE_OPTS(koff_reader_open_opts, o, .path = bufpath);

		CHECK_EQ(koff_reader_open(&o, &r, &err), 0);
		CHECK_EQ(koff_reader_info(r)->source, KOFF_SRC_FILE);
		CHECK_EQ(count_records(r, &id), 3);
		CHECK_EQ(id, 3);
	}
	fd = open(bufpath, O_RDONLY);
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	data = malloc((size_t)st.st_size);
	CHECK(data && read(fd, data, (size_t)st.st_size) == st.st_size);
	close(fd);
	{
		KTRACE_OPTS(koff_reader_open_opts, o, .data = data, .len = (size_t)st.st_size);

		CHECK_EQ(koff_reader_open(&o, &r, &err), 0);
		CHECK_EQ(koff_reader_info(r)->source, KOFF_SRC_MEMORY);
		CHECK_EQ(count_records(r, &id), 3);
	}
	CHECK_EQ(ktrace_input_open(bufpath, &in, &err), 0);
	{
		KTRACE_OPTS(koff_reader_open_opts, o, .input = in);

		CHECK_EQ(koff_reader_open(&o, &r, &err), 0);
		CHECK_EQ(count_records(r, &id), 3);
	}
	ktrace_input_close(in);
	{
		KTRACE_OPTS(koff_reader_open_opts, o);

		r = (struct koff_reader *)&o;
		CHECK_EQ(koff_reader_open(&o, &r, &err), -EINVAL);
		CHECK(r == NULL);
		CHECK(strstr(err.message, "give one") != NULL);
		CHECK_EQ(koff_reader_open(NULL, &r, &err), -EINVAL);
		o.path = bufpath;
		o.data = data;
		CHECK_EQ(koff_reader_open(&o, &r, &err), -EINVAL);
		CHECK(strstr(err.message, "only one") != NULL);
		/* a buffer file is not a core */
		o.path = NULL;
		o.data = NULL;
		o.core = bufpath;
		CHECK(koff_reader_open(&o, &r, &err) < 0);
		CHECK(r == NULL);
		CHECK(koff_core_list_buffers(&o, list, KOFF_CORE_MAX_BUFFERS, &err) < 0);
		o.core = NULL;
		CHECK_EQ(koff_core_list_buffers(&o, list, KOFF_CORE_MAX_BUFFERS, &err), -EINVAL);
	}
	free(data);
	unlink(bufpath);
}

/* The default buffer's path: KOFF_BUFFER, else /dev/shm/koff-<program name>. */
static void default_path(void)
{
	char buf[PATH_MAX], *old = getenv("KOFF_BUFFER") ? strdup(getenv("KOFF_BUFFER")) : NULL;

	setenv("KOFF_BUFFER", "/tmp/some-buffer", 1);
	CHECK_EQ(koff_default_path(buf, sizeof(buf)), 16);
	CHECK_STR(buf, "/tmp/some-buffer");
	CHECK_EQ(koff_default_path(buf, 16), -ENAMETOOLONG);
	unsetenv("KOFF_BUFFER");
	CHECK_EQ(koff_default_path(buf, sizeof(buf)), (int)strlen("/dev/shm/koff-test_koff_lib"));
	CHECK_STR(buf, "/dev/shm/koff-test_koff_lib");
	if (old) {
		setenv("KOFF_BUFFER", old, 1);
		free(old);
	}
}

int main(void)
{
	PLAN(11);
	RUN(example_replayed);
	RUN(timestamp_every_100_lines);
	RUN(tags_and_rest);
	RUN(render_matches_printf);
	RUN(hostile_formats_refused);
	RUN(escapes_and_strings);
	RUN(wrap_and_counts);
	RUN(control_calls);
	RUN(hostile_buffer);
	RUN(reader_open_sources);
	RUN(default_path);
	return TEST_EXIT();
}
