/* SPDX-License-Identifier: MIT */
/* The CPUs this process may run on, for choosing how many threads to start. */
#ifndef KTRACE_COMMON_CPUS_H
#define KTRACE_COMMON_CPUS_H

#include <sched.h>
#include <unistd.h>

/* Its affinity mask's CPUs (which taskset and cgroups narrow), not all the machine's. */
static inline long kt_usable_cpus(void)
{
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set))
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

#endif
