/* SPDX-License-Identifier: MIT */
/* ktrace export of the SQL tables (sqlite, tsv, jsonl): src/export_tables.c. */
#ifndef KTRACE_EXPORT_TABLES_H
#define KTRACE_EXPORT_TABLES_H

#include <stdbool.h>

/* True for the formats export_tables_run writes: sqlite, tsv, jsonl. */
bool export_tables_format(const char *name);
/* `ktrace export --format sqlite|tsv|jsonl ...` (argv[0] the command name): the exit
 * status. */
int export_tables_run(int argc, char **argv);

#endif
