// SPDX-License-Identifier: MIT
/* Reading a mapped input's file with read calls instead of through its mapping. */
#ifndef KTRACE_COMMON_INPUT_FILE_H
#define KTRACE_COMMON_INPUT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>

struct ktrace_input;

/* Reads len bytes at offset of a file input (ktrace_input_open of a regular file) into
 * buf. Copying a file's pages into a buffer that is used again touches fewer new pages
 * than walking its mapping: a first touch costs a fault (in a virtual machine, often
 * one in the hypervisor as well). 0, -ENOTSUP for inputs without a file (memory,
 * streams), -ENODATA when the file is shorter, or -errno. */
int kt_input_pread(const struct ktrace_input *in, void *buf, size_t len, uint64_t offset);

/* The name messages give the input from now on (an input read through another path,
 * a copy of standard input: the name the user gave). 0 or -ENOMEM. */
int kt_input_rename(struct ktrace_input *in, const char *name);
/*
 * Streams are copied to a file for readers that seek or open the input again (a
 * pipe's bytes can be read once): at most KTRACE_SPOOL_MAX bytes (environment: a
 * number of bytes, or with K, M, G or T for powers of 1024; 0 for no limit; default
 * 4 GiB), so that an endless source cannot fill $TMPDIR. kt_spool_limit gives the
 * limit (UINT64_MAX: none), or -EINVAL with a message for a value that is no size.
 */
int kt_spool_limit(uint64_t *limit, struct ktrace_error *err);
/* Copies what is left of the stream input in (not read past its first window) to an
 * anonymous temporary file ($TMPDIR, else /tmp), bounded as above: the file's
 * descriptor (its offset at the end), or a negative errno with err set (-EFBIG when
 * the limit is reached). The input is at its end afterwards. */
int kt_input_spool_fd(struct ktrace_input *in, struct ktrace_error *err);

#endif
