// SPDX-License-Identifier: MIT
/*
 * The kcdata decoder against libkdd's edge cases (the situations xnu's libkdd unit
 * tests build by hand), with the results libkdd's rules give: values computed here
 * from the bytes the test writes, never from the decoder's own output.
 */
#include <errno.h>

#include <ktrace/kcdata.h>

#include "kctest.h"
#include "testlib.h"

#define CRASHINFO KCDATA_BUFFER_BEGIN_CRASHINFO
#define LOADINFO 0x30u
#define CRASHED_THREADID 0x81au
#define DONATING_PIDS 0x907u
#define BOOTARGS 0x90eu
#define TASK_CONTAINER 0x903u
#define THREAD_CONTAINER 0x904u
#define DISPATCH_QUEUE_LABEL 0x928u

static const uint8_t uuid[16] = { 0xde, 0x30, 0x5d, 0x54, 0x75, 0xb4, 0x43, 0x1b,
				  0xad, 0xb2, 0xeb, 0x6b, 0x9e, 0x54, 0x60, 0x14 };

/* struct dyld_uuid_info_32 { u32 imageLoadAddress; uuid_t imageUUID; } */
static void loadinfo32(uint8_t out[20], uint32_t address)
{
	out[0] = (uint8_t)address;
	out[1] = (uint8_t)(address >> 8);
	out[2] = (uint8_t)(address >> 16);
	out[3] = (uint8_t)(address >> 24);
	memcpy(out + 4, uuid, 16);
}

/* True when node is an array of the first n bytes of the uuid. */
static bool is_uuid_prefix(const struct kcdata_node *a, size_t n)
{
	if (kcdata_node_kind(a) != KCDATA_NODE_ARRAY || kcdata_node_count(a) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (kcdata_node_uint(kcdata_node_at(a, i)) != uuid[i])
			return false;
	return true;
}

static void check_padding(unsigned int pad)
{
	struct kbuf b = { 0 };
	uint8_t li[20];
	struct kcdata_node *root;
	const struct kcdata_node *u;
	int ret;

	loadinfo32(li, 42);
	kb_begin(&b, CRASHINFO);
	kb_item(&b, LOADINFO, 20, pad, li);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(path_u64(root, "kcdata_crashinfo.dyld_load_info.imageLoadAddress"), 42);
	u = kcdata_node_path(root, "kcdata_crashinfo.dyld_load_info.imageUUID");
	if (pad == 15) {
		/* 5 bytes left: one UUID byte, which libkdd gives as a plain number */
		CHECK_EQ(kcdata_node_kind(u), KCDATA_NODE_INT);
		CHECK_EQ(kcdata_node_uint(u), uuid[0]);
	} else {
		CHECK(is_uuid_prefix(u, 16 - pad));
	}
	kcdata_node_free(root);
	kb_free(&b);
}

static void padding_flags_0_to_15(void)
{
	for (unsigned int pad = 0; pad < 16; pad++)
		check_padding(pad);
}

static void padding_flags_with_has_padding_bit(void)
{
	struct kbuf b = { 0 };
	uint8_t li[32] = { 0 };
	struct kcdata_node *root;
	int ret;

	/* xnu's own layout: 20 bytes padded to 32, flags 0x80 | 12 */
	loadinfo32(li, 7);
	kb_begin(&b, CRASHINFO);
	kb_item(&b, LOADINFO, 32, 0x80 | 12, li);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(path_u64(root, "kcdata_crashinfo.dyld_load_info.imageLoadAddress"), 7);
	CHECK(is_uuid_prefix(kcdata_node_path(root, "kcdata_crashinfo.dyld_load_info.imageUUID"), 16));
	kcdata_node_free(root);
	kb_free(&b);
}

static struct kcdata_node *one_loadinfo(uint32_t size, int *ret)
{
	struct kbuf b = { 0 };
	uint8_t li[20];
	struct kcdata_node *root;

	loadinfo32(li, 42);
	kb_begin(&b, CRASHINFO);
	kb_item(&b, LOADINFO, size, 0, li);
	kb_end(&b);
	root = kb_decode(&b, ret);
	kb_free(&b);
	return root;
}

static void loadinfo_short_sizes(void)
{
	int ret;
	struct kcdata_node *root = one_loadinfo(20, &ret);

	CHECK_EQ(ret, 0);
	CHECK_EQ(path_u64(root, "kcdata_crashinfo.dyld_load_info.imageLoadAddress"), 42);
	CHECK(is_uuid_prefix(kcdata_node_path(root, "kcdata_crashinfo.dyld_load_info.imageUUID"), 16));
	kcdata_node_free(root);

	/* one byte short: the UUID array is cut */
	root = one_loadinfo(19, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(path_u64(root, "kcdata_crashinfo.dyld_load_info.imageLoadAddress"), 42);
	CHECK(is_uuid_prefix(kcdata_node_path(root, "kcdata_crashinfo.dyld_load_info.imageUUID"), 15));
	kcdata_node_free(root);

	/* 16 bytes short: only the address */
	root = one_loadinfo(4, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(path_u64(root, "kcdata_crashinfo.dyld_load_info.imageLoadAddress"), 42);
	CHECK(kcdata_node_path(root, "kcdata_crashinfo.dyld_load_info.imageUUID") == NULL);
	kcdata_node_free(root);

	/* 1 byte: no field fits, an empty dictionary remains */
	root = one_loadinfo(1, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(kcdata_node_kind(kcdata_node_path(root, "kcdata_crashinfo.dyld_load_info")),
		 KCDATA_NODE_DICT);
	CHECK_EQ(kcdata_node_count(kcdata_node_path(root, "kcdata_crashinfo.dyld_load_info")), 0);
	kcdata_node_free(root);
}

static void pad_arrays_counts_1_to_19_every_padding(void)
{
	for (unsigned int n = 0; n < 20; n++) {
		for (unsigned int pad = 0; pad < 16; pad++) {
			struct kbuf b = { 0 };
			struct kcdata_node *root;
			const struct kcdata_node *a;
			int ret;

			if (n == 0 && pad)
				break;
			kb_begin(&b, CRASHINFO);
			kb_header(&b, KCDATA_TYPE_ARRAY_PAD0 + pad, n * 4 + pad,
				  (uint64_t)DONATING_PIDS << 32 | n);
			for (unsigned int i = 0; i < n; i++)
				kb_u32(&b, 42 * i);
			for (unsigned int i = 0; i < pad; i++)
				kb_bytes(&b, &(uint8_t){ (uint8_t)(42 - i) }, 1);
			kb_end(&b);
			root = kb_decode(&b, &ret);
			CHECK_EQ(ret, 0);
			a = kcdata_node_path(root, "kcdata_crashinfo.donating_pids");
			CHECK_EQ(kcdata_node_kind(a), KCDATA_NODE_ARRAY);
			CHECK_EQ(kcdata_node_count(a), n);
			for (unsigned int i = 0; i < n; i++)
				CHECK_EQ(kcdata_node_int(kcdata_node_at(a, i)), 42 * i);
			kcdata_node_free(root);
			kb_free(&b);
		}
	}
}

static struct kcdata_node *loadinfo_array(unsigned int n, unsigned int elem_size, int *ret)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;

	kb_begin(&b, CRASHINFO);
	kb_header(&b, KCDATA_TYPE_ARRAY_PAD0, n * elem_size, (uint64_t)LOADINFO << 32 | n);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t li[20];

		loadinfo32(li, 42 + i);
		kb_bytes(&b, li, elem_size);
	}
	kb_end(&b);
	root = kb_decode(&b, ret);
	kb_free(&b);
	return root;
}

static void struct_arrays_and_short_elements(void)
{
	int ret;

	for (unsigned int n = 0; n < 20; n++) {
		struct kcdata_node *root = loadinfo_array(n, 20, &ret);
		const struct kcdata_node *a = kcdata_node_path(root, "kcdata_crashinfo.dyld_load_info");

		CHECK_EQ(ret, 0);
		CHECK_EQ(kcdata_node_count(a), n);
		for (unsigned int i = 0; i < n; i++) {
			const struct kcdata_node *e = kcdata_node_at(a, i);

			CHECK_EQ(kcdata_node_uint(kcdata_node_get(e, "imageLoadAddress")), 42 + i);
			CHECK(is_uuid_prefix(kcdata_node_get(e, "imageUUID"), 16));
		}
		kcdata_node_free(root);
	}
	/* elements of 19, 4 and 1 bytes: fields cut or left out, elements kept */
	static const struct { unsigned int size; int uuid_len; bool address; } cases[] = {
		{ 19, 15, true }, { 4, -1, true }, { 1, -1, false },
	};
	for (size_t c = 0; c < 3; c++) {
		struct kcdata_node *root = loadinfo_array(7, cases[c].size, &ret);
		const struct kcdata_node *a = kcdata_node_path(root, "kcdata_crashinfo.dyld_load_info");

		CHECK_EQ(ret, 0);
		CHECK_EQ(kcdata_node_count(a), 7);
		for (unsigned int i = 0; i < 7; i++) {
			const struct kcdata_node *e = kcdata_node_at(a, i);
			const struct kcdata_node *addr = kcdata_node_get(e, "imageLoadAddress");

			if (cases[c].address)
				CHECK_EQ(kcdata_node_uint(addr), 42 + i);
			else
				CHECK(addr == NULL);
			if (cases[c].uuid_len < 0)
				CHECK(kcdata_node_get(e, "imageUUID") == NULL);
			else
				CHECK(is_uuid_prefix(kcdata_node_get(e, "imageUUID"),
						     (size_t)cases[c].uuid_len));
		}
		kcdata_node_free(root);
	}
}

/* Legacy ARRAY (0x11) of crashed thread ids: n elements of 8 bytes plus pad bytes. */
static struct kcdata_node *legacy_threadids(unsigned int n, unsigned int count_field,
					    unsigned int size, int *ret)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;

	kb_begin(&b, CRASHINFO);
	kb_header(&b, KCDATA_TYPE_ARRAY, size, (uint64_t)CRASHED_THREADID << 32 | count_field);
	for (unsigned int i = 0; i < n; i++)
		kb_u64(&b, i);
	while (b.len < 32 + size)
		kb_bytes(&b, "", 1);
	kb_end(&b);
	root = kb_decode(&b, ret);
	kb_free(&b);
	return root;
}

static void legacy_arrays(void)
{
	int ret;
	struct kcdata_node *root;

	for (unsigned int n = 1; n < 100; n++) {
		for (unsigned int pad = 0; pad < 16; pad++) {
			const struct kcdata_node *a;

			root = legacy_threadids(n, n, n * 8 + pad, &ret);
			a = kcdata_node_path(root, "kcdata_crashinfo.crashed_threadid");
			CHECK_EQ(ret, 0);
			CHECK_EQ(kcdata_node_count(a), n);
			for (unsigned int i = 0; i < n; i++)
				CHECK_EQ(kcdata_node_uint(kcdata_node_at(a, i)), i);
			kcdata_node_free(root);
		}
	}
	/* no elements, no bytes */
	root = legacy_threadids(0, 0, 0, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(kcdata_node_count(kcdata_node_path(root, "kcdata_crashinfo.crashed_threadid")), 0);
	kcdata_node_free(root);

	/* a legacy array of a type libkdd does not know the element size of */
	struct kbuf b = { 0 };

	kb_begin(&b, CRASHINFO);
	kb_header(&b, KCDATA_TYPE_ARRAY, 16, (uint64_t)0x905 << 32 | 2);
	kb_u64(&b, 1);
	kb_u64(&b, 2);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(root == NULL);
	kb_free(&b);
}

static void arrays_whose_count_exceeds_the_data(void)
{
	int ret;
	struct kcdata_node *root;
	struct kbuf b = { 0 };

	/* legacy: 1 element of 8 bytes in 4 bytes; 5 elements in 4 bytes */
	root = legacy_threadids(0, 1, 4, &ret);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(root == NULL);
	root = legacy_threadids(0, 5, 4, &ret);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(root == NULL);
	/* padded form: 3 elements in 2 bytes, and a size that does not divide */
	kb_begin(&b, CRASHINFO);
	kb_header(&b, KCDATA_TYPE_ARRAY_PAD0, 2, (uint64_t)DONATING_PIDS << 32 | 3);
	kb_bytes(&b, "\0\0", 2);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	kb_free(&b);
	kb_begin(&b, CRASHINFO);
	kb_header(&b, KCDATA_TYPE_ARRAY_PAD0 + 1, 10, (uint64_t)DONATING_PIDS << 32 | 2);
	kb_bytes(&b, "0123456789", 10);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	kb_free(&b);
	/* no elements but some bytes */
	kb_begin(&b, CRASHINFO);
	kb_header(&b, KCDATA_TYPE_ARRAY_PAD0, 4, (uint64_t)DONATING_PIDS << 32);
	kb_u32(&b, 0);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	kb_free(&b);
}

static void legacy_array_tolerates_padding_1_and_15(void)
{
	int ret;

	for (unsigned int extra = 1; extra <= 15; extra += 14) {
		struct kcdata_node *root = legacy_threadids(5, 5, 5 * 8 + extra, &ret);
		const struct kcdata_node *a = kcdata_node_path(root, "kcdata_crashinfo.crashed_threadid");

		CHECK_EQ(ret, 0);
		CHECK_EQ(kcdata_node_count(a), 5);
		for (unsigned int i = 0; i < 5; i++)
			CHECK_EQ(kcdata_node_uint(kcdata_node_at(a, i)), i);
		kcdata_node_free(root);
	}
}

static void repeated_arrays_are_joined(void)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	const struct kcdata_node *a;
	int ret;

	kb_begin(&b, CRASHINFO);
	for (int k = 0; k < 2; k++) {
		kb_header(&b, KCDATA_TYPE_ARRAY, 80, (uint64_t)CRASHED_THREADID << 32 | 10);
		for (unsigned int i = 0; i < 10; i++)
			kb_u64(&b, i);
	}
	kb_end(&b);
	root = kb_decode(&b, &ret);
	a = kcdata_node_path(root, "kcdata_crashinfo.crashed_threadid");
	CHECK_EQ(ret, 0);
	CHECK_EQ(kcdata_node_count(a), 20);
	for (unsigned int i = 0; i < 20; i++)
		CHECK_EQ(kcdata_node_uint(kcdata_node_at(a, i)), i % 10);
	kcdata_node_free(root);
	kb_free(&b);
}

static void crashed_threadid(uint32_t size, bool present)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	int ret;

	kb_begin(&b, CRASHINFO);
	kb_header(&b, CRASHED_THREADID, size, 0);
	kb_bytes(&b, "\x2a\0\0\0\0\0\0\0", size);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	if (present)
		CHECK_EQ(path_u64(root, "kcdata_crashinfo.crashed_threadid"), 42);
	else
		CHECK(kcdata_node_path(root, "kcdata_crashinfo.crashed_threadid") == NULL);
	CHECK_EQ(kcdata_node_kind(kcdata_node_path(root, "kcdata_crashinfo")), KCDATA_NODE_DICT);
	kcdata_node_free(root);
	kb_free(&b);
}

static void scalar_items_and_short_scalars(void)
{
	crashed_threadid(8, true);
	crashed_threadid(7, false);
	crashed_threadid(0, false);
}

static void nested_buffers(void)
{
	struct kbuf inner = { 0 }, b = { 0 };
	struct kcdata_node *root;
	int ret;

	kb_begin(&inner, CRASHINFO);
	kb_item(&inner, CRASHED_THREADID, 8, 0, "\x2a\0\0\0\0\0\0\0");
	kb_end(&inner);
	kb_begin(&b, CRASHINFO);
	kb_item(&b, KCDATA_TYPE_NESTED_KCDATA, (uint32_t)inner.len, 0, inner.p);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(path_u64(root, "kcdata_crashinfo.kcdata_crashinfo.crashed_threadid"), 42);
	kcdata_node_free(root);
	kb_free(&b);

	/* a nested buffer that does not decode makes the whole buffer fail */
	inner.len -= 16;   /* drop its BUFFER_END */
	kb_begin(&b, CRASHINFO);
	kb_item(&b, KCDATA_TYPE_NESTED_KCDATA, (uint32_t)inner.len, 0, inner.p);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(root == NULL);
	kb_free(&b);
	kb_free(&inner);
}

static void repeated_keys_fail(void)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	int ret;

	kb_begin(&b, CRASHINFO);
	kb_item(&b, CRASHED_THREADID, 8, 0, "\x2a\0\0\0\0\0\0\0");
	kb_item(&b, CRASHED_THREADID, 8, 0, "\x2a\0\0\0\0\0\0\0");
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(root == NULL);
	kb_free(&b);
}

static void container_marker(struct kbuf *b, uint32_t marker, uint32_t type, uint64_t id)
{
	kb_header(b, marker, 4, id);
	kb_u32(b, type);
}

static void containers(void)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	int ret;

	kb_begin(&b, CRASHINFO);
	container_marker(&b, KCDATA_TYPE_CONTAINER_BEGIN, TASK_CONTAINER, 0);
	kb_item(&b, CRASHED_THREADID, 8, 0, "\x2a\0\0\0\0\0\0\0");
	container_marker(&b, KCDATA_TYPE_CONTAINER_END, TASK_CONTAINER, 0);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(path_u64(root, "kcdata_crashinfo.task_snapshots.0.crashed_threadid"), 42);
	kcdata_node_free(root);
	kb_free(&b);

	/* nested containers, a string in the inner one */
	kb_begin(&b, KCDATA_BUFFER_BEGIN_STACKSHOT);
	container_marker(&b, KCDATA_TYPE_CONTAINER_BEGIN, TASK_CONTAINER, 0);
	container_marker(&b, KCDATA_TYPE_CONTAINER_BEGIN, THREAD_CONTAINER, 0);
	kb_item(&b, DISPATCH_QUEUE_LABEL, 25, 0, "houston.we.had.a.problem");
	container_marker(&b, KCDATA_TYPE_CONTAINER_END, THREAD_CONTAINER, 0);
	container_marker(&b, KCDATA_TYPE_CONTAINER_END, TASK_CONTAINER, 0);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_STR(path_str(root, "kcdata_stackshot.task_snapshots.0.thread_snapshots.0.dispatch_queue_label"),
		  "houston.we.had.a.problem");
	kcdata_node_free(root);
	kb_free(&b);

	/* a container type without a known name is keyed by its decimal number */
	kb_begin(&b, CRASHINFO);
	container_marker(&b, KCDATA_TYPE_CONTAINER_BEGIN, 0x7777, 12345678901ull);
	container_marker(&b, KCDATA_TYPE_CONTAINER_END, 0x7777, 12345678901ull);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(kcdata_node_kind(kcdata_node_path(root, "kcdata_crashinfo.30583.12345678901")),
		 KCDATA_NODE_DICT);
	kcdata_node_free(root);
	kb_free(&b);
}

static void container_errors(void)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	int ret;

	/* the same container id twice */
	kb_begin(&b, CRASHINFO);
	for (int i = 0; i < 2; i++) {
		container_marker(&b, KCDATA_TYPE_CONTAINER_BEGIN, TASK_CONTAINER, 0);
		kb_item(&b, CRASHED_THREADID, 8, 0, "\x2a\0\0\0\0\0\0\0");
		container_marker(&b, KCDATA_TYPE_CONTAINER_END, TASK_CONTAINER, 0);
	}
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(root == NULL);
	kb_free(&b);

	/* a container without end (buffer end follows), then without either */
	for (int with_end = 1; with_end >= 0; with_end--) {
		kb_begin(&b, CRASHINFO);
		container_marker(&b, KCDATA_TYPE_CONTAINER_BEGIN, TASK_CONTAINER, 0);
		kb_item(&b, CRASHED_THREADID, 8, 0, "\x2a\0\0\0\0\0\0\0");
		if (with_end)
			kb_end(&b);
		root = kb_decode(&b, &ret);
		CHECK_EQ(ret, -EBADMSG);
		CHECK(root == NULL);
		kb_free(&b);
	}

	/* an end whose id does not match */
	kb_begin(&b, CRASHINFO);
	container_marker(&b, KCDATA_TYPE_CONTAINER_BEGIN, TASK_CONTAINER, 1);
	container_marker(&b, KCDATA_TYPE_CONTAINER_END, TASK_CONTAINER, 2);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	kb_free(&b);

	/* a begin too short to hold the container type */
	kb_begin(&b, CRASHINFO);
	kb_item(&b, KCDATA_TYPE_CONTAINER_BEGIN, 2, 0, "\x03\x09");
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	kb_free(&b);

	/* containers nested deeper than the limit fail cleanly */
	kb_begin(&b, CRASHINFO);
	for (int i = 0; i < 200; i++)
		container_marker(&b, KCDATA_TYPE_CONTAINER_BEGIN, TASK_CONTAINER, (uint64_t)i);
	for (int i = 199; i >= 0; i--)
		container_marker(&b, KCDATA_TYPE_CONTAINER_END, TASK_CONTAINER, (uint64_t)i);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	kb_free(&b);
}

static void missing_buffer_end_and_crazy_size(void)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	int ret;

	kb_begin(&b, CRASHINFO);
	kb_item(&b, CRASHED_THREADID, 8, 0, "\x2a\0\0\0\0\0\0\0");
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(root == NULL);
	kb_free(&b);

	/* an item of size 99999 in a buffer of 56 bytes */
	kb_begin(&b, CRASHINFO);
	kb_header(&b, CRASHED_THREADID, 99999, 0);
	kb_u64(&b, 42);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(root == NULL);
	kb_free(&b);

	/* bytes after BUFFER_END are ignored */
	kb_begin(&b, CRASHINFO);
	kb_item(&b, CRASHED_THREADID, 8, 0, "\x2a\0\0\0\0\0\0\0");
	kb_end(&b);
	kb_bytes(&b, "trailing garbage", 16);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(path_u64(root, "kcdata_crashinfo.crashed_threadid"), 42);
	kcdata_node_free(root);
	kb_free(&b);

	/* not kcdata at all, and a buffer too short for its first item */
	kb_u64(&b, 0x1234);
	kb_u64(&b, 0);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	kb_free(&b);
	kb_u32(&b, CRASHINFO);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	kb_free(&b);
}

static void boot_args(bool nul)
{
	static const char s[] = "hello, I am some boot args";
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	int ret;

	kb_begin(&b, CRASHINFO);
	kb_item(&b, BOOTARGS, (uint32_t)strlen(s) + nul, 0, s);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_STR(path_str(root, "kcdata_crashinfo.boot_args"), s);
	kcdata_node_free(root);
	kb_free(&b);
}

/*
 * Boot args without a NUL: libkdd's test suite of xnu-8020 expects a failure, but
 * libkdd's code of that release (which formats char arrays with "%.*s") and its
 * kcdata.py both take the string up to the end of the item; we follow the code.
 */
static void boot_args_with_and_without_nul(void)
{
	boot_args(true);
	boot_args(false);
}

static void strings_stop_at_nul(void)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	int ret;

	kb_begin(&b, CRASHINFO);
	kb_item(&b, BOOTARGS, 12, 0, "abc\0defghijk");
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_STR(path_str(root, "kcdata_crashinfo.boot_args"), "abc");
	kcdata_node_free(root);
	kb_free(&b);
}

static void unknown_types_are_byte_arrays(void)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	const struct kcdata_node *a;
	int ret;

	kb_begin(&b, CRASHINFO);
	kb_item(&b, 0x7abc, 3, 0, "\x01\x02\xff");
	kb_item(&b, 0x7abd, 1, 0, "\x09");
	kb_item(&b, 0x7abe, 0, 0, "");
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	a = kcdata_node_path(root, "kcdata_crashinfo.Type_0x7abc");
	CHECK_EQ(kcdata_node_kind(a), KCDATA_NODE_ARRAY);
	CHECK_EQ(kcdata_node_count(a), 3);
	CHECK_EQ(kcdata_node_uint(kcdata_node_at(a, 2)), 255);
	/* one byte is a number, no byte leaves nothing */
	CHECK_EQ(kcdata_node_kind(kcdata_node_path(root, "kcdata_crashinfo.Type_0x7abd")), KCDATA_NODE_INT);
	CHECK_EQ(path_u64(root, "kcdata_crashinfo.Type_0x7abd"), 9);
	CHECK(kcdata_node_path(root, "kcdata_crashinfo.Type_0x7abe") == NULL);
	kcdata_node_free(root);
	kb_free(&b);

	/* two unknown items of the same type: byte arrays join */
	kb_begin(&b, CRASHINFO);
	kb_item(&b, 0x7abc, 2, 0, "\x01\x02");
	kb_item(&b, 0x7abc, 2, 0, "\x03\x04");
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(kcdata_node_count(kcdata_node_path(root, "kcdata_crashinfo.Type_0x7abc")), 4);
	kcdata_node_free(root);
	kb_free(&b);
}

static void desc_item(struct kbuf *b, uint32_t type, const char *desc, const void *data,
		      uint32_t len)
{
	char d[32] = { 0 };

	strcpy(d, desc);
	kb_header(b, type, 32 + len, 0);
	kb_bytes(b, d, 32);
	kb_bytes(b, data, len);
}

static void data_with_description(void)
{
	struct kbuf b = { 0 };
	struct kcdata_node *root;
	const struct kcdata_node *v;
	int ret;

	kb_begin(&b, KCDATA_BUFFER_BEGIN_OS_REASON);
	desc_item(&b, KCDATA_TYPE_UINT32_DESC, "NUM MACH PORTS", "\x9c\0\0\0", 4);
	desc_item(&b, KCDATA_TYPE_UINT64_DESC, "big", "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
	desc_item(&b, KCDATA_TYPE_INT32_DESC, "minus one", "\xff\xff\xff\xff", 4);
	desc_item(&b, KCDATA_TYPE_INT64_DESC, "minus two", "\xfe\xff\xff\xff\xff\xff\xff\xff", 8);
	desc_item(&b, KCDATA_TYPE_STRING_DESC, "greeting", "hi there", 9);
	desc_item(&b, KCDATA_TYPE_UINT32_DESC, "no data", "", 0);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(path_u64(root, "kcdata_reason.NUM MACH PORTS"), 0x9c);
	CHECK_EQ(path_u64(root, "kcdata_reason.big"), UINT64_MAX);
	CHECK(!kcdata_node_is_negative(kcdata_node_path(root, "kcdata_reason.big")));
	v = kcdata_node_path(root, "kcdata_reason.minus one");
	CHECK(kcdata_node_is_negative(v));
	CHECK_EQ(kcdata_node_int(v), -1);
	CHECK_EQ(kcdata_node_int(kcdata_node_path(root, "kcdata_reason.minus two")), -2);
	CHECK_STR(path_str(root, "kcdata_reason.greeting"), "hi there");
	CHECK(kcdata_node_path(root, "kcdata_reason.no data") == NULL);
	CHECK_EQ(kcdata_node_count(kcdata_node_path(root, "kcdata_reason")), 5);
	kcdata_node_free(root);
	kb_free(&b);
}

static void legacy_struct_sizes(void)
{
	struct kbuf b = { 0 };
	uint8_t ths[112], sc[32];
	struct kcdata_node *root;
	int ret;

	for (int i = 0; i < 112; i++)
		ths[i] = (uint8_t)i;
	for (int i = 0; i < 32; i++)
		sc[i] = (uint8_t)(0x80 + i);
	/* thread_snapshot_v2 padded to 112 without padding flags: 104 bytes, no ths_thread_t;
	 * with flags 0x80 all 112 bytes count */
	for (int flags = 0; flags <= 0x80; flags += 0x80) {
		kb_begin(&b, KCDATA_BUFFER_BEGIN_STACKSHOT);
		kb_item(&b, KCDATA_STACKSHOT_THREAD_SNAPSHOT, 112, (uint64_t)flags, ths);
		kb_item(&b, KCDATA_STACKSHOT_SHAREDCACHE_LOADINFO, 32, (uint64_t)flags, sc);
		kb_end(&b);
		root = kb_decode(&b, &ret);
		CHECK_EQ(ret, 0);
		CHECK_EQ(path_u64(root, "kcdata_stackshot.thread_snapshot.ths_io_tier"), 103);
		CHECK_EQ(kcdata_node_path(root, "kcdata_stackshot.thread_snapshot.ths_thread_t") != NULL,
			 flags != 0);
		CHECK_EQ(path_u64(root, "kcdata_stackshot.shared_cache_dyld_load_info.imageLoadAddress"),
			 0x8786858483828180ull);
		CHECK_EQ(kcdata_node_path(root,
					  "kcdata_stackshot.shared_cache_dyld_load_info.imageSlidBaseAddress") != NULL,
			 flags != 0);
		kcdata_node_free(root);
		kb_free(&b);
	}
}

static void subtype_descriptor(uint8_t *e, uint8_t flags, uint8_t type, uint16_t offset,
			       uint32_t size, const char *name)
{
	memset(e, 0, 40);
	e[0] = flags;
	e[1] = type;
	e[2] = (uint8_t)offset;
	e[3] = (uint8_t)(offset >> 8);
	e[4] = (uint8_t)size;
	e[5] = (uint8_t)(size >> 8);
	e[6] = (uint8_t)(size >> 16);
	e[7] = (uint8_t)(size >> 24);
	strcpy((char *)e + 8, name);
}

static void type_definitions(void)
{
	struct kbuf b = { 0 };
	uint8_t def[40 + 3 * 40] = { 0 }, item[12];
	struct kcdata_node *root;
	const struct kcdata_node *t, *f;
	int ret;

	def[0] = 0x34;      /* type 0x1234 */
	def[1] = 0x12;
	def[4] = 3;
	strcpy((char *)def + 8, "my_struct");
	subtype_descriptor(def + 40, 0, KCDATA_ST_UINT16, 0, 2, "a");
	subtype_descriptor(def + 80, 0, KCDATA_ST_INT16, 2, 2, "b");
	subtype_descriptor(def + 120, KCDATA_SUBTYPE_FLAG_ARRAY, KCDATA_ST_CHAR, 4, 8 << 16 | 1, "name");
	memcpy(item, "\x05\x00\xfe\xff" "abcdefgh", 12);
	kb_begin(&b, KCDATA_BUFFER_BEGIN_XNUPOST_CONFIG);
	kb_item(&b, KCDATA_TYPE_TYPEDEFINITION, sizeof(def), 0, def);
	kb_item(&b, 0x1234, 12, 0, item);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	t = kcdata_node_path(root, "xnupost_testconfig.typedef[my_struct]");
	CHECK_EQ(path_u64(t, "typeID"), 0x1234);
	CHECK_EQ(path_u64(t, "numOfFields"), 3);
	CHECK_STR(path_str(t, "name"), "my_struct");
	f = kcdata_node_get(t, "fields");
	CHECK_EQ(kcdata_node_count(f), 3);
	CHECK_STR(kcdata_node_string(kcdata_node_at(f, 0), NULL), "[0,2] uint16_t  a;");
	CHECK_STR(kcdata_node_string(kcdata_node_at(f, 1), NULL), "[2,2] int16_t  b;");
	CHECK_STR(kcdata_node_string(kcdata_node_at(f, 2), NULL), "[4,8] char  name[8];");
	CHECK_EQ(path_u64(root, "xnupost_testconfig.my_struct.a"), 5);
	CHECK_EQ(kcdata_node_int(kcdata_node_path(root, "xnupost_testconfig.my_struct.b")), -2);
	CHECK_STR(path_str(root, "xnupost_testconfig.my_struct.name"), "abcdefgh");
	kcdata_node_free(root);
	kb_free(&b);

	/* a definition claiming more fields than it holds */
	def[4] = 9;
	kb_begin(&b, KCDATA_BUFFER_BEGIN_XNUPOST_CONFIG);
	kb_item(&b, KCDATA_TYPE_TYPEDEFINITION, sizeof(def), 0, def);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -EBADMSG);
	kb_free(&b);
}

static void amplification_is_bounded(void)
{
	/* A definition of 1000 distinct one-byte fields at offset 0, then an array of
	 * 100000 one-byte elements: 10^8 values, refused instead of built. */
	struct kbuf b = { 0 };
	size_t n = 1000, count = 100000;
	uint8_t *def = calloc(1, 40 + 40 * n);
	struct kcdata_node *root;
	int ret;

	def[0] = 0x55;
	def[1] = 0x55;
	def[4] = (uint8_t)n;
	def[5] = (uint8_t)(n >> 8);
	strcpy((char *)def + 8, "wide");
	for (size_t i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%zu", i);
		subtype_descriptor(def + 40 + 40 * i, 0, KCDATA_ST_UINT8, 0, 1, name);
	}
	kb_begin(&b, KCDATA_BUFFER_BEGIN_XNUPOST_CONFIG);
	kb_item(&b, KCDATA_TYPE_TYPEDEFINITION, (uint32_t)(40 + 40 * n), 0, def);
	kb_header(&b, KCDATA_TYPE_ARRAY_PAD0, (uint32_t)count, (uint64_t)0x5555 << 32 | count);
	for (size_t i = 0; i < count; i++)
		kb_bytes(&b, "x", 1);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, -E2BIG);
	CHECK(root == NULL);
	free(def);
	kb_free(&b);
}

static void other_roots_and_begin_items(void)
{
	static const struct { uint32_t magic; const char *key; } roots[] = {
		{ KCDATA_BUFFER_BEGIN_STACKSHOT, "kcdata_stackshot" },
		{ KCDATA_BUFFER_BEGIN_DELTA_STACKSHOT, "kcdata_delta_stackshot" },
		{ KCDATA_BUFFER_BEGIN_CRASHINFO, "kcdata_crashinfo" },
		{ KCDATA_BUFFER_BEGIN_OS_REASON, "kcdata_reason" },
		{ KCDATA_BUFFER_BEGIN_XNUPOST_CONFIG, "xnupost_testconfig" },
		{ KCDATA_BUFFER_BEGIN_BTINFO, "kcdata_btinfo" },
	};

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		struct kbuf b = { 0 };
		struct kcdata_node *root;
		int ret;

		kb_begin(&b, roots[i].magic);
		kb_item(&b, KCDATA_TYPE_PID, 4, 0, "\x07\0\0\0");
		/* a second item of the begin type is skipped, as libkdd does */
		kb_item(&b, roots[i].magic, 4, 0, "junk");
		kb_end(&b);
		root = kb_decode(&b, &ret);
		CHECK_EQ(ret, 0);
		CHECK_EQ(kcdata_node_count(root), 1);
		CHECK_STR(kcdata_node_key(root, 0), roots[i].key);
		CHECK_EQ(kcdata_node_count(kcdata_node_at(root, 0)), 1);
		CHECK_EQ(kcdata_node_int(kcdata_node_get(kcdata_node_at(root, 0), "pid")), 7);
		kcdata_node_free(root);
		kb_free(&b);
	}
}

static void test_config_without_definition(void)
{
	struct kbuf b = { 0 };
	uint8_t cfg[160] = { 0 };
	struct kcdata_node *root;
	const struct kcdata_node *a;
	int ret;

	cfg[2] = 10;                     /* test_num */
	cfg[4] = 0xff;                   /* retval = -1 */
	cfg[5] = 0xff;
	cfg[6] = 0xff;
	cfg[7] = 0xff;
	cfg[12] = 0x2a;                  /* begin_time */
	memcpy(cfg + 28, "kalloc_test", 12);
	kb_begin(&b, KCDATA_BUFFER_BEGIN_XNUPOST_CONFIG);
	kb_header(&b, KCDATA_TYPE_ARRAY_PAD0, 160, (uint64_t)0x1040 << 32 | 1);
	kb_bytes(&b, cfg, 160);
	kb_end(&b);
	root = kb_decode(&b, &ret);
	CHECK_EQ(ret, 0);
	a = kcdata_node_path(root, "xnupost_testconfig.xnupost_test_config");
	CHECK_EQ(kcdata_node_count(a), 1);
	CHECK_EQ(path_u64(kcdata_node_at(a, 0), "test_num"), 10);
	CHECK_EQ(kcdata_node_int(kcdata_node_get(kcdata_node_at(a, 0), "retval")), -1);
	CHECK_EQ(path_u64(kcdata_node_at(a, 0), "begin_time"), 42);
	CHECK_STR(path_str(kcdata_node_at(a, 0), "test_name"), "kalloc_test");
	kcdata_node_free(root);
	kb_free(&b);
}

int kc_builtin_selftest(void);

static void builtin_table_is_sane(void)
{
	CHECK_EQ(kc_builtin_selftest(), 0);
	CHECK_STR(kcdata_type_name(0x905), "task_snapshot");
	CHECK_STR(kcdata_type_name(0x903), "task_snapshots");
	CHECK(kcdata_type_name(0x7fff) == NULL);
}

int main(void)
{
	PLAN(25);
	RUN(builtin_table_is_sane);
	RUN(padding_flags_0_to_15);
	RUN(padding_flags_with_has_padding_bit);
	RUN(loadinfo_short_sizes);
	RUN(pad_arrays_counts_1_to_19_every_padding);
	RUN(struct_arrays_and_short_elements);
	RUN(legacy_arrays);
	RUN(arrays_whose_count_exceeds_the_data);
	RUN(legacy_array_tolerates_padding_1_and_15);
	RUN(repeated_arrays_are_joined);
	RUN(scalar_items_and_short_scalars);
	RUN(nested_buffers);
	RUN(repeated_keys_fail);
	RUN(containers);
	RUN(container_errors);
	RUN(missing_buffer_end_and_crazy_size);
	RUN(boot_args_with_and_without_nul);
	RUN(strings_stop_at_nul);
	RUN(unknown_types_are_byte_arrays);
	RUN(data_with_description);
	RUN(legacy_struct_sizes);
	RUN(type_definitions);
	RUN(amplification_is_bounded);
	RUN(other_roots_and_begin_items);
	RUN(test_config_without_definition);
	return TEST_EXIT();
}
