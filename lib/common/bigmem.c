// SPDX-License-Identifier: MIT
/* Big tables in huge pages where the kernel has them (bigmem.h). */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/bigmem.h"

#define HUGE_BYTES ((size_t)2 << 20)

static size_t rounded(size_t bytes)
{
	return (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
}

void *kt_bigmem_alloc(size_t bytes)
{
	size_t size = rounded(bytes), head;
	uint8_t *p;

	if (!bytes || size < bytes || size + HUGE_BYTES < size)
		return NULL;
	/* mapped with room to spare, then cut to a 2 MiB boundary at both ends */
	p = mmap(NULL, size + HUGE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	head = (HUGE_BYTES - ((uintptr_t)p & (HUGE_BYTES - 1))) & (HUGE_BYTES - 1);
	if (head)
		munmap(p, head);
	munmap(p + head + size, HUGE_BYTES - head);
	p += head;
#ifdef MADV_HUGEPAGE
	madvise(p, size, MADV_HUGEPAGE);   /* a hint: without it, small pages */
#endif
	return p;
}

void kt_bigmem_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, rounded(bytes));
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void kt_populate(void *p, size_t bytes)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096,
		  a = ((uintptr_t)p + page - 1) & ~(page - 1),
		  b = ((uintptr_t)p + bytes) & ~(page - 1);

	if (p && bytes && b > a)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
}
