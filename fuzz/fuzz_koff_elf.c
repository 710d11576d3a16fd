// SPDX-License-Identifier: MIT
/*
 * Fuzz harness: the crash-dump reader (program file + ELF core, through libelf). The
 * input is a 32-bit little-endian length n, then n bytes of program file, then the
 * core; the records found are read, resolved and formatted.
 */
#include <stdint.h>
#include <string.h>

#include <ktrace/koff.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_error err = { 0 };
	struct koff_reader *r;
	struct koff_record rec;
	char tag[11], rest[512];
	uint32_t n;

	if (size < 4)
		return 0;
	memcpy(&n, data, 4);
	if (n > size - 4)
		return 0;
	KTRACE_OPTS(koff_reader_open_opts, o, .namelist_image = data + 4, .namelist_len = n,
		    .core_image = data + 4 + n, .core_len = size - 4 - n);
	if (koff_reader_open(&o, &r, &err))
		return 0;
	while (koff_reader_next(r, &rec, &err) > 0)
		koff_record_format(&rec, tag, rest, sizeof(rest));
	koff_reader_close(r);
	return 0;
}
