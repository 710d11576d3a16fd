/* SPDX-License-Identifier: MIT */
/* Shared by ktrace record, stream, start and extract: trace-cmd record's options, the
 * command run under tracing, signals, and the figures printed at the end. */
#ifndef KTRACE_RECORD_CLI_H
#define KTRACE_RECORD_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <ktrace/tracefs.h>

/* Per-CPU figures of a stopped session on stderr; returns the events lost in total. */
unsigned long long record_cli_print_stats(const struct ktrace_tracefs_session *s, bool quiet);
/* Parses --file-version / --compression values into opts (usage error: returns 2). */
int record_cli_write_opts(const char *command, const char *version, const char *compression,
			  struct tracedat_write_opts *opts);

/* What record_args_parse accepts besides the tracing options. */
enum {
	RA_OUTPUT = 1 << 0,      /* -o, --file-version, --compression, -m */
	RA_COMMAND = 1 << 1,     /* [--] COMMAND [ARGS], -F */
	RA_SELF = 1 << 2,        /* --trace-self (a recorder: its own threads are left out) */
};

struct record_args {
	struct ktrace_tracefs_record_opts o;    /* filled, pointing into the arrays below */
	const char **events, **filters, **options;
	bool *disable;
	size_t nevents, noptions;
	bool has_filters;
	pid_t *pids;
	size_t npids;
	const char *output, *version, *compression;
	bool quiet, filter_command, follow;
	char **command;                         /* NULL or argv's tail */
};

/* Parses trace-cmd record's options (-e -f -v -B -b -C -P -c -T -s -M -p -O -q, and
 * what allow adds): CLI_OK, -1 for -h (nothing kept), or an exit status after a usage
 * error (printed). */
int record_args_parse(const char *cmd, unsigned allow, int argc, char **argv, struct record_args *a);
void record_args_free(struct record_args *a);

/* Signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD) only set these and wake a pipe. */
extern volatile sig_atomic_t record_got_stop, record_got_child;
/* Installs the handlers; 0 or -1 (message printed). */
int record_signals_init(void);
/* The pipe's read end: readable after a signal. */
int record_signals_fd(void);
/* Empties the pipe. */
void record_signals_drain(void);
void record_signals_done(void);

/* Can cmd be run? 0, or the status a shell gives (message printed): 127 not found, 126
 * not runnable. Checked before tracing starts. */
int record_check_command(const char *cmd);

/* A command run under tracing: forked at once, it waits for record_child_go. */
struct record_child {
	pid_t pid;               /* -1: none or reaped */
	int go;                  /* the go pipe's write end */
	int status;
};

/* 0, or -1 (message printed). */
int record_child_fork(char **argv, struct record_child *c);
/* Forks a's command (record_child_fork) and, with -F, adds it to a's pid filter: 0, or
 * -1 (record_child_fork prints why it failed; out of memory is silent, as before). */
int record_child_start(struct record_args *a, struct record_child *c);
/* Lets the command run. */
void record_child_go(struct record_child *c);
/* After SIGCHLD: true when the command has exited (status kept). */
bool record_child_exited(struct record_child *c);
/* At the end: a command still waiting gives up; one that never ran (failed) is ended,
 * one running after a stop signal is left to finish. */
void record_child_finish(struct record_child *c, bool failed);
/* Writes the stopped session's file with a progress line (unless quiet), then says so.
 * 0, or a negative code with the error printed. */
int record_cli_write(struct ktrace_tracefs_session *s, const char *output,
		     struct tracedat_write_opts *wo, bool quiet, const char *command);
/* Names what killed recordings left behind (instances; the top buffer changed). top:
 * this session takes the top buffer, which is first put back as the killed one found
 * it (and said so). */
void record_cli_leftovers(bool top);
/* Where the per-CPU data of a recording waits: beside a file output, else $TMPDIR. */
void record_cli_tmpdir(const char *output, char *buf, size_t len);

#endif
