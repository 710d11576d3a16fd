// SPDX-License-Identifier: MIT
/* ktrace: subcommand dispatch, --help, --version, and the shared error printing. */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/stream.h>
#include <ktrace/tracefs.h>
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
	&cli_top,
	&cli_timeline,
	&cli_flamegraph,
	&cli_sql,
	&cli_export,
	&cli_summary,
	&cli_diff,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* "ktrace: [FILE: ]TEXT" escaped to printable UTF-8 (names and texts from files may
 * hold any byte) into esc. */
static void make_line(char *esc, size_t len, const char *file, const char *text)
{
	char line[2048];

	snprintf(line, sizeof(line), "ktrace: %s%s%s", file ? file : "", file ? ": " : "", text);
	ktrace_error_escape(esc, len, line);
}

static void print_kept(void);

/* One such line on stderr (after the damaged places kept so far). */
static void print_line(const char *file, const char *text)
{
	char esc[8192];

	print_kept();
	make_line(esc, sizeof(esc), file, text);
	fprintf(stderr, "%s\n", esc);
}

/*
 * Damaged places the readers skipped (ktrace_error_damage_handler): each is told once,
 * whichever thread or reader meets it (the lines are remembered by a hash of their
 * text, for the first DAMAGE_SEEN of them), and the command's exit status is then 1
 * even when it read everything else. The error a reading ends with is one of them:
 * cli_error does not print it again.
 *
 * A command that reads files keeps the lines and prints them when it ends, by input
 * name, then offset (a line without one first), then text: its threads meet the places
 * in no fixed order, and the same input must give the same lines in the same order
 * each run. The first DAMAGE_KEPT are kept; later ones, and those of the live commands
 * (record, stream, top: they run until stopped), are printed as they are met.
 */
#define DAMAGE_SEEN 4096
#define DAMAGE_KEPT 1024
struct kept_line {
	char *input, *line;
	bool has_offset;
	uint64_t offset;
};

static struct {
	pthread_mutex_t mu;
	uint64_t seen[DAMAGE_SEEN];     /* hashes of the lines told, 0 free */
	size_t nseen;
	bool any;
	bool keep;                      /* keep the lines until the end */
	struct kept_line kept[DAMAGE_KEPT];
	size_t nkept;
} damage = { .mu = PTHREAD_MUTEX_INITIALIZER };

static uint64_t line_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h ? h : 1;
}

/* Whether the line's hash is in the table; with add, put it there if not. */
static bool damage_seen(uint64_t h, bool add)
{
	size_t i = (size_t)(h % DAMAGE_SEEN);

	for (size_t n = 0; n < DAMAGE_SEEN; n++, i = (i + 1) % DAMAGE_SEEN) {
		if (damage.seen[i] == h)
			return true;
		if (!damage.seen[i]) {
			if (add && damage.nseen < DAMAGE_SEEN - 1) {
				damage.seen[i] = h;
				damage.nseen++;
			}
			return false;
		}
	}
	return false;
}

void cli_warn(void *arg, const char *message)
{
	bool told;

	(void)arg;
	/* once, whichever thread or stream of the command meets it (the timeline's line
	 * threads and Perfetto's each open the inputs) */
	pthread_mutex_lock(&damage.mu);
	told = damage_seen(line_hash(message), true);
	pthread_mutex_unlock(&damage.mu);
	if (!told)
		print_line(NULL, message);
}

/* Whether the line is kept for the end (under damage.mu): false when it is to be
 * printed now. */
static bool keep_line(const char *input, const struct ktrace_error *err, const char *line)
{
	struct kept_line *k = &damage.kept[damage.nkept];

	if (!damage.keep || damage.nkept == DAMAGE_KEPT)
		return false;
	k->input = strdup(input ? input : "");
	k->line = strdup(line);
	if (!k->input || !k->line) {
		free(k->input);
		free(k->line);
		return false;
	}
	k->has_offset = err->has_offset;
	k->offset = err->offset;
	damage.nkept++;
	return true;
}

static void on_damage(const char *input, const struct ktrace_error *err, void *arg)
{
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64], esc[8192];
	bool seen;

	(void)arg;
	make_line(esc, sizeof(esc), input, ktrace_error_format(err, msg, sizeof(msg)));
	pthread_mutex_lock(&damage.mu);
	damage.any = true;
	seen = damage_seen(line_hash(esc), true);
	if (!seen && !keep_line(input, err, esc))
		fprintf(stderr, "%s\n", esc);
	pthread_mutex_unlock(&damage.mu);
}

static int kept_order(const void *a, const void *b)
{
	const struct kept_line *x = a, *y = b;
	int c = strcmp(x->input, y->input);

	if (c)
		return c;
	if (x->has_offset != y->has_offset)
		return x->has_offset ? 1 : -1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return strcmp(x->line, y->line);
}

/* The kept lines, in order, to stderr: before another error line (which may say what
 * they led to), and at the command's end and exit. */
static void print_kept(void)
{
	pthread_mutex_lock(&damage.mu);
	qsort(damage.kept, damage.nkept, sizeof(*damage.kept), kept_order);
	for (size_t i = 0; i < damage.nkept; i++) {
		fprintf(stderr, "%s\n", damage.kept[i].line);
		free(damage.kept[i].input);
		free(damage.kept[i].line);
	}
	damage.nkept = 0;
	pthread_mutex_unlock(&damage.mu);
}

/* Whether err's line for file was printed already as a damaged place. */
static bool cli_told(const char *file, const struct ktrace_error *err)
{
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64], esc[8192];
	bool seen;

	make_line(esc, sizeof(esc), file, ktrace_error_format(err, msg, sizeof(msg)));
	pthread_mutex_lock(&damage.mu);
	seen = damage.nseen && damage_seen(line_hash(esc), false);
	pthread_mutex_unlock(&damage.mu);
	return seen;
}

void cli_error(const char *file, const struct ktrace_error *err)
{
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64];

	if (!cli_told(file, err))
		print_line(file, ktrace_error_format(err, msg, sizeof(msg)));
}

void cli_error_and(const char *file, const struct ktrace_error *err, const char *fmt, ...)
{
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64], note[512], line[KTRACE_ERROR_MESSAGE_MAX + 600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s; %s", ktrace_error_format(err, msg, sizeof(msg)), note);
	/* an error already told as a damaged place is not told again: the note alone */
	print_line(file, cli_told(file, err) ? note : line);
}

void cli_errorf(const char *file, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print_line(file, msg);
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
	char msg[1024], line[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s (see 'ktrace help%s%s')", msg, command ? " " : "",
		 command ? command : "");
	print_line(command, line);
	return CLI_USAGE;
}

int cli_oom(const char *command)
{
	print_line(command, "out of memory");
	return CLI_FAILED;
}

int cli_bad_option(const char *command, const char *shortopts, char **argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : "";
	bool is_long = word && word[0] == '-' && word[1] == '-';

	if (is_long) {
		const char *eq = strchr(word, '=');

		if (!optopt)
			return cli_usage_error(command, "unknown option '%.*s'",
					       eq ? (int)(eq - word) : (int)strlen(word), word);
		if (eq)
			return cli_usage_error(command, "option '%.*s' takes no argument",
					       (int)(eq - word), word);
		return cli_usage_error(command, "option '%s' needs an argument", word);
	}
	if (optopt && optopt != ':' && strchr(shortopts, optopt))
		return cli_usage_error(command, "option '-%c' needs an argument", optopt);
	if (optopt > ' ' && optopt < 0x7f)
		return cli_usage_error(command, "unknown option '-%c'", optopt);
	return cli_usage_error(command, "unknown option '%s'", word);
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

int cli_target_option(int c, const char *arg, struct ktrace_tracefs_target *t, const char ***names)
{
	switch (c) {
	case 'B':
		if (cli_grow((void **)names, t->ninstances, sizeof(**names)))
			return -1;
		(*names)[t->ninstances++] = arg;
		return 1;
	case 't':
		t->top = true;
		return 1;
	case 'a':
		t->all = true;
		return 1;
	default:
		return 0;
	}
}

int cli_target_check(const char *command, const struct ktrace_tracefs_target *t)
{
	if (t->all && t->ninstances)
		return cli_usage_error(command, "-a takes every instance: no -B with it");
	return 0;
}

int cli_parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end || v < lo || v > hi || v > UINT_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int cli_time_option(const char *command, const char *arg, bool *has, uint64_t *ns)
{
	if (cli_parse_seconds(arg, ns))
		return cli_usage_error(command, "invalid time '%s' (seconds, e.g. 1234.567890)", arg);
	*has = true;
	return 0;
}

int cli_parse_seconds(const char *s, uint64_t *out)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > (UINT64_MAX / 1000000000ULL - 9) / 10)
			return -1;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (digits == 9)
				return -1;
			frac = frac * 10 + (uint64_t)(*p - '0');
			digits++;
		}
	}
	if (*p)
		return -1;
	while (digits++ < 9)
		frac *= 10;
	*out = sec * 1000000000ULL + frac;
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

/* trace-cmd's parse_cpulist: "1,3-5:7", spaces allowed before numbers. */
int cli_parse_cpu_list(const char *command, const char *s, int **cpus, size_t *ncpus)
{
	const char *p = s;

	do {
		unsigned long a, b;
		char *end;

		while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
			p++;
		if (*p < '0' || *p > '9')
			return cli_usage_error(command, "invalid character '%c' in cpu string '%s'",
					       *p ? *p : ' ', s);
		a = b = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			p++;
			while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
				p++;
			if (*p < '0' || *p > '9')
				return cli_usage_error(command, "invalid character '%c' in cpu string '%s'",
						       *p ? *p : ' ', s);
			b = strtoul(p, &end, 10);
			p = end;
		}
		if (a > b)
			return cli_usage_error(command, "range of cpu numbers must be lower to greater");
		if (b - a > 65536 || b > 1u << 20)
			return cli_usage_error(command, "cpu number too large in '%s'", s);
		for (; a <= b; a++) {
			if (cli_grow((void **)cpus, *ncpus, sizeof(**cpus)))
				return cli_oom(command);
			(*cpus)[(*ncpus)++] = (int)a;
		}
		if (*p == ',' || *p == ':')
			p++;
		else if (*p)
			return cli_usage_error(command, "invalid character '%c' in cpu string '%s'",
					       *p, s);
	} while (*p);
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
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	cli_print_help(cmd);
	return CLI_OK;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;
	int ret;

	/* A closed pipe (ktrace report | head) ends output quietly instead of killing us
	 * mid-write; writers see EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	/* getopt prints nothing: each command reports a bad option in one line */
	opterr = 0;

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
	damage.keep = cmd != &cli_record && cmd != &cli_stream && cmd != &cli_top;
	atexit(print_kept);
	ktrace_error_damage_handler(on_damage, NULL);
	ret = cmd->run(argc - 1, argv + 1);
	print_kept();
	/* damaged input, even when the command could read around it */
	return ret == CLI_OK && damage.any ? CLI_FAILED : ret;
}
