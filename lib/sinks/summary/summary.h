/* SPDX-License-Identifier: MIT */
/*
 * The figures `ktrace summary` gathers from the model and the stream of one or more
 * inputs (summary.c), for its own print (summary_print.c) and for `ktrace diff`
 * (sinks/diff), which reads them per input. docs/summary.md has the rules.
 *
 * For the diff the gathering can also keep, per figure, its values in time windows
 * (series): SM_SLOTS equal slots from the input's complete time on, of a width that
 * doubles (pairs of slots merged) whenever the trace runs past the last slot, so
 * memory stays bounded by the figures, never by the trace's length.
 */
#ifndef KTRACE_SINKS_SUMMARY_H
#define KTRACE_SINKS_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/view.h>

#include "common/hashmap.h"
#include "engine/engine.h"

#define SM_SLOTS 64

/* Per-window series of a figure: value per slot (ns or count). */
struct sm_series {
	uint64_t v[SM_SLOTS];
};

/* The series of a thread (sm_thread.ser + these), a named total, a CPU. */
enum { SMS_CPU, SMS_RUNNABLE, SMS_SLEEPING, SMS_BLOCKED, SMS_SYS_N, SMS_SYS_NS, SMS_WAKEUPS,
       SMS_THREAD };
enum { SMS_N, SMS_NS, SMS_NAMED };
enum { SMS_BUSY, SMS_IRQ, SMS_SOFTIRQ, SMS_CPUS };

/* A bucket of a thread's latency histogram. */
struct sm_hist_entry {
	uint32_t thread;
	uint64_t bucket, count;
};

/* A thread's figures (the data of its thread table entry). */
struct sm_thread {
	uint64_t cpu_ns, slices;
	uint64_t runnable_ns, sleeping_ns, blocked_ns;
	uint64_t lat_n, lat_max;
	uint64_t sys_n, sys_ns;
	uint64_t p50, p90, p99;      /* filled at the end */
	size_t hist_off, hist_n;     /* its latency histogram: sm.hist_e[hist_off...] */
	uint32_t ser;                /* series: 0 none, else 1 + the first of SMS_THREAD */
};

/* A CPU of an input. */
struct sm_cpu {
	bool seen;
	uint64_t first_ts;
	uint64_t busy_ns, idle_ns, irq_ns, softirq_ns, irq_n, softirq_n;
	uint64_t gap_ns;             /* its missing data inside the input's span */
	uint32_t ser;                /* series: 0 none, else 1 + the first of SMS_CPUS */
	/* its last record's thread and name (most records are of the thread before) */
	int64_t last_tid;
	const char *last_comm;
	/* its last event's total (most records' event is one of a few) */
	const char *last_name, *last_system;
	size_t last_named;           /* index + 1 in sm.named[SM_EVENT] */
};

/* A named total: an IRQ handler, softirq vector, syscall or event of an input. */
struct sm_named {
	uint32_t input;
	const char *system, *name;   /* interned or the stream's (live until the end) */
	uint64_t n, ns;
	uint32_t ser;                /* series: 0 none, else 1 + the first of SMS_NAMED */
};

enum sm_kind { SM_IRQ, SM_SOFTIRQ, SM_SYSCALL, SM_EVENT, SM_KINDS };

struct sm_input {
	const struct ktrace_stream_source *src;
	uint64_t events, lost, lost_marks;
	uint64_t first_ts, last_ts;
	bool any;
	struct sm_cpu *cpus;
	size_t ncpus, cap_cpus;
	uint32_t ser;                /* series of lost events: 0 none, else 1 + index */
	/* its events' totals by event id (index + 1 in sm.named[SM_EVENT], 0 unknown): a
	 * record's event found without hashing its name (ids from SM_BY_ID on are hashed) */
	uint32_t *by_id;
};

#define SM_BY_ID 4096

struct sm {
	struct ktrace_view_summary_opts o;
	struct ktrace_stream *s;
	struct kt_model *model;
	struct sm_input *in;
	size_t nin;
	struct kt_threads threads;           /* per input; data sm_thread */
	struct kt_strtab strings;
	struct kt_map named_index[SM_KINDS]; /* hash of (input, system, name) -> named[kind][] */
	struct sm_named *named[SM_KINDS];
	size_t nnamed[SM_KINDS], cap_named[SM_KINDS];
	struct kt_map hist;                  /* (thread, latency bucket) -> count */
	uint64_t lo, hi;                     /* the window */
	struct sm_hist_entry *hist_e;        /* the histograms, by thread then bucket */
	size_t nhist_e;
	/* the series (when series): slot i is [t0 + i * w, t0 + (i + 1) * w) */
	bool series, from_complete;
	bool gathered;                       /* every record read (maybe up to damage) */
	uint64_t t0, w;
	struct sm_series *ser;
	size_t nser, cap_ser;
};

/* A gathering of stream s's records (o: the summary's options; series: keep the
 * series, from_complete: count only from each input's complete time on, and make that
 * the window's start: one input only). *out is freed with sm_free, also on error, when
 * set; gathered says whether it holds the figures: a damaged input gives what could be
 * read (gathered) and its error. 0 or a negative code with
 * err set. */
int sm_gather(struct sm **out, struct ktrace_stream *s, const struct ktrace_view_summary_opts *o,
	      bool series, bool from_complete, struct ktrace_error *err);
void sm_free(struct sm *sm);

/* What input's records do not let the summary compute (SM_LACKS_* bits), and why. */
enum {
	SM_LACKS_SWITCH = 1 << 0,    /* CPU time, thread states, wakeup latencies */
	SM_LACKS_WAKEUP = 1 << 1,    /* wakeup latencies */
	SM_LACKS_IRQ = 1 << 2,
	SM_LACKS_SOFTIRQ = 1 << 3,
	SM_LACKS_SYSCALL = 1 << 4,
	SM_LACKS_ALL = (1 << 5) - 1,
};
unsigned sm_lacks(const struct sm *sm, uint32_t input);
const char *sm_lacks_why(unsigned bit);

/* The histogram bucket of value v (1/256 of its value wide at most, exact below 256). */
uint64_t sm_bucket_of(uint64_t v);
/* The value bucket b of a histogram stands for, and the nearest-rank pct quantile of
 * count values in the sorted buckets e[0..n) (at most max). */
uint64_t sm_bucket_value(uint64_t b);
uint64_t sm_quantile(const struct sm_hist_entry *e, size_t n, uint64_t count, unsigned pct,
		     uint64_t max);
/* The entries of a histogram map ((thread, bucket) -> count), by thread then bucket, in
 * a new array (*n of them; NULL with *n 0 when empty); -ENOMEM or 0. */
int sm_hist_entries(const struct kt_map *hist, struct sm_hist_entry **out, size_t *n);

static inline struct sm_thread *sm_thread_at(const struct sm *sm, size_t i)
{
	return kt_threads_ext(&sm->threads, i);
}

#endif
