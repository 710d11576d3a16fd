/* SPDX-License-Identifier: MIT */
/* ktrace export of the SQL tables (sqlite, tsv, jsonl): src/export_tables.c. */
#ifndef KTRACE_EXPORT_TABLES_H
#define KTRACE_EXPORT_TABLES_H

#include <stdbool.h>
#include <stddef.h>

#include <ktrace/sql.h>

/* What `ktrace export` (src/export.c, which parsed the command line) asks for. */
struct export_tables_args {
	const char *out;                /* the database file or directory */
	enum ktrace_sql_format format;
	const char *codes, *events_dir; /* -C, -e */
	const char *cluster;            /* --clickhouse-cluster, or NULL */
	bool partial;
};

/* Builds the tables of the n inputs and writes them: the exit status. */
int export_tables_write(const struct export_tables_args *a, const char *const *inputs, size_t n);

#endif
