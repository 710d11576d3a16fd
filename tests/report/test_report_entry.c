// SPDX-License-Identifier: MIT
/* ktrace_report and ktrace_info, the entries that pick a format's report and summary:
 * detection when the caller names no format, the option kinds each format takes, the
 * checks of the options and their size, and the errors for what they do not read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/input.h>
#include <ktrace/out.h>
#include <ktrace/view.h>

#include "testlib.h"

#define PAGES "examples/sched_cpu0.trace_pipe_raw"

/* What ktrace_report (info: ktrace_info) prints for path with o; *ret its result.
 * Returns a malloc'd string (NULL when the file does not open). */
static char *run(const char *path, const void *o, bool info, int *ret)
{
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	struct ktrace_out *out;
	FILE *f = tmpfile();
	char *text = NULL;
	long len;

	if (!f || ktrace_input_open(path, &in, &err) < 0) {
		if (f)
			fclose(f);
		return NULL;
	}
	out = ktrace_out_new(fileno(f));
	*ret = info ? ktrace_info(in, o, out, &err) : ktrace_report(in, o, out, &err);
	ktrace_out_flush(out);
	ktrace_out_free(out);
	ktrace_input_close(in);
	len = ftell(f);
	if (len >= 0 && (text = calloc(1, (size_t)len + 1)) && len) {
		rewind(f);
		if (fread(text, 1, (size_t)len, f) != (size_t)len)
			text[0] = 0;
	}
	fclose(f);
	return text;
}

/* Without a format the entry detects it, and prints what it prints when told. */
static void report_detects_format(void)
{
	struct ktrace_report_opts told = { .sz = sizeof(told), .format = KTRACE_FORMAT_FTRACE_PAGES };
	struct ktrace_report_opts none = { .sz = sizeof(none) };
	int r1 = -1, r2 = -1, r3 = -1;
	char *a = run(PAGES, &told, false, &r1);
	char *b = run(PAGES, &none, false, &r2);
	char *c = run(PAGES, NULL, false, &r3);

	CHECK(a && b && c);
	CHECK_EQ(r1, 0);
	CHECK_EQ(r2, 0);
	CHECK_EQ(r3, 0);
	CHECK(a && strstr(a, "\nsub-buffer 0 at 0x0: "));
	CHECK(a && b && !strcmp(a, b));
	CHECK(a && c && !strcmp(a, c));
	free(a);
	free(b);
	free(c);
}

static void info_detects_format(void)
{
	struct ktrace_info_opts o = { .sz = sizeof(o), .json = true };
	int ret = -1;
	char *text = run(PAGES, &o, true, &ret);

	CHECK_EQ(ret, 0);
	CHECK(text && text[0] == '{' && strstr(text, "\"format\": \"ftrace-pages\""));
	free(text);
}

static void option_kinds(void)
{
	CHECK_EQ(ktrace_report_takes(KTRACE_FORMAT_FTRACE_PAGES), KTRACE_TAKES_PAGES);
	CHECK_EQ(ktrace_report_takes(KTRACE_FORMAT_DARWIN_V3),
		 KTRACE_TAKES_DARWIN | KTRACE_TAKES_FORMAT);
	CHECK_EQ(ktrace_report_takes(KTRACE_FORMAT_DARWIN_RAW),
		 KTRACE_TAKES_DARWIN | KTRACE_TAKES_FORMAT);
	CHECK_EQ(ktrace_report_takes(KTRACE_FORMAT_KCDATA), KTRACE_TAKES_FORMAT);
	CHECK_EQ(ktrace_report_takes(KTRACE_FORMAT_TRACEDAT), KTRACE_TAKES_TRACEDAT);
	CHECK_EQ(ktrace_report_takes(KTRACE_FORMAT_KOFF), 0);
	CHECK_EQ(ktrace_report_takes(KTRACE_FORMAT_UNKNOWN), ~0u);
	CHECK_EQ(ktrace_info_takes(KTRACE_FORMAT_TRACEDAT), KTRACE_TAKES_TRACEDAT);
	CHECK_EQ(ktrace_info_takes(KTRACE_FORMAT_DARWIN_V3), KTRACE_TAKES_DARWIN);
	CHECK_EQ(ktrace_info_takes(KTRACE_FORMAT_FTRACE_PAGES), KTRACE_TAKES_PAGES);
	CHECK_EQ(ktrace_info_takes(KTRACE_FORMAT_KCDATA), 0);
	CHECK_EQ(ktrace_info_takes(KTRACE_FORMAT_KOFF), 0);
	CHECK_EQ(ktrace_info_takes(KTRACE_FORMAT_UNKNOWN), ~0u);
}

static void darwin_output_checked(void)
{
	struct ktrace_view_darwin_opts csv = { .sz = sizeof(csv), .csv = true };
	struct ktrace_report_opts o = { .sz = sizeof(o), .format = KTRACE_FORMAT_DARWIN_V3 };
	struct ktrace_error err = { 0 };

	CHECK_EQ(ktrace_report_check(&o, &err), 0);
	o.output = "plist";
	CHECK_EQ(ktrace_report_check(&o, &err), -EINVAL);
	CHECK(strstr(err.message, "text or json"));
	o.output = "json";
	CHECK_EQ(ktrace_report_check(&o, &err), 0);
	o.darwin = &csv;
	CHECK_EQ(ktrace_report_check(&o, &err), -EINVAL);
	/* kcdata has plist */
	o.format = KTRACE_FORMAT_KCDATA;
	o.output = "plist";
	CHECK_EQ(ktrace_report_check(&o, &err), 0);
}

/* A caller built against a newer header: its unknown fields must be zero. */
static void options_size(void)
{
	struct {
		struct ktrace_report_opts o;
		uint64_t newer;
	} big = { { .sz = sizeof(big) }, 0 };
	size_t tiny = 4;
	struct ktrace_error err = { 0 };
	int ret = -1;
	char *text = run(PAGES, &big, false, &ret);

	CHECK_EQ(ret, 0);
	free(text);
	big.newer = 1;
	text = run(PAGES, &big, false, &ret);
	CHECK_EQ(ret, -EINVAL);
	CHECK(text && !text[0]);
	free(text);
	CHECK_EQ(ktrace_report_check((const struct ktrace_report_opts *)&tiny, &err), -EINVAL);
	text = run(PAGES, &big, true, &ret);
	CHECK_EQ(ret, -EINVAL);
	free(text);
}

/* The option structs a report takes by pointer go through the same checked copy. */
static void nested_options_size(void)
{
	struct {
		struct ktrace_view_darwin_opts d;
		uint64_t newer;
	} big = { { .sz = sizeof(big) }, 1 };
	struct ktrace_view_darwin_opts unsized = { .csv = true };
	struct ktrace_view_text_opts text = { .mode = KTRACE_VIEW_TEXT_VERSION };
	struct ktrace_report_opts o = { .sz = sizeof(o), .format = KTRACE_FORMAT_DARWIN_V3,
					.darwin = &big.d };
	struct ktrace_error err = { 0 };

	CHECK_EQ(ktrace_report_check(&o, &err), -EINVAL);
	CHECK(strstr(err.message, "ktrace_view_darwin_opts"));
	big.newer = 0;
	CHECK_EQ(ktrace_report_check(&o, &err), 0);
	o.darwin = &unsized;
	CHECK_EQ(ktrace_report_check(&o, &err), -EINVAL);
	/* trace.dat: trace-cmd report's options without their size are refused */
	o.format = KTRACE_FORMAT_TRACEDAT;
	o.darwin = NULL;
	o.tracedat = &text;
	CHECK_EQ(ktrace_report(NULL, &o, NULL, &err), -EINVAL);
	CHECK(strstr(err.message, "ktrace_view_text_opts"));
}

static void not_read(void)
{
	struct ktrace_report_opts o = { .sz = sizeof(o) };
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	int ret = -1;
	char *text;

	/* no input, and a trace.dat input without trace-cmd report's files and options */
	CHECK_EQ(ktrace_report(NULL, &o, NULL, &err), -EINVAL);
	text = run("examples/sched_demo.dat", &o, false, &ret);
	CHECK_EQ(ret, -ESPIPE);
	free(text);
	/* empty, all zero, unknown */
	CHECK_EQ(ktrace_input_from_memory("", 0, "empty", &in, &err), 0);
	CHECK_EQ(ktrace_report(in, &o, NULL, &err), -ENODATA);
	ktrace_input_close(in);
	CHECK_EQ(ktrace_input_from_memory("\0\0\0\0\0\0\0\0", 8, "zero", &in, &err), 0);
	CHECK_EQ(ktrace_info(in, NULL, NULL, &err), -EBADMSG);
	CHECK(strstr(err.message, "all 8 bytes are zero"));
	ktrace_input_close(in);
	CHECK_EQ(ktrace_input_from_memory("hello world\n", 12, "text", &in, &err), 0);
	CHECK_EQ(ktrace_report(in, NULL, NULL, &err), -EBADMSG);
	ktrace_input_close(in);
}

int main(void)
{
	PLAN(7);
	RUN(report_detects_format);
	RUN(info_detects_format);
	RUN(option_kinds);
	RUN(darwin_output_checked);
	RUN(options_size);
	RUN(nested_options_size);
	RUN(not_read);
	return TEST_EXIT();
}
