// SPDX-License-Identifier: MIT
/* The event stream's options several subcommands take (cli.h, struct cli_stream_args). */
#include <stdlib.h>
#include <string.h>

#include <ktrace/stream.h>

#include "cli.h"

int cli_stream_arg(const char *command, int opt, const char *arg, struct cli_stream_args *a)
{
	int ret;

	switch (opt) {
	case 'F':
		if (cli_grow((void **)&a->filters, a->nfilters, sizeof(*a->filters)))
			return cli_oom(command);
		a->filters[a->nfilters].text = arg;
		a->filters[a->nfilters++].negative = a->negative;
		return CLI_STREAM_ARG_TAKEN;
	case 'v':
		if (a->negative)
			return cli_usage_error(command, "only 1 -v can be used");
		a->negative = true;
		return CLI_STREAM_ARG_TAKEN;
	case CLI_OPT_CPU:
		ret = cli_parse_cpu_list(command, arg, &a->cpus, &a->ncpus);
		return ret ? ret : CLI_STREAM_ARG_TAKEN;
	case CLI_OPT_EVENTS_DIR:
		a->events_dir = arg;
		return CLI_STREAM_ARG_TAKEN;
	case CLI_OPT_PID:
	case CLI_OPT_COMM:
		if (cli_add_tasks(arg, opt == CLI_OPT_COMM, &a->owned, &a->nowned, &a->tasks, &a->ntasks))
			return cli_oom(command);
		return CLI_STREAM_ARG_TAKEN;
	default:
		return CLI_STREAM_ARG_NOT_MINE;
	}
}

void cli_stream_args_apply(const struct cli_stream_args *a, struct ktrace_stream_opts *so)
{
	so->filters = a->filters;
	so->nfilters = a->nfilters;
	so->cpus = a->cpus;
	so->ncpus = a->ncpus;
	so->events_dir = a->events_dir;
	so->tasks = a->tasks;
	so->ntasks = a->ntasks;
	so->warn = cli_warn;
}

void cli_stream_args_free(struct cli_stream_args *a)
{
	free(a->filters);
	free(a->cpus);
	free(a->tasks);
	for (size_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a->owned);
}

int cli_add_tasks(const char *arg, bool comm, char ***owned, size_t *nowned,
		  struct ktrace_stream_task **tasks, size_t *ntasks)
{
	char *copy = strdup(arg), *save = NULL;

	if (!copy || cli_grow((void **)owned, *nowned, sizeof(char *))) {
		free(copy);
		return -1;
	}
	(*owned)[(*nowned)++] = copy;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (cli_grow((void **)tasks, *ntasks, sizeof(**tasks)))
			return -1;
		(*tasks)[*ntasks].name = tok;
		(*tasks)[(*ntasks)++].comm = comm;
	}
	return 0;
}
