// SPDX-License-Identifier: MIT
/*
 * The model's intervals of the kernel's own work (docs/model.md): IRQ handlers and
 * softirqs per CPU, system calls per thread, each from its entry to the matching exit.
 * Only intervals whose two ends were recorded are handed out. Each kind is read from one
 * buffer of an input (engine_model_int.h: the main one, or a side buffer that has it
 * when the main one has none), with that buffer's completeness.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libaudit.h>

#include "common/check.h"
#include "engine/engine.h"
#include "engine/engine_model_int.h"

static bool field_int(struct ktrace_stream *s, int idx, int64_t *out)
{
	struct ktrace_event_value v;

	return idx >= 0 && !ktrace_stream_field(s, (size_t)idx, &v) && kt_value_int(&v, out);
}

static const char *field_name(struct kt_model *m, struct ktrace_stream *s, int idx)
{
	struct ktrace_event_value v;
	size_t n = 0;

	if (idx < 0 || ktrace_stream_field(s, (size_t)idx, &v) ||
	    (v.type != KTRACE_EVENT_STRING && v.type != KTRACE_EVENT_BYTES))
		return kt_intern(&m->names, "", 0);
	while (n < v.len && ((const char *)v.data)[n])
		n++;
	return kt_intern(&m->names, v.data, n);
}

/* The kernel's softirq vectors, as their names print. */
static const char *vector_name(struct kt_model *m, int64_t vec)
{
	static const char *const names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };
	char buf[32];

	if (vec >= 0 && vec < (int64_t)(sizeof(names) / sizeof(names[0])))
		return names[vec];
	snprintf(buf, sizeof(buf), "vec %lld", (long long)vec);
	return kt_intern(&m->names, buf, strlen(buf));
}

/* System call id of the input's machine by name (libaudit's tables), else "NR id". */
static const char *syscall_name(struct kt_model *m, uint32_t input, int64_t id)
{
	const struct kt_minput *in = &m->in[input];
	const char *name = NULL;
	char buf[32];
	uint32_t k;

	if (kt_map_get(&m->sysnames, input, (uint64_t)id, &k))
		return m->names.strs[k].s;
	if (in->audit_machine >= 0 && id >= 0 && id <= INT32_MAX)
		name = audit_syscall_to_name((int)id, in->audit_machine);
	if (!name) {
		snprintf(buf, sizeof(buf), "NR %lld", (long long)id);
		name = buf;
	}
	if (kt_strtab_id(&m->names, name, strlen(name), &k) ||
	    kt_map_put(&m->sysnames, input, (uint64_t)id, k))
		return NULL;
	return m->names.strs[k].s;
}

static int hand_out(struct kt_model *m, uint32_t input, const char *category, const char *name,
		    uint64_t ts, uint64_t end, int32_t cpu, int64_t tid, struct ktrace_error *err)
{
	struct kt_model_kslice k = {
		.input = input, .category = category, .name = name, .ts = ts,
		.dur = (int64_t)(end - ts), .cpu = cpu, .tid = tid,
	};

	if (!m->ops.kslice || end < ts)
		return 0;
	return m->ops.kslice(m->ops.ctx, &k, err);
}

static int syscall_record(struct kt_model *m, struct kt_minput *in, struct ktrace_stream *s,
			  const struct ktrace_stream_record *r, const struct kt_mclass_info *c,
			  struct ktrace_error *err)
{
	bool enter = c->cls == KT_MC_SYS_ENTER || c->cls == KT_MC_SYSCALL_ENTER;
	const char *name = c->name;
	struct kt_mthread *t;
	uint32_t th;
	int64_t id;

	if (r->tid <= 0)
		return 0;
	if (!name) {
		if (!field_int(s, c->f_a, &id))
			return 0;
		name = syscall_name(m, r->source, id);
		if (!name)
			return kt_error_oom(err);
	}
	if (kt_model_thread(m, r->source, r->tid, &th))
		return kt_error_oom(err);
	t = kt_mthread_at(m, th);
	if (!enter) {
		if (!t->sys_open || t->sys_name != name)
			return 0;
		t->sys_open = false;
		return hand_out(m, r->source, "syscall", name, t->sys_ts, r->ts, t->sys_cpu, r->tid,
				err);
	}
	/* a syscall involves every CPU (the thread may sleep and move): known only from a
	 * time every CPU is complete, until a gap ends it */
	t->sys_open = kt_model_all_complete(in, r->ts);
	if (!t->sys_open)
		return 0;
	t->sys_name = name;
	t->sys_ts = r->ts;
	t->sys_cpu = r->cpu;
	return kt_model_activate(m, in, th, true) ? kt_error_oom(err) : 0;
}

int kt_model_kernel_record(struct kt_model *m, struct kt_minput *in, struct ktrace_stream *s,
			   const struct ktrace_stream_record *r, const struct kt_mclass_info *c,
			   struct ktrace_error *err)
{
	struct kt_mcpu *cpu;
	int64_t n;

	if (c->cls >= KT_MC_SYS_ENTER)
		return syscall_record(m, in, s, r, c, err);
	cpu = kt_model_cpu(in, r->cpu);
	if (!cpu)
		return r->cpu < 0 || r->cpu >= KT_MODEL_MAX_CPUS ? 0 : kt_error_oom(err);
	if (!field_int(s, c->f_a, &n))
		return 0;
	switch (c->cls) {
	case KT_MC_IRQ_ENTRY:
		cpu->irq_name = field_name(m, s, c->f_b);
		if (!cpu->irq_name)
			return kt_error_oom(err);
		cpu->irq_open = true;
		cpu->irq = n;
		cpu->irq_ts = r->ts;
		return 0;
	case KT_MC_IRQ_EXIT:
		if (!cpu->irq_open || cpu->irq != n)
			return 0;
		cpu->irq_open = false;
		return hand_out(m, r->source, "irq", cpu->irq_name, cpu->irq_ts, r->ts, r->cpu, -1,
				err);
	case KT_MC_SOFTIRQ_ENTRY:
		cpu->softirq_open = true;
		cpu->vec = n;
		cpu->softirq_ts = r->ts;
		return 0;
	case KT_MC_SOFTIRQ_EXIT: {
		const char *name;

		if (!cpu->softirq_open || cpu->vec != n)
			return 0;
		cpu->softirq_open = false;
		name = vector_name(m, n);
		if (!name)
			return kt_error_oom(err);
		return hand_out(m, r->source, "softirq", name, cpu->softirq_ts, r->ts, r->cpu, -1,
				err);
	}
	default:
		return 0;
	}
}
