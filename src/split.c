// SPDX-License-Identifier: MIT
/* ktrace split: cut a trace.dat file into pieces by time, records or sub-buffers. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/tracedat.h>

#include "cli.h"
#include "record_cli.h"

static const char split_help[] =
"NAME\n"
"    ktrace split - cut a trace.dat file into pieces by time, records or pages\n"
"\n"
"SYNOPSIS\n"
"    ktrace split [-o OUT] [-s SECS|-m MSECS|-u USECS|-e EVENTS|-p PAGES] [-r] [-c]\n"
"                 [--cpu N] [--file-version 6|7] [--compression none|zstd|zlib]\n"
"                 [-i] FILE [START [END]]\n"
"\n"
"DESCRIPTION\n"
"    Writes the records of FILE from time START to END (seconds, as report prints\n"
"    them; default: all) into new trace.dat files, as 'trace-cmd split' does: one\n"
"    piece OUT.1, or with -r as many pieces OUT.0001, OUT.0002... as it takes. A piece\n"
"    ends after SECS seconds (-s, -m, -u: counted from its first record), after EVENTS\n"
"    records (-e), or after PAGES sub-buffers of each CPU (-p); the record that does\n"
"    not fit begins the next piece. Each piece holds every piece of metadata and every\n"
"    option of FILE (formats, kallsyms, command lines, clock, time offsets...), and\n"
"    trace-cmd reads it as its own. Reported one after the other, the pieces give the\n"
"    report of FILE (but the header lines).\n"
"\n"
"    Records are written anew into sub-buffers, in the buffer (top or instance) and\n"
"    CPU they came from, with their own timestamps; events lost before a record are\n"
"    marked before it in its piece. Each piece is written under a temporary name and\n"
"    renamed when complete.\n"
"\n"
"OPTIONS\n"
"    -o, --output OUT\n"
"        Base name of the pieces (default: FILE).\n"
"    -s SECS, -m MSECS, -u USECS\n"
"        A piece covers this long from its first record.\n"
"    -e EVENTS\n"
"        A piece has this many records.\n"
"    -p PAGES\n"
"        A piece has this many sub-buffers of each CPU (implies -c).\n"
"    -r\n"
"        Repeat: pieces until END (or the end of FILE), numbered .0001, .0002...\n"
"    -c\n"
"        Per CPU: each CPU counts its own time, records or pages.\n"
"    --cpu N\n"
"        Only the records of CPU N.\n"
"    --file-version 6|7, --compression none|zstd|zlib\n"
"        Format of the pieces (default: FILE's).\n"
"    -i, --input FILE\n"
"        The input (also the first argument).\n"
"    -q, --quiet\n"
"        Do not list the pieces written.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace split -o part -r -s 1 trace.dat\n"
"    ktrace split -e 100000 -r trace.dat\n"
"    ktrace split trace.dat 1396.5 1397.0        (the half second after 1396.5 s)\n"
"    ktrace split -c -p 64 -r --cpu 1 trace.dat\n"
"\n"
"EXIT STATUS\n"
"    0 when the pieces were written, 1 when FILE cannot be read or a piece cannot be\n"
"    written, 2 for usage errors.\n";

enum { OPT_CPU = 256, OPT_VERSION, OPT_COMPRESSION };

static const struct option split_options[] = {
	{ "output",       required_argument, NULL, 'o' },
	{ "input",        required_argument, NULL, 'i' },
	{ "cpu",          required_argument, NULL, OPT_CPU },
	{ "file-version", required_argument, NULL, OPT_VERSION },
	{ "compression",  required_argument, NULL, OPT_COMPRESSION },
	{ "quiet",        no_argument,       NULL, 'q' },
	{ "help",         no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void piece_written(void *arg, const char *path, uint64_t records)
{
	if (!*(bool *)arg)
		fprintf(stderr, "ktrace: %s written (%llu records)\n", path, (unsigned long long)records);
}

/* Seconds as trace-cmd takes them (a floating point number) into nanoseconds. */
static int parse_time(const char *s, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > 1.8e10)
		return -1;
	*ns = (uint64_t)(v * 1000000000.0);
	return 0;
}

static int run_split(int argc, char **argv)
{
	KTRACE_OPTS(tracedat_split_opts, so, .cpu = -1, .piece = piece_written);
	struct tracedat_write_opts wo;
	struct ktrace_error err = { 0 };
	struct tracedat *td;
	const char *input = NULL, *output = NULL, *version = NULL, *compression = NULL;
	bool quiet = false;
	int c, ret, npos;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:i:s:m:u:e:p:rcqh", split_options, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'i': input = optarg; break;
		case 's': case 'm': case 'u': case 'e': case 'p': {
			char *end;
			long long v;

			if (so.unit != TRACEDAT_SPLIT_NONE)
				return cli_usage_error("split", "only one of -s, -m, -u, -e and -p");
			errno = 0;
			v = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || v <= 0)
				return cli_usage_error("split", "units must be a number greater than 0, not '%s'",
						       optarg);
			so.count = (uint64_t)v;
			so.unit = c == 's' ? TRACEDAT_SPLIT_SECONDS : c == 'm' ? TRACEDAT_SPLIT_MSECS
				  : c == 'u' ? TRACEDAT_SPLIT_USECS : c == 'e' ? TRACEDAT_SPLIT_EVENTS
				  : TRACEDAT_SPLIT_PAGES;
			break;
		}
		case 'r': so.repeat = true; break;
		case 'c': so.per_cpu = true; break;
		case OPT_CPU: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < 0 || v > 1 << 20)
				return cli_usage_error("split", "invalid CPU '%s'", optarg);
			so.cpu = (int)v;
			break;
		}
		case OPT_VERSION: version = optarg; break;
		case OPT_COMPRESSION: compression = optarg; break;
		case 'q': quiet = true; break;
		case 'h':
			cli_print_help(&cli_split);
			return CLI_OK;
		default:
			return cli_usage_error("split", "invalid option '%s'", argv[optind - 1]);
		}
	}
	npos = argc - optind;
	if (!input && npos > 0) {
		input = argv[optind++];
		npos--;
	}
	if (npos > 2)
		return cli_usage_error("split", "unexpected argument '%s'", argv[optind + 2]);
	if (npos >= 1 && parse_time(argv[optind], &so.start))
		return cli_usage_error("split", "start is not a time in seconds: '%s'", argv[optind]);
	if (npos == 2 && parse_time(argv[optind + 1], &so.end))
		return cli_usage_error("split", "end is not a time in seconds: '%s'", argv[optind + 1]);
	if (npos == 2 && so.end < so.start)
		return cli_usage_error("split", "the end is before the start");
	if (!input)
		input = "trace.dat";
	so.output = output ? output : input;
	so.arg = &quiet;
	if (tracedat_open(input, 0, &td, &err) < 0) {
		cli_error(input, &err);
		return CLI_FAILED;
	}
	if (version || compression) {
		ret = record_cli_write_opts("split", version, compression, &wo);
		if (ret) {
			tracedat_close(td);
			return ret;
		}
		so.wopts = &wo;
	}
	ret = tracedat_split(td, &so, &err);
	tracedat_close(td);
	if (ret < 0) {
		/* the pieces' errors name them (OUT.1, OUT: ...); the others are FILE's */
		size_t n = strlen(so.output);

		cli_error(!err.has_offset && !strncmp(err.message, so.output, n) &&
			  (err.message[n] == ':' || err.message[n] == '.') ? NULL : input, &err);
		return CLI_FAILED;
	}
	return CLI_OK;
}

const struct cli_command cli_split = {
	.name = "split",
	.summary = "cut a trace.dat file into pieces by time, records or pages",
	.help = split_help,
	.run = run_split,
};
