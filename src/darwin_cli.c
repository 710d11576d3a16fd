// SPDX-License-Identifier: MIT
/* Options shared by `ktrace report` and `ktrace info` for Darwin kdebug data. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "darwin_cli.h"

int darwin_cli_option(struct darwin_cli *d, const char *command, int c, const char *arg)
{
	struct ktrace_error err = { 0 };
	unsigned long long v, w;
	char *end;

	switch (c) {
	case DARWIN_OPT_CSV:
		d->view.csv = true;
		return CLI_OK;
	case DARWIN_OPT_DURATIONS:
		d->view.durations = true;
		return CLI_OK;
	case DARWIN_OPT_RAW_V0:
		d->raw_v0 = true;
		d->kdebug.raw_v0 = true;
		return CLI_OK;
	case DARWIN_OPT_PID:
		errno = 0;
		v = strtoull(arg, &end, 0);
		if (errno || end == arg || *end || v > INT32_MAX)
			return cli_usage_error(command, "invalid pid '%s'", arg);
		if (cli_grow((void **)&d->pids, d->view.npids, sizeof(*d->pids)))
			return cli_oom(command);
		d->pids[d->view.npids++] = (int32_t)v;
		d->view.pids = d->pids;
		return CLI_OK;
	case DARWIN_OPT_PROCESS:
		if (cli_grow((void **)&d->procs, d->view.nprocs, sizeof(*d->procs)))
			return cli_oom(command);
		d->procs[d->view.nprocs++] = arg;
		d->view.procs = d->procs;
		return CLI_OK;
	case DARWIN_OPT_TIMEBASE:
		errno = 0;
		v = strtoull(arg, &end, 0);
		if (errno || end == arg || *end != '/' || !v || v > UINT32_MAX)
			return cli_usage_error(command, "--timebase wants NUMER/DENOM, e.g. 125/3");
		arg = end + 1;
		w = strtoull(arg, &end, 0);
		if (errno || end == arg || *end || !w || w > UINT32_MAX)
			return cli_usage_error(command, "--timebase wants NUMER/DENOM, e.g. 125/3");
		d->kdebug.timebase_numer = (uint32_t)v;
		d->kdebug.timebase_denom = (uint32_t)w;
		return CLI_OK;
	case 'C':
	case DARWIN_OPT_CODES:
		if (!d->codes && !(d->codes = ktrace_darwin_codes_new()))
			return cli_oom(command);
		if (ktrace_darwin_codes_load_file(d->codes, arg, &err) < 0) {
			cli_error(NULL, &err);
			return CLI_FAILED;
		}
		d->view.codes = d->codes;
		return CLI_OK;
	case 'f':
	case DARWIN_OPT_FILTER:
		if (!d->filter && !(d->filter = ktrace_darwin_filter_new()))
			return cli_oom(command);
		if (ktrace_darwin_filter_parse(d->filter, arg, &err) < 0)
			return cli_usage_error(command, "%s", err.message);
		d->view.filter = d->filter;
		return CLI_OK;
	}
	return cli_usage_error(command, "invalid option");
}

void darwin_cli_ready(struct darwin_cli *d)
{
	d->view.sz = sizeof(d->view);
	d->kdebug.sz = sizeof(d->kdebug);
	d->view.kdebug = &d->kdebug;
}

void darwin_cli_free(struct darwin_cli *d)
{
	ktrace_darwin_codes_free(d->codes);
	ktrace_darwin_filter_free(d->filter);
	free(d->pids);
	free(d->procs);
}
