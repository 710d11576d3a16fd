// SPDX-License-Identifier: MIT
/* ktrace report: print the contents of any supported trace file. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/detect.h>
#include <ktrace/ring.h>
#include <ktrace/input.h>

#include "cli.h"
#include "darwin_cli.h"
#include "report_tracedat.h"
#include <ktrace/view.h>

static const char report_help[] =
"NAME\n"
"    ktrace report - print the records of a trace file\n"
"\n"
"SYNOPSIS\n"
"    ktrace report [OPTIONS] [-i] FILE\n"
"    ktrace report [TRACE-CMD REPORT OPTIONS] [-i FILE]... [FILE]\n"
"\n"
"DESCRIPTION\n"
"    Reads FILE (or standard input when FILE is '-') and prints its records. The\n"
"    format is recognised by content:\n"
"\n"
"    trace-cmd trace.dat (versions 6 and 7, zstd or zlib compressed)\n"
"        What Debian's trace-cmd 3.1.6 'trace-cmd report' prints, byte for byte:\n"
"        'cpus=N', then one line per record: comm-pid, [CPU], time, event name\n"
"        and the event as libtraceevent 1.7.1 and its plugins format it (multi-line\n"
"        events, stack traces and dropped-events markers included), with the\n"
"        buffer name in front when the file has instance buffers, or the file\n"
"        name when several files are read (their records merged by time). With\n"
"        no FILE, ./trace.dat is read; from a pipe ('-'), the file is copied to a\n"
"        temporary file in $TMPDIR (or /tmp) first, up to KTRACE_SPOOL_MAX bytes\n"
"        (4G unless the environment sets it; 0: no limit). The command line is\n"
"        trace-cmd report's;\n"
"        the options are listed under TRACE.DAT OPTIONS. Big files are formatted\n"
"        on every CPU, in the same order as with one.\n"
"\n"
"    raw ftrace ring-buffer dump\n"
"        A copy of tracefs per_cpu/cpuN/trace_pipe_raw: a sequence of sub-buffers.\n"
"        ktrace infers the sub-buffer size (4 KiB, or larger with Linux 6.8+\n"
"        buffer_subbuf_size_kb), the kernel's long size and byte order from the\n"
"        sub-buffer headers, then lists every sub-buffer (file offset, timestamp,\n"
"        commit size, events lost before it) and every event in it (file offset of\n"
"        its header, timestamp, payload length, event id). A layout fits when the\n"
"        first sub-buffer and 3 in 4 of the others read consistently: a commit word\n"
"        holding only the size and the lost-events flags (sign-extended as 64-bit\n"
"        kernels write them), records that end exactly on the commit size, events of\n"
"        at least 8 bytes. The smallest sub-buffer size that fits wins; when two\n"
"        long sizes or byte orders fit equally well, ktrace says which and stops\n"
"        (exit status 1): give --long-size or --endian. A sub-buffer whose bytes\n"
"        are all zero (never written, or padding) counts neither way and is listed\n"
"        as empty; when no sub-buffer with a header sits at an odd index, the size\n"
"        twice as big is taken (the kernel zeroes what a sub-buffer does not use).\n"
"        Data that is all zero has no layout to infer: exit status 1, unless\n"
"        --page-size, --long-size and --endian are all given.\n"
"\n"
"    Darwin ktrace file (V3, magic 0x55aa0300 or kernel tag 0x1000) or kdebug\n"
"    raw stream (RAW_VERSION1 0x55aa0101, RAW_VERSION2 0x55aa0200, or V0 with\n"
"    --raw-v0)\n"
"        One line per kdebug event: time in seconds (ticks converted with the\n"
"        file's timebase), nanoseconds since the previous line, CPU, thread id,\n"
"        pid and process name from the thread map, the thread's name (as it named\n"
"        itself, TRACE_STRING_THREADNAME), function qualifier (START, END or -),\n"
"        event name (from -C trace codes files, else built in: MACH_DISPATCH,\n"
"        BSC_read, ..., or CLASS_SUBCLASS:0xCODE) and arg1..arg4 in hex; END\n"
"        events matched with a START of\n"
"        the same event on the same thread get elapsed_ns=. TRACE-class string\n"
"        events also show their text. Comment lines give the format, timebase,\n"
"        counts, and the chunks that are not events; stackshot chunks (kcdata) are\n"
"        decoded and their tasks listed with their thread counts.\n"
"\n"
"    kcdata (Apple kernel chunked data)\n"
"        Stackshots, corpse crash info, exit reasons, backtrace info, XNU POST test\n"
"        configurations, raw or gzip'd, base64-encoded, zlib-compressed (COMPRESSED\n"
"        begin magic) or behind a Darwin ktrace chunk header. The buffer is decoded\n"
"        with libkdd's rules and\n"
"        printed as an indented tree (--format text), as JSON (--format json) or\n"
"        as an XML property list like libkdd's 'kdd -p' (--format plist).\n"
"        --format info summarises the buffer (begin type, items by type,\n"
"        containers, sizes); --format items lists every item. A buffer that does\n"
"        not decode to the end is printed as far as it decodes (a complete\n"
"        document in each format), then the error.\n"
"\n"
"    A corrupt or truncated input is reported on standard error as\n"
"    'ktrace: FILE: offset 0x...: what went wrong' after everything readable has\n"
"    been printed, and the exit status is 1. An option that does not apply to the\n"
"    format read (--csv on raw pages or trace.dat, -t on Darwin data, --format on\n"
"    raw pages...) is refused with the format's name (exit status 2).\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The input file (the same as giving FILE as an argument).\n"
"    --pages\n"
"        Treat the input as a raw ring-buffer dump whatever its content looks like\n"
"        (a trace.dat file included). --page-size, --long-size and --endian imply it.\n"
"    --page-size SIZE\n"
"        Sub-buffer size of a raw dump, in bytes (suffixes k and M accepted).\n"
"    --long-size 4|8\n"
"        Size of the traced kernel's long: 8 for 64-bit kernels, 4 for 32-bit ones.\n"
"    --endian little|big\n"
"        Byte order of the traced kernel.\n"
"    --csv\n"
"        Darwin: comma-separated values with a header row (time_ns, delta_ns,\n"
"        cpu, thread, pid, process, debugid, class, subclass, code, func, event,\n"
"        arg1..arg4, elapsed_ns, thread_name).\n"
"    --durations\n"
"        Darwin: instead of the events, one line per START/END pair of the same\n"
"        event on the same thread, at its END: start time, duration in\n"
"        nanoseconds, the START's CPU, thread, pid, process, thread name, event\n"
"        name and arguments, then the END's arguments; then a summary by event\n"
"        (count, total, mean, min and max duration). With --csv: start_ns,\n"
"        duration_ns, cpu, thread, pid, process, thread_name, eventid, event,\n"
"        start_arg1..4, end_arg1..4.\n"
"    -C, --codes FILE\n"
"        Darwin: more event names from a trace codes file ('0xDEBUGID NAME' per\n"
"        line, as Apple's /usr/share/misc/trace.codes; also 'class 0xCC NAME' and\n"
"        'subclass 0xCC 0xSS NAME' lines). They come before the built-in names\n"
"        (every class xnu defines, its public subclasses, the common scheduler,\n"
"        VM, IPC, file-system, IOKit and network events, and the BSD system calls\n"
"        and Mach traps by number), which need no file. Repeatable; later files\n"
"        win.\n"
"    -f, --filter DESC\n"
"        Darwin: show only the events an Apple filter description selects (as\n"
"        ktrace(1) takes them): comma-separated ALL (every event), C<class>,\n"
"        S<class-subclass> (class in the high byte) and D<debugid>, numbers in\n"
"        decimal or 0x hex, C, S and D with a trailing r for END events only,\n"
"        e.g. C1,C0x25,S0x0521 or S0x0140r. Repeatable.\n"
"    --pid PID, --process NAME\n"
"        Darwin: show only the events of threads of this process (by the thread\n"
"        map and the TRACE events that name new threads). Repeatable.\n"
"    --raw-v0\n"
"        Darwin: the input is a headerless RAW_VERSION0 stream.\n"
"    --timebase NUMER/DENOM\n"
"        Darwin: convert ticks with this timebase instead of the file's (V0 and\n"
"        V1 streams carry none; 1/1 is assumed).\n"
"    --format FORMAT\n"
"        For kcdata: text (default), json, plist, info or items. For Darwin\n"
"        files: text (default) or json (one document: the file's format and\n"
"        timebase, its stackshots with their kcdata trees as --format json prints\n"
"        a kcdata buffer, then the events).\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"TRACE.DAT OPTIONS\n"
"    -i, --input FILE\n"
"        An input file; repeat it to read several files (-F filters given after\n"
"        the second and later -i belong to that file).\n"
"    -t  Timestamps in nanoseconds.\n"
"    -R  Raw event fields (name=value) instead of the formatted events.\n"
"    -l  Latency format: irqs-off, need-resched, hard/soft irq, preempt depth.\n"
"    -F FILTER\n"
"        Show only the events FILTER selects, in libtraceevent's syntax:\n"
"        EVENTS[:EXPRESSION], EVENTS a comma-separated list of event names,\n"
"        system/event pairs or regular expressions (sched, sched_.*, irq/.*);\n"
"        EXPRESSION compares fields (== != < > <= >=, =~ !~ with a regular\n"
"        expression), tests bits (&) and combines with && || ! and parentheses\n"
"        (&& and || group left to right); COMM and CPU are known to every\n"
"        event. Several -F: an event shown by any of them is shown; a stack\n"
"        trace after a shown event is shown too.\n"
"    -v  The -F filters that follow hide the events they select.\n"
"    -T, --filter-test\n"
"        Print the filters as libtraceevent rewrote them, and exit.\n"
"    -I, -S\n"
"        Hide events recorded in hard (-I) or soft (-S) interrupt context.\n"
"    --cpu LIST\n"
"        Show only these CPUs (1,3-5).\n"
"    --pid PID[,PID...]\n"
"        Show only the events of these tasks (common_pid, pid or next_pid).\n"
"    --comm NAME[,NAME...]\n"
"        The same for the tasks of these names (from the saved command lines).\n"
"    --cpus, --first-event, --last-event\n"
"        List the CPUs that have data (with their first or last timestamp).\n"
"    --stat, --uname, --version\n"
"        The kernel buffer statistics, the uname or the trace-cmd version the\n"
"        file recorded.\n"
"    -E  List the event formats (system:event).\n"
"    -P  List the printk formats.\n"
"    -f  List the kernel functions (kallsyms).\n"
"    -e, -p\n"
"        The file's byte order, or its page size, against the host's.\n"
"    --ts-diff\n"
"        The time since the previous line after each timestamp.\n"
"    --ts-offset NS\n"
"        Add NS nanoseconds to the timestamps of the file given before it.\n"
"    --raw-ts, --nodate\n"
"        Raw ring-buffer timestamps; ignore the file's date offset.\n"
"    -r EVENT\n"
"        Print the events EVENT names (a regular expression on the name or\n"
"        the system) with raw fields, as -R does. Repeatable.\n"
"    --boundary\n"
"        Mark where each sub-buffer starts.\n"
"    --debug\n"
"        The file version, sub-buffer starts, and each record's time delta,\n"
"        offset and size with the time-extend and padding entries after it.\n"
"    -w\n"
"        On each sched_switch line, the latency of the wake-up of the task\n"
"        switched to; after the records, the average, longest and shortest\n"
"        latency, as trace-cmd report -w prints them.\n"
"    --profile [--by-comm] [-G]\n"
"        Instead of the records: per task, each event's count and the times of\n"
"        the events that come in pairs (switches by state, wake-ups, interrupts,\n"
"        system calls) with their kernel stacks, as trace-cmd report --profile\n"
"        prints them. --by-comm merges the tasks of one name, -G counts\n"
"        interrupts per CPU.\n"
"    --threads N\n"
"        Print with N threads, each reading every record and printing the blocks\n"
"        of 4096 it gets to first (0, the default: one per CPU for 16 MiB of record\n"
"        data or more, a compressed file counted decompressed; 1: one thread). The\n"
"        output is the same.\n"
"    -q, -V, --verbose\n"
"        Accepted and ignored (-G too, without --profile). trace-cmd report's\n"
"        -n, -O, -H, -N, -L, --events, --event, --kallsyms, --check-events,\n"
"        --ts2secs, --ts-check and --align-ts are refused as not supported.\n"
"    Output to a terminal is written a few lines at a time; to a file or pipe in\n"
"    large blocks, with a progress line on standard error when that is a\n"
"    terminal. docs/report.md lists where the output differs from trace-cmd's.\n"
"\n"
"EXAMPLES\n"
"    ktrace report trace.dat\n"
"    ktrace report -t -F 'sched_switch: prev_state == 2' trace.dat\n"
"    ktrace report -F 'sched.*' -v -F 'sched_stat_.*' -i trace.dat\n"
"    ktrace report -i host.dat -i guest.dat --cpu 0\n"
"    ktrace report examples/sched_cpu0.trace_pipe_raw\n"
"    cat /sys/kernel/tracing/per_cpu/cpu0/trace_pipe_raw | ktrace report -\n"
"    ssh host cat trace.dat | ktrace report -\n"
"    ktrace report --pages --long-size 4 cpu0-32.raw\n"
"    ktrace report -f C0x01 --process launchd t.ktrace\n"
"    ktrace report --durations -f S0x040c capture.bin\n"
"    ktrace report -C my.codes -f C1,S0x0140,ALL t.ktrace\n"
"    ktrace report --csv capture.bin > events.csv\n"
"    ktrace report --format json stackshot.kcdata\n"
"    ktrace report --format plist corpse-sample > corpse.plist\n"
"\n"
"EXIT STATUS\n"
"    0 when the whole input was read, 1 for unreadable, corrupt or truncated input,\n"
"    2 for usage errors.\n";

enum { OPT_PAGES = 256, OPT_PAGE_SIZE, OPT_LONG_SIZE, OPT_ENDIAN, OPT_FORMAT };

static const struct option report_options[] = {
	{ "pages",     no_argument,       NULL, OPT_PAGES },
	{ "page-size", required_argument, NULL, OPT_PAGE_SIZE },
	{ "long-size", required_argument, NULL, OPT_LONG_SIZE },
	{ "endian",    required_argument, NULL, OPT_ENDIAN },
	{ "format",    required_argument, NULL, OPT_FORMAT },
	{ "input",     required_argument, NULL, 'i' },
	DARWIN_CLI_LONG_OPTIONS,
	{ "help",      no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The options above, then trace-cmd report's for trace.dat (report_tracedat.c) that
 * are not among them: those are named as not applying to the other formats. */
#define REPORT_SHORT "i:hC:f:"
static struct option all_options[sizeof(report_options) / sizeof(report_options[0]) + 64];
static char all_short[64];
static int n_report_options;

static void build_options(void)
{
	const struct option *td = report_tracedat_options();
	const char *s = report_tracedat_shortopts();
	size_t n = 0, k;

	while (report_options[n].name) {
		all_options[n] = report_options[n];
		n++;
	}
	n_report_options = (int)n;
	for (; td->name && n + 1 < sizeof(all_options) / sizeof(all_options[0]); td++) {
		for (k = 0; report_options[k].name && strcmp(report_options[k].name, td->name); k++)
			;
		if (!report_options[k].name)
			all_options[n++] = *td;
	}
	all_options[n] = (struct option){ NULL, 0, NULL, 0 };
	/* the letters trace-cmd's alone takes, each with its ':' or '::' */
	k = (size_t)snprintf(all_short, sizeof(all_short), "%s", REPORT_SHORT);
	for (s += *s == ':'; *s && k + 3 < sizeof(all_short); s++) {
		size_t colons = strspn(s + 1, ":");

		if (!strchr(REPORT_SHORT, *s)) {
			memcpy(all_short + k, s, 1 + colons);
			k += 1 + colons;
		}
		s += colons;
	}
	all_short[k] = 0;
}

struct report_opts {
	const char *file;
	const char *format;
	/* the first option given of each kind, to refuse those the input has no use for */
	char pages_opt[32], darwin_opt[32], format_opt[32], tracedat_opt[32];
	bool force_pages;
	struct ktrace_ring_layout layout;
	struct darwin_cli darwin;
};

static int parse_options(int argc, char **argv, struct report_opts *o)
{
	unsigned long long v;
	int c;

	o->layout.big_endian = -1;
	build_options();
	optind = 1;
	for (;;) {
		int longindex = -1;
		char name[32];

		c = getopt_long(argc, argv, all_short, all_options, &longindex);
		if (c == -1)
			break;
		if (longindex >= 0)
			snprintf(name, sizeof(name), "--%s", all_options[longindex].name);
		else
			snprintf(name, sizeof(name), "-%c", c);
		/* trace-cmd report's: for trace.dat files only */
		if (longindex >= n_report_options ||
		    (longindex < 0 && c != '?' && c != ':' && !strchr(REPORT_SHORT, c))) {
			if (!o->tracedat_opt[0])
				snprintf(o->tracedat_opt, sizeof(o->tracedat_opt), "%s", name);
			continue;
		}
		switch (c) {
		case OPT_PAGES: case OPT_PAGE_SIZE: case OPT_LONG_SIZE: case OPT_ENDIAN:
			if (!o->pages_opt[0])
				snprintf(o->pages_opt, sizeof(o->pages_opt), "%s", name);
			break;
		case 'C': case 'f': case DARWIN_OPT_CSV: case DARWIN_OPT_PID:
		case DARWIN_OPT_PROCESS: case DARWIN_OPT_RAW_V0: case DARWIN_OPT_TIMEBASE:
		case DARWIN_OPT_CODES: case DARWIN_OPT_FILTER: case DARWIN_OPT_DURATIONS:
			if (!o->darwin_opt[0])
				snprintf(o->darwin_opt, sizeof(o->darwin_opt), "%s", name);
			break;
		case OPT_FORMAT:
			snprintf(o->format_opt, sizeof(o->format_opt), "%s", name);
			break;
		}
		switch (c) {
		case 'i':
			o->file = optarg;
			break;
		case OPT_PAGES:
			o->force_pages = true;
			break;
		case OPT_PAGE_SIZE:
			if (cli_parse_size(optarg, &v) || v < 64 || v > (1ULL << 27) || (v & 7))
				return cli_usage_error("report", "invalid page size '%s'", optarg);
			o->layout.page_size = (size_t)v;
			o->force_pages = true;
			break;
		case OPT_LONG_SIZE:
			if (strcmp(optarg, "4") && strcmp(optarg, "8"))
				return cli_usage_error("report", "--long-size must be 4 or 8");
			o->layout.long_size = atoi(optarg);
			o->force_pages = true;
			break;
		case OPT_ENDIAN:
			if (!strcmp(optarg, "little"))
				o->layout.big_endian = 0;
			else if (!strcmp(optarg, "big"))
				o->layout.big_endian = 1;
			else
				return cli_usage_error("report", "--endian must be little or big");
			o->force_pages = true;
			break;
		case 'C': case 'f': case DARWIN_OPT_CSV: case DARWIN_OPT_PID:
		case DARWIN_OPT_PROCESS: case DARWIN_OPT_RAW_V0: case DARWIN_OPT_TIMEBASE:
		case DARWIN_OPT_CODES: case DARWIN_OPT_FILTER: case DARWIN_OPT_DURATIONS:
			if ((v = (unsigned long long)darwin_cli_option(&o->darwin, "report", c, optarg)))
				return (int)v;
			break;
		case OPT_FORMAT:
			o->format = optarg;
			break;
		case 'h':
			cli_print_help(&cli_report);
			exit(CLI_OK);
		default:
			return cli_bad_option("report", all_short, argv);
		}
	}
	if (optind < argc) {
		if (o->file || optind + 1 < argc)
			return cli_usage_error("report", "one input file, please");
		o->file = argv[optind];
	}
	if (!o->file)
		return cli_usage_error("report", "no input file");
	if (o->force_pages && o->darwin.raw_v0)
		return cli_usage_error("report", "%s and --raw-v0 ask for two different formats",
				       o->pages_opt);
	return CLI_OK;
}

/* An option the detected format has no use for is refused, never ignored. */
static int check_options_apply(const struct report_opts *o, const struct cli_input *ci)
{
	unsigned takes = ktrace_report_takes(ci->format);
	const char *bad = !(takes & KTRACE_TAKES_PAGES) && o->pages_opt[0] ? o->pages_opt
			  : !(takes & KTRACE_TAKES_DARWIN) && o->darwin_opt[0] ? o->darwin_opt
			  : !(takes & KTRACE_TAKES_FORMAT) && o->format_opt[0] ? o->format_opt
			  : !(takes & KTRACE_TAKES_TRACEDAT) && o->tracedat_opt[0] ? o->tracedat_opt
			  : NULL;

	if (!bad)
		return CLI_OK;
	return cli_usage_error("report", "%s: option %s does not apply to %s", ci->file, bad,
			       ktrace_detect_format_name(ci->format));
}

/* Does the command line ask for another format (raw pages with --pages, --page-size...,
 * a Darwin V0 stream with --raw-v0)? Then a file that looks like trace.dat is still read
 * as that. */
static bool asks_for_format(int argc, char **argv)
{
	static const char *const names[] = { "--pages", "--page-size", "--long-size", "--endian",
					     "--raw-v0" };

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
			size_t len = strlen(names[n]);

			if (!strncmp(argv[i], names[n], len) && (!argv[i][len] || argv[i][len] == '='))
				return true;
		}
	return false;
}

static int run_report(int argc, char **argv)
{
	struct report_opts opts = { 0 };
	struct ktrace_report_opts ro = { .sz = sizeof(ro) };
	struct cli_input ci;
	int ret;

	/* trace.dat files take trace-cmd report's options */
	if (!asks_for_format(argc, argv)) {
		ret = report_tracedat_main(argc, argv);
		if (ret >= 0)
			return ret;
	}
	ret = parse_options(argc, argv, &opts);
	if (ret || (ret = cli_input_open(&ci, opts.file))) {
		darwin_cli_free(&opts.darwin);
		return ret;
	}
	if (opts.force_pages)
		ci.format = KTRACE_FORMAT_FTRACE_PAGES;
	if (opts.darwin.raw_v0)
		ci.format = KTRACE_FORMAT_DARWIN_RAW;
	ro.format = ci.format;
	ro.layout = &opts.layout;
	darwin_cli_ready(&opts.darwin);
	ro.darwin = &opts.darwin.view;
	ro.output = opts.format;
	if ((ret = check_options_apply(&opts, &ci)) ||
	    (ktrace_report_check(&ro, &ci.err) < 0 &&
	     (ret = cli_usage_error("report", "%s", ci.err.message)))) {
		darwin_cli_free(&opts.darwin);
		cli_out_finish(ci.out, &ci.err, 0);
		ktrace_input_close(ci.in);
		return ret;
	}
	ret = ktrace_report(ci.in, &ro, ci.out, &ci.err);
	darwin_cli_free(&opts.darwin);
	return cli_input_finish(&ci, ret);
}

const struct cli_command cli_report = {
	.name = "report",
	.summary = "print the records of a trace file (any supported format)",
	.help = report_help,
	.run = run_report,
};
