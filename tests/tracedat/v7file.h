/* SPDX-License-Identifier: MIT */
/*
 * Small trace.dat files written by the tests with the library's writer, in a memfd: the
 * start (headers and one event format) and the end (closed, or given up on error), and
 * opening them again by descriptor. Each test adds what it is about in between.
 */
#ifndef KTRACE_TESTS_TRACEDAT_V7FILE_H
#define KTRACE_TESTS_TRACEDAT_V7FILE_H

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ktrace/tracedat.h>

/* header_page of a 64-bit kernel: 4096-byte sub-buffers */
static const char v7_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

/* A version 7 writer (comp: "none", "zstd" or "zlib") into a new memfd (*fd), with the
 * headers and one event format written. 0, or -1 (nothing left open). */
static inline int v7_begin(const char *comp, const char *name, int *fd, struct tracedat_writer **w,
			   struct ktrace_error *err)
{
	KTRACE_OPTS(tracedat_write_opts, wo, .version = 7, .compression = comp, .page_size = 4096);

	*fd = memfd_create(name, MFD_CLOEXEC);
	if (*fd < 0)
		return -1;
	if (tracedat_writer_create_fd(*fd, &wo, w, err)) {
		close(*fd);
		return -1;
	}
	if (tracedat_writer_headers(*w, v7_header_page, sizeof(v7_header_page) - 1, "h", 1, err) ||
	    tracedat_writer_add_event_format(*w, "s", "fmt", 3, err)) {
		tracedat_writer_abort(*w);
		close(*fd);
		return -1;
	}
	return 0;
}

/* The file finished (ret 0) or given up (ret != 0): fd, or -1 with nothing left open. */
static inline int v7_end(struct tracedat_writer *w, int fd, int ret, struct ktrace_error *err)
{
	if (ret) {
		tracedat_writer_abort(w);
		close(fd);
		return -1;
	}
	if (tracedat_writer_close(w, err)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The file in fd opened for reading, or NULL (err). */
static inline struct tracedat *v7_open(int fd, struct ktrace_error *err)
{
	struct tracedat *td = NULL;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (tracedat_open(path, 0, &td, err))
		return NULL;
	return td;
}

#endif
