// SPDX-License-Identifier: MIT
/*
 * Writing the tables out: a SQLite database file (every table real, with its indexes
 * and the raw view; written under a temporary name, renamed when complete), or a
 * directory of TABLE.tsv / TABLE.jsonl files with schema.sqlite.sql and
 * schema.clickhouse.sql.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/json.h"
#include "common/outbuf.h"
#include "sql/sql_int.h"
#include "sql/tempfile.h"

/* Copies every table of main into the attached database "out". */
static int copy_tables(sqlite3 *db, struct ktrace_error *err)
{
	struct sql_buf b = { 0 };
	int ret;

	sql_buf_printf(&b, "PRAGMA out.journal_mode = OFF; PRAGMA out.synchronous = OFF;\n"
		       "PRAGMA out.application_id = %d; PRAGMA out.user_version = %d; BEGIN;\n",
		       SQL_APPLICATION_ID, SQL_SCHEMA_VERSION);
	for (size_t i = 0; i < sql_table_count(); i++) {
		const struct sql_table *t = sql_table_at(i);

		sql_table_create(&b, t, "out");
		sql_buf_printf(&b, "INSERT INTO out.%s SELECT * FROM main.%s;\n", t->name, t->name);
		sql_table_indexes(&b, t, "out");
	}
	sql_buf_puts(&b, "CREATE VIEW out.raw AS SELECT * FROM event;\nCOMMIT;\n");
	if (b.failed)
		ret = ktrace_error_set(err, -ENOMEM, "out of memory");
	else
		ret = sql_exec(db, sql_buf_str(&b), err);
	if (ret)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sql_buf_free(&b);
	return ret;
}

static int attach(sqlite3 *db, const char *path, struct ktrace_error *err)
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
	return sql_db_error(db, rc, err, path);
}

static int write_sqlite(struct ktrace_sql *q, const char *path, struct ktrace_error *err)
{
	struct sql_tmp t;
	int ret = sql_tmp_create(path, &t, err);

	if (ret)
		return ret;
	ret = attach(q->db, t.tmp, err);
	if (!ret) {
		ret = copy_tables(q->db, err);
		sqlite3_exec(q->db, "DETACH DATABASE out", NULL, NULL, NULL);
	}
	if (ret) {
		sql_tmp_abort(&t);
		return ret;
	}
	return sql_tmp_commit(&t, err);
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

/* Writes text to dir/name through a temporary file. */
static int write_text(const char *dir, const char *name, const char *text, size_t len,
		      struct ktrace_error *err)
{
	struct sql_buf path = { 0 };
	struct sql_tmp t;
	int ret;

	sql_buf_printf(&path, "%s/%s", dir, name);
	if (path.failed)
		return ktrace_error_set(err, -ENOMEM, "out of memory");
	ret = sql_tmp_create(sql_buf_str(&path), &t, err);
	sql_buf_free(&path);
	if (ret)
		return ret;
	while (len) {
		ssize_t w = write(t.fd, text, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			ret = ktrace_error_set(err, -errno, "%s/%s: %s", dir, name, strerror(errno));
			sql_tmp_abort(&t);
			return ret;
		}
		text += w;
		len -= (size_t)w;
	}
	return sql_tmp_commit(&t, err);
}

static int write_table(struct ktrace_sql *q, const char *dir, const struct sql_table *tab, bool jsonl,
		       struct ktrace_error *err)
{
	struct sql_buf path = { 0 }, sql = { 0 };
	struct ktrace_out *o;
	sqlite3_stmt *st = NULL;
	struct sql_tmp t;
	int ret, rc;

	sql_buf_printf(&path, "%s/%s.%s", dir, tab->name, jsonl ? "jsonl" : "tsv");
	sql_buf_printf(&sql, "SELECT * FROM main.%s", tab->name);
	if (path.failed || sql.failed) {
		sql_buf_free(&path);
		sql_buf_free(&sql);
		return ktrace_error_set(err, -ENOMEM, "out of memory");
	}
	ret = sql_tmp_create(sql_buf_str(&path), &t, err);
	if (ret)
		goto out;
	o = ktrace_out_new(t.fd);
	rc = sqlite3_prepare_v2(q->db, sql_buf_str(&sql), -1, &st, NULL);
	if (!o || rc != SQLITE_OK) {
		ret = o ? sql_db_error(q->db, rc, err, tab->name) : ktrace_error_set(err, -ENOMEM, "out of memory");
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
		ret = sql_db_error(q->db, rc, err, tab->name);
		goto fail;
	}
	ret = ktrace_out_flush(o);
	if (ret) {
		ret = ktrace_error_set(err, ret, "%s: %s", sql_buf_str(&path), strerror(-ret));
		goto fail;
	}
	ktrace_out_free(o);
	sqlite3_finalize(st);
	ret = sql_tmp_commit(&t, err);
	goto out;
fail:
	if (o)
		ktrace_out_free(o);
	sqlite3_finalize(st);
	sql_tmp_abort(&t);
out:
	sql_buf_free(&path);
	sql_buf_free(&sql);
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

static int write_dir(struct ktrace_sql *q, const char *dir, bool jsonl, const char *cluster,
		     struct ktrace_error *err)
{
	struct sql_buf s = { 0 };
	struct stat st;
	int ret = 0;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return ktrace_error_set(err, -errno, "%s: %s", dir, strerror(errno));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return ktrace_error_set(err, -ENOTDIR, "%s: not a directory", dir);
	for (size_t i = 0; i < sql_table_count() && !ret; i++)
		ret = write_table(q, dir, sql_table_at(i), jsonl, err);
	if (ret)
		return ret;
	if (sql_schema_text(&s, KTRACE_SQL_SQLITE, NULL, NULL))
		ret = ktrace_error_set(err, -ENOMEM, "out of memory");
	else
		ret = write_text(dir, "schema.sqlite.sql", sql_buf_str(&s), s.len, err);
	sql_buf_free(&s);
	if (ret)
		return ret;
	if (sql_schema_text(&s, KTRACE_SQL_CLICKHOUSE, NULL, cluster))
		ret = ktrace_error_set(err, -ENOMEM, "out of memory");
	else
		ret = write_text(dir, "schema.clickhouse.sql", sql_buf_str(&s), s.len, err);
	sql_buf_free(&s);
	return ret;
}

int ktrace_sql_export(struct ktrace_sql *q, const char *path, enum ktrace_sql_format format,
		      const struct ktrace_sql_export_opts *opts, struct ktrace_error *err)
{
	struct ktrace_sql_export_opts o = { 0 };

	if (opts)
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
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
