// SPDX-License-Identifier: MIT
/* Unit tests of the common hash map, string table and arena (common/hashmap.h, arena.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/hashmap.h"
#include "testlib.h"

/*
 * Allocation failure: this program replaces malloc, calloc and realloc with versions that
 * fail once `allow` more have succeeded (allow < 0: never fail). Under AddressSanitizer
 * the allocator is its own, so the cases that need this report a skip.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(KT_ASAN)
#define CAN_FAIL_ALLOC 0
#else
#define CAN_FAIL_ALLOC 1
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

static long allow = -1;

static int take(void)
{
	if (allow < 0)
		return 1;
	if (!allow)
		return 0;
	allow--;
	return 1;
}

void *malloc(size_t size)
{
	return take() ? __libc_malloc(size) : NULL;
}

void *calloc(size_t n, size_t size)
{
	return take() ? __libc_calloc(n, size) : NULL;
}

void *realloc(void *p, size_t size)
{
	return take() ? __libc_realloc(p, size) : NULL;
}
#endif

/* Keys whose slots collide: every key is looked up and the values are the right ones,
 * through several growths. */
static void int_keys_collide_and_grow(void)
{
	struct kt_map m = { 0 };
	uint32_t v = 0;
	size_t caps = 0, last = 0;

	CHECK(!kt_map_get(&m, 1, 0, &v));
	for (uint32_t i = 0; i < 5000; i++) {
		/* the same low bits in a, b telling keys apart: many share a home slot */
		CHECK_EQ(kt_map_put(&m, (uint64_t)(i % 7) << 40, i / 7, i * 3 + 1), 0);
		if (m.cap != last) {
			caps++;
			last = m.cap;
		}
	}
	CHECK_EQ(m.n, 5000);
	CHECK(caps >= 5);
	CHECK(m.cap >= 10000);
	CHECK_EQ(m.cap & (m.cap - 1), 0);
	for (uint32_t i = 0; i < 5000; i++) {
		CHECK(kt_map_get(&m, (uint64_t)(i % 7) << 40, i / 7, &v));
		CHECK_EQ(v, i * 3 + 1);
	}
	CHECK(!kt_map_get(&m, 7ULL << 40, 0, &v));
	CHECK(!kt_map_get(&m, 0, 5000, &v));
	/* a put of a present key replaces its value */
	CHECK_EQ(kt_map_put(&m, 0, 0, 77), 0);
	CHECK(kt_map_get(&m, 0, 0, &v));
	CHECK_EQ(v, 77);
	CHECK_EQ(m.n, 5000);
	kt_map_free(&m);
	CHECK(!kt_map_get(&m, 0, 0, &v));
}

/* Deleting keys from the middle of probe runs keeps every other key findable. */
static void delete_keeps_runs(void)
{
	struct kt_map m = { 0 };
	uint32_t v;

	for (uint32_t i = 0; i < 1000; i++)
		CHECK_EQ(kt_map_put(&m, i, 0, i), 0);
	for (uint32_t i = 0; i < 1000; i += 3)
		CHECK(kt_map_del(&m, i, 0));
	CHECK(!kt_map_del(&m, 0, 0));
	CHECK(!kt_map_del(&m, 5000, 0));
	CHECK_EQ(m.n, 1000 - 334);
	for (uint32_t i = 0; i < 1000; i++) {
		bool there = kt_map_get(&m, i, 0, &v);

		CHECK_EQ(there, i % 3 != 0);
		if (there)
			CHECK_EQ(v, i);
	}
	kt_map_free(&m);
}

struct pair {
	uint32_t x, y;
};

struct pair_key {
	const struct pair *all;
	struct pair want;
};

static bool pair_eq(const void *ctx, uint32_t val)
{
	const struct pair_key *k = ctx;

	return k->all[val].x == k->want.x && k->all[val].y == k->want.y;
}

/* Keys compared by the caller: entries with one hash are told apart by eq. */
static void hashed_keys_same_hash(void)
{
	struct kt_map m = { 0 };
	struct pair all[300];
	uint32_t v;

	for (uint32_t i = 0; i < 300; i++) {
		all[i] = (struct pair){ i, i * 2 };
		/* three hashes for 300 keys */
		CHECK_EQ(kt_map_add(&m, i % 3, i), 0);
	}
	for (uint32_t i = 0; i < 300; i++) {
		struct pair_key k = { all, { i, i * 2 } };

		CHECK(kt_map_find(&m, i % 3, pair_eq, &k, &v));
		CHECK_EQ(v, i);
		/* the right key under the wrong hash is not found */
		CHECK(!kt_map_find(&m, i % 3 + 3, pair_eq, &k, &v));
	}
	{
		struct pair_key k = { all, { 1, 3 } };

		CHECK(!kt_map_find(&m, 1, pair_eq, &k, &v));
	}
	kt_map_free(&m);
}

/* The bound: a put past max fails with -E2BIG and leaves the map as it was. */
static void bounded(void)
{
	struct kt_map m = { .max = 100 };
	uint32_t v;

	for (uint32_t i = 0; i < 100; i++)
		CHECK_EQ(kt_map_put(&m, i, 1, i), 0);
	CHECK_EQ(kt_map_put(&m, 100, 1, 100), -E2BIG);
	CHECK_EQ(kt_map_add(&m, 100, 100), -E2BIG);
	CHECK_EQ(kt_map_reserve(&m, 101), -E2BIG);
	/* replacing a present key is no new key */
	CHECK_EQ(kt_map_put(&m, 5, 1, 55), 0);
	CHECK_EQ(m.n, 100);
	CHECK(!kt_map_get(&m, 100, 1, &v));
	CHECK(kt_map_get(&m, 5, 1, &v));
	CHECK_EQ(v, 55);
	kt_map_free(&m);
}

/* Interning: one copy and one number per distinct string, in the order they came;
 * strings with NUL bytes, empty strings, prefixes of each other. */
static void interning(void)
{
	struct kt_strtab t = { 0 };
	char buf[32];
	const char *a, *b, *c;
	uint32_t id;

	a = kt_intern(&t, "sched_switch", 12);
	b = kt_intern(&t, "sched_switch_xyz", 12);
	CHECK(a && a == b);
	CHECK_STR(a, "sched_switch");
	c = kt_intern(&t, "sched", 5);
	CHECK(c && c != a);
	CHECK_STR(c, "sched");
	CHECK(kt_intern(&t, "", 0) != NULL);
	CHECK_EQ(kt_strtab_id(&t, "a\0b", 3, &id), 0);
	CHECK_EQ(id, 3);
	CHECK_EQ(t.strs[id].len, 3);
	CHECK_EQ(kt_strtab_id(&t, "a\0c", 3, &id), 0);
	CHECK_EQ(id, 4);
	CHECK_EQ(kt_strtab_id(&t, "a", 1, &id), 0);
	CHECK_EQ(id, 5);
	for (int i = 0; i < 20000; i++) {
		int n = snprintf(buf, sizeof(buf), "name%d", i);

		CHECK_EQ(kt_strtab_id(&t, buf, (size_t)n, &id), 0);
		CHECK_EQ(id, (uint32_t)i + 6);
	}
	CHECK_EQ(t.n, 20006);
	for (int i = 0; i < 20000; i += 777) {
		int n = snprintf(buf, sizeof(buf), "name%d", i);

		CHECK(kt_strtab_find(&t, buf, (size_t)n, &id));
		CHECK_EQ(id, (uint32_t)i + 6);
		CHECK_STR(t.strs[id].s, buf);
	}
	CHECK(!kt_strtab_find(&t, "name20000", 9, &id));
	/* the early pointers are still good after growth */
	CHECK(kt_intern(&t, "sched_switch", 12) == a);
	CHECK_STR(a, "sched_switch");
	kt_strtab_free(&t);
	CHECK_EQ(t.n, 0);
}

/* Arena: alignment, zeroing, big objects, strings. */
static void arena_blocks(void)
{
	struct kt_arena a;
	char *s;

	kt_arena_init(&a, 64, 256);
	for (int i = 0; i < 200; i++) {
		unsigned char *p = kt_arena_alloc(&a, (size_t)(i % 13) + 1, 1);
		uint64_t *q = kt_arena_zalloc(&a, 24, 8);
		void *r = kt_arena_alloc(&a, 3, 16);

		CHECK(p && q && r);
		CHECK_EQ((uintptr_t)q % 8, 0);
		CHECK_EQ((uintptr_t)r % 16, 0);
		CHECK(!q[0] && !q[1] && !q[2]);
		memset(p, 0xff, (size_t)(i % 13) + 1);
	}
	/* bigger than a quarter block: a block of its own, the current one still filled */
	s = kt_arena_alloc(&a, 1000, 1);
	CHECK(s != NULL);
	memset(s, 'x', 1000);
	s = kt_arena_strdup(&a, "abc\0def", 7);
	CHECK(s && !memcmp(s, "abc\0def", 8));
	CHECK(a.total >= 1000 + 200 * 40);
	kt_arena_free(&a);
	CHECK_EQ(a.total, 0);
	CHECK(a.head == NULL);
	CHECK(kt_arena_alloc(&a, 0, 1) != NULL);
	kt_arena_free(&a);
}

/* Every allocation failing in turn: the map and the table return -ENOMEM, stay as they
 * were, and work again once memory is back. */
#if CAN_FAIL_ALLOC
static void allocation_failure(void)
{
	struct kt_map m = { 0 };
	struct kt_strtab t = { 0 };
	uint32_t v, id;
	int failures = 0;
	char buf[32];

	for (uint32_t i = 0; i < 100; i++)
		CHECK_EQ(kt_map_put(&m, i, 0, i), 0);
	allow = 0;
	for (uint32_t i = 100; i < 200 && !failures; i++) {
		int ret = kt_map_put(&m, i, 0, i);

		if (ret) {
			CHECK_EQ(ret, -ENOMEM);
			CHECK(!kt_map_get(&m, i, 0, &v));
			failures++;
		}
	}
	allow = -1;
	CHECK_EQ(failures, 1);
	for (uint32_t i = 0; i < 100; i++)
		CHECK(kt_map_get(&m, i, 0, &v) && v == i);
	CHECK_EQ(kt_map_put(&m, 1000, 0, 1), 0);
	kt_map_free(&m);

	/* the string table: the n-th allocation fails, for every n it makes */
	for (long n = 0; n < 8; n++) {
		int ret = 0, k;

		for (k = 0; k < 300 && !ret; k++) {
			int len = snprintf(buf, sizeof(buf), "s%d", k);

			allow = k == 128 ? n : -1;
			ret = kt_strtab_id(&t, buf, (size_t)len, &id);
			allow = -1;
		}
		CHECK(ret == 0 || ret == -ENOMEM);
		/* what went in is all there, and the table still takes strings */
		for (int j = 0; j < k - (ret ? 1 : 0); j++) {
			int len = snprintf(buf, sizeof(buf), "s%d", j);

			CHECK(kt_strtab_find(&t, buf, (size_t)len, &id));
			CHECK_EQ(id, (uint32_t)j);
		}
		if (ret) {
			int len = snprintf(buf, sizeof(buf), "s%d", k - 1);

			failures++;
			CHECK(!kt_strtab_find(&t, buf, (size_t)len, &id));
			CHECK_EQ(kt_strtab_id(&t, buf, (size_t)len, &id), 0);
		}
		kt_strtab_free(&t);
	}
	CHECK_EQ(failures, 3);
}
#endif

int main(void)
{
	PLAN(7);
	RUN(int_keys_collide_and_grow);
	RUN(delete_keeps_runs);
	RUN(hashed_keys_same_hash);
	RUN(bounded);
	RUN(interning);
	RUN(arena_blocks);
#if CAN_FAIL_ALLOC
	RUN(allocation_failure);
#else
	printf("ok - allocation_failure # SKIP malloc cannot be replaced under AddressSanitizer\n");
#endif
	return TEST_EXIT();
}
