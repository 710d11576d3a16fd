// SPDX-License-Identifier: MIT
/*
 * ktrace export --format sqlite|tsv|jsonl: the tables of ktrace sql (<ktrace/sql.h>,
 * docs/sql.md) written out for other tools: one SQLite file, or a directory of TSV or
 * JSON-lines files with the DDL for SQLite and ClickHouse. The command and its options
 * are src/export.c's; it hands these formats here.
 */
#include <stdio.h>

#include <ktrace/sql.h>

#include "cli.h"
#include "export_tables.h"

int export_tables_write(const struct export_tables_args *a, const char *const *inputs, size_t n)
{
	KTRACE_OPTS(ktrace_stream_opts, so);
	KTRACE_OPTS(ktrace_sql_opts, o, .stream = &so);
	KTRACE_OPTS(ktrace_sql_export_opts, eo);
	struct ktrace_error err = { 0 };
	const char *err_path = NULL;
	struct ktrace_sql *q;
	int damage, ret;

	so.codes_file = a->codes;
	so.events_dir = a->events_dir;
	eo.cluster = a->cluster;
	ret = ktrace_sql_open(&q, inputs, n, &o, &err, &err_path);
	if (ret) {
		cli_error(err_path, &err);
		return CLI_FAILED;
	}
	damage = ktrace_sql_input_error(q, &err, &err_path);
	if (damage) {
		/* one line: the error, and what becomes of OUT */
		if (!a->partial) {
			cli_error_and(err_path, &err, "%s not written (--partial writes the records "
				      "before the damage)", a->out);
			ktrace_sql_close(q);
			return CLI_FAILED;
		}
		cli_error_and(err_path, &err, "%s gets the records before it (--partial)", a->out);
	}
	ret = ktrace_sql_export(q, a->out, a->format, &eo, &err);
	if (ret)
		cli_error(NULL, &err);      /* (the message names OUT) */
	ktrace_sql_close(q);
	return ret || damage ? CLI_FAILED : CLI_OK;
}
