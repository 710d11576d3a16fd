/*
 * Preloaded into ktrace by tests/cli/writers.sh (never into a sanitized build): when
 * HOLDRENAME_MARK names a file, the first rename, renameat, renameat2 or link (the
 * moment a writer puts its finished output in place) creates that file and waits
 * there for a signal instead, so that a test knows the process is stopped with every
 * temporary complete, and can signal it at that point.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int rename(const char *from, const char *to);
int renameat(int fd1, const char *from, int fd2, const char *to);
int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned int flags);
int link(const char *from, const char *to);

static void hold(void)
{
	const char *mark = getenv("HOLDRENAME_MARK");
	int fd;

	if (!mark || !*mark)
		return;
	fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	for (;;)
		pause();
}

int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");

	hold();
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(from, to);
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
	int (*real)(int, const char *, int, const char *) =
		(int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");

	hold();
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(fd1, from, fd2, to);
}

int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned int flags)
{
	int (*real)(int, const char *, int, const char *, unsigned int) =
		(int (*)(int, const char *, int, const char *, unsigned int))dlsym(RTLD_NEXT, "renameat2");

	hold();
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(fd1, from, fd2, to, flags);
}

int link(const char *from, const char *to)
{
	int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");

	hold();
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(from, to);
}
