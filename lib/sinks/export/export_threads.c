// SPDX-License-Identifier: MIT
/* The threads an export has met (sinks/export/export_threads.h). */
#include "sinks/export/export_threads.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_of(int64_t tid, size_t cap)
{
	uint64_t h = (uint64_t)tid * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

struct kt_thread *kt_threads_find(const struct kt_threads *t, int64_t tid)
{
	if (!t->cap)
		return NULL;
	for (size_t i = slot_of(tid, t->cap);; i = (i + 1) & (t->cap - 1)) {
		struct kt_thread *th = &t->slots[i];

		if (!th->used)
			return NULL;
		if (th->tid == tid)
			return th;
	}
}

static int rehash(struct kt_threads *t, size_t cap)
{
	struct kt_thread *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t k = 0; k < t->cap; k++) {
		size_t i;

		if (!t->slots[k].used)
			continue;
		for (i = slot_of(t->slots[k].tid, cap); slots[i].used; i = (i + 1) & (cap - 1))
			;
		slots[i] = t->slots[k];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

struct kt_thread *kt_threads_add(struct kt_threads *t, int64_t tid)
{
	struct kt_thread *th = kt_threads_find(t, tid);
	size_t i;

	if (th)
		return th;
	if ((t->n + 1) * 2 > t->cap) {
		if (t->cap > SIZE_MAX / 4 / sizeof(*th) || rehash(t, t->cap ? t->cap * 2 : 256))
			return NULL;
	}
	for (i = slot_of(tid, t->cap); t->slots[i].used; i = (i + 1) & (t->cap - 1))
		;
	th = &t->slots[i];
	th->used = true;
	th->tid = tid;
	th->pid = -1;
	th->flags = 0;
	th->comm[0] = 0;
	t->n++;
	return th;
}

bool kt_thread_set_comm(struct kt_thread *th, const char *comm)
{
	size_t n = strnlen(comm, sizeof(th->comm) - 1);

	if (!strncmp(th->comm, comm, n) && !th->comm[n])
		return false;
	memcpy(th->comm, comm, n);
	th->comm[n] = 0;
	return true;
}

void kt_threads_free(struct kt_threads *t)
{
	free(t->slots);
	*t = (struct kt_threads){ 0 };
}

int kt_threads_load(struct kt_threads *t, const struct ktrace_stream *s)
{
	size_t n = ktrace_stream_task_count(s);

	for (size_t i = 0; i < n; i++) {
		const struct ktrace_stream_task_info *ti = ktrace_stream_task(s, i);
		struct kt_thread *th = kt_threads_add(t, ti->tid);

		if (!th)
			return -ENOMEM;
		if (ti->pid >= 0)
			th->pid = ti->pid;
		if (*ti->comm)
			kt_thread_set_comm(th, ti->comm);
	}
	return 0;
}
