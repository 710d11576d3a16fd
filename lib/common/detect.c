// SPDX-License-Identifier: MIT
/* Format detection by content. Magic numbers first; raw ftrace pages last, since they
 * have none and are recognised by their headers making sense. */
#include <ktrace/detect.h>
#include <ktrace/ftrace_pages.h>
#include <ktrace/kcdata.h>

#include <stdint.h>
#include <string.h>

#include "common/cursor.h"

static const uint8_t tracedat_magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* A KOFF snapshot (`ktrace dump -o`) is a Darwin V3 container whose first chunk after
 * the header is KOFF's information chunk (tag 0x4b4f0001). */
static bool is_koff_snapshot(const uint8_t *p, size_t len)
{
	uint64_t first;

	if (len < 16 || kt_load_u32(p, false) != 0x55aa0300)
		return false;
	first = 16 + kt_load_u64(p + 8, false);
	first = (first + 7) & ~7ULL;
	return first >= 16 && first <= len - 4 && len >= 4 &&
	       kt_load_u32(p + first, false) == 0x4b4f0001;
}

enum ktrace_format ktrace_detect_format(const void *head, size_t len)
{
	const uint8_t *p = head;
	struct ktrace_pages_layout layout = { 0, 0, -1 };

	if (len >= sizeof(tracedat_magic) && !memcmp(p, tracedat_magic, sizeof(tracedat_magic)))
		return KTRACE_FORMAT_TRACEDAT;
	if (len >= 4 && !memcmp(p, "\x7f" "ELF", 4))
		return KTRACE_FORMAT_ELF;
	if (len >= 8 && !memcmp(p, "KOFFRING", 8))
		return KTRACE_FORMAT_KOFF;
	if (is_koff_snapshot(p, len))
		return KTRACE_FORMAT_KOFF;
	if (len >= 4) {
		uint32_t w = kt_load_u32(p, false);

		/* V3 ktrace files: libktrace's magic, or the kernel's header chunk tag with a
		 * plausible header size (at least its 40 bytes of fixed fields). */
		if (w == 0x55aa0300)
			return KTRACE_FORMAT_DARWIN_V3;
		if (w == 0x00001000 && len >= 16 && kt_load_u64(p + 8, false) >= 40 &&
		    kt_load_u64(p + 8, false) < (1ULL << 32))
			return KTRACE_FORMAT_DARWIN_V3;
		if (w == 0x55aa0101 || w == 0x55aa0200)
			return KTRACE_FORMAT_DARWIN_RAW;
	}
	/* kcdata: a begin magic, or gzip / base64 / a Darwin chunk around one */
	if (kcdata_sniff(head, len))
		return KTRACE_FORMAT_KCDATA;
	if (ktrace_pages_detect(head, len, &layout) > 0)
		return KTRACE_FORMAT_FTRACE_PAGES;
	return KTRACE_FORMAT_UNKNOWN;
}

const char *ktrace_format_name(enum ktrace_format format)
{
	switch (format) {
	case KTRACE_FORMAT_FTRACE_PAGES: return "ftrace ring-buffer pages";
	case KTRACE_FORMAT_TRACEDAT:     return "trace-cmd trace.dat";
	case KTRACE_FORMAT_DARWIN_V3:    return "Darwin ktrace file (V3)";
	case KTRACE_FORMAT_DARWIN_RAW:   return "Darwin kdebug raw stream";
	case KTRACE_FORMAT_KCDATA:       return "kcdata";
	case KTRACE_FORMAT_KOFF:         return "KOFF trace buffer";
	case KTRACE_FORMAT_ELF:          return "ELF file";
	case KTRACE_FORMAT_UNKNOWN:      break;
	}
	return "unknown";
}
