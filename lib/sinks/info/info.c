// SPDX-License-Identifier: MIT
/* ktrace_info: the summary of one input, whatever its format (the one place that picks
 * a format's summary). */
#include <ktrace/tracedat.h>
#include <ktrace/view.h>

#include "common/opts.h"
#include "sinks/info/info.h"
#include "sinks/report/report.h"

unsigned ktrace_info_takes(enum ktrace_format f)
{
	switch (f) {
	case KTRACE_FORMAT_UNKNOWN:
		return ~0u;
	case KTRACE_FORMAT_TRACEDAT:
		return KTRACE_TAKES_TRACEDAT;
	case KTRACE_FORMAT_DARWIN_V3:
	case KTRACE_FORMAT_DARWIN_RAW:
		return KTRACE_TAKES_DARWIN;
	case KTRACE_FORMAT_FTRACE_PAGES:
		return KTRACE_TAKES_PAGES;
	default:
		return 0;
	}
}

int ktrace_info(struct ktrace_input *in, const struct ktrace_info_opts *opts,
		struct ktrace_out *out, struct ktrace_error *err)
{
	struct ktrace_ring_layout layout = { 0, 0, -1 };
	struct ktrace_view_darwin_opts darwin;
	struct ktrace_info_opts o;
	int ret = KT_OPTS_COPY(&o, opts, "ktrace_info_opts", err);

	if (ret)
		return ret;
	o.format = kt_report_format_of(in, o.format, err);
	switch (o.format) {
	case KTRACE_FORMAT_TRACEDAT:
		return kt_info_tracedat(in, (ktrace_input_is_mapped(in) ?
					     TRACEDAT_MAPPED_FILE | TRACEDAT_READ_COPIES : 0) |
					(o.raw_ts ? TRACEDAT_RAW_TS : 0), o.json, out, err);
	case KTRACE_FORMAT_DARWIN_V3:
	case KTRACE_FORMAT_DARWIN_RAW:
		if ((ret = KT_OPTS_COPY(&darwin, o.darwin, "ktrace_view_darwin_opts", err)))
			return ret;
		darwin.json = o.json;
		return kt_info_darwin(in, &darwin, out, err);
	case KTRACE_FORMAT_KCDATA:
		return kt_info_kcdata(in, false, o.json, out, err);
	case KTRACE_FORMAT_FTRACE_PAGES:
		if (o.layout)
			layout = *o.layout;
		return kt_info_pages(in, &layout, o.json, out, err);
	case KTRACE_FORMAT_KOFF:
		return kt_info_koff(in, o.json, out, err);
	default:
		return kt_report_unhandled(in, o.format, err);
	}
}
