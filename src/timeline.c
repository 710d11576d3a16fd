// SPDX-License-Identifier: MIT
/* ktrace timeline: a picture of the trace, as one self-contained HTML page or an SVG. */
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

static const char timeline_help[] =
"NAME\n"
"    ktrace timeline - draw a trace: one lane per CPU and per thread\n"
"\n"
"SYNOPSIS\n"
"    ktrace timeline [OPTIONS] FILE... -o OUT.html\n"
"    ktrace timeline [OPTIONS] FILE... -o OUT.svg [--from TS --to TS]\n"
"\n"
"DESCRIPTION\n"
"    Reads every FILE (any format the event stream reads: trace-cmd trace.dat,\n"
"    raw ftrace ring-buffer pages, Darwin ktrace and kdebug files, KOFF buffers;\n"
"    several files are merged in time order) and draws it:\n"
"\n"
"    - one lane per CPU with the running thread as coloured slices, from the\n"
"      context switches (Linux sched_switch, Darwin MACH_SCHED and\n"
"      MACH_STACK_HANDOFF); a thread keeps its colour everywhere, idle is blank;\n"
"    - below them one lane per thread, sorted by CPU time (the first --top shown,\n"
"      the others behind a \"more\" control): running, runnable (after a wakeup,\n"
"      sched_wakeup or MACH_MAKE_RUNNABLE, or a preemption) and blocked;\n"
"    - every other event as a tick on its CPU lane (and its thread's), with a\n"
"      density strip where ticks are too many to tell apart; lost events as red\n"
"      marks with their count. KOFF records have no CPU: one lane per thread.\n"
"\n"
"    The HTML page has everything inside (script, styles, data; no network, works\n"
"    from file://). Zoom with the wheel or + and -, pan by dragging or with the\n"
"    arrow keys, 0 shows everything. Hover or click a slice or tick to see the\n"
"    line 'ktrace report' prints for its record, and its thread's name, pid and\n"
"    CPU time. An OUT ending in .svg (or --svg) gives a static picture of the\n"
"    whole trace or of --from/--to, with the first --top thread lanes.\n"
"\n"
"    A damaged input is drawn up to the damage, which is marked, and the exit\n"
"    status is 1. OUT is written under a temporary name and renamed when\n"
"    complete ('-' writes to standard output; a FIFO or device is written to).\n"
"    The page's report lines wait in an anonymous file in $TMPDIR (or /tmp)\n"
"    until the end, where they go after the page's script (the browser draws\n"
"    the picture before it reads them).\n"
"\n"
"OPTIONS\n"
"    -o, --output OUT     the page (or .svg picture) to write (required)\n"
"    --svg                write SVG whatever OUT's name\n"
"    --from TS, --to TS   the window, in the trace's seconds as report prints them\n"
"                         (e.g. 1234.567890): what the SVG draws, the page's\n"
"                         first view\n"
"    --top N              thread lanes shown before \"more\" (default 16)\n"
"    --title TEXT         the page's title (default: the first FILE)\n"
"    -F FILTER            trace.dat: keep the records FILTER matches (trace-cmd\n"
"                         report's -F syntax); -v before it drops them instead\n"
"    --cpu LIST           keep these CPUs (e.g. 0,2-3)\n"
"    --pid PID, --comm NAME\n"
"                         trace.dat: keep these tasks (as report's; comma-separated\n"
"                         lists too)\n"
"    --events-dir DIR     raw ring-buffer pages: a tracefs events/ directory for\n"
"                         the event names and fields\n"
"    --threads N          the page: N threads make the report lines, each\n"
"                         reading the inputs (regular files) again; the first\n"
"                         also draws the lanes. Default: one per CPU (at most\n"
"                         4) for inputs of 16 MiB of record data or more (a\n"
"                         compressed trace.dat's once decompressed), else 1\n"
"    --codec C            the page: lz4 or deflate for its data, the report\n"
"                         lines and the records' columns (lz4 is several times\n"
"                         faster to make, the page about 1.3 times bigger).\n"
"                         Default: lz4 for 16 MiB of record data or more\n"
"    --lines-codec C      the same as --codec (its first name)\n"
"    -q, --quiet          no progress on standard error\n"
"    -h, --help           show this manual\n"
"\n"
"EXAMPLES\n"
"    ktrace timeline trace.dat -o trace.html\n"
"    ktrace timeline --cpu 0,1 -F 'sched_switch || irq_handler_entry' trace.dat -o t.html\n"
"    ktrace timeline trace.dat -o window.svg --from 1234.5 --to 1234.6\n";

enum { O_SVG = 300, O_FROM, O_TO, O_TOP, O_TITLE, O_THREADS, O_CODEC, O_HELP };

static const struct option options[] = {
	{ "output",     required_argument, NULL, 'o' },
	{ "svg",        no_argument,       NULL, O_SVG },
	{ "from",       required_argument, NULL, O_FROM },
	{ "to",         required_argument, NULL, O_TO },
	{ "top",        required_argument, NULL, O_TOP },
	{ "title",      required_argument, NULL, O_TITLE },
	{ "cpu",        required_argument, NULL, CLI_OPT_CPU },
	{ "pid",        required_argument, NULL, CLI_OPT_PID },
	{ "comm",       required_argument, NULL, CLI_OPT_COMM },
	{ "events-dir", required_argument, NULL, CLI_OPT_EVENTS_DIR },
	{ "threads",    required_argument, NULL, O_THREADS },
	{ "codec",      required_argument, NULL, O_CODEC },
	{ "lines-codec", required_argument, NULL, O_CODEC },   /* (its first name) */
	{ "quiet",      no_argument,       NULL, 'q' },
	{ "help",       no_argument,       NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcasecmp(s + a - b, suffix);
}

static int run_timeline(int argc, char **argv)
{
	KTRACE_OPTS(ktrace_view_timeline_opts, vo);
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct cli_stream_args sa = { 0 };
	const char *outpath = NULL, *err_path = NULL;
	bool quiet = false, drawn = false;
	struct ktrace_error err = { 0 };
	struct ktrace_out *out = NULL;
	struct cli_outfile o = { 0 };
	struct cli_progress progress;
	int opt, ret, drawn_ret, status = CLI_FAILED;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, ":o:F:vqh", options, NULL)) != -1) {
		ret = cli_stream_arg("timeline", opt, optarg, &sa);
		if (ret == CLI_STREAM_ARG_TAKEN)
			continue;
		if (ret != CLI_STREAM_ARG_NOT_MINE) {
			status = ret;
			goto done;
		}
		switch (opt) {
		case 'o': outpath = optarg; break;
		case O_SVG: vo.svg = true; break;
		case O_FROM:
		case O_TO:
			ret = opt == O_FROM ? cli_time_option("timeline", optarg, &vo.has_from, &vo.from)
					    : cli_time_option("timeline", optarg, &vo.has_to, &vo.to);
			if (ret) {
				status = ret;
				goto done;
			}
			break;
		case O_TOP:
			if (cli_parse_uint(optarg, 1, 100000, &vo.top_threads)) {
				status = cli_usage_error("timeline", "--top takes 1 to 100000");
				goto done;
			}
			break;
		case O_TITLE: vo.title = optarg; break;
		case O_THREADS:
			if (cli_parse_uint(optarg, 1, 8, &vo.threads)) {
				status = cli_usage_error("timeline", "--threads takes 1 to 8");
				goto done;
			}
			break;
		case O_CODEC:
			if (!strcmp(optarg, "lz4")) {
				vo.lines_codec = KTRACE_TIMELINE_LINES_LZ4;
			} else if (!strcmp(optarg, "deflate")) {
				vo.lines_codec = KTRACE_TIMELINE_LINES_DEFLATE;
			} else {
				status = cli_usage_error("timeline", "--codec takes lz4 or deflate");
				goto done;
			}
			break;
		case 'q': quiet = true; break;
		case 'h':
		case O_HELP:
			cli_print_help(&cli_timeline);
			status = CLI_OK;
			goto done;
		case ':':
			status = cli_usage_error("timeline", "option '%s' needs an argument", argv[optind - 1]);
			goto done;
		default:
			status = cli_usage_error("timeline", "invalid option '%s'", argv[optind - 1]);
			goto done;
		}
	}
	if (optind >= argc) {
		status = cli_usage_error("timeline", "no input file");
		goto done;
	}
	if (!outpath) {
		status = cli_usage_error("timeline", "no output: -o OUT.html or -o OUT.svg");
		goto done;
	}
	if (vo.has_from && vo.has_to && vo.to <= vo.from) {
		status = cli_usage_error("timeline", "--to must be after --from");
		goto done;
	}
	if (vo.svg && ends_with(outpath, ".html")) {
		status = cli_usage_error("timeline", "--svg with an output named .html");
		goto done;
	}
	if (ends_with(outpath, ".svg"))
		vo.svg = true;
	cli_stream_args_apply(&sa, &so);
	vo.paths = (const char *const *)argv + optind;
	vo.npaths = (size_t)(argc - optind);
	vo.stream = &so;
	cli_progress_init(&progress, "timeline", 0, quiet);
	vo.progress = cli_progress_records;
	vo.progress_arg = &progress;

	if (cli_outfile_open(&o, outpath))
		goto done;
	out = ktrace_out_new(o.fd);
	if (!out) {
		cli_errorf(NULL, "out of memory");
		cli_outfile_discard(&o);
		goto done;
	}
	ret = ktrace_view_timeline(&vo, out, &err, &err_path, &drawn);
	drawn_ret = ret;
	cli_progress_done(&progress);
	{
		int wret = ktrace_out_flush(out);

		if (wret && drawn) {
			cli_errorf(outpath, "%s", strerror(-wret));
			cli_outfile_discard(&o);
			goto done;
		}
	}
	if (!drawn) {
		/* an error of no input is the page's: writing it (a full disk) names OUT */
		bool writing = !err_path && (err.code == -ENOSPC || err.code == -EDQUOT ||
					     err.code == -EIO || err.code == -EFBIG);

		cli_error(writing ? outpath : err_path, &err);
		cli_outfile_discard(&o);
		goto done;
	}
	if (cli_outfile_commit(&o))
		goto done;
	ret = drawn_ret;
	if (ret) {
		cli_error(err_path, &err);   /* damaged input: drawn up to the damage */
		goto done;
	}
	status = CLI_OK;
done:
	ktrace_out_free(out);
	cli_stream_args_free(&sa);
	return status;
}

const struct cli_command cli_timeline = {
	.name = "timeline",
	.summary = "draw a trace per CPU and thread (HTML page or SVG)",
	.help = timeline_help,
	.run = run_timeline,
};
