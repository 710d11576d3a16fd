// SPDX-License-Identifier: MIT
/* Input sources: mmap for regular files, a forward-only window buffer for streams. */
#include <ktrace/input.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/input_file.h"
#include "common/livefile.h"
#include "common/outfile.h"

struct ktrace_input {
	char *name;
	int fd;                 /* -1 for memory inputs */
	bool owns_fd;
	bool mapped;            /* data/size hold the whole input */
	bool munmap_on_close;
	bool fd_maps_data;      /* fd is the regular file that data maps (kt_input_pread) */
	const uint8_t *data;
	size_t size;
	/* stream window: bytes [win_off, win_off + win_len) of the input */
	uint8_t *win;
	size_t win_cap;
	size_t win_len;
	uint64_t win_off;
	bool eof;
};

static struct ktrace_input *input_new(const char *name)
{
	struct ktrace_input *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->name = strdup(name ? name : "(input)");
	if (!in->name) {
		free(in);
		return NULL;
	}
	in->fd = -1;
	return in;
}

int ktrace_input_open(const char *path, struct ktrace_input **out, struct ktrace_error *err)
{
	struct ktrace_input *in;
	struct stat st;
	bool is_stdin = strcmp(path, "-") == 0;

	*out = NULL;
	/* "-" as the command line names it: messages name the input the same way */
	in = input_new(path);
	if (!in)
		return kt_error_oom(err);
	/* a live tracefs file: reading would consume the kernel's buffer (livefile.h);
	 * refused before it is opened */
	if (kt_refuse_live_tracefs(is_stdin ? STDIN_FILENO : -1, is_stdin ? NULL : path, err)) {
		ktrace_input_close(in);
		return -EPERM;
	}
	if (is_stdin) {
		in->fd = STDIN_FILENO;
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			int e = errno;

			ktrace_input_close(in);
			return ktrace_error_set(err, -e, "%s", strerror(e));
		}
		in->owns_fd = true;
	}
	if (fstat(in->fd, &st) < 0) {
		int e = errno;

		ktrace_input_close(in);
		return ktrace_error_set(err, -e, "%s", strerror(e));
	}
	if (S_ISDIR(st.st_mode)) {
		ktrace_input_close(in);
		return ktrace_error_set(err, -EISDIR, "is a directory");
	}
	/* Regular files with a size are mapped; tracefs and procfs files report size 0
	 * and are read as streams, like pipes. */
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *map;

		if ((uint64_t)st.st_size > SIZE_MAX) {
			ktrace_input_close(in);
			return ktrace_error_set(err, -EFBIG, "file too large to map");
		}
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
		if (map != MAP_FAILED) {
			madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
			in->data = map;
			in->size = (size_t)st.st_size;
			in->mapped = true;
			in->munmap_on_close = true;
			in->fd_maps_data = true;
		}
	}
	*out = in;
	return 0;
}

int ktrace_input_from_memory(const void *data, size_t len, const char *name,
			     struct ktrace_input **out, struct ktrace_error *err)
{
	struct ktrace_input *in = input_new(name);

	*out = NULL;
	if (!in)
		return kt_error_oom(err);
	in->data = data;
	in->size = len;
	in->mapped = true;
	*out = in;
	return 0;
}

void ktrace_input_close(struct ktrace_input *in)
{
	if (!in)
		return;
	if (in->munmap_on_close && in->size)
		munmap((void *)in->data, in->size);
	if (in->owns_fd && in->fd >= 0)
		close(in->fd);
	free(in->win);
	free(in->name);
	free(in);
}

int kt_input_rename(struct ktrace_input *in, const char *name)
{
	char *n = strdup(name);

	if (!n)
		return -ENOMEM;
	free(in->name);
	in->name = n;
	return 0;
}

const char *ktrace_input_name(const struct ktrace_input *in)
{
	return in->name;
}

int64_t ktrace_input_size(const struct ktrace_input *in)
{
	return in->mapped ? (int64_t)in->size : -1;
}

bool ktrace_input_is_mapped(const struct ktrace_input *in)
{
	return in->mapped;
}

const uint8_t *ktrace_input_data(const struct ktrace_input *in)
{
	return in->mapped ? in->data : NULL;
}

/* Reads more bytes into the window until it holds want bytes or the input ends. */
static int window_fill(struct ktrace_input *in, size_t want, struct ktrace_error *err)
{
	if (kt_grow((void **)&in->win, &in->win_cap, want < 65536 ? 65536 : want, 1))
		return ktrace_error_set(err, -ENOMEM, "out of memory (%zu byte window)", want);
	while (in->win_len < want && !in->eof) {
		ssize_t n = read(in->fd, in->win + in->win_len, in->win_cap - in->win_len);

		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			return ktrace_error_at(err, -e, in->win_off + in->win_len, "read: %s",
					       strerror(e));
		}
		if (n == 0)
			in->eof = true;
		in->win_len += (size_t)n;
	}
	return 0;
}

/* Moves the window start to offset, dropping what lies before it. */
static int window_seek(struct ktrace_input *in, uint64_t offset, struct ktrace_error *err)
{
	uint64_t end;

	if (offset < in->win_off)
		return ktrace_error_at(err, -ESPIPE, offset,
				       "cannot go back in a stream (window starts at 0x%llx)",
				       (unsigned long long)in->win_off);
	end = in->win_off + in->win_len;
	if (offset <= end) {
		size_t drop = (size_t)(offset - in->win_off);

		if (drop)
			memmove(in->win, in->win + drop, in->win_len - drop);
		in->win_len -= drop;
		in->win_off = offset;
		return 0;
	}
	/* Skip forward through bytes nobody asked for. */
	in->win_off = end;
	in->win_len = 0;
	while (in->win_off < offset && !in->eof) {
		uint64_t gap = offset - in->win_off;
		size_t chunk = gap > 65536 ? 65536 : (size_t)gap;
		int ret = window_fill(in, chunk, err);

		if (ret)
			return ret;
		chunk = in->win_len < chunk ? in->win_len : chunk;
		memmove(in->win, in->win + chunk, in->win_len - chunk);
		in->win_len -= chunk;
		in->win_off += chunk;
	}
	return 0;
}

int64_t ktrace_input_peek(struct ktrace_input *in, uint64_t offset, size_t len,
			  const uint8_t **out, struct ktrace_error *err)
{
	int ret;

	*out = NULL;
	if (in->mapped) {
		if (offset >= in->size)
			return 0;
		*out = in->data + offset;
		return (int64_t)(in->size - offset < len ? in->size - offset : len);
	}
	ret = window_seek(in, offset, err);
	if (ret)
		return ret;
	if (in->win_off != offset)
		return 0;  /* the stream ended before offset */
	ret = window_fill(in, len, err);
	if (ret)
		return ret;
	*out = in->win;
	return (int64_t)(in->win_len < len ? in->win_len : len);
}

int ktrace_input_get(struct ktrace_input *in, uint64_t offset, size_t len,
		     const uint8_t **out, struct ktrace_error *err)
{
	int64_t got = ktrace_input_peek(in, offset, len, out, err);

	if (got < 0)
		return (int)got;
	if ((uint64_t)got < len) {
		*out = NULL;
		return ktrace_error_at(err, -ENODATA, offset,
				       "truncated: need %zu bytes, input ends after %lld", len,
				       (long long)got);
	}
	return 0;
}

int kt_input_pread(const struct ktrace_input *in, void *buf, size_t len, uint64_t offset)
{
	if (in->fd < 0 || !in->fd_maps_data)
		return -ENOTSUP;
	return kt_pread_all(in->fd, buf, len, offset);
}

/* ---- copying a stream to a file ---------------------------------------------------- */

#define SPOOL_DEFAULT (4ull << 30)

int kt_spool_limit(uint64_t *limit, struct ktrace_error *err)
{
	const char *v = getenv("KTRACE_SPOOL_MAX");
	unsigned long long n;
	char *end;
	int shift = 0;

	*limit = SPOOL_DEFAULT;
	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift && (*end == 'i' || *end == 'I') && (end[1] == 'b' || end[1] == 'B'))
		end += 2;
	else if (shift && (*end == 'b' || *end == 'B'))
		end++;
	if (errno || end == v || *end || *v == '-' || (shift && n > (UINT64_MAX >> shift)))
		return ktrace_error_set(err, -EINVAL, "KTRACE_SPOOL_MAX=%.40s: not a size (bytes, or "
					"a number with K, M, G or T; 0: no limit)", v);
	*limit = n ? (uint64_t)n << shift : UINT64_MAX;
	return 0;
}

int kt_input_spool_fd(struct ktrace_input *in, struct ktrace_error *err)
{
	uint64_t limit;
	int fd, ret;

	if (in->win_off)
		return ktrace_error_set(err, -ESPIPE, "the stream was read past its start: it "
					"cannot be copied to a file any more");
	if ((ret = kt_spool_limit(&limit, err)))
		return ret;
	fd = kt_outfile_anonymous(NULL);
	if (fd < 0)
		return ktrace_error_set(err, fd, "cannot create a temporary file to hold the "
					"input ($TMPDIR or /tmp): %s", strerror(-fd));
	for (;;) {
		if (in->win_len > limit - in->win_off) {
			const char *v = getenv("KTRACE_SPOOL_MAX");

			ret = ktrace_error_set(err, -EFBIG, "larger than KTRACE_SPOOL_MAX (%.40s): a "
					       "stream is copied to a temporary file ($TMPDIR or "
					       "/tmp) to be read, up to that size; give the trace as "
					       "a file, or set KTRACE_SPOOL_MAX higher (0: no limit)",
					       v && *v ? v : "4G");
			break;
		}
		if ((ret = kt_write_all(fd, in->win, in->win_len))) {
			ret = ktrace_error_set(err, ret, "copying the input to a temporary file "
					       "($TMPDIR or /tmp): %s", strerror(-ret));
			break;
		}
		in->win_off += in->win_len;
		in->win_len = 0;
		if (in->eof)
			return fd;
		if ((ret = window_fill(in, 1u << 20, err)))
			break;
	}
	close(fd);
	return ret;
}

int ktrace_input_spool(struct ktrace_input *in, struct ktrace_error *err)
{
	static const uint8_t empty[1];
	struct stat st;
	int fd, ret = 0;
	void *map;

	if (in->mapped)
		return 0;
	fd = kt_input_spool_fd(in, err);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		ret = ktrace_error_set(err, -errno, "temporary file: %s", strerror(errno));
		goto out;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		ret = ktrace_error_set(err, -EFBIG, "input too large to map");
		goto out;
	}
	if (st.st_size) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			ret = ktrace_error_set(err, -errno, "mapping the copy of the input: %s",
					       strerror(errno));
			goto out;
		}
		in->data = map;
		in->munmap_on_close = true;
	} else {
		in->data = empty;
	}
	in->size = (size_t)st.st_size;
	in->mapped = true;
	in->win_off = 0;
	free(in->win);
	in->win = NULL;
	in->win_cap = 0;
out:
	close(fd);
	return ret;
}
