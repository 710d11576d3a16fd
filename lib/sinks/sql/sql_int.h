/* SPDX-License-Identifier: MIT */
/*
 * Inside ktrace sql (<ktrace/sql.h>): the schema (tables.c), the registries of traces,
 * threads, processes and names the build fills (registry.c), the derived tables
 * (sched.c, derive.c), the walk that builds them (build.c), the event and args
 * virtual tables (vtab.c), result printing (print.c) and the writers (export.c).
 */
#ifndef KTRACE_SQL_INT_H
#define KTRACE_SQL_INT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/sql.h>
#include <ktrace/stream.h>

#include "common/outbuf.h"
#include "common/hashmap.h"
#include "engine/engine.h"

/* ---- the schema (tables.c) ---- */

struct sql_column {
	const char *name;
	const char *sqlite;          /* "INTEGER", "TEXT", "REAL" */
	const char *clickhouse;      /* "Int64", "Nullable(String)"... */
};

struct sql_table {
	const char *name;
	const struct sql_column *cols;
	size_t ncols;
	const char *key;             /* the SQLite INTEGER PRIMARY KEY column, or NULL */
	const char *order_by;        /* ClickHouse sorting key */
	const char *const *indexes;  /* SQLite indexes: "name(columns)", NULL-terminated */
	bool streamed;               /* event, args: virtual tables over the stream */
};

size_t sql_table_count(void);
const struct sql_table *sql_table_at(size_t i);
const struct sql_table *sql_table_find(const char *name);
/* "CREATE TABLE schema.name (...)" for a real table (schema may be NULL). */
void sql_table_create(struct ktrace_out *b, const struct sql_table *t, const char *schema);
/* The column list "(a INTEGER, b TEXT, ...)" as a virtual table declares it. */
void sql_table_declare(struct ktrace_out *b, const struct sql_table *t);
/* Every CREATE INDEX of t (schema may be NULL). */
void sql_table_indexes(struct ktrace_out *b, const struct sql_table *t, const char *schema);
/* CREATE VIEW of every view of the summary's figures (schema may be NULL), and how many. */
void sql_views_create(struct ktrace_out *b, const char *schema);
size_t sql_view_count(void);
/* The whole schema in a dialect (one table when table is not NULL). */
int sql_schema_text(struct ktrace_out *b, enum ktrace_sql_dialect d, const char *table,
		    const char *cluster);

/* ---- registries (registry.c) ---- */

/* Events with a meaning for the derived tables. */
enum sql_kind {
	SQL_EV_PLAIN = 0,
	SQL_EV_SWITCH,               /* sched_switch */
	SQL_EV_WAKE,                 /* sched_waking, sched_wakeup, sched_wakeup_new */
	SQL_EV_FORK,                 /* sched_process_fork */
	SQL_EV_NEWTASK,              /* task_newtask */
	SQL_EV_EXEC,                 /* sched_process_exec */
	SQL_EV_CPU_FREQ,             /* power/cpu_frequency */
	SQL_EV_CPU_IDLE,             /* power/cpu_idle */
	SQL_EV_RSS,                  /* kmem/rss_stat */
	SQL_EV_PRINT,                /* ftrace/print (trace_marker) */
};

struct sql_name {
	const char *system, *name;   /* interned */
	enum sql_kind kind;
};

struct sql_trace {
	int64_t trace_id;
	const char *path;
	enum ktrace_format format;
	const char *format_name, *hostname, *machine, *release, *clock;
	uint32_t cpus;
	uint64_t start_ts, end_ts;
	uint64_t model_end_ts;       /* where intervals still open end (kt_model_input_end) */
	bool any;                    /* start_ts/end_ts are set */
	int64_t events, lost;
};

/* The walk's data of a thread (its input, tid, pid and name are in the thread table:
 * sql_thread_entry). */
struct sql_thread {
	bool is_idle;
	uint32_t open_slices;        /* slices open on this thread (depth of the next) */
	uint32_t top_slice;          /* the innermost open slice node + 1 (parent) */
	int64_t top_slice_id;        /* its slice id (the node is stale when it differs) */
};

/* The walk's data of a process (its input, pid and name are in the process table:
 * sql_process_entry). */
struct sql_process {
	int64_t parent_upid;         /* 0: unknown */
	char *cmdline;
};

struct sql_counter_track {
	uint32_t trace;
	const char *name;            /* interned */
	int32_t cpu;                 /* -1: none */
	int64_t utid;                /* 0: none */
};

/* An open slice (derive.c): a node of a per-key stack. */
struct sql_open_slice {
	uint64_t ts;
	int32_t cpu;
	int64_t utid;                /* 0: none */
	const char *category, *name; /* interned */
	uint32_t depth;
	int64_t id;                  /* the slice id it will have */
	int64_t parent_id;           /* 0: none */
	int64_t arg_set_id;          /* 0: none */
	uint32_t prev;               /* next node down the stack + 1 */
	uint32_t thread_prev;        /* the thread's enclosing slice node + 1 */
	int64_t thread_prev_id;      /* and its slice id */
	uint32_t trace;
};

/* Prepared inserts of the materialised tables. */
enum sql_ins {
	INS_TRACE, INS_PROCESS, INS_THREAD, INS_SCHED_SLICE, INS_THREAD_STATE, INS_LOST,
	INS_COUNTER_TRACK, INS_COUNTER, INS_SLICE, INS_WAKEUP_LATENCY, NINS
};

struct sql_idle_stream;

struct ktrace_sql {
	sqlite3 *db;
	bool reused;                 /* db is an existing file */
	char **paths;                /* the inputs as given */
	size_t npaths;
	/* what the streams open: paths[i], or /proc/self/fd/N of spool_fd[i], the copy
	 * of an input that can be read once (standard input, a FIFO: engine/spool.h),
	 * since every scan of event and args opens the inputs again */
	char **open_paths;
	int *spool_fd;
	struct ktrace_stream_opts sopts;
	struct ktrace_stream_filter *filters;
	struct ktrace_stream_task *tasks;
	int *cpus;
	char *events_dir, *codes_file;
	/* what the walk found */
	struct sql_trace *traces;    /* per input index */
	int64_t events;              /* event rows */
	uint64_t build_ns;
	int damage;                  /* the stream's error, 0 none */
	struct ktrace_error damage_err;
	const char *damage_path;
	/* registries */
	struct kt_strtab strings;    /* every text the tables keep */
	struct kt_map name_index;    /* hash of (system, name) -> name */
	struct sql_name *names;
	size_t nnames, cap_names;
	struct kt_threads threads;   /* (trace, tid): index utid - 1, data sql_thread */
	struct kt_threads procs;     /* (trace, pid): index upid - 1, data sql_process */
	struct kt_model *model;      /* the model the scheduling tables come from */
	struct kt_map track_index;   /* hash of (trace, cpu, name, utid) -> track id */
	struct sql_counter_track *tracks;
	size_t ntracks, cap_tracks;
	struct kt_map open_index;    /* slice key -> top node + 1 */
	struct sql_open_slice *open;
	size_t nopen, cap_open;
	uint32_t open_free;
	/* ids */
	int64_t next_state_id, next_sched_id, next_counter_id, next_slice_row;
	sqlite3_stmt *ins[NINS];
	/* streams of finished scans kept for the next (vtab.c) */
	struct sql_idle_stream *idle;
};

/* The trace of input index i. */
static inline struct sql_trace *sql_trace_of(struct ktrace_sql *q, uint32_t i)
{
	return i < q->npaths ? &q->traces[i] : NULL;
}

/* The interned name of a record, with its kind; NULL when out of memory. */
const struct sql_name *sql_name_of(struct ktrace_sql *q, const char *system, const char *name);
/* *utid: the utid of (trace, tid), created when new, or 0 (no thread) when tid < 0 (a
 * damaged or unknown id, never an error). Returns 0, or -ENOMEM (*utid 0): a failure is
 * never a thread id. */
int sql_thread_id(struct ktrace_sql *q, uint32_t trace, int64_t tid, int64_t *utid);
static inline struct sql_thread *sql_thread_at(struct ktrace_sql *q, int64_t utid)
{
	return utid > 0 && (size_t)utid <= q->threads.n ? kt_threads_ext(&q->threads, (size_t)utid - 1)
							: NULL;
}
/* The thread's entry: scope its trace, id its tid, pid, name. */
static inline struct kt_thread *sql_thread_entry(struct ktrace_sql *q, int64_t utid)
{
	return utid > 0 && (size_t)utid <= q->threads.n ? &q->threads.v[utid - 1] : NULL;
}
/* The utid of (trace, tid) when known, else 0 (read only: for the scans). */
int64_t sql_thread_find(const struct ktrace_sql *q, uint32_t trace, int64_t tid);
/* Sets a thread's name (copied) when it differs and is not empty: 0 or -ENOMEM. */
int sql_thread_set_name(struct ktrace_sql *q, int64_t utid, const char *name, size_t len);
/* Sets the process of a thread (creating the process): 0 or -ENOMEM. */
int sql_thread_set_pid(struct ktrace_sql *q, int64_t utid, int64_t pid);
/* *upid: the upid of (trace, pid), created when new, or 0 (no process) when pid < 0.
 * Returns 0, or -ENOMEM (*upid 0). */
int sql_process_id(struct ktrace_sql *q, uint32_t trace, int64_t pid, int64_t *upid);
static inline struct sql_process *sql_process_at(struct ktrace_sql *q, int64_t upid)
{
	return upid > 0 && (size_t)upid <= q->procs.n ? kt_threads_ext(&q->procs, (size_t)upid - 1)
						      : NULL;
}
/* The process's entry: scope its trace, id its pid, name. */
static inline struct kt_thread *sql_process_entry(struct ktrace_sql *q, int64_t upid)
{
	return upid > 0 && (size_t)upid <= q->procs.n ? &q->procs.v[upid - 1] : NULL;
}
int sql_set_text(char **dst, const char *s, size_t len);
/* A stable trace_id for an input: a hash of its size and first bytes. */
int64_t sql_trace_hash(const char *path, uint32_t index);   /* > 0, or -ENOMEM */
void sql_registry_free(struct ktrace_sql *q);

/* ---- derived tables (sched.c, derive.c) ---- */

/* The record is the current one of s (its fields can be read). Each returns 0 or a
 * negative code (out of memory, SQLite failure) with err set. */
int sql_sched_record(struct ktrace_sql *q, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		     const struct sql_name *n, int64_t utid, int64_t id, struct ktrace_error *err);
int sql_derive_record(struct ktrace_sql *q, struct ktrace_stream *s,
		      const struct ktrace_stream_record *r, const struct sql_name *n, int64_t utid,
		      int64_t id, struct ktrace_error *err);
/* The model of q's inputs (q->model), handing its intervals to the tables. */
int sql_model_open(struct ktrace_sql *q, struct ktrace_error *err, const char **err_path);
/* At the end of the walk: the open intervals with dur -1. */
int sql_derive_finish(struct ktrace_sql *q, struct ktrace_error *err);
int sql_lost_record(struct ktrace_sql *q, const struct ktrace_stream_record *r,
		    struct ktrace_error *err);


/* Runs a prepared insert with its values bound: 0 or -EIO with SQLite's message. */
int sql_insert(struct ktrace_sql *q, enum sql_ins which, struct ktrace_error *err);
/* Binds an integer, or NULL when null. */
struct kt_json;
/* A result column as a JSON value: reals as SQLite prints them, or with exact all 17
 * digits; blobs in hex. */
void sql_json_column(struct kt_json *j, sqlite3_stmt *st, int c, bool exact);
void sql_bind_i64(sqlite3_stmt *st, int col, int64_t v, bool null);
void sql_bind_text(sqlite3_stmt *st, int col, const char *s, bool null);
/* Runs sql (statements without results): 0, or -ENOMEM/-ENOSPC/-EIO with SQLite's
 * message. */
int sql_exec(sqlite3 *db, const char *sql, struct ktrace_error *err);
/* The current record's integer field name (signed or unsigned): false when it has none. */
bool sql_field_int(struct ktrace_stream *s, const char *name, int64_t *v);
/* SQLite's error as ours. */
int sql_db_error(sqlite3 *db, int rc, struct ktrace_error *err, const char *what);

/* ---- virtual tables (vtab.c) ---- */

int sql_vtab_register(struct ktrace_sql *q, struct ktrace_error *err);
void sql_vtab_free_idle(struct ktrace_sql *q);

/* ---- building (build.c) ---- */

/* Database files of ktrace sql: SQLite's application_id ("ktsq") and user_version (the
 * schema's version: a file of another version is built anew). */
#define SQL_APPLICATION_ID 0x6b747371
#define SQL_SCHEMA_VERSION 4

/* Creates the materialised tables in db's schema ("main"...) without indexes. */
int sql_create_tables(sqlite3 *db, const char *schema, bool streamed_too, struct ktrace_error *err);
int sql_create_indexes(sqlite3 *db, const char *schema, bool streamed_too, struct ktrace_error *err);
/* Writes every table as real tables into a new database file at path (temporary +
 * rename). */
int sql_write_db(struct ktrace_sql *q, const char *path, struct ktrace_error *err);

#endif
