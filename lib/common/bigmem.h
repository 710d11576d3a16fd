/* SPDX-License-Identifier: MIT */
/*
 * Big tables filled once and kept (the kallsyms symbol table): anonymous memory aligned
 * to 2 MiB and marked for transparent huge pages, so that filling it takes one page
 * fault per 2 MiB where the kernel gives huge pages (THP "madvise" mode, Debian's
 * default) instead of one per 4 KiB: on virtual machines a fault costs microseconds
 * (a 5 MB kallsyms took 20 ms to load, most of it in faults). Memory never touched is
 * never made resident, so a size that is an upper bound costs nothing.
 */
#ifndef KTRACE_COMMON_BIGMEM_H
#define KTRACE_COMMON_BIGMEM_H

#include <stddef.h>

/* bytes of zeroed memory, or NULL when out of memory (or bytes is 0). */
void *kt_bigmem_alloc(size_t bytes);
/* Gives back what kt_bigmem_alloc(bytes) returned (NULL is fine). */
void kt_bigmem_free(void *p, size_t bytes);

/* Makes the whole pages of p[0..bytes) resident and writable now, in one call
 * (MADV_POPULATE_WRITE, Linux 5.14), instead of one page fault per 4 KiB as they are
 * first written: for buffers that are about to be filled anyway (a fault costs about
 * 16 us on the 2-CPU VM of the benches, the kernel's own fill a small part of that).
 * Contents are kept. A hint: without the kernel's support nothing happens. */
void kt_populate(void *p, size_t bytes);

#endif
