/* SPDX-License-Identifier: MIT */
/* lttng-ust tracepoint for the comparison in bench_koff.c (built only with lttng-ust). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER koff_bench
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(KOFF_BENCH_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define KOFF_BENCH_LTTNG_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(koff_bench, record,
	TP_ARGS(int, thread, long, rec, unsigned long, value),
	TP_FIELDS(
		ctf_integer(int, thread, thread)
		ctf_integer(long, rec, rec)
		ctf_integer_hex(unsigned long, value, value)
	)
)

#endif

#include <lttng/tracepoint-event.h>
