/* SPDX-License-Identifier: MIT */
/*
 * Darwin ktrace files (ktrace(5)): the V3 chunked container.
 *
 * A file is a 56-byte header (magic, major/minor version, header size, timebase,
 * start timestamp, wall time, time zone, flags), then header chunks, then body
 * chunks. Every chunk is a 16-byte chunk header (u32 tag, u16 major, u16 minor,
 * u64 data size) followed by its data and by padding up to the next multiple of 8.
 * The header size counts everything after the first 16 bytes of the file up to the
 * first body chunk, header chunks included.
 *
 * Two flavours share this layout:
 *   - libktrace files begin with the magic 0x55aa0300;
 *   - files written by the kernel begin with the tag 0x00001000 (RAW_VERSION3) and a
 *     u32 "sub tag" in place of major/minor (read here as major = low 16 bits, minor =
 *     high 16 bits).
 * Events chunks (tag 0x1e00) start with a u64 timestamp; libktrace and older kernels
 * count those 8 bytes in the chunk size (size % sizeof(kd_buf) == 8), newer kernels do
 * not (size % sizeof(kd_buf) == 0). The iterator accepts both and reports the real
 * extent of the data in `data_size`.
 *
 * Everything read from the file is bounds-checked; errors carry the file offset.
 */
#ifndef KTRACE_KTRACE_FILE_H
#define KTRACE_KTRACE_FILE_H

#include <ktrace/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/input.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KTRACE_FILE_MAGIC          0x55aa0300u  /* libktrace files */
#define KTRACE_FILE_KERNEL_MAGIC   0x00001000u  /* kernel-written V3 files (RAW_VERSION3) */
#define KTRACE_FILE_HEADER_SIZE    56           /* fixed part of the file header */
#define KTRACE_FILE_HEADER_FIXED   40           /* ... of which the header size field counts */
#define KTRACE_CHUNK_HEADER_SIZE   16
#define KTRACE_FILE_FLAG_64BIT     0x1u

/* Chunk tags seen in practice. */
#define KTRACE_TAG_CONFIG          0x00001b00u
#define KTRACE_TAG_CPU_MAP         0x00001c00u
#define KTRACE_TAG_THREAD_MAP      0x00001d00u
#define KTRACE_TAG_EVENTS          0x00001e00u
#define KTRACE_TAG_NULL            0x00002000u
#define KTRACE_TAG_STACKSHOT       0x00008002u  /* kcdata */
#define KTRACE_TAG_CONFIG_PLIST    0x00008006u  /* binary plist */
#define KTRACE_TAG_MACHINE_INFO    0x00008c00u  /* binary plist */

enum ktrace_file_flavour {
	KTRACE_FILE_LIBKTRACE = 0,   /* magic 0x55aa0300 */
	KTRACE_FILE_KERNEL = 1,      /* tag 0x00001000 */
};

struct ktrace_file_header {
	enum ktrace_file_flavour flavour;
	uint32_t magic;              /* first 4 bytes of the file */
	uint16_t major, minor;
	uint64_t header_size;        /* as stored: bytes after the first 16, header chunks included */
	uint32_t timebase_numer;     /* ns = ticks * numer / denom */
	uint32_t timebase_denom;
	uint64_t timestamp;          /* trace start, in ticks */
	uint64_t walltime_secs;
	uint32_t walltime_usecs;
	int32_t minutes_west;
	uint32_t dst;
	uint32_t flags;              /* bit 0: 64-bit kd_buf and thread map entries */
};

struct ktrace_chunk {
	uint32_t tag;
	uint16_t major, minor;
	uint64_t size;               /* data size as stored in the chunk header */
	uint64_t offset;             /* file offset of the chunk header */
	uint64_t data_offset;        /* file offset of the data (offset + 16) */
	uint64_t data_size;          /* bytes of data in the file: size, or size + 8 for
				      * events chunks that do not count their timestamp */
	bool in_header;              /* a header chunk (counted in the header size) */
};

/* Iterator state: initialise with ktrace_file_chunks_begin; treat as opaque. */
struct ktrace_chunk_iter {
	uint64_t pos;
	int phase;
};

struct ktrace_file;

/*
 * Opens a ktrace file: reads and checks the 56-byte header. The input stays owned by
 * the caller for ktrace_file_open_input and must outlive the file; ktrace_file_open
 * and ktrace_file_open_memory own theirs. Returns 0 or a negative error code.
 */
KTRACE_API int ktrace_file_open(const char *path, struct ktrace_file **out, struct ktrace_error *err);
KTRACE_API int ktrace_file_open_memory(const void *data, size_t len, const char *name,
			    struct ktrace_file **out, struct ktrace_error *err);
KTRACE_API int ktrace_file_open_input(struct ktrace_input *in, struct ktrace_file **out,
			   struct ktrace_error *err);
KTRACE_API void ktrace_file_close(struct ktrace_file *f);

KTRACE_API const struct ktrace_file_header *ktrace_file_get_header(const struct ktrace_file *f);
KTRACE_API struct ktrace_input *ktrace_file_input(const struct ktrace_file *f);
/* File offset of the first body chunk. */
KTRACE_API uint64_t ktrace_file_body_offset(const struct ktrace_file *f);
/* Size of one kd_buf in the events chunks: 64 (64-bit files) or 32. */
KTRACE_API size_t ktrace_file_event_size(const struct ktrace_file *f);

/*
 * Chunk iteration: header chunks first (in_header set), then body chunks. next returns
 * 1 with *chunk filled, 0 after the last chunk, or a negative error code (a chunk
 * that runs past the end of the file or of the header, a truncated chunk header, a
 * size that overflows...). Unknown tags are returned like any other: callers skip what
 * they do not know. On streams, iteration only moves forward.
 */
KTRACE_API void ktrace_file_chunks_begin(const struct ktrace_file *f, struct ktrace_chunk_iter *it);
KTRACE_API int ktrace_file_next_chunk(struct ktrace_file *f, struct ktrace_chunk_iter *it,
			   struct ktrace_chunk *chunk, struct ktrace_error *err);
/* The first chunk (header or body) with this tag: 1 found, 0 not found, < 0 error. */
KTRACE_API int ktrace_file_find_chunk(struct ktrace_file *f, uint32_t tag, struct ktrace_chunk *chunk,
			   struct ktrace_error *err);

/*
 * Points *data at len bytes starting offset bytes into a chunk's data (offset + len <=
 * chunk->data_size). For streams the bytes stay valid until the next read. Returns 0
 * or a negative error code (-ENODATA when the file ends first).
 */
KTRACE_API int ktrace_file_chunk_read(struct ktrace_file *f, const struct ktrace_chunk *chunk,
			   uint64_t offset, size_t len, const uint8_t **data,
			   struct ktrace_error *err);
/* The whole data of a chunk (at most 1 GiB on streams). */
KTRACE_API int ktrace_file_chunk_data(struct ktrace_file *f, const struct ktrace_chunk *chunk,
			   const uint8_t **data, struct ktrace_error *err);

/* A printable name for a tag ("events", "thread map", ...) or NULL when unknown. */
KTRACE_API const char *ktrace_file_tag_name(uint32_t tag);

/*
 * Writer. Creates path through a temporary file in the same directory that is renamed
 * over path by ktrace_file_writer_close; ktrace_file_writer_abort (or a failed close)
 * removes it. Header chunks must all be added before the first body chunk; the header
 * size is computed and chunk padding added by the writer.
 *
 * ktrace_file_writer_create uses hdr's flavour, versions, timebase, timestamp, wall
 * time, zone and flags (magic and header_size are ignored).
 */
struct ktrace_file_writer;

KTRACE_API int ktrace_file_writer_create(const char *path, const struct ktrace_file_header *hdr,
			      struct ktrace_file_writer **out, struct ktrace_error *err);
KTRACE_API int ktrace_file_writer_add_header_chunk(struct ktrace_file_writer *w, uint32_t tag,
					uint16_t major, uint16_t minor, const void *data,
					uint64_t size, struct ktrace_error *err);
KTRACE_API int ktrace_file_writer_add_chunk(struct ktrace_file_writer *w, uint32_t tag, uint16_t major,
				 uint16_t minor, const void *data, uint64_t size,
				 struct ktrace_error *err);
/*
 * Starts a body chunk whose data is then given in pieces with
 * ktrace_file_writer_append; the stored size is `size` whatever is appended, but the
 * appended bytes must add up to data_size before the next chunk or close (data_size is
 * size, or size + 8 for events chunks that do not count their timestamp).
 */
KTRACE_API int ktrace_file_writer_begin_chunk(struct ktrace_file_writer *w, uint32_t tag, uint16_t major,
				   uint16_t minor, uint64_t size, uint64_t data_size,
				   struct ktrace_error *err);
KTRACE_API int ktrace_file_writer_append(struct ktrace_file_writer *w, const void *data, size_t len,
			      struct ktrace_error *err);
/*
 * An events chunk (tag 0x1e00, version 1.0): the u64 future-events timestamp, then
 * nbytes of kd_buf records. count_timestamp selects the length rule: true stores
 * nbytes + 8 (libktrace, older kernels), false stores nbytes (newer kernels).
 */
KTRACE_API int ktrace_file_writer_add_events(struct ktrace_file_writer *w, uint64_t future_timestamp,
				  const void *events, uint64_t nbytes, bool count_timestamp,
				  struct ktrace_error *err);
KTRACE_API int ktrace_file_writer_close(struct ktrace_file_writer *w, struct ktrace_error *err);
KTRACE_API void ktrace_file_writer_abort(struct ktrace_file_writer *w);

#ifdef __cplusplus
}
#endif
#endif
