// SPDX-License-Identifier: MIT
/*
 * The timeline page (timeline_writers.h): one HTML file with everything inside. In
 * document order: the styles, then the column chunks as <script type="text/x-ktl">
 * blocks written while the trace is read (memory stays bounded by a chunk per thread),
 * then the skeleton dictionaries and the metadata (JSON), then the page's script, which
 * draws the picture from them (lib/sinks/timeline/page.js), then the line chunks (in
 * the order their threads finished them; the page finds them by id): they come last so
 * that the browser runs the script and draws before it parses them (they are most of
 * the page, and read only to show a record's line). Both parts are written while the
 * trace is read; timeline_layout.c says where each goes meanwhile and puts them
 * together at the end.
 *
 * Column chunks ("e0", "e1"...): TL_ECHUNK records each, an LZ4 block each when the
 *   tag says data-c="lz4" (as the line chunks are), else the consecutive parts of
 *   one raw deflate stream (base64 each; the last part, empty, only ends it), of
 *   varint count, 5 varint column lengths, then the columns, one varint per record
 *   (the arguments column only for some classes):
 *     time since the previous record (ns), CPU + 1 (0 unknown), event name index,
 *     task + 1 (0 none), arguments (lost events only): the count.
 * State chunks ("s0", "s1"...): the thread intervals of the engine's model
 *   (engine_model.h, docs/model.md; made by the model thread, timeline_write.c),
 *   TL_SCHUNK each, in the order the model hands them
 *   out (the order they end), an LZ4 block or raw deflate each (whole), of varint count,
 *   5 varint column lengths, then the columns, one varint per interval: thread + 1 (the
 *   model thread's: the metadata's smap gives the metadata's thread), state (the metadata's states: "Running", "R", "R+", "S",
 *   "D"..., "?"), CPU + 1 (0 none), its end (its start when still open) minus the
 *   previous interval's (zigzag; the first's from the first record: mostly 0 or small,
 *   as they come in the order they end), 0 when it is still open at the input's end,
 *   else 1 + its start minus the end of the thread's interval before (zigzag; the
 *   first record's time for its first: mostly 0, a thread's intervals follow one
 *   another). The Running intervals are the CPUs' slices, the idle thread's (tid 0)
 *   too.
 * Wakeup chunks ("w0"...): the model's wakeup latencies (made as the state chunks),
 *   TL_SCHUNK each, in the order they end, of varint count, 3 varint column lengths,
 *   then the columns, one varint per latency: thread + 1 (as the state chunks'), its
 *   waker + 1 (0 unknown), its end (where the thread is switched in) minus the previous
 *   latency's (zigzag; the first's from the first record). The rest is in the thread's
 *   intervals: the latency is the R interval that ends there (none: a latency of 0),
 *   the CPU the Running one that starts there.
 * Line chunks ("l0"...): TL_LCHUNK records each, made by the line threads
 *   (timeline_lines.c), compressed + base64 of per record its prefix style and its
 *   line's encoding (timeline_encode.h). The compression is raw deflate, or an LZ4
 *   block when the tag says data-c="lz4" (inputs of TL_LZ4_FROM of record data or more,
 *   or as asked).
 *   The style says how the page rebuilds the start of the line from the record's
 *   columns; the rebuilt prefix is the one ktrace_stream_format makes (the trace.dat
 *   source says which style it used, for the other formats the writer makes the prefix
 *   and compares), else the whole line is encoded (style 0):
 *     1: trace-cmd, µs: "%16s-%-5d [%03d] %5llu.%06llu: %s: " + pad to 20 for the name
 *     2: trace-cmd, ns: "%16s-%-5d [%03d]%12llu: %s: " + pad
 *     3: other formats: "%16s-%-5lld [%03d|---] %5llu.%06llu: %-20s "
 *   plus 4 * (label + 1) when the line starts with a label (labels in the metadata):
 *   the buffer or file name trace-cmd prints first for instances and several files.
 *   The chunk's data-d is the line thread whose skeleton dictionary it uses.
 * Dictionaries ("dict0"... one per line thread): deflate + base64 of the skeletons
 *   (varint length, bytes each).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/check.h"
#include "common/cpus.h"
#include "common/grow.h"
#include "common/json.h"
#include "common/outfile.h"
#include "engine/engine.h"
#include "sinks/timeline/timeline_assets.h"
#include "sinks/timeline/timeline_writers.h"

/* line threads when none are asked for, at most (see TL_THREADS_BUDGET too) */
#define TL_AUTO_THREADS 4

static void put(struct tl_html *h, const char *s)
{
	kt_out_write(h->out, s, strlen(s));
}

/* Text for HTML content and attribute values. */
static void put_escaped(struct ktrace_out *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': kt_out_puts(out, "&lt;"); break;
		case '>': kt_out_puts(out, "&gt;"); break;
		case '&': kt_out_puts(out, "&amp;"); break;
		case '"': kt_out_puts(out, "&quot;"); break;
		default: kt_out_putc(out, *s);
		}
	}
}

/* What the other line threads may take together (each holds a stream with its own
 * event formats and symbols: 16 MiB with a 5 MB kallsyms), so that a page is made within
 * 64 MiB whatever the machine, and what one takes besides its stream. */
#define TL_THREADS_BUDGET ((size_t)24 << 20)
#define TL_THREAD_BYTES ((size_t)8 << 20)     /* (of which up to 4 MiB its lines by record) */

/* Inputs of this much record data or more (kt_stream_data_bytes) have their line chunks
 * in LZ4 blocks: several times
 * faster to make than deflate for a page about 1.3 times bigger (still a fifth of a big
 * trace.dat); smaller ones in deflate, whose pages are smaller (the script and the
 * styles are a bigger part of them) and made in no time either way. */
#define TL_LZ4_FROM ((uint64_t)16 << 20)

/* How many threads make the lines: o->threads (at most TL_MAX_THREADS), else one per
 * usable CPU (at most TL_AUTO_THREADS) for much record data (kt_bytes_threads of
 * kt_stream_data_bytes), fewer when their streams would pass the budget. */
static unsigned line_threads(const struct ktrace_view_timeline_opts *o, struct ktrace_stream *s,
			     uint64_t bytes)
{
	unsigned n = kt_bytes_threads(bytes, o->threads, TL_AUTO_THREADS);
	size_t each;

	if (o->threads)
		return n > TL_MAX_THREADS ? TL_MAX_THREADS : n;
	each = kt_stream_registry_bytes(s) + TL_THREAD_BYTES;
	while (n > 1 && (n - 1) * each > TL_THREADS_BUDGET)
		n--;
	return n;
}

int tl_html_begin(struct tl_html *h, struct ktrace_out *out, struct tl_model *m,
		  struct ktrace_stream *s, const struct ktrace_view_timeline_opts *o, bool model_lines)
{
	const char *title = o->title ? o->title : o->paths[0];
	/* (the data once decompressed: a zstd trace.dat's is ten times its file; UINT64_MAX:
	 * not files) */
	uint64_t bytes = kt_stream_data_bytes(s, o->paths, o->npaths);
	unsigned want = line_threads(o, s, bytes);

	memset(h, 0, sizeof(*h));
	if (pthread_mutex_init(&h->mu, NULL))
		return -ENOMEM;
	kt_turns_init(&h->claims, NULL, NULL);
	/* (from here on tl_html_free has something to free: layout.dest is set) */
	tl_layout_open(&h->layout, out);
	h->out = tl_layout_head(&h->layout);
	h->o = o;
	h->m = m;
	h->ninputs = ktrace_stream_source_count(s);
	h->nthr = 1;
	h->driven = h->spare = -1;
	h->lz4 = o->lines_codec == KTRACE_TIMELINE_LINES_LZ4 ||
		 (!o->lines_codec && bytes != UINT64_MAX && bytes >= TL_LZ4_FROM);
	if (tl_lines_init(&h->lines[0], h, 0))
		return -ENOMEM;
	put(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>ktrace timeline: ");
	put_escaped(h->out, title);
	put(h, "</title>\n<style>\n");
	put(h, tl_asset_page_css);
	put(h, "</style></head>\n<body>\n<div id=\"ktl\">Loading the timeline&hellip; "
	       "(it needs JavaScript)</div>\n");
	/* the other line threads, each with a dictionary of its own; one that cannot start
	 * takes no chunk (the first thread gets to them) */
	for (unsigned i = 1; i < want; i++) {
		struct tl_lines *l = &h->lines[h->nthr];

		if (tl_lines_init(l, h, h->nthr)) {
			tl_lines_free(l);
			break;
		}
		l->tid = h->nthr;
		h->nthr++;
	}
	h->has_cv = !pthread_cond_init(&h->opened_cv, NULL);
	for (unsigned i = 1; i < h->nthr; i++)
		h->lines[i].running = !pthread_create(&h->lines[i].th, NULL, tl_lines_thread, &h->lines[i]);
	/* and a spare for the model thread, if it comes (tl_html_drive_spare) */
	if (model_lines && h->nthr >= 2 && h->nthr < TL_MAX_THREADS) {
		struct tl_lines *l = &h->lines[h->nthr];

		if (tl_lines_init(l, h, h->nthr)) {
			tl_lines_free(l);
		} else {
			l->tid = h->nthr;
			h->spare = (int)h->nthr++;
		}
	}
	return 0;
}

struct tl_lines *tl_html_drive_spare(struct tl_html *h)
{
	if (h->spare < 0 || h->driven >= 0)
		return NULL;
	/* the last line thread stops at its next chunk: the model thread takes its place */
	atomic_store(&h->lines[h->spare - 1].retire, true);
	h->driven = h->spare;
	return &h->lines[h->driven];
}

void tl_html_wait_opened(struct tl_html *h)
{
	unsigned n = 0;

	for (unsigned i = 1; i < h->nthr; i++)
		n += h->lines[i].running;
	pthread_mutex_lock(&h->mu);
	while (h->has_cv && h->nopened < n)
		pthread_cond_wait(&h->opened_cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
}

void tl_html_put_block(struct tl_html *h, const char *id, uint64_t k, size_t n, int dict,
		       const struct tl_buf *b64, uint64_t lines, bool lz4)
{
	/* line chunks (the blocks that name a dictionary) go where the layout says */
	struct ktrace_out *o = dict >= 0 ? tl_layout_lines(&h->layout) : h->out;
	char head[128];

	if (dict >= 0)
		snprintf(head, sizeof(head),
			 "<script type=\"text/x-ktl\" id=\"%s%" PRIu64 "\" data-n=\"%zu\" data-d=\"%d\"%s>",
			 id, k, n, dict, lz4 ? " data-c=\"lz4\"" : "");
	else
		snprintf(head, sizeof(head), "<script type=\"text/x-ktl\" id=\"%s%" PRIu64 "\" data-n=\"%zu\"%s>",
			 id, k, n, lz4 ? " data-c=\"lz4\"" : "");
	pthread_mutex_lock(&h->mu);
	kt_out_puts(o, head);
	if (b64->n)
		kt_out_write(o, b64->p, b64->n);
	kt_out_puts(o, "</script>\n");
	h->lines_written += lines;
	tl_layout_wrote(&h->layout);
	pthread_mutex_unlock(&h->mu);
}

/* packed (n bytes before compression; an LZ4 block, else deflate) as block id k, in base64
 * through b64. */
static int put_packed(struct tl_html *h, const char *id, uint32_t k, size_t n, bool lz4,
		      const struct tl_buf *packed, struct tl_buf *b64)
{
	b64->n = 0;
	if (tl_base64(packed->p, packed->n, b64))
		return -ENOMEM;
	tl_html_put_block(h, id, k, n, -1, b64, 0, lz4);
	return 0;
}

/* h->packed as block id k. */
static int put_encoded(struct tl_html *h, const char *id, uint32_t k, size_t n, bool lz4)
{
	return put_packed(h, id, k, n, lz4, &h->packed, &h->b64);
}

/* The column chunks are LZ4 blocks each (big inputs: a fifth of deflate's time, 1.15
 * times its size), else the parts of one deflate stream (the page inflates them in one
 * go); finish: the last chunk, empty (for deflate the stream's end). */
static int put_column_block(struct tl_html *h, uint32_t k, const uint8_t *p, size_t n, bool finish)
{
	h->packed.n = 0;
	if (h->lz4 ? tl_lz4(&h->ezip, p, n, &h->packed)
		   : tl_deflate_part(&h->ezip, p, n, &h->packed, TL_DEFLATE_LEVEL, finish))
		return -ENOMEM;
	return put_encoded(h, "e", k, n, h->lz4);
}

static int flush_columns(struct tl_html *h)
{
	struct tl_buf *c = &h->chunk;
	int ret;

	if (!h->ecount)
		return 0;
	c->n = 0;
	ret = tl_buf_varint(c, h->ecount);
	for (int i = 0; i < 5 && !ret; i++)
		ret = tl_buf_varint(c, h->col[i].n);
	for (int i = 0; i < 5 && !ret; i++)
		ret = tl_buf_put(c, h->col[i].p, h->col[i].n);
	for (int i = 0; i < 5; i++)
		h->col[i].n = 0;
	h->ecount = 0;
	if (ret)
		return -ENOMEM;
	return put_column_block(h, h->nechunks++, c->p, c->n, false);
}

int tl_html_add(struct tl_html *h, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		const struct tl_rec *tr)
{
	const struct tl_model *m = h->m;
	uint64_t ts = m->last_ts;
	bool own;
	int ret = 0;

	if (!h->started) {
		h->prev_ts = m->first_ts;
		h->started = true;
	}
	ret |= tl_buf_varint(&h->col[0], ts - h->prev_ts);
	h->prev_ts = ts;
	ret |= tl_buf_varint(&h->col[1], r->cpu >= 0 && (size_t)r->cpu < m->ncpus ? (uint64_t)r->cpu + 1 : 0);
	ret |= tl_buf_varint(&h->col[2], tr->cls == TL_LOST ? 0 : tr->name);
	ret |= tl_buf_varint(&h->col[3], tr->task == TL_NO_THREAD ? 0 : (uint64_t)tr->task + 1);
	if (tr->cls == TL_LOST)
		ret |= tl_buf_varint(&h->col[4], tr->lost);
	if (ret)
		return -ENOMEM;
	if (++h->ecount == TL_ECHUNK && (ret = flush_columns(h)))
		return ret;
	/* the report line, when its chunk is this thread's */
	return tl_lines_record(&h->lines[0], 0, s, r, m->nrecs - 1, &own);
}

/* A chunk of intervals ("s": 5 columns) or wakeups ("w": 3), packed as the other
 * chunks (deflate: small inputs, whose pages are small; a higher level than the other
 * chunks' takes a tenth off, in little time for intervals only). */
static int flush_small(struct tl_html *h, struct tl_buf *cols, int ncols, size_t *count,
		       const char *prefix, uint32_t *nchunks)
{
	struct tl_buf *c = &h->schunk;
	int ret;

	if (!*count)
		return 0;
	c->n = 0;
	ret = tl_buf_varint(c, *count);
	for (int i = 0; i < ncols && !ret; i++)
		ret = tl_buf_varint(c, cols[i].n);
	for (int i = 0; i < ncols && !ret; i++)
		ret = tl_buf_put(c, cols[i].p, cols[i].n);
	for (int i = 0; i < ncols; i++)
		cols[i].n = 0;
	*count = 0;
	if (ret)
		return ret;
	h->spacked.n = 0;
	if (h->lz4 ? tl_lz4(&h->szip, c->p, c->n, &h->spacked)
		   : tl_deflate(&h->szip, c->p, c->n, &h->spacked, 6))
		return -ENOMEM;
	return put_packed(h, prefix, (*nchunks)++, c->n, h->lz4, &h->spacked, &h->sb64);
}

static int flush_states(struct tl_html *h)
{
	return flush_small(h, h->states, 5, &h->scount, "s", &h->nschunks);
}

void tl_html_states_from(struct tl_html *h, uint64_t ts)
{
	h->sbase = h->sprev = h->wprev = ts;
}

static int flush_wakes(struct tl_html *h)
{
	return flush_small(h, h->wakes, 3, &h->wcount, "w", &h->nwchunks);
}

int tl_html_latency(struct tl_html *h, uint32_t thread, uint32_t waker, const struct kt_model_latency *l)
{
	struct tl_buf *b = h->wakes;
	uint64_t end = l->ts + (uint64_t)(l->dur > 0 ? l->dur : 0);
	int ret = 0;

	ret |= tl_buf_varint(&b[0], (uint64_t)thread + 1);
	ret |= tl_buf_varint(&b[1], waker == TL_NO_THREAD ? 0 : (uint64_t)waker + 1);
	ret |= tl_buf_varint(&b[2], tl_zigzag((int64_t)(end - h->wprev)));
	h->wprev = end;
	h->nwakes++;
	if (ret)
		return -ENOMEM;
	if (++h->wcount == TL_SCHUNK)
		return flush_wakes(h);
	return 0;
}

int tl_html_state(struct tl_html *h, uint32_t thread, uint32_t state, const struct kt_model_state *st)
{
	struct tl_buf *b = h->states;
	uint64_t end = st->dur < 0 ? st->ts : st->ts + (uint64_t)st->dur;
	int ret = 0;

	ret |= tl_buf_varint(&b[0], (uint64_t)thread + 1);
	ret |= tl_buf_varint(&b[1], state);
	ret |= tl_buf_varint(&b[2], st->cpu >= 0 ? (uint64_t)st->cpu + 1 : 0);
	ret |= tl_buf_varint(&b[3], tl_zigzag((int64_t)(end - h->sprev)));
	if (thread >= h->nprev_end) {
		size_t n = h->nprev_end;

		if (kt_grow((void **)&h->prev_end, &h->nprev_end, (size_t)thread + 1, sizeof(*h->prev_end)))
			return -ENOMEM;
		for (size_t i = n; i < h->nprev_end; i++)
			h->prev_end[i] = h->sbase;
	}
	if (st->dur < 0) {
		ret |= tl_buf_varint(&b[4], 0);
	} else {
		ret |= tl_buf_varint(&b[4], tl_zigzag((int64_t)(st->ts - h->prev_end[thread])) + 1);
		h->prev_end[thread] = end;
	}
	h->sprev = end;
	if (ret)
		return -ENOMEM;
	if (++h->scount == TL_SCHUNK)
		return flush_states(h);
	return 0;
}

/* Waits for the other line threads; their first failure (a stream error is the first
 * thread's own to report: it meets the same damage). */
static int join_lines(struct tl_html *h, bool failed)
{
	int ret = 0;

	if (failed)
		atomic_store(&h->stop, true);
	for (unsigned i = 1; i < h->nthr; i++) {
		struct tl_lines *l = &h->lines[i];

		if (!l->running)
			continue;
		pthread_join(l->th, NULL);
		l->running = false;
		if (l->ret && !ret)
			ret = l->ret;
	}
	return ret;
}

/* ---- the metadata ---- */

/* A JSON string safe inside <script>: '<' escaped too. */
static void json_str(struct ktrace_out *o, const char *s)
{
	size_t len = strlen(s);
	const uint8_t *p = (const uint8_t *)s;

	kt_out_putc(o, '"');
	while (len) {
		uint32_t cp;
		size_t k = kt_utf8_next(p, len, &cp);

		if (cp == '"' || cp == '\\') {
			kt_out_putc(o, '\\');
			kt_out_putc(o, (char)cp);
		} else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 ||
			   cp == 0x2029) {
			kt_out_printf(o, "\\u%04x", cp);
		} else {
			kt_utf8_put(o, cp);
		}
		p += k;
		len -= k;
	}
	kt_out_putc(o, '"');
}

static const char *format_name(enum ktrace_format f)
{
	return ktrace_detect_format_name(f);
}

static void write_meta(struct tl_html *h, struct ktrace_stream *s, const struct tl_damage *dmg,
		       uint64_t literal)
{
	struct ktrace_out *o = h->out;
	const struct tl_model *m = h->m;
	const struct ktrace_view_timeline_opts *vo = h->o;
	uint64_t first = m->any ? m->first_ts : 0;

	put(h, "<script type=\"application/json\" id=\"meta\">{\"version\":1,\"title\":");
	json_str(o, vo->title ? vo->title : vo->paths[0]);
	put(h, ",\"inputs\":[");
	for (size_t i = 0; i < ktrace_stream_source_count(s); i++) {
		const struct ktrace_stream_source *src = ktrace_stream_source(s, i);

		if (!src)
			continue;
		put(h, i ? ",{\"path\":" : "{\"path\":");
		json_str(o, src->path ? src->path : "");
		put(h, ",\"format\":");
		json_str(o, format_name(src->format));
		put(h, ",\"system\":");
		{
			char u[512];

			snprintf(u, sizeof(u), "%s %s %s", src->sysname, src->release, src->machine);
			json_str(o, u);
		}
		put(h, ",\"clock\":");
		json_str(o, src->clock ? src->clock : "");
		kt_out_printf(o, ",\"cpus\":%" PRIu32, src->cpus);
		/* where its intervals still open end: its last record (relative) */
		kt_out_printf(o, ",\"end\":%" PRIu64 "}",
			      i < m->ninputs && m->in_end[i] > first ? m->in_end[i] - first : 0);
	}
	kt_out_printf(o, "],\"base\":\"%" PRIu64 "\",\"span\":%" PRIu64 ",\"records\":%" PRIu64
		      ",\"echunk\":%d,\"echunks\":%" PRIu32 ",\"lchunk\":%d,\"lchunks\":%" PRIu32
		      ",\"schunks\":%" PRIu32 ",\"wchunks\":%" PRIu32 ",\"wakeups\":%" PRIu64
		      ",\"top\":%u,\"lost\":%" PRIu64 ",\"literal_lines\":%" PRIu64,
		      first, m->any ? m->last_ts - first : 0, m->nrecs, TL_ECHUNK, h->nechunks,
		      TL_LCHUNK, (uint32_t)((m->nrecs + TL_LCHUNK - 1) / TL_LCHUNK), h->nschunks, h->nwchunks, h->nwakes,
		      vo->top_threads,
		      m->lost_total, literal);
	if (vo->has_from)
		kt_out_printf(o, ",\"from\":%" PRIu64, vo->from > first ? vo->from - first : 0);
	if (vo->has_to)
		kt_out_printf(o, ",\"to\":%" PRIu64, vo->to > first ? vo->to - first : 0);
	put(h, ",\"damage\":");
	if (dmg->set) {
		kt_out_printf(o, "{\"at\":%" PRIu64 ",\"message\":", dmg->ts - first);
		json_str(o, dmg->message);
		put(h, "}");
	} else {
		put(h, "null");
	}
	put(h, ",\n\"cpus\":[");
	for (size_t i = 0, k = 0; i < m->ncpus; i++) {
		const struct tl_cpu *c = &m->cpus[i];

		if (!c->seen)
			continue;
		kt_out_printf(o, "%s[%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", k++ ? "," : "",
			      i, c->nswitch, c->nevents, c->lost, c->lost_marks);
	}
	put(h, "],\n\"names\":[");
	for (size_t i = 0; i < m->nnames; i++) {
		put(h, i ? ",[" : "[");
		json_str(o, m->names[i]);
		kt_out_printf(o, ",%u,", m->name_cls[i]);
		json_str(o, m->name_sys[i]);
		kt_out_printf(o, ",%" PRIu32 "]", m->name_input[i]);
	}
	put(h, "],\n\"threads\":[");
	for (size_t i = 0; i < m->threads.n; i++) {
		const struct kt_thread *e = tl_thread_entry(m, (uint32_t)i);
		const struct tl_thread *t = tl_thread_at(m, (uint32_t)i);

		kt_out_printf(o, "%s[%" PRId64 ",%" PRId64 ",", i ? "," : "", e->id, e->pid);
		json_str(o, kt_thread_name(e));
		kt_out_printf(o, ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 "]", t->cpu_ns, t->nrecs, e->scope);
	}
	put(h, "],\n\"smap\":[");
	for (size_t i = 0; i < h->nsmap; i++)
		kt_out_printf(o, "%s%" PRIu32, i ? "," : "", h->smap[i]);
	put(h, "],\n\"states\":[");
	for (size_t i = 0; i < m->state_tab.n; i++) {
		put(h, i ? "," : "");
		json_str(o, m->state_tab.strs[i].s);
	}
	put(h, "],\n\"labels\":[");
	for (size_t i = 0; i < h->nlabels; i++) {
		put(h, i ? "," : "");
		json_str(o, h->labels[i]);
	}
	put(h, "],\n\"tasks\":[");
	for (size_t i = 0; i < m->ntasks; i++) {
		kt_out_printf(o, "%s[%" PRIu32 ",", i ? "," : "", m->tasks[i].thread);
		json_str(o, tl_task_comm(m, (uint32_t)i));
		put(h, "]");
	}
	put(h, "]}</script>\n");
}

int tl_html_end(struct tl_html *h, struct ktrace_stream *s, const struct tl_damage *dmg,
		struct ktrace_error *err)
{
	int ret = flush_columns(h);
	uint64_t literal = 0;

	if (!ret)
		ret = flush_states(h);
	if (!ret)
		ret = flush_wakes(h);
	if (!ret)
		ret = tl_lines_finish(&h->lines[0]);
	if (!ret)   /* the end of the column stream, as a last (empty) chunk */
		ret = put_column_block(h, h->nechunks++, NULL, 0, true);
	if (ret) {
		join_lines(h, true);
		return ktrace_error_set(err, ret, "out of memory");
	}
	ret = join_lines(h, false);
	if (ret)
		return ret == -ENOMEM ? ktrace_error_set(err, ret, "a line thread: out of memory") : ret;
	/* every record's line made once: the threads read the same records */
	if (h->lines_written != h->m->nrecs)
		return ktrace_error_set(err, -EIO, "the line threads made %" PRIu64 " lines for %" PRIu64
					" records (an input changed while it was read?)",
					h->lines_written, h->m->nrecs);
	for (unsigned i = 0; i < h->nthr; i++) {
		struct tl_lines *l = &h->lines[i];

		literal += l->literal;
		if (i && !l->nchunks)
			continue;      /* (no chunk names its dictionary) */
		h->packed.n = 0;
		if (tl_deflate(&l->zip, l->dict.data.p, l->dict.data.n, &h->packed, TL_DEFLATE_LEVEL) ||
		    put_encoded(h, "dict", i, l->dict.data.n, false))
			return kt_error_oom(err);
	}
	write_meta(h, s, dmg, literal);
	put(h, "<script>\n");
	put(h, tl_asset_page_js);
	put(h, "</script>\n");
	if ((ret = tl_layout_join(&h->layout, err)))
		return ret;
	kt_out_puts(h->layout.dest, "</body></html>\n");
	return 0;
}

void tl_html_free(struct tl_html *h)
{
	if (!h->layout.dest)
		return;
	join_lines(h, true);
	for (unsigned i = 0; i < h->nthr; i++)
		tl_lines_free(&h->lines[i]);
	tl_zip_free(&h->ezip);
	tl_zip_free(&h->szip);
	for (int i = 0; i < 5; i++) {
		tl_buf_free(&h->states[i]);
		if (i < 3)
			tl_buf_free(&h->wakes[i]);
	}
	free(h->prev_end);
	free(h->smap);
	tl_buf_free(&h->schunk);
	tl_buf_free(&h->spacked);
	tl_buf_free(&h->sb64);
	for (int i = 0; i < 5; i++)
		tl_buf_free(&h->col[i]);
	tl_buf_free(&h->packed);
	tl_buf_free(&h->b64);
	tl_buf_free(&h->chunk);
	tl_layout_free(&h->layout);
	for (size_t i = 0; i < h->nlabels; i++)
		free(h->labels[i]);
	kt_turns_fini(&h->claims);
	if (h->has_cv)
		pthread_cond_destroy(&h->opened_cv);
	pthread_mutex_destroy(&h->mu);
	memset(h, 0, sizeof(*h));
}
