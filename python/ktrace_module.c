// SPDX-License-Identifier: MIT
/*
 * The Python module `ktrace`: any trace ktrace reads, as NumPy columns and pandas
 * DataFrames (docs/python.md). A client of libktrace's public API (include/ktrace/),
 * like the CLI: the records come from the event stream (<ktrace/stream.h>), which every
 * format goes through; info, summary and kcdata trees from the sinks' JSON.
 *
 *   t = ktrace.open(path_or_paths, events_dir=None)
 *   t.info, t.format, t.paths, t.tree (kcdata), t.events(...), t.df(...), t.sql(q),
 *   t.summary(top=10, start=None, end=None), t.close()
 */
#define KTRACE_PY_MAIN
#include "ktrace_py.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static PyTypeObject trace_type;

static void trace_release(struct ktpy_trace *t)
{
	if (t->sql)
		ktrace_sql_close(t->sql);
	t->sql = NULL;
	if (t->sql_db) {
		unlink(t->sql_db);
		free(t->sql_db);
		t->sql_db = NULL;
	}
}

static void trace_dealloc(struct ktpy_trace *t)
{
	trace_release(t);
	for (size_t i = 0; i < t->npaths; i++)
		free(t->paths[i]);
	free(t->paths);
	free(t->formats);
	Py_XDECREF(t->events_dir);
	Py_TYPE(t)->tp_free((PyObject *)t);
}

/* Opens path and tells its format: 0, or raises ktrace.Error. */
static int detect_path(const char *path, enum ktrace_format *f)
{
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	const uint8_t *head;
	int64_t got;

	ktpy_damage_begin();
	if (ktrace_input_open(path, &in, &err) < 0) {
		ktpy_raise(path, &err, NULL);
		return -1;
	}
	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, &err);
	if (got < 0) {
		ktrace_input_close(in);
		ktpy_raise(path, &err, NULL);
		return -1;
	}
	*f = ktrace_detect_format(head, (size_t)got);
	ktrace_input_close(in);
	/* an unknown format is the stream's to tell (ktrace.open opens one), in its words */
	Py_XDECREF(ktpy_damage_end());
	return 0;
}

/* Paths as C strings from a str, a path-like object or a sequence of them. */
static int take_paths(struct ktpy_trace *t, PyObject *arg)
{
	PyObject *seq = NULL;
	Py_ssize_t n;

	if (PyUnicode_Check(arg) || PyBytes_Check(arg) || PyObject_HasAttrString(arg, "__fspath__")) {
		seq = PyTuple_Pack(1, arg);
	} else {
		seq = PySequence_Tuple(arg);
	}
	if (!seq)
		return -1;
	n = PyTuple_GET_SIZE(seq);
	if (n == 0) {
		Py_DECREF(seq);
		PyErr_SetString(PyExc_ValueError, "ktrace.open: no path");
		return -1;
	}
	t->paths = calloc((size_t)n, sizeof(*t->paths));
	t->formats = calloc((size_t)n, sizeof(*t->formats));
	if (!t->paths || !t->formats) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *b = NULL;

		if (!PyUnicode_FSConverter(PyTuple_GET_ITEM(seq, i), &b)) {
			Py_DECREF(seq);
			return -1;
		}
		t->paths[i] = strdup(PyBytes_AS_STRING(b));
		Py_DECREF(b);
		if (!t->paths[i]) {
			Py_DECREF(seq);
			PyErr_NoMemory();
			return -1;
		}
		t->npaths++;
	}
	Py_DECREF(seq);
	return 0;
}

static PyObject *ktpy_open(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "events_dir", NULL };
	PyObject *arg, *events_dir = Py_None;
	struct ktpy_trace *t;
	size_t nkc = 0;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:open", kwlist, &arg, &events_dir))
		return NULL;
	t = PyObject_New(struct ktpy_trace, &trace_type);
	if (!t)
		return NULL;
	t->paths = NULL;
	t->npaths = 0;
	t->formats = NULL;
	t->events_dir = NULL;
	t->sql = NULL;
	t->sql_db = NULL;
	if (events_dir != Py_None) {
		if (!PyUnicode_FSConverter(events_dir, &t->events_dir))
			goto fail;
	}
	if (take_paths(t, arg))
		goto fail;
	for (size_t i = 0; i < t->npaths; i++) {
		if (detect_path(t->paths[i], &t->formats[i]))
			goto fail;
		nkc += t->formats[i] == KTRACE_FORMAT_KCDATA;
	}
	if (nkc && t->npaths > 1) {
		PyErr_SetString(PyExc_ValueError,
				"ktrace.open: a kcdata file opens alone (it is a document, not events)");
		goto fail;
	}
	if (!nkc) {
		/* the stream's own checks of the inputs (headers, metadata) now, not at the
		 * first query */
		struct ktrace_stream *s = NULL;
		struct ktrace_error err = { 0 };
		const char *bad = NULL;
		KTRACE_OPTS(ktrace_stream_opts, so, .events_dir = t->events_dir ?
			    PyBytes_AS_STRING(t->events_dir) : NULL);

		ktpy_damage_begin();
		if (ktrace_stream_open(&s, (const char *const *)t->paths, t->npaths, &so, &err,
				       &bad) < 0) {
			ktpy_raise(bad, &err, NULL);
			goto fail;
		}
		ktrace_stream_close(s);
		Py_XDECREF(ktpy_damage_end());
	}
	return (PyObject *)t;
fail:
	Py_DECREF(t);
	return NULL;
}

/* ---- info, tree, summary: a sink's JSON ---- */

static PyObject *info_one(const char *path)
{
	struct ktrace_ring_layout layout = { 0, 0, -1 };
	KTRACE_OPTS(ktrace_view_darwin_opts, dv, .json = true);
	KTRACE_OPTS(ktrace_info_opts, io, .json = true, .layout = &layout, .darwin = &dv);
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	struct ktpy_capture cap;
	const uint8_t *head;
	int64_t got;
	int ret;

	ktpy_damage_begin();
	if (ktrace_input_open(path, &in, &err) < 0)
		return ktpy_raise(path, &err, NULL);
	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, &err);
	if (got < 0) {
		ktrace_input_close(in);
		return ktpy_raise(path, &err, NULL);
	}
	io.format = ktrace_detect_format(head, (size_t)got);
	if (ktpy_capture_open(&cap)) {
		ktrace_input_close(in);
		Py_XDECREF(ktpy_damage_end());
		return NULL;
	}
	ret = ktrace_info(in, &io, cap.out, &err);
	ktrace_input_close(in);
	if (ret < 0) {
		ktpy_capture_close(&cap);
		return ktpy_raise(path, &err, NULL);
	}
	Py_XDECREF(ktpy_damage_end());
	return ktpy_capture_json(&cap);
}

static PyObject *trace_info(struct ktpy_trace *t, void *closure)
{
	PyObject *l;

	(void)closure;
	if (t->npaths == 1)
		return info_one(t->paths[0]);
	l = PyList_New((Py_ssize_t)t->npaths);
	for (size_t i = 0; l && i < t->npaths; i++) {
		PyObject *d = info_one(t->paths[i]);

		if (!d)
			Py_CLEAR(l);
		else
			PyList_SET_ITEM(l, (Py_ssize_t)i, d);
	}
	return l;
}

static PyObject *trace_tree(struct ktpy_trace *t, void *closure)
{
	KTRACE_OPTS(ktrace_report_opts, ro, .format = KTRACE_FORMAT_KCDATA, .output = "json");
	struct ktrace_error err = { 0 };
	struct ktrace_input *in = NULL;
	struct ktpy_capture cap;
	int ret;

	(void)closure;
	if (t->formats[0] != KTRACE_FORMAT_KCDATA)
		Py_RETURN_NONE;
	ktpy_damage_begin();
	if (ktrace_input_open(t->paths[0], &in, &err) < 0)
		return ktpy_raise(t->paths[0], &err, NULL);
	if (ktpy_capture_open(&cap)) {
		ktrace_input_close(in);
		Py_XDECREF(ktpy_damage_end());
		return NULL;
	}
	ret = ktrace_report(in, &ro, cap.out, &err);
	ktrace_input_close(in);
	if (ret < 0) {
		ktpy_capture_close(&cap);
		return ktpy_raise(t->paths[0], &err, NULL);
	}
	Py_XDECREF(ktpy_damage_end());
	return ktpy_capture_json(&cap);
}

static int no_kcdata(struct ktpy_trace *t, const char *what)
{
	if (t->formats[0] != KTRACE_FORMAT_KCDATA)
		return 0;
	PyErr_Format(PyExc_ValueError,
		     "%s: kcdata is a document, not events (its tree is Trace.tree)", what);
	return -1;
}

/* start/end arguments: None or a number of nanoseconds >= 0. */
int ktpy_ns_arg(PyObject *o, bool *has, uint64_t *v);
int ktpy_ns_arg(PyObject *o, bool *has, uint64_t *v)
{
	PyObject *i;

	*has = false;
	if (!o || o == Py_None)
		return 0;
	/* any integer (NumPy's too: a ts taken from a column) */
	i = PyNumber_Index(o);
	if (i) {
		*v = PyLong_AsUnsignedLongLong(i);
		Py_DECREF(i);
	}
	if (!i || PyErr_Occurred()) {
		PyErr_Clear();
		PyErr_SetString(PyExc_ValueError, "start and end are nanoseconds (integers >= 0)");
		return -1;
	}
	*has = true;
	return 0;
}

static PyObject *trace_summary(struct ktpy_trace *t, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "top", "start", "end", NULL };
	PyObject *start = NULL, *end = NULL, *res;
	unsigned top = 10;
	struct ktrace_error err = { 0 };
	struct ktrace_stream *s = NULL;
	struct ktpy_capture cap;
	const char *bad = NULL;
	int ret;
	KTRACE_OPTS(ktrace_view_summary_opts, vo, .json = true);
	KTRACE_OPTS(ktrace_stream_opts, so, .events_dir = t->events_dir ?
		    PyBytes_AS_STRING(t->events_dir) : NULL);

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|IOO:summary", kwlist, &top, &start, &end))
		return NULL;
	if (no_kcdata(t, "summary") || ktpy_ns_arg(start, &vo.has_from, &vo.from) ||
	    ktpy_ns_arg(end, &vo.has_to, &vo.to))
		return NULL;
	vo.top = top;
	ktpy_damage_begin();
	if (ktrace_stream_open(&s, (const char *const *)t->paths, t->npaths, &so, &err, &bad) < 0)
		return ktpy_raise(bad, &err, NULL);
	if (ktpy_capture_open(&cap)) {
		ktrace_stream_close(s);
		Py_XDECREF(ktpy_damage_end());
		return NULL;
	}
	ret = ktrace_view_summary(s, &vo, cap.out, &err);
	bad = ret < 0 ? ktrace_stream_error_path(s) : NULL;
	res = ktpy_capture_json(&cap);
	if (ret < 0) {
		ktpy_raise(bad, &err, res);
		Py_XDECREF(res);
		ktrace_stream_close(s);
		return NULL;
	}
	ktrace_stream_close(s);
	Py_XDECREF(ktpy_damage_end());
	return res;
}

static PyObject *trace_events(struct ktpy_trace *t, PyObject *args, PyObject *kw)
{
	if (no_kcdata(t, "events"))
		return NULL;
	return ktpy_events(t, args, kw, false);
}

static PyObject *trace_df(struct ktpy_trace *t, PyObject *args, PyObject *kw)
{
	if (no_kcdata(t, "df"))
		return NULL;
	return ktpy_events(t, args, kw, true);
}

static PyObject *trace_sql(struct ktpy_trace *t, PyObject *args)
{
	if (no_kcdata(t, "sql"))
		return NULL;
	return ktpy_sql(t, args);
}

static PyObject *trace_close(struct ktpy_trace *t, PyObject *unused)
{
	(void)unused;
	trace_release(t);
	Py_RETURN_NONE;
}

static PyObject *trace_enter(PyObject *t, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(t);
}

static PyObject *trace_exit(struct ktpy_trace *t, PyObject *args)
{
	(void)args;
	trace_release(t);
	Py_RETURN_FALSE;
}

static PyObject *trace_paths(struct ktpy_trace *t, void *closure)
{
	PyObject *tup = PyTuple_New((Py_ssize_t)t->npaths);

	(void)closure;
	for (size_t i = 0; tup && i < t->npaths; i++) {
		PyObject *s = PyUnicode_DecodeFSDefault(t->paths[i]);

		if (!s)
			Py_CLEAR(tup);
		else
			PyTuple_SET_ITEM(tup, (Py_ssize_t)i, s);
	}
	return tup;
}

static const char *format_key(enum ktrace_format f)
{
	switch (f) {
	case KTRACE_FORMAT_FTRACE_PAGES:
		return "ftrace-pages";
	case KTRACE_FORMAT_TRACEDAT:
		return "trace.dat";
	case KTRACE_FORMAT_DARWIN_V3:
		return "darwin-v3";
	case KTRACE_FORMAT_DARWIN_RAW:
		return "darwin-raw";
	case KTRACE_FORMAT_KCDATA:
		return "kcdata";
	case KTRACE_FORMAT_KOFF:
		return "koff";
	case KTRACE_FORMAT_ELF:
		return "elf";
	default:
		return "unknown";
	}
}

static PyObject *trace_format(struct ktpy_trace *t, void *closure)
{
	(void)closure;
	if (t->npaths == 1)
		return PyUnicode_FromString(format_key(t->formats[0]));
	PyObject *tup = PyTuple_New((Py_ssize_t)t->npaths);

	for (size_t i = 0; tup && i < t->npaths; i++) {
		PyObject *s = PyUnicode_FromString(format_key(t->formats[i]));

		if (!s)
			Py_CLEAR(tup);
		else
			PyTuple_SET_ITEM(tup, (Py_ssize_t)i, s);
	}
	return tup;
}

static PyObject *trace_repr(struct ktpy_trace *t)
{
	PyObject *p = trace_paths(t, NULL), *r;

	if (!p)
		return NULL;
	r = PyUnicode_FromFormat("<ktrace.Trace %R>", t->npaths == 1 ? PyTuple_GET_ITEM(p, 0) : p);
	Py_DECREF(p);
	return r;
}

static PyMethodDef trace_methods[] = {
	{ "events", (PyCFunction)(void (*)(void))trace_events, METH_VARARGS | METH_KEYWORDS,
	  "events(name=None, fields=None, cpus=None, start=None, end=None) -> dict of NumPy "
	  "arrays, one per column" },
	{ "df", (PyCFunction)(void (*)(void))trace_df, METH_VARARGS | METH_KEYWORDS,
	  "df(name=None, fields=None, cpus=None, start=None, end=None) -> pandas.DataFrame" },
	{ "sql", (PyCFunction)trace_sql, METH_VARARGS,
	  "sql(query) -> pandas.DataFrame of ktrace sql's answer (docs/sql.md)" },
	{ "summary", (PyCFunction)(void (*)(void))trace_summary, METH_VARARGS | METH_KEYWORDS,
	  "summary(top=10, start=None, end=None) -> dict (ktrace summary --json)" },
	{ "close", (PyCFunction)trace_close, METH_NOARGS, "frees the SQL tables" },
	{ "__enter__", trace_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)trace_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef trace_getset[] = {
	{ "info", (getter)trace_info, NULL, "what `ktrace info --json` says (a list for several "
	  "files)", NULL },
	{ "tree", (getter)trace_tree, NULL, "kcdata: the decoded tree as a dict (else None)", NULL },
	{ "paths", (getter)trace_paths, NULL, "the files", NULL },
	{ "format", (getter)trace_format, NULL, "the format of the file (a tuple for several)",
	  NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject trace_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "ktrace.Trace",
	.tp_basicsize = sizeof(struct ktpy_trace),
	.tp_dealloc = (destructor)trace_dealloc,
	.tp_repr = (reprfunc)trace_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A trace opened by ktrace.open (one or more files read as one stream).",
	.tp_methods = trace_methods,
	.tp_getset = trace_getset,
};

static PyMethodDef module_methods[] = {
	{ "open", (PyCFunction)(void (*)(void))ktpy_open, METH_VARARGS | METH_KEYWORDS,
	  "open(path_or_paths, events_dir=None) -> Trace: any format ktrace reads" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "ktrace",
	.m_doc = "Kernel traces (trace.dat, raw ftrace pages, Darwin ktrace, KOFF, kcdata) as "
		 "NumPy columns and pandas DataFrames, read by libktrace.",
	.m_size = -1,
	.m_methods = module_methods,
};

PyMODINIT_FUNC PyInit_ktrace(void);
PyMODINIT_FUNC PyInit_ktrace(void)
{
	PyObject *m;

	import_array();
	if (PyType_Ready(&trace_type) < 0)
		return NULL;
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	if (ktpy_error_init(m) < 0 ||
	    PyModule_AddStringConstant(m, "__version__", ktrace_version()) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	Py_INCREF(&trace_type);
	if (PyModule_AddObject(m, "Trace", (PyObject *)&trace_type) < 0) {
		Py_DECREF(&trace_type);
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
