// SPDX-License-Identifier: MIT
/*
 * Unit tests of the event formatter for what the differential tests cannot check
 * against libtraceevent alone: trace-cmd's own function-graph handlers (expected
 * texts worked out from trace-cmd 3.1.6's rules: overhead mark, "%lu.%03lu us"
 * duration padded to 7, two spaces per depth level), func_repeats' timestamp in each
 * report mode, the buffer and error conventions of the API.
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

static const char fg_entry[] =
	"name: funcgraph_entry\nID: 11\nformat:\n" COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n";
static const char fg_exit[] =
	"name: funcgraph_exit\nID: 10\nformat:\n" COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, "
	"REC->depth, REC->calltime, REC->rettime, REC->depth\n";
static const char repeats[] =
	"name: func_repeats\nID: 20\nformat:\n" COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u16 count;\toffset:24;\tsize:2;\tsigned:0;\n"
	"\tfield:u16 top_delta_ts;\toffset:26;\tsize:2;\tsigned:0;\n"
	"\tfield:u32 bottom_delta_ts;\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \" %ps <-%ps\\t(repeats:%u  delta: -%llu)\", (void *)REC->ip, "
	"(void *)REC->parent_ip, REC->count, (((u64)(REC)->top_delta_ts << 32) | "
	"(REC)->bottom_delta_ts)\n";
static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81002000 T schedule\n"
	"ffffffff81003000 t do_idle\n"
	"ffffffff81004000 T end_of_text\n";

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static struct ktrace_events *graph_events(bool with_exit)
{
	struct ktrace_events *evs = ktrace_event_new(8, false);

	ktrace_event_add_format(evs, "ftrace", fg_entry, sizeof(fg_entry) - 1, NULL, NULL);
	if (with_exit)
		ktrace_event_add_format(evs, "ftrace", fg_exit, sizeof(fg_exit) - 1, NULL, NULL);
	ktrace_event_add_format(evs, "ftrace", repeats, sizeof(repeats) - 1, NULL, NULL);
	ktrace_event_parse_kallsyms(evs, kallsyms, sizeof(kallsyms) - 1, NULL);
	return evs;
}

static void entry_rec(uint8_t *r, int pid, uint64_t func, uint32_t depth)
{
	memset(r, 0, 24);
	put16(r, 11);
	put32(r + 4, (uint32_t)pid);
	put64(r + 8, func);
	put32(r + 16, depth);
}

static void exit_rec(uint8_t *r, int pid, uint64_t func, uint32_t depth, uint64_t call,
		     uint64_t ret)
{
	memset(r, 0, 40);
	put16(r, 10);
	put32(r + 4, (uint32_t)pid);
	put64(r + 8, func);
	put32(r + 16, depth);
	put64(r + 24, call);
	put64(r + 32, ret);
}

static void graph_leaf(void)
{
	struct ktrace_events *evs = graph_events(true);
	uint8_t e[24], x[40];
	struct ktrace_record rx = { x, sizeof(x), 0, 2000, NULL, 0 };
	struct ktrace_record re = { e, sizeof(e), 0, 1000, &rx, 0 };
	char buf[256];
	unsigned of;

	entry_rec(e, 7, 0xffffffff81002000, 2);
	exit_rec(x, 7, 0xffffffff81002000, 2, 1000, 13500);
	ktrace_event_format(evs, &re, 0, buf, sizeof(buf), &of);
	CHECK_STR(buf, "+ 12.500 us  |      schedule();");
	CHECK_EQ(of, KTRACE_EVFMT_OUT_CONSUMED_NEXT);
	/* a very long one: no fraction beyond 7 digits, '$' over a second */
	exit_rec(x, 7, 0xffffffff81002000, 2, 0, 1234567890);
	ktrace_event_format(evs, &re, 0, buf, sizeof(buf), &of);
	CHECK_STR(buf, "$ 1234567 us |      schedule();");
	/* short ones: no mark */
	exit_rec(x, 7, 0xffffffff81002000, 0, 100, 452);
	ktrace_event_format(evs, &re, 0, buf, sizeof(buf), &of);
	CHECK_STR(buf, "  0.352 us   |      schedule();");
	ktrace_event_free(evs);
}

static void graph_nested_and_exit(void)
{
	struct ktrace_events *evs = graph_events(true);
	uint8_t e[24], x[40];
	struct ktrace_record rx = { x, sizeof(x), 0, 2000, NULL, 0 };
	struct ktrace_record re = { e, sizeof(e), 0, 1000, &rx, 0 };
	char buf[256];
	unsigned of;

	entry_rec(e, 7, 0xffffffff81002010, 1);
	/* another pid's exit: not a leaf */
	exit_rec(x, 8, 0xffffffff81002010, 1, 1000, 2000);
	ktrace_event_format(evs, &re, 0, buf, sizeof(buf), &of);
	CHECK_STR(buf, "             |    schedule() {");
	CHECK_EQ(of, 0);
	/* an unknown function */
	entry_rec(e, 7, 0x1234, 0);
	re.next = NULL;
	ktrace_event_format(evs, &re, 0, buf, sizeof(buf), &of);
	CHECK_STR(buf, "             |  1234() {");
	/* exits */
	exit_rec(x, 8, 0xffffffff81002010, 3, 1000, 201000);
	ktrace_event_format(evs, &rx, 0, buf, sizeof(buf), &of);
	CHECK_STR(buf, "! 200.000 us |        }");
	exit_rec(x, 8, 0xffffffff81002010, 0, 0, 1500000);
	ktrace_event_format(evs, &rx, 0, buf, sizeof(buf), &of);
	CHECK_STR(buf, "# 1500.000 us |  }");
	ktrace_event_free(evs);
}

static void graph_without_exit_format(void)
{
	struct ktrace_events *evs = graph_events(false);
	uint8_t e[24];
	struct ktrace_record re = { e, sizeof(e), 0, 1000, NULL, 0 };
	char buf[256];

	/* trace-cmd's handler gives up and the print fmt is printed */
	entry_rec(e, 7, 0xffffffff81003008, 4);
	ktrace_event_format(evs, &re, 0, buf, sizeof(buf), NULL);
	CHECK_STR(buf, "--> do_idle (4)");
	ktrace_event_free(evs);
}

static void repeats_timestamps(void)
{
	struct ktrace_events *evs = graph_events(true);
	uint8_t r[32] = { 0 };
	struct ktrace_record rec = { r, sizeof(r), 0, 5000123456789ULL, NULL, 0 };
	char buf[256];

	put16(r, 20);
	put64(r + 8, 0xffffffff81002004);
	put64(r + 16, 0xffffffff81003000);
	put16(r + 24, 3);
	put16(r + 26, 0);
	put32(r + 28, 1000);
	/* last_ts = ts - delta, printed the way the report prints times */
	ktrace_event_format(evs, &rec, 0, buf, sizeof(buf), NULL);
	CHECK_STR(buf, "schedule (count: 3  last_ts:  5000.123456)");
	ktrace_event_set_ts_format(evs, KTRACE_EVOPT_TS_NSECS);
	ktrace_event_format(evs, &rec, 0, buf, sizeof(buf), NULL);
	CHECK_STR(buf, "schedule (count: 3  last_ts:  5000.123455789)");
	ktrace_event_set_ts_format(evs, KTRACE_EVOPT_TS_RAW);
	ktrace_event_format(evs, &rec, 0, buf, sizeof(buf), NULL);
	CHECK_STR(buf, "schedule (count: 3  last_ts: 5000123455789)");
	ktrace_event_free(evs);
}

static void buffer_and_unknown(void)
{
	struct ktrace_events *evs = graph_events(true);
	uint8_t e[24];
	struct ktrace_record re = { e, sizeof(e), 0, 1000, NULL, 0 };
	char buf[8];
	size_t n;

	entry_rec(e, 7, 0xffffffff81002010, 1);
	n = ktrace_event_format(evs, &re, 0, buf, sizeof(buf), NULL);
	CHECK_EQ(n, strlen("             |    schedule() {"));
	CHECK_STR(buf, "       ");
	CHECK_EQ(ktrace_event_format(evs, &re, 0, NULL, 0, NULL), n);
	put16(e, 999);
	n = ktrace_event_format(evs, &re, 0, buf, sizeof(buf), NULL);
	CHECK_EQ(n, strlen("[UNKNOWN EVENT]"));
	CHECK(ktrace_event_record_event(evs, &re) == NULL);
	ktrace_event_free(evs);
}

static void errors(void)
{
	struct ktrace_events *evs = ktrace_event_new(8, false);
	struct ktrace_error err = { 0 };
	const struct ktrace_event *ev;
	static const char noname[] = "ID: 5\nformat:\n";
	static const char noid[] = "name: x\nformat:\n";
	static const char badprint[] = "name: bad\nID: 5\nformat:\n" COMMON
				       "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\n"
				       "print fmt: \"%d\", REC->a +\n";
	static const char syms[] = "ffffffff81000000 T one\nnot a symbol line\n"
				   "ffffffff81001000 T two\n";
	uint8_t r[12] = { 5, 0, 0, 0, 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff };
	struct ktrace_record rec = { r, sizeof(r), 0, 0, NULL, 0 };
	char buf[128];

	CHECK(evs != NULL);
	CHECK(ktrace_event_new(5, false) == NULL);
	CHECK_EQ(ktrace_event_add_format(evs, "s", noname, sizeof(noname) - 1, &ev, &err),
		 -EBADMSG);
	CHECK(ev == NULL);
	CHECK(strstr(err.message, "name") != NULL);
	CHECK_EQ(ktrace_event_add_format(evs, "s", noid, sizeof(noid) - 1, NULL, &err), -EBADMSG);
	/* a print fmt that does not parse: the event is kept and fails like trace-cmd's */
	CHECK_EQ(ktrace_event_add_format(evs, "s", badprint, sizeof(badprint) - 1, &ev, &err), 0);
	CHECK(ev && ktrace_event_failed(ev));
	ktrace_event_format(evs, &rec, 0, buf, sizeof(buf), NULL);
	CHECK_STR(buf, "[FAILED TO PARSE] a=-2");
	/* kallsyms: a bad line stops the parsing, what came before stays */
	CHECK(ktrace_event_parse_kallsyms(evs, syms, sizeof(syms) - 1, &err) < 0);
	/* (one symbol only: libtraceevent finds exact addresses only, no next symbol) */
	CHECK_STR(ktrace_event_function(evs, 0xffffffff81000000, NULL), "one");
	CHECK(ktrace_event_function(evs, 0xffffffff81000010, NULL) == NULL);
	CHECK(ktrace_event_function(evs, 0xffffffff81001000, NULL) == NULL);
	ktrace_event_free(evs);
}

/* kallsyms lines of every shape read as libtraceevent reads them: with sscanf (the
 * parser takes shortcuts for the usual 16 digits and for names, eight bytes at a time). */
static void kallsyms_lines(void)
{
	static const char *const lines[] = {
		"ffffffff81000000 T _text",
		"FFFFFFFF81000010 t UPPER_hex_and_a_long_name_of_forty_bytes_",
		"0xffffffff8100 T prefixed",
		"ffffffff810000201 T seventeen_digits",
		"ffffffff81000030 T exactly8\t[mod]",
		"ffffffff81000040 T sixteen_chars_xx",
		"ffffffff81000048 T sixteen_chars_xx\t[mod_name]",
		"ffffffff8100005g T bad_digit",
		"  ffffffff81000060 D spaced",
		"ffffffff81000070 T name\x80\x81\xfe_high_bytes",
		"ffffffff81000080 T a\vb_vertical_tab",
		"ffffffff81000090 T tab_after_eight_\tx",
		"81000a0 T short_address",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char text[128], name[128];
		unsigned long long addr;
		char type;
		int fs = -1, fe = -1;
		struct ktrace_events *evs = ktrace_event_new(8, false);
		const char *got;
		size_t n = 0;

		/* the C escapes above, as bytes */
		for (const char *p = lines[i]; *p && n < sizeof(text) - 2; p++) {
			if (p[0] == '\\' && p[1] == 't') {
				text[n++] = '\t';
				p++;
			} else if (p[0] == '\\' && p[1] == 'v') {
				text[n++] = '\v';
				p++;
			} else if (p[0] == '\\' && p[1] == 'x') {
				text[n++] = (char)strtol((char[]){ p[2], p[3], 0 }, NULL, 16);
				p += 3;
			} else {
				text[n++] = *p;
			}
		}
		text[n++] = '\n';
		text[n] = 0;
		CHECK(sscanf(text, "%16llx %c %n%*s%n", &addr, &type, &fs, &fe) == 2 && fe > fs);
		memcpy(name, text + fs, (size_t)(fe - fs));
		name[fe - fs] = 0;
		CHECK_EQ(ktrace_event_parse_kallsyms(evs, text, n, NULL), 0);
		got = ktrace_event_function(evs, addr, NULL);
		CHECK(got != NULL);
		if (got)
			CHECK_STR(got, name);
		ktrace_event_free(evs);
	}
}

/* A kallsyms of n lines: functions with and without modules, equal addresses, absolute
 * and '$' symbols (left out), a line that does not parse at bad (0: none). */
static char *big_kallsyms(size_t n, size_t bad, size_t *len)
{
	char *text = malloc(n * 64 + 1);
	size_t at = 0;

	for (size_t i = 0; text && i < n; i++) {
		uint64_t addr = 0xffffffff81000000ull + (i / 3) * 16;   /* three per address */

		if (i == bad && bad)
			at += (size_t)sprintf(text + at, "not a kallsyms line\n");
		else if (i % 97 == 5)
			at += (size_t)sprintf(text + at, "%016llx A abs_%zu\n", (unsigned long long)addr, i);
		else if (i % 89 == 7)
			at += (size_t)sprintf(text + at, "%016llx t $x%zu\n", (unsigned long long)addr, i);
		else if (i % 5 == 0)
			at += (size_t)sprintf(text + at, "%016llx t fn_in_module_%zu\t[mod%zu]\n",
					      (unsigned long long)addr, i, i % 7);
		else
			at += (size_t)sprintf(text + at, "%016llx T function_%zu\n", (unsigned long long)addr, i);
	}
	*len = at;
	return text;
}

/* Two registries' function tables and lookups are the same. */
static void same_functions(struct ktrace_events *a, struct ktrace_events *b, size_t nlines)
{
	size_t n = ktrace_event_function_count(a);

	CHECK_EQ(n, ktrace_event_function_count(b));
	for (size_t i = 0; i < n && i < ktrace_event_function_count(b); i++) {
		uint64_t x, y;
		const char *xn, *yn, *xm, *ym;

		ktrace_event_function_at(a, i, &x, &xn, &xm);
		ktrace_event_function_at(b, i, &y, &yn, &ym);
		if (x != y || strcmp(xn, yn) || (!xm != !ym) || (xm && strcmp(xm, ym))) {
			CHECK(!"the same function at i");
			fprintf(stderr, "#   %zu: %llx %s %s / %llx %s %s\n", i, (unsigned long long)x, xn,
				xm ? xm : "-", (unsigned long long)y, yn, ym ? ym : "-");
			break;
		}
	}
	for (size_t i = 0; i < nlines; i += 13) {
		uint64_t addr = 0xffffffff81000000ull + (i / 3) * 16 + (i % 2), sa = 0, sb = 0;
		const char *fa = ktrace_event_function(a, addr, &sa), *fb = ktrace_event_function(b, addr, &sb);

		if ((!fa != !fb) || (fa && (strcmp(fa, fb) || sa != sb))) {
			CHECK(!"the same lookup");
			break;
		}
	}
}

/* A big kallsyms (over 1 MB: read into one block of huge pages, event_meta.c) gives the
 * table the same symbols read a piece at a time give (the heap's path); kallsyms given
 * again after a big one still count; a bad line in a big one keeps what came before. */
static void kallsyms_big(void)
{
	size_t len, cut, n = 40000;
	char *text = big_kallsyms(n, 0, &len), *bad;
	struct ktrace_events *whole = ktrace_event_new(8, false), *pieces = ktrace_event_new(8, false);
	struct ktrace_events *again;

	CHECK(len > (1u << 20));
	CHECK_EQ(ktrace_event_parse_kallsyms(whole, text, len, NULL), 0);
	cut = len / 3;
	while (text[cut - 1] != '\n')
		cut++;
	CHECK_EQ(ktrace_event_parse_kallsyms(pieces, text, cut, NULL), 0);
	CHECK_EQ(ktrace_event_parse_kallsyms(pieces, text + cut, len - cut, NULL), 0);
	CHECK(ktrace_event_function_count(whole) > n * 9 / 10);
	same_functions(whole, pieces, n);
	/* more after the big table (it moves to the heap, its names stay) */
	again = ktrace_event_new(8, false);
	CHECK_EQ(ktrace_event_parse_kallsyms(again, text, len, NULL), 0);
	CHECK_EQ(ktrace_event_parse_kallsyms(again, text, cut, NULL), 0);
	CHECK_EQ(ktrace_event_parse_kallsyms(pieces, text, cut, NULL), 0);
	same_functions(again, pieces, n);
	ktrace_event_free(again);
	ktrace_event_free(whole);
	ktrace_event_free(pieces);
	free(text);
	/* a line that does not parse: the symbols before it stay */
	bad = big_kallsyms(n, n / 2, &len);
	whole = ktrace_event_new(8, false);
	pieces = ktrace_event_new(8, false);
	CHECK(ktrace_event_parse_kallsyms(whole, bad, len, NULL) < 0);
	text = big_kallsyms(n / 2, 0, &cut);
	CHECK_EQ(ktrace_event_parse_kallsyms(pieces, text, cut, NULL), 0);
	same_functions(whole, pieces, n / 2);
	ktrace_event_free(whole);
	ktrace_event_free(pieces);
	free(text);
	free(bad);
}

int main(void)
{
	PLAN(8);
	RUN(kallsyms_lines);
	RUN(kallsyms_big);
	RUN(graph_leaf);
	RUN(graph_nested_and_exit);
	RUN(graph_without_exit_format);
	RUN(repeats_timestamps);
	RUN(buffer_and_unknown);
	RUN(errors);
	return TEST_EXIT();
}
