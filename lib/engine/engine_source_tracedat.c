// SPDX-License-Identifier: MIT
/*
 * The stream's trace.dat source: every trace.dat input in one tdset (engine/engine_tdset_int.h),
 * merged as trace-cmd report merges several files and their instances, filtered as it
 * filters. A record whose page lost events comes after a KTRACE_STREAM_LOST record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "engine/engine_stream_int.h"
#include "engine/engine_tdset_int.h"
#include "event/event_share.h"
#include "tracedat/tracedat_skip.h"

struct tgid {
	int32_t pid, tgid;
};

struct td_source {
	struct kt_source src;
	struct kt_tdset set;
	const uint32_t *index;          /* input index of each file */
	struct kt_tdrec cur;            /* the record handed out (head of its stream) */
	bool cur_valid;                 /* cur's stream is still to move on */
	bool lost_pending;              /* cur's lost-events record was handed out first */
	bool after_lost;                /* cur came after its lost-events record: trace-cmd
					 * prints the buffer label before the mark only */
	struct tgid **file_tgids;       /* per file: its saved tgids, sorted by pid */
	size_t *ntgids;
	/* the tgids found last, by pid (a trace's records come from few tasks) */
	struct tgid_hit {
		int pid;
		uint32_t file;
		int64_t tgid;
		bool set;
	} tgid_cache[64];
	/* what fill_record takes from an event format, for the formats met lately (the
	 * records of a few events interleave), by the format's address */
	struct td_evinfo {
		const struct ktrace_event *ev;
		const char *system, *name;
		uint32_t id;
		bool learns;
	} evinfo[64];
	bool no_lost;                   /* KTRACE_STREAM_NO_LOST */
	int width;                      /* label column (trace-cmd's max_file_size) */
	bool labelled;
	bool multi;
	char *text;                     /* formatting scratch */
	size_t text_cap;
	struct kt_nums nums;            /* the numbers in text (want_nums) */
	/* kt_stream_skip: per event id, 0 not known yet, 1 passed over, 2 passed over after
	 * teaching comms (sched events), 3 never (no such event) */
	uint8_t *skip_class;
	const struct kt_stream_skip *skip_how;
	struct ktrace_error err;        /* the set's errors once open (the caller's err of
					 * ktrace_stream_open is gone by then) */
};

static int cmp_tgid(const void *a, const void *b)
{
	const struct tgid *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int64_t search_tgid(const struct td_source *t, size_t file, int pid)
{
	const struct tgid *v = t->file_tgids[file];
	size_t lo = 0, hi = t->ntgids[file];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid == pid)
			return v[mid].tgid;
		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int64_t find_tgid(struct td_source *t, size_t file, int pid)
{
	struct tgid_hit *h = &t->tgid_cache[(unsigned)pid % 64];

	if (h->pid != pid || h->file != file || !h->set) {
		h->pid = pid;
		h->file = (uint32_t)file;
		h->set = true;
		h->tgid = search_tgid(t, file, pid);
	}
	return h->tgid;
}

/* Two numbers, as sscanf(line, "%d %d") reads them (glibc's: strtol's, cut to int): a
 * third of its time on a recorded trace's 32 k lines, read by every stream opened. */
static bool two_ints(const char *line, int *a, int *b)
{
	char *end;
	long x = strtol(line, &end, 10), y;

	if (end == line)
		return false;
	line = end;
	y = strtol(line, &end, 10);
	if (end == line)
		return false;
	*a = (int)x;
	*b = (int)y;
	return true;
}

/* "pid number" lines (the kernel's saved_tgids, in ktrace's SAVED_TGIDS option). */
static int load_tgids(struct td_source *t, size_t file)
{
	struct tracedat *td = t->set.files[file].td;
	size_t cap = 0, n = 0;
	struct tgid *v = NULL;

	for (size_t i = 0; i < tracedat_option_count(td); i++) {
		const struct tracedat_option *op = tracedat_option(td, i);
		const char *p, *end;

		if (op->id != TRACEDAT_OPT_SAVED_TGIDS)
			continue;
		p = (const char *)op->data;
		end = p + op->size;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			char line[64];
			size_t l = (size_t)((nl ? nl : end) - p);
			int pid, tgid;

			if (l < sizeof(line)) {
				memcpy(line, p, l);
				line[l] = 0;
				if (two_ints(line, &pid, &tgid)) {
					if (kt_grow((void **)&v, &cap, n + 1, sizeof(*v))) {
						free(v);
						return -ENOMEM;
					}
					v[n++] = (struct tgid){ pid, tgid };
				}
			}
			p = nl ? nl + 1 : end;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_tgid);
	t->file_tgids[file] = v;
	t->ntgids[file] = n;
	return 0;
}

/* The saved cmdlines ("pid comm" lines) as the stream's task table. */
static int load_tasks(struct td_source *t, size_t file)
{
	const struct kt_mtext *c = &t->set.files[file].cmdlines;
	const char *p = c->text, *end = c->text ? c->text + c->len : NULL;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char comm[64];
		char *sp;
		long pid = strtol(p, &sp, 10);

		if (sp > p && sp < le && *sp == ' ') {
			size_t l = (size_t)(le - sp - 1);

			if (l >= sizeof(comm))
				l = sizeof(comm) - 1;
			memcpy(comm, sp + 1, l);
			comm[l] = 0;
			if (kt_stream_add_task(t->src.stream, t->index[file], pid,
					       find_tgid(t, file, (int)pid), comm))
				return -ENOMEM;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* "sched_..." (the events the sched plugin learns names from), tested without a call */
static bool sched_name(const char *n)
{
	return n[0] == 's' && n[1] == 'c' && n[2] == 'h' && n[3] == 'e' && n[4] == 'd' && n[5] == '_';
}

/* What the stream's records take from event format ev (not NULL). */
static const struct td_evinfo *evinfo(struct td_source *t, const struct ktrace_event *ev)
{
	struct td_evinfo *e = &t->evinfo[((uintptr_t)ev * 0x9e3779b97f4a7c15u) >> 58];

	if (e->ev != ev) {
		e->ev = ev;
		e->system = ktrace_event_system(ev);
		e->name = ktrace_event_name(ev);
		e->id = (uint32_t)ktrace_event_id(ev);
		/* the sched plugin learns names as trace-cmd prints (after the comm column):
		 * from sched events only, the others need not be looked up again */
		e->learns = sched_name(e->name) && !strcmp(e->system, "sched");
	}
	return e;
}

static void fill_record(struct td_source *t)
{
	struct ktrace_stream_record *r = &t->src.rec;
	const struct kt_tdrec *c = &t->cur;
	struct kt_tdfile *f = c->s->f;
	size_t file = (size_t)(f - t->set.files);
	int pid = c->ev ? ktrace_event_record_pid(f->evs, &c->kr) : -1;
	const struct td_evinfo *info = NULL;

	r->kind = KTRACE_STREAM_EVENT;
	r->lost = 0;
	r->ts = c->rec->ts;
	r->cpu = (int32_t)c->rec->cpu;
	r->tid = pid;
	r->pid = pid >= 0 ? find_tgid(t, file, pid) : -1;
	if (pid == 0)
		r->pid = 0;
	r->comm = c->ev ? ktrace_event_comm(f->evs, pid) : "";
	if (c->ev) {
		info = evinfo(t, c->ev);
		r->system = info->system;
		r->name = info->name;
		r->event_id = info->id;
	} else {
		r->system = r->name = "";
		r->event_id = 0;
	}
	r->source = t->index[file];
	r->buffer = c->s->buffer;
	r->offset = c->rec->offset;
	if (info && info->learns) {
		kt_tdrec_avail(&t->cur);
		ktrace_event_learn_comms(f->evs, &c->kr);
	}
}

/* The ids' classes for the skip (skip_class). */
static uint8_t skip_class_of(struct td_source *t, const struct ktrace_event *ev)
{
	const char *name;

	if (!ev)
		return 3;
	name = ktrace_event_name(ev);
	return sched_name(name) && !strcmp(ktrace_event_system(ev), "sched") ? 2 : 1;
}

/* tracedat_iter_skip's check: a record the caller's accept takes, after the comms it
 * teaches are learnt (as fill_record learns them). */
static bool skip_check(void *arg, const struct tracedat_record *rec, size_t id)
{
	struct td_source *t = arg;
	struct kt_tdstream *s = &t->set.streams[0];
	struct ktrace_events *evs = s->f->evs;
	struct ktrace_record kr;
	int pid;

	if (rec->missed_events)
		return false;
	if (!t->skip_class[id])
		t->skip_class[id] = skip_class_of(t, ktrace_event_find(evs, (int)id));
	if (t->skip_class[id] == 3)
		return false;
	kt_td_record_fields(rec, &kr);
	kr.avail = 0;
	pid = ktrace_event_record_pid(evs, &kr);
	if (!t->skip_how->accept(t->skip_how->arg, (uint32_t)id, pid, (int32_t)rec->cpu, rec->ts))
		return false;
	if (t->skip_class[id] == 2) {
		kr.avail = kt_tdstream_avail(s, rec);
		ktrace_event_learn_comms(evs, &kr);
	}
	return true;
}

/* The next record to hand out (a lost-events mark first, when its page lost some). */
static int td_load(struct td_source *t, struct ktrace_error *err);

static int td_skip(struct kt_source *src, uint64_t max, const struct kt_stream_skip *how,
		   uint64_t *skipped, struct ktrace_error *err)
{
	struct td_source *t = (struct td_source *)src;
	struct kt_tdstream *s = &t->set.streams[0];
	struct tracedat_skip ts = { .nids = 1u << 16, .check = skip_check, .arg = t };
	const struct tracedat_record *rec;
	int ret;

	*skipped = 0;
	if (t->lost_pending || !t->cur_valid || t->set.nstreams != 1 || t->set.filtering ||
	    ftev_type_field(s->f->evs, &ts.id_offset))
		return src->ops->advance(src, err);
	if (!t->skip_class && !(t->skip_class = calloc(1u << 16, 1)))
		return kt_error_oom(err);
	t->after_lost = false;
	t->cur_valid = false;
	ret = kt_tdset_advance(&t->set, t->cur.s);
	if (ret)
		goto fail;
	if (s->head) {
		t->skip_how = how;
		ret = tracedat_iter_skip(s->it, &ts, max, skipped, &rec, &t->err);
		t->set.visited += *skipped;
		s->head = rec;
		if (ret < 0 && (ret = kt_tdset_stream_error(&t->set, s, ret)) < 0)
			goto fail;
	}
	return td_load(t, err);
fail:
	src->err_path = t->set.err_file;
	*err = t->err;
	return ret;
}

static int td_advance(struct kt_source *src, struct ktrace_error *err)
{
	struct td_source *t = (struct td_source *)src;
	int ret;

	if (t->lost_pending) {
		/* the lost-events mark went out: now its record */
		t->lost_pending = false;
		t->after_lost = true;
		fill_record(t);
		return 1;
	}
	t->after_lost = false;
	if (t->cur_valid) {
		t->cur_valid = false;
		ret = kt_tdset_advance(&t->set, t->cur.s);
		if (ret) {
			src->err_path = t->set.err_file;
			*err = t->err;
			return ret;
		}
	}
	return td_load(t, err);
}

static int td_load(struct td_source *t, struct ktrace_error *err)
{
	struct kt_source *src = &t->src;
	int ret;

	ret = kt_tdset_next(&t->set, &t->cur);
	if (ret <= 0)
		goto fail;
	t->cur_valid = true;
	if (t->cur.rec->missed_events && !t->no_lost) {
		struct ktrace_stream_record *r = &src->rec;
		struct kt_tdfile *f = t->cur.s->f;

		memset(r, 0, sizeof(*r));
		r->kind = KTRACE_STREAM_LOST;
		r->ts = t->cur.rec->ts;
		r->cpu = (int32_t)t->cur.rec->cpu;
		r->tid = r->pid = -1;
		r->comm = r->system = r->name = "";
		r->lost = t->cur.rec->missed_events > 0 ? (uint64_t)t->cur.rec->missed_events : 0;
		r->source = t->index[f - t->set.files];
		r->buffer = t->cur.s->buffer;
		r->offset = t->cur.rec->page_offset;
		t->lost_pending = true;
		return 1;
	}
	fill_record(t);
	return 1;
fail:
	if (ret < 0) {
		src->err_path = t->set.err_file;
		*err = t->err;
	}
	return ret;
}

static int td_field(struct kt_source *src, size_t i, struct ktrace_event_value *v)
{
	struct td_source *t = (struct td_source *)src;

	return ktrace_event_field_value(t->cur.s->f->evs, t->cur.ev, i, &t->cur.kr, v);
}

static size_t td_fields(struct kt_source *src, struct ktrace_event_value *v, size_t max)
{
	struct td_source *t = (struct td_source *)src;

	if (t->lost_pending)
		return 0;
	return ktrace_event_field_values(t->cur.s->f->evs, t->cur.ev, &t->cur.kr, v, max);
}

/* The event's text, formatted as trace-cmd formats it, into t->text. */
static int format_text(struct td_source *t, size_t *n)
{
	size_t need;
	const struct ktrace_record *kr = &t->cur.kr;

	kt_tdrec_avail(&t->cur);
	for (;;) {
		need = t->src.want_nums
			       ? ftev_format_nums(t->cur.s->f->evs, kr, t->text, t->text_cap, &t->nums)
			       : ktrace_event_format(t->cur.s->f->evs, kr, 0, t->text, t->text_cap, NULL);
		if (need < t->text_cap)
			break;
		if (kt_grow((void **)&t->text, &t->text_cap, need + 1, 1))
			return -ENOMEM;
	}
	*n = need;
	return 0;
}

/* a then b into buf as snprintf would: at most len - 1 bytes and a NUL; the whole
 * length. */
static int copy_out(char *buf, size_t len, const char *a, size_t na, const char *b, size_t nb)
{
	size_t total = na + nb;

	if (len) {
		size_t room = len - 1, ka = na < room ? na : room, kb = nb < room - ka ? nb : room - ka;

		memcpy(buf, a, ka);
		memcpy(buf + ka, b, kb);
		buf[ka + kb] = 0;
	}
	return total > INT32_MAX ? -EOVERFLOW : (int)total;
}

/* The prefix can be made without printf: its tid and CPU not negative. */
static bool prefix_plain(const struct ktrace_stream_record *r)
{
	return r->tid >= 0 && r->tid <= INT32_MAX && r->cpu >= 0;
}

/*
 * The line's start as trace-cmd prints it, "%16s-%-5d [%03d] %5llu.%06llu: %s: %*s" (or
 * "%12llu" raw nanoseconds), without printf: 0 when it does not fit pre or a value is
 * negative (the printf path then does it).
 */
static bool fast_prefix_fits(size_t cap, size_t h, const struct ktrace_stream_record *r)
{
	return prefix_plain(r) && h + strlen(r->comm) + strlen(r->name) + 256 <= cap;
}

static size_t fast_prefix(char *pre, size_t cap, const char *head, size_t h,
			  const struct ktrace_stream_record *r, bool usecs)
{
	if (!fast_prefix_fits(cap, h, r))
		return 0;
	memcpy(pre, head, h);
	return h + kt_line_prefix(pre + h, usecs ? KT_PREFIX_USECS : KT_PREFIX_NSECS, r->comm,
				  r->tid, r->cpu, r->ts, r->name);
}

/* Where a record's text of n bytes ends: at a NUL (printf("%.*s")), and one final
 * newline goes. */
static size_t text_end(const char *text, size_t n)
{
	const char *z = memchr(text, 0, n);

	if (z)
		return (size_t)(z - text);
	return n && text[n - 1] == '\n' ? n - 1 : n;
}

/* The line tells of the numbers noted in its text as it ends (n bytes). */
static void tell_nums(struct td_source *t, size_t n)
{
	unsigned k = 0;

	while (k < t->nums.n && t->nums.v[k].at + t->nums.v[k].len <= n)
		k++;
	t->src.line.nums = t->nums.v;
	t->src.line.nnums = k;
}

/* The line is the label (h bytes) and the text, the prefix left to the caller. */
static void tell_omitted(struct td_source *t, size_t h)
{
	struct kt_line_parts *l = &t->src.line;

	l->style = t->cur.s->f->usecs ? KT_PREFIX_USECS : KT_PREFIX_NSECS;
	l->label = h;
	l->omitted = true;
	l->text_at = h;
}

static int td_format(struct kt_source *src, char *buf, size_t len, bool text_only)
{
	struct td_source *t = (struct td_source *)src;
	const struct ktrace_stream_record *r = &src->rec;
	struct kt_tdfile *f = t->cur.s->f;
	const char *label = t->cur.s->label;
	char head[256];
	size_t n;
	int h = 0, ret;

	if (r->kind == KTRACE_STREAM_LOST && text_only)
		return snprintf(buf, len, "%s", "");
	if (t->labelled && !(t->after_lost && r->kind == KTRACE_STREAM_EVENT)) {
		if (*label)
			h = snprintf(head, sizeof(head), "%*s: ", t->width, label);
		else
			h = snprintf(head, sizeof(head), "%*s  ", t->width, "");
	}
	if (r->kind == KTRACE_STREAM_LOST)
		return r->lost ? snprintf(buf, len, "%.*sCPU:%d [%llu EVENTS DROPPED]", h, head, r->cpu,
					  (unsigned long long)r->lost)
			       : snprintf(buf, len, "%.*sCPU:%d [EVENTS DROPPED]", h, head, r->cpu);
	if (!t->cur.ev) {
		/* tep_print_event prints only this for an event it does not know */
		if (text_only)
			return snprintf(buf, len, "[UNKNOWN EVENT]");
		return snprintf(buf, len, "%.*s[UNKNOWN EVENT][UNKNOWN EVENT] (NULL): %14s[UNKNOWN EVENT]",
				h, head, "");
	}
	/* (the caller makes the prefix: of any length) */
	if (src->omit_prefix && src->label_only && !text_only && prefix_plain(r)) {
		/* the label alone: the caller has the text */
		tell_omitted(t, (size_t)h);
		src->line.text_left = true;
		return copy_out(buf, len, head, (size_t)h, "", 0);
	}
	if (src->omit_prefix && src->want_nums && !text_only && prefix_plain(r) && len > (size_t)h + 1) {
		/* the label, then the text formatted in place (no copy) */
		size_t room = len - (size_t)h;

		kt_tdrec_avail(&t->cur);
		memcpy(buf, head, (size_t)h);
		n = ftev_format_nums(f->evs, &t->cur.kr, buf + h, room, &t->nums);
		if (n >= room)        /* the caller makes room and asks again */
			return n > INT32_MAX - (size_t)h ? -EOVERFLOW : (int)((size_t)h + n);
		if (src->nul_later) {
			/* (the final newline goes: a NUL before it ends the line anyway) */
			n = n && buf[(size_t)h + n - 1] == '\n' ? n - 1 : n;
			src->line.nul_later = true;
		} else {
			n = text_end(buf + h, n);
		}
		buf[(size_t)h + n] = 0;
		tell_nums(t, n);
		tell_omitted(t, (size_t)h);
		return (int)((size_t)h + n);
	}
	ret = format_text(t, &n);
	if (ret)
		return ret;
	n = text_end(t->text, n);
	if (text_only)
		return copy_out(buf, len, t->text, n, "", 0);
	if (src->want_nums)
		tell_nums(t, n);
	if (src->omit_prefix && prefix_plain(r)) {
		/* the caller makes the prefix itself: the label and the text */
		tell_omitted(t, (size_t)h);
		return copy_out(buf, len, head, (size_t)h, t->text, n);
	}
	{
		char pre[512];
		size_t k = fast_prefix(pre, sizeof(pre), head, (size_t)h, r, f->usecs);

		if (k) {
			src->line.style = f->usecs ? KT_PREFIX_USECS : KT_PREFIX_NSECS;
			src->line.label = (size_t)h;
			src->line.prefix = k - (size_t)h;
			src->line.text_at = k;
			return copy_out(buf, len, pre, k, t->text, n);
		}
	}
	{
		char comm[64];
		char ts[48];
		uint64_t v = r->ts;

		snprintf(comm, sizeof(comm), "%16s-%-5d", r->comm, (int)r->tid);
		if (f->usecs) {
			v = v / 1000 + (v % 1000 >= 500);
			snprintf(ts, sizeof(ts), " %5llu.%06llu", (unsigned long long)(v / 1000000),
				 (unsigned long long)(v % 1000000));
		} else {
			snprintf(ts, sizeof(ts), "%12llu", (unsigned long long)v);
		}
		size_t nl = strlen(r->name);

		/* (where the text starts is not counted here: the noted numbers' digits
		 * written in, and none told of) */
		for (unsigned k = 0; src->want_nums && k < t->nums.n; k++)
			if (t->nums.v[k].at + t->nums.v[k].len <= n)
				kt_num_write(t->text + t->nums.v[k].at, &t->nums.v[k]);
		src->line.nnums = 0;
		return snprintf(buf, len, "%.*s%s [%03d]%s: %s: %*s%.*s", h, head, comm, r->cpu, ts,
				r->name, nl < 20 ? (int)(20 - nl) : 0, "", (int)n, t->text);
	}
}

static int td_raw(struct kt_source *src, struct kt_ftrace_raw *out)
{
	struct td_source *t = (struct td_source *)src;

	if (t->lost_pending || src->rec.kind != KTRACE_STREAM_EVENT || !t->cur.ev)
		return -ENOENT;
	*out = (struct kt_ftrace_raw){ t->cur.s->f->evs, t->cur.ev, t->cur.kr.data, t->cur.kr.size };
	return 0;
}

static void td_close(struct kt_source *src)
{
	struct td_source *t = (struct td_source *)src;

	for (size_t i = 0; t->file_tgids && i < t->set.nfiles; i++)
		free(t->file_tgids[i]);
	free(t->file_tgids);
	free(t->ntgids);
	free(t->text);
	free(t->skip_class);
	kt_tdset_close(&t->set);
	free((void *)t->index);
	free(t);
}

static size_t td_snap_size(struct kt_source *src)
{
	return kt_ftrace_snap_size(((struct td_source *)src)->cur.kr.size);
}

static void td_snap_write(struct kt_source *src, void *data)
{
	struct td_source *t = (struct td_source *)src;

	kt_ftrace_snap_write(data, t->cur.s->f->evs, t->cur.ev, &t->cur.kr, false);
}

static size_t td_registry_bytes(struct kt_source *src)
{
	struct td_source *t = (struct td_source *)src;
	size_t n = 0;

	for (size_t i = 0; i < t->set.nfiles; i++)
		if (t->set.files[i].evs)
			n += ftev_memory_with_syms(t->set.files[i].evs);
	return n;
}

static uint64_t td_data_bytes(struct kt_source *src)
{
	return kt_td_data_bytes(&((struct td_source *)src)->set);
}

static const struct kt_source_ops td_ops = {
	.advance = td_advance,
	.skip = td_skip,
	.field = td_field,
	.fields = td_fields,
	.format = td_format,
	.sched = kt_sched_from_fields,
	.close = td_close,
	.snap_size = td_snap_size,
	.snap_write = td_snap_write,
	.snap_field = kt_ftrace_snap_field,
	.snap_fields = kt_ftrace_snap_fields,
	.snap_sched = kt_ftrace_snap_sched,
	.raw = td_raw,
	.snap_raw = kt_ftrace_snap_raw,
	.registry_bytes = td_registry_bytes,
	.data_bytes = td_data_bytes,
};

int kt_source_tracedat(struct ktrace_stream *s, const char *const *paths, const uint32_t *index,
		       size_t n, struct kt_source **out, struct ktrace_error *err)
{
	const struct ktrace_stream_opts *o = kt_stream_opts(s);
	struct kt_tdset_opts so = {
		.raw_ts = (o->flags & KTRACE_STREAM_RAW_TS) != 0,
		.cpus = o->cpus, .ncpus = o->ncpus,
		.cpus_unread = (o->flags & KT_STREAM_CPUS_ONLY) != 0,
		/* a record is valid until the next call (as compressed data always was) */
		.read_copies = true,
		.warn = o->warn, .warn_arg = o->warn_arg,
	};
	struct td_source *t = calloc(1, sizeof(*t));
	uint32_t *idx = calloc(n, sizeof(*idx));
	int ret;

	if (!t || !idx) {
		free(t);
		free(idx);
		return kt_error_oom(err);
	}
	memcpy(idx, index, n * sizeof(*idx));
	t->index = idx;
	t->src.ops = &td_ops;
	t->no_lost = (o->flags & KTRACE_STREAM_NO_LOST) != 0;
	/* the registries keep every comm they name (saved or learnt) until they go */
	t->src.stable_comm = true;
	t->src.stream = s;
	t->multi = n > 1;
	ret = kt_tdset_init(&t->set, n, &so, err);
	t->set.lazy_avail = true;   /* formatting fills it in (the fields need no more) */
	t->file_tgids = calloc(n, sizeof(*t->file_tgids));
	t->ntgids = calloc(n, sizeof(*t->ntgids));
	if (!ret && (!t->file_tgids || !t->ntgids))
		ret = kt_error_oom(err);
	for (size_t i = 0; i < n && !ret; i++) {
		struct kt_tdfile *f;
		struct ktrace_stream_source *info;

		/* a copy of standard input (or a FIFO) is named as the user named it */
		if (strcmp(kt_stream_shown(s, paths[i]), paths[i]))
			ret = kt_tdset_open_file_as(&t->set, i, paths[i], kt_stream_shown(s, paths[i]), 0);
		else
			ret = kt_tdset_open_file(&t->set, i, paths[i], NULL, 0);
		if (ret)
			break;
		f = &t->set.files[i];
		/* every record's comms are registered as it is read (fill_record, skip_check):
		 * not again when it is formatted */
		ftev_print_learns(f->evs, false);
		ret = kt_tdset_add_filters(&t->set, f, o->filters, o->nfilters, o->tasks,
					   i == 0 ? o->ntasks : 0);
		if (ret)
			break;
		info = kt_stream_add_info(s, idx[i], paths[i], KTRACE_FORMAT_TRACEDAT);
		if (!info) {
			ret = kt_error_oom(err);
			break;
		}
		kt_stream_set_uname(s, info, tracedat_uname(f->td));
		info->clock = tracedat_clock(f->td) ? tracedat_clock(f->td) : "";
		info->cpus = f->ncpus;
		info->nbuffers = tracedat_buffer_count(f->td);
		{
			const char **names = kt_stream_alloc(s, (info->nbuffers + 1) * sizeof(char *));

			if (!names) {
				ret = kt_error_oom(err);
				break;
			}
			for (size_t b = 0; b < info->nbuffers; b++)
				names[b] = tracedat_buffer(f->td, b)->name;
			info->buffer_names = names;
		}
		if (t->multi && (int)strlen(f->base) > t->width)
			t->width = (int)strlen(f->base);
		for (size_t b = 0; b < tracedat_buffer_count(f->td); b++) {
			const struct tracedat_buffer *buf = tracedat_buffer(f->td, b);

			if (*buf->name && !buf->latency) {
				t->labelled = true;
				if ((int)strlen(buf->name) > t->width)
					t->width = (int)strlen(buf->name);
			}
		}
		ret = load_tgids(t, i);
		if (!ret)
			ret = load_tasks(t, i);
		if (ret)
			ret = ktrace_error_set(err, ret, "out of memory");
	}
	if (!ret)
		ret = kt_tdset_add_all_streams(&t->set, t->multi);
	t->labelled |= t->multi;
	t->src.labels_lines = t->labelled;
	if (ret) {
		kt_stream_set_err_path(s, t->set.err_file);
		t->src.ops->close(&t->src);
		return ret;
	}
	/* from now on the set reports into the source, which hands errors on */
	ktrace_error_clear(&t->err);
	t->set.err = &t->err;
	*out = &t->src;
	return 0;
}
