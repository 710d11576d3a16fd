// SPDX-License-Identifier: MIT
/*
 * Trace.events and Trace.df: the records of the event stream (<ktrace/stream.h>: every
 * format) into columns, in one pass. Each selected record adds a row: ts (int64 ns), cpu
 * (int32), tid, pid (int64), comm, name (str), then its fields (signed integers int64,
 * unsigned uint64, strings str, arrays NumPy arrays, other bytes bytes). A field whose
 * name is one of those six columns' is called "field_NAME". Rows of events that lack a
 * field have it missing (numpy.ma in events, pandas' nullable integers in df).
 *
 * Memory: the columns asked for, grown by doubling (ktrace_columns.c), and the
 * stream's windows; no Python object per row for numbers, one str per distinct string.
 */
#include "ktrace_py.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ktpy_ns_arg(PyObject *o, bool *has, uint64_t *v);

enum { COL_TS, COL_CPU, COL_TID, COL_PID, COL_COMM, COL_NAME, NSTD };

static const char *const std_names[NSTD] = { "ts", "cpu", "tid", "pid", "comm", "name" };
static const enum ktpy_col_type std_types[NSTD] = {
	KTPY_COL_I64, KTPY_COL_I32, KTPY_COL_I64, KTPY_COL_I64, KTPY_COL_OBJ, KTPY_COL_OBJ,
};

/* What to do with the records of one event (keyed by its system and name pointers). */
struct plan {
	const char *system, *name;
	bool selected;
	PyObject *name_obj;           /* the name column's str */
	size_t nf;
	const char **fname;           /* the field names seen at each index */
	long *col;                    /* the column of field i, -1: not asked for */
};

struct events_run {
	struct ktpy_cols cols;
	long std[NSTD];               /* the standard columns' indexes, -1: not asked for */
	char **want;                  /* fields=: the column names asked for (NULL: all) */
	size_t nwant;
	char **names;                 /* name=: the events asked for (NULL: all) */
	size_t nnames;
	struct plan *plans;
	size_t nplans, capplans;
	size_t last;                  /* the plan of the previous record */
	struct ktpy_intern *intern;
	struct ktrace_event_value *vals;
	size_t nvals;
	size_t rows;
};

static void run_free(struct events_run *r)
{
	for (size_t i = 0; i < r->nplans; i++) {
		Py_XDECREF(r->plans[i].name_obj);
		free(r->plans[i].fname);
		free(r->plans[i].col);
	}
	free(r->plans);
	for (size_t i = 0; i < r->nwant; i++)
		free(r->want[i]);
	free(r->want);
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	free(r->vals);
	ktpy_intern_free(r->intern);
	ktpy_cols_free(&r->cols);
}

/* A str or a sequence of str as a list of C strings (NULL, 0 for None). */
static int str_list(PyObject *o, const char *what, char ***out, size_t *n)
{
	PyObject *seq;

	*out = NULL;
	*n = 0;
	if (!o || o == Py_None)
		return 0;
	seq = PyUnicode_Check(o) ? PyTuple_Pack(1, o) : PySequence_Tuple(o);
	if (!seq)
		return -1;
	*out = calloc((size_t)PyTuple_GET_SIZE(seq) + 1, sizeof(char *));
	if (!*out) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); i++) {
		const char *s;

		if (!PyUnicode_Check(PyTuple_GET_ITEM(seq, i))) {
			PyErr_Format(PyExc_TypeError, "%s: names are str", what);
			Py_DECREF(seq);
			return -1;
		}
		s = PyUnicode_AsUTF8(PyTuple_GET_ITEM(seq, i));
		if (!s || !((*out)[i] = strdup(s))) {
			if (s)
				PyErr_NoMemory();
			Py_DECREF(seq);
			return -1;
		}
		(*n)++;
	}
	Py_DECREF(seq);
	return 0;
}

static bool wanted(const struct events_run *r, const char *col)
{
	if (!r->want)
		return true;
	for (size_t i = 0; i < r->nwant; i++)
		if (!strcmp(r->want[i], col))
			return true;
	return false;
}

/* name= matches "name", "system:name" or "system/name". */
static bool name_selected(const struct events_run *r, const char *system, const char *name)
{
	size_t sl = strlen(system);

	if (!r->names)
		return true;
	for (size_t i = 0; i < r->nnames; i++) {
		const char *w = r->names[i];

		if (!strcmp(w, name))
			return true;
		if (sl && !strncmp(w, system, sl) && (w[sl] == ':' || w[sl] == '/') &&
		    !strcmp(w + sl + 1, name))
			return true;
	}
	return false;
}

static struct plan *plan_of(struct events_run *r, const struct ktrace_stream_record *rec)
{
	struct plan *p;

	if (r->nplans) {
		p = &r->plans[r->last];
		if (p->name == rec->name && p->system == rec->system)
			return p;
		for (size_t i = 0; i < r->nplans; i++) {
			p = &r->plans[i];
			if (p->name == rec->name && p->system == rec->system) {
				r->last = i;
				return p;
			}
		}
	}
	if (r->nplans == r->capplans) {
		size_t cap = r->capplans ? r->capplans * 2 : 64;
		struct plan *np = realloc(r->plans, cap * sizeof(*np));

		if (!np) {
			PyErr_NoMemory();
			return NULL;
		}
		r->plans = np;
		r->capplans = cap;
	}
	p = &r->plans[r->nplans];
	memset(p, 0, sizeof(*p));
	p->system = rec->system;
	p->name = rec->name;
	p->selected = name_selected(r, rec->system, rec->name);
	p->name_obj = ktpy_intern_ptr(r->intern, rec->name);
	if (!p->name_obj)
		return NULL;
	r->last = r->nplans++;
	return p;
}

static enum ktpy_col_type value_col_type(const struct ktrace_event_value *v)
{
	switch (v->type) {
	case KTRACE_EVENT_SIGNED:
		return KTPY_COL_I64;
	case KTRACE_EVENT_UNSIGNED:
		return KTPY_COL_U64;
	default:
		return KTPY_COL_OBJ;
	}
}

/* The column of field i (named fname) for plan p: its index, or -1 when not asked for,
 * -2 on error. */
static long field_col(struct events_run *r, struct plan *p, size_t i,
		      const struct ktrace_event_value *v)
{
	char buf[256];
	const char *col = v->name;
	struct ktpy_col *c;

	if (i >= p->nf) {
		size_t nf = i + 1 > p->nf * 2 ? i + 1 : p->nf * 2;
		const char **fn = realloc(p->fname, nf * sizeof(*fn));
		long *cl;

		if (!fn)
			goto oom;
		p->fname = fn;
		cl = realloc(p->col, nf * sizeof(*cl));
		if (!cl)
			goto oom;
		p->col = cl;
		for (size_t k = p->nf; k < nf; k++) {
			p->fname[k] = NULL;
			p->col[k] = -1;
		}
		p->nf = nf;
	}
	if (p->fname[i] == v->name)
		return p->col[i];
	for (size_t k = 0; k < NSTD; k++) {
		if (!strcmp(col, std_names[k])) {
			snprintf(buf, sizeof(buf), "field_%s", v->name);
			col = buf;
			break;
		}
	}
	p->fname[i] = v->name;
	p->col[i] = -1;
	if (!wanted(r, col))
		return -1;
	c = ktpy_cols_get(&r->cols, col, value_col_type(v));
	if (!c)
		goto oom;
	p->col[i] = c - r->cols.c;
	return p->col[i];
oom:
	PyErr_NoMemory();
	return -2;
}

static PyObject *array_value(const struct ktrace_event_value *v)
{
	npy_intp n = v->count;
	PyObject *a = PyArray_SimpleNew(1, &n, v->elem_signed ? NPY_INT64 : NPY_UINT64);

	if (!a)
		return NULL;
	for (npy_intp k = 0; k < n; k++)
		((uint64_t *)PyArray_DATA((PyArrayObject *)a))[k] = ktrace_event_array_at(v, (size_t)k);
	return a;
}

/* One value into column c at row. 0, or -1 with a Python error. */
static int put_value(struct events_run *r, struct ktpy_col *c, size_t row,
		     const struct ktrace_event_value *v)
{
	PyObject *o;

	if (c->type != KTPY_COL_OBJ) {
		bool fits = (v->type == KTRACE_EVENT_SIGNED &&
			     (c->type == KTPY_COL_I64 || v->i >= 0)) ||
			    (v->type == KTRACE_EVENT_UNSIGNED &&
			     (c->type == KTPY_COL_U64 || v->u <= INT64_MAX));

		if (fits) {
			if (ktpy_col_reserve(c, row))
				goto oom;
			if (c->type == KTPY_COL_I64)
				((int64_t *)c->data)[row] = v->type == KTRACE_EVENT_SIGNED ? v->i
											  : (int64_t)v->u;
			else
				((uint64_t *)c->data)[row] = v->type == KTRACE_EVENT_UNSIGNED ? v->u
											   : (uint64_t)v->i;
			c->n = row + 1;
			return 0;
		}
		/* a field of this name with another type in another event: objects */
		if (ktpy_col_to_obj(c))
			goto fail;
	}
	switch (v->type) {
	case KTRACE_EVENT_SIGNED:
		o = PyLong_FromLongLong(v->i);
		break;
	case KTRACE_EVENT_UNSIGNED:
		o = PyLong_FromUnsignedLongLong(v->u);
		break;
	case KTRACE_EVENT_STRING:
		o = ktpy_intern(r->intern, v->data, v->data ? strnlen(v->data, v->len) : 0);
		break;
	case KTRACE_EVENT_ARRAY:
		o = array_value(v);
		break;
	default:
		o = PyBytes_FromStringAndSize(v->data, v->data ? (Py_ssize_t)v->len : 0);
		break;
	}
	if (!o)
		goto fail;
	if (ktpy_col_reserve(c, row)) {
		Py_DECREF(o);
		goto oom;
	}
	((PyObject **)c->data)[row] = o;
	c->n = row + 1;
	return 0;
oom:
	PyErr_NoMemory();
fail:
	return -1;
}

/* The standard columns of one record at row r->rows. */
static int put_std(struct events_run *r, const struct ktrace_stream_record *rec, struct plan *p)
{
	size_t row = r->rows;

	for (size_t k = 0; k < NSTD; k++) {
		struct ktpy_col *c;
		PyObject *o;

		if (r->std[k] < 0)
			continue;
		c = &r->cols.c[r->std[k]];
		if (ktpy_col_reserve(c, row)) {
			PyErr_NoMemory();
			return -1;
		}
		switch (k) {
		case COL_TS:
			((int64_t *)c->data)[row] = (int64_t)rec->ts;
			break;
		case COL_CPU:
			((int32_t *)c->data)[row] = rec->cpu;
			break;
		case COL_TID:
			((int64_t *)c->data)[row] = rec->tid;
			break;
		case COL_PID:
			((int64_t *)c->data)[row] = rec->pid;
			break;
		case COL_COMM:
			o = ktpy_intern(r->intern, rec->comm, strlen(rec->comm));
			if (!o)
				return -1;
			((PyObject **)c->data)[row] = o;
			break;
		default:
			Py_INCREF(p->name_obj);
			((PyObject **)c->data)[row] = p->name_obj;
			break;
		}
		c->n = row + 1;
	}
	return 0;
}

static int put_record(struct events_run *r, struct ktrace_stream *s,
		      const struct ktrace_stream_record *rec, struct plan *p)
{
	size_t n;

	if (put_std(r, rec, p))
		return -1;
	n = ktrace_stream_fields(s, r->vals, r->nvals);
	if (n > r->nvals) {
		struct ktrace_event_value *nv = realloc(r->vals, n * sizeof(*nv));

		if (!nv) {
			PyErr_NoMemory();
			return -1;
		}
		r->vals = nv;
		r->nvals = n;
		n = ktrace_stream_fields(s, r->vals, r->nvals);
		if (n > r->nvals)
			n = r->nvals;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ktrace_event_value *v = &r->vals[i];
		long ci = i < p->nf && p->fname[i] == v->name ? p->col[i] : field_col(r, p, i, v);

		if (ci == -2)
			return -1;
		if (ci >= 0 && put_value(r, &r->cols.c[ci], r->rows, v))
			return -1;
	}
	r->rows++;
	return 0;
}

/* Orders the columns as fields= asked (columns never seen: all None). */
static int order_columns(struct events_run *r)
{
	struct ktpy_cols sorted = { 0 };

	if (!r->want)
		return 0;
	sorted.c = calloc(r->nwant + 1, sizeof(*sorted.c));
	if (!sorted.c)
		return -1;
	sorted.cap = r->nwant + 1;
	for (size_t i = 0; i < r->nwant; i++) {
		size_t k;

		for (k = 0; k < sorted.n; k++)
			if (!strcmp(sorted.c[k].name, r->want[i]))
				break;
		if (k < sorted.n)
			continue;   /* named twice */
		for (k = 0; k < r->cols.n; k++)
			if (r->cols.c[k].name && !strcmp(r->cols.c[k].name, r->want[i]))
				break;
		if (k < r->cols.n) {
			sorted.c[sorted.n++] = r->cols.c[k];
			memset(&r->cols.c[k], 0, sizeof(r->cols.c[k]));
		} else {
			struct ktpy_col *c = ktpy_cols_get(&sorted, r->want[i], KTPY_COL_OBJ);

			if (!c) {
				ktpy_cols_free(&sorted);
				return -1;
			}
		}
	}
	ktpy_cols_free(&r->cols);
	r->cols = sorted;
	return 0;
}

/* The columns as a dict (or DataFrame). */
static PyObject *finish(struct events_run *r, bool frame)
{
	PyObject *masks = frame ? PyList_New(0) : NULL, *d, *res;

	if (frame && !masks)
		return NULL;
	if (ktpy_cols_pad(&r->cols, r->rows) || order_columns(r)) {
		Py_XDECREF(masks);
		return PyErr_NoMemory();
	}
	if (ktpy_cols_pad(&r->cols, r->rows)) {
		Py_XDECREF(masks);
		return PyErr_NoMemory();
	}
	d = ktpy_cols_to_dict(&r->cols, masks);
	if (!d || !frame) {
		Py_XDECREF(masks);
		return d;
	}
	res = ktpy_frame(d, masks, NULL);
	Py_DECREF(d);
	Py_DECREF(masks);
	return res;
}

PyObject *ktpy_frame(PyObject *dict, PyObject *masks, PyObject *columns)
{
	PyObject *pd = PyImport_ImportModule("pandas"), *arrays = NULL, *res = NULL;

	(void)columns;
	if (!pd)
		return NULL;
	if (masks && PyList_GET_SIZE(masks)) {
		arrays = PyObject_GetAttrString(pd, "arrays");
		if (!arrays)
			goto done;
		for (Py_ssize_t i = 0; i < PyList_GET_SIZE(masks); i++) {
			PyObject *t = PyList_GET_ITEM(masks, i), *a;
			PyArrayObject *vals = (PyArrayObject *)PyTuple_GET_ITEM(t, 1);

			if (PyArray_ISFLOAT(vals)) {
				/* floats: NaN where there is nothing */
				a = PyArray_NewCopy(vals, NPY_ANYORDER);
				if (a) {
					double *x = PyArray_DATA((PyArrayObject *)a);
					const npy_bool *m = PyArray_DATA(
						(PyArrayObject *)PyTuple_GET_ITEM(t, 2));

					for (npy_intp k = 0; k < PyArray_SIZE(vals); k++)
						if (m[k])
							x[k] = Py_NAN;
				}
			} else {
				a = PyObject_CallMethod(arrays, "IntegerArray", "OO", vals,
							PyTuple_GET_ITEM(t, 2));
			}
			if (!a || PyDict_SetItem(dict, PyTuple_GET_ITEM(t, 0), a) < 0) {
				Py_XDECREF(a);
				goto done;
			}
			Py_DECREF(a);
		}
	}
	/* copy=False: the columns' memory becomes the frame's (pandas copies dicts by
	 * default) */
	{
		PyObject *cls = PyObject_GetAttrString(pd, "DataFrame"), *args = NULL, *kw = NULL;

		if (cls)
			args = PyTuple_Pack(1, dict);
		if (args)
			kw = Py_BuildValue("{s:O}", "copy", Py_False);
		if (kw)
			res = PyObject_Call(cls, args, kw);
		Py_XDECREF(cls);
		Py_XDECREF(args);
		Py_XDECREF(kw);
	}
done:
	Py_XDECREF(arrays);
	Py_DECREF(pd);
	return res;
}

static bool all_tracedat(const struct ktpy_trace *t)
{
	for (size_t i = 0; i < t->npaths; i++)
		if (t->formats[i] != KTRACE_FORMAT_TRACEDAT)
			return false;
	return true;
}

/* "name,system/name,...": names of letters, digits, '_' and '-' only (the filter's
 * parts are regular expressions); false when a name is another. */
static bool name_filter(const struct events_run *r, struct ktrace_stream_filter *f)
{
	size_t len = 1;
	char *text, *p;

	for (size_t i = 0; i < r->nnames; i++) {
		if (!r->names[i][0] || strspn(r->names[i], "abcdefghijklmnopqrstuvwxyz"
						"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:/") !=
					       strlen(r->names[i]) ||
		    strchr(r->names[i], ':') != strrchr(r->names[i], ':'))
			return false;
		len += strlen(r->names[i]) + 1;
	}
	text = p = malloc(len);
	if (!text)
		return false;
	for (size_t i = 0; i < r->nnames; i++) {
		p += sprintf(p, "%s%s", i ? "," : "", r->names[i]);
		for (char *c = p - strlen(r->names[i]); c < p; c++)
			if (*c == ':')
				*c = '/';
	}
	f->text = text;
	f->negative = false;
	return true;
}

PyObject *ktpy_events(struct ktpy_trace *t, PyObject *args, PyObject *kw, bool frame)
{
	static char *kwlist[] = { "name", "fields", "cpus", "start", "end", NULL };
	PyObject *name = NULL, *fields = NULL, *cpus = NULL, *start = NULL, *end = NULL, *res;
	struct events_run r = { 0 };
	struct ktrace_error err = { 0 };
	struct ktrace_stream *s = NULL;
	const struct ktrace_stream_record *rec;
	const char *bad = NULL;
	bool has_start, has_end;
	uint64_t from = 0, to = 0;
	struct ktrace_stream_filter filter = { 0 };
	int *cpu_list = NULL;
	size_t ncpus = 0;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOOO", kwlist, &name, &fields, &cpus, &start,
					 &end))
		return NULL;
	if (ktpy_ns_arg(start, &has_start, &from) || ktpy_ns_arg(end, &has_end, &to))
		return NULL;
	if (str_list(name, "name", &r.names, &r.nnames) ||
	    str_list(fields, "fields", &r.want, &r.nwant))
		goto fail;
	if (cpus && cpus != Py_None) {
		PyObject *seq = PyLong_Check(cpus) ? PyTuple_Pack(1, cpus) : PySequence_Tuple(cpus);

		if (!seq)
			goto fail;
		cpu_list = calloc((size_t)PyTuple_GET_SIZE(seq) + 1, sizeof(int));
		for (Py_ssize_t i = 0; cpu_list && i < PyTuple_GET_SIZE(seq); i++) {
			long c = PyLong_AsLong(PyTuple_GET_ITEM(seq, i));

			if (c < 0 || c > 65535) {
				Py_DECREF(seq);
				if (!PyErr_Occurred())
					PyErr_SetString(PyExc_ValueError, "cpus: CPU numbers from 0");
				goto fail;
			}
			cpu_list[ncpus++] = (int)c;
		}
		Py_DECREF(seq);
		if (!cpu_list) {
			PyErr_NoMemory();
			goto fail;
		}
	}
	r.intern = ktpy_intern_new();
	r.nvals = 32;
	r.vals = calloc(r.nvals, sizeof(*r.vals));
	if (!r.intern || !r.vals) {
		PyErr_NoMemory();
		goto fail;
	}
	for (size_t k = 0; k < NSTD; k++) {
		r.std[k] = -1;
		if (wanted(&r, std_names[k])) {
			struct ktpy_col *c = ktpy_cols_get(&r.cols, std_names[k], std_types[k]);

			if (!c) {
				PyErr_NoMemory();
				goto fail;
			}
			r.std[k] = c - r.cols.c;
		}
	}

	KTRACE_OPTS(ktrace_stream_opts, so, .cpus = cpu_list, .ncpus = ncpus,
		    .flags = KTRACE_STREAM_NO_LOST,
		    .events_dir = t->events_dir ? PyBytes_AS_STRING(t->events_dir) : NULL);
	if (cpu_list && !ncpus)
		so.cpus = NULL;   /* cpus=[]: no CPU, no rows (the loop below stops at once) */
	/* trace.dat: the events asked for as the stream's filter, so that the records of
	 * the others are dropped before they are made (several times faster when few
	 * records are asked for); a name no file has makes the filter fail: then none */
	if (r.names && all_tracedat(t) && name_filter(&r, &filter)) {
		so.filters = &filter;
		so.nfilters = 1;
	}
	ktpy_damage_begin();
	ret = ktrace_stream_open(&s, (const char *const *)t->paths, t->npaths, &so, &err, &bad);
	if (ret == -EINVAL && so.nfilters && !bad) {
		so.filters = NULL;
		so.nfilters = 0;
		memset(&err, 0, sizeof(err));
		ret = ktrace_stream_open(&s, (const char *const *)t->paths, t->npaths, &so, &err, &bad);
	}
	if (ret < 0) {
		ktpy_raise(bad, &err, NULL);
		goto fail;
	}
	for (uint64_t seen = 1;
	     !(cpu_list && !ncpus) && (ret = ktrace_stream_next(s, &rec, &err)) > 0; seen++) {
		struct plan *p;

		/* Ctrl-C stops a long read (KeyboardInterrupt) */
		if (!(seen & 0xffff) && PyErr_CheckSignals() < 0)
			goto fail_stream;
		if (rec->kind != KTRACE_STREAM_EVENT)
			continue;
		if ((has_start && rec->ts < from) || (has_end && rec->ts >= to))
			continue;
		p = plan_of(&r, rec);
		if (!p)
			goto fail_stream;
		if (!p->selected)
			continue;
		if (put_record(&r, s, rec, p))
			goto fail_stream;
	}
	if (ret < 0) {
		PyObject *partial = finish(&r, frame);

		bad = ktrace_stream_error_path(s);
		ktpy_raise(bad, &err, partial);
		Py_XDECREF(partial);
		goto fail_stream;
	}
	ktrace_stream_close(s);
	Py_XDECREF(ktpy_damage_end());
	res = finish(&r, frame);
	run_free(&r);
	free(cpu_list);
	free((char *)filter.text);
	return res;
fail_stream:
	ktrace_stream_close(s);
	if (!PyErr_Occurred())
		PyErr_NoMemory();
fail:
	ktpy_damage_drop();
	run_free(&r);
	free(cpu_list);
	free((char *)filter.text);
	return NULL;
}
