// SPDX-License-Identifier: MIT
/*
 * Fuzzes the event filter parser and evaluator (ktrace/event.h): arbitrary
 * filter text against the real formats of fuzz/eventfmt_formats.h, then the filter
 * tested on a record of every event it holds and written back as text.
 *
 * Input: byte 0 (bit 0: 4-byte longs, bit 1: big-endian), then the filter text up to
 * the first NUL byte, then the record payload (its common_type is set to each event's
 * id in turn).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/event.h>

#include "eventfmt_formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const systems[] = { "ftrace", "sched", "kmem", "timer", "syscalls",
				       "kvm", "kvmmmu", "fuzz" };
static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81002000 T schedule\n"
	"ffffffff81003000 T kmalloc\n"
	"ffffffffc0000000 t mod_func\t[mod]\n";
static const char cmdlines[] = "1 init\n42 worker\n100 bash\n";
static struct ktrace_events *registries[4];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t nformats = sizeof(formats) / sizeof(formats[0]);
	const uint8_t *nul;
	struct ktrace_events *evs;
	struct ktrace_event_filter *f;
	char *text;
	size_t tlen, plen;
	uint8_t *payload;

	if (size < 1 || size > 8192)
		return 0;
	nul = memchr(data + 1, 0, size - 1);
	tlen = nul ? (size_t)(nul - (data + 1)) : size - 1;
	text = malloc(tlen + 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, tlen);
	text[tlen] = 0;
	/* the registries are loaded once (filters only read them) */
	evs = registries[data[0] & 3];
	if (!evs) {
		evs = ktrace_event_new((data[0] & 1) ? 4 : 8, data[0] & 2);
		if (!evs) {
			free(text);
			return 0;
		}
		for (size_t i = 0; i < nformats; i++)
			ktrace_event_add_format(evs, systems[formats[i].system], formats[i].text,
						 strlen(formats[i].text), NULL, NULL);
		ktrace_event_parse_kallsyms(evs, kallsyms, sizeof(kallsyms) - 1, NULL);
		ktrace_event_parse_cmdlines(evs, cmdlines, sizeof(cmdlines) - 1, NULL);
		registries[data[0] & 3] = evs;
	}
	f = ktrace_event_filter_new(evs, text, NULL);
	plen = nul ? size - 1 - tlen - 1 : 0;
	payload = malloc(plen + 8);
	if (f && payload) {
		volatile unsigned acc = 0;

		memcpy(payload, nul ? nul + 1 : data, plen);
		for (size_t i = 0; i < ktrace_event_filter_event_count(f); i++) {
			const struct ktrace_event *ev = ktrace_event_filter_event(f, i);
			int id = ktrace_event_id(ev);
			struct ktrace_record rec = { payload, (uint32_t)plen, (int)(plen & 3), 1000, NULL,
						     0 };
			char *s;

			if (plen >= 2) {
				payload[(data[0] & 2) ? 1 : 0] = (uint8_t)id;
				payload[(data[0] & 2) ? 0 : 1] = (uint8_t)(id >> 8);
			}
			acc += ktrace_event_filter_match(f, &rec);
			s = ktrace_event_filter_string(f, id);
			if (s)
				acc += (unsigned char)s[0];
			free(s);
		}
		(void)acc;
	}
	free(payload);
	ktrace_event_filter_free(f);
	free(text);
	return 0;
}
