// SPDX-License-Identifier: MIT
/*
 * The trace.dat set as sinks see it (engine/engine.h, kt_td_*): the set's records, its
 * files' facts, passing over records, and reading with several threads. The set itself
 * is engine_tdset.c's.
 */
#include "engine/engine.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_tdset_int.h"
#include "event/event_share.h"
#include "tracedat/tracedat_skip.h"

int kt_td_open(struct kt_tdset **out, size_t nfiles, const struct kt_tdset_opts *o,
	       bool lazy_avail, struct ktrace_error *err)
{
	/* the reading thread counts in the set at every record: cache lines of its own */
	struct kt_tdset *set = aligned_alloc(128, (sizeof(*set) + 127) & ~(size_t)127);
	int ret;

	*out = NULL;
	if (!set)
		return ktrace_error_set(err, -ENOMEM, "out of memory");
	ret = kt_tdset_init(set, nfiles, o, err);
	if (ret) {
		free(set);
		return ret;
	}
	set->lazy_avail = lazy_avail;
	*out = set;
	return 0;
}

void kt_td_close(struct kt_tdset *set)
{
	if (!set)
		return;
	kt_tdset_close(set);
	free(set);
}

int kt_td_open_file(struct kt_tdset *set, size_t i, const char *path, struct ktrace_input *input,
		    int64_t ts_offset)
{
	return kt_tdset_open_file(set, i, path, input, ts_offset);
}

struct kt_tdfile *kt_td_file(struct kt_tdset *set, size_t i)
{
	return &set->files[i];
}

int kt_td_add_filters(struct kt_tdset *set, struct kt_tdfile *f,
		      const struct ktrace_stream_filter *filters, size_t nfilters,
		      const struct ktrace_stream_task *tasks, size_t ntasks)
{
	return kt_tdset_add_filters(set, f, filters, nfilters, tasks, ntasks);
}

int kt_td_add_stream(struct kt_tdset *set, struct kt_tdfile *f, size_t buffer, bool multi)
{
	return kt_tdset_add_stream(set, f, buffer, multi);
}

int kt_td_next(struct kt_tdset *set, struct kt_tdrec *out)
{
	return kt_tdset_next(set, out);
}

int kt_td_advance(struct kt_tdset *set, struct kt_tdstream *s)
{
	return kt_tdset_advance(set, s);
}

void kt_td_avail(struct kt_tdrec *t)
{
	kt_tdrec_avail(t);
}

bool kt_td_peek(const struct kt_tdrec *t, struct ktrace_record *next)
{
	if (!t->s->head)
		return false;
	kt_tdstream_fill_record(t->s, t->s->head, next);
	return true;
}

int kt_td_end(struct kt_tdset *set)
{
	return kt_tdset_end(set);
}

bool kt_td_ended(const struct kt_tdset *set)
{
	return set->ended;
}

const char *kt_td_err_file(const struct kt_tdset *set)
{
	return set->err_file;
}

void kt_td_set_damage(struct kt_tdset *set, const struct ktrace_error *damage, const char *file)
{
	set->damaged = true;
	set->damage = *damage;
	set->damage_file = file;
}

uint64_t kt_td_visited(const struct kt_tdset *set)
{
	return set->visited;
}

uint64_t kt_td_span(const struct kt_tdset *set)
{
	return set->span;
}

size_t kt_td_file_index(const struct kt_tdset *set, const struct kt_tdfile *f)
{
	return (size_t)(f - set->files);
}

const char *kt_tdfile_path(const struct kt_tdfile *f)
{
	return f->path;
}

const char *kt_tdfile_base(const struct kt_tdfile *f)
{
	return f->base;
}

struct tracedat *kt_tdfile_td(const struct kt_tdfile *f)
{
	return f->td;
}

struct ktrace_events *kt_tdfile_events(const struct kt_tdfile *f)
{
	return f->evs;
}

bool kt_tdfile_usecs(const struct kt_tdfile *f)
{
	return f->usecs;
}

bool kt_tdfile_trace_clock(const struct kt_tdfile *f)
{
	return f->use_trace_clock;
}

unsigned kt_tdfile_ncpus(const struct kt_tdfile *f)
{
	return f->ncpus;
}

size_t kt_tdfile_ninstances(const struct kt_tdfile *f)
{
	return f->ninstances;
}

const struct ktrace_event *kt_tdfile_fg_entry(const struct kt_tdfile *f)
{
	return f->fg_entry;
}

size_t kt_tdfile_filters(const struct kt_tdfile *f,
			 void (*fn)(void *arg, const struct ktrace_event *ev, const char *text),
			 void *arg)
{
	size_t ip = 0, in = 0, nargs = f->nfilter_args;

	if (!f->npos && !f->nneg)
		return 0;
	for (size_t k = 0; k < nargs + (f->task_text != NULL); k++) {
		bool neg = k < nargs && f->filter_args[k].negative;
		struct ktrace_event_filter *flt = neg ? f->neg[in++] : f->pos[ip++];
		size_t n = ktrace_event_filter_event_count(flt);

		for (size_t i = 0; i < n; i++) {
			const struct ktrace_event *ev = ktrace_event_filter_event(flt, i);
			char *s = ktrace_event_filter_string(flt, ktrace_event_id(ev));

			if (s) {
				fn(arg, ev, s);
				free(s);
			}
		}
	}
	return f->npos + f->nneg;
}

struct kt_tdfile *kt_tdstream_file(const struct kt_tdstream *s)
{
	return s->f;
}

const char *kt_tdstream_label(const struct kt_tdstream *s)
{
	return s->label;
}

uint64_t kt_tdstream_offset(const struct kt_tdstream *s, const struct tracedat_record *rec,
			    unsigned *page_size)
{
	*page_size = s->page_size ? s->page_size : 4096;
	if (rec->compressed)
		return s->vbase ? s->vbase[rec->cpu_index] + rec->offset : rec->offset;
	return rec->offset;
}

/* ---- passing over records ---- */

struct skip_learn {
	struct kt_tdstream *s;
	void (*learn)(void *arg, const struct ktrace_record *kr);
	void *arg;
};

static bool skip_check(void *arg, const struct tracedat_record *rec, size_t id)
{
	struct skip_learn *l = arg;
	struct ktrace_record kr;

	(void)id;
	kt_tdstream_fill_record(l->s, rec, &kr);
	l->learn(l->arg, &kr);
	return true;
}

int kt_td_skip(struct kt_tdset *set, const uint8_t *skip, size_t nids,
	       void (*learn)(void *arg, const struct ktrace_record *kr), void *arg, uint64_t max,
	       uint64_t *n)
{
	struct kt_tdstream *s;
	struct tracedat_skip how;
	struct skip_learn l;
	const struct tracedat_record *rec;
	int ret;

	*n = 0;
	if (set->nstreams != 1 || set->filtering)
		return 1;
	s = &set->streams[0];
	if (!s->head || ftev_type_field(s->f->evs, &how.id_offset))
		return 1;
	l = (struct skip_learn){ s, learn, arg };
	how.skip = skip;
	how.nids = nids;
	how.check = skip_check;
	how.arg = &l;
	ret = tracedat_iter_skip(s->it, &how, max, n, &rec, set->err);
	set->visited += *n;
	s->head = rec;
	if (ret < 0 && (ret = kt_tdset_stream_error(set, s, ret)) < 0)
		return ret;
	return ret > 0 && *n == max ? 0 : 1;
}

/* ---- threads ---- */

void kt_td_keep(struct kt_tdset *set, size_t keep)
{
	for (size_t i = 0; i < set->nstreams; i++)
		tracedat_iter_keep(set->streams[i].it, keep);
}

size_t kt_td_registry_bytes(const struct kt_tdset *set)
{
	size_t n = 0;

	for (size_t i = 0; i < set->nfiles; i++)
		n += ktrace_event_memory(set->files[i].evs) - ftev_shared_bytes(set->files[i].evs);
	return n;
}

uint64_t kt_td_file_bytes(const struct kt_tdset *set)
{
	uint64_t n = 0;

	for (size_t i = 0; i < set->nfiles; i++)
		n += tracedat_header(set->files[i].td)->file_size;
	return n;
}

uint64_t kt_td_data_bytes(const struct kt_tdset *set)
{
	uint64_t n = 0;

	for (size_t i = 0; i < set->nfiles; i++) {
		const struct tracedat *td = set->files[i].td;

		for (size_t b = 0; td && b < tracedat_buffer_count(td); b++)
			for (size_t c = 0; c < tracedat_buffer(td, b)->cpus; c++)
				n += tracedat_buffer_cpu(td, b, c)->data_size;
	}
	return n;
}

/* A thread past the first: its set, its error, the caller's state for it. */
struct td_helper {
	struct kt_tdset set;
	const struct kt_tdset *src;
	const struct kt_td_threads_ops *ops;
	void *state;
	unsigned tid;
	size_t keep;
	struct ktrace_error err;
	int ret;
};

static void *helper_main(void *arg)
{
	struct td_helper *h = arg;

	/* a thread that cannot start (its readers, its memory) has taken no block: the
	 * others print them all */
	h->ret = 0;
	if (!kt_tdset_clone(&h->set, h->src, &h->err)) {
		kt_td_keep(&h->set, h->keep);
		h->ret = h->ops->run(h->state, h->tid, &h->set, &h->err);
	}
	return NULL;
}

int kt_td_threads(struct kt_tdset *set, unsigned nthr, size_t keep,
		  const struct kt_td_threads_ops *ops, void *arg)
{
	struct td_helper **helpers;
	pthread_t *th;
	unsigned started = 0;
	int ret;

	/* the other threads' registries share one symbol table per file, and the threads
	 * share the decompressed chunks of compressed data */
	for (size_t i = 0; i < set->nfiles; i++)
		if (kt_tdfile_share_symbols(&set->files[i]))
			return ktrace_error_set(set->err, -ENOMEM, "out of memory");
	ret = kt_tdset_share_chunks(set, nthr);
	if (ret)
		return ret;
	helpers = calloc(nthr, sizeof(*helpers));
	th = calloc(nthr, sizeof(*th));
	if (!helpers || !th) {
		free(helpers);
		free(th);
		return ktrace_error_set(set->err, -ENOMEM, "out of memory");
	}
	for (unsigned t = 1; t < nthr; t++) {
		struct td_helper *h = aligned_alloc(128, (sizeof(*h) + 127) & ~(size_t)127);

		if (!h)
			break;
		memset(h, 0, sizeof(*h));
		h->src = set;
		h->ops = ops;
		h->tid = t;
		h->keep = keep;
		h->state = ops->start(arg, t);
		if (!h->state) {
			free(h);
			break;
		}
		helpers[t] = h;
		if (pthread_create(&th[t], NULL, helper_main, h)) {
			ops->done(arg, h->state, 0, &h->err);
			free(h);
			helpers[t] = NULL;
			break;
		}
		started++;
	}
	/* a thread that cannot be created takes no block: the others print them all */
	ret = ops->run(arg, 0, set, set->err);
	for (unsigned t = 1; t <= started; t++) {
		struct td_helper *h = helpers[t];

		pthread_join(th[t], NULL);
		kt_tdset_close(&h->set);
		ops->done(arg, h->state, h->ret, &h->err);
		free(h);
	}
	free(helpers);
	free(th);
	return ret;
}
