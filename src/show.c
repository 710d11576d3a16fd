// SPDX-License-Identifier: MIT
/* ktrace show: the kernel's own text rendering of a ring buffer (trace, trace_pipe). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/tracefs.h>

#include "cli.h"

static const char show_help[] =
"NAME\n"
"    ktrace show - print the kernel's text trace buffer\n"
"\n"
"SYNOPSIS\n"
"    ktrace show [-B NAME] [-c CPU] [-p|--pipe] [-s|--snapshot] [-f]\n"
"\n"
"DESCRIPTION\n"
"    Prints what the top ring buffer (or instance NAME) holds, as the kernel renders\n"
"    it in tracefs 'trace' (the events stay in the buffer), like 'trace-cmd show'.\n"
"    With -p the events are read from 'trace_pipe' instead: consumed, and printed as\n"
"    they come until Ctrl-C. ktrace report and ktrace stream format events the way\n"
"    trace-cmd report does; show prints the kernel's own format.\n"
"\n"
"OPTIONS\n"
"    -B, --instance NAME\n"
"        This instance instead of the top buffer.\n"
"    -c, --cpu CPU\n"
"        Only this CPU (per_cpu/cpuN/trace).\n"
"    -p, --pipe\n"
"        Read trace_pipe: consume the events, waiting for more until interrupted.\n"
"    -s, --snapshot\n"
"        The snapshot buffer (tracefs 'snapshot') instead.\n"
"    -f\n"
"        Print the file's path first.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace show | tail\n"
"    ktrace show -B mytrace -c 1\n"
"    ktrace show -p\n"
"\n"
"EXIT STATUS\n"
"    0 when printed (or interrupted with -p), 1 when tracefs cannot be read, 2 for\n"
"    usage errors.\n";

static const struct option show_options[] = {
	{ "instance", required_argument, NULL, 'B' },
	{ "cpu",      required_argument, NULL, 'c' },
	{ "pipe",     no_argument,       NULL, 'p' },
	{ "snapshot", no_argument,       NULL, 's' },
	{ "help",     no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int run_show(int argc, char **argv)
{
	struct ktrace_error err = { 0 };
	const char *instance = NULL, *file = "trace";
	char name[128], buf[65536];
	bool show_name = false, pipe = false, snap = false;
	long cpu = -1;
	int c, fd;

	optind = 1;
	while ((c = getopt_long(argc, argv, "B:c:psfh", show_options, NULL)) != -1) {
		switch (c) {
		case 'B': instance = optarg; break;
		case 'c': {
			char *end;

			errno = 0;
			cpu = strtol(optarg, &end, 0);
			if (errno || end == optarg || *end || cpu < 0 || cpu > 1 << 20)
				return cli_usage_error("show", "invalid CPU '%s'", optarg);
			break;
		}
		case 'p': pipe = true; break;
		case 's': snap = true; break;
		case 'f': show_name = true; break;
		case 'h':
			cli_print_help(&cli_show);
			return CLI_OK;
		default:
			return cli_usage_error("show", "invalid option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("show", "unexpected argument '%s'", argv[optind]);
	if (pipe && snap)
		return cli_usage_error("show", "-p and -s do not go together");
	if (pipe)
		file = "trace_pipe";
	else if (snap)
		file = "snapshot";
	if (cpu >= 0)
		snprintf(name, sizeof(name), "per_cpu/cpu%ld/%s", cpu, file);
	else
		snprintf(name, sizeof(name), "%s", file);
	fd = ktrace_tracefs_open(NULL, instance, name, O_RDONLY, &err);
	if (fd < 0) {
		cli_error(NULL, &err);
		return CLI_FAILED;
	}
	if (show_name) {
		char *dir = NULL;

		if (ktrace_tracefs_find(false, &dir, NULL, &err) == 0)
			printf("%s%s%s/%s\n", dir, instance ? "/instances/" : "", instance ? instance : "", name);
		free(dir);
		fflush(stdout);
	}
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cli_errorf(NULL, "reading %s: %s", name, strerror(errno));
			close(fd);
			return CLI_FAILED;
		}
		if (r == 0)
			break;
		for (ssize_t off = 0; off < r;) {
			ssize_t w = write(STDOUT_FILENO, buf + off, (size_t)(r - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				close(fd);
				/* a closed pipe (ktrace show | head) ends quietly */
				if (errno == EPIPE)
					return CLI_OK;
				cli_errorf(NULL, "writing output: %s", strerror(errno));
				return CLI_FAILED;
			}
			off += w;
		}
	}
	close(fd);
	return CLI_OK;
}

const struct cli_command cli_show = {
	.name = "show",
	.summary = "print the kernel's text trace buffer (trace, trace_pipe)",
	.help = show_help,
	.run = run_show,
};
