// SPDX-License-Identifier: MIT
/* The journal of a top-buffer session (lib/tracefs/tracefs_journal.c), on a directory of
 * plain files standing for tracefs: claimed by one process at a time, each value noted
 * before it changes, a killed session's journal named as a leftover and put back with
 * the values it noted first, a line cut by the kill left out, a damaged journal
 * refused. Needs neither root nor tracefs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracefs/tracefs_int.h"
#include "testlib.h"

static char base[] = "/tmp/ktrace-journal-XXXXXX";
static char fs[256], state[256], journal[300];

static void put(const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fs, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The file's text, static. */
static const char *get(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = 0;
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

static const char *fs_file(const char *name)
{
	static char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", fs, name);
	return get(path);
}

/* A pid whose process has exited (a child reaped). */
static long dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return (long)p;
}

static void fake_tracefs(void)
{
	put("tracing_on", "0\n");
	put("set_event", "sched:sched_switch\nsched:sched_wakeup\n");
	put("buffer_size_kb", "2051\n");
	put("trace_clock", "local [global] counter\n");
	put("options/record-tgid", "1\n");
	put("options/sym-offset", "1\n");
	put("buffer_percent", "1\n");
	put("set_event_pid", "77\n");
	put("events/sched/sched_switch/filter", "prev_pid > 0\n");
	put("per_cpu/cpu1/buffer_size_kb", "2051\n");
}

static void claim_note_release(void)
{
	struct tfs_buffer b = { .journal_fd = -1 }, other = { .journal_fd = -1 };
	struct ktrace_error err = { 0 };
	char want[128];

	CHECK_EQ(tfs_journal_claim(&b, fs, true, &err), 0);
	CHECK(access(journal, F_OK) == 0);
	snprintf(want, sizeof(want), "ktrace-journal 1\nowner %ld ", (long)getpid());
	CHECK(!strncmp(get(journal), want, strlen(want)));
	CHECK(strstr(get(journal), " record\ntracefs ") != NULL);
	/* each value before it changes, escaped */
	CHECK_EQ(tfs_journal_note(&b, 's', "set_event", "a:b\nc:d", &err), 0);
	CHECK_EQ(tfs_journal_note(&b, 'x', "options/sym-offset", "0", &err), 0);
	CHECK(strstr(get(journal), "\ns\tset_event\ta:b\\nc:d\nx\toptions/sym-offset\t0\n") != NULL);
	/* taken: a second session refuses, naming the first */
	CHECK_EQ(tfs_journal_claim(&other, fs, true, &err), -EBUSY);
	snprintf(want, sizeof(want), "in use by ktrace record (pid %ld)", (long)getpid());
	CHECK(strstr(err.message, want) != NULL);
	CHECK_EQ(other.journal_fd, -1);
	/* a running session's journal is no leftover, and is not put back */
	{
		struct ktrace_tracefs_leftover *v;
		size_t n = 9;

		CHECK_EQ(ktrace_tracefs_leftovers(fs, &v, &n, &err), 0);
		CHECK_EQ(n, 0);
		ktrace_tracefs_leftovers_free(v, n);
		CHECK_EQ(ktrace_tracefs_remove_leftover(fs, "", &err), -EBUSY);
	}
	tfs_journal_release(&b);
	CHECK(access(journal, F_OK) < 0);
	CHECK_EQ(b.journal_fd, -1);
	/* free again: the other claims it */
	CHECK_EQ(tfs_journal_claim(&other, fs, false, &err), 0);
	CHECK(strstr(get(journal), " start\ntracefs ") != NULL);
	tfs_journal_release(&other);
}

static void killed_put_back(void)
{
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_leftover *v = NULL;
	struct tfs_buffer b = { .journal_fd = -1 };
	long pid = dead_pid();
	size_t n = 0;
	char text[4096];
	FILE *f;

	fake_tracefs();
	/* what a killed recording noted (the buffer sizes per CPU, which differed), the
	 * first value of a file being the one found; its last line cut by the kill */
	snprintf(text, sizeof(text),
		 "ktrace-journal 1\nowner %ld 12345 record\ntracefs %s\n"
		 "s\ttracing_on\t1\ns\tset_event\t\nc\t1\t700\n"
		 "s\ttrace_clock\tlocal\ns\toptions/record-tgid\t0\nx\toptions/sym-offset\t0\n"
		 "x\tevents/sched/sched_switch/filter\t0\ns\ttracing_on\t0\n"
		 "s\tbuffer_percent\t50\ns\tset_event_pid\t12", pid, fs);
	f = fopen(journal, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);

	CHECK_EQ(ktrace_tracefs_leftovers(fs, &v, &n, &err), 0);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_STR(v[0].name, "");
		CHECK_EQ(v[0].pid, pid);
		CHECK(v[0].what && strstr(v[0].what, "a recording (pid ") &&
		      strstr(v[0].what, " that was killed changed tracing_on, set_event, buffer_size_kb, "
			     "trace_clock, options/record-tgid, options/sym-offset, "
			     "events/sched/sched_switch/filter, buffer_percent (now: 2 events enabled)"));
	}
	ktrace_tracefs_leftovers_free(v, n);
	/* the next session does not take the buffer as it is */
	CHECK_EQ(tfs_journal_claim(&b, fs, true, &err), -ESTALE);
	CHECK(strstr(err.message, "left changed by a recording that was killed") != NULL);

	CHECK_EQ(ktrace_tracefs_remove_leftover(fs, "", &err), 0);
	CHECK_STR(fs_file("tracing_on"), "1");
	CHECK_STR(fs_file("set_event"), "");
	CHECK_STR(fs_file("per_cpu/cpu1/buffer_size_kb"), "700");
	CHECK_STR(fs_file("buffer_size_kb"), "2051\n");    /* per CPU sizes were noted */
	CHECK_STR(fs_file("trace_clock"), "local");
	CHECK_STR(fs_file("options/record-tgid"), "0");
	CHECK_STR(fs_file("options/sym-offset"), "0");
	CHECK_STR(fs_file("events/sched/sched_switch/filter"), "0");
	CHECK_STR(fs_file("buffer_percent"), "50");
	CHECK_STR(fs_file("set_event_pid"), "77\n");      /* the cut line: not touched */
	CHECK(access(journal, F_OK) < 0);
	CHECK_EQ(ktrace_tracefs_leftovers(fs, &v, &n, &err), 0);
	CHECK_EQ(n, 0);
	ktrace_tracefs_leftovers_free(v, n);
	CHECK_EQ(ktrace_tracefs_remove_leftover(fs, "", &err), -ENOENT);
}

/* The events enabled before, put back line by line. */
static void killed_events_back(void)
{
	struct ktrace_error err = { 0 };
	long pid = dead_pid();
	char text[1024];
	FILE *f;

	fake_tracefs();
	snprintf(text, sizeof(text), "ktrace-journal 1\nowner %ld 1 stream\ntracefs %s\n"
		 "s\tset_event\tirq:irq_handler_entry\\ntimer:hrtimer_start\n", pid, fs);
	f = fopen(journal, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	CHECK_EQ(ktrace_tracefs_remove_leftover(fs, "", &err), 0);
	/* emptied, then each appended (a plain file keeps them end to end) */
	CHECK_STR(fs_file("set_event"), "irq:irq_handler_entrytimer:hrtimer_start");
	CHECK_STR(fs_file("tracing_on"), "0\n");          /* not noted: not touched */
}

static void damaged_refused(void)
{
	struct ktrace_error err = { 0 };
	struct ktrace_tracefs_leftover *v = NULL;
	struct tfs_buffer b = { .journal_fd = -1 };
	size_t n = 0;
	FILE *f = fopen(journal, "w");

	if (!f)
		return;
	fputs("not a journal\ns\ttracing_on\t1\n", f);
	fclose(f);
	CHECK(ktrace_tracefs_leftovers(fs, &v, &n, &err) < 0);
	CHECK(strstr(err.message, "not a ktrace journal") != NULL);
	CHECK_EQ(tfs_journal_claim(&b, fs, true, &err), -EINVAL);
	CHECK_EQ(b.journal_fd, -1);
	CHECK(access(journal, F_OK) == 0);                  /* left for a person to look at */
	unlink(journal);
	/* no owner line */
	f = fopen(journal, "w");
	if (!f)
		return;
	fputs("ktrace-journal 1\ns\ttracing_on\t1\n", f);
	fclose(f);
	CHECK_EQ(ktrace_tracefs_remove_leftover(fs, "", &err), -EINVAL);
	unlink(journal);
}

int main(void)
{
	char reg[PATH_MAX];

	PLAN(4);
	if (!mkdtemp(base)) {
		printf("not ok - journal_setup\n");
		return 1;
	}
	snprintf(fs, sizeof(fs), "%s/fs", base);
	snprintf(state, sizeof(state), "%s/state", base);
	snprintf(journal, sizeof(journal), "%s/top.journal", state);
	snprintf(reg, sizeof(reg), "%s/registry", base);
	setenv("KTRACE_STATE_DIR", state, 1);
	setenv("KTRACE_INSTANCE_REGISTRY", reg, 1);
	mkdir(fs, 0755);
	mkdir(reg, 0700);
	{
		char d[PATH_MAX + 64];

		snprintf(d, sizeof(d), "%s/options", fs);
		mkdir(d, 0755);
		snprintf(d, sizeof(d), "%s/per_cpu", fs);
		mkdir(d, 0755);
		snprintf(d, sizeof(d), "%s/per_cpu/cpu1", fs);
		mkdir(d, 0755);
		snprintf(d, sizeof(d), "%s/events", fs);
		mkdir(d, 0755);
		snprintf(d, sizeof(d), "%s/events/sched", fs);
		mkdir(d, 0755);
		snprintf(d, sizeof(d), "%s/events/sched/sched_switch", fs);
		mkdir(d, 0755);
	}
	fake_tracefs();
	RUN(claim_note_release);
	RUN(killed_put_back);
	RUN(killed_events_back);
	RUN(damaged_refused);
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", base);
	}
	return TEST_EXIT();
}
