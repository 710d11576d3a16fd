// SPDX-License-Identifier: MIT
/*
 * The threaded Perfetto export (ktrace_view_perfetto with threads and open_stream) when
 * a thread cannot open its stream: the export goes on without it (blocks go to the
 * threads that get to them first) and the trace is the one a single thread writes, byte
 * for byte. The bundled demo trace (tests/export/perfetto.sh compares threaded exports
 * of traces big enough for every thread to make blocks).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ktrace/stream.h>
#include <ktrace/view.h>

#include "testlib.h"

static const char *const demo[] = { "examples/sched_demo.dat" };

struct opener {
	int calls, fail_call;   /* the call that fails (1 the first), 0 none */
};

static int open_again(void *ctx, struct ktrace_stream **s)
{
	struct opener *o = ctx;
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct ktrace_error err = { 0 };

	if (++o->calls == o->fail_call)
		return -EIO;
	return ktrace_stream_open(s, demo, 1, &so, &err, NULL);
}

/* The export with threads (opener may be NULL: one thread) into a memory file; its
 * bytes (malloc'd) and length, or NULL. */
static uint8_t *export(unsigned threads, struct opener *op, size_t *len)
{
	KTRACE_OPTS(ktrace_stream_opts, so);
	KTRACE_OPTS(ktrace_view_export_opts, o);
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	struct ktrace_out *out;
	int fd = memfd_create("export-threads", MFD_CLOEXEC), ret;
	uint8_t *buf = NULL;
	off_t n;

	if (fd < 0 || ktrace_stream_open(&s, demo, 1, &so, &err, NULL))
		goto done;
	o.threads = threads;
	o.open_stream = op ? open_again : NULL;
	o.open_ctx = op;
	out = ktrace_out_new(fd);
	if (!out)
		goto done;
	ret = ktrace_view_perfetto(s, &o, out, &err);
	if (!ret)
		ret = ktrace_out_flush(out);
	ktrace_out_free(out);
	if (ret) {
		fprintf(stderr, "# export: %s\n", err.message);
		goto done;
	}
	n = lseek(fd, 0, SEEK_END);
	buf = n > 0 ? malloc((size_t)n) : NULL;
	if (buf && pread(fd, buf, (size_t)n, 0) != n) {
		free(buf);
		buf = NULL;
	}
	*len = buf ? (size_t)n : 0;
done:
	if (s)
		ktrace_stream_close(s);
	if (fd >= 0)
		close(fd);
	return buf;
}

static void same_as_one_thread(unsigned threads, int fail_call)
{
	size_t n1 = 0, n = 0;
	struct opener op = { 0, fail_call };
	uint8_t *one = export(1, NULL, &n1), *many = export(threads, &op, &n);

	CHECK(one && many);
	CHECK_EQ(op.calls, (int)threads - 1);     /* every other thread tried its stream */
	CHECK(n == n1 && one && many && !memcmp(one, many, n));
	free(one);
	free(many);
}

static void all_threads_start(void) { same_as_one_thread(3, 0); }
static void one_thread_cannot_open(void) { same_as_one_thread(3, 1); }
static void no_other_thread_opens(void) { same_as_one_thread(2, 1); }

int main(void)
{
	PLAN(3);
	RUN(all_threads_start);
	RUN(one_thread_cannot_open);
	RUN(no_other_thread_opens);
	return TEST_EXIT();
}
