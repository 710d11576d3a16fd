// SPDX-License-Identifier: MIT
/*
 * Fuzzes the kcdata writer's round trip: the input is a little program of writer
 * operations (values with descriptions, strings, arrays, containers, raw items,
 * nested buffers, type definitions, compression on or off). The program's buffer
 * must decode, and every value written must read back where it was put; anything
 * else aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/kcdata.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DEPTH 24
#define MAX_EXPECT 512

enum { E_UINT, E_INT, E_STRING, E_BYTES, E_PIDS };

struct expect {
	char path[1200];
	int kind;
	uint64_t value;
	uint8_t bytes[256];
	size_t len;
};

struct prog {
	const uint8_t *p;
	size_t left;
};

static uint8_t next(struct prog *g)
{
	if (!g->left)
		return 0;
	g->left--;
	return *g->p++;
}

static uint64_t next_n(struct prog *g, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)next(g) << (8 * i);
	return v;
}

#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

static struct expect expects[MAX_EXPECT];
static size_t nexpect;

static struct expect *expect_at(const char *prefix, const char *key)
{
	struct expect *e;

	if (nexpect == MAX_EXPECT)
		return NULL;
	e = &expects[nexpect++];
	memset(e, 0, sizeof(*e));
	snprintf(e->path, sizeof(e->path), "%s%s", prefix, key);
	return e;
}

static void check(const struct kcdata_node *root)
{
	for (size_t i = 0; i < nexpect; i++) {
		const struct expect *e = &expects[i];
		const struct kcdata_node *n = kcdata_node_path(root, e->path);
		size_t len;
		const char *s;

		if (!n)
			FAIL("%s: missing", e->path);
		switch (e->kind) {
		case E_UINT:
		case E_INT:
			if (kcdata_node_kind(n) != KCDATA_NODE_INT || kcdata_node_uint(n) != e->value ||
			    kcdata_node_is_negative(n) != (e->kind == E_INT && (int64_t)e->value < 0))
				FAIL("%s: wrong integer", e->path);
			break;
		case E_STRING:
			s = kcdata_node_string(n, &len);
			if (!s || len != e->len || memcmp(s, e->bytes, len))
				FAIL("%s: wrong string", e->path);
			break;
		case E_BYTES:
		case E_PIDS:
			if (kcdata_node_kind(n) != KCDATA_NODE_ARRAY || kcdata_node_count(n) != e->len)
				FAIL("%s: wrong array length", e->path);
			for (size_t k = 0; k < e->len; k++) {
				const struct kcdata_node *v = kcdata_node_at(n, k);
				uint64_t want = e->kind == E_BYTES ? e->bytes[k] : (uint64_t)(int64_t)(int8_t)e->bytes[k];

				if (kcdata_node_uint(v) != want)
					FAIL("%s[%zu]: wrong element", e->path, k);
			}
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog g = { data, size };
	struct kcdata_writer *w;
	struct kcdata_buffer *b = NULL;
	struct kcdata_node *root = NULL;
	struct ktrace_error err = { 0 };
	char prefix[MAX_DEPTH + 1][1100];
	uint64_t ids[MAX_DEPTH + 1];
	uint32_t ctypes[MAX_DEPTH + 1];
	bool nested_done[MAX_DEPTH + 1] = { false };
	struct expect *pids[MAX_DEPTH + 1] = { NULL };
	int depth = 0;
	unsigned int counter = 0;
	unsigned int flags = next(&g) & 1 ? KCDATA_WRITER_COMPRESS : 0;
	const uint8_t *buf;
	size_t len;

	nexpect = 0;
	strcpy(prefix[0], "kcdata_stackshot.");
	if (kcdata_writer_new(KCDATA_BUFFER_BEGIN_STACKSHOT, flags, &w, &err))
		abort();
	while (g.left && nexpect < MAX_EXPECT - 2) {
		uint8_t op = next(&g) % 11;
		char key[48];
		struct expect *e;
		int ret = 0;

		snprintf(key, sizeof(key), "k%u", counter++);
		switch (op) {
		case 0: case 1: case 2: case 3: {
			int n = op == 0 || op == 2 ? 4 : 8;
			uint64_t v = next_n(&g, n);

			e = expect_at(prefix[depth], key);
			e->kind = op >= 2 ? E_INT : E_UINT;
			if (op == 0)
				ret = kcdata_writer_add_uint32(w, key, (uint32_t)v, &err);
			else if (op == 1)
				ret = kcdata_writer_add_uint64(w, key, v, &err);
			else if (op == 2)
				ret = kcdata_writer_add_int32(w, key, (int32_t)(uint32_t)v, &err),
				v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
			else
				ret = kcdata_writer_add_int64(w, key, (int64_t)v, &err);
			e->value = v;
			break;
		}
		case 4: {
			char s[256];
			size_t l = next(&g);

			for (size_t i = 0; i < l; i++) {
				s[i] = (char)next(&g);
				if (!s[i])
					s[i] = 'x';
			}
			s[l] = 0;
			e = expect_at(prefix[depth], key);
			e->kind = E_STRING;
			memcpy(e->bytes, s, l);
			e->len = l;
			ret = kcdata_writer_add_string(w, key, s, &err);
			break;
		}
		case 5: {
			/* donating pids: arrays at the same level are joined */
			uint8_t c = next(&g) % 32;
			uint8_t raw[32 * 4];

			e = pids[depth];
			if (!e) {
				e = pids[depth] = expect_at(prefix[depth], "donating_pids");
				if (!e)
					break;
				e->kind = E_PIDS;
			}
			if (e->len + c > sizeof(e->bytes))
				break;
			for (int i = 0; i < c; i++) {
				int8_t v = (int8_t)next(&g);
				uint32_t x = (uint32_t)(int32_t)v;

				memcpy(raw + 4 * i, &x, 4);
				e->bytes[e->len++] = (uint8_t)v;
			}
			ret = kcdata_writer_add_array(w, 0x907, 4, c, raw, &err);
			break;
		}
		case 6:
			if (depth == MAX_DEPTH)
				break;
			ctypes[depth] = next(&g) & 1 ? 0x904 : 0x903;
			ids[depth] = counter;
			ret = kcdata_writer_begin_container(w, ctypes[depth], ids[depth], &err);
			{
				size_t l = strlen(prefix[depth]);

				memcpy(prefix[depth + 1], prefix[depth], l);
				snprintf(prefix[depth + 1] + l, sizeof(prefix[0]) - l, "%s.%u.",
					 ctypes[depth] == 0x903 ? "task_snapshots" : "thread_snapshots",
					 counter);
			}
			depth++;
			pids[depth] = NULL;
			nested_done[depth] = false;
			break;
		case 7:
			if (!depth)
				break;
			depth--;
			ret = kcdata_writer_end_container(w, ctypes[depth], ids[depth], &err);
			break;
		case 8: {
			uint8_t raw[256];
			size_t l = 2 + next(&g) % 200;

			for (size_t i = 0; i < l; i++)
				raw[i] = next(&g);
			snprintf(key, sizeof(key), "Type_0x%x", 0x10000 + counter);
			e = expect_at(prefix[depth], key);
			e->kind = E_BYTES;
			memcpy(e->bytes, raw, l);
			e->len = l;
			ret = kcdata_writer_add_item(w, 0x10000 + counter, raw, (uint32_t)l, &err);
			break;
		}
		case 9: {
			struct kcdata_writer *inner;
			const uint8_t *ib;
			size_t il;
			uint64_t v = next_n(&g, 8);
			char path[80];

			if (nested_done[depth])
				break;
			nested_done[depth] = true;
			snprintf(path, sizeof(path), "kcdata_crashinfo.%s", key);
			e = expect_at(prefix[depth], path);
			e->kind = E_UINT;
			e->value = v;
			/* plain only: nested buffers are not inflated (as in libkdd) */
			if (kcdata_writer_new(KCDATA_BUFFER_BEGIN_CRASHINFO, 0, &inner, &err) ||
			    kcdata_writer_add_uint64(inner, key, v, &err) ||
			    kcdata_writer_finish(inner, &ib, &il, &err))
				abort();
			ret = kcdata_writer_add_nested(w, ib, il, &err);
			kcdata_writer_free(inner);
			break;
		}
		case 10: {
			/* a type definition (top level only) and one item of the type */
			static const struct kcdata_field fields[2] = {
				{ "a", KCDATA_ST_UINT32, 0, 1, 0 },
				{ "b", KCDATA_ST_INT8, 4, 1, 0 },
			};
			uint8_t item[5];
			char name[16];

			if (depth)
				break;
			for (int i = 0; i < 5; i++)
				item[i] = next(&g);
			snprintf(name, sizeof(name), "t%u", counter);
			ret = kcdata_writer_add_typedef(w, 0x20000 + counter, name, fields, 2, &err);
			if (!ret)
				ret = kcdata_writer_add_item(w, 0x20000 + counter, item, 5, &err);
			snprintf(key, sizeof(key), "%s.a", name);
			e = expect_at(prefix[depth], key);
			e->kind = E_UINT;
			e->value = (uint64_t)item[0] | (uint64_t)item[1] << 8 | (uint64_t)item[2] << 16 |
				   (uint64_t)item[3] << 24;
			snprintf(key, sizeof(key), "%s.b", name);
			e = expect_at(prefix[depth], key);
			e->kind = E_INT;
			e->value = (uint64_t)(int64_t)(int8_t)item[4];
			break;
		}
		}
		if (ret)
			FAIL("writer op %u failed: %s", op, err.message);
	}
	while (depth) {
		depth--;
		if (kcdata_writer_end_container(w, ctypes[depth], ids[depth], &err))
			abort();
	}
	if (kcdata_writer_finish(w, &buf, &len, &err))
		FAIL("finish: %s", err.message);
	if (kcdata_buffer_open(buf, len, &b, &err))
		FAIL("open: %s", err.message);
	if (kcdata_decode(kcdata_buffer_data(b), kcdata_buffer_size(b), &root, &err))
		FAIL("decode: %s (offset 0x%llx)", err.message, (unsigned long long)err.offset);
	check(root);
	kcdata_node_free(root);
	kcdata_buffer_free(b);
	kcdata_writer_free(w);
	return 0;
}
