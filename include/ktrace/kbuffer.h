/* SPDX-License-Identifier: MIT */
/*
 * kbuffer: walks the sub-buffers ("pages") of the Linux ftrace ring buffer, as read
 * from tracefs per_cpu/cpuN/trace_pipe_raw or stored in trace.dat CPU data.
 *
 * The API, its enum values and its behaviour on well-formed data are those of
 * libtraceevent 1.8's kbuffer, so a program written for libtraceevent compiles
 * against this header unchanged (with -I include/ktrace) and prints the same.
 * Unlike libtraceevent, nothing here reads outside the sub-buffer it was given when
 * the size is known (kbuffer_load_subbuffer_len), and every walk terminates, whatever
 * the bytes.
 */
#ifndef _KBUFFER_H
#define _KBUFFER_H

#include "api.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of a time delta held in an event header; wider deltas use TIME_EXTEND. */
#ifndef TS_SHIFT
#define TS_SHIFT 27
#endif

enum kbuffer_endian {
	KBUFFER_ENDIAN_BIG,
	KBUFFER_ENDIAN_LITTLE,
	KBUFFER_ENDIAN_SAME_AS_HOST,
};

enum kbuffer_long_size {
	KBUFFER_LSIZE_4,
	KBUFFER_LSIZE_8,
	KBUFFER_LSIZE_SAME_AS_HOST,
};

/* Ring-buffer record types that carry no event (event header type_len values). */
enum {
	KBUFFER_TYPE_PADDING     = 29,
	KBUFFER_TYPE_TIME_EXTEND = 30,
	KBUFFER_TYPE_TIME_STAMP  = 31,
};

struct kbuffer;

KTRACE_API struct kbuffer *kbuffer_alloc(enum kbuffer_long_size size, enum kbuffer_endian endian);
KTRACE_API struct kbuffer *kbuffer_dup(struct kbuffer *kbuf);
KTRACE_API void kbuffer_free(struct kbuffer *kbuf);

/* Loads a sub-buffer and positions on its first event. 0 on success, -1 on error. */
KTRACE_API int kbuffer_load_subbuffer(struct kbuffer *kbuf, void *subbuffer);
/* Re-reads the commit field after the producer appended events. */
KTRACE_API int kbuffer_refresh(struct kbuffer *kbuf);

/* The current event's payload (and its timestamp in *ts), or NULL at the end. */
KTRACE_API void *kbuffer_read_event(struct kbuffer *kbuf, unsigned long long *ts);
/* Advances to the next event and returns it as kbuffer_read_event would. */
KTRACE_API void *kbuffer_next_event(struct kbuffer *kbuf, unsigned long long *ts);
KTRACE_API unsigned long long kbuffer_timestamp(struct kbuffer *kbuf);
KTRACE_API unsigned long long kbuffer_subbuf_timestamp(struct kbuffer *kbuf, void *subbuf);
KTRACE_API unsigned int kbuffer_ptr_delta(struct kbuffer *kbuf, void *ptr);

/* Decodes one record header at data: returns its payload and stores the payload size,
 * or NULL for padding and time records. swap: the data's byte order is not the host's. */
KTRACE_API void *kbuffer_translate_data(int swap, void *data, unsigned int *size);

/* Positions on the event containing offset (from the start of the sub-buffer). */
KTRACE_API void *kbuffer_read_at_offset(struct kbuffer *kbuf, int offset, unsigned long long *ts);
/* Copies events from the current one into buffer as a loadable sub-buffer, the way a
 * read() of trace_pipe_raw would. Returns the index after the last event copied, 0 when
 * nothing is left, -1 when buffer cannot hold the header and the first event. */
KTRACE_API int kbuffer_read_buffer(struct kbuffer *kbuf, void *buffer, int len);

KTRACE_API int kbuffer_curr_index(struct kbuffer *kbuf);   /* from the start of the data area */
KTRACE_API int kbuffer_curr_offset(struct kbuffer *kbuf);  /* from the start of the sub-buffer */
KTRACE_API int kbuffer_curr_size(struct kbuffer *kbuf);    /* header + payload */
KTRACE_API int kbuffer_event_size(struct kbuffer *kbuf);   /* payload only */
/* Events lost before this sub-buffer: >0 the count, -1 lost but count unknown, 0 none.
 * Only reported while positioned on the sub-buffer's first record. */
KTRACE_API int kbuffer_missed_events(struct kbuffer *kbuf);
/* End of the last event (the commit), not the size of the sub-buffer itself. */
KTRACE_API int kbuffer_subbuffer_size(struct kbuffer *kbuf);
KTRACE_API void *kbuffer_subbuffer(struct kbuffer *kbuf);

/* Selects the ring-buffer layout of Linux 2.6.30 and earlier. */
KTRACE_API void kbuffer_set_old_format(struct kbuffer *kbuf);
/* Offset of the first event (after leading time records) in the sub-buffer. */
KTRACE_API int kbuffer_start_of_data(struct kbuffer *kbuf);

/* Debugging: decode the record at info->next in subbuf, whatever its type. */
struct kbuffer_raw_info {
	int                 type;
	int                 length;
	unsigned long long  delta;
	void                *next;
};

KTRACE_API struct kbuffer_raw_info *kbuffer_raw_get(struct kbuffer *kbuf, void *subbuf,
					 struct kbuffer_raw_info *info);

/*
 * ktrace extensions (not in libtraceevent).
 *
 * kbuffer_load_subbuffer_len: load a sub-buffer of known length. The commit size is
 * clamped to it and no call reads past it afterwards; use this for untrusted data.
 * kbuffer_corrupt: nonzero when the loaded sub-buffer was inconsistent (commit beyond
 * its length, a record running past the end, an impossible length); the walk stopped
 * at the damage instead of reading past it.
 */
KTRACE_API int kbuffer_load_subbuffer_len(struct kbuffer *kbuf, void *subbuffer, size_t len);
KTRACE_API int kbuffer_corrupt(struct kbuffer *kbuf);
/* Events lost before the loaded sub-buffer (>0 count, -1 unknown count, 0 none),
 * wherever the walk is; kbuffer_missed_events answers only on the first record. */
KTRACE_API long long kbuffer_lost_events(struct kbuffer *kbuf);
/* Long size (4 or 8) and big-endianness (0/1) the kbuffer decodes with. */
KTRACE_API int kbuffer_long_size(struct kbuffer *kbuf);
KTRACE_API int kbuffer_big_endian(struct kbuffer *kbuf);

#ifdef __cplusplus
}
#endif
#endif
