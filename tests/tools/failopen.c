/*
 * Preloaded into ktrace by tests/timeline/timeline.sh (never into a sanitized build):
 * the FAILOPEN_NTH-th open() of the path FAILOPEN_PATH fails with EMFILE, as when a line
 * thread of the timeline cannot open the trace again.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);

static atomic_int opened;

static int fail_this(const char *path)
{
	const char *want = getenv("FAILOPEN_PATH"), *nth = getenv("FAILOPEN_NTH");

	return want && nth && !strcmp(path, want) && atomic_fetch_add(&opened, 1) + 1 == atoi(nth);
}

static int real_open(const char *sym, const char *path, int flags, mode_t mode)
{
	int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(path, flags, mode);
}

static int open_as(const char *sym, const char *path, int flags, va_list ap)
{
	mode_t mode = flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;

	if (fail_this(path)) {
		errno = EMFILE;
		return -1;
	}
	return real_open(sym, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_as("open", path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_as("open64", path, flags, ap);
	va_end(ap);
	return fd;
}
