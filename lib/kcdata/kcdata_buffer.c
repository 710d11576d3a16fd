// SPDX-License-Identifier: MIT
/*
 * Getting a plain kcdata buffer out of what a user hands us: raw kcdata, a gzip file,
 * base64 text (what libkdd's kdd tool accepts), a compressed kcdata buffer (begin
 * magic COMPRESSED, three uint64-with-description items kcd_c_type / kcd_c_totalout /
 * kcd_c_totalin, an empty item of the real begin type, then one zlib stream holding
 * the items), or a Darwin ktrace chunk (16-byte chunk header) around any of these.
 */
#include <ktrace/detect.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/detect_table.h"
#include "common/grow.h"
#include "kcdata/kcdata_int.h"

#define MAX_LAYERS 4

struct kcdata_buffer {
	uint8_t *owned;
	const uint8_t *data;
	size_t len;
	unsigned int wrapping;
};

const uint8_t *kcdata_buffer_data(const struct kcdata_buffer *b)
{
	return b->data;
}

size_t kcdata_buffer_size(const struct kcdata_buffer *b)
{
	return b->len;
}

uint32_t kcdata_buffer_begin_type(const struct kcdata_buffer *b)
{
	return b->len >= 4 ? kt_load_u32(b->data, false) : 0;
}

unsigned int kcdata_buffer_wrapping(const struct kcdata_buffer *b)
{
	return b->wrapping;
}

void kcdata_buffer_free(struct kcdata_buffer *b)
{
	if (b) {
		free(b->owned);
		free(b);
	}
}

/* ---- base64 ---- */

static int b64_value(uint8_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Decodes base64, skipping characters outside the alphabet and stopping at '='.
 * out must hold len * 3 / 4 + 3 bytes. Returns the decoded length. */
static size_t b64_decode(const uint8_t *in, size_t len, uint8_t *out)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t n = 0;

	for (size_t i = 0; i < len && in[i] != '='; i++) {
		int v = b64_value(in[i]);

		if (v < 0)
			continue;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return n;
}

/* Plausible base64 text: only alphabet, padding and white space, mostly alphabet. */
static bool looks_base64(const uint8_t *p, size_t len)
{
	size_t alpha = 0;

	if (len < 8)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (b64_value(p[i]) >= 0)
			alpha++;
		else if (p[i] != '=' && p[i] != '\n' && p[i] != '\r' && p[i] != ' ' && p[i] != '\t')
			return false;
	}
	return alpha >= 8;
}

/* ---- zlib ---- */

/* Inflates in[0..len) (format: 16 + MAX_WBITS for gzip, MAX_WBITS for zlib) into a
 * new buffer of at most max bytes. With stop_early, returns as soon as `max` bytes
 * are out (for sniffing). */
static int inflate_all(const uint8_t *in, size_t len, int wbits, size_t max, bool stop_early,
		       uint8_t **out, size_t *outlen, size_t *consumed, struct ktrace_error *err)
{
	z_stream zs;
	size_t cap = 0, n = 0;
	uint8_t *buf = NULL;
	int zr;

	*out = NULL;
	*outlen = 0;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, wbits) != Z_OK)
		return ktrace_error_set(err, -ENOMEM, "zlib initialisation failed");
	zs.next_in = (Bytef *)in;
	do {
		size_t chunk = len < (1u << 30) ? len : (1u << 30);

		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			uint8_t *nb;

			if (ncap > max + 1)
				ncap = max + 1;
			if (ncap <= cap) {
				inflateEnd(&zs);
				free(buf);
				return ktrace_error_set(err, -E2BIG,
							"decompressed data exceeds %zu bytes", max);
			}
			nb = kt_realloc_array(buf, ncap, 1);
			if (!nb) {
				inflateEnd(&zs);
				free(buf);
				return kt_error_oom(err);
			}
			buf = nb;
			cap = ncap;
		}
		zs.avail_in = (uInt)chunk;
		zs.next_out = buf + n;
		zs.avail_out = (uInt)(cap - n < (1u << 30) ? cap - n : (1u << 30));
		zr = inflate(&zs, Z_NO_FLUSH);
		n = (size_t)((uint8_t *)zs.next_out - buf);
		len -= chunk - zs.avail_in;
		if (stop_early && n >= max)
			break;
		if (zr == Z_BUF_ERROR && zs.avail_out > 0) {
			/* no progress possible: the input ended */
			inflateEnd(&zs);
			free(buf);
			return ktrace_error_set(err, -ENODATA, "compressed data is truncated");
		}
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			inflateEnd(&zs);
			free(buf);
			return ktrace_error_set(err, -EBADMSG, "corrupt compressed data (%s)",
						zs.msg ? zs.msg : "zlib error");
		}
		if (n > max) {
			inflateEnd(&zs);
			free(buf);
			return ktrace_error_set(err, -E2BIG, "decompressed data exceeds %zu bytes", max);
		}
	} while (zr != Z_STREAM_END);
	if (consumed)
		*consumed = (size_t)((const uint8_t *)zs.next_in - in);
	inflateEnd(&zs);
	*out = buf;
	*outlen = n;
	return 0;
}

/* ---- compressed kcdata ---- */

/* A uint64-with-description item named desc: its value. */
static bool desc_u64(const uint8_t *payload, uint32_t size, const char *desc, uint64_t *v)
{
	if (size < KCDATA_DESC_MAXLEN + 8 || strncmp((const char *)payload, desc, KCDATA_DESC_MAXLEN))
		return false;
	*v = kt_load_u64(payload + KCDATA_DESC_MAXLEN, false);
	return true;
}

static int decompress_kcdata(const uint8_t *p, size_t len, size_t max, uint8_t **out,
			     size_t *outlen, struct ktrace_error *err)
{
	uint64_t ctype = UINT64_MAX, totalout = UINT64_MAX, totalin = UINT64_MAX;
	size_t pos = 0, got;
	uint32_t inner = 0;
	uint8_t *raw, *buf;
	int ret;

	/* The COMPRESSED item, then header items up to the inner begin item. */
	for (;;) {
		uint32_t type, size;

		if (len - pos < KCDATA_HEADER_SIZE)
			return ktrace_error_at(err, -ENODATA, pos,
					       "compressed kcdata: header ends before the data");
		type = kt_load_u32(p + pos, false);
		size = kt_load_u32(p + pos + 4, false);
		if (size > len - pos - KCDATA_HEADER_SIZE)
			return ktrace_error_at(err, -ENODATA, pos,
					       "compressed kcdata: item size %u exceeds the buffer", size);
		if (pos > 0 && kcdata_is_begin_magic(type) && type != KCDATA_BUFFER_BEGIN_COMPRESSED) {
			inner = type;
			pos += KCDATA_HEADER_SIZE + size;
			break;
		}
		if (type == KCDATA_TYPE_UINT64_DESC) {
			const uint8_t *pl = p + pos + KCDATA_HEADER_SIZE;

			if (!desc_u64(pl, size, "kcd_c_type", &ctype) &&
			    !desc_u64(pl, size, "kcd_c_totalout", &totalout))
				desc_u64(pl, size, "kcd_c_totalin", &totalin);
		} else if (type == KCDATA_TYPE_BUFFER_END) {
			return ktrace_error_at(err, -EBADMSG, pos,
					       "compressed kcdata: no inner begin item");
		}
		pos += KCDATA_HEADER_SIZE + size;
	}
	if (ctype != 1)
		return ktrace_error_set(err, ctype == UINT64_MAX ? -EBADMSG : -ENOTSUP,
					ctype == UINT64_MAX ? "compressed kcdata: no kcd_c_type"
							    : "compressed kcdata: unsupported compression type %llu",
					(unsigned long long)ctype);
	if (totalin == UINT64_MAX || totalin > max - 2 * KCDATA_HEADER_SIZE)
		return ktrace_error_set(err, totalin == UINT64_MAX ? -EBADMSG : -E2BIG,
					"compressed kcdata: bad kcd_c_totalin %llu",
					(unsigned long long)totalin);
	if (totalout != UINT64_MAX && totalout < len - pos)
		len = pos + (size_t)totalout;
	ret = inflate_all(p + pos, len - pos, MAX_WBITS, (size_t)totalin, false, &raw, &got, NULL, err);
	if (ret) {
		if (err) {
			err->has_offset = 1;
			err->offset = pos;
		}
		return ret;
	}
	if (got != totalin) {
		free(raw);
		return ktrace_error_at(err, -EBADMSG, pos,
				       "compressed kcdata: %zu bytes decompressed, header says %llu",
				       got, (unsigned long long)totalin);
	}
	/* Rebuild a plain buffer: inner begin item, the items, BUFFER_END. */
	buf = malloc(got + 2 * KCDATA_HEADER_SIZE);
	if (!buf) {
		free(raw);
		return kt_error_oom(err);
	}
	memset(buf, 0, KCDATA_HEADER_SIZE);
	buf[0] = (uint8_t)inner;
	buf[1] = (uint8_t)(inner >> 8);
	buf[2] = (uint8_t)(inner >> 16);
	buf[3] = (uint8_t)(inner >> 24);
	if (got)
		memcpy(buf + KCDATA_HEADER_SIZE, raw, got);
	memset(buf + KCDATA_HEADER_SIZE + got, 0, KCDATA_HEADER_SIZE);
	{
		uint8_t *e = buf + KCDATA_HEADER_SIZE + got;
		uint32_t end = KCDATA_TYPE_BUFFER_END;

		e[0] = (uint8_t)end;
		e[1] = (uint8_t)(end >> 8);
		e[2] = (uint8_t)(end >> 16);
		e[3] = (uint8_t)(end >> 24);
	}
	free(raw);
	*out = buf;
	*outlen = got + 2 * KCDATA_HEADER_SIZE;
	return 0;
}

/* ---- layers ---- */

static bool is_gzip(const uint8_t *p, size_t len)
{
	return len >= 10 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8;
}

/* A Darwin ktrace chunk: tag, versions, u64 data size, then a kcdata begin magic. */
static bool is_chunk(const uint8_t *p, size_t len, bool need_all)
{
	uint64_t size;

	if (len < 2 * KCDATA_HEADER_SIZE)
		return false;
	size = kt_load_u64(p + 8, false);
	if (size < KCDATA_HEADER_SIZE || (need_all && size > len - KCDATA_HEADER_SIZE))
		return false;
	return kcdata_is_begin_magic(kt_load_u32(p + KCDATA_HEADER_SIZE, false));
}

int kcdata_buffer_open(const void *data, size_t len, struct kcdata_buffer **out,
		       struct ktrace_error *err)
{
	return kc_buffer_open_limited(data, len, KCDATA_MAX_BUFFER_SIZE, out, err);
}

int kc_buffer_open_limited(const void *data, size_t len, size_t max,
			   struct kcdata_buffer **out, struct ktrace_error *err)
{
	struct kcdata_buffer *b;
	const uint8_t *p = data;
	uint8_t *owned = NULL;
	unsigned int wrapping = 0;
	int ret = 0;

	*out = NULL;
	if (!p)
		len = 0;
	if (max < 64)
		max = 64;
	if (len > max)
		return ktrace_error_set(err, -E2BIG, "input of %zu bytes is too large for kcdata", len);
	for (int layer = 0;; layer++) {
		uint8_t *next = NULL;
		size_t nlen = 0;
		uint32_t magic = len >= 4 ? kt_load_u32(p, false) : 0;

		if (magic != KCDATA_BUFFER_BEGIN_COMPRESSED && kcdata_is_begin_magic(magic))
			break;
		if (layer == MAX_LAYERS) {
			ret = ktrace_error_set(err, -EBADMSG, "not kcdata (after %d layers of decoding)",
					       layer);
			break;
		}
		if (magic == KCDATA_BUFFER_BEGIN_COMPRESSED) {
			ret = decompress_kcdata(p, len, max, &next, &nlen, err);
			wrapping |= KCDATA_WRAP_COMPRESSED;
		} else if (is_chunk(p, len, true)) {
			p += KCDATA_HEADER_SIZE;
			len = (size_t)kt_load_u64(p - 8, false);
			wrapping |= KCDATA_WRAP_CHUNK;
			continue;
		} else if (is_gzip(p, len)) {
			ret = inflate_all(p, len, 16 + MAX_WBITS, max, false, &next, &nlen, NULL, err);
			wrapping |= KCDATA_WRAP_GZIP;
		} else if (looks_base64(p, len)) {
			next = malloc(len / 4 * 3 + 3);
			if (!next) {
				ret = kt_error_oom(err);
				break;
			}
			nlen = b64_decode(p, len, next);
			wrapping |= KCDATA_WRAP_BASE64;
		} else {
			ret = ktrace_error_set(err, -EBADMSG, len < 4 ? "not kcdata: too short"
							: "not kcdata: unknown begin magic 0x%08x", magic);
			break;
		}
		if (ret)
			break;
		free(owned);
		owned = next;
		p = next;
		len = nlen;
	}
	if (ret) {
		free(owned);
		return ret;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		free(owned);
		return kt_error_oom(err);
	}
	b->owned = owned;
	b->data = p;
	b->len = len;
	b->wrapping = wrapping;
	*out = b;
	return 0;
}

int kcdata_buffer_read(struct ktrace_input *in, struct kcdata_buffer **out,
		       struct ktrace_error *err)
{
	const uint8_t *data;
	size_t want = 1u << 20;
	int64_t got;
	uint8_t *copy;
	int ret;

	*out = NULL;
	if (ktrace_input_is_mapped(in))
		return kcdata_buffer_open(ktrace_input_data(in), (size_t)ktrace_input_size(in), out, err);
	/* A stream: grow the window until the input ends. */
	for (;;) {
		got = ktrace_input_peek(in, 0, want, &data, err);
		if (got < 0)
			return (int)got;
		if ((size_t)got < want)
			break;
		if (want > KCDATA_MAX_BUFFER_SIZE)
			return ktrace_error_set(err, -E2BIG, "input exceeds %u bytes",
						KCDATA_MAX_BUFFER_SIZE);
		/* one byte past the limit tells whether the input is too large */
		want = want * 2 > KCDATA_MAX_BUFFER_SIZE ? (size_t)KCDATA_MAX_BUFFER_SIZE + 1 : want * 2;
	}
	/* The window belongs to the input: the buffer gets its own copy. */
	copy = malloc(got ? (size_t)got : 1);
	if (!copy)
		return kt_error_oom(err);
	if (got)
		memcpy(copy, data, (size_t)got);
	ret = kcdata_buffer_open(copy, (size_t)got, out, err);
	if (ret) {
		free(copy);
		return ret;
	}
	if ((*out)->owned) {
		free(copy);   /* it decoded into a buffer of its own */
	} else {
		(*out)->owned = copy;
	}
	return 0;
}

/* ---- detection ---- */

bool kcdata_sniff(const void *head, size_t len)
{
	const uint8_t *p = head;
	uint8_t dec[96], *inflated = NULL;
	size_t n, ilen = 0;
	bool ok = false;

	if (len < KCDATA_HEADER_SIZE)
		return false;
	if (kcdata_is_begin_magic(kt_load_u32(p, false)))
		return true;
	if (is_chunk(p, len, false))
		return true;
	if (is_gzip(p, len)) {
		if (!inflate_all(p, len, 16 + MAX_WBITS, 64, true, &inflated, &ilen, NULL, NULL) ||
		    inflated) {
			ok = ilen >= 4 && (kcdata_is_begin_magic(kt_load_u32(inflated, false)) ||
					   is_chunk(inflated, ilen, false));
		}
		free(inflated);
		return ok;
	}
	n = len < 128 ? len : 128;
	if (looks_base64(p, n)) {
		size_t got = b64_decode(p, n, dec);

		if (got >= 4 && kcdata_is_begin_magic(kt_load_u32(dec, false)))
			return true;
		if (got >= 10 && dec[0] == 0x1f && dec[1] == 0x8b) {
			/* base64 of gzip: decode more of the head and inflate a little */
			size_t m = len < 65536 ? len : 65536;
			uint8_t *big = malloc(m / 4 * 3 + 3);

			if (big && looks_base64(p, m)) {
				size_t bl = b64_decode(p, m, big);

				if (!inflate_all(big, bl, 16 + MAX_WBITS, 64, true, &inflated, &ilen, NULL,
						 NULL) || inflated)
					ok = ilen >= 4 && kcdata_is_begin_magic(kt_load_u32(inflated, false));
			}
			free(inflated);
			free(big);
			return ok;
		}
	}
	return false;
}

/* A begin magic, or gzip / base64 / a Darwin chunk around one. */
static bool kcdata_match(const uint8_t *p, size_t len)
{
	return kcdata_sniff(p, len);
}

const struct kt_detector kt_detector_kcdata = { KTRACE_FORMAT_KCDATA, "kcdata", kcdata_match };
