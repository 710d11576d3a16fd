// SPDX-License-Identifier: MIT
/* The common output file (lib/common/outfile.c): temporary + rename for regular files,
 * streams for FIFOs, devices and stdout, symlinks followed, mode and owner kept,
 * temporaries removed on failure and on signals. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/outfile.h"
#include "testlib.h"

static char dir[] = "/tmp/ktrace-outfile-XXXXXX";
static char path_buf[512];

static const char *in_dir(const char *name)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", dir, name);
	return path_buf;
}

/* Files in dir whose name contains ".tmp". */
static int temporaries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp"))
			n++;
	closedir(d);
	return n;
}

static int write_file(const char *path, unsigned int flags, const char *text)
{
	struct kt_outfile *f;
	struct ktrace_error err = { 0 };
	int ret = kt_outfile_open(path, flags, &f, &err);

	if (ret)
		return ret;
	if ((ret = kt_outfile_write(f, text, strlen(text), &err))) {
		kt_outfile_abort(f);
		return ret;
	}
	return kt_outfile_commit(f, &err);
}

static char *read_file(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static void new_file_gets_umask_mode(void)
{
	struct stat st;
	mode_t old = umask(027);

	CHECK_EQ(write_file(in_dir("new"), 0, "hello"), 0);
	umask(old);
	CHECK_STR(read_file(in_dir("new")), "hello");
	CHECK_EQ(stat(in_dir("new"), &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0640);
	CHECK_EQ(temporaries(), 0);
}

static void existing_file_keeps_mode_and_owner(void)
{
	struct stat st;
	const char *p = in_dir("kept");
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(chmod(p, 0751), 0);
	if (geteuid() == 0)
		CHECK_EQ(chown(p, 1234, 5678), 0);
	CHECK_EQ(write_file(p, 0, "new text"), 0);
	CHECK_STR(read_file(p), "new text");
	CHECK_EQ(stat(p, &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0751);
	if (geteuid() == 0) {
		CHECK_EQ(st.st_uid, 1234);
		CHECK_EQ(st.st_gid, 5678);
	}
}

static void symlink_target_replaced(void)
{
	struct stat st;
	char link[512];

	CHECK_EQ(write_file(in_dir("target"), 0, "old"), 0);
	snprintf(link, sizeof(link), "%s", in_dir("link"));
	CHECK_EQ(symlink("target", link), 0);
	CHECK_EQ(write_file(link, 0, "through the link"), 0);
	CHECK_EQ(lstat(link, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_STR(read_file(in_dir("target")), "through the link");
	/* a dangling link: its target is created */
	snprintf(link, sizeof(link), "%s", in_dir("dangling"));
	CHECK_EQ(symlink("created-by-link", link), 0);
	CHECK_EQ(write_file(link, 0, "made"), 0);
	CHECK_EQ(lstat(link, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_STR(read_file(in_dir("created-by-link")), "made");
	/* a loop is an error, not a hang */
	CHECK_EQ(symlink("loop", in_dir("loop")), 0);
	CHECK_EQ(write_file(in_dir("loop"), 0, "x"), -ELOOP);
	CHECK_EQ(temporaries(), 0);
}

/* Writes through a FIFO (with and without a spool) and reads it back in a child. */
static void fifo_written_as_stream(void)
{
	const char *p = in_dir("fifo");
	char fifo[512];

	snprintf(fifo, sizeof(fifo), "%s", p);
	CHECK_EQ(mkfifo(fifo, 0600), 0);
	for (int seek = 0; seek < 2; seek++) {
		int pipefd[2];
		pid_t child;
		char got[64] = "";
		struct stat st;
		struct kt_outfile *f;
		struct ktrace_error err = { 0 };

		CHECK_EQ(pipe(pipefd), 0);
		child = fork();
		if (child == 0) {
			int fd = open(fifo, O_RDONLY);
			ssize_t n = fd < 0 ? -1 : read(fd, got, sizeof(got) - 1);

			(void)!write(pipefd[1], got, n > 0 ? (size_t)n : 0);
			_exit(0);
		}
		close(pipefd[1]);
		CHECK_EQ(kt_outfile_open(fifo, seek ? KT_OUTFILE_SEEKABLE : 0, &f, &err), 0);
		CHECK(kt_outfile_is_stream(f));
		if (seek) {
			/* a writer that patches an earlier offset */
			CHECK_EQ(kt_outfile_write(f, "XXXXstream", 10, &err), 0);
			CHECK_EQ(pwrite(kt_outfile_fd(f), "seek", 4, 0), 4);
		} else {
			CHECK_EQ(kt_outfile_write(f, "streamed", 8, &err), 0);
		}
		CHECK_EQ(kt_outfile_commit(f, &err), 0);
		waitpid(child, NULL, 0);
		CHECK(read(pipefd[0], got, sizeof(got) - 1) > 0);
		close(pipefd[0]);
		CHECK_STR(got, seek ? "seekstream" : "streamed");
		CHECK_EQ(stat(fifo, &st), 0);
		CHECK(S_ISFIFO(st.st_mode));
	}
	CHECK_EQ(temporaries(), 0);
}

static void devices_never_replaced(void)
{
	struct stat st;
	struct kt_outfile *f;
	struct ktrace_error err = { 0 };
	int ret;

	CHECK_EQ(write_file("/dev/null", 0, "discarded"), 0);
	CHECK_EQ(write_file("/dev/null", KT_OUTFILE_SEEKABLE, "discarded"), 0);
	CHECK_EQ(stat("/dev/null", &st), 0);
	CHECK(S_ISCHR(st.st_mode));
	/* a full device fails at the write (or, spooled, at the commit) */
	CHECK_EQ(write_file("/dev/full", 0, "x"), -ENOSPC);
	CHECK_EQ(kt_outfile_open("/dev/full", KT_OUTFILE_SEEKABLE, &f, &err), 0);
	CHECK_EQ(kt_outfile_write(f, "x", 1, &err), 0);
	ret = kt_outfile_commit(f, &err);
	CHECK_EQ(ret, -ENOSPC);
	CHECK(strstr(err.message, "/dev/full") != NULL);
	CHECK_EQ(stat("/dev/full", &st), 0);
	CHECK(S_ISCHR(st.st_mode));
	/* a directory is refused */
	CHECK_EQ(write_file(dir, 0, "x"), -EISDIR);
}

static void abort_leaves_target_alone(void)
{
	struct kt_outfile *f;
	struct ktrace_error err = { 0 };

	CHECK_EQ(write_file(in_dir("abort"), 0, "before"), 0);
	CHECK_EQ(kt_outfile_open(in_dir("abort"), 0, &f, &err), 0);
	CHECK_EQ(kt_outfile_write(f, "half", 4, &err), 0);
	CHECK_EQ(temporaries(), 1);
	kt_outfile_abort(f);
	CHECK_STR(read_file(in_dir("abort")), "before");
	CHECK_EQ(temporaries(), 0);
	/* no directory: an error naming the file */
	CHECK_EQ(kt_outfile_open("/nonexistent-dir/x", 0, &f, &err), -ENOENT);
	CHECK(strstr(err.message, "/nonexistent-dir/x") != NULL);
}

static void create_only_never_replaces(void)
{
	struct stat st;

	CHECK_EQ(write_file(in_dir("once"), KT_OUTFILE_CREATE_ONLY, "first"), 0);
	CHECK_EQ(write_file(in_dir("once"), KT_OUTFILE_CREATE_ONLY, "second"), -EEXIST);
	CHECK_STR(read_file(in_dir("once")), "first");
	CHECK_EQ(stat(in_dir("once"), &st), 0);
	CHECK_EQ(st.st_mode & 0777, 0600);
	/* a symbolic link, even dangling, is not followed */
	CHECK_EQ(symlink("not-created", in_dir("trap")), 0);
	CHECK_EQ(write_file(in_dir("trap"), KT_OUTFILE_CREATE_ONLY, "x"), -EEXIST);
	CHECK(access(in_dir("not-created"), F_OK) < 0);
	CHECK_EQ(temporaries(), 0);
}

/* A process killed by a signal while writing leaves no temporary behind, and still
 * dies of that signal. */
static void signal_removes_temporary(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int status = 0;
		pid_t child = fork();

		if (child == 0) {
			struct kt_outfile *f;

			signal(sigs[i], SIG_DFL);
			if (kt_outfile_open(in_dir("killed"), 0, &f, NULL) ||
			    kt_outfile_write(f, "partial", 7, NULL))
				_exit(3);
			raise(sigs[i]);
			_exit(4);
		}
		CHECK_EQ(waitpid(child, &status, 0), child);
		CHECK(WIFSIGNALED(status));
		if (WIFSIGNALED(status))
			CHECK_EQ(WTERMSIG(status), sigs[i]);
		CHECK_EQ(temporaries(), 0);
		CHECK(access(in_dir("killed"), F_OK) < 0);
	}
}

/* A file the user may not write is not replaced, as cp refuses it; root may (run as
 * nobody in a child when we are root, in a directory nobody may write). */
static void unwritable_file_not_replaced(void)
{
	char sub[512], p[600];
	int status = 0;
	pid_t child;
	int fd;

	snprintf(sub, sizeof(sub), "%s", in_dir("open"));
	CHECK_EQ(chmod(dir, 0711), 0);      /* (mkdtemp's 0700 would stop nobody at the door) */
	CHECK_EQ(mkdir(sub, 0777), 0);
	CHECK_EQ(chmod(sub, 0777), 0);
	snprintf(p, sizeof(p), "%s/ro", sub);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0444);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "mine", 4), 4);
	close(fd);
	CHECK_EQ(chmod(p, 0444), 0);
	if (geteuid() == 0) {
		child = fork();
		if (child == 0) {
			struct kt_outfile *f;
			struct ktrace_error err = { 0 };
			int ret;

			if (setgid(65534) || setuid(65534))
				_exit(10);
			ret = kt_outfile_open(p, 0, &f, &err);
			if (ret != -EACCES || !strstr(err.message, "not replaced"))
				_exit(11);
			/* and no temporary left */
			_exit(0);
		}
		CHECK_EQ(waitpid(child, &status, 0), child);
		CHECK(WIFEXITED(status));
		CHECK_EQ(WEXITSTATUS(status), 0);
		CHECK_STR(read_file(p), "mine");
		/* root replaces it, as cp does; the mode stays */
		CHECK_EQ(write_file(p, 0, "root's"), 0);
		CHECK_STR(read_file(p), "root's");
	} else {
		/* not root: our own read-only file is refused as well */
		CHECK_EQ(write_file(p, 0, "x"), -EACCES);
		CHECK_STR(read_file(p), "mine");
	}
	CHECK_EQ(temporaries(), 0);
	snprintf(p, sizeof(p), "rm -rf '%s'", sub);
	CHECK_EQ(system(p), 0);
	CHECK_EQ(chmod(dir, 0700), 0);
}

/* Writes files a, b (with text) into a kt_outdir at path. */
static int write_dir(const char *path, const char *const *names, const char *text)
{
	struct kt_outdir *d;
	struct ktrace_error err = { 0 };
	int ret = kt_outdir_open(path, names, &d, &err);

	if (ret)
		return ret;
	for (int i = 0; i < 2 && !ret; i++) {
		struct kt_outfile *f;

		ret = kt_outdir_file(d, i ? "b" : "a", &f, &err);
		if (!ret && (ret = kt_outfile_write(f, text, strlen(text), &err)))
			kt_outfile_abort(f);
		else if (!ret)
			ret = kt_outfile_commit(f, &err);
	}
	if (ret) {
		kt_outdir_abort(d);
		return ret;
	}
	return kt_outdir_commit(d, &err);
}

static void directory_renamed_whole(void)
{
	static const char *const names[] = { "a", "b", "c", NULL };
	char p[600], q[600];
	struct stat st;
	struct kt_outdir *d;
	struct kt_outfile *f;
	struct ktrace_error err = { 0 };
	mode_t old = umask(022);

	/* a new directory: 0777 less the umask, both files */
	CHECK_EQ(write_dir(in_dir("tables"), names, "one"), 0);
	umask(old);
	snprintf(p, sizeof(p), "%s/b", in_dir("tables"));
	CHECK_STR(read_file(p), "one");
	CHECK_EQ(stat(in_dir("tables"), &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0755);
	/* an earlier output (a file c the new one lacks) with its own mode: replaced whole */
	snprintf(q, sizeof(q), "%s/c", in_dir("tables"));
	CHECK_EQ(write_file(q, 0, "stale"), 0);
	CHECK_EQ(chmod(in_dir("tables"), 0750), 0);
	CHECK_EQ(write_dir(in_dir("tables"), names, "two"), 0);
	CHECK_STR(read_file(p), "two");
	CHECK(access(q, F_OK) < 0);
	CHECK_EQ(stat(in_dir("tables"), &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0750);
	CHECK_EQ(temporaries(), 0);
	/* a file that is not one of ours: refused before anything is written */
	snprintf(q, sizeof(q), "%s/notes.txt", in_dir("tables"));
	CHECK_EQ(write_file(q, 0, "keep me"), 0);
	CHECK_EQ(write_dir(in_dir("tables"), names, "three"), -ENOTEMPTY);
	CHECK_STR(read_file(q), "keep me");
	CHECK_STR(read_file(p), "two");
	CHECK_EQ(temporaries(), 0);
	/* a regular file is no directory */
	CHECK_EQ(write_dir(in_dir("new"), names, "x"), -ENOTDIR);
	/* an abort after some files: nothing left, the old directory as it was */
	unlink(q);
	CHECK_EQ(kt_outdir_open(in_dir("tables"), names, &d, &err), 0);
	CHECK_EQ(kt_outdir_file(d, "a", &f, &err), 0);
	CHECK_EQ(kt_outfile_write(f, "half", 4, &err), 0);
	CHECK_EQ(kt_outfile_commit(f, &err), 0);
	CHECK_EQ(temporaries(), 1);
	kt_outdir_abort(d);
	CHECK_EQ(temporaries(), 0);
	CHECK_STR(read_file(p), "two");
	/* a name with a slash is refused */
	CHECK_EQ(kt_outdir_open(in_dir("tables2"), names, &d, &err), 0);
	CHECK_EQ(kt_outdir_file(d, "../x", &f, &err), -EINVAL);
	kt_outdir_abort(d);
	CHECK(access(in_dir("tables2"), F_OK) < 0);
	CHECK_EQ(temporaries(), 0);
}

/* A signal while the directory is written removes it with its files. */
static void signal_removes_directory(void)
{
	static const char *const names[] = { "a", NULL };
	int status = 0;
	pid_t child = fork();

	if (child == 0) {
		struct kt_outdir *d;
		struct kt_outfile *f;

		signal(SIGTERM, SIG_DFL);
		if (kt_outdir_open(in_dir("killed-dir"), names, &d, NULL) ||
		    kt_outdir_file(d, "a", &f, NULL) || kt_outfile_write(f, "partial", 7, NULL))
			_exit(3);
		raise(SIGTERM);
		_exit(4);
	}
	CHECK_EQ(waitpid(child, &status, 0), child);
	CHECK(WIFSIGNALED(status));
	if (WIFSIGNALED(status))
		CHECK_EQ(WTERMSIG(status), SIGTERM);
	CHECK_EQ(temporaries(), 0);
	CHECK(access(in_dir("killed-dir"), F_OK) < 0);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	PLAN(11);
	RUN(new_file_gets_umask_mode);
	RUN(existing_file_keeps_mode_and_owner);
	RUN(symlink_target_replaced);
	RUN(fifo_written_as_stream);
	RUN(devices_never_replaced);
	RUN(abort_leaves_target_alone);
	RUN(create_only_never_replaces);
	RUN(signal_removes_temporary);
	RUN(unwritable_file_not_replaced);
	RUN(directory_renamed_whole);
	RUN(signal_removes_directory);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			return 1;
	}
	return TEST_EXIT();
}
