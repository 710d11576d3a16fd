// SPDX-License-Identifier: MIT
/*
 * `ktrace report` for trace.dat files: trace-cmd report's command line.
 *
 * trace-cmd's options do not fit the other formats' (-f is trace-cmd's function list but
 * the Darwin event filter elsewhere), so the command line is first scanned for its input
 * files: when the first one is a trace.dat file (or no file is named and ./trace.dat is
 * one, as trace-cmd defaults to), it is parsed here with trace-cmd's options.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktrace/detect.h>
#include <ktrace/input.h>
#include <ktrace/tracedat.h>

#include "cli.h"
#include "darwin_cli.h"
#include "report_tracedat.h"
#include <ktrace/view.h>

enum {
	O_CPU = 300, O_CPUS, O_FIRST, O_LAST, O_STAT, O_UNAME, O_VERSION, O_TSDIFF,
	O_TSOFFSET, O_NODATE, O_RAWTS, O_DEBUG, O_INPUT, O_UNSUPPORTED, O_UNSUPPORTED_ARG,
	O_IGNORED, O_PID, O_COMM, O_HELP, O_THREADS, O_BOUNDARY, O_PROFILE, O_BYCOMM,
	O_OTHER_FORMAT,
};

static const struct option td_options[] = {
	{ "cpu",          required_argument, NULL, O_CPU },
	{ "cpus",         no_argument,       NULL, O_CPUS },
	{ "first-event",  no_argument,       NULL, O_FIRST },
	{ "last-event",   no_argument,       NULL, O_LAST },
	{ "stat",         no_argument,       NULL, O_STAT },
	{ "uname",        no_argument,       NULL, O_UNAME },
	{ "version",      no_argument,       NULL, O_VERSION },
	{ "ts-diff",      no_argument,       NULL, O_TSDIFF },
	{ "ts-offset",    required_argument, NULL, O_TSOFFSET },
	{ "nodate",       no_argument,       NULL, O_NODATE },
	{ "raw-ts",       no_argument,       NULL, O_RAWTS },
	{ "debug",        no_argument,       NULL, O_DEBUG },
	{ "input",        required_argument, NULL, 'i' },
	{ "filter-test",  no_argument,       NULL, 'T' },
	{ "pid",          required_argument, NULL, O_PID },
	{ "comm",         required_argument, NULL, O_COMM },
	{ "verbose",      optional_argument, NULL, O_IGNORED },
	{ "events",       no_argument,       NULL, O_UNSUPPORTED },
	{ "event",        required_argument, NULL, O_UNSUPPORTED_ARG },
	{ "kallsyms",     required_argument, NULL, O_UNSUPPORTED_ARG },
	{ "check-events", no_argument,       NULL, O_UNSUPPORTED },
	{ "boundary",     no_argument,       NULL, O_BOUNDARY },
	{ "profile",      no_argument,       NULL, O_PROFILE },
	{ "by-comm",      no_argument,       NULL, O_BYCOMM },
	{ "ts2secs",      required_argument, NULL, O_UNSUPPORTED_ARG },
	{ "ts-check",     no_argument,       NULL, O_UNSUPPORTED },
	{ "align-ts",     no_argument,       NULL, O_UNSUPPORTED },
	{ "threads",      required_argument, NULL, O_THREADS },
	{ "help",         no_argument,       NULL, O_HELP },
	/* the other formats' options (report.c): named as not applying to trace.dat; the
	 * Darwin --pid is trace-cmd's above. (--pages, --page-size, --long-size, --endian
	 * and --raw-v0 choose another format: such a command line never comes here.) */
	{ "format",       required_argument, NULL, O_OTHER_FORMAT },
	DARWIN_CLI_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* trace-cmd report's short options (those it takes an argument for included), and
 * the Darwin -C. */
static const char td_short[] = ":hSIi:feGpRr:tPNn:LlEwF:V::vTqO:H:C:";

const struct option *report_tracedat_options(void)
{
	return td_options;
}

const char *report_tracedat_shortopts(void)
{
	return td_short;
}

struct td_cli {
	struct ktrace_view_text_opts o;
	struct ktrace_view_text_file *files;
	size_t nfiles;
	struct ktrace_stream_filter *filters;   /* in command-line order */
	size_t *filter_file;                      /* the -i index each filter follows */
	size_t nfilters;
	size_t ninputs;                           /* -i given */
	char **positional;
	size_t npos;
	int *cpus;
	size_t ncpus;
	char **owned;                             /* strings we made */
	size_t nowned;
	struct ktrace_stream_task *tasks;       /* --pid, --comm */
	size_t ntasks;
	const char **raw_events;                  /* -r */
	size_t nraw;
	bool neg;
	bool endian, page_size;
	bool wakeup, profile;                     /* -w, --profile */
	char other_opt[32];                       /* another format's option, the first */
	struct ktrace_view_profile_opts prof;     /* --by-comm, -G */
};

static void td_free(struct td_cli *c)
{
	for (size_t i = 0; i < c->nfiles; i++)
		free((void *)c->files[i].filters);
	free(c->files);
	free(c->filters);
	free(c->filter_file);
	free(c->positional);
	free(c->cpus);
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->tasks);
	free(c->raw_events);
}

static int add_file(struct td_cli *c, const char *path)
{
	if (cli_grow((void **)&c->files, c->nfiles, sizeof(*c->files)))
		return -1;
	memset(&c->files[c->nfiles], 0, sizeof(c->files[0]));
	c->files[c->nfiles++].path = path;
	return 0;
}

static int add_filter(struct td_cli *c, const char *text, bool negative)
{
	if (cli_grow((void **)&c->filters, c->nfilters, sizeof(*c->filters)))
		return -1;
	if (cli_grow((void **)&c->filter_file, c->nfilters, sizeof(*c->filter_file)))
		return -1;
	c->filters[c->nfilters].text = text;
	c->filters[c->nfilters].negative = negative;
	/* trace-cmd gives the filters that follow the k-th -i (k >= 2) to that file, the
	 * others to the first one */
	c->filter_file[c->nfilters] = c->ninputs >= 2 ? c->ninputs - 1 : 0;
	c->nfilters++;
	return 0;
}

static int parse(struct td_cli *c, int argc, char **argv)
{
	int opt, longindex = 0;

	optind = 0;
	while ((opt = getopt_long(argc, argv, td_short, td_options, &longindex)) != -1) {
		switch (opt) {
		case 'i':
			c->ninputs++;
			if (add_file(c, optarg))
				return cli_oom("report");
			break;
		case 'F':
			if (add_filter(c, optarg, c->neg))
				return cli_oom("report");
			break;
		case 'v':
			if (c->neg)
				return cli_usage_error("report", "only 1 -v can be used");
			c->neg = true;
			break;
		case 't': c->o.nsec = true; break;
		case 'R': c->o.raw = true; break;
		case 'l': c->o.latency = true; break;
		case 'I': c->o.no_irqs = true; break;
		case 'S': c->o.no_softirqs = true; break;
		case 'E': c->o.mode = KTRACE_VIEW_TEXT_EVENTS; break;
		case 'P': c->o.mode = KTRACE_VIEW_TEXT_PRINTK; break;
		case 'f': c->o.mode = KTRACE_VIEW_TEXT_FUNCS; break;
		case 'T': c->o.mode = KTRACE_VIEW_TEXT_FILTER_TEST; break;
		case 'e': c->endian = true; break;
		case 'p': c->page_size = true; break;
		case 'w': c->wakeup = true; break;
		case O_PROFILE: c->profile = true; break;
		case O_BYCOMM: c->prof.by_comm = true; break;
		case 'G': c->prof.global = true; break;
		case 'q': case 'V': case O_IGNORED:
			break;
		case O_CPU: {
			int r = cli_parse_cpu_list("report", optarg, &c->cpus, &c->ncpus);

			if (r)
				return r;
			break;
		}
		case O_CPUS: c->o.mode = KTRACE_VIEW_TEXT_CPUS; break;
		case O_FIRST: c->o.mode = KTRACE_VIEW_TEXT_CPUS; c->o.first_event = true; break;
		case O_LAST: c->o.mode = KTRACE_VIEW_TEXT_CPUS; c->o.last_event = true; break;
		case O_STAT: c->o.mode = KTRACE_VIEW_TEXT_STAT; break;
		case O_UNAME: c->o.mode = KTRACE_VIEW_TEXT_UNAME; break;
		case O_VERSION: c->o.mode = KTRACE_VIEW_TEXT_VERSION; break;
		case O_TSDIFF: c->o.ts_diff = true; break;
		case O_NODATE: c->o.no_date = true; break;
		case O_RAWTS: c->o.raw_ts = true; break;
		case O_DEBUG: c->o.debug = true; break;
		case O_BOUNDARY: c->o.boundary = true; break;
		case 'r':
			if (cli_grow((void **)&c->raw_events, c->nraw, sizeof(char *)))
				return cli_oom("report");
			c->raw_events[c->nraw++] = optarg;
			break;
		case O_TSOFFSET: {
			char *end;
			long long v;

			errno = 0;
			v = strtoll(optarg, &end, 0);
			if (errno || end == optarg || *end)
				return cli_usage_error("report", "invalid --ts-offset '%s'", optarg);
			if (!c->nfiles)
				return cli_usage_error("report", "--ts-offset must come after -i");
			c->files[c->nfiles - 1].ts_offset = v;
			break;
		}
		case O_THREADS:
			if (cli_parse_uint(optarg, 0, 64, &c->o.threads))
				return cli_usage_error("report", "--threads takes 0 (automatic) to 64");
			break;
		case O_PID:
		case O_COMM:
			if (cli_add_tasks(optarg, opt == O_COMM, &c->owned, &c->nowned, &c->tasks, &c->ntasks))
				return cli_oom("report");
			break;
		case 'h': case O_HELP:
			cli_print_help(&cli_report);
			return -2;
		case 'C': case O_OTHER_FORMAT: case DARWIN_OPT_CSV: case DARWIN_OPT_PROCESS:
		case DARWIN_OPT_RAW_V0: case DARWIN_OPT_TIMEBASE: case DARWIN_OPT_CODES:
		case DARWIN_OPT_FILTER: case DARWIN_OPT_DURATIONS:
			if (!c->other_opt[0] && opt == 'C')
				snprintf(c->other_opt, sizeof(c->other_opt), "-C");
			else if (!c->other_opt[0])
				snprintf(c->other_opt, sizeof(c->other_opt), "--%s",
					 td_options[longindex].name);
			break;
		case O_UNSUPPORTED: case O_UNSUPPORTED_ARG:
			return cli_usage_error("report", "option '--%s' of trace-cmd report is not "
					       "supported", td_options[longindex].name);
		case 'n': case 'O': case 'H': case 'N': case 'L':
			return cli_usage_error("report", "option '-%c' of trace-cmd report is not "
					       "supported", opt);
		case ':':
		default:
			return cli_bad_option("report", td_short, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (cli_grow((void **)&c->positional, c->npos, sizeof(char *)))
			return cli_oom("report");
		c->positional[c->npos++] = argv[i];
	}
	return 0;
}

/* Does the command line name a trace.dat file first (or default to ./trace.dat)? */
static const char *first_input(int argc, char **argv)
{
	const char *found = NULL;
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, td_short, td_options, NULL)) != -1)
		if (opt == 'i' && !found)
			found = optarg;
	if (!found && optind < argc)
		found = argv[optind];
	return found;
}

static bool is_tracedat(const char *path)
{
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	const uint8_t *head;
	bool yes = false;
	int64_t got;

	if (ktrace_input_open(path, &in, &err) < 0)
		return false;
	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, &err);
	if (got > 0)
		yes = ktrace_detect_format(head, (size_t)got) == KTRACE_FORMAT_TRACEDAT;
	if (!ktrace_input_is_mapped(in)) {
		/* what was read cannot be read again: whoever reads the stream takes this */
		cli_input_keep(path, in);
		return yes;
	}
	ktrace_input_close(in);
	return yes;
}

static void assign_filters(struct td_cli *c)
{
	/* -F before the second -i (or with a single input) belong to the first file */
	for (size_t f = 0; f < c->nfiles; f++) {
		struct ktrace_stream_filter *v = NULL;
		size_t n = 0;

		for (size_t i = 0; i < c->nfilters; i++) {
			bool mine = c->ninputs >= 2 ? c->filter_file[i] == f : true;

			if (!mine)
				continue;
			if (!v)
				v = calloc(c->nfilters, sizeof(*v));
			if (!v)
				break;
			v[n++] = c->filters[i];
		}
		c->files[f].filters = v;
		c->files[f].nfilters = n;
	}
}

static int simple_info(struct td_cli *c)
{
	struct ktrace_error err = { 0 };
	struct tracedat *td;
	const struct tracedat_header *h;

	if (tracedat_open(c->files[0].path, 0, &td, &err) < 0) {
		cli_error(c->files[0].path, &err);
		return CLI_FAILED;
	}
	h = tracedat_header(td);
	if (c->endian)
		printf("file is %s endian and host is %s endian\n", h->big_endian ? "big" : "little",
		       __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? "big" : "little");
	else
		printf("file page size is %u, and host page size is %ld\n", h->page_size,
		       sysconf(_SC_PAGESIZE));
	tracedat_close(td);
	return CLI_OK;
}

int report_tracedat_main(int argc, char **argv)
{
	struct td_cli c = { 0 };
	struct ktrace_error err = { 0 };
	struct ktrace_report_opts ro = { .sz = sizeof(ro) };
	struct ktrace_input *stream = NULL;
	struct cli_progress progress;
	const char *err_file = NULL;
	const char *first;
	struct ktrace_out *out;
	char **copy;
	int ret;

	/* getopt moves arguments around: scan a copy */
	copy = malloc(((size_t)argc + 1) * sizeof(*copy));
	if (!copy)
		return -1;
	memcpy(copy, argv, ((size_t)argc + 1) * sizeof(*copy));
	first = first_input(argc, copy);
	if (!first && !access("trace.dat", R_OK))
		first = "trace.dat";
	if (!first || !is_tracedat(first)) {
		free(copy);
		optind = 0;
		return -1;
	}
	memcpy(copy, argv, ((size_t)argc + 1) * sizeof(*copy));
	ret = parse(&c, argc, copy);
	if (!ret && c.other_opt[0])
		ret = cli_usage_error("report", "%s: option %s does not apply to %s", first,
				      c.other_opt, ktrace_detect_format_name(KTRACE_FORMAT_TRACEDAT));
	if (ret) {
		free(copy);
		td_free(&c);
		return ret == -2 ? CLI_OK : ret;
	}
	if (c.nfiles && c.npos)
		ret = cli_usage_error("report", "give the input files either with -i or as arguments");
	for (size_t i = 0; !ret && i < c.npos; i++)
		if (add_file(&c, c.positional[i]))
			ret = cli_oom("report");
	if (!ret && !c.nfiles && add_file(&c, "trace.dat"))
		ret = cli_oom("report");
	if (ret) {
		free(copy);
		td_free(&c);
		return ret;
	}
	if (c.endian || c.page_size) {
		ret = simple_info(&c);
		free(copy);
		td_free(&c);
		return ret;
	}
	assign_filters(&c);
	/* the stream whose start was read to recognise it */
	for (size_t i = 0; !stream && i < c.nfiles; i++)
		c.files[i].input = stream = cli_input_take(c.files[i].path);
	c.o.sz = sizeof(c.o);
	c.prof.sz = sizeof(c.prof);
	c.o.files = c.files;
	c.o.nfiles = c.nfiles;
	c.o.multi = c.nfiles > 1;
	c.o.raw_events = c.raw_events;
	c.o.nraw_events = c.nraw;
	c.o.tasks = c.tasks;
	c.o.ntasks = c.ntasks;
	c.o.cpus = c.ncpus ? c.cpus : NULL;
	c.o.ncpus = c.ncpus;
	c.o.line_flush = isatty(STDOUT_FILENO);
	/* (not when the lines go to the terminal too) */
	cli_progress_init(&progress, "report", 0, c.o.line_flush);
	c.o.progress = cli_progress_report;
	c.o.progress_arg = &progress;
	c.o.warn = cli_warn;

	out = ktrace_out_new(STDOUT_FILENO);
	if (!out) {
		free(copy);
		td_free(&c);
		cli_errorf(NULL, "out of memory");
		return CLI_FAILED;
	}
	ro.format = KTRACE_FORMAT_TRACEDAT;
	ro.tracedat = &c.o;
	ro.profile = c.profile ? &c.prof : NULL;
	ro.wakeup = c.wakeup;
	ro.err_file = &err_file;
	ret = ktrace_report(NULL, &ro, out, &err);
	cli_progress_done(&progress);
	ktrace_input_close(stream);
	ret = cli_out_finish(out, &err, ret);
	if (ret < 0)
		cli_error(err_file, &err);
	free(copy);
	td_free(&c);
	if (ret == -EINVAL && !err_file)
		return CLI_USAGE;
	return ret < 0 ? CLI_FAILED : CLI_OK;
}
