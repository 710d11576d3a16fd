// SPDX-License-Identifier: MIT
/*
 * ktrace export: any trace, through the event stream, in a format other tools read:
 * trace viewers' formats (Perfetto protobuf, Chrome JSON) written here through
 * <ktrace/view.h>, and the SQL tables of ktrace sql (SQLite, TSV, JSON lines) handed
 * to src/export_tables.c. One command line, one option parser: options of one family
 * only are refused for the other.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ktrace/sql.h>
#include <ktrace/stream.h>
#include <ktrace/view.h>

#include "cli.h"
#include "export_tables.h"

/* Perfetto export threads when --threads is not given: one per CPU, at most this many
 * (ktrace_stream_threads) */
#define EXPORT_MAX_THREADS 8

/*
 * The output formats.
 *
 * One line per format: its name (--format NAME), the endings of OUT that choose it
 * when --format is not given (the first one also names OUT when -o is not given),
 * whether it is binary (then it is not written to a terminal), and the function that
 * writes it. write() reads the open stream to its end and writes to the target:
 * t->out, a buffered stream onto the output (a temporary file renamed when the export
 * succeeds, or standard output, a FIFO, a device). It returns 0 or a negative code
 * with err set; after an error of the
 * stream (damaged input) the output must be complete and valid for the records read,
 * as --partial keeps it. Add a format: a function of this shape and a line here.
 *
 * The table formats (family TABLES) have no write(): OUT is a database file or a
 * directory that ktrace_sql_export writes itself (export_tables_write), and -o is
 * needed.
 */
struct export_target {
	struct ktrace_out *out;
	const struct ktrace_view_export_opts *opts;
};

enum export_family {
	FAMILY_TRACE,                 /* perfetto, json: a trace for viewers */
	FAMILY_TABLES,                /* sqlite, tsv, jsonl: the tables of ktrace sql */
};

struct export_format {
	const char *name;
	const char *ext[4];           /* NULL-terminated */
	bool binary;
	enum export_family family;
	int (*write)(struct ktrace_stream *s, const struct export_target *t,
		     struct ktrace_error *err);
	enum ktrace_sql_format tables; /* FAMILY_TABLES */
};

/* The inputs opened again the same way, for the Perfetto export's other threads. */
struct reopen {
	const char *const *paths;
	size_t n;
	const struct ktrace_stream_opts *opts;
};

static int reopen_stream(void *ctx, struct ktrace_stream **s)
{
	const struct reopen *r = ctx;
	struct ktrace_error err;

	return ktrace_stream_open(s, r->paths, r->n, r->opts, &err, NULL);
}

static int write_perfetto(struct ktrace_stream *s, const struct export_target *t,
			  struct ktrace_error *err)
{
	return ktrace_view_perfetto(s, t->opts, t->out, err);
}

static int write_json(struct ktrace_stream *s, const struct export_target *t,
		      struct ktrace_error *err)
{
	return ktrace_view_chrome_json(s, t->opts, t->out, err);
}

static const struct export_format formats[] = {
	{ "perfetto", { ".perfetto-trace", ".pftrace", ".pb", NULL }, true, FAMILY_TRACE,
	  write_perfetto, 0 },
	{ "json", { ".json", NULL }, false, FAMILY_TRACE, write_json, 0 },
	{ "sqlite", { ".db", ".sqlite", ".sqlite3", NULL }, true, FAMILY_TABLES, NULL,
	  KTRACE_SQL_EXPORT_SQLITE },
	{ "tsv", { ".tsv", NULL }, false, FAMILY_TABLES, NULL, KTRACE_SQL_EXPORT_TSV },
	{ "jsonl", { ".jsonl", NULL }, false, FAMILY_TABLES, NULL, KTRACE_SQL_EXPORT_JSONL },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

static const char export_help[] =
"NAME\n"
"    ktrace export - write a trace for the Perfetto UI, trace_processor or Chrome, or\n"
"    its SQL tables for SQLite, ClickHouse and other tools\n"
"\n"
"SYNOPSIS\n"
"    ktrace export [-o OUT] [--format perfetto|json] [OPTIONS] FILE...\n"
"    ktrace export -o OUT [--format sqlite|tsv|jsonl] [OPTIONS] FILE...\n"
"\n"
"DESCRIPTION\n"
"    Reads every record of the FILEs (any format ktrace reads: trace-cmd trace.dat\n"
"    with every buffer and instance, raw ftrace ring-buffer pages, Darwin ktrace files\n"
"    and kdebug streams, KOFF buffers, snapshots and core files; several files are\n"
"    merged in time order) and writes them in one of five formats, chosen by --format\n"
"    or else by OUT's ending (perfetto when neither says):\n"
"\n"
"    perfetto (OUT ending in .perfetto-trace, .pftrace or .pb; the default)\n"
"        A Perfetto protobuf trace: open it at https://ui.perfetto.dev or query it\n"
"        with trace_processor. Every record is an ftrace event of its CPU:\n"
"        scheduler, IRQ, power, task and print events as Perfetto's own messages\n"
"        (the scheduling tables, CPU frequency and idle tracks come from them), every\n"
"        other record as a generic event with all its fields (the ftrace_event table\n"
"        and its args). Darwin's context switches and wakeups become sched_switch and\n"
"        sched_waking; KOFF records (no CPU) go to CPU 0. The threads and processes\n"
"        the inputs name, the kernel's uname and the lost events per CPU come along.\n"
"        Generic events are described once per trace (Perfetto v50 or later reads\n"
"        them; --legacy-generic writes the older, larger form).\n"
"\n"
"    json (OUT ending in .json)\n"
"        Chrome's trace event format ({\"traceEvents\": [...]}), for chrome://tracing\n"
"        and the Perfetto UI: one row per CPU with what ran on it (complete events\n"
"        named after the thread), every other record as an instant event of its\n"
"        thread with its fields in args, thread and process names, lost events as\n"
"        global instants. Times in microseconds with three decimals. Large traces\n"
"        belong in the protobuf form: the UI holds about 2 GB of JSON at most.\n"
"\n"
"    sqlite (OUT ending in .db, .sqlite or .sqlite3)\n"
"        The tables of 'ktrace sql' (trace, process, thread, event, args,\n"
"        sched_slice, thread_state, lost_events, counter_track, counter, slice;\n"
"        docs/sql.md has every column) in one SQLite database file: every table a\n"
"        real one, with its indexes and the view raw (sqlite3 OUT reads it).\n"
"\n"
"    tsv (OUT ending in .tsv)\n"
"        The same tables in the directory OUT: TABLE.tsv for every table, no header\n"
"        line, columns in the schema's order, \\N for NULL, tab, newline, carriage\n"
"        return, NUL and backslash escaped (\\t \\n \\r \\0 \\\\): the text format of\n"
"        ClickHouse's TSV, PostgreSQL's COPY and MySQL's LOAD DATA.\n"
"\n"
"    jsonl (OUT ending in .jsonl)\n"
"        The same tables in the directory OUT: TABLE.jsonl, one JSON object per row.\n"
"\n"
"    A tsv or jsonl directory also gets schema.sqlite.sql (CREATE TABLE and CREATE\n"
"    INDEX) and schema.clickhouse.sql (MergeTree tables NAME_local ordered by\n"
"    (trace_id, ts), and Distributed tables NAME over a cluster, sharded by\n"
"    trace_id). Every table has trace_id, a hash of the file's size and first MiB:\n"
"    the traces of many machines exported apart load side by side (docs/fleet.md).\n"
"\n"
"    OUT is written under a temporary name beside it and renamed when complete (a\n"
"    tsv or jsonl directory as a whole): a failure or a signal leaves OUT as it was.\n"
"    An existing directory OUT is replaced only when it holds nothing but the files\n"
"    of an earlier tsv or jsonl export; a file you may not write is not replaced. For\n"
"    perfetto and json, '-' is standard output, and without -o OUT is the first\n"
"    FILE's name with its extension replaced by the format's, in the current\n"
"    directory; sqlite, tsv and jsonl need -o and a file or directory.\n"
"\n"
"OPTIONS\n"
"    -o, --output OUT\n"
"        The file (or, for tsv and jsonl, the directory) to write ('-': standard\n"
"        output, perfetto and json only).\n"
"    --format FORMAT\n"
"        perfetto, json, sqlite, tsv or jsonl (default: from OUT's ending, else\n"
"        perfetto).\n"
"    -e, --events-dir DIR\n"
"        Raw ring-buffer pages: a tracefs events directory (or a copy) for the event\n"
"        names and fields.\n"
"    -C, --codes FILE\n"
"        Darwin: event names from a trace codes file.\n"
"    --partial\n"
"        When an input turns out damaged, keep OUT (the records before the damage)\n"
"        instead of removing it. The exit status is 1 either way.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"    perfetto and json only (refused with the table formats, whose tables keep\n"
"    every record):\n"
"    -F FILTER, -v\n"
"        trace.dat: keep only the events FILTER selects (libtraceevent's syntax, as\n"
"        'ktrace report -F'); after -v, drop them instead.\n"
"    --cpu LIST\n"
"        Keep only these CPUs (1,3-5); records without a CPU stay.\n"
"    --pid PID[,PID...], --comm NAME\n"
"        trace.dat: keep only the events of these tasks.\n"
"    --legacy-generic\n"
"        perfetto: write generic events as GenericFtraceEvent, for trace_processor\n"
"        before v50 (about three times larger).\n"
"    --threads N\n"
"        perfetto: N threads make the trace, each reading every record and writing\n"
"        the blocks of 8192 it gets to first (the same events; the bundles are cut at\n"
"        the blocks). Default: one per CPU for regular files of 16 MiB or more, else one,\n"
"        with the inputs read ahead on another (always so for standard input).\n"
"    -q, --quiet\n"
"        No progress line on standard error.\n"
"\n"
"    sqlite, tsv and jsonl only:\n"
"    --clickhouse-cluster NAME\n"
"        The cluster of the Distributed tables in schema.clickhouse.sql (default\n"
"        ktrace).\n"
"\n"
"EXAMPLES\n"
"    perfetto:\n"
"        ktrace export -o trace.perfetto-trace trace.dat\n"
"        ktrace export -o boot.pftrace host.dat guest.dat\n"
"        ktrace export -o mac.perfetto-trace -C trace.codes capture.ktrace\n"
"    json:\n"
"        ktrace export -o sched.json -F 'sched_switch' --cpu 0-3 trace.dat\n"
"        ktrace export -o - --format json buffer.koff | python3 -m json.tool\n"
"    sqlite:\n"
"        ktrace export -o trace.db trace.dat; sqlite3 trace.db .tables\n"
"    tsv:\n"
"        ktrace export --format tsv --clickhouse-cluster fleet -o host1 host1.dat\n"
"        clickhouse-client --multiquery < host1/schema.clickhouse.sql\n"
"        clickhouse-client --query 'INSERT INTO event_local FORMAT TSV' < host1/event.tsv\n"
"    jsonl:\n"
"        ktrace export --format jsonl -o mac capture.ktrace\n"
"\n"
"EXIT STATUS\n"
"    0 when every record was exported, 1 when an input is damaged (with --partial\n"
"    OUT then holds what came before) or OUT cannot be written, 2 for usage errors.\n";

enum { O_FORMAT = 256, O_LEGACY, O_PARTIAL, O_CLUSTER, O_THREADS };

static const struct option export_options[] = {
	{ "output",         required_argument, NULL, 'o' },
	{ "format",         required_argument, NULL, O_FORMAT },
	{ "cpu",            required_argument, NULL, CLI_OPT_CPU },
	{ "pid",            required_argument, NULL, CLI_OPT_PID },
	{ "comm",           required_argument, NULL, CLI_OPT_COMM },
	{ "events-dir",     required_argument, NULL, 'e' },
	{ "codes",          required_argument, NULL, 'C' },
	{ "legacy-generic", no_argument,       NULL, O_LEGACY },
	{ "threads",        required_argument, NULL, O_THREADS },
	{ "partial",        no_argument,       NULL, O_PARTIAL },
	{ "clickhouse-cluster", required_argument, NULL, O_CLUSTER },
	{ "quiet",          no_argument,       NULL, 'q' },
	{ "help",           no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct export_cli {
	const char *out;
	const struct export_format *format;
	struct cli_stream_args sa;    /* -F, -v, --cpu, --pid, --comm, -e */
	const char *codes, *cluster;
	bool legacy, partial, quiet;
	int threads;                  /* --threads, -1 when not given */
	/* the first option given that only one family of formats takes (for the refusal) */
	const char *trace_only, *tables_only;
	char *default_out;
	struct cli_progress progress;
};

static void free_cli(struct export_cli *c)
{
	cli_stream_args_free(&c->sa);
	free(c->default_out);
}

static const struct export_format *format_named(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

static const struct export_format *format_of_path(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < NFORMATS; i++)
		for (size_t k = 0; formats[i].ext[k]; k++) {
			size_t e = strlen(formats[i].ext[k]);

			if (n > e && !strcasecmp(path + n - e, formats[i].ext[k]))
				return &formats[i];
		}
	return NULL;
}

/* The stream option opt as the refusal names it when a table format is asked for;
 * NULL for --events-dir, which every format takes. */
static const char *trace_only_option(int opt)
{
	switch (opt) {
	case 'F': return "-F";
	case 'v': return "-v";
	case CLI_OPT_CPU: return "--cpu";
	case CLI_OPT_PID: return "--pid";
	case CLI_OPT_COMM: return "--comm";
	default: return NULL;
	}
}

static int parse(struct export_cli *c, int argc, char **argv)
{
	int opt, r;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:F:vqhe:C:", export_options, NULL)) != -1) {
		const char *only = NULL;

		switch (opt) {
		case 'o':
			c->out = optarg;
			break;
		case O_FORMAT:
			c->format = format_named(optarg);
			if (!c->format)
				return cli_usage_error("export", "unknown format '%s' (perfetto, json, "
						       "sqlite, tsv, jsonl)", optarg);
			break;
		case 'e':
			opt = CLI_OPT_EVENTS_DIR;
			/* fall through */
		case 'F':
		case 'v':
		case CLI_OPT_CPU:
		case CLI_OPT_PID:
		case CLI_OPT_COMM:
			r = cli_stream_arg("export", opt, optarg, &c->sa);
			if (r != CLI_STREAM_ARG_TAKEN)
				return r;
			only = trace_only_option(opt);
			break;
		case 'C':
			c->codes = optarg;
			break;
		case O_LEGACY:
			only = "--legacy-generic";
			c->legacy = true;
			break;
		case O_THREADS: {
			unsigned v;

			if (cli_parse_uint(optarg, 0, 64, &v))
				return cli_usage_error("export", "--threads takes 0 (automatic) to 64");
			only = "--threads";
			c->threads = (int)v;
			break;
		}
		case O_CLUSTER:
			c->cluster = optarg;
			if (!c->tables_only)
				c->tables_only = "--clickhouse-cluster";
			break;
		case O_PARTIAL:
			c->partial = true;
			break;
		case 'q':
			only = "-q";
			c->quiet = true;
			break;
		case 'h':
			cli_print_help(&cli_export);
			return -1;
		default:
			return cli_usage_error("export", "invalid option '%s'", argv[optind - 1]);
		}
		if (only && !c->trace_only)
			c->trace_only = only;
	}
	if (optind >= argc)
		return cli_usage_error("export", "no input file");
	return 0;
}

/* Without -o: the first input's base name with the format's extension. */
static int default_output(struct export_cli *c, const char *input)
{
	const char *base = strrchr(input, '/'), *dot;
	size_t n;

	base = base ? base + 1 : input;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	c->default_out = malloc(n + strlen(c->format->ext[0]) + 1);
	if (!c->default_out)
		return -1;
	memcpy(c->default_out, base, n);
	strcpy(c->default_out + n, c->format->ext[0]);
	c->out = c->default_out;
	return 0;
}

/* Options of the other family of formats are usage errors, never ignored. */
static int check_family(const struct export_cli *c)
{
	if (c->format->family == FAMILY_TABLES && c->trace_only)
		return cli_usage_error("export", "%s applies to perfetto and json, not to %s%s",
				       c->trace_only, c->format->name,
				       c->trace_only[1] == 'q' || c->trace_only[2] == 'l' ? "" :
				       " (its tables keep every record)");
	if (c->format->family == FAMILY_TRACE && c->tables_only)
		return cli_usage_error("export", "%s applies to sqlite, tsv and jsonl, not to %s",
				       c->tables_only, c->format->name);
	if (c->threads >= 0 && c->format->write != write_perfetto)
		return cli_usage_error("export", "--threads applies to perfetto, not to %s",
				       c->format->name);
	return 0;
}

/* sqlite, tsv, jsonl: the tables of ktrace sql, written by src/export_tables.c. */
static int run_tables(const struct export_cli *c, char **inputs, size_t n)
{
	struct export_tables_args a = {
		.out = c->out,
		.format = c->format->tables,
		.codes = c->codes,
		.events_dir = c->sa.events_dir,
		.cluster = c->cluster,
		.partial = c->partial,
	};

	if (!c->out || !*c->out)
		return cli_usage_error("export", "%s needs -o OUT (a %s)", c->format->name,
				       c->format->tables == KTRACE_SQL_EXPORT_SQLITE ? "database file" :
				       "directory");
	if (!strcmp(c->out, "-"))
		return cli_usage_error("export", "%s is written to a %s, not to standard output",
				       c->format->name, c->format->tables == KTRACE_SQL_EXPORT_SQLITE ?
				       "file" : "directory");
	return export_tables_write(&a, (const char *const *)inputs, n);
}

static int run_export(int argc, char **argv)
{
	struct export_cli c = { .threads = -1 };
	KTRACE_OPTS(ktrace_stream_opts, so);
	KTRACE_OPTS(ktrace_view_export_opts, eo);
	struct reopen ro;
	struct ktrace_error err = { 0 };
	struct ktrace_stream *s = NULL;
	struct cli_outfile of;
	struct ktrace_out *out;
	struct export_target t;
	const char *err_path = NULL;
	int ret, status;

	ret = parse(&c, argc, argv);
	if (ret) {
		free_cli(&c);
		return ret < 0 ? CLI_OK : ret;
	}
	if (!c.format && c.out)
		c.format = format_of_path(c.out);
	if (!c.format)
		c.format = &formats[0];
	ret = check_family(&c);
	if (ret) {
		free_cli(&c);
		return ret;
	}
	if (c.format->family == FAMILY_TABLES) {
		ret = run_tables(&c, argv + optind, (size_t)(argc - optind));
		free_cli(&c);
		return ret;
	}
	if (!c.out && default_output(&c, argv[optind])) {
		free_cli(&c);
		return cli_oom("export");
	}
	if (c.format->binary && !strcmp(c.out, "-") && isatty(STDOUT_FILENO)) {
		free_cli(&c);
		return cli_usage_error("export", "%s is binary: not writing it to a terminal "
				       "(use -o FILE or a pipe)", c.format->name);
	}
	cli_stream_args_apply(&c.sa, &so);
	so.codes_file = c.codes;
	/* Perfetto with several CPUs: each thread reads the inputs and writes its blocks of
	 * records; else the inputs are read on a second CPU while the records are written */
	if (c.format->write == write_perfetto)
		eo.threads = ktrace_stream_threads((const char *const *)argv + optind,
						   (size_t)(argc - optind), c.threads > 0 ? (unsigned)c.threads : 0,
						   EXPORT_MAX_THREADS);
	if (eo.threads >= 2) {
		ro = (struct reopen){ (const char *const *)argv + optind, (size_t)(argc - optind), &so };
		eo.open_stream = reopen_stream;
		eo.open_ctx = &ro;
	} else {
		so.flags = KTRACE_STREAM_READAHEAD;
	}
	ret = ktrace_stream_open(&s, (const char *const *)argv + optind, (size_t)(argc - optind), &so,
				 &err, &err_path);
	if (ret) {
		cli_error(err_path, &err);
		free_cli(&c);
		return ret == -EINVAL && !err_path ? CLI_USAGE : CLI_FAILED;
	}
	if (cli_outfile_open(&of, c.out)) {
		ktrace_stream_close(s);
		free_cli(&c);
		return CLI_FAILED;
	}
	out = ktrace_out_new(of.fd);
	if (!out) {
		cli_errorf(NULL, "out of memory");
		cli_outfile_discard(&of);
		ktrace_stream_close(s);
		free_cli(&c);
		return CLI_FAILED;
	}
	eo.flags = c.legacy ? KTRACE_VIEW_EXPORT_LEGACY_GENERIC : 0;
	cli_progress_init(&c.progress, "export", 0, c.quiet);
	eo.progress = cli_progress_records;
	eo.progress_ctx = &c.progress;
	t = (struct export_target){ .out = out, .opts = &eo };
	ret = c.format->write(s, &t, &err);
	cli_progress_done(&c.progress);
	err_path = ret < 0 ? ktrace_stream_error_path(s) : NULL;
	{
		int w = ktrace_out_flush(out);

		ktrace_out_free(out);
		if (w < 0 && !(w == -EPIPE && of.stream)) {
			/* the output is what failed: that error counts */
			cli_errorf(c.out, "writing: %s", strerror(-w));
			cli_outfile_discard(&of);
			ktrace_stream_close(s);
			free_cli(&c);
			return CLI_FAILED;
		}
	}
	status = CLI_OK;
	if (ret < 0) {
		/* one line: the error, and what became of OUT */
		status = CLI_FAILED;
		if (c.partial && ret != -ENOMEM) {
			if (cli_outfile_commit(&of) == CLI_OK && !of.stream)
				cli_error_and(err_path, &err, "%s keeps the records before it (--partial)",
					      c.out);
			else
				cli_error(err_path, &err);
		} else {
			cli_outfile_discard(&of);
			if (!of.stream)
				cli_error_and(err_path, &err, "%s not written (--partial keeps what "
					      "could be read)", c.out);
			else
				cli_error(err_path, &err);
		}
	} else if (cli_outfile_commit(&of)) {
		status = CLI_FAILED;
	}
	ktrace_stream_close(s);
	free_cli(&c);
	return status;
}

const struct cli_command cli_export = {
	.name = "export",
	.summary = "write a trace for Perfetto or Chrome, or as SQL tables (SQLite, TSV, JSONL)",
	.help = export_help,
	.run = run_export,
};
