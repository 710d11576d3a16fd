// SPDX-License-Identifier: MIT
/*
 * Fuzz harness: crash dumps of programs that use libktrace.so. The input is two 32-bit
 * little-endian lengths n and l, then n bytes of program file, l bytes of libktrace.so
 * image, then the core: the crash anchor is looked up in the program, else in the
 * library the core's NT_FILE note maps (build id checked), and every buffer the anchor
 * lists is opened by name, read, resolved and formatted.
 */
#include <stdint.h>
#include <string.h>

#include <ktrace/koff.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { NULL, "koff-crafted", "/dev/shm/koff-crafted",
					     "nosuch" };
	KTRACE_OPTS(koff_reader_open_opts, o);
	struct ktrace_error err = { 0 };
	struct koff_reader *r;
	struct koff_record rec;
	char tag[11], rest[512];
	uint32_t n, l;

	if (size < 8)
		return 0;
	memcpy(&n, data, 4);
	memcpy(&l, data + 4, 4);
	if (n > size - 8 || l > size - 8 - n)
		return 0;
	o.namelist_image = data + 8;
	o.namelist_len = n;
	o.core_image = data + 8 + n + l;
	o.core_len = size - 8 - n - l;
	o.lib_image = data + 8 + n;
	o.lib_image_len = l;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		o.buffer = names[k];
		if (koff_reader_open(&o, &r, &err))
			continue;
		while (koff_reader_next(r, &rec, &err) > 0)
			koff_record_format(&rec, tag, rest, sizeof(rest));
		koff_reader_close(r);
	}
	return 0;
}
