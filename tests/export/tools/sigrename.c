/*
 * Preloaded into ktrace by tests/export/output.sh (built there; never into a sanitized
 * build): the first rename() whose source exists raises the signal SIGRENAME names
 * (a number) before renaming, so that the signal comes at a known moment: the output
 * complete under its temporary name, the final name not yet there. Says so on stderr
 * ("sigrename: signal N, FROM exists"), which the test looks for.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int rename(const char *from, const char *to);

int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	const char *sig = getenv("SIGRENAME");
	static int done;

	if (sig && !done && access(from, F_OK) == 0) {
		done = 1;
		fprintf(stderr, "sigrename: signal %d, %s exists\n", atoi(sig), from);
		raise(atoi(sig));
	}
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(from, to);
}
