// SPDX-License-Identifier: MIT
/* Inputs: names, mapped data, and a pipe made addressable by ktrace_input_spool. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/input.h>

#include "testlib.h"

static void names_and_data(void)
{
	static const unsigned char bytes[] = "\x17\x08\x44tracing6";
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;

	CHECK_EQ(ktrace_input_from_memory(bytes, sizeof(bytes) - 1, "mem", &in, &err), 0);
	if (!in)
		return;
	CHECK_STR(ktrace_input_name(in), "mem");
	CHECK(ktrace_input_is_mapped(in));
	CHECK(ktrace_input_data(in) != NULL && !memcmp(ktrace_input_data(in), bytes, 11));
	CHECK_EQ(ktrace_input_spool(in, &err), 0);      /* mapped: nothing to do */
	ktrace_input_close(in);

	CHECK_EQ(ktrace_input_open("examples/sched_demo.dat", &in, &err), 0);
	if (!in)
		return;
	CHECK_STR(ktrace_input_name(in), "examples/sched_demo.dat");
	CHECK(ktrace_input_data(in) != NULL && !memcmp(ktrace_input_data(in), bytes, 10));
	ktrace_input_close(in);
}

static void spool_a_pipe(void)
{
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	unsigned char data[3000];
	char path[64];
	int fds[2];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7);
	CHECK_EQ(pipe(fds), 0);
	CHECK_EQ(write(fds[1], data, sizeof(data)), sizeof(data));
	close(fds[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[0]);
	CHECK_EQ(ktrace_input_open(path, &in, &err), 0);
	if (!in) {
		close(fds[0]);
		return;
	}
	CHECK(!ktrace_input_is_mapped(in));
	CHECK(ktrace_input_data(in) == NULL);
	CHECK_EQ(ktrace_input_size(in), -1);
	CHECK_EQ(ktrace_input_spool(in, &err), 0);
	CHECK(ktrace_input_is_mapped(in));
	CHECK_EQ(ktrace_input_size(in), sizeof(data));
	CHECK(ktrace_input_data(in) && !memcmp(ktrace_input_data(in), data, sizeof(data)));
	ktrace_input_close(in);
	close(fds[0]);
}

int main(void)
{
	PLAN(2);
	RUN(names_and_data);
	RUN(spool_a_pipe);
	return tl_failed_cases != 0;
}
