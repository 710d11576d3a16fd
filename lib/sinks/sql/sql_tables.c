// SPDX-License-Identifier: MIT
/*
 * The schema of ktrace sql: every table, its columns with their SQLite and ClickHouse
 * types, SQLite's indexes and ClickHouse's sorting keys, and the DDL text of both.
 * Every table has trace_id; ids (utid, upid, event id, ...) are unique within one
 * build, so that joins on (trace_id, id) hold when traces built apart are loaded
 * together.
 */
#include <errno.h>
#include <string.h>

#include "sinks/sql/sql_int.h"

#define I64 "Int64"
#define NI64 "Nullable(Int64)"
#define STR "String"
#define NSTR "Nullable(String)"

#define COLS(a) a, sizeof(a) / sizeof(a[0])

static const struct sql_column trace_cols[] = {
	{ "trace_id", "INTEGER", I64 },
	{ "path", "TEXT", STR },
	{ "format", "TEXT", STR },
	{ "hostname", "TEXT", STR },
	{ "machine", "TEXT", STR },
	{ "kernel_release", "TEXT", STR },
	{ "clock", "TEXT", STR },
	{ "cpus", "INTEGER", I64 },
	{ "start_ts", "INTEGER", NI64 },
	{ "end_ts", "INTEGER", NI64 },
	{ "events", "INTEGER", I64 },
	{ "lost", "INTEGER", I64 },
	{ "model_end_ts", "INTEGER", NI64 },
};

static const struct sql_column process_cols[] = {
	{ "upid", "INTEGER", I64 },
	{ "trace_id", "INTEGER", I64 },
	{ "pid", "INTEGER", I64 },
	{ "parent_upid", "INTEGER", NI64 },
	{ "name", "TEXT", NSTR },
	{ "cmdline", "TEXT", NSTR },
};

static const struct sql_column thread_cols[] = {
	{ "utid", "INTEGER", I64 },
	{ "trace_id", "INTEGER", I64 },
	{ "tid", "INTEGER", I64 },
	{ "upid", "INTEGER", NI64 },
	{ "name", "TEXT", NSTR },
	{ "is_idle", "INTEGER", "UInt8" },
};

static const struct sql_column event_cols[] = {
	{ "id", "INTEGER", I64 },
	{ "trace_id", "INTEGER", I64 },
	{ "ts", "INTEGER", I64 },
	{ "cpu", "INTEGER", NI64 },
	{ "utid", "INTEGER", NI64 },
	{ "subsystem", "TEXT", STR },
	{ "name", "TEXT", STR },
	{ "arg_set_id", "INTEGER", NI64 },
	{ "file_offset", "INTEGER", I64 },
};

static const struct sql_column args_cols[] = {
	{ "arg_set_id", "INTEGER", I64 },
	{ "trace_id", "INTEGER", I64 },
	{ "key", "TEXT", STR },
	{ "int_value", "INTEGER", NI64 },
	{ "string_value", "TEXT", NSTR },
	{ "real_value", "REAL", "Nullable(Float64)" },
	{ "value_type", "TEXT", STR },
};

static const struct sql_column sched_slice_cols[] = {
	{ "id", "INTEGER", I64 },
	{ "trace_id", "INTEGER", I64 },
	{ "ts", "INTEGER", I64 },
	{ "dur", "INTEGER", I64 },
	{ "cpu", "INTEGER", I64 },
	{ "utid", "INTEGER", I64 },
	{ "end_state", "TEXT", NSTR },
	{ "priority", "INTEGER", NI64 },
};

static const struct sql_column thread_state_cols[] = {
	{ "id", "INTEGER", I64 },
	{ "trace_id", "INTEGER", I64 },
	{ "ts", "INTEGER", I64 },
	{ "dur", "INTEGER", I64 },
	{ "cpu", "INTEGER", NI64 },
	{ "utid", "INTEGER", I64 },
	{ "state", "TEXT", STR },
	{ "waker_utid", "INTEGER", NI64 },
};

static const struct sql_column wakeup_latency_cols[] = {
	{ "trace_id", "INTEGER", I64 },
	{ "utid", "INTEGER", I64 },
	{ "ts", "INTEGER", I64 },
	{ "dur", "INTEGER", I64 },
	{ "cpu", "INTEGER", I64 },
	{ "waker_utid", "INTEGER", NI64 },
};

static const struct sql_column lost_cols[] = {
	{ "trace_id", "INTEGER", I64 },
	{ "cpu", "INTEGER", NI64 },
	{ "ts", "INTEGER", I64 },
	{ "count", "INTEGER", NI64 },
};

static const struct sql_column counter_track_cols[] = {
	{ "id", "INTEGER", I64 },
	{ "trace_id", "INTEGER", I64 },
	{ "name", "TEXT", STR },
	{ "cpu", "INTEGER", NI64 },
	{ "utid", "INTEGER", NI64 },
};

static const struct sql_column counter_cols[] = {
	{ "id", "INTEGER", I64 },
	{ "trace_id", "INTEGER", I64 },
	{ "track_id", "INTEGER", I64 },
	{ "ts", "INTEGER", I64 },
	{ "value", "REAL", "Float64" },
};

static const struct sql_column slice_cols[] = {
	{ "id", "INTEGER", I64 },
	{ "trace_id", "INTEGER", I64 },
	{ "ts", "INTEGER", I64 },
	{ "dur", "INTEGER", I64 },
	{ "cpu", "INTEGER", NI64 },
	{ "utid", "INTEGER", NI64 },
	{ "category", "TEXT", STR },
	{ "name", "TEXT", STR },
	{ "depth", "INTEGER", I64 },
	{ "parent_id", "INTEGER", NI64 },
	{ "arg_set_id", "INTEGER", NI64 },
};

static const char *const thread_idx[] = { "thread_tid(tid)", NULL };
static const char *const process_idx[] = { "process_pid(pid)", NULL };
static const char *const event_idx[] = { "event_ts(ts)", "event_name(name)", "event_utid(utid)", NULL };
static const char *const args_idx[] = { "args_set(arg_set_id)", NULL };
static const char *const sched_idx[] = { "sched_slice_utid(utid)", "sched_slice_cpu(cpu, ts)", NULL };
static const char *const state_idx[] = { "thread_state_utid(utid)", "thread_state_ts(ts)", NULL };
static const char *const latency_idx[] = { "wakeup_latency_utid(utid)", NULL };
static const char *const counter_idx[] = { "counter_track_ts(track_id, ts)", NULL };
static const char *const slice_idx[] = { "slice_utid(utid, ts)", "slice_name(name)", NULL };
static const char *const none[] = { NULL };

static const struct sql_table tables[] = {
	{ "trace", COLS(trace_cols), "trace_id", "trace_id", none, false },
	{ "process", COLS(process_cols), "upid", "(trace_id, upid)", process_idx, false },
	{ "thread", COLS(thread_cols), "utid", "(trace_id, utid)", thread_idx, false },
	{ "event", COLS(event_cols), "id", "(trace_id, ts)", event_idx, true },
	{ "args", COLS(args_cols), NULL, "(trace_id, arg_set_id)", args_idx, true },
	{ "sched_slice", COLS(sched_slice_cols), "id", "(trace_id, ts)", sched_idx, false },
	{ "thread_state", COLS(thread_state_cols), "id", "(trace_id, ts)", state_idx, false },
	{ "lost_events", COLS(lost_cols), NULL, "(trace_id, ts)", none, false },
	{ "counter_track", COLS(counter_track_cols), "id", "(trace_id, id)", none, false },
	{ "counter", COLS(counter_cols), "id", "(trace_id, ts)", counter_idx, false },
	{ "slice", COLS(slice_cols), "id", "(trace_id, ts)", slice_idx, false },
	{ "wakeup_latency", COLS(wakeup_latency_cols), NULL, "(trace_id, ts)", latency_idx, false },
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

size_t sql_table_count(void)
{
	return NTABLES;
}

const struct sql_table *sql_table_at(size_t i)
{
	return i < NTABLES ? &tables[i] : NULL;
}

const char *ktrace_sql_table_name(size_t i)
{
	return i < NTABLES ? tables[i].name : NULL;
}

const struct sql_table *sql_table_find(const char *name)
{
	for (size_t i = 0; i < NTABLES; i++)
		if (!strcmp(tables[i].name, name))
			return &tables[i];
	return NULL;
}

static void qualified(struct ktrace_out *b, const char *schema, const char *name)
{
	if (schema)
		kt_out_printf(b, "%s.", schema);
	kt_out_puts(b, name);
}

/* The views behind `ktrace summary`'s sections (docs/summary.md, docs/sql.md): the same
 * figures, to drill down from. SQLite only (window functions). An interval still open
 * at the end (dur -1) counts up to its trace's model_end_ts (docs/model.md). */
#define SLICE_NS "CASE WHEN s.dur >= 0 THEN s.dur ELSE max(tr.model_end_ts - s.ts, 0) END"
static const struct sql_view {
	const char *name, *select;
} views[] = {
	{ "cpu_usage_by_cpu",
	  "SELECT trace_id, cpu, sum(busy_ns) AS busy_ns, sum(idle_ns) AS idle_ns, "
	  "sum(irq_ns) AS irq_ns, sum(irq_count) AS irq_count, sum(softirq_ns) AS softirq_ns, "
	  "sum(softirq_count) AS softirq_count FROM ("
	  "SELECT s.trace_id, s.cpu, CASE WHEN t.tid != 0 THEN " SLICE_NS " ELSE 0 END AS busy_ns, "
	  "CASE WHEN t.tid = 0 THEN " SLICE_NS " ELSE 0 END AS idle_ns, 0 AS irq_ns, 0 AS irq_count, "
	  "0 AS softirq_ns, 0 AS softirq_count FROM sched_slice s JOIN thread t USING (trace_id, utid) "
	  "JOIN trace tr USING (trace_id) UNION ALL "
	  "SELECT trace_id, cpu, 0, 0, CASE WHEN category = 'irq' THEN dur ELSE 0 END, "
	  "category = 'irq', CASE WHEN category = 'softirq' THEN dur ELSE 0 END, "
	  "category = 'softirq' FROM slice WHERE category IN ('irq', 'softirq') AND dur >= 0) "
	  "GROUP BY trace_id, cpu" },
	{ "cpu_time_by_thread",
	  "SELECT s.trace_id, s.utid, t.tid, t.name, sum(" SLICE_NS ") AS cpu_ns, count(*) AS slices "
	  "FROM sched_slice s JOIN thread t USING (trace_id, utid) JOIN trace tr USING (trace_id) "
	  "WHERE t.tid != 0 GROUP BY s.trace_id, s.utid" },
	{ "cpu_time_by_process",
	  "SELECT t.trace_id, coalesce(p.pid, t.tid) AS pid, max(p.name) AS name, "
	  "count(*) AS threads, sum(coalesce(c.cpu_ns, 0)) AS cpu_ns "
	  "FROM thread t LEFT JOIN process p ON p.upid = t.upid "
	  "LEFT JOIN cpu_time_by_thread c ON c.trace_id = t.trace_id AND c.utid = t.utid "
	  "WHERE t.tid != 0 GROUP BY t.trace_id, coalesce(p.pid, t.tid)" },
	{ "wakeup_latency_by_thread",
	  "WITH r AS (SELECT trace_id, utid, dur, row_number() OVER w AS k, count(*) OVER "
	  "(PARTITION BY trace_id, utid) AS n FROM wakeup_latency WINDOW w AS "
	  "(PARTITION BY trace_id, utid ORDER BY dur)) "
	  "SELECT r.trace_id, r.utid, t.tid, t.name, max(n) AS count, "
	  "max(CASE WHEN k = (n * 50 + 99) / 100 THEN dur END) AS p50_ns, "
	  "max(CASE WHEN k = (n * 90 + 99) / 100 THEN dur END) AS p90_ns, "
	  "max(CASE WHEN k = (n * 99 + 99) / 100 THEN dur END) AS p99_ns, max(dur) AS max_ns "
	  "FROM r JOIN thread t USING (trace_id, utid) GROUP BY r.trace_id, r.utid" },
	{ "wait_time_by_thread",
	  "SELECT s.trace_id, s.utid, t.tid, t.name, "
	  "sum(CASE WHEN s.state IN ('R', 'R+') THEN " SLICE_NS " ELSE 0 END) AS runnable_ns, "
	  "sum(CASE WHEN s.state = 'S' THEN " SLICE_NS " ELSE 0 END) AS sleeping_ns, "
	  "sum(CASE WHEN s.state = 'D' THEN " SLICE_NS " ELSE 0 END) AS blocked_ns "
	  "FROM thread_state s JOIN thread t USING (trace_id, utid) JOIN trace tr USING (trace_id) "
	  "GROUP BY s.trace_id, s.utid" },
	{ "irq_by_handler",
	  "SELECT trace_id, name, count(*) AS count, sum(dur) AS ns FROM slice "
	  "WHERE category = 'irq' AND dur >= 0 GROUP BY trace_id, name" },
	{ "softirq_by_vector",
	  "SELECT trace_id, name, count(*) AS count, sum(dur) AS ns FROM slice "
	  "WHERE category = 'softirq' AND dur >= 0 GROUP BY trace_id, name" },
	{ "syscall_by_name",
	  "SELECT trace_id, name, count(*) AS count, sum(dur) AS ns FROM slice "
	  "WHERE category = 'syscall' AND dur >= 0 GROUP BY trace_id, name" },
	{ "syscall_by_process",
	  "SELECT s.trace_id, coalesce(p.pid, t.tid) AS pid, max(p.name) AS name, "
	  "count(*) AS count, sum(s.dur) AS ns FROM slice s JOIN thread t USING (trace_id, utid) "
	  "LEFT JOIN process p ON p.upid = t.upid WHERE s.category = 'syscall' AND s.dur >= 0 "
	  "GROUP BY s.trace_id, coalesce(p.pid, t.tid)" },
	{ "event_count_by_name",
	  "SELECT trace_id, subsystem, name, count(*) AS count FROM event "
	  "GROUP BY trace_id, subsystem, name" },
};

#define NVIEWS (sizeof(views) / sizeof(views[0]))

void sql_views_create(struct ktrace_out *b, const char *schema)
{
	for (size_t i = 0; i < NVIEWS; i++)
		kt_out_printf(b, "CREATE VIEW %s%s%s AS %s;\n", schema ? schema : "", schema ? "." : "",
			      views[i].name, views[i].select);
}

size_t sql_view_count(void)
{
	return NVIEWS;
}

void sql_table_create(struct ktrace_out *b, const struct sql_table *t, const char *schema)
{
	kt_out_puts(b, "CREATE TABLE ");
	qualified(b, schema, t->name);
	kt_out_puts(b, " (");
	for (size_t c = 0; c < t->ncols; c++) {
		kt_out_printf(b, "%s%s %s", c ? ", " : "", t->cols[c].name, t->cols[c].sqlite);
		if (t->key && !strcmp(t->key, t->cols[c].name))
			kt_out_puts(b, " PRIMARY KEY");
	}
	kt_out_puts(b, ");\n");
}

void sql_table_declare(struct ktrace_out *b, const struct sql_table *t)
{
	kt_out_printf(b, "CREATE TABLE %s (", t->name);
	for (size_t c = 0; c < t->ncols; c++)
		kt_out_printf(b, "%s%s %s", c ? ", " : "", t->cols[c].name, t->cols[c].sqlite);
	kt_out_puts(b, ")");
}

void sql_table_indexes(struct ktrace_out *b, const struct sql_table *t, const char *schema)
{
	for (const char *const *i = t->indexes; *i; i++) {
		const char *paren = strchr(*i, '(');

		kt_out_puts(b, "CREATE INDEX ");
		qualified(b, schema, "");
		kt_out_write(b, *i, (size_t)(paren - *i));
		kt_out_printf(b, " ON %s%s;\n", t->name, paren);
	}
}

static void clickhouse_table(struct ktrace_out *b, const struct sql_table *t, const char *cluster)
{
	kt_out_printf(b, "CREATE TABLE IF NOT EXISTS %s_local (\n", t->name);
	for (size_t c = 0; c < t->ncols; c++)
		kt_out_printf(b, "    %s %s%s\n", t->cols[c].name, t->cols[c].clickhouse,
			       c + 1 < t->ncols ? "," : "");
	kt_out_printf(b, ") ENGINE = MergeTree() ORDER BY %s;\n", t->order_by);
	kt_out_printf(b, "CREATE TABLE IF NOT EXISTS %s AS %s_local\n"
		       "    ENGINE = Distributed('%s', currentDatabase(), %s_local, trace_id);\n",
		       t->name, t->name, cluster, t->name);
}

int sql_schema_text(struct ktrace_out *b, enum ktrace_sql_dialect d, const char *table,
		    const char *cluster)
{
	const struct sql_table *only = NULL;

	if (table && !(only = sql_table_find(table)) && strcmp(table, "raw"))
		return -ENOENT;
	if (!cluster || !*cluster)
		cluster = "ktrace";
	if (d == KTRACE_SQL_CLICKHOUSE && !table)
		kt_out_printf(b, "-- ktrace sql tables for ClickHouse: on every server of cluster %s,\n"
			       "-- MergeTree tables NAME_local (load each trace into one server's),\n"
			       "-- and Distributed tables NAME over the cluster, sharded by trace_id.\n"
			       "-- Query with SET distributed_product_mode = 'local' so that joins\n"
			       "-- of two Distributed tables join each shard's own rows.\n",
			       cluster);
	if (d == KTRACE_SQL_SQLITE && !table)
		kt_out_puts(b, "-- ktrace sql tables for SQLite (docs/sql.md)\n");
	for (size_t i = 0; i < NTABLES; i++) {
		const struct sql_table *t = &tables[i];

		if (only && t != only)
			continue;
		if (table && !only)
			break;
		if (d == KTRACE_SQL_CLICKHOUSE) {
			clickhouse_table(b, t, cluster);
		} else {
			sql_table_create(b, t, NULL);
			sql_table_indexes(b, t, NULL);
		}
	}
	if (!table || !strcmp(table, "raw") || !strcmp(table, "event"))
		kt_out_puts(b, d == KTRACE_SQL_CLICKHOUSE
			     ? "CREATE VIEW IF NOT EXISTS raw AS SELECT * FROM event;\n"
			     : "CREATE VIEW raw AS SELECT * FROM event;\n");
	if (d == KTRACE_SQL_SQLITE && !table)
		sql_views_create(b, NULL);
	return b->error ? -ENOMEM : 0;
}

int ktrace_sql_schema(enum ktrace_sql_dialect dialect, const char *table, const char *cluster,
		      struct ktrace_out *out)
{
	struct ktrace_out b = KT_OUT_HEAP;
	int ret = sql_schema_text(&b, dialect, table, cluster);

	if (!ret)
		ktrace_out_write(out, kt_out_str(&b), b.len);
	kt_out_heap_free(&b);
	return ret;
}
