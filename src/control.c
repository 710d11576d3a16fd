// SPDX-License-Identifier: MIT
/*
 * Tracing without a recorder: ktrace start (configure and turn tracing on, the data
 * stays in the ring buffers), stop, restart and clear (reset, which also handles the
 * leftovers of killed recordings, is in reset.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/tracefs.h>

#include "cli.h"
#include "record_cli.h"

static const char start_help[] =
"NAME\n"
"    ktrace start - start tracing without a recorder\n"
"\n"
"SYNOPSIS\n"
"    ktrace start [-B NAME] -e EVENT [-f FILTER] [-e EVENT]... [-v -e EVENT]...\n"
"                 [-p TRACER] [-T] [-O OPTION]... [-M CPUMASK] [-b KB] [-C CLOCK]\n"
"                 [-P PID]... [-c]\n"
"\n"
"DESCRIPTION\n"
"    Configures the top ring buffer (or instance NAME, created when it does not\n"
"    exist) with the options of ktrace record and turns tracing on, then exits: the\n"
"    kernel keeps writing events into its ring buffers, which keep the newest ones.\n"
"    'ktrace stop' stops tracing, 'ktrace extract' saves what the buffers hold into a\n"
"    trace.dat file, 'ktrace show' prints it as text, 'ktrace stat' shows the\n"
"    settings. Like trace-cmd start, but it needs only tracefs: it works where\n"
"    /proc/sys/kernel/ftrace_enabled cannot be written.\n"
"\n"
"    Every value start changes (tracing_on, events, filters, tracer, buffer size,\n"
"    clock, pid filter, CPU mask, options) is first saved in a state file, one per\n"
"    buffer, in $KTRACE_STATE_DIR or /run/ktrace: 'ktrace reset --restore' writes\n"
"    them back (and removes an instance start created). A second start on the same\n"
"    buffer keeps the values saved by the first one. The buffer is emptied first.\n"
"    The top buffer is refused while a ktrace record or stream records it, or while\n"
"    another process reads one of its trace_pipe files.\n"
"\n"
"    Unlike record and stream, start does not leave itself out of the trace: tracing\n"
"    goes on as its last step, so only its exit is traced, and the kernel keeps an\n"
"    exited process's id in set_event_notrace_pid, where it would hide whichever\n"
"    process gets that id next.\n"
"\n"
"OPTIONS\n"
"    As ktrace record's ('ktrace help record' tells each):\n"
"    -e, --event EVENT        -f, --filter FILTER      -v (the next -e disables)\n"
"    -p, --tracer TRACER      -O, --option OPTION      -T, --stacktrace\n"
"    -M, --cpumask CPUMASK    -b, --buffer-size KB     -C, --clock CLOCK\n"
"    -P, --pid PID            -c (follow forks)        -B, --instance NAME\n"
"    -s, --sleep USECS        --no-tgids               -q, --quiet\n"
"    -h, --help\n"
"\n"
"EXAMPLES\n"
"    ktrace start -e sched -e irq -b 8192; ./reproducer; ktrace stop\n"
"    ktrace extract -o repro.dat; ktrace reset --restore\n"
"    ktrace start -B slow -e 'block:*' -f 'nr_sector > 64'\n"
"\n"
"EXIT STATUS\n"
"    0 when tracing was started, 1 when the kernel refused a setting (nothing is left\n"
"    changed then) or tracefs cannot be written, 2 for usage errors.\n";

static const char stop_help[] =
"NAME\n"
"    ktrace stop - stop tracing (the data stays in the ring buffers)\n"
"\n"
"SYNOPSIS\n"
"    ktrace stop [-B NAME]... [-t] [-a]\n"
"\n"
"DESCRIPTION\n"
"    Turns tracing off (tracing_on 0) in the top buffer or the instances named; the\n"
"    events recorded stay in the buffers for 'ktrace extract' or 'ktrace show'.\n"
"\n"
"OPTIONS\n"
"    -B, --instance NAME\n"
"        This instance instead of the top buffer (repeatable).\n"
"    -t, --top\n"
"        With -B: the top buffer too.\n"
"    -a, --all\n"
"        The top buffer and every instance.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace stop\n"
"    ktrace stop -B mytrace\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 when tracefs cannot be written, 2 for usage errors.\n";

static const char restart_help[] =
"NAME\n"
"    ktrace restart - turn tracing back on after ktrace stop\n"
"\n"
"SYNOPSIS\n"
"    ktrace restart [-B NAME]... [-t] [-a]\n"
"\n"
"DESCRIPTION\n"
"    Turns tracing on (tracing_on 1) in the top buffer or the instances named,\n"
"    without changing anything else.\n"
"\n"
"OPTIONS\n"
"    -B, --instance NAME, -t, --top, -a, --all, -h, --help: as for ktrace stop.\n"
"\n"
"EXAMPLES\n"
"    ktrace stop; ktrace extract -o before.dat; ktrace restart\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 when tracefs cannot be written, 2 for usage errors.\n";

static const char clear_help[] =
"NAME\n"
"    ktrace clear - empty ring buffers\n"
"\n"
"SYNOPSIS\n"
"    ktrace clear [-B NAME]... [-t] [-a]\n"
"\n"
"DESCRIPTION\n"
"    Drops every event the top buffer (or the instances named) holds, and resets its\n"
"    counters (per_cpu/cpuN/stats). Tracing goes on if it was on.\n"
"\n"
"OPTIONS\n"
"    -B, --instance NAME, -t, --top, -a, --all, -h, --help: as for ktrace stop.\n"
"\n"
"EXAMPLES\n"
"    ktrace clear; ./reproducer; ktrace extract -o repro.dat\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 when tracefs cannot be written, 2 for usage errors.\n";

static int run_start(int argc, char **argv)
{
	struct record_args a;
	struct ktrace_error err = { 0 };
	int ret = record_args_parse("start", 0, argc, argv, &a);

	if (ret < 0) {
		cli_print_help(&cli_start);
		return CLI_OK;
	}
	if (ret)
		return ret;
	record_cli_leftovers(!a.o.instance);
	ret = ktrace_tracefs_start_tracing(&a.o, NULL, &err);
	if (ret < 0)
		cli_error(NULL, &err);
	else if (!a.quiet)
		fprintf(stderr, "ktrace: tracing %s%s; 'ktrace stop' stops it, 'ktrace extract' saves the "
			"data, 'ktrace reset --restore' puts tracefs back\n",
			a.o.instance ? "in instance " : "in the top buffer", a.o.instance ? a.o.instance : "");
	record_args_free(&a);
	return ret < 0 ? CLI_FAILED : CLI_OK;
}

static const struct option target_options[] = {
	{ "instance", required_argument, NULL, 'B' },
	{ "top",      no_argument,       NULL, 't' },
	{ "all",      no_argument,       NULL, 'a' },
	{ "help",     no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum action { A_STOP, A_RESTART, A_CLEAR };

static int run_target(enum action act, const struct cli_command *cmd, int argc, char **argv)
{
	struct ktrace_tracefs_target t = { 0 };
	struct ktrace_error err = { 0 };
	const char **names = NULL;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "B:tah", target_options, NULL)) != -1) {
		int got = cli_target_option(c, optarg, &t, &names);

		if (got < 0) {
			free(names);
			return CLI_FAILED;
		}
		if (got)
			continue;
		switch (c) {
		case 'h':
			free(names);
			cli_print_help(cmd);
			return CLI_OK;
		default:
			free(names);
			return cli_bad_option(cmd->name, "B:tah", argv);
		}
	}
	if (optind < argc) {
		free(names);
		return cli_usage_error(cmd->name, "unexpected argument '%s'", argv[optind]);
	}
	ret = cli_target_check(cmd->name, &t);
	if (ret) {
		free(names);
		return ret;
	}
	t.instances = names;
	switch (act) {
	case A_STOP: ret = ktrace_tracefs_set_tracing(&t, false, &err); break;
	case A_RESTART: ret = ktrace_tracefs_set_tracing(&t, true, &err); break;
	default: ret = ktrace_tracefs_clear(&t, &err); break;
	}
	free(names);
	if (ret < 0) {
		cli_error(NULL, &err);
		return CLI_FAILED;
	}
	return CLI_OK;
}

static int run_stop(int argc, char **argv)
{
	return run_target(A_STOP, &cli_stop, argc, argv);
}

static int run_restart(int argc, char **argv)
{
	return run_target(A_RESTART, &cli_restart, argc, argv);
}

static int run_clear(int argc, char **argv)
{
	return run_target(A_CLEAR, &cli_clear, argc, argv);
}

const struct cli_command cli_start = {
	.name = "start",
	.summary = "start tracing without a recorder (the data stays in the ring buffers)",
	.help = start_help,
	.run = run_start,
};

const struct cli_command cli_stop = {
	.name = "stop",
	.summary = "stop tracing (tracing_on 0)",
	.help = stop_help,
	.run = run_stop,
};

const struct cli_command cli_restart = {
	.name = "restart",
	.summary = "turn tracing back on",
	.help = restart_help,
	.run = run_restart,
};

const struct cli_command cli_clear = {
	.name = "clear",
	.summary = "empty ring buffers",
	.help = clear_help,
	.run = run_clear,
};
