// SPDX-License-Identifier: MIT
/* The event stream's options several subcommands take (cli.h, struct cli_stream_args). */
#include <stdlib.h>

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
		a->negative = true;
		return CLI_STREAM_ARG_TAKEN;
	case CLI_OPT_CPU:
		ret = cli_parse_cpu_list(command, arg, &a->cpus, &a->ncpus);
		return ret ? ret : CLI_STREAM_ARG_TAKEN;
	case CLI_OPT_EVENTS_DIR:
		a->events_dir = arg;
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
	so->warn = cli_warn;
}

void cli_stream_args_free(struct cli_stream_args *a)
{
	free(a->filters);
	free(a->cpus);
}
