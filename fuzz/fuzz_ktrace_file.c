// SPDX-License-Identifier: MIT
/*
 * Fuzz harness for Darwin ktrace files: container open + chunk iteration + chunk data
 * + lookup by tag, kdebug decoding (as found, and again as a headerless V0 stream),
 * thread lookups and names (thread map and TRACE_STRING_THREADNAME), stackshot chunks
 * through the kcdata decoder, and the report (columns, CSV with a filter, durations,
 * JSON with the stackshot trees) and info (text and JSON) views written to /dev/null.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <ktrace/darwin.h>
#include <ktrace/kcdata.h>
#include <ktrace/ktrace_file.h>

#include <ktrace/view.h>

#include "common/outbuf.h"
#include "sinks/report/report.h"
#include "sinks/info/info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ktrace_out *out;
static struct ktrace_darwin_filter *filter;
static struct ktrace_darwin_codes *codes;

static void walk_container(const uint8_t *data, size_t size)
{
	struct ktrace_error err = { 0 };
	struct ktrace_file *f;
	struct ktrace_chunk_iter it;
	struct ktrace_chunk c;
	const uint8_t *p;
	volatile uint8_t sink = 0;
	int n = 0;

	if (ktrace_file_open_memory(data, size, "fuzz", &f, &err) < 0)
		return;
	ktrace_file_get_header(f);
	ktrace_file_chunks_begin(f, &it);
	while (ktrace_file_next_chunk(f, &it, &c, &err) > 0 && n++ < 100000) {
		ktrace_file_tag_name(c.tag);
		if (ktrace_file_chunk_data(f, &c, &p, &err) == 0 && c.data_size)
			sink ^= p[0] ^ p[c.data_size - 1];
		if (c.data_size >= 4 && ktrace_file_chunk_read(f, &c, c.data_size - 4, 4, &p, &err) == 0)
			sink ^= p[3];
	}
	ktrace_file_find_chunk(f, KTRACE_TAG_THREAD_MAP, &c, &err);
	ktrace_file_close(f);
	(void)sink;
}

static void decode(const uint8_t *data, size_t size, bool v0)
{
	struct ktrace_error err = { 0 };
	KTRACE_OPTS(ktrace_darwin_opts, opt, .raw_v0 = v0);
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_event ev;
	char buf[64];
	size_t n;

	if (ktrace_input_from_memory(data, size, "fuzz", &in, &err) < 0)
		return;
	if (ktrace_darwin_open(in, &opt, &k, &err) == 0) {
		ktrace_darwin_threads(k, &n);
		ktrace_darwin_cpus(k, &n);
		for (int i = 0, c = ktrace_darwin_stackshot_count(k, &err); i < c && i < 64; i++) {
			struct ktrace_darwin_stackshot si;
			struct kcdata_node *root;

			if (ktrace_darwin_stackshot(k, (size_t)i, &si, &root, &err) == 0)
				kcdata_node_free(root);
		}
		for (n = 0; ktrace_darwin_next(k, &ev, &err) > 0 && n < 1000000; n++) {
			ktrace_darwin_find_thread(k, ev.thread);
			ktrace_darwin_thread_name(k, ev.thread);
			ktrace_darwin_builtin_name(ev.debugid, buf, sizeof(buf));
			ktrace_darwin_filter_match(filter, ev.debugid);
		}
		if (ktrace_darwin_rewind(k, &err) == 0)
			ktrace_darwin_next(k, &ev, &err);
		ktrace_darwin_close(k);
	}
	ktrace_input_close(in);
}

static void views(const uint8_t *data, size_t size)
{
	struct ktrace_error err = { 0 };
	struct ktrace_view_darwin_opts o = { .sz = sizeof(o) };
	struct ktrace_input *in;
	static const int32_t pids[] = { 1 };

	if (ktrace_input_from_memory(data, size, "fuzz", &in, &err) < 0)
		return;
	o.codes = codes;
	kt_report_darwin(in, &o, out, &err);
	o.csv = true;
	o.filter = filter;
	o.pids = pids;
	o.npids = 1;
	kt_report_darwin(in, &o, out, &err);
	kt_info_darwin(in, &o, out, &err);
	o.durations = true;
	kt_report_darwin(in, &o, out, &err);
	o.csv = false;
	kt_report_darwin(in, &o, out, &err);
	o.durations = false;
	o.json = true;
	kt_info_darwin(in, &o, out, &err);
	o.filter = NULL;
	o.npids = 0;
	kt_report_darwin(in, &o, out, &err);
	out->len = 0;
	ktrace_input_close(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!out) {
		struct ktrace_error err = { 0 };

		out = kt_out_new(-1);
		out->fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		kt_out_reset(out);
		filter = ktrace_darwin_filter_new();
		ktrace_darwin_filter_parse(filter, "C1,S0x0403,D0x25000000", &err);
		codes = ktrace_darwin_codes_new();
		ktrace_darwin_codes_add(codes, 0x01400080, "MACH_SCHED_thing", &err);
	}
	walk_container(data, size);
	decode(data, size, false);
	decode(data, size, true);
	views(data, size);
	kt_out_flush(out);
	return 0;
}
