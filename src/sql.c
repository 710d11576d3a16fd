// SPDX-License-Identifier: MIT
/* ktrace sql: SQL over traces of any format (tables of <ktrace/sql.h>, docs/sql.md). */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/sql.h>

#include "cli.h"

static const char sql_help[] =
"NAME\n"
"    ktrace sql - query traces with SQL\n"
"\n"
"SYNOPSIS\n"
"    ktrace sql [OPTIONS] FILE... 'QUERY'\n"
"    ktrace sql [OPTIONS] FILE...\n"
"    ktrace sql --db FILE.db [FILE...] ['QUERY']\n"
"\n"
"DESCRIPTION\n"
"    Reads every FILE (trace.dat, raw ftrace pages, Darwin ktrace files and kdebug\n"
"    streams, KOFF buffers, snapshots and core files; the format is recognised by its\n"
"    content) into SQL tables, one schema for every format, and runs QUERY on them\n"
"    with SQLite. Several statements separated by ';' run in order. Without a QUERY,\n"
"    statements are read from standard input: with a prompt and line editing on a\n"
"    terminal, with the dot commands .tables, .schema [TABLE], .mode MODE, .help and\n"
"    .quit.\n"
"\n"
"    The tables (docs/sql.md has every column):\n"
"        trace         one row per input: format, host, kernel, clock, CPUs, times,\n"
"                      events and lost events\n"
"        process       upid, pid, parent, name, command line\n"
"        thread        utid, tid, upid, name, is_idle\n"
"        event         one row per record: id, ts, cpu, utid, subsystem, name,\n"
"                      arg_set_id, file_offset (also the view raw)\n"
"        args          every field of every event: arg_set_id, key, int_value,\n"
"                      string_value, real_value, value_type\n"
"        sched_slice   when each thread ran on each CPU (sched_switch, Darwin\n"
"                      MACH_SCHED), with the state it left in; the last, still open\n"
"                      slice of a CPU has dur -1 (CPU time counts it up to the trace's\n"
"                      model_end_ts, as the view cpu_time_by_thread does)\n"
"        thread_state  sleeping (S, D...) and runnable (R after a wakeup, with its\n"
"                      waker; R+ preempted) intervals\n"
"        lost_events, counter_track, counter, slice\n"
"    Every table has trace_id; ids (utid, upid...) are unique across all FILEs.\n"
"    extract_arg(arg_set_id, key) gives one field of an event.\n"
"\n"
"    event and args are read from the files when a query scans them; the other\n"
"    tables are built once, when the files are opened. count(*) of event needs no\n"
"    scan.\n"
"\n"
"    The first argument that is not an existing file, when it is the last one, is the\n"
"    QUERY (or give it with -q).\n"
"\n"
"OPTIONS\n"
"    -q, --query SQL\n"
"        The statements to run (instead of the last argument).\n"
"    --tsv\n"
"        Print each result as a header line of column names, then one line per row,\n"
"        tab-separated, NULL as empty (the default). Tabs, new lines and backslashes\n"
"        in values are written \\t, \\n, \\\\.\n"
"    --csv\n"
"        RFC 4180 CSV with a header line.\n"
"    --json\n"
"        One JSON array of objects per statement.\n"
"    --box\n"
"        A table drawn with box characters (the default at a terminal prompt).\n"
"    --db FILE.db\n"
"        Keep the tables in the SQLite database FILE.db, every table a real one (so\n"
"        that sqlite3 FILE.db works too). When FILE.db is newer than every input and\n"
"        was made from the same files, it is used as it is; else it is built anew\n"
"        under a temporary name and renamed when complete. Without FILEs, FILE.db\n"
"        is opened as it is. A damaged input leaves FILE.db as it was.\n"
"    --rebuild\n"
"        With --db: build FILE.db even when it is up to date.\n"
"    --stats\n"
"        At the end, on standard error: the numbers of events, threads and processes,\n"
"        the time the tables took to build, and the memory SQLite holds (now and at\n"
"        most).\n"
"    -C, --codes FILE\n"
"        Darwin: event names from a trace codes file (/usr/share/misc/trace.codes).\n"
"    -e, --events-dir DIR\n"
"        Raw ftrace pages: the tracefs events directory (or a copy) for event names\n"
"        and fields.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace sql trace.dat 'select count(*) from event'\n"
"    ktrace sql trace.dat 'select name, count(*) n from event group by name order by n desc'\n"
"    ktrace sql --box trace.dat \\\n"
"      'select tid, name, cpu_ns from cpu_time_by_thread order by cpu_ns desc limit 10'\n"
"    ktrace sql --db t.db trace.dat 'select * from trace'; sqlite3 t.db .tables\n"
"    ktrace sql coreprofilesessiontap.bin      # a prompt: .tables, .schema thread\n"
"\n"
"EXIT STATUS\n"
"    0 on success; 1 when an input could not be read completely (the tables hold\n"
"    the records before the damage, and the queries run on them) or FILE.db cannot\n"
"    be written; 2 for usage errors and for a statement SQLite refuses (its message\n"
"    is printed).\n";

enum { OPT_TSV = 256, OPT_CSV, OPT_JSON, OPT_BOX, OPT_DB, OPT_REBUILD, OPT_STATS };

static const struct option sql_options[] = {
	{ "query",      required_argument, NULL, 'q' },
	{ "tsv",        no_argument,       NULL, OPT_TSV },
	{ "csv",        no_argument,       NULL, OPT_CSV },
	{ "json",       no_argument,       NULL, OPT_JSON },
	{ "box",        no_argument,       NULL, OPT_BOX },
	{ "db",         required_argument, NULL, OPT_DB },
	{ "rebuild",    no_argument,       NULL, OPT_REBUILD },
	{ "stats",      no_argument,       NULL, OPT_STATS },
	{ "codes",      required_argument, NULL, 'C' },
	{ "events-dir", required_argument, NULL, 'e' },
	{ "help",       no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* ---- line input: libedit (or readline) when it can be loaded, else stdio ---- */

struct line_editor {
	void *lib;
	char *(*readline)(const char *prompt);
	int (*add_history)(const char *line);
};

static void editor_load(struct line_editor *e)
{
	static const char *const libs[] = { "libedit.so.2", "libreadline.so.8" };

	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]) && !e->lib; i++) {
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);

		if (!h)
			continue;
		*(void **)&e->readline = dlsym(h, "readline");
		*(void **)&e->add_history = dlsym(h, "add_history");
		if (e->readline && e->add_history)
			e->lib = h;
		else
			dlclose(h);
	}
}

/* The next line (without its newline), malloc'd, or NULL at the end. */
static char *read_line(struct line_editor *e, const char *prompt, bool interactive)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (interactive && e->lib) {
		char *l = e->readline(prompt);
		char *copy;

		if (!l)
			return NULL;
		if (*l)
			e->add_history(l);
		/* the library's allocator may not be ours */
		copy = strdup(l);
		free(l);
		return copy;
	}
	if (interactive) {
		fputs(prompt, stdout);
		fflush(stdout);
	}
	n = getline(&line, &cap, stdin);
	if (n < 0) {
		free(line);
		return NULL;
	}
	if (n && line[n - 1] == '\n')
		line[n - 1] = 0;
	return line;
}

/* ---- running statements ---- */

struct session {
	struct ktrace_sql *q;
	struct ktrace_out *out;
	enum ktrace_sql_mode mode;
};

/* Runs text; prints SQLite's message on failure. CLI_OK, CLI_USAGE (a statement
 * failed) or CLI_FAILED (output error). */
static int run_text(struct session *ss, const char *text)
{
	struct ktrace_error err = { 0 };
	int ret = ktrace_sql_exec(ss->q, text, ss->mode, ss->out, &err);
	int fl = ktrace_out_flush(ss->out);

	if (ret == -EINVAL) {
		cli_errorf(NULL, "query: %s", err.message);
		return CLI_USAGE;
	}
	if (ret == -EPIPE || (!ret && fl == -EPIPE))
		return CLI_OK;
	if (ret) {
		cli_error(NULL, &err);
		return CLI_FAILED;
	}
	if (fl) {
		cli_errorf(NULL, "writing the output: %s", strerror(-fl));
		return CLI_FAILED;
	}
	return CLI_OK;
}

static const char dot_help[] =
".tables            the tables and views\n"
".schema [TABLE]    CREATE statements (ktrace's tables as docs/sql.md gives them)\n"
".mode tsv|csv|json|box\n"
".help              this text\n"
".quit, .exit       leave\n"
"Statements end with ';'.\n";

/* A dot command: CLI_OK, or 1 to quit. */
static int dot_command(struct session *ss, const char *line)
{
	char cmd[32] = "", arg[256] = "";

	sscanf(line, "%31s %255s", cmd, arg);
	if (!strcmp(cmd, ".quit") || !strcmp(cmd, ".exit"))
		return 1;
	if (!strcmp(cmd, ".help")) {
		ktrace_out_write(ss->out, dot_help, strlen(dot_help));
	} else if (!strcmp(cmd, ".tables")) {
		enum ktrace_sql_mode m = ss->mode;

		ss->mode = KTRACE_SQL_TSV;
		run_text(ss, "SELECT name AS \"table\" FROM sqlite_schema WHERE type IN ('table', 'view') "
			 "AND name NOT LIKE 'sqlite_%' ORDER BY name");
		ss->mode = m;
	} else if (!strcmp(cmd, ".schema")) {
		if (ktrace_sql_schema(KTRACE_SQL_SQLITE, *arg ? arg : NULL, NULL, ss->out) == -ENOENT) {
			char sql[400];
			enum ktrace_sql_mode m = ss->mode;

			/* a table of the user's own */
			snprintf(sql, sizeof(sql), "SELECT sql FROM sqlite_schema WHERE name = '%s'", arg);
			if (strchr(arg, '\'')) {
				cli_errorf(NULL, "no table %s", arg);
				return CLI_OK;
			}
			ss->mode = KTRACE_SQL_TSV;
			run_text(ss, sql);
			ss->mode = m;
		}
	} else if (!strcmp(cmd, ".mode")) {
		if (!strcmp(arg, "tsv"))
			ss->mode = KTRACE_SQL_TSV;
		else if (!strcmp(arg, "csv"))
			ss->mode = KTRACE_SQL_CSV;
		else if (!strcmp(arg, "json"))
			ss->mode = KTRACE_SQL_JSON;
		else if (!strcmp(arg, "box"))
			ss->mode = KTRACE_SQL_BOX;
		else
			cli_errorf(NULL, ".mode tsv, csv, json or box");
	} else {
		cli_errorf(NULL, "unknown command %s (.help lists them)", cmd);
	}
	ktrace_out_flush(ss->out);
	return CLI_OK;
}

/* Statements from standard input: at a terminal with a prompt (errors are reported
 * and reading goes on), else as a script that stops at the first failing statement. */
static int read_statements(struct session *ss)
{
	bool interactive = isatty(STDIN_FILENO);
	struct line_editor ed;
	char *stmt = NULL;
	size_t len = 0;
	int status = CLI_OK;

	if (interactive)
		editor_load(&ed);
	else
		memset(&ed, 0, sizeof(ed));
	if (interactive)
		printf("ktrace sql: .tables lists the tables, .help the commands; end statements with ';'\n");
	for (;;) {
		char *line = read_line(&ed, len ? "   ...> " : "ktrace> ", interactive);
		size_t n;
		char *grown;

		if (!line)
			break;
		if (!len && line[0] == '.') {
			int r = dot_command(ss, line);

			free(line);
			if (r == 1)
				break;
			continue;
		}
		n = strlen(line);
		grown = realloc(stmt, len + n + 2);
		if (!grown) {
			free(line);
			status = CLI_FAILED;
			break;
		}
		stmt = grown;
		memcpy(stmt + len, line, n);
		len += n;
		stmt[len++] = '\n';
		stmt[len] = 0;
		free(line);
		if (!ktrace_sql_complete(stmt))
			continue;
		status = run_text(ss, stmt);
		len = 0;
		stmt[0] = 0;
		if (status != CLI_OK && !interactive)
			break;
		if (interactive)
			status = CLI_OK;
	}
	/* a last statement without its ';' */
	if (status == CLI_OK && len && strspn(stmt, " \t\r\n") < len)
		status = run_text(ss, stmt);
	free(stmt);
	/* ed.lib stays loaded: libedit keeps its editor state (history, terminal) in its
	 * own globals until exit, and unloading it would orphan that memory */
	if (interactive)
		putchar('\n');
	return status;
}

static bool is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st);
}

static int run_sql(int argc, char **argv)
{
	KTRACE_OPTS(ktrace_stream_opts, so);
	KTRACE_OPTS(ktrace_sql_opts, o, .stream = &so);
	struct ktrace_error err = { 0 };
	struct session ss = { 0 };
	const char *query = NULL, *err_path = NULL;
	bool mode_set = false, stats = false;
	int c, nfiles, status, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "q:C:e:h", sql_options, NULL)) != -1) {
		switch (c) {
		case 'q':
			query = optarg;
			break;
		case OPT_TSV: ss.mode = KTRACE_SQL_TSV; mode_set = true; break;
		case OPT_CSV: ss.mode = KTRACE_SQL_CSV; mode_set = true; break;
		case OPT_JSON: ss.mode = KTRACE_SQL_JSON; mode_set = true; break;
		case OPT_BOX: ss.mode = KTRACE_SQL_BOX; mode_set = true; break;
		case OPT_DB:
			o.db_path = optarg;
			break;
		case OPT_REBUILD:
			o.rebuild = true;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case 'C':
			so.codes_file = optarg;
			break;
		case 'e':
			so.events_dir = optarg;
			break;
		case 'h':
			cli_print_help(&cli_sql);
			return CLI_OK;
		default:
			return cli_usage_error("sql", "invalid option");
		}
	}
	nfiles = argc - optind;
	/* the last argument is the query when it is no file */
	if (!query && nfiles >= 1 && (nfiles >= 2 || o.db_path) && !is_file(argv[argc - 1])) {
		query = argv[argc - 1];
		nfiles--;
	}
	if (!nfiles && !o.db_path)
		return cli_usage_error("sql", "a trace file is needed");
	if (o.rebuild && !o.db_path)
		return cli_usage_error("sql", "--rebuild goes with --db");
	if (o.db_path && !strcmp(o.db_path, "-"))
		return cli_usage_error("sql", "--db needs a file (it is written, then renamed)");
	if (!mode_set && !query && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		ss.mode = KTRACE_SQL_BOX;

	ret = ktrace_sql_open(&ss.q, (const char *const *)argv + optind, (size_t)nfiles, &o, &err,
			      &err_path);
	if (ret) {
		cli_error(err_path, &err);
		return CLI_FAILED;
	}
	ss.out = ktrace_out_new(STDOUT_FILENO);
	if (!ss.out) {
		ktrace_sql_close(ss.q);
		cli_errorf(NULL, "out of memory");
		return CLI_FAILED;
	}
	status = query ? run_text(&ss, query) : read_statements(&ss);
	ktrace_out_free(ss.out);
	if (stats) {
		struct ktrace_sql_stats st;

		ktrace_sql_stats(ss.q, &st);
		fprintf(stderr, "ktrace sql: %lld events, %lld threads, %lld processes; tables %s in "
			"%.3f s; SQLite memory %.1f MiB now, %.1f MiB at most\n", (long long)st.events,
			(long long)st.threads, (long long)st.processes,
			ktrace_sql_reused(ss.q) ? "reused" : "built", st.build_ns / 1e9,
			st.sqlite_bytes / 1048576.0, st.sqlite_peak_bytes / 1048576.0);
	}
	ret = ktrace_sql_input_error(ss.q, &err, &err_path);
	if (ret) {
		if (o.db_path)
			cli_error_and(err_path, &err, "%s not written", o.db_path);
		else
			cli_error(err_path, &err);
		if (status == CLI_OK)
			status = CLI_FAILED;
	}
	ktrace_sql_close(ss.q);
	return status;
}

const struct cli_command cli_sql = {
	.name = "sql",
	.summary = "query traces with SQL (SQLite tables of any format)",
	.help = sql_help,
	.run = run_sql,
};
