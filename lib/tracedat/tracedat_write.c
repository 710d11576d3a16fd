// SPDX-License-Identifier: MIT
/*
 * trace.dat writer, versions 6 and 7 (see include/ktrace/tracedat.h).
 *
 * Output goes through a write buffer with explicit file positions (pwrite), so that the
 * few values only known later (CPU data offsets and sizes, section sizes, chunk counts,
 * the first options offset) are patched in place. Version 7 metadata sections are
 * compressed as one block each; CPU data and latency text are compressed in chunks of
 * 10 pages, the layout trace-cmd uses.
 */
#include <ktrace/tracedat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "common/check.h"
#include "common/opts.h"
#include "common/outfile.h"
#include "tracedat/tracedat_int.h"
#include "common/grow.h"
#include "common/cursor.h"

#define TW_BUF_SIZE     (1u << 20)   /* write buffer */
#define TW_COPY_SIZE    (1u << 20)   /* read size when copying from a file descriptor */

/* Steps of the file, in order; w->done is the last one completed. */
enum {
	W_INIT, W_HEADERS, W_FTRACE, W_EVENTS, W_KALLSYMS, W_PRINTK, W_CMDLINES, W_OPTIONS,
	W_DATA, W_CLOSED,
};

struct tw_mem {
	uint8_t *p;
	size_t len, cap;
};

struct tw_option {
	uint16_t id;
	uint32_t size;
	uint8_t *data;
	size_t buffer;            /* v6 BUFFER option: its buffer; else SIZE_MAX */
	uint64_t data_at;         /* v6: file offset of the option's data once written */
};

struct tw_cpu {
	unsigned int cpu;
	uint64_t offset;
	uint64_t size;            /* bytes in the file */
	uint64_t data_size;       /* bytes of ring-buffer data */
};

struct tw_buffer {
	char *name;
	char *clock;
	unsigned int page_size;
	bool latency;
	bool declared;            /* added by the caller (v6 may add the top buffer itself) */
	bool started, finished;
	uint64_t offset;          /* v7: section header; v6: "flyrecord"/"latency" tag */
	uint64_t table_at;        /* v6: the CPU table; v7: where the section size goes */
	struct tw_cpu *cpus;      /* CPUs written (v7) / every table slot (v6) */
	size_t ncpus, cpus_cap;
	unsigned int next_cpu;    /* CPU ids below this one are done */
	uint64_t latency_size;
};

struct tracedat_writer {
	int fd;
	struct kt_outfile *file;  /* tracedat_writer_create: where fd comes from */
	unsigned int version;
	bool big;
	unsigned int long_size;
	unsigned int page_size;
	enum td_codec_kind codec;
	int level;
	ZSTD_CCtx *zctx;
	int error;
	int done;

	/* output */
	uint64_t pos;             /* logical end of the file */
	uint8_t *wb;              /* bytes [pos - wlen, pos) not yet written */
	size_t wlen;

	/* formats being collected (the section is written when complete) */
	struct tw_mem fmt;
	uint32_t fmt_count;       /* ftrace: formats; events: systems */
	size_t sys_count_at;      /* events: where the current system's count is in fmt */
	uint32_t sys_count;
	char *cur_sys;

	/* version 7 */
	uint64_t options_at;      /* header field: offset of the first options section */
	uint64_t sec_off[TRACEDAT_OPT_MODULES_FILE + 1];
	bool has_sec[TRACEDAT_OPT_MODULES_FILE + 1];
	bool has_btf, has_modules;  /* given (as a section or an option) */
	struct tw_mem strings;

	struct tw_option *opts;
	size_t nopts, opts_cap;
	unsigned int cpus;
	bool cpus_set;
	unsigned int max_cpu;     /* highest CPU id given data + 1 */

	struct tw_buffer *bufs;
	size_t nbufs;
	size_t cur;               /* buffer whose data is being written, or SIZE_MAX */
	struct tw_cpu *cpu;       /* CPU being written */
	bool chunked;             /* the current CPU / latency text is compressed */

	/* progress: ring-buffer data bytes taken so far, and when it was last told */
	void (*progress)(void *arg, uint64_t data_bytes);
	void *progress_arg;
	uint64_t data_done, data_told;

	/* chunks of compressed data */
	uint8_t *chunk;
	size_t chunk_len, chunk_size;
	uint32_t chunk_count;
	uint64_t chunk_count_at;
	uint8_t *cbuf;
	size_t cbuf_cap;
	uint8_t *copybuf;
};

/* ------------------------------------------------------------------ helpers */

static int oom(struct ktrace_error *err)
{
	return kt_error_oom(err);
}

static const char *wname(const struct tracedat_writer *w)
{
	return w->file ? kt_outfile_name(w->file) : "trace.dat output";
}

/* Records a failure: the writer refuses further work. */
static int fail(struct tracedat_writer *w, struct ktrace_error *err, int code, const char *what)
{
	if (!w->error)
		w->error = code;
	return ktrace_error_set(err, code, "%s: %s: %s", wname(w), what, strerror(-code));
}

static int usable(struct tracedat_writer *w, struct ktrace_error *err)
{
	if (w->error)
		return ktrace_error_set(err, w->error, "%s: the writer failed earlier", wname(w));
	if (w->done == W_CLOSED)
		return ktrace_error_set(err, -EINVAL, "%s: already closed", wname(w));
	return 0;
}

static int misuse(struct tracedat_writer *w, struct ktrace_error *err, const char *fmt,
		  const char *detail)
{
	char msg[200];

	snprintf(msg, sizeof(msg), fmt, detail ? detail : "");
	return ktrace_error_set(err, -EINVAL, "%s: %s", wname(w), msg);
}

static int mem_reserve(struct tw_mem *m, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (more <= m->cap - m->len)
		return 0;
	if (more > SIZE_MAX / 2 - m->len)
		return -ENOMEM;
	cap = m->cap ? m->cap : 4096;
	while (cap - m->len < more)
		cap *= 2;
	p = kt_realloc_array(m->p, cap, 1);
	if (!p)
		return -ENOMEM;
	m->p = p;
	m->cap = cap;
	return 0;
}

static int mem_add(struct tw_mem *m, const void *data, size_t len)
{
	if (mem_reserve(m, len))
		return -ENOMEM;
	if (len)
		memcpy(m->p + m->len, data, len);
	m->len += len;
	return 0;
}




static int mem_u32(const struct tracedat_writer *w, struct tw_mem *m, uint32_t v)
{
	uint8_t b[4];

	kt_store_u32(b, v, w->big);
	return mem_add(m, b, 4);
}

static int mem_u64(const struct tracedat_writer *w, struct tw_mem *m, uint64_t v)
{
	uint8_t b[8];

	kt_store_u64(b, v, w->big);
	return mem_add(m, b, 8);
}

/* ------------------------------------------------------------------ output */

static int flush(struct tracedat_writer *w, struct ktrace_error *err)
{
	int ret;

	if (!w->wlen)
		return 0;
	ret = kt_pwrite_all(w->fd, w->wb, w->wlen, w->pos - w->wlen);
	if (ret)
		return fail(w, err, ret, "write");
	w->wlen = 0;
	return 0;
}

static int wbytes(struct tracedat_writer *w, const void *p, size_t n, struct ktrace_error *err)
{
	const uint8_t *b = p;

	while (n) {
		size_t room = TW_BUF_SIZE - w->wlen, k = n < room ? n : room;
		int ret;

		if (!room) {
			if ((ret = flush(w, err)))
				return ret;
			continue;
		}
		if (b)
			memcpy(w->wb + w->wlen, b, k);
		else
			memset(w->wb + w->wlen, 0, k);
		w->wlen += k;
		w->pos += k;
		if (b)
			b += k;
		n -= k;
	}
	return 0;
}

static int wzero(struct tracedat_writer *w, size_t n, struct ktrace_error *err)
{
	return wbytes(w, NULL, n, err);
}

static int w16(struct tracedat_writer *w, uint16_t v, struct ktrace_error *err)
{
	uint8_t b[2];

	kt_store_u16(b, v, w->big);
	return wbytes(w, b, 2, err);
}

static int w32(struct tracedat_writer *w, uint32_t v, struct ktrace_error *err)
{
	uint8_t b[4];

	kt_store_u32(b, v, w->big);
	return wbytes(w, b, 4, err);
}

static int w64(struct tracedat_writer *w, uint64_t v, struct ktrace_error *err)
{
	uint8_t b[8];

	kt_store_u64(b, v, w->big);
	return wbytes(w, b, 8, err);
}

/* Overwrites n bytes at an earlier position. */
static int wpatch(struct tracedat_writer *w, uint64_t at, const void *p, size_t n,
		  struct ktrace_error *err)
{
	uint64_t start = w->pos - w->wlen;
	int ret;

	if (at >= start && at + n <= w->pos) {
		memcpy(w->wb + (at - start), p, n);
		return 0;
	}
	if ((ret = flush(w, err)))
		return ret;
	ret = kt_pwrite_all(w->fd, p, n, at);
	return ret ? fail(w, err, ret, "write") : 0;
}

static int patch32(struct tracedat_writer *w, uint64_t at, uint32_t v, struct ktrace_error *err)
{
	uint8_t b[4];

	kt_store_u32(b, v, w->big);
	return wpatch(w, at, b, 4, err);
}

static int patch64(struct tracedat_writer *w, uint64_t at, uint64_t v, struct ktrace_error *err)
{
	uint8_t b[8];

	kt_store_u64(b, v, w->big);
	return wpatch(w, at, b, 8, err);
}

/* Pads with zeros up to a multiple of align. */
static int walign(struct tracedat_writer *w, unsigned int align, struct ktrace_error *err)
{
	uint64_t rem = w->pos % align;

	return rem ? wzero(w, (size_t)(align - rem), err) : 0;
}

/* ------------------------------------------------------------------ compression */

static size_t compress_bound(const struct tracedat_writer *w, size_t n)
{
	if (w->codec == TD_CODEC_ZSTD)
		return ZSTD_compressBound(n);
	return (size_t)compressBound((uLong)n) + 64;
}

/* Compresses a then b (as one stream) into w->cbuf; *out_len gets the size. */
static int compress2pieces(struct tracedat_writer *w, const void *a, size_t alen, const void *b,
			   size_t blen, size_t *out_len, struct ktrace_error *err)
{
	size_t total = alen + blen, bound = compress_bound(w, total);

	if (bound > w->cbuf_cap) {
		uint8_t *p = kt_realloc_array(w->cbuf, bound, 1);

		if (!p)
			return fail(w, err, -ENOMEM, "compression buffer");
		w->cbuf = p;
		w->cbuf_cap = bound;
	}
	if (w->codec == TD_CODEC_ZSTD) {
		ZSTD_outBuffer out = { w->cbuf, w->cbuf_cap, 0 };
		ZSTD_inBuffer in = { a, alen, 0 };
		size_t r;

		ZSTD_CCtx_reset(w->zctx, ZSTD_reset_session_only);
		ZSTD_CCtx_setPledgedSrcSize(w->zctx, total);
		do {
			r = ZSTD_compressStream2(w->zctx, &out, &in, ZSTD_e_continue);
		} while (!ZSTD_isError(r) && in.pos < in.size);
		in = (ZSTD_inBuffer){ b, blen, 0 };
		do {
			if (!ZSTD_isError(r))
				r = ZSTD_compressStream2(w->zctx, &out, &in, ZSTD_e_end);
		} while (!ZSTD_isError(r) && r != 0 && out.pos < out.size);
		if (ZSTD_isError(r) || r != 0)
			return fail(w, err, -EIO, "zstd compression failed");
		*out_len = out.pos;
		return 0;
	} else {
		z_stream z = { 0 };
		int zr;

		if (alen > UINT_MAX || blen > UINT_MAX || w->cbuf_cap > UINT_MAX)
			return fail(w, err, -EOVERFLOW, "zlib block too large");
		if (deflateInit(&z, w->level) != Z_OK)
			return fail(w, err, -ENOMEM, "zlib init");
		z.next_out = w->cbuf;
		z.avail_out = (uInt)w->cbuf_cap;
		z.next_in = (Bytef *)(uintptr_t)a;
		z.avail_in = (uInt)alen;
		zr = deflate(&z, Z_NO_FLUSH);
		if (zr == Z_OK || zr == Z_BUF_ERROR) {
			z.next_in = (Bytef *)(uintptr_t)b;
			z.avail_in = (uInt)blen;
			do
				zr = deflate(&z, Z_FINISH);
			while (zr == Z_OK);
		}
		*out_len = z.total_out;
		deflateEnd(&z);
		if (zr != Z_STREAM_END)
			return fail(w, err, -EIO, "zlib compression failed");
		return 0;
	}
}

/* Writes one compressed block: u32 compressed size, u32 size, bytes. */
static int write_block(struct tracedat_writer *w, const void *a, size_t alen, const void *b,
		       size_t blen, struct ktrace_error *err)
{
	size_t clen = 0;
	int ret;

	if (alen + blen > UINT32_MAX || alen > SIZE_MAX - blen)
		return fail(w, err, -EOVERFLOW, "block larger than 4 GiB");
	if ((ret = compress2pieces(w, a, alen, b, blen, &clen, err)))
		return ret;
	if (clen > UINT32_MAX)
		return fail(w, err, -EOVERFLOW, "compressed block larger than 4 GiB");
	if ((ret = w32(w, (uint32_t)clen, err)) || (ret = w32(w, (uint32_t)(alen + blen), err)))
		return ret;
	return wbytes(w, w->cbuf, clen, err);
}

/* Chunked data (CPU data, latency text): chunks of w->chunk_size bytes. */
static int chunks_begin(struct tracedat_writer *w, size_t chunk_size, struct ktrace_error *err)
{
	if (chunk_size > w->chunk_size || !w->chunk) {
		uint8_t *p = kt_realloc_array(w->chunk, chunk_size, 1);

		if (!p)
			return fail(w, err, -ENOMEM, "chunk buffer");
		w->chunk = p;
	}
	w->chunk_size = chunk_size;
	w->chunk_len = 0;
	w->chunk_count = 0;
	w->chunk_count_at = w->pos;
	return w32(w, 0, err);
}

static int chunk_flush(struct tracedat_writer *w, struct ktrace_error *err)
{
	int ret;

	if (!w->chunk_len)
		return 0;
	if (w->chunk_count == UINT32_MAX)
		return fail(w, err, -EOVERFLOW, "too many chunks");
	ret = write_block(w, w->chunk, w->chunk_len, NULL, 0, err);
	w->chunk_len = 0;
	w->chunk_count++;
	return ret;
}

static int chunks_add(struct tracedat_writer *w, const void *data, size_t len,
		      struct ktrace_error *err)
{
	const uint8_t *p = data;

	while (len) {
		size_t k = w->chunk_size - w->chunk_len;
		int ret;

		if (k > len)
			k = len;
		memcpy(w->chunk + w->chunk_len, p, k);
		w->chunk_len += k;
		p += k;
		len -= k;
		if (w->chunk_len == w->chunk_size && (ret = chunk_flush(w, err)))
			return ret;
	}
	return 0;
}

static int chunks_end(struct tracedat_writer *w, struct ktrace_error *err)
{
	int ret = chunk_flush(w, err);

	return ret ? ret : patch32(w, w->chunk_count_at, w->chunk_count, err);
}

/* ------------------------------------------------------------------ sections */

static uint32_t add_string(struct tracedat_writer *w, const char *s, struct ktrace_error *err)
{
	size_t at = w->strings.len;

	if (mem_add(&w->strings, s, strlen(s) + 1)) {
		oom(err);
		return UINT32_MAX;
	}
	return (uint32_t)at;
}

/* Version 7 section header; *size_at gets where its size goes. */
static int section_begin(struct tracedat_writer *w, uint16_t id, const char *desc, bool compress,
			 uint64_t *size_at, struct ktrace_error *err)
{
	uint32_t s = add_string(w, desc, err);
	int ret;

	if (s == UINT32_MAX)
		return fail(w, err, -ENOMEM, "strings");
	if ((ret = w16(w, id, err)) || (ret = w16(w, compress ? 1 : 0, err)) ||
	    (ret = w32(w, s, err)))
		return ret;
	*size_at = w->pos;
	return w64(w, 0, err);
}

static int section_end(struct tracedat_writer *w, uint64_t size_at, struct ktrace_error *err)
{
	return patch64(w, size_at, w->pos - size_at - 8, err);
}

/*
 * A metadata section whose content is prefix (small) then text. v6: written as is;
 * v7: a section (compressed as one block when the file is) and its option.
 */
static int write_meta(struct tracedat_writer *w, uint16_t id, const char *desc, const void *prefix,
		      size_t plen, const void *text, size_t tlen, struct ktrace_error *err)
{
	bool compress = w->codec != TD_CODEC_NONE;
	uint64_t size_at;
	int ret;

	if (w->version < 7) {
		if ((ret = wbytes(w, prefix, plen, err)))
			return ret;
		return wbytes(w, text, tlen, err);
	}
	w->sec_off[id] = w->pos;
	w->has_sec[id] = true;
	if ((ret = section_begin(w, id, desc, compress, &size_at, err)))
		return ret;
	if (compress)
		ret = write_block(w, prefix, plen, text, tlen, err);
	else if (!(ret = wbytes(w, prefix, plen, err)))
		ret = wbytes(w, text, tlen, err);
	return ret ? ret : section_end(w, size_at, err);
}

/* ------------------------------------------------------------------ metadata steps */

static int write_step(struct tracedat_writer *w, int step, struct ktrace_error *err);

/* Completes every step up to `step` (writing empty ones as needed). */
static int complete_through(struct tracedat_writer *w, int step, struct ktrace_error *err)
{
	while (w->done < step) {
		int ret = write_step(w, w->done + 1, err);

		if (ret)
			return ret;
		w->done++;
	}
	return 0;
}

static int empty_text(struct tracedat_writer *w, int step, struct ktrace_error *err)
{
	uint8_t size[8];

	switch (step) {
	case W_HEADERS: {
		struct tw_mem m = { 0 };
		int ret = 0;

		if (mem_add(&m, "header_page", 12) || mem_u64(w, &m, 0) ||
		    mem_add(&m, "header_event", 13) || mem_u64(w, &m, 0))
			ret = oom(err);
		if (!ret)
			ret = write_meta(w, TRACEDAT_OPT_HEADER_INFO, "headers", m.p, m.len, NULL, 0,
					 err);
		free(m.p);
		return ret;
	}
	case W_KALLSYMS:
		kt_store_u32(size, 0, w->big);
		return write_meta(w, TRACEDAT_OPT_KALLSYMS, "kallsyms", size, 4, NULL, 0, err);
	case W_PRINTK:
		kt_store_u32(size, 0, w->big);
		return write_meta(w, TRACEDAT_OPT_PRINTK, "printk", size, 4, NULL, 0, err);
	case W_CMDLINES:
		kt_store_u64(size, 0, w->big);
		return write_meta(w, TRACEDAT_OPT_CMDLINES, "command lines", size, 8, NULL, 0, err);
	}
	return 0;
}

/* The collected ftrace formats (v6/v7: "u32 count, formats"). */
static int write_formats(struct tracedat_writer *w, uint16_t id, const char *desc,
			 struct ktrace_error *err)
{
	uint8_t count[4];
	int ret;

	if (w->fmt.len && w->fmt_count == 0)
		return misuse(w, err, "internal: formats without a count%s", NULL);
	if (id == TRACEDAT_OPT_EVENT_FORMATS && w->cur_sys)
		kt_store_u32(w->fmt.p + w->sys_count_at, w->sys_count, w->big);
	kt_store_u32(count, w->fmt_count, w->big);
	ret = write_meta(w, id, desc, count, 4, w->fmt.p, w->fmt.len, err);
	w->fmt.len = 0;
	w->fmt_count = 0;
	free(w->cur_sys);
	w->cur_sys = NULL;
	return ret;
}

static int write_options_v6(struct tracedat_writer *w, struct ktrace_error *err);

static int write_step(struct tracedat_writer *w, int step, struct ktrace_error *err)
{
	switch (step) {
	case W_HEADERS:
	case W_KALLSYMS:
	case W_PRINTK:
	case W_CMDLINES:
		return empty_text(w, step, err);
	case W_FTRACE:
		return write_formats(w, TRACEDAT_OPT_FTRACE_EVENTS, "ftrace events", err);
	case W_EVENTS:
		return write_formats(w, TRACEDAT_OPT_EVENT_FORMATS, "events format", err);
	case W_OPTIONS:
		return w->version < 7 ? write_options_v6(w, err) : 0;
	}
	return 0;
}

int tracedat_writer_headers(struct tracedat_writer *w, const char *header_page,
			    size_t page_len, const char *header_event, size_t event_len,
			    struct ktrace_error *err)
{
	struct tw_mem m = { 0 };
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (w->done >= W_HEADERS)
		return misuse(w, err, "header texts come first%s", NULL);
	if (mem_add(&m, "header_page", 12) || mem_u64(w, &m, page_len) ||
	    mem_add(&m, header_page, page_len) || mem_add(&m, "header_event", 13) ||
	    mem_u64(w, &m, event_len) || mem_add(&m, header_event, event_len))
		ret = oom(err);
	if (!ret)
		ret = write_meta(w, TRACEDAT_OPT_HEADER_INFO, "headers", m.p, m.len, NULL, 0, err);
	free(m.p);
	if (!ret)
		w->done = W_HEADERS;
	return ret;
}

int tracedat_writer_add_ftrace_format(struct tracedat_writer *w, const char *text, size_t len,
				      struct ktrace_error *err)
{
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (w->done >= W_FTRACE)
		return misuse(w, err, "ftrace formats must come before event formats and the rest%s",
			      NULL);
	if ((ret = complete_through(w, W_HEADERS, err)))
		return ret;
	if (w->fmt_count == UINT32_MAX)
		return misuse(w, err, "too many formats%s", NULL);
	if (mem_u64(w, &w->fmt, len) || mem_add(&w->fmt, text, len))
		return fail(w, err, -ENOMEM, "formats");
	w->fmt_count++;
	return 0;
}

int tracedat_writer_add_event_format(struct tracedat_writer *w, const char *system,
				     const char *text, size_t len, struct ktrace_error *err)
{
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (w->done >= W_EVENTS)
		return misuse(w, err, "event formats must come before kallsyms and the rest%s",
			      NULL);
	if (!system || !*system)
		return misuse(w, err, "event format without a system name%s", NULL);
	if ((ret = complete_through(w, W_FTRACE, err)))
		return ret;
	if (!w->cur_sys || strcmp(w->cur_sys, system)) {
		char *s = strdup(system);

		if (!s)
			return fail(w, err, -ENOMEM, "formats");
		if (w->cur_sys)
			kt_store_u32(w->fmt.p + w->sys_count_at, w->sys_count, w->big);
		free(w->cur_sys);
		w->cur_sys = s;
		if (mem_add(&w->fmt, system, strlen(system) + 1))
			return fail(w, err, -ENOMEM, "formats");
		w->sys_count_at = w->fmt.len;
		w->sys_count = 0;
		if (mem_u32(w, &w->fmt, 0))
			return fail(w, err, -ENOMEM, "formats");
		w->fmt_count++;
	}
	if (mem_u64(w, &w->fmt, len) || mem_add(&w->fmt, text, len))
		return fail(w, err, -ENOMEM, "formats");
	w->sys_count++;
	return 0;
}

static int text_step(struct tracedat_writer *w, int step, uint16_t id, const char *desc,
		     const char *text, size_t len, size_t size_bytes, struct ktrace_error *err)
{
	uint8_t size[8];
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (w->done >= step)
		return misuse(w, err, "%s given out of order (headers, formats, kallsyms, printk, "
			      "cmdlines, then data)", desc);
	if (size_bytes == 4 && len > UINT32_MAX)
		return misuse(w, err, "%s larger than 4 GiB", desc);
	if ((ret = complete_through(w, step - 1, err)))
		return ret;
	if (size_bytes == 4)
		kt_store_u32(size, (uint32_t)len, w->big);
	else
		kt_store_u64(size, len, w->big);
	ret = write_meta(w, id, desc, size, size_bytes, text, len, err);
	if (!ret)
		w->done = step;
	return ret;
}

int tracedat_writer_kallsyms(struct tracedat_writer *w, const char *text, size_t len,
			     struct ktrace_error *err)
{
	return text_step(w, W_KALLSYMS, TRACEDAT_OPT_KALLSYMS, "kallsyms", text, len, 4, err);
}

int tracedat_writer_printk(struct tracedat_writer *w, const char *text, size_t len,
			   struct ktrace_error *err)
{
	return text_step(w, W_PRINTK, TRACEDAT_OPT_PRINTK, "printk", text, len, 4, err);
}

int tracedat_writer_cmdlines(struct tracedat_writer *w, const char *text, size_t len,
			     struct ktrace_error *err)
{
	return text_step(w, W_CMDLINES, TRACEDAT_OPT_CMDLINES, "command lines", text, len, 8, err);
}

/* ------------------------------------------------------------------ options, buffers */

static int before_data(struct tracedat_writer *w, const char *what, struct ktrace_error *err)
{
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (w->done >= W_OPTIONS)
		return misuse(w, err, "%s must be given before the data", what);
	return 0;
}

int tracedat_writer_set_cpus(struct tracedat_writer *w, unsigned int cpus,
			     struct ktrace_error *err)
{
	int ret = before_data(w, "the CPU count", err);

	if (ret)
		return ret;
	if (!cpus || cpus > TD_MAX_CPUS)
		return misuse(w, err, "a CPU count from 1 to 1048576, please%s", NULL);
	w->cpus = cpus;
	w->cpus_set = true;
	return 0;
}

static int push_option(struct tracedat_writer *w, uint16_t id, const void *data, uint32_t size,
		       size_t buffer, struct ktrace_error *err)
{
	struct tw_option *o;

	if (kt_grow((void **)&w->opts, &w->opts_cap, w->nopts + 1, sizeof(*w->opts)))
		return fail(w, err, -ENOMEM, "options");
	o = &w->opts[w->nopts];
	o->data = malloc(size ? size : 1);
	if (!o->data)
		return fail(w, err, -ENOMEM, "options");
	if (size)
		memcpy(o->data, data, size);
	o->id = id;
	o->size = size;
	o->buffer = buffer;
	o->data_at = 0;
	w->nopts++;
	return 0;
}

int tracedat_writer_add_option(struct tracedat_writer *w, uint16_t id, const void *data,
			       uint32_t size, struct ktrace_error *err)
{
	int ret = before_data(w, "options", err);

	if (ret)
		return ret;
	if (td_layout_option(id))
		return ktrace_error_set(err, -EINVAL,
					"%s: option %u (%s) describes the file layout: the writer makes it",
					wname(w), id, tracedat_option_name(id));
	if (size && !data)
		return misuse(w, err, "option data missing%s", NULL);
	return push_option(w, id, data, size, SIZE_MAX, err);
}

/* A file of the traced machine (BTF, modules). trace-cmd 3.4 reads them from sections
 * of compressed version 7 files only (it fails on an uncompressed one): elsewhere they
 * go into ktrace's own options, which trace-cmd skips. */
static int file_step(struct tracedat_writer *w, uint16_t id, uint16_t own_id, bool *given,
		     const char *desc, const void *data, size_t len, struct ktrace_error *err)
{
	uint64_t size_at;
	int ret = before_data(w, desc, err);

	if (ret)
		return ret;
	if (*given)
		return misuse(w, err, "%s given twice", desc);
	if (len && !data)
		return misuse(w, err, "%s data missing", desc);
	if (len > UINT32_MAX - 64)
		return ktrace_error_set(err, -EOVERFLOW, "%s: %s of %zu bytes: at most 4 GiB",
					wname(w), desc, len);
	if ((ret = complete_through(w, W_CMDLINES, err)))
		return ret;
	*given = true;
	if (w->version < 7 || w->codec == TD_CODEC_NONE)
		return push_option(w, own_id, data, (uint32_t)len, SIZE_MAX, err);
	w->sec_off[id] = w->pos;
	w->has_sec[id] = true;
	if ((ret = section_begin(w, id, desc, true, &size_at, err)) ||
	    (ret = write_block(w, data, len, NULL, 0, err)))
		return ret;
	return section_end(w, size_at, err);
}

int tracedat_writer_btf(struct tracedat_writer *w, const void *data, size_t len,
			struct ktrace_error *err)
{
	return file_step(w, TRACEDAT_OPT_BTF_FILE, TRACEDAT_OPT_KTRACE_BTF, &w->has_btf, "BTF",
			 data, len, err);
}

int tracedat_writer_modules(struct tracedat_writer *w, const char *text, size_t len,
			    struct ktrace_error *err)
{
	return file_step(w, TRACEDAT_OPT_MODULES_FILE, TRACEDAT_OPT_KTRACE_MODULES,
			 &w->has_modules, "modules", text, len, err);
}

static int new_buffer(struct tracedat_writer *w, const char *name, const char *clock,
		      unsigned int page_size, bool latency, bool declared, struct ktrace_error *err)
{
	struct tw_buffer *n = kt_realloc_array(w->bufs, w->nbufs + 1, sizeof(*n)), *b;

	if (!n)
		return fail(w, err, -ENOMEM, "buffers");
	w->bufs = n;
	b = &n[w->nbufs];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->clock = strdup(clock && *clock ? clock : "local");
	if (!b->name || !b->clock) {
		free(b->name);
		free(b->clock);
		return fail(w, err, -ENOMEM, "buffers");
	}
	b->page_size = page_size;
	b->latency = latency;
	b->declared = declared;
	return (int)w->nbufs++;
}

int tracedat_writer_add_buffer(struct tracedat_writer *w, const char *name, const char *clock,
			       unsigned int page_size, bool latency, struct ktrace_error *err)
{
	int ret = before_data(w, "buffers", err);

	if (ret)
		return ret;
	if (!name)
		name = "";
	if (!page_size)
		page_size = w->page_size;
	if (page_size < TD_MIN_PAGE_SIZE || page_size > TD_MAX_PAGE_SIZE ||
	    (page_size & (page_size - 1)))
		return misuse(w, err, "page size must be a power of two from 64 to 1 MiB%s", NULL);
	for (size_t i = 0; i < w->nbufs; i++) {
		struct tw_buffer *b = &w->bufs[i];

		if (strcmp(b->name, name))
			continue;
		if (w->version < 7 && !*name && !b->declared && !latency) {
			/* the top buffer we added ourselves: now described */
			char *c = strdup(clock && *clock ? clock : "local");

			if (!c)
				return fail(w, err, -ENOMEM, "buffers");
			free(b->clock);
			b->clock = c;
			b->declared = true;
			return 0;
		}
		return misuse(w, err, "buffer \"%s\" added twice", name);
	}
	if (w->version < 7) {
		if (page_size != w->page_size)
			return ktrace_error_set(err, -ENOTSUP,
						"%s: version 6 has one page size for every buffer (%u, not %u)",
						wname(w), w->page_size, page_size);
		if (latency && (*name || w->nbufs))
			return ktrace_error_set(err, -ENOTSUP,
						"%s: version 6 holds a latency buffer only as the top and only buffer",
						wname(w));
		if (w->nbufs && w->bufs[0].latency)
			return ktrace_error_set(err, -ENOTSUP,
						"%s: version 6 holds no other buffer next to a latency one",
						wname(w));
		if (*name && !w->nbufs) {
			ret = new_buffer(w, "", clock, page_size, false, false, err);
			if (ret < 0)
				return ret;
		}
	}
	return new_buffer(w, name, clock, page_size, latency, true, err);
}

/* Version 6: CPU count, options (BUFFER options of instances with offsets to patch). */
static int write_options_v6(struct tracedat_writer *w, struct ktrace_error *err)
{
	int ret;

	if (!w->cpus_set) {
		/* the CPU tables need a size: one CPU unless told (data for another CPU is
		 * then refused) */
		w->cpus = 1;
		w->cpus_set = true;
	}
	if (!w->nbufs && (ret = new_buffer(w, "", "local", w->page_size, false, false, err)) < 0)
		return ret;
	/* instance buffers are described by BUFFER options: u64 offset, name */
	for (size_t i = 1; i < w->nbufs; i++) {
		size_t n = strlen(w->bufs[i].name) + 1;
		uint8_t *d = calloc(1, 8 + n);

		if (!d)
			return fail(w, err, -ENOMEM, "options");
		memcpy(d + 8, w->bufs[i].name, n);
		ret = push_option(w, TRACEDAT_OPT_BUFFER, d, (uint32_t)(8 + n), i, err);
		free(d);
		if (ret)
			return ret;
	}
	if ((ret = w32(w, w->cpus, err)) || (ret = wbytes(w, "options  ", 10, err)))
		return ret;
	for (size_t i = 0; i < w->nopts; i++) {
		struct tw_option *o = &w->opts[i];

		if ((ret = w16(w, o->id, err)) || (ret = w32(w, o->size, err)))
			return ret;
		o->data_at = w->pos;
		if ((ret = wbytes(w, o->data, o->size, err)))
			return ret;
	}
	return w16(w, TRACEDAT_OPT_DONE, err);
}

/* ------------------------------------------------------------------ data */

static int add_cpu_slot(struct tracedat_writer *w, struct tw_buffer *b, unsigned int cpu,
			struct ktrace_error *err)
{
	if (b->ncpus == b->cpus_cap) {
		size_t cap = b->cpus_cap ? b->cpus_cap * 2 : 8;
		struct tw_cpu *n = kt_realloc_array(b->cpus, cap, sizeof(*n));

		if (!n)
			return fail(w, err, -ENOMEM, "CPU table");
		b->cpus = n;
		b->cpus_cap = cap;
	}
	memset(&b->cpus[b->ncpus], 0, sizeof(b->cpus[0]));
	b->cpus[b->ncpus].cpu = cpu;
	b->ncpus++;
	return 0;
}

/* v6: the CPU table entry of a CPU, once its data is written. */
static int v6_table_entry(struct tracedat_writer *w, struct tw_buffer *b, unsigned int cpu,
			  uint64_t offset, uint64_t size, struct ktrace_error *err)
{
	uint8_t e[16];

	kt_store_u64(e, offset, w->big);
	kt_store_u64(e + 8, size, w->big);
	return wpatch(w, b->table_at + 16ull * cpu, e, 16, err);
}

/* v6: fills the table entries of CPUs below `upto` that got no data. */
static int v6_fill_empty(struct tracedat_writer *w, struct tw_buffer *b, unsigned int upto,
			 struct ktrace_error *err)
{
	uint64_t at = (w->pos + b->page_size - 1) & ~((uint64_t)b->page_size - 1);

	for (; b->next_cpu < upto; b->next_cpu++) {
		int ret = v6_table_entry(w, b, b->next_cpu, at, 0, err);

		if (ret)
			return ret;
	}
	return 0;
}

static int buffer_start(struct tracedat_writer *w, size_t i, struct ktrace_error *err)
{
	struct tw_buffer *b = &w->bufs[i];
	bool compress = w->codec != TD_CODEC_NONE;
	int ret;

	b->started = true;
	b->offset = w->pos;
	w->cur = i;
	if (w->version >= 7) {
		char desc[300];

		snprintf(desc, sizeof(desc), b->latency ? "buffer latency" : "buffer flyrecord %s",
			 b->name);
		ret = section_begin(w, b->latency ? TRACEDAT_OPT_BUFFER_TEXT : TRACEDAT_OPT_BUFFER,
				    desc, compress, &b->table_at, err);
		if (ret)
			return ret;
		if (b->latency && compress)
			return chunks_begin(w, (size_t)TD_PAGES_PER_CHUNK * w->page_size, err);
		return 0;
	}
	if (b->latency)
		return wbytes(w, "latency  ", 10, err);
	/* v6: the instance's BUFFER option points at its "flyrecord" */
	for (size_t k = 0; k < w->nopts; k++)
		if (w->opts[k].buffer == i && (ret = patch64(w, w->opts[k].data_at, w->pos, err)))
			return ret;
	if ((ret = wbytes(w, "flyrecord", 10, err)))
		return ret;
	b->table_at = w->pos;
	if ((ret = wzero(w, 16ull * w->cpus, err)))
		return ret;
	/* the trace clock follows the table: u64 size, "[clock]" */
	{
		char clk[300];
		int n = snprintf(clk, sizeof(clk), "[%s]", b->clock);

		if (n < 0 || (size_t)n >= sizeof(clk))
			return misuse(w, err, "clock name too long%s", NULL);
		if ((ret = w64(w, (uint64_t)n, err)) || (ret = wbytes(w, clk, (size_t)n, err)))
			return ret;
	}
	return 0;
}

static int buffer_finish(struct tracedat_writer *w, struct ktrace_error *err)
{
	struct tw_buffer *b = &w->bufs[w->cur];
	int ret = 0;

	if (w->version >= 7) {
		if (b->latency && w->codec != TD_CODEC_NONE && (ret = chunks_end(w, err)))
			return ret;
		ret = section_end(w, b->table_at, err);
	} else if (!b->latency) {
		ret = v6_fill_empty(w, b, w->cpus, err);
	}
	b->finished = true;
	w->cur = SIZE_MAX;
	return ret;
}

/* Moves on to buffer i: completes the options, the buffers before it. */
static int goto_buffer(struct tracedat_writer *w, size_t i, struct ktrace_error *err)
{
	int ret;

	if (i >= w->nbufs)
		return misuse(w, err, "no such buffer%s", NULL);
	if (w->bufs[i].finished || (w->cur != SIZE_MAX && w->cur > i))
		return misuse(w, err, "buffer \"%s\": data must be written buffer by buffer, in the "
			      "order they were added", w->bufs[i].name);
	if (w->cur == i)
		return 0;
	if ((ret = complete_through(w, W_OPTIONS, err)))
		return ret;
	w->done = W_DATA;
	if (w->cur != SIZE_MAX && (ret = buffer_finish(w, err)))
		return ret;
	for (size_t k = 0; k < i; k++) {
		if (w->bufs[k].finished)
			continue;
		if ((ret = buffer_start(w, k, err)) || (ret = buffer_finish(w, err)))
			return ret;
	}
	return buffer_start(w, i, err);
}

int tracedat_writer_cpu_begin(struct tracedat_writer *w, unsigned int buffer, unsigned int cpu,
			      struct ktrace_error *err)
{
	struct tw_buffer *b;
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (w->cpu)
		return misuse(w, err, "CPU data begun while another CPU's is not ended%s", NULL);
	if (buffer >= w->nbufs)
		return misuse(w, err, "no such buffer%s", NULL);
	if (w->bufs[buffer].latency)
		return misuse(w, err, "buffer \"%s\" is a latency buffer", w->bufs[buffer].name);
	if ((ret = goto_buffer(w, buffer, err)))
		return ret;
	b = &w->bufs[buffer];
	if (cpu < b->next_cpu)
		return misuse(w, err, "buffer \"%s\": CPUs must come in increasing order, once each",
			      b->name);
	if (w->version < 7) {
		if (cpu >= w->cpus)
			return ktrace_error_set(err, -EINVAL, "%s: CPU %u, but the file has %u CPUs",
						wname(w), cpu, w->cpus);
		if ((ret = v6_fill_empty(w, b, cpu, err)))
			return ret;
	}
	if ((ret = walign(w, b->page_size, err)) || (ret = add_cpu_slot(w, b, cpu, err)))
		return ret;
	b->next_cpu = cpu + 1;
	w->cpu = &b->cpus[b->ncpus - 1];
	w->cpu->offset = w->pos;
	w->chunked = w->version >= 7 && w->codec != TD_CODEC_NONE;
	if (w->chunked)
		return chunks_begin(w, (size_t)TD_PAGES_PER_CHUNK * b->page_size, err);
	return 0;
}

/* Tells the caller's progress callback about every PROGRESS_STEP bytes of data. */
#define PROGRESS_STEP (4u << 20)

static void note_progress(struct tracedat_writer *w, uint64_t n)
{
	w->data_done += n;
	if (w->progress && w->data_done - w->data_told >= PROGRESS_STEP) {
		w->data_told = w->data_done;
		w->progress(w->progress_arg, w->data_done);
	}
}

int tracedat_writer_cpu_write(struct tracedat_writer *w, const void *data, size_t len,
			      struct ktrace_error *err)
{
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (!w->cpu)
		return misuse(w, err, "CPU data written outside cpu_begin/cpu_end%s", NULL);
	w->cpu->data_size += len;
	note_progress(w, len);
	if (w->chunked)
		return chunks_add(w, data, len, err);
	return wbytes(w, data, len, err);
}

int tracedat_writer_cpu_copy_fd(struct tracedat_writer *w, int fd, uint64_t offset,
				uint64_t len, struct ktrace_error *err)
{
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (!w->cpu)
		return misuse(w, err, "CPU data written outside cpu_begin/cpu_end%s", NULL);
	if (!w->chunked) {
		loff_t in = (loff_t)offset, out;
		uint64_t left = len;

		if ((ret = flush(w, err)))
			return ret;
		out = (loff_t)w->pos;
		while (left) {
			ssize_t r = copy_file_range(fd, &in, w->fd, &out,
						    left > (1u << 30) ? (1u << 30) : (size_t)left, 0);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;   /* not supported here, or the source ended: read below */
			left -= (uint64_t)r;
			w->pos += (uint64_t)r;
			w->cpu->data_size += (uint64_t)r;
			note_progress(w, (uint64_t)r);
		}
		offset = (uint64_t)in;
		len = left;
	}
	if (len && !w->copybuf && !(w->copybuf = malloc(TW_COPY_SIZE)))
		return fail(w, err, -ENOMEM, "copy buffer");
	while (len) {
		size_t n = len < TW_COPY_SIZE ? (size_t)len : TW_COPY_SIZE;
		ssize_t r = pread(fd, w->copybuf, n, (off_t)offset);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(w, err, -errno, "reading CPU data");
		if (r == 0)
			return fail(w, err, -ENODATA, "CPU data source ended early");
		if ((ret = tracedat_writer_cpu_write(w, w->copybuf, (size_t)r, err)))
			return ret;
		offset += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

int tracedat_writer_cpu_end(struct tracedat_writer *w, struct ktrace_error *err)
{
	struct tw_buffer *b;
	struct tw_cpu *c = w->cpu;
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (!c)
		return misuse(w, err, "cpu_end without cpu_begin%s", NULL);
	b = &w->bufs[w->cur];
	if (w->chunked && (ret = chunks_end(w, err)))
		return ret;
	w->chunked = false;
	c->size = c->data_size ? w->pos - c->offset : 0;
	if (c->data_size && c->cpu + 1 > w->max_cpu)
		w->max_cpu = c->cpu + 1;
	w->cpu = NULL;
	if (w->version < 7)
		return v6_table_entry(w, b, c->cpu, c->offset, c->size, err);
	if (!c->data_size) {
		/* nothing to describe: trace-cmd lists only CPUs with data */
		b->ncpus--;
		if (w->pos == c->offset + 4 && w->wlen >= 4) {
			/* drop its chunk count while it is still in the write buffer (otherwise
			 * the 4 bytes stay, unused, inside the buffer's section) */
			w->pos -= 4;
			w->wlen -= 4;
		}
	}
	return 0;
}

int tracedat_writer_latency_write(struct tracedat_writer *w, unsigned int buffer,
				  const void *text, size_t len, struct ktrace_error *err)
{
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (w->cpu)
		return misuse(w, err, "latency text written while CPU data is not ended%s", NULL);
	if (buffer >= w->nbufs || !w->bufs[buffer].latency)
		return misuse(w, err, "not a latency buffer%s", NULL);
	if ((ret = goto_buffer(w, buffer, err)))
		return ret;
	w->bufs[buffer].latency_size += len;
	if (w->version >= 7 && w->codec != TD_CODEC_NONE)
		return chunks_add(w, text, len, err);
	return wbytes(w, text, len, err);
}

/* ------------------------------------------------------------------ close */

/* Version 7: the options section (every option, then the buffers'), strings. */
static int write_tail_v7(struct tracedat_writer *w, struct ktrace_error *err)
{
	static const struct { uint16_t id; } secs[] = {
		{ TRACEDAT_OPT_HEADER_INFO }, { TRACEDAT_OPT_FTRACE_EVENTS },
		{ TRACEDAT_OPT_EVENT_FORMATS }, { TRACEDAT_OPT_KALLSYMS }, { TRACEDAT_OPT_PRINTK },
		{ TRACEDAT_OPT_CMDLINES }, { TRACEDAT_OPT_BTF_FILE }, { TRACEDAT_OPT_MODULES_FILE },
	};
	uint64_t size_at, strings_size_at;
	unsigned int cpus = w->cpus_set ? w->cpus : w->max_cpu;
	struct tw_mem m = { 0 };
	int ret;

	if ((ret = patch64(w, w->options_at, w->pos, err)))
		return ret;
	if ((ret = section_begin(w, TRACEDAT_OPT_DONE, "options", false, &size_at, err)))
		return ret;
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		if (!w->has_sec[secs[i].id])
			continue;
		if ((ret = w16(w, secs[i].id, err)) || (ret = w32(w, 8, err)) ||
		    (ret = w64(w, w->sec_off[secs[i].id], err)))
			return ret;
	}
	if (cpus < w->max_cpu)
		cpus = w->max_cpu;
	if ((ret = w16(w, TRACEDAT_OPT_CPUCOUNT, err)) || (ret = w32(w, 4, err)) ||
	    (ret = w32(w, cpus, err)))
		return ret;
	for (size_t i = 0; i < w->nopts; i++) {
		struct tw_option *o = &w->opts[i];

		if ((ret = w16(w, o->id, err)) || (ret = w32(w, o->size, err)) ||
		    (ret = wbytes(w, o->data, o->size, err)))
			return ret;
	}
	for (size_t i = 0; i < w->nbufs; i++) {
		struct tw_buffer *b = &w->bufs[i];

		m.len = 0;
		if (mem_u64(w, &m, b->offset) || mem_add(&m, b->name, strlen(b->name) + 1) ||
		    mem_add(&m, b->clock, strlen(b->clock) + 1)) {
			free(m.p);
			return fail(w, err, -ENOMEM, "options");
		}
		if (!b->latency) {
			int bad = mem_u32(w, &m, b->page_size) || mem_u32(w, &m, (uint32_t)b->ncpus);

			for (size_t k = 0; !bad && k < b->ncpus; k++)
				bad = mem_u32(w, &m, b->cpus[k].cpu) ||
				      mem_u64(w, &m, b->cpus[k].offset) ||
				      mem_u64(w, &m, b->cpus[k].size);
			if (bad) {
				free(m.p);
				return fail(w, err, -ENOMEM, "options");
			}
		}
		if (m.len > UINT32_MAX) {
			free(m.p);
			return fail(w, err, -EOVERFLOW, "BUFFER option");
		}
		ret = w16(w, b->latency ? TRACEDAT_OPT_BUFFER_TEXT : TRACEDAT_OPT_BUFFER, err);
		if (!ret)
			ret = w32(w, (uint32_t)m.len, err);
		if (!ret)
			ret = wbytes(w, m.p, m.len, err);
		if (ret) {
			free(m.p);
			return ret;
		}
	}
	free(m.p);
	/* DONE: u64 offset of the next options section (none) */
	if ((ret = w16(w, TRACEDAT_OPT_DONE, err)) || (ret = w32(w, 8, err)) ||
	    (ret = w64(w, 0, err)) || (ret = section_end(w, size_at, err)))
		return ret;
	/* the section names, "strings" included */
	if ((ret = section_begin(w, TRACEDAT_OPT_STRINGS, "strings", w->codec != TD_CODEC_NONE,
				 &strings_size_at, err)))
		return ret;
	if (w->codec != TD_CODEC_NONE)
		ret = write_block(w, w->strings.p, w->strings.len, NULL, 0, err);
	else
		ret = wbytes(w, w->strings.p, w->strings.len, err);
	return ret ? ret : section_end(w, strings_size_at, err);
}

static int finish(struct tracedat_writer *w, struct ktrace_error *err)
{
	int ret = usable(w, err);

	if (ret)
		return ret;
	if (w->cpu)
		return misuse(w, err, "closed while CPU data is not ended%s", NULL);
	if ((ret = complete_through(w, W_OPTIONS, err)))
		return ret;
	if (w->nbufs) {
		if ((ret = goto_buffer(w, w->nbufs - 1, err)) || (ret = buffer_finish(w, err)))
			return ret;
	}
	if (w->version >= 7 && (ret = write_tail_v7(w, err)))
		return ret;
	return flush(w, err);
}

uint64_t tracedat_writer_size(const struct tracedat_writer *w)
{
	return w->pos;
}

unsigned int tracedat_writer_version(const struct tracedat_writer *w)
{
	return w->version;
}

static void writer_free(struct tracedat_writer *w)
{
	kt_outfile_abort(w->file);
	free(w->wb);
	free(w->fmt.p);
	free(w->cur_sys);
	free(w->strings.p);
	for (size_t i = 0; i < w->nopts; i++)
		free(w->opts[i].data);
	free(w->opts);
	for (size_t i = 0; i < w->nbufs; i++) {
		free(w->bufs[i].name);
		free(w->bufs[i].clock);
		free(w->bufs[i].cpus);
	}
	free(w->bufs);
	free(w->chunk);
	free(w->cbuf);
	free(w->copybuf);
	if (w->zctx)
		ZSTD_freeCCtx(w->zctx);
	free(w);
}

int tracedat_writer_close(struct tracedat_writer *w, struct ktrace_error *err)
{
	int ret;

	if (!w)
		return ktrace_error_set(err, -EINVAL, "no writer");
	ret = finish(w, err);
	if (!ret && w->file) {
		ret = kt_outfile_commit(w->file, err);
		w->file = NULL;
		w->fd = -1;
		if (ret && !w->error)
			w->error = ret;
	}
	if (!ret)
		w->done = W_CLOSED;
	writer_free(w);
	return ret;
}

void tracedat_writer_abort(struct tracedat_writer *w)
{
	if (w)
		writer_free(w);
}

/* ------------------------------------------------------------------ create */

static int writer_new(const struct tracedat_write_opts *opts, struct tracedat_writer **out,
		      struct ktrace_error *err)
{
	struct tracedat_write_opts copy;
	const struct tracedat_write_opts *o = &copy;
	struct tracedat_writer *w;
	const char *comp;
	unsigned int version;
	int ret;

	*out = NULL;
	if ((ret = KT_OPTS_COPY(&copy, opts, "tracedat_write_opts", err)))
		return ret;
	comp = o->compression ? o->compression : "none";
	version = o->version ? o->version : 7;
	if (version != 6 && version != 7)
		return ktrace_error_set(err, -EINVAL, "trace.dat version %u: 6 and 7 are written",
					version);
	w = calloc(1, sizeof(*w));
	if (!w)
		return oom(err);
	w->fd = -1;
	w->cur = SIZE_MAX;
	w->version = version;
	w->big = o && o->big_endian;
	w->long_size = o && o->long_size ? o->long_size : 8;
	w->page_size = o && o->page_size ? o->page_size : 4096;
	if (!strcmp(comp, "zstd")) {
		w->codec = TD_CODEC_ZSTD;
	} else if (!strcmp(comp, "zlib")) {
		w->codec = TD_CODEC_ZLIB;
	} else if (strcmp(comp, "none")) {
		free(w);
		return ktrace_error_set(err, -EINVAL, "unknown compression \"%s\" (none, zstd, zlib)",
					comp);
	}
	if (w->codec != TD_CODEC_NONE && version < 7) {
		free(w);
		return ktrace_error_set(err, -EINVAL, "version 6 files cannot be compressed");
	}
	if (w->long_size > 255 || w->page_size < TD_MIN_PAGE_SIZE ||
	    w->page_size > TD_MAX_PAGE_SIZE || (w->page_size & (w->page_size - 1))) {
		free(w);
		return ktrace_error_set(err, -EINVAL,
					"page size must be a power of two from 64 to 1 MiB");
	}
	w->progress = o ? o->progress : NULL;
	w->progress_arg = o ? o->progress_arg : NULL;
	w->level = o && o->level ? o->level
		   : w->codec == TD_CODEC_ZSTD ? ZSTD_CLEVEL_DEFAULT : Z_DEFAULT_COMPRESSION;
	w->wb = malloc(TW_BUF_SIZE);
	if (!w->wb) {
		free(w);
		return oom(err);
	}
	if (w->codec == TD_CODEC_ZSTD) {
		w->zctx = ZSTD_createCCtx();
		if (!w->zctx || ZSTD_isError(ZSTD_CCtx_setParameter(w->zctx,
								      ZSTD_c_compressionLevel,
								      w->level))) {
			writer_free(w);
			return ktrace_error_set(err, -ENOMEM, "cannot set up zstd compression");
		}
	}
	*out = w;
	return 0;
}

/* The initial header: magic, version, endianness, long size, page size (v7:
 * compression, first options offset). */
static int write_init(struct tracedat_writer *w, struct ktrace_error *err)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t b[2] = { w->big ? 1 : 0, (uint8_t)w->long_size };
	int ret;

	if ((ret = wbytes(w, magic, 10, err)) ||
	    (ret = wbytes(w, w->version < 7 ? "6" : "7", 2, err)) ||
	    (ret = wbytes(w, b, 2, err)) || (ret = w32(w, w->page_size, err)))
		return ret;
	if (w->version < 7)
		return 0;
	{
		const char *name = w->codec == TD_CODEC_ZSTD ? "zstd"
				   : w->codec == TD_CODEC_ZLIB ? "zlib" : "none";
		const char *ver = w->codec == TD_CODEC_ZSTD ? ZSTD_versionString()
				  : w->codec == TD_CODEC_ZLIB ? zlibVersion() : "";

		if ((ret = wbytes(w, name, strlen(name) + 1, err)) ||
		    (ret = wbytes(w, ver, strlen(ver) + 1, err)))
			return ret;
	}
	w->options_at = w->pos;
	return w64(w, 0, err);
}

int tracedat_writer_create_fd(int fd, const struct tracedat_write_opts *opts,
			      struct tracedat_writer **out, struct ktrace_error *err)
{
	struct tracedat_writer *w;
	int ret = writer_new(opts, &w, err);

	if (ret)
		return ret;
	w->fd = fd;
	if ((ret = write_init(w, err))) {
		writer_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

int tracedat_writer_create(const char *path, const struct tracedat_write_opts *opts,
			   struct tracedat_writer **out, struct ktrace_error *err)
{
	struct tracedat_writer *w;
	int ret = writer_new(opts, &w, err);

	if (ret)
		return ret;
	/* the writer patches offsets in place: a FIFO or stdout gets a spool first */
	if ((ret = kt_outfile_open(path, KT_OUTFILE_SEEKABLE, &w->file, err))) {
		writer_free(w);
		return ret;
	}
	w->fd = kt_outfile_fd(w->file);
	if ((ret = write_init(w, err))) {
		writer_free(w);
		return ret;
	}
	*out = w;
	return 0;
}
