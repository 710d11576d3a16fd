// SPDX-License-Identifier: MIT
/*
 * ktrace_sql_open: one walk of the event stream builds the derived tables (trace,
 * process, thread, sched_slice, thread_state, lost_events, counters, slices) in an
 * in-memory SQLite database, and counts the events; event and args are then virtual
 * tables over the stream (vtab.c). With a database file, every table is written into
 * it (export.c), or an up-to-date file is opened instead of reading the inputs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/check.h"
#include "common/opts.h"
#include "engine/engine.h"
#include "sinks/sql/sql_int.h"

int sql_db_error(sqlite3 *db, int rc, struct ktrace_error *err, const char *what)
{
	int code = rc == SQLITE_NOMEM ? -ENOMEM : rc == SQLITE_FULL ? -ENOSPC : -EIO;

	return ktrace_error_set(err, code, "%s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

void sql_bind_i64(sqlite3_stmt *st, int col, int64_t v, bool null)
{
	if (null)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, v);
}

void sql_bind_text(sqlite3_stmt *st, int col, const char *s, bool null)
{
	if (null || !s)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
}

int sql_insert(struct ktrace_sql *q, enum sql_ins which, struct ktrace_error *err)
{
	sqlite3_stmt *st = q->ins[which];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sql_db_error(q->db, rc, err, "building the tables");
	return 0;
}

int sql_exec(sqlite3 *db, const char *sql, struct ktrace_error *err)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		int code = rc == SQLITE_NOMEM ? -ENOMEM : rc == SQLITE_FULL ? -ENOSPC : -EIO;

		ktrace_error_set(err, code, "%s", msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return code;
	}
	return 0;
}

int sql_create_tables(sqlite3 *db, const char *schema, bool streamed_too, struct ktrace_error *err)
{
	struct ktrace_out b = KT_OUT_HEAP;
	int ret;

	for (size_t i = 0; i < sql_table_count(); i++) {
		const struct sql_table *t = sql_table_at(i);

		if (!t->streamed || streamed_too)
			sql_table_create(&b, t, schema);
	}
	ret = b.error ? kt_error_oom(err) : sql_exec(db, kt_out_str(&b), err);
	kt_out_heap_free(&b);
	return ret;
}

int sql_create_indexes(sqlite3 *db, const char *schema, bool streamed_too, struct ktrace_error *err)
{
	struct ktrace_out b = KT_OUT_HEAP;
	int ret;

	for (size_t i = 0; i < sql_table_count(); i++) {
		const struct sql_table *t = sql_table_at(i);

		if (!t->streamed || streamed_too)
			sql_table_indexes(&b, t, schema);
	}
	ret = b.error ? kt_error_oom(err) : sql_exec(db, kt_out_str(&b), err);
	kt_out_heap_free(&b);
	return ret;
}

static int prepare_inserts(struct ktrace_sql *q, struct ktrace_error *err)
{
	static const char *const names[NINS] = {
		[INS_TRACE] = "trace", [INS_PROCESS] = "process", [INS_THREAD] = "thread",
		[INS_SCHED_SLICE] = "sched_slice", [INS_THREAD_STATE] = "thread_state",
		[INS_LOST] = "lost_events", [INS_COUNTER_TRACK] = "counter_track",
		[INS_COUNTER] = "counter", [INS_SLICE] = "slice",
		[INS_WAKEUP_LATENCY] = "wakeup_latency",
	};

	for (int i = 0; i < NINS; i++) {
		const struct sql_table *t = sql_table_find(names[i]);
		struct ktrace_out b = KT_OUT_HEAP;
		int rc;

		kt_out_printf(&b, "INSERT INTO main.%s VALUES (", t->name);
		for (size_t c = 0; c < t->ncols; c++)
			kt_out_puts(&b, c ? ", ?" : "?");
		kt_out_puts(&b, ")");
		if (b.error) {
			kt_out_heap_free(&b);
			return kt_error_oom(err);
		}
		rc = sqlite3_prepare_v2(q->db, kt_out_str(&b), -1, &q->ins[i], NULL);
		kt_out_heap_free(&b);
		if (rc != SQLITE_OK)
			return sql_db_error(q->db, rc, err, "preparing the tables");
	}
	return 0;
}

/* ---- options kept for the scans, which open the stream again ---- */

static char *dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int copy_opts(struct ktrace_sql *q, const char *const *paths, size_t n,
		     const struct ktrace_stream_opts *so)
{
	q->paths = calloc(n ? n : 1, sizeof(*q->paths));
	q->open_paths = calloc(n ? n : 1, sizeof(*q->open_paths));
	q->spool_fd = malloc((n ? n : 1) * sizeof(*q->spool_fd));
	if (!q->paths || !q->open_paths || !q->spool_fd)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		q->spool_fd[i] = -1;
		if (!(q->paths[i] = strdup(paths[i])))
			return -ENOMEM;
		q->open_paths[i] = q->paths[i];
		q->npaths = i + 1;
	}
	/* the streams read open_paths (a copy of standard input is /proc/self/fd/N): their
	 * errors and damaged places name the inputs as the user did */
	q->sopts.names = (const char *const *)q->paths;
	if (!so)
		return 0;
	if (q->sopts.nfilters) {
		q->filters = calloc(q->sopts.nfilters, sizeof(*q->filters));
		if (!q->filters)
			return -ENOMEM;
		for (size_t i = 0; i < q->sopts.nfilters; i++) {
			q->filters[i] = so->filters[i];
			if (!(q->filters[i].text = dup_str(so->filters[i].text)))
				return -ENOMEM;
		}
		q->sopts.filters = q->filters;
	}
	if (q->sopts.ntasks) {
		q->tasks = calloc(q->sopts.ntasks, sizeof(*q->tasks));
		if (!q->tasks)
			return -ENOMEM;
		for (size_t i = 0; i < q->sopts.ntasks; i++) {
			q->tasks[i] = so->tasks[i];
			if (!(q->tasks[i].name = dup_str(so->tasks[i].name)))
				return -ENOMEM;
		}
		q->sopts.tasks = q->tasks;
	}
	if (q->sopts.ncpus && so->cpus) {
		q->cpus = malloc(q->sopts.ncpus * sizeof(*q->cpus));
		if (!q->cpus)
			return -ENOMEM;
		memcpy(q->cpus, so->cpus, q->sopts.ncpus * sizeof(*q->cpus));
		q->sopts.cpus = q->cpus;
	}
	if (so->events_dir && !(q->events_dir = strdup(so->events_dir)))
		return -ENOMEM;
	q->sopts.events_dir = q->events_dir;
	if (so->codes_file && !(q->codes_file = strdup(so->codes_file)))
		return -ENOMEM;
	q->sopts.codes_file = q->codes_file;
	return 0;
}

/* ---- the walk ---- */

/* Names of recent events, by (input, event id): a direct-mapped cache in front of the
 * name table (the pointers and texts are compared, as some formats reuse buffers). */
#define NAME_CACHE 1024

struct name_cache {
	uint32_t source, event_id;
	const char *system_ptr, *name_ptr;
	size_t n;                    /* name index + 1 (the table moves as it grows) */
};

static const struct sql_name *name_lookup(struct ktrace_sql *q, struct name_cache *cache,
					  const struct ktrace_stream_record *r)
{
	struct name_cache *c = &cache[(r->event_id * 31u + r->source) & (NAME_CACHE - 1)];
	const struct sql_name *n = c->n ? &q->names[c->n - 1] : NULL;

	if (n && c->source == r->source && c->event_id == r->event_id &&
	    c->name_ptr == r->name && c->system_ptr == r->system && !strcmp(n->name, r->name) &&
	    !strcmp(n->system, r->system))
		return n;
	n = sql_name_of(q, r->system, r->name);
	c->n = n ? (size_t)(n - q->names) + 1 : 0;
	c->source = r->source;
	c->event_id = r->event_id;
	c->name_ptr = r->name;
	c->system_ptr = r->system;
	return n;
}

static bool is_format(const struct sql_trace *t, enum ktrace_format a, enum ktrace_format b)
{
	return t->format == a || t->format == b;
}

static const char *keep(struct ktrace_sql *q, const char *s)
{
	return kt_intern(&q->strings, s ? s : "", s ? strlen(s) : 0);
}

static int fill_traces(struct ktrace_sql *q, struct ktrace_stream *s)
{
	q->traces = calloc(q->npaths, sizeof(*q->traces));
	if (!q->traces)
		return -ENOMEM;
	for (size_t i = 0; i < q->npaths; i++) {
		const struct ktrace_stream_source *src = ktrace_stream_source(s, i);
		struct sql_trace *t = &q->traces[i];

		t->path = q->paths[i];
		t->trace_id = sql_trace_hash(q->open_paths[i], (uint32_t)i);
		if (t->trace_id < 0)
			return (int)t->trace_id;
		/* the same file twice: ids of their own */
		for (size_t j = 0; j < i; j++)
			if (q->traces[j].trace_id == t->trace_id)
				t->trace_id = (t->trace_id + 1) & ((1LL << 53) - 1);
		if (!src) {
			t->format_name = t->hostname = t->machine = t->release = t->clock = "";
			continue;
		}
		t->format = src->format;
		t->format_name = ktrace_detect_format_name(src->format);
		/* the stream's strings go with it: copies */
		t->hostname = keep(q, src->nodename);
		t->machine = keep(q, src->machine);
		t->release = keep(q, src->release);
		t->clock = keep(q, src->clock);
		t->cpus = src->cpus;
		if (!t->hostname || !t->machine || !t->release || !t->clock)
			return -ENOMEM;
	}
	return 0;
}

/* Threads (and processes) the inputs name when they open. */
static int load_tasks(struct ktrace_sql *q, struct ktrace_stream *s)
{
	for (size_t i = 0; i < ktrace_stream_task_count(s); i++) {
		const struct ktrace_stream_task_info *ti = ktrace_stream_task(s, i);
		int64_t utid;

		/* (a Darwin thread id past INT64_MAX reads as negative: no such thread row) */
		if (ti->source >= q->npaths || ti->tid < 0)
			continue;
		if (sql_thread_id(q, ti->source, ti->tid, &utid))
			return -ENOMEM;
		if (sql_thread_set_name(q, utid, ti->comm, strlen(ti->comm)) ||
		    sql_thread_set_pid(q, utid, ti->pid))
			return -ENOMEM;
	}
	return 0;
}

static int walk(struct ktrace_sql *q, struct ktrace_error *err, const char **err_path)
{
	struct ktrace_stream *s;
	struct name_cache *cache = calloc(NAME_CACHE, sizeof(*cache));
	const struct ktrace_stream_record *r;
	int ret;

	if (!cache)
		return kt_error_oom(err);
	ret = sql_model_open(q, err, err_path);
	if (ret) {
		free(cache);
		return ret;
	}
	ret = ktrace_stream_open(&s, (const char *const *)q->open_paths, q->npaths, &q->sopts, err,
				 err_path);
	if (ret) {
		free(cache);
		return ret;
	}
	if (fill_traces(q, s) || load_tasks(q, s)) {
		ret = kt_error_oom(err);
		goto out;
	}
	for (;;) {
		struct ktrace_error serr;
		struct sql_trace *t;
		const struct sql_name *n;
		int64_t utid = 0, id;

		ret = ktrace_stream_next(s, &r, &serr);
		if (ret <= 0) {
			if (ret < 0) {
				/* the records before the damage are in the tables */
				q->damage = ret;
				q->damage_err = serr;
				q->damage_path = ktrace_stream_error_path(s);
				for (size_t i = 0; i < q->npaths && q->damage_path; i++)
					if (!strcmp(q->open_paths[i], q->damage_path))
						q->damage_path = q->paths[i];
				ret = 0;
			}
			break;
		}
		t = sql_trace_of(q, r->source);
		if (!t)
			continue;
		ret = kt_model_record(q->model, s, r, err);
		if (ret)
			goto out;
		if (r->kind == KTRACE_STREAM_LOST) {
			ret = sql_lost_record(q, r, err);
			if (ret)
				goto out;
			continue;
		}
		id = ++q->events;
		t->events++;
		if (!t->any || r->ts < t->start_ts)
			t->start_ts = r->ts;
		if (!t->any || r->ts > t->end_ts)
			t->end_ts = r->ts;
		t->any = true;
		n = name_lookup(q, cache, r);
		if (r->tid >= 0) {
			struct kt_thread *th;

			if (sql_thread_id(q, r->source, r->tid, &utid) ||
			    !(th = sql_thread_entry(q, utid))) {
				ret = kt_error_oom(err);
				goto out;
			}
			if (r->comm[0] && (!th->name || strcmp(th->name, r->comm)) &&
			    sql_thread_set_name(q, utid, r->comm, strlen(r->comm))) {
				ret = kt_error_oom(err);
				goto out;
			}
			if (r->pid >= 0 && r->pid != th->pid && sql_thread_set_pid(q, utid, r->pid)) {
				ret = kt_error_oom(err);
				goto out;
			}
		}
		if (!n) {
			ret = kt_error_oom(err);
			goto out;
		}
		if (n->kind != SQL_EV_PLAIN ||
		    is_format(t, KTRACE_FORMAT_DARWIN_V3, KTRACE_FORMAT_DARWIN_RAW) ||
		    is_format(t, KTRACE_FORMAT_KOFF, KTRACE_FORMAT_ELF)) {
			ret = sql_sched_record(q, s, r, n, utid, id, err);
			if (!ret)
				ret = sql_derive_record(q, s, r, n, utid, id, err);
			if (ret)
				goto out;
		}
	}
	for (size_t i = 0; i < q->npaths; i++)
		q->traces[i].model_end_ts = kt_model_input_end(q->model, (uint32_t)i);
	ret = kt_model_finish(q->model, err);
	if (!ret)
		ret = sql_derive_finish(q, err);
out:
	ktrace_stream_close(s);
	free(cache);
	return ret;
}

/* thread, process and trace rows, from the registries. */
static int write_registries(struct ktrace_sql *q, struct ktrace_error *err)
{
	int ret;

	/* a process is named after its main thread, else after any of its threads */
	for (size_t i = 0; i < q->threads.n; i++) {
		const struct kt_thread *t = &q->threads.v[i];
		struct kt_thread *p;
		int64_t upid;

		if (t->pid < 0 || !t->name)
			continue;
		if (sql_process_id(q, t->scope, t->pid, &upid))
			return kt_error_oom(err);
		p = sql_process_entry(q, upid);
		if (p && (!p->name || t->id == t->pid) &&
		    kt_thread_set_name(&q->procs, p, t->name, strlen(t->name)) < 0)
			return kt_error_oom(err);
	}
	for (size_t i = 0; i < q->threads.n; i++) {
		const struct kt_thread *t = &q->threads.v[i];
		const struct kt_thread *p = t->pid >= 0 ? kt_threads_find(&q->procs, t->scope, t->pid) : NULL;
		sqlite3_stmt *st = q->ins[INS_THREAD];
		uint32_t upid = p ? (uint32_t)kt_threads_index(&q->procs, p) + 1 : 0;

		sqlite3_bind_int64(st, 1, (int64_t)i + 1);
		sqlite3_bind_int64(st, 2, q->traces[t->scope].trace_id);
		sqlite3_bind_int64(st, 3, t->id);
		sql_bind_i64(st, 4, upid, !upid);
		sql_bind_text(st, 5, t->name, !t->name);
		sqlite3_bind_int(st, 6, ((const struct sql_thread *)kt_threads_ext(&q->threads, i))->is_idle);
		if ((ret = sql_insert(q, INS_THREAD, err)))
			return ret;
	}
	for (size_t i = 0; i < q->procs.n; i++) {
		const struct kt_thread *e = &q->procs.v[i];
		const struct sql_process *p = kt_threads_ext(&q->procs, i);
		sqlite3_stmt *st = q->ins[INS_PROCESS];

		sqlite3_bind_int64(st, 1, (int64_t)i + 1);
		sqlite3_bind_int64(st, 2, q->traces[e->scope].trace_id);
		sqlite3_bind_int64(st, 3, e->id);
		sql_bind_i64(st, 4, p->parent_upid, !p->parent_upid);
		sql_bind_text(st, 5, e->name, !e->name);
		sql_bind_text(st, 6, p->cmdline, !p->cmdline);
		if ((ret = sql_insert(q, INS_PROCESS, err)))
			return ret;
	}
	for (size_t i = 0; i < q->npaths; i++) {
		struct sql_trace *t = &q->traces[i];
		sqlite3_stmt *st = q->ins[INS_TRACE];

		sqlite3_bind_int64(st, 1, t->trace_id);
		sql_bind_text(st, 2, t->path, false);
		sql_bind_text(st, 3, t->format_name, false);
		sql_bind_text(st, 4, t->hostname, false);
		sql_bind_text(st, 5, t->machine, false);
		sql_bind_text(st, 6, t->release, false);
		sql_bind_text(st, 7, t->clock, false);
		sqlite3_bind_int64(st, 8, t->cpus);
		sql_bind_i64(st, 9, (int64_t)t->start_ts, !t->any);
		sql_bind_i64(st, 10, (int64_t)t->end_ts, !t->any);
		sqlite3_bind_int64(st, 11, t->events);
		sqlite3_bind_int64(st, 12, t->lost);
		sql_bind_i64(st, 13, (int64_t)t->model_end_ts, !t->any);
		if ((ret = sql_insert(q, INS_TRACE, err)))
			return ret;
	}
	return 0;
}

static void finalize_inserts(struct ktrace_sql *q)
{
	for (int i = 0; i < NINS; i++) {
		sqlite3_finalize(q->ins[i]);
		q->ins[i] = NULL;
	}
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int build_memory(struct ktrace_sql *q, struct ktrace_error *err, const char **err_path)
{
	uint64_t t0 = now_ns();
	int rc = sqlite3_open_v2(":memory:", &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	int ret;

	if (rc != SQLITE_OK)
		return sql_db_error(q->db, rc, err, "opening the database");
	if ((ret = sql_exec(q->db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;", err)) ||
	    (ret = sql_create_tables(q->db, "main", false, err)) ||
	    (ret = prepare_inserts(q, err)) ||
	    (ret = sql_exec(q->db, "BEGIN", err)))
		return ret;
	ret = walk(q, err, err_path);
	if (!ret)
		ret = write_registries(q, err);
	finalize_inserts(q);
	if (ret)
		return ret;
	if ((ret = sql_exec(q->db, "COMMIT", err)) ||
	    (ret = sql_create_indexes(q->db, "main", false, err)) ||
	    (ret = sql_vtab_register(q, err)))
		return ret;
	q->build_ns = now_ns() - t0;
	{
		struct ktrace_out b = KT_OUT_HEAP;

		kt_out_puts(&b, "CREATE VIRTUAL TABLE main.event USING ktrace_event;"
			    "CREATE VIRTUAL TABLE main.args USING ktrace_args;"
			    "CREATE VIEW main.raw AS SELECT * FROM main.event;");
		sql_views_create(&b, "main");
		ret = b.error ? kt_error_oom(err) : sql_exec(q->db, kt_out_str(&b), err);
		kt_out_heap_free(&b);
		return ret;
	}
}

/* ---- database files ---- */

enum db_state {
	DB_ABSENT,                   /* no file: build it */
	DB_CURRENT,                  /* ours, newer than every input, same inputs: reuse */
	DB_STALE,                    /* ours, but out of date: build it anew */
	DB_FOREIGN,                  /* a file that is no ktrace sql database: keep away */
};

/* Whether the file at db_path can be used instead of reading the inputs: a database
 * of ours (its application_id, and the schema's version), newer than every input, made
 * from the same inputs (its trace table lists them in order). */
static enum db_state db_state(const char *db_path, const char *const *paths, size_t n)
{
	struct stat db, st;
	sqlite3 *h = NULL;
	sqlite3_stmt *q = NULL;
	enum db_state state = DB_CURRENT;
	size_t i = 0;

	if (stat(db_path, &db))
		return DB_ABSENT;
	if (S_ISREG(db.st_mode) && !db.st_size)
		return DB_STALE;     /* an empty file (a database with no page) */
	if (!S_ISREG(db.st_mode) ||
	    sqlite3_open_v2(db_path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "PRAGMA application_id", -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_ROW || sqlite3_column_int64(q, 0) != SQL_APPLICATION_ID) {
		state = DB_FOREIGN;
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_ROW || sqlite3_column_int64(q, 0) != SQL_SCHEMA_VERSION) {
		state = DB_STALE;
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	for (size_t k = 0; k < n; k++) {
		/* (standard input, a FIFO: new bytes each time) */
		if (kt_spool_needed(paths[k]) || stat(paths[k], &st) ||
		    st.st_mtim.tv_sec > db.st_mtim.tv_sec ||
		    (st.st_mtim.tv_sec == db.st_mtim.tv_sec && st.st_mtim.tv_nsec >= db.st_mtim.tv_nsec)) {
			state = DB_STALE;
			goto out;
		}
	}
	if (sqlite3_prepare_v2(h, "SELECT path FROM trace ORDER BY rowid", -1, &q, NULL) != SQLITE_OK) {
		state = DB_STALE;
		goto out;
	}
	while (state == DB_CURRENT && sqlite3_step(q) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(q, 0);

		if (i >= n || !p || strcmp(p, paths[i]))
			state = DB_STALE;
		i++;
	}
	if (i != n)
		state = DB_STALE;
out:
	sqlite3_finalize(q);
	sqlite3_close(h);
	return state;
}

/* The inputs that can be read only once, copied: the tables are built from one walk of
 * the inputs, and each scan of event and args opens them again. */
static int spool_inputs(struct ktrace_sql *q, struct ktrace_error *err, const char **err_path)
{
	for (size_t i = 0; i < q->npaths; i++) {
		int ret = kt_spool_once(q->paths[i], &q->spool_fd[i], err);

		if (ret) {
			if (err_path)
				*err_path = q->paths[i];
			return ret;
		}
		if (q->spool_fd[i] >= 0 &&
		    asprintf(&q->open_paths[i], "/proc/self/fd/%d", q->spool_fd[i]) < 0) {
			q->open_paths[i] = q->paths[i];
			return kt_error_oom(err);
		}
	}
	return 0;
}

static int open_file(struct ktrace_sql *q, const char *path, struct ktrace_error *err)
{
	int rc = sqlite3_open_v2(path, &q->db, SQLITE_OPEN_READWRITE, NULL);

	if (rc != SQLITE_OK)
		return sql_db_error(q->db, rc, err, path);
	q->reused = true;
	return sql_vtab_register(q, err);
}

int ktrace_sql_open(struct ktrace_sql **out, const char *const *paths, size_t npaths,
		    const struct ktrace_sql_opts *opts, struct ktrace_error *err, const char **err_path)
{
	struct ktrace_sql_opts o = { 0 };
	struct ktrace_sql *q;
	bool reuse = false;
	int ret;

	*out = NULL;
	if (err_path)
		*err_path = NULL;
	if ((ret = KT_OPTS_COPY(&o, opts, "ktrace_sql_opts", err)))
		return ret;
	if (!npaths && !o.db_path)
		return ktrace_error_set(err, -EINVAL, "no input");
	q = calloc(1, sizeof(*q));
	if (!q)
		return kt_error_oom(err);
	kt_threads_init(&q->threads, KT_THREADS_PER_SOURCE, 0, sizeof(struct sql_thread));
	kt_threads_init(&q->procs, KT_THREADS_PER_SOURCE, 0, sizeof(struct sql_process));
	if ((ret = KT_OPTS_COPY(&q->sopts, o.stream, "ktrace_stream_opts", err))) {
		ktrace_sql_close(q);
		return ret;
	}
	if (copy_opts(q, paths, npaths, o.stream)) {
		ktrace_sql_close(q);
		return kt_error_oom(err);
	}
	if (o.db_path && npaths) {
		enum db_state st = db_state(o.db_path, paths, npaths);

		if (st == DB_FOREIGN && !o.rebuild) {
			ret = ktrace_error_set(err, -EEXIST, "not a database of ktrace sql (left as it "
					       "is; --rebuild replaces it)");
			if (err_path)
				*err_path = o.db_path;
			ktrace_sql_close(q);
			return ret;
		}
		reuse = st == DB_CURRENT && !o.rebuild;
	}
	/* (the errors of the database file name it themselves) */
	if (o.db_path && (reuse || !npaths)) {
		ret = open_file(q, o.db_path, err);
	} else {
		ret = spool_inputs(q, err, err_path);
		if (!ret)
			ret = build_memory(q, err, err_path);
		if (!ret && o.db_path && !q->damage)
			ret = sql_write_db(q, o.db_path, err);
	}
	if (ret) {
		/* the path given, not our copy */
		for (size_t i = 0; err_path && *err_path && i < npaths; i++)
			if (*err_path == q->paths[i] || *err_path == q->open_paths[i])
				*err_path = paths[i];
		ktrace_sql_close(q);
		return ret;
	}
	*out = q;
	return 0;
}

void ktrace_sql_close(struct ktrace_sql *q)
{
	if (!q)
		return;
	finalize_inserts(q);
	sql_vtab_free_idle(q);
	if (q->db)
		sqlite3_close_v2(q->db);
	sql_vtab_free_idle(q);
	free(q->traces);
	sql_registry_free(q);
	for (size_t i = 0; i < q->npaths; i++) {
		if (q->open_paths[i] != q->paths[i])
			free(q->open_paths[i]);
		if (q->spool_fd[i] >= 0)
			close(q->spool_fd[i]);
		free(q->paths[i]);
	}
	free(q->open_paths);
	free(q->spool_fd);
	free(q->paths);
	for (size_t i = 0; q->filters && i < q->sopts.nfilters; i++)
		free((char *)q->filters[i].text);
	free(q->filters);
	for (size_t i = 0; q->tasks && i < q->sopts.ntasks; i++)
		free((char *)q->tasks[i].name);
	free(q->tasks);
	free(q->cpus);
	free(q->events_dir);
	free(q->codes_file);
	free(q);
}

int ktrace_sql_input_error(const struct ktrace_sql *q, struct ktrace_error *err, const char **path)
{
	if (path)
		*path = q->damage ? q->damage_path : NULL;
	if (q->damage && err)
		*err = q->damage_err;
	return q->damage;
}

bool ktrace_sql_reused(const struct ktrace_sql *q)
{
	return q->reused;
}

void ktrace_sql_stats(const struct ktrace_sql *q, struct ktrace_sql_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->events = q->events;
	st->threads = (int64_t)q->threads.n;
	st->processes = (int64_t)q->procs.n;
	st->build_ns = q->build_ns;
	st->sqlite_bytes = sqlite3_memory_used();
	st->sqlite_peak_bytes = sqlite3_memory_highwater(0);
}

struct sqlite3 *ktrace_sql_db(struct ktrace_sql *q)
{
	return q->db;
}
