// SPDX-License-Identifier: MIT
/*
 * The trace.dat accessors over the bundled sample. Expected values are those trace-cmd
 * 3.1.6 shows for the file (`trace-cmd dump --options examples/sched_demo.dat`:
 * TRACECLOCK, VERSION "ktrace 0.2.0", TRACEID 0xC5CD7359DE3BDF, no TSC2NSEC, no DATE or
 * OFFSET).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/api.h>
#include <ktrace/tracedat.h>

#include "testlib.h"

#define DEMO "examples/sched_demo.dat"

static void options(void)
{
	struct ktrace_error err = { 0 };
	struct tracedat *td = NULL;
	uint32_t mult = 1, shift = 1;
	uint64_t id = 0, off = 7, c0, c1;

	CHECK_EQ(tracedat_open(DEMO, 0, &td, &err), 0);
	if (!td)
		return;
	CHECK_STR(tracedat_name(td), DEMO);
	CHECK_STR(tracedat_tracer_version(td), "ktrace 0.2.0");
	CHECK(tracedat_clock_text(td) &&
	      !strncmp(tracedat_clock_text(td),
		       "[local] global counter uptime perf mono mono_raw boot tai x86-tsc", 65));
	CHECK(tracedat_trace_id(td, &id));
	CHECK_EQ(id, 0xC5CD7359DE3BDFULL);
	CHECK(!tracedat_tsc2nsec(td, &mult, &shift, &off));
	CHECK_EQ(tracedat_ts_offset(td), 0);
	c0 = tracedat_correct_ts(td, 0, 0, 123456789);
	CHECK_EQ(c0, 123456789);      /* nothing to correct in this file */
	tracedat_add_ts_offset(td, 1000);
	tracedat_add_ts_offset(td, -1);
	CHECK_EQ(tracedat_ts_offset(td), 999);
	c1 = tracedat_correct_ts(td, 0, 1, 123456789);
	CHECK_EQ(c1, 123456789 + 999);
	tracedat_close(td);
}

static long count_records(unsigned flags, bool keep)
{
	struct ktrace_error err = { 0 };
	struct tracedat *td = NULL;
	struct tracedat_iter *it = NULL;
	const struct tracedat_record *r;
	long n = 0;
	int ret;

	if (tracedat_open(DEMO, flags, &td, &err))
		return -1;
	if (tracedat_iter_new(td, TRACEDAT_ALL_BUFFERS, -1, &it, &err) == 0) {
		if (keep) {
			size_t k = tracedat_iter_keep_mapped(it);

			if (k < 1 || k > (8u << 20))
				n = -1000000;
		}
		while ((ret = tracedat_iter_next(it, &r, &err)) > 0)
			n++;
		if (ret < 0)
			n = -1;
		tracedat_iter_free(it);
	}
	tracedat_close(td);
	return n;
}

static void keep_mapped_reads_the_same(void)
{
	long plain = count_records(0, false);

	CHECK(plain > 1000);
	CHECK_EQ(count_records(TRACEDAT_READ_COPIES, true), plain);
	CHECK_EQ(count_records(0, true), plain);
}

static void writer_size_and_version(void)
{
	KTRACE_OPTS(tracedat_write_opts, wo, .version = 6);
	struct ktrace_error err = { 0 };
	struct tracedat *td = NULL;
	struct tracedat_writer *w = NULL;
	uint64_t before = 0, during = 0;
	struct stat st;
	int fd = memfd_create("api", MFD_CLOEXEC);

	CHECK(fd >= 0);
	CHECK_EQ(tracedat_open(DEMO, 0, &td, &err), 0);
	if (fd < 0 || !td)
		return;
	tracedat_write_opts_from(td, &wo);
	CHECK_EQ(tracedat_writer_create_fd(fd, &wo, &w, &err), 0);
	if (w) {
		CHECK_EQ(tracedat_writer_version(w), 6);
		before = tracedat_writer_size(w);
		CHECK_EQ(tracedat_convert(td, w, &err), 0);
		during = tracedat_writer_size(w);
		CHECK(during > before);
		CHECK_EQ(tracedat_writer_close(w, &err), 0);
		CHECK(fstat(fd, &st) == 0);
		CHECK(during <= (uint64_t)st.st_size);
		CHECK(st.st_size > 100000);
	}
	tracedat_close(td);
	close(fd);
}

int main(void)
{
	PLAN(3);
	RUN(options);
	RUN(keep_mapped_reads_the_same);
	RUN(writer_size_and_version);
	return tl_failed_cases != 0;
}
