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

static int real_open(const char *path, int flags, mode_t mode)
{
	int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (fail_this(path)) {
		errno = EMFILE;
		return -1;
	}
	return real_open(path, flags, mode);
}

/* the same call on 64-bit systems */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
