// SPDX-License-Identifier: MIT
/*
 * The timeline page's report lines (timeline_writers.h, struct tl_lines), made by
 * several threads at once. Every thread reads every record with a stream of its own;
 * the records go in chunks of TL_LCHUNK, and each chunk is made by the thread that gets
 * to it first (kt_turns_claim): its lines formatted, cut against the thread's own
 * skeleton dictionary, deflated, base64'd and written as one <script> block (the page
 * finds the blocks by id, so their order in the file does not matter). The first thread
 * also runs the model and writes the columns (timeline_html.c); the others pass over
 * the records of the chunks they do not make (kt_stream_skip), keeping only their time.
 *
 * A line's prefix style (timeline_html.c) is found from the record alone: the model's
 * task of a record has its comm (cut to TL_COMM_MAX - 1 bytes), its thread the record's
 * tid, and the page's times are the records' made monotonic, as here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "engine/engine.h"
#include "sinks/timeline/timeline_writers.h"

/*
 * The lines a thread made, by their record's bytes (kt_stream_text_key): most records of
 * a trace repeat the bytes of an earlier one (the same threads switching, the same
 * calls: only 1 to 6 lines in 100 were new after the prefix in recorded traces of the
 * bench's mixes), and their text after the prefix is then that one's. Its skeleton and
 * holes are encoded again (tl_encode_again) behind the record's own label, without
 * formatting the text or cutting it up. One line per slot, by the bytes' hash; the last
 * one made stays.
 *
 * The table starts small (1 MiB: a sched trace's lines found in 89 lookups in 100, its
 * slots mostly in the CPU's cache) and grows, emptied, up to 4 MiB while it finds fewer
 * than half the lines it is asked for (records that come back after more others, as in
 * the bench's all-events trace: 48 in 100 with 1 MiB).
 */
#define TL_MEMO_SLOTS 4096             /* at first */
#define TL_MEMO_MAX_SLOTS 16384
#define TL_MEMO_ROUND 16384            /* lookups between two looks at the hits */
#define TL_MEMO_KEY 79                 /* record bytes at most (a sched_switch: 64) */
#define TL_MEMO_HOLES 16
struct tl_memo_line {                  /* (256 bytes: a slot is 4 cache lines, 1 MiB in all) */
	uint64_t hash;
	const char *name;              /* the event (one pointer per event of an input) */
	uint32_t source, buffer;
	uint32_t id;                   /* the text's skeleton */
	uint16_t len;                  /* bytes of key (0: an empty slot) */
	uint8_t nh;
	uint8_t tag;                   /* the line's (tl_lines' labels: none) */
	uint8_t hex[TL_MEMO_HOLES];    /* the holes: hex digits (0 decimal), values */
	uint8_t key[TL_MEMO_KEY];
	uint64_t value[TL_MEMO_HOLES];
};

int tl_lines_init(struct tl_lines *l, struct tl_html *h, unsigned dict_id)
{
	memset(l, 0, sizeof(*l));
	l->h = h;
	l->dict_id = dict_id;
	l->block = UINT64_MAX;
	tl_dict_init(&l->dict);
	l->style = calloc(h->ninputs ? h->ninputs : 1, 1);
	l->line_cap = 4096;
	l->line = malloc(l->line_cap);
	return l->style && l->line ? 0 : -ENOMEM;
}

void tl_lines_free(struct tl_lines *l)
{
	tl_dict_free(&l->dict);
	tl_buf_free(&l->enc);
	tl_buf_free(&l->packed);
	tl_buf_free(&l->b64);
	tl_zip_free(&l->zip);
	free(l->style);
	free(l->line);
	kt_bigmem_free(l->memo, l->memo_slots * sizeof(*l->memo));
	memset(l, 0, sizeof(*l));
}

/* The index of a line label (a buffer or file name column that trace-cmd puts in front
 * of the lines of traces with instances or of several files), added when new; -1 when
 * there are too many. The thread's own list first, then the page's (under its lock). */
static int label_id(struct tl_lines *l, const char *p, size_t n)
{
	struct tl_html *h = l->h;
	int id = -1;

	for (size_t i = 0; i < l->nlabels; i++)
		if (l->label_len[i] == n && !memcmp(h->labels[l->label_ids[i]], p, n))
			return l->label_ids[i];
	pthread_mutex_lock(&h->mu);
	for (size_t i = 0; i < h->nlabels && id < 0; i++)
		if (strlen(h->labels[i]) == n && !memcmp(h->labels[i], p, n))
			id = (int)i;
	if (id < 0 && h->nlabels < TL_MAX_LABELS && (h->labels[h->nlabels] = strndup(p, n)))
		id = (int)h->nlabels++;
	pthread_mutex_unlock(&h->mu);
	if (id >= 0 && l->nlabels < TL_MAX_LABELS) {
		l->label_ids[l->nlabels] = id;
		l->label_len[l->nlabels++] = n;
	}
	return id;
}

/* The style whose prefix starts line (0: none) and the prefix's length: the style, plus
 * 4 * (label + 1) when a label comes before it. */
static int find_style(struct tl_lines *l, const struct ktrace_stream_record *r, uint64_t ts,
		      const char *line, size_t n, size_t *plen)
{
	char comm[TL_COMM_MAX], buf[512];
	const char *name = r->name && *r->name ? r->name : "(unknown)";
	int cpu = r->cpu >= 0 && r->cpu < TL_MAX_CPUS ? r->cpu : -1;
	uint8_t *pref = r->source < l->h->ninputs ? &l->style[r->source] : NULL;
	static const int order[] = { 1, 2, 3 };

	if (r->kind == KTRACE_STREAM_LOST || r->tid < 0)
		return 0;
	snprintf(comm, sizeof(comm), "%s", r->comm ? r->comm : "");
	if (strlen(comm) + strlen(name) > 200)
		return 0;
	for (int i = -1; i < 3; i++) {
		int st = i < 0 ? (pref ? *pref : 0) : order[i];
		size_t k;
		const char *at;

		if (!st || (i >= 0 && pref && st == *pref))
			continue;
		k = kt_line_prefix(buf, st, comm, r->tid, cpu, ts, name);
		if (k <= n && !memcmp(buf, line, k)) {
			if (pref)
				*pref = (uint8_t)st;
			*plen = k;
			return st;
		}
		/* a label first: the prefix further on (labels are short) */
		at = n > k ? memmem(line, n < 256 + k ? n : 256 + k, buf, k) : NULL;
		if (at) {
			int id = label_id(l, line, (size_t)(at - line));

			if (id < 0)
				return 0;
			if (pref)
				*pref = (uint8_t)st;
			*plen = (size_t)(at - line) + k;
			return st + 4 * (id + 1);
		}
	}
	return 0;
}

/* The record's line into l->line (*n bytes; an error gives an empty line), with parts
 * (kt_stream_format_parts, how: KT_FORMAT_*). 0 or -ENOMEM. */
static int format_line(struct tl_lines *l, struct ktrace_stream *s, const struct kt_line_parts **parts,
		       unsigned how, size_t *n)
{
	for (;;) {
		int len = kt_stream_format_parts(s, l->line, l->line_cap, parts, how | KT_FORMAT_NUL_LATER);

		if (len < 0) {
			len = 0;
			l->line[0] = 0;
		}
		/* (the encoder reads up to 8 bytes past the line) */
		if ((size_t)len + 8 < l->line_cap) {
			*n = (size_t)len;
			return 0;
		}
		if (kt_grow((void **)&l->line, &l->line_cap, (size_t)len + 9, 1))
			return -ENOMEM;
	}
}

/* The tag of a line (n bytes in l->line) whose prefix the source told of or left out
 * (parts): the prefix's style and the label before it, *plen where the rest starts. 0
 * when the source did not say, or for a label past the page's room (*whole: a line
 * without its prefix is then made again whole). */
static int parts_tag(struct tl_lines *l, const struct kt_line_parts *parts, size_t n, size_t *plen,
		     bool *whole)
{
	int id;

	*whole = false;
	if ((parts->style != KT_PREFIX_USECS && parts->style != KT_PREFIX_NSECS) ||
	    parts->label + parts->prefix > n)
		return 0;
	id = parts->label ? label_id(l, l->line, parts->label) : -1;
	if (parts->label && id < 0) {
		*whole = parts->omitted;
		return 0;
	}
	*plen = parts->label + parts->prefix;
	return parts->style + (parts->label ? 4 * (id + 1) : 0);
}

_Static_assert(sizeof(struct tl_memo_line) == 256, "a memo slot is 4 cache lines");

/* An empty table of n slots, resident: its pages read before they are written would be
 * the shared zero page, and each first write then a copy whose TLB flush interrupts
 * the other CPUs (4% of the time on the bench trace, the table growing to 4 MiB). */
static struct tl_memo_line *memo_table(size_t n)
{
	struct tl_memo_line *t = kt_bigmem_alloc(n * sizeof(*t));

	if (t)
		kt_populate(t, n * sizeof(*t));
	return t;
}

/* The slot of the record's bytes key[0..n) (NULL out of memory), their hash, and
 * whether the slot holds their line. */
static struct tl_memo_line *memo_slot(struct tl_lines *l, const struct ktrace_stream_record *r,
				      const uint8_t *key, size_t n, uint64_t *hash_out, bool *found)
{
	uint64_t hash = kt_hash_bytes(key, n);
	struct tl_memo_line *m;

	*hash_out = hash;
	*found = false;
	if (l->memo_tries >= TL_MEMO_ROUND) {
		if (l->memo_hits < l->memo_tries / 2 && l->memo_slots < TL_MEMO_MAX_SLOTS) {
			struct tl_memo_line *bigger = memo_table(l->memo_slots * 4);

			if (bigger) {
				kt_bigmem_free(l->memo, l->memo_slots * sizeof(*l->memo));
				l->memo = bigger;
				l->memo_slots *= 4;
			}
		}
		l->memo_tries = l->memo_hits = 0;
	}
	if (!l->memo) {
		if (!(l->memo = memo_table(TL_MEMO_SLOTS)))
			return NULL;
		l->memo_slots = TL_MEMO_SLOTS;
	}
	m = &l->memo[hash & (l->memo_slots - 1)];
	*found = m->len && m->hash == hash && m->len == n && m->name == r->name &&
		 m->source == r->source && m->buffer == r->buffer && !memcmp(m->key, key, n);
	l->memo_tries++;
	l->memo_hits += *found;
	return m;
}

/* Slot m: the text of record r, its bytes key[0..n) of that hash, encoded as e, with its
 * line's tag (0: the stream labels its lines: the label says); a line stored whole, or
 * with too many holes, empties it. */
static void memo_keep(struct tl_memo_line *m, const struct ktrace_stream_record *r, const uint8_t *key,
		      size_t n, uint64_t hash, const struct tl_encoded *e, int tag)
{
	m->len = 0;
	if (e->id < 0 || e->id > UINT32_MAX || e->nh > TL_MEMO_HOLES || !n || n > TL_MEMO_KEY ||
	    tag < 0 || tag > UINT8_MAX)
		return;
	m->tag = (uint8_t)tag;
	m->hash = hash;
	m->name = r->name;
	m->source = r->source;
	m->buffer = r->buffer;
	m->id = (uint32_t)e->id;
	m->nh = (uint8_t)e->nh;
	for (size_t i = 0; i < e->nh; i++) {
		m->hex[i] = e->holes[i].hex;
		m->value[i] = e->holes[i].value;
	}
	memcpy(m->key, key, n);
	m->len = (uint16_t)n;
}

/* The line of a record whose text is m's: the source's label for it (without labels,
 * the prefix's style is m's), the text encoded again. 0, 1 when the source gave more
 * than a label (the line is to be made as any other), or -ENOMEM. */
static int line_again(struct tl_lines *l, struct ktrace_stream *s, const struct tl_memo_line *m)
{
	const struct kt_line_parts *parts;
	struct kt_num holes[TL_MEMO_HOLES];
	size_t n, plen = 0;
	bool whole;
	int tag = m->tag;

	if (l->labels) {
		if (format_line(l, s, &parts, KT_FORMAT_OMIT_PREFIX | KT_FORMAT_LABEL_ONLY, &n))
			return -ENOMEM;
		if (!parts->text_left || !(tag = parts_tag(l, parts, n, &plen, &whole)) || plen != n)
			return 1;
	}
	for (unsigned i = 0; i < m->nh; i++)
		holes[i] = (struct kt_num){ .value = m->value[i], .hex = m->hex[i] };
	if (tl_encode_again(&l->dict, m->id, holes, m->nh, (unsigned)tag, &l->enc))
		return -ENOMEM;
	l->count++;
	return 0;
}

/* The record's line into the current chunk: the encoding of what follows the prefix,
 * tagged with the prefix's style. */
static int add_line(struct tl_lines *l, struct ktrace_stream *s, const struct ktrace_stream_record *r)
{
	const struct kt_line_parts *parts;
	/* the page has what the source makes the prefix of (the record's time as the page's,
	 * its comm whole in the task's, its CPU a lane): the source may leave it out */
	bool page_prefix = r->ts == l->last_ts && r->tid >= 0 && r->cpu >= 0 && r->cpu < TL_MAX_CPUS &&
			   r->kind == KTRACE_STREAM_EVENT && r->name && *r->name && r->comm &&
			   strnlen(r->comm, TL_COMM_MAX) < TL_COMM_MAX;
	struct tl_memo_line *memo = NULL;
	struct tl_encoded enc;
	const uint8_t *key = NULL;
	size_t plen = 0, n, klen = 0;
	uint64_t hash = 0;
	bool whole;
	int st;

	if (page_prefix && !kt_stream_text_key(s, &key, &klen) && klen && klen <= TL_MEMO_KEY) {
		bool found;

		if (!l->memo)
			l->labels = kt_stream_labels_lines(s);
		memo = memo_slot(l, r, key, klen, &hash, &found);
		if (found) {
			int ret = line_again(l, s, memo);

			if (ret <= 0)
				return ret;
		}
	}
	if (format_line(l, s, &parts, page_prefix ? KT_FORMAT_OMIT_PREFIX : 0, &n))
		return -ENOMEM;
	st = page_prefix ? parts_tag(l, parts, n, &plen, &whole) : 0;
	/* (only a text after a prefix left out is the record's alone) */
	if (!st || !parts->omitted)
		memo = NULL;
	if (!st && page_prefix && whole) {
		/* too many labels: the whole line, as it is */
		if (format_line(l, s, &parts, 0, &n))
			return -ENOMEM;
	}
	if (!st && parts->nul_later)
		n = strnlen(l->line, n);        /* (the encoder looks for it otherwise) */
	if (!st)
		st = find_style(l, r, l->last_ts, l->line, n, &plen);
	if (!st)
		l->literal++;
	{
		/* the formatter's numbers, from where the encoded part starts (mostly where
		 * the text does: as they are) */
		const struct kt_num *nums = parts->nums;
		unsigned nn = parts->nnums;

		if (parts->text_at != plen) {
			nn = 0;
			for (unsigned i = 0; i < parts->nnums; i++) {
				size_t at = parts->nums[i].at + parts->text_at;

				if (at >= plen) {
					l->nums[nn] = parts->nums[i];
					l->nums[nn++].at = (uint32_t)(at - plen);
				}
			}
			nums = l->nums;
		}
		if (tl_encode_line_nums(&l->dict, l->line + plen, n - plen, nums, nn,
					(int)(((uintptr_t)r->name >> 3) % TL_DICT_HINTS),
					TL_ENC_ZEROED | (parts->nul_later ? TL_ENC_NUL_ENDS : 0),
					(unsigned)st, &l->enc, &enc))
			return -ENOMEM;
	}
	if (memo)
		memo_keep(memo, r, key, klen, hash, &enc, l->labels ? 0 : st);
	l->count++;
	return 0;
}

/* The current chunk to the page: deflate, base64, one <script> block. */
static int end_chunk(struct tl_lines *l)
{
	if (l->block == UINT64_MAX)
		return 0;
	l->packed.n = 0;
	l->b64.n = 0;
	if ((l->h->lz4 ? tl_lz4(&l->zip, l->enc.p, l->enc.n, &l->packed)
			     : tl_deflate(&l->zip, l->enc.p, l->enc.n, &l->packed, TL_DEFLATE_LEVEL)) ||
	    tl_base64(l->packed.p, l->packed.n, &l->b64))
		return -ENOMEM;
	tl_html_put_block(l->h, "l", l->block, l->enc.n, (int)l->dict_id, &l->b64, l->count,
			  l->h->lz4);
	l->nchunks++;
	l->enc.n = 0;
	l->count = 0;
	l->block = UINT64_MAX;
	return 0;
}

int tl_lines_record(struct tl_lines *l, unsigned tid, struct ktrace_stream *s,
		    const struct ktrace_stream_record *r, uint64_t k, bool *own)
{
	uint64_t b = k / TL_LCHUNK;
	int ret;

	if (r->ts > l->last_ts)
		l->last_ts = r->ts;      /* the page's times only go forward (the model's) */
	if (!(k % TL_LCHUNK)) {
		if ((ret = end_chunk(l)))
			return ret;
		l->own = kt_turns_claim(&l->h->claims, b, tid, l->h->nthr);
		if (l->own) {
			l->block = b;
			tl_dict_new_chunk(&l->dict);
		}
	}
	*own = l->own;
	return l->own ? add_line(l, s, r) : 0;
}

int tl_lines_finish(struct tl_lines *l)
{
	return end_chunk(l);
}

/* ---- the other threads ---- */

bool tl_lines_passed(void *arg, uint32_t event_id, int64_t tid, int32_t cpu, uint64_t ts)
{
	struct tl_lines *l = arg;

	(void)event_id;
	(void)tid;
	(void)cpu;
	if (ts > l->last_ts)
		l->last_ts = ts;
	return true;
}

/* A line thread: its own stream, every record read, the chunks it gets to first made. */
void *tl_lines_thread(void *arg)
{
	struct tl_lines *l = arg;
	struct tl_html *h = l->h;
	const struct ktrace_view_timeline_opts *o = h->o;
	struct ktrace_stream *s = NULL;
	const struct ktrace_stream_record *r;
	const struct kt_stream_skip how = { tl_lines_passed, l };
	uint64_t k = 0;
	int ret, sret;

	ret = ktrace_stream_open(&s, o->paths, o->npaths, o->stream, &l->err, NULL);
	pthread_mutex_lock(&h->mu);
	h->nopened++;
	if (h->has_cv)
		pthread_cond_broadcast(&h->opened_cv);
	pthread_mutex_unlock(&h->mu);
	if (ret) {
		/* it takes no chunk: the others make them all */
		l->started = false;
		return NULL;
	}
	l->started = true;
	for (;;) {
		bool own;
		uint64_t skipped = 0;

		sret = ktrace_stream_next(s, &r, &l->err);
		if (sret <= 0 || atomic_load_explicit(&h->stop, memory_order_relaxed))
			break;
		/* (retired: its chunk done, the others take the next ones) */
		if (!(k % TL_LCHUNK) && atomic_load_explicit(&l->retire, memory_order_relaxed))
			break;
		ret = tl_lines_record(l, l->tid, s, r, k, &own);
		if (ret)
			break;
		if (!own && (k + 1) % TL_LCHUNK) {
			sret = kt_stream_skip(s, TL_LCHUNK - 1 - k % TL_LCHUNK, &how, &skipped, &l->err);
			if (sret < 0)
				break;
		}
		k += 1 + skipped;
	}
	if (!ret)
		ret = tl_lines_finish(l);
	/* damage ends this thread's records where it ends the first thread's: its error is
	 * the first thread's to report; anything else fails the page */
	l->ret = ret;
	ktrace_stream_close(s);
	return NULL;
}
