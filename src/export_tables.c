// SPDX-License-Identifier: MIT
/*
 * ktrace export --format sqlite|tsv|jsonl: the tables of ktrace sql (<ktrace/sql.h>,
 * docs/sql.md) written out for other tools: one SQLite file, or a directory of TSV or
 * JSON-lines files with the DDL for SQLite and ClickHouse.
 *
 * export_tables_run() is the whole command for these formats. Until `ktrace export`
 * has its trace formats (Perfetto, Chrome JSON: issue 15), this file also defines the
 * command itself; once it has, that command hands these three formats to
 * export_tables_run() (export_tables_format() tells them apart) and cli_export below
 * goes.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <ktrace/sql.h>

#include "cli.h"
#include "export_tables.h"

static const char export_tables_help[] =
"NAME\n"
"    ktrace export - write the SQL tables of traces for other tools\n"
"\n"
"SYNOPSIS\n"
"    ktrace export --format sqlite|tsv|jsonl -o OUT [OPTIONS] FILE...\n"
"\n"
"DESCRIPTION\n"
"    Reads every FILE (trace.dat, raw ftrace pages, Darwin ktrace files and kdebug\n"
"    streams, KOFF buffers, snapshots and core files) into the tables of 'ktrace sql'\n"
"    (trace, process, thread, event, args, sched_slice, thread_state, lost_events,\n"
"    counter_track, counter, slice; docs/sql.md has every column) and writes them:\n"
"\n"
"    sqlite  OUT is one SQLite database file: every table a real one, with its\n"
"            indexes and the view raw (sqlite3 OUT reads it).\n"
"    tsv     OUT is a directory with TABLE.tsv for every table: no header line,\n"
"            columns in the schema's order, \\N for NULL, tab, newline, carriage\n"
"            return, NUL and backslash escaped (\\t \\n \\r \\0 \\\\): the text format of\n"
"            ClickHouse's TSV, PostgreSQL's COPY and MySQL's LOAD DATA.\n"
"    jsonl   OUT is a directory with TABLE.jsonl, one JSON object per row.\n"
"\n"
"    A directory also gets schema.sqlite.sql (CREATE TABLE and CREATE INDEX) and\n"
"    schema.clickhouse.sql (MergeTree tables NAME_local ordered by (trace_id, ts),\n"
"    and Distributed tables NAME over a cluster, sharded by trace_id). The directory\n"
"    is created (it may exist); files are written under temporary names and renamed\n"
"    when complete. Every table has trace_id, a hash of the file's size and first\n"
"    MiB: the traces of many machines exported apart load side by side\n"
"    (docs/fleet.md).\n"
"\n"
"OPTIONS\n"
"    -o, --output OUT\n"
"        The database file or the directory to write.\n"
"    --format sqlite|tsv|jsonl\n"
"        What to write (required).\n"
"    --clickhouse-cluster NAME\n"
"        The cluster of the Distributed tables in schema.clickhouse.sql (default\n"
"        ktrace).\n"
"    -C, --codes FILE\n"
"        Darwin: event names from a trace codes file.\n"
"    -e, --events-dir DIR\n"
"        Raw ftrace pages: a tracefs events directory (or a copy) for the event\n"
"        names and fields.\n"
"    --partial\n"
"        When an input turns out damaged, write the tables of the records before\n"
"        the damage (the exit status is 1 either way; without --partial nothing\n"
"        is written).\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace export --format sqlite -o trace.db trace.dat; sqlite3 trace.db .tables\n"
"    ktrace export --format tsv --clickhouse-cluster fleet -o host1 host1.dat\n"
"    clickhouse-client --multiquery < host1/schema.clickhouse.sql\n"
"    clickhouse-client --query 'INSERT INTO event_local FORMAT TSV' < host1/event.tsv\n"
"    ktrace export --format jsonl -o mac capture.ktrace\n"
"\n"
"EXIT STATUS\n"
"    0 when every record was exported; 1 when an input is damaged (the error says\n"
"    where) or OUT cannot be written; 2 for usage errors.\n";

enum { OPT_FORMAT = 256, OPT_CLUSTER, OPT_PARTIAL };

static const struct option export_tables_options[] = {
	{ "output",             required_argument, NULL, 'o' },
	{ "format",             required_argument, NULL, OPT_FORMAT },
	{ "clickhouse-cluster", required_argument, NULL, OPT_CLUSTER },
	{ "codes",              required_argument, NULL, 'C' },
	{ "events-dir",         required_argument, NULL, 'e' },
	{ "partial",            no_argument,       NULL, OPT_PARTIAL },
	{ "help",               no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct {
	const char *name;
	enum ktrace_sql_format format;
} table_formats[] = {
	{ "sqlite", KTRACE_SQL_EXPORT_SQLITE },
	{ "tsv", KTRACE_SQL_EXPORT_TSV },
	{ "jsonl", KTRACE_SQL_EXPORT_JSONL },
};

#define NTABLE_FORMATS (sizeof(table_formats) / sizeof(table_formats[0]))

bool export_tables_format(const char *name)
{
	for (size_t i = 0; i < NTABLE_FORMATS; i++)
		if (!strcmp(name, table_formats[i].name))
			return true;
	return false;
}

int export_tables_run(int argc, char **argv)
{
	struct ktrace_stream_opts so = { .size = sizeof(so) };
	struct ktrace_sql_opts o = { .size = sizeof(o), .stream = &so };
	struct ktrace_sql_export_opts eo = { .size = sizeof(eo) };
	struct ktrace_error err = { 0 };
	const char *out = NULL, *format = NULL, *err_path = NULL;
	enum ktrace_sql_format f = KTRACE_SQL_EXPORT_SQLITE;
	struct ktrace_sql *q;
	bool partial = false;
	int c, damage, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:C:e:h", export_tables_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		case OPT_CLUSTER:
			eo.cluster = optarg;
			break;
		case 'C':
			so.codes_file = optarg;
			break;
		case 'e':
			so.events_dir = optarg;
			break;
		case OPT_PARTIAL:
			partial = true;
			break;
		case 'h':
			cli_print_help(&cli_export);
			return CLI_OK;
		default:
			return cli_usage_error("export", "invalid option");
		}
	}
	if (!format)
		return cli_usage_error("export", "--format sqlite, tsv or jsonl is needed");
	if (!export_tables_format(format))
		return cli_usage_error("export", "unknown format '%s' (sqlite, tsv or jsonl)", format);
	for (size_t i = 0; i < NTABLE_FORMATS; i++)
		if (!strcmp(format, table_formats[i].name))
			f = table_formats[i].format;
	if (!out || !*out)
		return cli_usage_error("export", "-o OUT is needed (a %s)",
				       f == KTRACE_SQL_EXPORT_SQLITE ? "database file" : "directory");
	if (!strcmp(out, "-"))
		return cli_usage_error("export", "%s is written to a file, not to standard output", format);
	if (optind == argc)
		return cli_usage_error("export", "a trace file is needed");

	ret = ktrace_sql_open(&q, (const char *const *)argv + optind, (size_t)(argc - optind), &o,
			      &err, &err_path);
	if (ret) {
		cli_error(err_path, &err);
		return CLI_FAILED;
	}
	damage = ktrace_sql_input_error(q, &err, &err_path);
	if (damage) {
		cli_error(err_path, &err);
		if (!partial) {
			cli_errorf(out, "not written: an input is damaged (--partial writes the "
				   "records before the damage)");
			ktrace_sql_close(q);
			return CLI_FAILED;
		}
	}
	ret = ktrace_sql_export(q, out, f, &eo, &err);
	if (ret)
		cli_error(out, &err);
	ktrace_sql_close(q);
	return ret || damage ? CLI_FAILED : CLI_OK;
}

/* The command while `ktrace export` has only these formats (see the top). */
const struct cli_command cli_export = {
	.name = "export",
	.summary = "write the SQL tables of traces as SQLite, TSV or JSON lines",
	.help = export_tables_help,
	.run = export_tables_run,
};
