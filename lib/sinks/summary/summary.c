// SPDX-License-Identifier: MIT
/*
 * `ktrace summary` (<ktrace/view.h> ktrace_view_summary): one walk of the stream feeds
 * the model (engine_model.h) and counts the records; the model's intervals, cut to the
 * window, are summed per CPU, thread, handler, vector and syscall. Wakeup latencies go
 * into a histogram per thread (buckets 1/256 of a value wide at most, below 256 ns
 * exact), so memory stays bounded by the threads and the buckets they use, and a
 * quantile is within 0.4% of the exact one (docs/summary.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/opts.h"
#include "sinks/summary/summary_int.h"

/* ---- latency histogram ---- */

uint64_t sm_bucket_of(uint64_t v)
{
	unsigned e;

	if (v < 256)
		return v;
	e = (unsigned)(63 - __builtin_clzll(v)) - 7;     /* v >> e is 128..255 */
	return 256 + (uint64_t)(e - 1) * 128 + ((v >> e) - 128);
}

/* The middle of bucket b (its value when exact). */
uint64_t sm_bucket_value(uint64_t b)
{
	uint64_t e, m;

	if (b < 256)
		return b;
	e = (b - 256) / 128 + 1;
	m = (b - 256) % 128 + 128;
	return (m << e) + ((uint64_t)1 << (e - 1));
}

/* ---- series ---- */

/* A group of n new series (zeroed): 1 + the first's index, 0 when out of memory. */
static uint32_t ser_new(struct sm *sm, unsigned n)
{
	if (sm->nser + n >= UINT32_MAX ||
	    kt_grow((void **)&sm->ser, &sm->cap_ser, sm->nser + n, sizeof(*sm->ser)))
		return 0;
	memset(sm->ser + sm->nser, 0, n * sizeof(*sm->ser));
	sm->nser += n;
	return (uint32_t)(sm->nser - n + 1);
}

/* Widens the slots (pairs merged) until t falls in the last one at most. */
static void ser_reach(struct sm *sm, uint64_t t)
{
	while (t - sm->t0 >= sm->w * SM_SLOTS && sm->w < UINT64_MAX / (4 * SM_SLOTS)) {
		for (size_t k = 0; k < sm->nser; k++) {
			uint64_t *v = sm->ser[k].v;

			for (unsigned i = 0; i < SM_SLOTS / 2; i++)
				v[i] = v[2 * i] + v[2 * i + 1];
			memset(v + SM_SLOTS / 2, 0, SM_SLOTS / 2 * sizeof(*v));
		}
		sm->w *= 2;
	}
}

/* Adds [ts, ts + ns) (already inside the window) to series ser + k, or v at ts when
 * ns is 0 and point. */
static void ser_add(struct sm *sm, uint32_t ser, unsigned k, uint64_t ts, uint64_t ns, uint64_t v,
		    bool point)
{
	uint64_t *s, end;

	if (!ser || ts < sm->t0)
		return;
	end = point ? ts : ts + ns - 1;
	ser_reach(sm, end);
	s = sm->ser[ser - 1 + k].v;
	if (point) {
		uint64_t i = (ts - sm->t0) / sm->w;

		s[i < SM_SLOTS ? i : SM_SLOTS - 1] += v;
		return;
	}
	while (ns) {
		uint64_t i = (ts - sm->t0) / sm->w, slot_end = sm->t0 + (i + 1) * sm->w;
		uint64_t part = slot_end - ts < ns ? slot_end - ts : ns;

		s[i < SM_SLOTS ? i : SM_SLOTS - 1] += part;
		ts += part;
		ns -= part;
	}
}

/* ---- tables ---- */

static struct sm_cpu *cpu_of(struct sm *sm, struct sm_input *in, int32_t cpu)
{
	if (cpu < 0 || cpu >= 65536)
		return NULL;
	if ((size_t)cpu >= in->ncpus) {
		if (kt_grow((void **)&in->cpus, &in->cap_cpus, (size_t)cpu + 1, sizeof(*in->cpus)))
			return NULL;
		memset(in->cpus + in->ncpus, 0, ((size_t)cpu + 1 - in->ncpus) * sizeof(*in->cpus));
		in->ncpus = (size_t)cpu + 1;
	}
	if (sm->series && !in->cpus[cpu].ser && !(in->cpus[cpu].ser = ser_new(sm, SMS_CPUS)))
		return NULL;
	return &in->cpus[cpu];
}

static struct sm_thread *thread_of(struct sm *sm, uint32_t input, int64_t tid, size_t *index)
{
	struct kt_thread *t = kt_threads_add(&sm->threads, input, tid);

	struct sm_thread *x;

	if (!t)
		return NULL;
	if (index)
		*index = kt_threads_index(&sm->threads, t);
	x = sm_thread_at(sm, kt_threads_index(&sm->threads, t));
	if (sm->series && !x->ser && !(x->ser = ser_new(sm, SMS_THREAD)))
		return NULL;
	return x;
}

/* The total of (input, name) of a kind; names are interned (or the stream's, which
 * are the same pointer for the same event of an input). */
struct named_key {
	const struct sm_named *v;
	uint32_t input;
	const char *system, *name;
};

static bool named_eq(const void *ctx, uint32_t i)
{
	const struct named_key *k = ctx;
	const struct sm_named *x = &k->v[i];

	return x->input == k->input && x->system == k->system && x->name == k->name;
}

/* The entry of (input, system, name) of a kind, added if new; NULL when out of memory.
 * The names are the same pointers for every record of an event (the stream's, or
 * interned): the pointers are the key, and the hash of them only finds the slot. */
static struct sm_named *named(struct sm *sm, enum sm_kind k, uint32_t input, const char *system,
			      const char *name)
{
	uint64_t h = kt_hash_mix((uint64_t)input << 32 ^ (uint64_t)(uintptr_t)system,
				 (uint64_t)(uintptr_t)name);
	struct named_key key = { sm->named[k], input, system, name };
	uint32_t i, ser = 0;

	if (kt_map_find(&sm->named_index[k], h, named_eq, &key, &i))
		return &sm->named[k][i];
	if (kt_grow((void **)&sm->named[k], &sm->cap_named[k], sm->nnamed[k] + 1, sizeof(**sm->named)) ||
	    (sm->series && !(ser = ser_new(sm, SMS_NAMED))) ||
	    kt_map_add(&sm->named_index[k], h, (uint32_t)sm->nnamed[k]))
		return NULL;
	sm->named[k][sm->nnamed[k]] = (struct sm_named){ input, system, name, 0, 0, ser };
	return &sm->named[k][sm->nnamed[k]++];
}

/* The part of [ts, ts + dur) inside the window. */
static uint64_t clip(const struct sm *sm, uint64_t ts, uint64_t dur)
{
	uint64_t a = ts, b = ts + dur;

	if (b < a)
		b = UINT64_MAX;
	if (a < sm->lo)
		a = sm->lo;
	if (b > sm->hi)
		b = sm->hi;
	return b > a ? b - a : 0;
}

/* ---- the model's intervals ---- */

static int on_state(void *ctx, const struct kt_model_state *m, struct ktrace_error *err)
{
	struct sm *sm = ctx;
	struct sm_input *in = &sm->in[m->input];
	struct sm_thread *t;
	uint64_t ns, start;

	/* (still open at the end: until the input's end, model.md "Time in a state") */
	ns = clip(sm, m->ts, kt_model_state_ns(sm->model, m));
	start = m->ts > sm->lo ? m->ts : sm->lo;
	if (!strcmp(m->state, "Running")) {
		struct sm_cpu *c = cpu_of(sm, in, m->cpu);

		if (!c)
			return m->cpu < 0 || m->cpu >= 65536 ? 0 : kt_error_oom(err);
		if (m->tid == 0) {
			c->idle_ns += ns;
			return 0;
		}
		c->busy_ns += ns;
		if (!(t = thread_of(sm, m->input, m->tid, NULL)))
			return kt_error_oom(err);
		t->cpu_ns += ns;
		if (sm->series && ns) {
			ser_add(sm, c->ser, SMS_BUSY, start, ns, 0, false);
			ser_add(sm, t->ser, SMS_CPU, start, ns, 0, false);
		}
		t->slices += ns > 0 || (m->ts >= sm->lo && m->ts < sm->hi);
		return 0;
	}
	if (!(t = thread_of(sm, m->input, m->tid, NULL)))
		return kt_error_oom(err);
	if (m->state[0] == 'R') {
		t->runnable_ns += ns;
		if (sm->series && ns)
			ser_add(sm, t->ser, SMS_RUNNABLE, start, ns, 0, false);
	} else if (!strcmp(m->state, "S")) {
		t->sleeping_ns += ns;
		if (sm->series && ns)
			ser_add(sm, t->ser, SMS_SLEEPING, start, ns, 0, false);
	} else if (!strcmp(m->state, "D")) {
		t->blocked_ns += ns;
		if (sm->series && ns)
			ser_add(sm, t->ser, SMS_BLOCKED, start, ns, 0, false);
	}
	return 0;
}

static int on_latency(void *ctx, const struct kt_model_latency *l, struct ktrace_error *err)
{
	struct sm *sm = ctx;
	struct sm_thread *t;
	uint32_t count = 0;
	size_t i;

	if (l->ts < sm->lo || l->ts >= sm->hi || l->dur < 0)
		return 0;
	if (!(t = thread_of(sm, l->input, l->tid, &i)))
		return kt_error_oom(err);
	t->lat_n++;
	if (sm->series)
		ser_add(sm, t->ser, SMS_WAKEUPS, l->ts, 0, 1, true);
	if ((uint64_t)l->dur > t->lat_max)
		t->lat_max = (uint64_t)l->dur;
	kt_map_get(&sm->hist, i, sm_bucket_of((uint64_t)l->dur), &count);
	if (count == UINT32_MAX || kt_map_put(&sm->hist, i, sm_bucket_of((uint64_t)l->dur), count + 1))
		return count == UINT32_MAX ? 0 : kt_error_oom(err);
	return 0;
}

static int on_kslice(void *ctx, const struct kt_model_kslice *k, struct ktrace_error *err)
{
	struct sm *sm = ctx;
	struct sm_input *in = &sm->in[k->input];
	enum sm_kind kind = k->category[0] == 'i' ? SM_IRQ : k->category[0] == 's' &&
			    k->category[1] == 'o' ? SM_SOFTIRQ : SM_SYSCALL;
	uint64_t ns;
	struct sm_named *n;
	const char *name;

	if (k->dur < 0 || k->ts < sm->lo || k->ts >= sm->hi)
		return 0;
	ns = clip(sm, k->ts, (uint64_t)k->dur);
	/* (the model's names live as long as it does: copy them for the end) */
	name = kt_intern(&sm->strings, k->name, strlen(k->name));
	if (!name || !(n = named(sm, kind, k->input, NULL, name)))
		return kt_error_oom(err);
	n->n++;
	n->ns += ns;
	if (sm->series) {
		ser_add(sm, n->ser, SMS_N, k->ts, 0, 1, true);
		if (ns)
			ser_add(sm, n->ser, SMS_NS, k->ts, ns, 0, false);
	}
	if (kind == SM_SYSCALL) {
		struct sm_thread *t = k->tid >= 0 ? thread_of(sm, k->input, k->tid, NULL) : NULL;

		if (k->tid >= 0 && !t)
			return kt_error_oom(err);
		if (t) {
			t->sys_n++;
			t->sys_ns += ns;
			if (sm->series) {
				ser_add(sm, t->ser, SMS_SYS_N, k->ts, 0, 1, true);
				if (ns)
					ser_add(sm, t->ser, SMS_SYS_NS, k->ts, ns, 0, false);
			}
		}
		return 0;
	}
	{
		struct sm_cpu *c = cpu_of(sm, in, k->cpu);

		if (!c)
			return k->cpu < 0 || k->cpu >= 65536 ? 0 : kt_error_oom(err);
		if (kind == SM_IRQ) {
			c->irq_ns += ns;
			c->irq_n++;
		} else {
			c->softirq_ns += ns;
			c->softirq_n++;
		}
		if (sm->series && ns)
			ser_add(sm, c->ser, kind == SM_IRQ ? SMS_IRQ : SMS_SOFTIRQ, k->ts, ns, 0, false);
	}
	return 0;
}

/* ---- records ---- */

static int record(struct sm *sm, const struct ktrace_stream_record *r)
{
	struct sm_input *in = &sm->in[r->source];
	struct sm_cpu *c = cpu_of(sm, in, r->cpu);

	if (c && !c->seen) {
		c->seen = true;
		c->first_ts = r->ts;
	}
	if (!in->any || r->ts < in->first_ts)
		in->first_ts = r->ts;
	if (!in->any || r->ts > in->last_ts)
		in->last_ts = r->ts;
	in->any = true;
	if (r->ts < sm->lo || r->ts >= sm->hi)
		return 0;
	if (r->kind == KTRACE_STREAM_LOST) {
		in->lost_marks++;
		in->lost += r->lost;
		if (sm->series)
			ser_add(sm, in->ser, 0, r->ts, 0, r->lost, true);
		return 0;
	}
	in->events++;
	/* (the same thread under the same name as the CPU's record before: known; a
	 * source whose names live as long as the stream hands out the same pointer) */
	if (r->tid >= 0 && r->comm && *r->comm &&
	    !(c && c->last_tid == r->tid && c->last_comm == r->comm)) {
		struct kt_thread *t = kt_threads_add(&sm->threads, r->source, r->tid);

		if (!t)
			return -ENOMEM;
		if (r->pid >= 0)
			t->pid = r->pid;
		if ((!t->name || strcmp(t->name, r->comm)) &&
		    kt_thread_set_name(&sm->threads, t, r->comm, strlen(r->comm)) < 0)
			return -ENOMEM;
		if (c) {
			c->last_tid = r->tid;
			c->last_comm = r->comm;
		}
	}
	{
		struct sm_named *n;

		/* (an input's records of one event have the same name pointers; a source
		 * whose ids do not tell the events apart gives another name: hashed) */
		uint32_t k = r->event_id < SM_BY_ID && in->by_id ? in->by_id[r->event_id] : 0;

		if (k && sm->named[SM_EVENT][k - 1].name == r->name &&
		    sm->named[SM_EVENT][k - 1].system == r->system) {
			n = &sm->named[SM_EVENT][k - 1];
		} else if (c && c->last_named && c->last_name == r->name && c->last_system == r->system) {
			n = &sm->named[SM_EVENT][c->last_named - 1];
		} else {
			n = named(sm, SM_EVENT, r->source, r->system, r->name);
			if (!n)
				return -ENOMEM;
			if (c) {
				c->last_name = r->name;
				c->last_system = r->system;
				c->last_named = (size_t)(n - sm->named[SM_EVENT]) + 1;
			}
			if (r->event_id < SM_BY_ID && !k) {
				if (!in->by_id && !(in->by_id = calloc(SM_BY_ID, sizeof(*in->by_id))))
					return -ENOMEM;
				in->by_id[r->event_id] = (uint32_t)(n - sm->named[SM_EVENT]) + 1;
			}
		}
		n->n++;
		if (sm->series)
			ser_add(sm, n->ser, SMS_N, r->ts, 0, 1, true);
	}
	return 0;
}

/* Per thread, its latency quantiles (nearest rank) from its histogram. */
static int entry_order(const void *a, const void *b)
{
	const struct sm_hist_entry *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->bucket < y->bucket ? -1 : x->bucket > y->bucket;
}

uint64_t sm_quantile(const struct sm_hist_entry *e, size_t n, uint64_t count, unsigned pct,
			    uint64_t max)
{
	uint64_t rank = (count * pct + 99) / 100, seen = 0, v = max;

	if (!rank)
		rank = 1;
	for (size_t i = 0; i < n; i++) {
		seen += e[i].count;
		if (seen >= rank) {
			v = sm_bucket_value(e[i].bucket);
			break;
		}
	}
	return v < max ? v : max;
}

int sm_hist_entries(const struct kt_map *hist, struct sm_hist_entry **out, size_t *n)
{
	struct sm_hist_entry *e;

	*out = NULL;
	*n = 0;
	if (!hist->n)
		return 0;
	e = kt_realloc_array(NULL, hist->n, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < hist->cap; i++)
		if (hist->slots[i].used)
			e[(*n)++] = (struct sm_hist_entry){ (uint32_t)hist->slots[i].a, hist->slots[i].b,
							 hist->slots[i].val };
	if (*n > 1)
		qsort(e, *n, sizeof(*e), entry_order);
	*out = e;
	return 0;
}

static int quantiles(struct sm *sm)
{
	struct sm_hist_entry *e;
	size_t n;

	if (sm_hist_entries(&sm->hist, &e, &n))
		return -ENOMEM;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		struct sm_thread *t = sm_thread_at(sm, e[i].thread);

		while (j < n && e[j].thread == e[i].thread)
			j++;
		t->p50 = sm_quantile(e + i, j - i, t->lat_n, 50, t->lat_max);
		t->p90 = sm_quantile(e + i, j - i, t->lat_n, 90, t->lat_max);
		t->p99 = sm_quantile(e + i, j - i, t->lat_n, 99, t->lat_max);
		t->hist_off = i;
		t->hist_n = j - i;
		i = j;
	}
	sm->hist_e = e;
	sm->nhist_e = n;
	return 0;
}

/* Each CPU's missing data inside its input's span: before its first record, and its
 * gaps. */
static void gaps(struct sm *sm)
{
	for (uint32_t i = 0; i < sm->nin; i++) {
		struct sm_input *in = &sm->in[i];
		size_t n;
		const struct kt_model_gap *g = kt_model_gaps(sm->model, i, &n);

		for (size_t k = 0; k < in->ncpus; k++) {
			struct sm_cpu *c = &in->cpus[k];

			if (c->seen && c->first_ts > in->first_ts)
				c->gap_ns = clip(sm, in->first_ts, c->first_ts - in->first_ts);
		}
		for (size_t k = 0; k < n; k++) {
			struct sm_cpu *c = (size_t)g[k].cpu < in->ncpus ? &in->cpus[g[k].cpu] : NULL;
			uint64_t to = g[k].to > in->last_ts ? in->last_ts : g[k].to;

			if (c && to > g[k].from)
				c->gap_ns += clip(sm, g[k].from, to - g[k].from);
		}
	}
}

static bool has_named(const struct sm *sm, uint32_t input, enum sm_kind k)
{
	for (size_t i = 0; i < sm->nnamed[k]; i++)
		if (sm->named[k][i].input == input)
			return true;
	return false;
}

unsigned sm_lacks(const struct sm *sm, uint32_t input)
{
	uint64_t switches, wakeups;
	unsigned lacks = 0;

	kt_model_counts(sm->model, input, &switches, &wakeups);
	if (!switches)
		lacks |= SM_LACKS_SWITCH | SM_LACKS_WAKEUP;
	if (!wakeups)
		lacks |= SM_LACKS_WAKEUP;
	if (!has_named(sm, input, SM_IRQ))
		lacks |= SM_LACKS_IRQ;
	if (!has_named(sm, input, SM_SOFTIRQ))
		lacks |= SM_LACKS_SOFTIRQ;
	if (!has_named(sm, input, SM_SYSCALL))
		lacks |= SM_LACKS_SYSCALL;
	return lacks;
}

const char *sm_lacks_why(unsigned bit)
{
	switch (bit) {
	case SM_LACKS_SWITCH:
		return "CPU time, thread states and wakeup latencies: no context switch recorded "
		       "(sched_switch, MACH_SCHED)";
	case SM_LACKS_WAKEUP:
		return "wakeup latencies: no wakeup recorded (sched_waking, sched_wakeup, "
		       "MACH_MAKE_RUNNABLE)";
	case SM_LACKS_IRQ:
		return "IRQ time: no irq_handler_entry/exit pair recorded";
	case SM_LACKS_SOFTIRQ:
		return "softirq time: no softirq_entry/exit pair recorded";
	case SM_LACKS_SYSCALL:
		return "syscalls: no sys_enter/sys_exit pair recorded";
	}
	return "";
}

void sm_free(struct sm *sm)
{
	if (!sm)
		return;
	kt_model_free(sm->model);
	free(sm->hist_e);
	free(sm->ser);
	for (size_t i = 0; sm->in && i < sm->nin; i++) {
		free(sm->in[i].cpus);
		free(sm->in[i].by_id);
	}
	free(sm->in);
	kt_threads_free(&sm->threads);
	kt_strtab_free(&sm->strings);
	for (int k = 0; k < SM_KINDS; k++) {
		kt_map_free(&sm->named_index[k]);
		free(sm->named[k]);
	}
	kt_map_free(&sm->hist);
	free(sm);
}

int sm_gather(struct sm **out, struct ktrace_stream *s, const struct ktrace_view_summary_opts *o,
	      bool series, bool from_complete, struct ktrace_error *err)
{
	const struct kt_model_ops ops = { .state = on_state, .latency = on_latency,
					  .kslice = on_kslice };
	struct kt_model_ops mo = ops;
	const struct ktrace_stream_record *r;
	struct sm *sm = calloc(1, sizeof(*sm));
	int ret, sret = 0;

	*out = NULL;
	if (!sm)
		return kt_error_oom(err);
	ret = KT_OPTS_COPY(&sm->o, o, "ktrace_view_summary_opts", err);
	if (ret) {
		free(sm);
		return ret;
	}
	*out = sm;
	if (!sm->o.top)
		sm->o.top = 10;
	sm->lo = sm->o.has_from ? sm->o.from : 0;
	sm->hi = sm->o.has_to ? sm->o.to : UINT64_MAX;
	sm->series = series;
	sm->from_complete = from_complete;
	sm->w = 1024;
	sm->s = s;
	sm->nin = ktrace_stream_source_count(s);
	sm->in = calloc(sm->nin ? sm->nin : 1, sizeof(*sm->in));
	kt_threads_init(&sm->threads, KT_THREADS_PER_SOURCE, 0, sizeof(struct sm_thread));
	if (!sm->in || kt_threads_load(&sm->threads, s))
		return kt_error_oom(err);
	for (size_t i = 0; i < sm->nin; i++) {
		sm->in[i].src = ktrace_stream_source(s, i);
		if (series && !(sm->in[i].ser = ser_new(sm, 1)))
			return kt_error_oom(err);
	}
	mo.ctx = sm;
	ret = kt_model_open_stream(&sm->model, s, &mo, err);
	if (ret)
		return ret;
	/* (the summary reads no field itself: the model's events only) */
	kt_stream_fields_only(s, kt_model_reads_fields, sm->model);
	if (from_complete && sm->nin)
		sm->lo = kt_model_complete_from(sm->model, 0);
	sm->t0 = sm->lo;
	while ((sret = ktrace_stream_next(s, &r, err)) > 0) {
		if (r->source >= sm->nin)
			continue;
		ret = record(sm, r) ? kt_error_oom(err) : 0;
		if (!ret)
			ret = kt_model_record(sm->model, s, r, err);
		if (ret)
			return ret;
	}
	{
		struct ktrace_error ferr;

		ret = kt_model_finish(sm->model, &ferr);
		if (ret) {
			*err = ferr;
			return ret;
		}
	}
	if (quantiles(sm))
		return kt_error_oom(err);
	gaps(sm);
	sm->gathered = true;
	/* a damaged input: what could be read, then its error */
	return sret < 0 ? sret : 0;
}

int ktrace_view_summary(struct ktrace_stream *s, const struct ktrace_view_summary_opts *o,
			struct ktrace_out *out, struct ktrace_error *err)
{
	struct sm *sm;
	int ret = sm_gather(&sm, s, o, false, false, err);

	/* a damaged input: the summary of what could be read, then its error */
	if (sm && sm->gathered) {
		int pret = sm_print(sm, out);

		if (pret == -ENOMEM)
			ret = kt_error_oom(err);
		else if (pret)
			ret = ktrace_error_set(err, pret, "writing the summary");
	}
	sm_free(sm);
	return ret;
}
