// SPDX-License-Identifier: MIT
/*
 * The timeline as a static SVG picture (timeline_writers.h). Every lane is cut into
 * TL_BINS time bins: a CPU bin keeps the thread that ran longest in it (drawn in the
 * thread's colour when threads ran at least a quarter of the bin), its ticks and lost
 * events; a thread bin keeps the time in each state (running, runnable, blocked,
 * unknown: missing data, drawn hatched). The intervals are the engine's model's
 * (engine_model.h): a CPU's slices are its Running intervals. Without --from/--to the bins
 * start at the first record and double their width (pairs merged) whenever a record
 * falls past the last one, so one pass and fixed memory suffice.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sinks/timeline/timeline_writers.h"

#define LABEL_W 200
#define PLOT_W 1200
#define AXIS_H 40
#define CPU_H 30
#define THREAD_H 16
#define GAP 8

static void free_cpubins(struct tl_cpubins *c)
{
	free(c->best);
	free(c->best_ns);
	free(c->busy_ns);
	free(c->ticks);
	free(c->lost_marks);
	free(c->lost);
}

static void free_threadbins(struct tl_threadbins *t)
{
	if (!t)
		return;
	for (int i = 0; i < TL_NSTATES; i++)
		free(t->ns[i]);
	free(t->ticks);
	free(t);
}

int tl_svg_init(struct tl_svg *v, struct tl_model *m, const struct ktrace_view_timeline_opts *o)
{
	memset(v, 0, sizeof(*v));
	v->o = o;
	v->m = m;
	if (o->has_from && o->has_to) {
		v->fixed = true;
		v->started = true;
		v->origin = o->from;
		v->binw = (o->to - o->from + TL_BINS - 1) / TL_BINS;
		if (!v->binw)
			v->binw = 1;
	}
	return 0;
}

void tl_svg_free(struct tl_svg *v)
{
	for (size_t i = 0; i < v->ncpus; i++)
		free_cpubins(&v->cpus[i]);
	free(v->cpus);
	for (size_t i = 0; i < v->nthreads; i++)
		free_threadbins(v->threads[i]);
	free(v->threads);
	memset(v, 0, sizeof(*v));
}

static struct tl_cpubins *cpubins(struct tl_svg *v, int cpu)
{
	if (cpu < 0)
		return NULL;
	if ((size_t)cpu >= v->ncpus) {
		struct tl_cpubins *n = kt_realloc_array(v->cpus, (size_t)cpu + 1, sizeof(*n));

		if (!n) {
			v->error = -ENOMEM;
			return NULL;
		}
		v->cpus = n;
		memset(&n[v->ncpus], 0, ((size_t)cpu + 1 - v->ncpus) * sizeof(*n));
		v->ncpus = (size_t)cpu + 1;
	}
	{
		struct tl_cpubins *c = &v->cpus[cpu];

		if (!c->best) {
			c->best = calloc(TL_BINS, sizeof(*c->best));
			c->best_ns = calloc(TL_BINS, sizeof(*c->best_ns));
			c->busy_ns = calloc(TL_BINS, sizeof(*c->busy_ns));
			c->ticks = calloc(TL_BINS, sizeof(*c->ticks));
			c->lost_marks = calloc(TL_BINS, sizeof(*c->lost_marks));
			c->lost = calloc(TL_BINS, sizeof(*c->lost));
			if (!c->best || !c->best_ns || !c->busy_ns || !c->ticks || !c->lost_marks ||
			    !c->lost) {
				v->error = -ENOMEM;
				return NULL;
			}
			for (size_t i = 0; i < TL_BINS; i++)
				c->best[i] = TL_NO_THREAD;
		}
		return c;
	}
}

static struct tl_threadbins *threadbins(struct tl_svg *v, uint32_t th)
{
	struct tl_threadbins *t;

	if (th == TL_NO_THREAD)
		return NULL;
	if (th >= v->nthreads) {
		size_t n = (size_t)th + 1;
		struct tl_threadbins **a = kt_realloc_array(v->threads, n, sizeof(*a));

		if (!a) {
			v->error = -ENOMEM;
			return NULL;
		}
		memset(&a[v->nthreads], 0, (n - v->nthreads) * sizeof(*a));
		v->threads = a;
		v->nthreads = n;
	}
	if (!v->threads[th]) {
		/* the first TL_SVG_MAX_THREADS threads met have bins (most inputs name many
		 * more threads than did anything) */
		if (v->nbins_threads >= TL_SVG_MAX_THREADS)
			return NULL;
		v->nbins_threads++;
		t = calloc(1, sizeof(*t));
		if (!t) {
			v->error = -ENOMEM;
			return NULL;
		}
		bool fail = false;

		for (int i = 0; i < TL_NSTATES; i++)
			fail |= !(t->ns[i] = calloc(TL_BINS, sizeof(float)));
		t->ticks = calloc(TL_BINS, sizeof(uint32_t));
		if (fail || !t->ticks) {
			free_threadbins(t);
			v->error = -ENOMEM;
			return NULL;
		}
		v->threads[th] = t;
	}
	return v->threads[th];
}

/* Bin width doubles: bins 2i and 2i+1 become bin i. */
static void merge_bins(struct tl_svg *v)
{
	for (size_t c = 0; c < v->ncpus; c++) {
		struct tl_cpubins *b = &v->cpus[c];

		if (!b->best)
			continue;
		for (size_t i = 0; i < TL_BINS; i++) {
			size_t a = 2 * i, z = 2 * i + 1;

			if (a >= TL_BINS) {
				b->best[i] = TL_NO_THREAD;
				b->best_ns[i] = b->busy_ns[i] = 0;
				b->ticks[i] = b->lost_marks[i] = 0;
				b->lost[i] = 0;
				continue;
			}
			if (z < TL_BINS && b->best_ns[z] > b->best_ns[a]) {
				b->best[i] = b->best[z];
				b->best_ns[i] = b->best_ns[z];
			} else {
				b->best[i] = b->best[a];
				b->best_ns[i] = b->best_ns[a];
			}
			b->busy_ns[i] = b->busy_ns[a] + (z < TL_BINS ? b->busy_ns[z] : 0);
			b->ticks[i] = b->ticks[a] + (z < TL_BINS ? b->ticks[z] : 0);
			b->lost_marks[i] = b->lost_marks[a] + (z < TL_BINS ? b->lost_marks[z] : 0);
			b->lost[i] = b->lost[a] + (z < TL_BINS ? b->lost[z] : 0);
		}
	}
	for (size_t t = 0; t < v->nthreads; t++) {
		struct tl_threadbins *b = v->threads[t];

		if (!b)
			continue;
		for (size_t i = 0; i < TL_BINS; i++) {
			size_t a = 2 * i, z = 2 * i + 1;

			for (int s = 0; s < TL_NSTATES; s++)
				b->ns[s][i] = a < TL_BINS ? b->ns[s][a] + (z < TL_BINS ? b->ns[s][z] : 0) : 0;
			b->ticks[i] = a < TL_BINS ? b->ticks[a] + (z < TL_BINS ? b->ticks[z] : 0) : 0;
		}
	}
	v->binw *= 2;
}

/* Makes the bins reach ts (growing mode); false when ts is outside (fixed mode). */
static bool reach(struct tl_svg *v, uint64_t ts)
{
	if (!v->started) {
		v->started = true;
		v->origin = ts;
		v->binw = 1024;
	}
	if (ts < v->origin)
		return false;
	if (v->fixed)
		return ts - v->origin < v->binw * TL_BINS;
	while (ts - v->origin >= v->binw * TL_BINS && v->binw < UINT64_MAX / (4 * TL_BINS))
		merge_bins(v);
	return true;
}

/* Calls fn for every bin [s, e) overlaps, with the overlap in ns. */
#define FOR_BINS(v, s, e, i, ov, body) do { \
	uint64_t s_ = (s) < (v)->origin ? (v)->origin : (s); \
	uint64_t lim_ = (v)->origin + (v)->binw * TL_BINS; \
	uint64_t e_ = (e) > lim_ ? lim_ : (e); \
	if (e_ <= s_) break; \
	for (size_t i = (size_t)((s_ - (v)->origin) / (v)->binw); i < TL_BINS; i++) { \
		uint64_t b0_ = (v)->origin + i * (v)->binw, b1_ = b0_ + (v)->binw; \
		uint64_t lo_ = s_ > b0_ ? s_ : b0_, hi_ = e_ < b1_ ? e_ : b1_; \
		float ov; \
		if (lo_ >= e_) break; \
		ov = (float)(hi_ - lo_); \
		body \
	} \
} while (0)

static void add_slice(struct tl_svg *v, int cpu, uint64_t start, uint64_t end, uint32_t thread)
{
	struct tl_cpubins *c = cpubins(v, cpu);

	if (!c)
		return;
	FOR_BINS(v, start, end, i, ov, {
		c->busy_ns[i] += ov;
		if (c->best[i] == thread) {
			c->best_ns[i] += ov;
		} else if (ov > c->best_ns[i]) {
			c->best[i] = thread;
			c->best_ns[i] = ov;
		}
	});
}

void tl_svg_state(struct tl_svg *v, uint32_t thread, enum tl_state draw,
		  const struct kt_model_state *st, uint64_t end)
{
	struct tl_threadbins *t;

	if (end < st->ts)
		return;
	if (!v->fixed)
		reach(v, end);
	if (st->tid == 0)              /* the idle thread: blank */
		return;
	if (draw == TL_RUNNING && st->cpu >= 0 && st->cpu < TL_MAX_CPUS)
		add_slice(v, st->cpu, st->ts, end, thread);
	t = threadbins(v, thread);
	if (!t)
		return;
	FOR_BINS(v, st->ts, end, i, ov, { t->ns[draw][i] += ov; });
}

int tl_svg_add(struct tl_svg *v, const struct ktrace_stream_record *r, const struct tl_rec *tr,
	       uint64_t ts)
{
	size_t i;

	if (!reach(v, ts))
		return v->error;
	i = (size_t)((ts - v->origin) / v->binw);
	if (i >= TL_BINS)
		return v->error;
	if (tr->cls == TL_LOST) {
		struct tl_cpubins *c = cpubins(v, r->cpu);

		if (c) {
			c->lost_marks[i]++;
			c->lost[i] += tr->lost;
		}
	} else if (tr->cls != TL_SWITCH) {
		struct tl_cpubins *c = r->cpu >= 0 && (size_t)r->cpu < v->m->ncpus ? cpubins(v, r->cpu) : NULL;
		struct tl_threadbins *t = threadbins(v, tr->thread);

		if (c)
			c->ticks[i]++;
		if (t)
			t->ticks[i]++;
	}
	return v->error;
}

/* ---- writing ---- */

static void put_text(struct ktrace_out *o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '<')
			kt_out_puts(o, "&lt;");
		else if (c == '>')
			kt_out_puts(o, "&gt;");
		else if (c == '&')
			kt_out_puts(o, "&amp;");
		else if (c == '"')
			kt_out_puts(o, "&quot;");
		else if (c < 0x20 || c >= 0x7f)
			kt_out_printf(o, "&#x%x;", c >= 0x7f ? 0xfffd : 0x2423);   /* not XML text */
		else
			kt_out_putc(o, (char)c);
	}
}

static double bin_x(const struct tl_svg *v, size_t i)
{
	return LABEL_W + (double)i * PLOT_W / TL_BINS;
}

static int cmp_threads(const void *a, const void *b, void *arg)
{
	const struct tl_model *m = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct tl_thread *x = tl_thread_at(m, i), *y = tl_thread_at(m, j);
	int64_t xtid = tl_thread_entry(m, i)->id, ytid = tl_thread_entry(m, j)->id;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	if (x->nrecs != y->nrecs)
		return x->nrecs < y->nrecs ? 1 : -1;
	return (xtid > ytid) - (xtid < ytid);
}

/* Threads in lane order: CPU time, then records (KOFF has no CPU time). */
static uint32_t *sorted_threads(const struct tl_model *m, size_t *n)
{
	uint32_t *v = malloc((m->threads.n ? m->threads.n : 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < m->threads.n; i++)
		if (tl_thread_entry(m, (uint32_t)i)->id != 0 &&
		    (tl_thread_at(m, (uint32_t)i)->cpu_ns || tl_thread_at(m, (uint32_t)i)->nrecs))
			v[k++] = (uint32_t)i;
	qsort_r(v, k, sizeof(*v), cmp_threads, (void *)m);
	*n = k;
	return v;
}

static void axis(struct tl_svg *v, struct ktrace_out *o, double height)
{
	uint64_t span = v->binw * TL_BINS, step = 1;
	char ts[48];

	/* steps 1, 2, 5, 10, 20, 50 ... ns */
	for (;;) {
		if (span / step <= 10)
			break;
		if (span / (step * 2) <= 10) {
			step *= 2;
			break;
		}
		if (span / (step * 5) <= 10) {
			step *= 5;
			break;
		}
		step *= 10;
	}
	kt_out_printf(o, "<g class=\"axis\" font-size=\"11\" fill=\"#333\">\n");
	for (uint64_t t = (v->origin + step - 1) / step * step; t < v->origin + span; t += step) {
		double x = LABEL_W + (double)(t - v->origin) * PLOT_W / (double)span;

		tl_format_ts(ts, sizeof(ts), t);
		kt_out_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>"
			      "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			      x, AXIS_H - 12, x, height, x, AXIS_H - 16, ts);
	}
	kt_out_printf(o, "</g>\n");
}

int tl_svg_write(struct tl_svg *v, struct ktrace_stream *s, struct ktrace_out *o,
		 const struct tl_damage *dmg)
{
	const struct tl_model *m = v->m;
	size_t nth = 0, shown, ncpu = 0;
	uint32_t *order = sorted_threads(m, &nth);
	double y, height;
	char a[48], b[48];

	if (!order)
		return -ENOMEM;
	if (v->error) {
		free(order);
		return v->error;
	}
	if (!v->started) {
		v->origin = 0;
		v->binw = 1;
	}
	for (size_t c = 0; c < v->ncpus && c < m->ncpus; c++)
		ncpu += m->cpus[c].seen;
	shown = nth < v->o->top_threads ? nth : v->o->top_threads;
	height = AXIS_H + (double)ncpu * CPU_H + GAP + (double)shown * THREAD_H + 40;
	kt_out_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		      "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" data-origin=\"%" PRIu64 "\" "
		      "data-binw=\"%" PRIu64 "\" data-bins=\"%d\">\n",
		      LABEL_W + PLOT_W + 20, height, LABEL_W + PLOT_W + 20, height, v->origin, v->binw,
		      TL_BINS);
	tl_format_ts(a, sizeof(a), v->origin);
	tl_format_ts(b, sizeof(b), v->origin + v->binw * TL_BINS);
	kt_out_printf(o, "<title>ktrace timeline: ");
	put_text(o, v->o->title ? v->o->title : v->o->paths[0]);
	kt_out_printf(o, " (%s to %s)</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		      a, b);
	/* unknown (missing data): grey hatching */
	kt_out_printf(o, "<defs><pattern id=\"unknown\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
		      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eee\"/>"
		      "<rect width=\"2\" height=\"6\" fill=\"#999\"/></pattern></defs>\n"
		      "<g class=\"legend\" font-size=\"11\" fill=\"#333\"><rect x=\"%d\" y=\"%.0f\" width=\"18\" "
		      "height=\"10\" fill=\"url(#unknown)\"/><text x=\"%d\" y=\"%.0f\">unknown (missing data)</text></g>\n",
		      LABEL_W + PLOT_W - 160, height - 22, LABEL_W + PLOT_W - 138, height - 13);
	axis(v, o, height - 30);
	y = AXIS_H;
	/* CPU lanes */
	for (size_t c = 0; c < m->ncpus; c++) {
		const struct tl_cpubins *cb = c < v->ncpus ? &v->cpus[c] : NULL;

		if (!m->cpus[c].seen)
			continue;
		kt_out_printf(o, "<g class=\"cpu\" data-cpu=\"%zu\">\n<text x=\"8\" y=\"%.0f\" font-size=\"12\">CPU %zu</text>\n"
			      "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"#f7f7f7\"/>\n",
			      c, y + 16, c, LABEL_W, y, PLOT_W, CPU_H - 4);
		for (size_t i = 0; cb && cb->best && i < TL_BINS;) {
			size_t j = i + 1;
			uint32_t th = cb->busy_ns[i] >= 0.25f * (float)v->binw ? cb->best[i] : TL_NO_THREAD;

			if (th == TL_NO_THREAD) {
				i++;
				continue;
			}
			while (j < TL_BINS && cb->busy_ns[j] >= 0.25f * (float)v->binw && cb->best[j] == th)
				j++;
			kt_out_printf(o, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
				      "fill=\"hsl(%u,65%%,55%%)\"><title>",
				      bin_x(v, i), y, bin_x(v, j) - bin_x(v, i), CPU_H - 12,
				      tl_thread_hue(tl_thread_entry(m, th)->id));
			put_text(o, kt_thread_name(tl_thread_entry(m, th)));
			kt_out_printf(o, "-%" PRId64 "</title></rect>\n", tl_thread_entry(m, th)->id);
			i = j;
		}
		/* ticks and density: one mark per bin, darker for more events */
		for (size_t i = 0; cb && cb->ticks && i < TL_BINS; i++) {
			uint32_t n = cb->ticks[i];

			if (n)
				kt_out_printf(o, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"6\" "
					      "fill=\"#000\" fill-opacity=\"%.2f\"/>\n",
					      bin_x(v, i), y + CPU_H - 11, (double)PLOT_W / TL_BINS,
					      n >= 16 ? 0.9 : 0.25 + 0.65 * n / 16.0);
		}
		for (size_t i = 0; cb && cb->lost_marks && i < TL_BINS; i++) {
			if (!cb->lost_marks[i])
				continue;
			kt_out_printf(o, "<path class=\"lost\" d=\"M%.1f %.0f l4 -8 h-8 z\" fill=\"#d00\">"
				      "<title>%" PRIu64 " events lost</title></path>\n",
				      bin_x(v, i), y + 8, cb->lost[i]);
		}
		kt_out_printf(o, "</g>\n");
		y += CPU_H;
	}
	y += GAP;
	/* thread lanes */
	for (size_t k = 0; k < shown; k++) {
		uint32_t th = order[k];
		const struct kt_thread *t = tl_thread_entry(m, th);
		const struct tl_threadbins *tb = th < v->nthreads ? v->threads[th] : NULL;
		unsigned hue = tl_thread_hue(t->id);

		kt_out_printf(o, "<g class=\"thread\" data-tid=\"%" PRId64 "\" data-input=\"%" PRIu32 "\">\n"
			      "<text x=\"8\" y=\"%.0f\" font-size=\"11\">",
			      t->id, t->scope, y + 11);
		put_text(o, kt_thread_name(t));
		kt_out_printf(o, "-%" PRId64 "</text>\n", t->id);
		for (size_t i = 0; tb && i < TL_BINS; i++) {
			float best = 0;
			int st = -1;

			for (int q = 0; q < TL_NSTATES; q++)
				if (tb->ns[q][i] > best) {
					best = tb->ns[q][i];
					st = q;
				}
			if (st == TL_RUNNING)
				kt_out_printf(o, "<rect class=\"run\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"12\" fill=\"hsl(%u,65%%,55%%)\"/>\n",
					      bin_x(v, i), y, (double)PLOT_W / TL_BINS, hue);
			else if (st == TL_RUNNABLE)
				kt_out_printf(o, "<rect class=\"rbl\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"12\" fill=\"hsl(%u,65%%,85%%)\"/>\n",
					      bin_x(v, i), y, (double)PLOT_W / TL_BINS, hue);
			else if (st == TL_BLOCKED)
				kt_out_printf(o, "<rect class=\"blk\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"2\" fill=\"#bbb\"/>\n",
					      bin_x(v, i), y + 5, (double)PLOT_W / TL_BINS);
			else if (st == TL_UNKNOWN)
				kt_out_printf(o, "<rect class=\"unk\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
					      "height=\"12\" fill=\"url(#unknown)\"/>\n",
					      bin_x(v, i), y, (double)PLOT_W / TL_BINS);
			if (tb->ticks[i])
				kt_out_printf(o, "<rect x=\"%.1f\" y=\"%.0f\" width=\"1\" height=\"12\" fill=\"#000\" fill-opacity=\"0.5\"/>\n",
					      bin_x(v, i), y);
		}
		kt_out_printf(o, "</g>\n");
		y += THREAD_H;
	}
	if (nth > shown)
		kt_out_printf(o, "<text x=\"8\" y=\"%.0f\" font-size=\"11\" fill=\"#666\">%zu more threads "
			      "(the HTML page shows them all)</text>\n", y + 12, nth - shown);
	if (dmg->set) {
		double x = dmg->ts >= v->origin && dmg->ts - v->origin <= v->binw * TL_BINS
				   ? LABEL_W + (double)(dmg->ts - v->origin) * PLOT_W / ((double)v->binw * TL_BINS)
				   : LABEL_W + PLOT_W;

		kt_out_printf(o, "<g class=\"damage\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\" "
			      "stroke=\"#d00\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>"
			      "<text x=\"%d\" y=\"%.0f\" font-size=\"12\" fill=\"#d00\">damaged input: ",
			      x, AXIS_H, x, y, LABEL_W, height - 8);
		put_text(o, dmg->message);
		kt_out_printf(o, "</text></g>\n");
	}
	kt_out_printf(o, "</svg>\n");
	free(order);
	(void)s;
	return 0;
}
