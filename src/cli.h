/* SPDX-License-Identifier: MIT */
/* The ktrace command line: one file per subcommand, each defining a cli_command. */
#ifndef KTRACE_CLI_H
#define KTRACE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <ktrace/detect.h>
#include <ktrace/error.h>
#include <ktrace/input.h>

#include <ktrace/out.h>

/* Exit statuses of every subcommand. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

struct cli_command {
	const char *name;
	const char *summary;     /* one line for `ktrace --help` */
	const char *help;        /* the full manual text for `ktrace help NAME` */
	int (*run)(int argc, char **argv);
};

extern const struct cli_command cli_report;
extern const struct cli_command cli_info;
extern const struct cli_command cli_dump;
extern const struct cli_command cli_record;
extern const struct cli_command cli_extract;
extern const struct cli_command cli_convert;
/* the live system (issue 18) */
extern const struct cli_command cli_list, cli_stat, cli_show, cli_start, cli_stop, cli_restart,
	cli_clear, cli_reset, cli_stream, cli_split;
extern const struct cli_command cli_timeline;
extern const struct cli_command cli_flamegraph;
extern const struct cli_command cli_sql;
extern const struct cli_command cli_export;
extern const struct cli_command cli_summary;
extern const struct cli_command cli_diff;
extern const struct cli_command cli_top;

/* An input being read by a subcommand, its detected format and buffered stdout. */
struct cli_input {
	const char *file;
	struct ktrace_input *in;
	enum ktrace_format format;
	int64_t got;                 /* bytes seen by detection; 0 for an empty input */
	struct ktrace_out *out;
	struct ktrace_error err;     /* for the view's errors */
};

/* Opens file, detects its format, prepares buffered stdout. On failure prints the
 * error and returns CLI_FAILED (nothing to finish). */
int cli_input_open(struct cli_input *ci, const char *file);
/* A stream (pipe, FIFO) whose start was read to recognise its format cannot be opened
 * again: it is kept here, and cli_input_open (or cli_input_take) of the same path
 * takes it back. */
void cli_input_keep(const char *path, struct ktrace_input *in);
struct ktrace_input *cli_input_take(const char *path);
/* Flushes the output, prints the error when ret < 0, closes; returns the exit status. */
int cli_input_finish(struct cli_input *ci, int ret);

/* Flushes and frees out (NULL is fine); a write error other than EPIPE becomes the
 * result when ret is 0. Returns ret. */
int cli_out_finish(struct ktrace_out *out, struct ktrace_error *err, int ret);

/*
 * An output file (cli_outfile.c: the library's ktrace_out_file, <ktrace/out.h>): a
 * regular or missing file is written under a temporary name beside it and renamed when
 * complete (mode and owner kept; a file the user may not write is refused); a symlink
 * is followed; "-" (standard output), a FIFO or a device is written in place. The
 * temporary file is removed on failure and on fatal signals. Open and commit print
 * their errors and return CLI_OK or CLI_FAILED.
 */
struct cli_outfile {
	const char *path;            /* as given */
	struct ktrace_out_file *file;
	int fd;                      /* what to write to (a temporary file, or the stream) */
	bool stream;                 /* written in place */
};

int cli_outfile_open(struct cli_outfile *f, const char *path);
int cli_outfile_commit(struct cli_outfile *f);
/* Removes the temporary file (what was written in place stays). */
void cli_outfile_discard(struct cli_outfile *f);

/* `ktrace: FILE: offset 0x..: message` on stderr. file may be NULL. */
void cli_error(const char *file, const struct ktrace_error *err);
void cli_errorf(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A library's warn callback (arg unused): `ktrace: message` on stderr. */
void cli_warn(void *arg, const char *message);
/* cli_error's line with what became of the output after "; " (one error, one line:
 * "ktrace: IN: offset 0x..: message; OUT not written (...)"). */
void cli_error_and(const char *file, const struct ktrace_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A usage error, one line: "ktrace: NAME: message (see 'ktrace help NAME')". Returns
 * CLI_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Memory ran out while command NAME read its options: "ktrace: NAME: out of memory".
 * Returns CLI_FAILED (it is no usage error). */
int cli_oom(const char *command);
/* The usage error for what getopt_long just refused ('?'): an unknown option, or one
 * without its argument (shortopts: the command's short options). Returns CLI_USAGE. */
int cli_bad_option(const char *command, const char *shortopts, char **argv);
/* Prints a command's manual to stdout. */
void cli_print_help(const struct cli_command *cmd);
/* A progress line on stderr for long work (only when stderr is a terminal and quiet is
 * false), at most ten a second: cli_progress_update, a tracedat_write_opts progress
 * callback, says "ktrace WHAT: 45% (120.0 of 260.0 MB)"; cli_progress_records, the
 * views' callback, "ktrace WHAT: 3145728 records"; cli_progress_report, the text
 * view's, "ktrace WHAT: 3145728 records, 45%" (arg: the struct cli_progress). */
struct cli_progress {
	const char *what;
	uint64_t total;
	bool on, shown;
	struct timespec last;
};
void cli_progress_init(struct cli_progress *p, const char *what, uint64_t total, bool quiet);
void cli_progress_update(void *arg, uint64_t done);
void cli_progress_records(void *arg, uint64_t records);
void cli_progress_report(void *arg, uint64_t records, int percent);
/* Clears the line. */
void cli_progress_done(struct cli_progress *p);
/* Parses a decimal number from lo to hi (an option's count, --threads N). 0 or -1. */
int cli_parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned *out);
/* Parses a time in seconds as report prints it ("1234.567890", up to 9 decimals) into
 * nanoseconds. 0 or -1. */
int cli_parse_seconds(const char *s, uint64_t *out);
/* A --from/--to option's time for command: 0 with *has set and *ns, or the usage error's
 * status (after saying so). */
int cli_time_option(const char *command, const char *arg, bool *has, uint64_t *ns);
/* Parses a size such as 4096, 8k, 1M. Returns 0 or -1. */
int cli_parse_size(const char *s, unsigned long long *out);
/* Appends the CPUs of a list such as "1,3-5:7" (trace-cmd's syntax) to *cpus: 0, or
 * CLI_USAGE after printing the problem. */
int cli_parse_cpu_list(const char *command, const char *s, int **cpus, size_t *ncpus);
/* Room for element n (0-based) of an array of elem-byte elements: 0, or -1 (out of
 * memory, the array unchanged). */
int cli_grow(void **arr, size_t n, size_t elem);
/*
 * The event stream's options several subcommands take (cli_stream.c): -F FILTER (-v
 * before it, once: records it matches are dropped), --cpu LIST (option code
 * CLI_OPT_CPU), --events-dir DIR (CLI_OPT_EVENTS_DIR), --pid LIST and --comm LIST
 * (CLI_OPT_PID, CLI_OPT_COMM: trace.dat tasks, as report's). cli_stream_arg takes
 * getopt's opt and optarg: CLI_STREAM_ARG_TAKEN, CLI_STREAM_ARG_NOT_MINE (another
 * option), or the exit status of an error it printed. cli_stream_args_apply puts them
 * into stream options (the pointers stay a's: free it after the stream).
 */
enum { CLI_OPT_CPU = 1000, CLI_OPT_EVENTS_DIR, CLI_OPT_PID, CLI_OPT_COMM };
#define CLI_STREAM_ARG_TAKEN (-1)
#define CLI_STREAM_ARG_NOT_MINE (-2)
struct ktrace_stream_filter;
struct ktrace_stream_opts;
struct ktrace_stream_task;
struct cli_stream_args {
	struct ktrace_stream_filter *filters;
	size_t nfilters;
	bool negative;
	int *cpus;
	size_t ncpus;
	const char *events_dir;
	struct ktrace_stream_task *tasks;
	size_t ntasks;
	char **owned;                 /* the copies of --pid/--comm arguments tasks point into */
	size_t nowned;
};
int cli_stream_arg(const char *command, int opt, const char *arg, struct cli_stream_args *a);
void cli_stream_args_apply(const struct cli_stream_args *a, struct ktrace_stream_opts *so);
void cli_stream_args_free(struct cli_stream_args *a);
/* --pid LIST / --comm LIST (comm true): appends each comma-separated name to *tasks in
 * command-line order; the copy of arg they point into is kept in *owned (the caller
 * frees it). 0, or -1 (out of memory). */
int cli_add_tasks(const char *arg, bool comm, char ***owned, size_t *nowned,
		  struct ktrace_stream_task **tasks, size_t *ntasks);
/* The buffers a live-system command acts on, from its options: -B NAME (appended to
 * *names, which t->instances points to once parsing is done), -t (top) and -a (all).
 * cli_target_option: 1 when c was one of them, 0 when not, -1 out of memory.
 * cli_target_check: 0, or CLI_USAGE after printing the problem (-a with -B). */
struct ktrace_tracefs_target;
int cli_target_option(int c, const char *arg, struct ktrace_tracefs_target *t, const char ***names);
int cli_target_check(const char *command, const struct ktrace_tracefs_target *t);

#endif
