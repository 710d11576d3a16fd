// SPDX-License-Identifier: MIT
/*
 * Trace.sql(query): `ktrace sql`'s tables (<ktrace/sql.h>, docs/sql.md: event, args,
 * thread_state, sched_slice, wakeup_latency, slice...) built once per Trace, in memory,
 * and the query's rows read with SQLite's own API into columns: integers int64 (pandas'
 * nullable Int64 where a row is NULL), reals float64 (NaN for NULL), anything else
 * objects. The last statement of query gives the DataFrame.
 */
#include "ktrace_py.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static int build(struct ktpy_trace *t)
{
	struct ktrace_error err = { 0 };
	const char *bad = NULL;
	int ret;
	KTRACE_OPTS(ktrace_stream_opts, so, .events_dir = t->events_dir ?
		    PyBytes_AS_STRING(t->events_dir) : NULL);
	KTRACE_OPTS(ktrace_sql_opts, qo, .stream = &so);

	if (t->sql)
		return 0;
	ktpy_damage_begin();
	/* with the GIL held: the Trace's tables and the damaged places are one at a time */
	ret = ktrace_sql_open(&t->sql, (const char *const *)t->paths, t->npaths, &qo, &err, &bad);
	if (ret < 0) {
		t->sql = NULL;
		ktpy_raise(bad, &err, NULL);
		return -1;
	}
	/* damage part way: the tables hold what was read; each query answers, then
	 * raises the damage with its answer as partial, as the CLI prints the answer and
	 * then the error (ktpy_sql) */
	Py_XDECREF(ktpy_damage_end());
	return 0;
}

static int col_to_f64(struct ktpy_col *c)
{
	double *d;

	if (c->type == KTPY_COL_F64)
		return 0;
	d = (double *)c->data;   /* int64 to double in place: same size */
	for (size_t i = 0; i < c->n; i++)
		d[i] = (double)((int64_t *)c->data)[i];
	c->type = KTPY_COL_F64;
	return 0;
}

static int put_cell(struct ktpy_col *c, size_t row, sqlite3_stmt *st, int i)
{
	int type = sqlite3_column_type(st, i);
	PyObject *o;

	if (type == SQLITE_NULL) {
		if (c->type == KTPY_COL_OBJ) {
			if (ktpy_col_reserve(c, row))
				return -1;
			((PyObject **)c->data)[row] = Py_NewRef(Py_None);
			c->n = row + 1;
		}
		return 0;   /* numbers: a gap, masked */
	}
	if (type == SQLITE_INTEGER && c->type == KTPY_COL_I64) {
		if (ktpy_col_reserve(c, row))
			return -1;
		((int64_t *)c->data)[row] = sqlite3_column_int64(st, i);
		c->n = row + 1;
		return 0;
	}
	if ((type == SQLITE_INTEGER || type == SQLITE_FLOAT) && c->type != KTPY_COL_OBJ) {
		col_to_f64(c);
		if (ktpy_col_reserve(c, row))
			return -1;
		((double *)c->data)[row] = sqlite3_column_double(st, i);
		c->n = row + 1;
		return 0;
	}
	if (c->type != KTPY_COL_OBJ && ktpy_col_to_obj(c))
		return -1;
	switch (type) {
	case SQLITE_INTEGER:
		o = PyLong_FromLongLong(sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		o = PyFloat_FromDouble(sqlite3_column_double(st, i));
		break;
	case SQLITE_TEXT:
		o = PyUnicode_DecodeUTF8((const char *)sqlite3_column_text(st, i),
					 sqlite3_column_bytes(st, i), "surrogateescape");
		break;
	default:
		o = PyBytes_FromStringAndSize(sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i));
		break;
	}
	if (!o)
		return -1;
	if (ktpy_col_reserve(c, row)) {
		Py_DECREF(o);
		return -1;
	}
	((PyObject **)c->data)[row] = o;
	c->n = row + 1;
	return 0;
}

static PyObject *sql_error(sqlite3 *db)
{
	struct ktrace_error err = { 0 };

	ktrace_error_set(&err, -EINVAL, "%s", sqlite3_errmsg(db));
	ktpy_damage_begin();
	return ktpy_raise(NULL, &err, NULL);
}

/* The rows of one prepared statement as a DataFrame. */
static PyObject *run_stmt(sqlite3 *db, sqlite3_stmt *st)
{
	struct ktpy_cols cols = { 0 };
	int ncol = sqlite3_column_count(st), rc;
	PyObject *masks, *d, *res;
	size_t rows = 0;

	/* one column per result column, in order; a name twice ("select a.ts, b.ts"):
	 * NAME_2, NAME_3... (pandas needs each column once) */
	for (int i = 0; i < ncol; i++) {
		const char *name = sqlite3_column_name(st, i);
		size_t had = cols.n;
		char buf[128];

		for (int k = 1; cols.n == had; k++) {
			if (k > 1 || !name)
				snprintf(buf, sizeof(buf), "%.100s_%d", name ? name : "column", k);
			if (!ktpy_cols_get(&cols, k > 1 || !name ? buf : name, KTPY_COL_I64)) {
				ktpy_cols_free(&cols);
				return PyErr_NoMemory();
			}
		}
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncol; i++) {
			if (put_cell(&cols.c[i], rows, st, i)) {
				ktpy_cols_free(&cols);
				return PyErr_Occurred() ? NULL : PyErr_NoMemory();
			}
		}
		rows++;
	}
	if (rc != SQLITE_DONE) {
		ktpy_cols_free(&cols);
		return sql_error(db);
	}
	/* a column that never had a value: objects (None) */
	for (size_t i = 0; i < cols.n; i++)
		if (cols.c[i].n == 0 && rows && ktpy_col_to_obj(&cols.c[i]))
			return PyErr_NoMemory();
	if (ktpy_cols_pad(&cols, rows)) {
		ktpy_cols_free(&cols);
		return PyErr_NoMemory();
	}
	masks = PyList_New(0);
	if (!masks) {
		ktpy_cols_free(&cols);
		return NULL;
	}
	d = ktpy_cols_to_dict(&cols, masks);
	if (!d) {
		Py_DECREF(masks);
		return NULL;
	}
	res = ktpy_frame(d, masks, NULL);
	Py_DECREF(d);
	Py_DECREF(masks);
	return res;
}

PyObject *ktpy_sql(struct ktpy_trace *t, PyObject *args)
{
	const char *query, *tail;
	PyObject *res = NULL;
	sqlite3 *db;

	if (!PyArg_ParseTuple(args, "s:sql", &query))
		return NULL;
	if (build(t))
		return NULL;
	ktpy_damage_begin();
	db = ktrace_sql_db(t->sql);
	for (;;) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(db, query, -1, &st, &tail) != SQLITE_OK) {
			Py_XDECREF(res);
			return sql_error(db);
		}
		if (!st) {   /* only blanks or a comment left */
			break;
		}
		Py_XDECREF(res);
		res = run_stmt(db, st);
		sqlite3_finalize(st);
		if (!res) {
			ktpy_damage_drop();
			return NULL;
		}
		query = tail;
	}
	if (!res) {
		Py_XDECREF(ktpy_damage_end());
		PyErr_SetString(PyExc_ValueError, "sql: no statement");
		return NULL;
	}
	{
		struct ktrace_error err = { 0 };
		const char *bad = NULL;

		if (ktrace_sql_input_error(t->sql, &err, &bad) < 0) {
			ktpy_raise(bad, &err, res);
			Py_DECREF(res);
			return NULL;
		}
	}
	Py_XDECREF(ktpy_damage_end());
	return res;
}
