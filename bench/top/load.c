// SPDX-License-Identifier: MIT
/*
 * Load for bench/top: pairs of processes pinned to one CPU each pass a byte back and
 * forth through pipes at a set rate (each round: two context switches, two wakeups,
 * two writes and two reads), in bursts every millisecond, for the given seconds.
 * Prints the rounds made.
 *
 * usage: load SECONDS ROUNDS_PER_SECOND
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

int main(int argc, char **argv)
{
	double secs, rate, end, t0;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), pairs = ncpu > 2 ? 2 : ncpu;
	long total = 0;

	if (argc != 3)
		return 2;
	secs = atof(argv[1]);
	rate = atof(argv[2]) / pairs;
	for (int p = 0; p < pairs; p++) {
		int ab[2], ba[2];
		pid_t a;

		if (pipe(ab) || pipe(ba))
			return 1;
		a = fork();
		if (a == 0) {
			char c = 0;

			pin(p);
			if (fork() == 0) {
				/* the echo side (its copies of the other ends closed: EOF ends it) */
				close(ab[1]);
				close(ba[0]);
				while (read(ab[0], &c, 1) == 1)
					if (write(ba[1], &c, 1) != 1)
						break;
				_exit(0);
			}
			close(ab[0]);
			close(ba[1]);
			t0 = now();
			end = t0 + secs;
			long rounds = 0;
			for (;;) {
				double t = now();

				if (t >= end)
					break;
				/* as many rounds as the rate allows by now, then a millisecond's sleep */
				while (rounds < (long)((t - t0) * rate)) {
					if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
						_exit(1);
					rounds++;
				}
				struct timespec ms = { 0, 1000000 };
				nanosleep(&ms, NULL);
			}
			close(ab[1]);
			wait(NULL);
			printf("%ld\n", rounds);
			_exit(0);
		}
		close(ab[0]);
		close(ab[1]);
		close(ba[0]);
		close(ba[1]);
	}
	while (wait(NULL) > 0)
		total++;
	(void)total;
	return 0;
}
