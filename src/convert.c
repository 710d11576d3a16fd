// SPDX-License-Identifier: MIT
/* ktrace convert: rewrite a trace.dat file in another version or compression. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/tracedat.h>

#include "cli.h"

static const char convert_help[] =
"NAME\n"
"    ktrace convert - rewrite a trace.dat file in another version or compression\n"
"\n"
"SYNOPSIS\n"
"    ktrace convert [-i] IN [-o] OUT [--file-version 6|7] [--compression none|zstd|zlib]\n"
"\n"
"DESCRIPTION\n"
"    Reads the trace-cmd trace.dat file IN (version 6 or 7, any compression) and writes\n"
"    it to OUT as the version and compression asked for, keeping everything: header\n"
"    texts, event formats, kallsyms, printk formats, saved command lines, every option,\n"
"    every buffer (the top one and the instances, latency text buffers included) and\n"
"    the ring-buffer pages of every CPU, copied byte for byte, so every record and\n"
"    every lost-events mark stays. Options that describe the layout of a file (section\n"
"    offsets, buffer descriptions, CPU count) are written anew for OUT.\n"
"\n"
"    Version 7 files hold their metadata in sections, compressed as one block each, and\n"
"    CPU data compressed in chunks of 10 pages, as trace-cmd writes them. Version 6 has\n"
"    no compression, one page size for all buffers and a latency buffer only on its\n"
"    own; inputs that need more cannot be converted to it (exit status 1).\n"
"\n"
"    IN may be '-' (standard input: copied to a temporary file in $TMPDIR first,\n"
"    when its first bytes are a trace.dat's, and up to KTRACE_SPOOL_MAX bytes: 4G\n"
"    unless the environment sets it, with K, M, G or T; 0: no limit).\n"
"    Every sub-buffer is checked as 'ktrace report' reads it: a truncated or corrupt\n"
"    one stops the conversion with the same error and offset, and no OUT is left.\n"
"\n"
"    A regular OUT (or a new one) is written under a temporary name in the same\n"
"    directory (OUT.tmpXXXXXX) and renamed when complete: a failed or interrupted\n"
"    conversion (SIGINT, SIGTERM, any signal that ends the process) leaves no\n"
"    partial OUT and no temporary file. An existing OUT keeps its mode and owner,\n"
"    and is replaced only when you may write it (as cp and a shell's redirection\n"
"    judge it; root may); a symbolic link is followed and its target replaced. OUT\n"
"    may be IN. A FIFO, a device or '-' (standard output) is written as a stream,\n"
"    never replaced: the file is built in $TMPDIR first (the format needs seeking),\n"
"    then copied. A progress line shows on standard error when it is a terminal.\n"
"\n"
"OPTIONS\n"
"    -i, --input IN\n"
"        The file to read.\n"
"    -o, --output OUT\n"
"        The file to write.\n"
"    --file-version 6|7\n"
"        Version of OUT (default 7).\n"
"    --compression none|zstd|zlib\n"
"        Compression of OUT (version 7 only; default zstd for version 7, none for 6).\n"
"        Note that trace-cmd as built by Debian reads zstd but not zlib.\n"
"    --level N\n"
"        Compression level (zstd 1-19, default 3; zlib 1-9, default 6).\n"
"    -q, --quiet\n"
"        Print nothing on success.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"EXAMPLES\n"
"    ktrace convert -i trace.dat -o trace-v6.dat --file-version 6\n"
"    ktrace convert trace.dat small.dat --compression zstd --level 19\n"
"    ktrace convert -i old.dat -o new.dat --file-version 7 --compression none\n"
"    ssh host cat trace.dat | ktrace convert - - --file-version 6 | trace-cmd report -i /dev/stdin\n"
"\n"
"EXIT STATUS\n"
"    0 when OUT was written, 1 when IN cannot be read (corrupt, truncated) or OUT\n"
"    cannot be written, 2 for usage errors.\n";

enum { OPT_VERSION = 256, OPT_COMPRESSION, OPT_LEVEL };

static const struct option convert_options[] = {
	{ "input",        required_argument, NULL, 'i' },
	{ "output",       required_argument, NULL, 'o' },
	{ "file-version", required_argument, NULL, OPT_VERSION },
	{ "compression",  required_argument, NULL, OPT_COMPRESSION },
	{ "level",        required_argument, NULL, OPT_LEVEL },
	{ "quiet",        no_argument,       NULL, 'q' },
	{ "help",         no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int run_convert(int argc, char **argv)
{
	KTRACE_OPTS(tracedat_write_opts, wo);
	struct ktrace_error err = { 0 };
	const char *in = NULL, *out = NULL, *comp = NULL;
	struct tracedat_writer *w;
	struct tracedat *td;
	struct cli_progress progress;
	bool quiet = false;
	char *end;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:qh", convert_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			in = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_VERSION:
			if (strcmp(optarg, "6") && strcmp(optarg, "7"))
				return cli_usage_error("convert", "--file-version must be 6 or 7");
			wo.version = (unsigned int)atoi(optarg);
			break;
		case OPT_COMPRESSION:
			if (strcmp(optarg, "none") && strcmp(optarg, "zstd") && strcmp(optarg, "zlib"))
				return cli_usage_error("convert",
						       "--compression must be none, zstd or zlib");
			comp = optarg;
			break;
		case OPT_LEVEL:
			errno = 0;
			wo.level = (int)strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || wo.level < 1 || wo.level > 22)
				return cli_usage_error("convert", "invalid level '%s'", optarg);
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			cli_print_help(&cli_convert);
			return CLI_OK;
		default:
			return cli_bad_option("convert", "i:o:qh", argv);
		}
	}
	for (; optind < argc; optind++) {
		if (!in)
			in = argv[optind];
		else if (!out)
			out = argv[optind];
		else
			return cli_usage_error("convert", "one input and one output, please");
	}
	if (!in || !out)
		return cli_usage_error("convert", "an input (-i) and an output (-o) are needed");
	if (!wo.version)
		wo.version = 7;
	if (!comp)
		comp = wo.version >= 7 ? "zstd" : "none";
	if (wo.version < 7 && strcmp(comp, "none"))
		return cli_usage_error("convert", "version 6 files cannot be compressed");
	wo.compression = comp;

	if (tracedat_open(in, 0, &td, &err) < 0) {
		cli_error(in, &err);
		return CLI_FAILED;
	}
	tracedat_write_opts_from(td, &wo);
	{
		uint64_t total = 0;

		for (size_t b = 0; b < tracedat_buffer_count(td); b++)
			for (size_t i = 0; i < tracedat_buffer(td, b)->cpus; i++)
				total += tracedat_buffer_cpu(td, b, i)->data_size;
		cli_progress_init(&progress, "convert", total, quiet);
	}
	wo.progress = cli_progress_update;
	wo.progress_arg = &progress;
	ret = tracedat_writer_create(out, &wo, &w, &err);
	if (!ret) {
		ret = tracedat_convert(td, w, &err);
		if (ret)
			tracedat_writer_abort(w);
		else
			ret = tracedat_writer_close(w, &err);
	}
	cli_progress_done(&progress);
	tracedat_close(td);
	if (ret) {
		/* reader errors name an offset in IN; writer errors name OUT themselves */
		cli_error(err.has_offset ? in : NULL, &err);
		return CLI_FAILED;
	}
	if (!quiet)
		fprintf(stderr, "ktrace: %s: version %u, compression %s\n", out, wo.version, comp);
	return CLI_OK;
}

const struct cli_command cli_convert = {
	.name = "convert",
	.summary = "rewrite a trace.dat file in another version or compression",
	.help = convert_help,
	.run = run_convert,
};
