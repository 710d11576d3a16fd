/* SPDX-License-Identifier: MIT */
/*
 * SQL over traces: the records of any input the event stream reads (<ktrace/stream.h>:
 * trace.dat, raw ftrace pages, Darwin ktrace, KOFF) as SQLite tables, one schema for
 * every format (docs/sql.md):
 *
 *   trace, process, thread            what each input is, its processes and threads
 *   event, args (and the view raw)    one row per record, one per field value
 *   sched_slice, thread_state         when threads ran, slept and waited for a CPU
 *   lost_events, counter_track,       lost-event marks, counters (CPU frequency and
 *   counter, slice                    idle, RSS, trace_marker "C|"), nested slices
 *                                     (Darwin START/END, trace_marker "B|"/"E|",
 *                                     KOFF "begin"/"end" records)
 *
 * Every table has trace_id, so that the traces of many machines load side by side.
 *
 * ktrace_sql_open walks the inputs once and builds the small derived tables in an
 * in-memory SQLite database; event and args are virtual tables that read the inputs
 * again when a query scans them (memory stays bounded by the stream's windows, not by
 * the trace). With a database file (opts.db_path), every table is written as a real
 * table into that file (under a temporary name, renamed when complete) so that other
 * tools (sqlite3) read it too; a file newer than every input, built from the same
 * inputs, is reused without reading the inputs.
 *
 * ktrace_sql_export writes the same tables as one SQLite file, or as a directory of
 * TSV or JSON-lines files (one per table) with the schema for SQLite and for
 * ClickHouse (MergeTree tables and a Distributed table over a cluster).
 *
 * Errors follow <ktrace/error.h>. The library never prints but to the ktrace_out it is
 * given.
 */
#ifndef KTRACE_SQL_H
#define KTRACE_SQL_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/out.h>
#include <ktrace/stream.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ktrace_sql;
struct sqlite3;

/* Options of ktrace_sql_open (declare them with KTRACE_OPTS: see ktrace/api.h). */
struct ktrace_sql_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	/* How the inputs are read (events directory of raw pages, Darwin trace codes,
	 * filters...); NULL: the defaults. Filters and CPU selections drop records from
	 * every table. */
	const struct ktrace_stream_opts *stream;
	/* Keep the database in this file: reused when it is newer than every input and
	 * was built from the same inputs, else built anew (never left half-built under
	 * this name). NULL: in memory. */
	const char *db_path;
	/* With db_path: build the file even when it could be reused. */
	bool rebuild;
};

/*
 * Builds the tables of paths[0..npaths) (npaths may be 0 with an existing db_path).
 * Returns 0 with *out set, or a negative code with err set (and *err_path, when
 * err_path is not NULL, the input concerned) when nothing could be read.
 *
 * An input that turns out damaged part way is not a failure of ktrace_sql_open: the
 * tables hold the records before the damage, and ktrace_sql_input_error says what and
 * where. A database file is then not kept (it would be reused as if complete).
 */
KTRACE_API int ktrace_sql_open(struct ktrace_sql **out, const char *const *paths, size_t npaths,
			       const struct ktrace_sql_opts *opts, struct ktrace_error *err,
			       const char **err_path);
KTRACE_API void ktrace_sql_close(struct ktrace_sql *q);

/* The damage met while reading the inputs: 0 when none, else its negative code with
 * err filled and *path (may be NULL) the file. */
KTRACE_API int ktrace_sql_input_error(const struct ktrace_sql *q, struct ktrace_error *err,
				      const char **path);
/* True when the tables come from an existing database file, not from the inputs. */
KTRACE_API bool ktrace_sql_reused(const struct ktrace_sql *q);

/* What building the tables took. */
struct ktrace_sql_stats {
	int64_t events;               /* event rows */
	int64_t threads, processes;
	uint64_t build_ns;            /* the walk that built the tables (0: reused file) */
	int64_t sqlite_bytes;         /* memory SQLite holds now (its pages and caches) */
	int64_t sqlite_peak_bytes;    /* the most it held */
};

KTRACE_API void ktrace_sql_stats(const struct ktrace_sql *q, struct ktrace_sql_stats *st);

/* The SQLite connection, for programs that run their own statements (sqlite3.h).
 * It stays owned by q. */
KTRACE_API struct sqlite3 *ktrace_sql_db(struct ktrace_sql *q);

/* How query results are printed. */
enum ktrace_sql_mode {
	KTRACE_SQL_TSV = 0,   /* a header line of column names, then one line per row,
			       * tab-separated, NULL as empty; tab, newline, carriage
			       * return and backslash escaped as \t \n \r \\ */
	KTRACE_SQL_CSV,       /* RFC 4180, with the header line */
	KTRACE_SQL_JSON,      /* one JSON array of objects per statement */
	KTRACE_SQL_BOX,       /* a table drawn with box characters */
};

/*
 * Runs the statements of sql (separated by ';') in order, printing each statement's
 * result to out as mode says (statements without result columns print nothing).
 * Returns 0; -EINVAL with SQLite's message in err when a statement fails (the results
 * of the statements before it are printed); -ENOMEM; or the output's write error.
 */
KTRACE_API int ktrace_sql_exec(struct ktrace_sql *q, const char *sql, enum ktrace_sql_mode mode,
			       struct ktrace_out *out, struct ktrace_error *err);
/* True when sql ends with a complete statement (for reading statements line by line). */
KTRACE_API bool ktrace_sql_complete(const char *sql);

/* Dialects of the schema text. */
enum ktrace_sql_dialect {
	KTRACE_SQL_SQLITE = 0,       /* CREATE TABLE and CREATE INDEX statements */
	KTRACE_SQL_CLICKHOUSE,       /* MergeTree tables <name>_local ordered by (trace_id,
				      * ts) and a Distributed table <name> over them */
};

/*
 * Writes the schema of every table (or of table only, when not NULL) in dialect to
 * out. cluster: the ClickHouse cluster of the Distributed tables (NULL: "ktrace").
 * Returns 0, or -ENOENT for an unknown table.
 */
KTRACE_API int ktrace_sql_schema(enum ktrace_sql_dialect dialect, const char *table,
				 const char *cluster, struct ktrace_out *out);

/* Formats of ktrace_sql_export. */
enum ktrace_sql_format {
	KTRACE_SQL_EXPORT_SQLITE = 0,   /* one SQLite database file */
	KTRACE_SQL_EXPORT_TSV,          /* a directory: TABLE.tsv per table (no header line,
					 * \N for NULL, backslash escapes: the text format of
					 * ClickHouse's TSV, PostgreSQL's COPY, MySQL's LOAD
					 * DATA), schema.sqlite.sql, schema.clickhouse.sql */
	KTRACE_SQL_EXPORT_JSONL,        /* a directory: TABLE.jsonl (one JSON object per row)
					 * and the two schema files */
};

struct ktrace_sql_export_opts {
	size_t sz;                   /* the struct's size: see KTRACE_OPTS in ktrace/api.h */
	const char *cluster;            /* ClickHouse cluster name (NULL: "ktrace") */
};

/*
 * Writes every table of q to path as format says. A database file, or a directory as a
 * whole, is built under a temporary name beside path and renamed when complete: a
 * failure (or a fatal signal) leaves path as it was. An existing directory is replaced
 * only when it holds nothing but the files of an earlier tsv or jsonl export (else
 * -ENOTEMPTY, before anything is written); an existing file or directory the caller
 * may not write is refused (-EACCES). Returns 0 or a negative code with err set (its
 * message names path).
 */
KTRACE_API int ktrace_sql_export(struct ktrace_sql *q, const char *path, enum ktrace_sql_format format,
				 const struct ktrace_sql_export_opts *opts, struct ktrace_error *err);

/* The tables, in the order of the schema (NULL past the last). */
KTRACE_API const char *ktrace_sql_table_name(size_t i);

#ifdef __cplusplus
}
#endif
#endif
