// SPDX-License-Identifier: MIT
/*
 * The kcdata tree's dictionaries built by hand: lookups below and above the size from
 * which a dictionary is indexed, many dictionaries with the same keys, a repeated key
 * (a lookup gives the first entry with it), removal (the entries after it move up).
 * The expected positions and values are the ones the test put in.
 */
#include <stdio.h>

#include <ktrace/kcdata.h>

#include "kcdata/kcdata_int.h"
#include "testlib.h"

static void key_name(char *buf, size_t size, unsigned i)
{
	snprintf(buf, size, "key_%u", i);
}

static struct kcdata_node *add_int(struct kc_arena *a, struct kcdata_node *d, const char *key,
				   uint64_t v)
{
	struct kcdata_node *n = kc_node_int(a, v, false);

	if (!n || kc_dict_add(a, d, key, n))
		return NULL;
	return n;
}

static void lookups_as_dictionary_grows(void)
{
	struct kc_arena *a = kc_arena_new();
	struct kcdata_node *d = a ? kc_node_new(a, KCDATA_NODE_DICT, 0) : NULL;
	char key[32];

	CHECK(d != NULL);
	if (!d) {
		kc_arena_free(a);
		return;
	}
	for (unsigned n = 1; n <= 300; n++) {
		key_name(key, sizeof(key), n - 1);
		CHECK(add_int(a, d, key, 1000 + n - 1) != NULL);
		for (unsigned i = 0; i < n; i++) {
			key_name(key, sizeof(key), i);
			if (kc_dict_find(d, key) != (long)i) {
				CHECK_EQ(kc_dict_find(d, key), i);
				break;
			}
			if (kcdata_node_uint(kcdata_node_get(d, key)) != 1000 + i) {
				CHECK_EQ(kcdata_node_uint(kcdata_node_get(d, key)), 1000 + i);
				break;
			}
		}
		key_name(key, sizeof(key), n);
		CHECK_EQ(kc_dict_find(d, key), -1);
		CHECK(kcdata_node_get(d, "never_added") == NULL);
	}
	CHECK_EQ(kcdata_node_count(d), 300);
	kc_arena_free(a);
}

static void many_dictionaries_same_keys(void)
{
	struct kc_arena *a = kc_arena_new();
	struct kcdata_node *dicts[50];
	char key[32];

	CHECK(a != NULL);
	if (!a)
		return;
	for (unsigned j = 0; j < 50; j++) {
		dicts[j] = kc_node_new(a, KCDATA_NODE_DICT, 0);
		CHECK(dicts[j] != NULL);
		if (!dicts[j]) {
			kc_arena_free(a);
			return;
		}
	}
	/* interleaved, so every dictionary grows while the others are indexed */
	for (unsigned i = 0; i < 40; i++)
		for (unsigned j = 0; j < 50; j++) {
			key_name(key, sizeof(key), (i + j) % 40);
			CHECK(add_int(a, dicts[j], key, j * 100 + (i + j) % 40) != NULL);
		}
	for (unsigned j = 0; j < 50; j++)
		for (unsigned k = 0; k < 40; k++) {
			key_name(key, sizeof(key), k);
			CHECK_EQ(kcdata_node_uint(kcdata_node_get(dicts[j], key)), j * 100 + k);
			CHECK_EQ(kc_dict_find(dicts[j], key), (k + 40 - j % 40) % 40);
		}
	kc_arena_free(a);
}

static void repeated_key_gives_first(void)
{
	struct kc_arena *a = kc_arena_new();
	struct kcdata_node *d = a ? kc_node_new(a, KCDATA_NODE_DICT, 0) : NULL;
	char key[32];

	CHECK(d != NULL);
	if (!d) {
		kc_arena_free(a);
		return;
	}
	/* key_0 .. key_6 over and over: entry i has key i % 7 */
	for (unsigned i = 0; i < 60; i++) {
		key_name(key, sizeof(key), i % 7);
		CHECK(add_int(a, d, key, i) != NULL);
		for (unsigned k = 0; k < 7 && k <= i; k++) {
			key_name(key, sizeof(key), k);
			CHECK_EQ(kc_dict_find(d, key), k);
			CHECK_EQ(kcdata_node_uint(kcdata_node_get(d, key)), k);
		}
	}
	/* removing the first key_3 leaves the second (entry 10, now at 9) */
	kc_dict_remove(a, d, "key_3");
	CHECK_EQ(kcdata_node_count(d), 59);
	CHECK_EQ(kc_dict_find(d, "key_3"), 9);
	CHECK_EQ(kcdata_node_uint(kcdata_node_get(d, "key_3")), 10);
	CHECK_EQ(kc_dict_find(d, "key_4"), 3);
	kc_arena_free(a);
}

static void removal_moves_later_entries(void)
{
	struct kc_arena *a = kc_arena_new();
	struct kcdata_node *d = a ? kc_node_new(a, KCDATA_NODE_DICT, 0) : NULL;
	struct kcdata_node *root;
	char key[32];
	unsigned gone[40] = { 0 }, left = 40;

	CHECK(d != NULL);
	if (!d) {
		kc_arena_free(a);
		return;
	}
	for (unsigned i = 0; i < 40; i++) {
		key_name(key, sizeof(key), i);
		CHECK(add_int(a, d, key, 500 + i) != NULL);
	}
	kc_dict_remove(a, d, "not_there");
	CHECK_EQ(kcdata_node_count(d), 40);
	/* remove every third key, then the rest from the front, down past 16 entries */
	for (unsigned step = 0; step < 2; step++)
		for (unsigned r = 0; r < 40 && left > 5; r++) {
			unsigned pos = 0;

			if (step == 0 && r % 3)
				continue;
			if (gone[r])
				continue;
			key_name(key, sizeof(key), r);
			kc_dict_remove(a, d, key);
			gone[r] = 1;
			left--;
			CHECK_EQ(kcdata_node_count(d), left);
			CHECK_EQ(kc_dict_find(d, key), -1);
			for (unsigned i = 0; i < 40; i++) {
				if (gone[i])
					continue;
				key_name(key, sizeof(key), i);
				CHECK_EQ(kc_dict_find(d, key), pos);
				CHECK_EQ(kcdata_node_uint(kcdata_node_get(d, key)), 500 + i);
				pos++;
			}
		}
	CHECK_EQ(left, 5);
	/* the node handed out is a copy of the top dictionary: it finds the same */
	root = kc_root_new(a, d);
	CHECK(root != NULL);
	if (!root) {
		kc_arena_free(a);
		return;
	}
	CHECK_EQ(kcdata_node_uint(kcdata_node_get(root, "key_38")), 538);
	CHECK(kcdata_node_get(root, "key_0") == NULL);
	kcdata_node_free(root);
}

static void big_root_dictionary(void)
{
	struct kc_arena *a = kc_arena_new();
	struct kcdata_node *d = a ? kc_node_new(a, KCDATA_NODE_DICT, 0) : NULL;
	struct kcdata_node *root;
	char key[32];

	CHECK(d != NULL);
	if (!d) {
		kc_arena_free(a);
		return;
	}
	for (unsigned i = 0; i < 100; i++) {
		key_name(key, sizeof(key), i);
		CHECK(add_int(a, d, key, 7 * i) != NULL);
	}
	root = kc_root_new(a, d);
	CHECK(root != NULL);
	if (!root) {
		kc_arena_free(a);
		return;
	}
	for (unsigned i = 0; i < 100; i++) {
		key_name(key, sizeof(key), i);
		CHECK_EQ(kcdata_node_uint(kcdata_node_get(root, key)), 7 * i);
	}
	CHECK_EQ(kcdata_node_uint(kcdata_node_path(root, "key_42")), 294);
	CHECK(kcdata_node_get(root, "key_100") == NULL);
	kcdata_node_free(root);
}

int main(void)
{
	PLAN(5);
	RUN(lookups_as_dictionary_grows);
	RUN(many_dictionaries_same_keys);
	RUN(repeated_key_gives_first);
	RUN(removal_moves_later_entries);
	RUN(big_root_dictionary);
	return TEST_EXIT();
}
