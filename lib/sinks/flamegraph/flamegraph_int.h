/* SPDX-License-Identifier: MIT */
/*
 * `ktrace flamegraph` inside (docs/flamegraph.md): flamegraph_collect.c reads the records
 * and the model's intervals into weighted stacks (one entry per thread, label and stack,
 * never per record), flamegraph_tree.c merges them into the tree of frames that
 * flamegraph_svg.c draws and the folded writer prints.
 */
#ifndef KTRACE_SINKS_FLAMEGRAPH_INT_H
#define KTRACE_SINKS_FLAMEGRAPH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/out.h>
#include <ktrace/stream.h>
#include <ktrace/view.h>

#include "common/hashmap.h"
#include "engine/engine.h"

#define FG_NO_STACK UINT32_MAX

/* A weight: thread (index in the thread table), label ("[S]", "[sched_wakeup]") and
 * stack (the frames, outermost first, joined by ';'; FG_NO_STACK: not known), all
 * strings of the table strs. */
struct fg_entry {
	uint32_t thread;
	uint32_t label;
	uint32_t stack;
	bool on_cpu;
	uint64_t value;
};

struct fg_cpu;

struct fg {
	struct ktrace_view_flamegraph_opts o;
	struct ktrace_stream *s;
	struct kt_model *model;
	struct kt_threads threads;    /* ext: struct fg_thread */
	struct kt_strtab strs;
	struct fg_entry *e;
	size_t n, cap;
	struct kt_map emap;           /* (thread, label, stack, on_cpu) -> index in e */
	struct fg_cpu *cpus;          /* per (input, CPU) */
	size_t ncpus, cap_cpus;
	struct kt_map cmap;
	uint32_t no_stack;            /* the strs id of "[no stack]" */
	char *frames;                 /* scratch: the frames of one stack */
	size_t frames_cap;
	uint64_t records;
	uint64_t switches, switch_stacks, on_stacks;
};

int fg_init(struct fg *g, struct ktrace_stream *s, struct ktrace_error *err);
/* One record of the stream (the model gets it too). 0 or a negative code with err. */
int fg_record(struct fg *g, const struct ktrace_stream_record *r, struct ktrace_error *err);
/* The end of the inputs: the intervals still waiting for their stack go without. */
int fg_finish(struct fg *g, struct ktrace_error *err);
void fg_free(struct fg *g);

/* The tree of frames of the entries of one kind (on_cpu), filtered by the options. */
struct fg_node {
	uint32_t name;                /* strs id */
	uint32_t parent, child, next; /* UINT32_MAX: none */
	uint32_t depth;
	uint64_t value;               /* the whole subtree */
	uint64_t self;                /* ends here */
	uint64_t x;                   /* SVG: where it starts, in the root's value */
};

struct fg_tree {
	struct fg_node *v;
	size_t n, cap;
	struct kt_map map;            /* (parent, name) -> node */
	uint32_t depth;               /* the deepest node's depth */
};

int fg_tree_build(struct fg *g, bool on_cpu, struct fg_tree *t);
void fg_tree_free(struct fg_tree *t);
/* Folded lines: one per node with self weight, "root;...;frame self\n". */
int fg_write_folded(const struct fg *g, const struct fg_tree *t, struct ktrace_out *out);
/* The interactive SVG. */
int fg_write_svg(const struct fg *g, const struct fg_tree *t, bool on_cpu, const char *title,
		 struct ktrace_out *out);

#endif
