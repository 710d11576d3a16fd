// SPDX-License-Identifier: MIT
/*
 * Decompression of trace.dat blocks: zstd frames or zlib streams, one block at a time.
 *
 * A block header announces the uncompressed size, but that number is not trusted
 * with memory: the output buffer grows with what the compressed bytes really produce
 * (doubling, capped at the announced size), so a few corrupt bytes cannot make the
 * reader allocate gigabytes. A block must produce exactly the announced size.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include <zlib.h>
#include <zstd.h>

#include "tracedat/tracedat_int.h"
#include "common/bigmem.h"
#include "common/grow.h"

/* Decompression buffers made resident at once up to this size (chunks of 10 pages). */
#define TD_POPULATE_MAX ((size_t)1 << 20)

/* First output allocation when the announced size is not yet backed by output. */

int td_codec_init(struct td_codec *c, enum td_codec_kind kind)
{
	c->kind = kind;
	c->zstd = NULL;
	if (kind == TD_CODEC_ZSTD) {
		c->zstd = ZSTD_createDCtx();
		if (!c->zstd)
			return -ENOMEM;
	}
	return 0;
}

void td_codec_fini(struct td_codec *c)
{
	if (c->zstd)
		ZSTD_freeDCtx(c->zstd);
	c->zstd = NULL;
}

static int zstd_grow(struct td_codec *c, const void *src, size_t slen, uint8_t **buf,
		     size_t *cap, size_t want)
{
	ZSTD_inBuffer in = { src, slen, 0 };
	ZSTD_outBuffer out = { NULL, 0, 0 };
	size_t r;

	ZSTD_DCtx_reset(c->zstd, ZSTD_reset_session_only);
	while (out.pos < want) {
		size_t before_in = in.pos, before_out = out.pos;

		if (out.pos == *cap && kt_grow((void **)buf, cap, out.pos + 1, 1))
			return -ENOMEM;
		out.dst = *buf;
		out.size = *cap < want ? *cap : want;
		r = ZSTD_decompressStream(c->zstd, &out, &in);
		if (ZSTD_isError(r))
			return -EBADMSG;
		if (r == 0 && in.pos == in.size)
			return out.pos == want ? 0 : -EBADMSG;   /* ended short */
		if (in.pos == before_in && out.pos == before_out && out.pos < out.size)
			return -EBADMSG;                         /* needs input that is not there */
	}
	/* want bytes are out: the data must end here, producing nothing more */
	for (;;) {
		uint8_t extra;
		ZSTD_outBuffer probe = { &extra, 1, 0 };
		size_t before_in = in.pos;

		r = ZSTD_decompressStream(c->zstd, &probe, &in);
		if (ZSTD_isError(r) || probe.pos)
			return -EBADMSG;
		if (r == 0 && in.pos == in.size)
			return 0;
		if (in.pos == before_in)
			return -EBADMSG;
	}
}

static int zlib_grow(const void *src, size_t slen, uint8_t **buf, size_t *cap, size_t want)
{
	z_stream z = { 0 };
	int ret, zr = Z_OK;

	if (slen > UINT_MAX)
		return -EOVERFLOW;
	if (inflateInit(&z) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)src;
	z.avail_in = (uInt)slen;
	ret = -EBADMSG;
	for (;;) {
		size_t done = z.total_out;

		if (done == *cap && *cap < want && kt_grow((void **)buf, cap, done + 1, 1)) {
			ret = -ENOMEM;
			break;
		}
		if (done == want) {
			/* all wanted bytes are out: the stream must end here */
			uint8_t extra;

			z.next_out = &extra;
			z.avail_out = 1;
			zr = inflate(&z, Z_FINISH);
			ret = zr == Z_STREAM_END && z.total_out == want ? 0 : -EBADMSG;
			break;
		}
		z.next_out = *buf + done;
		z.avail_out = (uInt)(((*cap < want ? *cap : want) - done) > UINT_MAX
				     ? UINT_MAX : (*cap < want ? *cap : want) - done);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END) {
			ret = z.total_out == want ? 0 : -EBADMSG;
			break;
		}
		if (zr != Z_OK && !(zr == Z_BUF_ERROR && z.avail_out == 0))
			break;
		if (z.total_out == done && z.avail_in == 0)
			break;                           /* no progress and no input: truncated */
	}
	inflateEnd(&z);
	return ret;
}

int td_decompress_grow(struct td_codec *c, const void *src, size_t slen, uint8_t **buf,
		       size_t *cap, size_t want)
{
	if (!want)
		return 0;
	/* a plausible announced size is allocated at once: one pass straight into it, no
	 * copies */
	if (*cap < want && td_size_plausible(slen, want)) {
		size_t old = *cap;

		if (kt_grow((void **)buf, cap, want, 1))
			return -ENOMEM;
		/* written in full right away: resident in one call, not a fault per page; only
		 * a chunk's worth: an announced size is plausible, not proven, and damaged data
		 * stops the decompression early, before touching the rest */
		if (want - old <= TD_POPULATE_MAX)
			kt_populate(*buf + old, want - old);
	}
	switch (c->kind) {
	case TD_CODEC_ZSTD:
		if (*cap >= want) {
			/* the buffer is already there: one call */
			size_t r = ZSTD_decompressDCtx(c->zstd, *buf, want, src, slen);

			return !ZSTD_isError(r) && r == want ? 0 : -EBADMSG;
		}
		return zstd_grow(c, src, slen, buf, cap, want);
	case TD_CODEC_ZLIB:
		if (*cap >= want) {
			uLongf out = (uLongf)want;

			if (slen > ULONG_MAX || want > ULONG_MAX)
				return -EOVERFLOW;
			return uncompress(*buf, &out, src, (uLong)slen) == Z_OK && out == want
			       ? 0 : -EBADMSG;
		}
		return zlib_grow(src, slen, buf, cap, want);
	case TD_CODEC_NONE:
		break;
	}
	return -EINVAL;
}
