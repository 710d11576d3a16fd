// SPDX-License-Identifier: MIT
/*
 * kt_stream_format_parts (lib/engine/engine_stream_int.h), what the timeline's line threads
 * format with: the formatter leaves '0's where the numbers it notes go, so the line with
 * those digits written back from the notes must be ktrace_stream_format's line byte for
 * byte, for every record of the bundled demo trace, with the prefix made and with it
 * left out (then the label and the text are the line's start and end); the same for
 * the boot trace (v6), and for a copy of it in which one sched_switch's common_pid is
 * negative: the source then makes the prefix with printf, and the text it copies must
 * have its digits too. Each also with the NUL left to the caller (KT_FORMAT_NUL_LATER):
 * the line as it is up to its first NUL, its final newline gone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include <ktrace/event.h>
#include <ktrace/stream.h>

#include "engine/engine_stream_int.h"
#include "testlib.h"

#define DEMO "examples/sched_demo.dat"           /* v7, zstd */
#define BOOT "tests/data/report/boot.v6.dat.zst"  /* v6 uncompressed inside: its records
						   * lie in the file as they are */

/* parts' line (n bytes) with the noted digits written in. */
static void digits_in(char *line, size_t n, const struct kt_line_parts *parts)
{
	for (unsigned i = 0; i < parts->nnums; i++) {
		const struct kt_num *m = &parts->nums[i];

		if (parts->text_at + m->at + m->len <= n)
			kt_num_write(line + parts->text_at + m->at, m);
	}
}

/* Every record of path: the lines compared; returns the records seen (0 on failure),
 * the numbers noted into *noted and the events with a negative tid into *negative. */
static size_t compare_lines(const char *path, size_t *noted, size_t *negative)
{
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	const struct ktrace_stream_record *r;
	size_t records = 0, bad = 0;

	if (ktrace_stream_open(&s, &path, 1, NULL, &err, NULL)) {
		CHECK(!"the trace opens");
		return 0;
	}
	while (ktrace_stream_next(s, &r, &err) > 0) {
		char want[4096], got[4096];
		const struct kt_line_parts *parts;
		int nw = ktrace_stream_format(s, want, sizeof(want));

		*negative += r->kind == KTRACE_STREAM_EVENT && r->tid < 0;

		/* the prefix made or left out; the NUL looked for or left to the caller */
		for (unsigned how = 0; how < 4 && nw >= 0 && (size_t)nw < sizeof(want); how++) {
			int ng = kt_stream_format_parts(s, got, sizeof(got), &parts, how);
			size_t tail;

			if (ng < 0 || (size_t)ng >= sizeof(got) ||
			    (parts->nul_later && !(how & KT_FORMAT_NUL_LATER))) {
				bad++;
				continue;
			}
			if (parts->nul_later)
				ng = (int)strnlen(got, (size_t)ng);
			*noted += parts->nnums;
			digits_in(got, (size_t)ng, parts);
			if (!parts->omitted) {
				if (ng != nw || memcmp(got, want, (size_t)nw))
					bad++;
				continue;
			}
			/* the label, the prefix left out, the text */
			tail = (size_t)ng - parts->text_at;
			if (parts->text_at != parts->label || tail > (size_t)nw ||
			    memcmp(got, want, parts->label) ||
			    memcmp(got + parts->text_at, want + (size_t)nw - tail, tail))
				bad++;
		}
		if (bad == 1)
			fprintf(stderr, "# %s: record %zu: %s\n", path, records, want), bad++;
		records++;
	}
	ktrace_stream_close(s);
	CHECK_EQ(bad, 0);
	return bad ? 0 : records;
}

static void demo(void)
{
	size_t noted = 0, negative = 0, n = compare_lines(DEMO, &noted, &negative);

	CHECK(n > 5000);
	CHECK(noted > n);                    /* numbers were noted (and written back) */
}

/* The boot trace, decompressed, to path; its bytes in *data (*size). */
static int boot_copy(const char *path, char **data, size_t *size)
{
	FILE *f = fopen(BOOT, "rb"), *o = NULL;
	char *z = NULL;
	long zn;
	unsigned long long n;
	int ret = -1;

	*data = NULL;
	if (!f || fseek(f, 0, SEEK_END) || (zn = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		goto out;
	z = malloc((size_t)zn);
	if (!z || fread(z, 1, (size_t)zn, f) != (size_t)zn)
		goto out;
	n = ZSTD_getFrameContentSize(z, (size_t)zn);
	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR || n > (64u << 20))
		goto out;
	*data = malloc((size_t)n);
	if (!*data || ZSTD_decompress(*data, (size_t)n, z, (size_t)zn) != n)
		goto out;
	*size = (size_t)n;
	o = fopen(path, "wb");
	ret = o && fwrite(*data, 1, *size, o) == *size ? 0 : -1;
out:
	if (o)
		fclose(o);
	if (f)
		fclose(f);
	free(z);
	return ret;
}

/* path (the boot trace's copy, its bytes data[0..size)) with the common_pid of its first
 * sched_switch of a task (not the idle one) set to -5: the first place where the
 * event's id (2 bytes) is followed 4 bytes on by that tid, as a record's common fields
 * have them. */
static int negative_pid_copy(const char *path, char *data, size_t size)
{
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	const struct ktrace_stream_record *r;
	uint32_t id = 0;
	int32_t tid = 0;

	if (ktrace_stream_open(&s, &path, 1, NULL, &err, NULL))
		return -1;
	while (!tid && ktrace_stream_next(s, &r, &err) > 0) {
		if (r->kind == KTRACE_STREAM_EVENT && !strcmp(r->name, "sched_switch") && r->tid > 0 &&
		    r->tid < INT32_MAX) {
			tid = (int32_t)r->tid;
			id = r->event_id;
		}
	}
	ktrace_stream_close(s);
	for (size_t p = 0; tid && p + 8 <= size; p++) {
		uint16_t type;
		int32_t pid, neg = -5;

		memcpy(&type, data + p, 2);
		memcpy(&pid, data + p + 4, 4);
		if (type == id && pid == tid) {
			FILE *o = fopen(path, "wb");
			int ok;

			memcpy(data + p + 4, &neg, 4);
			ok = o && fwrite(data, 1, size, o) == size;
			if (o)
				fclose(o);
			return ok ? 0 : -1;
		}
	}
	return -1;
}

static void negative_pid(void)
{
	char to[] = "/tmp/ktrace-test-parts.XXXXXX";
	int fd = mkstemp(to);
	size_t noted = 0, negative = 0, size = 0, n;
	char *data = NULL;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	CHECK_EQ(boot_copy(to, &data, &size), 0);
	n = compare_lines(to, &noted, &negative);
	CHECK(n > 5000 && noted > n && negative == 0);
	CHECK_EQ(negative_pid_copy(to, data, size), 0);
	noted = negative = 0;
	CHECK_EQ(compare_lines(to, &noted, &negative), n);
	CHECK_EQ(negative, 1);               /* the record changed: printf's prefix */
	free(data);
	unlink(to);
}

int main(void)
{
	PLAN(2);
	RUN(demo);
	RUN(negative_pid);
	return TEST_EXIT();
}
