// SPDX-License-Identifier: MIT
/*
 * The model of what the system did (engine_model.h, docs/model.md): per CPU the thread
 * running there, per thread its state, cut by missing data; the rules are numbered as
 * in docs/model.md.
 */
#include <errno.h>
#include <libaudit.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/darwin.h>

#include "common/check.h"
#include "common/grow.h"
#include "engine/engine_model_int.h"
#include "engine/engine_stream_int.h"

/* Darwin debugids (class MACH, subclass DBG_MACH_SCHED; code << 2; func bits off). */
#define DW_MACH_SCHED          0x01400000u
#define DW_MACH_STACK_HANDOFF  0x01400008u
#define DW_MACH_MAKE_RUNNABLE  0x01400018u

/* ---- the inputs' CPUs and threads ---- */

struct kt_mcpu *kt_model_cpu(struct kt_minput *in, int32_t cpu)
{
	if (cpu < 0 || cpu >= KT_MODEL_MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= in->ncpus) {
		if (kt_grow((void **)&in->cpus, &in->cap_cpus, (size_t)cpu + 1, sizeof(*in->cpus)))
			return NULL;
		for (size_t i = in->ncpus; i <= (size_t)cpu; i++)
			in->cpus[i] = (struct kt_mcpu){ .cur = -1, .tail = -1 };
		in->ncpus = (size_t)cpu + 1;
	}
	return &in->cpus[cpu];
}

int kt_model_thread(struct kt_model *m, uint32_t input, int64_t tid, uint32_t *th)
{
	size_t before = m->threads.n;
	struct kt_thread *t = kt_threads_add(&m->threads, input, tid);

	if (!t)
		return -ENOMEM;
	*th = (uint32_t)kt_threads_index(&m->threads, t);
	if (m->threads.n != before) {
		struct kt_mthread *x = kt_mthread_at(m, *th);

		x->on_cpu = x->cpu = -1;
		x->waker = -1;
	}
	return 0;
}

int kt_model_activate(struct kt_model *m, struct kt_minput *in, uint32_t th, bool sys)
{
	struct kt_mthread *t = kt_mthread_at(m, th);

	if (sys ? t->in_sys_active : t->in_active)
		return 0;
	if (sys) {
		if (kt_grow((void **)&in->sys_active, &in->cap_sys_active, in->nsys_active + 1,
			    sizeof(*in->sys_active)))
			return -ENOMEM;
		in->sys_active[in->nsys_active++] = th;
		t->in_sys_active = true;
		return 0;
	}
	if (kt_grow((void **)&in->active, &in->cap_active, in->nactive + 1, sizeof(*in->active)))
		return -ENOMEM;
	in->active[in->nactive++] = th;
	t->in_active = true;
	return 0;
}

/* An interrupt's record: in the context of the thread it interrupted. */
static bool interrupt(uint8_t c)
{
	return c == KT_MC_IRQ_ENTRY || c == KT_MC_IRQ_EXIT || c == KT_MC_SOFTIRQ_ENTRY ||
	       c == KT_MC_SOFTIRQ_EXIT || c == KT_MC_TICK;
}

unsigned kt_model_kind(enum kt_mclass c)
{
	switch (c) {
	case KT_MC_IRQ_ENTRY:
	case KT_MC_IRQ_EXIT:
		return KT_MK_IRQ;
	case KT_MC_SOFTIRQ_ENTRY:
	case KT_MC_SOFTIRQ_EXIT:
		return KT_MK_SOFTIRQ;
	case KT_MC_SYS_ENTER:
	case KT_MC_SYS_EXIT:
	case KT_MC_SYSCALL_ENTER:
	case KT_MC_SYSCALL_EXIT:
		return KT_MK_SYSCALL;
	default:
		return 0;
	}
}

/* ---- handing intervals out ---- */

static int emit(struct kt_model *m, const struct kt_model_state *s, struct ktrace_error *err)
{
	return m->ops.state ? m->ops.state(m->ops.ctx, s, err) : 0;
}

/*
 * Thread th (tid of input) enters state at ts (cpu, waker; woken: R after a wakeup,
 * known). Its interval before ends at ts (left out when empty; Running intervals end in
 * stop_running, not here); unknown after unknown is one interval.
 */
static int set_state(struct kt_model *m, uint32_t input, uint32_t th, const char *state,
		     uint64_t ts, int32_t cpu, int64_t waker, bool woken, struct ktrace_error *err)
{
	struct kt_mthread *t = kt_mthread_at(m, th);
	int ret = 0;

	if (t->state == m->unknown && state == m->unknown)
		return 0;
	if (t->state && t->state != m->running && ts > t->since) {
		struct kt_model_state s = {
			.input = input, .tid = m->threads.v[th].id, .thread = th, .ts = t->since,
			.dur = (int64_t)(ts - t->since), .cpu = t->cpu, .state = t->state,
			.waker_tid = t->woken ? t->waker : -1,
		};

		ret = emit(m, &s, err);
	}
	t = kt_mthread_at(m, th);
	t->state = state;
	t->since = ts;
	t->cpu = state == m->unknown ? -1 : cpu;
	t->waker = waker;
	t->woken = woken;
	if (!ret && state != m->running && state != m->unknown)
		ret = kt_model_activate(m, &m->in[input], th, false) ? kt_error_oom(err) : 0;
	return ret;
}

/*
 * The thread running on CPU c (of input) stops at end: its Running interval (and CPU
 * slice) ends there with end_state (NULL: unknown), and it enters then (a thread other
 * than the idle one) the state given. Running intervals of length 0 that evidence
 * began are left out.
 */
static int stop_running(struct kt_model *m, uint32_t input, int32_t cpu, struct kt_mcpu *c,
			uint64_t end, const char *end_state, const char *then,
			struct ktrace_error *err)
{
	int64_t tid = c->cur;
	uint32_t th = c->cur_th;
	int ret = 0;

	c->tail = -1;        /* (a switch sets it again after this) */
	if (tid < 0)
		return 0;
	c->cur = -1;
	if (end < c->since)
		end = c->since;
	if (end > c->since || c->from_switch) {
		struct kt_model_state s = {
			.input = input, .tid = tid, .thread = th, .ts = c->since,
			.dur = (int64_t)(end - c->since),
			.cpu = cpu, .state = m->running, .waker_tid = -1, .end_state = end_state,
			.priority = c->prio, .has_priority = c->has_prio,
		};

		ret = emit(m, &s, err);
	}
	if (tid == 0 || ret)
		return ret;
	kt_mthread_at(m, th)->on_cpu = -1;
	kt_mthread_at(m, th)->state = NULL;     /* the Running interval is out */
	return set_state(m, input, th, then, end, cpu, -1, false, err);
}

/* Thread th (tid) runs on CPU c from ts (from_switch: a switch-in). */
static int start_running(struct kt_model *m, uint32_t input, int32_t cpu, struct kt_mcpu *c,
			 uint32_t th, int64_t tid, uint64_t ts, bool from_switch, bool has_prio,
			 int32_t prio, struct ktrace_error *err)
{
	int ret = 0;

	if (tid != 0) {
		ret = set_state(m, input, th, m->running, ts, cpu, -1, false, err);
		kt_mthread_at(m, th)->on_cpu = cpu;
	}
	c->cur = tid;
	c->cur_th = th;
	c->since = c->last = ts;
	c->from_switch = from_switch;
	c->has_prio = has_prio;
	c->prio = prio;
	return ret;
}

/* Thread th, about to run on CPU cpu: a CPU it was believed running on loses it (its
 * switch-out was not recorded). */
static int leave_other_cpu(struct kt_model *m, uint32_t input, uint32_t th, int32_t cpu,
			   struct ktrace_error *err)
{
	struct kt_minput *in = &m->in[input];
	int32_t other = kt_mthread_at(m, th)->on_cpu;

	if (other < 0 || other == cpu || (size_t)other >= in->ncpus)
		return 0;
	return stop_running(m, input, other, &in->cpus[other], in->cpus[other].last, NULL,
			    m->unknown, err);
}

/* Rule 3: a record of tid on CPU cpu at ts (past_tail: one that shows tid running even
 * right after a switch of it out: a second switch of it out, an interrupt over it). */
static int evidence(struct kt_model *m, uint32_t input, int32_t cpu, int64_t tid, uint64_t ts,
		    bool past_tail, struct ktrace_error *err)
{
	struct kt_minput *in = &m->in[input];
	struct kt_mcpu *c = kt_model_cpu(in, cpu);
	uint32_t th;
	int ret;

	if (!c)
		return cpu < 0 || cpu >= KT_MODEL_MAX_CPUS ? 0 : kt_error_oom(err);
	if (c->cur == tid) {
		c->last = ts;
		c->tail = -1;
		return 0;
	}
	/* records of the thread a switch just took off, right after it: the switch's own
	 * (its stack trace, work done on the way out) */
	if (c->tail == tid && !past_tail)
		return 0;
	c->tail = -1;
	ret = stop_running(m, input, cpu, c, c->last, NULL, m->unknown, err);
	if (ret)
		return ret;
	if (kt_model_thread(m, input, tid, &th))
		return kt_error_oom(err);
	if (tid != 0) {
		struct kt_mthread *t;

		ret = leave_other_cpu(m, input, th, cpu, err);
		if (ret)
			return ret;
		/* when its state changed is not known */
		t = kt_mthread_at(m, th);
		if (t->state && t->state != m->running) {
			t->state = m->unknown;
			t->cpu = -1;
			t->woken = false;
		}
	}
	return start_running(m, input, cpu, kt_model_cpu(in, cpu), th, tid, ts, false, false, 0,
			     err);
}

/* The state a switched-out thread enters: as prev_state prints. */
static const char *switch_out_state(struct kt_model *m, struct kt_minput *in,
				    struct ktrace_stream *s, const struct ktrace_stream_sched *sc)
{
	uint64_t v = (uint64_t)sc->prev_state;
	size_t slot = v % 8;
	char text[32];

	if (in->darwin)
		return kt_intern(&m->names, sc->prev_state ? "S" : "R+", sc->prev_state ? 1 : 2);
	{
		/* (read-ahead or not: the record's own event format) */
		struct kt_ftrace_raw raw;
		const struct ktrace_event *ev = kt_stream_ftrace_raw(s, &raw) ? NULL : raw.ev;

		if (ev && (const void *)ev != in->switch_ev) {
			kt_prev_state_free(in->states);
			in->states = kt_prev_state_parse(ktrace_event_print_args(ev));
			in->switch_ev = ev;
			memset(in->state_name, 0, sizeof(in->state_name));
		}
	}
	if (in->state_name[slot] && in->state_key[slot] == v)
		return in->state_name[slot];
	kt_prev_state_text(in->states, v, text, sizeof(text));
	in->state_key[slot] = v;
	in->state_name[slot] = kt_intern(&m->names, text, strlen(text));
	return in->state_name[slot];
}

/* Rule 1. */
static int switch_threads(struct kt_model *m, struct ktrace_stream *s,
			  const struct ktrace_stream_record *r, struct ktrace_error *err)
{
	struct kt_minput *in = &m->in[r->source];
	struct ktrace_stream_sched sc;
	const char *out_state, *then;
	struct kt_mcpu *c;
	struct kt_mthread *nt;
	uint32_t th;
	int ret;

	if (kt_stream_sched_numbers(s, &sc) != 1 || sc.kind != KTRACE_STREAM_SCHED_SWITCH)
		return 0;
	in->switches++;
	if (sc.prev_tid >= 0 && (ret = evidence(m, r->source, r->cpu, sc.prev_tid, r->ts, true, err)))
		return ret;
	c = kt_model_cpu(in, r->cpu);
	if (!c)
		return r->cpu < 0 || r->cpu >= KT_MODEL_MAX_CPUS ? 0 : kt_error_oom(err);
	out_state = switch_out_state(m, in, s, &sc);
	if (!out_state)
		return kt_error_oom(err);
	then = kt_model_all_complete(in, r->ts) ? out_state : m->unknown;
	ret = stop_running(m, r->source, r->cpu, c, r->ts, out_state, then, err);
	c->tail = sc.prev_tid;
	if (ret || sc.next_tid < 0)
		return ret;
	if (kt_model_thread(m, r->source, sc.next_tid, &th))
		return kt_error_oom(err);
	if (sc.next_tid != 0) {
		ret = leave_other_cpu(m, r->source, th, r->cpu, err);
		if (ret)
			return ret;
		nt = kt_mthread_at(m, th);
		/* (a time that went back, in damaged data, is no latency) */
		if (nt->woken && nt->state == m->runnable && r->ts >= nt->since && m->ops.latency) {
			struct kt_model_latency l = {
				.input = r->source, .tid = sc.next_tid, .thread = th, .ts = nt->since,
				.dur = (int64_t)(r->ts - nt->since), .cpu = r->cpu,
				.waker_tid = nt->waker,
			};

			ret = m->ops.latency(m->ops.ctx, &l, err);
			if (ret)
				return ret;
		}
	}
	return start_running(m, r->source, r->cpu, kt_model_cpu(in, r->cpu), th, sc.next_tid,
			     r->ts, true, true, sc.next_prio, err);
}

/* Rule 2. */
static int wakeup(struct kt_model *m, struct ktrace_stream *s,
		  const struct ktrace_stream_record *r, struct ktrace_error *err)
{
	struct kt_minput *in = &m->in[r->source];
	struct ktrace_stream_sched sc;
	const struct kt_mthread *t;
	bool known;
	uint32_t th;

	if (kt_stream_sched_numbers(s, &sc) != 1 || sc.kind != KTRACE_STREAM_SCHED_WAKEUP)
		return 0;
	in->wakeups++;
	if (sc.next_tid <= 0)
		return 0;
	if (kt_model_thread(m, r->source, sc.next_tid, &th))
		return kt_error_oom(err);
	t = kt_mthread_at(m, th);
	/* running (Running) or runnable (R, R+) already */
	if (t->state && t->state != m->unknown && t->state[0] == 'R')
		return 0;
	if (t->on_cpu >= 0)
		return 0;
	known = kt_model_all_complete(in, r->ts);
	return set_state(m, r->source, th, known ? m->runnable : m->unknown, r->ts, sc.target_cpu,
			 r->tid, known, err);
}

/* Rule 4: the gap (from, to) of a CPU of buffer in begins. */
static int gap(struct kt_model *m, struct kt_minput *in, const struct kt_model_gap *g,
	       struct ktrace_error *err)
{
	int ret = 0;

	if ((size_t)g->cpu < in->ncpus) {
		struct kt_mcpu *c = &in->cpus[g->cpu];

		if (!in->side)
			ret = stop_running(m, in->input, g->cpu, c, g->from, NULL, m->unknown, err);
		c->irq_open = c->softirq_open = false;
	}
	if (g->to > in->incomplete_until)
		in->incomplete_until = g->to;
	/* syscalls read from this buffer end unseen (a thread may sleep in one and move) */
	for (size_t i = 0; i < in->nsys_active; i++) {
		struct kt_mthread *t = kt_mthread_at(m, in->sys_active[i]);

		t->in_sys_active = false;
		t->sys_open = false;
	}
	in->nsys_active = 0;
	/* every state but Running involves every CPU */
	for (size_t i = 0; i < in->nactive && !ret; i++) {
		uint32_t th = in->active[i];
		struct kt_mthread *t = kt_mthread_at(m, th);

		t->in_active = false;
		if (t->state && t->state != m->running && t->state != m->unknown)
			ret = set_state(m, in->input, th, m->unknown, g->from, -1, -1, false, err);
	}
	/* (set_state put none back: unknown is not on the list) */
	in->nactive = 0;
	return ret;
}

static int gaps_before(struct kt_model *m, struct kt_minput *in, uint64_t ts, struct ktrace_error *err)
{
	int ret = 0;

	while (!ret && in->next_gap < in->ngaps && in->gaps[in->next_gap].from < ts)
		ret = gap(m, in, &in->gaps[in->next_gap++], err);
	return ret;
}

/* The side buffer of (input, buffer), or NULL. */
static struct kt_minput *side_of(struct kt_model *m, uint32_t input, uint32_t buffer)
{
	for (size_t i = 0; i < m->nsides; i++)
		if (m->sides[i].input == input && m->sides[i].buffer == buffer)
			return &m->sides[i];
	return NULL;
}

/* ---- records ---- */

enum kt_mclass kt_model_ftrace_class(const char *system, const char *name)
{
	if (!system || !name)
		return KT_MC_OTHER;
	if (!strcmp(system, "sched")) {
		if (!strcmp(name, "sched_switch"))
			return KT_MC_SWITCH;
		if (!strcmp(name, "sched_waking") || !strcmp(name, "sched_wakeup") ||
		    !strcmp(name, "sched_wakeup_new"))
			return KT_MC_WAKEUP;
	} else if (!strcmp(system, "irq")) {
		if (!strcmp(name, "irq_handler_entry"))
			return KT_MC_IRQ_ENTRY;
		if (!strcmp(name, "irq_handler_exit"))
			return KT_MC_IRQ_EXIT;
		if (!strcmp(name, "softirq_entry"))
			return KT_MC_SOFTIRQ_ENTRY;
		if (!strcmp(name, "softirq_exit"))
			return KT_MC_SOFTIRQ_EXIT;
	} else if (!strcmp(system, "timer")) {
		if (!strcmp(name, "hrtimer_expire_entry") || !strcmp(name, "hrtimer_expire_exit"))
			return KT_MC_TICK;
	} else if (!strcmp(system, "raw_syscalls")) {
		if (!strcmp(name, "sys_enter"))
			return KT_MC_SYS_ENTER;
		if (!strcmp(name, "sys_exit"))
			return KT_MC_SYS_EXIT;
	} else if (!strcmp(system, "syscalls")) {
		if (!strncmp(name, "sys_enter_", 10) && name[10])
			return KT_MC_SYSCALL_ENTER;
		if (!strncmp(name, "sys_exit_", 9) && name[9])
			return KT_MC_SYSCALL_EXIT;
	}
	return KT_MC_OTHER;
}

bool kt_model_reads_fields(void *arg, const struct ktrace_stream_record *r)
{
	const struct kt_model *m = arg;
	enum kt_mclass c;

	if (r->source >= m->nin || m->in[r->source].darwin)
		return true;
	c = kt_model_ftrace_class(r->system, r->name);
	return c != KT_MC_OTHER && c != KT_MC_TICK;
}

static int field_index(struct ktrace_stream *s, const char *name)
{
	size_t n = ktrace_stream_field_count(s);
	struct ktrace_event_value v;

	for (size_t i = 0; i < n && i < INT16_MAX; i++)
		if (!ktrace_stream_field(s, i, &v) && v.name && !strcmp(v.name, name))
			return (int)i;
	return -1;
}

static const struct kt_mclass_info *classify(struct kt_model *m, struct ktrace_stream *s,
					     const struct ktrace_stream_record *r, int *ret)
{
	struct kt_mclass_info c = { .f_a = -1, .f_b = -1 };
	struct kt_mclass_slot *slot = &m->class_cache[(r->event_id ^ r->source * 7) % KT_MODEL_CLASS_CACHE];
	uint32_t i;

	if (slot->index && slot->source == r->source && slot->event_id == r->event_id)
		return &m->classes[slot->index - 1];
	if (kt_map_get(&m->class_index, r->source, r->event_id, &i)) {
		*slot = (struct kt_mclass_slot){ r->source, r->event_id, i + 1 };
		return &m->classes[i];
	}
	if (m->in[r->source].darwin) {
		uint32_t id = r->event_id & ~3u;

		if (id == DW_MACH_SCHED || id == DW_MACH_STACK_HANDOFF)
			c.cls = KT_MC_SWITCH;
		else if (id == DW_MACH_MAKE_RUNNABLE)
			c.cls = KT_MC_WAKEUP;
	} else {
		c.cls = (uint8_t)kt_model_ftrace_class(r->system, r->name);
	}
	switch (c.cls) {
	case KT_MC_IRQ_ENTRY:
		c.f_b = (int16_t)field_index(s, "name");
		/* fall through */
	case KT_MC_IRQ_EXIT:
		c.f_a = (int16_t)field_index(s, "irq");
		break;
	case KT_MC_SOFTIRQ_ENTRY:
	case KT_MC_SOFTIRQ_EXIT:
		c.f_a = (int16_t)field_index(s, "vec");
		break;
	case KT_MC_SYS_ENTER:
	case KT_MC_SYS_EXIT:
		c.f_a = (int16_t)field_index(s, "id");
		break;
	case KT_MC_SYSCALL_ENTER:
	case KT_MC_SYSCALL_EXIT: {
		const char *n = r->name + (c.cls == KT_MC_SYSCALL_ENTER ? 10 : 9);

		c.name = kt_intern(&m->names, n, strlen(n));
		if (!c.name)
			goto oom;
		break;
	}
	default:
		break;
	}
	if (kt_grow((void **)&m->classes, &m->cap_classes, m->nclasses + 1, sizeof(*m->classes)) ||
	    kt_map_put(&m->class_index, r->source, r->event_id, (uint32_t)m->nclasses))
		goto oom;
	m->classes[m->nclasses] = c;
	return &m->classes[m->nclasses++];
oom:
	*ret = -ENOMEM;
	return NULL;
}

int kt_model_record(struct kt_model *m, struct ktrace_stream *s,
		    const struct ktrace_stream_record *r, struct ktrace_error *err)
{
	const struct kt_mclass_info *c;
	struct kt_minput *in;
	int ret = 0;

	if (r->kind == KTRACE_STREAM_LOST && m->live && r->source < m->nin && r->cpu >= 0 &&
	    (size_t)r->cpu < m->in[r->source].ncpus) {
		/* live: the CPU's data is missing from its last record to the mark */
		in = &m->in[r->source];
		struct kt_model_gap g = { .cpu = r->cpu, .from = in->cpus[r->cpu].last, .to = r->ts };

		if (g.from > g.to)
			g.from = g.to;
		return gap(m, in, &g, err);
	}
	if (r->kind != KTRACE_STREAM_EVENT || r->source >= m->nin)
		return 0;
	in = &m->in[r->source];
	if (r->buffer != in->buffer) {
		/* another buffer: the kernel's work it has and the main one has not */
		if (!m->nsides || !(in = side_of(m, r->source, r->buffer)))
			return 0;
		if (in->next_gap < in->ngaps && (ret = gaps_before(m, in, r->ts, err)))
			return ret;
		c = classify(m, s, r, &ret);
		if (!c)
			return kt_error_oom(err);
		if (!(kt_model_kind(c->cls) & in->owns) || !m->ops.kslice)
			return 0;
		return kt_model_kernel_record(m, in, s, r, c, err);
	}
	if (in->next_gap < in->ngaps && in->gaps[in->next_gap].from < r->ts &&
	    (ret = gaps_before(m, in, r->ts, err)))
		return ret;
	if (r->ts > in->end)
		in->end = r->ts;
	c = classify(m, s, r, &ret);
	if (!c)
		return kt_error_oom(err);
	if (c->cls == KT_MC_SWITCH)
		return switch_threads(m, s, r, err);
	/* (Darwin's thread 0 is no thread: interrupt context, PERF samples. The kernel takes
	 * no interrupt between a switch and the start of the thread switched in: one over
	 * the thread switched out shows it running again) */
	if (r->cpu >= 0 && r->tid >= (in->darwin ? 1 : 0) &&
	    (ret = evidence(m, r->source, r->cpu, r->tid, r->ts, interrupt(c->cls), err)))
		return ret;
	if (c->cls == KT_MC_WAKEUP)
		return wakeup(m, s, r, err);
	if ((kt_model_kind(c->cls) & in->owns) && m->ops.kslice)
		return kt_model_kernel_record(m, in, s, r, c, err);
	return 0;
}

/* ---- the end ---- */

int kt_model_finish(struct kt_model *m, struct ktrace_error *err)
{
	int ret = 0;

	for (uint32_t i = 0; i < m->nin && !ret; i++) {
		struct kt_minput *in = &m->in[i];

		ret = gaps_before(m, in, UINT64_MAX, err);
		/* Running: still open */
		for (size_t k = 0; k < in->ncpus && !ret; k++) {
			struct kt_mcpu *c = &in->cpus[k];
			struct kt_model_state st = {
				.input = i, .tid = c->cur, .thread = c->cur_th, .ts = c->since, .dur = -1,
				.cpu = (int32_t)k, .state = m->running, .waker_tid = -1,
				.priority = c->prio, .has_priority = c->has_prio,
			};

			if (c->cur < 0)
				continue;
			ret = emit(m, &st, err);
			if (c->cur != 0)
				kt_mthread_at(m, c->cur_th)->state = NULL;
			c->cur = -1;
		}
	}
	/* every other state still open */
	for (size_t th = 0; th < m->threads.n && !ret; th++) {
		struct kt_mthread *t = kt_mthread_at(m, (uint32_t)th);
		struct kt_model_state st = {
			.input = m->threads.v[th].scope, .tid = m->threads.v[th].id,
			.thread = (uint32_t)th, .ts = t->since,
			.dur = -1, .cpu = t->cpu, .state = t->state,
			.waker_tid = t->woken ? t->waker : -1,
		};

		if (!t->state || t->state == m->running)
			continue;
		ret = emit(m, &st, err);
		t->state = NULL;
	}
	return ret;
}

/* A model of npaths inputs before their walk: NULL when out of memory. */
static struct kt_model *model_new(size_t npaths, const struct kt_model_ops *ops)
{
	struct kt_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (ops)
		m->ops = *ops;
	kt_threads_init(&m->threads, KT_THREADS_PER_SOURCE, 0, sizeof(struct kt_mthread));
	m->nin = npaths;
	m->in = calloc(npaths ? npaths : 1, sizeof(*m->in));
	for (size_t i = 0; m->in && i < npaths; i++)
		m->in[i].input = (uint32_t)i;
	m->running = kt_intern(&m->names, "Running", 7);
	m->runnable = kt_intern(&m->names, "R", 1);
	m->unknown = kt_intern(&m->names, "?", 1);
	if (!m->in || !m->running || !m->runnable || !m->unknown) {
		kt_model_free(m);
		return NULL;
	}
	return m;
}

int kt_model_open(struct kt_model **out, const char *const *paths, size_t npaths,
		  const struct ktrace_stream_opts *opts, const struct kt_model_ops *ops,
		  struct ktrace_error *err, const char **err_path)
{
	struct kt_model *m = model_new(npaths, ops);
	int ret;

	*out = NULL;
	if (err_path)
		*err_path = NULL;
	if (!m)
		return kt_error_oom(err);
	ret = kt_model_scan(m, paths, npaths, opts, err, err_path);
	if (ret) {
		kt_model_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

int kt_model_open_stream(struct kt_model **out, struct ktrace_stream *s,
			 const struct kt_model_ops *ops, struct ktrace_error *err)
{
	struct ktrace_stream_opts o = *kt_stream_opts(s);
	const char *const *names;
	size_t n;
	const char *const *paths = kt_stream_reopen_paths(s, &n, &names);

	/* (errors and damaged places name the inputs as s names them) */
	o.names = names;
	return kt_model_open(out, paths, n, &o, ops, err, NULL);
}

int kt_model_open_live(struct kt_model **out, uint64_t from, const char *machine,
		       const struct kt_model_ops *ops, struct ktrace_error *err)
{
	struct kt_model *m = model_new(1, ops);

	*out = NULL;
	if (!m)
		return kt_error_oom(err);
	m->live = true;
	m->in[0].audit_machine = machine && *machine ? audit_name_to_machine(machine) : -1;
	m->in[0].owns = KT_MK_IRQ | KT_MK_SOFTIRQ | KT_MK_SYSCALL;
	m->in[0].has_cpus = true;
	m->in[0].complete_from = from;
	*out = m;
	return 0;
}

size_t kt_model_cpu_count(const struct kt_model *m, uint32_t input)
{
	return input < m->nin ? m->in[input].ncpus : 0;
}

bool kt_model_cpu_now(const struct kt_model *m, uint32_t input, int32_t cpu,
		      struct kt_model_cpu_now *out)
{
	const struct kt_mcpu *c;

	memset(out, 0, sizeof(*out));
	out->tid = -1;
	if (input >= m->nin || cpu < 0 || (size_t)cpu >= m->in[input].ncpus)
		return false;
	c = &m->in[input].cpus[cpu];
	out->tid = c->cur;
	out->since = c->since;
	out->irq = c->irq_open;
	out->irq_ts = c->irq_ts;
	out->softirq = c->softirq_open;
	out->softirq_ts = c->softirq_ts;
	return true;
}

void kt_model_free(struct kt_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->in && i < m->nin; i++) {
		free(m->in[i].gaps);
		free(m->in[i].cpus);
		free(m->in[i].active);
		free(m->in[i].sys_active);
		kt_prev_state_free(m->in[i].states);
	}
	free(m->in);
	for (size_t i = 0; i < m->nsides; i++) {
		free(m->sides[i].gaps);
		free(m->sides[i].cpus);
		free(m->sides[i].sys_active);
	}
	free(m->sides);
	kt_threads_free(&m->threads);
	kt_map_free(&m->class_index);
	free(m->classes);
	kt_strtab_free(&m->names);
	kt_map_free(&m->sysnames);
	free(m);
}

uint64_t kt_model_input_end(const struct kt_model *m, uint32_t input)
{
	return input < m->nin ? m->in[input].end : 0;
}

uint64_t kt_model_state_ns(const struct kt_model *m, const struct kt_model_state *s)
{
	uint64_t end;

	if (s->dur >= 0)
		return (uint64_t)s->dur;
	end = kt_model_input_end(m, s->input);
	return end > s->ts ? end - s->ts : 0;
}

uint64_t kt_model_complete_from(const struct kt_model *m, uint32_t input)
{
	return input < m->nin && m->in[input].has_cpus ? m->in[input].complete_from : 0;
}

void kt_model_counts(const struct kt_model *m, uint32_t input, uint64_t *switches,
		     uint64_t *wakeups)
{
	*switches = input < m->nin ? m->in[input].switches : 0;
	*wakeups = input < m->nin ? m->in[input].wakeups : 0;
}

const struct kt_model_gap *kt_model_gaps(const struct kt_model *m, uint32_t input, size_t *n)
{
	*n = input < m->nin ? m->in[input].ngaps : 0;
	return *n ? m->in[input].gaps : NULL;
}

uint32_t kt_model_buffer(const struct kt_model *m, uint32_t input)
{
	return input < m->nin ? m->in[input].buffer : 0;
}
