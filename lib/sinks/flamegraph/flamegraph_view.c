// SPDX-License-Identifier: MIT
/*
 * `ktrace flamegraph` (<ktrace/view.h>): reads the inputs through the event stream,
 * gives each record to the weights (flamegraph_collect.c, which feeds the model), and
 * writes the tree of the kind asked for (flamegraph_tree.c) as folded lines or the SVG
 * (flamegraph_svg.c). A damaged input stops the stream: what was read is written, and
 * the stream's error is returned.
 */
#include <errno.h>
#include <string.h>

#include <ktrace/view.h>

#include "common/check.h"
#include "common/opts.h"
#include "sinks/flamegraph/flamegraph_int.h"

int ktrace_view_flamegraph(const struct ktrace_view_flamegraph_opts *oin, struct ktrace_out *out,
			   struct ktrace_error *err, const char **err_path, bool *drawn)
{
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct fg g;
	struct fg_tree t;
	struct ktrace_stream *s = NULL;
	struct ktrace_error serr = { 0 };
	const struct ktrace_stream_record *r;
	bool on_cpu;
	int ret, sret = 0;

	*drawn = false;
	if (err_path)
		*err_path = NULL;
	memset(&g, 0, sizeof(g));
	memset(&t, 0, sizeof(t));
	ret = KT_OPTS_COPY(&g.o, oin, "ktrace_view_flamegraph_opts", err);
	if (ret)
		return ret;
	if (!g.o.npaths || !g.o.paths)
		return ktrace_error_set(err, -EINVAL, "no input");
	if (g.o.mode > KTRACE_FLAMEGRAPH_ON_CPU || g.o.by > KTRACE_FLAMEGRAPH_BY_COMM)
		return ktrace_error_set(err, -EINVAL, "unknown flame graph mode or grouping");
	so.events_dir = g.o.events_dir;
	ret = ktrace_stream_open(&s, g.o.paths, g.o.npaths, &so, err, err_path);
	if (ret)
		return ret;
	ret = fg_init(&g, s, err);
	if (ret)
		goto done;
	while ((sret = ktrace_stream_next(s, &r, &serr)) > 0) {
		ret = fg_record(&g, r, err);
		if (ret)
			goto done;
		if (g.o.progress && !(g.records & 0xffff))
			g.o.progress(g.o.progress_arg, g.records);
	}
	if (sret < 0) {
		const char *path = ktrace_stream_error_path(s);

		/* the caller's own string, which outlives the stream */
		for (size_t i = 0; path && err_path && i < g.o.npaths; i++)
			if (!strcmp(g.o.paths[i], path))
				*err_path = g.o.paths[i];
	}
	ret = fg_finish(&g, err);
	if (ret)
		goto done;
	if (g.o.mode == KTRACE_FLAMEGRAPH_AUTO) {
		if (!g.switch_stacks && !g.on_stacks && sret >= 0) {
			ret = ktrace_error_set(err, -ENODATA, "no kernel stacks in the input "
					       "(ktrace record -T records them)");
			goto done;
		}
		on_cpu = !g.switch_stacks && g.on_stacks;
	} else {
		on_cpu = g.o.mode == KTRACE_FLAMEGRAPH_ON_CPU;
	}
	if (fg_tree_build(&g, on_cpu, &t)) {
		ret = kt_error_oom(err);
		goto done;
	}
	ret = g.o.svg ? fg_write_svg(&g, &t, on_cpu,
				     g.o.title ? g.o.title : on_cpu ? "On-CPU: kernel stacks of events"
								   : "Off-CPU: time switched out",
				     out)
		      : fg_write_folded(&g, &t, out);
	if (ret) {
		ret = kt_error_oom(err);
		goto done;
	}
	*drawn = true;
	if (sret < 0) {
		*err = serr;
		ret = sret;
	}
done:
	fg_tree_free(&t);
	fg_free(&g);
	ktrace_stream_close(s);
	return ret;
}
