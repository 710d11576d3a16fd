// SPDX-License-Identifier: MIT
/* ktrace info: what a trace file holds, in a few lines (or as JSON). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/detect.h>
#include <ktrace/input.h>
#include <ktrace/tracedat.h>

#include "cli.h"
#include "views/views.h"

static const char info_help[] =
"NAME\n"
"    ktrace info - summarise a trace file\n"
"\n"
"SYNOPSIS\n"
"    ktrace info [--json] [--raw-ts] [-i] FILE\n"
"\n"
"DESCRIPTION\n"
"    Reads FILE and prints what a user wants to know about it. The format is\n"
"    recognised by content:\n"
"\n"
"    trace-cmd trace.dat (versions 6 and 7)\n"
"        The file header (version, byte order, user and kernel long sizes, page\n"
"        size, compression), the traced machine (uname, CPU count, trace clock),\n"
"        the sizes of the metadata (header texts, event formats, kallsyms, printk\n"
"        formats, saved command lines), the options and sections, then for every\n"
"        buffer (the top one and each instance) and every CPU: the number of events,\n"
"        the first and last timestamps, and the events the ring buffer reported lost.\n"
"        Every record is visited, so this is also a complete check of the data.\n"
"        Timestamps are corrected as trace-cmd report corrects them (TSC2NSEC, DATE,\n"
"        OFFSET and TIME_SHIFT options) and shown in seconds.nanoseconds.\n"
"\n"
"    Other formats are recognised but not summarised yet.\n"
"\n"
"    A corrupt or truncated input is reported on standard error as\n"
"    'ktrace: FILE: offset 0x...: what went wrong', and the exit status is 1.\n"
"\n"
"OPTIONS\n"
"    -i FILE\n"
"        The input file (the same as giving FILE as an argument).\n"
"    -j, --json\n"
"        Print one JSON object. For trace.dat its keys include format, version,\n"
"        endian, long_size, kernel_long_size, page_size, compression, cpus, clock,\n"
"        uname and buffers: a list of { name (\"\" for the top buffer), clock,\n"
"        page_size, events, lost, cpus: [ { cpu, events, first_ts, last_ts, lost } ] }.\n"
"        Timestamps are integers in nanoseconds (null for a CPU without events);\n"
"        lost is -1 where the ring buffer said events were lost without a count.\n"
"    --raw-ts\n"
"        Show the timestamps as the ring buffer holds them, without corrections.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace info trace.dat\n"
"    ktrace info --json trace.dat | python3 -m json.tool\n"
"\n"
"EXIT STATUS\n"
"    0 when the whole input was read, 1 for unreadable, unsupported, corrupt or\n"
"    truncated input, 2 for usage errors.\n";

enum { OPT_RAW_TS = 256 };

static const struct option info_options[] = {
	{ "json",   no_argument,       NULL, 'j' },
	{ "raw-ts", no_argument,       NULL, OPT_RAW_TS },
	{ "input",  required_argument, NULL, 'i' },
	{ "help",   no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int run_info(int argc, char **argv)
{
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	enum ktrace_format format;
	const char *file = NULL;
	bool json = false, raw_ts = false;
	const uint8_t *head;
	struct kt_out *out;
	int64_t got;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:jh", info_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			file = optarg;
			break;
		case 'j':
			json = true;
			break;
		case OPT_RAW_TS:
			raw_ts = true;
			break;
		case 'h':
			cli_print_help(&cli_info);
			return CLI_OK;
		default:
			return cli_usage_error("info", "invalid option");
		}
	}
	if (optind < argc) {
		if (file || optind + 1 < argc)
			return cli_usage_error("info", "one input file, please");
		file = argv[optind];
	}
	if (!file)
		return cli_usage_error("info", "no input file");

	if (ktrace_input_open(file, &in, &err) < 0) {
		cli_error(file, &err);
		return CLI_FAILED;
	}
	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, &err);
	if (got < 0) {
		cli_error(file, &err);
		ktrace_input_close(in);
		return CLI_FAILED;
	}
	format = ktrace_detect_format(head, (size_t)got);
	out = malloc(sizeof(*out));
	if (!out) {
		cli_errorf(file, "out of memory");
		ktrace_input_close(in);
		return CLI_FAILED;
	}
	kt_out_init(out, STDOUT_FILENO);
	switch (format) {
	case KTRACE_FORMAT_TRACEDAT:
		ret = ktrace_view_tracedat_info(in, TRACEDAT_MAPPED_FILE |
						(raw_ts ? TRACEDAT_RAW_TS : 0), json, out, &err);
		break;
	case KTRACE_FORMAT_UNKNOWN:
		ret = ktrace_error_set(&err, -EBADMSG, got ? "unrecognised file format" : "empty file");
		break;
	default:
		ret = ktrace_error_set(&err, -ENOTSUP, "%s: not supported yet",
				       ktrace_format_name(format));
		break;
	}
	if (kt_out_flush(out) < 0 && out->error != -EPIPE && !ret)
		ret = ktrace_error_set(&err, out->error, "writing output: %s", strerror(-out->error));
	if (ret < 0)
		cli_error(file, &err);
	free(out);
	ktrace_input_close(in);
	return ret < 0 ? CLI_FAILED : CLI_OK;
}

const struct cli_command cli_info = {
	.name = "info",
	.summary = "summarise a trace file (headers, buffers, per-CPU event counts)",
	.help = info_help,
	.run = run_info,
};
