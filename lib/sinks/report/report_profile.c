// SPDX-License-Identifier: MIT
/*
 * `ktrace report --profile`: per task, how long its events took, as trace-cmd 3.1.6's
 * `trace-cmd report --profile` counts them (the same lines; trace-cmd prints some of them
 * in an order that varies from run to run, ktrace in the order the tasks, events and
 * stacks were first met: its node sets keep that order and find nodes through kt_map).
 *
 * Events come in pairs, a start and an end matched by a field: a task scheduled out
 * (sched_switch, by its state) until it is woken up (sched_wakeup) and until it runs
 * again; a wake-up until the task runs; irq and softirq handlers; softirq raise until
 * entry; function-graph entry until exit; system call entry until exit. Per task and
 * per (event, value) it sums the times, and keeps the longest and the shortest with
 * their time stamps. Other events are counted. A kernel stack recorded after an event
 * (kernel_stack, from options/stacktrace) is kept with the pair it belongs to, and each
 * event's stacks are printed at the end as a tree with the share of the time of each
 * branch. Lost events drop the pairs started on their CPU and those that may migrate.
 * --by-comm merges the tasks of one name; -G counts interrupts globally.
 *
 * Records are read through the engine's trace.dat set (its filters, --cpu and -I/-S
 * apply as they do to the report) and the file's event registry; the stacks a pair
 * keeps are copies, so memory grows with the tasks, events and distinct stacks, not
 * with the records.
 */
#include <ktrace/event.h>
#include <ktrace/tracedat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/view.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "common/outbuf.h"
#include "engine/engine.h"
#include "sinks/report/report.h"

#define TASK_STATE_CHARS "RSDTtXZxKWP"
#define TASK_STATE_MAX 1024
#define INDENT 5
#define MAX_CPUS 4096

/* ---- node sets: nodes in an array, in the order they came, found through kt_map ---- */

struct nset {
	struct kt_map map;                    /* key -> index in v */
	void **v;
	size_t n, cap;
};

static int nset_room(struct nset *m)
{
	if (m->n >= UINT32_MAX || kt_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)))
		return -ENOMEM;
	return 0;
}

/* Adds node under hash (found with kt_map_find): 0 or an error. */
static int nset_add(struct nset *m, uint64_t hash, void *node)
{
	if (nset_room(m) || kt_map_add(&m->map, hash, (uint32_t)m->n))
		return -ENOMEM;
	m->v[m->n++] = node;
	return 0;
}

/* Adds node under key (a, b) (found with kt_map_get): 0 or an error. */
static int nset_put(struct nset *m, uint64_t a, uint64_t b, void *node)
{
	if (nset_room(m) || kt_map_put(&m->map, a, b, (uint32_t)m->n))
		return -ENOMEM;
	m->v[m->n++] = node;
	return 0;
}

/* A copy of the nodes, to sort (free it). */
static void **nset_copy(const struct nset *m)
{
	void **v = malloc((m->n ? m->n : 1) * sizeof(*v));

	if (v && m->n)
		memcpy(v, m->v, m->n * sizeof(*v));
	return v;
}

/* Empties the set (the nodes are the caller's). */
static void nset_clear(struct nset *m)
{
	kt_map_free(&m->map);
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}

/* A stable sort (trace-cmd's glibc qsort is a merge sort: equal elements keep their
 * order, which decides the tree drawing of equal branches). */
static void msort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
		  void *tmp)
{
	uint8_t *a = base, *t = tmp;
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	msort(a, h, size, cmp, tmp);
	msort(a + h * size, n - h, size, cmp, tmp);
	while (i < h && j < n) {
		if (cmp(a + j * size, a + i * size) < 0)
			memcpy(t + k++ * size, a + j++ * size, size);
		else
			memcpy(t + k++ * size, a + i++ * size, size);
	}
	while (i < h)
		memcpy(t + k++ * size, a + i++ * size, size);
	while (j < n)
		memcpy(t + k++ * size, a + j++ * size, size);
	memcpy(a, t, n * size);
}

static int stable_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	void *tmp = malloc(n ? n * size : 1);

	if (!tmp)
		return -ENOMEM;
	msort(base, n, size, cmp, tmp);
	free(tmp);
	return 0;
}

/* ---- what is counted ---- */

enum ev_type {
	T_UNDEFINED, T_STACK, T_SCHED_SWITCH, T_WAKEUP, T_FUNC, T_SYSCALL, T_IRQ, T_SOFTIRQ,
	T_SOFTIRQ_RAISE, T_PROCESS_EXEC,
};

enum ev_handler { H_DEFAULT, H_SWITCH, H_WAKEUP, H_STACK, H_FG_ENTRY, H_FG_EXIT, H_EXEC };

enum ev_print { P_DEFAULT, P_SWITCH, P_SOFTIRQ, P_FUNC, P_SYSCALL };

struct edata {
	const struct ktrace_event *ev;
	int id;
	enum ev_type type;
	enum ev_handler handler;
	enum ev_print print;
	struct edata *start, *end;            /* the other event of a pair */
	int pid_field, start_match, end_match, data_field;   /* field indexes, -1 none */
	uint32_t data_offset;                 /* kernel_stack: where caller[] starts */
	bool migrate, global;
};

struct list {
	struct list *prev, *next;
};

static void list_init(struct list *l)
{
	l->prev = l->next = l;
}

static void list_add(struct list *head, struct list *n)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

static void list_del(struct list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

/* A copied kernel stack, with the time stamp of its record. */
struct kstack {
	uint8_t *caller;                      /* NULL: none */
	size_t size;
	uint64_t ts;
	uint64_t id;                          /* which record it came from */
};

struct task;

struct start {
	struct start *older;                  /* the start before it with the same key */
	uint32_t slot;                        /* in prof's start_slots */
	struct list link;                     /* in its CPU's starts or the migrating ones */
	struct edata *ed;
	struct task *task;
	uint64_t ts, search_val, val;
	struct kstack stack;
};

struct stack {
	uint64_t h;                           /* hash of caller[] */
	uint64_t count, time, time_min, ts_min, time_max, ts_max;
	size_t size;
	uint8_t caller[];
};

struct ehash {
	struct edata *ed;
	uint64_t search_val, val;
	uint64_t count, time_total, time_max, ts_max, time_min, ts_min, last_time;
	struct nset stacks;                   /* of struct stack, by caller[] */
};

struct group {
	char *comm;
	struct nset events;
};

struct task {
	uint64_t seq;                         /* order of creation */
	int pid;
	bool sleeping;
	char *comm;
	struct kt_map starts;                 /* (event index, search value) -> newest start's slot */
	struct nset events;                   /* of struct ehash, by (event, search value, value) */
	struct task *proxy;
	struct start *last_start;
	struct ehash *last_event;
	struct kstack last_stack;
	struct group *group;
};

struct prof {
	struct ktrace_events *evs;
	struct ktrace_out *out;
	unsigned long_size;
	bool by_comm, global;
	struct edata *ed;                     /* every event's, in one array */
	size_t ned, cap_ed;
	struct kt_map by_id;                  /* event id -> index in ed */
	struct nset tasks;                    /* by pid */
	struct task *last_task;
	struct task global_task;
	struct task *cpu_tasks;
	unsigned cpus;
	struct list migrate_starts;
	struct list *cpu_starts;
	struct nset groups;                   /* by comm */
	struct start **start_slots;           /* every start, by slot (NULL: free) */
	uint32_t *free_slots;                 /* as many as start_slots can hold */
	size_t nslots, nfree, cap_slots;
	struct edata *stacktrace;
	uint64_t seq;
	int common_pid_ok;
	bool oom;
};

static struct edata *find_edata(struct prof *p, int id)
{
	uint32_t i;

	return kt_map_get(&p->by_id, (uint32_t)id, 0, &i) ? &p->ed[i] : NULL;
}

static struct edata *add_event(struct prof *p, const char *system, const char *name, enum ev_type type)
{
	const struct ktrace_event *ev = ktrace_event_find_by_name(p->evs, system, name);
	struct edata *e;

	if (!ev || p->ned == p->cap_ed)
		return NULL;
	e = &p->ed[p->ned];
	memset(e, 0, sizeof(*e));
	e->ev = ev;
	e->id = ktrace_event_id(ev);
	e->type = type;
	e->pid_field = e->start_match = e->end_match = e->data_field = -1;
	if (kt_map_put(&p->by_id, (uint32_t)e->id, 0, (uint32_t)p->ned))
		p->oom = true;
	p->ned++;
	return e;
}

/* trace-cmd's mate_events: start and end pair up on start's end_match field and end's
 * start_match field. */
static void mate(struct edata *start, const char *pid_field, const char *end_match,
		 struct edata *end, const char *start_match, bool migrate, bool global)
{
	start->end = end;
	end->start = start;
	if (pid_field)
		start->pid_field = ktrace_event_field_index(start->ev, pid_field);
	start->end_match = ktrace_event_field_index(start->ev, end_match);
	end->start_match = ktrace_event_field_index(end->ev, start_match);
	start->migrate = end->migrate = migrate;
	start->global = end->global = global;
}

static struct task *find_task(struct prof *p, int pid)
{
	struct task *t;
	uint32_t i;

	if (p->last_task && p->last_task->pid == pid)
		return p->last_task;
	if (kt_map_get(&p->tasks.map, (uint32_t)pid, 0, &i)) {
		p->last_task = p->tasks.v[i];
		return p->last_task;
	}
	t = calloc(1, sizeof(*t));
	if (!t || (t->pid = pid, t->seq = ++p->seq, nset_put(&p->tasks, (uint32_t)pid, 0, t))) {
		free(t);
		p->oom = true;
		return NULL;
	}
	p->last_task = t;
	return t;
}

/* ---- reading fields ---- */

static uint64_t num(struct prof *p, const struct edata *e, int field,
		    const struct ktrace_record *rec, uint64_t dflt)
{
	uint64_t v;

	if (field < 0 || ktrace_event_field_number(p->evs, e->ev, (size_t)field, rec, &v))
		return dflt;
	return v;
}

/* A comm array field of a record, up to its first NUL. */
static char *field_comm(struct prof *p, const struct ktrace_event *ev, const char *name,
			const struct ktrace_record *rec)
{
	int i = ktrace_event_field_index(ev, name);
	uint32_t off, size, avail = rec->avail > rec->size ? rec->avail : rec->size;
	const char *s;
	size_t n;
	char *c;

	if (i < 0 || ktrace_event_field_layout(ev, (size_t)i, &off, &size) || off > avail)
		return NULL;
	if (size > avail - off)
		size = avail - off;
	s = (const char *)rec->data + off;
	n = strnlen(s, size);
	c = malloc(n + 1);
	if (!c) {
		p->oom = true;
		return NULL;
	}
	memcpy(c, s, n);
	c[n] = 0;
	return c;
}

/* The caller words of a kernel_stack record (what follows the field's offset). */
static bool stack_of(struct prof *p, const struct ktrace_record *rec, struct kstack *k)
{
	uint32_t off = p->stacktrace->data_offset;

	k->caller = NULL;
	if (off >= rec->size || rec->size - off < sizeof(int))
		return false;
	k->size = rec->size - off;
	k->caller = malloc(k->size);
	if (!k->caller) {
		p->oom = true;
		return false;
	}
	memcpy(k->caller, (const uint8_t *)rec->data + off, k->size);
	k->ts = rec->ts;
	k->id = ++p->seq;
	return true;
}

static void drop_stack(struct kstack *k)
{
	free(k->caller);
	k->caller = NULL;
}

/* ---- pairs ---- */

/* A free slot of start_slots for a new start: 0 or -ENOMEM. */
static int start_slot(struct prof *p, uint32_t *slot)
{
	if (p->nfree) {
		*slot = p->free_slots[--p->nfree];
		return 0;
	}
	if (p->nslots == p->cap_slots) {
		size_t cap = p->cap_slots;
		uint32_t *f;

		if (p->nslots >= UINT32_MAX ||
		    kt_grow((void **)&p->start_slots, &cap, p->nslots + 1, sizeof(*p->start_slots)))
			return -ENOMEM;
		f = kt_realloc_array(p->free_slots, cap, sizeof(*f));
		if (!f)
			return -ENOMEM;     /* start_slots stays larger: harmless */
		p->free_slots = f;
		p->cap_slots = cap;
	}
	*slot = (uint32_t)p->nslots++;
	return 0;
}

static struct start *add_start(struct prof *p, struct task *t, struct edata *e,
			       const struct ktrace_record *rec, uint64_t search_val, uint64_t val)
{
	struct start *s = calloc(1, sizeof(*s));
	uint64_t key = (uint64_t)(e - p->ed);
	uint32_t older;

	if (!s || start_slot(p, &s->slot)) {
		free(s);
		p->oom = true;
		return NULL;
	}
	/* the newest start of that key, if any, is found again when this one ends */
	if (kt_map_get(&t->starts, key, search_val, &older))
		s->older = p->start_slots[older];
	if (kt_map_put(&t->starts, key, search_val, s->slot)) {
		p->free_slots[p->nfree++] = s->slot;
		free(s);
		p->oom = true;
		return NULL;
	}
	p->start_slots[s->slot] = s;
	s->search_val = search_val;
	s->val = val;
	s->ts = rec->ts;
	s->ed = e;
	s->task = t;
	if (e->migrate || (unsigned)rec->cpu >= p->cpus)
		list_add(&p->migrate_starts, &s->link);
	else
		list_add(&p->cpu_starts[rec->cpu], &s->link);
	return s;
}

static void free_start(struct prof *p, struct start *s)
{
	uint64_t key = (uint64_t)(s->ed - p->ed);
	uint32_t newest;

	if (s->task->last_start == s)
		s->task->last_start = NULL;
	drop_stack(&s->stack);
	if (kt_map_get(&s->task->starts, key, s->search_val, &newest)) {
		if (p->start_slots[newest] == s) {
			if (s->older)
				kt_map_put(&s->task->starts, key, s->search_val, s->older->slot);
			else
				kt_map_del(&s->task->starts, key, s->search_val);
		} else {
			for (struct start *x = p->start_slots[newest]; x; x = x->older)
				if (x->older == s) {
					x->older = s->older;
					break;
				}
		}
	}
	p->start_slots[s->slot] = NULL;
	p->free_slots[p->nfree++] = s->slot;
	list_del(&s->link);
	free(s);
}

/* The newest start of (e, search_val) in t. */
static struct start *find_start(struct prof *p, struct task *t, struct edata *e, uint64_t search_val)
{
	uint32_t slot;

	return kt_map_get(&t->starts, (uint64_t)(e - p->ed), search_val, &slot) ?
	       p->start_slots[slot] : NULL;
}

struct ehash_key {
	const struct nset *m;
	const struct edata *ed;
	uint64_t search_val, val;
};

static bool ehash_eq(const void *ctx, uint32_t i)
{
	const struct ehash_key *k = ctx;
	const struct ehash *eh = k->m->v[i];

	return eh->ed == k->ed && eh->search_val == k->search_val && eh->val == k->val;
}

static uint64_t ehash_hash(const struct prof *p, const struct edata *e, uint64_t search_val,
			   uint64_t val)
{
	return kt_hash_mix(kt_hash_mix((uint64_t)(e - p->ed), search_val), val);
}

/* The entry of (e, search_val, val) in m: true and *found, or false. */
static bool lookup_ehash(const struct prof *p, const struct nset *m, const struct edata *e,
			 uint64_t search_val, uint64_t val, struct ehash **found)
{
	struct ehash_key k = { m, e, search_val, val };
	uint32_t i;

	if (!kt_map_find(&m->map, ehash_hash(p, e, search_val, val), ehash_eq, &k, &i))
		return false;
	*found = m->v[i];
	return true;
}

static struct ehash *find_ehash(struct prof *p, struct nset *m, struct edata *e, uint64_t search_val,
				uint64_t val)
{
	struct ehash *eh;

	if (lookup_ehash(p, m, e, search_val, val, &eh))
		return eh;
	eh = calloc(1, sizeof(*eh));
	if (!eh || (eh->ed = e, eh->search_val = search_val, eh->val = val,
		    nset_add(m, ehash_hash(p, e, search_val, val), eh))) {
		free(eh);
		p->oom = true;
		return NULL;
	}
	return eh;
}

struct stack_key {
	const struct nset *m;
	const uint8_t *caller;
	size_t size;
};

static bool stack_eq(const void *ctx, uint32_t i)
{
	const struct stack_key *k = ctx;
	const struct stack *c = k->m->v[i];

	return c->size == k->size && !memcmp(c->caller, k->caller, k->size);
}

/* The stack of caller[0..size) in m, or NULL. */
static struct stack *lookup_stack(const struct nset *m, uint64_t h, const uint8_t *caller,
				  size_t size)
{
	struct stack_key k = { m, caller, size };
	uint32_t i;

	return kt_map_find(&m->map, h, stack_eq, &k, &i) ? m->v[i] : NULL;
}

static void add_event_stack(struct prof *p, struct ehash *eh, const uint8_t *caller, size_t size,
			    uint64_t time, uint64_t ts)
{
	uint64_t h = kt_hash_bytes(caller, size);
	struct stack *s = lookup_stack(&eh->stacks, h, caller, size);

	if (!s) {
		s = calloc(1, sizeof(*s) + size);
		if (!s || (s->h = h, s->size = size, memcpy(s->caller, caller, size),
			   nset_add(&eh->stacks, h, s))) {
			free(s);
			p->oom = true;
			return;
		}
	}
	s->count++;
	s->time += time;
	if (s->count == 1 || time < s->time_min) {
		s->time_min = time;
		s->ts_min = ts;
	}
	if (time > s->time_max) {
		s->time_max = time;
		s->ts_max = ts;
	}
}

static struct ehash *add_and_free_start(struct prof *p, struct task *t, struct start *s,
					struct edata *e, uint64_t ts)
{
	int64_t delta = (int64_t)(ts - s->ts);
	struct ehash *eh;

	/* on a live trace time stamps of two CPUs may go back: no negative times */
	if (delta < 0)
		delta = 0;
	eh = find_ehash(p, &t->events, e, s->search_val, s->val);
	if (!eh)
		return NULL;
	eh->count++;
	eh->time_total += (uint64_t)delta;
	eh->last_time = (uint64_t)delta;
	if ((uint64_t)delta > eh->time_max) {
		eh->time_max = (uint64_t)delta;
		eh->ts_max = ts;
	}
	if (eh->count == 1 || (uint64_t)delta < eh->time_min) {
		eh->time_min = (uint64_t)delta;
		eh->ts_min = ts;
	}
	if (s->stack.caller)
		add_event_stack(p, eh, s->stack.caller, s->stack.size, (uint64_t)delta, s->stack.ts);
	free_start(p, s);
	return eh;
}

static struct ehash *find_and_update_start(struct prof *p, struct task *t, struct edata *e,
					   uint64_t ts, uint64_t search_val)
{
	struct start *s = e ? find_start(p, t, e, search_val) : NULL;

	return s ? add_and_free_start(p, t, s, e, ts) : NULL;
}

/* Counted without a pair. */
static void account_task(struct prof *p, struct task *t, struct edata *e, const struct ktrace_record *rec)
{
	uint64_t val = 0;
	struct ehash *eh;

	if (e->pid_field >= 0) {
		struct task *proxy = t;

		t = find_task(p, (int)num(p, e, e->pid_field, rec, 0));
		if (!t)
			return;
		proxy->proxy = t;
	}
	if (e->data_field >= 0)
		val = num(p, e, e->data_field, rec, 0);
	eh = find_ehash(p, &t->events, e, val, val);
	if (!eh)
		return;
	eh->count++;
	t->last_event = eh;
}

static struct task *event_task(struct prof *p, struct edata *e, const struct ktrace_record *rec,
			       uint64_t pid)
{
	if (e->global) {
		if (e->migrate || (unsigned)rec->cpu >= p->cpus)
			return &p->global_task;
		return &p->cpu_tasks[rec->cpu];
	}
	if (e->pid_field >= 0)
		pid = num(p, e, e->pid_field, rec, pid);
	return find_task(p, (int)pid);
}

static struct task *end_event(struct prof *p, struct edata *e, const struct ktrace_record *rec, int pid)
{
	struct task *t = event_task(p, e, rec, (uint64_t)pid);
	uint64_t val;

	if (!t)
		return NULL;
	val = num(p, e, e->start_match, rec, 0);
	t->last_event = find_and_update_start(p, t, e->start, rec->ts, val);
	t->last_start = NULL;
	return t;
}

static struct task *start_event(struct prof *p, struct edata *e, const struct ktrace_record *rec,
				uint64_t pid)
{
	struct task *t = event_task(p, e, rec, pid);
	struct start *s;
	uint64_t val;

	if (!t)
		return NULL;
	val = num(p, e, e->end_match, rec, 0);
	s = add_start(p, t, e, rec, val, val);
	if (!s)
		return NULL;
	t->last_start = s;
	t->last_event = NULL;
	return t;
}

static void default_event(struct prof *p, uint64_t pid, struct edata *e, const struct ktrace_record *rec)
{
	struct task *t = NULL;

	if (e->start)
		t = end_event(p, e, rec, (int)pid);
	if (e->end) {
		t = start_event(p, e, rec, pid);
		if (!t)
			return;
	}
	if (!t) {
		t = find_task(p, (int)pid);
		if (!t)
			return;
		t->proxy = NULL;
		t->last_start = NULL;
		t->last_event = NULL;
		account_task(p, t, e, rec);
	}
}

static void missed_events(struct prof *p, int cpu)
{
	if ((unsigned)cpu < p->cpus)
		while (p->cpu_starts[cpu].next != &p->cpu_starts[cpu])
			free_start(p, (struct start *)((char *)p->cpu_starts[cpu].next -
						    offsetof(struct start, link)));
	while (p->migrate_starts.next != &p->migrate_starts)
		free_start(p, (struct start *)((char *)p->migrate_starts.next -
					       offsetof(struct start, link)));
}

static void switch_event(struct prof *p, struct edata *e, const struct ktrace_record *rec)
{
	uint64_t prev_pid = num(p, e, e->pid_field, rec, 0);
	uint64_t prev_state = num(p, e, e->data_field, rec, 0) & (TASK_STATE_MAX - 1);
	uint64_t next_pid = num(p, e, e->end_match, rec, 0);
	struct task *t = find_task(p, (int)prev_pid);

	if (!t)
		return;
	if (!t->comm)
		t->comm = field_comm(p, e->ev, "prev_comm", rec);
	t->sleeping = prev_state != 0;
	/* scheduled out; prev_state says why */
	t->last_start = add_start(p, t, e, rec, prev_pid, prev_state);
	t->last_event = NULL;
	t = find_task(p, (int)next_pid);
	if (!t)
		return;
	if (!t->comm)
		t->comm = field_comm(p, e->ev, "next_comm", rec);
	/* blocked: woken up before; preempted: switched out before (both are looked for) */
	find_and_update_start(p, t, e->start, rec->ts, next_pid);
	find_and_update_start(p, t, e, rec->ts, next_pid);
}

static void wakeup_event(struct prof *p, uint64_t pid, struct edata *e, const struct ktrace_record *rec)
{
	struct task *proxy = find_task(p, (int)pid), *t;
	struct start *s;

	if (!proxy)
		return;
	if (e->data_field >= 0 && !num(p, e, e->data_field, rec, 1))
		return;     /* not a successful wake-up */
	pid = num(p, e, e->pid_field, rec, pid);
	t = find_task(p, (int)pid);
	if (!t)
		return;
	if (!t->comm)
		t->comm = field_comm(p, e->ev, "comm", rec);
	if (!t->sleeping) {
		/* not asleep: the wake-up (and the stack after it) counts for nothing */
		proxy->proxy = NULL;
		proxy->last_start = NULL;
		proxy->last_event = NULL;
		return;
	}
	t->sleeping = false;
	/* the stack that follows belongs to the woken task, not to the waker */
	proxy->proxy = t;
	find_and_update_start(p, t, e->start, rec->ts, pid);
	s = add_start(p, t, e, rec, pid, pid);
	t->last_event = NULL;
	t->last_start = s;
}

static void stack_event(struct prof *p, uint64_t pid, const struct ktrace_record *rec)
{
	struct task *t = find_task(p, (int)pid), *orig = t, *proxy;
	struct ehash *eh;
	struct kstack k;

	if (!t)
		return;
	drop_stack(&t->last_stack);
	if ((proxy = t->proxy)) {
		t->proxy = NULL;
		t = proxy;
	}
	if (!t->last_start && !t->last_event) {
		/* kept in case a function-graph entry follows (on the task itself) */
		stack_of(p, rec, &orig->last_stack);
		return;
	}
	if (t->last_start) {
		/* added once the pair ends */
		drop_stack(&t->last_start->stack);
		stack_of(p, rec, &t->last_start->stack);
		t->last_start = NULL;
		t->last_event = NULL;
		return;
	}
	eh = t->last_event;
	t->last_event = NULL;
	if (stack_of(p, rec, &k)) {
		add_event_stack(p, eh, k.caller, k.size, eh->last_time, k.ts);
		drop_stack(&k);
	}
}

static void fg_entry_event(struct prof *p, uint64_t pid, struct edata *e, const struct ktrace_record *rec)
{
	struct task *t = start_event(p, e, rec, pid);

	if (!t)
		return;
	/* stacks come before the function-graph entry they belong to */
	if (t->last_stack.caller) {
		drop_stack(&t->last_start->stack);
		t->last_start->stack = t->last_stack;
		t->last_stack.caller = NULL;
		t->last_event = NULL;
	}
	t->last_start = NULL;
}

static void exec_event(struct prof *p, uint64_t pid, struct edata *e, const struct ktrace_record *rec)
{
	struct task *t;

	if (e->data_field >= 0)
		pid = num(p, e, e->data_field, rec, pid);
	t = find_task(p, (int)pid);
	if (t) {
		free(t->comm);
		t->comm = NULL;
	}
}

static void profile_record(struct prof *p, const struct ktrace_record *rec, long long missed)
{
	const struct ktrace_event *ev;
	struct edata *e;
	struct task *t;
	uint64_t held;
	int pid;

	if (missed)
		missed_events(p, rec->cpu);
	ev = ktrace_event_record_event(p->evs, rec);
	e = ev ? find_edata(p, ktrace_event_id(ev)) : NULL;
	if (!e)
		return;
	pid = ktrace_event_record_pid(p->evs, rec);
	t = find_task(p, pid);
	if (!t)
		return;
	held = t->last_stack.caller ? t->last_stack.id : 0;
	switch (e->handler) {
	case H_SWITCH: switch_event(p, e, rec); break;
	case H_WAKEUP: wakeup_event(p, (uint64_t)pid, e, rec); break;
	case H_STACK: stack_event(p, (uint64_t)pid, rec); break;
	case H_FG_ENTRY: fg_entry_event(p, (uint64_t)pid, e, rec); break;
	case H_FG_EXIT: {
		struct task *x = end_event(p, e, rec, pid);

		if (x)
			x->last_event = NULL;   /* no stack goes with an exit */
		break;
	}
	case H_EXEC: exec_event(p, (uint64_t)pid, e, rec); break;
	default: default_event(p, (uint64_t)pid, e, rec); break;
	}
	/* a stack kept for a function-graph entry lasts until the task's next event */
	if (held && t->last_stack.caller && t->last_stack.id == held)
		drop_stack(&t->last_stack);
}

/* ---- setting up ---- */

static int setup(struct prof *p)
{
	struct edata *sched_switch, *sched_wakeup, *irq_entry, *irq_exit, *sirq_entry, *sirq_exit;
	struct edata *sirq_raise, *fg_entry, *fg_exit, *sys_enter, *sys_exit, *exec, *e;
	size_t n = ktrace_event_count(p->evs);

	p->cap_ed = n + 16;
	p->ed = calloc(p->cap_ed, sizeof(*p->ed));
	p->cpu_starts = calloc(p->cpus ? p->cpus : 1, sizeof(*p->cpu_starts));
	p->cpu_tasks = calloc(p->cpus ? p->cpus : 1, sizeof(*p->cpu_tasks));
	p->global_task.comm = strdup("Global Events");
	if (!p->ed || !p->cpu_starts || !p->cpu_tasks || !p->global_task.comm)
		return -ENOMEM;
	list_init(&p->migrate_starts);
	p->global_task.pid = -1;
	for (unsigned i = 0; i < p->cpus; i++) {
		list_init(&p->cpu_starts[i]);
		p->cpu_tasks[i].pid = -1 - (int)i;
		if (asprintf(&p->cpu_tasks[i].comm, "Global CPU[%u] Events", i) < 0) {
			p->cpu_tasks[i].comm = NULL;
			return -ENOMEM;
		}
	}
	irq_entry = add_event(p, "irq", "irq_handler_entry", T_IRQ);
	irq_exit = add_event(p, "irq", "irq_handler_exit", T_IRQ);
	sirq_entry = add_event(p, "irq", "softirq_entry", T_SOFTIRQ);
	sirq_exit = add_event(p, "irq", "softirq_exit", T_SOFTIRQ);
	sirq_raise = add_event(p, "irq", "softirq_raise", T_SOFTIRQ_RAISE);
	sched_wakeup = add_event(p, "sched", "sched_wakeup", T_WAKEUP);
	sched_switch = add_event(p, "sched", "sched_switch", T_SCHED_SWITCH);
	fg_entry = add_event(p, "ftrace", "funcgraph_entry", T_FUNC);
	fg_exit = add_event(p, "ftrace", "funcgraph_exit", T_FUNC);
	sys_enter = add_event(p, "raw_syscalls", "sys_enter", T_SYSCALL);
	sys_exit = add_event(p, "raw_syscalls", "sys_exit", T_SYSCALL);
	exec = add_event(p, "sched", "sched_process_exec", T_PROCESS_EXEC);
	p->stacktrace = add_event(p, "ftrace", "kernel_stack", T_STACK);
	if (p->stacktrace) {
		int i = ktrace_event_field_index(p->stacktrace->ev, "caller");
		uint32_t size;

		p->stacktrace->handler = H_STACK;
		p->stacktrace->data_field = i;
		if (i < 0 || ktrace_event_field_layout(p->stacktrace->ev, (size_t)i,
						       &p->stacktrace->data_offset, &size))
			return -EINVAL;
	}
	if (exec) {
		exec->handler = H_EXEC;
		exec->data_field = ktrace_event_field_index(exec->ev, "old_pid");
	}
	if (sched_switch) {
		sched_switch->handler = H_SWITCH;
		sched_switch->data_field = ktrace_event_field_index(sched_switch->ev, "prev_state");
		sched_switch->print = P_SWITCH;
		/* set by the pairing below too; without sched_wakeup trace-cmd leaves them
		 * unset and reads stack garbage for the pids: here they are read */
		sched_switch->pid_field = ktrace_event_field_index(sched_switch->ev, "prev_pid");
		sched_switch->end_match = ktrace_event_field_index(sched_switch->ev, "next_pid");
	}
	if (sched_switch && sched_wakeup) {
		mate(sched_switch, "prev_pid", "next_pid", sched_wakeup, "pid", true, false);
		mate(sched_wakeup, "pid", "pid", sched_switch, "prev_pid", true, false);
		sched_wakeup->handler = H_WAKEUP;
		sched_wakeup->data_field = ktrace_event_field_index(sched_wakeup->ev, "success");
	}
	if (irq_entry && irq_exit)
		mate(irq_entry, NULL, "irq", irq_exit, "irq", false, p->global);
	if (sirq_entry)
		sirq_entry->print = P_SOFTIRQ;
	if (sirq_exit)
		sirq_exit->print = P_SOFTIRQ;
	if (sirq_raise)
		sirq_raise->print = P_SOFTIRQ;
	if (sirq_entry && sirq_exit)
		mate(sirq_entry, NULL, "vec", sirq_exit, "vec", false, p->global);
	if (sirq_entry && sirq_raise)
		mate(sirq_raise, NULL, "vec", sirq_entry, "vec", false, p->global);
	if (fg_entry && fg_exit) {
		mate(fg_entry, NULL, "func", fg_exit, "func", true, false);
		fg_entry->handler = H_FG_ENTRY;
		fg_exit->handler = H_FG_EXIT;
		fg_entry->print = P_FUNC;
	}
	if (sys_enter && sys_exit) {
		mate(sys_enter, NULL, "id", sys_exit, "id", true, false);
		sys_enter->print = P_SYSCALL;
		sys_exit->print = P_SYSCALL;
	}
	e = add_event(p, "ftrace", "function", T_FUNC);
	if (e)
		e->data_field = ktrace_event_field_index(e->ev, "ip");
	/* every other event: counted by the value of its first field */
	for (size_t i = 0; i < n; i++) {
		const struct ktrace_event *ev = ktrace_event_at(p->evs, i);

		if (!ev || find_edata(p, ktrace_event_id(ev)))
			continue;
		e = add_event(p, ktrace_event_system(ev), ktrace_event_name(ev), T_UNDEFINED);
		if (e && ktrace_event_field_count(ev))
			e->data_field = 0;
	}
	return p->oom ? -ENOMEM : 0;
}

/* ---- output ---- */

static const char *const softirqs[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "BLOCK_IOPOLL", "TASKLET", "SCHED",
	"HRTIMER", "RCU",
};

static void event_label(struct prof *p, const struct ehash *eh, char *buf, size_t len)
{
	const struct edata *e = eh->ed;
	const char *name = ktrace_event_name(e->ev);
	enum ev_print pr = e->print;

	if (pr == P_DEFAULT && e->type == T_FUNC)
		pr = P_FUNC;
	switch (pr) {
	case P_SWITCH: {
		int val = (int)eh->val;
		size_t n = (size_t)snprintf(buf, len, "%s:", name);

		if (val) {
			for (int i = 0; val && i < (int)sizeof(TASK_STATE_CHARS) - 1; i++, val >>= 1)
				if ((val & 1) && n + 1 < len && TASK_STATE_CHARS[i + 1])
					buf[n++] = TASK_STATE_CHARS[i + 1];
		} else if (n + 1 < len) {
			buf[n++] = 'R';
		}
		buf[n] = 0;
		break;
	}
	case P_SOFTIRQ:
		if ((int)eh->val >= 0 && (int)eh->val < (int)(sizeof(softirqs) / sizeof(softirqs[0])))
			snprintf(buf, len, "%s:%s", name, softirqs[(int)eh->val]);
		else
			snprintf(buf, len, "%s:%d", name, (int)eh->val);
		break;
	case P_FUNC: {
		uint64_t start;
		const char *f = ktrace_event_function(p->evs, eh->val, &start);

		if (f)
			snprintf(buf, len, "func: %s()", f);
		else
			snprintf(buf, len, "func: 0x%llx", (unsigned long long)eh->val);
		break;
	}
	case P_SYSCALL:
		/* Debian's trace-cmd is built without libaudit: no system call names */
		snprintf(buf, len, "%s:%d", name, (int)eh->val);
		break;
	default:
		snprintf(buf, len, "%s:0x%llx", name, (unsigned long long)eh->val);
		break;
	}
}

static unsigned long long secs(uint64_t ts)
{
	return ts / 1000000000u;
}

static unsigned long long usecs_rounded(uint64_t ts)
{
	return (ts % 1000000000u + 500) / 1000;
}

struct chain {
	struct chain *children;
	uint64_t val, time, time_min, ts_min, time_max, ts_max, time_avg, count;
	int percent, nr_children;
};

static uint64_t stack_word(const struct stack *s, unsigned ls, int level)
{
	const uint8_t *ptr = s->caller + (size_t)ls * (size_t)level;

	if (ls == 8) {
		uint64_t v;

		memcpy(&v, ptr, 8);
		return v;
	} else {
		uint32_t v;

		memcpy(&v, ptr, 4);
		return v;
	}
}

static bool stack_overflows(const struct stack *s, unsigned ls, int level)
{
	return s->size < ls || (size_t)ls * (size_t)level > s->size - ls;
}

static int cmp_chain(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	/* stacks without times: by count */
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return 0;
}

static int percent_of(uint64_t val, uint64_t total)
{
	return (int)((val * 100 + total / 2) / total);
}

static void free_chain(struct chain *c, int n)
{
	if (!c)
		return;
	for (int i = 0; i < n; i++)
		free_chain(c[i].children, c[i].nr_children);
	free(c);
}

/* trace-cmd's make_stack_chain: the stacks (sorted) that share the word at level grouped,
 * each group's stacks deeper. */
static struct chain *make_chain(struct prof *p, struct stack **stacks, int cnt, int level, int *nr)
{
	unsigned ls = p->long_size;
	uint64_t stop = ls < 8 ? (1ull << (ls * 8)) - 1 : ~0ull;
	uint64_t total_time = 0, total_count = 0, time = 0, count = 0, last = 0, val;
	uint64_t time_min = 0, ts_min = 0, time_max = 0, ts_max = 0;
	int nchains = 0, x = 0, start = 0;
	struct chain *chain;

	*nr = 0;
	for (int i = 0; i < cnt; i++) {
		if (stack_overflows(stacks[i], ls, level))
			continue;
		val = stack_word(stacks[i], ls, level);
		if (val == stop)
			continue;
		if (!nchains || val != last)
			nchains++;
		last = val;
	}
	if (!nchains)
		return NULL;
	chain = calloc((size_t)nchains, sizeof(*chain));
	if (!chain) {
		p->oom = true;
		return NULL;
	}
	for (int i = 0; i < cnt; i++) {
		if (stack_overflows(stacks[i], ls, level)) {
			start = i + 1;
			continue;
		}
		val = stack_word(stacks[i], ls, level);
		if (val == stop) {
			start = i + 1;
			continue;
		}
		count += stacks[i]->count;
		time += stacks[i]->time;
		if (stacks[i]->time_max > time_max) {
			time_max = stacks[i]->time_max;
			ts_max = stacks[i]->ts_max;
		}
		if (i == start || stacks[i]->time_min < time_min) {
			time_min = stacks[i]->time_min;
			ts_min = stacks[i]->ts_min;
		}
		if (i == cnt - 1 || stack_overflows(stacks[i + 1], ls, level) ||
		    val != stack_word(stacks[i + 1], ls, level)) {
			if (x < nchains) {
				total_time += time;
				total_count += count;
				chain[x].val = val;
				chain[x].time_avg = count ? time / count : 0;
				chain[x].count = count;
				chain[x].time = time;
				chain[x].time_min = time_min;
				chain[x].ts_min = ts_min;
				chain[x].time_max = time_max;
				chain[x].ts_max = ts_max;
				chain[x].children = make_chain(p, &stacks[start], i - start + 1, level + 1,
							       &chain[x].nr_children);
				x++;
			}
			start = i + 1;
			count = time = time_min = time_max = 0;
		}
	}
	if (stable_sort(chain, (size_t)nchains, sizeof(*chain), cmp_chain))
		p->oom = true;
	*nr = nchains;
	if (!total_time && !total_count)
		return chain;
	for (int i = 0; i < nchains; i++) {
		if (total_time)
			chain[i].percent = percent_of(chain[i].time, total_time);
		else
			chain[i].percent = percent_of(chain[i].count, total_count);
	}
	return chain;
}

/* Bit n of the tree's mask (trace-cmd keeps 64 levels; deeper ones draw no line). */
static uint64_t bit(int n)
{
	return n >= 0 && n < 64 ? 1ull << n : 0;
}

static void put_indent(struct prof *p, int level, uint64_t mask)
{
	for (int i = 0; i <= level; i++)
		kt_out_printf(p->out, "%*c ", INDENT, (mask & bit(i)) ? '|' : ' ');
}

static void put_func(struct prof *p, uint64_t val)
{
	uint64_t start;
	const char *f = ktrace_event_function(p->evs, val, &start);

	if (f)
		kt_out_printf(p->out, "%s (0x%llx)\n", f, (unsigned long long)val);
	else
		kt_out_printf(p->out, "0x%llx\n", (unsigned long long)val);
}

static void output_chain(struct prof *p, struct chain *chain, int level, int nchains, uint64_t *mask)
{
	char line = '|';

	if (!nchains)
		return;
	*mask |= bit(level + 1);
	put_indent(p, level + 1, *mask);
	kt_out_putc(p->out, '\n');
	for (int i = 0; i < nchains; i++) {
		struct chain *child;
		int nchildren;

		put_indent(p, level, *mask);
		kt_out_printf(p->out, "%*c ", INDENT, '+');
		if (i == nchains - 1) {
			*mask &= ~bit(level + 1);
			line = ' ';
		}
		put_func(p, chain[i].val);
		put_indent(p, level, *mask);
		kt_out_printf(p->out, "%*c ", INDENT, line);
		kt_out_printf(p->out, "  %d%% (%llu)", chain[i].percent, (unsigned long long)chain[i].count);
		if (chain[i].time)
			kt_out_printf(p->out, " time:%llu max:%llu(ts:%llu.%06llu) min:%llu(ts:%llu.%06llu) avg:%llu",
				      (unsigned long long)chain[i].time, (unsigned long long)chain[i].time_max,
				      secs(chain[i].ts_max), usecs_rounded(chain[i].ts_max),
				      (unsigned long long)chain[i].time_min, secs(chain[i].ts_min),
				      usecs_rounded(chain[i].ts_min), (unsigned long long)chain[i].time_avg);
		kt_out_putc(p->out, '\n');
		for (child = chain[i].children, nchildren = chain[i].nr_children; child && nchildren == 1;
		     nchildren = child->nr_children, child = child->children) {
			put_indent(p, level, *mask);
			kt_out_printf(p->out, "%*c ", INDENT, line);
			kt_out_puts(p->out, "   ");
			put_func(p, child->val);
		}
		if (child)
			output_chain(p, child, level + 1, nchildren, mask);
		put_indent(p, level + 1, *mask);
		kt_out_putc(p->out, '\n');
	}
	*mask &= ~bit(level + 1);
	put_indent(p, level, *mask);
	kt_out_putc(p->out, '\n');
}

/* trace-cmd compares stacks as unsigned ints, then the longer one is larger. */
static int cmp_stacks(const void *a, const void *b)
{
	const struct stack *x = *(struct stack *const *)a, *y = *(struct stack *const *)b;
	size_t size = x->size < y->size ? x->size : y->size;

	for (size_t i = 0; i + 4 <= size; i += 4) {
		uint32_t sa, sb;

		memcpy(&sa, x->caller + i, 4);
		memcpy(&sb, y->caller + i, 4);
		if (sa != sb)
			return sa > sb ? 1 : -1;
	}
	if (x->size != y->size)
		return x->size > y->size ? 1 : -1;
	return 0;
}

static void output_stacks(struct prof *p, struct nset *m)
{
	struct stack **stacks;
	struct chain *chain;
	uint64_t mask = 0;
	size_t n;
	int nchains;

	if (!m->n)
		return;
	n = m->n;
	stacks = (struct stack **)nset_copy(m);
	if (!stacks) {
		p->oom = true;
		return;
	}
	qsort(stacks, n, sizeof(*stacks), cmp_stacks);
	chain = make_chain(p, stacks, (int)n, 0, &nchains);
	output_chain(p, chain, 0, nchains, &mask);
	free_chain(chain, nchains);
	free(stacks);
}

static void output_event(struct prof *p, struct ehash *eh)
{
	char label[1024];

	event_label(p, eh, label, sizeof(label));
	kt_out_printf(p->out, "  Event: %s (%llu)", label, (unsigned long long)eh->count);
	if (eh->time_total)
		kt_out_printf(p->out, " Total: %llu Avg: %llu Max: %llu(ts:%llu.%06llu) Min:%llu(ts:%llu.%06llu)",
			      (unsigned long long)eh->time_total,
			      (unsigned long long)(eh->time_total / eh->count),
			      (unsigned long long)eh->time_max, secs(eh->ts_max), usecs_rounded(eh->ts_max),
			      (unsigned long long)eh->time_min, secs(eh->ts_min), usecs_rounded(eh->ts_min));
	kt_out_putc(p->out, '\n');
	output_stacks(p, &eh->stacks);
}

static int cmp_events(const void *a, const void *b)
{
	const struct ehash *x = *(struct ehash *const *)a, *y = *(struct ehash *const *)b;
	const struct edata *ex = x->ed, *ey = y->ed;

	/* sched_switch first, the lower state the better */
	if (ex->type == T_SCHED_SWITCH) {
		if (ey->type != T_SCHED_SWITCH)
			return -1;
		return x->val > y->val ? 1 : x->val < y->val ? -1 : 0;
	} else if (ey->type == T_SCHED_SWITCH) {
		return 1;
	}
	/* then wake-ups */
	if (ex->type == T_WAKEUP)
		return ey->type == T_WAKEUP ? 0 : -1;
	if (ey->type == T_WAKEUP)
		return 1;
	if (ex->id != ey->id)
		return ex->id > ey->id ? 1 : -1;
	if (x->time_total != y->time_total)
		return x->time_total > y->time_total ? -1 : 1;
	return 0;
}

static void output_events(struct prof *p, struct nset *m)
{
	struct ehash **v;
	size_t n = m->n;

	v = (struct ehash **)nset_copy(m);
	if (!v) {
		p->oom = true;
		return;
	}
	qsort(v, n, sizeof(*v), cmp_events);
	for (size_t i = 0; i < n; i++)
		output_event(p, v[i]);
	free(v);
}

static void output_task(struct prof *p, struct task *t)
{
	if (t->group)
		return;
	if (t->pid < 0)
		kt_out_printf(p->out, "%s\n", t->comm);
	else
		kt_out_printf(p->out, "\ntask: %s-%d\n", t->comm ? t->comm : ktrace_event_comm(p->evs, t->pid),
			      t->pid);
	output_events(p, &t->events);
}

/* The bucket trace-cmd keeps a pid's task in (1024 buckets): its integer hash, the
 * avalanche of Paul Hsieh's SuperFastHash on the two 16-bit halves. */
static unsigned task_bucket(int pid)
{
	uint32_t v = (uint32_t)pid, h = 12546869u + (v & 0xffff);

	h = (h << 16) ^ ((v >> 16) ^ h);
	h += h >> 11;
	h ^= h << 3;
	h += h >> 5;
	h ^= h << 4;
	h += h >> 17;
	h ^= h << 25;
	h += h >> 6;
	return h & 1023;
}

/* trace-cmd's walk of its tasks: by bucket, the newest first in a bucket. --by-comm
 * merges in this order. Among equal longest or shortest times the earliest one is kept
 * (merge_into_group, merge_stacks): trace-cmd keeps the first merged, in an order that
 * depends on its memory addresses (its event hash is keyed by pointers); ours must not
 * (a sanitizer build kept another one), and the earliest is what trace-cmd shows on
 * tests/data/report's profile trace. */
static int cmp_task_walk(const void *a, const void *b)
{
	const struct task *x = *(struct task *const *)a, *y = *(struct task *const *)b;
	unsigned bx = task_bucket(x->pid), by = task_bucket(y->pid);

	if (bx != by)
		return bx > by ? 1 : -1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

static int cmp_tasks(const void *a, const void *b)
{
	const struct task *x = *(struct task *const *)a, *y = *(struct task *const *)b;

	return x->pid > y->pid ? 1 : x->pid < y->pid ? -1 : 0;
}

/* --by-comm: the events of every task with a name go to the group of that name. */
static void merge_stacks(struct prof *p, struct ehash *into, struct ehash *from)
{
	for (size_t i = 0; i < from->stacks.n; i++) {
		struct stack *s = from->stacks.v[i];
		struct stack *found = lookup_stack(&into->stacks, s->h, s->caller, s->size);

		if (!found) {
			if (nset_add(&into->stacks, s->h, s)) {
				free(s);
				p->oom = true;
			}
			continue;
		}
		found->count += s->count;
		found->time += s->time;
		if (found->time_max < s->time_max ||
		    (found->time_max == s->time_max && found->ts_max > s->ts_max)) {
			found->time_max = s->time_max;
			found->ts_max = s->ts_max;
		}
		if (found->time_min > s->time_min ||
		    (found->time_min == s->time_min && found->ts_min > s->ts_min)) {
			found->time_min = s->time_min;
			found->ts_min = s->ts_min;
		}
		free(s);
	}
	nset_clear(&from->stacks);
}

static void free_ehash(struct ehash *eh)
{
	for (size_t i = 0; i < eh->stacks.n; i++)
		free(eh->stacks.v[i]);
	nset_clear(&eh->stacks);
	free(eh);
}

static void merge_into_group(struct prof *p, struct group *g, struct ehash *eh)
{
	struct ehash *found;

	if (eh->ed->type == T_WAKEUP)
		eh->search_val = eh->val = 0;
	else if (eh->ed->type == T_SCHED_SWITCH)
		eh->search_val = eh->val;
	if (!lookup_ehash(p, &g->events, eh->ed, eh->search_val, eh->val, &found)) {
		if (nset_add(&g->events, ehash_hash(p, eh->ed, eh->search_val, eh->val), eh)) {
			free_ehash(eh);
			p->oom = true;
		}
		return;
	}
	found->count += eh->count;
	found->time_total += eh->time_total;
	if (found->time_max < eh->time_max ||
	    (found->time_max == eh->time_max && found->ts_max > eh->ts_max)) {
		found->time_max = eh->time_max;
		found->ts_max = eh->ts_max;
	}
	if (found->time_min > eh->time_min ||
	    (found->time_min == eh->time_min && found->ts_min > eh->ts_min)) {
		found->time_min = eh->time_min;
		found->ts_min = eh->ts_min;
	}
	merge_stacks(p, found, eh);
	free_ehash(eh);
}

struct comm_key {
	const struct nset *m;
	const char *comm;
};

static bool group_eq(const void *ctx, uint32_t i)
{
	const struct comm_key *k = ctx;

	return !strcmp(((const struct group *)k->m->v[i])->comm, k->comm);
}

static void group_task(struct prof *p, struct task *t)
{
	struct comm_key k = { &p->groups, t->comm };
	struct group *g = NULL;
	uint64_t h;
	uint32_t i;

	if (!t->comm)
		return;
	h = kt_hash_bytes(t->comm, strlen(t->comm));
	if (kt_map_find(&p->groups.map, h, group_eq, &k, &i)) {
		g = p->groups.v[i];
	} else {
		g = calloc(1, sizeof(*g));
		if (!g || !(g->comm = strdup(t->comm)) || nset_add(&p->groups, h, g)) {
			if (g)
				free(g->comm);
			free(g);
			p->oom = true;
			return;
		}
	}
	t->group = g;
	for (size_t e = 0; e < t->events.n; e++)
		merge_into_group(p, g, t->events.v[e]);
	nset_clear(&t->events);
}

/* What a task keeps but its starts (prof_free frees every start). */
static void free_task_data(struct task *t)
{
	kt_map_free(&t->starts);
	for (size_t i = 0; i < t->events.n; i++)
		free_ehash(t->events.v[i]);
	nset_clear(&t->events);
	drop_stack(&t->last_stack);
	free(t->comm);
}

static void output_all(struct prof *p)
{
	struct task **tasks;
	size_t n = p->tasks.n;

	if (p->global_task.events.n)
		output_task(p, &p->global_task);
	for (unsigned i = 0; i < p->cpus; i++)
		if (p->cpu_tasks[i].events.n)
			output_task(p, &p->cpu_tasks[i]);
	tasks = (struct task **)nset_copy(&p->tasks);
	if (!tasks) {
		p->oom = true;
		return;
	}
	if (p->by_comm) {
		qsort(tasks, n, sizeof(*tasks), cmp_task_walk);
		for (size_t i = 0; i < n; i++)
			group_task(p, tasks[i]);
		for (size_t i = 0; i < p->groups.n; i++) {
			struct group *g = p->groups.v[i];

			kt_out_printf(p->out, "\ngroup: %s\n", g->comm);
			output_events(p, &g->events);
		}
	}
	qsort(tasks, n, sizeof(*tasks), cmp_tasks);
	for (size_t i = 0; i < n; i++)
		output_task(p, tasks[i]);
	free(tasks);
}

static void prof_free(struct prof *p)
{
	for (size_t i = 0; i < p->nslots; i++) {
		struct start *s = p->start_slots[i];

		if (s) {
			drop_stack(&s->stack);
			free(s);
		}
	}
	free(p->start_slots);
	free(p->free_slots);
	for (size_t i = 0; i < p->tasks.n; i++) {
		free_task_data(p->tasks.v[i]);
		free(p->tasks.v[i]);
	}
	nset_clear(&p->tasks);
	free_task_data(&p->global_task);
	for (unsigned i = 0; p->cpu_tasks && i < p->cpus; i++)
		free_task_data(&p->cpu_tasks[i]);
	free(p->cpu_tasks);
	free(p->cpu_starts);
	for (size_t i = 0; i < p->groups.n; i++) {
		struct group *g = p->groups.v[i];

		for (size_t k = 0; k < g->events.n; k++)
			free_ehash(g->events.v[k]);
		nset_clear(&g->events);
		free(g->comm);
		free(g);
	}
	nset_clear(&p->groups);
	kt_map_free(&p->by_id);
	free(p->ed);
}

/*
 * trace-cmd profiles its first handle only (the top buffer). The other buffers' records
 * are read all the same, not profiled: their damage is told (the damage handler) as
 * plain report tells it. 0 (*damaged and *err: the last damage met, if any), or an
 * error that ended the reading.
 */
static int check_other_buffers(struct kt_tdfile *tf, int top, struct ktrace_error *err,
			       bool *damaged)
{
	struct tracedat *td = kt_tdfile_td(tf);

	*damaged = false;
	for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
		const struct tracedat_record *r;
		struct tracedat_iter *it;
		struct ktrace_error e = { 0 };
		int ret;

		if ((int)b == top || tracedat_buffer(td, b)->latency)
			continue;
		ret = tracedat_iter_new(td, (int)b, -1, &it, err);
		if (ret)
			return ret;
		while ((ret = tracedat_iter_next(it, &r, &e)) > 0)
			;
		if (ret < 0) {
			*err = e;
			if (tracedat_iter_ended(it)) {
				*damaged = true;
				ret = 0;
			}
		}
		tracedat_iter_free(it);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int ktrace_view_tracedat_profile(const struct ktrace_view_text_opts *o,
				 const struct ktrace_view_profile_opts *po, struct ktrace_out *out,
				 struct ktrace_error *err, const char **err_file)
{
	struct kt_tdset_opts so = {
		.raw_ts = o->raw_ts, .no_date = o->no_date, .nsec = o->nsec, .cpus = o->cpus,
		.ncpus = o->ncpus, .no_irqs = o->no_irqs, .no_softirqs = o->no_softirqs,
		.warn = o->warn, .warn_arg = o->warn_arg,
	};
	struct kt_tdset *set;
	struct prof p = { 0 };
	const char *dummy;
	struct kt_tdfile *f;
	struct tracedat *td;
	int top, ret;

	err_file = err_file ? err_file : &dummy;
	*err_file = NULL;
	if (o->nfiles != 1)
		return ktrace_error_set(err, -EINVAL, "--profile reads one file");
	ret = kt_td_open(&set, 1, &so, false, err);
	if (ret)
		return ret;
	ret = kt_td_open_file(set, 0, o->files[0].path, o->files[0].input, o->files[0].ts_offset);
	if (!ret)
		ret = kt_td_add_filters(set, kt_td_file(set, 0), o->files[0].filters, o->files[0].nfilters,
					o->tasks, o->ntasks);
	if (ret) {
		*err_file = kt_td_err_file(set);
		kt_td_close(set);
		return ret;
	}
	f = kt_td_file(set, 0);
	td = kt_tdfile_td(f);
	p.evs = kt_tdfile_events(f);
	p.out = out;
	p.long_size = tracedat_header(td)->long_size == 4 ? 4 : 8;
	p.by_comm = po && po->by_comm;
	p.global = po && po->global;
	/* per-CPU tables for the CPUs the file has entries for (not what its header
	 * claims), at most MAX_CPUS; records of others count as migrating or global */
	p.cpus = 0;
	for (size_t b = 0; b < tracedat_buffer_count(td); b++)
		for (size_t c = 0; c < tracedat_buffer(td, b)->cpus; c++)
			if (tracedat_buffer_cpu(td, b, c)->cpu >= p.cpus)
				p.cpus = tracedat_buffer_cpu(td, b, c)->cpu + 1;
	if (p.cpus > kt_tdfile_ncpus(f))
		p.cpus = kt_tdfile_ncpus(f);
	if (p.cpus > MAX_CPUS)
		p.cpus = MAX_CPUS;
	kt_out_printf(out, "cpus=%u\n", kt_tdfile_ncpus(f));
	ret = setup(&p);
	if (ret) {
		ret = ret == -EINVAL ? ktrace_error_set(err, ret, "event kernel_stack has no field caller")
				     : ktrace_error_set(err, ret, "out of memory");
		goto out;
	}
	/* trace-cmd profiles the records of its first handle: the file's top buffer */
	top = tracedat_find_buffer(td, "");
	if (top >= 0 && !tracedat_buffer(td, (size_t)top)->latency) {
		ret = kt_td_add_stream(set, f, (size_t)top, false);
		while (!ret) {
			struct kt_tdrec t;

			ret = kt_td_next(set, &t);
			if (ret <= 0)
				break;
			profile_record(&p, &t.kr, t.rec->missed_events);
			ret = kt_td_advance(set, t.s);
		}
		if (ret < 0) {
			*err_file = kt_td_err_file(set);
			/* damaged data: the profile of what could be read, then its error */
			if (!kt_td_ended(set))
				goto out;
		} else {
			ret = 0;
		}
	}
	if (!p.oom)
		output_all(&p);
	if (p.oom) {
		ret = kt_error_oom(err);
	} else {
		/* the top buffer's damage, if any, stays the error the profile ends with */
		struct ktrace_error other = { 0 };
		bool damaged;
		int oret = check_other_buffers(f, top, &other, &damaged);

		if (oret < 0 || (damaged && !ret)) {
			ret = oret < 0 ? oret : other.code < 0 ? other.code : -EBADMSG;
			if (err)
				*err = other;
			*err_file = kt_tdfile_path(f);
		}
	}
out:
	prof_free(&p);
	kt_td_close(set);
	return ret;
}
