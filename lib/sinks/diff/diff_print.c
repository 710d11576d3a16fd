// SPDX-License-Identifier: MIT
/*
 * `ktrace diff` (<ktrace/view.h> ktrace_view_diff): the inputs read, the rows made, the
 * --fail-on rules checked; the text (the significant changes first, top of them) and
 * JSON (schema ktrace-diff/1, every row) forms. docs/diff.md has the rules.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/json.h"
#include "common/opts.h"
#include "common/outbuf.h"
#include "sinks/diff/diff_int.h"

#define SCHEMA "ktrace-diff/1"

/* ---- --fail-on ---- */

static char *trimmed(const char *a, const char *b)
{
	char *s;

	while (a < b && (*a == ' ' || *a == '\t'))
		a++;
	while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	s = malloc((size_t)(b - a) + 1);
	if (s) {
		memcpy(s, a, (size_t)(b - a));
		s[b - a] = 0;
	}
	return s;
}

int df_rules_parse(struct df *d, struct ktrace_error *err)
{
	if (!d->o.nfail_on)
		return 0;
	d->rules = calloc(d->o.nfail_on, sizeof(*d->rules));
	if (!d->rules)
		return kt_error_oom(err);
	for (size_t i = 0; i < d->o.nfail_on; i++) {
		struct df_rule *r = &d->rules[d->nrules++];
		const char *t = d->o.fail_on[i], *op = NULL, *colon;
		char *end;
		bool known = false;

		r->text = t;
		for (const char *c = t; *c; c++)
			if (*c == '>' || *c == '<')
				op = c;
		if (!op)
			return ktrace_error_set(err, -EINVAL, "--fail-on '%s': no '>' or '<' (METRIC[:ENTITY]>PCT%%)", t);
		r->less = *op == '<';
		r->pct = strtod(op + 1, &end);
		while (*end == ' ')
			end++;
		if (*end == '%')
			end++;
		while (*end == ' ')
			end++;
		if (end == op + 1 || *end || !isfinite(r->pct))
			return ktrace_error_set(err, -EINVAL, "--fail-on '%s': not a percentage after '%c'", t, *op);
		colon = memchr(t, ':', (size_t)(op - t));
		r->metric = trimmed(t, colon ? colon : op);
		r->entity = colon ? trimmed(colon + 1, op) : NULL;
		if (!r->metric || (colon && !r->entity))
			return kt_error_oom(err);
		for (size_t k = 0; k < df_nmetrics && !known; k++)
			known = !fnmatch(r->metric, df_metrics[k].name, 0);
		if (!known)
			return ktrace_error_set(err, -EINVAL, "--fail-on '%s': no metric '%s' (docs/diff.md lists them)",
						t, r->metric);
	}
	return 0;
}

void df_rules_free(struct df *d)
{
	for (size_t i = 0; i < d->nrules; i++) {
		free(d->rules[i].metric);
		free(d->rules[i].entity);
	}
	free(d->rules);
}

static bool trips(const struct df_rule *r, const struct df_row *w)
{
	if (!w->significant || fnmatch(r->metric, w->m->name, 0) ||
	    (r->entity && *r->entity && fnmatch(r->entity, w->entity, 0)))
		return false;
	if (isnan(w->change))               /* from 0: an increase without bound */
		return !r->less;
	return r->less ? w->change < r->pct : w->change > r->pct;
}

int df_rules_check(struct df *d)
{
	int n = 0;

	for (size_t i = 0; i < d->nrules; i++) {
		for (size_t k = 0; k < d->nrows && !d->rules[i].tripped; k++)
			d->rules[i].tripped = trips(&d->rules[i], &d->rows[k]);
		n += d->rules[i].tripped;
	}
	return n;
}

/* ---- text ---- */

static void put_value(char *buf, size_t len, const char *unit, double v)
{
	if (!strcmp(unit, "ns/s"))
		snprintf(buf, len, "%.1f ms/s", v / 1e6);
	else if (!strcmp(unit, "1/s"))
		snprintf(buf, len, "%.1f/s", v);
	else if (!strcmp(unit, "%"))
		snprintf(buf, len, "%.1f%%", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1f us", v / 1e3);
	else
		snprintf(buf, len, "%.2f ms", v / 1e6);
}

static void text_row(struct ktrace_out *o, const struct df_row *r)
{
	char b[32] = "-", n[32] = "-", c[24], p[16] = "", who[64];

	if (r->has_base)
		put_value(b, sizeof(b), r->m->unit, r->base);
	if (r->has_new)
		put_value(n, sizeof(n), r->m->unit, r->neu);
	if (!r->has_base)
		snprintf(c, sizeof(c), "new");
	else if (!r->has_new)
		snprintf(c, sizeof(c), "gone");
	else if (isnan(r->change))
		snprintf(c, sizeof(c), "from 0");
	else
		snprintf(c, sizeof(c), "%+.1f%%", r->change);
	if (!isnan(r->p))
		snprintf(p, sizeof(p), r->p < 1e-6 ? "<1e-6" : "%.2g", r->p);
	snprintf(who, sizeof(who), "%s", r->entity);
	if (strlen(r->entity) > 26)
		snprintf(who, sizeof(who), "%.24s..", r->entity);
	kt_out_printf(o, "%-20s %-26s %12s %12s %9s %6s\n", r->m->name, who, b, n, c, p);
}

/* The figure an entity of one side only is listed by. */
static bool main_metric(const struct df_metric *m)
{
	return m->slot == 0 && m->test == DT_WINDOWS;
}

static void text_side(struct ktrace_out *o, const char *what, const struct df_side *s)
{
	uint64_t events = 0, lost = 0;

	for (size_t i = 0; i < s->nfiles; i++) {
		events += s->files[i].sm->in[0].events;
		lost += s->files[i].sm->in[0].lost;
	}
	kt_out_printf(o, "%s %s%s (%zu file%s: %.3f s complete, %llu events, %llu lost)\n", what,
		      s->files[0].path, s->nfiles > 1 ? " ..." : "", s->nfiles, s->nfiles > 1 ? "s" : "",
		      s->secs, (unsigned long long)events, (unsigned long long)lost);
}

static void text(struct df *d, struct ktrace_out *o)
{
	size_t sig = 0, shown = 0, top = d->o.top ? d->o.top : 20, nnew = 0, ngone = 0;

	for (size_t i = 0; i < d->nrows; i++) {
		sig += d->rows[i].significant;
		nnew += !d->rows[i].has_base && main_metric(d->rows[i].m);
		ngone += !d->rows[i].has_new && main_metric(d->rows[i].m);
	}
	text_side(o, "base:", &d->side[0]);
	text_side(o, "new: ", &d->side[1]);
	kt_out_printf(o, "%zu figures compared, %zu changed significantly (Mann-Whitney p < %g and at least %g%%)\n",
		      d->nrows, sig, d->alpha, d->min_change);
	for (unsigned bit = 1; bit & SM_LACKS_ALL; bit <<= 1) {
		unsigned in = (d->side[0].lacks & bit ? 1 : 0) | (d->side[1].lacks & bit ? 2 : 0);

		if (in && !(bit == SM_LACKS_WAKEUP && ((d->side[0].lacks | d->side[1].lacks) &
						       SM_LACKS_SWITCH)))
			kt_out_printf(o, "not compared (%s): %s\n",
				      in == 3 ? "both" : in == 1 ? "base" : "new", sm_lacks_why(bit));
	}
	if (sig || d->o.all) {
		kt_out_printf(o, "\n%-20s %-26s %12s %12s %9s %6s\n", "metric", "entity", "base", "new",
			      "change", "p");
		for (size_t i = 0; i < d->nrows; i++) {
			const struct df_row *r = &d->rows[i];

			if (!d->o.all && (!r->significant || shown >= top))
				continue;
			text_row(o, r);
			shown++;
		}
		if (!d->o.all && sig > shown)
			kt_out_printf(o, "(%zu more significant changes: --top N, --all)\n", sig - shown);
	}
	if (!d->o.all) {
		for (int side = 0; side < 2; side++) {
			size_t n = side ? ngone : nnew, k = 0;

			if (!n)
				continue;
			/* the entities of one side only: by their first figure, biggest first */
			kt_out_printf(o, "\n%s on one side only (%s):\n", side ? "Gone" : "New",
				      side ? "base only" : "new only");
			for (size_t i = 0; i < d->nrows && k < top; i++) {
				const struct df_row *r = &d->rows[i];

				if ((side ? r->has_new : r->has_base) || !main_metric(r->m))
					continue;
				text_row(o, r);
				k++;
			}
			if (n > k)
				kt_out_printf(o, "(%zu more: --all)\n", n - k);
		}
	}
	for (size_t i = 0; i < d->nrules; i++)
		kt_out_printf(o, "%s--fail-on '%s': %s\n", i ? "" : "\n", d->rules[i].text,
			      d->rules[i].tripped ? "FAILED" : "passed");
}

/* ---- JSON ---- */

static void jnum(struct kt_json *j, double v, bool have)
{
	char b[40];
	int n;

	if (!have || isnan(v) || isinf(v)) {
		kt_json_null(j);
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		n = snprintf(b, sizeof(b), "%.0f", v);
	else
		n = snprintf(b, sizeof(b), "%.6g", v);
	kt_json_number(j, b, (size_t)n);
}

static void json_side(struct kt_json *j, const char *key, const struct df_side *s)
{
	kt_json_key_cstr(j, key);
	kt_json_begin_object(j, false);
	kt_json_key_cstr(j, "complete_s");
	jnum(j, s->secs, true);
	kt_json_kv_u64(j, "windows", s->nwin);
	kt_json_key_cstr(j, "files");
	kt_json_begin_array(j, false);
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct df_file *f = &s->files[i];
		const struct sm_input *in = &f->sm->in[0];
		size_t ngaps;

		kt_model_gaps(f->sm->model, 0, &ngaps);
		kt_json_begin_object(j, true);
		kt_json_kv_cstr(j, "path", f->path);
		kt_json_kv_cstr(j, "format", in->src ? ktrace_detect_format_name(in->src->format) : "");
		kt_json_kv_u64(j, "events", in->events);
		kt_json_kv_u64(j, "lost_events", in->lost);
		kt_json_kv_u64(j, "lost_marks", in->lost_marks);
		kt_json_kv_opt_u64(j, "start_ns", in->any, f->start);
		kt_json_kv_opt_u64(j, "end_ns", in->any, f->end);
		kt_json_kv_opt_u64(j, "complete_from_ns", in->any, f->complete_from);
		kt_json_kv_u64(j, "gaps", ngaps);
		kt_json_kv_u64(j, "windows", f->nwin);
		kt_json_end_object(j);
	}
	kt_json_end_array(j);
	kt_json_key_cstr(j, "not_computed");
	kt_json_begin_array(j, false);
	for (unsigned bit = 1; bit & SM_LACKS_ALL; bit <<= 1)
		if ((s->lacks & bit) && !(bit == SM_LACKS_WAKEUP && (s->lacks & SM_LACKS_SWITCH)))
			kt_json_cstr(j, sm_lacks_why(bit));
	kt_json_end_array(j);
	kt_json_end_object(j);
}

static void json(struct df *d, struct ktrace_out *o)
{
	struct kt_json j;

	kt_json_init(&j, o, 2);
	kt_json_begin_object(&j, false);
	kt_json_kv_cstr(&j, "schema", SCHEMA);
	kt_json_key_cstr(&j, "alpha");
	jnum(&j, d->alpha, true);
	kt_json_key_cstr(&j, "min_change");
	jnum(&j, d->min_change, true);
	json_side(&j, "base", &d->side[0]);
	json_side(&j, "new", &d->side[1]);
	kt_json_key_cstr(&j, "rows");
	kt_json_begin_array(&j, false);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct df_row *r = &d->rows[i];

		kt_json_begin_object(&j, true);
		kt_json_kv_cstr(&j, "metric", r->m->name);
		kt_json_kv_cstr(&j, "kind", df_kind_names[r->m->kind]);
		kt_json_kv_cstr(&j, "entity", r->entity);
		kt_json_kv_cstr(&j, "unit", r->m->unit);
		kt_json_key_cstr(&j, "base");
		jnum(&j, r->base, r->has_base);
		kt_json_key_cstr(&j, "new");
		jnum(&j, r->neu, r->has_new);
		kt_json_key_cstr(&j, "change");
		jnum(&j, r->change, true);
		kt_json_key_cstr(&j, "p");
		jnum(&j, r->p, true);
		kt_json_kv_u64(&j, "n_base", r->n_base);
		kt_json_kv_u64(&j, "n_new", r->n_new);
		kt_json_kv_cstr(&j, "status", !r->has_base ? "new" : !r->has_new ? "gone" : "both");
		kt_json_kv_bool(&j, "significant", r->significant);
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "fail_on");
	kt_json_begin_array(&j, false);
	for (size_t i = 0; i < d->nrules; i++) {
		kt_json_begin_object(&j, true);
		kt_json_kv_cstr(&j, "rule", d->rules[i].text);
		kt_json_kv_bool(&j, "tripped", d->rules[i].tripped);
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	kt_json_end_object(&j);
	kt_json_finish(&j);
}

int df_print(struct df *d, struct ktrace_out *out)
{
	if (d->o.json)
		json(d, out);
	else
		text(d, out);
	return out->error;
}

/* ---- the view ---- */

static int setup_side(struct df_side *s, const char *const *paths, size_t n)
{
	s->files = calloc(n ? n : 1, sizeof(*s->files));
	if (!s->files)
		return -ENOMEM;
	s->nfiles = n;
	for (size_t i = 0; i < n; i++)
		s->files[i].path = paths[i];
	return 0;
}

int ktrace_view_diff(const struct ktrace_view_diff_opts *o, struct ktrace_out *out, bool *failed,
		     struct ktrace_error *err, const char **err_path)
{
	struct df *d = calloc(1, sizeof(*d));
	int ret, gret;

	*failed = false;
	*err_path = NULL;
	if (!d)
		return kt_error_oom(err);
	ret = KT_OPTS_COPY(&d->o, o, "ktrace_view_diff_opts", err);
	if (ret)
		goto done;
	d->min_change = d->o.has_min_change ? d->o.min_change : 10;
	d->alpha = d->o.has_alpha ? d->o.alpha : 0.01;
	if (!d->o.nbase || !d->o.nnew) {
		ret = ktrace_error_set(err, -EINVAL, "a side without an input");
		goto done;
	}
	if ((ret = df_rules_parse(d, err)))
		goto done;
	if (setup_side(&d->side[0], d->o.base, d->o.nbase) ||
	    setup_side(&d->side[1], d->o.new_files, d->o.nnew)) {
		ret = kt_error_oom(err);
		goto done;
	}
	/* a damaged input: the diff of what could be read, then its error */
	gret = df_gather(d, err, err_path);
	for (size_t i = 0; i < 2 && gret != -ENOMEM; i++)
		for (size_t k = 0; k < d->side[i].nfiles; k++)
			if (!d->side[i].files[k].sm) {
				ret = gret;
				goto done;
			}
	if (df_side_build(d, 0) || df_side_build(d, 1) || df_rows(d)) {
		ret = kt_error_oom(err);
		goto done;
	}
	*failed = df_rules_check(d) > 0;
	ret = df_print(d, out);
	if (ret) {
		ret = ret == -ENOMEM ? kt_error_oom(err) : ktrace_error_set(err, ret, "writing the diff");
		*err_path = NULL;
	} else {
		ret = gret;
	}
done:
	df_side_free(&d->side[0]);
	df_side_free(&d->side[1]);
	for (size_t i = 0; i < d->nstreams; i++)
		ktrace_stream_close(d->streams[i]);
	free(d->streams);
	free(d->rows);
	df_rules_free(d);
	kt_strtab_free(&d->strings);
	free(d);
	return ret;
}
