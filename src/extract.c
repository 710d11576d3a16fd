// SPDX-License-Identifier: MIT
/* ktrace extract: save what the kernel ring buffers hold now into a trace.dat file. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/tracefs.h>

#include "cli.h"
#include "record_cli.h"

static const char extract_help[] =
"NAME\n"
"    ktrace extract - save what the kernel ring buffers hold now into a trace.dat file\n"
"\n"
"SYNOPSIS\n"
"    ktrace extract [-o FILE] [-B INSTANCE]... [-t] [-a] [--file-version 6|7]\n"
"                   [--compression none|zstd|zlib]\n"
"\n"
"DESCRIPTION\n"
"    Reads the events the ring buffers hold (the top buffer by default) through\n"
"    per_cpu/cpuN/trace_pipe_raw and saves them as a trace-cmd trace.dat file, like\n"
"    'trace-cmd extract': useful after tracing was set up by hand (events enabled,\n"
"    tracing_on switched on and off). Reading consumes the events; nothing else in\n"
"    tracefs is changed. When tracing is still on, at most twice the buffer size is\n"
"    read per CPU, so that the command ends. A buffer another process reads (a\n"
"    recording) is refused: each reader would get part of its events.\n"
"\n"
"    The file holds the formats of every event (any of them may be in the buffers),\n"
"    header texts, kallsyms, printk formats, saved command lines, uname, the trace\n"
"    clock and the per-CPU counters. Printed per CPU: the events saved (counted in\n"
"    the file) and the events lost (overrun, commit overrun, dropped, as\n"
"    per_cpu/cpuN/stats count them since the buffer was last emptied). When the\n"
"    buffers hold no event, extract says so and saves nothing (exit status 1).\n"
"\n"
"OPTIONS\n"
"    -o, --output FILE\n"
"        Output file (default trace.dat), written under a temporary name and renamed\n"
"        when complete; '-' (standard output), a FIFO or a device gets a stream (see\n"
"        'ktrace help record').\n"
"    -B, --instance NAME\n"
"        Save this tracefs instance (repeatable) instead of the top buffer.\n"
"    -t, --top\n"
"        With -B: save the top buffer too.\n"
"    -a, --all\n"
"        Save the top buffer and every instance.\n"
"    --file-version 6|7\n"
"        trace.dat version (default 7).\n"
"    --compression none|zstd|zlib\n"
"        Compression (version 7 only; default zstd).\n"
"    -q, --quiet\n"
"        Print only errors and lost events.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    echo 1 > /sys/kernel/tracing/events/sched/enable; sleep 1; ktrace extract -o s.dat\n"
"    ktrace extract -B mytrace -t -o both.dat\n"
"    ktrace extract -a --file-version 6 -o everything.dat\n"
"\n"
"EXIT STATUS\n"
"    0 when the file was written, 1 when the buffers hold no event, tracefs cannot\n"
"    be read (not root, not mounted and not mountable, no such instance) or the file\n"
"    cannot be written, 2 for usage errors.\n";

enum { OPT_VERSION = 256, OPT_COMPRESSION };

static const struct option extract_options[] = {
	{ "output",       required_argument, NULL, 'o' },
	{ "instance",     required_argument, NULL, 'B' },
	{ "top",          no_argument,       NULL, 't' },
	{ "all",          no_argument,       NULL, 'a' },
	{ "file-version", required_argument, NULL, OPT_VERSION },
	{ "compression",  required_argument, NULL, OPT_COMPRESSION },
	{ "quiet",        no_argument,       NULL, 'q' },
	{ "help",         no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static uint64_t captured_events(const struct ktrace_tracefs_session *s)
{
	uint64_t n = 0;

	for (size_t b = 0; b < ktrace_tracefs_buffer_count(s); b++)
		for (size_t i = 0; i < ktrace_tracefs_cpu_count(s, b); i++)
			n += ktrace_tracefs_cpu_stats(s, b, i)->events;
	return n;
}

static int run_extract(int argc, char **argv)
{
	KTRACE_OPTS(ktrace_tracefs_extract_opts, o);
	struct tracedat_write_opts wo;
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_session *s = NULL;
	const char *output = "trace.dat", *version = NULL, *compression = NULL;
	const char **inst = NULL;
	size_t ninst = 0;
	bool quiet = false;
	char tmpdir[PATH_MAX];
	int c, ret, status = CLI_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:B:taqh", extract_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'B':
			if (cli_grow((void **)&inst, ninst, sizeof(*inst))) {
				free(inst);
				return CLI_FAILED;
			}
			inst[ninst++] = optarg;
			break;
		case 't':
			o.top = true;
			break;
		case 'a':
			o.all = true;
			break;
		case OPT_VERSION:
			version = optarg;
			break;
		case OPT_COMPRESSION:
			compression = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			free(inst);
			cli_print_help(&cli_extract);
			return CLI_OK;
		default:
			free(inst);
			return cli_bad_option("extract", "o:B:taqh", argv);
		}
	}
	ret = record_cli_write_opts("extract", version, compression, &wo);
	if (!ret && optind < argc)
		ret = cli_usage_error("extract", "unexpected argument '%s'", argv[optind]);
	if (!ret && o.all && ninst)
		ret = cli_usage_error("extract", "-a saves every instance: no -B with it");
	if (ret) {
		free(inst);
		return ret;
	}
	record_cli_tmpdir(output, tmpdir, sizeof(tmpdir));
	o.instances = inst;
	o.ninstances = ninst;
	o.tmpdir = tmpdir;
	if (ktrace_tracefs_extract_open(&o, &s, &err) < 0 || ktrace_tracefs_stop(s, &err) < 0) {
		cli_error(NULL, &err);
		goto out;
	}
	if (ktrace_tracefs_restore(s, &err) < 0) {
		cli_error(NULL, &err);
		goto out;
	}
	record_cli_print_stats(s, quiet);
	if (!captured_events(s)) {
		/* an empty capture says so, and saves nothing */
		cli_errorf(NULL, "the ring buffers hold no events: nothing saved to %s", output);
		goto out;
	}
	if (record_cli_write(s, output, &wo, quiet, "extract") < 0)
		goto out;
	status = CLI_OK;
out:
	ktrace_tracefs_close(s);
	free(inst);
	return status;
}

const struct cli_command cli_extract = {
	.name = "extract",
	.summary = "save what the kernel ring buffers hold now into a trace.dat file",
	.help = extract_help,
	.run = run_extract,
};
