// SPDX-License-Identifier: MIT
/* Unit tests of the common layer: errors, byte cursor, inputs, output buffer. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <ktrace/detect.h>
#include <ktrace/error.h>
#include <ktrace/input.h>

#include "common/cursor.h"
#include "common/outbuf.h"
#include "testlib.h"

static void error_format_with_offset(void)
{
	struct ktrace_error err = { 0 };
	char buf[300];

	CHECK_EQ(ktrace_error_at(&err, -EBADMSG, 0x1a2c, "chunk size %d exceeds file", 9999999),
		 -EBADMSG);
	CHECK_STR(ktrace_error_format(&err, buf, sizeof(buf)),
		  "offset 0x1a2c: chunk size 9999999 exceeds file");
	ktrace_error_set(&err, -ENOMEM, "%s", "");
	CHECK_STR(ktrace_error_format(&err, buf, sizeof(buf)), "Cannot allocate memory");
	CHECK_EQ(ktrace_error_set(NULL, -EINVAL, "x"), -EINVAL);
}

static void cursor_endianness_and_longs(void)
{
	static const uint8_t bytes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	struct kt_cursor c;
	uint64_t v64 = 0;
	uint32_t v32;
	uint16_t v16;

	kt_cursor_init(&c, bytes, sizeof(bytes), 0x100, NULL);
	CHECK_EQ(kt_cursor_u16(&c, &v16), 0);
	CHECK_EQ(v16, 0x0201);
	c.big_endian = true;
	CHECK_EQ(kt_cursor_u16(&c, &v16), 0);
	CHECK_EQ(v16, 0x0304);
	c.long_size = 4;
	CHECK_EQ(kt_cursor_long(&c, &v64), 0);
	CHECK_EQ(v64, 0x05060708);
	c.big_endian = false;
	CHECK_EQ(kt_cursor_u32(&c, &v32), 0);
	CHECK_EQ(v32, 0x0c0b0a09);
	CHECK_EQ(kt_cursor_left(&c), 0);
}

static void cursor_refuses_to_read_past_end(void)
{
	static const uint8_t bytes[16] = { 1, 2, 3, 'a', 'b' };
	struct ktrace_error err = { 0 };
	const char *s;
	struct kt_cursor c;
	uint64_t v = 0;
	char buf[300];

	kt_cursor_init(&c, bytes, 5, 0x40, &err);
	CHECK_EQ(kt_cursor_skip(&c, 1, NULL), 0);
	CHECK_EQ(kt_cursor_u64(&c, &v), -ENODATA);
	CHECK_EQ(c.pos, 1);  /* a failed read does not move */
	CHECK_STR(ktrace_error_format(&err, buf, sizeof(buf)),
		  "offset 0x41: truncated: u64 needs 8 bytes, 4 left");
	CHECK_EQ(kt_cursor_cstring(&c, &s, NULL, "name"), -ENODATA);
	CHECK_EQ(kt_cursor_seek(&c, 6), -ENODATA);
	CHECK_EQ(kt_cursor_seek(&c, 5), 0);
}

static void input_memory_and_stream(void)
{
	static const char text[] = "0123456789abcdef";
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	const uint8_t *p;
	int fds[2];

	CHECK_EQ(ktrace_input_from_memory(text, 16, "mem", &in, &err), 0);
	CHECK_EQ(ktrace_input_size(in), 16);
	CHECK_EQ(ktrace_input_get(in, 10, 6, &p, &err), 0);
	CHECK(p && !memcmp(p, "abcdef", 6));
	CHECK_EQ(ktrace_input_get(in, 10, 7, &p, &err), -ENODATA);
	CHECK_EQ(err.offset, 10);
	ktrace_input_close(in);

	/* A pipe: forward-only window. */
	CHECK_EQ(pipe(fds), 0);
	CHECK_EQ(write(fds[1], text, 16), 16);
	close(fds[1]);
	int saved_stdin = dup(0);

	dup2(fds[0], 0);
	close(fds[0]);
	CHECK_EQ(ktrace_input_open("-", &in, &err), 0);
	CHECK_EQ(ktrace_input_size(in), -1);
	CHECK_EQ(ktrace_input_peek(in, 2, 4, &p, &err), 4);
	CHECK(p && !memcmp(p, "2345", 4));
	CHECK_EQ(ktrace_input_get(in, 12, 4, &p, &err), 0);
	CHECK(p && !memcmp(p, "cdef", 4));
	CHECK_EQ(ktrace_input_get(in, 3, 1, &p, &err), -ESPIPE);
	CHECK_EQ(ktrace_input_peek(in, 16, 4, &p, &err), 0);
	ktrace_input_close(in);
	dup2(saved_stdin, 0);
	close(saved_stdin);
}

static void input_open_errors(void)
{
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;

	CHECK_EQ(ktrace_input_open("/nonexistent/x", &in, &err), -ENOENT);
	CHECK(in == NULL);
	CHECK_EQ(ktrace_input_open("/", &in, &err), -EISDIR);
}

static void outbuf_formats_numbers(void)
{
	char path[] = "/tmp/ktrace-outbuf-XXXXXX";
	int fd = mkstemp(path);
	struct ktrace_out *o = kt_out_new(-1);
	char buf[128] = { 0 };

	CHECK(fd >= 0 && o);
	o->fd = fd;
	kt_out_reset(o);
	kt_out_u64(o, 42, 5);
	kt_out_putc(o, '|');
	kt_out_i64(o, -7, 0);
	kt_out_putc(o, '|');
	kt_out_hex(o, 0xbeef, 8);
	kt_out_putc(o, '|');
	kt_out_u64(o, UINT64_MAX, 0);
	kt_out_printf(o, "|%s", "end");
	CHECK_EQ(kt_out_flush(o), 0);
	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) > 0);
	CHECK_STR(buf, "   42|-7|0000beef|18446744073709551615|end");
	close(fd);
	unlink(path);
	free(o);
}

static void detect_magic_numbers(void)
{
	static const uint8_t dat[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', '6', 0 };
	static const uint8_t v3[16] = { 0x00, 0x03, 0xaa, 0x55 };
	static const uint8_t kc[16] = { 0x07, 0x58, 0xa2, 0x59 };
	static const uint8_t junk[100] = { 0xff };

	CHECK_EQ(ktrace_detect_format(dat, sizeof(dat)), KTRACE_FORMAT_TRACEDAT);
	CHECK_EQ(ktrace_detect_format(v3, sizeof(v3)), KTRACE_FORMAT_DARWIN_V3);
	CHECK_EQ(ktrace_detect_format(kc, sizeof(kc)), KTRACE_FORMAT_KCDATA);
	CHECK_EQ(ktrace_detect_format(junk, sizeof(junk)), KTRACE_FORMAT_UNKNOWN);
	CHECK_EQ(ktrace_detect_format(junk, 0), KTRACE_FORMAT_UNKNOWN);
}

int main(void)
{
	PLAN(7);
	RUN(error_format_with_offset);
	RUN(cursor_endianness_and_longs);
	RUN(cursor_refuses_to_read_past_end);
	RUN(input_memory_and_stream);
	RUN(input_open_errors);
	RUN(outbuf_formats_numbers);
	RUN(detect_magic_numbers);
	return TEST_EXIT();
}
