// SPDX-License-Identifier: MIT
/* ktrace_report: the report of an input, whatever its format (the one place that picks
 * a format's report). */
#include <errno.h>
#include <string.h>

#include <ktrace/view.h>

#include "common/opts.h"
#include "sinks/kcdata/kcdata.h"
#include "sinks/report/report.h"

unsigned ktrace_report_takes(enum ktrace_format f)
{
	switch (f) {
	case KTRACE_FORMAT_UNKNOWN:
		return ~0u;
	case KTRACE_FORMAT_FTRACE_PAGES:
		return KTRACE_TAKES_PAGES;
	case KTRACE_FORMAT_DARWIN_V3:
	case KTRACE_FORMAT_DARWIN_RAW:
		return KTRACE_TAKES_DARWIN | KTRACE_TAKES_FORMAT;
	case KTRACE_FORMAT_KCDATA:
		return KTRACE_TAKES_FORMAT;
	case KTRACE_FORMAT_TRACEDAT:
		return KTRACE_TAKES_TRACEDAT;
	default:
		return 0;
	}
}

static bool is_darwin(enum ktrace_format f)
{
	return f == KTRACE_FORMAT_DARWIN_V3 || f == KTRACE_FORMAT_DARWIN_RAW;
}

/* Darwin: text or json, json without csv or durations (d: the copied Darwin options) */
static int check_darwin(const struct ktrace_report_opts *o, const struct ktrace_view_darwin_opts *d,
			struct ktrace_error *err)
{
	bool json = o->output && !strcmp(o->output, "json");

	if (o->output && strcmp(o->output, "text") && !json)
		return ktrace_error_set(err, -EINVAL, "--format for Darwin files: text or json");
	if (json && (d->csv || d->durations))
		return ktrace_error_set(err, -EINVAL, "--format json does not combine with --csv "
					"or --durations");
	return 0;
}

/* The caller's Darwin options copied into d, and checked against o's output format. */
static int darwin_opts(const struct ktrace_report_opts *o, struct ktrace_view_darwin_opts *d,
		       struct ktrace_error *err)
{
	int ret = KT_OPTS_COPY(d, o->darwin, "ktrace_view_darwin_opts", err);

	return ret ? ret : check_darwin(o, d, err);
}

int ktrace_report_check(const struct ktrace_report_opts *opts, struct ktrace_error *err)
{
	struct ktrace_view_darwin_opts d;
	struct ktrace_report_opts o;
	int ret = KT_OPTS_COPY(&o, opts, "ktrace_report_opts", err);

	if (ret)
		return ret;
	return is_darwin(o.format) ? darwin_opts(&o, &d, err) : 0;
}

int kt_report_unhandled(struct ktrace_input *in, enum ktrace_format format,
			struct ktrace_error *err)
{
	const uint8_t *head;
	int64_t got;

	if (format != KTRACE_FORMAT_UNKNOWN)
		return ktrace_error_set(err, -ENOTSUP, "%s: not supported yet",
					ktrace_detect_format_name(format));
	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, err);
	if (!got)
		return ktrace_error_at(err, -ENODATA, 0, "empty file");
	/* a ring buffer never written reads as zeros: say what was seen */
	if (got > 0 && !head[0] && !memcmp(head, head + 1, (size_t)got - 1))
		return ktrace_error_set(err, -EBADMSG, "unrecognised file format: %s %lld bytes "
					"are zero (a ring buffer never written? see --pages)",
					got < KTRACE_DETECT_BYTES ? "all" : "the first",
					(long long)got);
	return ktrace_error_set(err, -EBADMSG, "unrecognised file format");
}

enum ktrace_format kt_report_format_of(struct ktrace_input *in, enum ktrace_format f,
				       struct ktrace_error *err)
{
	const uint8_t *head;
	int64_t got;

	if (f != KTRACE_FORMAT_UNKNOWN)
		return f;
	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, err);
	return got > 0 ? ktrace_detect_format(head, (size_t)got) : KTRACE_FORMAT_UNKNOWN;
}

int ktrace_report(struct ktrace_input *in, const struct ktrace_report_opts *opts,
		  struct ktrace_out *out, struct ktrace_error *err)
{
	struct ktrace_ring_layout layout = { 0, 0, -1 };
	struct ktrace_view_darwin_opts darwin;
	struct ktrace_view_text_opts text;
	struct ktrace_view_profile_opts profile;
	struct ktrace_report_opts o;
	int ret = KT_OPTS_COPY(&o, opts, "ktrace_report_opts", err);

	if (ret)
		return ret;
	if (!in && (o.format != KTRACE_FORMAT_TRACEDAT || !o.tracedat))
		return ktrace_error_set(err, -EINVAL, "ktrace_report: no input");
	o.format = kt_report_format_of(in, o.format, err);
	switch (o.format) {
	case KTRACE_FORMAT_FTRACE_PAGES:
		if (o.layout)
			layout = *o.layout;
		return kt_report_pages(in, &layout, out, err);
	case KTRACE_FORMAT_DARWIN_V3:
	case KTRACE_FORMAT_DARWIN_RAW:
		if ((ret = darwin_opts(&o, &darwin, err)))
			return ret;
		darwin.json = o.output && !strcmp(o.output, "json");
		return kt_report_darwin(in, &darwin, out, err);
	case KTRACE_FORMAT_TRACEDAT:
		if (o.err_file)
			*o.err_file = NULL;
		/* trace-cmd report's files and options */
		if (!o.tracedat)
			return ktrace_error_set(err, -ESPIPE, "a trace.dat file cannot be read "
						"from a pipe: save it to a file first");
		if ((ret = KT_OPTS_COPY(&text, o.tracedat, "ktrace_view_text_opts", err)))
			return ret;
		if (o.profile && text.mode == KTRACE_VIEW_TEXT_RECORDS) {
			if ((ret = KT_OPTS_COPY(&profile, o.profile, "ktrace_view_profile_opts",
						err)))
				return ret;
			return ktrace_view_tracedat_profile(&text, &profile, out, err, o.err_file);
		}
		if (o.wakeup && text.mode == KTRACE_VIEW_TEXT_RECORDS)
			return ktrace_view_tracedat_wakeup(&text, out, err, o.err_file);
		return ktrace_view_tracedat_text(&text, out, err, o.err_file);
	case KTRACE_FORMAT_KOFF:
		return kt_report_koff(in, out, err);
	case KTRACE_FORMAT_KCDATA:
		return kt_kcdata_report(in, o.output, out, err);
	default:
		return kt_report_unhandled(in, o.format, err);
	}
}
