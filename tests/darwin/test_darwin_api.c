// SPDX-License-Identifier: MIT
/* Opening a V3 ktrace file by path and through an input, and the kdebug reader's file. */
#include <errno.h>
#include <string.h>

#include <ktrace/api.h>
#include <ktrace/darwin.h>
#include <ktrace/input.h>
#include <ktrace/ktrace_file.h>

#include "testlib.h"

#define V3 "fuzz/corpus/fuzz_ktrace_file/threadname-durations.ktrace"

static void file_by_path_and_input(void)
{
	struct ktrace_error err = { 0 };
	struct ktrace_file *f = NULL, *g = NULL;
	struct ktrace_input *in = NULL, *fin;
	struct ktrace_darwin *k = NULL;

	CHECK_EQ(ktrace_file_open(V3, &f, &err), 0);
	if (!f)
		return;
	fin = ktrace_file_input(f);
	CHECK(fin != NULL);
	if (fin) {
		CHECK_STR(ktrace_input_name(fin), V3);
		CHECK(ktrace_input_data(fin) && !memcmp(ktrace_input_data(fin), "\x00\x03\xaa\x55", 4));
	}
	CHECK_EQ(ktrace_input_open(V3, &in, &err), 0);
	if (in) {
		CHECK_EQ(ktrace_file_open_input(in, &g, &err), 0);
		CHECK(g && ktrace_file_input(g) == in);
		if (g) {
			CHECK_EQ(ktrace_file_body_offset(g), ktrace_file_body_offset(f));
			ktrace_file_close(g);
		}
		CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
		CHECK(k && ktrace_darwin_file(k) != NULL);
		if (k)
			ktrace_darwin_close(k);
		ktrace_input_close(in);
	}
	ktrace_file_close(f);
	CHECK(ktrace_file_open("/nonexistent/x.ktrace", &f, &err) < 0);
}

static void raw_stream_has_no_file(void)
{
	static unsigned char raw[64 * 4];
	KTRACE_OPTS(ktrace_darwin_opts, o, .raw_v0 = true);
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	struct ktrace_darwin *k = NULL;

	CHECK_EQ(ktrace_input_from_memory(raw, sizeof(raw), "raw", &in, &err), 0);
	if (!in)
		return;
	CHECK_EQ(ktrace_darwin_open(in, &o, &k, &err), 0);
	CHECK(k && ktrace_darwin_file(k) == NULL);
	if (k)
		ktrace_darwin_close(k);
	ktrace_input_close(in);
}

static void trace_event_names(void)
{
	/* Apple's trace.codes: the TRACE class (7) */
	CHECK_STR(ktrace_darwin_trace_event_name(0x07000004), "TRACE_DATA_NEWTHREAD");
	CHECK_STR(ktrace_darwin_trace_event_name(0x07020008), "TRACE_LOST_EVENTS");
	CHECK_STR(ktrace_darwin_trace_event_name(0x07020009), "TRACE_LOST_EVENTS");  /* func bits */
	CHECK(ktrace_darwin_trace_event_name(0x01000004) == NULL);   /* not TRACE */
}

int main(void)
{
	PLAN(3);
	RUN(file_by_path_and_input);
	RUN(raw_stream_has_no_file);
	RUN(trace_event_names);
	return tl_failed_cases != 0;
}
