// SPDX-License-Identifier: MIT
/*
 * Fuzzes the event format parser and print-fmt compiler with arbitrary format text,
 * then formats arbitrary record bytes with the result.
 *
 * Input: byte 0 = options (bit 0: 4-byte longs, bit 1: big-endian, bits 2-4: the
 * system name), bytes 1-2 = little-endian length N of the format text, then N bytes of
 * format text, then the record payload (its common_type is set to the parsed event's
 * id, so that the fuzzed format is the one used). A few fixed symbols, printk formats
 * and comms are loaded so that lookups happen.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/event.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 t do_one_initcall\n"
	"ffffffff81002000 T schedule\n"
	"ffffffff81002000 t schedule_alias\n"
	"ffffffff81003000 T kmalloc\n"
	"ffffffff81004000 A absolute\n"
	"ffffffffc0000000 t mod_func\t[mod]\n";
static const char printk[] =
	"0xffffffff82000000 : \"hello %d %s\\n\"\n"
	"0xffffffff82000100 : \"%pS %*ph %ps\"\n";
static const char cmdlines[] = "1 init\n42 worker\n";
static const char *const systems[] = { "ftrace", "sched", "kmem", "timer", "syscalls",
				       "kvm", "kvmmmu", "fuzz" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_events *evs;
	const struct ktrace_event *ev = NULL;
	struct ktrace_record rec, next;
	uint8_t *payload;
	char out[4096];
	size_t flen, plen;
	unsigned oflags;

	if (size < 3)
		return 0;
	flen = (size_t)(data[1] | data[2] << 8);
	if (flen > size - 3)
		flen = size - 3;
	evs = ktrace_event_new((data[0] & 1) ? 4 : 8, data[0] & 2);
	if (!evs)
		return 0;
	ktrace_event_parse_kallsyms(evs, kallsyms, sizeof(kallsyms) - 1, NULL);
	ktrace_event_parse_printk_formats(evs, printk, sizeof(printk) - 1, NULL);
	ktrace_event_parse_cmdlines(evs, cmdlines, sizeof(cmdlines) - 1, NULL);
	ktrace_event_add_format(evs, systems[(data[0] >> 2) & 7], (const char *)data + 3, flen,
				 &ev, NULL);
	if (ev) {
		/* an exact-size copy, so that the sanitizers see reads past the record */
		plen = size - 3 - flen;
		payload = malloc(plen ? plen : 1);
		if (payload) {
			memcpy(payload, data + 3 + flen, plen);
			if (plen >= 2) {
				int id = ktrace_event_id(ev);

				payload[(data[0] & 2) ? 1 : 0] = (uint8_t)id;
				payload[(data[0] & 2) ? 0 : 1] = (uint8_t)(id >> 8);
			}
			next = (struct ktrace_record){ payload, (uint32_t)plen, 1, 2000, NULL, 0 };
			rec = (struct ktrace_record){ payload, (uint32_t)plen, 0, 1000, &next, 0 };
			ktrace_event_format(evs, &rec, 0, out, sizeof(out), &oflags);
			ktrace_event_format(evs, &rec, KTRACE_EVFMT_RAW, out, sizeof(out), &oflags);
			ktrace_event_latency(evs, &rec, out, sizeof(out));
			ktrace_event_comm(evs, ktrace_event_record_pid(evs, &rec));
			/* twice: some state (learnt comms, flags) changes the second time */
			ktrace_event_format(evs, &rec, 0, out, 16, &oflags);
			free(payload);
		}
	}
	ktrace_event_free(evs);
	return 0;
}
