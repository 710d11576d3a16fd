// SPDX-License-Identifier: MIT
/*
 * Fuzz harness for the journal a top-buffer session leaves (lib/tracefs/tracefs_journal.c):
 * any bytes as $KTRACE_STATE_DIR/top.journal, listed as a leftover
 * (ktrace_tracefs_leftovers) and put back (ktrace_tracefs_remove_leftover with name "")
 * into a directory of plain files that stands for tracefs. Nothing may be written
 * outside that directory, whatever the file names the journal holds.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/tracefs.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char base[] = "/tmp/ktrace-fuzz-journal-XXXXXX";
static char fs[128], journal[300];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fs, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* The directory goes at exit (the replay driver runs a whole corpus in one process). */
static void cleanup(void)
{
	nftw(base, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int setup(void)
{
	char dir[256];

	if (!mkdtemp(base))
		return -1;
	atexit(cleanup);
	snprintf(fs, sizeof(fs), "%s/fs", base);
	snprintf(dir, sizeof(dir), "%s/state", base);
	setenv("KTRACE_STATE_DIR", dir, 1);
	snprintf(journal, sizeof(journal), "%s/top.journal", dir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/registry", base);
	setenv("KTRACE_INSTANCE_REGISTRY", dir, 1);
	mkdir(dir, 0700);
	mkdir(fs, 0755);
	snprintf(dir, sizeof(dir), "%s/options", fs);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/per_cpu", fs);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/per_cpu/cpu0", fs);
	mkdir(dir, 0755);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_leftover *v = NULL;
	size_t n = 0;
	FILE *f;

	if (!ready)
		ready = setup() == 0 ? 1 : -1;
	if (ready < 0)
		return 0;
	put("tracing_on", "0\n");
	put("set_event", "sched:sched_switch\n");
	put("buffer_size_kb", "1410\n");
	put("options/record-tgid", "1\n");
	put("per_cpu/cpu0/buffer_size_kb", "1410\n");
	f = fopen(journal, "wb");
	if (!f)
		return 0;
	if (size)
		fwrite(data, 1, size, f);
	fclose(f);
	if (ktrace_tracefs_leftovers(fs, &v, &n, &err) == 0)
		ktrace_tracefs_leftovers_free(v, n);
	ktrace_tracefs_remove_leftover(fs, "", &err);
	unlink(journal);
	return 0;
}
