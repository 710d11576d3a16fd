// SPDX-License-Identifier: MIT
/* The ktrace_file writer: header, header chunks, body chunks, written in order through
 * the common output file (a temporary renamed over the destination when complete, or
 * a stream for FIFOs, devices and standard output). */
#include <ktrace/ktrace_file.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/check.h"
#include "common/cursor.h"
#include "common/grow.h"
#include "common/outfile.h"

#define WBUF_SIZE (1u << 20)

struct ktrace_file_writer {
	char *path;
	struct kt_outfile *file;
	int fd;
	int error;               /* sticky: the first failure */
	struct ktrace_file_header hdr;
	uint8_t *hchunks;        /* header chunks, kept until the header is written */
	size_t hlen, hcap;
	bool header_written;
	bool in_chunk;           /* a begun chunk still takes ktrace_file_writer_append */
	uint64_t pending;        /* bytes the begun chunk still expects */
	uint64_t chunk_len;      /* its data size, for the padding */
	uint8_t *buf;
	size_t blen;
};




static int fail(struct ktrace_file_writer *w, struct ktrace_error *err, int code,
		const char *what)
{
	if (!w->error)
		w->error = code;
	return ktrace_error_set(err, code, "%s: %s: %s", w->path, what, strerror(-code));
}

static int flush_buf(struct ktrace_file_writer *w, struct ktrace_error *err)
{
	size_t done = 0;

	while (done < w->blen) {
		ssize_t n = write(w->fd, w->buf + done, w->blen - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return fail(w, err, -errno, "write");
		}
		done += (size_t)n;
	}
	w->blen = 0;
	return 0;
}

static int wbytes(struct ktrace_file_writer *w, const void *data, uint64_t len,
		  struct ktrace_error *err)
{
	const uint8_t *p = data;

	while (len) {
		size_t room = WBUF_SIZE - w->blen;
		size_t n = len < room ? (size_t)len : room;

		if (p) {
			memcpy(w->buf + w->blen, p, n);
			p += n;
		} else {
			memset(w->buf + w->blen, 0, n);
		}
		w->blen += n;
		len -= n;
		if (w->blen == WBUF_SIZE && flush_buf(w, err) < 0)
			return w->error;
	}
	return 0;
}

static void chunk_header(uint8_t out[16], uint32_t tag, uint16_t major, uint16_t minor,
			 uint64_t size)
{
	kt_store_u32(out, tag, false);
	kt_store_u16(out + 4, major, false);
	kt_store_u16(out + 6, minor, false);
	kt_store_u64(out + 8, size, false);
}

static uint64_t pad8(uint64_t len)
{
	return (8 - (len & 7)) & 7;
}

static int write_header(struct ktrace_file_writer *w, struct ktrace_error *err)
{
	const struct ktrace_file_header *h = &w->hdr;
	uint8_t b[KTRACE_FILE_HEADER_SIZE];

	if (h->flavour == KTRACE_FILE_KERNEL) {
		kt_store_u32(b, KTRACE_FILE_KERNEL_MAGIC, false);
	} else {
		kt_store_u32(b, KTRACE_FILE_MAGIC, false);
	}
	kt_store_u16(b + 4, h->major, false);
	kt_store_u16(b + 6, h->minor, false);
	kt_store_u64(b + 8, KTRACE_FILE_HEADER_FIXED + (uint64_t)w->hlen, false);
	kt_store_u32(b + 16, h->timebase_numer, false);
	kt_store_u32(b + 20, h->timebase_denom, false);
	kt_store_u64(b + 24, h->timestamp, false);
	kt_store_u64(b + 32, h->walltime_secs, false);
	kt_store_u32(b + 40, h->walltime_usecs, false);
	kt_store_u32(b + 44, (uint32_t)h->minutes_west, false);
	kt_store_u32(b + 48, h->dst, false);
	kt_store_u32(b + 52, h->flags, false);
	if (wbytes(w, b, sizeof(b), err) < 0 || wbytes(w, w->hchunks, w->hlen, err) < 0)
		return w->error;
	free(w->hchunks);
	w->hchunks = NULL;
	w->hlen = w->hcap = 0;
	w->header_written = true;
	return 0;
}

int ktrace_file_writer_create(const char *path, const struct ktrace_file_header *hdr,
			      struct ktrace_file_writer **out, struct ktrace_error *err)
{
	struct ktrace_file_writer *w;
	int ret;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return kt_error_oom(err);
	w->fd = -1;
	w->hdr = *hdr;
	w->path = strdup(path);
	w->buf = malloc(WBUF_SIZE);
	if (!w->path || !w->buf) {
		ktrace_file_writer_abort(w);
		return kt_error_oom(err);
	}
	/* written front to back: streams need no spool */
	if ((ret = kt_outfile_open(path, 0, &w->file, err)) < 0) {
		ktrace_file_writer_abort(w);
		return ret;
	}
	w->fd = kt_outfile_fd(w->file);
	*out = w;
	return 0;
}

static int check_usable(struct ktrace_file_writer *w, struct ktrace_error *err)
{
	if (w->error)
		return ktrace_error_set(err, w->error, "%s: writer failed earlier", w->path);
	if (w->in_chunk && w->pending)
		return ktrace_error_set(err, -EINVAL,
					"%s: previous chunk still expects %llu bytes", w->path,
					(unsigned long long)w->pending);
	return 0;
}

/* Ends a begun chunk: its padding. */
static int end_chunk(struct ktrace_file_writer *w, struct ktrace_error *err)
{
	if (!w->in_chunk)
		return 0;
	w->in_chunk = false;
	return wbytes(w, NULL, pad8(w->chunk_len), err);
}

int ktrace_file_writer_add_header_chunk(struct ktrace_file_writer *w, uint32_t tag,
					uint16_t major, uint16_t minor, const void *data,
					uint64_t size, struct ktrace_error *err)
{
	uint64_t need;
	int ret = check_usable(w, err);

	if (ret)
		return ret;
	if (w->header_written)
		return ktrace_error_set(err, -EINVAL,
					"%s: header chunks must come before body chunks", w->path);
	if (size > SIZE_MAX / 2 || (size && !data))
		return ktrace_error_set(err, -EINVAL, "%s: bad header chunk size", w->path);
	need = KTRACE_CHUNK_HEADER_SIZE + size + pad8(size);
	if (kt_grow((void **)&w->hchunks, &w->hcap, (size_t)(w->hlen + need), 1))
		return kt_error_oom(err);
	chunk_header(w->hchunks + w->hlen, tag, major, minor, size);
	if (size)
		memcpy(w->hchunks + w->hlen + KTRACE_CHUNK_HEADER_SIZE, data, (size_t)size);
	memset(w->hchunks + w->hlen + KTRACE_CHUNK_HEADER_SIZE + size, 0, (size_t)pad8(size));
	w->hlen += (size_t)need;
	return 0;
}

int ktrace_file_writer_begin_chunk(struct ktrace_file_writer *w, uint32_t tag, uint16_t major,
				   uint16_t minor, uint64_t size, uint64_t data_size,
				   struct ktrace_error *err)
{
	uint8_t b[KTRACE_CHUNK_HEADER_SIZE];
	int ret = check_usable(w, err);

	if (ret)
		return ret;
	if ((ret = end_chunk(w, err)) < 0)
		return ret;
	if (!w->header_written && (ret = write_header(w, err)) < 0)
		return ret;
	chunk_header(b, tag, major, minor, size);
	if ((ret = wbytes(w, b, sizeof(b), err)) < 0)
		return ret;
	w->in_chunk = true;
	w->pending = data_size;
	w->chunk_len = data_size;
	return 0;
}

int ktrace_file_writer_append(struct ktrace_file_writer *w, const void *data, size_t len,
			      struct ktrace_error *err)
{
	if (w->error)
		return ktrace_error_set(err, w->error, "%s: writer failed earlier", w->path);
	if (!w->in_chunk || len > w->pending)
		return ktrace_error_set(err, -EINVAL, "%s: %zu bytes do not fit the current chunk",
					w->path, len);
	w->pending -= len;
	return wbytes(w, data, len, err);
}

int ktrace_file_writer_add_chunk(struct ktrace_file_writer *w, uint32_t tag, uint16_t major,
				 uint16_t minor, const void *data, uint64_t size,
				 struct ktrace_error *err)
{
	int ret;

	if (size && !data)
		return ktrace_error_set(err, -EINVAL, "%s: chunk without data", w->path);
	ret = ktrace_file_writer_begin_chunk(w, tag, major, minor, size, size, err);
	if (ret < 0)
		return ret;
	w->pending = 0;
	return wbytes(w, data, size, err);
}

int ktrace_file_writer_add_events(struct ktrace_file_writer *w, uint64_t future_timestamp,
				  const void *events, uint64_t nbytes, bool count_timestamp,
				  struct ktrace_error *err)
{
	uint8_t ts[8];
	int ret;

	if (nbytes > UINT64_MAX - 8 || (nbytes && !events))
		return ktrace_error_set(err, -EINVAL, "%s: bad events size", w->path);
	ret = ktrace_file_writer_begin_chunk(w, KTRACE_TAG_EVENTS, 1, 0,
					     count_timestamp ? nbytes + 8 : nbytes, nbytes + 8,
					     err);
	if (ret < 0)
		return ret;
	kt_store_u64(ts, future_timestamp, false);
	w->pending = 0;
	if ((ret = wbytes(w, ts, 8, err)) < 0)
		return ret;
	return wbytes(w, events, nbytes, err);
}

int ktrace_file_writer_close(struct ktrace_file_writer *w, struct ktrace_error *err)
{
	int ret = check_usable(w, err);

	if (!ret)
		ret = end_chunk(w, err);
	if (!ret && !w->header_written)
		ret = write_header(w, err);
	if (!ret)
		ret = flush_buf(w, err);
	if (!ret) {
		ret = kt_outfile_commit(w->file, err);
		w->file = NULL;
	}
	w->fd = -1;
	ktrace_file_writer_abort(w);
	return ret;
}

void ktrace_file_writer_abort(struct ktrace_file_writer *w)
{
	if (!w)
		return;
	kt_outfile_abort(w->file);
	free(w->path);
	free(w->hchunks);
	free(w->buf);
	free(w);
}
