// SPDX-License-Identifier: MIT
/* A sink's output (ktrace info --json, summary --json, a kcdata tree as JSON) written to
 * an anonymous memory file, read back and parsed with Python's json module. */
#include "ktrace_py.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int ktpy_capture_open(struct ktpy_capture *c)
{
	c->out = NULL;
	c->fd = memfd_create("ktrace-python", MFD_CLOEXEC);
	if (c->fd < 0) {
		PyErr_SetFromErrno(PyExc_OSError);
		return -1;
	}
	c->out = ktrace_out_new(c->fd);
	if (!c->out) {
		close(c->fd);
		c->fd = -1;
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

void ktpy_capture_close(struct ktpy_capture *c)
{
	ktrace_out_free(c->out);
	c->out = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

PyObject *ktpy_capture_json(struct ktpy_capture *c)
{
	PyObject *json = NULL, *text = NULL, *res = NULL;
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int e = ktrace_out_flush(c->out);

	if (e < 0) {
		errno = -e;
		PyErr_SetFromErrno(PyExc_OSError);
		goto done;
	}
	if (fstat(c->fd, &st) < 0) {
		PyErr_SetFromErrno(PyExc_OSError);
		goto done;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		PyErr_NoMemory();
		goto done;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(c->fd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			PyErr_SetFromErrno(PyExc_OSError);
			goto done;
		}
		got += (size_t)n;
	}
	text = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)got, "surrogateescape");
	if (!text)
		goto done;
	json = PyImport_ImportModule("json");
	if (!json)
		goto done;
	res = PyObject_CallMethod(json, "loads", "O", text);
done:
	free(buf);
	Py_XDECREF(text);
	Py_XDECREF(json);
	ktpy_capture_close(c);
	return res;
}
