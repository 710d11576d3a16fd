// SPDX-License-Identifier: MIT
/*
 * Fuzz harness for the exports (<ktrace/view.h>: ktrace_view_perfetto, with generic
 * events described and in the legacy form, ktrace_view_chrome_json) and the summary
 * (ktrace_view_summary, text and JSON), all on the model of the stream: any input the
 * event stream reads (the format is detected), from a memory file, exported to
 * /dev/null, the first with the stream's read-ahead thread, the last Perfetto one with two
 * threads (each passes over the other's blocks: kt_stream_skip). Two copies of the input
 * in one stream also exercise merged sources (the same threads and event types met twice).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ktrace/stream.h>
#include <ktrace/view.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Another thread's stream of the same file (the threaded Perfetto export). */
static int open_again(void *ctx, struct ktrace_stream **s)
{
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct ktrace_error err = { 0 };

	return ktrace_stream_open(s, (const char *const *)ctx, 1, &so, &err, NULL);
}

static void export(const char *const *paths, size_t n, int out_fd, int how)
{
	KTRACE_OPTS(ktrace_view_export_opts, o);
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct ktrace_stream *s;
	struct ktrace_error err = { 0 };
	struct ktrace_out *out;
	const char *ep = NULL;
	volatile size_t sink = 0;

	so.flags = how == 0 ? KTRACE_STREAM_READAHEAD : 0;
	if (how == 3) {
		/* two threads, each passing over the other's blocks */
		o.threads = 2;
		o.open_stream = open_again;
		o.open_ctx = (void *)paths;
	}
	/* the error's path outlives the stream (the sanitizers check it is read safely) */
	if (ktrace_stream_open(&s, paths, n, &so, &err, &ep)) {
		sink ^= ep ? strlen(ep) : 0;
		return;
	}
	out = ktrace_out_new(out_fd);
	if (out) {
		if (how == 2) {
			ktrace_view_chrome_json(s, &o, out, &err);
		} else if (how >= 4) {
			KTRACE_OPTS(ktrace_view_summary_opts, so2);

			so2.json = how == 5;
			so2.top = 3;
			ktrace_view_summary(s, &so2, out, &err);
		} else {
			o.flags = how ? KTRACE_VIEW_EXPORT_LEGACY_GENERIC : 0;
			ktrace_view_perfetto(s, &o, out, &err);
		}
		ktrace_out_flush(out);
		ktrace_out_free(out);
	}
	ep = ktrace_stream_error_path(s);
	ktrace_stream_close(s);
	sink ^= ep ? strlen(ep) : 0;
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	const char *paths[2];
	int fd = memfd_create("fuzz_export", 0), null = open("/dev/null", O_WRONLY);

	if (fd < 0 || null < 0)
		goto out;
	if (size && write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	paths[0] = paths[1] = path;
	for (int how = 0; how < 6; how++)
		export(paths, 1, null, how);
	if (size < 65536)
		export(paths, 2, null, 0);
out:
	if (fd >= 0)
		close(fd);
	if (null >= 0)
		close(null);
	return 0;
}
