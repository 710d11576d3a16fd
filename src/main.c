// SPDX-License-Identifier: MIT
/* ktrace: subcommand dispatch, --help, --version, and the shared error printing. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/version.h>

#include "cli.h"

static const struct cli_command *const commands[] = {
	&cli_report,
	&cli_info,
	&cli_dump,
	&cli_record,
	&cli_extract,
	&cli_convert,
	&cli_split,
	&cli_list,
	&cli_stat,
	&cli_show,
	&cli_start,
	&cli_stop,
	&cli_restart,
	&cli_clear,
	&cli_reset,
	&cli_stream,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

void cli_error(const char *file, const struct ktrace_error *err)
{
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64];

	ktrace_error_format(err, msg, sizeof(msg));
	if (file)
		fprintf(stderr, "ktrace: %s: %s\n", file, msg);
	else
		fprintf(stderr, "ktrace: %s\n", msg);
}

void cli_errorf(const char *file, const char *fmt, ...)
{
	va_list ap;

	fputs("ktrace: ", stderr);
	if (file)
		fprintf(stderr, "%s: ", file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;

	fputs("ktrace: ", stderr);
	if (command)
		fprintf(stderr, "%s: ", command);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ktrace help%s%s'.\n", command ? " " : "", command ? command : "");
	return CLI_USAGE;
}

void cli_print_help(const struct cli_command *cmd)
{
	fputs(cmd->help, stdout);
}

int cli_grow(void **arr, size_t n, size_t elem)
{
	void *p = realloc(*arr, (n + 1) * elem);

	if (!p)
		return -1;
	*arr = p;
	return 0;
}

int cli_parse_size(const char *s, unsigned long long *out)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1024ULL; end++; break;
	case 'm': case 'M': mult = 1024ULL * 1024; end++; break;
	case 'g': case 'G': mult = 1024ULL * 1024 * 1024; end++; break;
	}
	if (*end || (v && mult > ~0ULL / v))
		return -1;
	*out = v * mult;
	return 0;
}

static const char main_help_head[] =
"NAME\n"
"    ktrace - read, record, convert and dump kernel traces\n"
"\n"
"SYNOPSIS\n"
"    ktrace COMMAND [OPTIONS] [ARGS]\n"
"    ktrace help COMMAND\n"
"    ktrace --help | --version\n"
"\n"
"DESCRIPTION\n"
"    ktrace reads Linux ftrace data (raw ring-buffer sub-buffers, trace-cmd trace.dat),\n"
"    Darwin ktrace files, kcdata buffers and KOFF trace buffers. Input formats are\n"
"    recognised by their content, never by the file name.\n"
"\n"
"COMMANDS\n";

static const char main_help_tail[] =
"\n"
"    Run 'ktrace help COMMAND' for a command's manual.\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 when the input could not be read completely (corrupt or\n"
"    truncated data, I/O errors), 2 for usage errors.\n";

static void print_main_help(FILE *f)
{
	fputs(main_help_head, f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "    %-10s %s\n", commands[i]->name, commands[i]->summary);
	fputs(main_help_tail, f);
}

static int run_help(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		print_main_help(stdout);
		return CLI_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return cli_usage_error(NULL, "no such command: %s", argv[1]);
	cli_print_help(cmd);
	return CLI_OK;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;

	/* A closed pipe (ktrace report | head) ends output quietly instead of killing us
	 * mid-write; writers see EPIPE. */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		print_main_help(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return run_help(1, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ktrace %s\n", ktrace_version());
		return CLI_OK;
	}
	if (!strcmp(argv[1], "help"))
		return run_help(argc - 1, argv + 1);
	cmd = find_command(argv[1]);
	if (!cmd)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	return cmd->run(argc - 1, argv + 1);
}
