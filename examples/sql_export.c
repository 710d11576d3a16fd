// SPDX-License-Identifier: MIT
/*
 * sql_export: the tables of ktrace sql written out, through <ktrace/sql.h>.
 *
 *   sql_export --format sqlite|tsv|jsonl [--clickhouse-cluster NAME] -o OUT FILE...
 *   sql_export --schema sqlite|clickhouse [--clickhouse-cluster NAME]
 *
 * sqlite: OUT is one database file; tsv, jsonl: OUT is a directory with one file per
 * table (TABLE.tsv or TABLE.jsonl), schema.sqlite.sql and schema.clickhouse.sql.
 * --schema prints the DDL of every table.
 *
 * Build: cc -o sql_export sql_export.c $(pkg-config --cflags --libs ktrace)
 */
#include <ktrace/ktrace.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: sql_export --format sqlite|tsv|jsonl [--clickhouse-cluster NAME] "
		"-o OUT FILE...\n       sql_export --schema sqlite|clickhouse [--clickhouse-cluster NAME]\n");
	return 2;
}

int main(int argc, char **argv)
{
	KTRACE_OPTS(ktrace_sql_export_opts, eo);
	struct ktrace_error err = { 0 };
	const char *format = NULL, *out = NULL, *schema = NULL, *path = NULL;
	const char *files[64];
	size_t nfiles = 0;
	enum ktrace_sql_format f;
	struct ktrace_sql *q;
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64];
	int ret, damage;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--clickhouse-cluster") && i + 1 < argc)
			eo.cluster = argv[++i];
		else if (!strcmp(argv[i], "--schema") && i + 1 < argc)
			schema = argv[++i];
		else if (argv[i][0] == '-' || nfiles == sizeof(files) / sizeof(files[0]))
			return usage();
		else
			files[nfiles++] = argv[i];
	}
	if (schema) {
		struct ktrace_out *o = ktrace_out_new(STDOUT_FILENO);

		if (!o)
			return 1;
		ret = ktrace_sql_schema(!strcmp(schema, "clickhouse") ? KTRACE_SQL_CLICKHOUSE : KTRACE_SQL_SQLITE,
					NULL, eo.cluster, o);
		ret = ret ? ret : ktrace_out_flush(o);
		ktrace_out_free(o);
		return ret ? 1 : 0;
	}
	if (!format || !out || !nfiles)
		return usage();
	if (!strcmp(format, "sqlite"))
		f = KTRACE_SQL_EXPORT_SQLITE;
	else if (!strcmp(format, "tsv"))
		f = KTRACE_SQL_EXPORT_TSV;
	else if (!strcmp(format, "jsonl"))
		f = KTRACE_SQL_EXPORT_JSONL;
	else
		return usage();
	if (ktrace_sql_open(&q, files, nfiles, NULL, &err, &path)) {
		fprintf(stderr, "sql_export: %s%s%s\n", path ? path : "", path ? ": " : "",
			ktrace_error_format(&err, msg, sizeof(msg)));
		return 1;
	}
	/* a damaged input: the rows before the damage are written, and the exit says so */
	damage = ktrace_sql_input_error(q, &err, &path);
	if (damage)
		fprintf(stderr, "sql_export: %s%s%s\n", path ? path : "", path ? ": " : "",
			ktrace_error_format(&err, msg, sizeof(msg)));
	ret = ktrace_sql_export(q, out, f, &eo, &err);
	if (ret)
		fprintf(stderr, "sql_export: %s: %s\n", out, ktrace_error_format(&err, msg, sizeof(msg)));
	ktrace_sql_close(q);
	return ret || damage ? 1 : 0;
}
