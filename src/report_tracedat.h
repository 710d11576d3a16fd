/* SPDX-License-Identifier: MIT */
/* `ktrace report` for trace.dat files, with trace-cmd report's options. */
#ifndef KTRACE_REPORT_TRACEDAT_H
#define KTRACE_REPORT_TRACEDAT_H

/* Runs the report when the command line's first input is a trace.dat file (or names
 * none and ./trace.dat is one) and returns the exit status; returns -1, having done
 * nothing, for any other input. */
int report_tracedat_main(int argc, char **argv);

/* trace-cmd report's options (a getopt_long table ending with a zero entry, and the
 * short-option string), which report names as not applying to the other formats. The
 * table also lists the other formats' options (Darwin's, --format) and the string -C. */
struct option;
const struct option *report_tracedat_options(void);
const char *report_tracedat_shortopts(void);

#endif
