// SPDX-License-Identifier: MIT
/* ktrace flamegraph: off-CPU and on-CPU flame graphs from the kernel stacks of a trace. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <ktrace/stream.h>
#include <ktrace/view.h>

#include "cli.h"

static const char flamegraph_help[] =
"NAME\n"
"    ktrace flamegraph - where threads waited, as a flame graph of kernel stacks\n"
"\n"
"SYNOPSIS\n"
"    ktrace flamegraph [OPTIONS] FILE... -o OUT.svg\n"
"    ktrace flamegraph [OPTIONS] FILE... -o OUT.folded\n"
"\n"
"DESCRIPTION\n"
"    Reads every FILE (trace.dat, or raw ring-buffer pages with --events-dir)\n"
"    recorded with kernel stacks ('ktrace record -T', trace-cmd record -T: an\n"
"    ftrace kernel_stack record after every event) and weighs the stacks:\n"
"\n"
"    --off-cpu (the default when sched_switch records have stacks): the time\n"
"    each thread spent switched out in a state other than runnable (S, D, and\n"
"    T, t, X, Z, P, I... as sched_switch prints prev_state), from the context\n"
"    switch that took it off its CPU to its wakeup (the model of 'ktrace sql'\n"
"    thread_state, docs/model.md), in nanoseconds, under the kernel stack of\n"
"    that switch. A switch-out without a stack counts under '[no stack]', so\n"
"    each thread's total is its thread_state time. Intervals that run into\n"
"    missing data are left out; one still open at the end counts up to the\n"
"    end (a thread that exited, X or Z, waits no more).\n"
"    --on-cpu (the default without such stacks): the stacks of every other\n"
"    event (sched_wakeup, irq_handler_entry...), one count each.\n"
"\n"
"    Each stack is a path 'THREAD;[LABEL];outermost;...;innermost' where\n"
"    THREAD is 'comm-TID' (--by), LABEL the state ([S], [D]...) or, on-CPU,\n"
"    the event ([sched_wakeup]). Frames are the functions of the trace's\n"
"    kallsyms, as report prints them (0xADDRESS where it has none); the\n"
"    innermost frames of the tracing itself (trace_event_raw_event_*,\n"
"    __traceiter_*...) are left out. In names, ';' and white space become '_',\n"
"    other bytes outside printable ASCII '?'.\n"
"\n"
"    OUT ending in .svg: a self-contained interactive SVG (no network; hover a\n"
"    frame for its time and share, click to zoom). Any other OUT: folded\n"
"    lines, 'frame;frame;...;frame VALUE', the input of flamegraph.pl, inferno\n"
"    and speedscope. OUT is written under a temporary name and renamed when\n"
"    complete ('-' writes folded lines to standard output).\n"
"\n"
"OPTIONS\n"
"    -o, --output OUT     the SVG or folded file to write (required)\n"
"    --off-cpu            time switched out, by the stack of the switch\n"
"    --on-cpu             the stacks of the other events, by count\n"
"    --pid LIST           only these threads or processes (ids, comma-separated)\n"
"    --comm LIST          only the threads of these names (comma-separated)\n"
"    --by thread|process|comm\n"
"                         the first frame: 'comm-TID' (default), 'comm-PID' of\n"
"                         the process, or 'comm' (threads of a name together)\n"
"    --svg, --folded      that output whatever OUT's name\n"
"    --title TEXT         the SVG's title\n"
"    --events-dir DIR     raw ring-buffer pages: a tracefs events/ directory for\n"
"                         the event names and fields\n"
"    -q, --quiet          no progress on standard error\n"
"    -h, --help           show this manual\n"
"\n"
"EXAMPLES\n"
"    ktrace record -T -e sched_switch -e sched_wakeup -o trace.dat -- make\n"
"    ktrace flamegraph trace.dat -o offcpu.svg\n"
"    ktrace flamegraph --comm make trace.dat -o make.folded\n"
"    ktrace flamegraph --on-cpu trace.dat -o events.svg\n";

enum { O_OFF = 300, O_ON, O_PID, O_COMM, O_BY, O_SVG, O_FOLDED, O_TITLE, O_EVENTS, O_HELP };

static const struct option options[] = {
	{ "output",     required_argument, NULL, 'o' },
	{ "off-cpu",    no_argument,       NULL, O_OFF },
	{ "on-cpu",     no_argument,       NULL, O_ON },
	{ "pid",        required_argument, NULL, O_PID },
	{ "comm",       required_argument, NULL, O_COMM },
	{ "by",         required_argument, NULL, O_BY },
	{ "svg",        no_argument,       NULL, O_SVG },
	{ "folded",     no_argument,       NULL, O_FOLDED },
	{ "title",      required_argument, NULL, O_TITLE },
	{ "events-dir", required_argument, NULL, O_EVENTS },
	{ "quiet",      no_argument,       NULL, 'q' },
	{ "help",       no_argument,       NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcasecmp(s + a - b, suffix);
}

/* "12,345" into pids (grown); 0 or CLI_USAGE. */
static int add_pids(const char *arg, int64_t **pids, size_t *n)
{
	const char *p = arg;

	for (;;) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(p, &end, 10);
		if (end == p || errno || v < 0 || (*end && *end != ','))
			return cli_usage_error("flamegraph", "invalid --pid '%s' (ids, comma-separated)", arg);
		if (cli_grow((void **)pids, *n, sizeof(**pids)))
			return cli_oom("flamegraph");
		(*pids)[(*n)++] = v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* "a,b" into comms (copies in owned); 0 or CLI_FAILED. */
static int add_comms(const char *arg, char ***comms, size_t *n)
{
	const char *p = arg;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char *c = strndup(p, len);

		if (!c || cli_grow((void **)comms, *n, sizeof(**comms))) {
			free(c);
			return cli_oom("flamegraph");
		}
		(*comms)[(*n)++] = c;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int run_flamegraph(int argc, char **argv)
{
	KTRACE_OPTS(ktrace_view_flamegraph_opts, fo);
	int64_t *pids = NULL;
	char **comms = NULL;
	size_t npids = 0, ncomms = 0;
	const char *outpath = NULL, *err_path = NULL;
	bool quiet = false, drawn = false, svg = false, folded = false;
	struct ktrace_error err = { 0 };
	struct ktrace_out *out = NULL;
	struct cli_outfile o = { 0 };
	struct cli_progress progress;
	int opt, ret, status = CLI_FAILED;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, ":o:qh", options, NULL)) != -1) {
		switch (opt) {
		case 'o': outpath = optarg; break;
		case O_OFF:
		case O_ON:
			if (fo.mode && fo.mode != (opt == O_OFF ? KTRACE_FLAMEGRAPH_OFF_CPU : KTRACE_FLAMEGRAPH_ON_CPU)) {
				status = cli_usage_error("flamegraph", "--off-cpu and --on-cpu together");
				goto done;
			}
			fo.mode = opt == O_OFF ? KTRACE_FLAMEGRAPH_OFF_CPU : KTRACE_FLAMEGRAPH_ON_CPU;
			break;
		case O_PID:
			if ((ret = add_pids(optarg, &pids, &npids))) {
				status = ret;
				goto done;
			}
			break;
		case O_COMM:
			if ((ret = add_comms(optarg, &comms, &ncomms))) {
				status = ret;
				goto done;
			}
			break;
		case O_BY:
			if (!strcmp(optarg, "thread")) {
				fo.by = KTRACE_FLAMEGRAPH_BY_THREAD;
			} else if (!strcmp(optarg, "process")) {
				fo.by = KTRACE_FLAMEGRAPH_BY_PROCESS;
			} else if (!strcmp(optarg, "comm")) {
				fo.by = KTRACE_FLAMEGRAPH_BY_COMM;
			} else {
				status = cli_usage_error("flamegraph", "--by takes thread, process or comm");
				goto done;
			}
			break;
		case O_SVG: svg = true; break;
		case O_FOLDED: folded = true; break;
		case O_TITLE: fo.title = optarg; break;
		case O_EVENTS: fo.events_dir = optarg; break;
		case 'q': quiet = true; break;
		case 'h':
		case O_HELP:
			cli_print_help(&cli_flamegraph);
			status = CLI_OK;
			goto done;
		default:
			status = cli_bad_option("flamegraph", ":o:qh", argv);
			goto done;
		}
	}
	if (optind >= argc) {
		status = cli_usage_error("flamegraph", "no input file");
		goto done;
	}
	if (!outpath) {
		status = cli_usage_error("flamegraph", "no output: -o OUT.svg or -o OUT.folded");
		goto done;
	}
	if (svg && folded) {
		status = cli_usage_error("flamegraph", "--svg and --folded together");
		goto done;
	}
	fo.svg = svg || (!folded && ends_with(outpath, ".svg"));
	fo.paths = (const char *const *)argv + optind;
	fo.npaths = (size_t)(argc - optind);
	fo.pids = pids;
	fo.npids = npids;
	fo.comms = (const char *const *)comms;
	fo.ncomms = ncomms;
	cli_progress_init(&progress, "flamegraph", 0, quiet);
	fo.progress = cli_progress_records;
	fo.progress_arg = &progress;

	if (cli_outfile_open(&o, outpath))
		goto done;
	out = ktrace_out_new(o.fd);
	if (!out) {
		cli_errorf(NULL, "out of memory");
		cli_outfile_discard(&o);
		goto done;
	}
	ret = ktrace_view_flamegraph(&fo, out, &err, &err_path, &drawn);
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
		cli_error(err_path, &err);
		cli_outfile_discard(&o);
		goto done;
	}
	if (cli_outfile_commit(&o))
		goto done;
	if (ret) {
		cli_error(err_path, &err);   /* damaged input: written up to the damage */
		goto done;
	}
	status = CLI_OK;
done:
	ktrace_out_free(out);
	free(pids);
	for (size_t i = 0; i < ncomms; i++)
		free(comms[i]);
	free(comms);
	return status;
}

const struct cli_command cli_flamegraph = {
	.name = "flamegraph",
	.summary = "off-CPU and on-CPU flame graphs of kernel stacks (SVG or folded)",
	.help = flamegraph_help,
	.run = run_flamegraph,
};
