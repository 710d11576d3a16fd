// SPDX-License-Identifier: MIT
/* The ktrace_file reader: header and chunk iteration of V3 ktrace files. */
#include <ktrace/detect.h>
#include <ktrace/ktrace_file.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/detect_table.h"

struct ktrace_file {
	struct ktrace_input *in;
	bool owns_input;
	struct ktrace_file_header hdr;
	uint64_t header_end;     /* 16 + header_size */
	uint64_t body_offset;    /* header_end rounded up to 8 */
};

enum { PHASE_HEADER = 0, PHASE_BODY = 1, PHASE_DONE = 2 };

#define STREAM_CHUNK_MAX (1ULL << 30)

static uint64_t align8(uint64_t v, bool *overflow)
{
	if (v > UINT64_MAX - 7) {
		*overflow = true;
		return UINT64_MAX;
	}
	return (v + 7) & ~(uint64_t)7;
}

static int parse_header(struct ktrace_file *f, struct ktrace_error *err)
{
	struct ktrace_file_header *h = &f->hdr;
	const uint8_t *p;
	struct kt_cursor c;
	int64_t got, size = ktrace_input_size(f->in);
	bool ovf = false;

	got = ktrace_input_peek(f->in, 0, KTRACE_FILE_HEADER_SIZE, &p, err);
	if (got < 0)
		return (int)got;
	KT_RETURN_ERROR_AT_IF(got < KTRACE_FILE_HEADER_SIZE, err, -ENODATA, 0,
			      "truncated ktrace file header: %lld of %d bytes", (long long)got,
			      KTRACE_FILE_HEADER_SIZE);
	kt_cursor_init(&c, p, KTRACE_FILE_HEADER_SIZE, 0, err);
	kt_cursor_u32(&c, &h->magic);
	if (h->magic == KTRACE_FILE_MAGIC)
		h->flavour = KTRACE_FILE_LIBKTRACE;
	else if (h->magic == KTRACE_FILE_KERNEL_MAGIC)
		h->flavour = KTRACE_FILE_KERNEL;
	else
		return ktrace_error_at(err, -EBADMSG, 0,
				       "not a ktrace file: magic 0x%08x (expected 0x%08x or 0x%08x)",
				       h->magic, KTRACE_FILE_MAGIC, KTRACE_FILE_KERNEL_MAGIC);
	kt_cursor_u16(&c, &h->major);
	kt_cursor_u16(&c, &h->minor);
	kt_cursor_u64(&c, &h->header_size);
	kt_cursor_u32(&c, &h->timebase_numer);
	kt_cursor_u32(&c, &h->timebase_denom);
	kt_cursor_u64(&c, &h->timestamp);
	kt_cursor_u64(&c, &h->walltime_secs);
	kt_cursor_u32(&c, &h->walltime_usecs);
	{
		uint32_t mw;

		kt_cursor_u32(&c, &mw);
		h->minutes_west = (int32_t)mw;
	}
	kt_cursor_u32(&c, &h->dst);
	kt_cursor_u32(&c, &h->flags);

	if (h->header_size < KTRACE_FILE_HEADER_FIXED)
		return ktrace_error_at(err, -EBADMSG, 8,
				       "header size %llu is smaller than the %d bytes of fixed "
				       "header fields",
				       (unsigned long long)h->header_size, KTRACE_FILE_HEADER_FIXED);
	KT_RETURN_ERROR_AT_IF(h->header_size > UINT64_MAX - 16, err, -EOVERFLOW, 8,
			      "header size %llu overflows", (unsigned long long)h->header_size);
	f->header_end = 16 + h->header_size;
	KT_RETURN_ERROR_AT_IF(size >= 0 && f->header_end > (uint64_t)size, err, -ENODATA, 8,
			      "header size %llu exceeds the file (%lld bytes)",
			      (unsigned long long)h->header_size, (long long)size);
	f->body_offset = align8(f->header_end, &ovf);
	KT_RETURN_ERROR_AT_IF(ovf, err, -EOVERFLOW, 8, "header size %llu overflows",
			      (unsigned long long)h->header_size);
	return 0;
}

int ktrace_file_open_input(struct ktrace_input *in, struct ktrace_file **out,
			   struct ktrace_error *err)
{
	struct ktrace_file *f;
	int ret;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return kt_error_oom(err);
	f->in = in;
	ret = parse_header(f, err);
	if (ret < 0) {
		free(f);
		return ret;
	}
	*out = f;
	return 0;
}

static int open_owned(struct ktrace_input *in, int ret, struct ktrace_file **out,
		      struct ktrace_error *err)
{
	if (ret < 0)
		return ret;
	ret = ktrace_file_open_input(in, out, err);
	if (ret < 0) {
		ktrace_input_close(in);
		return ret;
	}
	(*out)->owns_input = true;
	return 0;
}

int ktrace_file_open(const char *path, struct ktrace_file **out, struct ktrace_error *err)
{
	struct ktrace_input *in = NULL;
	int ret = ktrace_input_open(path, &in, err);

	*out = NULL;
	return open_owned(in, ret, out, err);
}

int ktrace_file_open_memory(const void *data, size_t len, const char *name,
			    struct ktrace_file **out, struct ktrace_error *err)
{
	struct ktrace_input *in = NULL;
	int ret = ktrace_input_from_memory(data, len, name, &in, err);

	*out = NULL;
	return open_owned(in, ret, out, err);
}

void ktrace_file_close(struct ktrace_file *f)
{
	if (!f)
		return;
	if (f->owns_input)
		ktrace_input_close(f->in);
	free(f);
}

const struct ktrace_file_header *ktrace_file_get_header(const struct ktrace_file *f)
{
	return &f->hdr;
}

struct ktrace_input *ktrace_file_input(const struct ktrace_file *f)
{
	return f->in;
}

uint64_t ktrace_file_body_offset(const struct ktrace_file *f)
{
	return f->body_offset;
}

size_t ktrace_file_event_size(const struct ktrace_file *f)
{
	return (f->hdr.flags & KTRACE_FILE_FLAG_64BIT) ? 64 : 32;
}

void ktrace_file_chunks_begin(const struct ktrace_file *f, struct ktrace_chunk_iter *it)
{
	it->pos = KTRACE_FILE_HEADER_SIZE;
	it->phase = PHASE_HEADER;
	(void)f;
}

static void load_chunk_header(const uint8_t *p, uint64_t pos, struct ktrace_chunk *c)
{
	c->tag = kt_load_u32(p, false);
	c->major = kt_load_u16(p + 4, false);
	c->minor = kt_load_u16(p + 6, false);
	c->size = kt_load_u64(p + 8, false);
	c->offset = pos;
	c->data_offset = pos + KTRACE_CHUNK_HEADER_SIZE;
	c->data_size = c->size;
}

static int next_header_chunk(struct ktrace_file *f, struct ktrace_chunk_iter *it,
			     struct ktrace_chunk *c, struct ktrace_error *err)
{
	const uint8_t *p;
	uint64_t left, data_end;
	bool ovf = false;
	int ret;

	if (it->pos >= f->header_end) {
		it->phase = PHASE_BODY;
		it->pos = f->body_offset;
		return 0;
	}
	left = f->header_end - it->pos;
	if (left < KTRACE_CHUNK_HEADER_SIZE)
		return ktrace_error_at(err, -EBADMSG, it->pos,
				       "header size %llu disagrees with the header chunks: %llu "
				       "stray bytes before the end of the header at 0x%llx",
				       (unsigned long long)f->hdr.header_size,
				       (unsigned long long)left, (unsigned long long)f->header_end);
	ret = ktrace_input_get(f->in, it->pos, KTRACE_CHUNK_HEADER_SIZE, &p, err);
	if (ret < 0)
		return ret;
	load_chunk_header(p, it->pos, c);
	c->in_header = true;
	if (c->size > f->header_end - c->data_offset)
		return ktrace_error_at(err, -EBADMSG, it->pos,
				       "header chunk 0x%x: size %llu runs past the end of the "
				       "header at 0x%llx (header size %llu)",
				       c->tag, (unsigned long long)c->size,
				       (unsigned long long)f->header_end,
				       (unsigned long long)f->hdr.header_size);
	data_end = c->data_offset + c->size;
	it->pos = align8(data_end, &ovf);
	return 1;
}

/* Events chunks: the 8-byte timestamp is counted in the size when size % kd_buf == 8. */
static uint64_t body_data_size(const struct ktrace_file *f, const struct ktrace_chunk *c)
{
	uint64_t evsz = ktrace_file_event_size(f);

	if (c->tag == KTRACE_TAG_EVENTS && c->size % evsz == 0 && c->size <= UINT64_MAX - 8)
		return c->size + 8;
	return c->size;
}

static int next_body_chunk(struct ktrace_file *f, struct ktrace_chunk_iter *it,
			   struct ktrace_chunk *c, struct ktrace_error *err)
{
	int64_t size = ktrace_input_size(f->in);
	const uint8_t *p;
	int64_t got;
	bool ovf = false;

	if (size >= 0 && it->pos >= (uint64_t)size) {
		it->phase = PHASE_DONE;
		return 0;
	}
	got = ktrace_input_peek(f->in, it->pos, KTRACE_CHUNK_HEADER_SIZE, &p, err);
	if (got < 0)
		return (int)got;
	if (got == 0) {
		it->phase = PHASE_DONE;
		return 0;
	}
	KT_RETURN_ERROR_AT_IF(got < KTRACE_CHUNK_HEADER_SIZE, err, -ENODATA, it->pos,
			      "truncated chunk header: %lld of %d bytes", (long long)got,
			      KTRACE_CHUNK_HEADER_SIZE);
	load_chunk_header(p, it->pos, c);
	c->in_header = false;
	c->data_size = body_data_size(f, c);
	KT_RETURN_ERROR_AT_IF(c->data_size > UINT64_MAX - c->data_offset, err, -EOVERFLOW, it->pos,
			      "chunk 0x%x: size %llu overflows", c->tag,
			      (unsigned long long)c->size);
	if (size >= 0 && c->data_size > (uint64_t)size - c->data_offset &&
	    c->data_offset <= (uint64_t)size)
		return ktrace_error_at(err, -ENODATA, it->pos,
				       "chunk 0x%x: size %llu runs past the end of the file "
				       "(%llu bytes left)",
				       c->tag, (unsigned long long)c->size,
				       (unsigned long long)((uint64_t)size - c->data_offset));
	it->pos = align8(c->data_offset + c->data_size, &ovf);
	if (ovf)
		it->phase = PHASE_DONE;
	return 1;
}

int ktrace_file_next_chunk(struct ktrace_file *f, struct ktrace_chunk_iter *it,
			   struct ktrace_chunk *chunk, struct ktrace_error *err)
{
	int ret;

	if (it->phase == PHASE_HEADER) {
		ret = next_header_chunk(f, it, chunk, err);
		if (ret != 0)
			return ret;
	}
	if (it->phase == PHASE_BODY)
		return next_body_chunk(f, it, chunk, err);
	return 0;
}

int ktrace_file_find_chunk(struct ktrace_file *f, uint32_t tag, struct ktrace_chunk *chunk,
			   struct ktrace_error *err)
{
	struct ktrace_chunk_iter it;
	int ret;

	ktrace_file_chunks_begin(f, &it);
	while ((ret = ktrace_file_next_chunk(f, &it, chunk, err)) > 0)
		if (chunk->tag == tag)
			return 1;
	return ret;
}

int ktrace_file_chunk_read(struct ktrace_file *f, const struct ktrace_chunk *chunk,
			   uint64_t offset, size_t len, const uint8_t **data,
			   struct ktrace_error *err)
{
	*data = NULL;
	KT_RETURN_ERROR_AT_IF(offset > chunk->data_size || len > chunk->data_size - offset, err,
			      -EINVAL, chunk->offset,
			      "read of %zu bytes at %llu outside chunk 0x%x of %llu bytes", len,
			      (unsigned long long)offset, chunk->tag,
			      (unsigned long long)chunk->data_size);
	return ktrace_input_get(f->in, chunk->data_offset + offset, len, data, err);
}

int ktrace_file_chunk_data(struct ktrace_file *f, const struct ktrace_chunk *chunk,
			   const uint8_t **data, struct ktrace_error *err)
{
	*data = NULL;
	if (chunk->data_size > SIZE_MAX ||
	    (!ktrace_input_is_mapped(f->in) && chunk->data_size > STREAM_CHUNK_MAX))
		return ktrace_error_at(err, -EFBIG, chunk->offset,
				       "chunk 0x%x: %llu bytes is too large to read at once",
				       chunk->tag, (unsigned long long)chunk->data_size);
	return ktrace_file_chunk_read(f, chunk, 0, (size_t)chunk->data_size, data, err);
}

const char *ktrace_file_tag_name(uint32_t tag)
{
	switch (tag) {
	case KTRACE_FILE_KERNEL_MAGIC: return "header";
	case KTRACE_TAG_CONFIG:        return "config";
	case KTRACE_TAG_CPU_MAP:       return "cpu map";
	case KTRACE_TAG_THREAD_MAP:    return "thread map";
	case KTRACE_TAG_EVENTS:        return "events";
	case KTRACE_TAG_NULL:          return "null";
	case KTRACE_TAG_STACKSHOT:     return "stackshot (kcdata)";
	case KTRACE_TAG_CONFIG_PLIST:  return "config (plist)";
	case KTRACE_TAG_MACHINE_INFO:  return "machine info (plist)";
	}
	return NULL;
}

/* V3 ktrace files: libktrace's magic, or the kernel's header chunk tag with a plausible
 * header size (at least its 40 bytes of fixed fields). */
static bool darwin_v3_match(const uint8_t *p, size_t len)
{
	uint32_t w;

	if (len < 4)
		return false;
	w = kt_load_u32(p, false);
	if (w == 0x55aa0300)
		return true;
	return w == 0x00001000 && len >= 16 && kt_load_u64(p + 8, false) >= 40 &&
	       kt_load_u64(p + 8, false) < (1ULL << 32);
}

const struct kt_detector kt_detector_darwin_v3 = {
	KTRACE_FORMAT_DARWIN_V3, "Darwin ktrace file (V3)", darwin_v3_match,
};
