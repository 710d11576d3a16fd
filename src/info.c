// SPDX-License-Identifier: MIT
/* ktrace info: a summary of a trace file (format, header fields, counts), any format. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/detect.h>
#include <ktrace/input.h>

#include "cli.h"
#include "darwin_cli.h"
#include "views/views.h"

static const char info_help[] =
"NAME\n"
"    ktrace info - summarise a trace file\n"
"\n"
"SYNOPSIS\n"
"    ktrace info [--json] [OPTIONS] FILE\n"
"\n"
"DESCRIPTION\n"
"    Reads FILE (or standard input when FILE is '-'), recognises its format by\n"
"    content and prints what it holds.\n"
"\n"
"    Darwin ktrace file (V3) or kdebug raw stream (V0/V1/V2)\n"
"        The format and flavour, header versions, word size, timebase (and the\n"
"        tick frequency of V2 streams), wall time, the number of events, threads\n"
"        (non-zero entries of the thread map) and CPUs (CPU map entries, else the\n"
"        distinct CPUs seen in events), the first and last events, the duration,\n"
"        TRACE_LOST_EVENTS markers and events out of time order, and for V3 files\n"
"        the list of chunks (tag, version, offset, size). Every event is read, so a\n"
"        corrupt file is reported.\n"
"\n"
"    Other formats are not supported by this command yet.\n"
"\n"
"OPTIONS\n"
"    --json\n"
"        Print one JSON object. For Darwin data its keys include format, version,\n"
"        events, threads, cpus, timebase {numer, denom}, first_event, last_event\n"
"        and chunks [{tag, name, major, minor, offset, size}], and error (null or\n"
"        the message of the problem that stopped the reading).\n"
"    --raw-v0\n"
"        Darwin: the input is a headerless RAW_VERSION0 stream.\n"
"    --timebase NUMER/DENOM\n"
"        Darwin: convert ticks to nanoseconds with this timebase.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace info trace.ktrace\n"
"    ktrace info --json coreprofilesessiontap.bin | jq .events\n"
"\n"
"EXIT STATUS\n"
"    0 when the whole input was read, 1 for unreadable, corrupt, truncated or\n"
"    unsupported input (the summary of what was read is still printed), 2 for\n"
"    usage errors.\n";

enum { OPT_JSON = 256 };

static const struct option info_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	DARWIN_CLI_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static int run_info(int argc, char **argv)
{
	struct darwin_cli darwin = { 0 };
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	enum ktrace_format format;
	const char *file = NULL;
	const uint8_t *head;
	struct kt_out *out = NULL;
	int64_t got;
	int c, ret = 0, status = CLI_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", info_options, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			darwin.view.json = true;
			break;
		case DARWIN_OPT_RAW_V0:
		case DARWIN_OPT_TIMEBASE:
			if ((ret = darwin_cli_option(&darwin, "info", c, optarg)))
				goto done_usage;
			break;
		case 'h':
			cli_print_help(&cli_info);
			return CLI_OK;
		default:
			ret = cli_usage_error("info", "invalid option");
			goto done_usage;
		}
	}
	if (optind + 1 != argc) {
		ret = cli_usage_error("info", optind < argc ? "one input file, please"
							     : "no input file");
		goto done_usage;
	}
	file = argv[optind];
	if (ktrace_input_open(file, &in, &err) < 0) {
		cli_error(file, &err);
		goto done;
	}
	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, &err);
	if (got < 0) {
		cli_error(file, &err);
		goto done;
	}
	format = ktrace_detect_format(head, (size_t)got);
	if (darwin.raw_v0)
		format = KTRACE_FORMAT_DARWIN_RAW;
	out = malloc(sizeof(*out));
	if (!out) {
		cli_errorf(file, "out of memory");
		goto done;
	}
	kt_out_init(out, STDOUT_FILENO);
	switch (format) {
	case KTRACE_FORMAT_DARWIN_V3:
	case KTRACE_FORMAT_DARWIN_RAW:
		ret = ktrace_view_darwin_info(in, &darwin.view, out, &err);
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
	else
		status = CLI_OK;
done:
	free(out);
	ktrace_input_close(in);
	darwin_cli_free(&darwin);
	return status;
done_usage:
	darwin_cli_free(&darwin);
	return ret;
}

const struct cli_command cli_info = {
	.name = "info",
	.summary = "summarise a trace file: format, header, counts, chunks",
	.help = info_help,
	.run = run_info,
};
