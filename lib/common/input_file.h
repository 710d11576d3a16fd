// SPDX-License-Identifier: MIT
/* Reading a mapped input's file with read calls instead of through its mapping. */
#ifndef KTRACE_COMMON_INPUT_FILE_H
#define KTRACE_COMMON_INPUT_FILE_H

#include <stddef.h>
#include <stdint.h>

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

#endif
