// SPDX-License-Identifier: MIT
/*
 * Columns built in C and handed to NumPy: each a growing array of one type (doubled as
 * it fills, so one pass over the records makes it; at most twice the column's final
 * size while it grows, then trimmed), numbers given to NumPy without a copy (the array
 * owns the memory through a capsule), strings as interned Python str objects (one per
 * distinct value, not one per row).
 */
#include "ktrace_py.h"

#include <stdlib.h>
#include <string.h>

size_t ktpy_col_size(enum ktpy_col_type t)
{
	switch (t) {
	case KTPY_COL_I32:
		return 4;
	case KTPY_COL_OBJ:
		return sizeof(PyObject *);
	default:
		return 8;
	}
}

struct ktpy_col *ktpy_cols_get(struct ktpy_cols *cs, const char *name, enum ktpy_col_type t)
{
	struct ktpy_col *c;

	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->c[i].name, name))
			return &cs->c[i];
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 16;
		struct ktpy_col *nc = realloc(cs->c, cap * sizeof(*nc));

		if (!nc)
			return NULL;
		cs->c = nc;
		cs->cap = cap;
	}
	c = &cs->c[cs->n];
	memset(c, 0, sizeof(*c));
	c->name = strdup(name);
	if (!c->name)
		return NULL;
	c->type = t;
	cs->n++;
	return c;
}

static int col_grow(struct ktpy_col *c, size_t need)
{
	size_t cap = c->cap ? c->cap : 1024, sz = ktpy_col_size(c->type);
	void *nd;

	while (cap < need) {
		if (cap > SIZE_MAX / 2 / sz)
			return -1;
		cap *= 2;
	}
	if (cap == c->cap)
		return 0;
	nd = realloc(c->data, cap * sz);
	if (!nd)
		return -1;
	c->data = nd;
	c->cap = cap;
	return 0;
}

static int mask_grow(struct ktpy_col *c, size_t need)
{
	uint8_t *m;

	if (c->mask && c->mask_cap >= need)
		return 0;
	m = realloc(c->mask, need);
	if (!m)
		return -1;
	memset(m + c->mask_cap, 0, need - c->mask_cap);
	c->mask = m;
	c->mask_cap = need;
	return 0;
}

/* Rows [c->n, row) have no value: zero (None for objects) and masked. */
static int col_gap(struct ktpy_col *c, size_t row)
{
	if (row <= c->n)
		return 0;
	if (mask_grow(c, c->cap))
		return -1;
	memset(c->mask + c->n, 1, row - c->n);
	if (c->type == KTPY_COL_OBJ) {
		PyObject **o = c->data;

		for (size_t i = c->n; i < row; i++) {
			Py_INCREF(Py_None);
			o[i] = Py_None;
		}
	} else {
		memset((char *)c->data + c->n * ktpy_col_size(c->type), 0,
		       (row - c->n) * ktpy_col_size(c->type));
	}
	c->n = row;
	return 0;
}

int ktpy_col_reserve(struct ktpy_col *c, size_t row)
{
	if (row >= c->cap && col_grow(c, row + 1))
		return -1;
	if (c->mask && c->mask_cap < c->cap && mask_grow(c, c->cap))
		return -1;
	return row > c->n ? col_gap(c, row) : 0;
}

int ktpy_cols_pad(struct ktpy_cols *cs, size_t rows)
{
	for (size_t i = 0; i < cs->n; i++) {
		struct ktpy_col *c = &cs->c[i];

		if (c->n < rows && (ktpy_col_reserve(c, rows - 1) || col_gap(c, rows)))
			return -1;
	}
	return 0;
}

int ktpy_col_to_obj(struct ktpy_col *c)
{
	PyObject **o;

	if (c->type == KTPY_COL_OBJ)
		return 0;
	o = malloc((c->cap ? c->cap : 1) * sizeof(*o));
	if (!o)
		return -1;
	for (size_t i = 0; i < c->n; i++) {
		if (c->mask && c->mask[i]) {
			Py_INCREF(Py_None);
			o[i] = Py_None;
			continue;
		}
		switch (c->type) {
		case KTPY_COL_I64:
			o[i] = PyLong_FromLongLong(((int64_t *)c->data)[i]);
			break;
		case KTPY_COL_U64:
			o[i] = PyLong_FromUnsignedLongLong(((uint64_t *)c->data)[i]);
			break;
		case KTPY_COL_I32:
			o[i] = PyLong_FromLong(((int32_t *)c->data)[i]);
			break;
		default:
			o[i] = PyFloat_FromDouble(((double *)c->data)[i]);
			break;
		}
		if (!o[i]) {
			while (i--)
				Py_DECREF(o[i]);
			free(o);
			return -1;
		}
	}
	free(c->data);
	c->data = o;
	c->type = KTPY_COL_OBJ;
	return 0;
}

static void col_free(struct ktpy_col *c)
{
	if (c->type == KTPY_COL_OBJ)
		for (size_t i = 0; i < c->n; i++)
			Py_XDECREF(((PyObject **)c->data)[i]);
	free(c->data);
	free(c->mask);
	free(c->name);
	memset(c, 0, sizeof(*c));
}

void ktpy_cols_free(struct ktpy_cols *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		col_free(&cs->c[i]);
	free(cs->c);
	memset(cs, 0, sizeof(*cs));
}

static void capsule_free(PyObject *cap)
{
	free(PyCapsule_GetPointer(cap, NULL));
}

/* A 1-D array of n elements of typenum over data (malloc'd), which it then owns. */
static PyObject *array_owning(void *data, size_t n, int typenum, size_t elsize)
{
	npy_intp dim = (npy_intp)n;
	PyObject *arr, *cap;

	if (!data) {
		data = malloc(elsize);
		if (!data)
			return PyErr_NoMemory();
	} else if (n) {
		void *shrunk = realloc(data, n * elsize);

		if (shrunk)
			data = shrunk;
	}
	cap = PyCapsule_New(data, NULL, capsule_free);
	if (!cap) {
		free(data);
		return NULL;
	}
	arr = PyArray_SimpleNewFromData(1, &dim, typenum, data);
	if (!arr) {
		Py_DECREF(cap);
		return NULL;
	}
	if (PyArray_SetBaseObject((PyArrayObject *)arr, cap) < 0) {
		Py_DECREF(arr);
		return NULL;
	}
	return arr;
}

static PyObject *col_array(struct ktpy_col *c)
{
	static const int types[] = {
		[KTPY_COL_I64] = NPY_INT64, [KTPY_COL_U64] = NPY_UINT64,
		[KTPY_COL_I32] = NPY_INT32, [KTPY_COL_F64] = NPY_FLOAT64,
	};
	PyObject *arr;

	if (c->type == KTPY_COL_OBJ) {
		npy_intp dim = (npy_intp)c->n;

		arr = PyArray_SimpleNew(1, &dim, NPY_OBJECT);
		if (!arr)
			return NULL;
		/* the references move into the array */
		if (c->n)
			memcpy(PyArray_DATA((PyArrayObject *)arr), c->data, c->n * sizeof(PyObject *));
		free(c->data);
	} else {
		arr = array_owning(c->data, c->n, types[c->type], ktpy_col_size(c->type));
		if (!arr)
			return NULL;
	}
	c->data = NULL;
	c->n = 0;
	return arr;
}

PyObject *ktpy_cols_to_dict(struct ktpy_cols *cs, PyObject *masks)
{
	PyObject *d = PyDict_New(), *ma = NULL;

	if (!d)
		goto fail;
	for (size_t i = 0; i < cs->n; i++) {
		struct ktpy_col *c = &cs->c[i];
		PyObject *arr, *mask = NULL;
		bool masked = c->mask && c->type != KTPY_COL_OBJ;
		size_t n = c->n;
		int r;

		if (masked) {
			mask = array_owning(c->mask, n, NPY_BOOL, 1);
			c->mask = NULL;
			if (!mask)
				goto fail;
		}
		arr = col_array(c);
		if (!arr) {
			Py_XDECREF(mask);
			goto fail;
		}
		if (masked && masks) {
			PyObject *t = Py_BuildValue("(sOO)", c->name, arr, mask);

			r = t ? PyList_Append(masks, t) : -1;
			Py_XDECREF(t);
			if (r < 0) {
				Py_DECREF(arr);
				Py_DECREF(mask);
				goto fail;
			}
		} else if (masked) {
			PyObject *m;

			if (!ma && !(ma = PyImport_ImportModule("numpy.ma"))) {
				Py_DECREF(arr);
				Py_DECREF(mask);
				goto fail;
			}
			m = PyObject_CallMethod(ma, "masked_array", "OO", arr, mask);
			Py_DECREF(arr);
			Py_DECREF(mask);
			if (!m)
				goto fail;
			arr = m;
			mask = NULL;
		}
		Py_XDECREF(mask);
		r = PyDict_SetItemString(d, c->name, arr);
		Py_DECREF(arr);
		if (r < 0)
			goto fail;
	}
	Py_XDECREF(ma);
	ktpy_cols_free(cs);
	return d;
fail:
	Py_XDECREF(ma);
	Py_XDECREF(d);
	ktpy_cols_free(cs);
	return NULL;
}

/* ---- interned strings ---- */

#define INTERN_MAX_LEN 64             /* longer strings get an object each */
#define INTERN_MAX_ENTRIES (1u << 20)

struct intern_entry {
	uint64_t hash;                /* 0: free */
	const char *key;              /* a copy (by content) or the caller's pointer */
	uint32_t len;
	PyObject *obj;
};

struct intern_table {
	struct intern_entry *e;
	size_t cap, n;
};

struct ktpy_intern {
	struct intern_table text, ptr;
};

struct ktpy_intern *ktpy_intern_new(void)
{
	return calloc(1, sizeof(struct ktpy_intern));
}

static void table_free(struct intern_table *t, bool own_keys)
{
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->e[i].hash)
			continue;
		Py_DECREF(t->e[i].obj);
		if (own_keys)
			free((void *)t->e[i].key);
	}
	free(t->e);
}

void ktpy_intern_free(struct ktpy_intern *in)
{
	if (!in)
		return;
	table_free(&in->text, true);
	table_free(&in->ptr, false);
	free(in);
}

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h ? h : 1;
}

static int table_grow(struct intern_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	struct intern_entry *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->e[i].hash)
			continue;
		for (j = t->e[i].hash & (cap - 1); e[j].hash; j = (j + 1) & (cap - 1))
			;
		e[j] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

static PyObject *decode(const char *s, size_t len)
{
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "surrogateescape");
}

/* by_ptr: key is s itself (compared by address). */
static PyObject *table_get(struct intern_table *t, const char *s, size_t len, bool by_ptr)
{
	uint64_t h = by_ptr ? hash_bytes((const char *)&s, sizeof(s)) : hash_bytes(s, len);
	struct intern_entry *e;
	PyObject *o;
	size_t j;

	if (t->cap) {
		for (j = h & (t->cap - 1); t->e[j].hash; j = (j + 1) & (t->cap - 1)) {
			e = &t->e[j];
			if (e->hash == h &&
			    (by_ptr ? e->key == s : e->len == len && !memcmp(e->key, s, len))) {
				Py_INCREF(e->obj);
				return e->obj;
			}
		}
	}
	o = decode(s, len);
	if (!o || t->n >= INTERN_MAX_ENTRIES)
		return o;
	if ((t->n + 1) * 2 > t->cap && table_grow(t))
		return o;
	for (j = h & (t->cap - 1); t->e[j].hash; j = (j + 1) & (t->cap - 1))
		;
	e = &t->e[j];
	if (by_ptr) {
		e->key = s;
	} else {
		char *k = malloc(len + 1);

		if (!k)
			return o;
		memcpy(k, s, len);
		k[len] = 0;
		e->key = k;
	}
	e->hash = h;
	e->len = (uint32_t)len;
	Py_INCREF(o);
	e->obj = o;
	t->n++;
	return o;
}

PyObject *ktpy_intern(struct ktpy_intern *in, const char *s, size_t len)
{
	if (len > INTERN_MAX_LEN)
		return decode(s, len);
	return table_get(&in->text, s, len, false);
}

PyObject *ktpy_intern_ptr(struct ktpy_intern *in, const char *s)
{
	return table_get(&in->ptr, s, strlen(s), true);
}
