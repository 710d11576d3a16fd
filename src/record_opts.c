// SPDX-License-Identifier: MIT
/* The options ktrace record, stream and start share (trace-cmd record's), parsed into
 * the tracefs session options. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record_cli.h"

enum { OPT_VERSION = 256, OPT_COMPRESSION, OPT_TGIDS, OPT_TRACE_SELF };

static const struct option record_options[] = {
	{ "event",        required_argument, NULL, 'e' },
	{ "filter",       required_argument, NULL, 'f' },
	{ "instance",     required_argument, NULL, 'B' },
	{ "buffer-size",  required_argument, NULL, 'b' },
	{ "clock",        required_argument, NULL, 'C' },
	{ "output",       required_argument, NULL, 'o' },
	{ "file-version", required_argument, NULL, OPT_VERSION },
	{ "compression",  required_argument, NULL, OPT_COMPRESSION },
	{ "pid",          required_argument, NULL, 'P' },
	{ "no-tgids",     no_argument,       NULL, OPT_TGIDS },
	{ "trace-self",   no_argument,       NULL, OPT_TRACE_SELF },
	{ "stacktrace",   no_argument,       NULL, 'T' },
	{ "sleep",        required_argument, NULL, 's' },
	{ "cpumask",      required_argument, NULL, 'M' },
	{ "max-kb",       required_argument, NULL, 'm' },
	{ "tracer",       required_argument, NULL, 'p' },
	{ "option",       required_argument, NULL, 'O' },
	{ "quiet",        no_argument,       NULL, 'q' },
	{ "help",         no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void record_args_free(struct record_args *a)
{
	free(a->events);
	free(a->filters);
	free(a->disable);
	free(a->options);
	free(a->pids);
	memset(a, 0, sizeof(*a));
}

static int bad(const char *cmd, struct record_args *a, const char *what, const char *arg)
{
	record_args_free(a);
	return cli_usage_error(cmd, "invalid %s '%s'", what, arg);
}

static bool parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long long v;

	if (cli_parse_size(s, &v) || v > max)
		return false;
	*out = (unsigned long)v;
	return true;
}

int record_args_parse(const char *cmd, unsigned allow, int argc, char **argv, struct record_args *a)
{
	struct ktrace_tracefs_record_opts *o = &a->o;
	bool negate = false;
	int c;

	memset(a, 0, sizeof(*a));
	o->sz = sizeof(*o);
	a->output = "trace.dat";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:f:vB:b:C:o:P:FcTs:M:m:p:O:qh", record_options, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (cli_grow((void **)&a->events, a->nevents, sizeof(*a->events)) ||
			    cli_grow((void **)&a->filters, a->nevents, sizeof(*a->filters)) ||
			    cli_grow((void **)&a->disable, a->nevents, sizeof(*a->disable))) {
				record_args_free(a);
				return CLI_FAILED;
			}
			a->events[a->nevents] = optarg;
			a->filters[a->nevents] = NULL;
			a->disable[a->nevents] = negate;
			a->nevents++;
			break;
		case 'f':
			/* trace-cmd: a filter goes with the -e before it */
			if (!a->nevents) {
				record_args_free(a);
				return cli_usage_error(cmd, "-f needs an -e before it (the events it filters)");
			}
			if (a->disable[a->nevents - 1]) {
				record_args_free(a);
				return cli_usage_error(cmd, "-f on events that -v leaves out");
			}
			a->filters[a->nevents - 1] = optarg;
			a->has_filters = true;
			break;
		case 'v':
			negate = true;
			break;
		case 'B':
			o->instance = optarg;
			break;
		case 'b': {
			unsigned long kb;

			if (!parse_ulong(optarg, 1ul << 30, &kb) || !kb)
				return bad(cmd, a, "buffer size (KiB)", optarg);
			o->buffer_kb = kb;
			break;
		}
		case 'C':
			o->clock = optarg;
			break;
		case 'o':
			if (!(allow & RA_OUTPUT))
				goto invalid;
			a->output = optarg;
			break;
		case OPT_VERSION:
			if (!(allow & RA_OUTPUT))
				goto invalid;
			a->version = optarg;
			break;
		case OPT_COMPRESSION:
			if (!(allow & RA_OUTPUT))
				goto invalid;
			a->compression = optarg;
			break;
		case 'P': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v <= 0 || v > INT_MAX)
				return bad(cmd, a, "pid", optarg);
			if (cli_grow((void **)&a->pids, a->npids, sizeof(*a->pids))) {
				record_args_free(a);
				return CLI_FAILED;
			}
			a->pids[a->npids++] = (pid_t)v;
			break;
		}
		case 'F':
			if (!(allow & RA_COMMAND))
				goto invalid;
			a->filter_command = true;
			break;
		case OPT_TGIDS:
			o->no_tgids = true;
			break;
		case OPT_TRACE_SELF:
			if (!(allow & RA_SELF))
				goto invalid;
			o->trace_self = true;
			break;
		case 'c':
			a->follow = true;
			break;
		case 'T':
			o->stacktrace = true;
			break;
		case 's': {
			unsigned long us;

			if (!parse_ulong(optarg, 60000000ul, &us) || !us)
				return bad(cmd, a, "sleep time (microseconds)", optarg);
			o->sleep_us = us;
			break;
		}
		case 'M': {
			const char *p = optarg;

			for (; *p; p++)
				if (!strchr("0123456789abcdefABCDEF,", *p))
					return bad(cmd, a, "CPU mask (hexadecimal)", optarg);
			if (!*optarg)
				return bad(cmd, a, "CPU mask (hexadecimal)", optarg);
			o->cpumask = optarg;
			break;
		}
		case 'm': {
			unsigned long kb;

			if (!(allow & RA_OUTPUT))
				goto invalid;
			if (!parse_ulong(optarg, 1ul << 30, &kb) || kb < 8)
				return bad(cmd, a, "size cap (KiB, at least 8)", optarg);
			o->max_kb = kb;
			break;
		}
		case 'p':
			o->tracer = optarg;
			break;
		case 'O':
			if (cli_grow((void **)&a->options, a->noptions, sizeof(*a->options))) {
				record_args_free(a);
				return CLI_FAILED;
			}
			a->options[a->noptions++] = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			record_args_free(a);
			return -1;
		default:
		invalid:
			record_args_free(a);
			return cli_usage_error(cmd, "invalid option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		if (!(allow & RA_COMMAND)) {
			const char *arg = argv[optind];

			record_args_free(a);
			return cli_usage_error(cmd, "unexpected argument '%s'", arg);
		}
		a->command = argv + optind;
	}
	if (!a->nevents && !o->tracer) {
		record_args_free(a);
		return cli_usage_error(cmd, "no events: say which with -e (e.g. -e sched; "
				       "'ktrace list -e' lists them), or a tracer with -p");
	}
	if (a->filter_command && !a->command) {
		record_args_free(a);
		return cli_usage_error(cmd, "-F needs a command");
	}
	if (a->follow && !a->filter_command && !a->npids) {
		record_args_free(a);
		return cli_usage_error(cmd, "-c needs -F or -P");
	}
	o->events = a->events;
	o->nevents = a->nevents;
	o->filters = a->has_filters ? a->filters : NULL;
	o->disable = a->disable;
	o->options = a->options;
	o->noptions = a->noptions;
	o->pids = a->pids;
	o->npids = a->npids;
	o->follow_forks = a->follow;
	return CLI_OK;
}
