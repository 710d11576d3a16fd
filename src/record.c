// SPDX-License-Identifier: MIT
/* ktrace record: record kernel events from tracefs into a trace.dat file. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ktrace/tracefs.h>

#include "cli.h"
#include "record_cli.h"

static const char record_help[] =
"NAME\n"
"    ktrace record - record kernel events from tracefs into a trace.dat file\n"
"\n"
"SYNOPSIS\n"
"    ktrace record -e EVENT [-f FILTER] [-e EVENT]... [-v -e EVENT]... [-p TRACER]\n"
"                  [-T] [-O OPTION]... [-M CPUMASK] [-b KB] [-m KB] [-s USECS] [OPTIONS]\n"
"                  [[--] COMMAND [ARGS]]\n"
"\n"
"DESCRIPTION\n"
"    Enables the events asked for in the kernel's ring buffer (the top one, or an\n"
"    instance created for the recording with -B), runs COMMAND if one is given, and\n"
"    saves every event into a trace-cmd trace.dat file (version 7, zstd-compressed by\n"
"    default) that trace-cmd report, KernelShark or ktrace read.\n"
"\n"
"    Recording stops when COMMAND exits, or on SIGINT (Ctrl-C) or SIGTERM when there\n"
"    is no command (a signal also stops a recording with a command). The file is then\n"
"    completed: an interrupted recording still gives a valid file.\n"
"\n"
"    One thread per CPU moves whole sub-buffers from per_cpu/cpuN/trace_pipe_raw into a\n"
"    temporary file next to the output with splice(2); at the end the partly filled\n"
"    sub-buffers are read too. Reading consumes: the events recorded are taken out of\n"
"    the ring buffer. The file holds the header texts, the formats of the\n"
"    recorded events, kallsyms, printk formats, saved command lines and thread group\n"
"    ids, uname, the trace clock and the per-CPU counters (trace-cmd report --stat\n"
"    shows them).\n"
"\n"
"    At the end ktrace prints, per CPU, the events recorded and the events lost: the\n"
"    kernel's overrun counter (events overwritten before they could be read), commit\n"
"    overruns and dropped events, read from per_cpu/cpuN/stats, and how many losses the\n"
"    sub-buffer headers mark (the events counted are those in the file). While\n"
"    recording, and while the file is written, a progress line (events/s, MB written,\n"
"    events lost so far) is shown when standard error is a terminal.\n"
"\n"
"    ktrace needs root and tracefs only: it mounts tracefs on /sys/kernel/tracing when\n"
"    it is not mounted (and unmounts it afterwards), and never writes\n"
"    /proc/sys/kernel/ftrace_enabled. Everything it changes in tracefs (tracing_on,\n"
"    enabled events, event filters, buffer size, trace clock, current tracer, event\n"
"    pid filter and the lists that leave ktrace out, CPU mask, the trace options it\n"
"    sets (event-fork, record-tgid, stacktrace, -O), buffer_percent, set to 1 so\n"
"    that readers wake up early) is put back at the end, also after errors and\n"
"    signals; an instance it created is removed. Only SIGKILL can prevent that, so\n"
"    it is written down first: each value of the top buffer in a journal\n"
"    (top.journal in $KTRACE_STATE_DIR, default /run/ktrace) before it changes, each\n"
"    instance created in /run/ktrace/instances. The next recording names what a\n"
"    killed one left behind; one on the top buffer first puts back the values the\n"
"    killed one changed there, and says so. ktrace reset names them too ('ktrace\n"
"    reset --restore' puts the top buffer back as it was, 'ktrace reset -B NAME -d'\n"
"    removes an instance, 'ktrace reset -a' every instance).\n"
"\n"
"    ktrace's own threads (its main thread and the readers) are left out of the\n"
"    trace, so that its system calls and switches do not fill it: no event whose\n"
"    current task is one of them is recorded. Their ids go in the buffer's\n"
"    set_event_notrace_pid (and set_ftrace_notrace_pid with a tracer) where the\n"
"    kernel has it. The kernel still keeps a switch away from such a thread and a\n"
"    wakeup it does when the other task is traced: they are that task's switch-in\n"
"    and wakeup, without which its time on the CPU and its wakeup latency could not\n"
"    be told, so they stay. COMMAND is traced from its fork on (its first events, before it\n"
"    runs the program, carry the name ktrace). Everything is put back at the end.\n"
"    --trace-self keeps ktrace in the trace.\n"
"\n"
"    The top buffer is recorded unless -B gives the recording an instance of its own.\n"
"    Two readers of one buffer would each get part of its events, so a buffer in use\n"
"    is refused, naming who holds it: the top buffer while another ktrace record,\n"
"    stream or start works on it or while 'ktrace start' tracing is on it, and any\n"
"    buffer another process reads (its trace_pipe_raw or trace_pipe open).\n"
"    Recordings at the same time each take an instance (-B NAME).\n"
"\n"
"OPTIONS\n"
"    -e, --event EVENT\n"
"        Events to record (repeatable): SYSTEM (every event of it), SYSTEM:EVENT,\n"
"        EVENT (in any system), or 'all'; shell-style globs work in both parts\n"
"        ('sched:sched_wak*', '*:*_exit'). Quote them for the shell. An EVENT that\n"
"        matches nothing is an error naming the closest events ('ktrace list -e'\n"
"        lists them all).\n"
"    -f, --filter FILTER\n"
"        A filter for the events of the -e before it, in the kernel's syntax\n"
"        ('prev_pid > 100 && next_comm ~ \"kworker*\"'), written to their\n"
"        events/SYSTEM/EVENT/filter: the kernel drops what does not match. Events\n"
"        without the fields it names keep recording everything; when none has them,\n"
"        the kernel's complaint is the error.\n"
"    -v\n"
"        The -e options after it name events to leave out ('-e sched -v -e\n"
"        sched_stat_runtime').\n"
"    -T, --stacktrace\n"
"        A kernel stack trace after every event (options/stacktrace); report shows\n"
"        them as kernel_stack events, report --profile uses them.\n"
"    -p, --tracer TRACER\n"
"        Run a tracer (current_tracer) besides or instead of events: nop, blk,\n"
"        function... ('ktrace list -t'). When the kernel refuses one (here the\n"
"        function tracers may be refused: Operation not permitted), the error says so.\n"
"    -O, --option OPTION\n"
"        Set a trace option for the recording ('-O sym-offset', '-O noirq-info';\n"
"        'ktrace list -o' lists them).\n"
"    -M, --cpumask MASK\n"
"        Trace only the CPUs of this hexadecimal mask (tracing_cpumask; 3: CPUs 0\n"
"        and 1).\n"
"    -s, --sleep USECS\n"
"        Longest time a reader thread sleeps before it looks at its buffer again\n"
"        (default one second; the kernel also wakes it once its buffer is 1% full).\n"
"    -m, --max-kb KB\n"
"        Keep only about the last KB KiB of data per CPU: each CPU's data goes to\n"
"        two files of KB/2 in turn, the older one given up when the newer is full\n"
"        (as trace-cmd -m). The bytes given up are printed at the end.\n"
"    -B, --instance NAME\n"
"        Record in a new tracefs instance NAME (created now and removed at the end;\n"
"        it must not exist) instead of the top buffer; other tracing users are not\n"
"        disturbed. In the file it is an instance buffer, as trace-cmd writes it.\n"
"    -b, --buffer-size KB\n"
"        Per-CPU ring-buffer size in KiB (default: as it is).\n"
"    -C, --clock CLOCK\n"
"        Trace clock (local, global, mono, boot, x86-tsc...; see trace_clock).\n"
"    -o, --output FILE\n"
"        Output file (default trace.dat), written under a temporary name and renamed\n"
"        when complete (keeping an existing file's mode; a symbolic link's target is\n"
"        replaced). '-' (standard output), a FIFO or a device gets the file as a\n"
"        stream and is never replaced; the per-CPU data then waits in $TMPDIR.\n"
"    --file-version 6|7\n"
"        trace.dat version (default 7).\n"
"    --compression none|zstd|zlib\n"
"        Compression (version 7 only; default zstd). Debian's trace-cmd reads zstd\n"
"        but not zlib.\n"
"    -P, --pid PID\n"
"        Record only the events of this process (repeatable; set_event_pid).\n"
"    -F\n"
"        Record only the events of COMMAND.\n"
"    -c\n"
"        With -F or -P: also the processes they fork (options/event-fork).\n"
"    --trace-self\n"
"        Keep the events of ktrace's own threads (left out by default, see above).\n"
"    --no-tgids\n"
"        Do not record thread group ids. By default options/record-tgid is on while\n"
"        recording and the kernel's saved_tgids table is saved in the file; trace.dat\n"
"        has no place for it, so ktrace keeps it in an option of its own (id 32769,\n"
"        SAVED_TGIDS), which trace-cmd skips.\n"
"    -q, --quiet\n"
"        No progress line and no per-CPU figures (errors and lost events are still\n"
"        reported).\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace record -e sched -e syscalls -o x.dat -- make -j2\n"
"    ktrace record -e 'sched:sched_switch' -e irq -b 8192 -o irq.dat    (Ctrl-C to stop)\n"
"    ktrace record -B mytrace -e 'kmem:*' -F -c -- ./workload\n"
"    ktrace record -e all --file-version 6 -o all.dat -- sleep 1\n"
"    ktrace record -e sched_switch -f 'prev_state & 2' -T -o blocked.dat -- ./io-test\n"
"    ktrace record -e sched -v -e sched_stat_runtime -M 1 -m 4096 -o cpu0.dat\n"
"    ktrace record -p blk -e block -o blk.dat -- dd if=/dev/sda of=/dev/null count=100\n"
"\n"
"EXIT STATUS\n"
"    0 when the file was written and COMMAND (if any) succeeded. When COMMAND fails,\n"
"    the file is still written and ktrace exits with COMMAND's status (128+N when a\n"
"    signal N ended it). 127 when COMMAND is not found and 126 when it cannot be run:\n"
"    this is checked before tracing starts, and nothing is recorded. 1 when recording\n"
"    or writing failed (tracefs missing, not root, unknown event, I/O error), 2 for\n"
"    usage errors.\n";

int record_cli_write_opts(const char *command, const char *version, const char *compression,
			  struct tracedat_write_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->version = 7;
	if (version) {
		if (strcmp(version, "6") && strcmp(version, "7"))
			return cli_usage_error(command, "--file-version must be 6 or 7");
		opts->version = (unsigned int)atoi(version);
	}
	if (!compression)
		compression = opts->version >= 7 ? "zstd" : "none";
	if (strcmp(compression, "none") && strcmp(compression, "zstd") && strcmp(compression, "zlib"))
		return cli_usage_error(command, "--compression must be none, zstd or zlib");
	if (opts->version < 7 && strcmp(compression, "none"))
		return cli_usage_error(command, "version 6 files cannot be compressed");
	opts->compression = compression;
	return CLI_OK;
}

void record_cli_tmpdir(const char *output, char *buf, size_t len)
{
	const char *slash = strrchr(output, '/');
	struct stat st;

	/* per-CPU data waits next to the output file; beside a FIFO, a device or
	 * standard output it waits in $TMPDIR */
	if (!strcmp(output, "-") || (stat(output, &st) == 0 && !S_ISREG(st.st_mode))) {
		const char *t = getenv("TMPDIR");

		snprintf(buf, len, "%s", t && *t ? t : "/tmp");
	} else if (slash && slash != output) {
		snprintf(buf, len, "%.*s", (int)(slash - output), output);
	} else {
		snprintf(buf, len, "%s", slash ? "/" : ".");
	}
}

int record_cli_write(struct ktrace_tracefs_session *s, const char *output,
		     struct tracedat_write_opts *wo, bool quiet, const char *command)
{
	struct ktrace_error err = { 0 };
	struct cli_progress progress;
	uint64_t total = 0;
	int ret;

	for (size_t b = 0; b < ktrace_tracefs_buffer_count(s); b++)
		for (size_t i = 0; i < ktrace_tracefs_cpu_count(s, b); i++)
			total += ktrace_tracefs_cpu_stats(s, b, i)->bytes;
	cli_progress_init(&progress, command, total, quiet);
	wo->progress = cli_progress_update;
	wo->progress_arg = &progress;
	ret = ktrace_tracefs_write(s, output, wo, &err);
	cli_progress_done(&progress);
	wo->progress = NULL;
	if (ret < 0) {
		cli_error(NULL, &err);
		return ret;
	}
	if (!quiet)
		fprintf(stderr, "ktrace: %s written (version %u, %s)\n", output, wo->version,
			wo->compression);
	return 0;
}

static void human(char *buf, size_t len, unsigned long long bytes)
{
	if (bytes >= 1000000)
		snprintf(buf, len, "%.1f MB", (double)bytes / 1e6);
	else
		snprintf(buf, len, "%.1f kB", (double)bytes / 1e3);
}

unsigned long long record_cli_print_stats(const struct ktrace_tracefs_session *s, bool quiet)
{
	unsigned long long lost = 0, events = 0, bytes = 0;

	for (size_t b = 0; b < ktrace_tracefs_buffer_count(s); b++) {
		const char *name = ktrace_tracefs_buffer_name(s, b);

		if (*name && !quiet)
			fprintf(stderr, "Buffer %s:\n", name);
		for (size_t i = 0; i < ktrace_tracefs_cpu_count(s, b); i++) {
			const struct ktrace_cpu_stats *c = ktrace_tracefs_cpu_stats(s, b, i);
			char size[32], marked[48], unread[128] = "";

			lost += c->lost;
			events += c->events;
			bytes += c->bytes;
			if (quiet && !c->lost)
				continue;
			human(size, sizeof(size), c->bytes);
			if (c->lost_marked < 0)
				snprintf(marked, sizeof(marked), "some without a count");
			else
				snprintf(marked, sizeof(marked), "%lld", (long long)c->lost_marked);
			if (c->unread)
				snprintf(unread, sizeof(unread), ", left unread %llu",
					 (unsigned long long)c->unread);
			if (c->discarded)
				snprintf(unread + strlen(unread), sizeof(unread) - strlen(unread),
					 ", %llu bytes of older data given up (-m)",
					 (unsigned long long)c->discarded);
			fprintf(stderr,
				"  CPU %u: %llu events, %s, %llu lost (overrun %llu, commit overrun %llu, "
				"dropped %llu%s; marked in the data: %s)\n",
				c->cpu, (unsigned long long)c->events, size, (unsigned long long)c->lost,
				(unsigned long long)c->overrun, (unsigned long long)c->commit_overrun,
				(unsigned long long)c->dropped, unread, marked);
		}
	}
	if (!quiet || lost) {
		char size[32];

		human(size, sizeof(size), bytes);
		fprintf(stderr, "ktrace: %llu events recorded (%s of ring-buffer data), %llu lost\n",
			events, size, lost);
	}
	return lost;
}

static void progress(struct ktrace_tracefs_session *s, struct timespec *last, unsigned long long *last_events)
{
	struct ktrace_progress p;
	struct timespec now;
	double dt;

	ktrace_tracefs_progress(s, &p);
	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = (double)(now.tv_sec - last->tv_sec) + (double)(now.tv_nsec - last->tv_nsec) / 1e9;
	if (dt <= 0)
		dt = 1;
	fprintf(stderr, "\rktrace: recording: %.0f events/s, %.1f MB written, %llu lost   ",
		(double)(p.events - *last_events) / dt, (double)p.bytes / 1e6,
		(unsigned long long)p.lost);
	*last = now;
	*last_events = p.events;
}

void record_cli_leftovers(bool top)
{
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_leftover *v;
	bool mounted = false;
	char *dir = NULL;
	size_t n;

	if (ktrace_tracefs_find(false, &dir, &mounted, &err) < 0)
		return;
	if (ktrace_tracefs_leftovers(dir, &v, &n, &err) < 0) {
		cli_error(NULL, &err);
		free(dir);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (*v[i].name) {
			cli_errorf(NULL, "tracefs instance '%s' was left behind by a recording that "
				   "was killed (pid %d): 'ktrace reset -B %s -d' (or rmdir %s/instances/%s) "
				   "removes it", v[i].name, v[i].pid, v[i].name, dir, v[i].name);
		} else if (!top) {
			cli_errorf(NULL, "the top buffer was left changed: %s; 'ktrace reset --restore' "
				   "puts it back as it was", v[i].what);
		} else if (ktrace_tracefs_remove_leftover(dir, "", &err) < 0) {
			/* the session then refuses the buffer, saying why */
			cli_error(NULL, &err);
		} else {
			/* this session takes the top buffer: as it was before the killed one */
			cli_errorf(NULL, "the top buffer was left changed: %s; now put back as it was",
				   v[i].what);
		}
	}
	ktrace_tracefs_leftovers_free(v, n);
	free(dir);
}

/* The exit status that passes on a failed command's: its own, or 128+signal. */
static int command_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

static int run_record(int argc, char **argv)
{
	struct record_args a;
	struct tracedat_write_opts wo;
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_session *s = NULL;
	struct record_child child = { .pid = -1, .go = -1 };
	int status = CLI_FAILED, ret;
	char tmpdir[PATH_MAX];
	bool tty;

	ret = record_args_parse("record", RA_OUTPUT | RA_COMMAND | RA_SELF, argc, argv, &a);
	if (ret < 0) {
		cli_print_help(&cli_record);
		return CLI_OK;
	}
	if (ret)
		return ret;
	ret = record_cli_write_opts("record", a.version, a.compression, &wo);
	/* a command that cannot start is an error before tracing begins */
	if (!ret && a.command)
		ret = record_check_command(a.command[0]);
	if (ret) {
		record_args_free(&a);
		return ret;
	}
	record_cli_tmpdir(a.output, tmpdir, sizeof(tmpdir));
	if (record_signals_init())
		goto out;
	if (a.command && record_child_start(&a, &child))
		goto out;
	record_cli_leftovers(!a.o.instance);
	a.o.tmpdir = tmpdir;
	if (ktrace_tracefs_record_open(&a.o, &s, &err) < 0) {
		cli_error(NULL, &err);
		goto out;
	}
	if (ktrace_tracefs_start(s, &err) < 0) {
		cli_error(NULL, &err);
		goto out;
	}
	tty = !a.quiet && isatty(STDERR_FILENO);
	if (!a.quiet && !a.command)
		fprintf(stderr, "ktrace: recording; Ctrl-C to stop\n");
	record_child_go(&child);
	{
		struct timespec last;
		unsigned long long last_events = 0;

		clock_gettime(CLOCK_MONOTONIC, &last);
		while (!record_got_stop) {
			struct pollfd p = { record_signals_fd(), POLLIN, 0 };

			if (poll(&p, 1, 1000) > 0)
				record_signals_drain();
			if (a.command && record_got_child) {
				record_got_child = 0;
				if (record_child_exited(&child))
					break;
			}
			if (tty && !record_got_stop)
				progress(s, &last, &last_events);
		}
		if (tty)
			fputs("\r\033[K", stderr);
	}
	/* From here on the file gets finished whatever signals come. */
	ret = ktrace_tracefs_stop(s, &err);
	if (ret < 0)
		cli_error(NULL, &err);
	if (ktrace_tracefs_restore(s, &err) < 0) {
		cli_error(NULL, &err);
		ret = -1;
	}
	record_cli_print_stats(s, a.quiet);
	if (record_cli_write(s, a.output, &wo, a.quiet, "record") < 0)
		goto out;
	status = ret < 0 ? CLI_FAILED : CLI_OK;
	if (status == CLI_OK && child.pid < 0 && a.command && command_status(child.status)) {
		/* the command's failure is the result (the file is written) */
		status = command_status(child.status);
		if (WIFEXITED(child.status) && WEXITSTATUS(child.status) == 127)
			cli_errorf(a.command[0], "the command could not be run (status 127)");
		else if (!a.quiet)
			cli_errorf(a.command[0], "the command failed (status %d)", status);
	}
out:
	ktrace_tracefs_close(s);   /* restores tracefs if that was not done */
	record_child_finish(&child, status != CLI_OK);
	record_signals_done();
	record_args_free(&a);
	return status;
}

const struct cli_command cli_record = {
	.name = "record",
	.summary = "record kernel events from tracefs into a trace.dat file",
	.help = record_help,
	.run = run_record,
};
