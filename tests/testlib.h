/* SPDX-License-Identifier: MIT */
/*
 * Minimal unit-test support. A test program first declares how many cases it runs with
 * PLAN(n) (TAP's "1..n": tests/run.sh fails a program whose count of results differs),
 * then runs them with RUN(fn); each case prints "ok - name" or "not ok - name" (TAP
 * style) and tests/run.sh counts them. Checks inside a case record the first failure
 * with file and line.
 */
#ifndef KTRACE_TESTLIB_H
#define KTRACE_TESTLIB_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int tl_case_failed;
static int tl_failed_cases;

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			printf("#   %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			tl_case_failed = 1;                                            \
		}                                                                      \
	} while (0)

#define CHECK_EQ(a, b)                                                                 \
	do {                                                                           \
		long long tl_a = (long long)(a), tl_b = (long long)(b);                \
		if (tl_a != tl_b) {                                                    \
			printf("#   %s:%d: %s == %lld, expected %s == %lld\n", __FILE__,    \
			       __LINE__, #a, tl_a, #b, tl_b);                          \
			tl_case_failed = 1;                                            \
		}                                                                      \
	} while (0)

#define CHECK_STR(a, b)                                                                \
	do {                                                                           \
		const char *tl_a = (a), *tl_b = (b);                                   \
		if (!tl_a || !tl_b || strcmp(tl_a, tl_b)) {                            \
			printf("#   %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,      \
			       __LINE__, #a, tl_a ? tl_a : "(null)", tl_b ? tl_b : "(null)"); \
			tl_case_failed = 1;                                            \
		}                                                                      \
	} while (0)

#define PLAN(n)                                                                        \
	do {                                                                           \
		printf("1..%d\n", (int)(n));                                           \
		fflush(stdout);                                                        \
	} while (0)

#define RUN(fn)                                                                        \
	do {                                                                           \
		tl_case_failed = 0;                                                    \
		fn();                                                                  \
		printf("%s - %s\n", tl_case_failed ? "not ok" : "ok", #fn);            \
		fflush(stdout);                                                        \
		tl_failed_cases += tl_case_failed;                                     \
	} while (0)

#define TEST_EXIT() (tl_failed_cases ? 1 : 0)

#endif
