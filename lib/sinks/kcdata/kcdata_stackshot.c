// SPDX-License-Identifier: MIT
/* Stackshots of Darwin ktrace files in the Darwin views: a listing of their tasks in
 * the text report, their decoded trees in the JSON report, their counts in info. */
#include <inttypes.h>
#include <string.h>

#include <ktrace/darwin.h>
#include <ktrace/kcdata.h>

#include "sinks/report/report.h"
#include "sinks/kcdata/kcdata.h"

/* A task's name: its snapshot's ts_p_comm (or the delta's), else "-". */
static const char *task_name(const struct kcdata_node *task, size_t *len)
{
	const struct kcdata_node *n = kcdata_node_path(task, "task_snapshot.ts_p_comm");

	if (!n || kcdata_node_kind(n) != KCDATA_NODE_STRING) {
		*len = 1;
		return "-";
	}
	return kcdata_node_string(n, len);
}

void kt_darwin_list_stackshot(struct ktrace_darwin *k, size_t index, struct ktrace_out *out)
{
	struct ktrace_error err = { 0 };
	struct ktrace_darwin_stackshot info;
	struct kcdata_node *root;
	const struct kcdata_node *ts, *top;
	int ret = ktrace_darwin_stackshot(k, index, &info, &root, &err);

	if (ret) {
		kt_out_printf(out, "#   stackshot %zu does not decode: %s\n", index, err.message);
		return;
	}
	kt_out_printf(out, "#   %s %zu: %" PRIu64 " tasks, %" PRIu64 " threads\n",
		      kcdata_begin_name(info.begin_type) ? kcdata_begin_name(info.begin_type)
							  : "kcdata",
		      index, info.tasks, info.threads);
	top = kcdata_node_kind(root) == KCDATA_NODE_DICT && kcdata_node_count(root) == 1
		      ? kcdata_node_at(root, 0) : root;
	ts = kcdata_node_get(top, "task_snapshots");
	for (size_t t = 0; ts && kcdata_node_kind(ts) == KCDATA_NODE_DICT &&
			   t < kcdata_node_count(ts); t++) {
		const struct kcdata_node *task = kcdata_node_at(ts, t);
		const struct kcdata_node *th = kcdata_node_get(task, "thread_snapshots");
		const struct kcdata_node *dth = kcdata_node_get(task, "thread_delta_snapshot");
		size_t len;
		const char *name = task_name(task, &len);
		uint64_t threads = (th && kcdata_node_kind(th) == KCDATA_NODE_DICT
					    ? kcdata_node_count(th) : 0) +
				   (dth && kcdata_node_kind(dth) == KCDATA_NODE_ARRAY
					    ? kcdata_node_count(dth) : 0);

		kt_out_puts(out, "#     pid ");
		kt_darwin_put_text(out, kcdata_node_key(ts, t), 32, KT_QUOTE_NONE);
		kt_out_putc(out, ' ');
		kt_darwin_put_text(out, name, len, KT_QUOTE_NONE);
		kt_out_printf(out, ": %" PRIu64 " thread%s\n", threads, threads == 1 ? "" : "s");
	}
	kcdata_node_free(root);
}

int kt_darwin_json_stackshots(struct kt_json *j, struct ktrace_darwin *k,
			      struct ktrace_error *err)
{
	int n = ktrace_darwin_stackshot_count(k, err);

	kt_json_begin_array(j, false);
	for (int i = 0; i < n; i++) {
		struct ktrace_darwin_stackshot info;
		struct kcdata_node *root;
		int ret = ktrace_darwin_stackshot(k, (size_t)i, &info, &root, err);

		if (ret) {
			kt_json_end_array(j);
			return ret;
		}
		kt_json_begin_object(j, false);
		kt_json_key_cstr(j, "offset");
		kt_json_u64(j, info.offset);
		kt_json_key_cstr(j, "size");
		kt_json_u64(j, info.size);
		kt_json_key_cstr(j, "tasks");
		kt_json_u64(j, info.tasks);
		kt_json_key_cstr(j, "threads");
		kt_json_u64(j, info.threads);
		kt_json_key_cstr(j, "kcdata");
		ret = kt_kcdata_json_tree(j, root);
		kcdata_node_free(root);
		kt_json_end_object(j);
		if (ret) {
			kt_json_end_array(j);
			return ktrace_error_set(err, ret, "out of memory");
		}
	}
	kt_json_end_array(j);
	return n < 0 ? n : 0;
}
