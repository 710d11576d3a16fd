// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD shim for tests/report/allocs.sh: counts the calls of malloc, calloc,
 * realloc and aligned_alloc/posix_memalign of the whole process and writes the total to
 * the file named by MALLOC_COUNT_OUT when the process exits. The calls go on to the C
 * library's own functions (its __libc_ names).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static _Atomic unsigned long calls;

void *malloc(size_t n)
{
	calls++;
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	calls++;
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	calls++;
	return __libc_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	calls++;
	return __libc_memalign(align, n);
}

int posix_memalign(void **p, size_t align, size_t n)
{
	calls++;
	*p = __libc_memalign(align, n);
	return *p ? 0 : 12;
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("MALLOC_COUNT_OUT");
	char buf[32];
	int fd, n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%lu\n", (unsigned long)calls);
	if (write(fd, buf, (size_t)n) < 0)
		n = 0;
	close(fd);
}
