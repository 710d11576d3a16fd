// SPDX-License-Identifier: MIT
/*
 * The timeline page (timeline_writers.h): one HTML file with everything inside. In
 * document order: the styles, then the data as <script type="text/x-ktl"> blocks
 * written while the trace is read (memory stays bounded by one chunk), then the
 * skeleton dictionary and the metadata (JSON), then the page's script, which reads
 * them all (lib/views/timeline/page.js).
 *
 * Column chunks ("e0", "e1"...): TL_ECHUNK records each, as the consecutive parts of
 *   one raw deflate stream (base64 each; the last part only ends the stream), of
 *   varint count, 5 varint column lengths, then the columns, one varint per record
 *   (the arguments column only for some classes):
 *     time since the previous record (ns), CPU + 1 (0 unknown), event name index,
 *     task + 1 (0 none), arguments: switch: prev thread + 1, next thread + 1,
 *     1 when the previous thread was preempted; wakeup: woken thread + 1; lost: count.
 * Line chunks ("l0"...): TL_LCHUNK records each, deflate + base64 of per record its
 *   prefix style and its line's encoding (timeline_encode.h). The style says how the
 *   page rebuilds the start of the line from the record's columns; the writer checks
 *   that the rebuilt prefix equals ktrace_stream_format's, and otherwise encodes the
 *   whole line (style 0):
 *     1: trace-cmd, µs: "%16s-%-5d [%03d] %5llu.%06llu: %s: " + pad to 20 for the name
 *     2: trace-cmd, ns: "%16s-%-5d [%03d]%12llu: %s: " + pad
 *     3: other formats: "%16s-%-5lld [%03d|---] %5llu.%06llu: %-20s "
 *   plus 4 * (label + 1) when the line starts with a label (labels in the metadata):
 *   the buffer or file name trace-cmd prints first for instances and several files.
 * Dictionary ("dict"): deflate + base64 of the skeletons (varint length, bytes each).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/json.h"
#include "engine/line_prefix.h"
#include "views/timeline_assets.h"
#include "views/timeline_writers.h"

/* zlib's fastest level: a third of level 6's time for 1.2x the size on big traces */
#define DEFLATE_LEVEL 1

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

static void *worker_main(void *arg);

int tl_html_begin(struct tl_html *h, struct ktrace_out *out, struct tl_model *m,
		  struct ktrace_stream *s, const struct ktrace_view_timeline_opts *o)
{
	const char *title = o->title ? o->title : o->paths[0];

	memset(h, 0, sizeof(*h));
	h->out = out;
	h->o = o;
	h->m = m;
	tl_dict_init(&h->dict);
	h->ninputs = ktrace_stream_source_count(s);
	h->style = calloc(h->ninputs ? h->ninputs : 1, 1);
	h->line_cap = 4096;
	h->line = malloc(h->line_cap);
	if (!h->style || !h->line)
		return -ENOMEM;
	/* one worker thread encodes, compresses and writes the chunks while the stream is
	 * read; without it (one CPU, no thread) the same is done in place */
	h->nfree = 0;
	for (size_t i = 0; i < TL_JOBS; i++)
		h->freejobs[h->nfree++] = &h->jobs[i];
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1 && !pthread_mutex_init(&h->mu, NULL)) {
		if (pthread_cond_init(&h->cv, NULL)) {
			pthread_mutex_destroy(&h->mu);
		} else if (pthread_create(&h->worker, NULL, worker_main, h)) {
			pthread_cond_destroy(&h->cv);
			pthread_mutex_destroy(&h->mu);
		} else {
			h->threaded = true;
		}
	}
	put(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>ktrace timeline: ");
	put_escaped(out, title);
	put(h, "</title>\n<style>\n");
	put(h, tl_asset_page_css);
	put(h, "</style></head>\n<body>\n<div id=\"ktl\">Loading the timeline&hellip; "
	       "(it needs JavaScript)</div>\n");
	return 0;
}

static int put_encoded(struct tl_html *h, const char *id, uint32_t k, size_t n)
{
	char head[96];

	h->b64.n = 0;
	if (tl_base64(h->packed.p, h->packed.n, &h->b64))
		return -ENOMEM;
	snprintf(head, sizeof(head), "<script type=\"text/x-ktl\" id=\"%s%" PRIu32 "\" data-n=\"%zu\">",
		 id, k, n);
	put(h, head);
	if (h->b64.n)
		kt_out_write(h->out, h->b64.p, h->b64.n);
	put(h, "</script>\n");
	return 0;
}

/* A block of its own (line chunks, the dictionary): one whole deflate stream. */
static int put_block(struct tl_html *h, const char *id, uint32_t k, const uint8_t *p, size_t n)
{
	h->packed.n = 0;
	if (tl_deflate(&h->zip, p, n, &h->packed, DEFLATE_LEVEL))
		return -ENOMEM;
	return put_encoded(h, id, k, n);
}

/* The column chunks are the parts of one deflate stream (the page inflates them in one
 * go); finish: the stream's end, after the last chunk. */
static int put_column_block(struct tl_html *h, uint32_t k, const uint8_t *p, size_t n, bool finish)
{
	h->packed.n = 0;
	if (tl_deflate_part(&h->ezip, p, n, &h->packed, DEFLATE_LEVEL, finish))
		return -ENOMEM;
	return put_encoded(h, "e", k, n);
}

/* ---- the worker: line encoding, deflate, base64 and writing, in submission order ---- */

/* A raw line chunk (per record: style varint, length varint, the bytes after the
 * prefix) becomes the line chunk of the page (timeline_encode.h). */
static int encode_lines(struct tl_html *h, const struct tl_buf *raw, struct tl_buf *enc)
{
	const uint8_t *p = raw->p, *end = raw->p + raw->n;

	enc->n = 0;
	while (p < end) {
		uint64_t st = 0, len = 0;
		int sh = 0;

		for (sh = 0; *p & 0x80; sh += 7)
			st |= (uint64_t)(*p++ & 0x7f) << sh;
		st |= (uint64_t)*p++ << sh;
		for (sh = 0; *p & 0x80; sh += 7)
			len |= (uint64_t)(*p++ & 0x7f) << sh;
		len |= (uint64_t)*p++ << sh;
		if (tl_buf_varint(enc, st) || tl_encode_line(&h->dict, (const char *)p, (size_t)len, enc))
			return -ENOMEM;
		p += len;
	}
	return 0;
}

static int run_job(struct tl_html *h, struct tl_job *j)
{
	if (j->kind == 'l') {
		if (encode_lines(h, &j->data, &h->enc))
			return -ENOMEM;
		return put_block(h, "l", j->index, h->enc.p, h->enc.n);
	}
	return put_column_block(h, j->index, j->data.p, j->data.n, j->kind == 'f');
}

static void *worker_main(void *arg)
{
	struct tl_html *h = arg;

	pthread_mutex_lock(&h->mu);
	for (;;) {
		struct tl_job *j;
		int ret;

		while (!h->nqueued && !h->stop)
			pthread_cond_wait(&h->cv, &h->mu);
		if (!h->nqueued)
			break;
		j = h->queue[h->qhead];
		h->qhead = (h->qhead + 1) % TL_JOBS;
		h->nqueued--;
		pthread_mutex_unlock(&h->mu);
		ret = h->error ? 0 : run_job(h, j);
		pthread_mutex_lock(&h->mu);
		if (ret && !h->error)
			h->error = ret;
		j->data.n = 0;
		h->freejobs[h->nfree++] = j;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* A job to fill (waits while the worker has them all). */
static struct tl_job *get_job(struct tl_html *h)
{
	struct tl_job *j;

	if (!h->threaded)
		return &h->jobs[0];
	pthread_mutex_lock(&h->mu);
	while (!h->nfree)
		pthread_cond_wait(&h->cv, &h->mu);
	j = h->freejobs[--h->nfree];
	pthread_mutex_unlock(&h->mu);
	return j;
}

static int submit(struct tl_html *h, struct tl_job *j)
{
	int ret;

	if (!h->threaded) {
		ret = run_job(h, j);
		j->data.n = 0;
		return ret;
	}
	pthread_mutex_lock(&h->mu);
	h->queue[(h->qhead + h->nqueued) % TL_JOBS] = j;
	h->nqueued++;
	ret = h->error;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return ret;
}

static void stop_worker(struct tl_html *h)
{
	if (!h->threaded)
		return;
	pthread_mutex_lock(&h->mu);
	h->stop = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->worker, NULL);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	h->threaded = false;
}

static int flush_columns(struct tl_html *h)
{
	struct tl_job *j;
	int ret;

	if (!h->ecount)
		return 0;
	j = get_job(h);
	j->kind = 'e';
	j->index = h->nechunks++;
	ret = tl_buf_varint(&j->data, h->ecount);
	for (int i = 0; i < 5 && !ret; i++)
		ret = tl_buf_varint(&j->data, h->col[i].n);
	for (int i = 0; i < 5 && !ret; i++)
		ret = tl_buf_put(&j->data, h->col[i].p, h->col[i].n);
	for (int i = 0; i < 5; i++)
		h->col[i].n = 0;
	h->ecount = 0;
	if (ret) {
		j->data.n = 0;
		if (h->threaded) {   /* give it back */
			pthread_mutex_lock(&h->mu);
			h->freejobs[h->nfree++] = j;
			pthread_mutex_unlock(&h->mu);
		}
		return -ENOMEM;
	}
	return submit(h, j);
}

static int flush_lines(struct tl_html *h)
{
	struct tl_job *j = h->cur_lines;

	if (!h->lcount)
		return 0;
	j->kind = 'l';
	j->index = h->nlchunks++;
	h->lcount = 0;
	h->cur_lines = NULL;
	return submit(h, j);
}

/* The index of a line label (a buffer or file name column that trace-cmd puts in front
 * of the lines of traces with instances or of several files), added when new; -1 when
 * there are too many. */
static int label_id(struct tl_html *h, const char *p, size_t n)
{
	for (size_t i = 0; i < h->nlabels; i++)
		if (strlen(h->labels[i]) == n && !memcmp(h->labels[i], p, n))
			return (int)i;
	if (h->nlabels == TL_MAX_LABELS)
		return -1;
	h->labels[h->nlabels] = strndup(p, n);
	if (!h->labels[h->nlabels])
		return -1;
	return (int)h->nlabels++;
}

/* The style whose prefix starts line (0: none) and the prefix's length: the style, plus
 * 4 * (label + 1) when a label comes before it. */
static int find_style(struct tl_html *h, const struct ktrace_stream_record *r,
		      const struct tl_rec *tr, uint64_t ts, const char *line, size_t n, size_t *plen)
{
	const struct tl_model *m = h->m;
	const char *comm, *name;
	char buf[512];
	int64_t tid;
	int cpu = r->cpu >= 0 && (size_t)r->cpu < m->ncpus ? r->cpu : -1;
	uint8_t *pref = r->source < h->ninputs ? &h->style[r->source] : NULL;
	static const int order[] = { 1, 2, 3 };

	if (tr->cls == TL_LOST || tr->task == TL_NO_THREAD)
		return 0;
	comm = tl_task_comm(m, tr->task);
	tid = m->threads[tr->thread].tid;
	name = m->names[tr->name];
	if (strlen(comm) + strlen(name) > 200)
		return 0;
	for (int i = -1; i < 3; i++) {
		int st = i < 0 ? (pref ? *pref : 0) : order[i];
		size_t k;
		const char *at;

		if (!st || (i >= 0 && pref && st == *pref))
			continue;
		k = kt_line_prefix(buf, st, comm, tid, cpu, ts, name);
		if (k <= n && !memcmp(buf, line, k)) {
			if (pref)
				*pref = (uint8_t)st;
			*plen = k;
			return st;
		}
		/* a label first: the prefix further on (labels are short) */
		at = n > k ? memmem(line, n < 256 + k ? n : 256 + k, buf, k) : NULL;
		if (at) {
			int id = label_id(h, line, (size_t)(at - line));

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

int tl_html_add(struct tl_html *h, struct ktrace_stream *s, const struct ktrace_stream_record *r,
		const struct tl_rec *tr)
{
	const struct tl_model *m = h->m;
	uint64_t ts = m->last_ts;
	size_t plen = 0, n;
	int len, st, ret = 0;

	if (!h->started) {
		h->prev_ts = m->first_ts;
		h->started = true;
	}
	ret |= tl_buf_varint(&h->col[0], ts - h->prev_ts);
	h->prev_ts = ts;
	ret |= tl_buf_varint(&h->col[1], r->cpu >= 0 && (size_t)r->cpu < m->ncpus ? (uint64_t)r->cpu + 1 : 0);
	ret |= tl_buf_varint(&h->col[2], tr->cls == TL_LOST ? 0 : tr->name);
	ret |= tl_buf_varint(&h->col[3], tr->task == TL_NO_THREAD ? 0 : (uint64_t)tr->task + 1);
	switch (tr->cls) {
	case TL_SWITCH:
		ret |= tl_buf_varint(&h->col[4], tr->prev == TL_NO_THREAD ? 0 : (uint64_t)tr->prev + 1);
		ret |= tl_buf_varint(&h->col[4], tr->next == TL_NO_THREAD ? 0 : (uint64_t)tr->next + 1);
		ret |= tl_buf_varint(&h->col[4], tr->prev_runnable);
		break;
	case TL_WAKEUP:
		ret |= tl_buf_varint(&h->col[4], tr->woken == TL_NO_THREAD ? 0 : (uint64_t)tr->woken + 1);
		break;
	case TL_LOST:
		ret |= tl_buf_varint(&h->col[4], tr->lost);
		break;
	}
	if (ret)
		return -ENOMEM;
	if (++h->ecount == TL_ECHUNK && (ret = flush_columns(h)))
		return ret;

	/* the report line */
	for (;;) {
		len = ktrace_stream_format(s, h->line, h->line_cap);
		if (len < 0) {
			len = 0;
			h->line[0] = 0;
		}
		if ((size_t)len < h->line_cap)
			break;
		if (kt_grow((void **)&h->line, &h->line_cap, (size_t)len + 1, 1))
			return -ENOMEM;
	}
	n = (size_t)len;
	st = find_style(h, r, tr, ts, h->line, n, &plen);
	if (!st)
		h->literal_lines++;
	if (!h->cur_lines)
		h->cur_lines = get_job(h);
	if (tl_buf_varint(&h->cur_lines->data, (uint64_t)st) ||
	    tl_buf_varint(&h->cur_lines->data, n - plen) ||
	    tl_buf_put(&h->cur_lines->data, h->line + plen, n - plen))
		return -ENOMEM;
	if (++h->lcount == TL_LCHUNK && (ret = flush_lines(h)))
		return ret;
	return 0;
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

static void write_meta(struct tl_html *h, struct ktrace_stream *s, const struct tl_damage *dmg)
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
		kt_out_printf(o, ",\"cpus\":%" PRIu32 "}", src->cpus);
	}
	kt_out_printf(o, "],\"base\":\"%" PRIu64 "\",\"span\":%" PRIu64 ",\"records\":%" PRIu64
		      ",\"echunk\":%d,\"echunks\":%" PRIu32 ",\"lchunk\":%d,\"lchunks\":%" PRIu32
		      ",\"top\":%u,\"lost\":%" PRIu64 ",\"literal_lines\":%" PRIu64,
		      first, m->any ? m->last_ts - first : 0, m->nrecs, TL_ECHUNK, h->nechunks,
		      TL_LCHUNK, h->nlchunks, vo->top_threads, m->lost_total, h->literal_lines);
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
		kt_out_printf(o, ",%u]", m->name_cls[i]);
	}
	put(h, "],\n\"threads\":[");
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct tl_thread *t = &m->threads[i];

		kt_out_printf(o, "%s[%" PRId64 ",%" PRId64 ",", i ? "," : "", t->tid, t->pid);
		json_str(o, t->comm);
		kt_out_printf(o, ",%" PRIu64 ",%" PRIu64 "]", t->cpu_ns, t->nrecs);
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

int tl_html_end(struct tl_html *h, struct ktrace_stream *s, const struct tl_damage *dmg)
{
	int ret = flush_columns(h);

	if (!ret)
		ret = flush_lines(h);
	if (!ret) {
		/* the end of the column stream, as a last (empty) chunk */
		struct tl_job *j = get_job(h);

		j->kind = 'f';
		j->index = h->nechunks++;
		ret = submit(h, j);
	}
	stop_worker(h);
	if (!ret)
		ret = h->error;
	if (ret)
		return ret;
	if (put_block(h, "dict", 0, h->dict.data.p, h->dict.data.n))
		return -ENOMEM;
	write_meta(h, s, dmg);
	put(h, "<script>\n");
	put(h, tl_asset_page_js);
	put(h, "</script>\n</body></html>\n");
	return 0;
}

void tl_html_free(struct tl_html *h)
{
	stop_worker(h);
	for (size_t i = 0; i < TL_JOBS; i++)
		tl_buf_free(&h->jobs[i].data);
	tl_buf_free(&h->enc);
	tl_zip_free(&h->zip);
	tl_zip_free(&h->ezip);
	tl_dict_free(&h->dict);
	for (int i = 0; i < 5; i++)
		tl_buf_free(&h->col[i]);
	tl_buf_free(&h->packed);
	tl_buf_free(&h->b64);
	free(h->line);
	free(h->style);
	for (size_t i = 0; i < h->nlabels; i++)
		free(h->labels[i]);
	memset(h, 0, sizeof(*h));
}
