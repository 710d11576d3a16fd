/* SPDX-License-Identifier: MIT */
/*
 * Inputs that can be read only once (standard input, a FIFO) for readers that open
 * their input by name, maybe more than once (the stream's detection then its reader;
 * ktrace sql's scans): copied to an anonymous temporary file, which is then opened as
 * /proc/self/fd/N. The first bytes decide: only an input whose start is a format
 * ktrace reads is copied (not /dev/zero through a pipe), and the copy is bounded by
 * KTRACE_SPOOL_MAX (common/input_file.h).
 */
#ifndef KTRACE_ENGINE_SPOOL_H
#define KTRACE_ENGINE_SPOOL_H

#include <stdbool.h>

#include <ktrace/error.h>

/* True for "-" and a FIFO. */
bool kt_spool_needed(const char *path);
/* For such a path: 0 with *fd the copy's descriptor (the caller closes it; a regular
 * file on standard input is not copied: *fd is a descriptor of its own on it); for any
 * other path: 0 with *fd = -1 (nothing read). Else a negative errno with err set
 * ("unrecognised file format", "empty file", the limit, a full $TMPDIR...). */
int kt_spool_once(const char *path, int *fd, struct ktrace_error *err);

#endif
