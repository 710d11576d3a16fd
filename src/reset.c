// SPDX-License-Identifier: MIT
/*
 * ktrace reset: tracefs buffers back to the kernel's defaults as trace-cmd reset puts
 * them (or, with --restore, to what ktrace start found), and the instances killed
 * recordings left behind named (and removed with -a, or -B NAME -d).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/tracefs.h>

#include "cli.h"

static const char reset_help[] =
"NAME\n"
"    ktrace reset - put tracefs back to its defaults (or to what ktrace start found),\n"
"    and name or remove the instances killed recordings left behind\n"
"\n"
"SYNOPSIS\n"
"    ktrace reset [-B NAME]... [-t] [-a] [-d] [--restore] [-q]\n"
"\n"
"DESCRIPTION\n"
"    Puts the top buffer (or the instances named) back to the kernel's defaults, as\n"
"    'trace-cmd reset' does: tracing off, tracer nop, every event off, event filters\n"
"    and triggers removed, pid filters and function filters cleared, trace clock\n"
"    local, every CPU traced, max latency 0, the buffer emptied, the error log\n"
"    cleared, then tracing on again. Further than trace-cmd reset, the buffer size,\n"
"    sub-buffer size, buffer_percent and trace options are set to what a new\n"
"    instance gets (the kernel's defaults, read from an instance made for the\n"
"    purpose and removed at once). Resetting the top buffer also removes the dynamic\n"
"    events (kprobes, uprobes, synthetic events), as trace-cmd does.\n"
"\n"
"    With --restore, what 'ktrace start' saved for each buffer is written back instead\n"
"    (an instance it created is removed): tracefs is as it was before start. For the\n"
"    top buffer, what a killed recording changed is put back too (below). Either way\n"
"    the buffer's state file is then removed.\n"
"\n"
"    Leftovers of killed recordings: ktrace record and stream record the top buffer,\n"
"    or an instance they create with -B and remove when they end; what they change is\n"
"    put back on an error or on any catchable signal. SIGKILL prevents that, so it is\n"
"    written down first: each value of the top buffer that a record, stream or start\n"
"    changes goes into a journal (top.journal in $KTRACE_STATE_DIR, default\n"
"    /run/ktrace) before it changes, and each instance record creates is noted in a\n"
"    registry (/run/ktrace/instances, or the directory $KTRACE_INSTANCE_REGISTRY\n"
"    names) until it is removed. A journal or an instance whose recorder is gone is a\n"
"    leftover. 'ktrace reset' names the leftovers (on standard output): the top\n"
"    buffer is reset to the defaults, or with --restore put back as the killed\n"
"    recording found it; -a removes leftover instances with every other instance,\n"
"    -B NAME -d removes one.\n"
"\n"
"OPTIONS\n"
"    -B, --instance NAME\n"
"        This instance instead of the top buffer (repeatable).\n"
"    -t, --top\n"
"        With -B: the top buffer too.\n"
"    -a, --all\n"
"        The top buffer and every instance; the instances are removed, leftovers of\n"
"        killed recordings included (with --restore: the buffers ktrace start saved\n"
"        are restored, instances it created removed, the others left alone).\n"
"    -d, --remove\n"
"        Remove the instances named (-B) after resetting them.\n"
"    --restore\n"
"        Write back what ktrace start saved (and, for the top buffer, what a killed\n"
"        recording changed).\n"
"    -q, --quiet\n"
"        Print only errors (no list of leftovers).\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace reset\n"
"    ktrace reset -a\n"
"    ktrace reset -B ktrace-1234 -d\n"
"    ktrace start -e sched; ...; ktrace stop; ktrace extract; ktrace reset --restore\n"
"\n"
"EXIT STATUS\n"
"    0 on success (whether or not leftovers are listed), 1 when a value could not be\n"
"    written (the others are still reset), an instance cannot be removed or there is\n"
"    nothing to restore, 2 for usage errors.\n";

static const struct option reset_options[] = {
	{ "instance", required_argument, NULL, 'B' },
	{ "top",      no_argument,       NULL, 't' },
	{ "all",      no_argument,       NULL, 'a' },
	{ "remove",   no_argument,       NULL, 'd' },
	{ "restore",  no_argument,       NULL, 'R' },
	{ "quiet",    no_argument,       NULL, 'q' },
	{ "help",     no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The leftovers of killed recordings, and which of them this reset removed. */
struct leftovers {
	char *dir;                          /* the tracefs mount point, or NULL */
	struct ktrace_tracefs_leftover *v;
	bool *removed;
	size_t n;
};

static void leftovers_read(struct leftovers *l)
{
	struct ktrace_error err = { 0 };
	bool mounted = false;

	memset(l, 0, sizeof(*l));
	/* tracefs not mounted: no instance, hence no leftover to name */
	if (ktrace_tracefs_find(false, &l->dir, &mounted, &err) < 0)
		return;
	if (ktrace_tracefs_leftovers(l->dir, &l->v, &l->n, &err) < 0) {
		cli_error(NULL, &err);
		l->n = 0;
		return;
	}
	l->removed = calloc(l->n ? l->n : 1, sizeof(*l->removed));
	if (!l->removed) {
		ktrace_tracefs_leftovers_free(l->v, l->n);
		l->v = NULL;
		l->n = 0;
	}
}

static void leftovers_free(struct leftovers *l)
{
	ktrace_tracefs_leftovers_free(l->v, l->n);
	free(l->removed);
	free(l->dir);
}

static int leftover_index(const struct leftovers *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return (int)i;
	return -1;
}

/* Removes leftover i (tracing and events off, the directory, its registry entry). */
static int leftover_remove(struct leftovers *l, size_t i, bool quiet)
{
	struct ktrace_error err = { 0 };

	if (ktrace_tracefs_remove_leftover(l->dir, l->v[i].name, &err) < 0) {
		cli_error(NULL, &err);
		return -1;
	}
	l->removed[i] = true;
	if (!quiet)
		printf("removed instance '%s' (left by recorder pid %d)\n", l->v[i].name, l->v[i].pid);
	return 0;
}

/* Names the leftovers still there. top: what this reset did to the top buffer (0: not
 * reset, 1: reset to the defaults, 2: put back as it was). */
static void leftovers_print(const struct leftovers *l, int top)
{
	size_t left = 0, last = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (!*l->v[i].name) {
			/* the top buffer as a killed record, stream or start left it */
			printf("the top buffer was left changed: %s; %s\n", l->v[i].what,
			       top == 2 ? "put back as it was" : top == 1 ? "reset to the defaults" :
			       "'ktrace reset --restore' puts it back as it was");
			continue;
		}
		if (l->removed[i])
			continue;
		printf("instance '%s' was left behind by a recording that was killed (pid %d)\n",
		       l->v[i].name, l->v[i].pid);
		left++;
		last = i;
	}
	if (left == 1)
		printf("'ktrace reset -B %s -d' removes it\n", l->v[last].name);
	else if (left)
		printf("'ktrace reset -a' removes them (with every other instance), "
		       "'ktrace reset -B NAME -d' one of them\n");
	else
		printf("no instance left behind by a killed recording\n");
}

static int run_reset(int argc, char **argv)
{
	struct ktrace_tracefs_target t = { 0 };
	KTRACE_OPTS(ktrace_tracefs_reset_opts, ro);
	struct ktrace_error err = { 0 };
	struct leftovers l;
	const char **names = NULL;
	bool quiet = false;
	int c, status = CLI_OK, top = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "B:tadqh", reset_options, NULL)) != -1) {
		int got = cli_target_option(c, optarg, &t, &names);

		if (got < 0) {
			free(names);
			return CLI_FAILED;
		}
		if (got)
			continue;
		switch (c) {
		case 'd': ro.remove = true; break;
		case 'R': ro.restore = true; break;
		case 'q': quiet = true; break;
		case 'h':
			free(names);
			cli_print_help(&cli_reset);
			return CLI_OK;
		default:
			free(names);
			return cli_bad_option("reset", "B:tadqh", argv);
		}
	}
	if (optind < argc) {
		free(names);
		return cli_usage_error("reset", "unexpected argument '%s'", argv[optind]);
	}
	status = cli_target_check("reset", &t);
	if (status) {
		free(names);
		return status;
	}
	if (ro.remove && !t.ninstances) {
		free(names);
		return cli_usage_error("reset", "-d removes the instances named with -B");
	}

	leftovers_read(&l);
	/* leftovers that go: with -a (as every instance does), or named with -d; they are
	 * removed as leftovers so that their registry entries go too */
	if (t.all && !ro.restore) {
		for (size_t i = 0; i < l.n; i++)
			if (leftover_remove(&l, i, quiet) < 0)
				status = CLI_FAILED;
	} else if (ro.remove) {
		size_t kept = 0;

		for (size_t k = 0; k < t.ninstances; k++) {
			int i = leftover_index(&l, names[k]);

			if (i < 0)
				names[kept++] = names[k];
			else if (leftover_remove(&l, (size_t)i, quiet) < 0)
				status = CLI_FAILED;
		}
		if (!kept && !t.top) {
			/* every instance named was a leftover: nothing more to reset */
			t.ninstances = 0;
			goto listed;
		}
		t.ninstances = kept;
	}
	t.instances = names;
	if (ktrace_tracefs_reset(&t, &ro, &err) < 0) {
		cli_error(NULL, &err);
		status = CLI_FAILED;
	} else if (t.all || t.top || !t.ninstances) {
		top = ro.restore ? 2 : 1;
	}
listed:
	if (!quiet)
		leftovers_print(&l, top);
	leftovers_free(&l);
	free(names);
	return status;
}

const struct cli_command cli_reset = {
	.name = "reset",
	.summary = "put tracefs back to its defaults; name or remove killed recordings' instances",
	.help = reset_help,
	.run = run_reset,
};
