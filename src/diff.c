// SPDX-License-Identifier: MIT
/* ktrace diff: what changed between two traces, beyond noise; a gate for CI. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/stream.h>
#include <ktrace/view.h>

#include "cli.h"

/* A --fail-on rule passed by a significant change. */
#define CLI_DIFF_FAILED 3

static const char diff_help[] =
"NAME\n"
"    ktrace diff - what changed between two traces, beyond noise\n"
"\n"
"SYNOPSIS\n"
"    ktrace diff [OPTIONS] BASE NEW\n"
"    ktrace diff [OPTIONS] --base FILE... --new FILE...\n"
"\n"
"DESCRIPTION\n"
"    Reads each file with its own event stream and model (docs/model.md), takes the\n"
"    figures 'ktrace summary' gives over the part of each trace where every CPU's\n"
"    data is complete, as rates per second, and compares the two sides: CPU time of\n"
"    processes, threads and CPUs; wakeup latency p50, p90, p99, max and wakeups per\n"
"    thread; time runnable, sleeping and blocked; IRQ and softirq count and time per\n"
"    handler, vector and CPU; syscall count and time per syscall and per process;\n"
"    events per name; lost events and the complete share of the span.\n"
"\n"
"    Threads and processes are matched by name, never by pid: a process by its name,\n"
"    a thread as PROCESS/NAME, the second and later threads of the same PROCESS/NAME\n"
"    (by tid) as PROCESS/NAME#2, #3... What one side only has is new or gone.\n"
"\n"
"    A change is significant when a Mann-Whitney U test gives p < 0.01 (--alpha) and\n"
"    it is at least 10% (--min-change): time and count metrics are tested on their\n"
"    rates in 32 to 64 equal windows of each trace (a side's runs pooled), latency\n"
"    quantiles on the two sides' wakeup latencies. docs/diff.md has the rules.\n"
"\n"
"    Exit status: 0; 1 an input could not be read (a damaged input: the diff of what\n"
"    could be read, then its error); 2 a usage error; 3 a --fail-on rule tripped.\n"
"\n"
"OPTIONS\n"
"    --base FILE, --new FILE  the sides' files (repeatable: several runs a side);\n"
"                         else the two positional files\n"
"    --json               every row, in the schema docs/diff.md gives (ktrace-diff/1)\n"
"    --top N              significant changes shown (default 20)\n"
"    --all                every figure compared, significant or not\n"
"    --min-change PCT     smallest change called significant (default 10)\n"
"    --alpha P            largest p-value called significant (default 0.01)\n"
"    --fail-on RULE       METRIC[:ENTITY]>PCT or METRIC[:ENTITY]<-PCT (repeatable):\n"
"                         exit 3 when a significant change of a row that METRIC\n"
"                         and ENTITY (glob patterns) match is above +PCT (>) or below\n"
"                         PCT (<), e.g. 'wakeup_latency.p99>20%', 'cpu_time:mysqld>10%'\n"
"    -F FILTER, -v, --cpu LIST, --events-dir DIR\n"
"                         as for 'ktrace summary', applied to every file\n"
"    -h, --help           show this manual\n"
"\n"
"EXAMPLES\n"
"    ktrace diff before.dat after.dat\n"
"    ktrace diff --base a1.dat --base a2.dat --new b1.dat --new b2.dat\n"
"    ktrace diff --fail-on 'wakeup_latency.p99>20%' before.dat after.dat\n";

enum { O_JSON = 300, O_TOP, O_ALL, O_BASE, O_NEW, O_MIN, O_ALPHA, O_FAIL, O_HELP };

static const struct option options[] = {
	{ "json",       no_argument,       NULL, O_JSON },
	{ "top",        required_argument, NULL, O_TOP },
	{ "all",        no_argument,       NULL, O_ALL },
	{ "base",       required_argument, NULL, O_BASE },
	{ "new",        required_argument, NULL, O_NEW },
	{ "min-change", required_argument, NULL, O_MIN },
	{ "alpha",      required_argument, NULL, O_ALPHA },
	{ "fail-on",    required_argument, NULL, O_FAIL },
	{ "cpu",        required_argument, NULL, CLI_OPT_CPU },
	{ "events-dir", required_argument, NULL, CLI_OPT_EVENTS_DIR },
	{ "help",       no_argument,       NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static int push(const char ***v, size_t *n, const char *s)
{
	const char **x = realloc(*v, (*n + 1) * sizeof(**v));

	if (!x)
		return -1;
	x[(*n)++] = s;
	*v = x;
	return 0;
}

static bool parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%")) || !(v >= lo && v <= hi))
		return false;
	*out = v;
	return true;
}

static int run_diff(int argc, char **argv)
{
	KTRACE_OPTS(ktrace_view_diff_opts, vo);
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct cli_stream_args sa = { 0 };
	struct ktrace_error err = { 0 };
	struct ktrace_out *out = NULL;
	const char **base = NULL, **neu = NULL, **fail = NULL;
	size_t nbase = 0, nnew = 0, nfail = 0;
	const char *err_path = NULL;
	bool failed = false;
	int opt, ret, status = CLI_FAILED;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, ":F:vh", options, NULL)) != -1) {
		ret = cli_stream_arg("diff", opt, optarg, &sa);
		if (ret == CLI_STREAM_ARG_TAKEN)
			continue;
		if (ret != CLI_STREAM_ARG_NOT_MINE) {
			status = ret;
			goto done;
		}
		switch (opt) {
		case O_JSON: vo.json = true; break;
		case O_ALL: vo.all = true; break;
		case O_TOP:
			if (cli_parse_uint(optarg, 1, 100000, &vo.top)) {
				status = cli_usage_error("diff", "--top takes 1 to 100000");
				goto done;
			}
			break;
		case O_MIN:
			if (!parse_double(optarg, 0, 1e9, &vo.min_change)) {
				status = cli_usage_error("diff", "--min-change takes a percentage, e.g. 10");
				goto done;
			}
			vo.has_min_change = true;
			break;
		case O_ALPHA:
			if (!parse_double(optarg, 0, 1, &vo.alpha) || strchr(optarg, '%')) {
				status = cli_usage_error("diff", "--alpha takes a p-value from 0 to 1, e.g. 0.01");
				goto done;
			}
			vo.has_alpha = true;
			break;
		case O_BASE:
		case O_NEW:
		case O_FAIL:
			if (push(opt == O_BASE ? &base : opt == O_NEW ? &neu : &fail,
				 opt == O_BASE ? &nbase : opt == O_NEW ? &nnew : &nfail, optarg)) {
				cli_errorf(NULL, "out of memory");
				goto done;
			}
			break;
		case 'h':
		case O_HELP:
			cli_print_help(&cli_diff);
			status = CLI_OK;
			goto done;
		default:
			status = cli_bad_option("diff", ":F:vh", argv);
			goto done;
		}
	}
	if (!nbase && !nnew) {
		if (argc - optind != 2) {
			status = cli_usage_error("diff", "two files (BASE NEW), or --base and --new");
			goto done;
		}
		if (push(&base, &nbase, argv[optind]) || push(&neu, &nnew, argv[optind + 1])) {
			cli_errorf(NULL, "out of memory");
			goto done;
		}
	} else if (!nbase || !nnew || optind < argc) {
		status = cli_usage_error("diff", !nbase || !nnew ? "--base and --new go together"
							      : "files are given with --base and --new");
		goto done;
	}
	cli_stream_args_apply(&sa, &so);
	vo.base = base;
	vo.nbase = nbase;
	vo.new_files = neu;
	vo.nnew = nnew;
	vo.stream = &so;
	vo.fail_on = fail;
	vo.nfail_on = nfail;
	out = ktrace_out_new(STDOUT_FILENO);
	if (!out) {
		cli_errorf(NULL, "out of memory");
		goto done;
	}
	ret = ktrace_view_diff(&vo, out, &failed, &err, &err_path);
	if (ret == -EINVAL && !err_path) {
		ktrace_out_free(out);
		out = NULL;
		status = cli_usage_error("diff", "%s", err.message);
		goto done;
	}
	ret = cli_out_finish(out, &err, ret);
	out = NULL;
	if (ret < 0) {
		cli_error(err_path, &err);
		goto done;
	}
	status = failed ? CLI_DIFF_FAILED : CLI_OK;
done:
	ktrace_out_free(out);
	cli_stream_args_free(&sa);
	free(base);
	free(neu);
	free(fail);
	return status;
}

const struct cli_command cli_diff = {
	.name = "diff",
	.summary = "what changed between two traces, beyond noise; a gate for CI",
	.help = diff_help,
	.run = run_diff,
};
