// SPDX-License-Identifier: MIT
/* ktrace list: the events, tracers, options, functions, clocks and instances tracefs
 * offers, as trace-cmd list shows them. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/tracefs.h>

#include "cli.h"

static const char list_help[] =
"NAME\n"
"    ktrace list - list the events, tracers, options and functions tracefs offers\n"
"\n"
"SYNOPSIS\n"
"    ktrace list [-e [REGEX]] [-F [REGEX]] [-l [REGEX]] [-R [REGEX]] [--full] [-t] [-o]\n"
"                [-f [REGEX]] [-C] [-B] [-s]\n"
"\n"
"DESCRIPTION\n"
"    Lists what the running kernel's tracefs offers, as 'trace-cmd list' does (the\n"
"    same events for the same expression). Without options: the event systems, the\n"
"    events, the tracers and the trace options.\n"
"\n"
"    REGEX is 'SYSTEM[:EVENT]' of case-insensitive regular expressions (POSIX basic,\n"
"    matching anywhere): the events of the systems SYSTEM matches (those EVENT matches\n"
"    when given), and, without ':', also the events whose own name SYSTEM matches.\n"
"    'sched' lists the sched system, 'sched:.*wak' its wake-up events, 'irq:' only\n"
"    the irq system, 'switch' every event with switch in its name.\n"
"\n"
"OPTIONS\n"
"    -e [REGEX]\n"
"        Events, as SYSTEM:EVENT (every one that can be enabled, without REGEX).\n"
"    -F [REGEX]\n"
"        The format of each event (its fields; --full adds the print fmt line).\n"
"    -l [REGEX]\n"
"        The filter each event has now.\n"
"    -R [REGEX]\n"
"        The triggers each event has now.\n"
"    --full\n"
"        With -F: the whole format file.\n"
"    -t, -p\n"
"        Tracers (available_tracers).\n"
"    -o\n"
"        Trace options of the top buffer, NAME when on and noNAME when off (what\n"
"        'ktrace record -O' takes).\n"
"    -f [REGEX]\n"
"        Functions that can be traced (available_filter_functions), those REGEX\n"
"        matches.\n"
"    -C\n"
"        Trace clocks (the one in use in brackets).\n"
"    -B\n"
"        Instances.\n"
"    -s\n"
"        Event systems.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace list -e sched\n"
"    ktrace list -e 'syscalls:.*openat'\n"
"    ktrace list -F sched_switch\n"
"    ktrace list -t -o\n"
"\n"
"EXIT STATUS\n"
"    0 when listed, 1 when tracefs cannot be read, 2 for usage errors (a bad regular\n"
"    expression).\n";

enum { SHOW_FORMAT = 1, SHOW_FILTER = 2, SHOW_TRIGGER = 4 };

static int print_file(const char *name, struct ktrace_error *err)
{
	char *text;
	size_t len;
	int ret = ktrace_tracefs_read(NULL, NULL, name, &text, &len, err);

	if (ret)
		return ret;
	fwrite(text, 1, len, stdout);
	free(text);
	return 0;
}

/* An event's file: its format (up to print fmt unless full), filter or trigger. */
static int event_file(const char *event, int what, bool full, struct ktrace_error *err)
{
	const char *colon = strchr(event, ':');
	char name[1024], *text;
	size_t len;
	int ret;

	snprintf(name, sizeof(name), "events/%.*s/%s/%s", (int)(colon - event), event, colon + 1,
		 what == SHOW_FORMAT ? "format" : what == SHOW_FILTER ? "filter" : "trigger");
	ret = ktrace_tracefs_read(NULL, NULL, name, &text, &len, err);
	if (ret)
		return ret;
	if (what == SHOW_FORMAT) {
		printf("system: %.*s\n", (int)(colon - event), event);
		for (const char *p = text; *p;) {
			size_t n = strcspn(p, "\n");

			if (!full && !strncmp(p, "print fmt", 9))
				break;
			fwrite(p, 1, n + (p[n] == '\n'), stdout);
			p += n + (p[n] == '\n');
		}
	} else {
		printf("%s\n", event);
		fwrite(text, 1, len, stdout);
		putchar('\n');
	}
	free(text);
	return 0;
}

static int events(const char *regex, int what, bool full, struct ktrace_error *err)
{
	char **names;
	size_t n;
	int ret;

	if (!what && (!regex || !*regex))
		return print_file("available_events", err);
	ret = ktrace_tracefs_list_events(NULL, regex, &names, &n, err);
	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++) {
		if (!what)
			printf("%s\n", names[i]);
		else
			ret = event_file(names[i], what, full, err);
	}
	ktrace_tracefs_free_names(names, n);
	return ret;
}

static int options(struct ktrace_error *err)
{
	char **names;
	size_t n;
	int ret = ktrace_tracefs_list_dir(NULL, NULL, "options", false, &names, &n, err);

	if (ret)
		return print_file("trace_options", err);
	for (size_t i = 0; i < n; i++) {
		char file[512], *v;

		snprintf(file, sizeof(file), "options/%s", names[i]);
		if (ktrace_tracefs_read(NULL, NULL, file, &v, NULL, err))
			continue;
		printf("%s%s\n", strtol(v, NULL, 0) ? "" : "no", names[i]);
		free(v);
	}
	ktrace_tracefs_free_names(names, n);
	return 0;
}

static int functions(const char *regex, struct ktrace_error *err)
{
	char *text, *pat;
	size_t len, l;
	regex_t re;
	int ret;

	if (!regex || !*regex)
		return print_file("available_filter_functions", err);
	/* trace-cmd: a regex ending with '$' still matches the name before the newline */
	l = strlen(regex);
	pat = malloc(l + 4);
	if (!pat)
		return ktrace_error_set(err, -ENOMEM, "out of memory");
	strcpy(pat, regex);
	if (regex[l - 1] == '$')
		strcpy(pat + l - 1, "\n*$");
	ret = regcomp(&re, pat, REG_ICASE | REG_NOSUB);
	free(pat);
	if (ret)
		return ktrace_error_set(err, -EINVAL, "invalid function regex '%s'", regex);
	ret = ktrace_tracefs_read(NULL, NULL, "available_filter_functions", &text, &len, err);
	for (char *p = text; !ret && p && *p;) {
		size_t n = strcspn(p, "\n");
		char save = p[n + (p[n] == '\n')];

		p[n + (p[n] == '\n')] = 0;
		if (regexec(&re, p, 0, NULL, 0) == 0)
			fputs(p, stdout);
		p[n + (p[n] == '\n')] = save;
		p += n + (p[n] == '\n');
	}
	regfree(&re);
	free(text);
	return ret;
}

static int listing(const char *name, bool dirs, const char *none, struct ktrace_error *err)
{
	char **names;
	size_t n;
	int ret = ktrace_tracefs_list_dir(NULL, NULL, name, dirs, &names, &n, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		printf("%s\n", names[i]);
	if (!n && none)
		printf("%s\n", none);
	ktrace_tracefs_free_names(names, n);
	return 0;
}

/* trace-cmd list's arguments: an option may be followed by a value that does not start
 * with '-'. */
static const char *value(int argc, char **argv, int *i)
{
	if (*i + 1 < argc && argv[*i + 1][0] != '-')
		return argv[++*i];
	return NULL;
}

static int run_list(int argc, char **argv)
{
	struct ktrace_error err = { 0 };
	const char *eventre = NULL, *funcre = NULL;
	bool ev = false, tracers = false, opts = false, funcs = false, clocks = false;
	bool bufs = false, systems = false, full = false, all = true;
	int what = 0, ret = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cli_print_help(&cli_list);
			return CLI_OK;
		}
		if (!strcmp(a, "--full")) {
			full = true;
			continue;
		}
		if (a[0] != '-' || !a[1] || a[2])
			return cli_usage_error("list", "invalid argument '%s'", a);
		switch (a[1]) {
		case 'e': ev = true; all = false; if ((v = value(argc, argv, &i))) eventre = v; break;
		case 'F': what |= SHOW_FORMAT; all = false; if ((v = value(argc, argv, &i))) eventre = v; break;
		case 'l': what |= SHOW_FILTER; all = false; if ((v = value(argc, argv, &i))) eventre = v; break;
		case 'R': what |= SHOW_TRIGGER; all = false; if ((v = value(argc, argv, &i))) eventre = v; break;
		case 't': case 'p': tracers = true; all = false; break;
		case 'o': opts = true; all = false; break;
		case 'f': funcs = true; all = false; funcre = value(argc, argv, &i); break;
		case 'C': clocks = true; all = false; break;
		case 'B': bufs = true; all = false; break;
		case 's': systems = true; all = false; break;
		default:
			return cli_usage_error("list", "invalid option '%s'", a);
		}
	}
	if (what && !eventre)
		return cli_usage_error("list", "-F, -l and -R show the files of events: name them "
				       "(e.g. -F sched_switch)");
	if (ev || what)
		ret = events(eventre, what & SHOW_FORMAT ? SHOW_FORMAT : what & SHOW_FILTER ? SHOW_FILTER
			     : what, full, &err);
	if (!ret && tracers)
		ret = print_file("available_tracers", &err);
	if (!ret && opts)
		ret = options(&err);
	if (!ret && funcs)
		ret = functions(funcre, &err);
	if (!ret && clocks)
		ret = print_file("trace_clock", &err);
	if (!ret && bufs)
		ret = listing("instances", true, "No buffer instances defined", &err);
	if (!ret && systems) {
		ret = listing("events", true, NULL, &err);
		putchar('\n');
	}
	if (!ret && all) {
		printf("event systems:\n");
		ret = listing("events", true, NULL, &err);
		if (!ret) {
			printf("\nevents:\n");
			ret = print_file("available_events", &err);
		}
		if (!ret) {
			printf("\ntracers:\n");
			ret = print_file("available_tracers", &err);
		}
		if (!ret) {
			printf("\noptions:\n");
			ret = options(&err);
		}
	}
	if (fflush(stdout) && !ret)
		return CLI_FAILED;
	if (ret < 0) {
		cli_error(NULL, &err);
		return ret == -EINVAL ? CLI_USAGE : CLI_FAILED;
	}
	return CLI_OK;
}

const struct cli_command cli_list = {
	.name = "list",
	.summary = "list the events, tracers, options and functions tracefs offers",
	.help = list_help,
	.run = run_list,
};
