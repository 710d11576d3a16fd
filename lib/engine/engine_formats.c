// SPDX-License-Identifier: MIT
/*
 * The formats the engine reads, in the order their detectors are tried: magic numbers
 * first, raw ftrace pages (no magic, recognised by headers that make sense) last.
 */
#include <ktrace/detect.h>

#include "common/detect_table.h"

static const struct kt_detector *const detectors[] = {
	&kt_detector_tracedat,
	&kt_detector_elf,
	&kt_detector_koff,
	&kt_detector_darwin_v3,
	&kt_detector_darwin_raw,
	&kt_detector_kcdata,
	&kt_detector_ring,
};

#define NDETECTORS (sizeof(detectors) / sizeof(detectors[0]))

enum ktrace_format ktrace_detect_format(const void *head, size_t len)
{
	const struct kt_detector *d = kt_detect_run(detectors, NDETECTORS, head, len);

	return d ? (enum ktrace_format)d->format : KTRACE_FORMAT_UNKNOWN;
}

const char *ktrace_detect_format_name(enum ktrace_format format)
{
	for (size_t i = 0; i < NDETECTORS; i++)
		if (detectors[i]->format == (int)format)
			return detectors[i]->name;
	return "unknown";
}
