// SPDX-License-Identifier: MIT
/*
 * Fuzzes the trace.dat analyses of `ktrace report`: -w (wake-up latencies, on the
 * report's lines: lib/sinks/report/report_latency.c) and --profile (per-task event times and
 * kernel stacks: lib/sinks/report/report_profile.c, plain, --by-comm and -G with a filter),
 * arbitrary bytes read as a trace.dat file, the output written to /dev/null.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/input.h>

#include <ktrace/view.h>

#include "common/outbuf.h"
#include "sinks/report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ktrace_stream_filter filters[] = {
		{ "sched.*,irq/.*,raw_syscalls/.*,kernel_stack", false },
	};
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	struct ktrace_out *out;
	int fd;

	if (size > (4u << 20))
		return 0;
	fd = open("/dev/null", O_WRONLY);
	out = kt_out_new(-1);
	if (fd < 0 || !out || ktrace_input_from_memory(data, size, "fuzz.dat", &in, &err) < 0) {
		free(out);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	out->fd = fd;
	for (int i = 0; i < 4; i++) {
		struct ktrace_view_text_file file = { "fuzz.dat", in, i == 3 ? filters : NULL, i == 3, 0 };
		struct ktrace_view_text_opts o = { .sz = sizeof(o), .files = &file, .nfiles = 1, .threads = 1 };
		struct ktrace_view_profile_opts po = { .sz = sizeof(po), .by_comm = i == 2, .global = i == 3 };

		out->fd = fd;
		kt_out_reset(out);
		if (i == 0)
			ktrace_view_tracedat_wakeup(&o, out, &err, NULL);
		else
			ktrace_view_tracedat_profile(&o, &po, out, &err, NULL);
		out->len = 0;
	}
	ktrace_input_close(in);
	free(out);
	close(fd);
	return 0;
}
