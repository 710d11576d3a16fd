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
#include <ktrace/ring.h>
#include <ktrace/tracedat.h>

#include "cli.h"
#include "darwin_cli.h"
#include <ktrace/view.h>

static const char info_help[] =
"NAME\n"
"    ktrace info - summarise a trace file\n"
"\n"
"SYNOPSIS\n"
"    ktrace info [--json] [OPTIONS] [-i] FILE\n"
"\n"
"DESCRIPTION\n"
"    Reads FILE (or standard input when FILE is '-'), recognises its format by\n"
"    content and prints what it holds.\n"
"\n"
"    trace-cmd trace.dat (versions 6 and 7)\n"
"        The file header (version, byte order, user and kernel long sizes, page size,\n"
"        compression), the traced machine (uname, CPU count, trace clock), the sizes\n"
"        of the metadata (header texts, event formats, kallsyms, printk formats, saved\n"
"        command lines; trace-cmd 3.4's BTF and modules files and last-boot info), the\n"
"        options (by name: an id nobody knows is skipped with a warning) and sections,\n"
"        then for every buffer (the top one and each instance) and every CPU: the\n"
"        number of events, the first and last timestamps, and the events the ring\n"
"        buffer reported lost. Every record is visited, so this is also a complete\n"
"        check of the data. Timestamps are corrected as trace-cmd report corrects them\n"
"        (TSC2NSEC, DATE, OFFSET and TIME_SHIFT options) and shown in\n"
"        seconds.nanoseconds. From a pipe, the file is copied to a temporary file in\n"
"        $TMPDIR (or /tmp) first.\n"
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
"    kcdata (stackshots, crash info, exit reasons...; raw, gzip'd, base64,\n"
"    compressed or in a Darwin chunk)\n"
"        The begin magic and root key, the buffer size and the wrapping removed,\n"
"        the numbers of items, arrays and containers and the nesting depth, where\n"
"        BUFFER_END is, items, array elements and containers counted by type\n"
"        (with names and bytes), and whether the buffer decodes under libkdd's\n"
"        rules (when it does not, the reason is the error).\n"
"\n"
"    raw ftrace ring-buffer dump (per_cpu/cpuN/trace_pipe_raw)\n"
"        The layout (sub-buffer size, kernel long, byte order; inferred as report\n"
"        does, or given with the options below), the numbers of sub-buffers (empty\n"
"        ones, and those all zero, apart) and events, the first and last event\n"
"        timestamps, the events lost (counted, and sub-buffers after a loss without\n"
"        a count) and events by id.\n"
"\n"
"    KOFF trace buffer or snapshot ('ktrace dump -o')\n"
"        The buffer file, entries and string table use, tracing state and mask,\n"
"        creation (and snapshot) time, the records (how many, without a known\n"
"        format, first and last time, processes and threads seen) and the counters\n"
"        (logged, shown, overwritten, unfinished, dropped, rejected, skipped).\n"
"\n"
"    An option that does not apply to the format read is refused (exit status 2).\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The input file (the same as giving FILE as an argument).\n"
"    -j, --json\n"
"        Print one JSON object. For trace.dat its keys include format, version,\n"
"        endian, long_size, kernel_long_size, page_size, compression, cpus, clock,\n"
"        uname and buffers: a list of { name (\"\" for the top buffer), clock,\n"
"        page_size, events, lost, cpus: [ { cpu, events, first_ts, last_ts, lost } ] }.\n"
"        Timestamps are integers in nanoseconds (null for a CPU without events);\n"
"        lost is -1 where the ring buffer said events were lost without a count.\n"
"        Also btf_size and modules_size (-1: none), last_boot_info [{instance,\n"
"        text}] and option_list [{id, name (null: unknown), size, offset}].\n"
"        For Darwin data its keys include format, version,\n"
"        events, threads, cpus, timebase {numer, denom}, first_event, last_event\n"
"        and chunks [{tag, name, major, minor, offset, size}], and error (null or\n"
"        the message of the problem that stopped the reading).\n"
"        For kcdata its keys are format, begin_magic, begin_type, root_key, size,\n"
"        wrapping, items, arrays, containers, max_depth, end_offset,\n"
"        trailing_bytes, types [{type, name, kind, count, bytes}], decodes, error.\n""        For raw pages: format (\"ftrace-pages\"), file, size, page_size,\n"
"        long_size, endian, sub_buffers, empty_sub_buffers, zero_sub_buffers (all\n"
"        bytes zero: never written, or padding), events, first_ts,\n"
"        last_ts, lost_counted, sub_buffers_after_loss,\n"
"        sub_buffers_after_uncounted_loss, event_ids [{id, events}], error. For KOFF\n"
"        data: format (\"koff-buffer\" or \"koff-snapshot\"), buffer_file, entries,\n"
"        enabled, mask, records, first_ns, last_ns, processes, threads, logged,\n"
"        shown, overwritten, unfinished, skipped, dropped, rejected, error.\n"
"        Strings keep valid UTF-8; control characters and bytes that are not UTF-8\n"
"        are escaped (\\u00NN).\n"
"    --raw-ts\n"
"        trace.dat: show timestamps as the ring buffer holds them, uncorrected.\n"
"    --pages, --page-size SIZE, --long-size 4|8, --endian little|big\n"
"        Raw ring-buffer dump: read the input as one, with this layout (as for\n"
"        'ktrace report').\n"
"    --raw-v0\n"
"        Darwin: the input is a headerless RAW_VERSION0 stream.\n"
"    --timebase NUMER/DENOM\n"
"        Darwin: convert ticks to nanoseconds with this timebase.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace info trace.dat\n"
"    ktrace info --json trace.dat | python3 -m json.tool\n"
"    ktrace info trace.ktrace\n"
"    ktrace info --json coreprofilesessiontap.bin | jq .events\n"
"    ktrace info stackshot.kcdata\n"
"    ktrace info --json /sys/kernel/tracing/per_cpu/cpu0/trace_pipe_raw\n"
"    cat trace.dat | ktrace info -\n"
"\n"
"EXIT STATUS\n"
"    0 when the whole input was read, 1 for unreadable, corrupt, truncated or\n"
"    unsupported input (the summary of what was read is still printed), 2 for\n"
"    usage errors.\n";

enum { OPT_JSON = 256, OPT_RAW_TS, OPT_PAGES, OPT_PAGE_SIZE, OPT_LONG_SIZE, OPT_ENDIAN };

static const struct option info_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "raw-ts", no_argument, NULL, OPT_RAW_TS },
	{ "pages",     no_argument,       NULL, OPT_PAGES },
	{ "page-size", required_argument, NULL, OPT_PAGE_SIZE },
	{ "long-size", required_argument, NULL, OPT_LONG_SIZE },
	{ "endian",    required_argument, NULL, OPT_ENDIAN },
	{ "input", required_argument, NULL, 'i' },
	{ "help", no_argument, NULL, 'h' },
	{ "raw-v0",    no_argument,       NULL, DARWIN_OPT_RAW_V0 },
	{ "timebase",  required_argument, NULL, DARWIN_OPT_TIMEBASE },
	{ NULL, 0, NULL, 0 },
};

/* An option the detected format has no use for is refused, never ignored. */
static int check_options_apply(const struct cli_input *ci, const char *tracedat_opt,
			       const char *darwin_opt, const char *pages_opt)
{
	unsigned takes = ktrace_info_takes(ci->format);
	const char *bad = !(takes & KTRACE_TAKES_TRACEDAT) && tracedat_opt ? tracedat_opt
			  : !(takes & KTRACE_TAKES_DARWIN) && darwin_opt ? darwin_opt
			  : !(takes & KTRACE_TAKES_PAGES) && pages_opt ? pages_opt
			  : NULL;

	if (!bad)
		return CLI_OK;
	return cli_usage_error("info", "%s: option %s does not apply to %s", ci->file, bad,
			       ktrace_detect_format_name(ci->format));
}

static int run_info(int argc, char **argv)
{
	struct darwin_cli darwin = { 0 };
	struct ktrace_ring_layout layout = { 0, 0, -1 };
	struct ktrace_info_opts io = { .sz = sizeof(io) };
	struct cli_input ci;
	const char *file = NULL, *tracedat_opt = NULL, *darwin_opt = NULL, *pages_opt = NULL;
	int c, ret = 0, status;
	bool raw_ts = false, force_pages = false;
	unsigned long long v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:jh", info_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			file = optarg;
			break;
		case 'j':
		case OPT_JSON:
			darwin.view.json = true;
			break;
		case OPT_RAW_TS:
			raw_ts = true;
			tracedat_opt = "--raw-ts";
			break;
		case OPT_PAGES:
			force_pages = true;
			pages_opt = pages_opt ? pages_opt : "--pages";
			break;
		case OPT_PAGE_SIZE:
			if (cli_parse_size(optarg, &v) || v < 64 || v > (1ULL << 27) || (v & 7)) {
				ret = cli_usage_error("info", "invalid page size '%s'", optarg);
				goto done_usage;
			}
			layout.page_size = (size_t)v;
			force_pages = true;
			pages_opt = pages_opt ? pages_opt : "--page-size";
			break;
		case OPT_LONG_SIZE:
			if (strcmp(optarg, "4") && strcmp(optarg, "8")) {
				ret = cli_usage_error("info", "--long-size must be 4 or 8");
				goto done_usage;
			}
			layout.long_size = atoi(optarg);
			force_pages = true;
			pages_opt = pages_opt ? pages_opt : "--long-size";
			break;
		case OPT_ENDIAN:
			if (strcmp(optarg, "little") && strcmp(optarg, "big")) {
				ret = cli_usage_error("info", "--endian must be little or big");
				goto done_usage;
			}
			layout.big_endian = !strcmp(optarg, "big");
			force_pages = true;
			pages_opt = pages_opt ? pages_opt : "--endian";
			break;
		case DARWIN_OPT_RAW_V0:
		case DARWIN_OPT_TIMEBASE:
			darwin_opt = darwin_opt ? darwin_opt
				     : c == DARWIN_OPT_RAW_V0 ? "--raw-v0" : "--timebase";
			if ((ret = darwin_cli_option(&darwin, "info", c, optarg)))
				goto done_usage;
			break;
		case 'h':
			cli_print_help(&cli_info);
			return CLI_OK;
		default:
			ret = cli_bad_option("info", "i:jh", argv);
			goto done_usage;
		}
	}
	if (optind < argc) {
		if (file || optind + 1 < argc) {
			ret = cli_usage_error("info", "one input file, please");
			goto done_usage;
		}
		file = argv[optind];
	}
	if (!file) {
		ret = cli_usage_error("info", "no input file");
		goto done_usage;
	}
	if (force_pages && darwin.raw_v0) {
		ret = cli_usage_error("info", "%s and --raw-v0 ask for two different formats",
				      pages_opt);
		goto done_usage;
	}
	if ((status = cli_input_open(&ci, file)))
		goto done;
	if (darwin.raw_v0)
		ci.format = KTRACE_FORMAT_DARWIN_RAW;
	if (force_pages)
		ci.format = KTRACE_FORMAT_FTRACE_PAGES;
	if ((ret = check_options_apply(&ci, tracedat_opt, darwin_opt, pages_opt))) {
		cli_out_finish(ci.out, &ci.err, 0);
		ktrace_input_close(ci.in);
		goto done_usage;
	}
	io.format = ci.format;
	io.json = darwin.view.json;
	io.raw_ts = raw_ts;
	io.layout = &layout;
	darwin_cli_ready(&darwin);
	io.darwin = &darwin.view;
	ret = ktrace_info(ci.in, &io, ci.out, &ci.err);
	status = cli_input_finish(&ci, ret);
done:
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
