// SPDX-License-Identifier: MIT
/* kdebug event decoding for V3 ktrace files and the legacy RAW_VERSION0/1/2 streams. */
#include <ktrace/detect.h>
#include <ktrace/darwin.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/opts.h"
#include "common/detect_table.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "darwin/darwin_kdebug_names_int.h"

#define RAW_V1_HEADER_SIZE   24
#define RAW_V2_HEADER_SIZE   0x120
#define RAW_EVENTS_ALIGN     4096
#define CPUMAP_ENTRY_SIZE    16
#define CPUMAP_HEADER_SIZE   8
#define WINDOW_EVENTS        4096
#define MAX_TRACKED_THREADS  (1u << 20)
#define MAX_MAP_BLOCK        65536

struct ktrace_darwin {
	struct ktrace_input *in;
	struct ktrace_file *file;          /* V3 only */
	struct ktrace_darwin_info info;
	struct ktrace_darwin_opts opt;
	bool mapped;
	bool maps_loaded;                  /* thread/CPU maps read at open (mapped V3) */

	struct ktrace_darwin_thread *threads;
	size_t nthreads, cap_threads;
	size_t added_threads;              /* learnt from TRACE events */
	struct kt_map thread_index;        /* thread id -> its first entry in threads */

	struct ktrace_darwin_cpu *cpus;
	size_t ncpus;

	/* iteration */
	struct ktrace_chunk_iter it;
	struct ktrace_chunk chunk;
	bool in_events;                    /* V3: inside an events chunk */
	uint64_t ev_pos, ev_end;           /* V3: offsets in the chunk data; raw: file offsets */
	bool raw_started;
	bool done;
	const uint8_t *win;
	uint64_t win_start;                /* offset (same space as ev_pos) of win[0] */
	size_t win_len;

	/* thread tracking */
	uint64_t newthread_creator, newthread_tid;
	bool newthread_pending;
	/* thread names (TRACE_STRING_THREADNAME) */
	struct kt_map name_index;          /* thread id -> names[] */
	struct thread_name *names;
	size_t nnames, names_cap;
};

/* --- threads ------------------------------------------------------------------- */

/* A thread's name, as the thread set it (TRACE_STRING_THREADNAME: the string in the
 * arguments of one event, or of several in a row from START to END). */
#define THREAD_NAME_MAX   64u
#define MAX_NAMED_THREADS (1u << 16)

struct thread_name {
	uint64_t tid;
	uint8_t len;                       /* bytes so far */
	bool pending;                      /* more pieces to come */
	bool known;                        /* a complete name was seen */
	char name[THREAD_NAME_MAX + 1];    /* the last complete name */
	char part[THREAD_NAME_MAX + 1];    /* the one being received */
};

static struct ktrace_darwin_thread *find_thread(const struct ktrace_darwin *k, uint64_t tid)
{
	uint32_t i;

	if (!tid || !kt_map_get(&k->thread_index, tid, 0, &i))
		return NULL;
	return &k->threads[i];
}

/* Adds an entry (kept even when its thread id is 0 or already known: lookups find the
 * first one). Returns the entry or NULL for lack of memory. */
static struct ktrace_darwin_thread *add_thread(struct ktrace_darwin *k, uint64_t tid,
					       int32_t pid, const char *cmd, size_t cmdlen)
{
	struct ktrace_darwin_thread *t;

	if (k->nthreads >= UINT32_MAX - 1)
		return NULL;
	if (k->nthreads == k->cap_threads) {
		size_t cap = k->cap_threads ? k->cap_threads * 2 : 256;

		t = kt_realloc_array(k->threads, cap, sizeof(*t));
		if (!t)
			return NULL;
		k->threads = t;
		k->cap_threads = cap;
	}
	if (tid && !find_thread(k, tid) &&
	    kt_map_put(&k->thread_index, tid, 0, (uint32_t)k->nthreads))
		return NULL;
	t = &k->threads[k->nthreads++];
	memset(t, 0, sizeof(*t));
	t->thread = tid;
	t->pid = pid;
	if (cmdlen > 20)
		cmdlen = 20;
	for (size_t i = 0; i < cmdlen && cmd[i]; i++)
		t->command[i] = cmd[i];
	return t;
}

static size_t thread_entry_size(const struct ktrace_darwin *k)
{
	return k->info.is64 ? 32 : 28;
}

/* Adds thread map entries from bytes; file_offset only for messages. */
static int load_thread_entries(struct ktrace_darwin *k, const uint8_t *p, size_t n,
			       struct ktrace_error *err)
{
	size_t esz = thread_entry_size(k);

	for (size_t i = 0; i < n; i++, p += esz) {
		uint64_t tid = k->info.is64 ? kt_load_u64(p, false) : kt_load_u32(p, false);
		const uint8_t *rest = p + (k->info.is64 ? 8 : 4);
		int32_t pid = (int32_t)kt_load_u32(rest, false);

		if (!add_thread(k, tid, pid, (const char *)rest + 4, 20))
			return ktrace_error_set(err, -ENOMEM, "out of memory (thread map)");
		k->info.thread_map_entries++;
		if (tid)
			k->info.threads++;
	}
	return 0;
}

/* Reads count thread map entries at a file offset, in bounded pieces. */
static int load_thread_map_at(struct ktrace_darwin *k, uint64_t offset, uint64_t count,
			      struct ktrace_error *err)
{
	size_t esz = thread_entry_size(k);
	size_t per = MAX_MAP_BLOCK / esz;

	while (count) {
		size_t n = count < per ? (size_t)count : per;
		const uint8_t *p;
		int ret = ktrace_input_get(k->in, offset, n * esz, &p, err);

		KT_RETURN_ERROR_AT_IF(ret < 0, err, ret, offset,
				      "truncated thread map: %llu entries missing",
				      (unsigned long long)count);
		ret = load_thread_entries(k, p, n, err);
		if (ret < 0)
			return ret;
		offset += n * esz;
		count -= n;
	}
	return 0;
}

/* --- CPU maps ------------------------------------------------------------------- */

static int load_cpus(struct ktrace_darwin *k, const uint8_t *p, size_t n,
		     struct ktrace_error *err)
{
	struct ktrace_darwin_cpu *c;

	if (!n)
		return 0;
	KT_RETURN_ERROR_IF(n > SIZE_MAX / sizeof(*c) - k->ncpus, err, -ENOMEM,
			   "out of memory (CPU map)");
	c = kt_realloc_array(k->cpus, k->ncpus + n, sizeof(*c));
	KT_RETURN_ERROR_IF(!c, err, -ENOMEM, "out of memory (CPU map)");
	k->cpus = c;
	for (size_t i = 0; i < n; i++, p += CPUMAP_ENTRY_SIZE) {
		c = &k->cpus[k->ncpus++];
		memset(c, 0, sizeof(*c));
		c->cpu_id = kt_load_u32(p, false);
		c->flags = kt_load_u32(p + 4, false);
		for (size_t j = 0; j < 8 && p[8 + j]; j++)
			c->name[j] = (char)p[8 + j];
	}
	k->info.cpus = k->ncpus;
	return 0;
}

/* A V3 CPU map chunk: kd_cpumap[] entries, optionally after a kd_cpumap_header
 * {RAW_VERSION1, cpu_count}. Trailing bytes that make no whole entry are ignored.
 * Read in bounded pieces: on streams nothing is allocated before the bytes arrive. */
static int load_cpu_chunk(struct ktrace_darwin *k, const struct ktrace_chunk *c,
			  struct ktrace_error *err)
{
	const uint8_t *p;
	uint64_t size = c->data_size, n, off = 0;
	int ret;

	if (size >= CPUMAP_HEADER_SIZE) {
		ret = ktrace_file_chunk_read(k->file, c, 0, CPUMAP_HEADER_SIZE, &p, err);
		if (ret < 0)
			return ret;
		if (kt_load_u32(p, false) == KTRACE_RAW_VERSION1) {
			n = kt_load_u32(p + 4, false);
			KT_RETURN_ERROR_AT_IF(n > (size - CPUMAP_HEADER_SIZE) / CPUMAP_ENTRY_SIZE,
					      err, -EBADMSG, c->offset,
					      "CPU map: %llu CPUs do not fit in %llu bytes",
					      (unsigned long long)n, (unsigned long long)size);
			off = CPUMAP_HEADER_SIZE;
			size = off + n * CPUMAP_ENTRY_SIZE;
		}
	}
	n = (size - off) / CPUMAP_ENTRY_SIZE;
	while (n) {
		size_t m = n < MAX_MAP_BLOCK / CPUMAP_ENTRY_SIZE ? (size_t)n
							      : MAX_MAP_BLOCK / CPUMAP_ENTRY_SIZE;

		ret = ktrace_file_chunk_read(k->file, c, off, m * CPUMAP_ENTRY_SIZE, &p, err);
		if (ret < 0)
			return ret;
		ret = load_cpus(k, p, m, err);
		if (ret < 0)
			return ret;
		off += m * CPUMAP_ENTRY_SIZE;
		n -= m;
	}
	return 0;
}

static int load_thread_chunk(struct ktrace_darwin *k, const struct ktrace_chunk *c,
			     struct ktrace_error *err)
{
	return load_thread_map_at(k, c->data_offset, c->data_size / thread_entry_size(k), err);
}

/* --- opening ------------------------------------------------------------------- */

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static void set_timebase(struct ktrace_darwin *k, uint64_t numer, uint64_t denom)
{
	if (k->opt.timebase_numer && k->opt.timebase_denom) {
		numer = k->opt.timebase_numer;
		denom = k->opt.timebase_denom;
	}
	if (numer && denom) {
		k->info.timebase_numer = numer;
		k->info.timebase_denom = denom;
		k->info.timebase_known = true;
	} else {
		k->info.timebase_numer = 1;
		k->info.timebase_denom = 1;
		k->info.timebase_known = false;
	}
}

/* Mapped V3 files: read the maps and count the events before iterating. A problem
 * found here is left for the iteration to report, with the events before it. */
static void prescan_v3(struct ktrace_darwin *k)
{
	struct ktrace_error scratch = { 0 };
	struct ktrace_chunk_iter it;
	struct ktrace_chunk c;
	uint64_t events = 0;
	int ret;

	ktrace_file_chunks_begin(k->file, &it);
	while ((ret = ktrace_file_next_chunk(k->file, &it, &c, &scratch)) > 0) {
		if (c.tag == KTRACE_TAG_EVENTS && !c.in_header) {
			if (c.data_size >= 8)
				events += (c.data_size - 8) / k->info.event_size;
		} else if (c.tag == KTRACE_TAG_THREAD_MAP) {
			if (load_thread_chunk(k, &c, &scratch) < 0)
				break;
		} else if (c.tag == KTRACE_TAG_CPU_MAP) {
			if (load_cpu_chunk(k, &c, &scratch) < 0)
				break;
		}
	}
	k->info.events = (int64_t)events;
	k->maps_loaded = true;
}

static int open_v3(struct ktrace_darwin *k, struct ktrace_error *err)
{
	const struct ktrace_file_header *h;
	int ret = ktrace_file_open_input(k->in, &k->file, err);

	if (ret < 0)
		return ret;
	h = ktrace_file_get_header(k->file);
	k->info.kind = KTRACE_DARWIN_V3;
	k->info.magic = h->magic;
	k->info.flavour = h->flavour;
	k->info.major = h->major;
	k->info.minor = h->minor;
	k->info.flags = h->flags;
	k->info.is64 = (h->flags & KTRACE_FILE_FLAG_64BIT) != 0;
	k->info.event_size = ktrace_file_event_size(k->file);
	k->info.start_timestamp = h->timestamp;
	k->info.walltime_secs = h->walltime_secs;
	k->info.walltime_usecs = h->walltime_usecs;
	k->info.minutes_west = h->minutes_west;
	k->info.dst = h->dst;
	k->info.events = -1;
	set_timebase(k, h->timebase_numer, h->timebase_denom);
	ktrace_file_chunks_begin(k->file, &k->it);
	if (k->mapped)
		prescan_v3(k);
	return 0;
}

/* The CPU map a V1+ writer hides at the start of the padding before the events. */
static int load_padding_cpumap(struct ktrace_darwin *k, uint64_t map_end,
			       struct ktrace_error *err)
{
	uint64_t pad = k->info.events_offset - map_end, n;
	const uint8_t *p;
	int64_t got;

	if (pad < CPUMAP_HEADER_SIZE)
		return 0;
	got = ktrace_input_peek(k->in, map_end, CPUMAP_HEADER_SIZE, &p, err);
	if (got < CPUMAP_HEADER_SIZE || kt_load_u32(p, false) != KTRACE_RAW_VERSION1)
		return got < 0 ? (int)got : 0;
	n = kt_load_u32(p + 4, false);
	if (n > (pad - CPUMAP_HEADER_SIZE) / CPUMAP_ENTRY_SIZE)
		return 0;  /* not a CPU map after all: padding is padding */
	got = ktrace_input_peek(k->in, map_end + CPUMAP_HEADER_SIZE, (size_t)n * CPUMAP_ENTRY_SIZE,
				&p, err);
	if (got < 0)
		return (int)got;
	return load_cpus(k, p, (size_t)got / CPUMAP_ENTRY_SIZE, err);
}

static int open_raw(struct ktrace_darwin *k, uint32_t magic, struct ktrace_error *err)
{
	int64_t size = ktrace_input_size(k->in);
	uint64_t hsize, count, map_end;
	const uint8_t *p;
	int32_t n;
	int ret;

	k->info.magic = magic;
	k->info.is64 = true;
	k->info.events = -1;
	if (k->opt.raw_v0) {
		k->info.kind = KTRACE_DARWIN_RAW_V0;
		k->info.magic = 0;
		hsize = 4;
	} else if (magic == KTRACE_RAW_VERSION1) {
		k->info.kind = KTRACE_DARWIN_RAW_V1;
		hsize = RAW_V1_HEADER_SIZE;
	} else if (magic == KTRACE_RAW_VERSION2) {
		k->info.kind = KTRACE_DARWIN_RAW_V2;
		hsize = RAW_V2_HEADER_SIZE;
	} else {
		return ktrace_error_at(err, -EBADMSG, 0,
				       "not a kdebug stream: magic 0x%08x", magic);
	}
	ret = ktrace_input_get(k->in, 0, (size_t)hsize, &p, err);
	KT_RETURN_ERROR_AT_IF(ret < 0, err, ret, 0, "truncated kdebug header: need %llu bytes",
			      (unsigned long long)hsize);
	n = (int32_t)kt_load_u32(p + (k->info.kind == KTRACE_DARWIN_RAW_V0 ? 0 : 4), false);
	if (k->info.kind != KTRACE_DARWIN_RAW_V0) {
		k->info.walltime_secs = kt_load_u64(p + 8, false);
		k->info.walltime_usecs = kt_load_u32(p + 16, false);
	}
	if (k->info.kind == KTRACE_DARWIN_RAW_V2) {
		uint64_t freq = kt_load_u64(p + 24, false);

		k->info.flags = kt_load_u32(p + 20, false);
		k->info.is64 = (k->info.flags & 1) != 0;
		k->info.frequency = freq;
		if (freq) {
			uint64_t g = gcd64(1000000000ULL, freq);

			set_timebase(k, 1000000000ULL / g, freq / g);
		} else {
			set_timebase(k, 0, 0);
		}
	} else {
		set_timebase(k, 0, 0);
	}
	k->info.event_size = k->info.is64 ? 64 : 32;
	KT_RETURN_ERROR_AT_IF(n < 0, err, -EBADMSG, k->info.kind == KTRACE_DARWIN_RAW_V0 ? 0 : 4,
			      "negative thread count %d", n);
	count = (uint64_t)n;
	map_end = hsize + count * thread_entry_size(k);
	if (size >= 0 && map_end > (uint64_t)size)
		return ktrace_error_at(err, -ENODATA, hsize,
				       "thread map of %llu entries runs past the end of the file "
				       "(%lld bytes)",
				       (unsigned long long)count, (long long)size);
	if (k->info.kind == KTRACE_DARWIN_RAW_V0)
		k->info.events_offset = map_end;
	else
		k->info.events_offset = (map_end + RAW_EVENTS_ALIGN - 1) & ~(uint64_t)(RAW_EVENTS_ALIGN - 1);
	ret = load_thread_map_at(k, hsize, count, err);
	if (ret < 0)
		return ret;
	if (k->info.kind != KTRACE_DARWIN_RAW_V0) {
		ret = load_padding_cpumap(k, map_end, err);
		if (ret < 0)
			return ret;
	}
	if (size >= 0) {
		if ((uint64_t)size >= k->info.events_offset) {
			uint64_t bytes = (uint64_t)size - k->info.events_offset;

			k->info.events = (int64_t)(bytes / k->info.event_size);
			k->info.trailing_bytes = bytes % k->info.event_size;
		} else {
			k->info.events = 0;
		}
	}
	k->ev_pos = k->info.events_offset;
	return 0;
}

int ktrace_darwin_open(struct ktrace_input *in, const struct ktrace_darwin_opts *opt,
		       struct ktrace_darwin **out, struct ktrace_error *err)
{
	struct ktrace_darwin *k;
	const uint8_t *p;
	uint32_t magic = 0;
	int64_t got;
	int ret;

	*out = NULL;
	/* the names of the events: without them they would print differently */
	ret = kt_darwin_builtin_names(err);
	if (ret)
		return ret;
	k = calloc(1, sizeof(*k));
	if (!k)
		return kt_error_oom(err);
	k->in = in;
	if ((ret = KT_OPTS_COPY(&k->opt, opt, "ktrace_darwin_opts", err))) {
		free(k);
		return ret;
	}
	k->mapped = ktrace_input_is_mapped(in);
	got = ktrace_input_peek(in, 0, 4, &p, err);
	if (got < 0) {
		ret = (int)got;
		goto fail;
	}
	if (got < 4 && !k->opt.raw_v0) {
		ret = ktrace_error_at(err, got ? -ENODATA : -EBADMSG, 0,
				      got ? "truncated: %lld bytes" : "empty file", (long long)got);
		goto fail;
	}
	if (got >= 4)
		magic = kt_load_u32(p, false);
	if (!k->opt.raw_v0 && (magic == KTRACE_FILE_MAGIC || magic == KTRACE_FILE_KERNEL_MAGIC))
		ret = open_v3(k, err);
	else
		ret = open_raw(k, magic, err);
	if (ret < 0)
		goto fail;
	*out = k;
	return 0;
fail:
	ktrace_darwin_close(k);
	return ret;
}

void ktrace_darwin_close(struct ktrace_darwin *k)
{
	if (!k)
		return;
	ktrace_file_close(k->file);
	free(k->threads);
	kt_map_free(&k->thread_index);
	kt_map_free(&k->name_index);
	free(k->cpus);
	free(k->names);
	free(k);
}

const struct ktrace_darwin_info *ktrace_darwin_get_info(const struct ktrace_darwin *k)
{
	return &k->info;
}

struct ktrace_file *ktrace_darwin_file(const struct ktrace_darwin *k)
{
	return k->file;
}

const struct ktrace_darwin_thread *ktrace_darwin_threads(const struct ktrace_darwin *k,
							 size_t *count)
{
	*count = k->nthreads;
	return k->threads;
}

const struct ktrace_darwin_thread *ktrace_darwin_find_thread(const struct ktrace_darwin *k,
							     uint64_t thread)
{
	return find_thread(k, thread);
}

const struct ktrace_darwin_cpu *ktrace_darwin_cpus(const struct ktrace_darwin *k,
						   size_t *count)
{
	*count = k->ncpus;
	return k->cpus;
}

uint64_t ktrace_darwin_ns(const struct ktrace_darwin *k, uint64_t ticks)
{
	unsigned __int128 v;

	if (k->info.timebase_numer == k->info.timebase_denom)
		return ticks;
	v = (unsigned __int128)ticks * k->info.timebase_numer / k->info.timebase_denom;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* --- events -------------------------------------------------------------------- */

static void decode_event(const struct ktrace_darwin *k, const uint8_t *p,
			 struct ktrace_darwin_event *ev)
{
	if (k->info.is64) {
		ev->timestamp = kt_load_u64(p, false);
		ev->arg[0] = kt_load_u64(p + 8, false);
		ev->arg[1] = kt_load_u64(p + 16, false);
		ev->arg[2] = kt_load_u64(p + 24, false);
		ev->arg[3] = kt_load_u64(p + 32, false);
		ev->thread = kt_load_u64(p + 40, false);
		ev->debugid = kt_load_u32(p + 48, false);
		ev->cpu = kt_load_u32(p + 52, false);
	} else {
		uint64_t ts = kt_load_u64(p, false);

		ev->timestamp = ts & 0x00ffffffffffffffULL;
		ev->cpu = (uint32_t)(ts >> 56);
		ev->arg[0] = kt_load_u32(p + 8, false);
		ev->arg[1] = kt_load_u32(p + 12, false);
		ev->arg[2] = kt_load_u32(p + 16, false);
		ev->arg[3] = kt_load_u32(p + 20, false);
		ev->thread = kt_load_u32(p + 24, false);
		ev->debugid = kt_load_u32(p + 28, false);
	}
	ev->ns = ktrace_darwin_ns(k, ev->timestamp);
}

/* The bytes of the string arguments of a TRACE_STRING event. */
static void event_string(const struct ktrace_darwin *k, const struct ktrace_darwin_event *ev,
			 char out[33])
{
	size_t w = k->info.is64 ? 8 : 4, n = 0;

	for (int a = 0; a < 4; a++)
		for (size_t b = 0; b < w; b++)
			out[n++] = (char)(ev->arg[a] >> (8 * b));
	out[n] = 0;
}

static void set_command(struct ktrace_darwin_thread *t, const char *name);

static struct thread_name *name_slot(struct ktrace_darwin *k, uint64_t tid, bool add)
{
	uint32_t i;

	if (!tid)
		return NULL;
	if (kt_map_get(&k->name_index, tid, 0, &i))
		return &k->names[i];
	if (!add)
		return NULL;
	k->name_index.max = MAX_NAMED_THREADS;
	if (kt_grow((void **)&k->names, &k->names_cap, k->nnames + 1, sizeof(*k->names)) ||
	    kt_map_put(&k->name_index, tid, 0, (uint32_t)k->nnames))
		return NULL;
	memset(&k->names[k->nnames], 0, sizeof(*k->names));
	k->names[k->nnames].tid = tid;
	return &k->names[k->nnames++];
}

/* One piece of a TRACE_STRING_THREADNAME string. */
static void track_thread_name(struct ktrace_darwin *k, const struct ktrace_darwin_event *ev)
{
	bool start = ev->debugid & KTRACE_DARWIN_FUNC_START, end = ev->debugid & KTRACE_DARWIN_FUNC_END;
	struct thread_name *n = name_slot(k, ev->thread, start);
	char piece[33];
	size_t len;

	if (!n || (!start && !n->pending))
		return;
	if (start)
		n->len = 0;
	event_string(k, ev, piece);
	len = strnlen(piece, k->info.is64 ? 32 : 16);
	if (len > THREAD_NAME_MAX - n->len)
		len = THREAD_NAME_MAX - n->len;
	memcpy(n->part + n->len, piece, len);
	n->len = (uint8_t)(n->len + len);
	n->part[n->len] = '\0';
	/* a piece shorter than the arguments ends the string, whatever the qualifier */
	n->pending = !end && len == (k->info.is64 ? 32u : 16u) && n->len < THREAD_NAME_MAX;
	if (!n->pending) {
		memcpy(n->name, n->part, (size_t)n->len + 1);
		n->known = true;
	}
}

const char *ktrace_darwin_thread_name(const struct ktrace_darwin *k, uint64_t thread)
{
	struct thread_name *n = name_slot((struct ktrace_darwin *)k, thread, false);

	return n && n->known && n->name[0] ? n->name : NULL;
}

static void track_threads(struct ktrace_darwin *k, const struct ktrace_darwin_event *ev)
{
	struct ktrace_darwin_thread *t;
	uint32_t id = KTRACE_DARWIN_EVENTID(ev->debugid);
	char name[33];

	if (KTRACE_DARWIN_CLASS(id) != 7)
		return;
	switch (id) {
	case KTRACE_TRACE_STRING_THREADNAME:
		track_thread_name(k, ev);
		break;
	case KTRACE_TRACE_DATA_NEWTHREAD:
		k->newthread_pending = true;
		k->newthread_creator = ev->thread;
		k->newthread_tid = ev->arg[0];
		t = find_thread(k, ev->arg[0]);
		if (!t && ev->arg[0] && k->added_threads < MAX_TRACKED_THREADS) {
			const struct ktrace_darwin_thread *parent = find_thread(k, ev->thread);

			t = add_thread(k, ev->arg[0], (int32_t)ev->arg[1],
				       parent ? parent->command : "", 20);
			k->added_threads++;
		}
		if (t)
			t->pid = (int32_t)ev->arg[1];
		break;
	case KTRACE_TRACE_STRING_NEWTHREAD:
		if (!k->newthread_pending || k->newthread_creator != ev->thread)
			break;
		k->newthread_pending = false;
		t = find_thread(k, k->newthread_tid);
		if (t) {
			event_string(k, ev, name);
			set_command(t, name);
		}
		break;
	case KTRACE_TRACE_DATA_EXEC:
		t = find_thread(k, ev->thread);
		if (t)
			t->pid = (int32_t)ev->arg[0];
		break;
	case KTRACE_TRACE_STRING_EXEC:
		t = find_thread(k, ev->thread);
		if (!t && ev->thread && k->added_threads < MAX_TRACKED_THREADS) {
			t = add_thread(k, ev->thread, -1, "", 0);
			k->added_threads++;
		}
		if (t) {
			event_string(k, ev, name);
			set_command(t, name);
		}
		break;
	}
}

static void set_command(struct ktrace_darwin_thread *t, const char *name)
{
	size_t n = strnlen(name, 20);

	memset(t->command, 0, sizeof(t->command));
	memcpy(t->command, name, n);
}

/* Makes the event at k->ev_pos available; returns its bytes or NULL with *ret set. */
static const uint8_t *event_bytes(struct ktrace_darwin *k, uint64_t base, int *ret,
				  struct ktrace_error *err)
{
	size_t esz = k->info.event_size;

	if (!k->win || k->ev_pos < k->win_start || k->ev_pos + esz > k->win_start + k->win_len) {
		uint64_t left = k->ev_end - k->ev_pos;
		size_t want = left / esz < WINDOW_EVENTS ? (size_t)(left / esz) * esz
							 : WINDOW_EVENTS * esz;
		const uint8_t *p;

		*ret = ktrace_input_get(k->in, base + k->ev_pos, want, &p, err);
		if (*ret < 0) {
			k->win = NULL;
			return NULL;
		}
		k->win = p;
		k->win_start = k->ev_pos;
		k->win_len = want;
	}
	return k->win + (k->ev_pos - k->win_start);
}

static int next_v3(struct ktrace_darwin *k, struct ktrace_darwin_event *ev,
		   struct ktrace_error *err)
{
	size_t esz = k->info.event_size;
	int ret;

	for (;;) {
		if (k->in_events) {
			if (k->ev_end - k->ev_pos >= esz) {
				const uint8_t *p = event_bytes(k, k->chunk.data_offset, &ret, err);

				if (!p)
					return ret;
				decode_event(k, p, ev);
				ev->offset = k->chunk.data_offset + k->ev_pos;
				k->ev_pos += esz;
				return 1;
			}
			k->in_events = false;
			k->win = NULL;
			if (k->ev_end != k->ev_pos)
				return ktrace_error_at(err, -EBADMSG, k->chunk.offset,
						       "events chunk: size %llu is not 8 plus a "
						       "multiple of %zu (%llu stray bytes at 0x%llx)",
						       (unsigned long long)k->chunk.size, esz,
						       (unsigned long long)(k->ev_end - k->ev_pos),
						       (unsigned long long)(k->chunk.data_offset +
									    k->ev_pos));
		}
		ret = ktrace_file_next_chunk(k->file, &k->it, &k->chunk, err);
		if (ret <= 0)
			return ret;
		switch (k->chunk.tag) {
		case KTRACE_TAG_EVENTS:
			if (k->chunk.in_header)
				break;
			if (k->chunk.data_size < 8)
				return ktrace_error_at(err, -EBADMSG, k->chunk.offset,
						       "events chunk of %llu bytes has no room for "
						       "its 8-byte timestamp",
						       (unsigned long long)k->chunk.size);
			k->in_events = true;
			k->ev_pos = 8;
			k->ev_end = k->chunk.data_size;
			k->win = NULL;
			break;
		case KTRACE_TAG_THREAD_MAP:
			if (!k->maps_loaded && (ret = load_thread_chunk(k, &k->chunk, err)) < 0)
				return ret;
			break;
		case KTRACE_TAG_CPU_MAP:
			if (!k->maps_loaded && (ret = load_cpu_chunk(k, &k->chunk, err)) < 0)
				return ret;
			break;
		}
	}
}

static int next_raw(struct ktrace_darwin *k, struct ktrace_darwin_event *ev,
		    struct ktrace_error *err)
{
	size_t esz = k->info.event_size;
	const uint8_t *p;
	int64_t got;
	int ret;

	if (k->mapped) {
		int64_t size = ktrace_input_size(k->in);

		if (!k->raw_started) {
			k->raw_started = true;
			k->ev_pos = k->info.events_offset;
			if ((uint64_t)size < k->info.events_offset)
				return ktrace_error_at(err, -ENODATA, (uint64_t)size,
						       "truncated: the file ends in the padding "
						       "before the events at 0x%llx",
						       (unsigned long long)k->info.events_offset);
			k->ev_end = (uint64_t)size;
		}
		if (k->ev_end - k->ev_pos < esz) {
			KT_RETURN_ERROR_AT_IF(k->ev_end != k->ev_pos, err, -ENODATA, k->ev_pos,
					      "truncated event: %llu of %zu bytes",
					      (unsigned long long)(k->ev_end - k->ev_pos), esz);
			return 0;
		}
		p = event_bytes(k, 0, &ret, err);
		if (!p)
			return ret;
	} else {
		if (!k->raw_started && k->ev_pos > 0) {
			k->raw_started = true;
			got = ktrace_input_peek(k->in, k->ev_pos - 1, 1, &p, err);
			if (got < 0)
				return (int)got;
			if (got == 0)
				return ktrace_error_at(err, -ENODATA, k->ev_pos,
						       "truncated: the stream ends before the "
						       "events at 0x%llx",
						       (unsigned long long)k->ev_pos);
		}
		got = ktrace_input_peek(k->in, k->ev_pos, esz, &p, err);
		if (got < 0)
			return (int)got;
		if (got == 0)
			return 0;
		KT_RETURN_ERROR_AT_IF((size_t)got < esz, err, -ENODATA, k->ev_pos,
				      "truncated event: %lld of %zu bytes", (long long)got, esz);
	}
	decode_event(k, p, ev);
	ev->offset = k->ev_pos;
	k->ev_pos += esz;
	return 1;
}

int ktrace_darwin_next(struct ktrace_darwin *k, struct ktrace_darwin_event *ev,
		       struct ktrace_error *err)
{
	int ret;

	if (k->done)
		return 0;
	ret = k->file ? next_v3(k, ev, err) : next_raw(k, ev, err);
	if (ret <= 0) {
		k->done = true;
		return ret;
	}
	if (ev->cpu >= KTRACE_DARWIN_MAX_CPUS) {
		/* (a kd_buf read out of step, or its bytes overwritten) */
		k->done = true;
		return ktrace_error_at(err, -EBADMSG, ev->offset,
				       "event: CPU %u out of range (kdebug CPUs are below %u)",
				       ev->cpu, KTRACE_DARWIN_MAX_CPUS);
	}
	if (!k->opt.no_thread_tracking)
		track_threads(k, ev);
	return 1;
}

int ktrace_darwin_rewind(struct ktrace_darwin *k, struct ktrace_error *err)
{
	KT_RETURN_ERROR_IF(!k->mapped, err, -ESPIPE, "cannot rewind a stream");
	k->done = false;
	k->in_events = false;
	k->win = NULL;
	k->raw_started = false;
	k->newthread_pending = false;
	if (k->file)
		ktrace_file_chunks_begin(k->file, &k->it);
	else
		k->ev_pos = k->info.events_offset;
	return 0;
}

static bool darwin_raw_match(const uint8_t *p, size_t len)
{
	uint32_t w = len >= 4 ? kt_load_u32(p, false) : 0;

	return w == 0x55aa0101 || w == 0x55aa0200;
}

const struct kt_detector kt_detector_darwin_raw = {
	KTRACE_FORMAT_DARWIN_RAW, "Darwin kdebug raw stream", darwin_raw_match,
};
