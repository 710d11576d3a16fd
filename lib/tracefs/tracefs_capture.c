// SPDX-License-Identifier: MIT
/*
 * Per-CPU capture: one thread per CPU moves whole sub-buffers from
 * per_cpu/cpuN/trace_pipe_raw into a temporary file with splice(2) (ring-buffer pages go
 * into a pipe without a copy, then into the file), waking up when the kernel says the
 * buffer holds enough (poll, buffer_percent) or every second. At the end, what is left
 * is drained: the remaining whole sub-buffers with splice, then the partly filled ones
 * with read(2), which splice does not hand out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ktrace/kbuffer.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/outfile.h"
#include "tracefs/tracefs_int.h"

#define PIPE_BYTES (1u << 20)      /* wanted pipe capacity */
#define RETRY_WAIT_MS 50           /* after a wake-up that found no whole sub-buffer */
#define BACKLOG_MAX (256ull << 20) /* in_memory: data not read yet, per CPU, at most */

struct thread_arg {
	struct ktrace_tracefs_session *s;
	struct tfs_buffer *b;
	struct tfs_cpu *c;
	size_t chunk;
};

/* Where a CPU's data waits: memory for a live session, else an anonymous file in the
 * session's directory. */
static int open_tmp(const struct ktrace_tracefs_session *s, unsigned int cpu)
{
	char name[32];
	int fd;

	if (s->in_memory && !s->keep_data) {
		snprintf(name, sizeof(name), "ktrace-cpu%u", cpu);
		fd = memfd_create(name, MFD_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	return kt_outfile_anonymous(s->tmpdir);
}

int tfs_capture_open(struct ktrace_tracefs_session *s, struct tfs_buffer *b, struct ktrace_error *err)
{
	for (size_t i = 0; i < b->ncpus; i++) {
		struct tfs_cpu *c = &b->cpus[i];
		char path[PATH_MAX];
		int fd;

		c->trace_fd = c->out_fd = c->pipefd[0] = c->pipefd[1] = c->old_fd = -1;
		if (snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/trace_pipe_raw", b->dir, c->cpu) >=
		    (int)sizeof(path))
			return ktrace_error_set(err, -ENAMETOOLONG, "path too long");
		c->trace_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->trace_fd < 0)
			return ktrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
		fd = open_tmp(s, c->cpu);
		if (fd < 0)
			return ktrace_error_set(err, fd, "%s: cannot create a temporary file for the "
						"per-CPU data (next to the output): %s",
						s->in_memory && !s->keep_data ? "memfd" : s->tmpdir,
						strerror(-fd));
		c->out_fd = fd;
		if (pipe2(c->pipefd, O_CLOEXEC) < 0)
			return ktrace_error_set(err, -errno, "pipe: %s", strerror(errno));
		/* a larger pipe moves more sub-buffers per call; not fatal if refused */
		fcntl(c->pipefd[1], F_SETPIPE_SZ, PIPE_BYTES);
	}
	return 0;
}

/* Moves n bytes from the pipe into the file. */
static int pipe_to_file(struct tfs_cpu *c, size_t n)
{
	while (n) {
		ssize_t r = splice(c->pipefd[0], NULL, c->out_fd, NULL, n, SPLICE_F_MOVE);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		n -= (size_t)r;
	}
	return 0;
}

/* Moves the whole sub-buffers that are ready, up to limit bytes. 1 something moved,
 * 0 nothing ready, < 0 error. */
static int splice_ready(struct tfs_cpu *c, size_t chunk, uint64_t *limit)
{
	int moved = 0;

	while (*limit >= chunk) {
		ssize_t r = splice(c->trace_fd, NULL, c->pipefd[1], NULL, chunk,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		int ret;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return moved;
		if (r < 0)
			return -errno;
		if (r == 0)
			return moved;
		if ((ret = pipe_to_file(c, (size_t)r)))
			return ret;
		atomic_fetch_add(&c->bytes, (uint64_t)r);
		*limit -= (uint64_t)r;
		moved = 1;
	}
	return moved;
}

/* Splice length: the pipe capacity, a multiple of the sub-buffer size. */
static size_t chunk_size(const struct tfs_buffer *b, const struct tfs_cpu *c)
{
	long cap = fcntl(c->pipefd[1], F_GETPIPE_SZ);
	size_t n = cap > 0 ? (size_t)cap : 65536;

	n -= n % b->page_size;
	return n ? n : b->page_size;
}

/* One sub-buffer with read(2): also a partly filled one, which splice does not hand
 * out. Padded to the sub-buffer size, so that sub-buffers stay aligned in the file.
 * 1 read, 0 nothing there, < 0 error (-errno; *what says of which call). */
/* One sub-buffer with read(2): 1 a whole one, 2 a partly filled one (the CPU's buffer
 * holds no more then), 0 none, < 0 error (*what says where). */
static int read_page(struct tfs_buffer *b, struct tfs_cpu *c, uint8_t *page, const char **what)
{
	ssize_t r;

	do
		r = read(c->trace_fd, page, b->page_size);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EAGAIN)
		return 0;
	if (r < 0) {
		*what = "reading trace_pipe_raw";
		return -errno;
	}
	if (r == 0)
		return 0;
	if ((size_t)r < b->page_size)
		memset(page + r, 0, b->page_size - (size_t)r);
	if (write(c->out_fd, page, b->page_size) != (ssize_t)b->page_size) {
		*what = "writing captured data";
		return errno ? -errno : -EIO;
	}
	atomic_fetch_add(&c->bytes, b->page_size);
	return (size_t)r < b->page_size ? 2 : 1;
}

/*
 * The trace clocks that user space reads too (clock_gettime): with one, a reader that
 * found a CPU's buffer drained tells the live reader that every record of that CPU
 * stamped before it looked has been captured (tracefs_live.c orders by it).
 */
static int user_clock(const char *clock)
{
	static const struct { const char *name; int id; } clocks[] = {
		{ "mono", CLOCK_MONOTONIC }, { "mono_raw", CLOCK_MONOTONIC_RAW },
		{ "boot", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
	};

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcmp(clock, clocks[i].name))
			return clocks[i].id;
	return -1;
}

/* A record stamped this long before a read that found the buffer drained may still be
 * in the writing (its writer interrupted between stamping and committing it). */
#define SEEN_MARGIN_NS 2000000ull

static uint64_t clock_now(int id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* -m: the current file is full: it becomes the previous half, and a new one starts. */
static int rotate(struct ktrace_tracefs_session *s, struct tfs_cpu *c)
{
	int fd = open_tmp(s, c->cpu);

	if (fd < 0)
		return fd;
	if (c->old_fd >= 0) {
		c->discarded += c->old_bytes;
		close(c->old_fd);
	}
	c->old_fd = c->out_fd;
	c->old_bytes = atomic_load(&c->bytes);
	c->out_fd = fd;
	atomic_store(&c->bytes, 0);
	return 0;
}

static void notify(struct ktrace_tracefs_session *s)
{
	if (s->data_pipe[1] >= 0 && write(s->data_pipe[1], "d", 1) < 0) {
		/* full: the reader has been told already */
	}
}

static void *cpu_thread(void *arg)
{
	struct thread_arg *a = arg;
	struct ktrace_tracefs_session *s = a->s;
	struct tfs_cpu *c = a->c;
	int stop_fd = s->stop_pipe[0];
	size_t chunk = a->chunk;
	uint8_t *page = s->in_memory ? malloc(a->b->page_size) : NULL;

	for (;;) {
		struct pollfd p[2] = { { c->trace_fd, POLLIN, 0 }, { stop_fd, POLLIN, 0 } };
		uint64_t limit = UINT64_MAX;
		int r, ret;

		if (s->in_memory &&
		    atomic_load(&c->bytes) - atomic_load(&c->consumed) > BACKLOG_MAX) {
			/* the reader is far behind: the kernel's buffer absorbs (and counts) the
			 * rest */
			if (poll(&p[1], 1, RETRY_WAIT_MS) > 0)
				break;
			continue;
		}
		r = poll(p, 2, s->idle_wait_ms);
		if (r < 0 && errno != EINTR) {
			c->error = -errno;
			c->error_what = "poll";
			break;
		}
		if (p[1].revents)
			break;
		/* -m: no more at once than the current half takes (a chunk at least), so
		 * that a half stays under two halves' size however much was waiting */
		if (s->half_bytes) {
			uint64_t have = atomic_load(&c->bytes);

			limit = have < s->half_bytes ? s->half_bytes - have : 0;
			if (limit < chunk)
				limit = chunk;
		}
		ret = splice_ready(c, chunk, &limit);
		if (ret < 0) {
			c->error = ret;
			c->error_what = "splice";
			break;
		}
		if (!ret && r == 0 && page) {
			/* live reading: what a quiet buffer holds is shown without waiting for
			 * its sub-buffer to fill */
			uint64_t before = a->b->clock_id >= 0 ? clock_now(a->b->clock_id) : 0;

			ret = read_page(a->b, c, page, &c->error_what);
			if (ret < 0) {
				c->error = ret;
				break;
			}
			if (ret != 1 && before > SEEN_MARGIN_NS)
				atomic_store(&c->seen_to, before - SEEN_MARGIN_NS);
		}
		if (ret > 0) {
			if (s->in_memory)
				notify(s);
			if (s->half_bytes && atomic_load(&c->bytes) >= s->half_bytes &&
			    (ret = rotate(s, c)) < 0) {
				c->error = ret;
				c->error_what = "creating a temporary file";
				break;
			}
			continue;
		}
		if (p[0].revents & POLLIN) {
			/* woken without a whole sub-buffer (buffer_percent 0): do not spin */
			struct pollfd q = { stop_fd, POLLIN, 0 };

			if (poll(&q, 1, RETRY_WAIT_MS) > 0)
				break;
		}
	}
	/* (no more from this reader: the live reader waits for it no longer) */
	atomic_store(&c->seen_to, UINT64_MAX);
	free(page);
	free(a);
	return NULL;
}

int tfs_capture_start(struct ktrace_tracefs_session *s, struct tfs_buffer *b, struct ktrace_error *err)
{
	b->clock_id = s->in_memory ? user_clock(b->clock) : -1;
	for (size_t i = 0; i < b->ncpus; i++) {
		struct tfs_cpu *c = &b->cpus[i];
		struct thread_arg *a = malloc(sizeof(*a));
		int ret;

		if (!a)
			return kt_error_oom(err);
		a->s = s;
		a->b = b;
		a->c = c;
		a->chunk = chunk_size(b, c);
		/* -m: no more than a half at a time, so that the halves keep their size */
		if (s->half_bytes && a->chunk > s->half_bytes) {
			a->chunk = (size_t)(s->half_bytes - s->half_bytes % b->page_size);
			if (!a->chunk)
				a->chunk = b->page_size;
		}
		ret = pthread_create(&c->thread, NULL, cpu_thread, a);
		if (ret) {
			free(a);
			return ktrace_error_set(err, -ret, "cannot start a reader thread: %s",
						strerror(ret));
		}
		c->thread_started = true;
	}
	return 0;
}

void tfs_capture_join(struct tfs_buffer *b)
{
	for (size_t i = 0; i < b->ncpus; i++) {
		if (b->cpus[i].thread_started) {
			pthread_join(b->cpus[i].thread, NULL);
			b->cpus[i].thread_started = false;
		}
	}
}

int tfs_capture_drain(struct tfs_buffer *b, struct tfs_cpu *c, uint64_t limit,
		      struct ktrace_error *err)
{
	const char *what = NULL;
	uint8_t *page;
	int ret;

	if (c->trace_fd < 0)
		return 0;
	ret = splice_ready(c, chunk_size(b, c), &limit);
	if (ret < 0 && ret != -EINVAL)
		return ktrace_error_set(err, ret, "CPU %u: splice from trace_pipe_raw: %s", c->cpu,
					strerror(-ret));
	/* what splice does not hand out (partly filled sub-buffers), or all of it where
	 * splice is refused */
	page = malloc(b->page_size);
	if (!page)
		return kt_error_oom(err);
	while (limit >= b->page_size) {
		ret = read_page(b, c, page, &what);
		if (ret <= 0)
			break;
		limit -= b->page_size;
	}
	free(page);
	if (ret < 0)
		return ktrace_error_set(err, ret, "CPU %u: %s: %s", c->cpu, what, strerror(-ret));
	return 0;
}

void tfs_capture_close(struct tfs_buffer *b, bool all)
{
	for (size_t i = 0; i < b->ncpus; i++) {
		struct tfs_cpu *c = &b->cpus[i];

		if (c->trace_fd >= 0)
			close(c->trace_fd);
		if (c->pipefd[0] >= 0)
			close(c->pipefd[0]);
		if (c->pipefd[1] >= 0)
			close(c->pipefd[1]);
		c->trace_fd = c->pipefd[0] = c->pipefd[1] = -1;
		if (all && c->out_fd >= 0) {
			close(c->out_fd);
			c->out_fd = -1;
		}
		if (all && c->old_fd >= 0) {
			close(c->old_fd);
			c->old_fd = -1;
		}
	}
}

/* Lost-events marks of the sub-buffers in fd (size bytes): their sum, or -1 when one
 * has no count; the events they hold are added to *events (what the file gets, which is
 * what is reported: the kernel's "read events" counter is cumulative). */
static int64_t scan_marks(int fd, uint64_t size, unsigned int page_size, unsigned int long_size,
			  bool big_endian, uint64_t *events)
{
	unsigned int hdr = 8 + long_size;
	const uint8_t *map;
	int64_t marked = 0;
	struct kbuffer *kb;

	if (!size || fd < 0)
		return 0;
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	kb = kbuffer_alloc(long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	for (uint64_t off = 0; off + page_size <= size; off += page_size) {
		const uint8_t *p = map + off;
		uint64_t commit = long_size == 8 ? kt_load_u64(p + 8, big_endian)
						 : kt_load_u32(p + 8, big_endian);
		uint64_t used = commit & ((1u << 27) - 1);

		if (kb && kbuffer_load_subbuffer_len(kb, (void *)p, page_size) == 0)
			for (void *ev = kbuffer_read_event(kb, NULL); ev; ev = kbuffer_next_event(kb, NULL))
				(*events)++;
		if (!(commit & (1ull << 31)))
			continue;
		if ((commit & (1ull << 30)) && hdr + used + long_size <= page_size && marked >= 0)
			marked += (int64_t)(long_size == 8 ? kt_load_u64(p + hdr + used, big_endian)
							   : kt_load_u32(p + hdr + used, big_endian));
		else
			marked = -1;
	}
	kbuffer_free(kb);
	munmap((void *)map, (size_t)size);
	return marked;
}

void tfs_capture_scan(struct tfs_buffer *b, struct tfs_cpu *c, unsigned int long_size,
		      bool big_endian)
{
	uint64_t size = atomic_load(&c->bytes);
	int64_t a, m;

	c->stats.bytes = size + c->old_bytes;
	c->stats.pages = c->stats.bytes / b->page_size;
	c->stats.lost_marked = 0;
	c->stats.events = 0;
	if (c->stats.bytes == 0)
		return;
	a = scan_marks(c->old_fd, c->old_bytes, b->page_size, long_size, big_endian, &c->stats.events);
	m = scan_marks(c->out_fd, size, b->page_size, long_size, big_endian, &c->stats.events);
	c->stats.lost_marked = a < 0 || m < 0 ? -1 : a + m;
}
