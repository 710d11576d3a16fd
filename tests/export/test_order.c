// SPDX-License-Identifier: MIT
/*
 * The order the Chrome JSON and Perfetto exports write threads and processes in
 * (lib/sinks/export/export_order.h), against cases worked out by hand from the rule:
 * home slot the top 32 bits of ((id + scope * 0x100000001b3) * 0x9e3779b97f4a7c15)
 * masked to the slots, linear probing, twice the slots (the entries placed again in
 * the old slots' order) before an add would fill more than half.
 */
#include <stdlib.h>

#include "engine/engine_threads.h"
#include "sinks/export/export_order.h"
#include "testlib.h"

/* A table of the (scope, id) pairs, added in that order. */
static void fill(struct kt_threads *t, unsigned opts, const uint32_t *scope,
		 const int64_t *id, size_t n)
{
	kt_threads_init(t, opts, 0, 0);
	for (size_t i = 0; i < n; i++)
		CHECK(kt_threads_add(t, scope ? scope[i] : 0, id[i]) != NULL);
	CHECK_EQ(t->n, n);
}

static void check_order(const struct kt_threads *t, size_t first, const uint32_t *want)
{
	uint32_t *order = NULL;

	CHECK_EQ(kt_export_thread_order_from(t, first, &order), 0);
	CHECK(order != NULL);
	for (size_t i = 0; order && i < t->n; i++) {
		if (order[i] != want[i])
			printf("#   position %zu: entry %u, expected %u\n", i, order[i], want[i]);
		CHECK_EQ(order[i], want[i]);
	}
	free(order);
}

/*
 * Ids 4, 5, 10, 9, 1 (scope 0) from 4 slots. Home slots in 4 / 8 / 16 slots:
 *   4: 1 / 5 / 5    5: 3 / 7 / 15    10: 2 / 6 / 14    9: 1 / 5 / 5    1: 1 / 1 / 9
 * add 4 -> slot 1; add 5 -> slot 3;
 * add 10: 3 entries > 4/2, so 8 slots: 4 (old slot 1) -> 5, 5 (old slot 3) -> 7; 10 -> 6;
 * add 9: home 5, taken (5, 6, 7 full) -> wraps to slot 0;
 * add 1: 5 entries > 8/2, so 16 slots, in old slot order: 9 (slot 0) -> 5, 4 (slot 5)
 *   -> 5 taken -> 6, 10 -> 14, 5 -> 15; then 1 -> 9.
 * Walk: slot 5 = 9 (index 3), 6 = 4 (0), 9 = 1 (4), 14 = 10 (2), 15 = 5 (1).
 * (Placing again in index order would put 4 before 9.)
 */
static void collision_and_rehash(void)
{
	static const int64_t id[] = { 4, 5, 10, 9, 1 };
	static const uint32_t want[] = { 3, 0, 4, 2, 1 };
	struct kt_threads t;

	fill(&t, 0, NULL, id, 5);
	check_order(&t, 4, want);
	kt_threads_free(&t);
}

/*
 * The exports' 256 slots, per source: homes (scope 0) 375: 185, 1: 185, 2: 114 and
 * (scope 1) 2: 166. Adds (0, 375) -> 185, (0, 1) -> 186, (1, 2) -> 166, (0, 2) -> 114.
 * Walk: 114 (index 3), 166 (2), 185 (0), 186 (1). Without the scope in the hash,
 * (1, 2) would sit at 114 before (0, 2) at 115.
 */
static void exports_slots_and_scope(void)
{
	static const uint32_t scope[] = { 0, 0, 1, 0 };
	static const int64_t id[] = { 375, 1, 2, 2 };
	static const uint32_t want[] = { 3, 2, 0, 1 };
	struct kt_threads t;
	uint32_t *order = NULL;

	fill(&t, KT_THREADS_PER_SOURCE, scope, id, 4);
	check_order(&t, KT_EXPORT_FIRST_SLOTS, want);
	CHECK_EQ(kt_export_thread_order(&t, &order), 0);
	CHECK(order && order[0] == 3 && order[1] == 2 && order[2] == 0 && order[3] == 1);
	free(order);
	kt_threads_free(&t);
}

static void empty(void)
{
	struct kt_threads t;
	uint32_t *order = (uint32_t *)&t;

	kt_threads_init(&t, 0, 0, 0);
	CHECK_EQ(kt_export_thread_order(&t, &order), 0);
	CHECK(order == NULL);
}

int main(void)
{
	PLAN(3);
	RUN(collision_and_rehash);
	RUN(exports_slots_and_scope);
	RUN(empty);
	return TEST_EXIT();
}
