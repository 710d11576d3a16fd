// SPDX-License-Identifier: MIT
/* Live tracing files refused as inputs (see livefile.h). */
#include "common/livefile.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#define TRACEFS_MAGIC_NUMBER 0x74726163ul
#define DEBUGFS_MAGIC_NUMBER 0x64626720ul

int kt_refuse_live_tracefs(int fd, const char *path, struct ktrace_error *err)
{
	static const char *const pipes[] = { "trace_pipe_raw", "trace_pipe", "snapshot_raw" };
	char link[64], real[PATH_MAX], inst[80] = "";
	const char *base, *in;
	struct statfs sf;
	unsigned long type;
	bool pipe = false;
	ssize_t n;

	if (path ? statfs(path, &sf) < 0 : fstatfs(fd, &sf) < 0)
		return 0;
	type = (unsigned long)sf.f_type & 0xffffffffu;
	if (type != TRACEFS_MAGIC_NUMBER && type != DEBUGFS_MAGIC_NUMBER)
		return 0;
	/* the file's own path (symbolic links resolved), for debugfs and the message */
	if (path) {
		if (!realpath(path, real))
			real[0] = 0;
	} else {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, real, sizeof(real) - 1);
		real[n > 0 ? n : 0] = 0;
	}
	if (type == DEBUGFS_MAGIC_NUMBER && !strstr(real, "/tracing/"))
		return 0;       /* debugfs, outside its tracing directory */
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	for (size_t i = 0; i < sizeof(pipes) / sizeof(pipes[0]); i++)
		pipe |= !strcmp(base, pipes[i]);
	in = strstr(real, "/instances/");
	if (in) {
		in += strlen("/instances/");
		snprintf(inst, sizeof(inst), " -B %.*s", (int)strcspn(in, "/"), in);
	}
	if (pipe || !*base)
		return ktrace_error_set(err, -EPERM,
					"a live tracefs ring buffer: reading it would take its events out "
					"of the kernel (and wait for more); capture them first: 'ktrace "
					"extract%s -o trace.dat' (it empties the buffer) or 'ktrace record'",
					inst);
	return ktrace_error_set(err, -EPERM,
				"a tracefs file (the kernel's live tracing state), not a trace; capture "
				"a trace first: 'ktrace extract%s -o trace.dat' or 'ktrace record'", inst);
}
