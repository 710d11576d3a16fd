// SPDX-License-Identifier: MIT
/* A progress line on stderr for long work (convert, record and extract writing their
 * file; report, export, timeline and flamegraph reading theirs): only when stderr is a
 * terminal. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

void cli_progress_init(struct cli_progress *p, const char *what, uint64_t total, bool quiet)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->total = total;
	p->on = !quiet && isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &p->last);
	p->last.tv_sec -= 1;       /* the first report shows at once */
}

/* Whether a line is due (at most ten a second). */
static bool due(struct cli_progress *p)
{
	if (!p->on || seconds_since(&p->last) < 0.1)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &p->last);
	return true;
}

static void show(struct cli_progress *p, const char *line, int n)
{
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
		p->on = false;
	p->shown = true;
}

void cli_progress_update(void *arg, uint64_t done)
{
	struct cli_progress *p = arg;
	char line[160];

	if (!due(p))
		return;
	if (p->total && done <= p->total)
		show(p, line, snprintf(line, sizeof(line), "\rktrace %s: %d%% (%.1f of %.1f MB)  ", p->what,
				       (int)(100.0 * (double)done / (double)p->total), (double)done / 1e6,
				       (double)p->total / 1e6));
	else
		show(p, line, snprintf(line, sizeof(line), "\rktrace %s: %.1f MB  ", p->what,
				       (double)done / 1e6));
}

void cli_progress_records(void *arg, uint64_t records)
{
	cli_progress_report(arg, records, -1);
}

void cli_progress_report(void *arg, uint64_t records, int percent)
{
	struct cli_progress *p = arg;
	char line[160];

	if (!due(p))
		return;
	if (percent >= 0)
		show(p, line, snprintf(line, sizeof(line), "\rktrace %s: %llu records, %d%%  ", p->what,
				       (unsigned long long)records, percent));
	else
		show(p, line, snprintf(line, sizeof(line), "\rktrace %s: %llu records  ", p->what,
				       (unsigned long long)records));
}

void cli_progress_done(struct cli_progress *p)
{
	static const char clear[] = "\r\033[K";

	if (p->shown && write(STDERR_FILENO, clear, sizeof(clear) - 1) < 0)
		p->on = false;
	p->shown = false;
}
