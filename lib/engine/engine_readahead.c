// SPDX-License-Identifier: MIT
/*
 * Read-ahead for the event stream (KTRACE_STREAM_READAHEAD): a thread of the stream's
 * own merges the sources (kt_stream_direct_next) and copies each record into chunks:
 * the record, its comm and what its fields need (the source's
 * snap_write: an ftrace record's bytes and registry, a Darwin event, a KOFF record and
 * its text). The caller's thread takes the chunks in order and reads records and
 * fields from the copies (the sources' snap_* functions), while the next chunks are
 * being read. NCHUNKS chunks of CHUNK_BYTES bound the memory (a record bigger than a
 * chunk gets a chunk of its size). A caller that reads the fields of a few events only
 * says which (kt_stream_fields_only): the others are copied without their bytes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "engine/engine_stream_int.h"

#define NCHUNKS 4
#define CHUNK_BYTES (64 * 1024)    /* four stay in a core's cache */
#define WANT_IDS 4096              /* event ids whose answer is kept, per input */

/* A record's copy in a chunk. */
struct kt_snap {
	struct ktrace_stream_record rec;   /* comm points into strings unless the source's
					    * live as long as the stream (as system and
					    * name do) */
	const struct kt_source *src;
	uint32_t size;                     /* the whole copy, 8-aligned */
	uint32_t data_off;                 /* the source's copy, from the start; 0: none */
	char strings[];
};

struct chunk {
	_Alignas(128) uint8_t *data;
	size_t used, cap;
	bool last;                         /* the reading ended after these records */
	int ret;                           /* then: 0, or the error */
	struct ktrace_error err;
	const char *err_path;
};

struct kt_readahead {
	struct ktrace_stream *s;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct chunk chunks[NCHUNKS];
	unsigned head, tail, filled;       /* the ring: head fills, tail reads */
	bool stop;
	/* kt_stream_fields_only: set once by the caller (want_set published last); the
	 * answers per (input, event id) kept by the reader: 0 not asked, 1 yes, 2 no */
	bool (*want)(void *arg, const struct ktrace_stream_record *r);
	void *want_arg;
	bool want_set;
	uint8_t *wanted;
	size_t nwanted_inputs;
	/* the caller's side */
	_Alignas(128) struct chunk *cur;
	size_t pos;
	bool done;
};

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Whether the caller reads rec's fields (on the reading thread). */
static bool data_wanted(struct kt_readahead *ra, const struct ktrace_stream_record *rec)
{
	uint8_t *w;

	if (!__atomic_load_n(&ra->want_set, __ATOMIC_ACQUIRE))
		return true;
	if (!ra->wanted) {
		ra->nwanted_inputs = ktrace_stream_source_count(ra->s);
		ra->wanted = calloc(ra->nwanted_inputs ? ra->nwanted_inputs * WANT_IDS : 1, 1);
		if (!ra->wanted)
			return true;
	}
	if (rec->event_id >= WANT_IDS || rec->source >= ra->nwanted_inputs)
		return ra->want(ra->want_arg, rec);
	w = &ra->wanted[(size_t)rec->source * WANT_IDS + rec->event_id];
	if (!*w)
		*w = ra->want(ra->want_arg, rec) ? 1 : 2;
	return *w == 1;
}

/* The bytes the copy of rec (from src) takes. */
static size_t snap_bytes(struct kt_readahead *ra, const struct ktrace_stream_record *rec,
			 struct kt_source *src, size_t *data_off)
{
	size_t n = sizeof(struct kt_snap) + (src->stable_comm ? 0 : strlen(rec->comm) + 1);

	*data_off = 0;
	if (rec->kind == KTRACE_STREAM_EVENT && src->ops->snap_size && data_wanted(ra, rec)) {
		*data_off = align8(n);
		return *data_off + src->ops->snap_size(src);
	}
	return align8(n);
}

static void put_string(char *p, const char **field)
{
	memcpy(p, *field, strlen(*field) + 1);
	*field = p;
}

static void write_snap(uint8_t *at, size_t size, size_t data_off,
		       const struct ktrace_stream_record *rec, struct kt_source *src)
{
	struct kt_snap *sn = (struct kt_snap *)at;
	char *p = sn->strings;

	sn->rec = *rec;
	sn->src = src;
	sn->size = (uint32_t)size;
	sn->data_off = (uint32_t)data_off;
	if (!src->stable_comm)
		put_string(p, &sn->rec.comm);
	if (data_off)
		src->ops->snap_write(src, at + data_off);
}

static bool stopping(struct kt_readahead *ra)
{
	return __atomic_load_n(&ra->stop, __ATOMIC_RELAXED);
}

static void *reader(void *arg)
{
	struct kt_readahead *ra = arg;
	struct ktrace_stream *s = ra->s;
	const struct ktrace_stream_record *rec = NULL;
	struct kt_source *src = NULL;
	bool pending = false;              /* rec did not fit the last chunk */

	for (;;) {
		struct chunk *c;

		pthread_mutex_lock(&ra->mu);
		while (ra->filled == NCHUNKS && !stopping(ra))
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (stopping(ra)) {
			pthread_mutex_unlock(&ra->mu);
			return NULL;
		}
		c = &ra->chunks[ra->head];
		pthread_mutex_unlock(&ra->mu);
		c->used = 0;
		c->last = false;
		for (unsigned k = 0;; k++) {
			size_t size, data_off;

			if (!pending) {
				int ret = kt_stream_direct_next(s, &rec, &src, &c->err);

				if (ret <= 0 || ((k & 255) == 255 && stopping(ra))) {
					c->last = true;
					c->ret = ret > 0 ? 0 : ret;
					c->err_path = kt_stream_direct_error_path(s);
					break;
				}
			}
			pending = false;
			size = snap_bytes(ra, rec, src, &data_off);
			if (size > c->cap - c->used) {
				if (c->used) {
					pending = true;    /* it opens the next chunk */
					break;
				}
				/* a record bigger than a chunk */
				uint8_t *p = kt_realloc_array(c->data, size, 1);

				if (!p) {
					c->last = true;
					c->ret = kt_error_oom(&c->err);
					c->err_path = NULL;
					break;
				}
				c->data = p;
				c->cap = size;
			}
			write_snap(c->data + c->used, size, data_off, rec, src);
			c->used += size;
		}
		pthread_mutex_lock(&ra->mu);
		ra->head = (ra->head + 1) % NCHUNKS;
		ra->filled++;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		if (c->last)
			return NULL;
	}
}

int kt_readahead_start(struct ktrace_stream *s, struct kt_readahead **out,
		       struct ktrace_error *err)
{
	struct kt_readahead *ra = aligned_alloc(_Alignof(struct kt_readahead), sizeof(*ra));
	int ret = 0;

	*out = NULL;
	if (!ra)
		return kt_error_oom(err);
	memset(ra, 0, sizeof(*ra));
	ra->s = s;
	for (int i = 0; i < NCHUNKS && !ret; i++) {
		ra->chunks[i].data = malloc(CHUNK_BYTES);
		ra->chunks[i].cap = CHUNK_BYTES;
		if (!ra->chunks[i].data)
			ret = kt_error_oom(err);
	}
	if (!ret) {
		pthread_mutex_init(&ra->mu, NULL);
		pthread_cond_init(&ra->cv, NULL);
		ret = -pthread_create(&ra->thread, NULL, reader, ra);
		if (ret) {
			ktrace_error_set(err, ret, "cannot start the read-ahead thread");
			pthread_mutex_destroy(&ra->mu);
			pthread_cond_destroy(&ra->cv);
		}
	}
	if (ret) {
		for (int i = 0; i < NCHUNKS; i++)
			free(ra->chunks[i].data);
		free(ra);
		return ret;
	}
	*out = ra;
	return 0;
}

int kt_readahead_next(struct kt_readahead *ra, const struct ktrace_stream_record **rec,
		      const struct kt_source **src, const void **data, struct ktrace_error *err,
		      const char **err_path)
{
	*rec = NULL;
	for (;;) {
		struct chunk *c = ra->cur;

		if (ra->done)
			return 0;
		if (!c) {
			pthread_mutex_lock(&ra->mu);
			while (!ra->filled)
				pthread_cond_wait(&ra->cv, &ra->mu);
			c = ra->cur = &ra->chunks[ra->tail];
			pthread_mutex_unlock(&ra->mu);
			ra->pos = 0;
		}
		if (ra->pos < c->used) {
			const struct kt_snap *sn = (const struct kt_snap *)(c->data + ra->pos);

			ra->pos += sn->size;
			*rec = &sn->rec;
			*src = sn->src;
			*data = sn->data_off ? (const uint8_t *)sn + sn->data_off : NULL;
			return 1;
		}
		if (c->last) {
			ra->done = true;
			if (c->ret < 0) {
				*err = c->err;
				*err_path = c->err_path;
			}
			return c->ret;
		}
		/* this chunk is read: back to the reader */
		pthread_mutex_lock(&ra->mu);
		ra->tail = (ra->tail + 1) % NCHUNKS;
		ra->filled--;
		ra->cur = NULL;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
	}
}

void kt_readahead_fields_only(struct kt_readahead *ra,
			      bool (*wanted)(void *arg, const struct ktrace_stream_record *r),
			      void *arg)
{
	if (__atomic_load_n(&ra->want_set, __ATOMIC_ACQUIRE))
		return;    /* (once: the reader keeps the answers) */
	ra->want = wanted;
	ra->want_arg = arg;
	__atomic_store_n(&ra->want_set, true, __ATOMIC_RELEASE);
}

void kt_readahead_stop(struct kt_readahead *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->mu);
	__atomic_store_n(&ra->stop, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_join(ra->thread, NULL);
	pthread_mutex_destroy(&ra->mu);
	pthread_cond_destroy(&ra->cv);
	for (int i = 0; i < NCHUNKS; i++)
		free(ra->chunks[i].data);
	free(ra->wanted);
	free(ra);
}
