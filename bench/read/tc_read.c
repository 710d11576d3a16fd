// SPDX-License-Identifier: MIT
/*
 * The reference reader of the benchmark: libtracecmd's tracecmd_iterate_events over
 * every record of the top buffer, counting events per CPU with their first and last
 * timestamps, the work `ktrace info --json` does. Prints one line per CPU.
 */
#include <stdio.h>
#include <stdlib.h>

#include <trace-cmd.h>

#define MAX_CPUS 4096

struct stats {
	unsigned long long events[MAX_CPUS], first[MAX_CPUS], last[MAX_CPUS];
};

static int count(struct tracecmd_input *handle, struct tep_record *record, int cpu, void *data)
{
	struct stats *s = data;
	int c = record->cpu;

	(void)handle;
	(void)cpu;
	if (c < 0 || c >= MAX_CPUS)
		return 0;
	if (!s->events[c]++)
		s->first[c] = record->ts;
	s->last[c] = record->ts;
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *handle;
	struct stats *s = calloc(1, sizeof(*s));
	unsigned long long total = 0;

	if (argc != 2 || !s) {
		fprintf(stderr, "usage: tc_read FILE\n");
		return 2;
	}
	handle = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle) {
		fprintf(stderr, "tc_read: cannot open %s\n", argv[1]);
		return 1;
	}
	if (tracecmd_iterate_events(handle, NULL, 0, count, s) < 0) {
		fprintf(stderr, "tc_read: iteration failed\n");
		return 1;
	}
	for (int c = 0; c < MAX_CPUS; c++)
		if (s->events[c]) {
			printf("cpu %d events %llu first %llu last %llu\n", c, s->events[c], s->first[c],
			       s->last[c]);
			total += s->events[c];
		}
	printf("total %llu\n", total);
	tracecmd_close(handle);
	free(s);
	return 0;
}
