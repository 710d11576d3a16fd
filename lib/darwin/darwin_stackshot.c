// SPDX-License-Identifier: MIT
/*
 * Stackshots inside Darwin ktrace files: the chunks tagged 0x8002 hold a kcdata buffer
 * (plain or kcdata-compressed), decoded here by the kcdata decoder into the tree
 * libkdd would give, and counted (tasks and threads).
 */
#include <ktrace/darwin.h>
#include <ktrace/kcdata.h>
#include <ktrace/ktrace_file.h>

#include <errno.h>
#include <string.h>

/* The i-th stackshot chunk: 1 found, 0 not, < 0 error. */
static int find_stackshot(struct ktrace_darwin *k, size_t i, struct ktrace_chunk *c,
			  struct ktrace_error *err)
{
	struct ktrace_file *f = ktrace_darwin_file(k);
	struct ktrace_chunk_iter it;
	size_t seen = 0;
	int ret;

	if (!f)
		return 0;
	if (!ktrace_input_is_mapped(ktrace_file_input(f)))
		return -ESPIPE;
	ktrace_file_chunks_begin(f, &it);
	while ((ret = ktrace_file_next_chunk(f, &it, c, err)) > 0)
		if (c->tag == KTRACE_TAG_STACKSHOT && seen++ == i)
			return 1;
	return ret;
}

int ktrace_darwin_stackshot_count(struct ktrace_darwin *k, struct ktrace_error *err)
{
	struct ktrace_file *f = ktrace_darwin_file(k);
	struct ktrace_chunk_iter it;
	struct ktrace_chunk c;
	int n = 0, ret;

	if (!f || !ktrace_input_is_mapped(ktrace_file_input(f)))
		return 0;
	ktrace_file_chunks_begin(f, &it);
	while ((ret = ktrace_file_next_chunk(f, &it, &c, err)) > 0)
		if (c.tag == KTRACE_TAG_STACKSHOT && n < INT32_MAX)
			n++;
	return ret < 0 ? ret : n;
}

/* Entries of a dictionary, 0 for anything else (or NULL). */
static uint64_t dict_count(const struct kcdata_node *n)
{
	return n && kcdata_node_kind(n) == KCDATA_NODE_DICT ? kcdata_node_count(n) : 0;
}

/* Elements of an array, 0 for anything else (or NULL). */
static uint64_t array_count(const struct kcdata_node *n)
{
	return n && kcdata_node_kind(n) == KCDATA_NODE_ARRAY ? kcdata_node_count(n) : 0;
}

/*
 * The tree is {"kcdata_stackshot" (or "kcdata_delta_stackshot"): {..., "task_snapshots":
 * {PID: {..., "thread_snapshots": {TID: {...}}, "thread_delta_snapshot": [...]}}}}: a
 * task per task_snapshots entry, a thread per thread_snapshots entry or
 * thread_delta_snapshot element.
 */
void ktrace_darwin_stackshot_count_tasks(const struct kcdata_node *root, uint64_t *tasks,
					 uint64_t *threads)
{
	const struct kcdata_node *ts;

	*tasks = *threads = 0;
	if (root && kcdata_node_kind(root) == KCDATA_NODE_DICT && kcdata_node_count(root) == 1)
		root = kcdata_node_at(root, 0);
	ts = kcdata_node_get(root, "task_snapshots");
	if (!ts || kcdata_node_kind(ts) != KCDATA_NODE_DICT)
		return;
	*tasks = kcdata_node_count(ts);
	for (size_t t = 0; t < kcdata_node_count(ts); t++) {
		const struct kcdata_node *task = kcdata_node_at(ts, t);

		*threads += dict_count(kcdata_node_get(task, "thread_snapshots")) +
			    array_count(kcdata_node_get(task, "thread_delta_snapshot"));
	}
}

int ktrace_darwin_stackshot(struct ktrace_darwin *k, size_t i,
			    struct ktrace_darwin_stackshot *info, struct kcdata_node **root,
			    struct ktrace_error *err)
{
	struct ktrace_file *f = ktrace_darwin_file(k);
	struct kcdata_buffer *buf = NULL;
	struct kcdata_node *tree = NULL;
	struct ktrace_chunk c;
	const uint8_t *data;
	int ret;

	if (root)
		*root = NULL;
	ret = find_stackshot(k, i, &c, err);
	if (ret == -ESPIPE)
		return ktrace_error_set(err, ret, "stackshots are read from files, not streams");
	if (ret <= 0)
		return ret < 0 ? ret : -ENOENT;
	if (info) {
		memset(info, 0, sizeof(*info));
		info->offset = c.offset;
		info->size = c.data_size;
	}
	ret = ktrace_file_chunk_data(f, &c, &data, err);
	if (!ret)
		ret = kcdata_buffer_open(data, (size_t)c.data_size, &buf, err);
	if (!ret)
		ret = kcdata_decode(kcdata_buffer_data(buf), kcdata_buffer_size(buf), &tree, err);
	if (ret) {
		char m[KTRACE_ERROR_MESSAGE_MAX];

		if (err) {
			memcpy(m, err->message, sizeof(m));
			ktrace_error_at(err, ret, c.offset, "stackshot chunk: %.200s", m);
		}
		kcdata_buffer_free(buf);
		return ret;
	}
	if (info) {
		info->begin_type = kcdata_buffer_begin_type(buf);
		ktrace_darwin_stackshot_count_tasks(tree, &info->tasks, &info->threads);
	}
	kcdata_buffer_free(buf);
	if (root)
		*root = tree;
	else
		kcdata_node_free(tree);
	return 0;
}
