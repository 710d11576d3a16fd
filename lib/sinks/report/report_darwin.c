// SPDX-License-Identifier: MIT
/* `ktrace report` for Darwin kdebug data: one line per event. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/darwin.h>
#include <ktrace/ktrace_file.h>

#include "common/check.h"
#include "common/grow.h"
#include "sinks/report/report_darwin_common.h"
#include <ktrace/view.h>

#include "common/hashmap.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "sinks/report/report.h"

/* --- START/END matching, per thread and event id ------------------------------- */

#define MAX_OPEN (1u << 20)

struct open_node {
	uint64_t ns;
	uint64_t arg[4];     /* the START's arguments and CPU (--durations) */
	uint32_t cpu;
	uint32_t prev;
};

struct intervals {
	/* (thread, event id) -> node index + 1 of the innermost open START (0: none) */
	struct kt_map top;
	struct open_node *nodes;
	size_t nnodes, capn;
	uint32_t free_list;  /* node index + 1 */
};

static void push_start(struct intervals *iv, const struct ktrace_darwin_event *ev, uint32_t id)
{
	uint64_t thread = ev->thread;
	uint32_t n, top = 0;

	kt_map_get(&iv->top, thread, id, &top);
	if (iv->free_list) {
		n = iv->free_list - 1;
		iv->free_list = iv->nodes[n].prev;
	} else {
		if (iv->nnodes >= MAX_OPEN)
			return;
		if (iv->nnodes == iv->capn) {
			size_t cap = iv->capn ? iv->capn * 2 : 1024;
			struct open_node *p = kt_realloc_array(iv->nodes, cap, sizeof(*p));

			if (!p)
				return;
			iv->nodes = p;
			iv->capn = cap;
		}
		n = (uint32_t)iv->nnodes++;
	}
	iv->top.max = MAX_OPEN;
	if (kt_map_put(&iv->top, thread, id, n + 1)) {
		iv->nodes[n].prev = iv->free_list;
		iv->free_list = n + 1;
		return;
	}
	iv->nodes[n].ns = ev->ns;
	memcpy(iv->nodes[n].arg, ev->arg, sizeof(ev->arg));
	iv->nodes[n].cpu = ev->cpu;
	iv->nodes[n].prev = top;
}

static bool pop_start(struct intervals *iv, uint64_t thread, uint32_t id,
		      struct open_node *start)
{
	uint32_t n;

	if (!kt_map_get(&iv->top, thread, id, &n) || !n)
		return false;
	n--;
	*start = iv->nodes[n];
	/* (a key keeps its place, its stack empty: it is put again without growing) */
	kt_map_put(&iv->top, thread, id, iv->nodes[n].prev);
	iv->nodes[n].prev = iv->free_list;
	iv->free_list = n + 1;
	return true;
}

static void intervals_free(struct intervals *iv)
{
	kt_map_free(&iv->top);
	free(iv->nodes);
}

/* --- output: each line is built in a local buffer, then written at once ----------- */

#define LINE_MAX_BYTES 2048

/* 0x-prefixed hex, right-aligned in width. */
static void l_hex(struct ktrace_out *l, uint64_t v, size_t width)
{
	char buf[20], *e;

	buf[0] = '0';
	buf[1] = 'x';
	e = kt_fmt_hex(buf + 2, v, 0, false);
	kt_out_spaces(l, (ptrdiff_t)width - (e - buf));
	kt_out_write(l, buf, (size_t)(e - buf));
}

/* 0x and 8 hex digits (a debugid, as Apple's tools print it). */
static void l_hex32(struct ktrace_out *l, uint32_t v)
{
	kt_out_lit(l, "0x");
	kt_out_hex(l, v, 8);
}

/* Seconds with 9 decimals, right-aligned in width. */
static void l_time(struct ktrace_out *l, uint64_t ns, size_t width)
{
	char buf[40], *e = kt_fmt_dec(buf, ns / 1000000000ULL);

	*e++ = '.';
	e = kt_fmt_dec_zero(e, ns % 1000000000ULL, 9);
	kt_out_spaces(l, (ptrdiff_t)width - (e - buf));
	kt_out_write(l, buf, (size_t)(e - buf));
}

/* Text with non-printable bytes as '?', optionally CSV-quoted; left-aligned in width. */
static void l_text(struct ktrace_out *l, const char *s, size_t max, bool csv, size_t width)
{
	size_t n = 0;
	char *d;

	/* Room for the worst case: every byte doubled, two quotes, the padding. */
	if (l->len >= l->cap || l->cap - l->len < 2 * max + 2 + width) {
		size_t room = l->len < l->cap ? l->cap - l->len : 0;

		if (NEVER(room < 2 + width))
			return;      /* lines are far shorter than the buffer */
		max = (room - 2 - width) / 2;
	}
	d = l->buf + l->len;
	if (csv)
		*d++ = '"';
	for (; n < max && s[n]; n++) {
		unsigned char ch = (unsigned char)s[n];

		if (ch < 0x20 || ch >= 0x7f)
			ch = '?';
		else if (csv && ch == '"')
			*d++ = '"';
		*d++ = (char)ch;
	}
	if (csv)
		*d++ = '"';
	for (; n < width; n++)
		*d++ = ' ';
	l->len = (size_t)(d - l->buf);
}

static const char *func_name(uint32_t debugid)
{
	switch (KTRACE_DARWIN_FUNC(debugid)) {
	case KTRACE_DARWIN_FUNC_START: return "START";
	case KTRACE_DARWIN_FUNC_END:   return "END";
	case 3:                        return "S|E";
	}
	return "-";
}

static bool is_string_event(uint32_t debugid)
{
	uint32_t id = KTRACE_DARWIN_EVENTID(debugid);

	return KTRACE_DARWIN_CLASS(id) == 7 &&
	       (KTRACE_DARWIN_SUBCLASS(id) == 1 || id == KTRACE_TRACE_INFO_STRING);
}

static void event_text(const struct ktrace_darwin_info *info,
		       const struct ktrace_darwin_event *ev, char out[33])
{
	size_t w = info->is64 ? 8 : 4, n = 0;
	int first = 0;

	/* kdebug_trace_string(): the first event of a string (START) carries the string's
	 * debugid and id in arg1/arg2, the text in arg3/arg4; later ones text only. */
	if (KTRACE_DARWIN_EVENTID(ev->debugid) == KTRACE_TRACE_STRING_GLOBAL &&
	    (ev->debugid & KTRACE_DARWIN_FUNC_START))
		first = 2;
	for (int a = first; a < 4; a++)
		for (size_t b = 0; b < w; b++)
			out[n++] = (char)(ev->arg[a] >> (8 * b));
	out[n] = 0;
}

/* Event names, cached per event id (a direct-mapped cache). */
#define NAME_CACHE 4096

struct name_slot {
	uint32_t id;
	bool used;
	const char *name;
	char buf[64];
};

static const char *cached_name(struct name_slot *cache, const struct ktrace_darwin_codes *codes,
			       uint32_t debugid)
{
	uint32_t id = KTRACE_DARWIN_EVENTID(debugid);
	struct name_slot *s = &cache[(id ^ (id >> 12) ^ (id >> 24)) & (NAME_CACHE - 1)];

	if (!s->used || s->id != id) {
		s->used = true;
		s->id = id;
		s->name = ktrace_darwin_event_name(codes, id, s->buf, sizeof(s->buf));
	}
	return s->name;
}

/* --durations: totals by event id, in the order the ids first ended a pair. */
#define MAX_DURATION_IDS 65536

struct duration_total {
	uint32_t id;         /* (0 is an event id too: class 0, subclass 0, code 0) */
	uint64_t count, total, min, max;
};

struct report_state {
	const struct ktrace_view_darwin_opts *o;
	const struct ktrace_darwin_info *info;
	struct ktrace_darwin *k;
	struct intervals iv;
	uint64_t read, shown, lost_markers, pairs;
	uint64_t prev_ns;
	bool have_prev;
	struct kt_map total_index;       /* event id -> index in totals */
	struct duration_total *totals;
	size_t ntotals, totals_cap;
	struct kt_json *json;            /* --format json */
	char line[LINE_MAX_BYTES];
	struct name_slot names[NAME_CACHE];
};

static bool wanted(struct report_state *st, const struct ktrace_darwin_event *ev,
		   const struct ktrace_darwin_thread *t)
{
	const struct ktrace_view_darwin_opts *o = st->o;
	bool ok;

	if (!ktrace_darwin_filter_match(o->filter, ev->debugid))
		return false;
	if (!o->npids && !o->nprocs)
		return true;
	if (!t)
		return false;
	ok = false;
	for (size_t i = 0; i < o->npids && !ok; i++)
		ok = t->pid == o->pids[i];
	for (size_t i = 0; i < o->nprocs && !ok; i++)
		ok = !strcmp(t->command, o->procs[i]);
	return ok;
}

/* The first CSV columns of a line: time, second column (delta or duration), CPU,
 * thread, pid and process name (both empty for a thread the map does not have). */
static void csv_head(struct ktrace_out *l, uint64_t ns, int64_t second, uint32_t cpu, uint64_t thread,
		     const struct ktrace_darwin_thread *t)
{
	kt_out_u64(l, ns, 0);
	kt_out_putc(l, ',');
	kt_out_i64(l, second, 0);
	kt_out_putc(l, ',');
	kt_out_u64(l, cpu, 0);
	kt_out_putc(l, ',');
	l_hex(l, thread, 0);
	kt_out_putc(l, ',');
	if (t) {
		kt_out_i64(l, t->pid, 0);
		kt_out_putc(l, ',');
		l_text(l, t->command, 20, true, 0);
	} else {
		kt_out_putc(l, ',');
	}
}

/* The thread columns of a text line: thread id, pid and process (thread map), thread
 * name. */
static void text_thread(struct report_state *st, struct ktrace_out *l, uint64_t thread,
			const struct ktrace_darwin_thread *t)
{
	const char *tname = ktrace_darwin_thread_name(st->k, thread);

	l_hex(l, thread, 13);
	if (t) {
		kt_out_i64(l, t->pid, 8);
		kt_out_putc(l, ' ');
		l_text(l, t->command[0] ? t->command : "-", 20, false, 16);
	} else {
		kt_out_puts(l, "       - -               ");
	}
	kt_out_putc(l, ' ');
	l_text(l, tname ? tname : "-", 64, false, 16);
}

static void json_hex(struct kt_json *j, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	kt_json_string(j, buf, strlen(buf));
}

/* One event of the JSON report. */
static void json_event(struct report_state *st, const struct ktrace_darwin_event *ev,
		       const struct ktrace_darwin_thread *t, bool has_elapsed, uint64_t elapsed)
{
	const char *name = cached_name(st->names, st->o->codes, ev->debugid);
	const char *tname = ktrace_darwin_thread_name(st->k, ev->thread);
	struct kt_json *j = st->json;
	char text[33];

	kt_json_begin_object(j, true);
	kt_json_key_cstr(j, "time_ns");
	kt_json_u64(j, ev->ns);
	kt_json_key_cstr(j, "cpu");
	kt_json_u64(j, ev->cpu);
	kt_json_key_cstr(j, "thread");
	json_hex(j, ev->thread);
	if (t) {
		kt_json_key_cstr(j, "pid");
		kt_json_i64(j, t->pid);
		kt_json_key_cstr(j, "process");
		kt_json_string(j, t->command, strnlen(t->command, 20));
	}
	if (tname) {
		kt_json_key_cstr(j, "thread_name");
		kt_json_string(j, tname, strlen(tname));
	}
	kt_json_key_cstr(j, "debugid");
	json_hex(j, ev->debugid);
	kt_json_key_cstr(j, "func");
	kt_json_string(j, func_name(ev->debugid), strlen(func_name(ev->debugid)));
	kt_json_key_cstr(j, "event");
	kt_json_string(j, name, strlen(name));
	kt_json_key_cstr(j, "args");
	kt_json_begin_array(j, true);
	for (int a = 0; a < 4; a++)
		json_hex(j, ev->arg[a]);
	kt_json_end_array(j);
	if (is_string_event(ev->debugid)) {
		event_text(st->info, ev, text);
		kt_json_key_cstr(j, "text");
		kt_json_string(j, text, strlen(text));
	}
	if (has_elapsed) {
		kt_json_key_cstr(j, "elapsed_ns");
		kt_json_u64(j, elapsed);
	}
	kt_json_end_object(j);
}

static void print_event(struct report_state *st, struct ktrace_out *out,
			const struct ktrace_darwin_event *ev, const struct ktrace_darwin_thread *t,
			bool has_elapsed, uint64_t elapsed)
{
	const char *name = cached_name(st->names, st->o->codes, ev->debugid);
	const char *func = func_name(ev->debugid);
	int64_t delta = st->have_prev ? (int64_t)(ev->ns - st->prev_ns) : 0;
	struct ktrace_out line = KT_OUT_MEM(st->line, sizeof(st->line)), *l = &line;
	char text[33];

	st->prev_ns = ev->ns;
	st->have_prev = true;
	if (st->o->csv) {
		const char *tname = ktrace_darwin_thread_name(st->k, ev->thread);

		csv_head(l, ev->ns, delta, ev->cpu, ev->thread, t);
		kt_out_putc(l, ',');
		l_hex32(l, ev->debugid);
		kt_out_putc(l, ',');
		kt_out_u64(l, KTRACE_DARWIN_CLASS(ev->debugid), 0);
		kt_out_putc(l, ',');
		kt_out_u64(l, KTRACE_DARWIN_SUBCLASS(ev->debugid), 0);
		kt_out_putc(l, ',');
		kt_out_u64(l, KTRACE_DARWIN_CODE(ev->debugid), 0);
		kt_out_putc(l, ',');
		kt_out_puts(l, func);
		kt_out_putc(l, ',');
		l_text(l, name, 256, true, 0);
		for (int a = 0; a < 4; a++) {
			kt_out_putc(l, ',');
			l_hex(l, ev->arg[a], 0);
		}
		kt_out_putc(l, ',');
		if (has_elapsed)
			kt_out_u64(l, elapsed, 0);
		kt_out_putc(l, ',');
		if (tname)
			l_text(l, tname, 64, true, 0);
	} else {
		l_time(l, ev->ns, 20);
		kt_out_i64(l, delta, 13);
		kt_out_u64(l, ev->cpu, 5);
		text_thread(st, l, ev->thread, t);
		kt_out_putc(l, ' ');
		l_text(l, func, 5, false, 5);
		kt_out_putc(l, ' ');
		l_text(l, name, 256, false, 32);
		for (int a = 0; a < 4; a++) {
			kt_out_putc(l, ' ');
			l_hex(l, ev->arg[a], 0);
		}
		if (is_string_event(ev->debugid)) {
			event_text(st->info, ev, text);
			kt_out_puts(l, " \"");
			l_text(l, text, 32, false, 0);
			kt_out_putc(l, '"');
		}
		if (has_elapsed) {
			kt_out_puts(l, " elapsed_ns=");
			kt_out_u64(l, elapsed, 0);
		}
	}
	kt_out_putc(l, '\n');
	kt_out_write(out, l->buf, l->len < l->cap ? l->len : l->cap);
}

/* --durations: one line per START/END pair, at its END. */
static void print_pair(struct report_state *st, struct ktrace_out *out,
		       const struct ktrace_darwin_event *end, const struct ktrace_darwin_thread *t,
		       const struct open_node *start)
{
	const char *name = cached_name(st->names, st->o->codes, end->debugid);
	uint64_t dur = end->ns - start->ns;
	struct ktrace_out line = KT_OUT_MEM(st->line, sizeof(st->line)), *l = &line;

	if (st->o->csv) {
		const char *tname = ktrace_darwin_thread_name(st->k, end->thread);

		csv_head(l, start->ns, (int64_t)dur, start->cpu, end->thread, t);
		kt_out_putc(l, ',');
		if (tname)
			l_text(l, tname, 64, true, 0);
		kt_out_putc(l, ',');
		l_hex32(l, KTRACE_DARWIN_EVENTID(end->debugid));
		kt_out_putc(l, ',');
		l_text(l, name, 256, true, 0);
		for (int a = 0; a < 4; a++) {
			kt_out_putc(l, ',');
			l_hex(l, start->arg[a], 0);
		}
		for (int a = 0; a < 4; a++) {
			kt_out_putc(l, ',');
			l_hex(l, end->arg[a], 0);
		}
	} else {
		l_time(l, start->ns, 20);
		kt_out_u64(l, dur, 13);
		kt_out_u64(l, start->cpu, 5);
		text_thread(st, l, end->thread, t);
		kt_out_putc(l, ' ');
		l_text(l, name, 256, false, 32);
		for (int a = 0; a < 4; a++) {
			kt_out_putc(l, ' ');
			l_hex(l, start->arg[a], 0);
		}
		kt_out_puts(l, " ->");
		for (int a = 0; a < 4; a++) {
			kt_out_putc(l, ' ');
			l_hex(l, end->arg[a], 0);
		}
	}
	kt_out_putc(l, '\n');
	kt_out_write(out, l->buf, l->len < l->cap ? l->len : l->cap);
}

static void add_total(struct report_state *st, uint32_t id, uint64_t dur)
{
	struct duration_total *t;
	uint32_t i;

	/* once MAX_DURATION_IDS ids have totals, no pair adds to them any more */
	if (st->ntotals >= MAX_DURATION_IDS)
		return;
	if (!kt_map_get(&st->total_index, id, 0, &i)) {
		if (kt_grow((void **)&st->totals, &st->totals_cap, st->ntotals + 1,
			    sizeof(*st->totals)) ||
		    kt_map_put(&st->total_index, id, 0, (uint32_t)st->ntotals))
			return;
		i = (uint32_t)st->ntotals++;
		st->totals[i] = (struct duration_total){ .id = id, .min = UINT64_MAX };
	}
	t = &st->totals[i];
	t->count++;
	t->total += dur;
	if (dur < t->min)
		t->min = dur;
	if (dur > t->max)
		t->max = dur;
}

static int cmp_total(const void *a, const void *b)
{
	const struct duration_total *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The summary after the pairs: by event, the largest total first. */
static void print_totals(struct report_state *st, struct ktrace_out *out)
{
	size_t n = st->ntotals;

	if (n)
		qsort(st->totals, n, sizeof(*st->totals), cmp_total);
	kt_out_printf(out, "# durations by event: %" PRIu64 " pairs\n", st->pairs);
	kt_out_puts(out, "#      count         total_ns          mean_ns           min_ns           "
			 "max_ns  event\n");
	for (size_t i = 0; i < n; i++) {
		const struct duration_total *t = &st->totals[i];
		char buf[64];

		kt_out_printf(out, "# %10" PRIu64 " %16" PRIu64 " %16" PRIu64 " %16" PRIu64 " %16"
			      PRIu64 "  ", t->count, t->total, t->total / t->count, t->min, t->max);
		kt_darwin_put_text(out, kt_darwin_event_name(st->o->codes, t->id, buf, sizeof(buf)),
				   256, KT_QUOTE_NONE);
		kt_out_putc(out, '\n');
	}
}

/* Non-event chunks of a mapped V3 file, listed as comments before the events. */
static void list_other_chunks(struct ktrace_darwin *k, struct ktrace_out *out)
{
	struct ktrace_file *f = ktrace_darwin_file(k);
	struct ktrace_error scratch = { 0 };
	struct ktrace_chunk_iter it;
	struct ktrace_chunk c;
	size_t stackshots = 0;

	if (!f || !ktrace_input_is_mapped(ktrace_file_input(f)))
		return;
	ktrace_file_chunks_begin(f, &it);
	while (ktrace_file_next_chunk(f, &it, &c, &scratch) > 0) {
		const char *n = ktrace_file_tag_name(c.tag);

		if (c.tag == KTRACE_TAG_EVENTS || c.tag == KTRACE_TAG_THREAD_MAP ||
		    c.tag == KTRACE_TAG_CPU_MAP)
			continue;
		kt_out_printf(out, "# %s chunk 0x%08x%s%s%s at 0x%" PRIx64 ": %" PRIu64 " bytes, %s\n",
			      c.in_header ? "header" : "body", c.tag, n ? " (" : "", n ? n : "",
			      n ? ")" : "", c.offset, c.size,
			      c.tag == KTRACE_TAG_STACKSHOT ? "kcdata"
			      : n ? "not decoded" : "unknown tag, skipped");
		if (c.tag == KTRACE_TAG_STACKSHOT)
			kt_darwin_list_stackshot(k, stackshots++, out);
	}
}

int kt_report_darwin(struct ktrace_input *in, const struct ktrace_view_darwin_opts *o,
			      struct ktrace_out *out, struct ktrace_error *err)
{
	struct report_state *stp = calloc(1, sizeof(*stp));
	struct ktrace_darwin_event ev;
	char desc[128];
	int ret;

	if (!stp)
		return kt_error_oom(err);
	stp->o = o;
	ret = ktrace_darwin_open(in, o->kdebug, &stp->k, err);
	if (ret < 0) {
		free(stp);
		return ret;
	}
	stp->info = ktrace_darwin_get_info(stp->k);
	if (o->json) {
		stp->json = malloc(sizeof(*stp->json));
		if (!stp->json) {
			ret = kt_error_oom(err);
			goto out;
		}
		kt_json_init(stp->json, out, 2);
		kt_json_begin_object(stp->json, false);
		kt_json_kv_cstr(stp->json, "file", ktrace_input_name(in));
		kt_json_kv_cstr(stp->json, "format", kt_darwin_format_id(stp->info));
		kt_json_key_cstr(stp->json, "description");
		kt_darwin_format_desc(stp->info, desc, sizeof(desc));
		kt_json_string(stp->json, desc, strlen(desc));
		kt_json_key_cstr(stp->json, "timebase");
		kt_json_begin_object(stp->json, true);
		kt_json_key_cstr(stp->json, "numer");
		kt_json_u64(stp->json, stp->info->timebase_numer);
		kt_json_key_cstr(stp->json, "denom");
		kt_json_u64(stp->json, stp->info->timebase_denom);
		kt_json_end_object(stp->json);
		kt_json_key_cstr(stp->json, "stackshots");
		ret = kt_darwin_json_stackshots(stp->json, stp->k, err);
		if (ret < 0)
			goto out;
		kt_json_key_cstr(stp->json, "events");
		kt_json_begin_array(stp->json, false);
	} else if (o->csv && o->durations) {
		kt_out_puts(out, "start_ns,duration_ns,cpu,thread,pid,process,thread_name,eventid,"
				 "event,start_arg1,start_arg2,start_arg3,start_arg4,end_arg1,"
				 "end_arg2,end_arg3,end_arg4\n");
	} else if (o->csv) {
		kt_out_puts(out, "time_ns,delta_ns,cpu,thread,pid,process,debugid,class,subclass,"
				 "code,func,event,arg1,arg2,arg3,arg4,elapsed_ns,thread_name\n");
	} else {
		kt_out_printf(out, "# %s: %s, %s kd_buf\n", ktrace_input_name(in),
			      kt_darwin_format_desc(stp->info, desc, sizeof(desc)),
			      stp->info->is64 ? "64-bit" : "32-bit");
		kt_out_printf(out, "# timebase %" PRIu64 "/%" PRIu64 "%s, ", stp->info->timebase_numer,
			      stp->info->timebase_denom, stp->info->timebase_known ? "" : " (assumed)");
		if (stp->info->events >= 0)
			kt_out_printf(out, "%" PRId64 " events, ", stp->info->events);
		kt_out_printf(out, "%" PRIu64 " threads in the thread map\n", stp->info->threads);
		list_other_chunks(stp->k, out);
		if (o->durations)
			kt_out_puts(out, "#             start(s)  duration(ns) cpu       thread     "
					 "pid process          thread name      event                "
					 "            START arg1..arg4 -> END arg1..arg4\n");
		else
			kt_out_puts(out, "#              time(s)    delta(ns)  cpu       thread     "
					 "pid process          thread name      func  event          "
					 "                  arg1 arg2 arg3 arg4\n");
	}
	while ((ret = ktrace_darwin_next(stp->k, &ev, err)) > 0) {
		const struct ktrace_darwin_thread *t = ktrace_darwin_find_thread(stp->k, ev.thread);
		uint32_t func = KTRACE_DARWIN_FUNC(ev.debugid);
		uint32_t id = KTRACE_DARWIN_EVENTID(ev.debugid);
		struct open_node start;
		bool has_elapsed = false;

		stp->read++;
		if (id == KTRACE_TRACE_LOST_EVENTS)
			stp->lost_markers++;
		/* A string event's qualifiers mark its pieces, not an interval. */
		if (func == KTRACE_DARWIN_FUNC_START && !is_string_event(id))
			push_start(&stp->iv, &ev, id);
		else if (func == KTRACE_DARWIN_FUNC_END && !is_string_event(id))
			has_elapsed = pop_start(&stp->iv, ev.thread, id, &start);
		if (!wanted(stp, &ev, t))
			continue;
		if (o->durations) {
			if (has_elapsed) {
				stp->pairs++;
				add_total(stp, id, ev.ns - start.ns);
				print_pair(stp, out, &ev, t, &start);
			}
			continue;
		}
		stp->shown++;
		if (stp->json)
			json_event(stp, &ev, t, has_elapsed, has_elapsed ? ev.ns - start.ns : 0);
		else
			print_event(stp, out, &ev, t, has_elapsed,
				    has_elapsed ? ev.ns - start.ns : 0);
	}
	if (stp->json) {
		kt_json_end_array(stp->json);
		kt_json_key_cstr(stp->json, "events_read");
		kt_json_u64(stp->json, stp->read);
		kt_json_key_cstr(stp->json, "events_shown");
		kt_json_u64(stp->json, stp->shown);
		kt_json_end_object(stp->json);
		kt_json_finish(stp->json);
	}
	if (!o->csv && !o->json && o->durations)
		print_totals(stp, out);
	if (!o->csv && !o->json)
		kt_out_printf(out, "# %" PRIu64 " events read, %" PRIu64 " %s, %" PRIu64
			      " lost-events markers (TRACE_LOST_EVENTS)\n", stp->read,
			      o->durations ? stp->pairs : stp->shown,
			      o->durations ? "START/END pairs" : "shown", stp->lost_markers);
out:
	/* a document the error cut short is still a whole one (the error goes to stderr) */
	if (stp->json && stp->json->depth)
		kt_json_finish(stp->json);
	free(stp->json);
	kt_map_free(&stp->total_index);
	free(stp->totals);
	intervals_free(&stp->iv);
	ktrace_darwin_close(stp->k);
	free(stp);
	return ret < 0 ? ret : 0;
}
