// SPDX-License-Identifier: MIT
/*
 * The model's completeness walk (docs/model.md, "Data completeness"): one pass over the
 * inputs, records only, that finds per input the buffer the model reads (the first with
 * a sched_switch, else the first with another record the model uses, else the top
 * one), each CPU's first record, and the gaps the lost-events marks open: from the
 * CPU's previous record to its next one.
 *
 * One trace.dat input of several CPUs is walked by two threads, each over half of the
 * CPUs (what the walk finds of a CPU depends on that CPU's records alone; which buffer
 * came first is settled by the time each was first met).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libaudit.h>

#include "common/check.h"
#include "common/grow.h"
#include "engine/engine.h"
#include "engine/engine_model_int.h"
#include "engine/engine_stream_int.h"
#include "tracedat/tracedat_skip.h"

/* A CPU of a buffer of an input, as the walk meets it. */
struct scan_cpu {
	uint32_t input, buffer;
	int32_t cpu;
	bool has;                  /* a record seen */
	bool pending;              /* a lost-events mark since the last record */
	uint64_t first, last;
};

/* A buffer of an input: the kinds of kernel work it has. */
struct scan_buf {
	uint32_t input, buffer;
	unsigned kinds;            /* KT_MK_* */
	uint64_t first_at;         /* the time of its first record of such a kind */
};

/* An input: the first buffer with a sched_switch, the first with another record the
 * model uses (-1: none yet), and the times they were met. */
struct scan_input {
	int64_t switch_buf, event_buf;
	uint64_t switch_at, event_at;
};

struct scan_gap {
	uint32_t input, buffer;
	struct kt_model_gap g;
};

struct scan {
	struct scan_cpu *cpus;
	size_t ncpus, cap_cpus;
	struct kt_map index;       /* (input << 32 | buffer, cpu) -> cpus[] */
	struct scan_gap *gaps;
	size_t ngaps, cap_gaps;
	struct scan_input *ins;    /* per input */
	struct kt_map classes;     /* (input, event id) -> class + 1 */
	struct scan_buf *bufs;     /* in the order met */
	size_t nbufs, cap_bufs, last_buf;
	/* the CPUs 0..255 of the first (input, buffer) met: index + 1 in cpus[] */
	bool fast_set;
	uint32_t fast_input, fast_buffer;
	uint32_t fast[256];
};

static struct scan_cpu *scan_cpu(struct scan *sc, uint32_t input, uint32_t buffer, int32_t cpu)
{
	uint64_t a = (uint64_t)input << 32 | buffer;
	uint32_t i;
	bool fast;

	if (!sc->fast_set) {
		sc->fast_set = true;
		sc->fast_input = input;
		sc->fast_buffer = buffer;
	}
	fast = cpu >= 0 && cpu < 256 && input == sc->fast_input && buffer == sc->fast_buffer;
	if (fast && sc->fast[cpu])
		return &sc->cpus[sc->fast[cpu] - 1];
	if (kt_map_get(&sc->index, a, (uint64_t)(uint32_t)cpu, &i)) {
		if (fast)
			sc->fast[cpu] = i + 1;
		return &sc->cpus[i];
	}
	if (kt_grow((void **)&sc->cpus, &sc->cap_cpus, sc->ncpus + 1, sizeof(*sc->cpus)) ||
	    kt_map_put(&sc->index, a, (uint64_t)(uint32_t)cpu, (uint32_t)sc->ncpus))
		return NULL;
	sc->cpus[sc->ncpus] = (struct scan_cpu){ .input = input, .buffer = buffer, .cpu = cpu };
	return &sc->cpus[sc->ncpus++];
}

static int add_gap(struct scan *sc, const struct scan_cpu *c, uint64_t to)
{
	if (kt_grow((void **)&sc->gaps, &sc->cap_gaps, sc->ngaps + 1, sizeof(*sc->gaps)))
		return -ENOMEM;
	sc->gaps[sc->ngaps++] = (struct scan_gap){ c->input, c->buffer, { c->cpu, c->last, to } };
	return 0;
}

/* A lost-events mark of unknown CPU: every CPU of the buffer lost events. */
static void lost_everywhere(struct scan *sc, uint32_t input, uint32_t buffer)
{
	for (size_t i = 0; i < sc->ncpus; i++)
		if (sc->cpus[i].input == input && sc->cpus[i].buffer == buffer)
			sc->cpus[i].pending = true;
}

static int gap_order(const void *a, const void *b)
{
	const struct kt_model_gap *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* What a record of class c of (input, buffer) tells: the main buffer is the first with
 * a sched_switch (else the first with anything else the model reads); the kinds of
 * kernel work each buffer has. */
static int note_class(struct scan *sc, uint32_t input, uint32_t buffer, enum kt_mclass c,
		      uint64_t ts)
{
	struct scan_input *in = &sc->ins[input];
	struct scan_buf *b;

	if (c == KT_MC_OTHER)
		return 0;
	if (c == KT_MC_SWITCH && in->switch_buf < 0) {
		in->switch_buf = buffer;
		in->switch_at = ts;
	} else if (in->event_buf < 0) {
		in->event_buf = buffer;
		in->event_at = ts;
	}
	if (!kt_model_kind(c))
		return 0;
	b = sc->nbufs ? &sc->bufs[sc->last_buf] : NULL;
	if (!b || b->input != input || b->buffer != buffer) {
		size_t i;

		for (i = 0; i < sc->nbufs; i++)
			if (sc->bufs[i].input == input && sc->bufs[i].buffer == buffer)
				break;
		if (i == sc->nbufs) {
			if (kt_grow((void **)&sc->bufs, &sc->cap_bufs, sc->nbufs + 1, sizeof(*sc->bufs)))
				return -ENOMEM;
			sc->bufs[sc->nbufs++] = (struct scan_buf){ input, buffer, 0, ts };
		}
		sc->last_buf = i;
		b = &sc->bufs[i];
	}
	b->kinds |= kt_model_kind(c);
	return 0;
}

/* A record's class (by its input and event id, looked up by name once). */
static int note_buffer(struct scan *sc, const struct kt_minput *in,
		       const struct ktrace_stream_record *r)
{
	enum kt_mclass c;
	uint32_t v;

	if (in->darwin)
		return 0;
	if (kt_map_get(&sc->classes, r->source, r->event_id, &v)) {
		c = (enum kt_mclass)(v - 1);
	} else {
		c = kt_model_ftrace_class(r->system, r->name);
		if (kt_map_put(&sc->classes, r->source, r->event_id, (uint32_t)c + 1))
			return -ENOMEM;
	}
	return note_class(sc, r->source, r->buffer, c, r->ts);
}

/* An event record of (input, buffer) on cpu at ts: its CPU's first and last record,
 * and the gap a lost-events mark before it opened. */
static int note_time(struct scan *sc, uint32_t input, uint32_t buffer, int32_t cpu, uint64_t ts)
{
	struct scan_cpu *c;

	if (cpu < 0 || cpu >= KT_MODEL_MAX_CPUS)
		return 0;
	c = scan_cpu(sc, input, buffer, cpu);
	if (!c)
		return -ENOMEM;
	if (c->pending && c->has && add_gap(sc, c, ts))
		return -ENOMEM;
	c->pending = false;
	if (!c->has)
		c->first = ts;
	c->has = true;
	c->last = ts;
	return 0;
}

/* Passing over the records of a stream of one trace.dat buffer (kt_stream_skip): those
 * of a class already known need only their CPU and time. */
struct skip_walk {
	struct scan *sc;
	uint32_t buffer;
	int error;
};

static bool skip_accept(void *arg, uint32_t event_id, int64_t tid, int32_t cpu, uint64_t ts)
{
	struct skip_walk *w = arg;
	uint32_t v;

	(void)tid;
	if (!kt_map_get(&w->sc->classes, 0, event_id, &v))
		return false;     /* (the walk meets it, names and all) */
	if (note_class(w->sc, 0, w->buffer, (enum kt_mclass)(v - 1), ts) ||
	    note_time(w->sc, 0, w->buffer, cpu, ts)) {
		w->error = -ENOMEM;
		return false;
	}
	return true;
}

static int walk(struct kt_model *m, struct scan *sc, struct ktrace_stream *s,
		struct ktrace_error *err)
{
	struct skip_walk w = { .sc = sc };
	const struct kt_stream_skip how = { skip_accept, &w };
	const struct ktrace_stream_record *r;
	int ret;

	while ((ret = ktrace_stream_next(s, &r, err)) > 0) {
		if (r->source >= m->nin)
			continue;
		if (r->kind == KTRACE_STREAM_LOST && r->cpu < 0) {
			lost_everywhere(sc, r->source, r->buffer);
			continue;
		}
		if (r->kind == KTRACE_STREAM_LOST) {
			struct scan_cpu *c;

			if (r->cpu >= KT_MODEL_MAX_CPUS)
				continue;
			if (!(c = scan_cpu(sc, r->source, r->buffer, r->cpu)))
				return kt_error_oom(err);
			c->pending = true;
			continue;
		}
		if (note_time(sc, r->source, r->buffer, r->cpu, r->ts) ||
		    note_buffer(sc, &m->in[r->source], r))
			return kt_error_oom(err);
		/* one trace.dat input: on over the records that follow (a stream that
		 * cannot skip does nothing here) */
		if (m->nin == 1 && !m->in[0].darwin) {
			uint64_t n;

			w.buffer = r->buffer;
			ret = kt_stream_skip(s, UINT64_MAX, &how, &n, err);
			if (w.error)
				return kt_error_oom(err);
			if (ret < 0)
				break;
		}
	}
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < sc->ncpus; i++)
		if (sc->cpus[i].pending && sc->cpus[i].has && add_gap(sc, &sc->cpus[i], UINT64_MAX))
			return kt_error_oom(err);
	return 0;
}

/* The completeness of buffer in->buffer of input in->input, as the walk found it. */
static int fill(struct kt_minput *in, const struct scan *sc, struct ktrace_error *err)
{
	size_t n = 0;

	for (size_t k = 0; k < sc->ncpus; k++) {
		const struct scan_cpu *c = &sc->cpus[k];

		if (c->input != in->input || c->buffer != in->buffer || !c->has)
			continue;
		if (!in->has_cpus || c->first > in->complete_from)
			in->complete_from = c->first;
		in->has_cpus = true;
	}
	for (size_t k = 0; k < sc->ngaps; k++)
		n += sc->gaps[k].input == in->input && sc->gaps[k].buffer == in->buffer;
	if (!n)
		return 0;
	in->gaps = kt_realloc_array(NULL, n, sizeof(*in->gaps));
	if (!in->gaps)
		return kt_error_oom(err);
	for (size_t k = 0; k < sc->ngaps; k++)
		if (sc->gaps[k].input == in->input && sc->gaps[k].buffer == in->buffer)
			in->gaps[in->ngaps++] = sc->gaps[k].g;
	qsort(in->gaps, in->ngaps, sizeof(*in->gaps), gap_order);
	return 0;
}

/* The kinds of kernel work buffer b of input i has (0: none). */
static unsigned kinds_of(const struct scan *sc, uint32_t i, uint32_t b)
{
	for (size_t k = 0; k < sc->nbufs; k++)
		if (sc->bufs[k].input == i && sc->bufs[k].buffer == b)
			return sc->bufs[k].kinds;
	return 0;
}

/* What the walk found: per input its main buffer, and the side buffers that hold kinds
 * of kernel work the main one has none of (the first buffer met with each). */
static int keep(struct kt_model *m, struct scan *sc, struct ktrace_error *err)
{
	int ret;

	for (uint32_t i = 0; i < m->nin; i++) {
		struct kt_minput *in = &m->in[i];

		in->buffer = (uint32_t)(sc->ins[i].switch_buf >= 0 ? sc->ins[i].switch_buf
					: sc->ins[i].event_buf >= 0 ? sc->ins[i].event_buf : 0);
		/* (Darwin, KOFF: one buffer, every kind from it) */
		in->owns = in->darwin ? KT_MK_IRQ | KT_MK_SOFTIRQ | KT_MK_SYSCALL
				      : kinds_of(sc, i, in->buffer);
		if ((ret = fill(in, sc, err)))
			return ret;
	}
	for (size_t k = 0; k < sc->nbufs; k++) {
		const struct scan_buf *b = &sc->bufs[k];
		struct kt_minput *main, *side = NULL;
		unsigned more;

		if (b->input >= m->nin)
			continue;
		main = &m->in[b->input];
		more = b->kinds & ~main->owns;
		if (b->buffer == main->buffer || !more)
			continue;
		/* the first buffer met with a kind owns it */
		for (size_t j = 0; j < m->nsides; j++)
			if (m->sides[j].input == b->input)
				more &= ~m->sides[j].owns;
		if (!more)
			continue;
		side = kt_realloc_array(m->sides, m->nsides + 1, sizeof(*m->sides));
		if (!side)
			return kt_error_oom(err);
		m->sides = side;
		side = &m->sides[m->nsides++];
		*side = (struct kt_minput){ .input = b->input, .side = true, .owns = more,
					    .darwin = main->darwin, .audit_machine = main->audit_machine,
					    .buffer = b->buffer };
		if ((ret = fill(side, sc, err)))
			return ret;
	}
	return 0;
}

static void scan_free(struct scan *sc)
{
	free(sc->ins);
	free(sc->cpus);
	free(sc->gaps);
	kt_map_free(&sc->index);
	kt_map_free(&sc->classes);
	free(sc->bufs);
	memset(sc, 0, sizeof(*sc));
}

static int scan_init(struct scan *sc, size_t nin)
{
	memset(sc, 0, sizeof(*sc));
	sc->ins = malloc(nin * sizeof(*sc->ins));
	if (!sc->ins)
		return -ENOMEM;
	for (size_t i = 0; i < nin; i++)
		sc->ins[i] = (struct scan_input){ -1, -1, 0, 0 };
	return 0;
}

/* Whether (buffer a met at x) came before (buffer b met at y). */
static bool before(int64_t a, uint64_t x, int64_t b, uint64_t y)
{
	return b < 0 || (a >= 0 && (x < y || (x == y && a < b)));
}

static int buf_order(const void *a, const void *b)
{
	const struct scan_buf *x = a, *y = b;

	if (x->first_at != y->first_at)
		return x->first_at < y->first_at ? -1 : 1;
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	return x->buffer < y->buffer ? -1 : x->buffer > y->buffer;
}

/* Adds what the walk of the other CPUs found (o) to sc: its CPUs and gaps (other CPUs'
 * own), the earlier of the first buffers, kinds per buffer. */
static int scan_merge(struct scan *sc, const struct scan *o, size_t nin)
{
	for (size_t i = 0; i < nin; i++) {
		struct scan_input *a = &sc->ins[i];
		const struct scan_input *b = &o->ins[i];

		if (!before(a->switch_buf, a->switch_at, b->switch_buf, b->switch_at)) {
			a->switch_buf = b->switch_buf;
			a->switch_at = b->switch_at;
		}
		if (!before(a->event_buf, a->event_at, b->event_buf, b->event_at)) {
			a->event_buf = b->event_buf;
			a->event_at = b->event_at;
		}
	}
	if (kt_grow((void **)&sc->cpus, &sc->cap_cpus, sc->ncpus + o->ncpus, sizeof(*sc->cpus)) ||
	    kt_grow((void **)&sc->gaps, &sc->cap_gaps, sc->ngaps + o->ngaps, sizeof(*sc->gaps)))
		return -ENOMEM;
	if (o->ncpus)
		memcpy(sc->cpus + sc->ncpus, o->cpus, o->ncpus * sizeof(*o->cpus));
	sc->ncpus += o->ncpus;
	if (o->ngaps)
		memcpy(sc->gaps + sc->ngaps, o->gaps, o->ngaps * sizeof(*o->gaps));
	sc->ngaps += o->ngaps;
	for (size_t k = 0; k < o->nbufs; k++) {
		const struct scan_buf *b = &o->bufs[k];
		size_t i;

		for (i = 0; i < sc->nbufs; i++)
			if (sc->bufs[i].input == b->input && sc->bufs[i].buffer == b->buffer)
				break;
		if (i == sc->nbufs) {
			if (kt_grow((void **)&sc->bufs, &sc->cap_bufs, sc->nbufs + 1, sizeof(*sc->bufs)))
				return -ENOMEM;
			sc->bufs[sc->nbufs++] = *b;
			continue;
		}
		sc->bufs[i].kinds |= b->kinds;
		if (b->first_at < sc->bufs[i].first_at)
			sc->bufs[i].first_at = b->first_at;
	}
	if (sc->nbufs > 1)
		qsort(sc->bufs, sc->nbufs, sizeof(*sc->bufs), buf_order);
	return 0;
}

/* A walk over some CPUs, on a thread of its own. */
struct half {
	struct kt_model *m;
	struct scan sc;
	struct ktrace_stream *s;
	struct ktrace_error err;
	int ret;
};

static void *walk_half(void *arg)
{
	struct half *h = arg;

	h->ret = walk(h->m, &h->sc, h->s, &h->err);
	return NULL;
}

/* The walk of one trace.dat input of several CPUs by two threads, each with a stream
 * of its own over half of the CPUs. 1: done (sc holds both halves); 0: not possible here
 * (damage or no second thread: the caller walks it whole); or an error. */
static int walk_halves(struct kt_model *m, struct scan *sc, const struct ktrace_stream_opts *o,
		       const char *const *paths, uint32_t ncpus, struct ktrace_error *err)
{
	struct half h[2] = { { .m = m }, { .m = m } };
	int *cpus = malloc(ncpus * sizeof(*cpus));
	pthread_t thread;
	bool started = false;
	int ret = 0;

	if (!cpus)
		return kt_error_oom(err);
	/* even CPUs, then odd ones: busy and idle CPUs tend to alternate less than halves */
	for (uint32_t k = 0, n = 0; k < 2; k++)
		for (uint32_t c = k; c < ncpus; c += 2)
			cpus[n++] = (int)c;
	for (int k = 0; k < 2 && !ret; k++) {
		struct ktrace_stream_opts ho = *o;

		ho.cpus = cpus + (k ? (ncpus + 1) / 2 : 0);
		ho.ncpus = k ? ncpus / 2 : (ncpus + 1) / 2;
		ho.flags |= KT_STREAM_CPUS_ONLY;
		if (scan_init(&h[k].sc, m->nin))
			ret = -ENOMEM;
		else if (ktrace_stream_open(&h[k].s, paths, 1, &ho, &h[k].err, NULL))
			h[k].s = NULL;   /* (the whole walk will say why) */
	}
	if (!ret && h[0].s && h[1].s) {
		started = !pthread_create(&thread, NULL, walk_half, &h[1]);
		if (started) {
			walk_half(&h[0]);
			pthread_join(thread, NULL);
			if (h[0].ret == -ENOMEM || h[1].ret == -ENOMEM)
				ret = -ENOMEM;
			else if (!h[0].ret && !h[1].ret)
				ret = scan_merge(&h[0].sc, &h[1].sc, m->nin) ? -ENOMEM : 1;
		}
	}
	if (ret == 1) {
		*sc = h[0].sc;
		memset(&h[0].sc, 0, sizeof(h[0].sc));
	}
	for (int k = 0; k < 2; k++) {
		scan_free(&h[k].sc);
		ktrace_stream_close(h[k].s);
	}
	free(cpus);
	return ret == -ENOMEM ? kt_error_oom(err) : ret;
}

/* ---- one trace.dat buffer: each CPU read alone ---- */

/* The CPUs of a buffer a thread reads (every other one from first), what they hold. */
struct span_half {
	const char *path;
	unsigned flags;            /* tracedat_open's */
	size_t first;
	struct scan sc;
	struct ktrace_error err;
	int ret;                   /* 0, -ENOMEM, or another error: walk the merge */
};

struct span_gap {
	struct scan *sc;
	struct scan_cpu c;
};

static int span_gap(void *arg, uint64_t from, uint64_t to)
{
	struct span_gap *g = arg;

	g->c.last = from;
	return add_gap(g->sc, &g->c, to);
}

static void *span_walk(void *arg)
{
	struct span_half *h = arg;
	struct tracedat *td;
	const struct tracedat_buffer *b;

	h->ret = tracedat_open(h->path, h->flags, &td, &h->err);
	if (h->ret)
		return NULL;
	b = tracedat_buffer(td, 0);
	for (size_t i = h->first; b && i < b->cpus && !h->ret; i += 2) {
		const struct tracedat_cpu *tc = tracedat_buffer_cpu(td, 0, i);
		struct span_gap g = { .sc = &h->sc };
		struct tracedat_cpu_span span;
		struct scan_cpu *c;

		if (!tc || tc->cpu >= KT_MODEL_MAX_CPUS)
			continue;
		g.c = (struct scan_cpu){ .cpu = (int32_t)tc->cpu };
		h->ret = tracedat_cpu_span(td, 0, i, &span, span_gap, &g, &h->err);
		if (h->ret || !span.has)
			continue;
		if (!(c = scan_cpu(&h->sc, 0, 0, (int32_t)tc->cpu)))
			h->ret = -ENOMEM;
		else
			*c = (struct scan_cpu){ .cpu = (int32_t)tc->cpu, .has = true,
						.first = span.first };
	}
	tracedat_close(td);
	return NULL;
}

/*
 * The walk of a trace.dat input of one buffer, read without filters: what it finds of a
 * CPU depends on that CPU's records alone, so each CPU's are read alone, without the
 * merge or the records' classes (the one buffer is the main one and owns every kind of
 * kernel work it holds), by two threads over every other CPU. 1: done; 0: not possible
 * (damage: the caller walks the merge, which tells it); or -ENOMEM.
 */
static int walk_spans(struct kt_model *m, const char *path, bool raw_ts, struct ktrace_error *err)
{
	struct span_half h[2] = {
		{ .path = path, .flags = raw_ts ? TRACEDAT_RAW_TS : 0, .first = 0 },
		{ .path = path, .flags = raw_ts ? TRACEDAT_RAW_TS : 0, .first = 1 },
	};
	struct kt_minput *in = &m->in[0];
	pthread_t thread;
	bool started;
	int ret = 0;

	for (int k = 0; k < 2; k++)
		if (scan_init(&h[k].sc, m->nin))
			ret = -ENOMEM;
	if (!ret) {
		started = !pthread_create(&thread, NULL, span_walk, &h[1]);
		span_walk(&h[0]);
		if (started)
			pthread_join(thread, NULL);
		else
			span_walk(&h[1]);
		ret = h[0].ret == -ENOMEM || h[1].ret == -ENOMEM ? -ENOMEM
		      : h[0].ret || h[1].ret ? 0
		      : scan_merge(&h[0].sc, &h[1].sc, m->nin) ? -ENOMEM : 1;
	}
	if (ret == 1) {
		in->buffer = 0;
		in->owns = KT_MK_IRQ | KT_MK_SOFTIRQ | KT_MK_SYSCALL;
		if (fill(in, &h[0].sc, err))
			ret = -ENOMEM;
	}
	for (int k = 0; k < 2; k++)
		scan_free(&h[k].sc);
	return ret == -ENOMEM ? kt_error_oom(err) : ret;
}

int kt_model_scan(struct kt_model *m, const char *const *paths, size_t npaths,
		  const struct ktrace_stream_opts *opts, struct ktrace_error *err,
		  const char **err_path)
{
	struct ktrace_stream_opts o;
	struct ktrace_stream *s = NULL;
	const struct ktrace_stream_source *src;
	struct scan sc = { 0 };
	bool one_tracedat;
	int ret;

	memset(&o, 0, sizeof(o));
	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	o.sz = sizeof(o);
	/* every lost-events mark; read-ahead gains nothing on a walk of records alone */
	o.flags &= ~(unsigned)(KTRACE_STREAM_NO_LOST | KTRACE_STREAM_READAHEAD);
	ret = ktrace_stream_open(&s, paths, npaths, &o, err, err_path);
	if (ret)
		return ret;
	if (scan_init(&sc, m->nin)) {
		ret = kt_error_oom(err);
		goto out;
	}
	for (size_t i = 0; i < m->nin; i++) {
		src = ktrace_stream_source(s, i);
		m->in[i].audit_machine = -1;
		if (!src)
			continue;
		m->in[i].darwin = src->format == KTRACE_FORMAT_DARWIN_V3 ||
				  src->format == KTRACE_FORMAT_DARWIN_RAW;
		if (src->machine && *src->machine)
			m->in[i].audit_machine = audit_name_to_machine(src->machine);
	}
	src = ktrace_stream_source(s, 0);
	one_tracedat = npaths == 1 && m->nin == 1 && src && src->format == KTRACE_FORMAT_TRACEDAT &&
		       !o.cpus;
	if (one_tracedat && src->nbuffers == 1 && !o.nfilters && !o.ntasks) {
		const char *const *names;
		size_t n;
		const char *const *reopen = kt_stream_reopen_paths(s, &n, &names);

		/* (damage found at open is told by the file's name: the stream's when it is
		 * the path, not a copy of standard input) */
		ret = n == 1 && !strcmp(kt_stream_shown(s, reopen[0]), reopen[0])
		      ? walk_spans(m, reopen[0], o.flags & KTRACE_STREAM_RAW_TS, err) : 0;
		if (ret)
			goto out;   /* (1: done) */
	}
	if (one_tracedat && src->cpus >= 2 && sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
		struct scan both;

		ret = walk_halves(m, &both, &o, paths, src->cpus, err);
		if (ret < 0)
			goto out;
		if (ret == 1) {
			scan_free(&sc);
			sc = both;
			ret = keep(m, &sc, err);
			goto out;
		}
	}
	/* damage stops the walk where the sink's own stream will stop and say so: the
	 * model knows the data up to there */
	ret = walk(m, &sc, s, err);
	if (ret == -ENOMEM)
		goto out;
	ret = keep(m, &sc, err);
out:
	scan_free(&sc);
	ktrace_stream_close(s);
	return ret < 0 ? ret : 0;
}
