// SPDX-License-Identifier: MIT
/*
 * The model's rule 3 (docs/model.md) on a trace.dat written here: after a switch of
 * thread A out, A's own records before any other record on that CPU are the switch's
 * (its stack trace...) and no evidence, but an interrupt's record over A is: the kernel
 * takes no interrupt between a switch and the start of the thread switched in, so a
 * tick over A shows A running again (the switch back to A was not recorded, as some are
 * not). One CPU, records at (ns):
 *   1000000  sched_switch A(101) R ==> B(202)
 *   1000500  timer:hrtimer_expire_entry over A
 *   1004000  timer:hrtimer_expire_entry over A
 *   1008000  sched_switch A(101) S ==> B(202)
 *   1009000  sched_switch B(202) S ==> swapper(0)
 * A runs from its tick at 1000500 to its switch at 1008000: 7500 ns of CPU time. Without
 * the interrupt rule it had none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <ktrace/stream.h>
#include <ktrace/tracedat.h>

#include "engine/engine_model.h"
#include "testlib.h"

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

/* real formats (fuzz/eventfmt_formats.h): sched_switch and timer:hrtimer_expire_entry */
#include "../fuzz/eventfmt_formats.h"

static const char *format_of(const char *name, unsigned *id)
{
	char want[64];

	snprintf(want, sizeof(want), "name: %s\n", name);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strncmp(formats[i].text, want, strlen(want))) {
			*id = (unsigned)strtoul(strstr(formats[i].text, "ID: ") + 4, NULL, 10);
			return formats[i].text;
		}
	return NULL;
}

static unsigned switch_id, tick_id;

static uint8_t page[4096];
static size_t used = 16;
static uint64_t last_ts;

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A record of event id over pid at ts, its payload (after the common fields) given. */
static void record(uint64_t ts, uint16_t id, int32_t pid, const void *payload, size_t n)
{
	size_t len = (8 + n + 3) / 4 * 4;
	uint8_t *r = page + used;

	put32(r, (uint32_t)((ts - last_ts) << 5) | (uint32_t)(len / 4));
	r[4] = (uint8_t)id;
	r[5] = (uint8_t)(id >> 8);
	put32(r + 8, (uint32_t)pid);
	memcpy(r + 12, payload, n);
	used += 4 + len;
	last_ts = ts;
}

static void sched_switch(uint64_t ts, const char *prev, int32_t ppid, int64_t state,
			 const char *next, int32_t npid)
{
	uint8_t p[56] = { 0 };

	memcpy(p, prev, strlen(prev));
	put32(p + 16, (uint32_t)ppid);
	put32(p + 20, 120);
	for (int i = 0; i < 8; i++)
		p[24 + i] = (uint8_t)((uint64_t)state >> (8 * i));
	memcpy(p + 32, next, strlen(next));
	put32(p + 48, (uint32_t)npid);
	put32(p + 52, 120);
	record(ts, (uint16_t)switch_id, ppid, p, sizeof(p));
}

static int write_trace(const char *path)
{
	KTRACE_OPTS(tracedat_write_opts, wo, .version = 6, .page_size = 4096);
	struct ktrace_error err = { 0 };
	struct tracedat_writer *w;
	uint8_t tick[24] = { 0 };
	const char *switch_fmt = format_of("sched_switch", &switch_id);
	const char *tick_fmt = format_of("hrtimer_expire_entry", &tick_id);
	int ret;

	if (!switch_fmt || !tick_fmt)
		return -1;

	last_ts = 1000000;
	for (int i = 0; i < 8; i++)
		page[i] = (uint8_t)(last_ts >> (8 * i));
	sched_switch(1000000, "aaa", 101, 0, "bbb", 202);
	record(1000500, (uint16_t)tick_id, 101, tick, sizeof(tick));
	record(1004000, (uint16_t)tick_id, 101, tick, sizeof(tick));
	sched_switch(1008000, "aaa", 101, 1, "bbb", 202);
	sched_switch(1009000, "bbb", 202, 1, "swapper/0", 0);
	for (int i = 0; i < 8; i++)
		page[8 + i] = (uint8_t)((uint64_t)(used - 16) >> (8 * i));
	if ((ret = tracedat_writer_create(path, &wo, &w, &err)))
		return ret;
	if ((ret = tracedat_writer_headers(w, header_page, sizeof(header_page) - 1, "h", 1, &err)) ||
	    (ret = tracedat_writer_add_event_format(w, "sched", switch_fmt, strlen(switch_fmt), &err)) ||
	    (ret = tracedat_writer_add_event_format(w, "timer", tick_fmt, strlen(tick_fmt), &err)) ||
	    (ret = tracedat_writer_cmdlines(w, "101 aaa\n202 bbb\n", 16, &err)) ||
	    (ret = tracedat_writer_set_cpus(w, 1, &err)) ||
	    (ret = tracedat_writer_add_buffer(w, "", "local", 0, false, &err)) < 0 ||
	    (ret = tracedat_writer_cpu_begin(w, 0, 0, &err)) ||
	    (ret = tracedat_writer_cpu_write(w, page, sizeof(page), &err)) ||
	    (ret = tracedat_writer_cpu_end(w, &err))) {
		tracedat_writer_abort(w);
		return ret;
	}
	return tracedat_writer_close(w, &err);
}

struct seen {
	uint64_t a_running_ns;
	unsigned a_slices;
};

static int on_state(void *ctx, const struct kt_model_state *st, struct ktrace_error *err)
{
	struct seen *s = ctx;

	(void)err;
	if (st->tid == 101 && st->dur >= 0 && !strcmp(st->state, "Running")) {
		s->a_running_ns += (uint64_t)st->dur;
		s->a_slices++;
	}
	return 0;
}

static void interrupt_over_switched_out_thread(void)
{
	char path[] = "/tmp/ktrace-model-tail-XXXXXX";
	int fd = mkstemp(path);
	const char *paths[1] = { path };
	struct seen seen = { 0 };
	const struct kt_model_ops ops = { .ctx = &seen, .state = on_state };
	struct ktrace_error err = { 0 };
	struct ktrace_stream *s = NULL;
	const struct ktrace_stream_record *r;
	struct kt_model *m = NULL;
	int ret;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	CHECK_EQ(write_trace(path), 0);
	CHECK_EQ(ktrace_stream_open(&s, paths, 1, NULL, &err, NULL), 0);
	CHECK_EQ(kt_model_open(&m, paths, 1, NULL, &ops, &err, NULL), 0);
	while (s && m && (ret = ktrace_stream_next(s, &r, &err)) == 1)
		CHECK_EQ(kt_model_record(m, s, r, &err), 0);
	if (m)
		CHECK_EQ(kt_model_finish(m, &err), 0);
	CHECK_EQ(seen.a_running_ns, 7500);
	CHECK_EQ(seen.a_slices, 1);
	kt_model_free(m);
	ktrace_stream_close(s);
	unlink(path);
}

int main(void)
{
	PLAN(1);
	RUN(interrupt_over_switched_out_thread);
	return 0;
}
