// SPDX-License-Identifier: MIT
/* Unit tests of the number formatter (common/numfmt.h), the output buffer's three
 * destinations (common/outbuf.h) and trace-cmd's line prefix (engine/engine.h),
 * each against what printf makes of the same values. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/numfmt.h"
#include "common/outbuf.h"
#include "engine/engine.h"
#include "testlib.h"

/* Values around every power of 10 and 2, and a pseudo-random spread. */
static size_t sample_values(uint64_t *v, size_t max)
{
	size_t n = 0;
	uint64_t p = 1, x = 0x9e3779b97f4a7c15ull;

	v[n++] = 0;
	v[n++] = UINT64_MAX;
	for (int i = 0; i < 20 && n + 3 <= max; i++, p *= 10) {
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
	}
	for (int i = 0; i < 64 && n + 2 <= max; i++) {
		v[n++] = (1ull << i) - 1;
		v[n++] = 1ull << i;
	}
	while (n < max) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[n++] = x >> (x & 63);
	}
	return n;
}

static void numfmt_matches_printf(void)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
					  100000000, 1000000000 };
	uint64_t v[400];
	size_t n = sample_values(v, 400);
	char got[64], want[64];
	int bad = 0;

	for (size_t i = 0; i < n && bad < 5; i++) {
		uint64_t x = v[i];

		*kt_fmt_dec(got, x) = 0;
		snprintf(want, sizeof(want), "%" PRIu64, x);
		if (strcmp(got, want) || kt_dec_len(x) != strlen(want))
			bad++, printf("#   %s: %s, want %s\n", "dec", got, want);
		*kt_fmt_i64(got, (int64_t)x) = 0;
		snprintf(want, sizeof(want), "%" PRId64, (int64_t)x);
		if (strcmp(got, want))
			bad++, printf("#   %s: %s, want %s\n", "i64", got, want);
		*kt_fmt_dec_width(got, x, 12) = 0;
		snprintf(want, sizeof(want), "%12" PRIu64, x);
		if (strcmp(got, want))
			bad++, printf("#   %s: %s, want %s\n", "width", got, want);
		for (unsigned d = 1; d <= 9; d++) {
			*kt_fmt_dec_zero(got, x % pow10[d], d) = 0;
			snprintf(want, sizeof(want), "%0*" PRIu64, (int)d, x % pow10[d]);
			if (strcmp(got, want))
				bad++, printf("#   %s: %s, want %s\n", "zero", got, want);
		}
		*kt_fmt_hex(got, x, 0, false) = 0;
		snprintf(want, sizeof(want), "%" PRIx64, x);
		if (strcmp(got, want) || kt_hex_len(x) != strlen(want))
			bad++, printf("#   %s: %s, want %s\n", "hex", got, want);
		*kt_fmt_hex(got, x, 16, true) = 0;
		snprintf(want, sizeof(want), "%016" PRIX64, x);
		if (strcmp(got, want))
			bad++, printf("#   %s: %s, want %s\n", "HEX", got, want);
	}
	CHECK_EQ(bad, 0);
	{
		static const uint8_t bytes[] = { 0x00, 0x0f, 0xa5, 0xff };

		*kt_fmt_hex_bytes(got, bytes, sizeof(bytes)) = 0;
		CHECK_STR(got, "000fa5ff");
	}
}

static void outbuf_memory_counts(void)
{
	char buf[9] = "xxxxxxxxx";
	struct ktrace_out o = KT_OUT_MEM(buf, 8);
	struct ktrace_out none = KT_OUT_MEM(NULL, 0);

	kt_out_puts(&o, "hello ");
	kt_out_u64(&o, 12345, 0);      /* no room for 20 digits: the slow path */
	kt_out_putc(&o, '!');
	CHECK_EQ(o.len, 12);
	CHECK(!memcmp(buf, "hello 12x", 9));
	kt_out_printf(&none, "%d-%s", 42, "abc");
	kt_out_hex(&none, 0xabc, 0);
	CHECK_EQ(none.len, 9);
}

static void outbuf_heap_grows(void)
{
	struct ktrace_out s = { 0 };   /* zeroed: an empty heap string */
	char big[2000];

	CHECK_STR(kt_out_str(&s), "");
	for (int i = 0; i < 10000; i++)
		kt_out_u64(&s, (uint64_t)i % 10, 0);
	CHECK_EQ(s.len, 10000);
	CHECK_EQ(strlen(kt_out_str(&s)), 10000);
	CHECK(!memcmp(kt_out_str(&s) + 9990, "0123456789", 10));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	kt_out_printf(&s, "<%s>", big);     /* longer than printf's first try */
	CHECK_EQ(s.len, 10000 + sizeof(big) + 1);
	CHECK_EQ(s.error, 0);
	kt_out_heap_free(&s);
	CHECK(s.buf == NULL && s.len == 0 && s.to == KT_OUT_TO_HEAP);
}

static void outbuf_fd_blocks(void)
{
	char path[] = "/tmp/ktrace-outbuf-XXXXXX";
	int fd = mkstemp(path);
	struct ktrace_out *o = kt_out_new(fd);
	size_t total = 0;
	char piece[1000];
	char *back = malloc(3 * KT_OUT_SIZE);
	ssize_t got;

	CHECK(fd >= 0 && o && back);
	for (size_t i = 0; i < sizeof(piece); i++)
		piece[i] = (char)('a' + i % 26);
	while (total < KT_OUT_SIZE * 2 + 123) {
		kt_out_write(o, piece, sizeof(piece));
		kt_out_putc(o, '\n');
		total += sizeof(piece) + 1;
	}
	CHECK(o->flushed > 0 && o->flushed + o->len == total);
	CHECK_EQ(kt_out_flush(o), 0);
	CHECK_EQ(o->flushed, total);
	got = pread(fd, back, 3 * KT_OUT_SIZE, 0);
	CHECK_EQ(got, (ssize_t)total);
	CHECK(!memcmp(back + total - 1001, piece, 1000) && back[total - 1] == '\n');
	close(fd);
	unlink(path);
	free(back);
	free(o);
}

static void line_prefix_matches_printf(void)
{
	static const char *const comms[] = { "", "sh", "kworker/u8:2-events", "abcdefghijklmnop" };
	static const int64_t pids[] = { 0, 7, 12345, 123456, -3 };
	static const uint64_t tss[] = { 0, 499, 500, 999999499, 999999500, 12345678901234ull,
					UINT64_MAX / 2 };
	char got[512], want[512];
	int bad = 0;

	for (size_t c = 0; c < 4; c++) {
		for (size_t i = 0; i < 5; i++) {
			size_t cl = strlen(comms[c]);

			*kt_prefix_comm(got, comms[c], cl, pids[i], 16, false) = 0;
			snprintf(want, sizeof(want), "%16s-%-5" PRId64, comms[c], pids[i]);
			bad += !!strcmp(got, want);
			*kt_prefix_comm(got, comms[c], cl, pids[i], 8, true) = 0;
			snprintf(want, sizeof(want), "%8.8s-%-5" PRId64, comms[c], pids[i]);
			bad += !!strcmp(got, want);
		}
	}
	for (unsigned cpu = 0; cpu < 1100; cpu += 7) {
		*kt_prefix_cpu(got, cpu) = 0;
		snprintf(want, sizeof(want), "%03u", cpu);
		bad += !!strcmp(got, want);
	}
	for (size_t i = 0; i < sizeof(tss) / sizeof(tss[0]); i++) {
		struct kt_prefix_secs secs = { 0 };
		uint64_t ts = tss[i], us = ts / 1000 + (ts % 1000 >= 500);

		for (int twice = 0; twice < 2; twice++) {
			*kt_prefix_time(got, &secs, ts, false) = 0;
			snprintf(want, sizeof(want), "%5" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
			bad += !!strcmp(got, want);
		}
		*kt_prefix_time(got, NULL, ts, true) = 0;
		snprintf(want, sizeof(want), "%5" PRIu64 ".%09" PRIu64, ts / 1000000000, ts % 1000000000);
		bad += !!strcmp(got, want);
	}
	*kt_prefix_name(got, "sched_switch", 12) = 0;
	CHECK_STR(got, "sched_switch:         ");
	*kt_prefix_name(got, "a_name_of_twenty_two", 20) = 0;
	CHECK_STR(got, "a_name_of_twenty_two: ");
	CHECK_EQ(bad, 0);
	{
		size_t k = kt_line_prefix(got, KT_PREFIX_USECS, "bash", 42, 3, 1234567890123ull, "irq");

		got[k] = 0;
		CHECK_STR(got, "            bash-42    [003]  1234.567890: irq:                  ");
		k = kt_line_prefix(got, KT_PREFIX_NSECS, "bash", 42, 3, 1234567890123ull, "irq");
		got[k] = 0;
		CHECK_STR(got, "            bash-42    [003]1234567890123: irq:                  ");
		k = kt_line_prefix(got, KT_PREFIX_GENERIC, "", 42, -1, 1234567890123ull, "irq");
		got[k] = 0;
		CHECK_STR(got, "           <...>-42    [---]  1234.567890: irq                  ");
	}
}

int main(void)
{
	PLAN(5);
	RUN(numfmt_matches_printf);
	RUN(outbuf_memory_counts);
	RUN(outbuf_heap_grows);
	RUN(outbuf_fd_blocks);
	RUN(line_prefix_matches_printf);
	return TEST_EXIT();
}
