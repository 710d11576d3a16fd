/* SPDX-License-Identifier: MIT */
/* Command-line options shared by the subcommands that read Darwin kdebug data. */
#ifndef KTRACE_SRC_DARWIN_CLI_H
#define KTRACE_SRC_DARWIN_CLI_H

#include <getopt.h>

#include <ktrace/view.h>

enum {
	DARWIN_OPT_CSV = 0x200,
	DARWIN_OPT_PID,
	DARWIN_OPT_PROCESS,
	DARWIN_OPT_RAW_V0,
	DARWIN_OPT_TIMEBASE,
	DARWIN_OPT_CODES,        /* also -C */
	DARWIN_OPT_FILTER,       /* also -f */
	DARWIN_OPT_DURATIONS,
};

/* Entries for a getopt_long table. */
#define DARWIN_CLI_LONG_OPTIONS                                                    \
	{ "csv",        no_argument,       NULL, DARWIN_OPT_CSV },                 \
	{ "pid",        required_argument, NULL, DARWIN_OPT_PID },                 \
	{ "process",    required_argument, NULL, DARWIN_OPT_PROCESS },             \
	{ "raw-v0",     no_argument,       NULL, DARWIN_OPT_RAW_V0 },              \
	{ "timebase",   required_argument, NULL, DARWIN_OPT_TIMEBASE },            \
	{ "codes",      required_argument, NULL, DARWIN_OPT_CODES },               \
	{ "filter",     required_argument, NULL, DARWIN_OPT_FILTER },              \
	{ "durations",  no_argument,       NULL, DARWIN_OPT_DURATIONS }

struct darwin_cli {
	struct ktrace_view_darwin_opts view;    /* view.kdebug: &kdebug (darwin_cli_ready) */
	struct ktrace_darwin_opts kdebug;
	struct ktrace_darwin_codes *codes;
	struct ktrace_darwin_filter *filter;
	int32_t *pids;
	const char **procs;
	bool raw_v0;
};

/* Handles one option (c is a DARWIN_OPT_* value, or 'C' / 'f'). Returns 0, or the
 * exit status of a usage error / unreadable codes file. */
int darwin_cli_option(struct darwin_cli *d, const char *command, int c, const char *arg);
/* Sets the sizes of the option structs and points view.kdebug at kdebug: call once d
 * is where it stays, before view is passed on. */
void darwin_cli_ready(struct darwin_cli *d);
void darwin_cli_free(struct darwin_cli *d);

#endif
