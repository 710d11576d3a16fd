/* SPDX-License-Identifier: MIT */
/* Shared by ktrace record and ktrace extract. */
#ifndef KTRACE_RECORD_CLI_H
#define KTRACE_RECORD_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <ktrace/tracefs.h>

/* Per-CPU figures of a stopped session on stderr; returns the events lost in total. */
unsigned long long record_cli_print_stats(const struct ktrace_tracefs_session *s, bool quiet);
/* Parses --file-version / --compression values into opts (usage error: returns 2). */
int record_cli_write_opts(const char *command, const char *version, const char *compression,
			  struct tracedat_write_opts *opts);

/* Writes the stopped session's file with a progress line (unless quiet), then says so.
 * 0, or a negative code with the error printed. */
int record_cli_write(struct ktrace_tracefs_session *s, const char *output,
		     struct tracedat_write_opts *wo, bool quiet, const char *command);
/* Where the per-CPU data of a recording waits: beside a file output, else $TMPDIR. */
void record_cli_tmpdir(const char *output, char *buf, size_t len);

#endif
