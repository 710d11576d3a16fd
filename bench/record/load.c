// SPDX-License-Identifier: MIT
/*
 * Load for bench/record: on each of the first two CPUs, two processes pinned there
 * pass a byte back and forth through pipes (context switches, wake-ups) and between
 * two passes make a burst of short system calls that allocate kernel memory (open,
 * read, close of /proc/self/stat; a 64 KiB mmap touched and unmapped). Runs for the
 * given number of seconds; prints how many rounds were made.
 *
 * usage: load SECONDS
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void burst(void)
{
	char buf[512];

	for (int i = 0; i < 8; i++) {
		int fd = open("/proc/self/stat", O_RDONLY);

		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				break;
			close(fd);
		}
	}
	{
		char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED) {
			for (int i = 0; i < 65536; i += 4096)
				p[i] = 1;
			munmap(p, 65536);
		}
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* One side of a ping-pong pair; the "first" side counts and reports. */
static void player(int cpu, int in, int out, bool first, double end, int report)
{
	unsigned long rounds = 0;
	char c = 'x';

	pin(cpu);
	if (first && write(out, &c, 1) != 1)
		_exit(1);
	while (read(in, &c, 1) == 1) {
		burst();
		rounds++;
		if (first && now() >= end) {
			c = 'q';
			if (write(out, &c, 1) < 0) { /* partner gone */ }
			break;
		}
		if (c == 'q')
			break;
		if (write(out, &c, 1) != 1)
			break;
	}
	if (first && write(report, &rounds, sizeof(rounds)) < 0)
		_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	double end = now() + secs;
	int rep[2];
	unsigned long total = 0, r;
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);

	if (pipe(rep) < 0)
		return 1;
	for (int cpu = 0; cpu < 2; cpu++) {
		int a[2], b[2];

		if (pipe(a) < 0 || pipe(b) < 0)
			return 1;
		if (fork() == 0)
			player(cpu % cpus, a[0], b[1], true, end, rep[1]);
		if (fork() == 0)
			player(cpu % cpus, b[0], a[1], false, end, rep[1]);
		close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	}
	close(rep[1]);
	while (read(rep[0], &r, sizeof(r)) == sizeof(r))
		total += r;
	while (wait(NULL) > 0)
		;
	printf("%lu rounds\n", total);
	return 0;
}
