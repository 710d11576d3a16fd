// SPDX-License-Identifier: MIT
/* The timeline's classes, names and threads (timeline_model.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sinks/timeline/timeline_model.h"

/* Darwin debugids (class 1 MACH, subclass 0x40 DBG_MACH_SCHED; code << 2; func bits
 * masked off). */
#define DW_MACH_SCHED          0x01400000u
#define DW_MACH_STACK_HANDOFF  0x01400008u

unsigned tl_thread_hue(int64_t tid)
{
	uint32_t x = (uint32_t)(uint64_t)tid * 0x9E3779B1u;

	return (x >> 8) % 360;
}

/* comm (l bytes) into the names. */
static int add_comm(struct tl_model *m, const char *comm, size_t l, uint32_t *off)
{
	if (kt_grow((void **)&m->names_store, &m->names_cap, m->names_len + l + 1, 1))
		return -ENOMEM;
	memcpy(m->names_store + m->names_len, comm, l);
	m->names_store[m->names_len + l] = 0;
	*off = (uint32_t)m->names_len;
	m->names_len += l + 1;
	return 0;
}

static int new_task(struct tl_model *m, uint32_t thread, const char *comm)
{
	size_t l = strnlen(comm, TL_COMM_MAX - 1);
	struct tl_task *t;

	if (m->ntasks >= UINT32_MAX - 1 ||
	    kt_grow((void **)&m->tasks, &m->cap_tasks, m->ntasks + 1, sizeof(*m->tasks)))
		return -ENOMEM;
	t = &m->tasks[m->ntasks];
	t->thread = thread;
	if (add_comm(m, comm, l, &t->comm_off) ||
	    kt_thread_set_name(&m->threads, &m->threads.v[thread], comm, l) < 0)
		return -ENOMEM;
	tl_thread_at(m, thread)->task = (uint32_t)m->ntasks++;
	return 0;
}

/* The thread of tid (created with comm when new), or TL_NO_THREAD. *ret < 0 when out
 * of memory. */
static uint32_t thread_of(struct tl_model *m, uint32_t input, int64_t tid, int64_t pid,
			  const char *comm, int *ret)
{
	size_t before = m->threads.n;
	struct kt_thread *t;
	uint32_t i;

	if (tid < 0)
		return TL_NO_THREAD;
	t = kt_threads_add(&m->threads, input, tid);
	if (!t) {
		*ret = -ENOMEM;
		return TL_NO_THREAD;
	}
	i = (uint32_t)kt_threads_index(&m->threads, t);
	if (pid >= 0 && t->pid < 0)
		t->pid = pid;
	if (m->threads.n == before)
		return i;
	tl_thread_at(m, i)->task = TL_NO_THREAD;
	if (comm && new_task(m, i, comm)) {
		*ret = -ENOMEM;
		return TL_NO_THREAD;
	}
	return i;
}

/* Whether the thread's task name is comm (cut as the task's is): most records' are. */
static bool same_comm(const char *task, const char *comm)
{
	/* (the C library's: a third of a loop's instructions here) */
	return !strncmp(task, comm, TL_COMM_MAX - 1);
}

/* An event name of an input (its system too: "lost events" has neither), interned per
 * (input, system, name): the page counts a range's records per input by their name. */
static int intern_name(struct tl_model *m, uint32_t input, const char *system, const char *name,
		       uint8_t cls, uint32_t *out)
{
	char key[320];
	int kl = system ? snprintf(key, sizeof(key), "%" PRIu32 "\x1f%s\x1f%s", input, system, name)
			: snprintf(key, sizeof(key), "%s", name);
	size_t len = kl < 0 ? 0 : (size_t)kl < sizeof(key) ? (size_t)kl : sizeof(key) - 1;
	size_t nl = strlen(name);
	uint32_t id;

	if (kt_strtab_find(&m->name_tab, key, len, out))
		return 0;
	if (kt_grow((void **)&m->names, &m->cap_names, m->nnames + 1, sizeof(*m->names)))
		return -ENOMEM;
	{
		size_t cap = m->cap_names;
		uint8_t *c = kt_realloc_array(m->name_cls, cap, 1);
		const char **sy;
		uint32_t *in;

		if (!c)
			return -ENOMEM;
		m->name_cls = c;
		if (!(sy = kt_realloc_array(m->name_sys, cap, sizeof(*sy))))
			return -ENOMEM;
		m->name_sys = sy;
		if (!(in = kt_realloc_array(m->name_input, cap, sizeof(*in))))
			return -ENOMEM;
		m->name_input = in;
	}
	/* (the table numbers the names as names[] does) */
	if (kt_strtab_id(&m->name_tab, key, len, &id))
		return -ENOMEM;
	/* the name is the key's end (a key cut short: its own copy) */
	if (nl <= len && !memcmp(key + len - nl, name, nl))
		m->names[id] = m->name_tab.strs[id].s + len - nl;
	else if (!(m->names[id] = kt_intern(&m->sys_tab, name, nl)))
		return -ENOMEM;
	m->name_sys[id] = system ? kt_intern(&m->sys_tab, system, strlen(system)) : "";
	if (!m->name_sys[id])
		return -ENOMEM;
	m->name_input[id] = input;
	m->name_cls[id] = cls;
	*out = id;
	m->nnames++;
	return 0;
}

uint32_t tl_model_thread(struct tl_model *m, uint32_t input, int64_t tid)
{
	int ret = 0;
	uint32_t i = thread_of(m, input, tid, -1, NULL, &ret);

	return ret ? TL_NO_THREAD : i;
}

int tl_model_state(struct tl_model *m, const char *state, uint32_t *id, enum tl_state *draw)
{
	size_t k;

	for (k = 0; k < m->nstate_names; k++)
		if (m->state_name[k] == state) {
			*id = m->state_id[k];
			*draw = (enum tl_state)m->state_draw[k];
			return 0;
		}
	if (kt_strtab_id(&m->state_tab, state, strlen(state), id))
		return -ENOMEM;
	if (!strcmp(state, "Running"))
		*draw = TL_RUNNING;
	else if (!strcmp(state, "?"))
		*draw = TL_UNKNOWN;
	else if (state[0] == 'R')      /* R (after a wakeup, or preempted), R+ */
		*draw = TL_RUNNABLE;
	else
		*draw = TL_BLOCKED;
	if (k < sizeof(m->state_name) / sizeof(m->state_name[0])) {
		m->state_name[k] = state;
		m->state_id[k] = *id;
		m->state_draw[k] = (uint8_t)*draw;
		m->nstate_names++;
	}
	return 0;
}

int tl_model_init(struct tl_model *m, struct ktrace_stream *s)
{
	uint32_t lost;

	memset(m, 0, sizeof(*m));
	m->ninputs = ktrace_stream_source_count(s);
	m->comm_by_address = kt_stream_stable_comm(s);
	m->darwin = calloc(m->ninputs ? m->ninputs : 1, sizeof(*m->darwin));
	m->in_end = calloc(m->ninputs ? m->ninputs : 1, sizeof(*m->in_end));
	kt_threads_init(&m->threads, KT_THREADS_PER_SOURCE | KT_THREADS_FIRST_WINS,
			TL_COMM_MAX - 1, sizeof(struct tl_thread));
	if (!m->darwin || !m->in_end || intern_name(m, 0, NULL, "lost events", TL_LOST, &lost))
		return -ENOMEM;
	for (size_t i = 0; i < m->ninputs; i++) {
		const struct ktrace_stream_source *src = ktrace_stream_source(s, i);

		m->darwin[i] = src && (src->format == KTRACE_FORMAT_DARWIN_V3 ||
				       src->format == KTRACE_FORMAT_DARWIN_RAW);
	}
	/* the threads the inputs name, each a task under its first name */
	if (kt_threads_load(&m->threads, s))
		return -ENOMEM;
	for (size_t i = 0; i < m->threads.n; i++) {
		tl_thread_at(m, (uint32_t)i)->task = TL_NO_THREAD;
		if (new_task(m, (uint32_t)i, kt_thread_name(&m->threads.v[i])))
			return -ENOMEM;
	}
	return 0;
}

void tl_model_free(struct tl_model *m)
{
	kt_threads_free(&m->threads);
	free(m->tasks);
	free(m->names_store);
	free(m->cpus);
	kt_map_free(&m->type_index);
	free(m->types);
	kt_strtab_free(&m->name_tab);
	kt_strtab_free(&m->sys_tab);
	free(m->name_sys);
	free(m->name_input);
	free(m->names);
	free(m->name_cls);
	free(m->darwin);
	free(m->in_end);
	kt_strtab_free(&m->state_tab);
	memset(m, 0, sizeof(*m));
}

static struct tl_evtype *evtype(struct tl_model *m, const struct ktrace_stream_record *r, int *ret)
{
	const char *name = r->name && *r->name ? r->name : "(unknown)";
	bool darwin = r->source < m->ninputs && m->darwin[r->source];
	struct tl_evtype *t;
	uint32_t i;

	if (kt_map_get(&m->type_index, r->source, r->event_id, &i))
		return &m->types[i];
	if (kt_grow((void **)&m->types, &m->cap_types, m->ntypes + 1, sizeof(*m->types))) {
		*ret = -ENOMEM;
		return NULL;
	}
	t = &m->types[m->ntypes];
	t->cls = TL_OTHER;
	if (darwin) {
		uint32_t id = r->event_id & ~3u;

		if (id == DW_MACH_SCHED || id == DW_MACH_STACK_HANDOFF)
			t->cls = TL_SWITCH;
	} else if (!strcmp(name, "sched_switch")) {
		t->cls = TL_SWITCH;
	}
	if (intern_name(m, r->source, r->system ? r->system : "", name, t->cls, &t->name) ||
	    kt_map_put(&m->type_index, r->source, r->event_id, (uint32_t)m->ntypes)) {
		*ret = -ENOMEM;
		return NULL;
	}
	m->ntypes++;
	return t;
}

static struct tl_cpu *cpu_of(struct tl_model *m, int cpu)
{
	if (cpu < 0 || cpu >= TL_MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= m->ncpus) {
		size_t old = m->ncpus;

		if (kt_grow((void **)&m->cpus, &m->cap_cpus, (size_t)cpu + 1, sizeof(*m->cpus)))
			return NULL;
		for (size_t i = old; i <= (size_t)cpu; i++) {
			memset(&m->cpus[i], 0, sizeof(m->cpus[i]));
			m->cpus[i].last = TL_NO_THREAD;
		}
		m->ncpus = (size_t)cpu + 1;
	}
	return &m->cpus[cpu];
}

int tl_model_add(struct tl_model *m, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		 struct tl_rec *out)
{
	struct tl_cpu *c = cpu_of(m, r->cpu);
	uint64_t ts = r->ts;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->thread = out->task = TL_NO_THREAD;
	if (!m->any) {
		m->first_ts = ts;
		m->any = true;
	}
	if (ts < m->last_ts)
		ts = m->last_ts;        /* the stream is in time order; stay so */
	m->last_ts = ts;
	m->nrecs++;
	if (c)
		c->seen = true;
	if (r->kind == KTRACE_STREAM_LOST) {
		out->cls = TL_LOST;
		out->lost = r->lost;
		m->lost_total += r->lost;
		if (c) {
			c->lost += r->lost;
			c->lost_marks++;
		}
		return 0;
	}
	{
		struct tl_evtype *t;

		/* the first input's small ids straight from an array, the others hashed */
		if (!r->source && r->event_id < TL_DIRECT_TYPES && m->tdir[r->event_id]) {
			t = &m->types[m->tdir[r->event_id] - 1];
		} else {
			if (!(t = evtype(m, r, &ret)))
				return ret;
			if (!r->source && r->event_id < TL_DIRECT_TYPES)
				m->tdir[r->event_id] = (uint32_t)(t - m->types) + 1;
		}
		out->cls = t->cls;
		out->name = t->name;
		if (c && c->last < m->threads.n && m->threads.v[c->last].id == r->tid &&
		    m->threads.v[c->last].scope == r->source) {
			/* most records' thread is the last one's on their CPU */
			out->thread = c->last;
			if (r->pid >= 0 && m->threads.v[c->last].pid < 0)
				m->threads.v[c->last].pid = r->pid;
		} else {
			out->thread = thread_of(m, r->source, r->tid, r->pid, r->comm, &ret);
			if (ret)
				return ret;
			if (c)
				c->last = out->thread;
		}
		if (out->thread != TL_NO_THREAD) {
			struct tl_thread *th = tl_thread_at(m, out->thread);
			const char *comm = r->comm ? r->comm : "";

			th->nrecs++;
			if (th->task == TL_NO_THREAD ||
			    (comm != th->comm_at && !same_comm(tl_task_comm(m, th->task), comm))) {
				if (new_task(m, out->thread, comm))
					return -ENOMEM;
				th = tl_thread_at(m, out->thread);
			}
			if (m->comm_by_address)
				th->comm_at = comm;
			out->task = th->task;
		}
		if (c) {
			c->nevents++;
			c->nswitch += t->cls == TL_SWITCH;
		}
	}
	(void)s;
	return 0;
}
