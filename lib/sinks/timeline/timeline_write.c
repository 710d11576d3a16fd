// SPDX-License-Identifier: MIT
/*
 * `ktrace timeline` (<ktrace/view.h>): reads the inputs through the event stream,
 * gives each record to the slice/state model (timeline_model.c) and to the writer of
 * the output asked for (timeline_html.c or timeline_svg.c). A damaged input stops the
 * stream: what was read is drawn, the damage is marked, and the stream's error is
 * returned.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ktrace/view.h>

#include "common/opts.h"
#include "sinks/timeline/timeline_writers.h"

void tl_format_ts(char *buf, size_t len, uint64_t ns)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);

	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
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
	struct tl_sink sink = { 0 };
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
	ret = ktrace_stream_open(&s, o.paths, o.npaths, o.stream, err, err_path);
	if (ret)
		return ret;
	memset(&html, 0, sizeof(html));
	memset(&svg, 0, sizeof(svg));
	if (o.svg) {
		ret = tl_svg_init(&svg, &m, &o);
		sink = tl_svg_sink(&svg);
	}
	/* (the page's line threads start reading first, while the model takes the inputs'
	 * threads) */
	if (!ret && !o.svg)
		ret = tl_html_begin(&html, out, &m, s, &o);
	if (!ret)
		ret = tl_model_init(&m, s, &sink);
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
	tl_model_finish(&m);
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
	/* err_path points into the stream's options (the caller's paths): still valid */
	ktrace_stream_close(s);
	return ret;
}
