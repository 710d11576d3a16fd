// SPDX-License-Identifier: MIT
/*
 * Unit tests of ktrace sql's pieces: prev_state as the kernel's print fmt prints it
 * (the modern table, an old kernel's, combinations, bits no flag names), the hash map
 * and interned strings, the schema in both dialects.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "sinks/sql/sql_int.h"
#include "testlib.h"

/* sched_switch's print arguments of Linux 6.x and of an older kernel (4.x). */
static const char modern_args[] =
	"REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | "
	"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) "
	"<< 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { "
	"0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { "
	"0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : "
	"\"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio";
static const char old_args[] =
	"REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->prev_state & (4096-1) ? "
	"__print_flags(REC->prev_state & (4096-1), \"|\", { 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, "
	"{ 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, "
	"{ 512, \"P\" }, { 1024, \"N\" }) : \"R\", REC->prev_state & 4096 ? \"+\" : \"\", "
	"REC->next_comm, REC->next_pid, REC->next_prio";

static const char *state(const struct kt_prev_state *p, uint64_t v)
{
	static char buf[64];

	kt_prev_state_text(p, v, buf, sizeof(buf));
	return buf;
}

static void prev_state_modern(void)
{
	struct kt_prev_state *p = kt_prev_state_parse(modern_args);

	CHECK(p != NULL);
	CHECK_STR(state(p, 0), "R");
	CHECK_STR(state(p, 0x100), "R+");
	CHECK_STR(state(p, 1), "S");
	CHECK_STR(state(p, 2), "D");
	CHECK_STR(state(p, 0x80), "I");
	CHECK_STR(state(p, 0x20), "Z");
	CHECK_STR(state(p, 0x3), "S|D");
	CHECK_STR(state(p, 0x102), "D+");
	/* the same table without a parse (no format at hand) */
	CHECK_STR(state(NULL, 0x100), "R+");
	CHECK_STR(state(NULL, 0x80), "I");
	kt_prev_state_free(p);
}

static void prev_state_old_kernel(void)
{
	struct kt_prev_state *p = kt_prev_state_parse(old_args);

	CHECK(p != NULL);
	CHECK_STR(state(p, 0), "R");
	CHECK_STR(state(p, 4096), "R+");
	CHECK_STR(state(p, 64), "x");
	CHECK_STR(state(p, 512), "P");
	CHECK_STR(state(p, 1024), "N");
	CHECK_STR(state(p, 16 | 32), "Z|X");
	/* 2048 is inside the mask (4095) but no flag names it */
	CHECK_STR(state(p, 2048 | 1), "S|0x800");
	kt_prev_state_free(p);
}

static void prev_state_unparsable(void)
{
	CHECK(kt_prev_state_parse(NULL) == NULL);
	CHECK(kt_prev_state_parse("REC->prev_comm, REC->prev_pid") == NULL);
	CHECK(kt_prev_state_parse("__print_flags(REC->prev_state & (4096-1), \"|\", { 1, S })") == NULL);
	CHECK(kt_prev_state_parse("__print_flags(REC->foo & 7, \"|\", { 1, \"S\" })") == NULL);
	{
		/* a short buffer is cut, never overrun */
		char buf[3];

		kt_prev_state_text(NULL, 0x1 | 0x2 | 0x4 | 0x100, buf, sizeof(buf));
		CHECK_STR(buf, "S|");
	}
}

static void schema_text(void)
{
	struct ktrace_out b = KT_OUT_HEAP;

	CHECK_EQ(sql_schema_text(&b, KTRACE_SQL_CLICKHOUSE, NULL, "fleet"), 0);
	CHECK(strstr(kt_out_str(&b), "CREATE TABLE IF NOT EXISTS event_local (") != NULL);
	CHECK(strstr(kt_out_str(&b), ") ENGINE = MergeTree() ORDER BY (trace_id, ts);") != NULL);
	CHECK(strstr(kt_out_str(&b), "ENGINE = Distributed('fleet', currentDatabase(), args_local, trace_id)") != NULL);
	CHECK(strstr(kt_out_str(&b), "    cpu Nullable(Int64),") != NULL);
	kt_out_heap_free(&b);
	CHECK_EQ(sql_schema_text(&b, KTRACE_SQL_SQLITE, "sched_slice", NULL), 0);
	CHECK_STR(kt_out_str(&b), "CREATE TABLE sched_slice (id INTEGER PRIMARY KEY, trace_id INTEGER, "
		  "ts INTEGER, dur INTEGER, cpu INTEGER, utid INTEGER, end_state TEXT, priority INTEGER);\n"
		  "CREATE INDEX sched_slice_utid ON sched_slice(utid);\n"
		  "CREATE INDEX sched_slice_cpu ON sched_slice(cpu, ts);\n");
	kt_out_heap_free(&b);
	CHECK_EQ(sql_schema_text(&b, KTRACE_SQL_SQLITE, "nope", NULL), -ENOENT);
	kt_out_heap_free(&b);
	for (size_t i = 0; ktrace_sql_table_name(i); i++)
		CHECK(sql_table_find(ktrace_sql_table_name(i)) != NULL);
	CHECK_EQ(sql_schema_text(&b, KTRACE_SQL_SQLITE, "wakeup_latency", NULL), 0);
	CHECK_STR(kt_out_str(&b), "CREATE TABLE wakeup_latency (trace_id INTEGER, utid INTEGER, "
		  "ts INTEGER, dur INTEGER, cpu INTEGER, waker_utid INTEGER);\n"
		  "CREATE INDEX wakeup_latency_utid ON wakeup_latency(utid);\n");
	kt_out_heap_free(&b);
	CHECK_EQ(sql_table_count(), 12);
}

int main(void)
{
	PLAN(4);
	RUN(prev_state_modern);
	RUN(prev_state_old_kernel);
	RUN(prev_state_unparsable);
	RUN(schema_text);
	return TEST_EXIT();
}
