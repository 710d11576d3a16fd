// SPDX-License-Identifier: MIT
/*
 * Tracing without a recorder: ktrace start (configure and turn tracing on, the data
 * stays in the ring buffers), stop, restart, clear, and reset (the kernel's defaults,
 * or with --restore what start found).
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
"\n"
"OPTIONS\n"
"    As ktrace record's ('ktrace help record'): -e, -f, -v, -p, -T, -O, -M, -b, -C,\n"
"    -P, -c, -B, and -q (nothing printed).\n"
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
"    -B NAME, -t, -a: as for ktrace stop.\n"
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
"    -B NAME, -t, -a: as for ktrace stop.\n"
"\n"
"EXAMPLES\n"
"    ktrace clear; ./reproducer; ktrace extract -o repro.dat\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 when tracefs cannot be written, 2 for usage errors.\n";

static const char reset_help[] =
"NAME\n"
"    ktrace reset - put tracefs back to its defaults, or to what ktrace start found\n"
"\n"
"SYNOPSIS\n"
"    ktrace reset [-B NAME]... [-t] [-a] [-d] [--restore]\n"
"\n"
"DESCRIPTION\n"
"    Puts the top buffer (or the instances named) back to the kernel's defaults, as\n"
"    'trace-cmd reset' does: tracing off, tracer nop, every event off, event filters\n"
"    and triggers removed, pid filters and function filters cleared, trace clock\n"
"    local, every CPU traced, max latency 0, the buffer emptied, the error log\n"
"    cleared, then tracing on again. Further than trace-cmd reset, the buffer size,\n"
"    sub-buffer size, buffer_percent and trace options are set to what a new\n"
"    instance gets (the kernel's defaults, read from an instance made for the\n"
"    purpose and removed at once). Resetting the top buffer also removes the dynamic\n"
"    events (kprobes, uprobes, synthetic events), as trace-cmd does.\n"
"\n"
"    With --restore, what 'ktrace start' saved for each buffer is written back instead\n"
"    (an instance it created is removed): tracefs is as it was before start.\n"
"    Either way the buffer's state file is then removed.\n"
"\n"
"OPTIONS\n"
"    -B, --instance NAME\n"
"        This instance instead of the top buffer (repeatable).\n"
"    -t, --top\n"
"        With -B: the top buffer too.\n"
"    -a, --all\n"
"        The top buffer and every instance; the instances are removed (with\n"
"        --restore: the buffers ktrace start saved are restored, instances it\n"
"        created removed, the others left alone).\n"
"    -d, --remove\n"
"        Remove the instances named (-B) after resetting them.\n"
"    --restore\n"
"        Write back what ktrace start saved.\n"
"\n"
"EXAMPLES\n"
"    ktrace reset\n"
"    ktrace reset -a\n"
"    ktrace start -e sched; ...; ktrace stop; ktrace extract; ktrace reset --restore\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 when a value could not be written (the others are still\n"
"    reset) or there is nothing to restore, 2 for usage errors.\n";

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
	{ "remove",   no_argument,       NULL, 'd' },
	{ "restore",  no_argument,       NULL, 'R' },
	{ "help",     no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum action { A_STOP, A_RESTART, A_CLEAR, A_RESET };

static int run_target(enum action act, const struct cli_command *cmd, int argc, char **argv)
{
	struct ktrace_tracefs_target t = { 0 };
	struct ktrace_tracefs_reset_opts ro = { 0 };
	struct ktrace_error err = { 0 };
	const char **names = NULL;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, act == A_RESET ? "B:tadh" : "B:tah", target_options, NULL)) != -1) {
		switch (c) {
		case 'B':
			if (cli_grow((void **)&names, t.ninstances, sizeof(*names))) {
				free(names);
				return CLI_FAILED;
			}
			names[t.ninstances++] = optarg;
			break;
		case 't': t.top = true; break;
		case 'a': t.all = true; break;
		case 'd': ro.remove = true; break;
		case 'R':
			if (act != A_RESET)
				goto invalid;
			ro.restore = true;
			break;
		case 'h':
			free(names);
			cli_print_help(cmd);
			return CLI_OK;
		default:
		invalid:
			free(names);
			return cli_usage_error(cmd->name, "invalid option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		free(names);
		return cli_usage_error(cmd->name, "unexpected argument '%s'", argv[optind]);
	}
	if (t.all && t.ninstances) {
		free(names);
		return cli_usage_error(cmd->name, "-a takes every instance: no -B with it");
	}
	if (ro.remove && !t.ninstances) {
		free(names);
		return cli_usage_error(cmd->name, "-d removes the instances named with -B");
	}
	t.instances = names;
	switch (act) {
	case A_STOP: ret = ktrace_tracefs_set_tracing(&t, false, &err); break;
	case A_RESTART: ret = ktrace_tracefs_set_tracing(&t, true, &err); break;
	case A_CLEAR: ret = ktrace_tracefs_clear(&t, &err); break;
	default: ret = ktrace_tracefs_reset(&t, &ro, &err); break;
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

static int run_reset(int argc, char **argv)
{
	return run_target(A_RESET, &cli_reset, argc, argv);
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

const struct cli_command cli_reset = {
	.name = "reset",
	.summary = "put tracefs back to its defaults, or (--restore) to what start found",
	.help = reset_help,
	.run = run_reset,
};
