// SPDX-License-Identifier: MIT
/*
 * Fuzz harness for the event stream (<ktrace/stream.h>): any input (trace.dat, raw
 * pages, Darwin, KOFF: the format is detected) opened as a stream from a memory file,
 * every record walked with its fields (typed values, array elements) and its line and
 * text formatted. Two copies of the input in one stream also exercise the merge.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ktrace/stream.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const char *const *paths, size_t n)
{
	struct ktrace_stream *s;
	struct ktrace_error err = { 0 };
	const struct ktrace_stream_record *r;
	volatile uint64_t sink = 0;
	char line[512];
	size_t records = 0;
	const char *ep = NULL;

	/* the error's path is the caller's string: it outlives the stream (a use after
	 * free here is what the sanitizers look for) */
	if (ktrace_stream_open(&s, paths, n, NULL, &err, &ep)) {
		sink ^= ep ? strlen(ep) : 0;
		return;
	}
	for (size_t i = 0; i < ktrace_stream_source_count(s); i++)
		if (ktrace_stream_source(s, i))
			sink ^= ktrace_stream_source(s, i)->cpus;
	for (size_t i = 0; i < ktrace_stream_task_count(s); i++)
		sink ^= (uint64_t)ktrace_stream_task(s, i)->tid;
	while (ktrace_stream_next(s, &r, &err) > 0 && records++ < 100000) {
		size_t nf = ktrace_stream_field_count(s);

		sink ^= r->ts ^ (uint64_t)r->tid ^ strlen(r->comm) ^ strlen(r->name);
		for (size_t i = 0; i < nf && i < 64; i++) {
			struct ktrace_event_value v;

			if (ktrace_stream_field(s, i, &v))
				continue;
			sink ^= v.u ^ v.len;
			if (v.len)
				sink ^= ((const uint8_t *)v.data)[v.len - 1];
			for (size_t k = 0; k < v.count && k < 64; k++)
				sink ^= ktrace_event_array_at(&v, k);
		}
		if (!(records & 7)) {
			ktrace_stream_format(s, line, sizeof(line));
			ktrace_stream_format_text(s, line, sizeof(line));
		}
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
	int fd = memfd_create("fuzz_stream", 0);

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	paths[0] = paths[1] = path;
	walk(paths, 1);
	if (size < 65536)
		walk(paths, 2);
	close(fd);
	return 0;
}
