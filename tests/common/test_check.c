// SPDX-License-Identifier: MIT
/* Unit tests of lib/common/check.h and grow.h: the error helpers, NEVER/ALWAYS, and the
 * overflow checks of kt_grow and kt_realloc_array. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <ktrace/error.h>

#include "common/check.h"
#include "common/grow.h"
#include "testlib.h"

static int check_size(size_t n, struct ktrace_error *err)
{
	KT_RETURN_ERROR_IF(n > 10, err, -EOVERFLOW, "size %zu over %d", n, 10);
	KT_RETURN_ERROR_AT_IF(n == 7, err, -EBADMSG, 0x70, "seven at %d", 7);
	return 0;
}

static int forward(size_t n, int *reached)
{
	*reached = 0;
	KT_FORWARD_IF_ERROR(check_size(n, NULL));
	*reached = 1;
	return 1;
}

static void return_error_if(void)
{
	struct ktrace_error err = { 0 };
	char buf[128];

	CHECK_EQ(check_size(3, &err), 0);
	CHECK_EQ(err.code, 0);
	CHECK_EQ(check_size(11, &err), -EOVERFLOW);
	CHECK_STR(ktrace_error_format(&err, buf, sizeof(buf)), "size 11 over 10");
	CHECK_EQ(check_size(7, &err), -EBADMSG);
	CHECK_STR(ktrace_error_format(&err, buf, sizeof(buf)), "offset 0x70: seven at 7");
}

static void forward_if_error(void)
{
	int reached;

	CHECK_EQ(forward(11, &reached), -EOVERFLOW);
	CHECK_EQ(reached, 0);
	CHECK_EQ(forward(2, &reached), 1);
	CHECK_EQ(reached, 1);
}

static void error_oom(void)
{
	struct ktrace_error err = { 0 };

	CHECK_EQ(kt_error_oom(&err), -ENOMEM);
	CHECK_EQ(err.code, -ENOMEM);
	CHECK_EQ(err.has_offset, 0);
	CHECK_STR(err.message, "out of memory");
	CHECK_EQ(kt_error_oom(NULL), -ENOMEM);
}

static void never_always_values(void)
{
	int calls = 0;

	/* what holds: the value, the condition evaluated once */
	CHECK_EQ(NEVER(calls++ == 5), 0);
	CHECK_EQ(ALWAYS(calls++ == 1), 1);
	CHECK_EQ(calls, 2);
#ifndef KTRACE_DEBUG
	/* release builds: the impossible case is handled, not asserted */
	CHECK_EQ(NEVER(1), 1);
	CHECK_EQ(ALWAYS(0), 0);
#endif
}

static void grow_overflow(void)
{
	int *p = NULL, *q;
	size_t cap = 0;

	CHECK_EQ(kt_grow((void **)&p, &cap, 17, sizeof(*p)), 0);
	CHECK_EQ(cap, 32);
	p[16] = 5;
	CHECK_EQ(kt_grow((void **)&p, &cap, SIZE_MAX / 2, sizeof(*p)), -ENOMEM);
	CHECK_EQ(cap, 32);
	CHECK_EQ(p[16], 5);
	CHECK(kt_realloc_array(p, SIZE_MAX / sizeof(*p) + 1, sizeof(*p)) == NULL);
	CHECK_EQ(p[16], 5);
	q = kt_realloc_array(p, 40, sizeof(*p));
	CHECK(q != NULL);
	if (q)
		p = q;
	CHECK_EQ(p[16], 5);
	free(p);
}

int main(void)
{
	PLAN(5);
	RUN(return_error_if);
	RUN(forward_if_error);
	RUN(error_oom);
	RUN(never_always_values);
	RUN(grow_overflow);
	return TEST_EXIT();
}
