// SPDX-License-Identifier: MIT
/*
 * The tree of frames of `ktrace flamegraph`: every weighed stack as a path from a root
 * "all" through the thread (or process, or name), the label ([S], [D]..., or the event
 * for on-CPU stacks) and the frames outermost first. Children sorted by name (a flame
 * graph, not a flame chart: time order is not kept), values summed. Memory grows with
 * the distinct stacks, never with the records. The folded writer prints one line per
 * node where some weight ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/outbuf.h"
#include "sinks/flamegraph/flamegraph_int.h"

#define NONE UINT32_MAX

static bool keep_thread(const struct fg *g, const struct kt_thread *th)
{
	if (!g->o.npids && !g->o.ncomms)
		return true;
	for (size_t i = 0; i < g->o.npids; i++)
		if (th->id == g->o.pids[i] || (th->pid >= 0 && th->pid == g->o.pids[i]))
			return true;
	for (size_t i = 0; i < g->o.ncomms; i++)
		if (g->o.comms[i] && !strcmp(kt_thread_name(th), g->o.comms[i]))
			return true;
	return false;
}

/* The node (parent, name), added when new: its index, or NONE when out of memory. */
static uint32_t child(struct fg_tree *t, uint32_t parent, uint32_t name)
{
	uint32_t i;

	if (kt_map_get(&t->map, parent, name, &i))
		return i;
	if (t->n >= NONE - 1 || kt_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) ||
	    kt_map_put(&t->map, parent, name, (uint32_t)t->n))
		return NONE;
	i = (uint32_t)t->n++;
	t->v[i] = (struct fg_node){ .name = name, .parent = parent, .child = NONE, .next = NONE,
				    .depth = parent == NONE ? 0 : t->v[parent].depth + 1 };
	if (parent != NONE) {
		t->v[i].next = t->v[parent].child;
		t->v[parent].child = i;
	}
	if (t->v[i].depth > t->depth)
		t->depth = t->v[i].depth;
	return i;
}

/* The root frame of a thread: "comm-TID", "comm-PID" or "comm" (cleaned as frames are). */
static int root_name(struct fg *g, const struct kt_thread *th, uint32_t *id)
{
	char buf[KTRACE_STREAM_COMM_MAX + 32];
	const char *name = kt_thread_name(th);
	int64_t num = th->id;
	int n;

	if (g->o.by == KTRACE_FLAMEGRAPH_BY_PROCESS && th->pid >= 0) {
		const struct kt_thread *leader = kt_threads_find(&g->threads, th->scope, th->pid);

		num = th->pid;
		if (leader && *kt_thread_name(leader))
			name = kt_thread_name(leader);
	}
	if (!*name)
		name = "<...>";
	if (g->o.by == KTRACE_FLAMEGRAPH_BY_COMM)
		n = snprintf(buf, sizeof(buf), "%s", name);
	else
		n = snprintf(buf, sizeof(buf), "%s-%lld", name, (long long)num);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf))
		n = (int)sizeof(buf) - 1;
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == ';' || c == ' ' || c == '\t')
			buf[i] = '_';
		else if (c < 0x21 || c >= 0x7f)
			buf[i] = '?';
	}
	return kt_strtab_id(&g->strs, buf, (size_t)n, id);
}

struct sort_item {
	uint32_t parent;
	uint32_t node;
	const char *name;
};

static int by_parent_name(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Children in name order; x of every node (preorder: a node's first child starts where
 * it does, each next sibling where the one before ends). */
static int order(const struct fg *g, struct fg_tree *t)
{
	struct sort_item *v = malloc(t->n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		v[i] = (struct sort_item){ t->v[i].parent, (uint32_t)i, g->strs.strs[t->v[i].name].s };
	qsort(v, t->n, sizeof(*v), by_parent_name);
	for (size_t i = 0; i < t->n; i++)
		if (v[i].parent != NONE)
			t->v[v[i].parent].child = NONE;
	for (size_t i = t->n; i-- > 0;) {
		if (v[i].parent == NONE)
			continue;
		t->v[v[i].node].next = t->v[v[i].parent].child;
		t->v[v[i].parent].child = v[i].node;
	}
	free(v);
	/* x in preorder (a parent comes before its children in t->v: added first) */
	for (size_t i = 0; i < t->n; i++) {
		uint64_t x = t->v[i].x;

		for (uint32_t c = t->v[i].child; c != NONE; c = t->v[c].next) {
			t->v[c].x = x;
			x += t->v[c].value;
		}
	}
	return 0;
}

int fg_tree_build(struct fg *g, bool on_cpu, struct fg_tree *t)
{
	uint32_t all, id;

	memset(t, 0, sizeof(*t));
	if (kt_strtab_id(&g->strs, "all", 3, &id))
		return -ENOMEM;
	all = child(t, NONE, id);
	if (all == NONE)
		return -ENOMEM;
	for (size_t i = 0; i < g->n; i++) {
		const struct fg_entry *e = &g->e[i];
		const struct kt_thread *th = &g->threads.v[e->thread];
		uint32_t node, stack = e->stack;
		const char *p, *end;

		if (e->on_cpu != on_cpu || !e->value || !keep_thread(g, th))
			continue;
		if (root_name(g, th, &id))
			return -ENOMEM;
		node = child(t, all, id);
		if (node != NONE)
			node = child(t, node, e->label);
		/* the frames of the stack, each its own string */
		p = g->strs.strs[stack].s;
		end = p + g->strs.strs[stack].len;
		while (node != NONE && p < end) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			size_t len = semi ? (size_t)(semi - p) : (size_t)(end - p);

			if (kt_strtab_id(&g->strs, p, len, &id))
				return -ENOMEM;
			node = child(t, node, id);
			p += len + 1;
		}
		if (node == NONE)
			return -ENOMEM;
		t->v[node].self += e->value;
		for (uint32_t k = node; k != NONE; k = t->v[k].parent)
			t->v[k].value += e->value;
	}
	return order(g, t);
}

void fg_tree_free(struct fg_tree *t)
{
	free(t->v);
	kt_map_free(&t->map);
	memset(t, 0, sizeof(*t));
}

int fg_write_folded(const struct fg *g, const struct fg_tree *t, struct ktrace_out *out)
{
	uint32_t *path = calloc((size_t)t->depth + 1, sizeof(*path));
	uint32_t k;

	if (!path)
		return -ENOMEM;
	/* preorder through child, next and parent links */
	k = t->n ? 0 : NONE;
	while (k != NONE) {
		const struct fg_node *n = &t->v[k];

		path[n->depth] = k;
		if (n->self && n->depth) {
			for (uint32_t d = 1; d <= n->depth; d++) {
				const struct kt_str *s = &g->strs.strs[t->v[path[d]].name];

				if (d > 1)
					kt_out_putc(out, ';');
				kt_out_write(out, s->s, s->len);
			}
			kt_out_putc(out, ' ');
			kt_out_u64(out, n->self, 0);
			kt_out_putc(out, '\n');
		}
		if (n->child != NONE) {
			k = n->child;
			continue;
		}
		while (k != NONE && t->v[k].next == NONE)
			k = t->v[k].parent;
		if (k != NONE)
			k = t->v[k].next;
	}
	free(path);
	return 0;
}
