// SPDX-License-Identifier: MIT
/*
 * The stream's Darwin source: the kdebug events of a V3 ktrace file or a legacy raw
 * stream, in file order (kdebug buffers are written in time order), with thread names
 * and processes from the thread map (and the TRACE_DATA/TRACE_STRING events that update
 * it). TRACE_LOST_EVENTS become KTRACE_STREAM_LOST records. A file's events are in time
 * order but for a few (the recording tool writes its own at the start): a window of
 * WINDOW events sorts them by time (ties in file order). The system of an event is
 * its class name ("MACH", "BSD", or "0x2a"), its name the trace-codes name when one is
 * known, else the built-in "CLASS_SUBCLASS:0xCODE" form.
 *
 * The stackshot chunks of a V3 file come through as records too, system "kcdata",
 * name "stackshot" or "delta_stackshot", at the stackshot's mach_absolute_time (the
 * start of the trace when it has none), with fields chunk offset, size, tasks, threads
 * and error (why it does not decode; "" when it does). The chunks are decoded once
 * when the file opens, one at a time; only their summaries are kept.
 */
#include <ktrace/darwin.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/kcdata.h>

#include "common/check.h"
#include "engine/engine_stream_int.h"

#define WINDOW 256

struct pending {
	struct ktrace_darwin_event ev;
	uint64_t seq;
};

/* A stackshot chunk, as the stream hands it out. */
struct shot {
	uint64_t ns;                    /* its mach_absolute_time in ns (0: none) */
	uint64_t offset, size;          /* the chunk's file offset and kcdata bytes */
	uint64_t tasks, threads;
	uint32_t begin_type;
	char error[160];                /* why it does not decode, "" when it does */
};

struct darwin_source {
	struct kt_source src;
	struct shot *shots;             /* in time order (ties in file order) */
	size_t nshots, next_shot;
	const struct shot *cur_shot;    /* the current record is this stackshot */
	struct pending heap[WINDOW];    /* the events read ahead, a min-heap by (ns, seq) */
	size_t nheap;
	uint64_t seq;
	bool eof;
	int error;                      /* the reader's error, once the window is out */
	struct ktrace_error saved;
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_codes *codes;
	struct ktrace_darwin_event ev;
	char cls[8];
	char name[64];
	char comm[24];
	struct { uint32_t id; const char *system, *name; } names[256];  /* interned, by id */
};

enum { F_DEBUGID, F_CLASS, F_SUBCLASS, F_CODE, F_FUNC, F_ARG1, F_ARG2, F_ARG3, F_ARG4, NFIELDS };
static const char *const field_names[NFIELDS] = {
	"debugid", "class", "subclass", "code", "func", "arg1", "arg2", "arg3", "arg4",
};

enum { S_OFFSET, S_SIZE, S_TASKS, S_THREADS, S_ERROR, NSHOTFIELDS };
static const char *const shot_field_names[NSHOTFIELDS] = {
	"offset", "size", "tasks", "threads", "error",
};

static void fill_shot(struct darwin_source *d, const struct shot *sh)
{
	struct ktrace_stream_record *r = &d->src.rec;

	memset(r, 0, sizeof(*r));
	d->cur_shot = sh;
	r->kind = KTRACE_STREAM_EVENT;
	r->ts = sh->ns;
	r->cpu = -1;
	r->tid = -1;
	r->pid = -1;
	r->comm = "";
	r->system = "kcdata";
	r->name = sh->begin_type == KCDATA_BUFFER_BEGIN_DELTA_STACKSHOT ? "delta_stackshot"
									: "stackshot";
	r->event_id = sh->begin_type;
	r->offset = sh->offset;
}

/* The record of d->ev: 0, or -ENOMEM. */
static int fill(struct darwin_source *d)
{
	struct ktrace_stream_record *r = &d->src.rec;
	const struct ktrace_darwin_thread *th = ktrace_darwin_find_thread(d->k, d->ev.thread);
	uint32_t id = KTRACE_DARWIN_EVENTID(d->ev.debugid);
	unsigned slot = (id >> 2 ^ id >> 16) % 256;

	d->cur_shot = NULL;
	memset(r, 0, sizeof(*r));
	r->kind = id == KTRACE_TRACE_LOST_EVENTS ? KTRACE_STREAM_LOST : KTRACE_STREAM_EVENT;
	r->ts = d->ev.ns;
	r->cpu = (int32_t)d->ev.cpu;
	r->tid = (int64_t)d->ev.thread;
	r->pid = th ? th->pid : -1;
	snprintf(d->comm, sizeof(d->comm), "%s", th ? th->command : "");
	r->comm = d->comm;
	if (!d->names[slot].name || d->names[slot].id != id) {
		const char *cn = ktrace_darwin_codes_class(d->codes, KTRACE_DARWIN_CLASS(id));
		const char *n = ktrace_darwin_event_name(d->codes, id, d->name, sizeof(d->name));

		if (!cn) {
			/* a class nobody named: its number */
			snprintf(d->cls, sizeof(d->cls), "0x%02x", KTRACE_DARWIN_CLASS(id));
			cn = d->cls;
		}
		d->names[slot].system = kt_stream_intern(d->src.stream, cn);
		d->names[slot].name = kt_stream_intern(d->src.stream, n);
		d->names[slot].id = id;
		if (!d->names[slot].system || !d->names[slot].name) {
			d->names[slot].name = NULL;
			return -ENOMEM;
		}
	}
	r->system = d->names[slot].system;
	r->name = d->names[slot].name;
	r->event_id = d->ev.debugid;
	r->offset = d->ev.offset;
	r->lost = 0;   /* the kernel does not say how many */
	return 0;
}

static bool before(const struct pending *a, const struct pending *b)
{
	return a->ev.ns < b->ev.ns || (a->ev.ns == b->ev.ns && a->seq < b->seq);
}

static void heap_push(struct darwin_source *d, const struct ktrace_darwin_event *ev)
{
	size_t i = d->nheap++;

	d->heap[i] = (struct pending){ *ev, d->seq++ };
	while (i && before(&d->heap[i], &d->heap[(i - 1) / 2])) {
		struct pending t = d->heap[i];

		d->heap[i] = d->heap[(i - 1) / 2];
		d->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct darwin_source *d, struct ktrace_darwin_event *ev)
{
	size_t i = 0;

	*ev = d->heap[0].ev;
	d->heap[0] = d->heap[--d->nheap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < d->nheap && before(&d->heap[l], &d->heap[m]))
			m = l;
		if (r < d->nheap && before(&d->heap[r], &d->heap[m]))
			m = r;
		if (m == i)
			break;
		struct pending t = d->heap[i];

		d->heap[i] = d->heap[m];
		d->heap[m] = t;
		i = m;
	}
}

static int darwin_advance(struct kt_source *src, struct ktrace_error *err)
{
	struct darwin_source *d = (struct darwin_source *)src;

	for (;;) {
		while (!d->eof && d->nheap < WINDOW) {
			struct ktrace_darwin_event ev;
			int ret = ktrace_darwin_next(d->k, &ev, &d->saved);

			if (ret <= 0) {
				d->eof = true;
				d->error = ret;
				break;
			}
			heap_push(d, &ev);
		}
		if (d->next_shot < d->nshots &&
		    (!d->nheap || d->shots[d->next_shot].ns <= d->heap[0].ev.ns)) {
			fill_shot(d, &d->shots[d->next_shot++]);
			return 1;
		}
		if (!d->nheap) {
			if (d->error < 0) {
				*err = d->saved;
				src->err_path = ktrace_input_name(d->in);
			}
			return d->error;
		}
		heap_pop(d, &d->ev);
		if (fill(d)) {
			src->err_path = NULL;
			return kt_error_oom(err);
		}
		if (src->rec.kind == KTRACE_STREAM_LOST &&
		    (kt_stream_opts(src->stream)->flags & KTRACE_STREAM_NO_LOST))
			continue;
		return 1;
	}
}

static int shot_field(const struct shot *sh, size_t i, struct ktrace_event_value *v)
{
	if (i >= NSHOTFIELDS)
		return -ENOENT;
	v->name = shot_field_names[i];
	if (i == S_ERROR) {
		v->type = KTRACE_EVENT_STRING;
		v->data = sh->error;
		v->len = (uint32_t)strlen(sh->error);
		return 0;
	}
	v->type = KTRACE_EVENT_UNSIGNED;
	v->u = i == S_OFFSET ? sh->offset : i == S_SIZE ? sh->size : i == S_TASKS ? sh->tasks
										    : sh->threads;
	v->i = (int64_t)v->u;
	return 0;
}

static int event_field(const struct ktrace_darwin_event *ev, size_t i, struct ktrace_event_value *v)
{
	uint32_t id = ev->debugid;
	uint64_t u;

	memset(v, 0, sizeof(*v));
	if (i >= NFIELDS)
		return -ENOENT;
	switch (i) {
	case F_DEBUGID: u = id; break;
	case F_CLASS: u = KTRACE_DARWIN_CLASS(id); break;
	case F_SUBCLASS: u = KTRACE_DARWIN_SUBCLASS(id); break;
	case F_CODE: u = KTRACE_DARWIN_CODE(id); break;
	case F_FUNC: u = KTRACE_DARWIN_FUNC(id); break;
	default: u = ev->arg[i - F_ARG1]; break;
	}
	v->name = field_names[i];
	v->type = KTRACE_EVENT_UNSIGNED;
	v->u = u;
	v->i = (int64_t)u;
	return 0;
}

static int darwin_field(struct kt_source *src, size_t i, struct ktrace_event_value *v)
{
	struct darwin_source *d = (struct darwin_source *)src;

	if (d->cur_shot) {
		memset(v, 0, sizeof(*v));
		return shot_field(d->cur_shot, i, v);
	}
	return event_field(&d->ev, i, v);
}

static size_t darwin_fields(struct kt_source *src, struct ktrace_event_value *v, size_t max)
{
	size_t n = ((struct darwin_source *)src)->cur_shot ? NSHOTFIELDS : NFIELDS;

	for (size_t i = 0; i < n && i < max; i++)
		darwin_field(src, i, &v[i]);
	return n;
}

static int darwin_format(struct kt_source *src, char *buf, size_t len, bool text_only)
{
	struct darwin_source *d = (struct darwin_source *)src;
	uint32_t f = KTRACE_DARWIN_FUNC(d->ev.debugid);
	char text[224];

	if (d->cur_shot) {
		const struct shot *sh = d->cur_shot;

		if (sh->error[0])
			snprintf(text, sizeof(text), "chunk at 0x%llx does not decode: %s",
				 (unsigned long long)sh->offset, sh->error);
		else
			snprintf(text, sizeof(text), "%llu tasks, %llu threads",
				 (unsigned long long)sh->tasks, (unsigned long long)sh->threads);
		if (text_only)
			return snprintf(buf, len, "%s", text);
		return kt_stream_generic_line(&src->rec, text, buf, len);
	}
	snprintf(text, sizeof(text), "%sarg1=0x%llx arg2=0x%llx arg3=0x%llx arg4=0x%llx",
		 f == KTRACE_DARWIN_FUNC_START ? "START " : f == KTRACE_DARWIN_FUNC_END ? "END " : "",
		 (unsigned long long)d->ev.arg[0], (unsigned long long)d->ev.arg[1],
		 (unsigned long long)d->ev.arg[2], (unsigned long long)d->ev.arg[3]);
	if (text_only)
		return snprintf(buf, len, "%s", text);
	return kt_stream_generic_line(&src->rec, text, buf, len);
}

/* xnu's scheduler events (bsd/sys/kdebug.h: DBG_MACH 0x01, DBG_MACH_SCHED 0x40) */
#define MACH_SCHED          0x01400000u   /* reason, new thread, old and new priority */
#define MACH_STACK_HANDOFF  0x01400008u   /* the same, for a switch by stack handoff */
#define MACH_MAKE_RUNNABLE  0x01400018u   /* thread, priority, wait result, run count */
/* The AST reasons of a switch whose old thread stays runnable (osfmk/kern/ast.h:
 * AST_PREEMPT, AST_QUANTUM, AST_URGENT, AST_YIELD, AST_REBALANCE). */
#define AST_STILL_RUNNABLE  (0x01u | 0x02u | 0x04u | 0x10u | 0x100000u)

static void thread_name(struct darwin_source *d, uint64_t tid, char *out)
{
	const struct ktrace_darwin_thread *th = ktrace_darwin_find_thread(d->k, tid);

	snprintf(out, KTRACE_STREAM_COMM_MAX, "%s", th ? th->command : "");
}

static int darwin_sched(struct kt_source *src, struct kt_sched_cache *cache, bool names,
			struct ktrace_stream_sched *out)
{
	struct darwin_source *d = (struct darwin_source *)src;
	uint32_t id = KTRACE_DARWIN_EVENTID(d->ev.debugid);
	const uint64_t *a = d->ev.arg;

	(void)cache;
	(void)names;          /* (they cost nothing here) */
	if (d->cur_shot)
		return 0;
	if (id == MACH_SCHED || id == MACH_STACK_HANDOFF) {
		/* logged by the thread that leaves the CPU */
		out->kind = KTRACE_STREAM_SCHED_SWITCH;
		out->prev_tid = (int64_t)d->ev.thread;
		thread_name(d, d->ev.thread, out->prev_comm);
		out->prev_prio = (int32_t)a[2];
		out->prev_state = (a[0] & AST_STILL_RUNNABLE) ? 0 : 1;
		snprintf(out->prev_state_text, sizeof(out->prev_state_text), "%s",
			 out->prev_state ? "S" : "R");
		out->next_tid = (int64_t)a[1];
		thread_name(d, a[1], out->next_comm);
		out->next_prio = (int32_t)a[3];
		return 1;
	}
	if (id == MACH_MAKE_RUNNABLE) {
		out->kind = KTRACE_STREAM_SCHED_WAKEUP;
		out->next_tid = (int64_t)a[0];
		thread_name(d, a[0], out->next_comm);
		out->next_prio = (int32_t)a[1];
		return 1;
	}
	return 0;
}

/* The read-ahead copy: the event, and its scheduling meaning (the thread map's names
 * are the reading thread's). */
struct darwin_snap {
	struct ktrace_darwin_event ev;
	const struct shot *shot;      /* a stackshot record (the source keeps them) */
	bool sched;
	struct ktrace_stream_sched sc;
};

static size_t darwin_snap_size(struct kt_source *src)
{
	return (sizeof(struct darwin_snap) + 7) & ~(size_t)7;
}

static void darwin_snap_write(struct kt_source *src, void *data)
{
	struct darwin_source *d = (struct darwin_source *)src;
	struct darwin_snap *sn = data;

	sn->ev = d->ev;
	sn->shot = d->cur_shot;
	memset(&sn->sc, 0, sizeof(sn->sc));
	sn->sc.target_cpu = -1;
	sn->sched = darwin_sched(src, NULL, true, &sn->sc) > 0;
}

static int darwin_snap_field(const void *data, size_t i, struct ktrace_event_value *v)
{
	const struct darwin_snap *sn = data;

	if (sn->shot) {
		memset(v, 0, sizeof(*v));
		return shot_field(sn->shot, i, v);
	}
	return event_field(&sn->ev, i, v);
}

static size_t darwin_snap_fields(const void *data, struct ktrace_event_value *v, size_t max)
{
	size_t n = ((const struct darwin_snap *)data)->shot ? NSHOTFIELDS : NFIELDS;

	for (size_t i = 0; i < n && i < max; i++)
		darwin_snap_field(data, i, &v[i]);
	return n;
}

static int darwin_snap_sched(struct kt_sched_cache *cache, const struct ktrace_stream_record *r,
			     const void *data, bool names, struct ktrace_stream_sched *out)
{
	const struct darwin_snap *sn = data;

	(void)cache;
	(void)r;
	(void)names;
	if (!sn->sched)
		return 0;
	*out = sn->sc;
	return 1;
}

static void darwin_close(struct kt_source *src)
{
	struct darwin_source *d = (struct darwin_source *)src;

	if (d->k)
		ktrace_darwin_close(d->k);
	if (d->codes)
		ktrace_darwin_codes_free(d->codes);
	ktrace_input_close(d->in);
	free(d->shots);
	free(d);
}

static int shot_cmp(const void *a, const void *b)
{
	const struct shot *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Decodes the file's stackshot chunks, one at a time, into d->shots. A container too
 * corrupt to list its chunks gives none here: reading the events reports it. */
static int load_shots(struct darwin_source *d, struct ktrace_error *err)
{
	struct ktrace_error quiet = { 0 };
	int n = ktrace_darwin_stackshot_count(d->k, &quiet);

	if (n <= 0)
		return 0;
	d->shots = calloc((size_t)n, sizeof(*d->shots));
	if (!d->shots)
		return kt_error_oom(err);
	for (int i = 0; i < n; i++) {
		struct ktrace_darwin_stackshot info = { 0 };
		struct shot *sh = &d->shots[d->nshots];
		struct kcdata_node *root = NULL;
		int ret = ktrace_darwin_stackshot(d->k, (size_t)i, &info, &root, &quiet);

		if (ret == -ENOENT)
			break;
		if (ret == -ENOMEM) {
			*err = quiet;
			return ret;
		}
		sh->offset = info.offset;
		sh->size = info.size;
		sh->tasks = info.tasks;
		sh->threads = info.threads;
		sh->begin_type = info.begin_type;
		if (ret < 0) {
			snprintf(sh->error, sizeof(sh->error), "%.150s", quiet.message);
		} else {
			const struct kcdata_node *top = root && kcdata_node_count(root) == 1
							      ? kcdata_node_at(root, 0) : NULL;
			const struct kcdata_node *t = kcdata_node_get(top, "mach_absolute_time");

			if (t && kcdata_node_kind(t) == KCDATA_NODE_INT)
				sh->ns = ktrace_darwin_ns(d->k, kcdata_node_uint(t));
		}
		kcdata_node_free(root);
		d->nshots++;
	}
	if (d->nshots > 1)
		qsort(d->shots, d->nshots, sizeof(*d->shots), shot_cmp);
	return 0;
}

static const struct kt_source_ops darwin_ops = {
	.advance = darwin_advance,
	.field = darwin_field,
	.fields = darwin_fields,
	.format = darwin_format,
	.sched = darwin_sched,
	.close = darwin_close,
	.snap_size = darwin_snap_size,
	.snap_write = darwin_snap_write,
	.snap_field = darwin_snap_field,
	.snap_fields = darwin_snap_fields,
	.snap_sched = darwin_snap_sched,
};

int kt_source_darwin(struct ktrace_stream *s, const char *path, uint32_t index,
		     struct kt_source **out, struct ktrace_error *err)
{
	const struct ktrace_stream_opts *o = kt_stream_opts(s);
	struct darwin_source *d = calloc(1, sizeof(*d));
	struct ktrace_stream_source *info;
	const struct ktrace_darwin_thread *th;
	const struct ktrace_darwin_info *di;
	size_t n = 0;
	int ret;

	if (!d)
		return kt_error_oom(err);
	d->src.ops = &darwin_ops;
	d->src.stream = s;
	ret = ktrace_input_open(path, &d->in, err);
	if (ret) {
		free(d);
		return ret;
	}
	ret = ktrace_darwin_open(d->in, NULL, &d->k, err);
	if (ret)
		goto fail;
	if (o->codes_file) {
		d->codes = ktrace_darwin_codes_new();
		if (!d->codes) {
			ret = kt_error_oom(err);
			goto fail;
		}
		ret = ktrace_darwin_codes_load_file(d->codes, o->codes_file, err);
		if (ret < 0)
			goto fail;
		ret = 0;
	}
	info = kt_stream_add_info(s, index, path, ktrace_darwin_file(d->k) ? KTRACE_FORMAT_DARWIN_V3
									 : KTRACE_FORMAT_DARWIN_RAW);
	if (!info) {
		ret = kt_error_oom(err);
		goto fail;
	}
	di = ktrace_darwin_get_info(d->k);
	info->cpus = (uint32_t)di->cpus;
	info->sysname = "Darwin";
	info->clock = "mach_absolute_time";
	th = ktrace_darwin_threads(d->k, &n);
	for (size_t i = 0; i < n; i++) {
		if (!th[i].thread)
			continue;
		if (kt_stream_add_task(s, index, (int64_t)th[i].thread, th[i].pid, th[i].command)) {
			ret = kt_error_oom(err);
			goto fail;
		}
	}
	ret = load_shots(d, err);
	if (ret)
		goto fail;
	*out = &d->src;
	return 0;
fail:
	darwin_close(&d->src);
	return ret;
}
