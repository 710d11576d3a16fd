// SPDX-License-Identifier: MIT
/*
 * `ktrace timeline` (<ktrace/view.h>): reads the inputs through the event stream,
 * gives each record to timeline_model.c (classes, threads, names), to the engine's
 * model (engine_model.h: what the threads and CPUs did, docs/model.md) and to the writer
 * of the output asked for (timeline_html.c or timeline_svg.c), which also takes the
 * model's thread intervals as the model hands them out: the lanes are the model's. A
 * damaged input stops the stream: what was read is drawn, the damage is marked, and
 * the stream's error is returned.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/view.h>

#include "common/check.h"
#include "common/cpus.h"
#include "common/grow.h"
#include "common/opts.h"
#include "sinks/timeline/timeline_writers.h"

void tl_format_ts(char *buf, size_t len, uint64_t ns)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);

	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
}

/* A model is busy when switches are at least 1 in TL_BUSY_MODEL of the first chunk of
 * records (the sched mix of bench/report: 1 in 4; the others: 1 in 100 or fewer). */
#define TL_BUSY_MODEL 8

/*
 * The engine's model (the lanes), fed by the caller's loop (an SVG, one CPU, or a model
 * that is not busy); for a page of one line thread on two CPUs or more, by a thread of
 * its own (the model thread) with a stream of its own from the start. With two line
 * threads or more the caller's thread feeds it the first chunk of records, and hands a
 * busy one to the model thread, which passes over those records and makes the line
 * chunks of the last line thread in its place (lines[driven]: it reads every record
 * anyway): the model and the columns then run side by side (the sched mix of
 * bench/report: 0.36 s instead of 0.45 s), while on the other traces a line thread that
 * passes over the others' chunks costs less than a second whole read. The page's
 * intervals go into its state chunks as they come, their threads in a table of the
 * model's (the caller's thread keeps the timeline's), mapped to the page's at the end
 * (tl_html's smap).
 */

struct tl_run {
	struct tl_model *m;
	struct tl_html *html;          /* one of the two */
	struct tl_svg *svg;
	struct kt_model *model;
	struct kt_threads threads;     /* the page's intervals' (input, tid); data: its CPU
					* time (uint64_t) */
	uint32_t *by_model;            /* the model's thread number -> 1 + threads' (0: not
					* met yet), a table of by_model_cap */
	size_t by_model_cap;
	/* the model thread's: it opens the model (its walk) and its stream itself, while
	 * the caller's thread reads */
	const struct ktrace_view_timeline_opts *o;
	uint64_t from;                 /* the records the caller's thread fed the model */
	bool threaded;
	struct ktrace_stream *s;
	pthread_t th;
	bool running;
	int ret;
	struct ktrace_error err;
	const char *err_path;          /* (the input of its error, when it concerns one) */
};

/* The page's number (in run->threads) of the model's thread numbered model_th, (input,
 * tid). 0 or -ENOMEM. */
static int page_thread(struct tl_run *run, uint32_t input, int64_t tid, uint32_t model_th, uint32_t *out)
{
	struct kt_thread *t;

	if (model_th < run->by_model_cap && run->by_model[model_th]) {
		*out = run->by_model[model_th] - 1;
		return 0;
	}
	if (!(t = kt_threads_add(&run->threads, input, tid)))
		return -ENOMEM;
	*out = (uint32_t)kt_threads_index(&run->threads, t);
	if (model_th >= run->by_model_cap) {
		size_t old = run->by_model_cap;

		if (kt_grow((void **)&run->by_model, &run->by_model_cap, (size_t)model_th + 1,
			    sizeof(*run->by_model)))
			return 0;       /* (the table is only a shortcut) */
		memset(run->by_model + old, 0, (run->by_model_cap - old) * sizeof(*run->by_model));
	}
	run->by_model[model_th] = *out + 1;
	return 0;
}

static int on_state(void *ctx, const struct kt_model_state *st, struct ktrace_error *err)
{
	struct tl_run *run = ctx;
	struct tl_model *m = run->m;
	/* one still open: to its input's end (a thread still running ran until then) */
	uint64_t ns = kt_model_state_ns(run->model, st), cpu_ns = 0;
	uint32_t th, state;
	enum tl_state draw;

	if (tl_model_state(m, st->state, &state, &draw))
		return kt_error_oom(err);
	/* CPU time: its Running intervals, as summary counts it */
	if (draw == TL_RUNNING && st->tid != 0)
		cpu_ns = ns;

	if (run->svg) {
		th = tl_model_thread(m, st->input, st->tid);
		if (th == TL_NO_THREAD)
			return kt_error_oom(err);
		tl_thread_at(m, th)->cpu_ns += cpu_ns;
		tl_svg_state(run->svg, th, draw, st, st->ts + ns);
		return 0;
	}
	if (page_thread(run, st->input, st->tid, st->thread, &th))
		return kt_error_oom(err);
	*(uint64_t *)kt_threads_ext(&run->threads, th) += cpu_ns;
	return tl_html_state(run->html, th, state, st) ? kt_error_oom(err) : 0;
}

/* A wakeup latency (the page's only): its thread and waker numbered as the states'. */
static int on_latency(void *ctx, const struct kt_model_latency *l, struct ktrace_error *err)
{
	struct tl_run *run = ctx;
	struct kt_thread *t;
	uint32_t th, waker = TL_NO_THREAD;

	if (page_thread(run, l->input, l->tid, l->thread, &th))
		return kt_error_oom(err);
	if (l->waker_tid >= 0) {
		if (!(t = kt_threads_add(&run->threads, l->input, l->waker_tid)))
			return kt_error_oom(err);
		waker = (uint32_t)kt_threads_index(&run->threads, t);
	}
	return tl_html_latency(run->html, th, waker, l) ? kt_error_oom(err) : 0;
}

/* What the model hands the page (an SVG takes no latency). */
static struct kt_model_ops model_ops(struct tl_run *run)
{
	return (struct kt_model_ops){ .ctx = run, .state = on_state,
				      .latency = run->svg ? NULL : on_latency };
}

/* The model's end: its inputs' ends (where intervals still open end), then the
 * intervals still open. */
static int finish_model(struct tl_model *m, struct kt_model *model, struct ktrace_error *err)
{
	for (size_t i = 0; i < m->ninputs; i++)
		m->in_end[i] = kt_model_input_end(model, (uint32_t)i);
	return kt_model_finish(model, err);
}

/* The model thread: every record of its stream to the model (those after the run->from
 * the caller's thread fed it, passed over), and to its line chunks if it makes some. A
 * damaged input ends the stream where the caller's ends (the caller reports it). */
static void *model_thread(void *arg)
{
	struct tl_run *run = arg;
	struct tl_html *h = run->html;
	const struct ktrace_view_timeline_opts *o = run->o;
	const struct kt_model_ops ops = model_ops(run);
	struct tl_lines *l = h->driven >= 0 ? &h->lines[h->driven] : NULL;
	/* (the records the caller's thread fed the model already: all passed over) */
	const struct kt_stream_skip fed = { tl_lines_passed, l };
	struct ktrace_stream *s;
	struct kt_model *model;
	const struct ktrace_stream_record *r;
	struct ktrace_error serr, err;
	unsigned tid = l ? l->tid : 0;
	uint64_t k = 0;
	bool first = !run->from, own;
	int ret, sret = 1;

	if ((!run->model &&
	     (ret = kt_model_open(&run->model, o->paths, o->npaths, o->stream, &ops, &err, &run->err_path))) ||
	    (ret = ktrace_stream_open(&run->s, o->paths, o->npaths, o->stream, &err, &run->err_path)))
		goto fail;
	s = run->s;
	model = run->model;
	while (k < run->from && (sret = ktrace_stream_next(s, &r, &serr)) > 0) {
		uint64_t skipped = 0;

		if (l)
			tl_lines_passed(l, r->event_id, r->tid, r->cpu, r->ts);
		if (++k < run->from && l && kt_stream_skip(s, run->from - k, &fed, &skipped, &serr) < 0)
			sret = -1;     /* (the damage: the caller's thread meets it too) */
		k += skipped;
	}
	/* (what the caller's thread reads, run and h, only read here until the end: it
	 * writes the cache lines around them for every record) */
	while (sret > 0 && !atomic_load_explicit(&h->stop, memory_order_relaxed) &&
	       (sret = ktrace_stream_next(s, &r, &serr)) > 0) {
		if (first) {
			tl_html_states_from(h, r->ts);
			first = false;
		}
		ret = kt_model_record(model, s, r, &err);
		if (!ret && l && (ret = tl_lines_record(l, tid, s, r, k++, &own)))
			kt_error_oom(&err);
		if (ret)
			goto fail;
	}
	if (l && (ret = tl_lines_finish(l))) {
		kt_error_oom(&err);
		goto fail;
	}
	if (!atomic_load(&h->stop) && (ret = finish_model(run->m, model, &err)))
		goto fail;
	return NULL;
fail:
	run->ret = ret;
	run->err = err;
	/* (the line threads stop too) */
	atomic_store(&h->stop, true);
	return NULL;
}

/* Waits for the model thread; its error (0: none) in err. */
static int join_model(struct tl_run *run, bool stop, struct ktrace_error *err)
{
	if (!run->running)
		return 0;
	if (stop)
		atomic_store(&run->html->stop, true);
	pthread_join(run->th, NULL);
	run->running = false;
	if (run->ret && err)
		*err = run->err;
	return run->ret;
}

/* The model's threads to the page's: their CPU time, and the map the page reads the
 * state chunks' threads through. */
static int map_threads(struct tl_run *run)
{
	struct tl_html *h = run->html;

	h->smap = malloc((run->threads.n ? run->threads.n : 1) * sizeof(*h->smap));
	if (!h->smap)
		return -ENOMEM;
	for (size_t i = 0; i < run->threads.n; i++) {
		const struct kt_thread *t = &run->threads.v[i];
		uint32_t th = tl_model_thread(run->m, t->scope, t->id);

		if (th == TL_NO_THREAD)
			return -ENOMEM;
		tl_thread_at(run->m, th)->cpu_ns = *(uint64_t *)kt_threads_ext(&run->threads, i);
		h->smap[i] = th;
	}
	h->nsmap = run->threads.n;
	return 0;
}

int ktrace_view_timeline(const struct ktrace_view_timeline_opts *oin, struct ktrace_out *out,
			 struct ktrace_error *err, const char **err_path, bool *drawn)
{
	struct ktrace_view_timeline_opts o;
	char title[512];
	struct ktrace_stream *s = NULL;
	struct tl_model m;
	struct tl_html html;
	struct tl_svg svg;
	struct tl_damage dmg = { 0 };
	struct tl_run run = { .m = &m };
	struct ktrace_error serr;
	const struct ktrace_stream_record *r;
	unsigned cpus = kt_usable_cpus();
	uint64_t nswitch = 0;
	int ret, sret = 0;

	*drawn = false;
	memset(&m, 0, sizeof(m));
	if (err_path)
		*err_path = NULL;
	ret = KT_OPTS_COPY(&o, oin, "ktrace_view_timeline_opts", err);
	if (ret)
		return ret;
	if (!o.npaths || !o.paths)
		return ktrace_error_set(err, -EINVAL, "no input to draw");
	if (!o.top_threads)
		o.top_threads = 16;
	if (!o.title) {
		/* the first input's file name, and how many more */
		const char *base = strrchr(o.paths[0], '/');

		base = base && base[1] ? base + 1 : o.paths[0];
		if (o.npaths > 1)
			snprintf(title, sizeof(title), "%s and %zu more", base, o.npaths - 1);
		else
			snprintf(title, sizeof(title), "%s", base);
		o.title = title;
	}
	if (o.has_from && o.has_to && o.to <= o.from)
		return ktrace_error_set(err, -EINVAL, "--to must be after --from");
	memset(&html, 0, sizeof(html));
	memset(&svg, 0, sizeof(svg));
	kt_threads_init(&run.threads, KT_THREADS_PER_SOURCE, 0, sizeof(uint64_t));
	if (o.svg)
		run.svg = &svg;
	else
		run.html = &html;
	ret = ktrace_stream_open(&s, o.paths, o.npaths, o.stream, err, err_path);
	if (ret)
		goto done;
	if (o.svg)
		ret = tl_svg_init(&svg, &m, &o);
	/* (the page's line threads start reading first, while the timeline takes the
	 * inputs' threads and the model walks them: their completeness; its opens after
	 * the line threads', always in that order) */
	if (!ret && !o.svg)
		ret = tl_html_begin(&html, out, &m, s, &o, cpus >= 2);
	if (!ret)
		ret = tl_model_init(&m, s);
	if (ret) {
		ret = ktrace_error_set(err, ret, "out of memory");
		goto done;
	}
	if (!o.svg)
		tl_html_wait_opened(&html);
	run.o = &o;
	/* one line thread (small inputs): the model thread reads beside it from the start;
	 * with more, the caller's thread feeds the model its first chunk of records, and
	 * hands it to a model thread of its own if it is busy (below) */
	if (!o.svg && html.nthr == 1 && cpus >= 2)
		run.running = run.threaded = !pthread_create(&run.th, NULL, model_thread, &run);
	if (!run.threaded) {
		const struct kt_model_ops ops = model_ops(&run);

		ret = kt_model_open(&run.model, o.paths, o.npaths, o.stream, &ops, err, err_path);
		if (ret)
			goto done;
	}
	for (;;) {
		struct tl_rec tr;

		sret = ktrace_stream_next(s, &r, &serr);
		if (sret <= 0)
			break;
		ret = tl_model_add(&m, s, r, &tr);
		if (!ret)
			ret = o.svg ? tl_svg_add(&svg, r, &tr, m.last_ts) : tl_html_add(&html, s, r, &tr);
		if (ret) {
			ret = ktrace_error_set(err, ret, "out of memory");
			goto done;
		}
		if (!run.threaded) {
			if (!o.svg && m.nrecs == 1)
				tl_html_states_from(&html, r->ts);
			ret = kt_model_record(run.model, s, r, err);
			if (ret)
				goto done;
			nswitch += tr.cls == TL_SWITCH;
			if (m.nrecs == TL_LCHUNK && !o.svg && nswitch >= TL_LCHUNK / TL_BUSY_MODEL &&
			    tl_html_drive_spare(&html)) {
				/* switches are many: the model's work would make this thread the
				 * longest; a thread of its own feeds it from here (and makes the
				 * line chunks of the line thread it replaces) */
				run.from = m.nrecs;
				run.running = run.threaded = !pthread_create(&run.th, NULL, model_thread, &run);
			}
		}
		if (o.progress && !(m.nrecs & 0xffff))
			o.progress(o.progress_arg, m.nrecs);
	}
	if (sret < 0) {
		const char *path = ktrace_stream_error_path(s);
		char msg[KTRACE_ERROR_MESSAGE_MAX + 64];

		ktrace_error_format(&serr, msg, sizeof(msg));
		dmg.set = true;
		dmg.ts = m.last_ts;
		snprintf(dmg.message, sizeof(dmg.message), "%s: %s", path ? path : "input", msg);
		/* the caller's own string, which outlives the stream */
		for (size_t i = 0; path && err_path && i < o.npaths; i++)
			if (!strcmp(o.paths[i], path))
				*err_path = o.paths[i];
	}
	ret = run.threaded ? join_model(&run, false, err) : finish_model(&m, run.model, err);
	if (ret && run.err_path && err_path)
		*err_path = run.err_path;
	if (!ret && !o.svg && map_threads(&run))
		ret = ktrace_error_set(err, -ENOMEM, "out of memory");
	if (ret)
		goto done;
	if (o.svg) {
		ret = tl_svg_write(&svg, s, out, &dmg);
		if (ret)
			ret = ktrace_error_set(err, ret, "out of memory");
	} else {
		ret = tl_html_end(&html, s, &dmg, err);
	}
	if (ret)
		goto done;
	*drawn = true;
	if (sret < 0) {
		*err = serr;
		ret = sret;
	}
done:
	join_model(&run, true, NULL);
	if (o.svg)
		tl_svg_free(&svg);
	else
		tl_html_free(&html);
	tl_model_free(&m);
	kt_model_free(run.model);
	kt_threads_free(&run.threads);
	free(run.by_model);
	/* err_path points into the stream's options (the caller's paths): still valid */
	ktrace_stream_close(s);
	ktrace_stream_close(run.s);
	return ret;
}
