// SPDX-License-Identifier: MIT
/*
 * Output files of the CLI (cli.h, cli_outfile_*): a regular file (or a missing one) is
 * written under a temporary name in its directory and renamed over the final name
 * when complete, with the mode and owner of the file it replaces; a symlink is
 * followed (its target is replaced, not the link); standard output ("-"), a FIFO and
 * a device are written in place, as a stream. On SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * the temporary file is removed before the signal ends the program.
 *
 * This is the export command's writer until the library's common output-file writer
 * (lib/common/outfile.c) lands; then this file goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The temporary file being written, for the signal handler. */
static volatile sig_atomic_t tmp_active;
static char tmp_path[PATH_MAX + 32];

static void on_signal(int sig)
{
	if (tmp_active)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void watch_signals(bool on)
{
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++) {
		struct sigaction sa = { 0 };

		sa.sa_handler = on ? on_signal : SIG_DFL;
		sigemptyset(&sa.sa_mask);
		sigaction(cleanup_signals[i], &sa, NULL);
	}
}

/* mkstemp(tmpl), with the handlers watching it before a signal can end the program:
 * the signals wait (blocked) from before the file exists until the handler knows it. */
static int create_watched(char *tmpl)
{
	sigset_t set, old;
	int fd, e;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaddset(&set, cleanup_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	fd = mkstemp(tmpl);
	e = errno;
	if (fd >= 0) {
		tmp_active = 1;
		watch_signals(true);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return fd;
}

int cli_outfile_open(struct cli_outfile *f, const char *path)
{
	struct stat st;
	char *real = NULL;
	const char *target = path;
	mode_t mask;
	int fd;

	memset(f, 0, sizeof(*f));
	f->path = path;
	f->fd = -1;
	if (!strcmp(path, "-")) {
		f->fd = STDOUT_FILENO;
		f->stream = true;
		return CLI_OK;
	}
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (real)
			target = real;
	}
	if (!stat(target, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			cli_errorf(path, "is a directory");
			free(real);
			return CLI_FAILED;
		}
		/* a FIFO, a device: written in place */
		fd = open(target, O_WRONLY | O_CLOEXEC);
		free(real);
		if (fd < 0) {
			cli_errorf(path, "%s", strerror(errno));
			return CLI_FAILED;
		}
		f->fd = fd;
		f->stream = true;
		return CLI_OK;
	}
	if (!real && !lstat(path, &st) && S_ISLNK(st.st_mode)) {
		/* a dangling symlink: create its target through it */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0) {
			cli_errorf(path, "%s", strerror(errno));
			return CLI_FAILED;
		}
		f->fd = fd;
		f->stream = true;
		return CLI_OK;
	}
	{
		const char *slash = strrchr(target, '/');
		int dl = slash ? (int)(slash - target + 1) : 0;

		if (snprintf(tmp_path, sizeof(tmp_path), "%.*s.%s.tmpXXXXXX", dl, target,
			     slash ? slash + 1 : target) >= (int)sizeof(tmp_path)) {
			free(real);
			cli_errorf(path, "name too long");
			return CLI_FAILED;
		}
	}
	fd = create_watched(tmp_path);
	if (fd < 0) {
		cli_errorf(path, "cannot create a temporary file beside it: %s", strerror(errno));
		free(real);
		return CLI_FAILED;
	}
	if (!stat(target, &st)) {
		/* keep the replaced file's mode and owner (the owner when allowed) */
		if (fchown(fd, st.st_uid, st.st_gid))
			(void)0;
		fchmod(fd, st.st_mode & 07777);
	} else {
		mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	f->fd = fd;
	f->target = real ? real : strdup(target);
	f->tmp = tmp_path;
	if (!f->target) {
		cli_outfile_discard(f);
		cli_errorf(NULL, "out of memory");
		return CLI_FAILED;
	}
	return CLI_OK;
}

int cli_outfile_commit(struct cli_outfile *f)
{
	int ret = CLI_OK;

	if (f->stream) {
		if (f->fd != STDOUT_FILENO && close(f->fd)) {
			cli_errorf(f->path, "%s", strerror(errno));
			ret = CLI_FAILED;
		}
		f->fd = -1;
		return ret;
	}
	if (close(f->fd) || rename(f->tmp, f->target)) {
		cli_errorf(f->path, "%s", strerror(errno));
		f->fd = -1;
		cli_outfile_discard(f);
		return CLI_FAILED;
	}
	f->fd = -1;
	tmp_active = 0;
	watch_signals(false);
	free(f->target);
	f->target = NULL;
	return ret;
}

void cli_outfile_discard(struct cli_outfile *f)
{
	if (f->fd >= 0 && f->fd != STDOUT_FILENO)
		close(f->fd);
	f->fd = -1;
	if (f->tmp && tmp_active) {
		unlink(f->tmp);
		tmp_active = 0;
		watch_signals(false);
	}
	free(f->target);
	f->target = NULL;
}
