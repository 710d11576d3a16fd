// SPDX-License-Identifier: MIT
/* `ktrace report` for Darwin kdebug data: one line per event. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/darwin.h>
#include <ktrace/ktrace_file.h>

#include "views/darwin_common.h"
#include "views/views.h"

/* --- START/END matching, per thread and event id ------------------------------- */

#define MAX_OPEN (1u << 20)

struct open_key {
	uint64_t thread;
	uint32_t id;
	uint32_t top;        /* node index + 1 of the innermost open START, 0 none */
	bool used;
};

struct open_node {
	uint64_t ns;
	uint32_t prev;
};

struct intervals {
	struct open_key *keys;
	size_t cap, nkeys;
	struct open_node *nodes;
	size_t nnodes, capn;
	uint32_t free_list;  /* node index + 1 */
};

static size_t key_slot(uint64_t thread, uint32_t id, size_t cap)
{
	uint64_t h = thread * 0x9e3779b97f4a7c15ULL ^ id * 0xc2b2ae3d27d4eb4fULL;

	h ^= h >> 29;
	return (size_t)h & (cap - 1);
}

static struct open_key *find_key(struct intervals *iv, uint64_t thread, uint32_t id, bool add)
{
	size_t s;

	if (add && (iv->nkeys + 1) * 2 > iv->cap) {
		size_t cap = iv->cap ? iv->cap * 2 : 1024;
		struct open_key *k;

		if (iv->nkeys >= MAX_OPEN || !(k = calloc(cap, sizeof(*k))))
			return NULL;
		for (size_t i = 0; i < iv->cap; i++) {
			if (!iv->keys[i].used)
				continue;
			s = key_slot(iv->keys[i].thread, iv->keys[i].id, cap);
			while (k[s].used)
				s = (s + 1) & (cap - 1);
			k[s] = iv->keys[i];
		}
		free(iv->keys);
		iv->keys = k;
		iv->cap = cap;
	}
	if (!iv->cap)
		return NULL;
	s = key_slot(thread, id, iv->cap);
	while (iv->keys[s].used) {
		if (iv->keys[s].thread == thread && iv->keys[s].id == id)
			return &iv->keys[s];
		s = (s + 1) & (iv->cap - 1);
	}
	if (!add)
		return NULL;
	iv->keys[s].used = true;
	iv->keys[s].thread = thread;
	iv->keys[s].id = id;
	iv->keys[s].top = 0;
	iv->nkeys++;
	return &iv->keys[s];
}

static void push_start(struct intervals *iv, uint64_t thread, uint32_t id, uint64_t ns)
{
	struct open_key *k = find_key(iv, thread, id, true);
	uint32_t n;

	if (!k)
		return;
	if (iv->free_list) {
		n = iv->free_list - 1;
		iv->free_list = iv->nodes[n].prev;
	} else {
		if (iv->nnodes >= MAX_OPEN)
			return;
		if (iv->nnodes == iv->capn) {
			size_t cap = iv->capn ? iv->capn * 2 : 1024;
			struct open_node *p = realloc(iv->nodes, cap * sizeof(*p));

			if (!p)
				return;
			iv->nodes = p;
			iv->capn = cap;
		}
		n = (uint32_t)iv->nnodes++;
	}
	iv->nodes[n].ns = ns;
	iv->nodes[n].prev = k->top;
	k->top = n + 1;
}

static bool pop_start(struct intervals *iv, uint64_t thread, uint32_t id, uint64_t *ns)
{
	struct open_key *k = find_key(iv, thread, id, false);
	uint32_t n;

	if (!k || !k->top)
		return false;
	n = k->top - 1;
	*ns = iv->nodes[n].ns;
	k->top = iv->nodes[n].prev;
	iv->nodes[n].prev = iv->free_list;
	iv->free_list = n + 1;
	return true;
}

static void intervals_free(struct intervals *iv)
{
	free(iv->keys);
	free(iv->nodes);
}

/* --- output ------------------------------------------------------------------- */

static void pad_right(struct kt_out *o, size_t written, size_t width)
{
	if (written < width)
		kt_out_spaces(o, (int)(width - written));
}

static void put_time_col(struct kt_out *o, uint64_t ns, int width)
{
	char digits[32];
	int len = 10 + (int)strlen(kt_fmt_u64(digits, ns / 1000000000ULL));

	if (len < width)
		kt_out_spaces(o, width - len);
	kt_darwin_put_time(o, ns);
}

static void put_hex(struct kt_out *o, uint64_t v)
{
	kt_out_puts(o, "0x");
	kt_out_hex(o, v, 0);
}

static void put_hex_col(struct kt_out *o, uint64_t v, int width)
{
	int digits = 1;

	for (uint64_t t = v >> 4; t; t >>= 4)
		digits++;
	if (digits + 2 < width)
		kt_out_spaces(o, width - digits - 2);
	put_hex(o, v);
}

static void put_i64_col(struct kt_out *o, int64_t v, int width)
{
	kt_out_i64(o, v, width);
}

static const char *func_name(uint32_t debugid)
{
	switch (KTRACE_KDEBUG_FUNC(debugid)) {
	case KTRACE_KDEBUG_FUNC_START: return "START";
	case KTRACE_KDEBUG_FUNC_END:   return "END";
	case 3:                        return "S|E";
	}
	return "-";
}

static bool is_string_event(uint32_t debugid)
{
	uint32_t id = KTRACE_KDEBUG_EVENTID(debugid);

	return KTRACE_KDEBUG_CLASS(id) == 7 &&
	       (KTRACE_KDEBUG_SUBCLASS(id) == 1 || id == KTRACE_TRACE_INFO_STRING);
}

static void event_text(const struct ktrace_kdebug_info *info,
		       const struct ktrace_kdebug_event *ev, char out[33])
{
	size_t w = info->is64 ? 8 : 4, n = 0;
	int first = 0;

	/* kdebug_trace_string(): the first event of a string (START) carries the string's
	 * debugid and id in arg1/arg2, the text in arg3/arg4; later ones text only. */
	if (KTRACE_KDEBUG_EVENTID(ev->debugid) == KTRACE_TRACE_STRING_GLOBAL &&
	    (ev->debugid & KTRACE_KDEBUG_FUNC_START))
		first = 2;
	for (int a = first; a < 4; a++)
		for (size_t b = 0; b < w; b++)
			out[n++] = (char)(ev->arg[a] >> (8 * b));
	out[n] = 0;
}

struct report_state {
	const struct ktrace_darwin_view_opts *o;
	const struct ktrace_kdebug_info *info;
	struct ktrace_kdebug *k;
	struct intervals iv;
	uint64_t read, shown, lost_markers;
	uint64_t prev_ns;
	bool have_prev;
};

static bool wanted(struct report_state *st, const struct ktrace_kdebug_event *ev,
		   const struct ktrace_kdebug_thread *t)
{
	const struct ktrace_darwin_view_opts *o = st->o;
	bool ok;

	if (!ktrace_kdebug_filter_match(o->filter, ev->debugid))
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

static void print_event(struct report_state *st, struct kt_out *out,
			const struct ktrace_kdebug_event *ev, const struct ktrace_kdebug_thread *t,
			bool has_elapsed, uint64_t elapsed)
{
	const struct ktrace_darwin_view_opts *o = st->o;
	char namebuf[64], text[33];
	const char *name = kt_darwin_event_name(o->codes, ev->debugid, namebuf, sizeof(namebuf));
	int64_t delta = st->have_prev ? (int64_t)(ev->ns - st->prev_ns) : 0;

	st->prev_ns = ev->ns;
	st->have_prev = true;
	if (o->csv) {
		kt_out_u64(out, ev->ns, 0);
		kt_out_putc(out, ',');
		kt_out_i64(out, delta, 0);
		kt_out_putc(out, ',');
		kt_out_u64(out, ev->cpu, 0);
		kt_out_putc(out, ',');
		put_hex(out, ev->thread);
		kt_out_putc(out, ',');
		if (t) {
			kt_out_i64(out, t->pid, 0);
			kt_out_putc(out, ',');
			kt_darwin_put_text(out, t->command, 20, KT_QUOTE_CSV);
		} else {
			kt_out_putc(out, ',');
		}
		kt_out_puts(out, ",0x");
		kt_out_hex(out, ev->debugid, 8);
		kt_out_putc(out, ',');
		kt_out_u64(out, KTRACE_KDEBUG_CLASS(ev->debugid), 0);
		kt_out_putc(out, ',');
		kt_out_u64(out, KTRACE_KDEBUG_SUBCLASS(ev->debugid), 0);
		kt_out_putc(out, ',');
		kt_out_u64(out, KTRACE_KDEBUG_CODE(ev->debugid), 0);
		kt_out_putc(out, ',');
		kt_out_puts(out, func_name(ev->debugid));
		kt_out_putc(out, ',');
		kt_darwin_put_text(out, name, 256, KT_QUOTE_CSV);
		for (int a = 0; a < 4; a++) {
			kt_out_putc(out, ',');
			put_hex(out, ev->arg[a]);
		}
		kt_out_putc(out, ',');
		if (has_elapsed)
			kt_out_u64(out, elapsed, 0);
		kt_out_putc(out, '\n');
		return;
	}
	put_time_col(out, ev->ns, 20);
	put_i64_col(out, delta, 13);
	kt_out_u64(out, ev->cpu, 5);
	kt_out_putc(out, ' ');
	put_hex_col(out, ev->thread, 12);
	if (t) {
		put_i64_col(out, t->pid, 8);
		kt_out_putc(out, ' ');
		pad_right(out, kt_darwin_put_text(out, t->command, 20, KT_QUOTE_NONE), 16);
	} else {
		kt_out_puts(out, "       - -               ");
	}
	kt_out_putc(out, ' ');
	kt_out_puts(out, func_name(ev->debugid));
	pad_right(out, strlen(func_name(ev->debugid)), 5);
	kt_out_putc(out, ' ');
	pad_right(out, kt_darwin_put_text(out, name, 256, KT_QUOTE_NONE), 32);
	for (int a = 0; a < 4; a++) {
		kt_out_putc(out, ' ');
		put_hex(out, ev->arg[a]);
	}
	if (is_string_event(ev->debugid)) {
		event_text(st->info, ev, text);
		kt_out_puts(out, " \"");
		kt_darwin_put_text(out, text, 32, KT_QUOTE_NONE);
		kt_out_putc(out, '"');
	}
	if (has_elapsed) {
		kt_out_puts(out, " elapsed_ns=");
		kt_out_u64(out, elapsed, 0);
	}
	kt_out_putc(out, '\n');
}

/* Non-event chunks of a mapped V3 file, listed as comments before the events. */
static void list_other_chunks(struct ktrace_kdebug *k, struct kt_out *out)
{
	struct ktrace_file *f = ktrace_kdebug_file(k);
	struct ktrace_error scratch = { 0 };
	struct ktrace_chunk_iter it;
	struct ktrace_chunk c;

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
			      c.tag == KTRACE_TAG_STACKSHOT ? "kcdata, not decoded here"
			      : n ? "not decoded" : "unknown tag, skipped");
	}
}

int ktrace_view_darwin_report(struct ktrace_input *in, const struct ktrace_darwin_view_opts *o,
			      struct kt_out *out, struct ktrace_error *err)
{
	struct report_state st = { .o = o };
	struct ktrace_kdebug_event ev;
	char desc[128];
	int ret;

	ret = ktrace_kdebug_open(in, &o->kdebug, &st.k, err);
	if (ret < 0)
		return ret;
	st.info = ktrace_kdebug_get_info(st.k);
	if (o->csv) {
		kt_out_puts(out, "time_ns,delta_ns,cpu,thread,pid,process,debugid,class,subclass,"
				 "code,func,event,arg1,arg2,arg3,arg4,elapsed_ns\n");
	} else {
		kt_out_printf(out, "# %s: %s, %s kd_buf\n", ktrace_input_name(in),
			      kt_darwin_format_desc(st.info, desc, sizeof(desc)),
			      st.info->is64 ? "64-bit" : "32-bit");
		kt_out_printf(out, "# timebase %" PRIu64 "/%" PRIu64 "%s, ", st.info->timebase_numer,
			      st.info->timebase_denom, st.info->timebase_known ? "" : " (assumed)");
		if (st.info->events >= 0)
			kt_out_printf(out, "%" PRId64 " events, ", st.info->events);
		kt_out_printf(out, "%" PRIu64 " threads in the thread map\n", st.info->threads);
		list_other_chunks(st.k, out);
		kt_out_puts(out, "#              time(s)    delta(ns)  cpu       thread     pid "
				 "process          func  event                            "
				 "arg1 arg2 arg3 arg4\n");
	}
	while ((ret = ktrace_kdebug_next(st.k, &ev, err)) > 0) {
		const struct ktrace_kdebug_thread *t = ktrace_kdebug_find_thread(st.k, ev.thread);
		uint32_t func = KTRACE_KDEBUG_FUNC(ev.debugid);
		uint32_t id = KTRACE_KDEBUG_EVENTID(ev.debugid);
		uint64_t start = 0;
		bool has_elapsed = false;

		st.read++;
		if (id == KTRACE_TRACE_LOST_EVENTS)
			st.lost_markers++;
		if (func == KTRACE_KDEBUG_FUNC_START)
			push_start(&st.iv, ev.thread, id, ev.ns);
		else if (func == KTRACE_KDEBUG_FUNC_END)
			has_elapsed = pop_start(&st.iv, ev.thread, id, &start);
		if (!wanted(&st, &ev, t))
			continue;
		st.shown++;
		print_event(&st, out, &ev, t, has_elapsed, has_elapsed ? ev.ns - start : 0);
	}
	if (!o->csv)
		kt_out_printf(out, "# %" PRIu64 " events read, %" PRIu64 " shown, %" PRIu64
			      " lost-events markers (TRACE_LOST_EVENTS)\n",
			      st.read, st.shown, st.lost_markers);
	intervals_free(&st.iv);
	ktrace_kdebug_close(st.k);
	return ret < 0 ? ret : 0;
}
