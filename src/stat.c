// SPDX-License-Identifier: MIT
/* ktrace stat: what tracefs is set to now, as trace-cmd stat shows it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/tracefs.h>
#include <ktrace/view.h>

#include "cli.h"

static const char stat_help[] =
"NAME\n"
"    ktrace stat - show what tracefs is set to now\n"
"\n"
"SYNOPSIS\n"
"    ktrace stat [-B NAME]... [-t] [-a] [-o] [--json]\n"
"\n"
"DESCRIPTION\n"
"    Prints the settings of the top ring buffer (or of the instances named) that\n"
"    differ from the kernel's defaults, as 'trace-cmd stat' prints them, line for\n"
"    line: the tracer, the events enabled (whole systems, then single events), event\n"
"    filters and triggers, function filters, the buffer size per CPU and in total,\n"
"    the trace clock, the CPU mask, the max latency, kprobes, uprobes and synthetic\n"
"    events, pid filters, whether tracing is on, the error log, and for the top\n"
"    buffer the instances there are. A stack tracer that is on is said last.\n"
"\n"
"    Nothing is changed: tracefs must be mounted (ktrace stat never mounts it).\n"
"\n"
"OPTIONS\n"
"    -B, --instance NAME\n"
"        This instance instead of the top buffer (repeatable).\n"
"    -t, --top\n"
"        With -B: the top buffer too (first).\n"
"    -a, --all\n"
"        The top buffer and every instance.\n"
"    -o, --options\n"
"        The trace options too (every one, 'noNAME' when off).\n"
"    --json\n"
"        One JSON object: tracefs, buffers (each with every setting, defaults\n"
"        included), instances, stack_tracer.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace stat\n"
"    ktrace stat -B mytrace -o\n"
"    ktrace stat -a --json | python3 -m json.tool\n"
"\n"
"EXIT STATUS\n"
"    0 when printed, 1 when tracefs cannot be read (not mounted, no such instance),\n"
"    2 for usage errors.\n";

enum { OPT_JSON = 256 };

static const struct option stat_options[] = {
	{ "instance", required_argument, NULL, 'B' },
	{ "top",      no_argument,       NULL, 't' },
	{ "all",      no_argument,       NULL, 'a' },
	{ "options",  no_argument,       NULL, 'o' },
	{ "json",     no_argument,       NULL, OPT_JSON },
	{ "help",     no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int run_stat(int argc, char **argv)
{
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_state *st = NULL;
	struct ktrace_out *out;
	const char **names = NULL;
	size_t n = 0;
	bool top = false, all = false, options = false, json = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "B:taoh", stat_options, NULL)) != -1) {
		switch (c) {
		case 'B':
			/* room for the top buffer in front */
			if (cli_grow((void **)&names, n + 1, sizeof(*names))) {
				free(names);
				return CLI_FAILED;
			}
			names[1 + n++] = optarg;
			break;
		case 't': top = true; break;
		case 'a': all = true; break;
		case 'o': options = true; break;
		case OPT_JSON: json = true; break;
		case 'h':
			free(names);
			cli_print_help(&cli_stat);
			return CLI_OK;
		default:
			free(names);
			return cli_usage_error("stat", "invalid option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		free(names);
		return cli_usage_error("stat", "unexpected argument '%s'", argv[optind]);
	}
	if (all && n) {
		free(names);
		return cli_usage_error("stat", "-a shows every instance: no -B with it");
	}
	if (names)
		names[0] = "";
	ret = ktrace_tracefs_state_read(NULL, names ? names + (top ? 0 : 1) : NULL, n + (top && n),
					all, &st, &err);
	free(names);
	if (ret < 0) {
		cli_error(NULL, &err);
		return CLI_FAILED;
	}
	out = ktrace_out_new(STDOUT_FILENO);
	if (!out) {
		ktrace_tracefs_state_free(st);
		cli_errorf(NULL, "out of memory");
		return CLI_FAILED;
	}
	ret = ktrace_view_tracefs_state(st, options, json, out, &err);
	ret = cli_out_finish(out, &err, ret);
	ktrace_tracefs_state_free(st);
	if (ret < 0) {
		cli_error(NULL, &err);
		return CLI_FAILED;
	}
	return CLI_OK;
}

const struct cli_command cli_stat = {
	.name = "stat",
	.summary = "show what tracefs is set to now (events, filters, buffers, tracer...)",
	.help = stat_help,
	.run = run_stat,
};
