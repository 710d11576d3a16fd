// SPDX-License-Identifier: MIT
/*
 * What the walk learns about the traces: event names (interned, with the meaning some
 * have for the derived tables), threads (utid) and processes (upid) by input and id,
 * each CPU's running slice, and each input's trace_id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/input.h>

#include "common/grow.h"
#include "sinks/sql/sql_int.h"

struct name_key {
	const struct ktrace_sql *q;
	const char *system, *name;
};

static bool name_eq(const void *ctx, uint32_t v)
{
	const struct name_key *k = ctx;
	const struct sql_name *n = &k->q->names[v];

	return !strcmp(n->system, k->system) && !strcmp(n->name, k->name);
}

static enum sql_kind kind_of(const char *system, const char *name)
{
	static const struct {
		const char *system, *name;
		enum sql_kind kind;
	} known[] = {
		{ "sched", "sched_switch", SQL_EV_SWITCH },
		{ "sched", "sched_waking", SQL_EV_WAKE },
		{ "sched", "sched_wakeup", SQL_EV_WAKE },
		{ "sched", "sched_wakeup_new", SQL_EV_WAKE },
		{ "sched", "sched_process_fork", SQL_EV_FORK },
		{ "task", "task_newtask", SQL_EV_NEWTASK },
		{ "sched", "sched_process_exec", SQL_EV_EXEC },
		{ "power", "cpu_frequency", SQL_EV_CPU_FREQ },
		{ "power", "cpu_idle", SQL_EV_CPU_IDLE },
		{ "kmem", "rss_stat", SQL_EV_RSS },
		{ "ftrace", "print", SQL_EV_PRINT },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].system, system) && !strcmp(known[i].name, name))
			return known[i].kind;
	return SQL_EV_PLAIN;
}

const struct sql_name *sql_name_of(struct ktrace_sql *q, const char *system, const char *name)
{
	uint64_t h = kt_hash_mix(kt_hash_bytes(system, strlen(system)),
				 kt_hash_bytes(name, strlen(name)));
	struct name_key k = { q, system, name };
	uint32_t v;
	struct sql_name *n;

	if (kt_map_find(&q->name_index, h, name_eq, &k, &v))
		return &q->names[v];
	if (kt_grow((void **)&q->names, &q->cap_names, q->nnames + 1, sizeof(*q->names)))
		return NULL;
	n = &q->names[q->nnames];
	n->system = kt_intern(&q->strings, system, strlen(system));
	n->name = kt_intern(&q->strings, name, strlen(name));
	if (!n->system || !n->name)
		return NULL;
	n->kind = kind_of(system, name);
	if (kt_map_add(&q->name_index, h, (uint32_t)q->nnames))
		return NULL;
	return &q->names[q->nnames++];
}

int64_t sql_thread_find(const struct ktrace_sql *q, uint32_t trace, int64_t tid)
{
	const struct kt_thread *th = tid < 0 ? NULL : kt_threads_find(&q->threads, trace, tid);

	return th ? (int64_t)kt_threads_index(&q->threads, th) + 1 : 0;
}

int sql_thread_id(struct ktrace_sql *q, uint32_t trace, int64_t tid, int64_t *utid)
{
	size_t before = q->threads.n;
	struct kt_thread *th;
	struct sql_thread *t;

	*utid = 0;
	if (tid < 0)
		return 0;
	th = kt_threads_add(&q->threads, trace, tid);
	if (!th)
		return -ENOMEM;
	*utid = (int64_t)kt_threads_index(&q->threads, th) + 1;
	if (q->threads.n == before)
		return 0;
	t = sql_thread_at(q, *utid);
	/* the idle task of Linux (swapper) */
	t->is_idle = tid == 0 && q->traces[trace].format != KTRACE_FORMAT_DARWIN_V3 &&
		     q->traces[trace].format != KTRACE_FORMAT_DARWIN_RAW &&
		     q->traces[trace].format != KTRACE_FORMAT_KOFF &&
		     q->traces[trace].format != KTRACE_FORMAT_ELF;
	return 0;
}

int sql_set_text(char **dst, const char *s, size_t len)
{
	char *n;

	if (*dst && !strncmp(*dst, s, len) && !(*dst)[len])
		return 0;
	n = malloc(len + 1);
	if (!n)
		return -ENOMEM;
	memcpy(n, s, len);
	n[len] = 0;
	free(*dst);
	*dst = n;
	return 0;
}

int sql_thread_set_name(struct ktrace_sql *q, int64_t utid, const char *name, size_t len)
{
	struct kt_thread *th = sql_thread_entry(q, utid);

	if (!th || !len)
		return 0;
	return kt_thread_set_name(&q->threads, th, name, len) < 0 ? -ENOMEM : 0;
}

int sql_process_id(struct ktrace_sql *q, uint32_t trace, int64_t pid, int64_t *upid)
{
	struct kt_thread *p;

	*upid = 0;
	if (pid < 0)
		return 0;
	p = kt_threads_add(&q->procs, trace, pid);
	if (!p)
		return -ENOMEM;
	*upid = (int64_t)kt_threads_index(&q->procs, p) + 1;
	return 0;
}

int sql_thread_set_pid(struct ktrace_sql *q, int64_t utid, int64_t pid)
{
	struct kt_thread *t = sql_thread_entry(q, utid);
	int64_t upid;

	if (!t || pid < 0 || t->pid == pid)
		return 0;
	if (sql_process_id(q, t->scope, pid, &upid))
		return -ENOMEM;
	t->pid = pid;
	return 0;
}


/* FNV-1a of the file's size and first 1 MiB (of its index when the file cannot be
 * read), 53 bits: the same file has the same trace_id wherever it is loaded. -ENOMEM
 * when memory ran out opening it (the id would be another). */
int64_t sql_trace_hash(const char *path, uint32_t index)
{
	struct ktrace_input *in;
	struct ktrace_error err;
	uint64_t h = 0xcbf29ce484222325ULL;
	const uint8_t *p;
	int64_t got, size = -1;
	int ret = ktrace_input_open(path, &in, &err);

	if (ret == -ENOMEM)
		return -ENOMEM;
	if (!ret) {
		size = ktrace_input_size(in);
		got = ktrace_input_peek(in, 0, 1 << 20, &p, &err);
		if (got == -ENOMEM) {
			ktrace_input_close(in);
			return -ENOMEM;
		}
		for (int64_t i = 0; i < got; i++) {
			h ^= p[i];
			h *= 0x100000001b3ULL;
		}
		ktrace_input_close(in);
	} else {
		h ^= index;
	}
	for (int i = 0; i < 8; i++) {
		h ^= (uint8_t)((uint64_t)size >> (8 * i));
		h *= 0x100000001b3ULL;
	}
	/* positive and below 2^53, so that JSON readers that take numbers as doubles
	 * keep it exact */
	h &= (1ULL << 53) - 1;
	return h ? (int64_t)h : 1;
}

void sql_registry_free(struct ktrace_sql *q)
{
	for (size_t i = 0; i < q->procs.n; i++)
		free(((struct sql_process *)kt_threads_ext(&q->procs, i))->cmdline);
	kt_threads_free(&q->threads);
	kt_threads_free(&q->procs);
	free(q->names);
	free(q->tracks);
	free(q->open);
	kt_model_free(q->model);
	q->model = NULL;
	kt_map_free(&q->name_index);
	kt_map_free(&q->track_index);
	kt_map_free(&q->open_index);
	kt_strtab_free(&q->strings);
}
