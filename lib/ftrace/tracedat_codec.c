// SPDX-License-Identifier: MIT
/* Decompression of trace.dat blocks: zstd frames or zlib streams, one block at a time
 * into a buffer of the size the block header announces. */
#include <errno.h>
#include <limits.h>

#include <zlib.h>
#include <zstd.h>

#include "ftrace/tracedat_int.h"

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

int td_decompress(struct td_codec *c, const void *src, size_t slen, void *dst, size_t dlen)
{
	switch (c->kind) {
	case TD_CODEC_ZSTD: {
		size_t r = ZSTD_decompressDCtx(c->zstd, dst, dlen, src, slen);

		if (ZSTD_isError(r) || r != dlen)
			return -EBADMSG;
		return 0;
	}
	case TD_CODEC_ZLIB: {
		uLongf out = (uLongf)dlen;

		if (slen > ULONG_MAX || dlen > ULONG_MAX)
			return -EOVERFLOW;
		if (uncompress(dst, &out, src, (uLong)slen) != Z_OK || out != dlen)
			return -EBADMSG;
		return 0;
	}
	case TD_CODEC_NONE:
		break;
	}
	return -EINVAL;
}
