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
 */
#include <ktrace/darwin.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/stream_int.h"

#define WINDOW 256

struct pending {
	struct ktrace_darwin_event ev;
	uint64_t seq;
};

struct darwin_source {
	struct kt_source src;
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
};

enum { F_DEBUGID, F_CLASS, F_SUBCLASS, F_CODE, F_FUNC, F_ARG1, F_ARG2, F_ARG3, F_ARG4, NFIELDS };
static const char *const field_names[NFIELDS] = {
	"debugid", "class", "subclass", "code", "func", "arg1", "arg2", "arg3", "arg4",
};

static void fill(struct darwin_source *d)
{
	struct ktrace_stream_record *r = &d->src.rec;
	const struct ktrace_darwin_thread *th = ktrace_darwin_find_thread(d->k, d->ev.thread);
	uint32_t id = KTRACE_DARWIN_EVENTID(d->ev.debugid);
	const char *cn = ktrace_darwin_class_name(KTRACE_DARWIN_CLASS(id));
	const char *n = d->codes ? ktrace_darwin_codes_lookup(d->codes, id) : NULL;

	memset(r, 0, sizeof(*r));
	r->kind = id == KTRACE_TRACE_LOST_EVENTS ? KTRACE_STREAM_LOST : KTRACE_STREAM_EVENT;
	r->ts = d->ev.ns;
	r->cpu = (int32_t)d->ev.cpu;
	r->tid = (int64_t)d->ev.thread;
	r->pid = th ? th->pid : -1;
	snprintf(d->comm, sizeof(d->comm), "%s", th ? th->command : "");
	r->comm = d->comm;
	if (!cn) {
		snprintf(d->cls, sizeof(d->cls), "0x%02x", KTRACE_DARWIN_CLASS(id));
		cn = d->cls;
	}
	r->system = cn;
	r->name = n ? n : ktrace_darwin_builtin_name(id, d->name, sizeof(d->name));
	r->event_id = d->ev.debugid;
	r->offset = d->ev.offset;
	r->lost = 0;   /* the kernel does not say how many */
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
		if (!d->nheap) {
			if (d->error < 0) {
				*err = d->saved;
				src->err_path = ktrace_input_name(d->in);
			}
			return d->error;
		}
		heap_pop(d, &d->ev);
		fill(d);
		if (src->rec.kind == KTRACE_STREAM_LOST &&
		    (kt_stream_opts(src->stream)->flags & KTRACE_STREAM_NO_LOST))
			continue;
		return 1;
	}
}

static size_t darwin_field_count(struct kt_source *src)
{
	return NFIELDS;
}

static int darwin_field(struct kt_source *src, size_t i, struct ktrace_event_value *v)
{
	struct darwin_source *d = (struct darwin_source *)src;
	uint32_t id = d->ev.debugid;
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
	default: u = d->ev.arg[i - F_ARG1]; break;
	}
	v->name = field_names[i];
	v->type = KTRACE_EVENT_UNSIGNED;
	v->u = u;
	v->i = (int64_t)u;
	return 0;
}

static int darwin_format(struct kt_source *src, char *buf, size_t len, bool text_only)
{
	struct darwin_source *d = (struct darwin_source *)src;
	uint32_t f = KTRACE_DARWIN_FUNC(d->ev.debugid);
	char text[160];

	snprintf(text, sizeof(text), "%sarg1=0x%llx arg2=0x%llx arg3=0x%llx arg4=0x%llx",
		 f == KTRACE_DARWIN_FUNC_START ? "START " : f == KTRACE_DARWIN_FUNC_END ? "END " : "",
		 (unsigned long long)d->ev.arg[0], (unsigned long long)d->ev.arg[1],
		 (unsigned long long)d->ev.arg[2], (unsigned long long)d->ev.arg[3]);
	if (text_only)
		return snprintf(buf, len, "%s", text);
	return kt_stream_generic_line(&src->rec, text, buf, len);
}

static void darwin_close(struct kt_source *src)
{
	struct darwin_source *d = (struct darwin_source *)src;

	if (d->k)
		ktrace_darwin_close(d->k);
	if (d->codes)
		ktrace_darwin_codes_free(d->codes);
	ktrace_input_close(d->in);
	free(d);
}

static const struct kt_source_ops darwin_ops = {
	.advance = darwin_advance,
	.field_count = darwin_field_count,
	.field = darwin_field,
	.format = darwin_format,
	.close = darwin_close,
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
		return ktrace_error_set(err, -ENOMEM, "out of memory");
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
			ret = ktrace_error_set(err, -ENOMEM, "out of memory");
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
		ret = ktrace_error_set(err, -ENOMEM, "out of memory");
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
			ret = ktrace_error_set(err, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	*out = &d->src;
	return 0;
fail:
	darwin_close(&d->src);
	return ret;
}
