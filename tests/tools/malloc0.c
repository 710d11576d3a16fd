/*
 * Preloaded into trace-cmd by tests/bin/trace-cmd (never into ktrace).
 *
 * trace-cmd 3.1.6 reads a trace.dat option into malloc(size) and parses the TRACECLOCK
 * option as a string; when that option is empty (the trappy files of ../shared/data
 * keep their clock text elsewhere), it reads past the zero-byte block, and its report
 * then depends on what the heap left there: now and then raw timestamps instead of
 * seconds. Giving it a zeroed byte for every malloc(0) makes the oracle say the same
 * thing on every run, and what it says is what its recorded outputs (expected/) show.
 */
#include <stddef.h>
#include <stdlib.h>

void *__libc_malloc(size_t size);

void *malloc(size_t size)
{
	if (size == 0)
		return calloc(1, 1);
	return __libc_malloc(size);
}
