// SPDX-License-Identifier: MIT
/*
 * Fuzz harness: KOFF format strings as a hostile buffer could hold them. The input is
 * five argument words (40 bytes) then the format text; it is parsed, split into tag and
 * rest, and rendered with some %s strings available and some not.
 */
#include <stdint.h>
#include <string.h>

#include <ktrace/koff.h>

#include "koff/koff_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const strs[5] = { "one", NULL, "three\nline", NULL, "" };
	struct koff_record rec = { 0 };
	struct koff_fmt f;
	char fmt[4096], tag[11], out[600];
	size_t len, rest_at;

	if (size < 40)
		return 0;
	memcpy(rec.args, data, 40);
	len = size - 40 < sizeof(fmt) - 1 ? size - 40 : sizeof(fmt) - 1;
	memcpy(fmt, data + 40, len);
	fmt[len] = '\0';
	len = strlen(fmt);
	if (koff_fmt_parse(fmt, len, &f) == 0) {
		koff_fmt_tag(fmt, len, &rest_at);
		koff_fmt_render(fmt, len, rest_at, &f, rec.args, strs, out, sizeof(out));
		koff_fmt_render(fmt, len, 0, &f, rec.args, NULL, out, 7);
	}
	rec.fmt = fmt;
	for (int i = 0; i < 5; i++)
		rec.strs[i] = strs[i];
	koff_record_format(&rec, tag, out, sizeof(out));
	return 0;
}
