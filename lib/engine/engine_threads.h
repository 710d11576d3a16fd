/* SPDX-License-Identifier: MIT */
/*
 * The thread and process table: the one every sink keeps of the threads (or, keyed by
 * pid, the processes) of a trace. An entry is an id (tid or pid) in a scope (the input
 * it comes from, for a table per input; 0 otherwise) with its process id, its name and
 * the sink's own marks; entries stay in the order they were added (index 0, 1...), so
 * a sink may number them (utid, upid) or write them in that order, and the sink's own
 * data per entry (its size given at init) lives beside them, zeroed when the entry is
 * added. Memory grows with the threads of the trace, never with its records. Entries
 * are found through the common hash map (common/hashmap.h), whose slot order nothing
 * depends on (the exports' legacy order is their own: sinks/export/export_order.h).
 *
 * The sinks disagree on names and on the threads the inputs name when the stream
 * opens (kt_threads_load), so the rules are options of the table:
 *   KT_THREADS_PER_SOURCE  key (input, id); else id alone, whatever the input
 *   KT_THREADS_FIRST_WINS  loading, the first task's name and pid of a thread stay;
 *                          else a later non-empty name and known pid replace them
 *   KT_THREADS_NEGATIVE    loading, keep tasks of negative ids; else pass them over
 * and name_max cuts names (0: whole names).
 */
#ifndef KTRACE_ENGINE_THREADS_H
#define KTRACE_ENGINE_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/stream.h>

#include "common/hashmap.h"

enum {
	KT_THREADS_PER_SOURCE = 1u << 0,
	KT_THREADS_FIRST_WINS = 1u << 1,
	KT_THREADS_NEGATIVE = 1u << 2,
};

struct kt_thread {
	int64_t id;                   /* tid (in a process table: pid) */
	int64_t pid;                  /* -1: unknown */
	uint32_t scope;               /* the input (KT_THREADS_PER_SOURCE), else 0 */
	uint32_t flags;               /* the sink's own marks */
	char *name;                   /* NULL: unknown or "" (kt_thread_name) */
};

struct kt_threads {
	struct kt_thread *v;          /* index order: as added */
	size_t n, cap;
	struct kt_map map;            /* (id, scope) -> index */
	unsigned opts;                /* KT_THREADS_* */
	size_t name_max;              /* names cut to this many bytes (0: whole) */
	void *ext;                    /* the sink's data: ext_size bytes per entry */
	size_t ext_size, cap_ext;
	uint32_t recent[64];          /* kt_threads_add's last entries by id % 64: index + 1
				       * (a record's thread is mostly one met lately) */
};

/* An empty table (no allocation until the first add). */
void kt_threads_init(struct kt_threads *t, unsigned opts, size_t name_max, size_t ext_size);
void kt_threads_free(struct kt_threads *t);

/* The entry of (scope, id), or NULL (scope is ignored without KT_THREADS_PER_SOURCE). */
struct kt_thread *kt_threads_find(const struct kt_threads *t, uint32_t scope, int64_t id);
/* The entry of (scope, id), added (pid -1, no name, no flags, sink data zeroed) when
 * new; NULL when out of memory. Adding moves the entries: pointers to them (and to the
 * sink's data) are good until the next add. */
struct kt_thread *kt_threads_add(struct kt_threads *t, uint32_t scope, int64_t id);

static inline size_t kt_threads_index(const struct kt_threads *t, const struct kt_thread *th)
{
	return (size_t)(th - t->v);
}

/* The sink's data of entry i. */
static inline void *kt_threads_ext(const struct kt_threads *t, size_t i)
{
	return (char *)t->ext + i * t->ext_size;
}

static inline const char *kt_thread_name(const struct kt_thread *th)
{
	return th->name ? th->name : "";
}

/* Names th name[0..len) (no NUL needed; cut to the table's name_max; empty: no name).
 * 1 when the name changed, 0 when it was that already, -ENOMEM. */
int kt_thread_set_name(const struct kt_threads *t, struct kt_thread *th, const char *name,
		       size_t len);

/* Adds the threads the stream's inputs name when it opens (ktrace_stream_task), by the
 * table's rules. 0 or -ENOMEM. */
int kt_threads_load(struct kt_threads *t, const struct ktrace_stream *s);

#endif
