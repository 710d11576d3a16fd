/* SPDX-License-Identifier: MIT */
/* The CPUs this process may run on, for choosing how many threads to start. */
#ifndef KTRACE_COMMON_CPUS_H
#define KTRACE_COMMON_CPUS_H

#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Its affinity mask's CPUs (which taskset and cgroups narrow), not all the machine's. */
static inline long kt_usable_cpus(void)
{
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set))
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* The bytes of the inputs paths[0..n) together; UINT64_MAX when one is not a regular
 * file (standard input, a FIFO, a device) or cannot be looked at. */
static inline uint64_t kt_files_bytes(const char *const *paths, size_t n)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (!strcmp(paths[i], "-") || stat(paths[i], &st) || !S_ISREG(st.st_mode))
			return UINT64_MAX;
		bytes += (uint64_t)st.st_size;
	}
	return bytes;
}

/*
 * Threads for a sink whose threads each open the inputs again (the Perfetto export, the
 * timeline's lines), for inputs of bytes (kt_files_bytes): 1 when an input is not a
 * regular file ("-", a FIFO...: UINT64_MAX); else want
 * when asked (> 0); else one per usable CPU, at most cap, for inputs of 16 MiB or more
 * together (a smaller trace is done before another thread has opened them).
 */
static inline unsigned kt_bytes_threads(uint64_t bytes, unsigned want, unsigned cap)
{
	long cpus;

	if (bytes == UINT64_MAX)
		return 1;
	if (want)
		return want;
	cpus = kt_usable_cpus();
	if (cpus < 2 || bytes < (16u << 20))
		return 1;
	return cpus > (long)cap ? cap : (unsigned)cpus;
}

/* kt_bytes_threads of the inputs paths[0..n) (kt_files_bytes). */
static inline unsigned kt_file_threads(const char *const *paths, size_t n, unsigned want, unsigned cap)
{
	return kt_bytes_threads(kt_files_bytes(paths, n), want, cap);
}

#endif
