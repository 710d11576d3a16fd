// SPDX-License-Identifier: MIT
/*
 * event and args as SQLite virtual tables over the event stream: a scan opens the
 * inputs again and walks them, so that memory stays bounded by the stream's windows.
 * Event ids are the records' numbers in stream order (as the build counted them), so:
 *   - a query that needs no column of event (count(*)) counts without reading;
 *   - id constraints start and stop the walk, name/cpu/utid/trace_id equalities are
 *     tested before SQLite sees the row;
 *   - a scan positioned at id n serves any id >= n by walking on, so joins driven by
 *     event in id order (event JOIN args USING (arg_set_id), extract_arg) read the
 *     inputs once; streams of finished scans are kept for the next scan.
 * args has one row per field value: numbers (int_value, value_type 'int' or 'uint',
 * unsigned values above 2^63 as their two's complement), strings (string_value),
 * bytes (string_value in hex, 'bytes'), arrays one row per element ("name[3]").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/numfmt.h"
#include "sinks/sql/sql_int.h"

#define IDLE_STREAMS 2

/* ---- positioned streams ---- */

struct sql_scan {
	struct ktrace_stream *s;
	const struct ktrace_stream_record *rec;
	int64_t pos;                 /* id of the current event, 0 before the first */
	bool done;
	bool oom;                    /* done because memory ran out reading again */
};

struct sql_idle_stream {
	struct sql_idle_stream *next;
	struct sql_scan scan;
};

static void scan_close(struct sql_scan *sc)
{
	if (sc->s)
		ktrace_stream_close(sc->s);
	memset(sc, 0, sizeof(*sc));
}

/* The next event record: 1, or 0 at the end (of the events the build counted). */
static int scan_next(struct ktrace_sql *q, struct sql_scan *sc)
{
	struct ktrace_error err;

	if (sc->done || !sc->s)
		return 0;
	for (;;) {
		int ret = ktrace_stream_next(sc->s, &sc->rec, &err);

		if (ret <= 0 || sc->pos >= q->events) {
			sc->oom = ret == -ENOMEM;
			sc->done = true;
			sc->rec = NULL;
			return 0;
		}
		if (sc->rec->kind == KTRACE_STREAM_EVENT)
			break;
	}
	sc->pos++;
	return 1;
}

/* Keeps a scan's stream for a later scan (the one furthest back goes first). */
static void scan_release(struct ktrace_sql *q, struct sql_scan *sc)
{
	struct sql_idle_stream *n, **p, **lowest = NULL;
	size_t count = 0;

	if (!sc->s || sc->done) {
		scan_close(sc);
		return;
	}
	n = malloc(sizeof(*n));
	if (!n) {
		scan_close(sc);
		return;
	}
	n->scan = *sc;
	memset(sc, 0, sizeof(*sc));
	n->next = q->idle;
	q->idle = n;
	for (p = &q->idle; *p; p = &(*p)->next) {
		count++;
		if (!lowest || (*p)->scan.pos < (*lowest)->scan.pos)
			lowest = p;
	}
	if (count > IDLE_STREAMS) {
		struct sql_idle_stream *drop = *lowest;

		*lowest = drop->next;
		scan_close(&drop->scan);
		free(drop);
	}
}

void sql_vtab_free_idle(struct ktrace_sql *q)
{
	while (q->idle) {
		struct sql_idle_stream *n = q->idle;

		q->idle = n->next;
		scan_close(&n->scan);
		free(n);
	}
}

/* Positions sc on event id target (1 <= target <= q->events): 1, or 0 when the inputs
 * cannot be read again (sc->oom when memory ran out). */
static int scan_seek(struct ktrace_sql *q, struct sql_scan *sc, int64_t target)
{
	if (!sc->s || sc->done || sc->pos > target) {
		struct sql_idle_stream **best = NULL, *n;

		for (struct sql_idle_stream **p = &q->idle; *p; p = &(*p)->next)
			if ((*p)->scan.pos <= target && (!best || (*p)->scan.pos > (*best)->scan.pos))
				best = p;
		if (best) {
			n = *best;
			*best = n->next;
			scan_release(q, sc);
			*sc = n->scan;
			free(n);
		} else {
			struct ktrace_error err;

			int ret;

			scan_release(q, sc);
			ret = ktrace_stream_open(&sc->s, (const char *const *)q->open_paths, q->npaths,
						 &q->sopts, &err, NULL);
			if (ret) {
				sc->oom = ret == -ENOMEM;
				return 0;
			}
		}
	}
	while (sc->pos < target)
		if (!scan_next(q, sc))
			return 0;
	return 1;
}

/* ---- shared planning ---- */

enum {
	F_LO_GE = 1, F_LO_GT = 2, F_HI_LE = 4, F_HI_LT = 8, F_EQ_ID = 16,
	F_NAME = 32, F_CPU = 64, F_TRACE = 128, F_UTID = 256, F_KEY = 512,
	F_COUNT = 1024,
	NFILTERS = 10,
};

struct plan_col {
	int id_col;                  /* the column that is the id */
	int name_col, cpu_col, trace_col, utid_col, key_col;   /* -1: none */
};

static int bit_for(const struct plan_col *pc, int col, unsigned char op)
{
	bool id = col == pc->id_col || col < 0;

	if (id) {
		switch (op) {
		case SQLITE_INDEX_CONSTRAINT_EQ: return F_EQ_ID;
		case SQLITE_INDEX_CONSTRAINT_GE: return F_LO_GE;
		case SQLITE_INDEX_CONSTRAINT_GT: return F_LO_GT;
		case SQLITE_INDEX_CONSTRAINT_LE: return F_HI_LE;
		case SQLITE_INDEX_CONSTRAINT_LT: return F_HI_LT;
		default: return 0;
		}
	}
	if (op != SQLITE_INDEX_CONSTRAINT_EQ)
		return 0;
	if (col == pc->name_col) return F_NAME;
	if (col == pc->cpu_col) return F_CPU;
	if (col == pc->trace_col) return F_TRACE;
	if (col == pc->utid_col) return F_UTID;
	if (col == pc->key_col) return F_KEY;
	return 0;
}

static int plan(sqlite3_index_info *ii, const struct plan_col *pc, double rows, double per_row,
		bool count_ok)
{
	int which[NFILTERS];
	int idx = 0, argv = 0;
	bool eq_id = false;
	double cost;

	for (int b = 0; b < NFILTERS; b++)
		which[b] = -1;
	for (int i = 0; i < ii->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ii->aConstraint[i];
		int bit = c->usable ? bit_for(pc, c->iColumn, c->op) : 0;

		if (!bit || (idx & bit))
			continue;
		/* text equalities only under the default collation */
		if ((bit == F_NAME || bit == F_KEY) &&
		    strcmp(sqlite3_vtab_collation(ii, i), "BINARY"))
			continue;
		idx |= bit;
		for (int b = 0; b < NFILTERS; b++)
			if (bit == 1 << b)
				which[b] = i;
	}
	for (int b = 0; b < NFILTERS; b++) {
		if (which[b] < 0)
			continue;
		ii->aConstraintUsage[which[b]].argvIndex = ++argv;
		/* id bounds are rechecked by SQLite (a text bound is not a bound here) */
		ii->aConstraintUsage[which[b]].omit = (1 << b) >= F_NAME;
	}
	eq_id = idx & F_EQ_ID;
	if (count_ok && !(idx & (F_NAME | F_CPU | F_TRACE | F_UTID | F_KEY)))
		idx |= F_COUNT;
	if (eq_id) {
		cost = 10;
		ii->estimatedRows = per_row < 2 ? 1 : (sqlite3_int64)per_row;
		if (per_row < 2)
			ii->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
	} else {
		double r = rows;

		if ((idx & (F_LO_GE | F_LO_GT)) && (idx & (F_HI_LE | F_HI_LT)))
			r /= 16;
		else if (idx & (F_LO_GE | F_LO_GT | F_HI_LE | F_HI_LT))
			r /= 4;
		cost = (idx & F_COUNT) ? r : r * 10;
		if (idx & (F_NAME | F_KEY | F_UTID))
			r /= 20;
		if (idx & (F_CPU | F_TRACE))
			r /= 2;
		ii->estimatedRows = (sqlite3_int64)(r < 1 ? 1 : r);
	}
	ii->estimatedCost = cost < 1 ? 1 : cost;
	ii->idxNum = idx;
	if (ii->nOrderBy == 1 && !ii->aOrderBy[0].desc &&
	    (ii->aOrderBy[0].iColumn == pc->id_col || ii->aOrderBy[0].iColumn < 0))
		ii->orderByConsumed = 1;
	return SQLITE_OK;
}

/* The filter values of xFilter, in the order plan gave them. */
struct filters {
	int idx;
	int64_t lo, hi;              /* id range, inclusive */
	bool empty;                  /* nothing can match */
	const char *name;            /* F_NAME, F_KEY: the text */
	int64_t cpu, trace, utid;
};

static bool value_int(sqlite3_value *v, int64_t *out)
{
	if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER)
		return false;
	*out = sqlite3_value_int64(v);
	return true;
}

static void read_filters(struct filters *f, int idx, int argc, sqlite3_value **argv, int64_t max)
{
	int a = 0;

	memset(f, 0, sizeof(*f));
	f->idx = idx;
	f->lo = 1;
	f->hi = max;
	for (int b = 0; b < NFILTERS && a < argc; b++) {
		sqlite3_value *v;
		int type;
		double d;
		int64_t i;

		if (!(idx & (1 << b)))
			continue;
		v = argv[a++];
		type = sqlite3_value_numeric_type(v);
		if (type == SQLITE_NULL) {
			f->empty = true;
			continue;
		}
		switch (1 << b) {
		case F_EQ_ID: case F_LO_GE: case F_LO_GT: case F_HI_LE: case F_HI_LT:
			if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
				break;   /* a text bound: SQLite decides */
			d = sqlite3_value_double(v);
			if (type == SQLITE_INTEGER && (1 << b) == F_EQ_ID) {
				i = sqlite3_value_int64(v);
				if (i > f->lo)
					f->lo = i;
				if (i < f->hi)
					f->hi = i;
				break;
			}
			/* doubles are compared as doubles: no cast of what does not fit */
			if ((1 << b) == F_EQ_ID) {
				if (d != floor(d) || d < (double)f->lo || d > (double)f->hi)
					f->empty = true;
				else
					f->lo = f->hi = (int64_t)d;
			} else if ((1 << b) == F_LO_GE || (1 << b) == F_LO_GT) {
				double lo = (1 << b) == F_LO_GE ? ceil(d) : floor(d) + 1;

				if (lo > (double)f->hi)
					f->empty = true;
				else if (lo > (double)f->lo)
					f->lo = (int64_t)lo;
			} else {
				double hi = (1 << b) == F_HI_LE ? floor(d) : ceil(d) - 1;

				if (hi < (double)f->lo)
					f->empty = true;
				else if (hi < (double)f->hi)
					f->hi = (int64_t)hi;
			}
			break;
		case F_NAME: case F_KEY:
			f->name = (const char *)sqlite3_value_text(v);
			if (!f->name)
				f->empty = true;
			break;
		case F_CPU:
			if (!value_int(v, &f->cpu))
				f->empty = true;
			break;
		case F_TRACE:
			if (!value_int(v, &f->trace))
				f->empty = true;
			break;
		case F_UTID:
			if (!value_int(v, &f->utid))
				f->empty = true;
			break;
		}
	}
	if (f->lo > f->hi)
		f->empty = true;
}

static bool record_matches(struct ktrace_sql *q, const struct filters *f,
			   const struct ktrace_stream_record *r)
{
	if ((f->idx & F_NAME) && strcmp(r->name, f->name))
		return false;
	if ((f->idx & F_CPU) && (r->cpu < 0 || r->cpu != f->cpu))
		return false;
	if ((f->idx & F_TRACE) && (r->source >= q->npaths || q->traces[r->source].trace_id != f->trace))
		return false;
	if (f->idx & F_UTID) {
		int64_t utid = sql_thread_find(q, r->source, r->tid);

		/* a record of no known thread has utid NULL, equal to nothing */
		if (!utid || utid != f->utid)
			return false;
	}
	return true;
}

/* ---- event ---- */

enum { EV_ID, EV_TRACE, EV_TS, EV_CPU, EV_UTID, EV_SUBSYSTEM, EV_NAME, EV_ARGS, EV_OFFSET };

struct tab {
	sqlite3_vtab base;
	struct ktrace_sql *q;
};

struct ev_cursor {
	sqlite3_vtab_cursor base;
	struct ktrace_sql *q;
	struct sql_scan scan;
	struct filters f;
	int64_t id;                  /* count-only: the current id */
	bool eof;
};

static const struct plan_col event_cols = { EV_ID, EV_NAME, EV_CPU, EV_TRACE, EV_UTID, -1 };

static int tab_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
		       char **errmsg, const char *table)
{
	struct tab *t;
	struct ktrace_out b = KT_OUT_HEAP;
	int rc;

	(void)argc;
	(void)argv;
	(void)errmsg;
	sql_table_declare(&b, sql_table_find(table));
	rc = b.error ? SQLITE_NOMEM : sqlite3_declare_vtab(db, kt_out_str(&b));
	kt_out_heap_free(&b);
	if (rc != SQLITE_OK)
		return rc;
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->q = aux;
	*out = &t->base;
	return SQLITE_OK;
}

static int ev_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
		      char **errmsg)
{
	return tab_connect(db, aux, argc, argv, out, errmsg, "event");
}

static int tab_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static int ev_best_index(sqlite3_vtab *v, sqlite3_index_info *ii)
{
	struct tab *t = (struct tab *)v;
	/* count(*) and queries of id alone need no record */
	bool count_ok = !(ii->colUsed & ~(sqlite3_uint64)1);

	return plan(ii, &event_cols, (double)(t->q->events + 1), 1, count_ok);
}

static int ev_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct ev_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->q = ((struct tab *)v)->q;
	*out = &c->base;
	return SQLITE_OK;
}

static int ev_close(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	scan_release(c->q, &c->scan);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Moves on to the first matching record at or after the current one. */
static int ev_settle(struct ev_cursor *c)
{
	for (;;) {
		if (c->scan.done || !c->scan.rec || c->scan.pos > c->f.hi) {
			c->eof = true;
			return SQLITE_OK;
		}
		if (record_matches(c->q, &c->f, c->scan.rec))
			return SQLITE_OK;
		if (!scan_next(c->q, &c->scan)) {
			c->eof = true;
			return c->scan.oom ? SQLITE_NOMEM : SQLITE_OK;
		}
	}
}

static int ev_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
		     sqlite3_value **argv)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	(void)idxstr;
	read_filters(&c->f, idx, argc, argv, c->q->events);
	c->eof = c->f.empty || c->q->events == 0;
	if (c->eof)
		return SQLITE_OK;
	if (idx & F_COUNT) {
		c->id = c->f.lo;
		return SQLITE_OK;
	}
	if (!scan_seek(c->q, &c->scan, c->f.lo)) {
		c->eof = true;
		return c->scan.oom ? SQLITE_NOMEM : SQLITE_OK;
	}
	return ev_settle(c);
}

static int ev_next(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	if (c->f.idx & F_COUNT) {
		if (++c->id > c->f.hi)
			c->eof = true;
		return SQLITE_OK;
	}
	if (!scan_next(c->q, &c->scan)) {
		c->eof = true;
		return c->scan.oom ? SQLITE_NOMEM : SQLITE_OK;
	}
	return ev_settle(c);
}

static int ev_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct ev_cursor *)cur)->eof;
}

static const char *interned(struct ktrace_sql *q, const char *s)
{
	const char *p = kt_intern(&q->strings, s, strlen(s));

	return p ? p : "";
}

static int ev_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	struct ktrace_sql *q = c->q;
	const struct ktrace_stream_record *r = c->scan.rec;
	int64_t utid;

	if (c->f.idx & F_COUNT) {
		if (col == EV_ID)
			sqlite3_result_int64(ctx, c->id);
		else
			sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	if (!r)
		return SQLITE_OK;
	switch (col) {
	case EV_ID:
		sqlite3_result_int64(ctx, c->scan.pos);
		break;
	case EV_TRACE:
		if (r->source < q->npaths)
			sqlite3_result_int64(ctx, q->traces[r->source].trace_id);
		break;
	case EV_TS:
		sqlite3_result_int64(ctx, (int64_t)r->ts);
		break;
	case EV_CPU:
		if (r->cpu >= 0)
			sqlite3_result_int64(ctx, r->cpu);
		break;
	case EV_UTID:
		utid = sql_thread_find(q, r->source, r->tid);
		if (utid)
			sqlite3_result_int64(ctx, utid);
		break;
	case EV_SUBSYSTEM:
		sqlite3_result_text(ctx, interned(q, r->system), -1, SQLITE_STATIC);
		break;
	case EV_NAME:
		sqlite3_result_text(ctx, interned(q, r->name), -1, SQLITE_STATIC);
		break;
	case EV_ARGS:
		if (ktrace_stream_field_count(c->scan.s))
			sqlite3_result_int64(ctx, c->scan.pos);
		break;
	case EV_OFFSET:
		sqlite3_result_int64(ctx, (int64_t)(r->offset & INT64_MAX));
		break;
	}
	return SQLITE_OK;
}

static int ev_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	*rowid = c->f.idx & F_COUNT ? c->id : c->scan.pos;
	return SQLITE_OK;
}

static const sqlite3_module event_module = {
	.iVersion = 0,
	.xCreate = ev_connect,
	.xConnect = ev_connect,
	.xBestIndex = ev_best_index,
	.xDisconnect = tab_disconnect,
	.xDestroy = tab_disconnect,
	.xOpen = ev_open,
	.xClose = ev_close,
	.xFilter = ev_filter,
	.xNext = ev_next,
	.xEof = ev_eof,
	.xColumn = ev_column,
	.xRowid = ev_rowid,
};

/* ---- args ---- */

enum { AR_SET, AR_TRACE, AR_KEY, AR_INT, AR_STRING, AR_REAL, AR_TYPE };

struct ar_cursor {
	sqlite3_vtab_cursor base;
	struct ktrace_sql *q;
	struct sql_scan scan;
	struct filters f;
	size_t nf, fi;               /* fields of the event, the current one */
	uint32_t k;                  /* the element of an array */
	uint32_t row;                /* the row within the event */
	struct ktrace_event_value v;
	bool eof;
	char key[160];
	char *hex;
	size_t hex_cap;
};

static const struct plan_col args_cols = { AR_SET, -1, -1, AR_TRACE, -1, AR_KEY };

static int ar_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
		      char **errmsg)
{
	return tab_connect(db, aux, argc, argv, out, errmsg, "args");
}

static int ar_best_index(sqlite3_vtab *v, sqlite3_index_info *ii)
{
	struct tab *t = (struct tab *)v;

	return plan(ii, &args_cols, (double)(t->q->events + 1) * 5, 5, false);
}

static int ar_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct ar_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->q = ((struct tab *)v)->q;
	*out = &c->base;
	return SQLITE_OK;
}

static int ar_close(sqlite3_vtab_cursor *cur)
{
	struct ar_cursor *c = (struct ar_cursor *)cur;

	scan_release(c->q, &c->scan);
	free(c->hex);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* The key of the current row into c->key. */
static const char *ar_key(struct ar_cursor *c)
{
	if (c->v.type == KTRACE_EVENT_ARRAY && c->v.count)
		snprintf(c->key, sizeof(c->key), "%s[%u]", c->v.name ? c->v.name : "", c->k);
	else
		snprintf(c->key, sizeof(c->key), "%s", c->v.name ? c->v.name : "");
	return c->key;
}

/* Loads field c->fi of the current event, or the next readable one (c->k = 0).
 * 0 when there is none left. */
static int ar_load(struct ar_cursor *c)
{
	c->k = 0;
	while (c->fi < c->nf) {
		if (!ktrace_stream_field(c->scan.s, c->fi, &c->v))
			return 1;
		c->fi++;
	}
	return 0;
}

/* The fields of the event the scan is on (none when the event does not match). */
static void ar_event(struct ar_cursor *c)
{
	c->row = 0;
	c->fi = 0;
	c->nf = record_matches(c->q, &c->f, c->scan.rec) ? ktrace_stream_field_count(c->scan.s) : 0;
	ar_load(c);
}

/* Past the current row. */
static void ar_step(struct ar_cursor *c)
{
	if (c->v.type == KTRACE_EVENT_ARRAY && c->k + 1 < c->v.count) {
		c->k++;
	} else {
		c->fi++;
		ar_load(c);
	}
	c->row++;
}

static bool ar_key_matches(struct ar_cursor *c)
{
	size_t n;

	if (!c->f.name)
		return true;
	/* "name" or "name[k]" */
	n = c->v.name ? strlen(c->v.name) : 0;
	if (strncmp(c->f.name, c->v.name ? c->v.name : "", n))
		return false;
	if (c->v.type == KTRACE_EVENT_ARRAY && c->v.count)
		return c->f.name[n] == '[' && !strcmp(ar_key(c), c->f.name);
	return !c->f.name[n];
}

/* The current row when it matches, else the next one that does; eof at the end. */
static int ar_settle(struct ar_cursor *c)
{
	for (;;) {
		if (c->scan.done || !c->scan.rec || c->scan.pos > c->f.hi) {
			c->eof = true;
			return SQLITE_OK;
		}
		if (c->fi < c->nf) {
			if (ar_key_matches(c))
				return SQLITE_OK;
			ar_step(c);
			continue;
		}
		if (!scan_next(c->q, &c->scan)) {
			c->eof = true;
			return c->scan.oom ? SQLITE_NOMEM : SQLITE_OK;
		}
		ar_event(c);
	}
}

static int ar_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
		     sqlite3_value **argv)
{
	struct ar_cursor *c = (struct ar_cursor *)cur;

	(void)idxstr;
	read_filters(&c->f, idx & ~F_COUNT, argc, argv, c->q->events);
	c->eof = c->f.empty || c->q->events == 0;
	if (c->eof)
		return SQLITE_OK;
	if (!scan_seek(c->q, &c->scan, c->f.lo)) {
		c->eof = true;
		return c->scan.oom ? SQLITE_NOMEM : SQLITE_OK;
	}
	ar_event(c);
	return ar_settle(c);
}

static int ar_next(sqlite3_vtab_cursor *cur)
{
	struct ar_cursor *c = (struct ar_cursor *)cur;

	ar_step(c);
	return ar_settle(c);
}

static int ar_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct ar_cursor *)cur)->eof;
}

static void result_hex(struct ar_cursor *c, sqlite3_context *ctx, const uint8_t *p, size_t n)
{
	if (2 * n + 1 > c->hex_cap) {
		char *h = kt_realloc_array(c->hex, 2 * n + 1, 1);

		if (!h) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		c->hex = h;
		c->hex_cap = 2 * n + 1;
	}
	kt_fmt_hex_bytes(c->hex, p, n);
	sqlite3_result_text(ctx, c->hex, (int)(2 * n), SQLITE_TRANSIENT);
}

static const char *value_type(const struct ktrace_event_value *v)
{
	switch (v->type) {
	case KTRACE_EVENT_SIGNED: return "int";
	case KTRACE_EVENT_UNSIGNED: return "uint";
	case KTRACE_EVENT_STRING: return "string";
	case KTRACE_EVENT_BYTES: return "bytes";
	case KTRACE_EVENT_ARRAY: return !v->count ? "array" : v->elem_signed ? "int" : "uint";
	}
	return "";
}

static int ar_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct ar_cursor *c = (struct ar_cursor *)cur;
	const struct ktrace_stream_record *r = c->scan.rec;
	const struct ktrace_event_value *v = &c->v;

	if (!r)
		return SQLITE_OK;
	switch (col) {
	case AR_SET:
		sqlite3_result_int64(ctx, c->scan.pos);
		break;
	case AR_TRACE:
		if (r->source < c->q->npaths)
			sqlite3_result_int64(ctx, c->q->traces[r->source].trace_id);
		break;
	case AR_KEY:
		sqlite3_result_text(ctx, ar_key(c), -1, SQLITE_TRANSIENT);
		break;
	case AR_INT:
		if (v->type == KTRACE_EVENT_SIGNED)
			sqlite3_result_int64(ctx, v->i);
		else if (v->type == KTRACE_EVENT_UNSIGNED)
			sqlite3_result_int64(ctx, (int64_t)v->u);
		else if (v->type == KTRACE_EVENT_ARRAY && v->count)
			sqlite3_result_int64(ctx, (int64_t)ktrace_event_array_at(v, c->k));
		break;
	case AR_STRING:
		if (v->type == KTRACE_EVENT_STRING)
			sqlite3_result_text(ctx, v->data ? v->data : "", (int)v->len, SQLITE_TRANSIENT);
		else if (v->type == KTRACE_EVENT_BYTES)
			result_hex(c, ctx, v->data, v->data ? v->len : 0);
		break;
	case AR_REAL:
		break;
	case AR_TYPE:
		sqlite3_result_text(ctx, value_type(v), -1, SQLITE_STATIC);
		break;
	}
	return SQLITE_OK;
}

static int ar_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct ar_cursor *c = (struct ar_cursor *)cur;

	*rowid = (sqlite3_int64)((uint64_t)c->scan.pos << 24 | (c->row & 0xffffff));
	return SQLITE_OK;
}

static const sqlite3_module args_module = {
	.iVersion = 0,
	.xCreate = ar_connect,
	.xConnect = ar_connect,
	.xBestIndex = ar_best_index,
	.xDisconnect = tab_disconnect,
	.xDestroy = tab_disconnect,
	.xOpen = ar_open,
	.xClose = ar_close,
	.xFilter = ar_filter,
	.xNext = ar_next,
	.xEof = ar_eof,
	.xColumn = ar_column,
	.xRowid = ar_rowid,
};

/* ---- extract_arg(arg_set_id, key): one value of args ---- */

static void extract_arg(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	sqlite3_stmt *st = NULL;
	int rc;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	rc = sqlite3_prepare_v2(db, "SELECT coalesce(int_value, string_value, real_value) FROM args "
				"WHERE arg_set_id = ?1 AND key = ?2", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
		return;
	}
	sqlite3_bind_value(st, 1, argv[0]);
	sqlite3_bind_value(st, 2, argv[1]);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
	else if (rc != SQLITE_DONE)
		sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
	sqlite3_finalize(st);
}

int sql_vtab_register(struct ktrace_sql *q, struct ktrace_error *err)
{
	int rc = sqlite3_create_module(q->db, "ktrace_event", &event_module, q);

	if (rc == SQLITE_OK)
		rc = sqlite3_create_module(q->db, "ktrace_args", &args_module, q);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(q->db, "extract_arg", 2, SQLITE_UTF8, NULL, extract_arg,
					     NULL, NULL);
	if (rc != SQLITE_OK)
		return sql_db_error(q->db, rc, err, "registering the tables");
	return 0;
}
