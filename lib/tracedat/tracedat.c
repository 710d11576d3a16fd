// SPDX-License-Identifier: MIT
/*
 * trace.dat reader: the file header, metadata (header texts, event formats, kallsyms,
 * printk formats, saved cmdlines), options and buffer descriptions, for versions 6
 * (sequential layout) and 7 (sections). Record iteration is in tracedat_iter.c.
 *
 * Every size and offset read from the file is checked against the file before use;
 * counts are checked against the bytes left before anything is allocated for them.
 */
#include <ktrace/detect.h>
#include <ktrace/tracedat.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/check.h"
#include "common/cursor.h"
#include "common/damage.h"
#include "common/detect_table.h"
#include "tracedat/tracedat_int.h"
#include "tracedat/tracedat_share.h"
#include "common/grow.h"
#include "common/input_file.h"

static const uint8_t td_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

void td_warn(struct tracedat *td, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (td->nwarnings >= TD_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	td->warnings[td->nwarnings] = strdup(buf);
	if (td->warnings[td->nwarnings])
		td->nwarnings++;
}

int td_damage(struct tracedat *td, struct ktrace_error *err, int code, uint64_t offset,
	      const char *fmt, ...)
{
	struct ktrace_error e;
	char msg[KTRACE_ERROR_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ktrace_error_at(&e, code, offset, "%s", msg);
	if (err)
		*err = e;
	if (td->ndamage++ >= TD_MAX_DAMAGE)
		return code;
	if (td->ndamage > td->damage_cap) {
		size_t cap = td->damage_cap ? td->damage_cap * 2 : 4;
		struct ktrace_error *n = kt_realloc_array(td->damage, cap, sizeof(*n));

		if (!n) {
			/* told all the same; only not listed */
			td->ndamage--;
			kt_damage(ktrace_input_name(td->in), &e);
			return code;
		}
		td->damage = n;
		td->damage_cap = cap;
	}
	td->damage[td->ndamage - 1] = e;
	kt_damage(ktrace_input_name(td->in), &e);
	return code;
}

static int oom(struct ktrace_error *err)
{
	return kt_error_oom(err);
}

/* Frees a block we allocated: big, its kt_bigmem size (0: malloc's). */
static void free_owned(void *p, size_t big)
{
	if (big)
		kt_bigmem_free(p, big);
	else
		free(p);
}

/* Keeps a block we allocated (big: as free_owned) alive until tracedat_close. */
static int keep_owned(struct tracedat *td, void *p, size_t big, struct ktrace_error *err)
{
	if (kt_grow((void **)&td->owned, &td->owned_cap, td->nowned + 1, sizeof(*td->owned))) {
		free_owned(p, big);
		return oom(err);
	}
	td->owned[td->nowned].p = p;
	td->owned[td->nowned++].big = big;
	return 0;
}

/* A NUL-terminated copy of len bytes (stopping at an inner NUL), kept until close. */
static const char *own_string(struct tracedat *td, const void *data, size_t len,
			      struct ktrace_error *err)
{
	const char *nul = memchr(data, 0, len);
	char *s;

	if (nul)
		len = (size_t)(nul - (const char *)data);
	s = malloc(len + 1);
	if (!s) {
		oom(err);
		return NULL;
	}
	memcpy(s, data, len);
	s[len] = 0;
	if (keep_owned(td, s, 0, err))
		return NULL;
	return s;
}

static void cursor_at(struct tracedat *td, struct kt_cursor *c, uint64_t offset,
		      struct ktrace_error *err)
{
	kt_cursor_init(c, td->map, (size_t)td->size, 0, err);
	c->big_endian = td->hdr.big_endian;
	c->pos = offset <= td->size ? (size_t)offset : (size_t)td->size;
}

static void cursor_over(struct tracedat *td, struct kt_cursor *c, const struct td_region *r,
			struct ktrace_error *err)
{
	kt_cursor_init(c, r->data, r->len, r->compressed ? 0 : r->data_offset, err);
	c->big_endian = td->hdr.big_endian;
}

/* After a parse error inside decompressed bytes: name the section's file offset. */
static int region_error(const struct td_region *r, int ret, struct ktrace_error *err)
{
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64];

	if (!err || !r->compressed || !err->has_offset)
		return ret;
	snprintf(msg, sizeof(msg), "in compressed section (byte %" PRIu64 " of its data): %.*s",
		 err->offset, KTRACE_ERROR_MESSAGE_MAX - 1, err->message);
	ktrace_error_at(err, ret, r->offset, "%s", msg);
	return ret;
}

/* ------------------------------------------------------------------ sections (v7) */

struct td_sechdr {
	uint16_t id, flags;
	uint32_t desc;
	uint64_t size;
};

/* The section header at off, an offset read from the file at `from`. */
static int read_sechdr(struct tracedat *td, uint64_t off, uint64_t from, struct td_sechdr *h,
		       struct ktrace_error *err)
{
	struct kt_cursor c;

	if (off >= td->size)
		return ktrace_error_at(err, -ENODATA, from,
				       "truncated: points to a section at 0x%" PRIx64
				       ", past the end of the file (0x%" PRIx64 ")", off, td->size);
	if (td->size - off < 16)
		return ktrace_error_at(err, -ENODATA, off,
				       "truncated: section header needs 16 bytes, file ends at 0x%" PRIx64,
				       td->size);
	cursor_at(td, &c, off, err);
	kt_cursor_u16(&c, &h->id);
	kt_cursor_u16(&c, &h->flags);
	kt_cursor_u32(&c, &h->desc);
	kt_cursor_u64(&c, &h->size);
	return 0;
}

/* A section that decompresses to this much or more (as its header says, a plausible
 * size: td_size_plausible) goes into kt_bigmem memory (common/bigmem.h): a 5.4 MB kallsyms
 * took 1,350 page faults to fill in 4 KiB pages. */
#define TD_BIG_SECTION ((size_t)1 << 20)

/* Decompresses a "u32 compressed size, u32 uncompressed size, bytes" block at off
 * (within avail bytes of the file) into a new buffer (*big: as td_region.owned_big). */
static int load_block(struct tracedat *td, struct td_codec *codec, uint64_t off, uint64_t avail,
		      uint8_t **out, size_t *outlen, size_t *big, struct ktrace_error *err)
{
	uint32_t csize, usize;
	uint8_t *buf = NULL;
	size_t cap = 0;
	int ret;

	*out = NULL;
	*outlen = 0;
	*big = 0;
	if (avail < 8)
		return ktrace_error_at(err, -ENODATA, off,
				       "truncated: compression header needs 8 bytes, %" PRIu64 " left",
				       avail);
	csize = kt_load_u32(td->map + off, td->hdr.big_endian);
	usize = kt_load_u32(td->map + off + 4, td->hdr.big_endian);
	if (csize > avail - 8)
		return ktrace_error_at(err, -ENODATA, off,
				       "truncated: compressed block of %u bytes, %" PRIu64 " left",
				       csize, avail - 8);
	if (usize > TD_MAX_SECTION_BYTES)
		return ktrace_error_at(err, -EOVERFLOW, off,
				       "compressed block claims %u bytes uncompressed (limit %llu)",
				       usize, (unsigned long long)TD_MAX_SECTION_BYTES);
	if (usize >= TD_BIG_SECTION && td_size_plausible(csize, usize) &&
	    (buf = kt_bigmem_alloc(usize))) {
		cap = usize;
		*big = usize;
	}
	ret = td_decompress_grow(codec, td->map + off + 8, csize, &buf, &cap, usize);
	if (!ret && !buf && !(buf = malloc(1)))
		ret = -ENOMEM;
	if (ret) {
		free_owned(buf, *big);
		*big = 0;
		if (ret == -ENOMEM)
			return oom(err);
		return ktrace_error_at(err, ret, off,
				       "cannot decompress %s block (%u -> %u bytes)",
				       td->comp_name, csize, usize);
	}
	*out = buf;
	*outlen = usize;
	return 0;
}

/* Reads the section at off, which must have id `id`, into r (decompressed if needed). */
static int load_section(struct tracedat *td, uint64_t off, uint64_t from, unsigned int id,
			const char *what, struct td_region *r, struct ktrace_error *err)
{
	struct td_sechdr h;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = read_sechdr(td, off, from, &h, err);
	if (ret)
		return ret;
	if (h.id != id)
		return ktrace_error_at(err, -EBADMSG, off, "%s: expected section id %u, found %u",
				       what, id, h.id);
	r->present = true;
	r->offset = off;
	r->data_offset = off + 16;
	if (h.size > td->size - r->data_offset)
		return ktrace_error_at(err, -ENODATA, off,
				       "truncated: %s section of %" PRIu64 " bytes runs past the end of the file",
				       what, h.size);
	r->size = h.size;
	if (h.flags & 1) {
		if (td->codec_kind == TD_CODEC_NONE)
			return ktrace_error_at(err, -EBADMSG, off,
					       "%s section is compressed but the file says no compression",
					       what);
		r->compressed = true;
		ret = load_block(td, &td->codec, r->data_offset, h.size, &r->owned, &r->len,
				 &r->owned_big, err);
		if (ret)
			return ret;
		r->data = r->owned;
	} else {
		r->data = td->map + r->data_offset;
		r->len = (size_t)h.size;
	}
	return 0;
}

static void region_free(struct td_region *r)
{
	free_owned(r->owned, r->owned_big);
	r->owned = NULL;
	r->owned_big = 0;
	r->data = NULL;
}

/* Keeps a loaded region's bytes for the lifetime of td (texts point into it). */
static int region_keep(struct tracedat *td, struct td_region *r, struct ktrace_error *err)
{
	if (!r->owned)
		return 0;
	if (keep_owned(td, r->owned, r->owned_big, err)) {
		r->owned = NULL;
		r->owned_big = 0;
		return -ENOMEM;
	}
	r->owned = NULL;   /* td owns it now; data stays valid */
	r->owned_big = 0;
	return 0;
}

/* ------------------------------------------------------------------ metadata texts */

static int read_text64(struct kt_cursor *c, struct td_text *t, const char *what)
{
	const uint8_t *p;
	uint64_t size;
	int ret = kt_cursor_u64(c, &size);

	if (ret)
		return ret;
	if (size > kt_cursor_left(c))
		return ktrace_error_at(c->err, -ENODATA, kt_cursor_offset(c) - 8,
				       "truncated: %s of %" PRIu64 " bytes, %zu left", what, size,
				       kt_cursor_left(c));
	kt_cursor_bytes(c, (size_t)size, &p, what);
	t->data = (const char *)p;
	t->len = (size_t)size;
	return 0;
}

static int expect_tag(struct kt_cursor *c, const char *tag, size_t n)
{
	const uint8_t *p;
	uint64_t at = kt_cursor_offset(c);
	int ret = kt_cursor_bytes(c, n, &p, tag);

	if (ret)
		return ret;
	if (memcmp(p, tag, n))
		return ktrace_error_at(c->err, -EBADMSG, at, "expected \"%s\"", tag);
	return 0;
}

static int parse_header_info(struct tracedat *td, struct kt_cursor *c)
{
	int ret;

	td->header_page_at = kt_cursor_offset(c);
	ret = expect_tag(c, "header_page", 12);

	if (!ret)
		ret = read_text64(c, &td->header_page, "header_page");
	if (!ret)
		ret = expect_tag(c, "header_event", 13);
	if (!ret)
		ret = read_text64(c, &td->header_event, "header_event");
	return ret;
}

static int add_format(struct tracedat *td, size_t *cap, size_t system, struct td_text text,
		      struct ktrace_error *err)
{
	if (td->nformats == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct td_format *n = kt_realloc_array(td->formats, ncap, sizeof(*n));

		if (!n)
			return oom(err);
		td->formats = n;
		*cap = ncap;
	}
	td->formats[td->nformats].system = system;
	td->formats[td->nformats].text = text;
	td->nformats++;
	return 0;
}

static int parse_ftrace_formats(struct tracedat *td, struct kt_cursor *c, size_t *cap)
{
	uint32_t count;
	int ret = kt_cursor_u32(c, &count);

	if (ret)
		return ret;
	if (count > kt_cursor_left(c) / 8)
		return ktrace_error_at(c->err, -EBADMSG, kt_cursor_offset(c) - 4,
				       "%u ftrace formats cannot fit in the %zu bytes left", count,
				       kt_cursor_left(c));
	for (uint32_t i = 0; i < count; i++) {
		struct td_text t;

		ret = read_text64(c, &t, "ftrace format");
		if (!ret)
			ret = add_format(td, cap, SIZE_MAX, t, c->err);
		if (ret)
			return ret;
	}
	td->nftrace = td->nformats;
	return 0;
}

static int parse_event_formats(struct tracedat *td, struct kt_cursor *c, size_t *cap)
{
	uint32_t nsys;
	int ret = kt_cursor_u32(c, &nsys);

	if (ret)
		return ret;
	/* Each system takes at least a 1-byte name and a 4-byte count. */
	if (nsys > kt_cursor_left(c) / 5)
		return ktrace_error_at(c->err, -EBADMSG, kt_cursor_offset(c) - 4,
				       "%u event systems cannot fit in the %zu bytes left", nsys,
				       kt_cursor_left(c));
	td->systems = calloc(nsys ? nsys : 1, sizeof(*td->systems));
	if (!td->systems)
		return oom(c->err);
	for (uint32_t s = 0; s < nsys; s++) {
		struct td_system *sys = &td->systems[s];
		uint32_t count;

		ret = kt_cursor_cstring(c, &sys->name, NULL, "event system name");
		if (!ret)
			ret = kt_cursor_u32(c, &count);
		if (ret)
			return ret;
		td->nsystems = s + 1;
		if (count > kt_cursor_left(c) / 8)
			return ktrace_error_at(c->err, -EBADMSG, kt_cursor_offset(c) - 4,
					       "system %s: %u formats cannot fit in the %zu bytes left",
					       sys->name, count, kt_cursor_left(c));
		sys->first = td->nformats;
		sys->count = count;
		for (uint32_t i = 0; i < count; i++) {
			struct td_text t;

			ret = read_text64(c, &t, "event format");
			if (!ret)
				ret = add_format(td, cap, s, t, c->err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* kallsyms / printk (u32 size) and cmdlines (u64 size): the text after the size. */
static int parse_lazy_text(struct kt_cursor *c, struct td_lazy *lz, size_t header_bytes,
			   const char *what)
{
	const uint8_t *p;
	uint64_t size;
	uint32_t s32;
	int ret;

	lz->present = true;
	lz->header_bytes = header_bytes;
	if (header_bytes == 0) {
		/* the whole region is the text */
		size = kt_cursor_left(c);
		ret = 0;
	} else if (header_bytes == 4) {
		ret = kt_cursor_u32(c, &s32);
		size = s32;
	} else {
		ret = kt_cursor_u64(c, &size);
	}
	if (ret)
		return ret;
	if (size > kt_cursor_left(c))
		return ktrace_error_at(c->err, -ENODATA, kt_cursor_offset(c) - header_bytes,
				       "truncated: %s of %" PRIu64 " bytes, %zu left", what, size,
				       kt_cursor_left(c));
	kt_cursor_bytes(c, (size_t)size, &p, what);
	if (header_bytes)
		lz->text_size = size;   /* (a whole section's was known before) */
	lz->text.data = (const char *)p;
	lz->text.len = (size_t)size;
	return 0;
}

/* The number after `key` ("offset:" or "size:") on the line [p, nl), at most 9 digits
 * (0 for none); -1 when the key is not there. */
static long header_number(const char *p, const char *nl, const char *key)
{
	const char *k = memmem(p, (size_t)(nl - p), key, strlen(key));
	long v = 0;
	int digits = 0;

	if (!k)
		return -1;
	for (k += strlen(key); k < nl && *k == ' '; k++)
		;
	for (; k < nl && *k >= '0' && *k <= '9' && digits < 9; k++, digits++)
		v = v * 10 + (*k - '0');
	return v;
}

/* The offset and size of header_page's field `name` (" commit;", " data;"): 0, or -1
 * when header_page has no such field or no numbers for it (either may be -1). */
static int header_field(const struct tracedat *td, const char *name, long *offset, long *size)
{
	const char *t = td->header_page.data;
	size_t len = td->header_page.len;
	const char *p = t && len ? memmem(t, len, name, strlen(name)) : NULL;
	const char *nl;

	*offset = *size = -1;
	if (!p)
		return -1;
	nl = memchr(p, '\n', len - (size_t)(p - t));
	if (!nl)
		nl = t + len;
	*offset = header_number(p, nl, "offset:");
	*size = header_number(p, nl, "size:");
	return 0;
}

/* Kernel long size: the size of header_page's commit field. */
static int parse_kernel_long(struct tracedat *td, struct ktrace_error *err)
{
	long off, v;

	if (td->no_header_info) {
		/* (told as damage in open_v7) */
		td->hdr.kernel_long_size = td->hdr.long_size;
		return 0;
	}
	if (!td->header_page.data || !td->header_page.len) {
		/* Linux <= 2.6.30 had no header_page: the old ring-buffer layout. */
		td->hdr.old_format = true;
		td->hdr.kernel_long_size = td->hdr.long_size;
		if (td->hdr.long_size != 4 && td->hdr.long_size != 8)
			return ktrace_error_at(err, -EBADMSG, td->header_page_at,
					       "no header_page and a long size of %u",
					       td->hdr.long_size);
		return 0;
	}
	if (header_field(td, " commit;", &off, &v) == 0 && v >= 0) {
		if (v != 4 && v != 8)
			return ktrace_error_at(err, -EBADMSG, td->header_page_at,
					       "header_page: commit field of %ld bytes (4 or 8 expected)",
					       v);
		td->hdr.kernel_long_size = (unsigned int)v;
		return 0;
	}
	td->hdr.kernel_long_size = td->hdr.long_size == 4 ? 4 : 8;
	td_warn(td, "header_page has no commit field; assuming a %u-byte kernel long",
		td->hdr.kernel_long_size);
	return 0;
}

/*
 * Version 6: the page size of the file header is every buffer's sub-buffer size, and
 * header_page says it too: its data field ends where the sub-buffer does (trace-cmd
 * writes the page size as that offset + size, libtraceevent's tep_get_sub_buffer_size;
 * its reader then trusts the page size alone). Two numbers that disagree are damage we
 * cannot settle: read with the wrong one, every other page or half of each would be
 * lost without a word. A header_page without a data field is not checked.
 */
static int check_header_page_size(struct tracedat *td, uint64_t at, struct ktrace_error *err)
{
	long off, size;

	if (header_field(td, " data;", &off, &size) || off < 0 || size < 0 ||
	    (uint64_t)off + (uint64_t)size == td->hdr.page_size)
		return 0;
	return ktrace_error_at(err, -EBADMSG, at,
			       "header page size %u, but header_page makes sub-buffers of %ld bytes "
			       "(data at offset %ld, %ld bytes)",
			       td->hdr.page_size, off + size, off, size);
}

/* ------------------------------------------------------------------ options */

static int64_t parse_number(const uint8_t *data, size_t size)
{
	char buf[64];
	size_t n = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;

	memcpy(buf, data, n);
	buf[n] = 0;
	return strtoll(buf, NULL, 0);
}

/* The name between brackets of a trace_clock text ("local [global] ..."). */
static void extract_clock(const char *text, size_t len, char *out, size_t outlen)
{
	const char *open = memchr(text, '[', len);
	const char *close;
	size_t n;

	if (!open)
		return;
	close = memchr(open, ']', len - (size_t)(open - text));
	if (!close)
		close = text + len;
	n = (size_t)(close - open - 1);
	/* trace-cmd takes the first word inside the brackets */
	for (size_t i = 0; i < n; i++)
		if (open[1 + i] == ' ' || open[1 + i] == '\n' || open[1 + i] == 0) {
			n = i;
			break;
		}
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, open + 1, n);
	out[n] = 0;
}

static int add_option(struct tracedat *td, uint16_t id, uint32_t size, const uint8_t *data,
		      uint64_t offset, struct ktrace_error *err)
{
	struct tracedat_option *o;

	if (kt_grow((void **)&td->opts, &td->opts_cap, td->nopts + 1, sizeof(*td->opts)))
		return oom(err);
	o = &td->opts[td->nopts++];
	o->id = id;
	o->size = size;
	o->data = data;
	o->offset = offset;
	return 0;
}

static int add_buffer(struct tracedat *td, struct td_buffer **out, struct ktrace_error *err)
{
	struct td_buffer *n = kt_realloc_array(td->bufs, td->nbufs + 1, sizeof(*n));

	if (!n)
		return oom(err);
	td->bufs = n;
	*out = &n[td->nbufs++];
	memset(*out, 0, sizeof(**out));
	return 0;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct td_cpu *x = a, *y = b;

	return x->pub.cpu < y->pub.cpu ? -1 : x->pub.cpu > y->pub.cpu;
}

/* BUFFER / BUFFER_TEXT option. v6 holds only the offset and the name. */
static int parse_buffer_option(struct tracedat *td, uint16_t id, const uint8_t *data,
			       uint32_t size, uint64_t at, struct ktrace_error *err)
{
	struct td_buffer *b;
	struct kt_cursor c;
	const char *name = "", *clock = "";
	uint64_t offset = 0;
	uint32_t page_size = 0, ncpus = 0;
	int ret;

	kt_cursor_init(&c, data, size, at + 6, err);
	c.big_endian = td->hdr.big_endian;
	ret = kt_cursor_u64(&c, &offset);
	if (!ret)
		ret = kt_cursor_cstring(&c, &name, NULL, "buffer name");
	if (!ret && td->hdr.version >= 7) {
		ret = kt_cursor_cstring(&c, &clock, NULL, "buffer clock");
		if (!ret && id == TRACEDAT_OPT_BUFFER) {
			ret = kt_cursor_u32(&c, &page_size);
			if (!ret)
				ret = kt_cursor_u32(&c, &ncpus);
			if (!ret && ncpus > kt_cursor_left(&c) / 20)
				ret = ktrace_error_at(err, -EBADMSG, kt_cursor_offset(&c) - 4,
						      "buffer \"%s\": %u CPUs cannot fit in its option",
						      name, ncpus);
		}
	}
	if (ret)
		return ret;
	for (size_t i = 0; i < td->nbufs; i++)
		if (!strcmp(td->bufs[i].pub.name, name))
			return ktrace_error_at(err, -EBADMSG, at, "buffer \"%s\" is described twice",
					       name);
	ret = add_buffer(td, &b, err);
	if (ret)
		return ret;
	b->pub.name = name;
	b->pub.clock = clock;
	b->pub.offset = offset;
	b->from = at;
	b->pub.page_size = page_size;
	b->pub.latency = id == TRACEDAT_OPT_BUFFER_TEXT;
	if (ncpus) {
		/* the option's bytes in the file (not a decompressed options section): each
		 * entry's fields are named by their own offsets, else by the option's */
		bool mapped = size <= td->size && (uintptr_t)data >= (uintptr_t)td->map &&
			      (uintptr_t)data - (uintptr_t)td->map <= td->size - size;

		b->cpus = calloc(ncpus, sizeof(*b->cpus));
		if (!b->cpus)
			return oom(err);
		for (uint32_t i = 0; i < ncpus; i++) {
			struct td_cpu *cpu = &b->cpus[i];
			uint64_t entry = kt_cursor_offset(&c);

			cpu->id_at = mapped ? entry : at;
			cpu->from = mapped ? entry + 4 : at;
			cpu->size_at = mapped ? entry + 12 : at;
			kt_cursor_u32(&c, &cpu->pub.cpu);
			kt_cursor_u64(&c, &cpu->pub.offset);
			kt_cursor_u64(&c, &cpu->pub.size);
		}
		b->ncpus = ncpus;
		qsort(b->cpus, ncpus, sizeof(*b->cpus), cmp_cpu);
		for (uint32_t i = 1; i < ncpus; i++)
			if (b->cpus[i].pub.cpu == b->cpus[i - 1].pub.cpu)
				return ktrace_error_at(err, -EBADMSG, at,
						       "buffer \"%s\": CPU %u has two data entries",
						       name, b->cpus[i].pub.cpu);
	}
	return 0;
}

static int parse_time_shift(struct tracedat *td, const uint8_t *data, uint32_t size,
			    uint64_t at, struct ktrace_error *err)
{
	struct kt_cursor c;
	uint64_t peer;
	uint32_t flags, ncpus;
	int ret;

	kt_cursor_init(&c, data, size, at + 6, err);
	c.big_endian = td->hdr.big_endian;
	kt_cursor_u64(&c, &peer);
	kt_cursor_u32(&c, &flags);
	ret = kt_cursor_u32(&c, &ncpus);
	if (ret)
		return ret;
	if (ncpus > kt_cursor_left(&c) / 4)
		return ktrace_error_at(err, -EBADMSG, at, "TIME_SHIFT: %u CPUs cannot fit", ncpus);
	td->tsync = calloc(ncpus ? ncpus : 1, sizeof(*td->tsync));
	if (!td->tsync)
		return oom(err);
	td->tsync_cpus = ncpus;
	td->tsync_flags = flags;
	for (uint32_t i = 0; i < ncpus; i++) {
		struct td_tsync_cpu *tc = &td->tsync[i];
		uint32_t count;

		ret = kt_cursor_u32(&c, &count);
		if (ret)
			return ret;
		if (count > kt_cursor_left(&c) / 24)
			return ktrace_error_at(err, -EBADMSG, kt_cursor_offset(&c) - 4,
					       "TIME_SHIFT: %u samples cannot fit", count);
		tc->samples = calloc(count ? count : 1, sizeof(*tc->samples));
		if (!tc->samples)
			return oom(err);
		tc->count = count;
		for (int field = 0; field < 3; field++)
			for (uint32_t k = 0; k < count; k++) {
				uint64_t v = 0;

				kt_cursor_u64(&c, &v);
				if (field == 0)
					tc->samples[k].time = (int64_t)v;
				else if (field == 1)
					tc->samples[k].offset = (int64_t)v;
				else
					tc->samples[k].scaling = (int64_t)v;
			}
	}
	/* Optional trailing fraction bits, per CPU per sample. */
	if (kt_cursor_left(&c)) {
		for (uint32_t i = 0; i < ncpus; i++)
			for (size_t k = 0; k < td->tsync[i].count; k++) {
				uint64_t v;

				if (kt_cursor_u64(&c, &v))
					return ktrace_error_at(err, -EBADMSG, at,
							       "TIME_SHIFT: truncated fraction bits");
				td->tsync[i].samples[k].fraction = (int64_t)v;
			}
	}
	/* Sorted by time, samples with equal times dropped (as trace-cmd does). */
	for (uint32_t i = 0; i < ncpus; i++) {
		struct td_tsync_cpu *tc = &td->tsync[i];
		size_t j = 0;

		for (size_t a = 1; a < tc->count; a++) {   /* insertion sort: stable */
			struct td_tsync_sample s = tc->samples[a];
			size_t b = a;

			while (b > 0 && tc->samples[b - 1].time > s.time) {
				tc->samples[b] = tc->samples[b - 1];
				b--;
			}
			tc->samples[b] = s;
		}
		for (size_t k = 0; k < tc->count; k++)
			if (k == 0 || tc->samples[k].time != tc->samples[k - 1].time)
				tc->samples[j++] = tc->samples[k];
		tc->count = j;
	}
	return 0;
}

/* Options of version 7 that name a section (16-21, and trace-cmd 3.4's 23 and 25). */
#define TD_SECOPTS (TRACEDAT_OPT_MODULES_FILE + 1)
struct td_secopts {
	uint64_t offset[TD_SECOPTS];
	uint64_t from[TD_SECOPTS];   /* where the offset was read */
	bool present[TD_SECOPTS];
};

/* A file of the traced machine held in an option (ktrace's own KTRACE_BTF /
 * KTRACE_MODULES): the option's bytes are the text. */
static void inline_file(struct tracedat *td, struct td_lazy *lz, uint16_t id, const uint8_t *data,
			uint32_t size, uint64_t at)
{
	const char *what = lz == &td->btf ? "BTF" : "modules";

	if (lz->present) {
		td_warn(td, "offset 0x%" PRIx64 ": a second %s (option %u) ignored", at, what, id);
		return;
	}
	lz->present = true;
	lz->loaded = true;
	lz->id = id;
	lz->header_bytes = 0;
	lz->region.offset = at;
	lz->text_size = size;
	lz->text.data = (const char *)data;
	lz->text.len = size;
}

/* Interprets one option (other than DONE). */
static int handle_option(struct tracedat *td, struct td_secopts *so, uint16_t id,
			 const uint8_t *data, uint32_t size, uint64_t at, struct ktrace_error *err)
{
	bool raw = td->flags & TRACEDAT_RAW_TS;
	int ret = add_option(td, id, size, data, at, err);

	if (ret)
		return ret;
	switch (id) {
	case TRACEDAT_OPT_DATE:
		/* microseconds between the trace clock and gettimeofday, as "0x..." */
		if (!raw && !(td->flags & TRACEDAT_NO_DATE))
			td->ts_offset += parse_number(data, size) * 1000;
		break;
	case TRACEDAT_OPT_OFFSET:
		if (!raw)
			td->ts_offset += parse_number(data, size);
		break;
	case TRACEDAT_OPT_BUFFER:
	case TRACEDAT_OPT_BUFFER_TEXT:
		if (td->hdr.version < 7 && id == TRACEDAT_OPT_BUFFER_TEXT) {
			td_warn(td, "offset 0x%" PRIx64 ": BUFFER_TEXT option in a version 6 file, ignored",
				at);
			break;
		}
		return parse_buffer_option(td, id, data, size, at, err);
	case TRACEDAT_OPT_TRACECLOCK:
		td->has_traceclock_option = true;
		if (size) {
			free(td->clock_text);
			td->clock_text = strndup((const char *)data, size);
			if (!td->clock_text)
				return oom(err);
			extract_clock((const char *)data, size, td->top_clock, sizeof(td->top_clock));
		}
		break;
	case TRACEDAT_OPT_UNAME:
		td->uname = own_string(td, data, size, err);
		return td->uname ? 0 : -ENOMEM;
	case TRACEDAT_OPT_VERSION:
		td->tracer_version = own_string(td, data, size, err);
		return td->tracer_version ? 0 : -ENOMEM;
	case TRACEDAT_OPT_CPUCOUNT:
		if (size >= 4) {
			td->has_cpucount = true;
			td->cpucount = kt_load_u32(data, td->hdr.big_endian);
		}
		break;
	case TRACEDAT_OPT_TRACEID:
		if (size >= 8) {
			td->has_trace_id = true;
			td->trace_id = kt_load_u64(data, td->hdr.big_endian);
		}
		break;
	case TRACEDAT_OPT_TIME_SHIFT:
		if (size >= 16 && !raw && !td->tsync)
			return parse_time_shift(td, data, size, at, err);
		break;
	case TRACEDAT_OPT_TSC2NSEC:
		if (size >= 16 && !raw) {
			td->has_tsc = true;
			td->tsc_mult = kt_load_u32(data, td->hdr.big_endian);
			td->tsc_shift = kt_load_u32(data + 4, td->hdr.big_endian);
			td->tsc_offset = kt_load_u64(data + 8, td->hdr.big_endian);
		}
		break;
	case TRACEDAT_OPT_BTF_FILE:
	case TRACEDAT_OPT_MODULES_FILE:
		/* trace-cmd 3.4: the offset of a section (read in open_v7); trace-cmd
		 * never writes them in version 6, and reads no section there */
		if (td->hdr.version < 7)
			td_warn(td, "offset 0x%" PRIx64 ": %s option in a version 6 file, ignored", at,
				tracedat_option_name(id));
		else if (size < 8)
			/* its section cannot be found: what it holds is lost */
			td_damage(td, NULL, -EBADMSG, at,
				  "%s option of %u bytes (8 expected): its section not read",
				  tracedat_option_name(id), size);
		else if (so->present[id])
			td_warn(td, "offset 0x%" PRIx64 ": a second %s option ignored", at,
				tracedat_option_name(id));
		else {
			so->present[id] = true;
			so->offset[id] = kt_load_u64(data, td->hdr.big_endian);
			so->from[id] = at;
		}
		break;
	case TRACEDAT_OPT_KTRACE_BTF:
		inline_file(td, &td->btf, id, data, size, at);
		break;
	case TRACEDAT_OPT_KTRACE_MODULES:
		inline_file(td, &td->modules, id, data, size, at);
		break;
	case TRACEDAT_OPT_CPUSTAT:
	case TRACEDAT_OPT_HOOK:
	case TRACEDAT_OPT_PROCMAPS:
	case TRACEDAT_OPT_GUEST:
	case TRACEDAT_OPT_STRINGS:
	case TRACEDAT_OPT_LAST_BOOT_INFO:
	case TRACEDAT_OPT_SAVED_TGIDS:
		break;   /* kept as they are; callers read them with tracedat_option() */
	default:
		if (!td_section_option(id)) {
			td_warn(td, "offset 0x%" PRIx64 ": unknown option %u (%u bytes) skipped", at,
				id, size);
		} else if (td->hdr.version < 7) {
			td_warn(td, "offset 0x%" PRIx64 ": section option %u in a version 6 file, ignored",
				at, id);
		} else if (size >= 8) {
			so->present[id] = true;
			so->offset[id] = kt_load_u64(data, td->hdr.big_endian);
			so->from[id] = at;
		} else {
			td_damage(td, NULL, -EBADMSG, at,
				  "%s option of %u bytes (8 expected): its section not read",
				  tracedat_option_name(id), size);
		}
		break;
	}
	return 0;
}

/* Options of version 6: "u16 id, u32 size, data" until an id of 0. */
static int parse_options_v6(struct tracedat *td, struct kt_cursor *c, struct td_secopts *so)
{
	for (;;) {
		uint64_t at = kt_cursor_offset(c);
		const uint8_t *data;
		uint16_t id;
		uint32_t size;
		int ret = kt_cursor_u16(c, &id);

		if (ret)
			return ret;
		if (id == TRACEDAT_OPT_DONE)
			return 0;
		ret = kt_cursor_u32(c, &size);
		if (!ret)
			ret = kt_cursor_bytes(c, size, &data, "option data");
		if (!ret)
			ret = handle_option(td, so, id, data, size, at, c->err);
		if (ret)
			return ret;
		td->hdr.options++;
	}
}

/* The chain of OPTIONS sections of version 7. */
static int parse_options_v7(struct tracedat *td, struct td_secopts *so, struct ktrace_error *err)
{
	uint64_t visited[64];
	size_t nvisited = 0;
	uint64_t off = td->hdr.options_offset;
	uint64_t from = td->options_offset_at;

	for (unsigned int n = 0; off; n++) {
		struct td_region r;
		struct kt_cursor c;
		uint64_t next = 0;
		bool done = false;
		int ret;

		if (n >= TD_MAX_OPTION_SECTIONS)
			return ktrace_error_at(err, -ELOOP, off, "more than %d options sections",
					       TD_MAX_OPTION_SECTIONS);
		for (size_t i = 0; i < nvisited; i++)
			if (visited[i] == off)
				return ktrace_error_at(err, -ELOOP, off,
						       "options sections form a loop");
		if (nvisited < 64)
			visited[nvisited++] = off;
		ret = load_section(td, off, from, TRACEDAT_OPT_DONE, "options", &r, err);
		if (ret == -ENODATA && td->cut) {
			/* the rest of the chain was after the cut (told by the walk) */
			td->options_lost = true;
			ktrace_error_clear(err);
			return 0;
		}
		if (ret)
			return ret;
		if (r.owned) {
			/* option data points into the decompressed bytes */
			ret = keep_owned(td, r.owned, r.owned_big, err);
			r.owned = NULL;
			if (ret)
				return ret;
		}
		cursor_over(td, &c, &r, err);
		while (!done) {
			uint64_t at = r.compressed ? r.offset : kt_cursor_offset(&c);
			const uint8_t *data;
			uint16_t id;
			uint32_t size;

			ret = kt_cursor_u16(&c, &id);
			if (!ret)
				ret = kt_cursor_u32(&c, &size);
			if (!ret)
				ret = kt_cursor_bytes(&c, size, &data, "option data");
			if (ret)
				return region_error(&r, ret, err);
			td->hdr.options++;
			if (id == TRACEDAT_OPT_DONE) {
				if (size < 8)
					return ktrace_error_at(err, -EBADMSG, at,
							       "DONE option of %u bytes (8 expected)", size);
				ret = add_option(td, id, size, data, at, err);
				if (ret)
					return ret;
				next = kt_load_u64(data, td->hdr.big_endian);
				from = at;
				done = true;
			} else {
				ret = handle_option(td, so, id, data, size, at, err);
				if (ret)
					return region_error(&r, ret, err);
			}
		}
		off = next;
	}
	return 0;
}

/* ------------------------------------------------------------------ buffers */

/* Bytes of chunk headers and data read at a time to check the chunks of a CPU. */
#define TD_HEADER_WINDOW ((size_t)64 << 10)

/* The CPU's data ends early (damage found at open): what is before the place stays
 * readable (pub.data_size, pub.chunks). */
#define cpu_cut(td, cpu, code, offset, ...) \
	((cpu)->damaged = true, (td)->ncut++, \
	 td_damage((td), &(cpu)->cut, (code), (offset), __VA_ARGS__))

/* Whether a plausible chunk header is at q, below limit: a compressed size that fits
 * (or any, with cut_ok: the file cut in that chunk), an uncompressed size of 1 to max
 * bytes, and the codec's own header first in the data (zstd's magic number, zlib's
 * checked header). */
static bool chunk_at(struct tracedat *td, uint64_t q, uint64_t limit, uint64_t max, bool cut_ok,
		     uint32_t *csize)
{
	const uint8_t *d;
	uint32_t c, u;

	if (q > limit || limit - q < 12)
		return false;
	d = td->map + q;
	c = kt_load_u32(d, td->hdr.big_endian);
	u = kt_load_u32(d + 4, td->hdr.big_endian);
	if (!u || u > max || c < 2 || (c > limit - q - 8 && !cut_ok))
		return false;
	*csize = c;
	if (td->codec_kind == TD_CODEC_ZSTD)
		return d[8] == 0x28 && d[9] == 0xb5 && d[10] == 0x2f && d[11] == 0xfd;
	return (d[8] & 0x0f) == 8 && ((d[8] << 8) | d[9]) % 31 == 0;
}

static bool zero_to(const uint8_t *map, uint64_t at, uint64_t limit)
{
	for (; at < limit; at++)
		if (map[at])
			return false;
	return true;
}

/* Chain steps resync_chunks may take for one CPU (crafted data could make every byte
 * the start of a long chain). */
#define TD_RESYNC_STEPS (1u << 20)

/*
 * After a damaged chunk header at bad: the next chunk found again, the start of a chain
 * of chunks that ends where the CPU's data ends (at limit, or with zero padding to a
 * page boundary before it), or is cut by the end of the file (*cut). 0 when there is
 * none; else its offset, with *n and *bytes the chain's whole chunks and their
 * uncompressed bytes, *end where they end.
 */
static uint64_t resync_chunks(struct tracedat *td, uint64_t bad, uint64_t limit, uint64_t max,
			      unsigned int ps, uint32_t *n, uint64_t *bytes, uint64_t *end, bool *cut)
{
	const uint8_t *map = td->map;
	uint8_t first = td->codec_kind == TD_CODEC_ZSTD ? 0x28 : 0x78;
	uint64_t steps = 0;

	for (uint64_t p = bad + 16; p < limit && steps < TD_RESYNC_STEPS;) {
		const uint8_t *m = memchr(map + p, first, (size_t)(limit - p));
		uint64_t q, at, total = 0;
		uint32_t csize, k = 0;
		bool cutc = false;

		if (!m)
			break;
		p = (uint64_t)(m - map) + 1;
		q = (uint64_t)(m - map) - 8;
		if (!chunk_at(td, q, limit, max, false, &csize))
			continue;
		for (at = q; steps++ < TD_RESYNC_STEPS &&
			     chunk_at(td, at, limit, max, limit >= td->size, &csize);) {
			if (csize > limit - at - 8) {
				cutc = true;        /* the file ends in this chunk */
				break;
			}
			k++;
			total += kt_load_u32(map + at + 4, td->hdr.big_endian);
			at += 8 + (uint64_t)csize;
		}
		if (cutc || at == limit || (limit - at < ps && zero_to(map, at, limit))) {
			*n = k;
			*bytes = total;
			*end = at;
			*cut = cutc;
			return q;
		}
	}
	return 0;
}

/* Validates a CPU's data: in the file, and for compressed data walks the chunks, up to
 * limit: the end of the file or of its buffer's section, or where another CPU's data
 * starts. Data that runs past it, or whose next chunk cannot be found, is damage: the
 * CPU keeps what comes before (the other CPUs have offsets of their own). */
static int check_cpu_data(struct tracedat *td, struct td_buffer *b, struct td_cpu *cpu,
			  uint64_t limit)
{
	struct tracedat_cpu *p = &cpu->pub;
	uint64_t max_chunk = (uint64_t)b->pub.page_size * TD_PAGES_PER_CHUNK;
	uint64_t off, total = 0, win_at = 0;
	uint32_t count, i;
	uint8_t *win = NULL;
	size_t win_len = 0;
	/* what is at limit: the end of the file or of the section, or other data */
	char beyond[96];

	p->data_size = 0;
	p->stored_size = 0;
	if (!p->size)
		return 0;
	if (limit >= td->size)
		snprintf(beyond, sizeof(beyond), "past the end of the file (0x%" PRIx64 ")", td->size);
	else if (limit == b->data_end)
		snprintf(beyond, sizeof(beyond), "past the end of its section (0x%" PRIx64 ")", limit);
	else
		snprintf(beyond, sizeof(beyond), "into another CPU's data (at 0x%" PRIx64 ")", limit);
	if (p->offset < b->data_start) {
		cpu_cut(td, cpu, -EBADMSG, cpu->from,
			"buffer \"%s\" CPU %u data starts at 0x%" PRIx64 ", before its section's (0x%" PRIx64 ")",
			b->pub.name, p->cpu, p->offset, b->data_start);
		return 0;
	}
	if (p->offset >= limit) {
		/* nothing of it: beyond the file or its section, or another CPU's (the
		 * second of two entries at one place gets its own as limit) */
		bool dup = p->offset == limit && limit < b->data_end && limit < td->size;

		cpu_cut(td, cpu, limit >= td->size ? -ENODATA : -EBADMSG, cpu->from,
			"%sbuffer \"%s\" CPU %u data starts at 0x%" PRIx64 ", %s",
			limit >= td->size ? "truncated: " : "", b->pub.name, p->cpu, p->offset,
			dup ? "where another CPU's data is" : beyond);
		return 0;
	}
	if (!b->pub.compressed) {
		uint64_t left = limit - p->offset;

		if (p->size > left) {
			cpu_cut(td, cpu, limit < td->size ? -EBADMSG : -ENODATA, p->offset,
				"%sbuffer \"%s\" CPU %u data of %" PRIu64
				" bytes runs %s: %" PRIu64 " bytes read",
				limit < td->size ? "" : "truncated: ", b->pub.name, p->cpu, p->size,
				beyond, left);
			cpu->cut_page = left % b->pub.page_size != 0;
			p->data_size = left;
			p->stored_size = left;
			return 0;
		}
		p->data_size = p->size;
		p->stored_size = p->size;
		return 0;
	}
	/* u32 chunk count, then chunks of (u32 csize, u32 usize, bytes). The recorded
	 * size is not trusted (trace-cmd 3.1.x writes it 4 bytes short). */
	if (limit - p->offset < 4) {
		cpu_cut(td, cpu, -ENODATA, p->offset, "truncated: buffer \"%s\" CPU %u chunk count",
			b->pub.name, p->cpu);
		return 0;
	}
	count = kt_load_u32(td->map + p->offset, td->hdr.big_endian);
	off = p->offset + 4;
	cpu->first_chunk = off;
	/* A file's chunk headers are read with pread, TD_HEADER_WINDOW bytes at a time:
	 * read through the mapping, each would map in the data around it (the kernel maps
	 * the neighbouring pages of a fault), the whole compressed data resident before
	 * the first record is read (the iterators hand back the pages they are done with,
	 * as they go). */
	if (td->release_pages && kt_input_pread(td->in, NULL, 0, 0) == 0)
		win = malloc(TD_HEADER_WINDOW);
	for (i = 0; i < count; i++) {
		const uint8_t *h = td->map + off;
		uint32_t csize, usize;

		if (limit - off < 8) {
			cpu_cut(td, cpu, -ENODATA, off,
				"truncated: buffer \"%s\" CPU %u chunk %u of %u: header",
				b->pub.name, p->cpu, i, count);
			break;
		}
		if (win && (win_len < 8 || off < win_at || off - win_at > win_len - 8)) {
			win_len = limit - off < TD_HEADER_WINDOW ? (size_t)(limit - off)
								 : TD_HEADER_WINDOW;
			win_at = off;
			if (kt_input_pread(td->in, win, win_len, off))
				win_len = 0;
		}
		if (win && win_len >= 8 && off >= win_at && off - win_at <= win_len - 8)
			h = win + (off - win_at);
		csize = kt_load_u32(h, td->hdr.big_endian);
		usize = kt_load_u32(h + 4, td->hdr.big_endian);
		if (csize <= limit - off - 8 && usize && usize <= max_chunk) {
			total += usize;
			off += 8 + (uint64_t)csize;
			continue;
		}
		/* a damaged header: the chunks after it are looked for (the file cut in
		 * this chunk has none) */
		{
			bool past = csize > limit - off - 8, cutc = false;
			uint64_t q, end = 0, bytes = 0;
			uint32_t n = 0;
			char what[160];

			if (past)
				snprintf(what, sizeof(what), "buffer \"%s\" CPU %u chunk %u of %u bytes runs %s",
					 b->pub.name, p->cpu, i, csize, beyond);
			else
				snprintf(what, sizeof(what),
					 "buffer \"%s\" CPU %u chunk %u: %u bytes uncompressed (1 to %" PRIu64 " expected)",
					 b->pub.name, p->cpu, i, usize, max_chunk);
			q = resync_chunks(td, off, limit, max_chunk, b->pub.page_size, &n, &bytes, &end,
					  &cutc);
			if (!q) {
				cpu_cut(td, cpu, past && limit >= td->size ? -ENODATA : -EBADMSG, off, "%s%s",
					past && limit >= td->size ? "truncated: " : "", what);
				break;
			}
			cpu_cut(td, cpu, -EBADMSG, off,
				"%s: the next chunk found at 0x%" PRIx64 " (%" PRIu64 " bytes skipped)%s",
				what, q, q - off, cutc ? ", the file ends in a chunk after it" : "");
			cpu->resync_chunk = i;
			cpu->resync_at = q;
			i += n;
			total += bytes;
			off = end;
			break;
		}
	}
	free(win);
	p->chunks = i;
	p->data_size = total;
	p->stored_size = off - p->offset;
	/* the chunks read in full, but the size says otherwise: which is right cannot be
	 * told (trace-cmd reads the size, and crashes or reads another CPU's data) */
	if (!cpu->damaged && p->size != p->stored_size && p->size + 4 != p->stored_size)
		cpu_cut(td, cpu, -EBADMSG, cpu->size_at,
			"buffer \"%s\" CPU %u: recorded size %" PRIu64 ", but its %u chunk%s %" PRIu64
			" bytes",
			b->pub.name, p->cpu, p->size, p->chunks, p->chunks == 1 ? " takes" : "s take",
			p->stored_size);
	return 0;
}

static int check_page_size(struct td_buffer *b, uint64_t at, struct ktrace_error *err)
{
	unsigned int ps = b->pub.page_size;

	if (ps < TD_MIN_PAGE_SIZE || ps > TD_MAX_PAGE_SIZE || (ps & (ps - 1)))
		return ktrace_error_at(err, -EBADMSG, at,
				       "buffer \"%s\": unsupported page size %u", b->pub.name, ps);
	return 0;
}

struct data_at {
	uint64_t offset;
	size_t order;               /* in buffer, then CPU entry order */
};

static int cmp_data_at(const void *a, const void *b)
{
	const struct data_at *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* Every CPU's data, each bounded by its buffer's place (v7: its section) and by where
 * the next CPU's data starts: a damaged size or chunk never reads another CPU's data
 * (two entries at the same place: the second is damaged). */
static int check_data(struct tracedat *td, struct ktrace_error *err)
{
	struct data_at *v;
	size_t n = 0, order = 0;

	for (size_t b = 0; b < td->nbufs; b++)
		if (!td->bufs[b].pub.latency)
			n += td->bufs[b].ncpus;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return oom(err);
	n = 0;
	for (size_t b = 0; b < td->nbufs; b++)
		for (size_t c = 0; !td->bufs[b].pub.latency && c < td->bufs[b].ncpus; c++, order++)
			if (td->bufs[b].cpus[c].pub.size)
				v[n++] = (struct data_at){ td->bufs[b].cpus[c].pub.offset, order };
	qsort(v, n, sizeof(*v), cmp_data_at);
	order = 0;
	for (size_t b = 0; b < td->nbufs; b++) {
		struct td_buffer *buf = &td->bufs[b];

		for (size_t c = 0; !buf->pub.latency && c < buf->ncpus; c++, order++) {
			struct td_cpu *cpu = &buf->cpus[c];
			struct data_at key = { cpu->pub.offset, order }, *at;
			uint64_t limit = buf->data_end < td->size ? buf->data_end : td->size;

			if (!cpu->pub.size || cpu->bad_id)
				continue;
			at = bsearch(&key, v, n, sizeof(*v), cmp_data_at);
			if (!at) {
				continue;
			} else if (at > v && at[-1].offset == key.offset) {
				/* the same data as an entry before it */
				limit = key.offset;
			} else {
				for (; at < v + n && at->offset == key.offset; at++)
					;
				if (at < v + n && at->offset < limit)
					limit = at->offset;
			}
			check_cpu_data(td, buf, cpu, limit);
		}
	}
	free(v);
	/* the entries with a CPU id beyond the file's CPUs go (told in setup_buffer_v7) */
	for (size_t b = 0; b < td->nbufs; b++) {
		struct td_buffer *buf = &td->bufs[b];
		size_t k = 0;

		for (size_t c = 0; c < buf->ncpus; c++)
			if (!buf->cpus[c].bad_id)
				buf->cpus[k++] = buf->cpus[c];
		buf->ncpus = k;
		buf->pub.cpus = (unsigned int)k;
	}
	return 0;
}

/* Version 7: a buffer's section header, then its CPU data. */
static int setup_buffer_v7(struct tracedat *td, struct td_buffer *b, struct ktrace_error *err)
{
	unsigned int want = b->pub.latency ? TRACEDAT_OPT_BUFFER_TEXT : TRACEDAT_OPT_BUFFER;
	struct td_sechdr h;
	int ret = read_sechdr(td, b->pub.offset, b->from, &h, err);

	if (ret)
		return ret;
	if (h.id != want)
		return ktrace_error_at(err, -EBADMSG, b->pub.offset,
				       "buffer \"%s\": expected section id %u, found %u",
				       b->pub.name, want, h.id);
	b->pub.compressed = h.flags & 1;
	if (b->pub.compressed && td->codec_kind == TD_CODEC_NONE)
		return ktrace_error_at(err, -EBADMSG, b->pub.offset,
				       "buffer \"%s\" is compressed but the file says no compression",
				       b->pub.name);
	if (b->pub.latency) {
		b->latency_offset = b->pub.offset + 16;
		if (h.size > td->size - b->latency_offset)
			return ktrace_error_at(err, -ENODATA, b->pub.offset,
					       "truncated: latency section of %" PRIu64 " bytes",
					       h.size);
		b->latency_size = h.size;
		b->pub.page_size = td->hdr.page_size;
		return 0;
	}
	ret = check_page_size(b, b->pub.offset, err);
	if (ret)
		return ret;
	/* A CPU id at or beyond the file's CPU count (trace-cmd's CPUCOUNT option, else
	 * the most the writer takes) is damage: whose data it is cannot be told, so it is
	 * not read (check_data leaves the entry out) */
	for (size_t i = 0; i < b->ncpus; i++) {
		struct td_cpu *cpu = &b->cpus[i];
		unsigned int most = td->has_cpucount ? td->cpucount : TD_MAX_CPUS;

		if (cpu->pub.cpu < most)
			continue;
		cpu->bad_id = true;
		td->data_damaged = true;
		td_damage(td, NULL, -EBADMSG, cpu->id_at,
			  "buffer \"%s\": CPU %u, but the file has %u CPU%s: that entry's data (%" PRIu64
			  " bytes at 0x%" PRIx64 ") not read",
			  b->pub.name, cpu->pub.cpu, most, most == 1 ? "" : "s", cpu->pub.size,
			  cpu->pub.offset);
	}
	b->pub.cpus = (unsigned int)b->ncpus;
	/* its CPUs' data is within its section (check_data) */
	b->data_start = b->pub.offset + 16;
	b->data_end = h.size < td->size - b->data_start ? b->data_start + h.size : td->size;
	/* A section that runs past the end of the file though its CPUs' data is all there:
	 * its size is wrong (a cut in the data is told where the CPUs are read), and the
	 * section walk stopped at it, so that what follows it (the section names) is
	 * lost: damage, at the size field. (A buffer found walking data cut short has no
	 * size of its own: its cut is told where it was found.) */
	if (!b->recovered && h.size > td->size - b->data_start) {
		uint64_t end = b->data_start;

		for (size_t i = 0; i < b->ncpus; i++)
			if (!b->cpus[i].bad_id && b->cpus[i].pub.offset + b->cpus[i].pub.size > end)
				end = b->cpus[i].pub.offset + b->cpus[i].pub.size;
		if (end <= td->size)
			td_damage(td, NULL, -EBADMSG, b->pub.offset + 8,
				  "buffer \"%s\": section of %" PRIu64 " bytes runs past the end of the "
				  "file, but its CPUs' data ends at 0x%" PRIx64 ": a wrong size",
				  b->pub.name, h.size, end);
	}
	return 0;
}

/* Version 6: at off, an optional options block, then "flyrecord" and a table of
 * ncpus (offset, size) pairs, or "latency" and text up to the end of the file. */
static int read_flyrecord_v6(struct tracedat *td, size_t bi, uint64_t off,
			     unsigned int ncpus, struct td_secopts *so, uint64_t *end,
			     struct ktrace_error *err)
{
	struct td_buffer *b = &td->bufs[bi];
	struct kt_cursor c;
	const uint8_t *tag;
	int ret;

	if (off >= td->size)
		return ktrace_error_at(err, -ENODATA, b->from,
				       "truncated: buffer \"%s\" at 0x%" PRIx64 " is past the end of the file (0x%" PRIx64 ")",
				       b->pub.name, off, td->size);
	cursor_at(td, &c, off, err);
	for (int round = 0;; round++) {
		uint64_t at = kt_cursor_offset(&c);

		ret = kt_cursor_bytes(&c, 10, &tag, "flyrecord/latency/options tag");
		if (ret)
			return ret;
		if (!memcmp(tag, "options  ", 10) && round == 0) {
			ret = parse_options_v6(td, &c, so);
			b = &td->bufs[bi];      /* a BUFFER option may have moved the table */
			if (ret)
				return ret;
			continue;
		}
		if (!memcmp(tag, "latency  ", 10)) {
			b->pub.latency = true;
			b->latency_offset = kt_cursor_offset(&c);
			b->latency_size = td->size - b->latency_offset;
			b->pub.page_size = td->hdr.page_size;
			*end = td->size;
			return 0;
		}
		if (!memcmp(tag, "flyrecord", 10))
			break;
		return ktrace_error_at(err, -EBADMSG, at,
				       "expected \"flyrecord\", \"latency\" or \"options\"");
	}
	if (ncpus > kt_cursor_left(&c) / 16)
		return ktrace_error_at(err, -ENODATA, kt_cursor_offset(&c),
				       "truncated: flyrecord table of %u CPUs", ncpus);
	b->cpus = calloc(ncpus ? ncpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return oom(err);
	b->ncpus = ncpus;
	b->pub.cpus = ncpus;
	b->pub.page_size = td->hdr.page_size;
	b->pub.offset = off;
	for (unsigned int i = 0; i < ncpus; i++) {
		b->cpus[i].pub.cpu = i;
		b->cpus[i].from = kt_cursor_offset(&c);
		b->cpus[i].size_at = b->cpus[i].from + 8;
		kt_cursor_u64(&c, &b->cpus[i].pub.offset);
		kt_cursor_u64(&c, &b->cpus[i].pub.size);
	}
	*end = kt_cursor_offset(&c);
	b->data_start = 0;
	b->data_end = td->size;
	return check_page_size(b, off, err);
}

/* ------------------------------------------------------------------ open */

static int parse_initial(struct tracedat *td, struct kt_cursor *c)
{
	const char *ver = NULL, *s = NULL;
	size_t vlen = 0, slen = 0;
	uint8_t endian, lsize;
	uint32_t page_size;
	int ret = kt_cursor_need(c, 10, "magic");

	if (ret)
		return ret;
	if (memcmp(c->data, td_magic, sizeof(td_magic)))
		return ktrace_error_at(c->err, -EBADMSG, 0, "not a trace.dat file (bad magic)");
	c->pos = 10;
	ret = kt_cursor_cstring(c, &ver, &vlen, "version string");
	if (ret)
		return ret;
	if (vlen == 1 && (ver[0] == '6' || ver[0] == '7')) {
		td->hdr.version = (unsigned int)(ver[0] - '0');
	} else {
		return ktrace_error_at(c->err, -ENOTSUP, 10,
				       "unsupported trace.dat version \"%.*s\" (6 and 7 are)",
				       vlen > 8 ? 8 : (int)vlen, ver);
	}
	snprintf(td->version_str, sizeof(td->version_str), "%u", td->hdr.version);
	ret = kt_cursor_u8(c, &endian);
	if (!ret)
		ret = kt_cursor_u8(c, &lsize);
	if (ret)
		return ret;
	if (endian > 1)
		return ktrace_error_at(c->err, -EBADMSG, kt_cursor_offset(c) - 2,
				       "endianness byte %u (0 or 1 expected)", endian);
	td->hdr.big_endian = endian;
	c->big_endian = endian;
	td->hdr.long_size = lsize;
	if (lsize != 4 && lsize != 8)
		return ktrace_error_at(c->err, -EBADMSG, kt_cursor_offset(c) - 1,
				       "header long size %u (4 or 8 expected)", lsize);
	ret = kt_cursor_u32(c, &page_size);
	if (ret)
		return ret;
	/* v7 buffers carry their own page size, but the header's is the default */
	if (page_size < TD_MIN_PAGE_SIZE || page_size > TD_MAX_PAGE_SIZE ||
	    (page_size & (page_size - 1)))
		return ktrace_error_at(c->err, -EBADMSG, kt_cursor_offset(c) - 4,
				       "header page size %u (a power of two from %u to %u expected)",
				       page_size, TD_MIN_PAGE_SIZE, TD_MAX_PAGE_SIZE);
	td->hdr.page_size = page_size;
	td->page_size_at = kt_cursor_offset(c) - 4;
	strcpy(td->comp_name, "none");
	td->comp_version[0] = 0;
	td->codec_kind = TD_CODEC_NONE;
	if (td->hdr.version >= 7) {
		uint64_t at = kt_cursor_offset(c);

		ret = kt_cursor_cstring(c, &s, &slen, "compression name");
		if (ret)
			return ret;
		if (slen >= sizeof(td->comp_name))
			return ktrace_error_at(c->err, -EBADMSG, at, "compression name too long");
		memcpy(td->comp_name, s, slen + 1);
		ret = kt_cursor_cstring(c, &s, &slen, "compression version");
		if (ret)
			return ret;
		if (slen >= sizeof(td->comp_version))
			return ktrace_error_at(c->err, -EBADMSG, at, "compression version too long");
		memcpy(td->comp_version, s, slen + 1);
		if (!strcmp(td->comp_name, "zstd"))
			td->codec_kind = TD_CODEC_ZSTD;
		else if (!strcmp(td->comp_name, "zlib"))
			td->codec_kind = TD_CODEC_ZLIB;
		else if (strcmp(td->comp_name, "none"))
			return ktrace_error_at(c->err, -ENOTSUP, at,
					       "unsupported compression \"%s\"", td->comp_name);
		td->options_offset_at = kt_cursor_offset(c);
		ret = kt_cursor_u64(c, &td->hdr.options_offset);
		if (ret)
			return ret;
	}
	td->hdr.compression = td->comp_name;
	td->hdr.compression_version = td->comp_version;
	return td_codec_init(&td->codec, td->codec_kind) ? oom(c->err) : 0;
}

static int open_v6(struct tracedat *td, struct kt_cursor *c, struct td_secopts *so,
		   struct ktrace_error *err)
{
	size_t cap = 0;
	uint32_t cpus;
	uint64_t end;
	struct td_buffer *top;
	int ret;

	ret = parse_header_info(td, c);
	if (!ret)
		ret = check_header_page_size(td, td->page_size_at, c->err);
	if (!ret)
		ret = parse_ftrace_formats(td, c, &cap);
	if (!ret)
		ret = parse_event_formats(td, c, &cap);
	if (!ret)
		ret = parse_lazy_text(c, &td->kallsyms, 4, "kallsyms");
	if (!ret)
		ret = parse_lazy_text(c, &td->printk, 4, "printk formats");
	if (!ret)
		ret = parse_lazy_text(c, &td->cmdlines, 8, "saved cmdlines");
	if (!ret)
		ret = kt_cursor_u32(c, &cpus);
	if (ret)
		return ret;
	td->kallsyms.loaded = td->printk.loaded = td->cmdlines.loaded = true;
	td->hdr.cpus = cpus;

	/* The top buffer goes first; instances (BUFFER options) come after it. */
	ret = add_buffer(td, &top, err);
	if (ret)
		return ret;
	top->pub.name = "";
	top->host_sync = true;
	{
		struct kt_cursor probe = *c;
		const uint8_t *tag;

		ret = kt_cursor_bytes(&probe, 10, &tag, "options/flyrecord tag");
		if (ret)
			return ret;
		if (!memcmp(tag, "options  ", 10)) {
			*c = probe;
			ret = parse_options_v6(td, c, so);
			if (ret)
				return ret;
		}
	}
	if (td->has_cpucount && td->cpucount > td->hdr.cpus)
		td->hdr.cpus = td->cpucount;
	/* CPUCOUNT changes the number of entries in the flyrecord tables */
	cpus = td->has_cpucount ? td->cpucount : cpus;
	ret = read_flyrecord_v6(td, 0, kt_cursor_offset(c), cpus, so, &end, err);
	if (ret)
		return ret;
	top = &td->bufs[0];
	if (!top->pub.latency && td->has_traceclock_option) {
		/* v6 quirk: the TRACECLOCK option is empty and the trace_clock text follows
		 * the flyrecord table as "u64 size, text". */
		struct kt_cursor cc;
		struct td_text t;

		cursor_at(td, &cc, end, NULL);
		if (read_text64(&cc, &t, "trace clock") == 0) {
			free(td->clock_text);
			td->clock_text = strndup(t.data, t.len);
			if (!td->clock_text)
				return oom(err);
			extract_clock(t.data, t.len, td->top_clock, sizeof(td->top_clock));
		} else {
			/* the clock decides how times are shown: damage (trace-cmd stops) */
			td_damage(td, NULL, -EBADMSG, end,
				  "the trace_clock text after the flyrecord table cannot be read: "
				  "times shown as the local clock's");
			strcpy(td->top_clock, "local");
		}
	}
	for (size_t i = 1; i < td->nbufs; i++) {
		ret = read_flyrecord_v6(td, i, td->bufs[i].pub.offset, cpus, so, &end, err);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < td->nbufs; i++)
		td->bufs[i].pub.clock = td->top_clock;
	return 0;
}

/* Walks every section from the header on: counts them and gathers STRINGS. A file that
 * ends inside a section (or before its strings) is cut: the walk stops there
 * (td->cut, td->cut_section), what comes before is read. */
static int walk_sections_v7(struct tracedat *td, uint64_t start, struct ktrace_error *err)
{
	uint64_t off = start;
	size_t cap = 0;
	bool named = false;

	td->cut_section = SIZE_MAX;
	while (off <= td->size && td->size - off >= 16) {
		struct td_sechdr h;
		struct tracedat_section *s;

		read_sechdr(td, off, off, &h, NULL);
		if (td->nsections == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct tracedat_section *n = kt_realloc_array(td->sections, ncap, sizeof(*n));

			if (!n)
				return oom(err);
			td->sections = n;
			cap = ncap;
		}
		s = &td->sections[td->nsections++];
		s->id = h.id;
		s->flags = h.flags;
		s->offset = off;
		s->size = h.size;
		s->description = (const char *)(uintptr_t)h.desc;   /* resolved later */
		named |= h.desc != UINT32_MAX;
		/* a file cut before the end of its last section */
		if (h.size > td->size - off - 16) {
			td->cut = true;
			td->cut_section = td->nsections - 1;
			/* a buffer's data cut short is told where its CPUs are read */
			if (h.id != TRACEDAT_OPT_BUFFER)
				td_damage(td, NULL, -ENODATA, off, "truncated: section %u of %" PRIu64
					  " bytes runs past the end of the file (%" PRIu64
					  " bytes left)", h.id, h.size, td->size - off - 16);
			off = td->size;
			break;
		}
		if (h.id == TRACEDAT_OPT_STRINGS) {
			struct td_region r;
			struct ktrace_error e2 = { 0 };

			if (load_section(td, off, off, h.id, "strings", &r, &e2) == 0) {
				char *n = kt_realloc_array(td->strings, td->strings_len + r.len + 1, 1);

				if (!n) {
					region_free(&r);
					return oom(err);
				}
				td->strings = n;
				memcpy(td->strings + td->strings_len, r.data, r.len);
				td->strings_len += r.len;
				td->strings[td->strings_len] = 0;
				region_free(&r);
			} else {
				if (err)
					*err = e2;
				return e2.code;
			}
		}
		off += 16 + h.size;
	}
	if (off < td->size) {
		td->cut = true;
		td_damage(td, NULL, -ENODATA, off, "truncated: section header needs 16 bytes, "
			  "%" PRIu64 " left", td->size - off);
	}
	/* sections that have a name (a string id, not 0xffffffff) need the strings section,
	 * which comes last: a file without it was cut before its end */
	if (named && !td->strings && !td->cut) {
		td->cut = true;
		td_damage(td, NULL, -ENODATA, off, "truncated: the file ends before its "
			  "strings section (the section names)");
	}
	td->hdr.sections = (unsigned int)td->nsections;
	return 0;
}

static const char *string_at(const struct tracedat *td, uint32_t id)
{
	if (!td->strings || id >= td->strings_len)
		return NULL;
	return td->strings + id;
}

/* A decompressed kallsyms, printk or cmdlines section up to this size is kept from the
 * open on: whoever reads records wants it (the report and the other views read kallsyms
 * as they open), and dropping it only meant decompressing it again, page faults and all
 * (a 5.4 MB kallsyms: about 25 ms). A bigger one is decompressed again when asked for. */
#define TD_KEEP_LAZY_BYTES ((size_t)16 << 20)

/* Loads one metadata section named by an option and parses it with fn. */
static int metadata_section(struct tracedat *td, const struct td_secopts *so, unsigned int id,
			    const char *what, size_t *cap, struct ktrace_error *err)
{
	struct td_region r;
	struct kt_cursor c;
	int ret;

	if (!so->present[id])
		return 0;
	ret = load_section(td, so->offset[id], so->from[id], id, what, &r, err);
	if (ret)
		return ret;
	cursor_over(td, &c, &r, err);
	switch (id) {
	case TRACEDAT_OPT_HEADER_INFO:
		ret = parse_header_info(td, &c);
		if (r.compressed)
			td->header_page_at = r.offset;
		break;
	case TRACEDAT_OPT_FTRACE_EVENTS:
		ret = parse_ftrace_formats(td, &c, cap);
		break;
	case TRACEDAT_OPT_EVENT_FORMATS:
		ret = parse_event_formats(td, &c, cap);
		break;
	default: {
		struct td_lazy *lz = id == TRACEDAT_OPT_KALLSYMS ? &td->kallsyms
				     : id == TRACEDAT_OPT_PRINTK ? &td->printk : &td->cmdlines;

		lz->id = (uint16_t)id;
		ret = parse_lazy_text(&c, lz, id == TRACEDAT_OPT_CMDLINES ? 8 : 4, what);
		lz->region = r;
		lz->region.owned = NULL;
		lz->region.owned_big = 0;
		lz->region.data = NULL;
		if (!ret && (!r.owned || r.len <= TD_KEEP_LAZY_BYTES)) {
			/* mapped, or decompressed already: kept (its peak memory is paid) */
			lz->loaded = true;
			ret = region_keep(td, &r, err);
		} else {
			lz->text.data = NULL;
			lz->text.len = 0;
		}
		region_free(&r);
		return ret ? region_error(&lz->region, ret, err) : 0;
	}
	}
	if (ret) {
		region_error(&r, ret, err);
		region_free(&r);
		return ret;
	}
	return region_keep(td, &r, err);
}

/* A section holding a file of the traced machine (trace-cmd 3.4's BTF_FILE and
 * MODULES_FILE): its header is checked now, its bytes are read on first use (an
 * uncompressed one is simply mapped). */
static int file_section(struct tracedat *td, const struct td_secopts *so, uint16_t id,
			struct td_lazy *lz, const char *what, struct ktrace_error *err)
{
	uint64_t off = so->offset[id];
	struct td_sechdr h;
	int ret;

	if (!so->present[id])
		return 0;
	if (lz->present) {
		td_warn(td, "offset 0x%" PRIx64 ": %s section besides ktrace's %s option, ignored",
			so->from[id], what, what);
		return 0;
	}
	ret = read_sechdr(td, off, so->from[id], &h, err);
	if (ret)
		return ret;
	if (h.id != id)
		return ktrace_error_at(err, -EBADMSG, off, "%s: expected section id %u, found %u",
				       what, id, h.id);
	if (h.size > td->size - off - 16)
		return ktrace_error_at(err, -ENODATA, off,
				       "truncated: %s section of %" PRIu64 " bytes runs past the end of the file",
				       what, h.size);
	lz->present = true;
	lz->id = id;
	lz->header_bytes = 0;
	lz->region.present = true;
	lz->region.offset = off;
	lz->region.data_offset = off + 16;
	lz->region.size = h.size;
	if (h.flags & 1) {
		if (td->codec_kind == TD_CODEC_NONE)
			return ktrace_error_at(err, -EBADMSG, off,
					       "%s section is compressed but the file says no compression",
					       what);
		if (h.size < 8)
			return ktrace_error_at(err, -ENODATA, off + 16,
					       "truncated: compression header needs 8 bytes, %" PRIu64 " left",
					       h.size);
		lz->region.compressed = true;
		lz->text_size = kt_load_u32(td->map + off + 20, td->hdr.big_endian);
	} else {
		lz->text_size = h.size;
		lz->text.data = (const char *)td->map + off + 16;
		lz->text.len = (size_t)h.size;
		lz->loaded = true;
	}
	return 0;
}

/* Options lost at the cut: the metadata sections they named are found by their section
 * ids (each section's id is its option's), the complete ones before the cut. */
static void find_metadata_sections(struct tracedat *td, struct td_secopts *so)
{
	for (unsigned int id = TRACEDAT_OPT_HEADER_INFO; id <= TRACEDAT_OPT_CMDLINES; id++) {
		if (so->present[id])
			continue;
		for (size_t i = 0; i < td->nsections; i++) {
			if (td->sections[i].id != id || i == td->cut_section)
				continue;
			so->present[id] = true;
			so->offset[id] = td->sections[i].offset;
			so->from[id] = td->sections[i].offset;
			break;
		}
	}
}

/*
 * A buffer's CPU data (section i) whose BUFFER option (written after it by trace-cmd and
 * ktrace) was lost at the cut: the CPUs are found walking the data. Each CPU's data
 * starts on a page boundary with its chunk count (compressed data): they follow each
 * other in CPU order, but a CPU without data has none, so that the numbers are sure only
 * when as many were found as the file says it has CPUs. Uncompressed data cannot be
 * told apart by CPU: it is not read. The top buffer only (an instance's name is lost).
 */
static int recover_buffer_v7(struct tracedat *td, size_t i, struct ktrace_error *err)
{
	const struct tracedat_section *sec = &td->sections[i];
	uint64_t start = sec->offset + 16, end, pos;
	uint32_t ps = td->hdr.page_size, n = 0;
	uint64_t max_chunk = (uint64_t)ps * TD_PAGES_PER_CHUNK;
	struct td_cpu *cpus = NULL;
	struct td_buffer *b;
	bool cut = false, sure;
	int ret;

	end = i == td->cut_section || sec->size > td->size - start ? td->size : start + sec->size;
	if (end <= start) {
		/* an empty buffer (ktrace writes the top's with -B), else its data is gone */
		if (sec->size)
			td_damage(td, NULL, -ENODATA, sec->offset,
				  "truncated: the file ends where this buffer's CPU data (%" PRIu64
				  " bytes) starts, and the buffer option after it is lost: nothing read",
				  sec->size);
		return 0;
	}
	td->data_damaged = true;
	if (!(sec->flags & 1)) {
		td_damage(td, NULL, -ENODATA, sec->offset,
			  "truncated: the buffer option of this CPU data was lost at the cut, and "
			  "uncompressed data cannot be told apart by CPU without it: not read");
		return 0;
	}
	for (pos = start; !cut;) {
		uint64_t q;
		uint32_t count, k;
		struct td_cpu *more;

		pos = (pos + ps - 1) & ~(uint64_t)(ps - 1);
		if (pos >= end || end - pos < 4)
			break;
		count = kt_load_u32(td->map + pos, td->hdr.big_endian);
		for (k = 0, q = pos + 4; k < count; k++) {
			uint32_t csize, usize;

			if (end - q < 8) {
				cut = true;
				break;
			}
			csize = kt_load_u32(td->map + q, td->hdr.big_endian);
			usize = kt_load_u32(td->map + q + 4, td->hdr.big_endian);
			if (!usize || usize > max_chunk || csize > end - q - 8) {
				cut = true;
				break;
			}
			q += 8 + (uint64_t)csize;
		}
		/* not a CPU's data: the walk ends */
		if (cut && !k)
			break;
		more = kt_realloc_array(cpus, n + 1, sizeof(*cpus));
		if (!more) {
			free(cpus);
			return oom(err);
		}
		cpus = more;
		memset(&cpus[n], 0, sizeof(cpus[n]));
		cpus[n].pub.cpu = n;
		cpus[n].pub.offset = pos;
		cpus[n].pub.size = q - pos;
		cpus[n].from = pos;
		cpus[n].size_at = pos;
		n++;
		pos = q;
	}
	if (!n) {
		td_damage(td, NULL, -ENODATA, sec->offset,
			  "truncated: the file ends in this buffer's CPU data, and the buffer option "
			  "after it is lost: no CPU's data found in it");
		return 0;
	}
	for (size_t k = 0; k < td->nbufs; k++)
		if (!td->bufs[k].pub.name[0]) {
			free(cpus);
			td_damage(td, NULL, -ENODATA, sec->offset,
				  "truncated: a buffer's CPU data whose buffer option was lost at the cut "
				  "(the name of an instance): not read");
			return 0;
		}
	ret = add_buffer(td, &b, err);
	if (ret) {
		free(cpus);
		return ret;
	}
	b->pub.name = "";
	b->pub.clock = td->top_clock;
	b->pub.offset = sec->offset;
	b->from = sec->offset;
	b->pub.page_size = ps;
	b->recovered = true;
	b->cpus = cpus;
	b->ncpus = n;
	b->pub.cpus = n;
	sure = td->has_cpucount && td->cpucount == n;
	td_damage(td, NULL, -ENODATA, sec->offset,
		  "truncated: the file ends in this buffer's CPU data, and the buffer option "
		  "after it is lost: %u CPU%s found walking the data, numbered in file order%s",
		  n, n == 1 ? "" : "s",
		  sure ? "" : " (a CPU without data leaves nothing: the numbers may be off)");
	return 0;
}

static int open_v7(struct tracedat *td, struct kt_cursor *c, struct td_secopts *so,
		   struct ktrace_error *err)
{
	size_t cap = 0;
	int ret;

	ret = walk_sections_v7(td, kt_cursor_offset(c), err);
	if (ret)
		return ret;
	for (size_t i = 0; i < td->nsections; i++) {
		uint32_t id = (uint32_t)(uintptr_t)td->sections[i].description;
		const char *s = string_at(td, id);

		td->sections[i].description = s ? s : "";
	}
	if (!td->hdr.options_offset)
		return ktrace_error_at(err, -EBADMSG, kt_cursor_offset(c) - 8,
				       "no options section");
	ret = parse_options_v7(td, so, err);
	if (ret)
		return ret;
	if (td->options_lost)
		find_metadata_sections(td, so);
	ret = metadata_section(td, so, TRACEDAT_OPT_HEADER_INFO, "headers", &cap, err);
	if (!ret)
		ret = metadata_section(td, so, TRACEDAT_OPT_FTRACE_EVENTS, "ftrace events", &cap,
				       err);
	if (!ret)
		ret = metadata_section(td, so, TRACEDAT_OPT_EVENT_FORMATS, "events format", &cap,
				       err);
	if (!ret)
		ret = metadata_section(td, so, TRACEDAT_OPT_KALLSYMS, "kallsyms", &cap, err);
	if (!ret)
		ret = metadata_section(td, so, TRACEDAT_OPT_PRINTK, "printk", &cap, err);
	if (!ret)
		ret = metadata_section(td, so, TRACEDAT_OPT_CMDLINES, "command lines", &cap, err);
	if (!ret)
		ret = file_section(td, so, TRACEDAT_OPT_BTF_FILE, &td->btf, "BTF", err);
	if (!ret)
		ret = file_section(td, so, TRACEDAT_OPT_MODULES_FILE, &td->modules, "modules", err);
	if (ret)
		return ret;
	/* trace-cmd and ktrace always write one (ktrace an empty one when it has no
	 * texts): without it, the sub-buffers are read as every kernel that trace-cmd 3
	 * records writes them (parse_kernel_long) */
	if (!so->present[TRACEDAT_OPT_HEADER_INFO]) {
		td->no_header_info = true;
		/* (a file cut before it: told as cut) */
		if (!td->cut && !td->options_lost)
			td_damage(td, NULL, -EBADMSG, td->hdr.options_offset,
				  "no header_page/header_event section in the options: sub-buffers "
				  "read in the layout of Linux 2.6.31 and later, with %u-byte longs",
				  td->hdr.long_size);
	}

	/* CPU data whose buffer option was lost at the cut */
	for (size_t i = 0; td->options_lost && i < td->nsections; i++) {
		bool known = false;

		if (td->sections[i].id != TRACEDAT_OPT_BUFFER)
			continue;
		for (size_t k = 0; k < td->nbufs && !known; k++)
			known = td->bufs[k].pub.offset == td->sections[i].offset;
		if (!known && (ret = recover_buffer_v7(td, i, err)) < 0)
			return ret;
	}
	/* The top buffer first. */
	for (size_t i = 1; i < td->nbufs; i++)
		if (!td->bufs[i].pub.name[0]) {
			struct td_buffer top = td->bufs[i];

			memmove(td->bufs + 1, td->bufs, i * sizeof(*td->bufs));
			td->bufs[0] = top;
			break;
		}
	for (size_t i = 0; i < td->nbufs; i++) {
		struct td_buffer *b = &td->bufs[i];

		ret = setup_buffer_v7(td, b, err);
		if (ret)
			return ret;
		if (!b->pub.name[0]) {
			unsigned int slots = 0;

			for (size_t k = 0; k < b->ncpus; k++)
				if (!b->cpus[k].bad_id && b->cpus[k].pub.cpu >= slots)
					slots = b->cpus[k].pub.cpu + 1;

			b->host_sync = true;
			if (slots > td->hdr.cpus)
				td->hdr.cpus = slots;
			if (!td->top_clock[0])
				snprintf(td->top_clock, sizeof(td->top_clock), "%s", b->pub.clock);
		}
	}
	if (td->has_cpucount && td->cpucount > td->hdr.cpus)
		td->hdr.cpus = td->cpucount;
	return 0;
}

static int tracedat_open_common(struct ktrace_input *in, bool owns, unsigned int flags,
				struct tracedat **out, struct ktrace_error *err)
{
	struct td_secopts so;
	struct tracedat *td;
	struct kt_cursor c;
	int ret;

	*out = NULL;
	/* trace.dat is read by offset: a pipe is copied to a temporary file first, when
	 * its first bytes can begin a trace.dat (/dev/zero is not copied without end) */
	if (!ktrace_input_is_mapped(in)) {
		const uint8_t *head;
		int64_t got = ktrace_input_peek(in, 0, sizeof(td_magic), &head, err);

		ret = got < 0 ? (int)got : 0;
		if (got > 0 && memcmp(head, td_magic, (size_t)got))
			ret = ktrace_error_at(err, -EBADMSG, 0, "not a trace.dat file (bad magic)");
		if (ret < 0) {
			if (owns)
				ktrace_input_close(in);
			return ret;
		}
	}
	if ((ret = ktrace_input_spool(in, err)) < 0 ||
	    (!ktrace_input_size(in) && (ret = ktrace_error_at(err, -ENODATA, 0, "empty file")) < 0)) {
		if (owns)
			ktrace_input_close(in);
		return ret;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		if (owns)
			ktrace_input_close(in);
		return oom(err);
	}
	td->in = in;
	td->owns_input = owns;
	td->release_pages = owns || (flags & TRACEDAT_MAPPED_FILE);
	td->map = ktrace_input_data(in);
	td->size = (uint64_t)ktrace_input_size(in);
	td->flags = flags;
	td->hdr.file_size = td->size;
	memset(&so, 0, sizeof(so));

	kt_cursor_init(&c, td->map, (size_t)td->size, 0, err);
	ret = parse_initial(td, &c);
	if (!ret)
		ret = td->hdr.version >= 7 ? open_v7(td, &c, &so, err)
					   : open_v6(td, &c, &so, err);
	if (!ret)
		ret = check_data(td, err);
	if (!ret)
		ret = parse_kernel_long(td, err);
	if (ret) {
		tracedat_close(td);
		return ret;
	}
	/* damage beyond one CPU's data (the metadata, the layout, a field the records are
	 * read or shown by): every iterator ends with it, as with lost records */
	if (td->ndamage > td->ncut)
		td->data_damaged = true;
	*out = td;
	return 0;
}

int tracedat_open_input(struct ktrace_input *in, unsigned int flags, struct tracedat **out,
			struct ktrace_error *err)
{
	return tracedat_open_common(in, false, flags, out, err);
}

int tracedat_open(const char *path, unsigned int flags, struct tracedat **out,
		  struct ktrace_error *err)
{
	struct ktrace_input *in;
	int ret = ktrace_input_open(path, &in, err);

	*out = NULL;
	if (ret)
		return ret;
	return tracedat_open_common(in, true, flags, out, err);
}

void tracedat_close(struct tracedat *td)
{
	if (!td)
		return;
	td_share_free(td);
	free(td->sections);
	for (size_t i = 0; i < td->nowned; i++)
		free_owned(td->owned[i].p, td->owned[i].big);
	free(td->owned);
	for (size_t i = 0; i < td->nbufs; i++)
		free(td->bufs[i].cpus);
	free(td->bufs);
	free(td->formats);
	free(td->systems);
	free(td->strings);
	free(td->opts);
	free(td->clock_text);
	if (td->tsync)
		for (size_t i = 0; i < td->tsync_cpus; i++)
			free(td->tsync[i].samples);
	free(td->tsync);
	for (size_t i = 0; i < td->nwarnings; i++)
		free(td->warnings[i]);
	free(td->damage);
	td_codec_fini(&td->codec);
	if (td->owns_input)
		ktrace_input_close(td->in);
	free(td);
}

/* ------------------------------------------------------------------ accessors */

const struct tracedat_header *tracedat_header(const struct tracedat *td)
{
	return &td->hdr;
}

const char *tracedat_name(const struct tracedat *td)
{
	return ktrace_input_name(td->in);
}

static int give_text(const struct td_text *t, const char **text, size_t *len)
{
	if (text)
		*text = t->data ? t->data : "";
	if (len)
		*len = t->len;
	return t->data ? 0 : -ENOENT;
}

int tracedat_header_page(const struct tracedat *td, const char **text, size_t *len)
{
	return give_text(&td->header_page, text, len);
}

int tracedat_header_event(const struct tracedat *td, const char **text, size_t *len)
{
	return give_text(&td->header_event, text, len);
}

size_t tracedat_ftrace_format_count(const struct tracedat *td)
{
	return td->nftrace;
}

int tracedat_ftrace_format(const struct tracedat *td, size_t i, const char **text, size_t *len)
{
	if (i >= td->nftrace)
		return -ENOENT;
	return give_text(&td->formats[i].text, text, len);
}

size_t tracedat_system_count(const struct tracedat *td)
{
	return td->nsystems;
}

const char *tracedat_system_name(const struct tracedat *td, size_t sys)
{
	return sys < td->nsystems ? td->systems[sys].name : NULL;
}

size_t tracedat_system_event_count(const struct tracedat *td, size_t sys)
{
	return sys < td->nsystems ? td->systems[sys].count : 0;
}

int tracedat_event_format(const struct tracedat *td, size_t sys, size_t i, const char **text,
			  size_t *len)
{
	if (sys >= td->nsystems || i >= td->systems[sys].count)
		return -ENOENT;
	return give_text(&td->formats[td->systems[sys].first + i].text, text, len);
}

/* Loads a lazy text (decompressing its section again when it was dropped). */
static int lazy_get(struct tracedat *td, struct td_lazy *lz, const char **text, size_t *len,
		    const char *what, struct ktrace_error *err)
{
	if (!lz->present) {
		if (text)
			*text = "";
		if (len)
			*len = 0;
		return -ENOENT;
	}
	if (!lz->loaded) {
		struct td_region r;
		struct kt_cursor c;
		int ret = load_section(td, lz->region.offset, lz->region.offset, lz->id, what, &r,
				       err);

		if (ret)
			return ret;
		cursor_over(td, &c, &r, err);
		ret = parse_lazy_text(&c, lz, lz->header_bytes, what);
		if (!ret && lz->text.len != lz->text_size)
			/* a whole section: its size was read from the compression header */
			ret = ktrace_error_at(err, -EBADMSG, r.offset, "%s section holds %zu bytes, "
					      "%" PRIu64 " announced", what, lz->text.len,
					      lz->text_size);
		if (!ret)
			ret = region_keep(td, &r, err);
		if (ret) {
			region_free(&r);
			return region_error(&r, ret, err);
		}
		lz->loaded = true;
	}
	return give_text(&lz->text, text, len);
}

int tracedat_kallsyms(struct tracedat *td, const char **text, size_t *len,
		      struct ktrace_error *err)
{
	return lazy_get(td, &td->kallsyms, text, len, "kallsyms", err);
}

int tracedat_printk_formats(struct tracedat *td, const char **text, size_t *len,
			    struct ktrace_error *err)
{
	return lazy_get(td, &td->printk, text, len, "printk", err);
}

int tracedat_cmdlines(struct tracedat *td, const char **text, size_t *len,
		      struct ktrace_error *err)
{
	return lazy_get(td, &td->cmdlines, text, len, "command lines", err);
}

int64_t tracedat_kallsyms_size(const struct tracedat *td)
{
	return td->kallsyms.present ? (int64_t)td->kallsyms.text_size : -1;
}

int64_t tracedat_printk_size(const struct tracedat *td)
{
	return td->printk.present ? (int64_t)td->printk.text_size : -1;
}

int64_t tracedat_cmdlines_size(const struct tracedat *td)
{
	return td->cmdlines.present ? (int64_t)td->cmdlines.text_size : -1;
}

int tracedat_btf(struct tracedat *td, const void **data, size_t *len, struct ktrace_error *err)
{
	const char *text;
	int ret = lazy_get(td, &td->btf, &text, len, "BTF", err);

	if (data)
		*data = text;
	return ret;
}

int tracedat_modules(struct tracedat *td, const char **text, size_t *len,
		     struct ktrace_error *err)
{
	return lazy_get(td, &td->modules, text, len, "modules", err);
}

int64_t tracedat_btf_size(const struct tracedat *td)
{
	return td->btf.present ? (int64_t)td->btf.text_size : -1;
}

int64_t tracedat_modules_size(const struct tracedat *td)
{
	return td->modules.present ? (int64_t)td->modules.text_size : -1;
}

size_t tracedat_option_count(const struct tracedat *td)
{
	return td->nopts;
}

const struct tracedat_option *tracedat_option(const struct tracedat *td, size_t i)
{
	return i < td->nopts ? &td->opts[i] : NULL;
}

const char *tracedat_option_name(unsigned int id)
{
	static const char *const names[] = {
		"DONE", "DATE", "CPUSTAT", "BUFFER", "TRACECLOCK", "UNAME", "HOOK", "OFFSET",
		"CPUCOUNT", "VERSION", "PROCMAPS", "TRACEID", "TIME_SHIFT", "GUEST", "TSC2NSEC",
		"STRINGS", "HEADER_INFO", "FTRACE_EVENTS", "EVENT_FORMATS", "KALLSYMS", "PRINTK",
		"CMDLINES", "BUFFER_TEXT", "BTF_FILE", "LAST_BOOT_INFO", "MODULES_FILE",
	};

	if (id == TRACEDAT_OPT_SAVED_TGIDS)
		return "SAVED_TGIDS";
	if (id == TRACEDAT_OPT_KTRACE_BTF)
		return "KTRACE_BTF";
	if (id == TRACEDAT_OPT_KTRACE_MODULES)
		return "KTRACE_MODULES";
	return id < sizeof(names) / sizeof(names[0]) ? names[id] : NULL;
}

const char *tracedat_uname(const struct tracedat *td)
{
	return td->uname;
}

const char *tracedat_tracer_version(const struct tracedat *td)
{
	return td->tracer_version;
}

const char *tracedat_clock(const struct tracedat *td)
{
	return td->top_clock[0] ? td->top_clock : NULL;
}

const char *tracedat_clock_text(const struct tracedat *td)
{
	return td->clock_text;
}

bool tracedat_trace_id(const struct tracedat *td, uint64_t *id)
{
	if (td->has_trace_id && id)
		*id = td->trace_id;
	return td->has_trace_id;
}

bool tracedat_tsc2nsec(const struct tracedat *td, uint32_t *mult, uint32_t *shift,
		       uint64_t *offset)
{
	if (td->has_tsc) {
		if (mult)
			*mult = td->tsc_mult;
		if (shift)
			*shift = td->tsc_shift;
		if (offset)
			*offset = td->tsc_offset;
	}
	return td->has_tsc;
}

int64_t tracedat_ts_offset(const struct tracedat *td)
{
	return td->ts_offset;
}

void tracedat_add_ts_offset(struct tracedat *td, int64_t offset)
{
	if (!(td->flags & TRACEDAT_RAW_TS))
		td->ts_offset = (int64_t)((uint64_t)td->ts_offset + (uint64_t)offset);
}

size_t tracedat_warning_count(const struct tracedat *td)
{
	return td->nwarnings;
}

const char *tracedat_warning(const struct tracedat *td, size_t i)
{
	return i < td->nwarnings ? td->warnings[i] : NULL;
}

size_t tracedat_damage_count(const struct tracedat *td)
{
	return td->ndamage < TD_MAX_DAMAGE ? td->ndamage : TD_MAX_DAMAGE;
}

const struct ktrace_error *tracedat_damage(const struct tracedat *td, size_t i)
{
	return i < tracedat_damage_count(td) ? &td->damage[i] : NULL;
}

size_t tracedat_buffer_count(const struct tracedat *td)
{
	return td->nbufs;
}

const struct tracedat_buffer *tracedat_buffer(const struct tracedat *td, size_t i)
{
	return i < td->nbufs ? &td->bufs[i].pub : NULL;
}

const struct tracedat_cpu *tracedat_buffer_cpu(const struct tracedat *td, size_t buffer,
					       size_t i)
{
	if (buffer >= td->nbufs || i >= td->bufs[buffer].ncpus)
		return NULL;
	return &td->bufs[buffer].cpus[i].pub;
}

int tracedat_find_buffer(const struct tracedat *td, const char *name)
{
	for (size_t i = 0; i < td->nbufs; i++)
		if (!strcmp(td->bufs[i].pub.name, name))
			return (int)i;
	return -1;
}

size_t tracedat_section_count(const struct tracedat *td)
{
	return td->nsections;
}

const struct tracedat_section *tracedat_section(const struct tracedat *td, size_t i)
{
	return i < td->nsections ? &td->sections[i] : NULL;
}

static bool tracedat_match(const uint8_t *p, size_t len)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	return len >= sizeof(magic) && !memcmp(p, magic, sizeof(magic));
}

const struct kt_detector kt_detector_tracedat = {
	KTRACE_FORMAT_TRACEDAT, "trace-cmd trace.dat", tracedat_match,
};
