/* SPDX-License-Identifier: MIT */
/*
 * The timeline's slice and state model, shared by its HTML and SVG writers.
 *
 * Records from the event stream are sorted into classes (context switch, wakeup,
 * lost events, anything else) and fed to a small state machine: per CPU the thread
 * running since the last switch (a slice), per thread its state (running, runnable
 * after a wakeup or a preemption, blocked after it switched out otherwise) and its CPU
 * time. The page's script applies the same rules to the same records (timeline/page.js,
 * decode()), so the SVG and the page draw the same lanes.
 *
 *   Linux: sched_switch (prev_pid, prev_state, next_pid; prev_state with no bit of
 *          0xff set is a preemption), sched_wakeup, sched_wakeup_new, sched_waking (pid)
 *   Darwin: MACH_SCHED and MACH_STACK_HANDOFF (the thread switching out is the
 *          record's, arg2 the one switching in, arg1 the reason: AST_PREEMPT 0x1 is a
 *          preemption), MACH_MAKE_RUNNABLE (arg1)
 *   KOFF and anything without them: ticks only, per thread.
 *
 * Threads are known by tid; tid 0 is the idle thread (drawn blank). A "task" is a
 * thread under one name: the comm column of report lines changes when a thread is
 * renamed (exec), and each line keeps the name it was printed with.
 */
#ifndef KTRACE_VIEWS_TIMELINE_MODEL_H
#define KTRACE_VIEWS_TIMELINE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/stream.h>

#include "common/hashmap.h"
#include "engine/engine.h"

enum tl_class { TL_OTHER = 0, TL_SWITCH = 1, TL_WAKEUP = 2, TL_LOST = 3 };
enum tl_state { TL_UNKNOWN = 0, TL_RUNNING = 1, TL_RUNNABLE = 2, TL_BLOCKED = 3 };

#define TL_NO_THREAD UINT32_MAX
#define TL_MAX_CPUS 4096               /* CPUs 0 to 4095 have lanes */
#define TL_COMM_MAX 32

/* The model's data of a thread (tid, pid and latest name are in the thread table). */
struct tl_thread {
	uint64_t cpu_ns;               /* time on a CPU (closed slices) */
	uint64_t since;                /* when state began */
	uint64_t nrecs;                /* records of the thread */
	uint32_t task;                 /* its current task (name) */
	uint8_t state;
};

struct tl_task {
	uint32_t thread;
	uint32_t comm_off;             /* in the model's name storage */
};

struct tl_cpu {
	uint32_t thread;               /* running since `since`, TL_NO_THREAD unknown */
	uint64_t since;
	uint64_t nswitch, nevents, lost, lost_marks;
	uint32_t last;                 /* the thread of its last record (a guess: checked) */
	bool seen;
};

/* Per event type (input, id): its name index and class, and field positions. */
struct tl_evtype {
	uint32_t name;                 /* index in the model's names */
	uint8_t cls;
	int16_t f_prev, f_state, f_next, f_pid;   /* field indexes (-1: absent) */
};

/* What happened to a record, for the writers. */
struct tl_rec {
	uint8_t cls;
	uint32_t name;                 /* event name index (0 for lost events) */
	uint32_t thread;               /* the record's thread, TL_NO_THREAD unknown */
	uint32_t task;                 /* the record's task, TL_NO_THREAD unknown */
	uint32_t prev, next;           /* TL_SWITCH: threads out and in */
	bool prev_runnable;            /* TL_SWITCH: preempted */
	uint32_t woken;                /* TL_WAKEUP */
	uint64_t lost;                 /* TL_LOST */
};

/* Intervals the state machine closes, for the SVG writer (may be NULL). */
struct tl_sink {
	void *arg;
	void (*slice)(void *arg, int cpu, uint64_t start, uint64_t end, uint32_t thread);
	void (*state)(void *arg, uint32_t thread, uint64_t start, uint64_t end, int state);
};

struct tl_model {
	struct kt_threads threads;     /* by tid, whatever the input; data: tl_thread */
	struct tl_task *tasks;
	size_t ntasks, cap_tasks;
	char *names_store;             /* NUL-terminated comm strings of tasks */
	size_t names_len, names_cap;
	struct tl_cpu *cpus;
	size_t ncpus, cap_cpus;
	struct kt_map type_index;      /* (input, event id) -> types[] */
	struct tl_evtype *types;       /* in the order met */
	size_t ntypes, cap_types;
	struct kt_strtab name_tab;     /* the event names, interned */
	const char **names;            /* event names; names[0] = "lost events" */
	uint8_t *name_cls;
	size_t nnames, cap_names;
	bool *darwin;                  /* per input */
	size_t ninputs;
	uint64_t first_ts, last_ts;
	uint64_t nrecs, lost_total;
	bool any;
	struct tl_sink sink;
};

int tl_model_init(struct tl_model *m, struct ktrace_stream *s, const struct tl_sink *sink);
void tl_model_free(struct tl_model *m);
/* Classifies the current record of s and updates the state machine. 0 or -ENOMEM. */
int tl_model_add(struct tl_model *m, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		 struct tl_rec *out);
/* Closes every open slice and state at the trace's end. */
void tl_model_finish(struct tl_model *m);
/* Thread i: its table entry (tid, pid, latest name), and the model's data. */
static inline const struct kt_thread *tl_thread_entry(const struct tl_model *m, uint32_t i)
{
	return &m->threads.v[i];
}
static inline struct tl_thread *tl_thread_at(const struct tl_model *m, uint32_t i)
{
	return kt_threads_ext(&m->threads, i);
}
static inline const char *tl_task_comm(const struct tl_model *m, uint32_t task)
{
	return m->names_store + m->tasks[task].comm_off;
}
/* The colour hue (0..359) of a thread, as timeline/page.js computes it. */
unsigned tl_thread_hue(int64_t tid);

#endif
