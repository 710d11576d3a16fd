// SPDX-License-Identifier: MIT
/*
 * Output files of the CLI (cli.h, cli_outfile_*): the library's output file
 * (<ktrace/out.h> ktrace_out_file_*, the one writer every output goes through), with
 * its errors printed. A regular or missing file is written under a temporary name
 * beside it and renamed when complete (mode and owner kept, never replacing a file the
 * user may not write); a symlink is followed; "-", a FIFO or a device is written in
 * place. The temporary file goes on failure and on fatal signals.
 */
#include <string.h>

#include "cli.h"

int cli_outfile_open(struct cli_outfile *f, const char *path)
{
	struct ktrace_error err = { 0 };

	memset(f, 0, sizeof(*f));
	f->path = path;
	f->fd = -1;
	if (ktrace_out_file_open(path, &f->file, &err)) {
		cli_error(NULL, &err);      /* (the message names the file) */
		return CLI_FAILED;
	}
	f->fd = ktrace_out_file_fd(f->file);
	f->stream = ktrace_out_file_is_stream(f->file);
	return CLI_OK;
}

int cli_outfile_commit(struct cli_outfile *f)
{
	struct ktrace_error err = { 0 };
	int ret = ktrace_out_file_commit(f->file, &err);

	f->file = NULL;
	f->fd = -1;
	if (ret) {
		cli_error(NULL, &err);
		return CLI_FAILED;
	}
	return CLI_OK;
}

void cli_outfile_discard(struct cli_outfile *f)
{
	ktrace_out_file_abort(f->file);
	f->file = NULL;
	f->fd = -1;
}
