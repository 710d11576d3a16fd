// SPDX-License-Identifier: MIT
/*
 * `ktrace report` for trace.dat files: the lines Debian's trace-cmd 3.1.6 prints with
 * `trace-cmd report`, byte for byte.
 *
 * Every file gets one event registry (ktrace/event.h), shared by its buffers as
 * trace-cmd shares its tep handle between a file and its instances. The records of all
 * buffers of all files are merged by timestamp: trace-cmd's order is the order of its
 * handles (every file's top buffer, in command-line order, then the instances of each
 * file), then the CPU, for equal timestamps. Each buffer is read with its own iterator,
 * so that the record that follows a function-graph entry in its buffer can be looked
 * at (trace-cmd prints a leaf function as one line and skips its exit record).
 *
 * A line is, as trace-cmd's trace_show_data builds it: the dropped-events marker of the
 * record if any, "%16s-%-5d [%03d]" (comm, pid, cpu) or with -l "%8.8s-%-5d %3d" and
 * the latency flags, the time (" %5lu.%06lu:", -t " %5lu.%09lu:", raw clocks
 * "%12lu:"), the event name padded to 20 columns, then the event text; one trailing
 * newline of the whole line is dropped and the line ends at the first NUL byte. When a
 * file has instances (or several files are read), every line starts with the buffer
 * (file) name right-aligned to the longest one.
 *
 * Records go through a few at a time: read in order, then turned into lines while they
 * are still in the CPU's cache. With several threads, each reads every record with
 * readers, registries and filters of its own (kt_td_threads) and does for every record
 * what depends on what came before: the filters, the comm column (the sched plugins
 * teach comms), --ts-diff, and the text of the events whose formatting keeps state
 * (ktrace_event_order: function graph, bprint...). The lines themselves, most of the
 * work, are made by one thread per block of records (the first thread to get to a block
 * takes it: kt_turns_claim), and the blocks are written in order: the output is the single-threaded
 * one, byte for byte. Nothing goes from one CPU's cache to another per record: on a
 * 2-CPU VM, handing records over cost more than reading them again.
 */
#include <ktrace/event.h>
#include <ktrace/kbuffer.h>
#include <ktrace/tracedat.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ktrace/view.h>

#include "engine/engine.h"
#include "event/event_share.h"
#include "common/bigmem.h"
#include "common/check.h"
#include "common/cpus.h"
#include "common/grow.h"
#include "common/outbuf.h"
#include "sinks/report/report.h"
#include "common/outfile.h"

/* When the records of an event are formatted: as they are read, in output order, by
 * every thread (O_MAIN: their formatting keeps state, or teaches comms); or with the
 * other lines of their block (O_ANY). */
enum { O_MAIN = 1, O_ANY };

/* What the view keeps per file beside the engine's (engine/engine.h). */
struct rfile {
	struct kt_tdfile *t;
	/* the engine's file's facts read at every record: this thread's registry, its
	 * funcgraph_entry, the time format (kt_tdfile_*) */
	struct ktrace_events *evs;
	const struct ktrace_event *fg_entry;
	bool usecs, trace_clock;
	/* per event id: who formats it (O_*, 0 not known yet), and how many bytes
	 * formatting may read */
	struct evinfo {
		uint8_t ordered;
		bool raw;                   /* -R, or -r names it */
		bool learn;                 /* O_MAIN only to learn comms (sched_switch...) */
		uint32_t fixed;
	} *evinfo;
	size_t nevinfo;
	/* per event id, for tracedat_iter_skip: 1 when another thread's record of the event
	 * needs nothing, 2 when it teaches comms; 0 not known yet, or formatted in order */
	uint8_t *skip;
#define EVCACHE 256
	struct evcache {
		const struct ktrace_event *ev;
		struct evinfo info;         /* a copy: evinfo moves when it grows */
	} evcache[EVCACHE];
	struct kbuffer *kb;                /* --debug: walks sub-buffers */
};

/* A record waiting to be printed, with what the main thread worked out for it: 64
 * bytes, as a worker on another CPU reads them. What few records need is in an extra
 * entry of the chunk. */
struct jrec {
	const void *data;                  /* the record (see data_off) */
	uint64_t ts;
	const struct ktrace_event *ev;     /* in the main registry; NULL: unknown event */
	const char *comm;
	uint32_t size, avail;              /* as in struct ktrace_record */
	int pid;
	int cpu;
	uint32_t text_off, text_len;       /* text formatted by the main thread (J_TEXT) */
	uint32_t extra;                    /* index in the chunk's extras, or NO_OFF */
	uint16_t file;                     /* index in r->files */
	uint8_t flags;                     /* J_* */
};

_Static_assert(sizeof(struct jrec) == 64, "a record of a chunk is one cache line");

enum {
	J_TEXT = 1,                        /* the main thread formatted the text */
	J_RAW = 2,                         /* fields as with -R */
	J_COPIED = 4,                      /* data is a copy in the chunk, at data_off */
};

/* The rest, for the records that need it. */
struct jextra {
	const char *label;                 /* NULL: no prefix */
	long long missed;
	int64_t diff;
	uint32_t data_off;                 /* J_COPIED: where in the chunk's data */
	uint32_t lat_off, lat_len;         /* latency column */
	uint32_t dpre_off, dpre_len;       /* --debug: before the line, after the text */
	uint32_t dsuf_off, dsuf_len;
	bool has_diff;
};

#define NO_OFF UINT32_MAX

static const struct jextra no_extra = { .data_off = NO_OFF };

enum { C_FREE, C_FILLED, C_DONE };

/* Chunks are filled by one thread while another formats the next one: each on cache
 * lines of its own. */
struct chunk {
	_Alignas(128) struct jrec *recs;
	size_t n, cap;
	struct jextra *extras;
	size_t nextras, cap_extras;
	char *text;                        /* texts the main thread made */
	size_t text_len, text_cap;
	uint8_t *data;                     /* copies of records of compressed data */
	size_t data_len, data_cap;
	char *out;                         /* the lines */
	size_t out_len, out_cap;
	size_t out_most;                   /* the biggest out_cap yet (grow_out) */
};

/* A name column (" name: " and padding), rendered once per event. */
struct namecol {
	const struct ktrace_event *ev;
	char *s;
	uint32_t len;
	uint32_t cap;                      /* bytes at s: rewritten in place when it fits */
};

/* A comm-pid column ("%16s-%-5d"), rendered once per (comm, pid). */
struct commcol {
	const char *comm;
	int pid;
	uint8_t len;
	char s[48];
};

#define NAMECACHE 1024
#define COMMCACHE 1024

/* What formats lines: the main thread or a worker, with its registries and caches. */
struct wctx {
	struct report *r;
	struct ktrace_events **evs;        /* per file */
	struct namecol names[NAMECACHE];
	struct commcol comms[COMMCACHE];
	struct kt_prefix_secs secs;        /* the seconds part last rendered */
};

/* Records of a block of one thread's lines. */
#define WALK_BLOCK 4096

/* What the view's pages of a file may keep around while a chunk is made: a chunk takes
 * its records from within half of it. Small enough for the reader's buffers to stay in
 * the CPU's cache (a reader that kept 8 MiB ran 20% slower). */
#define WALK_KEEP ((size_t)256 << 10)

struct report {
	const struct ktrace_view_text_opts *o;
	struct ktrace_out *out;
	struct ktrace_error *err;
	const char **err_file;
	struct rfile *files;               /* the view's data per file (as set.files) */
	size_t nfiles;
	/* line prefixes */
	bool prefix;                       /* print buffer/file names */
	int width;                         /* trace-cmd's max_file_size */
	/* --ts-diff */
	uint64_t last_ts;
	/* -r */
	regex_t *raw_re;
	size_t nraw_re;
	/* the main thread's scratch */
	uint8_t *copy;                     /* a function-graph entry kept while looking ahead */
	size_t copy_cap;
	/* chunks */
	size_t chunk_recs;
	uint64_t span_max;                 /* bytes of pages a chunk may take its records from */
	bool chunks_kept;                  /* tracedat_iter_keep: compressed records stay too */
	struct wctx *main_ctx;
	uint64_t taken;                    /* records taken (that passed the filters) */
	/* threads: this one is tid of nthr; block k of records is thread k % nthr's */
	struct kt_turns *walk;
	unsigned tid, nthr;
	uint64_t own_block;                /* the block the chunk's records are of */
	uint64_t block, block_end;         /* the block of the next record, and where it ends
					    * (in records taken) */
	bool block_own;                    /* it is this thread's */
	struct ktrace_error own_err;       /* a helper thread's (the first thread: err) */
	const char *own_err_file;
	int walk_ret;                      /* the threads' result (kt_td_threads) */
	bool walked;                       /* the first thread read (walk_ret is set) */
	/* progress */
	uint64_t total_bytes;
	/* the files and their merged records (cache lines of their own: the reading
	 * thread counts in it at every record) */
	struct kt_tdset *set;
};

/* Binds f to the engine's file t (the facts read at every record). */
static void bind_file(struct rfile *f, struct kt_tdfile *t)
{
	f->t = t;
	f->evs = kt_tdfile_events(t);
	f->fg_entry = kt_tdfile_fg_entry(t);
	f->usecs = kt_tdfile_usecs(t);
	f->trace_clock = kt_tdfile_trace_clock(t);
}

/* The view's data of the file of a record's stream. */
static inline struct rfile *file_of(const struct report *r, const struct kt_tdstream *s)
{
	return &r->files[r->nfiles == 1 ? 0 : kt_td_file_index(r->set, kt_tdstream_file(s))];
}

/* ---- line pieces ---- */

static inline char *put_spaces(char *p, int n)
{
	if (n > 0) {
		memset(p, ' ', (size_t)n);
		p += n;
	}
	return p;
}

/* The time column as tep_print_event prints TEP_PRINT_TIME. */
static char *put_time(char *p, const struct rfile *f, bool nsec, uint64_t ts)
{
	if (!f->usecs)
		return kt_fmt_dec_width(p, ts, 12);
	return kt_prefix_time(p, NULL, ts, nsec);
}

/* ---- progress, to the caller's callback ---- */

static void progress(struct report *r, const struct tracedat_record *rec)
{
	int percent = -1;

	if (r->total_bytes && !rec->compressed && rec->offset <= r->total_bytes)
		percent = (int)(100.0 * (double)rec->offset / (double)r->total_bytes);
	r->o->progress(r->o->progress_arg, kt_td_visited(r->set), percent);
}


/* ---- main thread: records into chunks ---- */

enum { SKIP_NOTHING = 1, SKIP_LEARN = 2 };

/* What the main thread needs to know of an event (cached per event id). */
static const struct evinfo *ev_info_slow(struct report *r, struct rfile *f,
					 const struct ktrace_event *ev)
{
	static const struct evinfo fallback = { .ordered = O_MAIN };
	int id = ktrace_event_id(ev);

	if (id < 0 || id > 1 << 20)
		return &fallback;
	if ((size_t)id >= f->nevinfo) {
		size_t n = (size_t)id + 64;
		struct evinfo *v = kt_realloc_array(f->evinfo, n, sizeof(*v));

		if (!v)
			return &fallback;
		memset(v + f->nevinfo, 0, (n - f->nevinfo) * sizeof(*v));
		f->evinfo = v;
		{
			uint8_t *k = kt_realloc_array(f->skip, n, 1);

			if (!k)
				return &fallback;
			memset(k + f->nevinfo, 0, n - f->nevinfo);
			f->skip = k;
		}
		f->nevinfo = n;
	}
	if (!f->evinfo[id].ordered) {
		bool raw = r->o->raw;

		/* -r: trace-cmd's set_event_flags, "^PATTERN$" on the name or the system */
		for (size_t i = 0; i < r->nraw_re && !raw; i++)
			raw = !regexec(&r->raw_re[i], ktrace_event_name(ev), 0, NULL, 0) ||
			      !regexec(&r->raw_re[i], ktrace_event_system(ev), 0, NULL, 0);
		f->evinfo[id].raw = raw;
		switch (ktrace_event_order(ev, raw)) {
		case KTRACE_EVENT_IN_ORDER:
			f->evinfo[id].ordered = O_MAIN;
			break;
		case KTRACE_EVENT_LEARN_IN_ORDER:
			/* learning and formatting are one pass; another thread's records
			 * are only learnt from */
			f->evinfo[id].ordered = O_MAIN;
			f->evinfo[id].learn = true;
			break;
		default:
			f->evinfo[id].ordered = O_ANY;
			break;
		}
		f->skip[id] = f->evinfo[id].ordered == O_ANY ? SKIP_NOTHING
			    : f->evinfo[id].learn ? SKIP_LEARN : 0;
		f->evinfo[id].fixed = ktrace_event_fixed_size(ev);
	}
	return &f->evinfo[id];
}

/* The same through a small cache keyed by the event pointer (no look at the event). */
static inline const struct evinfo *ev_info(struct report *r, struct rfile *f,
					   const struct ktrace_event *ev)
{
	struct evcache *e = &f->evcache[((uintptr_t)ev >> 5) & (EVCACHE - 1)];

	if (e->ev != ev) {
		e->info = *ev_info_slow(r, f, ev);
		e->ev = ev;
	}
	return &e->info;
}

/* The main thread formats a record's text into the chunk (never twice: the state it
 * keeps would move twice). */
static int main_format(struct report *r, struct chunk *c, struct jrec *j, struct ktrace_events *evs,
		       const struct ktrace_record *kr, unsigned *outf, bool raw)
{
	size_t room = 256 * 1024 + (size_t)kr->size * 64, n;

	if (kt_grow((void **)&c->text, &c->text_cap, c->text_len + room, 1))
		return kt_error_oom(r->err);
	n = ktrace_event_format(evs, kr, raw ? KTRACE_EVFMT_RAW : 0, c->text + c->text_len,
				 room, outf);
	if (n >= room)
		n = room - 1;
	j->text_off = (uint32_t)c->text_len;
	j->text_len = (uint32_t)n;
	j->flags |= J_TEXT;
	c->text_len += n;
	return 0;
}

static int text_printf(struct report *r, struct chunk *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int text_printf(struct report *r, struct chunk *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (kt_grow((void **)&c->text, &c->text_cap, c->text_len + 256, 1))
		return kt_error_oom(r->err);
	va_start(ap, fmt);
	n = vsnprintf(c->text + c->text_len, 256, fmt, ap);
	va_end(ap);
	if (n > 255)
		n = 255;
	c->text_len += (size_t)(n > 0 ? n : 0);
	return 0;
}

/* --debug: the sub-buffer start line, and after the text the record's delta, offset and
 * size and the time-extend, padding and time-stamp entries that follow it. */
static int debug_info(struct report *r, struct chunk *c, struct jextra *j,
		      const struct kt_tdstream *s, const struct tracedat_record *rec)
{
	struct rfile *f = file_of(r, s);
	uint64_t in_page = rec->offset - rec->page_offset, off;
	unsigned ps;
	struct kbuffer_raw_info info, *pi;
	uint8_t *page = (uint8_t *)rec->page;
	int ret;

	if (!f->kb) {
		const struct tracedat_header *h = tracedat_header(kt_tdfile_td(f->t));

		f->kb = kbuffer_alloc(h->kernel_long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
				      h->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
		if (!f->kb)
			return kt_error_oom(r->err);
		if (h->old_format)
			kbuffer_set_old_format(f->kb);
	}
	if (kbuffer_load_subbuffer_len(f->kb, page, rec->page_len) < 0)
		return 0;
	off = kt_tdstream_offset(s, rec, &ps);
	j->dpre_off = (uint32_t)c->text_len;
	if (in_page == (uint64_t)kbuffer_start_of_data(f->kb)) {
		if (r->o->debug)
			ret = text_printf(r, c, "CPU:%u [SUBBUFFER START] [%lld:0x%llx]\n", rec->cpu,
					  (long long)kbuffer_subbuf_timestamp(f->kb, page),
					  (unsigned long long)(off & ~(uint64_t)(ps - 1)));
		else
			ret = text_printf(r, c, "CPU:%u [SUBBUFFER START]\n", rec->cpu);
		if (ret)
			return ret;
	}
	j->dpre_len = (uint32_t)(c->text_len - j->dpre_off);
	if (!r->o->debug)
		return 0;
	j->dsuf_off = (uint32_t)c->text_len;
	ret = text_printf(r, c, " [%d:0x%llx:%d]", (int)kbuffer_ptr_delta(f->kb, page + in_page),
			  (unsigned long long)(off & (ps - 1)), (int)rec->size);
	if (ret)
		return ret;
	info.next = page + in_page;
	pi = kbuffer_raw_get(f->kb, page, &info);
	while (pi && (pi = kbuffer_raw_get(f->kb, page, pi))) {
		if (pi->type < KBUFFER_TYPE_PADDING)
			break;
		if (pi->type == KBUFFER_TYPE_TIME_STAMP)
			ret = text_printf(r, c, "\n TIME STAMP: timestamp:%lld length:%d",
					  (long long)pi->delta, pi->length);
		else
			ret = text_printf(r, c, "\n %s: delta:%lld length:%d",
					  pi->type == KBUFFER_TYPE_PADDING ? "PADDING" : "TIME EXTEND",
					  (long long)pi->delta, pi->length);
		if (ret)
			return ret;
	}
	j->dsuf_len = (uint32_t)(c->text_len - j->dsuf_off);
	return 0;
}

/* A new extra entry for the chunk's last record. */
static struct jextra *add_extra(struct report *r, struct chunk *c, struct jrec *j)
{
	struct jextra *x;

	if (c->nextras == c->cap_extras) {
		size_t ncap = c->cap_extras ? c->cap_extras * 2 : 256;
		struct jextra *v = kt_realloc_array(c->extras, ncap, sizeof(*v));

		if (!v) {
			kt_error_oom(r->err);
			return NULL;
		}
		c->extras = v;
		c->cap_extras = ncap;
	}
	j->extra = (uint32_t)c->nextras;
	x = &c->extras[c->nextras++];
	*x = no_extra;
	return x;
}

/* Takes a record that passed the filters into the chunk, and moves its stream on. */
/* --ts-diff: the time since the record taken before t (once per record, every thread). */
static void ts_diff_step(struct report *r, const struct kt_tdrec *t, int64_t *diff, bool *has)
{
	uint64_t ts = t->rec->ts;

	if (file_of(r, t->s)->trace_clock && !r->o->nsec)
		ts = ts / 1000 + (ts % 1000 >= 500);
	*has = r->last_ts != 0;
	*diff = *has ? (int64_t)(ts - r->last_ts) : 0;
	r->last_ts = ts;
}

/* Takes t into the chunk (to be printed, or for another thread's record only formatted
 * for what its formatting keeps, and dropped by the caller). diff, has_diff: --ts-diff's. */
static int take_record(struct report *r, struct chunk *c, struct kt_tdrec *t, int64_t diff,
		       bool has_diff)
{
	const struct ktrace_view_text_opts *o = r->o;
	struct kt_tdstream *s = t->s;
	const struct tracedat_record *rec = t->rec;
	struct rfile *f = file_of(r, s);
	struct ktrace_events *evs = f->evs;
	struct ktrace_record *kr = &t->kr;
	const struct ktrace_event *ev = t->ev;
	const struct evinfo *ei;
	struct jextra *x = NULL;
	struct jrec *j;
	int ret;

	kt_td_avail(t);
	if (c->n == c->cap && kt_grow((void **)&c->recs, &c->cap, c->n + 1, sizeof(*c->recs)))
		return kt_error_oom(r->err);
	j = &c->recs[c->n++];
	j->data = kr->data;
	j->ts = kr->ts;
	j->ev = ev;
	j->size = kr->size;
	j->avail = kr->avail;
	j->cpu = kr->cpu;
	j->file = (uint16_t)(f - r->files);
	j->flags = 0;
	j->extra = NO_OFF;
	j->text_off = j->text_len = 0;
	j->comm = NULL;
	j->pid = 0;
	if (ev) {
		j->pid = ktrace_event_record_pid(evs, kr);
		j->comm = ktrace_event_comm(evs, j->pid);
	}
	if (r->prefix || rec->missed_events || o->latency || o->debug || o->boundary ||
	    o->ts_diff || rec->compressed || o->line_suffix) {
		x = add_extra(r, c, j);
		if (!x)
			return -ENOMEM;
		x->label = r->prefix ? kt_tdstream_label(s) : NULL;
		x->missed = rec->missed_events;
	}
	if (o->latency) {
		char lat[64];
		size_t n;

		if (o->raw || !ev)
			n = o->raw ? (size_t)snprintf(lat, sizeof(lat), "-0x%x",
						      (unsigned)ktrace_event_record_flags(evs, kr))
				   : 0;
		else
			n = ktrace_event_latency(evs, kr, lat, sizeof(lat));
		if (n >= sizeof(lat))
			n = sizeof(lat) - 1;
		if (kt_grow((void **)&c->text, &c->text_cap, c->text_len + n, 1))
			return kt_error_oom(r->err);
		if (n)   /* (no text yet: c->text may still be NULL) */
			memcpy(c->text + c->text_len, lat, n);
		x->lat_off = (uint32_t)c->text_len;
		x->lat_len = (uint32_t)n;
		c->text_len += n;
	}
	if (o->debug || o->boundary) {
		ret = debug_info(r, c, x, s, rec);
		if (ret)
			return ret;
	}
	if (o->line_suffix) {
		char sfx[256];
		size_t n = o->line_suffix(o->line_suffix_arg, evs, kr, sfx, sizeof(sfx));

		if (n >= sizeof(sfx))
			n = sizeof(sfx) - 1;
		if (n && kt_grow((void **)&c->text, &c->text_cap, c->text_len + n, 1))
			return kt_error_oom(r->err);
		if (n) {
			if (!x->dsuf_len)
				x->dsuf_off = (uint32_t)c->text_len;
			memcpy(c->text + c->text_len, sfx, n);
			x->dsuf_len += (uint32_t)n;
			c->text_len += n;
		}
	}
	if (o->ts_diff) {
		x->diff = diff;
		x->has_diff = has_diff;
	}
	ei = ev ? ev_info(r, f, ev) : NULL;
	r->taken++;
	if (ei ? ei->raw : o->raw)
		j->flags |= J_RAW;
	if (ei && ei->ordered == O_MAIN) {
		unsigned outf = 0;
		struct ktrace_record nkr;
		bool more;

		if (ev != f->fg_entry) {
			ret = main_format(r, c, j, evs, kr, &outf, ei->raw);
			return ret ? ret : kt_td_advance(r->set, s);
		}
		/* look at the next record of this buffer: a leaf function prints as one line */
		{
			uint32_t keep = kr->avail < kr->size + 64 ? kr->avail : kr->size + 64;

			if (kt_grow((void **)&r->copy, &r->copy_cap, keep, 1))
				return kt_error_oom(r->err);
			memcpy(r->copy, kr->data, keep);
			kr->data = r->copy;
			kr->avail = keep;
		}
		ret = kt_td_advance(r->set, s);
		if (ret)
			return ret;
		more = kt_td_peek(t, &nkr);
		if (more)
			kr->next = &nkr;
		ret = main_format(r, c, j, evs, kr, &outf, ei->raw);
		if (ret)
			return ret;
		if ((outf & KTRACE_EVFMT_OUT_CONSUMED_NEXT) && more)
			return kt_td_advance(r->set, s);
		return 0;
	}
	if (rec->compressed && !r->chunks_kept) {
		/* the reader reuses its decompression buffer: keep a copy (with what
		 * formatting may read after it). With tracedat_iter_keep, decompressed
		 * chunks stay as long as read pages (a chunk of records spans half of what
		 * is kept). Uncompressed records stay where they are in the file's mapping:
		 * the pages the reader hands back to the kernel (madvise) are read in again
		 * from the page cache if a worker still needs them. */
		uint32_t want = kr->size, keep;

		if (ei && ei->fixed > want)
			want = ei->fixed;
		want += 64;
		keep = kr->avail < want ? kr->avail : want;

		if (kt_grow((void **)&c->data, &c->data_cap, c->data_len + keep, 1))
			return kt_error_oom(r->err);
		memcpy(c->data + c->data_len, kr->data, keep);
		x->data_off = (uint32_t)c->data_len;
		j->flags |= J_COPIED;
		j->avail = keep;
		c->data_len += keep;
	}
	return kt_td_advance(r->set, s);
}

/* Whether the next record taken is this thread's to print (r->block: of which block). */
static inline bool own_record(struct report *r)
{
	if (__builtin_expect(r->taken == r->block_end, 0)) {
		r->block = r->taken / WALK_BLOCK;
		r->block_end = (r->block + 1) * WALK_BLOCK;
		r->block_own = kt_turns_claim(r->walk, r->block, r->tid, r->nthr);
	}
	return r->block_own;
}

/* kt_td_skip's learning from the records that teach comms (the registry passes over
 * the pids it learnt from before). */
static void learn_skip(void *arg, const struct ktrace_record *kr)
{
	struct report *r = arg;

	ktrace_event_learn_comms(r->files[0].evs, kr);
}

/*
 * Moves past other threads' records of the current block that need nothing from this
 * thread (their events' text keeps no state) or only teach comms, without looking them
 * up one by one: one file of one buffer, no filters, no --ts-diff. Returns 0 at the end
 * of the block, 1 when the next record (or the end of the data) is for the ordinary path,
 * or an error.
 */
static int skip_others(struct report *r)
{
	struct rfile *f = &r->files[0];
	uint64_t n;
	int ret;

	/* (until a comm is looked up, each record passed over may be the first lookup) */
	if (r->nfiles != 1 || r->o->ts_diff || !f->skip || !ktrace_event_comms_ordered(f->evs))
		return 1;
	ret = kt_td_skip(r->set, f->skip, f->nevinfo, learn_skip, r, r->block_end - r->taken, &n);
	r->taken += n;
	return ret;
}

/*
 * Fills a chunk with this thread's next records (at most chunk_recs, from within
 * span_max bytes of pages, and not past the end of one of its blocks). Returns 0 or an
 * error; *end when the records ran out.
 */
static int fill_chunk(struct report *r, struct chunk *c, bool *end)
{
	const struct ktrace_view_text_opts *o = r->o;
	uint64_t span0 = kt_td_span(r->set);
	int ret = 0;

	c->n = 0;
	c->nextras = 0;
	c->text_len = 0;
	c->data_len = 0;
	*end = false;
	while (c->n < r->chunk_recs && c->data_len < (8u << 20) && c->text_len < (8u << 20) &&
	       kt_td_span(r->set) - span0 < r->span_max) {
		struct kt_tdrec t;
		uint64_t seen = kt_td_visited(r->set);
		bool own = own_record(r), has_diff = false;
		int64_t diff = 0;

		/* with several threads, a chunk holds records of one block */
		if (own && r->nthr > 1 && c->n && r->block != r->own_block)
			break;
		if (!own) {
			ret = skip_others(r);
			if (ret < 0)
				break;
			if (!ret)
				continue;
		}
		ret = kt_td_next(r->set, &t);
		if (ret <= 0) {
			*end = !ret;
			break;
		}
		if (o->progress && !r->tid && (kt_td_visited(r->set) >> 16) != (seen >> 16))
			progress(r, t.rec);
		if (o->ts_diff)
			ts_diff_step(r, &t, &diff, &has_diff);
		if (!own) {
			/* another thread's line, of an event whose formatting keeps no state:
			 * nothing to do but learn comms */
			struct rfile *tf = file_of(r, t.s);
			const struct evinfo *ei = t.ev ? ev_info(r, tf, t.ev) : NULL;

			if (!ei || ei->ordered != O_MAIN || ei->learn) {
				r->taken++;
				if (t.ev)
					ktrace_event_comm_passed(tf->evs, &t.kr);
				if (ei && ei->learn) {
					kt_td_avail(&t);
					ktrace_event_learn_comms(tf->evs, &t.kr);
				}
				ret = kt_td_advance(r->set, t.s);
				if (ret)
					break;
				continue;
			}
		}
		if (own) {
			r->own_block = r->block;
			ret = take_record(r, c, &t, diff, has_diff);
		} else {
			size_t n = c->n, nx = c->nextras, tl = c->text_len, dl = c->data_len;

			/* formatting keeps state: formatted as if printed, then dropped */
			ret = take_record(r, c, &t, diff, has_diff);
			c->n = n;
			c->nextras = nx;
			c->text_len = tl;
			c->data_len = dl;
		}
		if (ret)
			break;
	}
	if (ret < 0 && kt_td_err_file(r->set))
		*r->err_file = kt_td_err_file(r->set);
	/* the copies are in place now: point the records at them */
	for (size_t i = 0; i < c->n; i++)
		if (c->recs[i].flags & J_COPIED)
			c->recs[i].data = c->data + c->extras[c->recs[i].extra].data_off;
	return ret < 0 ? ret : 0;
}

/* ---- any thread: chunks into lines ---- */

/* The time column, the seconds part rendered once per second. */
static char *put_time_fast(struct wctx *w, char *p, const struct rfile *f, uint64_t ts)
{
	if (!f->usecs)
		return kt_fmt_dec_width(p, ts, 12);
	return kt_prefix_time(p, &w->secs, ts, w->r->o->nsec);
}

static const struct namecol *name_col(struct wctx *w, const struct ktrace_event *ev)
{
	struct namecol *n = &w->names[((uintptr_t)ev >> 4) & (NAMECACHE - 1)];

	if (n->ev != ev || !n->s) {
		const char *name = ev ? ktrace_event_name(ev) : "(NULL)";
		size_t len = strlen(name), need = len + 24 > 64 ? len + 24 : 64;
		char *s = n->s;

		/* two events that share a slot take turns in its buffer: no allocation per
		 * record once it is big enough for both */
		if (need > n->cap) {
			s = kt_realloc_array(n->s, need, 1);
			if (!s)
				return NULL;
			n->s = s;
			n->cap = (uint32_t)need;
		}
		s[0] = ' ';
		n->len = (uint32_t)(kt_prefix_name(s + 1, name, len) - s);
		n->ev = ev;
	}
	return n;
}

/* "%16s-%-5d" (or with -l "%8.8s-%-5d") */
static char *put_comm(struct wctx *w, char *p, const char *comm, int pid)
{
	struct commcol *cc = &w->comms[((unsigned)pid * 2654435761u >> 22) & (COMMCACHE - 1)];
	bool lat = w->r->o->latency;

	if (cc->comm == comm && cc->pid == pid) {
		/* a fixed-size copy (the room is there): no call, no rep movs */
		memcpy(p, cc->s, sizeof(cc->s));
		return p + cc->len;
	}
	{
		char *start = p;

		p = kt_prefix_comm(p, comm, strlen(comm), pid, lat ? 8 : 16, lat);
		if ((size_t)(p - start) <= sizeof(cc->s)) {
			cc->comm = comm;
			cc->pid = pid;
			cc->len = (uint8_t)(p - start);
			memcpy(cc->s, start, cc->len);
		}
	}
	return p;
}

/* A chunk's lines start in a buffer of this size: they grow to a block (4096 lines:
 * 0.3 to 0.6 MiB) before going out, and then the buffer is used again by another chunk.
 * What a buffer grows by is made resident at once (kt_populate): grown 16 bytes at a
 * time and faulted in page by page, a thread's buffers cost realloc's moves (mremap)
 * and a page fault per 4 KiB, about 16 us each on the benches' VM. Past OUT_FIRST a
 * buffer grows by an eighth, not double: all of it is resident, and blocks of one
 * trace are about the same size. */
#define OUT_FIRST ((size_t)512 << 10)
#define OUT_STEP ((size_t)64 << 10)

/* The chunk's output with room for need bytes. */
static int grow_out(struct chunk *c, size_t need)
{
	size_t old = c->out_cap, cap;
	char *p;

	if (need <= old)
		return 0;
	if (need > SIZE_MAX / 2)
		return -ENOMEM;
	cap = need + need / 8 > OUT_FIRST ? need + need / 8 : OUT_FIRST;
	if (cap < c->out_most)
		cap = c->out_most;     /* a buffer from the queue: as big as the biggest yet */
	cap = (cap + OUT_STEP - 1) & ~(OUT_STEP - 1);
	p = kt_realloc_array(c->out, cap, 1);
	if (!p)
		return -ENOMEM;
	c->out = p;
	c->out_cap = cap;
	if (cap > c->out_most)
		c->out_most = cap;
	kt_populate(c->out + old, cap - old);
	return 0;
}

/* One line into the chunk's output. */
static int render(struct wctx *w, struct chunk *c, const struct jrec *j, bool careful)
{
	const struct ktrace_view_text_opts *o = w->r->o;
	const struct rfile *f = &w->r->files[j->file];
	const struct jextra *x = j->extra != NO_OFF ? &c->extras[j->extra] : &no_extra;
	const struct namecol *nc = name_col(w, j->ev);
	const struct commcol *cc = &w->comms[((unsigned)j->pid * 2654435761u >> 22) & (COMMCACHE - 1)];
	size_t need = 512 + (nc ? nc->len : 0) + x->lat_len + j->text_len + x->dpre_len + x->dsuf_len +
		      (j->comm && (cc->comm != j->comm || cc->pid != j->pid) ? strlen(j->comm) : 0) +
		      (x->label ? strlen(x->label) + (size_t)w->r->width : 0);
	char *p, *text;
	size_t n;

	if (!nc || grow_out(c, c->out_len + need + 4096))
		return -ENOMEM;
	p = c->out + c->out_len;
	if (x->label) {
		size_t l = strlen(x->label);

		if (*x->label) {
			p = put_spaces(p, w->r->width - (int)l);
			memcpy(p, x->label, l);
			p += l;
			*p++ = ':';
			*p++ = ' ';
		} else {
			p = put_spaces(p, w->r->width + 2);
		}
	}
	if (x->missed) {
		memcpy(p, "CPU:", 4);
		p = kt_fmt_dec(p + 4, (unsigned)j->cpu);
		if (x->missed > 0) {
			memcpy(p, " [", 2);
			p = kt_fmt_i64(p + 2, x->missed);
			memcpy(p, " EVENTS DROPPED]\n", 17);
			p += 17;
		} else {
			memcpy(p, " [EVENTS DROPPED]\n", 18);
			p += 18;
		}
	}
	if (x->dpre_len) {
		memcpy(p, c->text + x->dpre_off, x->dpre_len);
		p += x->dpre_len;
	}
	if (!j->ev) {
		/* tep_print_event prints only this for an event it does not know */
		memcpy(p, "[UNKNOWN EVENT]", 15);
		p += 15;
		if (o->latency) {
			if (o->raw) {
				if (x->lat_len)
					memcpy(p, c->text + x->lat_off, x->lat_len);
				p += x->lat_len;
			} else {
				memcpy(p, "[UNKNOWN EVENT]", 15);
				p += 15;
			}
		}
		memcpy(p, "[UNKNOWN EVENT]", 15);
		p += 15;
	} else {
		p = put_comm(w, p, j->comm, j->pid);
		if (o->latency) {
			*p++ = ' ';
			p = kt_fmt_dec_width(p, (unsigned)j->cpu, 3);
			if (x->lat_len)
				memcpy(p, c->text + x->lat_off, x->lat_len);
			p += x->lat_len;
		} else {
			*p++ = ' ';
			*p++ = '[';
			p = kt_prefix_cpu(p, (unsigned)j->cpu);
			*p++ = ']';
		}
		if (f->usecs)
			*p++ = ' ';
		p = put_time_fast(w, p, f, j->ts);
		*p++ = ':';
	}
	if (o->ts_diff) {
		char buf[32] = "";
		int k;

		if (x->has_diff)
			snprintf(buf, sizeof(buf), "(+%lld)", (long long)x->diff);
		k = sprintf(p, " %-8s", buf);
		p += k;
	}
	if (nc->len <= 64)
		memcpy(p, nc->s, 64);      /* fixed size: the buffer has room, the name 64 bytes */
	else
		memcpy(p, nc->s, nc->len);
	p += nc->len;
	c->out_len = (size_t)(p - c->out);

	if (!j->ev) {
		memcpy(p, "[UNKNOWN EVENT]", 15);
		p += 15;
		if (x->dsuf_len) {
			memcpy(p, c->text + x->dsuf_off, x->dsuf_len);
			p += x->dsuf_len;
		}
		*p++ = '\n';
		c->out_len = (size_t)(p - c->out);
		return 0;
	}
	if (j->flags & J_TEXT) {
		text = c->text + j->text_off;
		n = j->text_len;
		memcpy(p, text, n);
	} else {
		struct ktrace_events *evs = w->evs[j->file];
		size_t room = c->out_cap - c->out_len;
		struct ktrace_record kr = {
			.data = j->data, .size = j->size, .cpu = j->cpu, .ts = j->ts,
			.avail = j->avail,
		};

		n = ktrace_event_format(evs, &kr, (j->flags & J_RAW) ? KTRACE_EVFMT_RAW : 0, p, room,
					 NULL);
		if (n + 2 >= room) {
			if (grow_out(c, c->out_len + n + 4096))
				return -ENOMEM;
			p = c->out + c->out_len;
			room = c->out_cap - c->out_len;
			n = ktrace_event_format(evs, &kr, (j->flags & J_RAW) ? KTRACE_EVFMT_RAW : 0, p,
						 room, NULL);
			if (n >= room)
				n = room - 2;
		}
	}
	/* printf("%.*s") of the line stops at a NUL (event texts never hold one, but the
	 * chunk is checked: see format_chunk); one final newline goes */
	if (careful) {
		const char *z = memchr(p, 0, n);

		if (z) {
			p[z - p] = '\n';
			c->out_len += (size_t)(z - p) + 1;
			return 0;
		}
	}
	if (n && p[n - 1] == '\n')
		n--;
	if (x->dsuf_len) {
		if (grow_out(c, c->out_len + n + x->dsuf_len + 2))
			return -ENOMEM;
		p = c->out + c->out_len;
		memcpy(p + n, c->text + x->dsuf_off, x->dsuf_len);
		n += x->dsuf_len;
	}
	p[n] = '\n';
	c->out_len += n + 1;
	return 0;
}

static int format_chunk(struct wctx *w, struct chunk *c)
{
	size_t start = c->out_len;

	for (size_t i = 0; i < c->n; i++)
		if (render(w, c, &c->recs[i], false))
			return -ENOMEM;
	/* a NUL in a line ends it (trace-cmd prints lines with printf("%.*s")): one sweep
	 * over the chunk, and in the unlikely case, the chunk again record by record */
	if (c->out_len > start && memchr(c->out + start, 0, c->out_len - start)) {
		c->out_len = start;
		for (size_t i = 0; i < c->n; i++)
			if (render(w, c, &c->recs[i], true))
				return -ENOMEM;
	}
	return 0;
}

/* ---- threads ---- */

static void free_ctx(struct wctx *w, size_t nfiles)
{
	if (!w)
		return;
	for (size_t i = 0; i < NAMECACHE; i++)
		free(w->names[i].s);
	free(w->evs);
}

static struct wctx *new_ctx(struct report *r)
{
	struct wctx *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->r = r;
	w->evs = calloc(r->nfiles ? r->nfiles : 1, sizeof(*w->evs));
	if (!w->evs) {
		free(w);
		return NULL;
	}
	for (size_t i = 0; i < r->nfiles; i++)
		w->evs[i] = r->files[i].evs;
	return w;
}

static int write_block(void *ctx, const void *p, size_t n)
{
	return kt_write_all(*(const int *)ctx, p, n);
}

static void give_up(struct report *r)
{
	if (r->walk)
		kt_turns_give_up(r->walk);
}

/* Queues the chunk's lines as block's (the chunk gets an empty buffer). */
static bool queue_block(struct report *r, struct kt_turn_queue *q, struct chunk *c, uint64_t block)
{
	void *buf = c->out;
	bool ok = kt_turns_queue(r->walk, q, block, &buf, &c->out_len, &c->out_cap);

	c->out = buf;
	return ok;
}

/*
 * Reads every record and prints this thread's: a few records at a time (they stay in
 * the cache), the lines written in big blocks (every 64 records on a terminal), or with
 * several threads block by block in turn.
 */
static int run_walker(struct report *r)
{
	const struct ktrace_view_text_opts *o = r->o;
	struct chunk c = { 0 };
	struct kt_turn_queue q = { 0 };
	size_t flush = o->line_flush ? 1 : 256 * 1024;
	int ret, wret = 0;

	for (;;) {
		bool end;
		uint64_t block = r->own_block;

		ret = fill_chunk(r, &c, &end);
		if (r->nthr > 1 && c.n && r->own_block != block && c.out_len) {
			/* the chunk starts another block of this thread's: the last one is done */
			if (!queue_block(r, &q, &c, block)) {
				ret = ret ? ret : -ECANCELED;
				break;
			}
		}
		if (format_chunk(r->main_ctx, &c)) {
			ret = kt_error_oom(r->err);
			give_up(r);
			break;
		}
		if (r->nthr < 2 && (c.out_len >= flush || ret || end)) {
			wret = kt_write_all(r->out->fd, c.out, c.out_len);
			c.out_len = 0;
			if (wret) {
				r->out->error = wret;
				break;
			}
		}
		if (ret || end)
			break;
	}
	if (r->nthr > 1) {
		/* the last block of this thread's (cut short by the end or by damage), then
		 * every block in turn */
		if ((c.out_len && !queue_block(r, &q, &c, r->own_block)) ||
		    !kt_turns_write(r->walk, &q, true))
			ret = ret ? ret : -ECANCELED;
	}
	kt_turn_queue_free(&q);
	free(c.recs);
	free(c.extras);
	free(c.text);
	free(c.data);
	free(c.out);
	return ret;
}

/* What the threads' registries may take together, so that a report stays within
 * 64 MiB whatever the machine (a trace with every event's format and a big kallsyms
 * makes them several MiB each). */
#define THREADS_BUDGET ((size_t)24 << 20)
/* a thread's caches, chunk and queue of blocks of lines (up to 5 of 0.5 MiB or more,
 * resident from the start: grow_out): measured, each thread past the first adds its
 * registry and 3 to 4 MiB */
#define THREAD_BYTES ((size_t)4 << 20)

/* How many threads read the records (this one included). */
static unsigned pick_threads(const struct report *r)
{
	const struct ktrace_view_text_opts *o = r->o;
	uint64_t bytes;
	size_t registry;
	long cpus;
	unsigned n;

	/* what depends on every record before it is in one thread's hands */
	if (o->threads == 1 || o->line_flush || o->line_suffix || o->debug || o->boundary)
		return 1;
	if (o->threads > 1)
		return o->threads;
	/* (the pages' bytes: a compressed file holds several times its size) */
	bytes = kt_td_data_bytes(r->set);
	registry = kt_td_registry_bytes(r->set);
	cpus = kt_usable_cpus();
	/* a small trace is done before another registry would be loaded */
	if (cpus < 2 || bytes < (16u << 20))
		return 1;
	n = cpus > 8 ? 8 : (unsigned)cpus;
	while (n > 1 && (n - 1) * (registry + THREAD_BYTES) > THREADS_BUDGET)
		n--;
	return n;
}

/* kt_td_threads: another thread's state, as the first thread's but for its reading. */
static void *helper_start(void *arg, unsigned tid)
{
	struct report *r = arg;
	struct report *h = aligned_alloc(_Alignof(struct report), sizeof(*h));

	if (!h)
		return NULL;
	memset(h, 0, sizeof(*h));
	h->o = r->o;
	h->out = r->out;
	h->err = &h->own_err;
	h->err_file = &h->own_err_file;
	h->nfiles = r->nfiles;
	h->prefix = r->prefix;
	h->width = r->width;
	h->raw_re = r->raw_re;
	h->nraw_re = r->nraw_re;
	h->chunk_recs = r->chunk_recs;
	h->span_max = r->span_max;
	h->walk = r->walk;
	h->tid = tid;
	h->nthr = r->nthr;
	h->files = calloc(r->nfiles ? r->nfiles : 1, sizeof(*h->files));
	if (!h->files) {
		free(h);
		return NULL;
	}
	return h;
}

/* kt_td_threads: a thread's reading (tid 0: the first thread's), set its own. */
static int thread_run(void *state, unsigned tid, struct kt_tdset *set, struct ktrace_error *err)
{
	struct report *h = state;

	if (!tid) {
		h->walk_ret = run_walker(h);
		h->walked = true;
		return h->walk_ret;
	}
	h->set = set;
	h->err = err;
	h->chunks_kept = true;
	for (size_t i = 0; i < h->nfiles; i++)
		bind_file(&h->files[i], kt_td_file(set, i));
	h->main_ctx = new_ctx(h);
	if (!h->main_ctx)
		return 0;    /* a thread that cannot start has taken no block */
	/* it gives up itself when it cannot write its blocks (damage ends its blocks as it
	 * ends the others') */
	return run_walker(h);
}

/* kt_td_threads: another thread ended (ret); its state goes. */
static void thread_done(void *arg, void *state, int ret, const struct ktrace_error *err)
{
	struct report *r = arg, *h = state;

	/* the same records, the same damage: the first thread's error is the one; a
	 * helper's own failure (memory) is reported when the first thread has none */
	if ((!r->walk_ret || r->walk_ret == -ECANCELED) && ret && ret != -ECANCELED) {
		r->walk_ret = ret;
		*r->err = *err;
		*r->err_file = h->own_err_file;
	}
	free_ctx(h->main_ctx, h->nfiles);
	free(h->main_ctx);
	for (size_t i = 0; i < h->nfiles; i++) {
		free(h->files[i].evinfo);
		free(h->files[i].skip);
	}
	free(h->files);
	free(h->copy);
	free(h);
}

static const struct kt_td_threads_ops thread_ops = { helper_start, thread_run, thread_done };

static int run_records(struct report *r)
{
	const struct ktrace_view_text_opts *o = r->o;
	struct kt_turns walk;
	unsigned nthr;
	int ret;

	r->chunk_recs = o->line_flush ? 64 : 16;
	r->main_ctx = new_ctx(r);
	if (!r->main_ctx)
		return kt_error_oom(r->err);
	if (kt_out_flush(r->out))
		return 0;
	kt_td_keep(r->set, WALK_KEEP);
	r->span_max = WALK_KEEP / 2;
	r->chunks_kept = true;
	nthr = pick_threads(r);
	if (nthr < 2)
		return run_walker(r);

	kt_turns_init(&walk, write_block, &r->out->fd);
	r->walk = &walk;
	r->nthr = nthr;
	r->tid = 0;
	ret = kt_td_threads(r->set, nthr, WALK_KEEP, &thread_ops, r);
	if (r->walked)
		ret = r->walk_ret;    /* the first thread's, or a helper's (thread_done) */
	if (walk.write_error)
		r->out->error = walk.write_error;
	if (ret == -ECANCELED && !walk.write_error)
		ret = kt_error_oom(r->err);
	kt_turns_fini(&walk);
	r->walk = NULL;
	return ret;
}

/* ---- the header lines, listings ---- */

static void put_file_prefix(struct report *r, const char *label, bool labelled)
{
	if (!labelled)
		return;
	kt_out_printf(r->out, label && *label ? "%*s: " : "%*s  ", r->width,
		      label && *label ? label : "");
}

/* --debug: libtracecmd's "CPU N is empty" as it sets the buffer's CPUs up */
static void empty_cpus(struct report *r, struct rfile *f, size_t buffer)
{
	struct tracedat *td = kt_tdfile_td(f->t);
	const struct tracedat_buffer *b = tracedat_buffer(td, buffer);

	for (size_t i = 0; i < b->cpus; i++)
		if (!tracedat_buffer_cpu(td, buffer, i)->data_size)
			kt_out_printf(r->out, "CPU %zu is empty\n", i);
}

static int latency_cb(const char *text, size_t len, void *arg)
{
	kt_out_write(arg, text, len);
	return 0;
}

static void print_time_only(struct report *r, const struct rfile *f, uint64_t ts)
{
	char buf[64], *p = buf;

	p = put_time(p, f, r->o->nsec, ts);
	kt_out_write(r->out, buf, (size_t)(p - buf));
}

/* --cpus, --first-event, --last-event */
static int list_cpus(struct report *r, struct rfile *f)
{
	struct tracedat *td = kt_tdfile_td(f->t);
	int top = tracedat_find_buffer(td, "");
	const struct tracedat_buffer *b;
	struct ktrace_error damage = { 0 };

	kt_out_printf(r->out, "List of CPUs in %s with data:\n", kt_tdfile_path(f->t));
	if (top < 0)
		return 0;
	b = tracedat_buffer(td, (size_t)top);
	/* the CPUs with data, in id order (a file may claim many more CPUs than it holds) */
	for (unsigned k = 0; k < b->cpus && !b->latency; k++) {
		const struct tracedat_cpu *tc = tracedat_buffer_cpu(td, (size_t)top, k);
		unsigned cpu = tc->cpu;
		const struct tracedat_record *rec;
		struct tracedat_iter *it;
		uint64_t first = 0, last = 0;
		bool any = false, ended;
		int ret;

		if (cpu >= kt_tdfile_ncpus(f->t))
			break;
		if (!tc->data_size)
			continue;
		ret = tracedat_iter_new(td, top, (int)cpu, &it, r->err);
		if (ret == -ENOENT || ret == -EINVAL) {
			ktrace_error_clear(r->err);
			continue;
		}
		if (ret)
			return ret;
		while ((ret = tracedat_iter_next(it, &rec, r->err)) > 0) {
			if (!any)
				first = rec->ts;
			any = true;
			last = rec->ts;
			if (!r->o->last_event)
				break;
		}
		ended = tracedat_iter_ended(it);
		tracedat_iter_free(it);
		/* a CPU whose data ended with damage (told): the records before it count */
		if (ret < 0 && !ended)
			return ret;
		if (ret < 0)
			damage = *r->err;
		if (!any)
			continue;
		kt_out_printf(r->out, "  %u", cpu);
		if (r->o->first_event) {
			kt_out_puts(r->out, "\tFirst event:");
			print_time_only(r, f, first);
		}
		if (r->o->last_event) {
			kt_out_puts(r->out, "\tLast event:");
			print_time_only(r, f, last);
		}
		kt_out_putc(r->out, '\n');
	}
	if (damage.code) {
		/* the set's damage, the listing's error once every file is listed */
		kt_td_set_damage(r->set, &damage, kt_tdfile_path(f->t));
	}
	return 0;
}

static int cmp_events(const void *a, const void *b)
{
	const struct ktrace_event *x = *(const struct ktrace_event *const *)a;
	const struct ktrace_event *y = *(const struct ktrace_event *const *)b;
	int c = strcmp(ktrace_event_system(x), ktrace_event_system(y));

	if (c)
		return c;
	c = strcmp(ktrace_event_name(x), ktrace_event_name(y));
	if (c)
		return c;
	return (ktrace_event_id(x) > ktrace_event_id(y)) - (ktrace_event_id(x) < ktrace_event_id(y));
}

static int list_events(struct report *r, struct rfile *f)
{
	size_t n = ktrace_event_count(f->evs);
	const struct ktrace_event **v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		return kt_error_oom(r->err);
	for (size_t i = 0; i < n; i++)
		v[i] = ktrace_event_at(f->evs, i);
	qsort(v, n, sizeof(*v), cmp_events);
	for (size_t i = 0; i < n; i++)
		kt_out_printf(r->out, "%s:%s\n", ktrace_event_system(v[i]), ktrace_event_name(v[i]));
	free(v);
	return 0;
}

static int list_funcs(struct report *r, struct rfile *f)
{
	size_t n = ktrace_event_function_count(f->evs);

	for (size_t i = 0; i < n; i++) {
		uint64_t addr;
		const char *name, *mod;

		ktrace_event_function_at(f->evs, i, &addr, &name, &mod);
		kt_out_hex(r->out, addr, 16);
		kt_out_putc(r->out, ' ');
		kt_out_puts(r->out, name);
		if (mod)
			kt_out_printf(r->out, " [%s]\n", mod);
		else
			kt_out_putc(r->out, '\n');
	}
	return 0;
}

static int list_printk(struct report *r, struct rfile *f)
{
	size_t n = ktrace_event_printk_count(f->evs);

	for (size_t i = 0; i < n; i++) {
		uint64_t addr;
		const char *fmt;

		ktrace_event_printk_at(f->evs, i, &addr, &fmt);
		kt_out_hex(r->out, addr, 16);
		kt_out_putc(r->out, ' ');
		kt_out_puts(r->out, fmt);
		kt_out_putc(r->out, '\n');
	}
	return 0;
}

/* -T: libtraceevent prints each filter as it is added, then trace-cmd exits. */
static void filter_line(void *arg, const struct ktrace_event *ev, const char *text)
{
	struct report *r = arg;

	kt_out_printf(r->out, " '%s: %s'\n", ktrace_event_name(ev), text);
}

/* --stat */
static void print_stats(struct report *r, struct rfile *f)
{
	struct tracedat *td = kt_tdfile_td(f->t);
	bool any = false;
	int top;

	kt_out_puts(r->out, "\nKernel buffer statistics:\n"
		    "  Note: \"entries\" are the entries left in the kernel ring buffer and are not\n"
		    "        recorded in the trace data. They should all be zero.\n\n");
	for (size_t i = 0; i < tracedat_option_count(td); i++) {
		const struct tracedat_option *op = tracedat_option(td, i);
		size_t n;

		if (op->id != TRACEDAT_OPT_CPUSTAT)
			continue;
		any = true;
		/* the last byte becomes a newline; printf("%s") stops at a NUL */
		n = op->size ? op->size - 1 : 0;
		{
			const void *z = memchr(op->data, 0, n);

			kt_out_write(r->out, op->data, z ? (size_t)((const uint8_t *)z - op->data) : n);
			if (z)
				goto stats_done;
		}
		if (op->size)
			kt_out_putc(r->out, '\n');
	}
stats_done:
	if (any)
		kt_out_putc(r->out, '\n');
	else
		kt_out_puts(r->out, " No stats in this file\n");
	top = tracedat_find_buffer(td, "");
	if (top < 0)
		return;
	{
		const struct tracedat_buffer *b = tracedat_buffer(td, (size_t)top);
		uint64_t *base = calloc(b->cpus ? b->cpus : 1, sizeof(*base));

		if (base && b->compressed)
			kt_td_virtual_offsets(td, (size_t)top, base);
		/* trace-cmd lists CPU ids 0..cpus-1; ids without data are at 0, 0 bytes. It
		 * lists no more CPUs than the buffer has entries for (a file may claim
		 * millions of CPUs in its CPUCOUNT option) */
		unsigned nlist = b->cpus;

		if (b->cpus && tracedat_buffer_cpu(td, (size_t)top, b->cpus - 1)->cpu >= nlist)
			nlist = tracedat_buffer_cpu(td, (size_t)top, b->cpus - 1)->cpu + 1;
		if (nlist > kt_tdfile_ncpus(f->t))
			nlist = kt_tdfile_ncpus(f->t);
		for (unsigned id = 0, k = 0; id < nlist; id++) {
			const struct tracedat_cpu *c = NULL;
			uint64_t off = 0, size = 0;

			while (k < b->cpus && tracedat_buffer_cpu(td, (size_t)top, k)->cpu < id)
				k++;
			if (k < b->cpus && tracedat_buffer_cpu(td, (size_t)top, k)->cpu == id)
				c = tracedat_buffer_cpu(td, (size_t)top, k);
			if (c) {
				off = c->offset;
				size = c->size;
				/* compressed data: where trace-cmd puts it once decompressed (it
				 * leaves an empty CPU at offset 0) */
				if (b->compressed && base) {
					off = c->data_size ? base[k] : 0;
					size = c->data_size;
				}
			}
			kt_out_printf(r->out, "CPU%u data recorded at offset=0x%" PRIx64 "\n", id, off);
			kt_out_printf(r->out, "    %" PRIu64 " bytes in size\n", size);
		}
		free(base);
	}
}

/* ---- driver ---- */

static void close_all(struct report *r)
{
	free_ctx(r->main_ctx, r->nfiles);
	free(r->main_ctx);
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].evinfo);
		free(r->files[i].skip);
		if (r->files[i].kb)
			kbuffer_free(r->files[i].kb);
	}
	free(r->files);
	kt_td_close(r->set);
	free(r->copy);
	for (size_t i = 0; i < r->nraw_re; i++)
		regfree(&r->raw_re[i]);
	free(r->raw_re);
}

int ktrace_view_tracedat_text(const struct ktrace_view_text_opts *o, struct ktrace_out *out,
				struct ktrace_error *err, const char **err_file)
{
	struct report r = { 0 };
	const char *dummy;
	struct kt_tdset_opts so = {
		.raw_ts = o->raw_ts, .no_date = o->no_date, .nsec = o->nsec,
		.listing = o->mode == KTRACE_VIEW_TEXT_EVENTS || o->mode == KTRACE_VIEW_TEXT_PRINTK ||
			   o->mode == KTRACE_VIEW_TEXT_FUNCS,
		.debug_offsets = o->debug, .cpus = o->cpus, .ncpus = o->ncpus,
		.no_irqs = o->no_irqs, .no_softirqs = o->no_softirqs, .read_copies = true,
		.lost_unknown_ends = true,
		.warn = o->warn, .warn_arg = o->warn_arg,
	};
	int ret = 0;

	r.o = o;
	r.out = out;
	r.err = err;
	r.err_file = err_file ? err_file : &dummy;
	*r.err_file = NULL;
	if (o->nfiles > UINT16_MAX)
		return ktrace_error_set(err, -EINVAL, "too many input files (at most %u)", UINT16_MAX);
	r.files = calloc(o->nfiles ? o->nfiles : 1, sizeof(*r.files));
	if (!r.files)
		return kt_error_oom(err);
	ret = kt_td_open(&r.set, o->nfiles, &so, true, err);
	if (ret) {
		free(r.files);
		return ret;
	}
	if (o->nraw_events) {
		r.raw_re = calloc(o->nraw_events, sizeof(*r.raw_re));
		if (!r.raw_re) {
			ret = kt_error_oom(err);
			goto out;
		}
		for (size_t i = 0; i < o->nraw_events; i++) {
			char *pat = malloc(strlen(o->raw_events[i]) + 3);

			if (!pat) {
				ret = kt_error_oom(err);
				goto out;
			}
			sprintf(pat, "^%s$", o->raw_events[i]);
			ret = regcomp(&r.raw_re[r.nraw_re], pat, REG_ICASE | REG_NOSUB);
			free(pat);
			if (ret) {
				ret = ktrace_error_set(err, -EINVAL, "can't parse '%s'", o->raw_events[i]);
				goto out;
			}
			r.nraw_re++;
		}
	}

	/* trace-cmd opens every file before printing anything; the listing options print
	 * from the first file only */
	for (size_t i = 0; i < o->nfiles; i++) {
		struct rfile *f = &r.files[i];
		const struct ktrace_view_text_file *a = &o->files[i];

		r.nfiles = i + 1;
		ret = kt_td_open_file(r.set, i, a->path, a->input, a->ts_offset);
		bind_file(f, kt_td_file(r.set, i));
		if (ret) {
			*r.err_file = kt_td_err_file(r.set);
			goto out;
		}
		if (o->debug)
			kt_out_printf(out, "version = %u\n", tracedat_header(kt_tdfile_td(f->t))->version);
		switch (o->mode) {
		case KTRACE_VIEW_TEXT_EVENTS:
			ret = list_events(&r, f);
			goto out;
		case KTRACE_VIEW_TEXT_PRINTK:
			ret = list_printk(&r, f);
			goto out;
		case KTRACE_VIEW_TEXT_FUNCS:
			ret = list_funcs(&r, f);
			goto out;
		case KTRACE_VIEW_TEXT_CPUS:
			ret = list_cpus(&r, f);
			if (ret)
				goto out;
			continue;
		default:
			break;
		}
		if (o->multi) {
			int w = (int)strlen(kt_tdfile_base(f->t));

			if (w > r.width)
				r.width = w;
		}
	}
	if (o->mode == KTRACE_VIEW_TEXT_CPUS)
		goto out;

	/* trace-cmd's read_data_info: per file "cpus=N" (and the statistics), then the
	 * instances join the list of buffers */
	{
		size_t instances = 0;

		for (size_t i = 0; i < r.nfiles; i++) {
			struct rfile *f = &r.files[i];
			struct tracedat *td = kt_tdfile_td(f->t);
			int top = tracedat_find_buffer(td, "");

			ret = kt_td_add_filters(r.set, f->t, o->files[i].filters,
						o->files[i].nfilters, o->tasks,
						i == 0 ? o->ntasks : 0);
			if (ret) {
				*r.err_file = kt_td_err_file(r.set);
				goto out;
			}
			if (o->mode == KTRACE_VIEW_TEXT_FILTER_TEST &&
			    kt_tdfile_filters(f->t, filter_line, &r))
				goto out;
			if (o->debug && top >= 0)
				empty_cpus(&r, f, (size_t)top);
			put_file_prefix(&r, kt_tdfile_base(f->t), o->multi || instances);
			kt_out_printf(out, "cpus=%u\n", kt_tdfile_ncpus(f->t));
			if (top >= 0 && tracedat_buffer(td, (size_t)top)->latency) {
				if (o->multi) {
					ret = ktrace_error_set(err, -EINVAL,
							       "latency traces do not work with multiple inputs");
					*r.err_file = kt_tdfile_path(f->t);
					goto out;
				}
				*r.err_file = kt_tdfile_path(f->t);
				ret = tracedat_latency_text(td, (size_t)top, latency_cb, out, err);
				if (!ret)
					kt_out_putc(out, '\n');
				goto out;
			}
			switch (o->mode) {
			case KTRACE_VIEW_TEXT_STAT:
				print_stats(&r, f);
				continue;
			case KTRACE_VIEW_TEXT_UNAME:
				kt_out_puts(out, tracedat_uname(td) ? tracedat_uname(td)
					    : " uname was not recorded in this file");
				kt_out_putc(out, '\n');
				/* fall through - trace-cmd prints the version too */
			case KTRACE_VIEW_TEXT_VERSION: {
				const char *v = tracedat_tracer_version(td);

				kt_out_puts(out, v ? v : " version was not recorded in this file");
				kt_out_putc(out, '\n');
				continue;
			}
			default:
				break;
			}
			if (top >= 0) {
				ret = kt_td_add_stream(r.set, f->t, (size_t)top, o->multi);
				if (ret) {
					*r.err_file = kt_td_err_file(r.set);
					goto out;
				}
			}
			instances = kt_tdfile_ninstances(f->t);
			for (size_t b = 0; o->debug && b < tracedat_buffer_count(td); b++)
				if (*tracedat_buffer(td, b)->name && !tracedat_buffer(td, b)->latency)
					empty_cpus(&r, f, b);
			/* the instances' handles join trace-cmd's list (and the width of the
			 * names) after their file's "cpus=" line */
			for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
				const struct tracedat_buffer *buf = tracedat_buffer(td, b);
				int w = (int)strlen(buf->name);

				if (*buf->name && !buf->latency && w > r.width)
					r.width = w;
			}
		}
		if (o->mode != KTRACE_VIEW_TEXT_RECORDS && o->mode != KTRACE_VIEW_TEXT_FILTER_TEST) {
			/* the damage --cpus met */
			ret = kt_td_end(r.set);
			if (ret)
				*r.err_file = kt_td_err_file(r.set);
			goto out;
		}
		for (size_t i = 0; i < r.nfiles; i++) {
			struct rfile *f = &r.files[i];
			struct tracedat *td = kt_tdfile_td(f->t);

			for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
				const struct tracedat_buffer *buf = tracedat_buffer(td, b);

				if (!*buf->name || buf->latency)
					continue;
				ret = kt_td_add_stream(r.set, f->t, b, o->multi);
				if (ret) {
					*r.err_file = kt_td_err_file(r.set);
					goto out;
				}
			}
		}
		r.prefix = o->multi || instances;
	}
	r.total_bytes = 0;
	if (r.nfiles == 1)
		r.total_bytes = kt_td_file_bytes(r.set);
	ret = run_records(&r);
out:
	close_all(&r);
	return ret;
}
