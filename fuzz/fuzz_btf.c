// SPDX-License-Identifier: MIT
/*
 * Fuzzes the BTF reader of function-graph arguments (lib/event/event_btf.c): a BTF
 * blob from the input, parsed, then the arguments of a function printed as trace-cmd
 * 3.4 prints them.
 *
 * Input: byte 0 the options (bit 0: 4-byte arguments, bit 1: big-endian arguments,
 * bit 2: no BTF at all), byte 1 the number of arguments, byte 2 the length L of the
 * function's name, then the name (L bytes), the arguments (4 or 8 bytes each), and the
 * BTF (the rest). The name is also tried with ".isra.0" after it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/event.h>

#include "event/event_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_events *evs;
	struct ftev_btf *b = NULL;
	unsigned opt, nmem, nlen, asize;
	char name[300], buf[4096];
	struct ktrace_out o;
	size_t at;

	if (size < 3)
		return 0;
	opt = data[0];
	nmem = data[1];
	nlen = data[2];
	asize = (opt & 1) ? 4 : 8;
	at = 3 + (size_t)nlen + (size_t)nmem * asize;
	if (at > size)
		return 0;
	evs = ktrace_event_new((int)asize, opt & 2);
	if (!evs)
		return 0;
	if (!(opt & 4))
		b = ftev_btf_load(data + at, size - at);
	memcpy(name, data + 3, nlen);
	memcpy(name + nlen, ".isra.0", 8);
	for (int k = 0; k < 2; k++) {
		o = KT_OUT_MEM(buf, sizeof(buf));
		ftev_btf_print_args(evs, b, &o, data + 3 + nlen, (int)nmem, (int)asize, name,
				    k ? strlen(name) : nlen);
	}
	ftev_btf_free(b);
	ktrace_event_free(evs);
	return 0;
}
