// SPDX-License-Identifier: MIT
/* Fuzz harness for the text inputs of the Darwin support: codes tables (trace codes
 * files with class and subclass lines, the format of the built-in table) and filter
 * descriptions (ALL, C, S, D, r). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/darwin.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_error err = { 0 };
	struct ktrace_darwin_codes *c = ktrace_darwin_codes_new();
	struct ktrace_darwin_filter *f = ktrace_darwin_filter_new();
	char *desc = malloc(size + 1);

	if (c && f && desc) {
		ktrace_darwin_codes_load_buffer(c, (const char *)data, size, &err);
		for (size_t i = 0; i + 4 <= size && i < 4096; i += 4) {
			char name[64];
			uint32_t id;

			memcpy(&id, data + i, 4);
			ktrace_darwin_codes_lookup(c, id);
			ktrace_darwin_event_name(c, id, name, sizeof(name));
			ktrace_darwin_codes_class(c, id >> 24);
			ktrace_darwin_codes_subclass(c, id >> 24, (id >> 16) & 0xff);
		}
		/* The text up to its first newline as a filter description. */
		memcpy(desc, data, size);
		desc[size] = 0;
		desc[strcspn(desc, "\n")] = 0;
		if (ktrace_darwin_filter_parse(f, desc, &err) == 0)
			for (uint32_t id = 0; id < 0x20000000; id += 0x00fff003)
				ktrace_darwin_filter_match(f, id);
	}
	ktrace_darwin_codes_free(c);
	ktrace_darwin_filter_free(f);
	free(desc);
	return 0;
}
