// SPDX-License-Identifier: MIT
/*
 * Output files of ktrace sql: built under a temporary name beside the final one
 * ("PATH.tmpXXXXXX") and renamed over it when complete, so that a failed or
 * interrupted writer never leaves a half-written file under the final name. An
 * existing file keeps its mode; a symbolic link is followed (its target is replaced);
 * FIFOs, devices and directories are refused (a database cannot be streamed). While a
 * temporary file exists, SIGINT, SIGTERM, SIGHUP and SIGQUIT (when at their default
 * action) remove it before the process ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sql/sql_int.h"
#include "sql/tempfile.h"

#define MAX_TEMPS 16

static char temps[MAX_TEMPS][PATH_MAX];
static volatile sig_atomic_t temp_used[MAX_TEMPS];
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temp_used[i])
			unlink(temps[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void watch_signals(void)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(fatal_signals[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

static int note_temp(const char *path)
{
	for (int i = 0; i < MAX_TEMPS; i++) {
		if (temp_used[i])
			continue;
		snprintf(temps[i], sizeof(temps[i]), "%s", path);
		temp_used[i] = 1;
		watch_signals();
		return i;
	}
	return -1;
}

static void forget_temp(int slot)
{
	if (slot >= 0 && slot < MAX_TEMPS)
		temp_used[slot] = 0;
}

int sql_tmp_create(const char *path, struct sql_tmp *t, struct ktrace_error *err)
{
	struct stat st;
	char *target = NULL;
	mode_t mode = 0;
	bool keep_mode = false;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->slot = -1;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		target = realpath(path, NULL);
		if (!target)
			return ktrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	}
	if (!stat(target ? target : path, &st)) {
		if (!S_ISREG(st.st_mode)) {
			free(target);
			return ktrace_error_set(err, -EINVAL, "%s: not a regular file (a database is "
						"written as a file of its own)", path);
		}
		mode = st.st_mode & 07777;
		keep_mode = true;
	}
	t->final = target ? target : strdup(path);
	if (!t->final)
		return ktrace_error_set(err, -ENOMEM, "out of memory");
	t->tmp = malloc(strlen(t->final) + 16);
	if (!t->tmp) {
		sql_tmp_abort(t);
		return ktrace_error_set(err, -ENOMEM, "out of memory");
	}
	sprintf(t->tmp, "%s.tmpXXXXXX", t->final);
	t->fd = mkstemp(t->tmp);
	if (t->fd < 0) {
		int e = errno;

		free(t->tmp);
		t->tmp = NULL;
		sql_tmp_abort(t);
		return ktrace_error_set(err, -e, "%s: %s", path, strerror(e));
	}
	t->slot = note_temp(t->tmp);
	/* an existing file keeps its mode; a new one gets 0666 less the umask */
	if (!keep_mode) {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	fchmod(t->fd, mode);
	return 0;
}

int sql_tmp_commit(struct sql_tmp *t, struct ktrace_error *err)
{
	int ret = 0;

	if (t->fd >= 0 && fsync(t->fd))
		ret = ktrace_error_set(err, -errno, "%s: %s", t->final, strerror(errno));
	if (t->fd >= 0 && close(t->fd) && !ret)
		ret = ktrace_error_set(err, -errno, "%s: %s", t->final, strerror(errno));
	t->fd = -1;
	if (!ret && rename(t->tmp, t->final))
		ret = ktrace_error_set(err, -errno, "%s: %s", t->final, strerror(errno));
	if (ret) {
		sql_tmp_abort(t);
		return ret;
	}
	forget_temp(t->slot);
	free(t->tmp);
	free(t->final);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	return 0;
}

void sql_tmp_abort(struct sql_tmp *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->tmp)
		unlink(t->tmp);
	forget_temp(t->slot);
	free(t->tmp);
	free(t->final);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}
