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
#include <string.h>

#include <ktrace/view.h>

#include "common/check.h"
#include "common/opts.h"
#include "sinks/timeline/timeline_writers.h"

void tl_format_ts(char *buf, size_t len, uint64_t ns)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);

	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
}

/* What the engine's model's callback needs. */
struct tl_run {
	struct tl_model *m;
	struct tl_html *html;          /* one of the two */
	struct tl_svg *svg;
};

static int on_state(void *ctx, const struct kt_model_state *st, struct ktrace_error *err)
{
	struct tl_run *run = ctx;
	struct tl_model *m = run->m;
	uint32_t th = tl_model_thread(m, st->input, st->tid), state;
	enum tl_state draw;

	if (th == TL_NO_THREAD || tl_model_state(m, st->state, &state, &draw))
		return kt_error_oom(err);
	/* CPU time: the closed Running intervals, as sched_slice's sum(dur) */
	if (draw == TL_RUNNING && st->dur >= 0 && st->tid != 0)
		tl_thread_at(m, th)->cpu_ns += (uint64_t)st->dur;
	if (run->svg) {
		uint64_t end = st->ts + (uint64_t)st->dur;

		/* one still open: to its input's last record */
		if (st->dur < 0)
			end = st->input < m->ninputs && m->in_end[st->input] > st->ts ? m->in_end[st->input] : st->ts;
		tl_svg_state(run->svg, th, draw, st, end);
		return 0;
	}
	return tl_html_state(run->html, th, state, st) ? kt_error_oom(err) : 0;
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
	struct kt_model *model = NULL;
	struct tl_run run = { .m = &m };
	struct ktrace_error serr;
	const struct ktrace_stream_record *r;
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
	if (o.svg)
		run.svg = &svg;
	else
		run.html = &html;
	{
		const struct kt_model_ops ops = { .ctx = &run, .state = on_state };

		/* (its walk of the inputs first: the completeness of every CPU) */
		ret = kt_model_open(&model, o.paths, o.npaths, o.stream, &ops, err, err_path);
		if (ret)
			return ret;
	}
	ret = ktrace_stream_open(&s, o.paths, o.npaths, o.stream, err, err_path);
	if (ret) {
		kt_model_free(model);
		return ret;
	}
	if (o.svg)
		ret = tl_svg_init(&svg, &m, &o);
	/* (the page's line threads start reading first, while the model takes the inputs'
	 * threads) */
	if (!ret && !o.svg)
		ret = tl_html_begin(&html, out, &m, s, &o);
	if (!ret)
		ret = tl_model_init(&m, s);
	if (ret) {
		ret = ktrace_error_set(err, ret, "out of memory");
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
		if (r->kind == KTRACE_STREAM_EVENT && r->source < m.ninputs &&
		    r->buffer == kt_model_buffer(model, r->source) && r->ts > m.in_end[r->source])
			m.in_end[r->source] = r->ts;
		ret = kt_model_record(model, s, r, err);
		if (ret)
			goto done;
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
	ret = kt_model_finish(model, err);
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
	if (o.svg)
		tl_svg_free(&svg);
	else
		tl_html_free(&html);
	tl_model_free(&m);
	kt_model_free(model);
	/* err_path points into the stream's options (the caller's paths): still valid */
	ktrace_stream_close(s);
	return ret;
}
