// SPDX-License-Identifier: MIT
/*
 * ktrace.Error, a subclass of OSError: errno (the library's code), strerror (the
 * message as the CLI prints it: "offset 0x1a2c: what went wrong"), filename, offset
 * (None when the error has none), damage (every damaged place the readers met, each
 * the line the CLI prints without its "ktrace: " prefix) and partial (what was read
 * before the error, when anything was). str(e) is the CLI's line without "ktrace: ".
 */
#include "ktrace_py.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

PyObject *ktpy_error_type;

static const char error_class[] =
	"class Error(OSError):\n"
	"    '''An input ktrace could not read (whole): the CLI's message and offset.'''\n"
	"    def __init__(self, errno, strerror, filename=None, offset=None, damage=(),\n"
	"                 partial=None):\n"
	"        super().__init__(errno, strerror, filename)\n"
	"        self.offset = offset\n"
	"        self.damage = list(damage)\n"
	"        self.partial = partial\n"
	"    def __str__(self):\n"
	"        if self.filename is None:\n"
	"            return str(self.strerror)\n"
	"        return '%s: %s' % (self.filename, self.strerror)\n"
	"    def __reduce__(self):\n"
	"        return (type(self), (self.errno, self.strerror, self.filename, self.offset,\n"
	"                             self.damage))\n";

int ktpy_error_init(PyObject *module)
{
	PyObject *g = PyDict_New(), *r, *name = PyUnicode_FromString("ktrace");

	if (!g || !name)
		goto fail;
	if (PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) < 0 ||
	    PyDict_SetItemString(g, "__name__", name) < 0)
		goto fail;
	Py_CLEAR(name);
	r = PyRun_String(error_class, Py_file_input, g, g);
	if (!r)
		goto fail;
	Py_DECREF(r);
	ktpy_error_type = PyDict_GetItemString(g, "Error");
	if (!ktpy_error_type)
		goto fail;
	Py_INCREF(ktpy_error_type);
	Py_DECREF(g);
	Py_INCREF(ktpy_error_type);
	if (PyModule_AddObject(module, "Error", ktpy_error_type) < 0) {
		Py_DECREF(ktpy_error_type);
		return -1;
	}
	return 0;
fail:
	Py_XDECREF(name);
	Py_XDECREF(g);
	return -1;
}

/* ---- damaged places: told from any reading thread, kept as lines ---- */

#define DAMAGE_MAX 4096

static struct {
	pthread_mutex_t mu;
	char **lines;
	size_t n, cap;
} damage = { .mu = PTHREAD_MUTEX_INITIALIZER };

static char *error_line(const char *file, const struct ktrace_error *err)
{
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64], raw[KTRACE_ERROR_MESSAGE_MAX + 4200];
	char esc[8192];

	ktrace_error_format(err, msg, sizeof(msg));
	snprintf(raw, sizeof(raw), "%s%s%s", file ? file : "", file ? ": " : "", msg);
	ktrace_error_escape(esc, sizeof(esc), raw);
	return strdup(esc);
}

static void on_damage(const char *input, const struct ktrace_error *err, void *arg)
{
	char *line = error_line(input, err);

	(void)arg;
	if (!line)
		return;
	pthread_mutex_lock(&damage.mu);
	for (size_t i = 0; i < damage.n; i++) {
		if (!strcmp(damage.lines[i], line)) {
			free(line);
			line = NULL;
			break;
		}
	}
	if (line && damage.n < DAMAGE_MAX) {
		if (damage.n == damage.cap) {
			size_t cap = damage.cap ? damage.cap * 2 : 16;
			char **l = realloc(damage.lines, cap * sizeof(*l));

			if (l) {
				damage.lines = l;
				damage.cap = cap;
			}
		}
		if (damage.n < damage.cap) {
			damage.lines[damage.n++] = line;
			line = NULL;
		}
	}
	pthread_mutex_unlock(&damage.mu);
	free(line);
}

void ktpy_damage_begin(void)
{
	pthread_mutex_lock(&damage.mu);
	for (size_t i = 0; i < damage.n; i++)
		free(damage.lines[i]);
	damage.n = 0;
	pthread_mutex_unlock(&damage.mu);
	ktrace_error_damage_handler(on_damage, NULL);
}

PyObject *ktpy_damage_end(void)
{
	PyObject *l;

	ktrace_error_damage_handler(NULL, NULL);
	pthread_mutex_lock(&damage.mu);
	l = PyList_New((Py_ssize_t)damage.n);
	for (size_t i = 0; i < damage.n; i++) {
		if (l) {
			PyObject *s = PyUnicode_DecodeUTF8(damage.lines[i],
							   (Py_ssize_t)strlen(damage.lines[i]),
							   "replace");
			if (!s) {
				Py_CLEAR(l);
			} else {
				PyList_SET_ITEM(l, (Py_ssize_t)i, s);
			}
		}
		free(damage.lines[i]);
	}
	damage.n = 0;
	pthread_mutex_unlock(&damage.mu);
	return l;
}

void ktpy_damage_drop(void)
{
	PyObject *et, *ev, *tb;

	PyErr_Fetch(&et, &ev, &tb);
	Py_XDECREF(ktpy_damage_end());
	PyErr_Restore(et, ev, tb);
}

PyObject *ktpy_raise(const char *file, const struct ktrace_error *err, PyObject *partial)
{
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64], esc[KTRACE_ERROR_MESSAGE_MAX * 4 + 256];
	PyObject *damaged = ktpy_damage_end(), *exc, *offset, *fname;
	int code = err->code ? -err->code : 5;   /* EIO when no code was recorded */

	if (!damaged)
		damaged = PyList_New(0);
	ktrace_error_format(err, msg, sizeof(msg));
	ktrace_error_escape(esc, sizeof(esc), msg);
	if (err->has_offset)
		offset = PyLong_FromUnsignedLongLong(err->offset);
	else
		offset = Py_NewRef(Py_None);
	fname = file ? PyUnicode_DecodeFSDefault(file) : Py_NewRef(Py_None);
	exc = PyObject_CallFunction(ktpy_error_type, "isOOOO", code, esc,
				    fname ? fname : Py_None, offset ? offset : Py_None,
				    damaged ? damaged : Py_None, partial ? partial : Py_None);
	Py_XDECREF(fname);
	Py_XDECREF(offset);
	Py_XDECREF(damaged);
	if (exc) {
		PyErr_SetObject(ktpy_error_type, exc);
		Py_DECREF(exc);
	}
	return NULL;
}
