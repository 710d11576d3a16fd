// SPDX-License-Identifier: MIT
/* Helpers shared by the Darwin views. */
#include "sinks/report/report_darwin_common.h"

#include <stdio.h>
#include <string.h>

const char *kt_darwin_format_desc(const struct ktrace_darwin_info *info, char *buf, size_t len)
{
	if (info->kind == KTRACE_DARWIN_V3)
		snprintf(buf, len, "Darwin ktrace file V3 (%s flavour, header version %u.%u)",
			 info->flavour == KTRACE_FILE_KERNEL ? "kernel" : "libktrace",
			 info->major, info->minor);
	else if (info->kind == KTRACE_DARWIN_RAW_V0)
		snprintf(buf, len, "Darwin kdebug raw stream V0 (no header)");
	else
		snprintf(buf, len, "Darwin kdebug raw stream V%d (0x%08x)", (int)info->kind,
			 info->magic);
	return buf;
}

const char *kt_darwin_format_id(const struct ktrace_darwin_info *info)
{
	return info->kind == KTRACE_DARWIN_V3 ? "darwin-v3" : "darwin-raw";
}

int kt_darwin_version(const struct ktrace_darwin_info *info)
{
	return (int)info->kind;
}

void kt_darwin_put_time(struct ktrace_out *o, uint64_t ns)
{
	char buf[32], *e = kt_fmt_dec(buf, ns / 1000000000ULL);

	*e++ = '.';
	e = kt_fmt_dec_zero(e, ns % 1000000000ULL, 9);
	kt_out_write(o, buf, (size_t)(e - buf));
}

const char *kt_darwin_event_name(const struct ktrace_darwin_codes *codes, uint32_t debugid,
				 char *buf, size_t len)
{
	return ktrace_darwin_event_name(codes, debugid, buf, len);
}

size_t kt_darwin_put_text(struct ktrace_out *o, const char *s, size_t max, int quote)
{
	size_t n = 0;

	if (quote)
		kt_out_putc(o, '"');
	for (; n < max && s[n]; n++) {
		unsigned char ch = (unsigned char)s[n];

		if (ch < 0x20 || ch >= 0x7f)
			ch = '?';
		if (quote == KT_QUOTE_CSV && ch == '"')
			kt_out_putc(o, '"');
		kt_out_putc(o, (char)ch);
	}
	if (quote)
		kt_out_putc(o, '"');
	return n;
}
