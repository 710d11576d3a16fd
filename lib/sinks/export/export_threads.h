/* SPDX-License-Identifier: MIT */
/*
 * The threads an export has met: thread id -> process id and name, for the names the
 * stream's task table gives when it opens and those the records teach later. An open-
 * addressing hash table; memory grows with the threads of the trace, not its records.
 */
#ifndef KTRACE_VIEWS_THREAD_TABLE_H
#define KTRACE_VIEWS_THREAD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/stream.h>

struct kt_thread {
	int64_t tid;
	int64_t pid;                  /* -1: unknown */
	uint32_t flags;               /* the sink's own marks */
	bool used;
	char comm[KTRACE_STREAM_COMM_MAX];   /* "" unknown */
};

struct kt_threads {
	struct kt_thread *slots;
	size_t cap, n;
};

/* The thread, or NULL. */
struct kt_thread *kt_threads_find(const struct kt_threads *t, int64_t tid);
/* The thread, added (pid -1, no name) when new; NULL when out of memory. */
struct kt_thread *kt_threads_add(struct kt_threads *t, int64_t tid);
/* Sets the name (cut to fit); true when it changed. */
bool kt_thread_set_comm(struct kt_thread *th, const char *comm);
void kt_threads_free(struct kt_threads *t);

/* Loads the stream's task table (the names the inputs give when they open). 0 or
 * -ENOMEM. */
int kt_threads_load(struct kt_threads *t, const struct ktrace_stream *s);

#endif
