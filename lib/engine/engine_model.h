/* SPDX-License-Identifier: MIT */
/*
 * The model of what the traced system did (docs/model.md): data completeness per CPU,
 * every thread's states (Running, runnable after a wakeup, switched out in a state,
 * unknown), the CPU slices, wakeup latencies and the intervals of the kernel's own work
 * (IRQ, softirq, syscall). One model for every output: a sink feeds it the records of
 * its stream and gets the intervals back through callbacks, each once, when it is
 * complete (its end is known), in the order they end.
 *
 * Completeness needs the whole trace (a CPU's first record may come late; a lost-events
 * mark reaches back to the CPU's previous record), so kt_model_open walks the inputs
 * once first with a stream of its own (records only, no fields), and then the sink's
 * records are fed in the same order. Memory: per thread, per CPU and per lost-events
 * mark, never per record.
 */
#ifndef KTRACE_ENGINE_MODEL_H
#define KTRACE_ENGINE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/stream.h>

struct kt_model;

/* A thread interval (thread_state; Running ones are also the CPU slices). */
struct kt_model_state {
	uint32_t input;               /* the input's index in the stream */
	int64_t tid;
	uint32_t thread;              /* the model's number of (input, tid): from 0 in the
				       * order met, for sinks that keep a table by thread */
	uint64_t ts;
	int64_t dur;                  /* -1: still open at the input's end */
	int32_t cpu;                  /* -1: none */
	const char *state;            /* "Running", "R", "R+", "S", "D"..., "?" (static or
				       * interned: lives until kt_model_free) */
	int64_t waker_tid;            /* R after a wakeup: the waker's tid; else -1 */
	/* Running: the slice's end state as sched_switch printed it (NULL: unknown, the
	 * slice ran into missing data or a switch not recorded, or still open), its
	 * priority (has_priority) */
	const char *end_state;
	int32_t priority;
	bool has_priority;
};

/* A wakeup latency: tid woken at ts, switched in on cpu dur later. */
struct kt_model_latency {
	uint32_t input;
	int64_t tid;
	uint32_t thread;              /* as kt_model_state's */
	uint64_t ts;
	int64_t dur;
	int32_t cpu;
	int64_t waker_tid;            /* -1: unknown */
};

/* An interval of the kernel's own work. */
struct kt_model_kslice {
	uint32_t input;
	const char *category;         /* "irq", "softirq", "syscall" (static) */
	const char *name;             /* handler, vector or syscall (lives until free) */
	uint64_t ts;
	int64_t dur;
	int32_t cpu;                  /* the CPU (a syscall: of its entry) */
	int64_t tid;                  /* syscall: the thread; else -1 */
};

/* What the model hands out (any callback may be NULL); a non-zero return stops the
 * model with that code (the callback sets err). */
struct kt_model_ops {
	void *ctx;
	int (*state)(void *ctx, const struct kt_model_state *s, struct ktrace_error *err);
	int (*latency)(void *ctx, const struct kt_model_latency *l, struct ktrace_error *err);
	int (*kslice)(void *ctx, const struct kt_model_kslice *k, struct ktrace_error *err);
};

/* The completeness of one input (kt_model_gaps): the CPUs' first records and gaps. */
struct kt_model_gap {
	int32_t cpu;
	uint64_t from, to;            /* the open interval (from, to) has no data; to is
				       * UINT64_MAX when the CPU has no record after it */
};

/*
 * Walks paths (as ktrace_stream_open with opts, read-ahead left out) for the
 * completeness of every input, and returns a model that hands out through ops. 0 or a
 * negative code with err set (*err_path: the input it concerns, or NULL).
 */
int kt_model_open(struct kt_model **out, const char *const *paths, size_t npaths,
		  const struct ktrace_stream_opts *opts, const struct kt_model_ops *ops,
		  struct ktrace_error *err, const char **err_path);
/* kt_model_open on the inputs and options of stream s (its copies of inputs read once). */
int kt_model_open_stream(struct kt_model **out, struct ktrace_stream *s,
			 const struct kt_model_ops *ops, struct ktrace_error *err);
/*
 * A model of a live session (ktrace top) without the walk: one input read from its
 * buffer 0, every kind of the kernel's work from it, every CPU complete from `from` (when
 * tracing began), syscall numbers named as machine's ("x86_64", uname's; NULL: none); a lost-events mark is a gap of its CPU from the CPU's last record to
 * the mark, taken when the mark is fed. Records are fed as they come (kt_model_record).
 */
int kt_model_open_live(struct kt_model **out, uint64_t from, const char *machine,
		       const struct kt_model_ops *ops, struct ktrace_error *err);

/* What a CPU of an input has open now (live: the figures of the time so far). */
struct kt_model_cpu_now {
	int64_t tid;                  /* the thread running (0 idle), -1: none known */
	uint64_t since;               /* ...since then */
	bool irq, softirq;            /* an IRQ handler, softirq open since irq_ts, softirq_ts */
	uint64_t irq_ts, softirq_ts;
};
size_t kt_model_cpu_count(const struct kt_model *m, uint32_t input);
/* false (out->tid -1) for a CPU the model has not met. */
bool kt_model_cpu_now(const struct kt_model *m, uint32_t input, int32_t cpu,
		      struct kt_model_cpu_now *out);

/* Feeds the current record r of s (a stream of the same paths and options, each record
 * in order, lost-events marks included). 0 or the callbacks' code. */
int kt_model_record(struct kt_model *m, struct ktrace_stream *s,
		    const struct ktrace_stream_record *r, struct ktrace_error *err);
/* For kt_stream_fields_only (arg: the model): whether the model reads r's fields (the
 * events it follows; every Darwin event). A sink that reads no fields itself passes
 * it so that the others' bytes are not copied. */
bool kt_model_reads_fields(void *arg, const struct ktrace_stream_record *r);
/* The input's end: every interval still open (dur -1). 0 or the callbacks' code. */
int kt_model_finish(struct kt_model *m, struct ktrace_error *err);
void kt_model_free(struct kt_model *m);

/* Input i's completeness: the time from which every CPU with records is complete (0 when
 * no CPU has records), and its gaps (*n of them, in order of from; valid until free). */
uint64_t kt_model_complete_from(const struct kt_model *m, uint32_t input);
const struct kt_model_gap *kt_model_gaps(const struct kt_model *m, uint32_t input, size_t *n);
/* Input i's end: the last event's time of the buffer the model reads, so far (another
 * buffer may have its own times: an instance recorded at another time). A Running
 * interval still open there (dur -1) ran until then: its CPU's switches are complete. */
uint64_t kt_model_input_end(const struct kt_model *m, uint32_t input);
/* The length the figures count of interval s: its dur, or for one still open at the end
 * the time to its input's end (model.md, "Time in a state"). */
uint64_t kt_model_state_ns(const struct kt_model *m, const struct kt_model_state *s);
/* The buffer of input i the model reads (a trace.dat with instances: docs/model.md). */
uint32_t kt_model_buffer(const struct kt_model *m, uint32_t input);

/* How many context switches and wakeups of input the model read (so far). */
void kt_model_counts(const struct kt_model *m, uint32_t input, uint64_t *switches,
		     uint64_t *wakeups);

/* sched_switch's prev_state as text, as the kernel's own print fmt prints it ("S", "D",
 * "R", "R+", "I"...: engine_prev_state.c): the flags of the fmt's __print_flags (NULL
 * when it has none: modern kernels' letters are used). */
struct kt_prev_state;

struct kt_prev_state *kt_prev_state_parse(const char *print_fmt);
void kt_prev_state_free(struct kt_prev_state *p);
/* The text of value v into buf (len bytes, NUL-terminated). */
void kt_prev_state_text(const struct kt_prev_state *p, uint64_t v, char *buf, size_t len);

#endif
