// SPDX-License-Identifier: MIT
/*
 * The producer's wall clock, in nanoseconds since the epoch.
 *
 * clock_gettime(CLOCK_REALTIME) costs 18 to 27 ns, most of the budget of a record.
 * Where the kernel itself keeps time with the TSC (clocksource "tsc", or "kvm-clock"
 * in a KVM guest, so the counters are synchronised and run at a constant rate), records
 * are stamped
 * from the TSC instead: each thread keeps an anchor (a TSC value and the wall clock
 * read with it) and extrapolates from it with the process's ticks-to-nanoseconds
 * factor; the anchor is renewed with clock_gettime at least every KOFF_REANCHOR_NS
 * (about a millisecond), and the factor is refined from the process's first anchor
 * each time. A time stamp is therefore within about a microsecond of clock_gettime,
 * and follows wall-clock steps within a millisecond.
 *
 * KOFF_CLOCK=realtime in the environment, another clocksource or another machine
 * than x86-64 selects clock_gettime for every record.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "koff/koff_int.h"
#include "koff/koff_producer_int.h"

#define KOFF_REANCHOR_NS 1000000ULL

uint64_t koff_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#ifdef HAVE_TSC

_Atomic int koff__tsc_state;                   /* 0 unknown, 1 usable, -1 not */
_Atomic uint64_t koff__tsc_mult;               /* ns per tick, 32.32 fixed point */
_Atomic uint64_t koff__tsc_limit;              /* ticks between anchors */
static uint64_t first_tsc, first_ns;           /* the process's first anchor */

#define tsc_state koff__tsc_state
#define tsc_mult koff__tsc_mult
#define tsc_limit koff__tsc_limit
#define anchor_tsc koff__self.anchor_tsc
#define anchor_ns koff__self.anchor_ns

static int tsc_usable(void)
{
	const char *e = getenv("KOFF_CLOCK");
	char src[32] = "";
	FILE *f;

	if (e && !strcmp(e, "realtime"))
		return 0;
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (!f)
		return 0;
	if (!fgets(src, sizeof(src), f))
		src[0] = '\0';
	fclose(f);
	/* kvm-clock is the TSC too (scaled by the host's factors), and only served from
	 * user space when the host vouches for a stable, synchronised TSC: clock_gettime
	 * itself then reads it. */
	return !strcmp(src, "tsc\n") || !strcmp(src, "kvm-clock\n");
}

/*
 * A wall-clock reading and the TSC at the same moment: the clock read between two TSC
 * reads, the pair taken from the attempt where they were closest (an attempt that was
 * preempted in the middle is thrown away). Returns the bracket width in ticks.
 */
static uint64_t read_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 4; i++) {
		uint64_t a = __rdtsc(), n = koff_now_ns(), b = __rdtsc();

		if (b >= a && b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
			if (best < 4096)
				break;
		}
	}
	return best;
}

static void set_factor(uint64_t dns, uint64_t dtsc)
{
	uint64_t m = (uint64_t)(((unsigned __int128)dns << 32) / dtsc);

	if (!m)
		return;
	atomic_store_explicit(&tsc_mult, m, memory_order_relaxed);
	atomic_store_explicit(&tsc_limit,
			      (uint64_t)(((unsigned __int128)KOFF_REANCHOR_NS << 32) / m) + 1,
			      memory_order_relaxed);
}

/* Once per process: decides, and measures a first factor over about 50 us. */
static int tsc_setup(void)
{
	static _Atomic int busy;
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0, w0, w1;
	int expected = 0;

	if (!atomic_compare_exchange_strong(&busy, &expected, 1)) {
		while (!atomic_load(&tsc_state))
			;
		return atomic_load(&tsc_state);
	}
	if (!tsc_usable()) {
		atomic_store(&tsc_state, -1);
		return -1;
	}
	w0 = read_pair(&t0, &n0);
	do
		w1 = read_pair(&t1, &n1);
	while (n1 >= n0 && n1 - n0 < 50000);
	/* Both readings tight (within a microsecond or so), time moving forward. */
	if (n1 <= n0 || t1 <= t0 || w0 > 8192 || w1 > 8192) {
		atomic_store(&tsc_state, -1);
		return -1;
	}
	first_tsc = t0;
	first_ns = n0;
	set_factor(n1 - n0, t1 - t0);
	atomic_store(&tsc_state, 1);
	return 1;
}

static uint64_t reanchor(void)
{
	uint64_t ns = 0, t = 0;

	read_pair(&t, &ns);
	anchor_ns = ns;
	anchor_tsc = t;
	/* Refine the factor over the whole life of the process. */
	if (t > first_tsc && ns > first_ns && ns - first_ns > 10 * KOFF_REANCHOR_NS)
		set_factor(ns - first_ns, t - first_tsc);
	return ns;
}

uint64_t koff_stamp_ns(void)
{
	int state = atomic_load_explicit(&tsc_state, memory_order_relaxed);
	uint64_t d;

	if (__builtin_expect(state <= 0, 0)) {
		if (state < 0 || tsc_setup() < 0)
			return koff_now_ns();
	}
	d = __rdtsc() - anchor_tsc;
	if (__builtin_expect(d >= atomic_load_explicit(&tsc_limit, memory_order_relaxed), 0))
		return reanchor();
	return anchor_ns + (uint64_t)(((unsigned __int128)d *
				       atomic_load_explicit(&tsc_mult, memory_order_relaxed)) >> 32);
}

#else

uint64_t koff_stamp_ns(void)
{
	return koff_now_ns();
}

#endif
