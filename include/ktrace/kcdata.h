/* SPDX-License-Identifier: MIT */
/*
 * kcdata: Apple's "kernel chunked data" buffers (stackshots, corpse crash info, exit
 * reasons, backtrace info, XNU POST test configurations).
 *
 * A buffer is a sequence of items, each a 16-byte header (u32 type, u32 size, u64
 * flags) followed by `size` payload bytes; the next item follows immediately. It
 * starts with a begin-magic item and ends with a BUFFER_END item.
 *
 * This header offers four layers:
 *   - buffers: reading raw, gzip'd, base64-encoded, zlib-compressed (COMPRESSED begin
 *     magic) kcdata or a Darwin ktrace chunk holding it, into one plain buffer;
 *   - an iterator over the items of a plain buffer, with libkdd's validity rules for
 *     items, arrays, containers and data-with-description items;
 *   - a decoder into a tree (dictionaries, arrays, integers, strings) that follows
 *     libkdd's rules, so that the tree equals what libkdd's `kdd` tool prints;
 *   - a writer that builds buffers (optionally zlib-compressed).
 *
 * All readers treat the data as untrusted: every size is checked, nothing reads
 * outside the buffer, and corrupt data gives a negative error code with a message and
 * offset in the struct ktrace_error. Multi-byte fields are little-endian.
 */
#ifndef KTRACE_KCDATA_H
#define KTRACE_KCDATA_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/input.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Constants (values from xnu's kcdata.h) ---------------------------------- */

/* Begin magics: the type of a buffer's first item. */
#define KCDATA_BUFFER_BEGIN_STACKSHOT       0x59a25807u
#define KCDATA_BUFFER_BEGIN_DELTA_STACKSHOT 0xde17a59au
#define KCDATA_BUFFER_BEGIN_CRASHINFO       0xdeadf157u
#define KCDATA_BUFFER_BEGIN_OS_REASON       0x53a20900u
#define KCDATA_BUFFER_BEGIN_XNUPOST_CONFIG  0x1e21c09fu
#define KCDATA_BUFFER_BEGIN_BTINFO          0x46414e47u
#define KCDATA_BUFFER_BEGIN_COMPRESSED      0x434f4d50u
#define KCDATA_TYPE_BUFFER_END              0xf19158edu

/* Basic item types. */
#define KCDATA_TYPE_INVALID          0x00u
#define KCDATA_TYPE_STRING_DESC      0x01u
#define KCDATA_TYPE_UINT32_DESC      0x02u
#define KCDATA_TYPE_UINT64_DESC      0x03u
#define KCDATA_TYPE_INT32_DESC       0x04u
#define KCDATA_TYPE_INT64_DESC       0x05u
#define KCDATA_TYPE_BINDATA_DESC     0x06u
#define KCDATA_TYPE_ARRAY            0x11u   /* legacy array: element size from the type */
#define KCDATA_TYPE_TYPEDEFINITION   0x12u   /* spelled TYPEDEFINTION in xnu */
#define KCDATA_TYPE_CONTAINER_BEGIN  0x13u
#define KCDATA_TYPE_CONTAINER_END    0x14u
#define KCDATA_TYPE_ARRAY_PAD0       0x20u   /* ..0x2f: array with (type & 0xf) pad bytes */
#define KCDATA_TYPE_LIBRARY_LOADINFO   0x30u
#define KCDATA_TYPE_LIBRARY_LOADINFO64 0x31u
#define KCDATA_TYPE_TIMEBASE           0x32u
#define KCDATA_TYPE_MACH_ABSOLUTE_TIME 0x33u
#define KCDATA_TYPE_TIMEVAL            0x34u
#define KCDATA_TYPE_USECS_SINCE_EPOCH  0x35u
#define KCDATA_TYPE_PID                0x36u
#define KCDATA_TYPE_PROCNAME           0x37u
#define KCDATA_TYPE_NESTED_KCDATA      0x38u
#define KCDATA_TYPE_LIBRARY_AOTINFO    0x39u

/* Stackshot types used by the special size rules and by callers. */
#define KCDATA_STACKSHOT_THREAD_SNAPSHOT      0x906u
#define KCDATA_STACKSHOT_SHAREDCACHE_LOADINFO 0x908u
#define KCDATA_CONTAINER_TASK                 0x903u
#define KCDATA_CONTAINER_THREAD               0x904u

#define KCDATA_DESC_MAXLEN 32          /* description field, NUL included */
#define KCDATA_HEADER_SIZE 16
#define KCDATA_FLAGS_PADDING_MASK 0xfu
#define KCDATA_FLAGS_HAS_PADDING  0x80u

/* Subtype descriptors of type definitions (struct kcdata_subtype_descriptor). */
enum kcdata_subtype {
	KCDATA_ST_CHAR = 1, KCDATA_ST_INT8, KCDATA_ST_UINT8, KCDATA_ST_INT16, KCDATA_ST_UINT16,
	KCDATA_ST_INT32, KCDATA_ST_UINT32, KCDATA_ST_INT64, KCDATA_ST_UINT64,
};
#define KCDATA_SUBTYPE_FLAG_ARRAY  0x1u
#define KCDATA_SUBTYPE_FLAG_STRUCT 0x2u
#define KCDATA_SUBTYPE_FLAG_MERGE  0x4u
#define KCDATA_SUBTYPE_DESC_SIZE   40   /* u8 flags, u8 type, u16 offset, u32 size, name[32] */
#define KCDATA_TYPEDEF_HEADER_SIZE 40   /* u32 type id, u32 field count, name[32] */

/* Largest buffer (raw, or after decompression) the readers accept. */
#define KCDATA_MAX_BUFFER_SIZE (1024u * 1024u * 1024u)

/* ---- Buffers: unwrapping gzip, base64, compression, Darwin chunks ------------- */

/* How the bytes given to kcdata_buffer_open were wrapped (bit set). */
enum {
	KCDATA_WRAP_GZIP       = 1u << 0,  /* gzip file (as libkdd's kdd accepts) */
	KCDATA_WRAP_BASE64     = 1u << 1,  /* base64 text, unknown characters ignored */
	KCDATA_WRAP_COMPRESSED = 1u << 2,  /* KCDATA_BUFFER_BEGIN_COMPRESSED + zlib stream */
	KCDATA_WRAP_CHUNK      = 1u << 3,  /* a Darwin ktrace chunk header in front */
};

struct kcdata_buffer;

/*
 * Makes a plain kcdata buffer from data: as is when it starts with a begin magic,
 * otherwise after removing up to four layers of wrapping (base64, gzip, a Darwin
 * chunk header, kcdata compression). The data is copied only when a layer had to be
 * decoded; otherwise the buffer points into data, which must then outlive it.
 * Returns 0, or -EBADMSG (not kcdata), -ENODATA (truncated), -E2BIG (over
 * KCDATA_MAX_BUFFER_SIZE), -ENOTSUP (unknown compression), -ENOMEM.
 */
KTRACE_API int kcdata_buffer_open(const void *data, size_t len, struct kcdata_buffer **out,
		       struct ktrace_error *err);
/* Reads all of an input (file or pipe, up to KCDATA_MAX_BUFFER_SIZE) and opens it. */
KTRACE_API int kcdata_buffer_read(struct ktrace_input *in, struct kcdata_buffer **out,
		       struct ktrace_error *err);
KTRACE_API const uint8_t *kcdata_buffer_data(const struct kcdata_buffer *b);
KTRACE_API size_t kcdata_buffer_size(const struct kcdata_buffer *b);
/* The begin magic of the plain buffer (never KCDATA_BUFFER_BEGIN_COMPRESSED). */
KTRACE_API uint32_t kcdata_buffer_begin_type(const struct kcdata_buffer *b);
/* KCDATA_WRAP_* bits of the layers that were removed. */
KTRACE_API unsigned int kcdata_buffer_wrapping(const struct kcdata_buffer *b);
KTRACE_API void kcdata_buffer_free(struct kcdata_buffer *b);

/* True when head (the first len bytes of an input) looks like kcdata in any of the
 * forms kcdata_buffer_open accepts. Used by format detection. */
KTRACE_API bool kcdata_sniff(const void *head, size_t len);
/* "stackshot", "delta stackshot", "crash info", "exit reason", "xnupost test config",
 * "backtrace info", "compressed", or NULL. */
KTRACE_API const char *kcdata_begin_name(uint32_t type);
/* The decoder's root key: "kcdata_stackshot", "kcdata_crashinfo", ... or NULL. */
KTRACE_API const char *kcdata_root_key(uint32_t type);

/* ---- Iterator ---------------------------------------------------------------- */

struct kcdata_item {
	uint32_t type;            /* as stored (0x20..0x2f for padded arrays) */
	uint32_t size;            /* as stored */
	uint64_t flags;
	uint64_t offset;          /* of the item header, from the start of the buffer */
	const uint8_t *payload;   /* size bytes, all inside the buffer */
};

struct kcdata_iter;

/* An iterator over buf[0..len), positioned before the first item. */
KTRACE_API int kcdata_iter_new(const void *buf, size_t len, struct kcdata_iter **out,
		    struct ktrace_error *err);
/*
 * Reads the next item. Returns 1 with *item filled, 0 once BUFFER_END has been read
 * (item then describes the end item), -ENODATA when the buffer ends before an item's
 * header or payload does (the iterator then stays at that item). Never moves
 * backwards; each call either fails or advances by at least 16 bytes.
 */
KTRACE_API int kcdata_iter_next(struct kcdata_iter *it, struct kcdata_item *item, struct ktrace_error *err);
/* Offset of the next item header. */
KTRACE_API uint64_t kcdata_iter_offset(const struct kcdata_iter *it);
KTRACE_API void kcdata_iter_free(struct kcdata_iter *it);

/* The item's type with every ARRAY_PADx folded into KCDATA_TYPE_ARRAY. */
KTRACE_API uint32_t kcdata_item_type(const struct kcdata_item *item);
/*
 * The payload length libkdd uses: size minus the padding in flags & 0xf (0 when the
 * padding exceeds the size), the raw size for arrays and container begins, and the
 * legacy sizes of THREAD_SNAPSHOT (104) and SHAREDCACHE_LOADINFO (24) when such an
 * item has the padded legacy size and no padding flags.
 */
KTRACE_API uint32_t kcdata_item_length(const struct kcdata_item *item);

struct kcdata_array {
	uint32_t elem_type;
	uint32_t count;
	uint32_t elem_size;
	const uint8_t *data;      /* count * elem_size bytes */
};
/* Validates an array item with libkdd's rules (legacy arrays only for the element
 * types libkdd knows the size of). 0 or -EBADMSG. */
KTRACE_API int kcdata_item_array(const struct kcdata_item *item, struct kcdata_array *out,
		      struct ktrace_error *err);
/* A CONTAINER_BEGIN (or CONTAINER_END) item: the container type from the payload (0
 * when an END has none) and the id from the flags. 0 or -EBADMSG. */
KTRACE_API int kcdata_item_container(const struct kcdata_item *item, uint32_t *container_type,
			  uint64_t *id, struct ktrace_error *err);
/* A data-with-description item (types 1..6): desc is the NUL-terminated 32-byte
 * description, data/data_len what follows it. 0 or -EBADMSG. */
KTRACE_API int kcdata_item_desc(const struct kcdata_item *item, const char **desc, const uint8_t **data,
		     uint32_t *data_len, struct ktrace_error *err);

/* ---- Known types ------------------------------------------------------------- */

/* The name libkdd gives a known item type ("task_snapshot", "dyld_load_info",
 * "task_snapshots" for containers...), or NULL for an unknown type. */
KTRACE_API const char *kcdata_type_name(uint32_t type);

/* ---- Decoding into a tree ---------------------------------------------------- */

enum kcdata_node_kind {
	KCDATA_NODE_DICT = 1,
	KCDATA_NODE_ARRAY,
	KCDATA_NODE_INT,
	KCDATA_NODE_STRING,
};

struct kcdata_node;

/*
 * Decodes a plain buffer (see kcdata_buffer_open) into a tree shaped like libkdd's:
 * a dictionary with one key named after the begin magic ("kcdata_stackshot", ...)
 * holding every item by its type's name, containers as
 * parent[<container type name>][<decimal id>], arrays as arrays, nested buffers
 * merged in. Items libkdd rejects (repeated keys other than two arrays, repeated
 * container ids, unmatched container ends, a missing BUFFER_END, invalid items or
 * arrays) make it fail with -EBADMSG and the offset of the culprit; -E2BIG when the
 * tree would exceed about four nodes per input byte (possible only through in-buffer
 * type definitions).
 */
KTRACE_API int kcdata_decode(const void *buf, size_t len, struct kcdata_node **out, struct ktrace_error *err);
/* The same, but when the buffer fails to decode *out holds the tree of what was
 * decoded before the error (the items and containers read so far, a container cut
 * short with what it held), or NULL when nothing was; the return is still the error.
 * For printing the readable part of a truncated or damaged buffer. */
KTRACE_API int kcdata_decode_partial(const void *buf, size_t len, struct kcdata_node **out,
				     struct ktrace_error *err);
/* Frees a tree returned by kcdata_decode; the tree's other nodes belong to it (and
 * freeing one of them does nothing). */
KTRACE_API void kcdata_node_free(struct kcdata_node *root);

KTRACE_API enum kcdata_node_kind kcdata_node_kind(const struct kcdata_node *node);
/* Entries of a dictionary or elements of an array (0 for scalars). */
KTRACE_API size_t kcdata_node_count(const struct kcdata_node *node);
/* The i-th child of a dictionary (in insertion order) or array; NULL past the end. */
KTRACE_API const struct kcdata_node *kcdata_node_at(const struct kcdata_node *node, size_t i);
/* The i-th key of a dictionary; NULL past the end or for other kinds. */
KTRACE_API const char *kcdata_node_key(const struct kcdata_node *node, size_t i);
/* A dictionary's value for key, or NULL. */
KTRACE_API const struct kcdata_node *kcdata_node_get(const struct kcdata_node *node, const char *key);
/* Follows a dotted path of dictionary keys ("kcdata_crashinfo.pid"), or NULL. */
KTRACE_API const struct kcdata_node *kcdata_node_path(const struct kcdata_node *node, const char *path);
/* Integers: the value as stored (two's complement when signed) and whether it came
 * from a signed field with a negative value. */
KTRACE_API uint64_t kcdata_node_uint(const struct kcdata_node *node);
KTRACE_API int64_t kcdata_node_int(const struct kcdata_node *node);
KTRACE_API bool kcdata_node_is_negative(const struct kcdata_node *node);
/* Strings: bytes as found in the data (not necessarily UTF-8), NUL-terminated. */
KTRACE_API const char *kcdata_node_string(const struct kcdata_node *node, size_t *len);

/* ---- Writer ------------------------------------------------------------------ */

struct kcdata_writer;

enum {
	KCDATA_WRITER_COMPRESS = 1u << 0,  /* zlib-compress everything after the header */
};

/* One field of a type definition (kcdata_writer_add_typedef). */
struct kcdata_field {
	const char *name;         /* at most 31 bytes */
	enum kcdata_subtype type;
	uint16_t offset;
	uint16_t count;           /* > 1 makes an array field */
	uint8_t flags;            /* KCDATA_SUBTYPE_FLAG_STRUCT / _MERGE (ARRAY is implied) */
};

/* A writer for a buffer with the given begin magic (not COMPRESSED or BUFFER_END). */
KTRACE_API int kcdata_writer_new(uint32_t begin_type, unsigned int flags, struct kcdata_writer **out,
		      struct ktrace_error *err);
KTRACE_API void kcdata_writer_free(struct kcdata_writer *w);

/* A typed item: payload padded to 16 bytes, padding recorded in the flags. */
KTRACE_API int kcdata_writer_add_item(struct kcdata_writer *w, uint32_t type, const void *data,
			   uint32_t size, struct ktrace_error *err);
/* Data with a description (desc at most 31 bytes). */
KTRACE_API int kcdata_writer_add_uint32(struct kcdata_writer *w, const char *desc, uint32_t v,
			     struct ktrace_error *err);
KTRACE_API int kcdata_writer_add_uint64(struct kcdata_writer *w, const char *desc, uint64_t v,
			     struct ktrace_error *err);
KTRACE_API int kcdata_writer_add_int32(struct kcdata_writer *w, const char *desc, int32_t v,
			    struct ktrace_error *err);
KTRACE_API int kcdata_writer_add_int64(struct kcdata_writer *w, const char *desc, int64_t v,
			    struct ktrace_error *err);
KTRACE_API int kcdata_writer_add_string(struct kcdata_writer *w, const char *desc, const char *s,
			     struct ktrace_error *err);
KTRACE_API int kcdata_writer_add_bindata(struct kcdata_writer *w, const char *desc, const void *data,
			      uint32_t size, struct ktrace_error *err);
/* An array of count elements of elem_size bytes (ARRAY_PADx form). */
KTRACE_API int kcdata_writer_add_array(struct kcdata_writer *w, uint32_t elem_type, uint32_t elem_size,
			    uint32_t count, const void *data, struct ktrace_error *err);
/* Container markers; ends must match the innermost open begin (type and id). */
KTRACE_API int kcdata_writer_begin_container(struct kcdata_writer *w, uint32_t container_type,
				  uint64_t id, struct ktrace_error *err);
KTRACE_API int kcdata_writer_end_container(struct kcdata_writer *w, uint32_t container_type,
				uint64_t id, struct ktrace_error *err);
/* A type definition describing items of type_id. */
KTRACE_API int kcdata_writer_add_typedef(struct kcdata_writer *w, uint32_t type_id, const char *name,
			      const struct kcdata_field *fields, uint32_t nfields,
			      struct ktrace_error *err);
/* A complete buffer (e.g. from another writer) as a NESTED_KCDATA item. */
KTRACE_API int kcdata_writer_add_nested(struct kcdata_writer *w, const void *buf, size_t len,
			     struct ktrace_error *err);
/*
 * Appends BUFFER_END (compressing first when asked) and returns the buffer, valid
 * until the writer is freed; nothing may be added afterwards. Fails with -EINVAL
 * while a container is still open.
 */
KTRACE_API int kcdata_writer_finish(struct kcdata_writer *w, const uint8_t **buf, size_t *len,
			 struct ktrace_error *err);
/* kcdata_writer_finish, then writes the buffer to path through a temporary file in
 * the same directory renamed into place. */
KTRACE_API int kcdata_writer_write_file(struct kcdata_writer *w, const char *path, struct ktrace_error *err);

#ifdef __cplusplus
}
#endif
#endif
