// SPDX-License-Identifier: MIT
/*
 * Where the parts of the timeline page go (timeline_writers.h, struct tl_layout).
 *
 * The page is the head (styles, column chunks, dictionaries, metadata, script) and
 * then the line chunks, which are most of it: the browser draws the picture before it
 * parses them. Both are written while the trace is read, so one of them waits in an
 * anonymous temporary file ($TMPDIR, else /tmp):
 *
 *   TL_GAP: the caller's output is an empty regular file open for reading and writing
 *     on ext4 or XFS: the head goes straight into it, and the line chunks too, from
 *     TL_GAP_AT on (written through a second open of the file: a sparse file meanwhile);
 *     at the end the hole between them goes (FALLOC_FL_COLLAPSE_RANGE, which moves the
 *     lines' blocks down; else the lines are copied down) and nothing is copied. Named
 *     files are made durable as they grow, as below.
 *   TL_HEAD_FIRST: the caller's output is an empty regular file open for reading and
 *     writing (the temporary beside the final one, a spool): the line chunks go
 *     straight into it, the head waits; at the end the file's blocks move up to make
 *     room for the head (FALLOC_FL_INSERT_RANGE; else the lines are copied up, from
 *     the end) and the head goes in front. Named files are made durable as they grow
 *     (fdatasync every TL_SYNC_STEP bytes, by a thread that only waits): the caller's
 *     fsync at the end then has little left to do.
 *   TL_LINES_AFTER: any other output (a FIFO, a device, a file already written to or
 *     open for writing only, as a shell's redirection opens it):
 *     the head goes to it and the line chunks wait, copied after the head at the end.
 *   TL_IN_ORDER: no temporary file could be had: the line chunks go to the output
 *     before the dictionaries (the same page, drawn later by the browser).
 *
 * In the first three the head is padded with spaces to a multiple of TL_HEAD_ALIGN (the
 * block size the insertion and the collapse need), so that all give the same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/check.h"
#include "common/outfile.h"
#include "sinks/timeline/timeline_writers.h"

#define TL_HEAD_ALIGN 4096
#define TL_SYNC_STEP ((uint64_t)4 << 20)
/* TL_GAP: where the line chunks start meanwhile (a head this big is an error) */
#define TL_GAP_AT ((uint64_t)64 << 30)

static uint64_t at_end(const struct ktrace_out *o)
{
	return o->flushed + o->len;
}

/* An empty regular file, written from its start, not in append mode, open for reading
 * too (the lines may have to be copied up). */
static bool fresh_file(const struct ktrace_out *o, bool *named)
{
	struct stat st;
	int fl = fcntl(o->fd, F_GETFL);

	if (o->flushed || o->len || fl < 0 || (fl & O_APPEND) || (fl & O_ACCMODE) != O_RDWR ||
	    fstat(o->fd, &st) ||
	    !S_ISREG(st.st_mode) || st.st_size || lseek(o->fd, 0, SEEK_CUR) != 0)
		return false;
	*named = st.st_nlink > 0;
	return true;
}

static void *syncer(void *arg)
{
	struct tl_layout *y = arg;

	pthread_mutex_lock(&y->mu);
	for (;;) {
		uint64_t upto;
		int ret;

		while (!y->stop && y->written - y->synced < TL_SYNC_STEP)
			pthread_cond_wait(&y->cv, &y->mu);
		if (y->stop)
			break;
		upto = y->written;
		pthread_mutex_unlock(&y->mu);
		/* (a write-back error is told once per open file: to this sync, and not to
		 * the caller's fsync after it; it is kept for tl_layout_join) */
		ret = fdatasync(y->dest->fd) < 0 && errno != EINVAL ? -errno : 0;
		pthread_mutex_lock(&y->mu);
		y->synced = upto;
		if (ret && !y->sync_err)
			y->sync_err = ret;
	}
	pthread_mutex_unlock(&y->mu);
	return NULL;
}

/* No more syncs; join: wait for the one under way (y->sync_err is then final). */
static void stop_syncer(struct tl_layout *y, bool join)
{
	if (!y->syncing)
		return;
	pthread_mutex_lock(&y->mu);
	y->stop = true;
	pthread_cond_signal(&y->cv);
	pthread_mutex_unlock(&y->mu);
	if (join) {
		pthread_join(y->sync_th, NULL);
		y->syncing = false;
	}
}

/* TL_GAP's second writer: dest's file opened again (its own offset), at TL_GAP_AT, on a
 * file system that collapses ranges; NULL when not. */
static struct ktrace_out *open_far(const struct ktrace_out *dest)
{
	struct statfs fs;
	struct rlimit lim;
	struct stat a, b;
	struct ktrace_out *o;
	char path[64];
	int fd;

	/* (ext2 and ext3 share ext4's number: with blocks of 4 KiB they hold files of 2 TiB;
	 * a limit on the size of files, ulimit -f, counts the hole) */
	if (fstatfs(dest->fd, &fs) || (fs.f_type != EXT4_SUPER_MAGIC && fs.f_type != XFS_SUPER_MAGIC) ||
	    fs.f_bsize < 4096 || getrlimit(RLIMIT_FSIZE, &lim) ||
	    (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur / 2 < TL_GAP_AT))
		return NULL;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", dest->fd);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(dest->fd, &a) || fstat(fd, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino ||
	    lseek(fd, (off_t)TL_GAP_AT, SEEK_SET) < 0 || !(o = kt_out_new(fd))) {
		close(fd);
		return NULL;
	}
	o->flushed = TL_GAP_AT;
	return o;
}

void tl_layout_open(struct tl_layout *y, struct ktrace_out *dest)
{
	bool named = false, fresh;
	int fd;

	memset(y, 0, sizeof(*y));
	y->dest = dest;
	y->how = TL_IN_ORDER;
	y->start = at_end(dest);
	fresh = fresh_file(dest, &named);
	if (fresh && (y->far = open_far(dest))) {
		y->how = TL_GAP;
	} else {
		fd = kt_outfile_anonymous(NULL);
		if (fd < 0)
			return;
		y->spill = kt_out_new(fd);
		if (!y->spill) {
			close(fd);
			return;
		}
		if (!fresh) {
			y->how = TL_LINES_AFTER;
			return;
		}
		y->how = TL_HEAD_FIRST;
	}
	if (named && !pthread_mutex_init(&y->mu, NULL)) {
		y->locks = true;
		if (!pthread_cond_init(&y->cv, NULL)) {
			y->conds = true;
			y->syncing = !pthread_create(&y->sync_th, NULL, syncer, y);
		}
	}
}

struct ktrace_out *tl_layout_head(struct tl_layout *y)
{
	return y->how == TL_HEAD_FIRST ? y->spill : y->dest;
}

struct ktrace_out *tl_layout_lines(struct tl_layout *y)
{
	return y->how == TL_LINES_AFTER ? y->spill : y->how == TL_GAP ? y->far : y->dest;
}

void tl_layout_wrote(struct tl_layout *y)
{
	uint64_t w;

	if (!y->syncing)
		return;
	/* (what went into the output: the lines, and with TL_GAP the head too) */
	w = y->dest->flushed + (y->far ? y->far->flushed - TL_GAP_AT : 0);
	if (w - y->signalled < TL_SYNC_STEP)
		return;
	y->signalled = w;
	pthread_mutex_lock(&y->mu);
	y->written = w;
	pthread_cond_signal(&y->cv);
	pthread_mutex_unlock(&y->mu);
}

static int io_error(struct ktrace_error *err, int e)
{
	return ktrace_error_set(err, e, "putting the page together: %s", strerror(-e));
}

/* Bytes [from, from + n) of in to outfd at `to`; backwards: from the end (in and outfd
 * the same file, the ranges overlapping with to > from). */
static int move_bytes(int in, uint64_t from, int outfd, uint64_t to, uint64_t n, char *buf,
		      bool backwards)
{
	for (uint64_t done = 0; done < n;) {
		size_t k = n - done < KT_OUT_SIZE ? (size_t)(n - done) : KT_OUT_SIZE;
		uint64_t off = backwards ? n - done - k : done;
		int ret;

		if ((ret = kt_pread_all(in, buf, k, from + off)) ||
		    (ret = kt_pwrite_all(outfd, buf, k, to + off)))
			return ret;
		done += k;
	}
	return 0;
}

/* Bytes [from, from + n) of in to out at `to` in the kernel (copy_file_range; in and out
 * may be the same file, the ranges apart): 0, or -1 when it cannot be done so (the
 * caller copies; what was copied is written again). */
static int copy_in_kernel(int in, uint64_t from, int out, uint64_t to, uint64_t n)
{
	loff_t f = (loff_t)from, t = (loff_t)to;

	while ((uint64_t)f - from < n) {
		ssize_t k = copy_file_range(in, &f, out, &t, (size_t)(n - ((uint64_t)f - from)), 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
	}
	return 0;
}

/* TL_HEAD_FIRST: the head (spill, hn bytes) in front of the lines (the output's first
 * ln bytes). */
static int head_in_front(struct tl_layout *y, uint64_t hn, uint64_t ln, char *buf)
{
	int fd = y->dest->fd;
	int ret;

	if (!ln || fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, (off_t)hn) < 0) {
		/* no room made in place (empty, or not supported here): copy the lines up */
		if ((ret = move_bytes(fd, 0, fd, hn, ln, buf, true)))
			return ret;
	}
	if (copy_in_kernel(y->spill->fd, 0, fd, 0, hn) && (ret = move_bytes(y->spill->fd, 0, fd, 0, hn, buf, false)))
		return ret;
	if (lseek(fd, (off_t)(hn + ln), SEEK_SET) < 0)
		return -errno;
	y->dest->flushed = hn + ln;
	return 0;
}

/* TL_GAP: the hole between the head (hn bytes, a multiple of TL_HEAD_ALIGN) and the
 * lines (ln bytes at TL_GAP_AT) taken out. */
static int close_gap(struct tl_layout *y, uint64_t hn, uint64_t ln, char *buf)
{
	int fd = y->dest->fd;
	int ret;

	/* (not in place, a block size that does not divide the head say: the lines copied
	 * down, the rest cut) */
	if (ln && fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, (off_t)hn, (off_t)(TL_GAP_AT - hn)) < 0 &&
	    copy_in_kernel(fd, TL_GAP_AT, fd, hn, ln) &&
	    (ret = move_bytes(fd, TL_GAP_AT, fd, hn, ln, buf, false)))
		return ret;
	if (ftruncate(fd, (off_t)(hn + ln)) < 0 || lseek(fd, (off_t)(hn + ln), SEEK_SET) < 0)
		return -errno;
	y->dest->flushed = hn + ln;
	return 0;
}

/* TL_LINES_AFTER: the lines (spill, ln bytes) after the head. */
static int lines_after(struct tl_layout *y, uint64_t ln, char *buf)
{
	for (uint64_t at = 0; at < ln;) {
		size_t k = ln - at < KT_OUT_SIZE ? (size_t)(ln - at) : KT_OUT_SIZE;
		int ret = kt_pread_all(y->spill->fd, buf, k, at);

		if (ret)
			return ret;
		kt_out_write(y->dest, buf, k);
		at += k;
	}
	return 0;
}

int tl_layout_join(struct tl_layout *y, struct ktrace_error *err)
{
	struct ktrace_out *head = tl_layout_head(y), *lines = tl_layout_lines(y);
	uint64_t hn, ln;
	char *buf;
	int ret;

	stop_syncer(y, false);     /* (a sync under way goes on meanwhile) */
	if (y->how == TL_IN_ORDER)
		return 0;
	hn = at_end(head) - (head == y->dest ? y->start : 0);
	if (hn % TL_HEAD_ALIGN) {
		size_t pad = TL_HEAD_ALIGN - (size_t)(hn % TL_HEAD_ALIGN);

		kt_out_spaces(head, (int)pad - 1);
		kt_out_putc(head, '\n');
		hn += pad;
	}
	ln = at_end(lines) - (lines == y->dest ? y->start : lines == y->far ? TL_GAP_AT : 0);
	if ((y->spill && (ret = kt_out_flush(y->spill))) || (y->far && (ret = kt_out_flush(y->far))) ||
	    (y->how != TL_LINES_AFTER && (ret = kt_out_flush(y->dest))))
		return io_error(err, ret);
	if (y->how == TL_GAP && y->start + hn > TL_GAP_AT)
		return ktrace_error_set(err, -EFBIG, "the page's head passed %llu bytes",
					(unsigned long long)TL_GAP_AT);
	buf = malloc(KT_OUT_SIZE);
	if (!buf)
		return kt_error_oom(err);
	ret = y->how == TL_GAP ? close_gap(y, y->start + hn, ln, buf)
	      : y->how == TL_HEAD_FIRST ? head_in_front(y, hn, ln, buf) : lines_after(y, ln, buf);
	free(buf);
	stop_syncer(y, true);
	if (!ret && y->sync_err)
		return ktrace_error_set(err, y->sync_err, "writing the page: %s", strerror(-y->sync_err));
	return ret ? io_error(err, ret) : 0;
}

void tl_layout_free(struct tl_layout *y)
{
	stop_syncer(y, true);
	if (y->conds)
		pthread_cond_destroy(&y->cv);
	if (y->locks)
		pthread_mutex_destroy(&y->mu);
	if (y->spill) {
		close(y->spill->fd);
		free(y->spill);
	}
	if (y->far) {
		close(y->far->fd);
		free(y->far);
	}
	memset(y, 0, sizeof(*y));
}
