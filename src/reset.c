// SPDX-License-Identifier: MIT
/* ktrace reset: name and remove the tracefs instances killed recordings left behind. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/tracefs.h>

#include "cli.h"

static const char reset_help[] =
"NAME\n"
"    ktrace reset - remove the tracefs instances killed recordings left behind\n"
"\n"
"SYNOPSIS\n"
"    ktrace reset [-a | -B INSTANCE...] [-q]\n"
"\n"
"DESCRIPTION\n"
"    'ktrace record' creates a tracefs instance for its recording and removes it when\n"
"    it ends, on an error or on any catchable signal. A recording killed with SIGKILL\n"
"    cannot: its instance stays, with its events enabled. Every instance record\n"
"    creates is noted in a registry (/run/ktrace/instances, or the directory\n"
"    $KTRACE_INSTANCE_REGISTRY names) until it is removed; an instance noted there\n"
"    whose recorder is gone is a leftover. The next 'ktrace record' names the\n"
"    leftovers; 'ktrace reset' lists them, 'ktrace reset -a' removes them (tracing\n"
"    and events off, then the instance directory).\n"
"\n"
"    Only leftovers of ktrace recordings are touched: the top buffer, instances of a\n"
"    running recording and instances other tools made are left as they are.\n"
"\n"
"OPTIONS\n"
"    -a, --all\n"
"        Remove every leftover instance.\n"
"    -B, --instance NAME\n"
"        Remove this leftover instance (repeatable); a name that is not a leftover\n"
"        is an error.\n"
"    -q, --quiet\n"
"        Print only errors.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace reset\n"
"    ktrace reset -a\n"
"    ktrace reset -B ktrace-1234\n"
"\n"
"EXIT STATUS\n"
"    0 on success (also when there is no leftover), 1 when tracefs cannot be found,\n"
"    a name given with -B is not a leftover or an instance cannot be removed, 2 for\n"
"    usage errors.\n";

static const struct option reset_options[] = {
	{ "all",      no_argument,       NULL, 'a' },
	{ "instance", required_argument, NULL, 'B' },
	{ "quiet",    no_argument,       NULL, 'q' },
	{ "help",     no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct ktrace_tracefs_leftover *find_leftover(const struct ktrace_tracefs_leftover *v,
							    size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static int remove_one(const char *dir, const struct ktrace_tracefs_leftover *l, bool quiet)
{
	struct ktrace_error err = { 0 };

	if (ktrace_tracefs_remove_leftover(dir, l->name, &err) < 0) {
		cli_error(NULL, &err);
		return -1;
	}
	if (!quiet)
		printf("removed instance '%s' (left by recorder pid %d)\n", l->name, l->pid);
	return 0;
}

static int run_reset(int argc, char **argv)
{
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_leftover *v = NULL;
	const char **names = NULL;
	size_t nnames = 0, n = 0;
	bool all = false, quiet = false, mounted = false;
	char *dir = NULL;
	int c, status = CLI_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "aB:qh", reset_options, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'B':
			if (cli_grow((void **)&names, nnames, sizeof(*names))) {
				free(names);
				return CLI_FAILED;
			}
			names[nnames++] = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			free(names);
			cli_print_help(&cli_reset);
			return CLI_OK;
		default:
			free(names);
			return cli_bad_option("reset", "aB:qh", argv);
		}
	}
	if (optind < argc) {
		free(names);
		return cli_usage_error("reset", "unexpected argument '%s'", argv[optind]);
	}
	if (all && nnames) {
		free(names);
		return cli_usage_error("reset", "-a removes every leftover: no -B with it");
	}
	if (ktrace_tracefs_find(false, &dir, &mounted, &err) < 0 ||
	    ktrace_tracefs_leftovers(dir, &v, &n, &err) < 0) {
		cli_error(NULL, &err);
		goto out;
	}
	status = CLI_OK;
	if (all) {
		for (size_t i = 0; i < n; i++)
			if (remove_one(dir, &v[i], quiet) < 0)
				status = CLI_FAILED;
		if (!n && !quiet)
			printf("no instance left behind by a killed recording\n");
	} else if (nnames) {
		for (size_t i = 0; i < nnames; i++) {
			const struct ktrace_tracefs_leftover *l = find_leftover(v, n, names[i]);

			if (!l) {
				cli_errorf(NULL, "instance '%s' is not one a killed recording left "
					   "behind: not removed", names[i]);
				status = CLI_FAILED;
			} else if (remove_one(dir, l, quiet) < 0) {
				status = CLI_FAILED;
			}
		}
	} else if (!quiet) {
		for (size_t i = 0; i < n; i++)
			printf("instance '%s' was left behind by a recording that was killed "
			       "(pid %d)\n", v[i].name, v[i].pid);
		if (n)
			printf("'ktrace reset -a' removes %s\n", n == 1 ? "it" : "them");
		else
			printf("no instance left behind by a killed recording\n");
	}
out:
	ktrace_tracefs_leftovers_free(v, n);
	free(dir);
	free(names);
	return status;
}

const struct cli_command cli_reset = {
	.name = "reset",
	.summary = "remove the tracefs instances killed recordings left behind",
	.help = reset_help,
	.run = run_reset,
};
