// SPDX-License-Identifier: MIT
/*
 * Building kcdata buffers the way xnu lays them out: every payload padded to 16 bytes
 * with the padding in flags & 0xf (and 0x80 set), arrays as ARRAY_PADx with the
 * padding in the type, container markers carrying the container type and the id in
 * the flags. With KCDATA_WRITER_COMPRESS the items are zlib-compressed behind a
 * COMPRESSED header, as xnu's kcdata_init_compress does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/check.h"
#include "kcdata/kcdata_int.h"
#include "common/cursor.h"
#include "common/grow.h"
#include "common/outfile.h"

struct open_container {
	uint32_t type;
	uint64_t id;
};

struct kcdata_writer {
	uint32_t begin_type;
	unsigned int flags;
	uint8_t *body;            /* items after the begin item */
	size_t len, cap;
	struct open_container *stack;
	size_t depth, stack_cap;
	uint8_t *out;             /* the finished buffer */
	size_t out_len;
	bool finished;
};



static void put_header(uint8_t *p, uint32_t type, uint32_t size, uint64_t flags)
{
	kt_store_u32(p, type, false);
	kt_store_u32(p + 4, size, false);
	kt_store_u64(p + 8, flags, false);
}

int kcdata_writer_new(uint32_t begin_type, unsigned int flags, struct kcdata_writer **out,
		      struct ktrace_error *err)
{
	struct kcdata_writer *w;

	*out = NULL;
	if (!kcdata_is_begin_magic(begin_type) || begin_type == KCDATA_BUFFER_BEGIN_COMPRESSED)
		return ktrace_error_set(err, -EINVAL, "0x%08x is not a kcdata begin magic", begin_type);
	if (flags & ~(unsigned int)KCDATA_WRITER_COMPRESS)
		return ktrace_error_set(err, -EINVAL, "unknown writer flags 0x%x", flags);
	w = calloc(1, sizeof(*w));
	if (!w)
		return kt_error_oom(err);
	w->begin_type = begin_type;
	w->flags = flags;
	*out = w;
	return 0;
}

void kcdata_writer_free(struct kcdata_writer *w)
{
	if (!w)
		return;
	free(w->body);
	free(w->stack);
	free(w->out);
	free(w);
}

static int check_open(struct kcdata_writer *w, struct ktrace_error *err)
{
	if (w->finished)
		return ktrace_error_set(err, -EINVAL, "kcdata writer already finished");
	return 0;
}

/* Room for n more bytes of body at *p. */
static int reserve(struct kcdata_writer *w, size_t n, uint8_t **p, struct ktrace_error *err)
{
	if (n > KCDATA_MAX_BUFFER_SIZE || w->len + n > KCDATA_MAX_BUFFER_SIZE - 4 * KCDATA_HEADER_SIZE)
		return ktrace_error_set(err, -E2BIG, "kcdata buffer would exceed %u bytes",
					KCDATA_MAX_BUFFER_SIZE);
	if (kt_grow((void **)&w->body, &w->cap, w->len + n, 1))
		return kt_error_oom(err);
	*p = w->body + w->len;
	return 0;
}

/* Appends an item: header, then the parts of the payload, then zero padding. */
static int append(struct kcdata_writer *w, uint32_t type, uint64_t flags, bool pad_flags,
		  const void *a, size_t alen, const void *b, size_t blen, struct ktrace_error *err)
{
	size_t size = alen + blen, padded = (size + 15) & ~(size_t)15;
	uint8_t *p;
	int ret;

	if (check_open(w, err))
		return -EINVAL;
	if (size > UINT32_MAX - 15)
		return ktrace_error_set(err, -E2BIG, "item of %zu bytes is too large", size);
	ret = reserve(w, KCDATA_HEADER_SIZE + padded, &p, err);
	if (ret)
		return ret;
	if (pad_flags)
		flags |= (padded - size) | KCDATA_FLAGS_HAS_PADDING;
	put_header(p, type, (uint32_t)padded, flags);
	p += KCDATA_HEADER_SIZE;
	if (alen)
		memcpy(p, a, alen);
	if (blen)
		memcpy(p + alen, b, blen);
	memset(p + size, 0, padded - size);
	w->len += KCDATA_HEADER_SIZE + padded;
	return 0;
}

int kcdata_writer_add_item(struct kcdata_writer *w, uint32_t type, const void *data,
			   uint32_t size, struct ktrace_error *err)
{
	uint32_t t = (type & ~0xfu) == KCDATA_TYPE_ARRAY_PAD0 ? KCDATA_TYPE_ARRAY : type;

	if (t == KCDATA_TYPE_ARRAY || t == KCDATA_TYPE_CONTAINER_BEGIN ||
	    t == KCDATA_TYPE_CONTAINER_END || t == KCDATA_TYPE_BUFFER_END ||
	    t == KCDATA_TYPE_TYPEDEFINITION || kcdata_is_begin_magic(t))
		return ktrace_error_set(err, -EINVAL,
					"item type 0x%x has its own writer function", type);
	if (size && !data)
		return ktrace_error_set(err, -EINVAL, "no data");
	return append(w, type, 0, true, data, size, NULL, 0, err);
}

static int desc_field(const char *desc, char out[KCDATA_DESC_MAXLEN], struct ktrace_error *err)
{
	size_t len = desc ? strlen(desc) : 0;

	if (len >= KCDATA_DESC_MAXLEN)
		return ktrace_error_set(err, -EINVAL, "description '%s' is longer than %d bytes",
					desc, KCDATA_DESC_MAXLEN - 1);
	memset(out, 0, KCDATA_DESC_MAXLEN);
	if (len)
		memcpy(out, desc, len);
	return 0;
}

static int add_desc(struct kcdata_writer *w, uint32_t type, const char *desc, const void *data,
		    size_t size, struct ktrace_error *err)
{
	char d[KCDATA_DESC_MAXLEN];

	if (desc_field(desc, d, err))
		return -EINVAL;
	return append(w, type, 0, true, d, sizeof(d), data, size, err);
}

int kcdata_writer_add_uint32(struct kcdata_writer *w, const char *desc, uint32_t v,
			     struct ktrace_error *err)
{
	uint8_t b[4];

	kt_store_u32(b, v, false);
	return add_desc(w, KCDATA_TYPE_UINT32_DESC, desc, b, sizeof(b), err);
}

int kcdata_writer_add_uint64(struct kcdata_writer *w, const char *desc, uint64_t v,
			     struct ktrace_error *err)
{
	uint8_t b[8];

	kt_store_u64(b, v, false);
	return add_desc(w, KCDATA_TYPE_UINT64_DESC, desc, b, sizeof(b), err);
}

int kcdata_writer_add_int32(struct kcdata_writer *w, const char *desc, int32_t v,
			    struct ktrace_error *err)
{
	uint8_t b[4];

	kt_store_u32(b, (uint32_t)v, false);
	return add_desc(w, KCDATA_TYPE_INT32_DESC, desc, b, sizeof(b), err);
}

int kcdata_writer_add_int64(struct kcdata_writer *w, const char *desc, int64_t v,
			    struct ktrace_error *err)
{
	uint8_t b[8];

	kt_store_u64(b, (uint64_t)v, false);
	return add_desc(w, KCDATA_TYPE_INT64_DESC, desc, b, sizeof(b), err);
}

int kcdata_writer_add_string(struct kcdata_writer *w, const char *desc, const char *s,
			     struct ktrace_error *err)
{
	if (!s)
		return ktrace_error_set(err, -EINVAL, "no string");
	return add_desc(w, KCDATA_TYPE_STRING_DESC, desc, s, strlen(s) + 1, err);
}

int kcdata_writer_add_bindata(struct kcdata_writer *w, const char *desc, const void *data,
			      uint32_t size, struct ktrace_error *err)
{
	if (size && !data)
		return ktrace_error_set(err, -EINVAL, "no data");
	return add_desc(w, KCDATA_TYPE_BINDATA_DESC, desc, data, size, err);
}

int kcdata_writer_add_array(struct kcdata_writer *w, uint32_t elem_type, uint32_t elem_size,
			    uint32_t count, const void *data, struct ktrace_error *err)
{
	uint64_t total = (uint64_t)elem_size * count;
	uint32_t pad = (uint32_t)(-total & 15);
	uint8_t *p;
	int ret;

	if (check_open(w, err))
		return -EINVAL;
	if (count && (!elem_size || !data))
		return ktrace_error_set(err, -EINVAL, "array of %u elements of %u bytes without data",
					count, elem_size);
	if (total > UINT32_MAX - 15)
		return ktrace_error_set(err, -E2BIG, "array of %llu bytes is too large",
					(unsigned long long)total);
	ret = reserve(w, KCDATA_HEADER_SIZE + total + pad, &p, err);
	if (ret)
		return ret;
	/* The padding goes in the type, the element type and count in the flags. */
	put_header(p, KCDATA_TYPE_ARRAY_PAD0 | pad, (uint32_t)(total + pad),
		   (uint64_t)elem_type << 32 | count);
	if (total)
		memcpy(p + KCDATA_HEADER_SIZE, data, total);
	memset(p + KCDATA_HEADER_SIZE + total, 0, pad);
	w->len += KCDATA_HEADER_SIZE + total + pad;
	return 0;
}

int kcdata_writer_begin_container(struct kcdata_writer *w, uint32_t container_type,
				  uint64_t id, struct ktrace_error *err)
{
	uint8_t b[4];
	int ret;

	if (check_open(w, err))
		return -EINVAL;
	if (w->depth == w->stack_cap) {
		size_t cap = w->stack_cap ? w->stack_cap * 2 : 8;
		struct open_container *s = kt_realloc_array(w->stack, cap, sizeof(*s));

		if (!s)
			return kt_error_oom(err);
		w->stack = s;
		w->stack_cap = cap;
	}
	kt_store_u32(b, container_type, false);
	ret = append(w, KCDATA_TYPE_CONTAINER_BEGIN, id, false, b, sizeof(b), NULL, 0, err);
	if (!ret) {
		w->stack[w->depth].type = container_type;
		w->stack[w->depth].id = id;
		w->depth++;
	}
	return ret;
}

int kcdata_writer_end_container(struct kcdata_writer *w, uint32_t container_type,
				uint64_t id, struct ktrace_error *err)
{
	uint8_t b[4];
	int ret;

	if (check_open(w, err))
		return -EINVAL;
	if (!w->depth || w->stack[w->depth - 1].type != container_type ||
	    w->stack[w->depth - 1].id != id)
		return ktrace_error_set(err, -EINVAL,
					"container end 0x%x/%llu does not match the open container",
					container_type, (unsigned long long)id);
	kt_store_u32(b, container_type, false);
	ret = append(w, KCDATA_TYPE_CONTAINER_END, id, false, b, sizeof(b), NULL, 0, err);
	if (!ret)
		w->depth--;
	return ret;
}

int kcdata_writer_add_typedef(struct kcdata_writer *w, uint32_t type_id, const char *name,
			      const struct kcdata_field *fields, uint32_t nfields,
			      struct ktrace_error *err)
{
	size_t size = KCDATA_TYPEDEF_HEADER_SIZE + (size_t)nfields * KCDATA_SUBTYPE_DESC_SIZE;
	uint8_t *buf;
	char n[KCDATA_DESC_MAXLEN];
	int ret;

	if (nfields && !fields)
		return ktrace_error_set(err, -EINVAL, "no fields");
	if (nfields > (UINT32_MAX - 64) / KCDATA_SUBTYPE_DESC_SIZE)
		return ktrace_error_set(err, -E2BIG, "too many fields");
	if (desc_field(name, n, err))
		return -EINVAL;
	buf = calloc(1, size);
	if (!buf)
		return kt_error_oom(err);
	kt_store_u32(buf, type_id, false);
	kt_store_u32(buf + 4, nfields, false);
	memcpy(buf + 8, n, sizeof(n));
	for (uint32_t i = 0; i < nfields; i++) {
		const struct kcdata_field *f = &fields[i];
		uint8_t *e = buf + KCDATA_TYPEDEF_HEADER_SIZE + (size_t)i * KCDATA_SUBTYPE_DESC_SIZE;
		unsigned int width = kc_subtype_width((uint8_t)f->type);
		uint8_t flags = f->flags & (KCDATA_SUBTYPE_FLAG_STRUCT | KCDATA_SUBTYPE_FLAG_MERGE);

		if (!width || desc_field(f->name, n, err)) {
			free(buf);
			return width ? -EINVAL
				     : ktrace_error_set(err, -EINVAL, "field %u: bad subtype %d", i,
							f->type);
		}
		if (f->count > 1)
			flags |= KCDATA_SUBTYPE_FLAG_ARRAY;
		e[0] = flags;
		e[1] = (uint8_t)f->type;
		e[2] = (uint8_t)f->offset;
		e[3] = (uint8_t)(f->offset >> 8);
		kt_store_u32(e + 4, f->count > 1 ? (uint32_t)f->count << 16 | width : width, false);
		memcpy(e + 8, n, sizeof(n));
	}
	ret = append(w, KCDATA_TYPE_TYPEDEFINITION, 0, true, buf, size, NULL, 0, err);
	free(buf);
	return ret;
}

int kcdata_writer_add_nested(struct kcdata_writer *w, const void *buf, size_t len,
			     struct ktrace_error *err)
{
	if (len && !buf)
		return ktrace_error_set(err, -EINVAL, "no buffer");
	return append(w, KCDATA_TYPE_NESTED_KCDATA, 0, true, buf, len, NULL, 0, err);
}

static int compress_body(struct kcdata_writer *w, uint8_t **out, size_t *outlen,
			 struct ktrace_error *err)
{
	uLong bound = compressBound((uLong)w->len);
	uint8_t *z = malloc(bound ? bound : 1);
	uLongf zlen = bound;

	if (!z)
		return kt_error_oom(err);
	if (compress2(z, &zlen, w->body ? w->body : (const Bytef *)"", (uLong)w->len,
		      Z_DEFAULT_COMPRESSION) != Z_OK) {
		free(z);
		return ktrace_error_set(err, -EIO, "zlib compression failed");
	}
	*out = z;
	*outlen = zlen;
	return 0;
}

int kcdata_writer_finish(struct kcdata_writer *w, const uint8_t **buf, size_t *len,
			 struct ktrace_error *err)
{
	uint8_t *out, *p;
	size_t total;

	*buf = NULL;
	*len = 0;
	if (w->finished) {
		*buf = w->out;
		*len = w->out_len;
		return 0;
	}
	if (w->depth)
		return ktrace_error_set(err, -EINVAL, "%zu container(s) still open", w->depth);
	if (w->flags & KCDATA_WRITER_COMPRESS) {
		/* COMPRESSED, kcd_c_type, kcd_c_totalout, kcd_c_totalin, the real begin item,
		 * the zlib stream, padding, BUFFER_END. */
		static const char *const names[3] = { "kcd_c_type", "kcd_c_totalout", "kcd_c_totalin" };
		size_t zlen = 0, zpad;
		uint8_t *z = NULL;
		uint64_t values[3];

		int ret = compress_body(w, &z, &zlen, err);

		if (ret)
			return ret;
		zpad = -zlen & 15;
		values[0] = 1;
		values[1] = zlen;
		values[2] = w->len;
		total = KCDATA_HEADER_SIZE + 3 * (KCDATA_HEADER_SIZE + 48) + KCDATA_HEADER_SIZE +
			zlen + zpad + KCDATA_HEADER_SIZE;
		out = calloc(1, total);
		if (!out) {
			free(z);
			return kt_error_oom(err);
		}
		p = out;
		put_header(p, KCDATA_BUFFER_BEGIN_COMPRESSED, 0, KCDATA_FLAGS_HAS_PADDING);
		p += KCDATA_HEADER_SIZE;
		for (int i = 0; i < 3; i++) {
			put_header(p, KCDATA_TYPE_UINT64_DESC, 48, 8 | KCDATA_FLAGS_HAS_PADDING);
			memcpy(p + KCDATA_HEADER_SIZE, names[i], strlen(names[i]));
			kt_store_u64(p + KCDATA_HEADER_SIZE + KCDATA_DESC_MAXLEN, values[i], false);
			p += KCDATA_HEADER_SIZE + 48;
		}
		put_header(p, w->begin_type, 0, KCDATA_FLAGS_HAS_PADDING);
		p += KCDATA_HEADER_SIZE;
		memcpy(p, z, zlen);
		p += zlen + zpad;
		free(z);
	} else {
		total = KCDATA_HEADER_SIZE + w->len + KCDATA_HEADER_SIZE;
		out = calloc(1, total);
		if (!out)
			return kt_error_oom(err);
		p = out;
		put_header(p, w->begin_type, 0, KCDATA_FLAGS_HAS_PADDING);
		p += KCDATA_HEADER_SIZE;
		if (w->len)
			memcpy(p, w->body, w->len);
		p += w->len;
	}
	put_header(p, KCDATA_TYPE_BUFFER_END, 0, 0);
	w->out = out;
	w->out_len = total;
	w->finished = true;
	*buf = out;
	*len = total;
	return 0;
}

int kcdata_writer_write_file(struct kcdata_writer *w, const char *path, struct ktrace_error *err)
{
	struct kt_outfile *f;
	const uint8_t *buf;
	size_t len;
	int ret = kcdata_writer_finish(w, &buf, &len, err);

	if (ret)
		return ret;
	if ((ret = kt_outfile_open(path, 0, &f, err)))
		return ret;
	if ((ret = kt_outfile_write(f, buf, len, err))) {
		kt_outfile_abort(f);
		return ret;
	}
	return kt_outfile_commit(f, err);
}
