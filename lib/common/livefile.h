/* SPDX-License-Identifier: MIT */
/*
 * Live tracing files are never read as traces. A file of tracefs (or of debugfs's
 * tracing directory on kernels that have no tracefs) is the kernel's tracing state, not
 * a trace file: per_cpu/cpuN/trace_pipe_raw and trace_pipe hand out what they show (a
 * read takes the events out of the ring buffer, and waits for new ones when it is
 * empty), and snapshot_raw needs a snapshot taken, which swaps the live buffer out.
 * A command that only looks must not consume them, so every reader refuses them, with
 * how to capture first (`ktrace extract`, `ktrace record`). The file system decides
 * (statfs magic), not the name: a symbolic link or a bind mount is refused too.
 */
#ifndef KTRACE_COMMON_LIVEFILE_H
#define KTRACE_COMMON_LIVEFILE_H

#include <ktrace/error.h>

/* 0 when path (when not NULL; else the open file fd) is not a file of tracefs (or of
 * debugfs's tracing directory); otherwise -EPERM with the reason and what to do
 * instead in err. Nothing is opened or read. */
int kt_refuse_live_tracefs(int fd, const char *path, struct ktrace_error *err);

#endif
