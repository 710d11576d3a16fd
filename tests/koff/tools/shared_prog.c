// SPDX-License-Identifier: MIT
/*
 * A KOFF producer built the ordinary way (cc prog.c -lktrace: libktrace.so) by
 * tests/koff/shared.sh, as PIE, stripped PIE and non-PIE. T threads log N records
 * each through KOFF_TRACE into the default buffer (KOFF_BUFFER); with a SECOND path it
 * also opens that buffer and logs M records into it through KOFF_TRACE_TO, so that the
 * core has two buffers open. Then it stops itself (SIGSTOP) for gcore.
 *
 *   shared_prog T N [SECOND M]
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include <ktrace/koff.h>

static int per_thread;

static void *worker(void *p)
{
	int index = (int)(intptr_t)p;

	for (int i = 0; i < per_thread; i++)
		KOFF_TRACE(0x1, (uint64_t)index << 32 | (uint64_t)i,
			   "worker: thread %d record %d value %lx", index, i, (long)i * 7919);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[1]) : 2;
	struct koff_buffer *second = NULL;
	pthread_t t[64];

	if (argc < 3 || threads < 1 || threads > 64)
		return 2;
	per_thread = atoi(argv[2]);
	if (argc > 4) {
		second = koff_open(argv[3], 1024);
		if (!second)
			return 3;
		for (int i = 0; i < atoi(argv[4]); i++)
			KOFF_TRACE_TO(second, 0x1, (uint64_t)i, "second: record %d of %d", i, 2);
	}
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	if (!koff_default())
		return 3;
	raise(SIGSTOP);
	koff_close(second);
	return 0;
}
