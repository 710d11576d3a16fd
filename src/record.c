// SPDX-License-Identifier: MIT
/* ktrace record: placeholder while the recorder is written. */
#include "cli.h"

static int run_record(int argc, char **argv)
{
	return cli_usage_error("record", "not implemented yet");
}

const struct cli_command cli_record = {
	.name = "record",
	.summary = "record kernel events from tracefs into a trace.dat file",
	.help = "record\n",
	.run = run_record,
};
