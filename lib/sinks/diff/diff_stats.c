// SPDX-License-Identifier: MIT
/*
 * `ktrace diff`: the metrics, the rows (each metric of each entity of either side) and
 * their test (docs/diff.md): Mann-Whitney U, two-sided, normal approximation with tie
 * correction, on the rates of the sides' time windows (time and count metrics) or on
 * the sides' wakeup latencies (the summary's histograms: samples of a bucket tied).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "sinks/diff/diff_int.h"

/* Tests need at least this many samples on each side. */
#define MIN_WINDOWS 10
#define MIN_LATENCIES 20

const char *const df_kind_names[DK_KINDS] = { "trace", "process", "thread", "cpu", "irq",
					      "softirq", "syscall", "event" };

const struct df_metric df_metrics[] = {
	{ "cpu_time", DK_PROCESS, 0, DT_WINDOWS, "ns/s", SM_LACKS_SWITCH },
	{ "cpu_time", DK_THREAD, 0, DT_WINDOWS, "ns/s", SM_LACKS_SWITCH },
	{ "wakeup_latency.p50", DK_THREAD, 0, DT_LATENCY, "ns", SM_LACKS_WAKEUP },
	{ "wakeup_latency.p90", DK_THREAD, 1, DT_LATENCY, "ns", SM_LACKS_WAKEUP },
	{ "wakeup_latency.p99", DK_THREAD, 2, DT_LATENCY, "ns", SM_LACKS_WAKEUP },
	{ "wakeup_latency.max", DK_THREAD, 3, DT_LATENCY, "ns", SM_LACKS_WAKEUP },
	{ "wakeups", DK_THREAD, 4, DT_WINDOWS, "1/s", SM_LACKS_WAKEUP },
	{ "runnable_time", DK_THREAD, 1, DT_WINDOWS, "ns/s", SM_LACKS_SWITCH },
	{ "sleeping_time", DK_THREAD, 2, DT_WINDOWS, "ns/s", SM_LACKS_SWITCH },
	{ "blocked_time", DK_THREAD, 3, DT_WINDOWS, "ns/s", SM_LACKS_SWITCH },
	{ "cpu_busy", DK_CPU, 0, DT_WINDOWS, "ns/s", SM_LACKS_SWITCH },
	{ "cpu_irq_time", DK_CPU, 1, DT_WINDOWS, "ns/s", SM_LACKS_IRQ },
	{ "cpu_softirq_time", DK_CPU, 2, DT_WINDOWS, "ns/s", SM_LACKS_SOFTIRQ },
	{ "irq_count", DK_IRQ, 0, DT_WINDOWS, "1/s", SM_LACKS_IRQ },
	{ "irq_time", DK_IRQ, 1, DT_WINDOWS, "ns/s", SM_LACKS_IRQ },
	{ "softirq_count", DK_SOFTIRQ, 0, DT_WINDOWS, "1/s", SM_LACKS_SOFTIRQ },
	{ "softirq_time", DK_SOFTIRQ, 1, DT_WINDOWS, "ns/s", SM_LACKS_SOFTIRQ },
	{ "syscall_count", DK_SYSCALL, 0, DT_WINDOWS, "1/s", SM_LACKS_SYSCALL },
	{ "syscall_time", DK_SYSCALL, 1, DT_WINDOWS, "ns/s", SM_LACKS_SYSCALL },
	{ "process_syscall_count", DK_PROCESS, 1, DT_WINDOWS, "1/s", SM_LACKS_SYSCALL },
	{ "process_syscall_time", DK_PROCESS, 2, DT_WINDOWS, "ns/s", SM_LACKS_SYSCALL },
	{ "event_rate", DK_EVENT, 0, DT_WINDOWS, "1/s", 0 },
	{ "lost_events", DK_TRACE, 0, DT_WINDOWS, "1/s", 0 },
	{ "complete", DK_TRACE, 0, DT_NONE, "%", 0 },
};
const size_t df_nmetrics = sizeof(df_metrics) / sizeof(df_metrics[0]);

/* ---- Mann-Whitney U ---- */

struct sample {
	double v;
	uint64_t w;
	uint8_t side;
};

static int sample_order(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

static double mw_sorted(const struct sample *s, size_t n)
{
	double n1 = 0, n2 = 0, r1 = 0, ties = 0, rank = 0, N, mu, var, z;

	for (size_t i = 0; i < n; i++)
		*(s[i].side ? &n2 : &n1) += (double)s[i].w;
	if (n1 < 1 || n2 < 1)
		return NAN;
	for (size_t i = 0; i < n;) {
		double t = 0, t1 = 0;
		size_t j = i;

		while (j < n && s[j].v == s[i].v) {
			t += (double)s[j].w;
			if (!s[j].side)
				t1 += (double)s[j].w;
			j++;
		}
		r1 += t1 * (rank + (t + 1) / 2);
		ties += t * t * t - t;
		rank += t;
		i = j;
	}
	N = n1 + n2;
	mu = n1 * n2 / 2;
	var = n1 * n2 / 12 * ((N + 1) - ties / (N * (N - 1)));
	if (!(var > 0))
		return 1;
	z = (fabs(r1 - n1 * (n1 + 1) / 2 - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2));
}

double df_mann_whitney(const double *v, const uint64_t *w, const uint8_t *side, size_t n)
{
	struct sample *s = kt_realloc_array(NULL, n ? n : 1, sizeof(*s));
	double p;

	if (!s)
		return NAN;
	for (size_t i = 0; i < n; i++)
		s[i] = (struct sample){ v[i], w ? w[i] : 1, side[i] };
	qsort(s, n, sizeof(*s), sample_order);
	p = mw_sorted(s, n);
	free(s);
	return p;
}

/* The windows of slot k of two entities (either NULL: zeros). */
static double test_windows(const struct df *d, const struct df_ent *b, const struct df_ent *n,
			   unsigned k, uint64_t *nb, uint64_t *nn, struct sample *buf)
{
	size_t m = 0;
	const struct df_side *sb = &d->side[0], *sn = &d->side[1];

	*nb = sb->nwin;
	*nn = sn->nwin;
	if (sb->nwin < MIN_WINDOWS || sn->nwin < MIN_WINDOWS)
		return NAN;
	for (size_t i = 0; i < sb->nwin; i++)
		buf[m++] = (struct sample){ b ? b->win[(size_t)k * sb->nwin + i] : 0, 1, 0 };
	for (size_t i = 0; i < sn->nwin; i++)
		buf[m++] = (struct sample){ n ? n->win[(size_t)k * sn->nwin + i] : 0, 1, 1 };
	qsort(buf, m, sizeof(*buf), sample_order);
	return mw_sorted(buf, m);
}

static double test_latency(const struct df_ent *b, const struct df_ent *n)
{
	struct sample *s;
	size_t m = 0, i = 0, j = 0;
	double p;

	if (b->lat_n < MIN_LATENCIES || n->lat_n < MIN_LATENCIES)
		return NAN;
	s = kt_realloc_array(NULL, b->nhist + n->nhist, sizeof(*s));
	if (!s)
		return NAN;
	/* (both sorted by bucket: merged in order) */
	while (i < b->nhist || j < n->nhist) {
		if (j >= n->nhist || (i < b->nhist && b->hist[i].bucket <= n->hist[j].bucket)) {
			s[m++] = (struct sample){ (double)b->hist[i].bucket, b->hist[i].count, 0 };
			i++;
		} else {
			s[m++] = (struct sample){ (double)n->hist[j].bucket, n->hist[j].count, 1 };
			j++;
		}
	}
	p = mw_sorted(s, m);
	free(s);
	return p;
}

/* ---- rows ---- */

static const struct df_ent *find(const struct df_side *side, enum df_kind kind, const char *key)
{
	uint32_t i;

	return kt_map_get(&side->index, kind, (uint64_t)(uintptr_t)key, &i) ? &side->ents[i] : NULL;
}

static bool value_of(const struct df *d, unsigned s, const struct df_metric *m, const struct df_ent *e,
		     double *v)
{
	if (!e)
		return false;
	switch (m->test) {
	case DT_LATENCY:
		if (!e->lat_n)
			return false;
		*v = e->value[m->slot];
		return true;
	case DT_NONE:
		*v = e->complete;
		return true;
	default:
		*v = d->side[s].secs > 0 ? e->total[m->slot] / d->side[s].secs : 0;
		return true;
	}
}

static int add_row(struct df *d, const struct df_metric *m, const struct df_ent *b,
		   const struct df_ent *n, struct sample *buf)
{
	struct df_row r = { .m = m, .entity = b ? b->key : n->key, .p = NAN, .change = NAN };

	/* (what a side cannot compute is no figure of it: not compared) */
	if (m->needs & (d->side[0].lacks | d->side[1].lacks))
		return 0;
	r.has_base = value_of(d, 0, m, b, &r.base);
	r.has_new = value_of(d, 1, m, n, &r.neu);
	if (!r.has_base && !r.has_new)
		return 0;
	/* (nothing on either side: no figure) */
	if ((!r.has_base || r.base == 0) && (!r.has_new || r.neu == 0))
		return 0;
	if (r.has_base && r.base != 0 && r.has_new)
		r.change = (r.neu - r.base) / r.base * 100;
	if (r.has_base && r.has_new) {
		if (m->test == DT_WINDOWS)
			r.p = test_windows(d, b, n, m->slot, &r.n_base, &r.n_new, buf);
		else if (m->test == DT_LATENCY) {
			r.n_base = b->lat_n;
			r.n_new = n->lat_n;
			if (m->slot < 3)
				r.p = test_latency(b, n);
		}
		r.significant = !isnan(r.p) && r.p < d->alpha &&
				(isnan(r.change) ? r.neu > 0 : fabs(r.change) >= d->min_change);
	}
	r.effect = isnan(r.change) ? INFINITY : fabs(r.change);
	if (kt_grow((void **)&d->rows, &d->cap_rows, d->nrows + 1, sizeof(*d->rows)))
		return -ENOMEM;
	d->rows[d->nrows++] = r;
	return 0;
}

static int row_order(const void *a, const void *b)
{
	const struct df_row *x = a, *y = b;
	int c;

	if (x->significant != y->significant)
		return x->significant ? -1 : 1;
	if ((x->has_base && x->has_new) != (y->has_base && y->has_new))
		return x->has_base && x->has_new ? -1 : 1;
	if (x->faint != y->faint)
		return x->faint ? 1 : -1;
	if (x->effect != y->effect)
		return x->effect > y->effect ? -1 : 1;
	if (x->m != y->m)
		return x->m < y->m ? -1 : 1;
	c = strcmp(x->entity, y->entity);
	return c;
}

/* Rates of both sides whose base is under DF_FAINT of the largest value the metric has
 * (either side, any entity): a thread that barely ran in the base, whose relative
 * change says little, ranks after the others by its change in the metric's scale. */
static int mark_faint(struct df *d)
{
	double *most = kt_realloc_array(NULL, df_nmetrics ? df_nmetrics : 1, sizeof(*most));

	if (!most)
		return -ENOMEM;
	for (size_t k = 0; k < df_nmetrics; k++)
		most[k] = 0;
	for (size_t i = 0; i < d->nrows; i++) {
		const struct df_row *r = &d->rows[i];
		size_t k = (size_t)(r->m - df_metrics);

		if (r->has_base && r->base > most[k])
			most[k] = r->base;
		if (r->has_new && r->neu > most[k])
			most[k] = r->neu;
	}
	for (size_t i = 0; i < d->nrows; i++) {
		struct df_row *r = &d->rows[i];
		double top = most[r->m - df_metrics];

		if (r->m->test != DT_WINDOWS || !r->has_base || !r->has_new || top <= 0 ||
		    r->base >= DF_FAINT * top)
			continue;
		r->faint = true;
		r->effect = fabs(r->neu - r->base) / top;
	}
	free(most);
	return 0;
}

int df_rows(struct df *d)
{
	size_t most = d->side[0].nwin + d->side[1].nwin;
	struct sample *buf = kt_realloc_array(NULL, most ? most : 1, sizeof(*buf));

	if (!buf)
		return -ENOMEM;
	for (size_t k = 0; k < df_nmetrics; k++) {
		const struct df_metric *m = &df_metrics[k];

		for (size_t i = 0; i < d->side[0].nents; i++) {
			const struct df_ent *b = &d->side[0].ents[i];

			if (b->kind == m->kind &&
			    add_row(d, m, b, find(&d->side[1], b->kind, b->key), buf))
				goto oom;
		}
		for (size_t i = 0; i < d->side[1].nents; i++) {
			const struct df_ent *n = &d->side[1].ents[i];

			if (n->kind == m->kind && !find(&d->side[0], n->kind, n->key) &&
			    add_row(d, m, NULL, n, buf))
				goto oom;
		}
	}
	free(buf);
	if (mark_faint(d))
		return -ENOMEM;
	if (d->nrows > 1)
		qsort(d->rows, d->nrows, sizeof(*d->rows), row_order);
	return 0;
oom:
	free(buf);
	return -ENOMEM;
}
