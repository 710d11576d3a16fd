// SPDX-License-Identifier: MIT
/* Unit tests of the option structs: KTRACE_OPTS and the one checked copy. The library
 * knows struct opts_v2; opts_v1 is what an older program was built with, opts_v3 what a
 * newer one was. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <ktrace/api.h>
#include <ktrace/darwin.h>
#include <ktrace/error.h>
#include <ktrace/stream.h>
#include <ktrace/tracedat.h>

#include "common/opts.h"
#include "testlib.h"

struct opts_v1 {
	size_t sz;
	int a;
};
struct opts_v2 {
	size_t sz;
	int a;
	const char *b;
};
struct opts_v3 {
	size_t sz;
	int a;
	const char *b;
	uint64_t c;
	char d;
};

static void macro_zeroes_and_sizes(void)
{
	KTRACE_OPTS(opts_v3, o, .b = "x", .d = 5);
	unsigned char *p = (unsigned char *)&o;
	size_t nonzero = 0;

	CHECK_EQ(o.sz, sizeof(struct opts_v3));
	CHECK_EQ(o.a, 0);
	CHECK_STR(o.b, "x");
	CHECK_EQ(o.c, 0);
	CHECK_EQ(o.d, 5);
	/* padding after d is zero too: only sz, b and d hold bits */
	for (size_t i = offsetof(struct opts_v3, d) + 1; i < sizeof(o); i++)
		nonzero += p[i] != 0;
	CHECK_EQ(nonzero, 0);
	{
		KTRACE_OPTS(opts_v1, e);
		CHECK_EQ(e.sz, sizeof(struct opts_v1));
		CHECK_EQ(e.a, 0);
	}
}

static void copy_null_is_defaults(void)
{
	struct opts_v2 d;
	struct ktrace_error err = { 0 };

	memset(&d, 0xa5, sizeof(d));
	CHECK_EQ(kt_opts_copy(&d, sizeof(d), NULL, "opts_v2", &err), 0);
	CHECK_EQ(d.sz, sizeof(d));
	CHECK_EQ(d.a, 0);
	CHECK(d.b == NULL);
	CHECK_EQ(err.code, 0);
}

static void copy_older_struct(void)
{
	KTRACE_OPTS(opts_v1, old, .a = 7);
	struct opts_v2 d;
	struct ktrace_error err = { 0 };

	memset(&d, 0xa5, sizeof(d));
	CHECK_EQ(KT_OPTS_COPY(&d, &old, "opts_v2", &err), 0);
	CHECK_EQ(d.sz, sizeof(d));
	CHECK_EQ(d.a, 7);
	CHECK(d.b == NULL);
}

static void copy_same_struct(void)
{
	KTRACE_OPTS(opts_v2, o, .a = -3, .b = "name");
	struct opts_v2 d;

	CHECK_EQ(KT_OPTS_COPY(&d, &o, "opts_v2", NULL), 0);
	CHECK_EQ(d.sz, sizeof(d));
	CHECK_EQ(d.a, -3);
	CHECK_STR(d.b, "name");
}

static void copy_newer_struct_zero_tail(void)
{
	KTRACE_OPTS(opts_v3, n, .a = 1, .b = "y");
	struct opts_v2 d;

	CHECK_EQ(KT_OPTS_COPY(&d, &n, "opts_v2", NULL), 0);
	CHECK_EQ(d.sz, sizeof(d));
	CHECK_EQ(d.a, 1);
	CHECK_STR(d.b, "y");
}

static void copy_newer_struct_nonzero_tail(void)
{
	KTRACE_OPTS(opts_v3, n, .a = 1, .d = 1);
	struct opts_v2 d;
	struct ktrace_error err = { 0 };
	char buf[300];

	CHECK_EQ(KT_OPTS_COPY(&d, &n, "opts_v2", &err), -EINVAL);
	CHECK_EQ(err.code, -EINVAL);
	CHECK(strstr(ktrace_error_format(&err, buf, sizeof(buf)), "opts_v2") != NULL);
	CHECK(strstr(buf, "does not know") != NULL);
	CHECK_EQ(d.a, 0);         /* nothing of the rejected struct is taken */
	n.d = 0;
	n.c = 1;
	CHECK_EQ(KT_OPTS_COPY(&d, &n, "opts_v2", &err), -EINVAL);
	CHECK_EQ(KT_OPTS_COPY(&d, &n, "opts_v2", NULL), -EINVAL);
}

static void copy_unsized_struct(void)
{
	struct opts_v2 o = { .a = 4 };     /* sz forgotten */
	struct opts_v2 d;
	struct ktrace_error err = { 0 };

	CHECK_EQ(KT_OPTS_COPY(&d, &o, "opts_v2", &err), -EINVAL);
	CHECK(strstr(err.message, "KTRACE_OPTS") != NULL);
	o.sz = sizeof(size_t);             /* only sz: every option default */
	CHECK_EQ(KT_OPTS_COPY(&d, &o, "opts_v2", &err), 0);
	CHECK_EQ(d.a, 0);
	CHECK_EQ(d.sz, sizeof(d));
}

/* The library's entry points go through the copy: a newer caller's struct with an
 * unknown option set is refused before anything is opened. */
static void entry_points_check_the_tail(void)
{
	struct {
		struct ktrace_stream_opts o;
		uint64_t newer;
	} s;
	struct {
		struct tracedat_write_opts o;
		uint64_t newer;
	} w;
	struct ktrace_error err = { 0 };
	struct ktrace_stream *st = (struct ktrace_stream *)&s;
	struct tracedat_writer *tw = (struct tracedat_writer *)&w;
	const char *paths[] = { "/nonexistent/x.dat" }, *bad = NULL;

	memset(&s, 0, sizeof(s));
	s.o.sz = sizeof(s);
	s.newer = 1;
	CHECK_EQ(ktrace_stream_open(&st, paths, 1, &s.o, &err, &bad), -EINVAL);
	CHECK(st == NULL);
	CHECK(strstr(err.message, "ktrace_stream_opts") != NULL);
	s.newer = 0;            /* a zero tail is fine: the open then fails on the path */
	CHECK(ktrace_stream_open(&st, paths, 1, &s.o, &err, &bad) != -EINVAL);
	CHECK(st == NULL);

	memset(&w, 0, sizeof(w));
	w.o.sz = sizeof(w);
	w.newer = 1;
	CHECK_EQ(tracedat_writer_create_fd(-1, &w.o, &tw, &err), -EINVAL);
	CHECK(strstr(err.message, "tracedat_write_opts") != NULL);
	{
		struct ktrace_darwin_opts d = { .raw_v0 = true };  /* sz forgotten */
		struct ktrace_darwin *k = NULL;
		struct ktrace_input *in;
		static const unsigned char data[64];

		CHECK_EQ(ktrace_input_from_memory(data, sizeof(data), "m", &in, &err), 0);
		CHECK_EQ(ktrace_darwin_open(in, &d, &k, &err), -EINVAL);
		CHECK(k == NULL);
		ktrace_input_close(in);
	}
}

int main(void)
{
	PLAN(8);
	RUN(macro_zeroes_and_sizes);
	RUN(copy_null_is_defaults);
	RUN(copy_older_struct);
	RUN(copy_same_struct);
	RUN(copy_newer_struct_zero_tail);
	RUN(copy_newer_struct_nonzero_tail);
	RUN(copy_unsized_struct);
	RUN(entry_points_check_the_tail);
	return tl_failed_cases != 0;
}
