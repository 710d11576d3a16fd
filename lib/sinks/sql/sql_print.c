// SPDX-License-Identifier: MIT
/*
 * ktrace_sql_exec: runs statements one after the other and prints each result as
 * tab-separated lines (the default), CSV, a JSON array of objects, or a box-drawn
 * table (the rows are kept until the widths are known).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "sinks/sql/sql_int.h"

bool ktrace_sql_complete(const char *sql)
{
	return sqlite3_complete(sql) != 0;
}

/* ---- TSV and CSV ---- */

static void tsv_text(struct ktrace_out *o, const unsigned char *s, int n)
{
	for (int i = 0; i < n; i++) {
		switch (s[i]) {
		case '\t': kt_out_write(o, "\\t", 2); break;
		case '\n': kt_out_write(o, "\\n", 2); break;
		case '\r': kt_out_write(o, "\\r", 2); break;
		case '\\': kt_out_write(o, "\\\\", 2); break;
		default: kt_out_putc(o, (char)s[i]); break;
		}
	}
}

static void csv_text(struct ktrace_out *o, const unsigned char *s, int n)
{
	bool quote = false;

	for (int i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) {
		kt_out_write(o, s, (size_t)n);
		return;
	}
	kt_out_putc(o, '"');
	for (int i = 0; i < n; i++) {
		if (s[i] == '"')
			kt_out_putc(o, '"');
		kt_out_putc(o, (char)s[i]);
	}
	kt_out_putc(o, '"');
}

/* A value as text: integers in decimal, reals as SQLite prints them, blobs in hex. */
static const unsigned char *value_text(sqlite3_stmt *st, int col, int *n, char *hexbuf, size_t cap)
{
	if (sqlite3_column_type(st, col) == SQLITE_BLOB) {
		const unsigned char *b = sqlite3_column_blob(st, col);
		int len = sqlite3_column_bytes(st, col);
		size_t k = 0;

		for (int i = 0; i < len && k + 3 <= cap; i++)
			k += (size_t)snprintf(hexbuf + k, cap - k, "%02x", b[i]);
		*n = (int)k;
		return (const unsigned char *)hexbuf;
	}
	{
		const unsigned char *t = sqlite3_column_text(st, col);

		*n = t ? sqlite3_column_bytes(st, col) : 0;
		return t ? t : (const unsigned char *)"";
	}
}

static void print_delimited(sqlite3_stmt *st, struct ktrace_out *o, bool csv, bool header)
{
	int ncol = sqlite3_column_count(st);
	char hex[4096];
	int n;

	if (header) {
		for (int c = 0; c < ncol; c++) {
			const char *name = sqlite3_column_name(st, c);

			if (c)
				kt_out_putc(o, csv ? ',' : '\t');
			if (csv)
				csv_text(o, (const unsigned char *)name, (int)strlen(name));
			else
				tsv_text(o, (const unsigned char *)name, (int)strlen(name));
		}
		kt_out_putc(o, csv ? '\r' : '\n');
		if (csv)
			kt_out_putc(o, '\n');
		return;
	}
	for (int c = 0; c < ncol; c++) {
		const unsigned char *t;

		if (c)
			kt_out_putc(o, csv ? ',' : '\t');
		if (sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		t = value_text(st, c, &n, hex, sizeof(hex));
		if (csv)
			csv_text(o, t, n);
		else
			tsv_text(o, t, n);
	}
	if (csv)
		kt_out_putc(o, '\r');
	kt_out_putc(o, '\n');
}

/* ---- JSON ---- */

void sql_json_column(struct kt_json *j, sqlite3_stmt *st, int c, bool exact)
{
	char buf[4096];
	const unsigned char *t;
	int n;

	switch (sqlite3_column_type(st, c)) {
	case SQLITE_NULL:
		kt_json_null(j);
		break;
	case SQLITE_INTEGER:
		kt_json_i64(j, sqlite3_column_int64(st, c));
		break;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, c);

		if (!isfinite(d)) {
			kt_json_null(j);
		} else if (exact) {
			kt_json_number(j, buf, (size_t)snprintf(buf, sizeof(buf), "%.17g", d));
		} else {
			/* SQLite's "1.0" and "1.5e+20" are JSON numbers as they are */
			t = value_text(st, c, &n, buf, sizeof(buf));
			kt_json_number(j, (const char *)t, (size_t)n);
		}
		break;
	}
	default:
		t = value_text(st, c, &n, buf, sizeof(buf));
		kt_json_string(j, (const char *)t, (size_t)n);
		break;
	}
}

static void print_json_row(sqlite3_stmt *st, struct kt_json *j)
{
	int ncol = sqlite3_column_count(st);

	kt_json_begin_object(j, true);
	for (int c = 0; c < ncol; c++) {
		kt_json_key_cstr(j, sqlite3_column_name(st, c));
		sql_json_column(j, st, c, false);
	}
	kt_json_end_object(j);
}

/* ---- box ---- */

struct box {
	int ncol;
	char **cells;                /* rows * ncol strings (NULL: SQL NULL) */
	bool *right;                 /* per column: numbers (right-aligned) */
	size_t rows, cap;
	bool failed;
};

/* Display width: code points (each counted as one column). */
static size_t width_of(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static char *cell_text(sqlite3_stmt *st, int c)
{
	char hex[4096];
	int n;
	const unsigned char *t;
	char *d;

	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NULL;
	t = value_text(st, c, &n, hex, sizeof(hex));
	d = malloc((size_t)n + 1);
	if (!d)
		return NULL;
	/* one line per cell: control characters as spaces */
	for (int i = 0; i < n; i++)
		d[i] = t[i] < 0x20 ? ' ' : (char)t[i];
	d[n] = 0;
	return d;
}

static void box_add(struct box *b, sqlite3_stmt *st)
{
	size_t need = (b->rows + 1) * (size_t)b->ncol;

	if (b->failed || kt_grow((void **)&b->cells, &b->cap, need, sizeof(*b->cells))) {
		b->failed = true;
		return;
	}
	for (int c = 0; c < b->ncol; c++) {
		int type = sqlite3_column_type(st, c);

		b->cells[b->rows * (size_t)b->ncol + (size_t)c] = cell_text(st, c);
		if (type == SQLITE_TEXT || type == SQLITE_BLOB)
			b->right[c] = false;
	}
	b->rows++;
}

static void box_line(struct ktrace_out *o, const size_t *w, int ncol, const char *l, const char *m,
		     const char *r)
{
	kt_out_puts(o, l);
	for (int c = 0; c < ncol; c++) {
		for (size_t i = 0; i < w[c] + 2; i++)
			kt_out_puts(o, "─");
		kt_out_puts(o, c + 1 < ncol ? m : r);
	}
	kt_out_putc(o, '\n');
}

static void box_cell(struct ktrace_out *o, const char *s, size_t w, bool right)
{
	size_t n = width_of(s);

	kt_out_putc(o, ' ');
	if (right)
		kt_out_spaces(o, (int)(w - n));
	kt_out_puts(o, s);
	if (!right)
		kt_out_spaces(o, (int)(w - n));
	kt_out_puts(o, " │");
}

static void box_print(struct box *b, sqlite3_stmt *st, struct ktrace_out *o)
{
	size_t *w = calloc((size_t)b->ncol, sizeof(*w));

	if (!w)
		return;
	for (int c = 0; c < b->ncol; c++)
		w[c] = width_of(sqlite3_column_name(st, c));
	for (size_t r = 0; r < b->rows; r++)
		for (int c = 0; c < b->ncol; c++) {
			const char *s = b->cells[r * (size_t)b->ncol + (size_t)c];

			if (s && width_of(s) > w[c])
				w[c] = width_of(s);
		}
	box_line(o, w, b->ncol, "┌", "┬", "┐");
	kt_out_puts(o, "│");
	for (int c = 0; c < b->ncol; c++)
		box_cell(o, sqlite3_column_name(st, c), w[c], false);
	kt_out_putc(o, '\n');
	box_line(o, w, b->ncol, "├", "┼", "┤");
	for (size_t r = 0; r < b->rows; r++) {
		kt_out_puts(o, "│");
		for (int c = 0; c < b->ncol; c++) {
			const char *s = b->cells[r * (size_t)b->ncol + (size_t)c];

			box_cell(o, s ? s : "", w[c], b->right[c]);
		}
		kt_out_putc(o, '\n');
	}
	box_line(o, w, b->ncol, "└", "┴", "┘");
	free(w);
}

static void box_free(struct box *b)
{
	for (size_t i = 0; i < b->rows * (size_t)b->ncol; i++)
		free(b->cells[i]);
	free(b->cells);
	free(b->right);
}

/* ---- statements ---- */

static int run_one(struct ktrace_sql *q, sqlite3_stmt *st, enum ktrace_sql_mode mode,
		   struct ktrace_out *o, struct ktrace_error *err)
{
	int ncol = sqlite3_column_count(st);
	struct kt_json j;
	struct box b = { 0 };
	int rc;
	size_t rows = 0;

	if (ncol && mode == KTRACE_SQL_BOX) {
		b.ncol = ncol;
		b.right = malloc((size_t)ncol * sizeof(*b.right));
		if (!b.right)
			return kt_error_oom(err);
		for (int c = 0; c < ncol; c++)
			b.right[c] = true;
	}
	if (ncol && (mode == KTRACE_SQL_TSV || mode == KTRACE_SQL_CSV))
		print_delimited(st, o, mode == KTRACE_SQL_CSV, true);
	if (ncol && mode == KTRACE_SQL_JSON) {
		kt_json_init(&j, o, 0);
		kt_out_putc(o, '[');
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!ncol)
			continue;
		switch (mode) {
		case KTRACE_SQL_TSV:
		case KTRACE_SQL_CSV:
			print_delimited(st, o, mode == KTRACE_SQL_CSV, false);
			break;
		case KTRACE_SQL_JSON:
			kt_out_puts(o, rows ? ",\n" : "");
			kt_json_init(&j, o, 0);
			print_json_row(st, &j);
			break;
		case KTRACE_SQL_BOX:
			box_add(&b, st);
			break;
		}
		rows++;
		if (o->error)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		if (ncol && mode == KTRACE_SQL_JSON)
			kt_out_puts(o, "]\n");
		box_free(&b);
		return ktrace_error_set(err, rc == SQLITE_NOMEM ? -ENOMEM : -EINVAL, "%s",
					sqlite3_errmsg(q->db));
	}
	if (ncol && mode == KTRACE_SQL_JSON)
		kt_out_puts(o, "]\n");
	if (ncol && mode == KTRACE_SQL_BOX) {
		if (b.failed) {
			box_free(&b);
			return kt_error_oom(err);
		}
		box_print(&b, st, o);
	}
	box_free(&b);
	return o->error;
}

int ktrace_sql_exec(struct ktrace_sql *q, const char *sql, enum ktrace_sql_mode mode,
		    struct ktrace_out *out, struct ktrace_error *err)
{
	const char *p = sql;

	while (p && *p) {
		sqlite3_stmt *st = NULL;
		const char *tail = NULL;
		int rc = sqlite3_prepare_v2(q->db, p, -1, &st, &tail);
		int ret;

		if (rc != SQLITE_OK)
			return ktrace_error_set(err, rc == SQLITE_NOMEM ? -ENOMEM : -EINVAL, "%s",
						sqlite3_errmsg(q->db));
		if (!st)            /* only spaces or comments left */
			break;
		ret = run_one(q, st, mode, out, err);
		sqlite3_finalize(st);
		if (ret)
			return ret;
		p = tail;
	}
	return 0;
}
