/* SPDX-License-Identifier: MIT */
/*
 * Inside the model (engine_model.h): its completeness walk (engine_model_scan.c), the
 * threads and CPUs (engine_model.c) and the kernel's own intervals
 * (engine_model_kernel.c).
 */
#ifndef KTRACE_ENGINE_MODEL_INT_H
#define KTRACE_ENGINE_MODEL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hashmap.h"
#include "engine/engine_model.h"
#include "engine/engine_threads.h"

#define KT_MODEL_MAX_CPUS 65536

/* What a record is to the model (per input and event id). */
enum kt_mclass {
	KT_MC_OTHER = 0,
	KT_MC_SWITCH,
	KT_MC_WAKEUP,
	KT_MC_IRQ_ENTRY,
	KT_MC_IRQ_EXIT,
	KT_MC_SOFTIRQ_ENTRY,
	KT_MC_SOFTIRQ_EXIT,
	KT_MC_SYS_ENTER,           /* raw_syscalls:sys_enter (f_a: id) */
	KT_MC_SYS_EXIT,
	KT_MC_SYSCALL_ENTER,       /* syscalls:sys_enter_NAME (name: NAME) */
	KT_MC_SYSCALL_EXIT,
	KT_MC_TICK,                /* timer:hrtimer_expire_entry/exit: an interrupt, no fields */
};

struct kt_mclass_info {
	uint8_t cls;
	int16_t f_a, f_b;          /* field indexes: irq/vec/id, irq's name (-1: none) */
	const char *name;          /* syscalls:*_NAME: NAME (interned) */
};

/* A CPU of an input: the thread believed running there, its open IRQ and softirq. */
struct kt_mcpu {
	int64_t cur;               /* tid running, -1: none known */
	uint32_t cur_th;           /* its thread entry */
	uint64_t since, last;      /* running since; its last record on the CPU */
	bool from_switch;          /* since is a switch-in */
	int64_t tail;              /* the thread the last switch took off, while the CPU's
				    * records after that switch are its (-1: none) */
	bool has_prio;
	int32_t prio;
	bool irq_open, softirq_open;
	int64_t irq, vec;
	uint64_t irq_ts, softirq_ts;
	const char *irq_name;
};

/* The kinds of the kernel's own work, as bits. */
enum { KT_MK_IRQ = 1, KT_MK_SOFTIRQ = 2, KT_MK_SYSCALL = 4 };

/*
 * A buffer of an input the model reads: the input's main one (the first with a
 * sched_switch: threads, CPUs, states), and sides, other buffers (trace.dat instances)
 * that hold a kind of the kernel's own work the main one has none of. Each has its own
 * completeness and CPUs.
 */
struct kt_minput {
	uint32_t input;
	bool side;
	unsigned owns;             /* KT_MK_*: the kinds of kernel work read from it */
	bool darwin;
	int audit_machine;         /* libaudit's machine of the trace (-1: unknown) */
	uint32_t buffer;           /* the buffer (trace.dat instances) */
	bool has_cpus;             /* some CPU has records */
	uint64_t complete_from;    /* every CPU with records is complete from here... */
	uint64_t incomplete_until; /* ...except before this (the gaps met so far) */
	uint64_t end;              /* its buffer's last event's time so far */
	struct kt_model_gap *gaps; /* in order of from */
	size_t ngaps, next_gap;
	struct kt_mcpu *cpus;
	size_t ncpus, cap_cpus;
	struct kt_prev_state *states;        /* sched_switch's prev_state letters */
	const void *switch_ev;               /* ...of this event format */
	/* the states of the last prev_state values met, by value (interned names; NULL:
	 * none): the value's letters are worked out and interned once */
	uint64_t state_key[8];
	const char *state_name[8];
	uint64_t switches, wakeups; /* records of each the model read */
	uint32_t *active;          /* main: threads in a known state other than Running,
				    * what a gap ends */
	size_t nactive, cap_active;
	uint32_t *sys_active;      /* threads in a syscall read from this buffer */
	size_t nsys_active, cap_sys_active;
};

/* A thread's state (the table's data per entry). */
struct kt_mthread {
	const char *state;         /* NULL: none yet; the model's interned names */
	uint64_t since;
	int32_t cpu;
	int32_t on_cpu;            /* the CPU it is believed running on, -1 */
	int64_t waker;
	bool woken;                /* R after a wakeup, known: a latency if switched in */
	bool in_active, in_sys_active;
	bool sys_open;
	const char *sys_name;
	uint64_t sys_ts;
	int32_t sys_cpu;
};

#define KT_MODEL_CLASS_CACHE 256

/* A slot of the cache of (input, event id) -> classes[] (index + 1; 0: empty). */
struct kt_mclass_slot {
	uint32_t source, event_id, index;
};

struct kt_model {
	struct kt_model_ops ops;
	struct kt_mclass_slot class_cache[KT_MODEL_CLASS_CACHE];
	struct kt_minput *in;              /* per input: its main buffer */
	size_t nin;
	struct kt_minput *sides;           /* other buffers with kernel work of their own */
	size_t nsides;
	struct kt_threads threads;         /* per input; data: kt_mthread */
	struct kt_map class_index;         /* (input, event id) -> classes[] */
	struct kt_mclass_info *classes;
	size_t nclasses, cap_classes;
	struct kt_strtab names;            /* states, handler and syscall names */
	struct kt_map sysnames;            /* (input, syscall number) -> names id */
	const char *running, *runnable, *unknown;   /* "Running", "R", "?" */
	bool live;                         /* kt_model_open_live: no walk first */
};

/* The completeness walk: fills every input's buffer, complete_from and gaps. */
int kt_model_scan(struct kt_model *m, const char *const *paths, size_t npaths,
		  const struct ktrace_stream_opts *opts, struct ktrace_error *err,
		  const char **err_path);

/* The CPU of an input (made when new); NULL when out of range or out of memory. */
struct kt_mcpu *kt_model_cpu(struct kt_minput *in, int32_t cpu);
/* Thread entry index of (input, tid), made when new: 0 or -ENOMEM. */
int kt_model_thread(struct kt_model *m, uint32_t input, int64_t tid, uint32_t *th);
static inline struct kt_mthread *kt_mthread_at(const struct kt_model *m, uint32_t th)
{
	return kt_threads_ext(&m->threads, th);
}
/* Puts thread th on the list of threads a gap of in ends (sys: of threads in a
 * syscall): 0 or -ENOMEM. */
int kt_model_activate(struct kt_model *m, struct kt_minput *in, uint32_t th, bool sys);
/* Whether every CPU of the input is complete at ts. */
static inline bool kt_model_all_complete(const struct kt_minput *in, uint64_t ts)
{
	return in->has_cpus && ts >= in->complete_from && ts >= in->incomplete_until;
}

/* The kernel's own intervals (engine_model_kernel.c): the record r of class c. */
int kt_model_kernel_record(struct kt_model *m, struct kt_minput *in, struct ktrace_stream *s,
			   const struct ktrace_stream_record *r, const struct kt_mclass_info *c,
			   struct ktrace_error *err);
/* The KT_MK_* kind of a class (0: none). */
unsigned kt_model_kind(enum kt_mclass c);
/* The class of an ftrace event by its system and name (f_* not set). */
enum kt_mclass kt_model_ftrace_class(const char *system, const char *name);

#endif
