// SPDX-License-Identifier: MIT
/*
 * Unit tests of the event registry's lookup and field API (ktrace/event.h) on a format
 * written here: what each call returns is worked out from the format text and the
 * record bytes below.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/event.h>

#include "testlib.h"

#define COMMON                                                                     \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"       \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"       \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char switch_fmt[] =
	"name: my_switch\nID: 316\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:int prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:u32 vals[2];\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";
static const char other_fmt[] =
	"name: tick\nID: 7\nformat:\n" COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%lx\", REC->ip\n";

static struct ktrace_events *registry(const struct ktrace_event **sw)
{
	struct ktrace_events *evs = ktrace_event_new(8, false);
	struct ktrace_error err = { 0 };

	if (!evs)
		return NULL;
	if (ktrace_event_add_format(evs, "mysched", switch_fmt, sizeof(switch_fmt) - 1, sw, &err) ||
	    ktrace_event_add_format(evs, "timer", other_fmt, sizeof(other_fmt) - 1, NULL, &err))
		printf("#   add_format: %s\n", err.message);
	return evs;
}

static void switch_record(uint8_t r[48])
{
	uint16_t type = 316;
	int32_t pid = 77, prev_pid = -5;
	int64_t state = 2;
	uint32_t vals[2] = { 10, 4000000000u };

	memset(r, 0, 48);
	memcpy(r, &type, 2);
	memcpy(r + 4, &pid, 4);
	memcpy(r + 8, "bash", 4);
	memcpy(r + 24, &prev_pid, 4);
	memcpy(r + 32, &state, 8);
	memcpy(r + 40, vals, 8);
}

static void lookups(void)
{
	const struct ktrace_event *sw = NULL, *tick;
	struct ktrace_events *evs = registry(&sw);

	CHECK(evs && sw);
	if (!evs || !sw)
		return;
	CHECK_EQ(ktrace_event_count(evs), 2);
	tick = ktrace_event_find(evs, 7);
	CHECK(tick != NULL && tick != sw);
	CHECK(ktrace_event_find(evs, 316) == sw);
	CHECK(ktrace_event_find(evs, 8) == NULL);
	CHECK(ktrace_event_at(evs, 0) == sw || ktrace_event_at(evs, 1) == sw);
	CHECK(ktrace_event_at(evs, 0) == tick || ktrace_event_at(evs, 1) == tick);
	CHECK(ktrace_event_at(evs, 2) == NULL);
	CHECK(ktrace_event_find_by_name(evs, "mysched", "my_switch") == sw);
	CHECK(ktrace_event_find_by_name(evs, "timer", "tick") == tick);
	CHECK(ktrace_event_find_by_name(evs, "timer", "my_switch") == NULL);
	CHECK_STR(ktrace_event_system(sw), "mysched");
	CHECK_STR(ktrace_event_system(tick), "timer");
	CHECK_STR(ktrace_event_print_fmt(sw), "prev_comm=%s prev_pid=%d");
	CHECK_STR(ktrace_event_print_args(sw), "REC->prev_comm, REC->prev_pid");
	CHECK_STR(ktrace_event_print_args(tick), "REC->ip");
	ktrace_event_free(evs);
}

static void fields(void)
{
	const struct ktrace_event *sw = NULL;
	struct ktrace_events *evs = registry(&sw);
	struct ktrace_event_value v[8];
	struct ktrace_record rec = { 0 };
	uint8_t r[48];
	uint32_t off = 0, size = 0;
	uint64_t num = 0;

	CHECK(evs && sw);
	if (!evs || !sw)
		return;
	switch_record(r);
	rec.data = r;
	rec.size = sizeof(r);
	CHECK_EQ(ktrace_event_field_count(sw), 4);
	CHECK_STR(ktrace_event_field_name(sw, 0), "prev_comm");
	CHECK_STR(ktrace_event_field_name(sw, 3), "vals");
	CHECK(ktrace_event_field_name(sw, 4) == NULL);
	CHECK_EQ(ktrace_event_field_index(sw, "prev_pid"), 1);
	CHECK_EQ(ktrace_event_field_index(sw, "common_pid"), -1);
	CHECK_EQ(ktrace_event_field_index(sw, "nope"), -1);
	CHECK_EQ(ktrace_event_field_layout(sw, 2, &off, &size), 0);
	CHECK_EQ(off, 32);
	CHECK_EQ(size, 8);
	CHECK_EQ(ktrace_event_field_layout(sw, 9, &off, &size), -ENOENT);
	CHECK_EQ(ktrace_event_field_number(evs, sw, 2, &rec, &num), 0);
	CHECK_EQ(num, 2);
	CHECK_EQ(ktrace_event_field_number(evs, sw, 0, &rec, &num), -1);   /* 16 bytes */

	CHECK_EQ(ktrace_event_field_value(evs, sw, 0, &rec, &v[0]), 0);
	CHECK_EQ(v[0].type, KTRACE_EVENT_STRING);
	CHECK(v[0].len == 4 && !memcmp(v[0].data, "bash", 4));
	CHECK_EQ(ktrace_event_field_value(evs, sw, 1, &rec, &v[0]), 0);
	CHECK_EQ(v[0].type, KTRACE_EVENT_SIGNED);
	CHECK_EQ(v[0].i, -5);
	CHECK_EQ(ktrace_event_field_value(evs, sw, 4, &rec, &v[0]), -ENOENT);

	memset(v, 0, sizeof(v));
	CHECK_EQ(ktrace_event_field_values(evs, sw, &rec, v, 8), 4);
	CHECK_STR(v[1].name, "prev_pid");
	CHECK_EQ(v[2].i, 2);
	CHECK_EQ(v[3].type, KTRACE_EVENT_ARRAY);
	CHECK_EQ(v[3].count, 2);
	CHECK_EQ(v[3].elem_size, 4);
	CHECK_EQ(ktrace_event_array_at(&v[3], 1), 4000000000u);
	/* fewer slots than fields: the count is still every field */
	memset(v, 0, sizeof(v));
	CHECK_EQ(ktrace_event_field_values(evs, sw, &rec, v, 1), 4);
	CHECK_STR(v[0].name, "prev_comm");
	CHECK(v[1].name == NULL);
	ktrace_event_free(evs);
}

static void comms_and_states(void)
{
	struct ktrace_events *evs = ktrace_event_new(8, false);
	char buf[32];

	CHECK(evs != NULL);
	if (!evs)
		return;
	CHECK_STR(ktrace_event_comm(evs, 42), "<...>");
	CHECK_EQ(ktrace_event_register_comm(evs, 42, "worker"), 0);
	CHECK_STR(ktrace_event_comm(evs, 42), "worker");
	CHECK_STR(ktrace_event_comm(evs, 0), "<idle>");
	ktrace_event_free(evs);

	CHECK_EQ(ktrace_event_task_state(0, buf, sizeof(buf)), 1);
	CHECK_STR(buf, "R");
	ktrace_event_task_state(1, buf, sizeof(buf));
	CHECK_STR(buf, "S");
	CHECK_EQ(ktrace_event_task_state(1 | 2, buf, sizeof(buf)), 3);
	CHECK_STR(buf, "S|D");
	/* truncated like snprintf: the whole length, what fits written */
	CHECK_EQ(ktrace_event_task_state(1 | 2, buf, 2), 3);
	CHECK_STR(buf, "S");
}

static void printk_listing(void)
{
	static const char text[] =
		"0xffffffff81000020 : \"second %d\\n\"\n"
		"0xffffffff81000010 : \"first\"\n";
	struct ktrace_events *evs = ktrace_event_new(8, false);
	struct ktrace_error err = { 0 };
	uint64_t addr = 0;
	const char *fmt = NULL;

	CHECK(evs != NULL);
	if (!evs)
		return;
	CHECK_EQ(ktrace_event_parse_printk_formats(evs, text, sizeof(text) - 1, &err), 0);
	CHECK_EQ(ktrace_event_printk_count(evs), 2);
	ktrace_event_printk_at(evs, 0, &addr, &fmt);   /* sorted by address */
	CHECK_EQ(addr, 0xffffffff81000010ULL);
	CHECK_STR(fmt, "first");
	ktrace_event_printk_at(evs, 1, &addr, &fmt);
	CHECK_EQ(addr, 0xffffffff81000020ULL);
	CHECK_STR(fmt, "second %d");
	ktrace_event_free(evs);
}

int main(void)
{
	PLAN(4);
	RUN(lookups);
	RUN(fields);
	RUN(comms_and_states);
	RUN(printk_listing);
	return tl_failed_cases != 0;
}
