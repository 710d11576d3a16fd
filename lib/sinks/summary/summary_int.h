/* SPDX-License-Identifier: MIT */
/*
 * Inside `ktrace summary` (<ktrace/view.h> ktrace_view_summary): the figures it gathers
 * from the model and the stream (summary.c), and their text and JSON forms
 * (summary_print.c). docs/summary.md has the rules and the JSON schema.
 */
#ifndef KTRACE_SINKS_SUMMARY_INT_H
#define KTRACE_SINKS_SUMMARY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/view.h>

#include "common/hashmap.h"
#include "engine/engine.h"

/* A thread's figures (the data of its thread table entry). */
struct sm_thread {
	uint64_t cpu_ns, slices;
	uint64_t runnable_ns, sleeping_ns, blocked_ns;
	uint64_t lat_n, lat_max;
	uint64_t sys_n, sys_ns;
	uint64_t p50, p90, p99;      /* filled at the end */
};

/* A CPU of an input. */
struct sm_cpu {
	bool seen;
	uint64_t first_ts;
	uint64_t busy_ns, idle_ns, irq_ns, softirq_ns, irq_n, softirq_n;
	uint64_t gap_ns;             /* its missing data inside the input's span */
};

/* A named total: an IRQ handler, softirq vector, syscall or event of an input. */
struct sm_named {
	uint32_t input;
	const char *system, *name;   /* interned or the stream's (live until the end) */
	uint64_t n, ns;
};

enum sm_kind { SM_IRQ, SM_SOFTIRQ, SM_SYSCALL, SM_EVENT, SM_KINDS };

struct sm_input {
	const struct ktrace_stream_source *src;
	uint64_t events, lost, lost_marks;
	uint64_t first_ts, last_ts;
	bool any;
	struct sm_cpu *cpus;
	size_t ncpus, cap_cpus;
};

struct sm {
	struct ktrace_view_summary_opts o;
	struct ktrace_stream *s;
	struct kt_model *model;
	struct sm_input *in;
	size_t nin;
	struct kt_threads threads;           /* per input; data sm_thread */
	struct kt_strtab strings;
	struct kt_map named_index[SM_KINDS]; /* (input, name) -> named[kind][] */
	struct sm_named *named[SM_KINDS];
	size_t nnamed[SM_KINDS], cap_named[SM_KINDS];
	struct kt_map hist;                  /* (thread, latency bucket) -> count */
	uint64_t lo, hi;                     /* the window */
};

/* The text or JSON of what sm gathered. 0 or -ENOMEM. */
int sm_print(struct sm *sm, struct ktrace_out *out);

static inline struct sm_thread *sm_thread_at(const struct sm *sm, size_t i)
{
	return kt_threads_ext(&sm->threads, i);
}

#endif
