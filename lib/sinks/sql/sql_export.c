// SPDX-License-Identifier: MIT
/*
 * Writing the tables out: a SQLite database file (every table real, with its indexes
 * and the raw view), or a directory of TABLE.tsv / TABLE.jsonl files with
 * schema.sqlite.sql and schema.clickhouse.sql. Both through the common output writer
 * (common/outfile.h): the file, or the whole directory, is built under a temporary
 * name beside OUT and renamed when complete; a failure (a full disk) or a fatal
 * signal leaves OUT as it was and no temporary behind.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/json.h"
#include "common/opts.h"
#include "common/outbuf.h"
#include "common/outfile.h"
#include "sinks/sql/sql_int.h"

/* Copies every table of main into the attached database "out". */
static int copy_tables(sqlite3 *db, struct ktrace_error *err)
{
	struct ktrace_out b = KT_OUT_HEAP;
	int ret;

	kt_out_printf(&b, "PRAGMA out.journal_mode = OFF; PRAGMA out.synchronous = OFF;\n"
		       "PRAGMA out.application_id = %d; PRAGMA out.user_version = %d; BEGIN;\n",
		       SQL_APPLICATION_ID, SQL_SCHEMA_VERSION);
	for (size_t i = 0; i < sql_table_count(); i++) {
		const struct sql_table *t = sql_table_at(i);

		sql_table_create(&b, t, "out");
		kt_out_printf(&b, "INSERT INTO out.%s SELECT * FROM main.%s;\n", t->name, t->name);
		sql_table_indexes(&b, t, "out");
	}
	kt_out_puts(&b, "CREATE VIEW out.raw AS SELECT * FROM event;\n");
	sql_views_create(&b, "out");
	kt_out_puts(&b, "COMMIT;\n");
	if (b.error)
		ret = kt_error_oom(err);
	else
		ret = sql_exec(db, kt_out_str(&b), err);
	if (ret)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	kt_out_heap_free(&b);
	return ret;
}

/* The database file (named name in messages) attached as "out". */
static int attach(sqlite3 *db, const char *path, const char *name, struct ktrace_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS out", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE)
			return 0;
	}
	return sql_db_error(db, rc, err, name);
}

static int write_sqlite(struct ktrace_sql *q, const char *path, struct ktrace_error *err)
{
	struct kt_outfile *f;
	int ret = kt_outfile_open(path, KT_OUTFILE_FILE_ONLY, &f, err);

	if (ret)
		return ret;
	/* SQLite writes the temporary file by its name */
	ret = attach(q->db, kt_outfile_temp_path(f), path, err);
	if (!ret) {
		if ((ret = copy_tables(q->db, err))) {
			/* (SQLite's message names no file) */
			struct ktrace_error e = *err;

			ktrace_error_set(err, ret, "%s: %s", path, e.message);
		}
		sqlite3_exec(q->db, "DETACH DATABASE out", NULL, NULL, NULL);
	}
	if (ret) {
		kt_outfile_abort(f);
		return ret;
	}
	return kt_outfile_commit(f, err);
}

int sql_write_db(struct ktrace_sql *q, const char *path, struct ktrace_error *err)
{
	int ret = write_sqlite(q, path, err);
	sqlite3 *db = NULL;
	int rc;

	if (ret)
		return ret;
	/* queries go to the file, with its indexes on event and args */
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK) {
		ret = sql_db_error(db, rc, err, path);
		sqlite3_close(db);
		return ret;
	}
	sql_vtab_free_idle(q);
	sqlite3_close_v2(q->db);
	q->db = db;
	return sql_vtab_register(q, err);
}

/* ---- TSV and JSON lines ---- */

static void tsv_value(struct ktrace_out *o, sqlite3_stmt *st, int c)
{
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_NULL:
		kt_out_write(o, "\\N", 2);
		break;
	case SQLITE_INTEGER:
		kt_out_i64(o, sqlite3_column_int64(st, c), 0);
		break;
	case SQLITE_FLOAT: {
		char num[40];
		double d = sqlite3_column_double(st, c);

		if (isnan(d))
			kt_out_puts(o, "nan");
		else if (isinf(d))
			kt_out_puts(o, d > 0 ? "inf" : "-inf");
		else
			kt_out_write(o, num, (size_t)snprintf(num, sizeof(num), "%.17g", d));
		break;
	}
	default: {
		const unsigned char *s = sqlite3_column_text(st, c);
		int n = sqlite3_column_bytes(st, c);

		for (int i = 0; s && i < n; i++) {
			switch (s[i]) {
			case '\\': kt_out_write(o, "\\\\", 2); break;
			case '\t': kt_out_write(o, "\\t", 2); break;
			case '\n': kt_out_write(o, "\\n", 2); break;
			case '\r': kt_out_write(o, "\\r", 2); break;
			case '\0': kt_out_write(o, "\\0", 2); break;
			default: kt_out_putc(o, (char)s[i]); break;
			}
		}
		break;
	}
	}
}

/* Writes text to the file name of the directory. */
static int write_text(struct kt_outdir *d, const char *name, const char *text, size_t len,
		      struct ktrace_error *err)
{
	struct kt_outfile *f;
	int ret = kt_outdir_file(d, name, &f, err);

	if (ret)
		return ret;
	if ((ret = kt_outfile_write(f, text, len, err))) {
		kt_outfile_abort(f);
		return ret;
	}
	return kt_outfile_commit(f, err);
}

static int write_table(struct ktrace_sql *q, struct kt_outdir *d, const struct sql_table *tab,
		       bool jsonl, struct ktrace_error *err)
{
	struct ktrace_out name = KT_OUT_HEAP, shown = KT_OUT_HEAP, sql = KT_OUT_HEAP;
	struct ktrace_out *o = NULL;
	struct kt_outfile *f = NULL;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	kt_out_printf(&name, "%s.%s", tab->name, jsonl ? "jsonl" : "tsv");
	kt_out_printf(&shown, "%s/%s", kt_outdir_name(d), kt_out_str(&name));
	kt_out_printf(&sql, "SELECT * FROM main.%s", tab->name);
	if (name.error || shown.error || sql.error) {
		ret = kt_error_oom(err);
		goto out;
	}
	ret = kt_outdir_file(d, kt_out_str(&name), &f, err);
	if (ret)
		goto out;
	o = ktrace_out_new(kt_outfile_fd(f));
	rc = sqlite3_prepare_v2(q->db, kt_out_str(&sql), -1, &st, NULL);
	if (!o || rc != SQLITE_OK) {
		ret = o ? sql_db_error(q->db, rc, err, kt_out_str(&shown))
			: kt_error_oom(err);
		goto fail;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = sqlite3_column_count(st);

		if (jsonl) {
			struct kt_json j;

			kt_json_init(&j, o, 0);
			kt_json_begin_object(&j, true);
			for (int c = 0; c < n; c++) {
				kt_json_key_cstr(&j, sqlite3_column_name(st, c));
				sql_json_column(&j, st, c, true);
			}
			kt_json_end_object(&j);
		} else {
			for (int c = 0; c < n; c++) {
				if (c)
					kt_out_putc(o, '\t');
				tsv_value(o, st, c);
			}
		}
		kt_out_putc(o, '\n');
		if (o->error)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		ret = sql_db_error(q->db, rc, err, kt_out_str(&shown));
		goto fail;
	}
	ret = ktrace_out_flush(o);
	if (ret) {
		ret = ktrace_error_set(err, ret, "%s: %s", kt_out_str(&shown), strerror(-ret));
		goto fail;
	}
	ktrace_out_free(o);
	sqlite3_finalize(st);
	ret = kt_outfile_commit(f, err);
	goto out;
fail:
	ktrace_out_free(o);
	sqlite3_finalize(st);
	kt_outfile_abort(f);
out:
	kt_out_heap_free(&name);
	kt_out_heap_free(&shown);
	kt_out_heap_free(&sql);
	return ret;
}

static bool valid_cluster(const char *c)
{
	if (!*c)
		return false;
	for (; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '_' || *c == '-' || *c == '.'))
			return false;
	return true;
}

/* The names a table directory may hold: both formats' tables and the schemas (an
 * earlier export of either format is replaced whole). A NULL-terminated array, or NULL
 * when out of memory. */
static char *name_with(const char *table, const char *ending)
{
	size_t a = strlen(table), b = strlen(ending);
	char *s = malloc(a + b + 1);

	if (s) {
		memcpy(s, table, a);
		memcpy(s + a, ending, b + 1);
	}
	return s;
}

static void free_names(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

static char **dir_names(void)
{
	size_t n = sql_table_count(), k = 0;
	char **names = calloc(2 * n + 3, sizeof(*names));

	if (!names)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!(names[k++] = name_with(sql_table_at(i)->name, ".tsv")) ||
		    !(names[k++] = name_with(sql_table_at(i)->name, ".jsonl"))) {
			free_names(names);
			return NULL;
		}
	}
	if (!(names[k++] = strdup("schema.sqlite.sql")) ||
	    !(names[k++] = strdup("schema.clickhouse.sql"))) {
		free_names(names);
		return NULL;
	}
	return names;
}

static int write_dir(struct ktrace_sql *q, const char *dir, bool jsonl, const char *cluster,
		     struct ktrace_error *err)
{
	struct ktrace_out s = KT_OUT_HEAP;
	struct kt_outdir *d = NULL;
	char **names = dir_names();
	int ret;

	if (!names)
		return kt_error_oom(err);
	ret = kt_outdir_open(dir, (const char *const *)names, &d, err);
	for (size_t i = 0; i < sql_table_count() && !ret; i++)
		ret = write_table(q, d, sql_table_at(i), jsonl, err);
	if (!ret) {
		if (sql_schema_text(&s, KTRACE_SQL_SQLITE, NULL, NULL))
			ret = kt_error_oom(err);
		else
			ret = write_text(d, "schema.sqlite.sql", kt_out_str(&s), s.len, err);
		kt_out_heap_free(&s);
	}
	if (!ret) {
		if (sql_schema_text(&s, KTRACE_SQL_CLICKHOUSE, NULL, cluster))
			ret = kt_error_oom(err);
		else
			ret = write_text(d, "schema.clickhouse.sql", kt_out_str(&s), s.len, err);
		kt_out_heap_free(&s);
	}
	if (ret)
		kt_outdir_abort(d);
	else
		ret = kt_outdir_commit(d, err);
	free_names(names);
	return ret;
}

int ktrace_sql_export(struct ktrace_sql *q, const char *path, enum ktrace_sql_format format,
		      const struct ktrace_sql_export_opts *opts, struct ktrace_error *err)
{
	struct ktrace_sql_export_opts o = { 0 };

	int ret;

	if ((ret = KT_OPTS_COPY(&o, opts, "ktrace_sql_export_opts", err)))
		return ret;
	if (!o.cluster)
		o.cluster = "ktrace";
	if (!valid_cluster(o.cluster))
		return ktrace_error_set(err, -EINVAL, "cluster name \"%s\": letters, digits, '_', '-' "
					"and '.' only", o.cluster);
	switch (format) {
	case KTRACE_SQL_EXPORT_SQLITE:
		return write_sqlite(q, path, err);
	case KTRACE_SQL_EXPORT_TSV:
		return write_dir(q, path, false, o.cluster, err);
	case KTRACE_SQL_EXPORT_JSONL:
		return write_dir(q, path, true, o.cluster, err);
	}
	return ktrace_error_set(err, -EINVAL, "unknown export format");
}
