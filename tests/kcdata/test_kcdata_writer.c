// SPDX-License-Identifier: MIT
/*
 * The kcdata writer, iterator and buffer unwrapping: buffers we write (every item kind,
 * with and without compression) read back to the data we wrote, both through the
 * iterator (raw items) and through the decoder (the tree); gzip, base64 and Darwin
 * chunk wrappings open; misuse and corrupt input fail cleanly.
 */
#include <errno.h>
#include <unistd.h>
#include <zlib.h>

#include <ktrace/input.h>
#include <ktrace/kcdata.h>

#include "kctest.h"
#include "testlib.h"

#define TASK_CONTAINER 0x903u
#define THREAD_CONTAINER 0x904u

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static const uint8_t bindata[5] = { 1, 2, 3, 0, 0xff };

/* The nested buffer: a crash info with a thread id. */
static void nested_buffer(struct kbuf *out)
{
	struct kcdata_writer *w;
	const uint8_t *buf;
	size_t len;
	uint8_t tid[8];

	le64(tid, 4242);
	if (kcdata_writer_new(KCDATA_BUFFER_BEGIN_CRASHINFO, 0, &w, NULL) ||
	    kcdata_writer_add_item(w, 0x81a, tid, 8, NULL) ||
	    kcdata_writer_finish(w, &buf, &len, NULL))
		abort();
	kb_bytes(out, buf, len);
	kcdata_writer_free(w);
}

/* Writes one of everything; returns the writer (finished). */
static struct kcdata_writer *write_everything(unsigned int flags, const uint8_t **buf, size_t *len)
{
	struct kcdata_writer *w;
	struct ktrace_error err = { 0 };
	uint8_t li[3][24], pids[5][4], task[120] = { 0 }, item[12];
	struct kbuf nested = { 0 };
	static const struct kcdata_field fields[] = {
		{ "count", KCDATA_ST_UINT32, 0, 1, 0 },
		{ "delta", KCDATA_ST_INT16, 4, 1, 0 },
		{ "tag", KCDATA_ST_CHAR, 6, 6, 0 },
	};
	int ret = 0;

	for (int i = 0; i < 3; i++) {
		le64(li[i], 0x100000000ull * (uint64_t)(i + 1));
		for (int k = 0; k < 16; k++)
			li[i][8 + k] = (uint8_t)(16 * i + k);
	}
	for (int i = 0; i < 5; i++)
		le32(pids[i], (uint32_t)(100 + i));
	le64(task, 77);                      /* ts_unique_pid */
	le32(task + 84, 321);                /* ts_pid */
	memcpy(task + 88, "launchd", 8);     /* ts_p_comm */
	le32(item, 9);
	item[4] = 0xfd;                      /* delta = -3 */
	item[5] = 0xff;
	memcpy(item + 6, "abcdef", 6);
	nested_buffer(&nested);

	if (kcdata_writer_new(KCDATA_BUFFER_BEGIN_STACKSHOT, flags, &w, &err))
		abort();
	ret |= kcdata_writer_add_uint32(w, "u32", 0xdeadbeef, &err);
	ret |= kcdata_writer_add_uint64(w, "u64", UINT64_MAX - 1, &err);
	ret |= kcdata_writer_add_int32(w, "i32", -5, &err);
	ret |= kcdata_writer_add_int64(w, "i64", INT64_MIN, &err);
	ret |= kcdata_writer_add_string(w, "str", "hello \"world\"", &err);
	ret |= kcdata_writer_add_bindata(w, "bin", bindata, sizeof(bindata), &err);
	ret |= kcdata_writer_add_item(w, KCDATA_TYPE_PID, "\x07\x01\0\0", 4, &err);
	ret |= kcdata_writer_add_item(w, 0x90e, "boot=args", 10, &err);
	ret |= kcdata_writer_add_item(w, 0x7abc, "\x01\x02\x03", 3, &err);
	ret |= kcdata_writer_add_array(w, KCDATA_TYPE_LIBRARY_LOADINFO64, 24, 3, li, &err);
	ret |= kcdata_writer_add_array(w, 0x907, 4, 5, pids, &err);
	ret |= kcdata_writer_add_array(w, 0x81a, 8, 0, NULL, &err);
	ret |= kcdata_writer_add_typedef(w, 0x7001, "my_type", fields, 3, &err);
	ret |= kcdata_writer_add_item(w, 0x7001, item, sizeof(item), &err);
	ret |= kcdata_writer_begin_container(w, TASK_CONTAINER, 7, &err);
	ret |= kcdata_writer_add_item(w, 0x905, task, sizeof(task), &err);
	ret |= kcdata_writer_begin_container(w, THREAD_CONTAINER, 99, &err);
	ret |= kcdata_writer_add_item(w, 0x909, "worker", 7, &err);
	ret |= kcdata_writer_end_container(w, THREAD_CONTAINER, 99, &err);
	ret |= kcdata_writer_end_container(w, TASK_CONTAINER, 7, &err);
	ret |= kcdata_writer_add_nested(w, nested.p, nested.len, &err);
	ret |= kcdata_writer_finish(w, buf, len, &err);
	CHECK_EQ(ret, 0);
	kb_free(&nested);
	return w;
}

/* Checks the decoded tree of write_everything's buffer against what was written. */
static void check_everything(const struct kcdata_node *root)
{
	const struct kcdata_node *r = kcdata_node_get(root, "kcdata_stackshot"), *a, *t;

	CHECK(r != NULL);
	CHECK_EQ(path_u64(r, "u32"), 0xdeadbeef);
	CHECK_EQ(path_u64(r, "u64"), UINT64_MAX - 1);
	CHECK_EQ(kcdata_node_int(kcdata_node_get(r, "i32")), -5);
	CHECK(kcdata_node_is_negative(kcdata_node_get(r, "i32")));
	CHECK_EQ(kcdata_node_int(kcdata_node_get(r, "i64")), INT64_MIN);
	CHECK_STR(path_str(r, "str"), "hello \"world\"");
	/* libkdd has no description of BINDATA_DESC: the item comes out as bytes */
	a = kcdata_node_get(r, "Type_0x6");
	CHECK_EQ(kcdata_node_count(a), 32 + sizeof(bindata));
	CHECK_EQ(kcdata_node_uint(kcdata_node_at(a, 0)), 'b');
	for (size_t i = 0; i < sizeof(bindata); i++)
		CHECK_EQ(kcdata_node_uint(kcdata_node_at(a, 32 + i)), bindata[i]);
	CHECK_EQ(path_u64(r, "pid"), 263);
	CHECK_STR(path_str(r, "boot_args"), "boot=args");
	CHECK_EQ(kcdata_node_count(kcdata_node_get(r, "Type_0x7abc")), 3);
	a = kcdata_node_get(r, "dyld_load_info");
	CHECK_EQ(kcdata_node_count(a), 3);
	for (size_t i = 0; i < 3; i++) {
		const struct kcdata_node *e = kcdata_node_at(a, i), *u = kcdata_node_get(e, "imageUUID");

		CHECK_EQ(path_u64(e, "imageLoadAddress"), 0x100000000ull * (i + 1));
		CHECK_EQ(kcdata_node_count(u), 16);
		CHECK_EQ(kcdata_node_uint(kcdata_node_at(u, 15)), 16 * i + 15);
	}
	a = kcdata_node_get(r, "donating_pids");
	CHECK_EQ(kcdata_node_count(a), 5);
	CHECK_EQ(kcdata_node_int(kcdata_node_at(a, 4)), 104);
	CHECK_EQ(kcdata_node_kind(kcdata_node_get(r, "crashed_threadid")), KCDATA_NODE_ARRAY);
	CHECK_EQ(kcdata_node_count(kcdata_node_get(r, "crashed_threadid")), 0);
	t = kcdata_node_get(r, "typedef[my_type]");
	CHECK_EQ(path_u64(t, "typeID"), 0x7001);
	CHECK_EQ(kcdata_node_count(kcdata_node_get(t, "fields")), 3);
	CHECK_STR(kcdata_node_string(kcdata_node_at(kcdata_node_get(t, "fields"), 2), NULL),
		  "[6,6] char  tag[6];");
	CHECK_EQ(path_u64(r, "my_type.count"), 9);
	CHECK_EQ(kcdata_node_int(kcdata_node_path(r, "my_type.delta")), -3);
	CHECK_STR(path_str(r, "my_type.tag"), "abcdef");
	CHECK_EQ(path_u64(r, "task_snapshots.7.task_snapshot.ts_unique_pid"), 77);
	CHECK_EQ(path_u64(r, "task_snapshots.7.task_snapshot.ts_pid"), 321);
	CHECK_STR(path_str(r, "task_snapshots.7.task_snapshot.ts_p_comm"), "launchd");
	CHECK_STR(path_str(r, "task_snapshots.7.thread_snapshots.99.pth_name"), "worker");
	CHECK_EQ(path_u64(r, "kcdata_crashinfo.crashed_threadid"), 4242);
	CHECK_EQ(kcdata_node_count(r), 16);
}

static void round_trip(unsigned int flags)
{
	const uint8_t *buf;
	size_t len;
	struct kcdata_writer *w = write_everything(flags, &buf, &len);
	struct kcdata_buffer *b = NULL;
	struct kcdata_node *root = NULL;
	struct ktrace_error err = { 0 };
	char msg[400];

	CHECK(buf != NULL);
	CHECK_EQ(kcdata_buffer_open(buf, len, &b, &err), 0);
	CHECK_EQ(kcdata_buffer_wrapping(b), flags ? KCDATA_WRAP_COMPRESSED : 0);
	CHECK_EQ(kcdata_buffer_begin_type(b), KCDATA_BUFFER_BEGIN_STACKSHOT);
	CHECK_EQ(kcdata_decode(kcdata_buffer_data(b), kcdata_buffer_size(b), &root, &err), 0);
	if (err.code)
		printf("#   %s\n", ktrace_error_format(&err, msg, sizeof(msg)));
	check_everything(root);
	kcdata_node_free(root);
	kcdata_buffer_free(b);
	kcdata_writer_free(w);
}

static void round_trip_plain(void)
{
	round_trip(0);
}

static void round_trip_compressed(void)
{
	round_trip(KCDATA_WRITER_COMPRESS);
}

static void written_items_follow_xnu_layout(void)
{
	const uint8_t *buf;
	size_t len;
	struct kcdata_writer *w = write_everything(0, &buf, &len);
	struct kcdata_iter *it;
	struct kcdata_item item;
	struct kcdata_array arr;
	const char *desc;
	const uint8_t *data;
	uint32_t dlen, ctype;
	uint64_t id;
	int ret, n = 0;

	CHECK_EQ(kcdata_iter_new(buf, len, &it, NULL), 0);
	while ((ret = kcdata_iter_next(it, &item, NULL)) == 1) {
		uint32_t t = kcdata_item_type(&item);

		n++;
		CHECK_EQ(item.offset % 16, 0);
		CHECK_EQ(item.size % 16, 0);
		if (t == KCDATA_TYPE_ARRAY) {
			CHECK_EQ(kcdata_item_array(&item, &arr, NULL), 0);
			CHECK_EQ(arr.count * arr.elem_size + (item.type & 0xf), item.size);
		} else if (t == KCDATA_TYPE_CONTAINER_BEGIN || t == KCDATA_TYPE_CONTAINER_END) {
			CHECK_EQ(kcdata_item_container(&item, &ctype, &id, NULL), 0);
			CHECK(ctype == TASK_CONTAINER || ctype == THREAD_CONTAINER);
			CHECK(id == 7 || id == 99);
		} else if (item.type != KCDATA_BUFFER_BEGIN_STACKSHOT) {
			/* padding in the flags, 0x80 set */
			CHECK_EQ(item.flags & 0x80, 0x80);
			CHECK_EQ(kcdata_item_length(&item), item.size - (item.flags & 0xf));
		}
		if (item.type == KCDATA_TYPE_STRING_DESC) {
			CHECK_EQ(kcdata_item_desc(&item, &desc, &data, &dlen, NULL), 0);
			CHECK_STR(desc, "str");
			CHECK_EQ(dlen, 14);
			CHECK(!memcmp(data, "hello \"world\"", 14));
		}
		if (item.type == KCDATA_TYPE_BINDATA_DESC) {
			CHECK_EQ(kcdata_item_desc(&item, &desc, &data, &dlen, NULL), 0);
			CHECK_STR(desc, "bin");
			CHECK_EQ(dlen, sizeof(bindata));
			CHECK(!memcmp(data, bindata, sizeof(bindata)));
		}
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(item.type, KCDATA_TYPE_BUFFER_END);
	CHECK_EQ(item.offset + 16, len);
	CHECK_EQ(n, 22);
	kcdata_iter_free(it);
	kcdata_writer_free(w);
}

static void writer_misuse(void)
{
	struct kcdata_writer *w;
	const uint8_t *buf;
	size_t len;

	CHECK_EQ(kcdata_writer_new(0x1234, 0, &w, NULL), -EINVAL);
	CHECK_EQ(kcdata_writer_new(KCDATA_BUFFER_BEGIN_COMPRESSED, 0, &w, NULL), -EINVAL);
	CHECK_EQ(kcdata_writer_new(KCDATA_BUFFER_BEGIN_OS_REASON, 0, &w, NULL), 0);
	CHECK_EQ(kcdata_writer_add_uint32(w, "a description that is far too long", 1, NULL), -EINVAL);
	CHECK_EQ(kcdata_writer_add_item(w, KCDATA_TYPE_CONTAINER_BEGIN, "xxxx", 4, NULL), -EINVAL);
	CHECK_EQ(kcdata_writer_add_item(w, KCDATA_TYPE_BUFFER_END, NULL, 0, NULL), -EINVAL);
	CHECK_EQ(kcdata_writer_begin_container(w, TASK_CONTAINER, 1, NULL), 0);
	CHECK_EQ(kcdata_writer_end_container(w, TASK_CONTAINER, 2, NULL), -EINVAL);
	CHECK_EQ(kcdata_writer_finish(w, &buf, &len, NULL), -EINVAL);
	CHECK_EQ(kcdata_writer_end_container(w, TASK_CONTAINER, 1, NULL), 0);
	CHECK_EQ(kcdata_writer_end_container(w, TASK_CONTAINER, 1, NULL), -EINVAL);
	CHECK_EQ(kcdata_writer_finish(w, &buf, &len, NULL), 0);
	CHECK_EQ(len, 16 + 2 * 32 + 16);   /* begin, two markers, end */
	CHECK_EQ(kcdata_writer_add_uint32(w, "late", 1, NULL), -EINVAL);
	kcdata_writer_free(w);
}

static void write_file_and_read_back(void)
{
	char path[] = "/tmp/ktrace-kcdata-XXXXXX";
	int fd = mkstemp(path);
	const uint8_t *buf;
	size_t len;
	struct kcdata_writer *w = write_everything(KCDATA_WRITER_COMPRESS, &buf, &len);
	struct ktrace_input *in = NULL;
	struct kcdata_buffer *b = NULL;
	struct kcdata_node *root = NULL;

	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(kcdata_writer_write_file(w, path, NULL), 0);
	CHECK_EQ(ktrace_input_open(path, &in, NULL), 0);
	CHECK_EQ(ktrace_input_size(in), (int64_t)len);
	CHECK_EQ(kcdata_buffer_read(in, &b, NULL), 0);
	CHECK_EQ(kcdata_decode(kcdata_buffer_data(b), kcdata_buffer_size(b), &root, NULL), 0);
	check_everything(root);
	kcdata_node_free(root);
	kcdata_buffer_free(b);
	ktrace_input_close(in);
	unlink(path);
	kcdata_writer_free(w);
}

static size_t gzip_bytes(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		abort();
	deflateEnd(&zs);
	return zs.total_out;
}

static size_t base64_bytes(const uint8_t *in, size_t len, char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < len ? in[i + 2] : 0);

		out[n++] = a[v >> 18];
		out[n++] = a[(v >> 12) & 63];
		out[n++] = i + 1 < len ? a[(v >> 6) & 63] : '=';
		out[n++] = i + 2 < len ? a[v & 63] : '=';
		if (n % 77 == 76)
			out[n++] = '\n';   /* line breaks are skipped */
	}
	return n;
}

static void opens(const void *data, size_t len, unsigned int wrapping, bool compressed)
{
	struct kcdata_buffer *b = NULL;
	struct kcdata_node *root = NULL;
	struct ktrace_error err = { 0 };
	char msg[400];
	int ret = kcdata_buffer_open(data, len, &b, &err);

	CHECK_EQ(ret, 0);
	if (ret) {
		printf("#   %s\n", ktrace_error_format(&err, msg, sizeof(msg)));
		return;
	}
	CHECK(kcdata_sniff(data, len));
	CHECK_EQ(kcdata_buffer_wrapping(b), wrapping | (compressed ? KCDATA_WRAP_COMPRESSED : 0));
	CHECK_EQ(kcdata_decode(kcdata_buffer_data(b), kcdata_buffer_size(b), &root, NULL), 0);
	check_everything(root);
	kcdata_node_free(root);
	kcdata_buffer_free(b);
}

static void wrappings_open(void)
{
	for (unsigned int flags = 0; flags <= KCDATA_WRITER_COMPRESS; flags++) {
		const uint8_t *buf;
		size_t len, glen;
		struct kcdata_writer *w = write_everything(flags, &buf, &len);
		uint8_t *gz = malloc(len * 2 + 1024), *chunk = malloc(len + 16);
		char *b64 = malloc(len * 2 + 1024);

		opens(buf, len, 0, flags);
		glen = gzip_bytes(buf, len, gz, len * 2 + 1024);
		opens(gz, glen, KCDATA_WRAP_GZIP, flags);
		opens(b64, base64_bytes(buf, len, b64), KCDATA_WRAP_BASE64, flags);
		opens(b64, base64_bytes(gz, glen, b64), KCDATA_WRAP_BASE64 | KCDATA_WRAP_GZIP, flags);
		/* a Darwin ktrace chunk: tag, major, minor, u64 size */
		memset(chunk, 0, 16);
		le32(chunk, 0x8002);
		le64(chunk + 8, len);
		memcpy(chunk + 16, buf, len);
		opens(chunk, len + 16, KCDATA_WRAP_CHUNK, flags);
		free(gz);
		free(b64);
		free(chunk);
		kcdata_writer_free(w);
	}
}

static void bad_wrappings_fail(void)
{
	const uint8_t *buf;
	size_t len;
	struct kcdata_writer *w = write_everything(KCDATA_WRITER_COMPRESS, &buf, &len);
	uint8_t *copy = malloc(len);
	struct kcdata_buffer *b = NULL;
	static const char text[] = "this is plain text, not kcdata!";

	/* truncated compressed stream */
	CHECK_EQ(kcdata_buffer_open(buf, len - 40, &b, NULL) < 0, 1);
	/* compression type 2 */
	memcpy(copy, buf, len);
	copy[16 + 16 + 32] = 2;
	CHECK_EQ(kcdata_buffer_open(copy, len, &b, NULL), -ENOTSUP);
	/* corrupt zlib data */
	memcpy(copy, buf, len);
	memset(copy + 16 + 3 * 64 + 16 + 2, 0x55, 8);
	CHECK(kcdata_buffer_open(copy, len, &b, NULL) < 0);
	/* totalin disagreeing with the data */
	memcpy(copy, buf, len);
	copy[16 + 2 * 64 + 16 + 32] ^= 1;
	CHECK(kcdata_buffer_open(copy, len, &b, NULL) < 0);
	/* not kcdata */
	CHECK_EQ(kcdata_buffer_open(text, sizeof(text), &b, NULL), -EBADMSG);
	CHECK(!kcdata_sniff(text, sizeof(text)));
	CHECK_EQ(kcdata_buffer_open(text, 3, &b, NULL), -EBADMSG);
	CHECK(b == NULL);
	free(copy);
	kcdata_writer_free(w);
}

static void iterator_stops_at_truncation(void)
{
	struct kbuf k = { 0 };
	struct kcdata_iter *it;
	struct kcdata_item item;

	kb_begin(&k, KCDATA_BUFFER_BEGIN_CRASHINFO);
	kb_header(&k, 0x81a, 8, 0);
	kb_bytes(&k, "1234", 4);   /* 4 of 8 payload bytes */
	CHECK_EQ(kcdata_iter_new(k.p, k.len, &it, NULL), 0);
	CHECK_EQ(kcdata_iter_next(it, &item, NULL), 1);
	CHECK_EQ(item.type, KCDATA_BUFFER_BEGIN_CRASHINFO);
	CHECK_EQ(kcdata_iter_next(it, &item, NULL), -ENODATA);
	CHECK_EQ(kcdata_iter_offset(it), 16);
	CHECK_EQ(kcdata_iter_next(it, &item, NULL), -ENODATA);   /* stays put */
	kcdata_iter_free(it);
	kb_free(&k);
}

int main(void)
{
	PLAN(8);
	RUN(round_trip_plain);
	RUN(round_trip_compressed);
	RUN(written_items_follow_xnu_layout);
	RUN(writer_misuse);
	RUN(write_file_and_read_back);
	RUN(wrappings_open);
	RUN(bad_wrappings_fail);
	RUN(iterator_stops_at_truncation);
	return TEST_EXIT();
}
