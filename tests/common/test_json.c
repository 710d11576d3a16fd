// SPDX-License-Identifier: MIT
/* The JSON writer (lib/common/json.c): escaping, UTF-8 handling, layout. */
#include <stdlib.h>
#include <unistd.h>

#include "common/json.h"
#include "common/outbuf.h"
#include "testlib.h"

/* Runs fn against a kt_out on a temporary file; returns what it wrote. */
static char *capture(void (*fn)(struct ktrace_out *o))
{
	char path[] = "/tmp/ktrace-json-XXXXXX";
	int fd = mkstemp(path);
	struct ktrace_out *o = kt_out_new(-1);
	char *buf = calloc(1, 4096);
	ssize_t n;

	if (fd < 0 || !o || !buf)
		abort();
	o->fd = fd;
	kt_out_reset(o);
	fn(o);
	kt_out_flush(o);
	n = pread(fd, buf, 4095, 0);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(path);
	free(o);
	return buf;
}

static void write_escapes(struct ktrace_out *o)
{
	/* quote, backslash, controls, DEL, valid UTF-8 (é, €, 😀), then invalid bytes:
	 * a lone 0xff, a truncated sequence, an overlong '/', a surrogate */
	static const char s[] = "q\"b\\n\nt\tc\x01\x1f\x7f|\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|"
				"\xff|\xe2\x82|\xc0\xaf|\xed\xa0\x80";

	kt_json_write_string(o, s, sizeof(s) - 1);
}

static void json_string_escaping(void)
{
	char *got = capture(write_escapes);

	/* valid UTF-8 kept; controls, DEL and each invalid byte escaped */
	CHECK_STR(got, "\"q\\\"b\\\\n\\nt\\tc\\u0001\\u001f\\u007f|\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|"
		       "\\u00ff|\\u00e2\\u0082|\\u00c0\\u00af|\\u00ed\\u00a0\\u0080\"");
	free(got);
}

static void write_doc(struct ktrace_out *o)
{
	struct kt_json j;

	kt_json_init(&j, o, 2);
	kt_json_begin_object(&j, false);
	kt_json_key_cstr(&j, "a");
	kt_json_u64(&j, UINT64_MAX);
	kt_json_key_cstr(&j, "b");
	kt_json_begin_array(&j, true);
	kt_json_i64(&j, INT64_MIN);
	kt_json_i64(&j, 0);
	kt_json_string(&j, "x", 1);
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "c");
	kt_json_begin_array(&j, false);
	kt_json_begin_object(&j, false);
	kt_json_end_object(&j);
	kt_json_bool(&j, true);
	kt_json_null(&j);
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "d");
	kt_json_begin_array(&j, false);
	kt_json_end_array(&j);
	kt_json_end_object(&j);
	kt_json_finish(&j);
}

static void json_layout(void)
{
	char *got = capture(write_doc);

	CHECK_STR(got, "{\n"
		       "  \"a\": 18446744073709551615,\n"
		       "  \"b\": [-9223372036854775808, 0, \"x\"],\n"
		       "  \"c\": [\n"
		       "    {},\n"
		       "    true,\n"
		       "    null\n"
		       "  ],\n"
		       "  \"d\": []\n"
		       "}\n");
	free(got);
}

static void write_compact(struct ktrace_out *o)
{
	struct kt_json j;

	kt_json_init(&j, o, 0);
	kt_json_begin_object(&j, false);
	kt_json_key_cstr(&j, "k");
	kt_json_begin_array(&j, false);
	kt_json_u64(&j, 1);
	kt_json_u64(&j, 2);
	kt_json_end_array(&j);
	kt_json_key(&j, "\"", 1);
	kt_json_string(&j, "", 0);
	kt_json_end_object(&j);
}

static void json_compact(void)
{
	char *got = capture(write_compact);

	CHECK_STR(got, "{\"k\":[1,2],\"\\\"\":\"\"}");
	free(got);
}

int main(void)
{
	PLAN(3);
	RUN(json_string_escaping);
	RUN(json_layout);
	RUN(json_compact);
	return TEST_EXIT();
}
