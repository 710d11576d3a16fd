// SPDX-License-Identifier: MIT
/* Output files: temporary + rename for regular files, streams for FIFOs, devices and
 * standard output, and the removal of temporaries on signals (see outfile.h). */
#include "common/check.h"
#include "common/outfile.h"

#include <ktrace/out.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINK_HOPS 40
#define COPY_SIZE     (1u << 20)

enum outfile_kind { OF_TEMP, OF_STREAM, OF_SPOOLED, OF_IN_DIR };

struct kt_outfile {
	enum outfile_kind kind;
	unsigned int flags;
	int fd;                 /* what the writer writes to */
	int stream_fd;          /* OF_SPOOLED: the stream the spool is copied to */
	bool close_stream;      /* the stream is ours to close (not standard output) */
	char *name;             /* as given */
	char *target;           /* OF_TEMP: the file the temporary replaces */
	char *tmp;              /* OF_TEMP: the temporary file; OF_IN_DIR: the file */
	int slot;               /* OF_TEMP: its signal-cleanup slot, or -1 */
};

struct kt_outdir {
	char *name;             /* as given */
	char *target;           /* the directory the temporary one becomes (links followed) */
	char *tmp;              /* the temporary directory beside it */
	const char *const *names;  /* what an earlier output may hold (the caller's) */
	bool replace;           /* target exists: exchanged for the new one by commit */
	int slot;               /* its signal-cleanup slot, or -1 */
};

/* ---- removal of temporaries on signals -------------------------------------------- */

#define CLEANUP_SLOTS 64

/* Paths the signal handler removes; a slot is taken with a compare-and-swap, the path
 * set before the pid that makes it count, and cleared before the path is freed. */
static _Atomic(char *) cleanup_path[CLEANUP_SLOTS];
static atomic_int cleanup_pid[CLEANUP_SLOTS];
static atomic_bool cleanup_is_dir[CLEANUP_SLOTS];

static const int fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1, SIGSEGV,
	SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS,
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

/* What getdents64(2) fills in. */
struct dirent64_raw {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* Removes the files of directory dir, then dir (a temporary directory of ours holds
 * files only). Async-signal-safe: no allocation, raw getdents64. */
static void remove_dir(const char *dir)
{
	_Alignas(8) char buf[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		/* again from the start while a pass removes something: entries removed
		 * during a listing may hide others from it */
		for (int pass = 0; pass < 100; pass++) {
			bool removed = false;
			long n;

			if (lseek(fd, 0, SEEK_SET) < 0)
				break;
			while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
				for (long at = 0; at < n;) {
					const struct dirent64_raw *d = (const void *)(buf + at);

					if (d->reclen == 0)
						break;
					at += d->reclen;
					if (!strcmp(d->name, ".") || !strcmp(d->name, ".."))
						continue;
					if (!unlinkat(fd, d->name, 0))
						removed = true;
				}
			}
			if (!removed)
				break;
		}
		close(fd);
	}
	rmdir(dir);
}

static void on_fatal_signal(int sig)
{
	int saved = errno;
	int me = (int)getpid();

	/* files first: a file may be in a directory that is removed next */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < CLEANUP_SLOTS; i++) {
			char *p = atomic_load(&cleanup_path[i]);

			if (!p || atomic_load(&cleanup_pid[i]) != me ||
			    atomic_load(&cleanup_is_dir[i]) != (pass == 1))
				continue;
			if (pass)
				remove_dir(p);
			else
				unlink(p);
		}
	}
	/* the signal is blocked while we run: it is delivered with its default action
	 * when we return */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

static void install_handlers(void)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(fatal_signals[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;     /* ignored, or the program's own handler: left alone */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		/* one cleanup at a time: the other fatal signals wait for it */
		sigemptyset(&sa.sa_mask);
		for (size_t k = 0; k < sizeof(fatal_signals) / sizeof(fatal_signals[0]); k++)
			sigaddset(&sa.sa_mask, fatal_signals[k]);
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

static int cleanup_add(char *path, bool is_dir)
{
	/* checked each time: a signal the program has set back to its default is
	 * covered again */
	install_handlers();
	for (int i = 0; i < CLEANUP_SLOTS; i++) {
		char *expected = NULL;

		if (atomic_compare_exchange_strong(&cleanup_path[i], &expected, path)) {
			atomic_store(&cleanup_is_dir[i], is_dir);
			atomic_store(&cleanup_pid[i], (int)getpid());
			return i;
		}
	}
	return -1;     /* more than CLEANUP_SLOTS at once: written, but not cleaned on signals */
}

static void cleanup_remove(int slot)
{
	if (slot < 0)
		return;
	atomic_store(&cleanup_pid[slot], 0);
	atomic_store(&cleanup_path[slot], NULL);
}

/* ---- helpers ---------------------------------------------------------------------- */

static int fail(struct ktrace_error *err, int code, const char *fmt, const char *path)
{
	return ktrace_error_set(err, code, fmt, path, strerror(-code));
}

/* write(2), or pwrite(2) at *at (moved on), until all of it went. */
static int write_loop(int fd, const void *p, size_t n, uint64_t *at)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t r = at ? pwrite(fd, b, n, (off_t)*at) : write(fd, b, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		b += r;
		n -= (size_t)r;
		if (at)
			*at += (uint64_t)r;
	}
	return 0;
}

int kt_write_all(int fd, const void *p, size_t n)
{
	return write_loop(fd, p, n, NULL);
}

int kt_pwrite_all(int fd, const void *p, size_t n, uint64_t at)
{
	return write_loop(fd, p, n, &at);
}

int kt_pread_all(int fd, void *p, size_t n, uint64_t at)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(fd, (uint8_t *)p + done, n - done, (off_t)(at + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENODATA;
		done += (size_t)r;
	}
	return 0;
}

/* Follows symbolic links to the file they name (which may not exist yet). Returns a
 * new string, or NULL with errno set. */
static char *resolve_links(const char *path)
{
	char *cur = strdup(path);

	for (int hops = 0; cur; hops++) {
		char link[PATH_MAX], *next;
		struct stat st;
		ssize_t n;

		if (lstat(cur, &st) < 0) {
			if (errno == ENOENT)
				return cur;
			break;
		}
		if (!S_ISLNK(st.st_mode))
			return cur;
		if (hops == MAX_LINK_HOPS) {
			errno = ELOOP;
			break;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			break;
		link[n] = 0;
		if (link[0] == '/') {
			next = strdup(link);
		} else {
			const char *slash = strrchr(cur, '/');
			int dirlen = slash ? (int)(slash - cur) + 1 : 0;

			if (asprintf(&next, "%.*s%s", dirlen, cur, link) < 0)
				next = NULL;
		}
		free(cur);
		cur = next;
	}
	{
		int e = errno ? errno : ENOMEM;

		free(cur);
		errno = e;
	}
	return NULL;
}

/* Holds the fatal signals (until unblock_fatal): a file that exists is known to the
 * cleanup list before a signal can end the process. */
static void block_fatal(sigset_t *old)
{
	sigset_t fatal;

	sigemptyset(&fatal);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(&fatal, fatal_signals[i]);
	pthread_sigmask(SIG_BLOCK, &fatal, old);
}

static void unblock_fatal(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Creates "TARGET.tmpXXXXXX" exclusively with mode (the umask applies): a file open for
 * reading and writing (its descriptor), or with dir a directory (0). The signals that
 * remove temporaries wait from before it exists until the cleanup list has it (*slot).
 * A negative errno on failure. */
static int create_temp(const char *target, mode_t mode, bool dir, char **tmp_out, int *slot)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t len = strlen(target);
	char *tmp = malloc(len + 16);
	sigset_t old;
	int fd = -EEXIST;

	if (!tmp)
		return -ENOMEM;
	block_fatal(&old);
	for (int attempt = 0; attempt < 100; attempt++) {
		uint8_t rnd[6];

		if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
			struct timespec ts;
			uint64_t v;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			v = (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)getpid() << 20 ^
			    (uint64_t)attempt;
			for (int i = 0; i < 6; i++)
				rnd[i] = (uint8_t)(v >> (8 * i));
		}
		memcpy(tmp, target, len);
		memcpy(tmp + len, ".tmp", 4);
		for (int i = 0; i < 6; i++)
			tmp[len + 4 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
		tmp[len + 10] = 0;
		fd = dir ? mkdir(tmp, mode) : open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (fd >= 0) {
			*tmp_out = tmp;
			*slot = cleanup_add(tmp, dir);
			break;
		}
		fd = -errno;
		if (fd != -EEXIST)
			break;
	}
	unblock_fatal(&old);
	if (fd < 0)
		free(tmp);
	return fd;
}

/* Whether we may write the existing file (or directory) path, as open(2) would judge
 * it for our effective ids: a file the user may not write is not replaced behind its
 * back by a rename, as cp and a shell's redirection refuse it. (Root may, as with
 * them.) 0 or a negative errno. */
static int may_replace(const char *path)
{
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) < 0 ? -errno : 0;
}

int kt_outfile_anonymous(const char *dir)
{
	sigset_t old;
	char *path;
	int fd;

	if (!dir || !*dir)
		dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* no O_TMPFILE there: a named file, removed at once (no signal in between) */
	if (asprintf(&path, "%s/.ktrace-XXXXXX", dir) < 0)
		return -ENOMEM;
	block_fatal(&old);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	else
		unlink(path);
	unblock_fatal(&old);
	free(path);
	return fd;
}

static void outfile_free(struct kt_outfile *f)
{
	if (f->fd >= 0 && f->fd != STDOUT_FILENO)
		close(f->fd);
	if (f->kind == OF_SPOOLED && f->close_stream && f->stream_fd >= 0)
		close(f->stream_fd);
	if (f->tmp) {
		unlink(f->tmp);
		cleanup_remove(f->slot);
	}
	free(f->tmp);
	free(f->target);
	free(f->name);
	free(f);
}

/* ---- open ------------------------------------------------------------------------- */

static int open_stream(struct kt_outfile *f, int fd, bool ours, struct ktrace_error *err)
{
	if (!(f->flags & KT_OUTFILE_SEEKABLE)) {
		f->kind = OF_STREAM;
		f->fd = fd;
		return 0;
	}
	f->kind = OF_SPOOLED;
	f->stream_fd = fd;
	f->close_stream = ours;
	f->fd = kt_outfile_anonymous(NULL);
	if (f->fd < 0) {
		int e = f->fd;

		return ktrace_error_set(err, e, "%s: cannot create a temporary file to build the "
					"output in ($TMPDIR or /tmp): %s", f->name, strerror(-e));
	}
	return 0;
}

static int open_temp(struct kt_outfile *f, const struct stat *existing,
		     struct ktrace_error *err)
{
	/* a new file: 0666 less the umask; CREATE_ONLY files (shared buffers) are private */
	mode_t mode = existing || (f->flags & KT_OUTFILE_CREATE_ONLY) ? 0600 : 0666;
	int fd;

	if (existing && (fd = may_replace(f->target)) < 0)
		return fail(err, fd, "%s: not replaced: %s", f->name);
	fd = create_temp(f->target, mode, false, &f->tmp, &f->slot);
	if (fd < 0)
		return ktrace_error_set(err, fd, "%s: cannot create a temporary file beside it: %s",
					f->name, strerror(-fd));
	f->kind = OF_TEMP;
	f->fd = fd;
	if (existing) {
		/* the owner first: changing it clears set-id bits that fchmod then sets */
		if ((existing->st_uid != geteuid() || existing->st_gid != getegid()) &&
		    fchown(fd, existing->st_uid, existing->st_gid) < 0) {
			/* not ours to give away: the new file is ours, with the old mode */
		}
		if (fchmod(fd, existing->st_mode & 07777) < 0)
			return fail(err, -errno, "%s: cannot set the mode of its temporary file: %s",
				    f->name);
	}
	return 0;
}

int kt_outfile_open(const char *path, unsigned int flags, struct kt_outfile **out,
		    struct ktrace_error *err)
{
	struct kt_outfile *f;
	struct stat st;
	int ret;

	*out = NULL;
	if (!path || !*path)
		return ktrace_error_set(err, -EINVAL, "no output file name");
	f = calloc(1, sizeof(*f));
	if (!f || !(f->name = strdup(path))) {
		free(f);
		return kt_error_oom(err);
	}
	f->flags = flags;
	f->fd = f->stream_fd = -1;
	f->slot = -1;

	if (!strcmp(path, "-")) {
		if (flags & (KT_OUTFILE_CREATE_ONLY | KT_OUTFILE_FILE_ONLY))
			ret = ktrace_error_set(err, -EINVAL, "-: a file is needed, not standard output");
		else
			ret = open_stream(f, STDOUT_FILENO, false, err);
		goto done;
	}
	if (flags & KT_OUTFILE_CREATE_ONLY) {
		f->target = strdup(path);
		ret = f->target ? open_temp(f, NULL, err) : kt_error_oom(err);
		goto done;
	}
	f->target = resolve_links(path);
	if (!f->target) {
		ret = fail(err, -errno, "%s: %s", path);
		goto done;
	}
	if (stat(f->target, &st) < 0) {
		if (errno != ENOENT) {
			ret = fail(err, -errno, "%s: %s", path);
			goto done;
		}
		ret = open_temp(f, NULL, err);
	} else if (S_ISREG(st.st_mode)) {
		ret = open_temp(f, &st, err);
	} else if ((S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) &&
		   (flags & KT_OUTFILE_FILE_ONLY)) {
		ret = ktrace_error_set(err, -EINVAL, "%s: not a regular file (this output is "
				       "written as a file of its own, not as a stream)", path);
	} else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		int fd = open(f->target, O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			ret = fail(err, -errno, "%s: %s", path);
		else if ((ret = open_stream(f, fd, true, err)) < 0 && f->kind != OF_SPOOLED)
			close(fd);
	} else if (S_ISDIR(st.st_mode)) {
		ret = ktrace_error_set(err, -EISDIR, "%s: is a directory", path);
	} else {
		ret = ktrace_error_set(err, -EINVAL, "%s: not a file, FIFO or device to write to",
				       path);
	}
done:
	if (ret < 0) {
		outfile_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

int kt_outfile_fd(const struct kt_outfile *f)
{
	return f->fd;
}

const char *kt_outfile_name(const struct kt_outfile *f)
{
	return f->name;
}

bool kt_outfile_is_stream(const struct kt_outfile *f)
{
	return f->kind != OF_TEMP && f->kind != OF_IN_DIR;
}

const char *kt_outfile_temp_path(const struct kt_outfile *f)
{
	return f->kind == OF_TEMP || f->kind == OF_IN_DIR ? f->tmp : NULL;
}

int kt_outfile_write(struct kt_outfile *f, const void *p, size_t n, struct ktrace_error *err)
{
	int ret = kt_write_all(f->fd, p, n);

	return ret ? fail(err, ret, "%s: write: %s", f->name) : 0;
}

/* ---- commit ----------------------------------------------------------------------- */

static int copy_spool(struct kt_outfile *f, struct ktrace_error *err)
{
	uint8_t *buf = malloc(COPY_SIZE);
	off_t at = 0;
	int ret = 0;

	if (!buf)
		return kt_error_oom(err);
	for (;;) {
		ssize_t n = pread(f->fd, buf, COPY_SIZE, at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = fail(err, -errno, "%s: reading back the output: %s", f->name);
			break;
		}
		if (n == 0)
			break;
		if ((ret = kt_write_all(f->stream_fd, buf, (size_t)n))) {
			ret = fail(err, ret, "%s: write: %s", f->name);
			break;
		}
		at += n;
	}
	free(buf);
	return ret;
}

int kt_outfile_commit(struct kt_outfile *f, struct ktrace_error *err)
{
	int ret = 0;

	if (!f)
		return ktrace_error_set(err, -EINVAL, "no output file");
	switch (f->kind) {
	case OF_STREAM:
		if (f->fd != STDOUT_FILENO && close(f->fd) < 0)
			ret = fail(err, -errno, "%s: close: %s", f->name);
		f->fd = -1;
		break;
	case OF_SPOOLED:
		ret = copy_spool(f, err);
		if (f->close_stream) {
			if (close(f->stream_fd) < 0 && !ret)
				ret = fail(err, -errno, "%s: close: %s", f->name);
			f->stream_fd = -1;
		}
		break;
	case OF_IN_DIR:
		/* the directory is renamed as a whole: the file stays as it is named */
		if (fsync(f->fd) < 0 && errno != EINVAL)
			ret = fail(err, -errno, "%s: fsync: %s", f->name);
		if (close(f->fd) < 0 && !ret)
			ret = fail(err, -errno, "%s: close: %s", f->name);
		f->fd = -1;
		if (!ret) {
			free(f->tmp);
			f->tmp = NULL;
		}
		break;
	case OF_TEMP:
		if (!(f->flags & KT_OUTFILE_NO_SYNC) && fsync(f->fd) < 0 && errno != EINVAL)
			ret = fail(err, -errno, "%s: fsync: %s", f->name);
		if (close(f->fd) < 0 && !ret)
			ret = fail(err, -errno, "%s: close: %s", f->name);
		f->fd = -1;
		if (ret)
			break;
		if (f->flags & KT_OUTFILE_CREATE_ONLY) {
			if (link(f->tmp, f->target) < 0)
				ret = errno == EEXIST ? ktrace_error_set(err, -EEXIST, "%s: exists", f->name)
						      : fail(err, -errno, "%s: cannot create: %s", f->name);
			/* the temporary goes in outfile_free either way */
		} else if (rename(f->tmp, f->target) < 0) {
			ret = fail(err, -errno, "%s: cannot rename the temporary file over it: %s",
				   f->name);
		} else {
			cleanup_remove(f->slot);
			free(f->tmp);
			f->tmp = NULL;
		}
		break;
	}
	outfile_free(f);
	return ret;
}

void kt_outfile_abort(struct kt_outfile *f)
{
	if (f)
		outfile_free(f);
}

/* ---- directories ------------------------------------------------------------------ */

static bool allowed_name(const char *const *names, const char *name)
{
	for (size_t i = 0; names && names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Whether the existing directory dir holds only regular files named in names: 0, or a
 * negative errno with the message in err (name: as the user gave it). */
static int check_existing_dir(const char *dir, const char *name, const char *const *names,
			      struct ktrace_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return fail(err, -errno, "%s: %s", name);
	while (!ret && (errno = 0, e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!allowed_name(names, e->d_name) || fstatat(dirfd(d), e->d_name, &st,
							      AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode)) {
			ret = ktrace_error_set(err, -ENOTEMPTY, "%s: not replaced: the directory holds "
					       "'%.64s', which is no file this output writes (remove it, "
					       "or write to a new directory)", name, e->d_name);
		}
	}
	if (!ret && errno)
		ret = fail(err, -errno, "%s: %s", name);
	closedir(d);
	return ret;
}

int kt_outdir_open(const char *path, const char *const *names, struct kt_outdir **out,
		   struct ktrace_error *err)
{
	struct kt_outdir *d;
	struct stat st;
	int ret = 0;

	*out = NULL;
	if (!path || !*path)
		return ktrace_error_set(err, -EINVAL, "no output directory name");
	if (!strcmp(path, "-"))
		return ktrace_error_set(err, -EINVAL, "-: a directory is needed, not standard output");
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(path))) {
		free(d);
		return kt_error_oom(err);
	}
	d->names = names;
	d->slot = -1;
	d->target = resolve_links(path);
	if (!d->target) {
		ret = fail(err, -errno, "%s: %s", path);
	} else if (stat(d->target, &st) < 0) {
		if (errno != ENOENT)
			ret = fail(err, -errno, "%s: %s", path);
	} else if (!S_ISDIR(st.st_mode)) {
		ret = ktrace_error_set(err, -ENOTDIR, "%s: exists and is not a directory", path);
	} else if ((ret = may_replace(d->target)) < 0) {
		ret = fail(err, ret, "%s: not replaced: %s", path);
	} else {
		ret = check_existing_dir(d->target, path, names, err);
		d->replace = true;
	}
	if (!ret) {
		/* private while it is built; then the mode (and owner) of the one it replaces,
		 * or 0777 less the umask */
		ret = create_temp(d->target, d->replace ? 0700 : 0777, true, &d->tmp, &d->slot);
		if (ret < 0)
			ret = ktrace_error_set(err, ret, "%s: cannot create a temporary directory "
					       "beside it: %s", path, strerror(-ret));
	}
	if (!ret && d->replace) {
		if ((st.st_uid != geteuid() || st.st_gid != getegid()) &&
		    chown(d->tmp, st.st_uid, st.st_gid) < 0) {
			/* not ours to give away: the new directory is ours */
		}
		if (chmod(d->tmp, st.st_mode & 07777) < 0)
			ret = fail(err, -errno, "%s: cannot set the mode of its temporary "
				   "directory: %s", path);
	}
	if (ret < 0) {
		kt_outdir_abort(d);
		return ret;
	}
	*out = d;
	return 0;
}

int kt_outdir_file(struct kt_outdir *d, const char *name, struct kt_outfile **out,
		   struct ktrace_error *err)
{
	struct kt_outfile *f;

	*out = NULL;
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return ktrace_error_set(err, -EINVAL, "%s: no file name", d->name);
	f = calloc(1, sizeof(*f));
	if (!f)
		return kt_error_oom(err);
	f->kind = OF_IN_DIR;
	f->stream_fd = -1;
	f->slot = -1;
	if (asprintf(&f->name, "%s/%s", d->name, name) < 0) {
		f->name = NULL;
		outfile_free(f);
		return kt_error_oom(err);
	}
	if (asprintf(&f->tmp, "%s/%s", d->tmp, name) < 0) {
		f->tmp = NULL;
		outfile_free(f);
		return kt_error_oom(err);
	}
	/* the directory is on the cleanup list: the file goes with it */
	f->fd = open(f->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (f->fd < 0) {
		int e = -errno;

		free(f->tmp);
		f->tmp = NULL;     /* not ours to remove */
		ktrace_error_set(err, e, "%s: %s", f->name, strerror(-e));
		outfile_free(f);
		return e;
	}
	*out = f;
	return 0;
}

const char *kt_outdir_name(const struct kt_outdir *d)
{
	return d->name;
}

static void outdir_free(struct kt_outdir *d)
{
	cleanup_remove(d->slot);
	free(d->tmp);
	free(d->target);
	free(d->name);
	free(d);
}

int kt_outdir_commit(struct kt_outdir *d, struct ktrace_error *err)
{
	int fd, ret = 0;

	if (!d)
		return ktrace_error_set(err, -EINVAL, "no output directory");
	/* the files' names are on disk before the directory takes the final name */
	fd = open(d->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (fsync(fd) < 0 && errno != EINVAL))
		ret = fail(err, -errno, "%s: fsync: %s", d->name);
	if (fd >= 0)
		close(fd);
	if (!ret && !d->replace) {
		/* (an empty directory made meanwhile is replaced; anything else stays) */
		if (rename(d->tmp, d->target) < 0)
			ret = errno == ENOTEMPTY || errno == EEXIST
				      ? ktrace_error_set(err, -EEXIST, "%s: made by someone else while "
							 "it was written: not replaced", d->name)
				      : fail(err, -errno, "%s: cannot rename the temporary directory "
					     "to it: %s", d->name);
	} else if (!ret) {
		/* looked at again: what it holds now is what goes */
		ret = check_existing_dir(d->target, d->name, d->names, err);
		if (!ret && renameat2(AT_FDCWD, d->tmp, AT_FDCWD, d->target, RENAME_EXCHANGE) == 0) {
			/* the old directory has the temporary name now */
			remove_dir(d->tmp);
		} else if (!ret && (errno == EINVAL || errno == ENOSYS)) {
			/* no exchange on this file system: the old files go first */
			remove_dir(d->target);
			if (rename(d->tmp, d->target) < 0)
				ret = fail(err, -errno, "%s: cannot rename the temporary directory "
					   "to it: %s", d->name);
		} else if (!ret) {
			ret = fail(err, -errno, "%s: cannot exchange it with the temporary "
				   "directory: %s", d->name);
		}
	}
	if (ret) {
		kt_outdir_abort(d);
		return ret;
	}
	outdir_free(d);
	return 0;
}

void kt_outdir_abort(struct kt_outdir *d)
{
	if (!d)
		return;
	if (d->tmp)
		remove_dir(d->tmp);
	outdir_free(d);
}

/* ---- the public face (<ktrace/out.h>) --------------------------------------------- */

struct ktrace_out_file {
	struct kt_outfile *f;
};

int ktrace_out_file_open(const char *path, struct ktrace_out_file **out, struct ktrace_error *err)
{
	struct ktrace_out_file *o = malloc(sizeof(*o));
	int ret;

	*out = NULL;
	if (!o)
		return kt_error_oom(err);
	ret = kt_outfile_open(path, 0, &o->f, err);
	if (ret) {
		free(o);
		return ret;
	}
	*out = o;
	return 0;
}

int ktrace_out_file_fd(const struct ktrace_out_file *f)
{
	return kt_outfile_fd(f->f);
}

bool ktrace_out_file_is_stream(const struct ktrace_out_file *f)
{
	return kt_outfile_is_stream(f->f);
}

int ktrace_out_file_commit(struct ktrace_out_file *f, struct ktrace_error *err)
{
	int ret = kt_outfile_commit(f->f, err);

	free(f);
	return ret;
}

void ktrace_out_file_abort(struct ktrace_out_file *f)
{
	if (!f)
		return;
	kt_outfile_abort(f->f);
	free(f);
}
