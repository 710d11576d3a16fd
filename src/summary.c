// SPDX-License-Identifier: MIT
/* ktrace summary: the figures a kernel engineer reads first, from the model. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/stream.h>
#include <ktrace/view.h>

#include "cli.h"

static const char summary_help[] =
"NAME\n"
"    ktrace summary - what used the CPUs, who waited and how long, what the\n"
"    interrupts and syscalls cost\n"
"\n"
"SYNOPSIS\n"
"    ktrace summary [OPTIONS] FILE...\n"
"\n"
"DESCRIPTION\n"
"    Reads every FILE (any format the event stream reads: trace-cmd trace.dat,\n"
"    raw ftrace ring-buffer pages, Darwin ktrace and kdebug files, KOFF buffers)\n"
"    and prints, for each, from the model of what the system did (thread states,\n"
"    data completeness, wakeup latency: see docs/model.md):\n"
"\n"
"    - the trace: format, CPUs, events, lost events, its span and from when every\n"
"      CPU's data is complete;\n"
"    - per CPU: busy, idle, IRQ and softirq shares of its known time;\n"
"    - threads and processes by CPU time; threads by wakeup latency (count, p50,\n"
"      p90, p99, max) and by time runnable, sleeping (S) and blocked (D);\n"
"    - IRQ handlers, softirq vectors and syscalls: count and time; syscalls per\n"
"      process;\n"
"    - events per name, and what could not be computed and why.\n"
"\n"
"    Every figure is the one 'ktrace sql' gives for the same question (its tables\n"
"    sched_slice, thread_state, wakeup_latency, slice). Latency quantiles are\n"
"    nearest-rank, within 0.4% (a histogram of 256 buckets per power of two).\n"
"    A thread still running, runnable, sleeping or blocked at the end of a trace was\n"
"    so until then (that time counts up to the end); IRQs and syscalls still open\n"
"    there are not counted. A damaged input gives the summary of what could be\n"
"    read, its error, and exit status 1.\n"
"\n"
"OPTIONS\n"
"    --json               JSON of the schema docs/summary.md gives (ktrace-summary/1)\n"
"    --top N              rows per list (default 10)\n"
"    --from TS, --to TS   only this window, in the trace's seconds as report prints\n"
"                         them (e.g. 1234.567890): intervals cut to it, records and\n"
"                         latencies in it\n"
"    -F FILTER            trace.dat: keep the records FILTER matches (trace-cmd\n"
"                         report's -F syntax); -v before it drops them instead\n"
"    --cpu LIST           keep these CPUs (e.g. 0,2-3)\n"
"    --events-dir DIR     raw ring-buffer pages: a tracefs events/ directory for\n"
"                         the event names and fields\n"
"    -h, --help           show this manual\n"
"\n"
"EXAMPLES\n"
"    ktrace summary trace.dat\n"
"    ktrace summary --json --top 5 trace.dat\n"
"    ktrace summary --from 1234.5 --to 1234.6 trace.dat\n";

enum { O_JSON = 300, O_TOP, O_FROM, O_TO, O_HELP };

static const struct option options[] = {
	{ "json",       no_argument,       NULL, O_JSON },
	{ "top",        required_argument, NULL, O_TOP },
	{ "from",       required_argument, NULL, O_FROM },
	{ "to",         required_argument, NULL, O_TO },
	{ "cpu",        required_argument, NULL, CLI_OPT_CPU },
	{ "events-dir", required_argument, NULL, CLI_OPT_EVENTS_DIR },
	{ "help",       no_argument,       NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static int run_summary(int argc, char **argv)
{
	KTRACE_OPTS(ktrace_view_summary_opts, vo);
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct cli_stream_args sa = { 0 };
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	struct ktrace_out *out = NULL;
	const char *err_path = NULL;
	int opt, ret, status = CLI_FAILED;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, ":F:vh", options, NULL)) != -1) {
		ret = cli_stream_arg("summary", opt, optarg, &sa);
		if (ret == CLI_STREAM_ARG_TAKEN)
			continue;
		if (ret != CLI_STREAM_ARG_NOT_MINE) {
			status = ret;
			goto done;
		}
		switch (opt) {
		case O_JSON: vo.json = true; break;
		case O_TOP:
			if (cli_parse_uint(optarg, 1, 100000, &vo.top)) {
				status = cli_usage_error("summary", "--top takes 1 to 100000");
				goto done;
			}
			break;
		case O_FROM:
		case O_TO:
			ret = opt == O_FROM ? cli_time_option("summary", optarg, &vo.has_from, &vo.from)
					    : cli_time_option("summary", optarg, &vo.has_to, &vo.to);
			if (ret) {
				status = ret;
				goto done;
			}
			break;
		case 'h':
		case O_HELP:
			cli_print_help(&cli_summary);
			status = CLI_OK;
			goto done;
		default:
			status = cli_bad_option("summary", ":F:vh", argv);
			goto done;
		}
	}
	if (optind >= argc) {
		status = cli_usage_error("summary", "no input file");
		goto done;
	}
	if (vo.has_from && vo.has_to && vo.to <= vo.from) {
		status = cli_usage_error("summary", "--to must be after --from");
		goto done;
	}
	cli_stream_args_apply(&sa, &so);
	/* (the inputs read on a CPU of their own while the model takes the records) */
	so.flags |= KTRACE_STREAM_READAHEAD;
	ret = ktrace_stream_open(&s, (const char *const *)argv + optind, (size_t)(argc - optind), &so,
				 &err, &err_path);
	if (ret) {
		cli_error(err_path, &err);
		status = ret == -EINVAL && !err_path ? CLI_USAGE : CLI_FAILED;
		goto done;
	}
	out = ktrace_out_new(STDOUT_FILENO);
	if (!out) {
		cli_errorf(NULL, "out of memory");
		goto done;
	}
	ret = ktrace_view_summary(s, &vo, out, &err);
	err_path = ret < 0 ? ktrace_stream_error_path(s) : NULL;
	ret = cli_out_finish(out, &err, ret);
	out = NULL;
	if (ret < 0) {
		/* a damaged input: its summary is out, then the error */
		cli_error(err_path, &err);
		goto done;
	}
	status = CLI_OK;
done:
	ktrace_out_free(out);
	ktrace_stream_close(s);
	cli_stream_args_free(&sa);
	return status;
}

const struct cli_command cli_summary = {
	.name = "summary",
	.summary = "what used the CPUs, who waited and how long, what IRQs and syscalls cost",
	.help = summary_help,
	.run = run_summary,
};
