/* SPDX-License-Identifier: MIT */
/*
 * The Python module `ktrace` (python/ktrace_module.c): what its files share.
 *
 *   ktrace_module.c    the module, ktrace.open, the Trace type, info, tree, summary
 *   ktrace_errors.c    ktrace.Error and the damaged places met while reading
 *   ktrace_columns.c   growing C columns handed to NumPy without a copy, interned strings
 *   ktrace_events.c    Trace.events / Trace.df: the stream's records into columns
 *   ktrace_sql.c       Trace.sql: a query's rows into columns
 *   ktrace_capture.c   a sink's output (JSON) captured in memory and parsed
 */
#ifndef KTRACE_PY_H
#define KTRACE_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL ktrace_py_numpy_api
#ifndef KTRACE_PY_MAIN
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <stdbool.h>
#include <stdint.h>

#include <ktrace/ktrace.h>

/* ---- ktrace.Error ---- */

extern PyObject *ktpy_error_type;
int ktpy_error_init(PyObject *module);
/* Raises ktrace.Error for err about file (may be NULL), with the damaged places met
 * (ktpy_damage_*) and, when partial is not NULL, what was read before (kept as the
 * exception's `partial`). Returns NULL. */
PyObject *ktpy_raise(const char *file, const struct ktrace_error *err, PyObject *partial);
/* Collects the damaged places the readers tell (ktrace_error_damage_handler) between
 * begin and end; end returns them as a list of lines (or NULL on no memory) and
 * whether the final error was one of them. */
void ktpy_damage_begin(void);
PyObject *ktpy_damage_end(void);
/* Ends the collection, dropping what it holds; a pending exception stays. */
void ktpy_damage_drop(void);

/* ---- columns ---- */

enum ktpy_col_type {
	KTPY_COL_I64 = 0,
	KTPY_COL_U64,
	KTPY_COL_I32,
	KTPY_COL_F64,
	KTPY_COL_OBJ,                 /* PyObject * (owned references) */
};

struct ktpy_col {
	char *name;
	enum ktpy_col_type type;
	void *data;                   /* n elements of type */
	size_t n, cap;
	uint8_t *mask;                /* NULL, or a byte per row: 1 where the row has none */
	size_t mask_cap;
};

struct ktpy_cols {
	struct ktpy_col *c;
	size_t n, cap;
};

size_t ktpy_col_size(enum ktpy_col_type t);
/* The column called name, or a new one of type t (NULL: no memory). */
struct ktpy_col *ktpy_cols_get(struct ktpy_cols *cs, const char *name, enum ktpy_col_type t);
/* Makes room for row; rows before it that have no value are marked missing. 0 or -1. */
int ktpy_col_reserve(struct ktpy_col *c, size_t row);
/* Pads every column to rows with missing values. 0 or -1. */
int ktpy_cols_pad(struct ktpy_cols *cs, size_t rows);
/* Turns a numeric column into objects (a field whose types differ between events). */
int ktpy_col_to_obj(struct ktpy_col *c);
void ktpy_cols_free(struct ktpy_cols *cs);
/* A dict of NumPy arrays, one per column (numeric data handed over without a copy);
 * columns with missing rows become numpy.ma masked arrays when masked is true, else
 * (name, values, mask) go into *masks as a list for the DataFrame's nullable types.
 * cs is emptied. */
PyObject *ktpy_cols_to_dict(struct ktpy_cols *cs, PyObject *masks);

/* Interned strings: one Python str per distinct short string. */
struct ktpy_intern;
struct ktpy_intern *ktpy_intern_new(void);
void ktpy_intern_free(struct ktpy_intern *in);
/* A new reference to the str of s[0..len) (decoded as UTF-8 with surrogateescape). */
PyObject *ktpy_intern(struct ktpy_intern *in, const char *s, size_t len);
/* The same, keyed by the pointer (strings the library keeps at one address). */
PyObject *ktpy_intern_ptr(struct ktpy_intern *in, const char *s);

/* ---- Trace ---- */

struct ktpy_trace {
	PyObject_HEAD
	char **paths;
	size_t npaths;
	enum ktrace_format *formats;
	PyObject *events_dir;         /* str or NULL */
	struct ktrace_sql *sql;       /* built by the first sql() */
	char *sql_db;                 /* its database file (a temporary one) */
};

PyObject *ktpy_events(struct ktpy_trace *t, PyObject *args, PyObject *kw, bool frame);
PyObject *ktpy_sql(struct ktpy_trace *t, PyObject *args);
/* Makes a DataFrame of a dict of columns and (name, values, mask) triples. */
PyObject *ktpy_frame(PyObject *dict, PyObject *masks, PyObject *columns);

/* ---- captured output ---- */

struct ktpy_capture {
	int fd;
	struct ktrace_out *out;
};
int ktpy_capture_open(struct ktpy_capture *c);
/* Flushes, reads back what was written, parses it as JSON (json.loads) and closes c.
 * NULL with a Python error. */
PyObject *ktpy_capture_json(struct ktpy_capture *c);
void ktpy_capture_close(struct ktpy_capture *c);

#endif
