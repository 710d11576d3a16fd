// SPDX-License-Identifier: MIT
/* ktrace top: the running system, live, from the kernel's ring buffer (docs/top.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <ktrace/tracefs.h>
#include <ktrace/view.h>

#include "cli.h"
#include "record_cli.h"

static const char top_help[] =
"NAME\n"
"    ktrace top - the running system, live: CPU shares, wakeup latency, interrupts\n"
"\n"
"SYNOPSIS\n"
"    ktrace top [-d SECS] [-e syscalls] [--top N] [--buffer-size KB]\n"
"    ktrace top --batch [-n N] [--json] [-d SECS] [-e syscalls] [--top N]\n"
"\n"
"DESCRIPTION\n"
"    Traces the scheduler and the interrupts in a tracefs instance of its own and shows,\n"
"    every -d seconds, what the last interval held: per CPU the share of time busy (a\n"
"    thread other than the idle one running), in IRQ handlers, in softirqs and idle;\n"
"    the threads by CPU share with their process, their slices, how often they were\n"
"    woken and their wakeup latency (from the wakeup to running: p50, p99, max over the\n"
"    interval); context switches, wakeups and IRQs per second; with -e syscalls the\n"
"    system calls by count and time. The figures are those of ktrace summary (the model\n"
"    of docs/model.md), cut at the interval's bounds. They are shown a quarter of a\n"
"    second late, so that every CPU's records of the interval have been read.\n"
"\n"
"    ktrace top's own threads are left out of the trace (set_event_notrace_pid) and\n"
"    never shown. It enables only the events it needs (sched_switch, sched_wakeup,\n"
"    sched_wakeup_new, irq_handler_entry/exit, softirq_entry/exit, hrtimer_expire_entry\n"
"    for the tick; raw_syscalls with -e syscalls) in an instance named ktrace-top-PID,\n"
"    which it removes at the end: tracefs is left as it was found on q, Ctrl-C,\n"
"    SIGTERM, SIGHUP and when the terminal goes away. The top buffer and other\n"
"    instances are not touched.\n"
"\n"
"    On a terminal the view fills the screen (any VT100-like terminal, ssh included;\n"
"    its size is read again when it changes). Keys:\n"
"        q          quit\n"
"        s          sort the threads by CPU share, then wakeup latency (p99), then\n"
"                   wakeups\n"
"        p          pause (the figures shown stay; tracing goes on)\n"
"        Up, Down, PgUp, PgDn, Home\n"
"                   scroll the threads\n"
"\n"
"OPTIONS\n"
"    -d, --delay SECS\n"
"        The interval (default 1; 0.1 to 3600).\n"
"    -e, --event syscalls\n"
"        Also trace system calls (raw_syscalls) and show the top ones.\n"
"    -b, --batch\n"
"        Plain text, one snapshot per interval, no keys (like top -b).\n"
"    -n, --iterations N\n"
"        Stop after N intervals (default: until stopped; with --batch or --json).\n"
"    --json\n"
"        One JSON object per interval, one per line (schema ktrace-top/1: the field\n"
"        names of ktrace summary --json where they are the same figure; docs/top.md).\n"
"    --top N\n"
"        Rows per list at most (batch text: every thread by default; JSON: 20).\n"
"    --buffer-size KB\n"
"        Per-CPU buffer of the instance (default 4096).\n"
"    --max-threads N\n"
"        Threads kept at most (default 65536, and 4 for each thread of the last\n"
"        interval beyond that); past it top's model and tables start afresh at the\n"
"        next interval, so that a long run's memory stays bounded.\n"
"    --record FILE\n"
"        Also save what top read as a trace.dat file (written at the end; the data\n"
"        waits beside FILE meanwhile): ktrace summary, report, timeline... read it.\n"
"    -h, --help\n"
"\n"
"EXAMPLES\n"
"    ktrace top\n"
"    ktrace top -d 0.5 -e syscalls\n"
"    ktrace top --batch -n 3 --top 10\n"
"    ktrace top --json -n 5 | jq '.threads_by_cpu_time.rows[0]'\n"
"\n"
"EXIT STATUS\n"
"    0 when stopped (q, -n, Ctrl-C, SIGTERM, SIGHUP), 1 when tracing could not be set up\n"
"    or the output could not be written, 2 for usage errors.\n";

enum { O_JSON = 300, O_TOP, O_BUFSIZE, O_RECORD, O_MAX_THREADS, O_HELP };

static const struct option options[] = {
	{ "delay",       required_argument, NULL, 'd' },
	{ "event",       required_argument, NULL, 'e' },
	{ "batch",       no_argument,       NULL, 'b' },
	{ "iterations",  required_argument, NULL, 'n' },
	{ "json",        no_argument,       NULL, O_JSON },
	{ "top",         required_argument, NULL, O_TOP },
	{ "buffer-size", required_argument, NULL, O_BUFSIZE },
	{ "record",      required_argument, NULL, O_RECORD },
	{ "max-threads", required_argument, NULL, O_MAX_THREADS },
	{ "help",        no_argument,       NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

#define HOLD_NS 250000000ull      /* how late an interval is cut (capture lag) */
#define CATCH_UP_NS 30000000000ull /* how much longer a cut waits for a late reader */
#define SLEEP_US 50000            /* a quiet CPU's records are read this often */

static volatile sig_atomic_t got_winch, got_tstp;

static void on_winch(int sig)
{
	if (sig == SIGTSTP)
		got_tstp = 1;
	else
		got_winch = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

struct term {
	bool on;
	struct termios saved;
	unsigned width, height;
};

static void term_size(struct term *t)
{
	struct winsize ws;

	t->width = 80;
	t->height = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		t->width = ws.ws_col;
		t->height = ws.ws_row;
	}
}

static int term_enter(struct term *t)
{
	struct termios raw;
	static const char enter[] = "\033[?1049h\033[?25l\033[H\033[2J";

	if (tcgetattr(STDIN_FILENO, &t->saved) < 0)
		return -1;
	raw = t->saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) < 0)
		return -1;
	t->on = true;
	term_size(t);
	if (write(STDOUT_FILENO, enter, sizeof(enter) - 1) < 0) {
		/* the terminal went away: the loop finds out */
	}
	return 0;
}

static void term_leave(struct term *t)
{
	static const char leave[] = "\033[?25h\033[?1049l";

	if (!t->on)
		return;
	t->on = false;
	if (write(STDOUT_FILENO, leave, sizeof(leave) - 1) < 0) {
		/* gone */
	}
	tcsetattr(STDIN_FILENO, TCSANOW, &t->saved);
}

struct ui {
	int sort;
	unsigned scroll;
	bool paused, quit, redraw;
};

/* Keys read from the terminal. */
static void keys(struct ui *u, int fd)
{
	unsigned char b[64];
	ssize_t n = read(fd, b, sizeof(b));

	if (n == 0) {
		u->quit = true;     /* the terminal went away */
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		switch (b[i]) {
		case 'q':
		case 'Q':
			u->quit = true;
			break;
		case 's':
			u->sort = (u->sort + 1) % 3;
			u->scroll = 0;
			break;
		case 'p':
			u->paused = !u->paused;
			break;
		case 'j':
			u->scroll++;
			break;
		case 'k':
			u->scroll = u->scroll ? u->scroll - 1 : 0;
			break;
		case 033:
			if (i + 2 < n && b[i + 1] == '[') {
				unsigned char c = b[i + 2];

				i += 2;
				if (c == 'A')
					u->scroll = u->scroll ? u->scroll - 1 : 0;
				else if (c == 'B')
					u->scroll++;
				else if (c == 'H')
					u->scroll = 0;
				else if ((c == '5' || c == '6' || c == '1') && i + 1 < n && b[i + 1] == '~') {
					i++;
					if (c == '5')
						u->scroll = u->scroll > 10 ? u->scroll - 10 : 0;
					else if (c == '6')
						u->scroll += 10;
					else
						u->scroll = 0;
				}
			}
			break;
		default:
			break;
		}
	}
	u->redraw = true;
}

static int draw(struct ktrace_view_top *v, struct term *t, const struct ui *u, unsigned top,
		struct ktrace_out *out, struct ktrace_error *err)
{
	KTRACE_OPTS(ktrace_view_top_print_opts, po, .screen = true, .width = t->width,
		    .height = t->height, .sort = u->sort, .scroll = u->scroll, .top = top,
		    .status = u->paused ? "PAUSED  (q quit, p resume)" : "(q quit, s sort, p pause)");

	ktrace_out_write(out, "\033[H", strlen("\033[H"));
	if (ktrace_view_top_print(v, &po, out, err) < 0)
		return -1;
	ktrace_out_write(out, "\033[J", strlen("\033[J"));
	return ktrace_out_flush(out);
}

static int run_top(int argc, char **argv)
{
	KTRACE_OPTS(ktrace_tracefs_record_opts, ro);
	KTRACE_OPTS(ktrace_view_top_opts, vo);
	static const char *const sched_irq[] = {
		"sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new",
		"irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit",
		/* the tick (in the context of the thread it interrupts): a thread that runs
		 * without other events is seen from its first tick, not its first switch */
		"timer:hrtimer_expire_entry",
		"raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
	};
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_session *s = NULL;
	struct ktrace_view_top *v = NULL;
	struct ktrace_out *out = NULL;
	struct term term = { 0 };
	struct ui u = { 0 };
	struct sigaction sa;
	bool batch = false, json = false, screen;
	unsigned iterations = 0, top = 0, bufkb = 4096, done = 0;
	uint64_t delay = 1000000000ull, t0, next;
	char instance[64], tmpdir[4096];
	const char *record = NULL;
	struct tracedat_write_opts wo;
	int opt, status = CLI_FAILED, ret;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, ":d:e:bn:h", options, NULL)) != -1) {
		switch (opt) {
		case 'd': {
			char *end;
			double d;

			errno = 0;
			d = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(d >= 0.1 && d <= 3600))
				return cli_usage_error("top", "-d takes seconds from 0.1 to 3600");
			delay = (uint64_t)(d * 1e9 + 0.5);
			break;
		}
		case 'e':
			if (strcmp(optarg, "syscalls") && strcmp(optarg, "raw_syscalls"))
				return cli_usage_error("top", "-e takes 'syscalls' only (the scheduler and "
							      "IRQ events are always traced)");
			vo.syscalls = true;
			break;
		case 'b':
			batch = true;
			break;
		case 'n':
			if (cli_parse_uint(optarg, 1, 1000000000, &iterations))
				return cli_usage_error("top", "-n takes 1 or more");
			break;
		case O_JSON:
			json = true;
			break;
		case O_TOP:
			if (cli_parse_uint(optarg, 1, 100000, &top))
				return cli_usage_error("top", "--top takes 1 to 100000");
			break;
		case O_RECORD:
			record = optarg;
			break;
		case O_MAX_THREADS:
			if (cli_parse_uint(optarg, 1, 1u << 30, &vo.max_threads))
				return cli_usage_error("top", "--max-threads takes 1 or more");
			break;
		case O_BUFSIZE:
			if (cli_parse_uint(optarg, 4, 1u << 22, &bufkb))
				return cli_usage_error("top", "--buffer-size takes 4 to 4194304 (KiB)");
			break;
		case 'h':
		case O_HELP:
			cli_print_help(&cli_top);
			return CLI_OK;
		default:
			return cli_bad_option("top", ":d:e:bn:h", argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("top", "unexpected argument '%s'", argv[optind]);
	screen = !batch && !json;
	if (screen && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)))
		return cli_usage_error("top", "not a terminal: use --batch or --json");
	if (screen && iterations)
		return cli_usage_error("top", "-n goes with --batch or --json");

	snprintf(instance, sizeof(instance), "ktrace-top-%d", (int)getpid());
	ro.instance = instance;
	ro.events = sched_irq;
	ro.nevents = vo.syscalls ? 10 : 8;
	ro.buffer_kb = bufkb;
	ro.clock = "mono";
	ro.no_tgids = true;
	ro.in_memory = true;
	ro.sleep_us = SLEEP_US;
	if (record) {
		/* what was read stays, beside the output, for the trace.dat at the end */
		if (!*record)
			return cli_usage_error("top", "--record needs a file name");
		record_cli_write_opts("top", NULL, NULL, &wo);
		record_cli_tmpdir(record, tmpdir, sizeof(tmpdir));
		ro.keep_data = true;
		ro.tmpdir = tmpdir;
	}

	out = ktrace_out_new(STDOUT_FILENO);
	if (!out || record_signals_init())
		goto out;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	if (screen)
		sigaction(SIGTSTP, &sa, NULL);     /* Ctrl-Z: the terminal back first */
	signal(SIGPIPE, SIG_IGN);
	record_cli_leftovers(false);
	/* the event formats are read before tracing starts, and the first interval begins
	 * once it runs */
	if (ktrace_tracefs_record_open(&ro, &s, &err) < 0 || ktrace_view_top_new(s, &vo, &v, &err) < 0 ||
	    ktrace_tracefs_start(s, &err) < 0) {
		cli_error(NULL, &err);
		goto out;
	}
	t0 = mono_ns();
	if (ktrace_view_top_begin(v, t0, &err) < 0) {
		cli_error(NULL, &err);
		goto stop;
	}
	if (screen && term_enter(&term) < 0) {
		cli_errorf(NULL, "cannot set up the terminal: %s", strerror(errno));
		goto stop;
	}
	status = CLI_OK;
	next = t0 + delay;
	while (!record_got_stop && !u.quit) {
		uint64_t now = mono_ns();
		struct pollfd p[2] = { { record_signals_fd(), POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 } };
		int64_t wait_ms;
		int ready = 1;

		/* (a reader thread starved of CPU: the cut waits for it, for a while) */
		if (now >= next + HOLD_NS && now < next + HOLD_NS + CATCH_UP_NS &&
		    (ready = ktrace_view_top_ready(v, next, &err)) < 0) {
			term_leave(&term);
			cli_error(NULL, &err);
			status = CLI_FAILED;
			break;
		}
		if (now >= next + HOLD_NS && ready) {
			if (ktrace_view_top_cut(v, next, &err) < 0) {
				term_leave(&term);     /* (the message on the normal screen) */
				cli_error(NULL, &err);
				status = CLI_FAILED;
				break;
			}
			done++;
			next += delay;
			/* fell behind (a stopped terminal): the screen shows the latest interval;
			 * batch and JSON keep every interval -d long, cut one after the other */
			if (screen && next + HOLD_NS <= now)
				next = now - HOLD_NS + delay;
			if (screen) {
				if (!u.paused)
					u.redraw = true;
			} else {
				KTRACE_OPTS(ktrace_view_top_print_opts, po, .json = json, .top = top);

				if (!json && done > 1)
					ktrace_out_write(out, "\n", strlen("\n"));
				if (ktrace_view_top_print(v, &po, out, &err) < 0 ||
				    (ret = ktrace_out_flush(out)) < 0) {
					status = CLI_FAILED;
					break;
				}
				if (iterations && done >= iterations)
					break;
			}
		} else if (ready && ktrace_view_top_read(v, now - HOLD_NS, &err) < 0) {
			term_leave(&term);
			cli_error(NULL, &err);
			status = CLI_FAILED;
			break;
		}
		if (got_tstp) {
			/* stopped (Ctrl-Z): the shell gets its terminal back; tracing goes on */
			got_tstp = 0;
			term_leave(&term);
			signal(SIGTSTP, SIG_DFL);
			raise(SIGTSTP);
			sigaction(SIGTSTP, &sa, NULL);
			if (term_enter(&term) < 0)
				break;
			u.redraw = true;
		}
		if (got_winch) {
			got_winch = 0;
			if (screen) {
				term_size(&term);
				u.redraw = true;
			}
		}
		if (screen && u.redraw && done) {
			u.redraw = false;
			if (draw(v, &term, &u, top, out, &err) < 0) {
				/* the terminal went away */
				break;
			}
		}
		now = mono_ns();
		wait_ms = now >= next + HOLD_NS ? (ready ? 0 : 10)
						 : (int64_t)((next + HOLD_NS - now) / 1000000) + 1;
		if (wait_ms > 50)
			wait_ms = 50;
		if (poll(p, screen ? 2 : 1, (int)wait_ms) > 0) {
			if (p[0].revents)
				record_signals_drain();
			if (screen && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
				keys(&u, STDIN_FILENO);
		}
	}
	term_leave(&term);
stop:
	term_leave(&term);
	if (ktrace_tracefs_stop(s, &err) < 0) {
		cli_error(NULL, &err);
		status = CLI_FAILED;
	}
	if (ktrace_tracefs_restore(s, &err) < 0) {
		cli_error(NULL, &err);
		status = CLI_FAILED;
	}
	/* (the file after tracefs is put back: a slow write leaves nothing enabled) */
	if (record && record_cli_write(s, record, &wo, true, "top") < 0)
		status = CLI_FAILED;
out:
	term_leave(&term);
	ktrace_view_top_free(v);
	ktrace_tracefs_close(s);
	ret = out ? ktrace_out_flush(out) : 0;
	if (ret < 0 && ret != -EPIPE && ret != -EIO && status == CLI_OK) {
		cli_errorf(NULL, "writing output: %s", strerror(-ret));
		status = CLI_FAILED;
	}
	ktrace_out_free(out);
	record_signals_done();
	signal(SIGWINCH, SIG_DFL);
	signal(SIGTSTP, SIG_DFL);
	return status;
}

const struct cli_command cli_top = {
	.name = "top",
	.summary = "the running system, live: CPU shares, wakeup latency, interrupts",
	.help = top_help,
	.run = run_top,
};
