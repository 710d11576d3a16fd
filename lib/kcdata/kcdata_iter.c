// SPDX-License-Identifier: MIT
/* The kcdata item iterator and libkdd's validity rules for single items. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/cursor.h"
#include "kcdata/kcdata_int.h"

struct kcdata_iter {
	const uint8_t *buf;
	size_t len;
	size_t pos;
};

int kcdata_iter_new(const void *buf, size_t len, struct kcdata_iter **out,
		    struct ktrace_error *err)
{
	struct kcdata_iter *it = calloc(1, sizeof(*it));

	*out = NULL;
	if (!it)
		return kt_error_oom(err);
	it->buf = buf;
	it->len = buf ? len : 0;
	*out = it;
	return 0;
}

void kcdata_iter_free(struct kcdata_iter *it)
{
	free(it);
}

uint64_t kcdata_iter_offset(const struct kcdata_iter *it)
{
	return it->pos;
}

int kcdata_iter_next(struct kcdata_iter *it, struct kcdata_item *item,
		     struct ktrace_error *err)
{
	size_t left = it->len - it->pos;
	const uint8_t *p = it->buf + it->pos;

	memset(item, 0, sizeof(*item));
	if (left < KCDATA_HEADER_SIZE)
		return ktrace_error_at(err, -ENODATA, it->pos,
				       left ? "truncated item header (%zu of 16 bytes)"
					    : "buffer ends without a BUFFER_END item", left);
	item->type = kt_load_u32(p, false);
	item->size = kt_load_u32(p + 4, false);
	item->flags = kt_load_u64(p + 8, false);
	item->offset = it->pos;
	item->payload = p + KCDATA_HEADER_SIZE;
	KT_RETURN_ERROR_AT_IF(item->size > left - KCDATA_HEADER_SIZE, err, -ENODATA, it->pos,
			      "item type 0x%x: size %u exceeds the %zu bytes left", item->type,
			      item->size, left - KCDATA_HEADER_SIZE);
	it->pos += KCDATA_HEADER_SIZE + (size_t)item->size;
	return item->type == KCDATA_TYPE_BUFFER_END ? 0 : 1;
}

uint32_t kcdata_item_type(const struct kcdata_item *item)
{
	if ((item->type & ~0xfu) == KCDATA_TYPE_ARRAY_PAD0)
		return KCDATA_TYPE_ARRAY;
	return item->type;
}

/* True when the item has the padded size of a structure that predates padding flags
 * and carries no padding information at all. */
static bool is_legacy_item(const struct kcdata_item *item, uint32_t legacy_size)
{
	uint32_t padded = (legacy_size + 15) & ~15u;

	return item->size == padded &&
	       !(item->flags & (KCDATA_FLAGS_PADDING_MASK | KCDATA_FLAGS_HAS_PADDING));
}

uint32_t kcdata_item_length(const struct kcdata_item *item)
{
	uint32_t pad = (uint32_t)(item->flags & KCDATA_FLAGS_PADDING_MASK);

	switch (kcdata_item_type(item)) {
	case KCDATA_TYPE_ARRAY:
	case KCDATA_TYPE_CONTAINER_BEGIN:
		return item->size;
	case KCDATA_STACKSHOT_THREAD_SNAPSHOT:
		if (is_legacy_item(item, 104))        /* thread_snapshot_v2 */
			return 104;
		break;
	case KCDATA_STACKSHOT_SHAREDCACHE_LOADINFO:
		if (is_legacy_item(item, 24))         /* dyld_uuid_info_64 */
			return 24;
		break;
	}
	return item->size < pad ? 0 : item->size - pad;
}

/* Element sizes of the legacy ARRAY form, which does not record its padding: only
 * these element types may use it. */
static uint32_t legacy_elem_size(uint32_t elem_type)
{
	switch (elem_type) {
	case KCDATA_TYPE_LIBRARY_LOADINFO: return 20;      /* u32 address + uuid */
	case KCDATA_TYPE_LIBRARY_LOADINFO64: return 24;    /* u64 address + uuid */
	case 0x90a: case 0x90c: return 8;                  /* 32-bit lr, sp */
	case 0x90b: case 0x90d: return 16;                 /* 64-bit lr, sp */
	case 0x907: return 4;                              /* donating pids */
	case 0x941: return 48;                             /* thread_delta_snapshot_v2 */
	case 0x81a: return 8;                              /* crashed thread id */
	}
	return 0;
}

int kcdata_item_array(const struct kcdata_item *item, struct kcdata_array *out,
		      struct ktrace_error *err)
{
	uint32_t count = (uint32_t)item->flags;
	uint32_t size = item->size;

	memset(out, 0, sizeof(*out));
	out->elem_type = (uint32_t)(item->flags >> 32);
	out->count = count;
	out->data = item->payload;
	if (kcdata_item_type(item) != KCDATA_TYPE_ARRAY)
		return ktrace_error_at(err, -EBADMSG, item->offset, "item type 0x%x is not an array",
				       item->type);
	if (count == 0) {
		KT_RETURN_ERROR_AT_IF(size != 0, err, -EBADMSG, item->offset,
				      "invalid array: no elements but %u bytes", size);
		return 0;
	}
	if (item->type == KCDATA_TYPE_ARRAY) {
		uint32_t es = legacy_elem_size(out->elem_type);

		if (!es)
			return ktrace_error_at(err, -EBADMSG, item->offset,
					       "invalid array: legacy array of type 0x%x has no known element size",
					       out->elem_type);
		KT_RETURN_ERROR_AT_IF(count > size / es || size % count >= 16, err, -EBADMSG,
				      item->offset,
				      "invalid array: %u elements of %u bytes do not fit %u bytes",
				      count, es, size);
		out->elem_size = es;
		return 0;
	}
	uint32_t pad = item->type & 0xf;

	KT_RETURN_ERROR_AT_IF(pad > size || count > size - pad || (size - pad) % count, err,
			      -EBADMSG, item->offset,
			      "invalid array: %u elements in %u bytes with %u bytes of padding",
			      count, size, pad);
	out->elem_size = (size - pad) / count;
	return 0;
}

int kcdata_item_container(const struct kcdata_item *item, uint32_t *container_type,
			  uint64_t *id, struct ktrace_error *err)
{
	*container_type = 0;
	*id = item->flags;
	if (item->type != KCDATA_TYPE_CONTAINER_BEGIN && item->type != KCDATA_TYPE_CONTAINER_END)
		return ktrace_error_at(err, -EBADMSG, item->offset,
				       "item type 0x%x is not a container marker", item->type);
	if (item->size >= 4)
		*container_type = kt_load_u32(item->payload, false);
	else if (item->type == KCDATA_TYPE_CONTAINER_BEGIN)
		return ktrace_error_at(err, -EBADMSG, item->offset,
				       "invalid container: begin item of %u bytes has no type",
				       item->size);
	return 0;
}

int kcdata_item_desc(const struct kcdata_item *item, const char **desc, const uint8_t **data,
		     uint32_t *data_len, struct ktrace_error *err)
{
	uint32_t len = kcdata_item_length(item);

	if (item->type < KCDATA_TYPE_STRING_DESC || item->type > KCDATA_TYPE_BINDATA_DESC)
		return ktrace_error_at(err, -EBADMSG, item->offset,
				       "item type 0x%x carries no description", item->type);
	if (len < KCDATA_DESC_MAXLEN || item->payload[KCDATA_DESC_MAXLEN - 1] != 0)
		return ktrace_error_at(err, -EBADMSG, item->offset,
				       "invalid description item: %u bytes, description %s", len,
				       len < KCDATA_DESC_MAXLEN ? "truncated" : "not terminated");
	*desc = (const char *)item->payload;
	*data = item->payload + KCDATA_DESC_MAXLEN;
	*data_len = len - KCDATA_DESC_MAXLEN;
	return 0;
}

bool kcdata_is_begin_magic(uint32_t type)
{
	return kcdata_begin_name(type) != NULL;
}

const char *kcdata_begin_name(uint32_t type)
{
	switch (type) {
	case KCDATA_BUFFER_BEGIN_STACKSHOT: return "stackshot";
	case KCDATA_BUFFER_BEGIN_DELTA_STACKSHOT: return "delta stackshot";
	case KCDATA_BUFFER_BEGIN_CRASHINFO: return "crash info";
	case KCDATA_BUFFER_BEGIN_OS_REASON: return "exit reason";
	case KCDATA_BUFFER_BEGIN_XNUPOST_CONFIG: return "xnupost test config";
	case KCDATA_BUFFER_BEGIN_BTINFO: return "backtrace info";
	case KCDATA_BUFFER_BEGIN_COMPRESSED: return "compressed";
	}
	return NULL;
}

const char *kcdata_root_key(uint32_t type)
{
	switch (type) {
	case KCDATA_BUFFER_BEGIN_STACKSHOT: return "kcdata_stackshot";
	case KCDATA_BUFFER_BEGIN_DELTA_STACKSHOT: return "kcdata_delta_stackshot";
	case KCDATA_BUFFER_BEGIN_CRASHINFO: return "kcdata_crashinfo";
	case KCDATA_BUFFER_BEGIN_OS_REASON: return "kcdata_reason";
	case KCDATA_BUFFER_BEGIN_XNUPOST_CONFIG: return "xnupost_testconfig";
	case KCDATA_BUFFER_BEGIN_BTINFO: return "kcdata_btinfo";
	}
	return NULL;
}
