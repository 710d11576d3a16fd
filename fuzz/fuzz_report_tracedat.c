// SPDX-License-Identifier: MIT
/*
 * Fuzzes `ktrace report` for trace.dat files (lib/sinks/report/report_tracedat_text.c): arbitrary
 * bytes read as a trace.dat file and reported, written to /dev/null, the way trace-cmd
 * report would with several option sets: the default lines; -R -l --debug --ts-diff
 * with -F filters (one negative), -I and a CPU list; -t with three threads; two threads
 * without filters (each passes over the other's blocks); and the
 * listings (--stat, --cpus with first and last events, -E, -P, -f).
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

static void run(struct ktrace_input *in, struct ktrace_view_text_opts *o,
		const struct ktrace_stream_filter *filters, size_t nfilters, struct ktrace_out *out)
{
	struct ktrace_view_text_file file = { "fuzz.dat", in, filters, nfilters, 0 };
	struct ktrace_error err = { 0 };

	o->files = &file;
	o->nfiles = 1;
	kt_out_reset(out);
	ktrace_view_tracedat_text(o, out, &err, NULL);
	out->len = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ktrace_stream_filter filters[] = {
		{ "sched.*,irq/.*: prev_pid > 0 || COMM =~ \"a\" || (CPU == 1 && !(common_flags & 1))", false },
		{ ".*", false },
		{ "sched_wakeup: pid == 0", true },
	};
	static const int cpus[] = { 0, 1, 3 };
	static const enum ktrace_view_text_mode listings[] = {
		KTRACE_VIEW_TEXT_STAT, KTRACE_VIEW_TEXT_CPUS, KTRACE_VIEW_TEXT_EVENTS,
		KTRACE_VIEW_TEXT_PRINTK, KTRACE_VIEW_TEXT_FUNCS, KTRACE_VIEW_TEXT_UNAME,
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
	{
		struct ktrace_view_text_opts o = { .sz = sizeof(o), .threads = 1 };

		run(in, &o, NULL, 0, out);
	}
	{
		struct ktrace_view_text_opts o = { .sz = sizeof(o), .threads = 1, .raw = true, .latency = true,
						  .debug = true, .ts_diff = true, .no_irqs = true,
						  .cpus = cpus, .ncpus = 3 };

		run(in, &o, filters, 3, out);
	}
	{
		/* latency columns of records without text (unknown events), not raw */
		struct ktrace_view_text_opts o = { .sz = sizeof(o), .threads = 2, .latency = true };

		run(in, &o, NULL, 0, out);
	}
	{
		struct ktrace_view_text_opts o = { .sz = sizeof(o), .threads = 3, .nsec = true };

		run(in, &o, filters + 1, 1, out);
	}
	{
		/* unfiltered: each thread passes over the other's blocks (tracedat_iter_skip) */
		struct ktrace_view_text_opts o = { .sz = sizeof(o), .threads = 2 };

		run(in, &o, NULL, 0, out);
	}
	for (size_t i = 0; i < sizeof(listings) / sizeof(listings[0]); i++) {
		struct ktrace_view_text_opts o = { .sz = sizeof(o), .threads = 1, .mode = listings[i],
						  .first_event = true, .last_event = true };

		run(in, &o, NULL, 0, out);
	}
	ktrace_input_close(in);
	free(out);
	close(fd);
	return 0;
}
