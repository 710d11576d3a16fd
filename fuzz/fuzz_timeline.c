// SPDX-License-Identifier: MIT
/*
 * Fuzz harness for `ktrace timeline` (<ktrace/view.h>: ktrace_view_timeline): any input
 * the event stream reads (the format is detected), from a memory file, drawn to
 * /dev/null as the HTML page by one thread and by three (each line thread reads the
 * input again and passes over the others' chunks; LZ4 chunks), and as the SVG
 * picture; small inputs also as two copies merged in one stream (labels, repeated
 * times). The three-thread page goes to an empty memory file: the layout that puts the
 * lines in first and the head in front at the end (copied up: no block insertion
 * there).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ktrace/stream.h>
#include <ktrace/view.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void draw(const char *const *paths, size_t n, int out_fd, bool svg, unsigned threads)
{
	KTRACE_OPTS(ktrace_view_timeline_opts, o);
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct ktrace_error err = { 0 };
	struct ktrace_out *out = ktrace_out_new(out_fd);
	const char *ep = NULL;
	volatile size_t sink = 0;
	bool drawn;

	if (!out)
		return;
	o.paths = paths;
	o.npaths = n;
	o.stream = &so;
	o.svg = svg;
	o.threads = threads;
	/* the line chunks in LZ4 blocks with several threads (as for big inputs) */
	o.lines_codec = threads > 1 ? KTRACE_TIMELINE_LINES_LZ4 : 0;
	/* the error's path is the caller's string, read after the streams are gone */
	if (ktrace_view_timeline(&o, out, &err, &ep, &drawn) && ep)
		sink ^= strlen(ep);
	(void)sink;
	ktrace_out_flush(out);
	ktrace_out_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	const char *paths[2];
	int fd = memfd_create("fuzz_timeline", 0), null = open("/dev/null", O_WRONLY);
	int page = memfd_create("fuzz_timeline_page", 0);

	if (fd < 0 || null < 0 || page < 0)
		goto out;
	if (size && write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	paths[0] = paths[1] = path;
	draw(paths, 1, null, false, 1);
	draw(paths, 1, page, false, 3);
	draw(paths, 1, null, true, 1);
	if (size < 65536)
		draw(paths, 2, null, false, 2);
out:
	if (fd >= 0)
		close(fd);
	if (null >= 0)
		close(null);
	if (page >= 0)
		close(page);
	return 0;
}
