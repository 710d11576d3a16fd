// SPDX-License-Identifier: MIT
/* The input handling every reading subcommand shares: open, detect, buffered output,
 * and the final flush and error report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* A stream whose start was read to recognise its format. */
static struct ktrace_input *kept_input;
static const char *kept_path;

void cli_input_keep(const char *path, struct ktrace_input *in)
{
	ktrace_input_close(kept_input);
	kept_input = in;
	kept_path = path;
}

struct ktrace_input *cli_input_take(const char *path)
{
	struct ktrace_input *in = kept_input;

	if (!in || strcmp(path, kept_path))
		return NULL;
	kept_input = NULL;
	return in;
}

int cli_input_open(struct cli_input *ci, const char *file)
{
	const uint8_t *head;

	memset(ci, 0, sizeof(*ci));
	ci->file = file;
	ci->in = cli_input_take(file);
	if (!ci->in && ktrace_input_open(file, &ci->in, &ci->err) < 0) {
		cli_error(file, &ci->err);
		return CLI_FAILED;
	}
	ci->got = ktrace_input_peek(ci->in, 0, KTRACE_DETECT_BYTES, &head, &ci->err);
	if (ci->got >= 0) {
		ci->format = ktrace_detect_format(head, (size_t)ci->got);
		ci->out = ktrace_out_new(STDOUT_FILENO);
		if (ci->out)
			return CLI_OK;
		ktrace_error_set(&ci->err, -ENOMEM, "out of memory");
	}
	cli_error(file, &ci->err);
	ktrace_input_close(ci->in);
	ci->in = NULL;
	return CLI_FAILED;
}

int cli_input_finish(struct cli_input *ci, int ret)
{
	/* Whatever was read is printed before the error that stopped the reading. */
	ret = cli_out_finish(ci->out, &ci->err, ret);
	if (ret < 0)
		cli_error(ci->file, &ci->err);
	ktrace_input_close(ci->in);
	memset(ci, 0, sizeof(*ci));
	return ret < 0 ? CLI_FAILED : CLI_OK;
}

int cli_out_finish(struct ktrace_out *out, struct ktrace_error *err, int ret)
{
	int e = out ? ktrace_out_flush(out) : 0;

	if (e < 0 && e != -EPIPE && !ret)
		ret = ktrace_error_set(err, e, "writing output: %s", strerror(-e));
	ktrace_out_free(out);
	return ret;
}
