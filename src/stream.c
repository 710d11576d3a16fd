// SPDX-License-Identifier: MIT
/* ktrace stream: kernel events printed live, as ktrace report prints them. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ktrace/tracefs.h>
#include <ktrace/view.h>

#include "cli.h"
#include "record_cli.h"

static const char stream_help[] =
"NAME\n"
"    ktrace stream - print kernel events live, as ktrace report prints them\n"
"\n"
"SYNOPSIS\n"
"    ktrace stream -e EVENT [-f FILTER] [-e EVENT]... [-v -e EVENT]... [-p TRACER]\n"
"                  [-T] [-O OPTION]... [-M CPUMASK] [-b KB] [-s USECS] [OPTIONS]\n"
"                  [[--] COMMAND [ARGS]]\n"
"\n"
"DESCRIPTION\n"
"    Enables the events asked for, as ktrace record does, and prints them while they\n"
"    happen, one line each as 'ktrace report' (trace-cmd report) prints a trace.dat\n"
"    file: comm-pid, [CPU], time, event name, event text. It runs until COMMAND exits\n"
"    or until Ctrl-C (SIGINT) or SIGTERM, then prints what is left and the events the\n"
"    kernel lost per CPU. Nothing is written to disk: the data read from the kernel\n"
"    waits in memory until it is printed (at most 256 MiB per CPU; beyond that the\n"
"    kernel's buffer fills and counts what it drops).\n"
"\n"
"    The readers are those of ktrace record (one thread per CPU moving whole\n"
"    sub-buffers with splice); printing runs behind them, and every event read is\n"
"    printed. Formatting takes CPU time that a recording does not: under a load that\n"
"    keeps every CPU busy a stream loses more events than a recording (bench/record\n"
"    measures both). The stream's own threads are left out of the trace, as its\n"
"    printing would feed what it prints: no event whose current task is one of them\n"
"    is shown (set_event_notrace_pid, set_ftrace_notrace_pid with a tracer, as ktrace\n"
"    record does: 'ktrace help record'; their switches to other tasks, which the\n"
"    kernel keeps, are not printed); --trace-self keeps them. COMMAND is traced from its\n"
"    fork on. A quiet CPU's events are shown at the latest every -s microseconds\n"
"    (default 100000). Records of all CPUs are printed in time order among those\n"
"    read at the time.\n"
"\n"
"    Like ktrace record, it consumes what it reads (the events are taken out of the\n"
"    kernel's ring buffer), refuses a buffer in use, and puts back at the end\n"
"    everything it changed in tracefs, written down first ('ktrace help record').\n"
"\n"
"OPTIONS\n"
"    As ktrace record's ('ktrace help record' tells each):\n"
"    -e, --event EVENT        -f, --filter FILTER      -v (the next -e disables)\n"
"    -p, --tracer TRACER      -O, --option OPTION      -T, --stacktrace\n"
"    -M, --cpumask CPUMASK    -b, --buffer-size KB     -C, --clock CLOCK\n"
"    -P, --pid PID            -c (follow forks)        -B, --instance NAME\n"
"    -s, --sleep USECS        --no-tgids               -q, --quiet\n"
"    -F (only the events of COMMAND and, with -c, its children)\n"
"    --trace-self (keep the stream's own threads in the trace)\n"
"    -h, --help\n"
"    (not the output options of record), and:\n"
"    -t, --nsec\n"
"        Times in nanoseconds (report -t).\n"
"    -R, --raw\n"
"        Event fields as name=value (report -R).\n"
"\n"
"EXAMPLES\n"
"    ktrace stream -e sched_switch -e sched_wakeup\n"
"    ktrace stream -e 'syscalls:sys_enter_openat' -F -- ls /tmp\n"
"    ktrace stream -B live -e irq -f 'irq == 42' | grep handler\n"
"\n"
"EXIT STATUS\n"
"    0 when stopped normally (whatever COMMAND's status), 1 when tracing could not be\n"
"    set up or the output could not be written, 2 for usage errors; 127 when COMMAND\n"
"    is not found and 126 when it cannot be run (checked before tracing starts).\n";

/* Whether a record option is followed by its value as the next argument. */
static bool takes_value(const char *opt)
{
	static const char *const with[] = {
		"-e", "-f", "-B", "-b", "-C", "-P", "-s", "-M", "-p", "-O", "--event", "--filter",
		"--instance", "--buffer-size", "--clock", "--pid", "--sleep", "--cpumask", "--tracer",
		"--option",
	};

	for (size_t i = 0; i < sizeof(with) / sizeof(with[0]); i++)
		if (!strcmp(opt, with[i]))
			return true;
	return false;
}

static int run_stream(int argc, char **argv)
{
	struct record_args a;
	KTRACE_OPTS(ktrace_view_live_opts, vo);
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_session *s = NULL;
	struct ktrace_view_live *v = NULL;
	struct record_child child = { .pid = -1, .go = -1 };
	struct ktrace_out *out = NULL;
	bool tty = isatty(STDOUT_FILENO);
	int status = CLI_FAILED, ret, i, n = 0;
	char **args;

	/* -t and -R are the report's, the rest record's (up to the command) */
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args)
		return CLI_FAILED;
	for (i = 0; i < argc; i++) {
		if (i && (!strcmp(argv[i], "--") || (argv[i][0] != '-' && !takes_value(argv[i - 1]))))
			break;
		if (i && (!strcmp(argv[i], "-t") || !strcmp(argv[i], "--nsec")))
			vo.nsec = true;
		else if (i && (!strcmp(argv[i], "-R") || !strcmp(argv[i], "--raw")))
			vo.raw = true;
		else
			args[n++] = argv[i];
	}
	for (; i < argc; i++)
		args[n++] = argv[i];
	ret = record_args_parse("stream", RA_COMMAND | RA_SELF, n, args, &a);
	if (ret < 0) {
		free(args);
		cli_print_help(&cli_stream);
		return CLI_OK;
	}
	if (ret) {
		free(args);
		return ret;
	}
	/* a command that cannot start is an error before tracing begins */
	if (a.command && (ret = record_check_command(a.command[0]))) {
		record_args_free(&a);
		free(args);
		return ret;
	}
	a.o.in_memory = true;
	a.o.no_tgids = true;
	if (!a.o.sleep_us)
		a.o.sleep_us = 100000;
	out = ktrace_out_new(STDOUT_FILENO);
	if (!out || record_signals_init())
		goto out;
	if (a.command && record_child_start(&a, &child))
		goto out;
	record_cli_leftovers(!a.o.instance);
	if (ktrace_tracefs_record_open(&a.o, &s, &err) < 0 || ktrace_view_live_new(s, &vo, &v, &err) < 0 ||
	    ktrace_tracefs_start(s, &err) < 0) {
		cli_error(NULL, &err);
		goto out;
	}
	/* the readers (threads made by ktrace_tracefs_start) come first: printing, on this
	 * thread only, may fall behind and catch up later, the kernel's buffers may not */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), 19) < 0) {
		/* not fatal */
	}
	record_child_go(&child);
	status = CLI_OK;
	while (!record_got_stop) {
		int64_t printed = ktrace_view_live_print(v, out, &err);

		if (printed < 0) {
			cli_error(NULL, &err);
			status = CLI_FAILED;
			break;
		}
		if (printed || tty) {
			ret = ktrace_out_flush(out);
			if (ret < 0) {
				/* the reader went away (ktrace stream | head): stop quietly */
				status = ret == -EPIPE ? CLI_OK : CLI_FAILED;
				if (ret != -EPIPE)
					cli_errorf(NULL, "writing output: %s", strerror(-ret));
				break;
			}
		}
		if (a.command && record_got_child) {
			record_got_child = 0;
			if (record_child_exited(&child))
				break;
		}
		if (!printed)
			ktrace_tracefs_wait(s, 50);
	}
	/* what is left in the kernel's buffers, then the figures */
	if (ktrace_tracefs_stop(s, &err) < 0) {
		cli_error(NULL, &err);
		status = CLI_FAILED;
	}
	if (status == CLI_OK && ktrace_view_live_print(v, out, &err) < 0) {
		cli_error(NULL, &err);
		status = CLI_FAILED;
	}
	if (ktrace_tracefs_restore(s, &err) < 0) {
		cli_error(NULL, &err);
		status = CLI_FAILED;
	}
	ret = ktrace_out_flush(out);
	if (ret < 0 && ret != -EPIPE && status == CLI_OK) {
		cli_errorf(NULL, "writing output: %s", strerror(-ret));
		status = CLI_FAILED;
	}
	record_cli_print_stats(s, a.quiet);
out:
	ktrace_view_live_free(v);
	ktrace_tracefs_close(s);
	ktrace_out_free(out);
	record_child_finish(&child, status != CLI_OK);
	record_signals_done();
	record_args_free(&a);
	free(args);
	return status;
}

const struct cli_command cli_stream = {
	.name = "stream",
	.summary = "print kernel events live, as report prints them",
	.help = stream_help,
	.run = run_stream,
};
