/* SPDX-License-Identifier: MIT */
/*
 * The timeline's classes, names and threads, shared by its HTML and SVG writers.
 *
 * Records from the event stream are sorted into classes (context switch, lost events,
 * anything else: a tick) and give the threads, their tasks (names) and the counts per
 * CPU. What the threads and CPUs did (the lanes) is not computed here: it is the
 * engine's model (engine_model.h, docs/model.md), whose intervals the writers draw
 * (timeline_write.c feeds it the same records); the CPU time of a thread is the sum of
 * its closed Running intervals, as sched_slice's.
 *
 *   Linux: sched_switch; Darwin: MACH_SCHED and MACH_STACK_HANDOFF (switches, not
 *   drawn as ticks). KOFF and anything without them: ticks only, per thread.
 *
 * Threads are known by (input, tid), as the model's: each input's threads are its own.
 * tid 0 is the idle thread (drawn blank). A "task" is a thread under one name: the comm
 * column of report lines changes when a thread is renamed (exec), and each line keeps
 * the name it was printed with.
 */
#ifndef KTRACE_VIEWS_TIMELINE_MODEL_H
#define KTRACE_VIEWS_TIMELINE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/stream.h>

#include "common/hashmap.h"
#include "engine/engine.h"

enum tl_class { TL_OTHER = 0, TL_SWITCH = 1, TL_LOST = 3 };
/* How a lane draws a state of the model (the SVG's bins; the page's own by name). */
enum tl_state { TL_RUNNING = 0, TL_RUNNABLE = 1, TL_BLOCKED = 2, TL_UNKNOWN = 3, TL_NSTATES = 4 };

#define TL_NO_THREAD UINT32_MAX
#define TL_MAX_CPUS 4096               /* CPUs 0 to 4095 have lanes */
#define TL_COMM_MAX 32
#define TL_DIRECT_TYPES 2048           /* event ids looked up without hashing */

/* The timeline's data of a thread (tid, pid, input and latest name are in the thread
 * table). */
struct tl_thread {
	uint64_t cpu_ns;               /* time on a CPU: its Running intervals (one still open
					* up to its input's end), as summary counts it */
	uint64_t nrecs;                /* records of the thread */
	uint32_t task;                 /* its current task (name) */
	const char *comm_at;           /* a record's comm found to be the task's name (the
					* stream's comms stay where they are: tl_model's
					* comm_by_address), or NULL */
};

struct tl_task {
	uint32_t thread;
	uint32_t comm_off;             /* in the model's name storage */
};

struct tl_cpu {
	uint64_t nswitch, nevents, lost, lost_marks;
	uint32_t last;                 /* the thread of its last record (a guess: checked) */
	bool seen;
};

/* Per event type (input, id): its name index and class. */
struct tl_evtype {
	uint32_t name;                 /* index in the model's names */
	uint8_t cls;
};

/* What happened to a record, for the writers. */
struct tl_rec {
	uint8_t cls;
	uint32_t name;                 /* event name index (0 for lost events) */
	uint32_t thread;               /* the record's thread, TL_NO_THREAD unknown */
	uint32_t task;                 /* the record's task, TL_NO_THREAD unknown */
	uint64_t lost;                 /* TL_LOST */
};

struct tl_model {
	struct kt_threads threads;     /* by (input, tid); data: tl_thread */
	struct tl_task *tasks;
	size_t ntasks, cap_tasks;
	char *names_store;             /* NUL-terminated comm strings of tasks */
	size_t names_len, names_cap;
	struct tl_cpu *cpus;
	size_t ncpus, cap_cpus;
	struct kt_map type_index;      /* (input, event id) -> types[] */
	struct tl_evtype *types;       /* in the order met */
	uint32_t tdir[TL_DIRECT_TYPES]; /* input 0's event id -> 1 + its index in types (0:
					* not met yet), for the ids below TL_DIRECT_TYPES */
	size_t ntypes, cap_types;
	struct kt_strtab name_tab;     /* the event names, interned */
	const char **names;            /* event names; names[0] = "lost events" */
	const char **name_sys;         /* their systems ("" none) */
	uint32_t *name_input;          /* their inputs (names are per input) */
	struct kt_strtab sys_tab;      /* the systems */
	uint8_t *name_cls;
	size_t nnames, cap_names;
	bool *darwin;                  /* per input */
	uint64_t *in_end;              /* per input: its end (kt_model_input_end), where its
					* intervals still open end (timeline_write.c) */
	size_t ninputs;
	bool comm_by_address;          /* kt_stream_stable_comm: a comm at a thread's
					* comm_at is its task's name */
	/* the model's state names met ("Running", "S", "?"...): tl_model_state's, which the
	 * model thread calls (timeline_write.c), on cache lines of their own (the caller's
	 * thread writes the fields after them for every record) */
	_Alignas(64) struct kt_strtab state_tab;
	/* tl_model_state's answers for the first names met, by the name's address (the
	 * engine model's names live and stay as they are until it is freed) */
	const char *state_name[16];
	uint32_t state_id[16];
	uint8_t state_draw[16];
	size_t nstate_names;
	_Alignas(64) uint64_t first_ts, last_ts;
	uint64_t nrecs, lost_total;
	bool any;
};

int tl_model_init(struct tl_model *m, struct ktrace_stream *s);
void tl_model_free(struct tl_model *m);
/* Classifies the current record of s. 0 or -ENOMEM. */
int tl_model_add(struct tl_model *m, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		 struct tl_rec *out);
/* The thread of (input, tid) (added when new), or TL_NO_THREAD when out of memory. */
uint32_t tl_model_thread(struct tl_model *m, uint32_t input, int64_t tid);
/* A state of the engine's model (its name as the model hands it out: one that lives,
 * unchanged, as long as the model): its index in the names met (added when new), and
 * how a lane draws it. 0 or -ENOMEM. */
int tl_model_state(struct tl_model *m, const char *state, uint32_t *id, enum tl_state *draw);
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
