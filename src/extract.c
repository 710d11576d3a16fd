// SPDX-License-Identifier: MIT
/* ktrace extract: placeholder while the extracter is written. */
#include "cli.h"

static int run_extract(int argc, char **argv)
{
	return cli_usage_error("extract", "not implemented yet");
}

const struct cli_command cli_extract = {
	.name = "extract",
	.summary = "extract kernel events from tracefs into a trace.dat file",
	.help = "extract\n",
	.run = run_extract,
};
