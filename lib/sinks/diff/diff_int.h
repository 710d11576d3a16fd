/* SPDX-License-Identifier: MIT */
/*
 * Inside `ktrace diff` (<ktrace/view.h> ktrace_view_diff): the summary's figures of each
 * input (sinks/summary/summary.h), gathered per side (diff_side.c), matched by name,
 * tested (diff_stats.c) and printed (diff_print.c). docs/diff.md has the rules.
 */
#ifndef KTRACE_SINKS_DIFF_INT_H
#define KTRACE_SINKS_DIFF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/view.h>

#include "common/hashmap.h"
#include "sinks/summary/summary.h"

/* What an entity is. */
enum df_kind { DK_TRACE, DK_PROCESS, DK_THREAD, DK_CPU, DK_IRQ, DK_SOFTIRQ, DK_SYSCALL, DK_EVENT,
	       DK_KINDS };

/* How a metric is tested. */
enum df_test { DT_WINDOWS, DT_LATENCY, DT_NONE };

/* A metric: its name, entity kind, slot among the entity's figures, unit. */
struct df_metric {
	const char *name;
	enum df_kind kind;
	unsigned slot;             /* DT_WINDOWS: the window series; DT_LATENCY: quantile */
	enum df_test test;
	const char *unit;          /* "ns/s", "1/s", "ns", "%" */
	unsigned needs;            /* SM_LACKS_* bits: what a side must have to compute it */
};

extern const struct df_metric df_metrics[];
extern const size_t df_nmetrics;
extern const char *const df_kind_names[DK_KINDS];

#define DF_SLOTS 8             /* window series per entity at most */

/* An entity of a side: its figures summed over the side's files. */
struct df_ent {
	enum df_kind kind;
	const char *key;           /* interned */
	bool seen;
	double total[DF_SLOTS];    /* ns or counts over the side's complete time */
	double *win;               /* [DF_SLOTS][side.nwin] rates per second, or NULL */
	uint64_t lat_n, lat_max;   /* latencies */
	struct sm_hist_entry *hist; /* sorted by bucket (thread unused) */
	size_t nhist, cap_hist;
	double value[4];           /* latency p50, p90, p99, max (ns) */
	double complete;           /* DK_TRACE: complete share of the span (%) */
};

/* A file of a side. */
struct df_file {
	const char *path;
	struct sm *sm;
	uint64_t start, end, complete_from;
	size_t win0, nwin;         /* its windows: side.win[win0 .. win0 + nwin) */
	double wdur[SM_SLOTS];     /* their lengths (s) */
};

struct df_side {
	struct df_file *files;
	size_t nfiles;
	size_t nwin;               /* windows of all its files */
	double secs;               /* complete time of all its files (s) */
	double span;               /* span of all its files (s) */
	struct df_ent *ents;
	size_t nents, cap_ents;
	struct kt_map index;       /* (kind, key) -> ents[] */
	unsigned lacks;            /* SM_LACKS_*: what some file of the side cannot compute */
};

/* A row of the diff. */
struct df_row {
	const struct df_metric *m;
	const char *entity;
	bool has_base, has_new;
	double base, neu, change;  /* change in %, NaN when base is 0 */
	double p;                  /* NaN: not tested */
	uint64_t n_base, n_new;
	bool significant;
	bool faint;                /* a rate whose base is under DF_FAINT of the metric's
				    * largest value: a change from almost nothing */
	double effect;             /* sort key: |change| in %, or for a faint row the
				    * change over the metric's largest value */
};

#define DF_FAINT 0.01

struct df_rule {
	const char *text;
	char *metric, *entity;     /* fnmatch patterns (entity NULL: any) */
	bool less;                 /* '<': a change below pct; else above */
	double pct;
	bool tripped;
};

struct df {
	struct ktrace_view_diff_opts o;
	struct kt_strtab strings;
	struct df_side side[2];
	struct df_row *rows;
	size_t nrows, cap_rows;
	struct df_rule *rules;
	size_t nrules;
	double min_change, alpha;
	struct ktrace_stream **streams;   /* one per input (names live in them) */
	size_t nstreams;
};

/* Gathers the files of both sides (two at a time). 0 or a negative code, err and
 * *err_path set. */
int df_gather(struct df *d, struct ktrace_error *err, const char **err_path);
/* Builds side s's entities from its files. 0 or -ENOMEM. */
int df_side_build(struct df *d, unsigned s);
/* The rows: every metric of every entity of either side, tested, sorted. 0 or -ENOMEM. */
int df_rows(struct df *d);
void df_side_free(struct df_side *side);

/* Mann-Whitney U, two-sided, normal approximation with tie correction, on the samples
 * v[i] (weight w[i]) of side[i] (0 base, 1 new); n entries. The p-value, or NaN when a
 * side has no sample. */
double df_mann_whitney(const double *v, const uint64_t *w, const uint8_t *side, size_t n);

/* Fail-on rules: parse (0 or -EINVAL with err set) and check. */
int df_rules_parse(struct df *d, struct ktrace_error *err);
void df_rules_free(struct df *d);
int df_rules_check(struct df *d);

int df_print(struct df *d, struct ktrace_out *out);

#endif
