// SPDX-License-Identifier: MIT
/* The thread and process table (engine/engine_threads.h). */
#include "engine/engine_threads.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

void kt_threads_init(struct kt_threads *t, unsigned opts, size_t name_max, size_t ext_size)
{
	*t = (struct kt_threads){ .opts = opts, .name_max = name_max, .ext_size = ext_size };
}

void kt_threads_free(struct kt_threads *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	kt_map_free(&t->map);
	free(t->ext);
	kt_threads_init(t, t->opts, t->name_max, t->ext_size);
}

static uint32_t scope_of(const struct kt_threads *t, uint32_t scope)
{
	return (t->opts & KT_THREADS_PER_SOURCE) ? scope : 0;
}

struct kt_thread *kt_threads_find(const struct kt_threads *t, uint32_t scope, int64_t id)
{
	uint32_t i;

	if (!kt_map_get(&t->map, (uint64_t)id, scope_of(t, scope), &i))
		return NULL;
	return &t->v[i];
}

struct kt_thread *kt_threads_add(struct kt_threads *t, uint32_t scope, int64_t id)
{
	uint32_t *recent = &t->recent[(uint64_t)id % 64], r = *recent;
	struct kt_thread *th;

	scope = scope_of(t, scope);
	if (r && r <= t->n && t->v[r - 1].id == id && t->v[r - 1].scope == scope)
		return &t->v[r - 1];
	th = kt_threads_find(t, scope, id);
	if (th) {
		*recent = (uint32_t)(th - t->v) + 1;
		return th;
	}
	if (t->n >= UINT32_MAX - 1)
		return NULL;
	if (kt_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return NULL;
	if (t->ext_size) {
		if (kt_grow(&t->ext, &t->cap_ext, t->n + 1, t->ext_size))
			return NULL;
		memset(kt_threads_ext(t, t->n), 0, t->ext_size);
	}
	if (kt_map_put(&t->map, (uint64_t)id, scope, (uint32_t)t->n))
		return NULL;
	th = &t->v[t->n++];
	*th = (struct kt_thread){ .id = id, .pid = -1, .scope = scope };
	*recent = (uint32_t)t->n;
	return th;
}

int kt_thread_set_name(const struct kt_threads *t, struct kt_thread *th, const char *name,
		       size_t len)
{
	char *p;

	if (t->name_max && len > t->name_max)
		len = t->name_max;
	if (!len) {
		if (!th->name)
			return 0;
		free(th->name);
		th->name = NULL;
		return 1;
	}
	if (th->name && !strncmp(th->name, name, len) && !th->name[len])
		return 0;
	p = malloc(len + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p, name, len);
	p[len] = 0;
	free(th->name);
	th->name = p;
	return 1;
}

int kt_threads_load(struct kt_threads *t, const struct ktrace_stream *s)
{
	size_t n = ktrace_stream_task_count(s);
	bool first = t->opts & KT_THREADS_FIRST_WINS;

	for (size_t i = 0; i < n; i++) {
		const struct ktrace_stream_task_info *ti = ktrace_stream_task(s, i);
		size_t before = t->n;
		struct kt_thread *th;

		if (ti->tid < 0 && !(t->opts & KT_THREADS_NEGATIVE))
			continue;
		th = kt_threads_add(t, ti->source, ti->tid);
		if (!th)
			return -ENOMEM;
		if (ti->pid >= 0 && (!first || th->pid < 0))
			th->pid = ti->pid;
		if ((first ? t->n > before : *ti->comm != 0) &&
		    kt_thread_set_name(t, th, ti->comm, strlen(ti->comm)) < 0)
			return -ENOMEM;
	}
	return 0;
}
