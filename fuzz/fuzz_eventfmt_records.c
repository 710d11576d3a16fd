// SPDX-License-Identifier: MIT
/*
 * Fuzzes the formatting of arbitrary record bytes against real event formats.
 *
 * Input: byte 0 selects the format (fuzz/eventfmt_formats.h), byte 1 the options
 * (bit 0: 4-byte longs, bit 1: big-endian, bit 2: the next record is the same bytes,
 * bits 3-7: how many bytes past the record are readable), then the record payload.
 * Its common_type is set to the selected event's id. funcgraph_exit is always loaded
 * so that function-graph leaves are looked for.
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
static const char printk[] =
	"0xffffffff82000000 : \"hello %d %s\\n\"\n"
	"0xffffffff82000100 : \"%pS %*ph %ps %llx %hhd %c %p %pM\"\n";
static const char fgraph_exit[] =
	"name: funcgraph_exit\nID: 10\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, "
	"REC->depth, REC->calltime, REC->rettime, REC->depth\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t nformats = sizeof(formats) / sizeof(formats[0]);
	const struct ktrace_event *ev = NULL;
	struct ktrace_record rec, next;
	struct ktrace_events *evs;
	size_t plen, extra;
	uint8_t *payload;
	char out[2048];
	unsigned oflags, opt;

	if (size < 2)
		return 0;
	opt = data[1];
	evs = ktrace_event_new((opt & 1) ? 4 : 8, opt & 2);
	if (!evs)
		return 0;
	ktrace_event_parse_kallsyms(evs, kallsyms, sizeof(kallsyms) - 1, NULL);
	ktrace_event_parse_printk_formats(evs, printk, sizeof(printk) - 1, NULL);
	ktrace_event_add_format(evs, "ftrace", fgraph_exit, sizeof(fgraph_exit) - 1, NULL, NULL);
	ktrace_event_add_format(evs, systems[formats[data[0] % nformats].system],
				 formats[data[0] % nformats].text,
				 strlen(formats[data[0] % nformats].text), &ev, NULL);
	plen = size - 2;
	extra = (opt >> 3) * 4;
	payload = malloc(plen + extra + 1);
	if (ev && payload) {
		memcpy(payload, data + 2, plen);
		memset(payload + plen, 0xa5, extra);
		if (plen >= 2) {
			int id = ktrace_event_id(ev);

			payload[(opt & 2) ? 1 : 0] = (uint8_t)id;
			payload[(opt & 2) ? 0 : 1] = (uint8_t)(id >> 8);
		}
		next = (struct ktrace_record){ payload, (uint32_t)plen, 0, 2000, NULL,
					       (uint32_t)(plen + extra) };
		rec = (struct ktrace_record){ payload, (uint32_t)plen, 0, 1000,
					      (opt & 4) ? &next : NULL, (uint32_t)(plen + extra) };
		ktrace_event_format(evs, &rec, 0, out, sizeof(out), &oflags);
		ktrace_event_format(evs, &rec, KTRACE_EVFMT_RAW, out, sizeof(out), &oflags);
		ktrace_event_latency(evs, &rec, out, sizeof(out));
		ktrace_event_format(evs, &rec, 0, out, 8, &oflags);
	}
	free(payload);
	ktrace_event_free(evs);
	return 0;
}
