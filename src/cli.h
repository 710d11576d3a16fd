/* SPDX-License-Identifier: MIT */
/* The ktrace command line: one file per subcommand, each defining a cli_command. */
#ifndef KTRACE_CLI_H
#define KTRACE_CLI_H

#include <stdint.h>

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
/* The error for a format the command does not handle (or an unrecognised one). */
int cli_input_unhandled(struct cli_input *ci);
/* Flushes the output, prints the error when ret < 0, closes; returns the exit status. */
int cli_input_finish(struct cli_input *ci, int ret);

/* Flushes and frees out (NULL is fine); a write error other than EPIPE becomes the
 * result when ret is 0. Returns ret. */
int cli_out_finish(struct ktrace_out *out, struct ktrace_error *err, int ret);

/* `ktrace: FILE: offset 0x..: message` on stderr. file may be NULL. */
void cli_error(const char *file, const struct ktrace_error *err);
void cli_errorf(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For a bad option: the message, then "Try 'ktrace help NAME'." Returns CLI_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints a command's manual to stdout. */
void cli_print_help(const struct cli_command *cmd);
/* Parses a size such as 4096, 8k, 1M. Returns 0 or -1. */
int cli_parse_size(const char *s, unsigned long long *out);
/* Room for element n (0-based) of an array of elem-byte elements: 0, or -1 (out of
 * memory, the array unchanged). */
int cli_grow(void **arr, size_t n, size_t elem);

#endif
