// SPDX-License-Identifier: MIT
/* The engine's trace.dat source (engine/engine_tdset_int.h). */
#include "engine/engine_tdset_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/input_file.h"
#include "event/event_share.h"
#include "tracedat/tracedat_share.h"
#include "tracedat/tracedat_skip.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int kt_tdset_init(struct kt_tdset *set, size_t nfiles, const struct kt_tdset_opts *o,
		  struct ktrace_error *err)
{
	memset(set, 0, sizeof(*set));
	set->o = *o;
	set->err = err;
	/* (CPUs left unread need no dropping) */
	set->filtering = (o->cpus && !o->cpus_unread) || o->no_irqs || o->no_softirqs;
	set->files = calloc(nfiles ? nfiles : 1, sizeof(*set->files));
	if (!set->files)
		return kt_error_oom(err);
	return 0;
}

/* ---- loading ---- */

/* Collects the metadata texts of a file (they stay valid until tracedat_close). */
static int collect_texts(struct kt_tdfile *f, struct ktrace_error *err)
{
	struct tracedat *td = f->td;
	size_t n = tracedat_ftrace_format_count(td), k = 0;
	const char *text;
	size_t len;

	for (size_t s = 0; s < tracedat_system_count(td); s++)
		n += tracedat_system_event_count(td, s);
	f->formats = calloc(n ? n : 1, sizeof(*f->formats));
	if (!f->formats)
		return kt_error_oom(err);
	if (!tracedat_header_page(td, &text, &len))
		f->header_page = (struct kt_mtext){ NULL, text, len };
	for (size_t i = 0; i < tracedat_ftrace_format_count(td); i++)
		if (!tracedat_ftrace_format(td, i, &text, &len))
			f->formats[k++] = (struct kt_mtext){ "ftrace", text, len };
	for (size_t s = 0; s < tracedat_system_count(td); s++) {
		const char *sys = tracedat_system_name(td, s);

		for (size_t i = 0; i < tracedat_system_event_count(td, s); i++)
			if (!tracedat_event_format(td, s, i, &text, &len))
				f->formats[k++] = (struct kt_mtext){ sys, text, len };
	}
	f->nformats = k;
	if (tracedat_kallsyms(td, &text, &len, err) < 0)
		return err->code;
	f->kallsyms = (struct kt_mtext){ NULL, text, len };
	if (tracedat_printk_formats(td, &text, &len, err) < 0)
		return err->code;
	f->printk = (struct kt_mtext){ NULL, text, len };
	if (tracedat_cmdlines(td, &text, &len, err) < 0)
		return err->code;
	f->cmdlines = (struct kt_mtext){ NULL, text, len };
	if (tracedat_btf_size(td) >= 0) {
		const void *data;

		if (tracedat_btf(td, &data, &len, err) < 0)
			return err->code;
		f->btf = (struct kt_mtext){ NULL, data, len };
	}
	return 0;
}

struct ktrace_events *kt_tdfile_registry(const struct kt_tdfile *f, const struct kt_tdset_opts *o)
{
	const struct tracedat_header *h = tracedat_header(f->td);
	struct ktrace_error ignore = { 0 };
	struct ktrace_events *evs = ktrace_event_new((int)h->long_size, h->big_endian);

	if (!evs)
		return NULL;
	/* like trace-cmd, metadata that does not parse is skipped (what parsed is kept);
	 * running out of memory is no such thing: then there is no registry */
	if (f->header_page.text &&
	    ktrace_event_parse_header_page(evs, f->header_page.text, f->header_page.len,
					   &ignore) == -ENOMEM)
		goto oom;
	for (size_t i = 0; i < f->nformats; i++)
		if (ktrace_event_add_format(evs, f->formats[i].system, f->formats[i].text,
					    f->formats[i].len, NULL, &ignore) == -ENOMEM)
			goto oom;
	if (f->share_symbols)
		ftev_share_symbols(evs, f->evs);
	else if (f->kallsyms.len)
		ftev_defer_kallsyms(evs, f->kallsyms.text, f->kallsyms.len);
	if (f->printk.len &&
	    ktrace_event_parse_printk_formats(evs, f->printk.text, f->printk.len,
					      &ignore) == -ENOMEM)
		goto oom;
	if (f->cmdlines.len &&
	    ktrace_event_parse_cmdlines(evs, f->cmdlines.text, f->cmdlines.len, &ignore) == -ENOMEM)
		goto oom;
	if (f->btf.len)
		ftev_defer_btf(evs, f->btf.text, f->btf.len);
	ktrace_event_set_ts_format(evs, o->raw_ts ? KTRACE_EVOPT_TS_RAW
				   : o->nsec ? KTRACE_EVOPT_TS_NSECS : KTRACE_EVOPT_TS_USECS);
	/* libtracecmd adds its block-trace event when it sets the data up: the listings
	 * (-E -P -f) come before that */
	if (!o->listing && ktrace_event_add_blktrace(evs) == -ENOMEM)
		goto oom;
	return evs;
oom:
	ktrace_event_free(evs);
	errno = ENOMEM;
	return NULL;
}

int kt_tdfile_share_symbols(struct kt_tdfile *f)
{
	ftev_prepare_share(f->evs);
	f->share_symbols = true;
	return 0;
}

/* trace-cmd prints times in seconds unless the clock is a raw counter (or --raw-ts). */
static void time_format(struct kt_tdfile *f, const struct kt_tdset_opts *o)
{
	const char *clock = tracedat_clock(f->td);
	uint32_t mult, shift;
	uint64_t off;
	static const char *const secs[] = { "local", "global", "uptime", "perf", "tai",
					    "tsc2nsec" };

	f->usecs = true;
	if (clock && *clock) {
		if (o->raw_ts) {
			f->usecs = false;
		} else if (!tracedat_tsc2nsec(f->td, &mult, &shift, &off) || !mult) {
			bool known = !strncmp(clock, "mono", 4);

			for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
				known |= !strcmp(clock, secs[i]);
			f->usecs = known;
		}
	}
	f->use_trace_clock = false;
	for (size_t i = 0; i < tracedat_option_count(f->td); i++)
		if (tracedat_option(f->td, i)->id == TRACEDAT_OPT_TRACECLOCK)
			f->use_trace_clock = true;
}

static int open_file(struct kt_tdset *set, size_t i, const char *path, struct ktrace_input *input,
		     unsigned extra, int64_t ts_offset)
{
	const struct kt_tdset_opts *o = &set->o;
	struct kt_tdfile *f = &set->files[i];
	unsigned flags = (o->raw_ts ? TRACEDAT_RAW_TS : 0) | (o->no_date ? TRACEDAT_NO_DATE : 0) |
			 (o->read_copies ? TRACEDAT_READ_COPIES : 0) | extra;
	int ret;

	if (i >= set->nfiles)
		set->nfiles = i + 1;
	f->path = path;
	f->base = base_name(path);
	f->kstack_id = f->ustack_id = -1;
	set->err_file = path;
	if (input)
		ret = tracedat_open_input(input, flags, &f->td, set->err);
	else
		ret = tracedat_open(path, flags, &f->td, set->err);
	if (ret)
		return ret;
	if (ts_offset)
		tracedat_add_ts_offset(f->td, ts_offset);
	f->ncpus = tracedat_header(f->td)->cpus;
	f->ninstances = 0;
	for (size_t b = 0; b < tracedat_buffer_count(f->td); b++)
		if (*tracedat_buffer(f->td, b)->name)
			f->ninstances++;
	time_format(f, o);
	ret = collect_texts(f, set->err);
	if (ret)
		return ret;
	f->evs = kt_tdfile_registry(f, o);
	if (!f->evs)
		return ktrace_error_set(set->err, -errno, "cannot create the event registry: %s",
					strerror(errno));
	f->fg_entry = ktrace_event_find_by_name(f->evs, "ftrace", "funcgraph_entry");
	set->err_file = NULL;
	return 0;
}

int kt_tdset_open_file(struct kt_tdset *set, size_t i, const char *path, struct ktrace_input *input,
		       int64_t ts_offset)
{
	return open_file(set, i, path, input, 0, ts_offset);
}

int kt_tdset_open_file_as(struct kt_tdset *set, size_t i, const char *path, const char *name,
			  int64_t ts_offset)
{
	struct kt_tdfile *f = &set->files[i];
	int ret;

	if (i >= set->nfiles)
		set->nfiles = i + 1;
	set->err_file = path;
	ret = ktrace_input_open(path, &f->own_input, set->err);
	if (!ret && kt_input_rename(f->own_input, name))
		ret = kt_error_oom(set->err);
	if (ret)
		return ret;
	/* a file's mapping, as tracedat_open's: read pages are handed back */
	return open_file(set, i, path, f->own_input,
			 ktrace_input_is_mapped(f->own_input) ? TRACEDAT_MAPPED_FILE : 0, ts_offset);
}

/* trace-cmd's warning for a --comm name no saved cmdline has, to the set's warn */
static void warn_comm(const struct kt_tdset *set, const char *name)
{
	char *msg;

	if (!set->o.warn || asprintf(&msg, "comm: %s not in the saved cmdlines", name) < 0)
		return;   /* (a warning only) */
	set->o.warn(set->o.warn_arg, msg);
	free(msg);
}

/* --pid and --comm: trace-cmd's one filter of the tasks' pids, in its order (its lists
 * are built by prepending), or NULL. */
static char *task_filter(const struct kt_tdset *set, struct kt_tdfile *f,
			 const struct ktrace_stream_task *tasks, size_t ntasks)
{
	int *pids = NULL;
	size_t n = 0, cap = 0;
	char *text = NULL;
	size_t len = 0;

	/* pids of the comms, the last --comm first; then the --pid pids, the last first */
	for (size_t k = ntasks; k-- > 0;) {
		const struct ktrace_stream_task *t = &tasks[k];
		size_t found;

		if (!t->comm)
			continue;
		found = ktrace_event_comm_pids(f->evs, t->name, NULL, 0);
		if (!found) {
			/* trace-cmd's warning, and the filter goes on without the name */
			warn_comm(set, t->name);
			continue;
		}
		if (n + found > cap) {
			if (kt_grow((void **)&pids, &cap, n + found, sizeof(*pids)))
				goto oom;
		}
		ktrace_event_comm_pids(f->evs, t->name, pids + n, found);
		n += found;
	}
	for (size_t i = 0; i < n / 2; i++) {
		int t = pids[i];

		pids[i] = pids[n - 1 - i];
		pids[n - 1 - i] = t;
	}
	for (size_t pass = 0; pass < 2; pass++) {
		size_t at = 0;

		for (size_t i = 0; i < n; i++) {
			char one[128];
			int k = snprintf(one, sizeof(one), "%s(common_pid==%d)||(pid==%d)||(next_pid==%d)",
					 at ? "||" : ".*:", pids[i], pids[i], pids[i]);

			if (pass)
				memcpy(text + at, one, (size_t)k);
			at += (size_t)k;
		}
		for (size_t k = ntasks; k-- > 0;) {
			const char *p = tasks[k].name;
			size_t pl = strlen(p);

			if (tasks[k].comm)
				continue;
			if (pass)
				at += (size_t)sprintf(text + at, "%s(common_pid==%s)||(pid==%s)||(next_pid==%s)",
						      at ? "||" : ".*:", p, p, p);
			else
				at += 3 + 3 * pl + 40;
		}
		if (!pass) {
			if (!at)
				break;
			len = at + 1;
			text = malloc(len);
			if (!text)
				goto oom;
		} else {
			text[at] = 0;
		}
	}
	free(pids);
	return text;
oom:
	free(pids);
	free(text);
	return NULL;
}

static int add_one_filter(struct kt_tdset *set, struct kt_tdfile *f, const char *text, bool negative)
{
	struct ktrace_event_filter *flt = ktrace_event_filter_new(f->evs, text, set->err);

	if (!flt) {
		char msg[KTRACE_ERROR_MESSAGE_MAX];

		snprintf(msg, sizeof(msg), "%s", set->err->message);
		set->err_file = NULL;
		return ktrace_error_set(set->err, -EINVAL, "failed to create event filter '%s': %s",
					text, msg);
	}
	if (negative)
		f->neg[f->nneg++] = flt;
	else
		f->pos[f->npos++] = flt;
	return 0;
}

/* The filters, with the --pid/--comm one already made (text, owned; or NULL). */
static int add_filters(struct kt_tdset *set, struct kt_tdfile *f, const struct ktrace_stream_filter *filters,
		       size_t nfilters, char *text)
{
	const struct ktrace_event *ev;
	int ret;

	f->filter_args = filters;
	f->nfilter_args = nfilters;
	if (!nfilters && !text)
		return 0;
	f->pos = calloc(nfilters + 1, sizeof(*f->pos));
	f->neg = calloc(nfilters + 1, sizeof(*f->neg));
	if (!f->pos || !f->neg) {
		free(text);
		return kt_error_oom(set->err);
	}
	for (size_t i = 0; i < nfilters; i++) {
		ret = add_one_filter(set, f, filters[i].text, filters[i].negative);
		if (ret) {
			free(text);
			return ret;
		}
	}
	/* trace-cmd adds the pid filter after the -F ones */
	if (text) {
		f->task_text = text;
		ret = add_one_filter(set, f, text, false);
		if (ret)
			return ret;
	}
	ev = ktrace_event_find_by_name(f->evs, "ftrace", "kernel_stack");
	f->kstack_id = ev ? ktrace_event_id(ev) : -1;
	ev = ktrace_event_find_by_name(f->evs, "ftrace", "user_stack");
	f->ustack_id = ev ? ktrace_event_id(ev) : -1;
	f->nlast = 0;
	set->filtering = true;
	return 0;
}

int kt_tdset_add_filters(struct kt_tdset *set, struct kt_tdfile *f, const struct ktrace_stream_filter *filters,
			 size_t nfilters, const struct ktrace_stream_task *tasks, size_t ntasks)
{
	return add_filters(set, f, filters, nfilters, ntasks ? task_filter(set, f, tasks, ntasks) : NULL);
}

/* ---- filtering (trace-cmd's tracecmd_filter_match) ---- */

static bool *last_printed(struct kt_tdfile *f, int cpu)
{
	if (cpu < 0)
		return NULL;
	if ((size_t)cpu >= f->nlast) {
		size_t n = (size_t)cpu + 16;
		bool *p = kt_realloc_array(f->last_printed, n, sizeof(*p));

		if (!p)
			return NULL;
		memset(p + f->nlast, 0, (n - f->nlast) * sizeof(*p));
		f->last_printed = p;
		f->nlast = n;
	}
	return &f->last_printed[cpu];
}

static bool filter_pass(struct kt_tdfile *f, const struct ktrace_record *kr,
			const struct ktrace_event *ev)
{
	bool found = false;
	bool *lp;

	for (size_t i = 0; i < f->npos && !found; i++) {
		enum ktrace_event_filter_result res = ktrace_event_filter_match(f->pos[i], kr);

		found = res == KTRACE_EVENT_FILTER_NONE || res == KTRACE_EVENT_FILTER_MATCH;
	}
	lp = last_printed(f, kr->cpu);
	if (!found && f->npos) {
		/* a stack trace after an event that was shown is shown too */
		int id = ev ? ktrace_event_id(ev) : -1;

		if (id < 0 || !lp || !*lp || (id != f->kstack_id && id != f->ustack_id))
			return false;
	}
	found = false;
	for (size_t i = 0; i < f->nneg && !found; i++) {
		enum ktrace_event_filter_result res = ktrace_event_filter_match(f->neg[i], kr);

		found = res == KTRACE_EVENT_FILTER_NONE || res == KTRACE_EVENT_FILTER_MATCH;
	}
	if (lp)
		*lp = !found;
	return !found;
}

/* ---- streams ---- */

int kt_tdset_stream_error(struct kt_tdset *set, struct kt_tdstream *s, int ret)
{
	if (!tracedat_iter_ended(s->it)) {
		set->err_file = s->f->path;
		return ret;
	}
	/* the records that could be read all went out; the damage was told */
	set->damaged = true;
	if (set->err)
		set->damage = *set->err;
	else
		ktrace_error_set(&set->damage, ret, "damaged data");
	set->damage_file = s->f->path;
	return 0;
}

int kt_tdset_end(struct kt_tdset *set)
{
	set->ended = true;
	/* damage found at open that no stream met (a file without CPU data to read, its
	 * buffers lost with its metadata) ends the set all the same */
	for (size_t i = 0; !set->damaged && i < set->nfiles; i++) {
		struct kt_tdfile *f = &set->files[i];
		size_t n = f->td ? tracedat_damage_count(f->td) : 0;

		if (n) {
			set->damaged = true;
			set->damage = *tracedat_damage(f->td, n - 1);
			set->damage_file = f->path;
		}
	}
	if (!set->damaged)
		return 0;
	if (set->err)
		*set->err = set->damage;
	set->err_file = set->damage_file;
	return set->damage.code < 0 ? set->damage.code : -EBADMSG;
}

/* trace-cmd decompresses a whole chunk (10 pages) into one buffer, and reads on from a
 * record to the end of that buffer: so may we, the iterator holding the chunk the same
 * way. */
static uint32_t zavail(const struct tracedat_record *rec)
{
	const uint8_t *data = rec->data, *page = rec->page;
	uint32_t page_avail = (uint32_t)(page + rec->page_len - data);
	uint64_t pos = rec->page_offset + (uint64_t)(data - page);

	if (pos + rec->size > rec->chunk_end || rec->chunk_end - pos > UINT32_MAX ||
	    rec->chunk_end - pos < page_avail)
		return page_avail;
	return (uint32_t)(rec->chunk_end - pos);
}

uint32_t kt_tdstream_avail(const struct kt_tdstream *s, const struct tracedat_record *rec)
{
	const uint8_t *data = rec->data, *page = rec->page;
	uint64_t end, pos, chunk;

	if (rec->compressed)
		return zavail(rec);
	if (!s->map_size || !s->cpu_end)
		return (uint32_t)(page + rec->page_len - data);
	/* trace-cmd maps the CPU data in windows of map_size bytes: it reads on to the end
	 * of the window holding the record */
	pos = rec->page_offset + (uint64_t)(data - page);
	chunk = (pos & ~(s->map_size - 1)) + s->map_size;
	end = s->cpu_end[rec->cpu_index];
	if (chunk < end)
		end = chunk;
	if (end < pos + rec->size)
		return rec->size;
	if (end - pos > UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)(end - pos);
}

int kt_tdset_lost_unknown(struct kt_tdset *set, const struct kt_tdstream *s,
			  const struct tracedat_record *rec)
{
	set->err_file = s->f->path;
	return ktrace_error_at(set->err, -EBADMSG, rec->compressed ? rec->chunk_offset : rec->offset,
			       "CPU %u: events lost before a record of an unknown event (its format "
			       "is missing or damaged): trace-cmd's report stops here",
			       rec->cpu);
}

bool kt_tdset_drop(struct kt_tdset *set, struct kt_tdfile *f, const struct tracedat_record *rec,
		  const struct ktrace_record *kr, const struct ktrace_event *ev)
{
	const struct kt_tdset_opts *o = &set->o;

	if ((f->npos || f->nneg) && !filter_pass(f, kr, ev))
		return true;
	if (o->cpus) {
		bool wanted = false;

		for (size_t i = 0; i < o->ncpus && !wanted; i++)
			wanted = (unsigned)o->cpus[i] == rec->cpu;
		if (!wanted)
			return true;
	}
	if (o->no_irqs || o->no_softirqs) {
		int fl = ktrace_event_record_flags(f->evs, kr);

		if ((o->no_irqs && (fl & 0x08)) || (o->no_softirqs && (fl & 0x10)))
			return true;
	}
	return false;
}

static uint64_t map_window(struct tracedat *td, size_t buffer)
{
	const struct tracedat_buffer *b = tracedat_buffer(td, buffer);
	uint64_t max = 0, pages;

	if (b->compressed || !b->page_size)
		return 0;
	for (size_t i = 0; i < b->cpus; i++) {
		const struct tracedat_cpu *c = tracedat_buffer_cpu(td, buffer, i);

		if (c->size > max)
			max = c->size;
	}
	pages = max / b->page_size;
	if (!pages)
		pages = 1;
	while (pages & (pages - 1))
		pages &= pages - 1;
	return pages * b->page_size;
}

/*
 * trace-cmd gives decompressed CPU streams offsets of their own: from one page on, each
 * CPU with data after the previous one, page aligned; instances go on from where the top
 * buffer ends.
 */
void kt_td_virtual_offsets(struct tracedat *td, size_t buffer, uint64_t *base)
{
	const struct tracedat_buffer *b = tracedat_buffer(td, buffer);
	int top = tracedat_find_buffer(td, "");
	uint64_t next = tracedat_header(td)->page_size, ps;

	if (top >= 0 && (size_t)top != buffer) {
		const struct tracedat_buffer *tb = tracedat_buffer(td, (size_t)top);

		ps = tb->page_size ? tb->page_size : 4096;
		for (size_t i = 0; i < tb->cpus; i++) {
			uint64_t sz = tracedat_buffer_cpu(td, (size_t)top, i)->data_size;

			if (sz)
				next = (next + sz + ps - 1) & ~(ps - 1);
		}
	}
	ps = b->page_size ? b->page_size : 4096;
	for (size_t i = 0; i < b->cpus; i++) {
		uint64_t sz = tracedat_buffer_cpu(td, buffer, i)->data_size;

		base[i] = next;
		if (sz)
			next = (next + sz + ps - 1) & ~(ps - 1);
	}
}

int kt_tdset_add_stream(struct kt_tdset *set, struct kt_tdfile *f, size_t buffer, bool multi)
{
	const struct tracedat_buffer *b = tracedat_buffer(f->td, buffer);
	struct kt_tdstream *s;
	int ret;

	if (set->nstreams == set->cap_streams &&
	    kt_grow((void **)&set->streams, &set->cap_streams, set->nstreams + 1, sizeof(*s)))
		return kt_error_oom(set->err);
	s = &set->streams[set->nstreams];
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->buffer = (unsigned)buffer;
	s->label = *b->name ? b->name : (multi ? f->base : "");
	s->page_size = b->page_size;
	s->map_size = map_window(f->td, buffer);
	if (s->map_size && !b->compressed) {
		uint64_t fsize = tracedat_header(f->td)->file_size;

		s->cpu_end = calloc(b->cpus ? b->cpus : 1, sizeof(*s->cpu_end));
		if (!s->cpu_end)
			return kt_error_oom(set->err);
		for (size_t i = 0; i < b->cpus; i++) {
			const struct tracedat_cpu *c = tracedat_buffer_cpu(f->td, buffer, i);

			s->cpu_end[i] = c->offset + c->size < fsize ? c->offset + c->size : fsize;
		}
	}
	if (b->compressed && set->o.debug_offsets) {
		s->vbase = calloc(b->cpus ? b->cpus : 1, sizeof(*s->vbase));
		if (!s->vbase) {
			free(s->cpu_end);
			return kt_error_oom(set->err);
		}
		kt_td_virtual_offsets(f->td, buffer, s->vbase);
	}
	ret = tracedat_iter_new(f->td, (int)buffer, -1, &s->it, set->err);
	if (!ret && set->o.cpus && set->o.cpus_unread)
		ret = tracedat_iter_only_cpus(s->it, set->o.cpus, set->o.ncpus);
	if (ret) {
		free(s->cpu_end);
		free(s->vbase);
		set->err_file = f->path;
		return ret;
	}
	/* a file whose chunks are shared (kt_tdset_share_chunks): from the first one */
	tracedat_iter_share(s->it);
	set->nstreams++;
	return kt_tdset_advance(set, s);
}

int kt_tdset_add_all_streams(struct kt_tdset *set, bool multi)
{
	int ret;

	for (size_t i = 0; i < set->nfiles; i++) {
		struct kt_tdfile *f = &set->files[i];
		int top = tracedat_find_buffer(f->td, "");

		if (top >= 0 && !tracedat_buffer(f->td, (size_t)top)->latency) {
			ret = kt_tdset_add_stream(set, f, (size_t)top, multi);
			if (ret)
				return ret;
		}
	}
	for (size_t i = 0; i < set->nfiles; i++) {
		struct kt_tdfile *f = &set->files[i];

		for (size_t b = 0; b < tracedat_buffer_count(f->td); b++) {
			const struct tracedat_buffer *buf = tracedat_buffer(f->td, b);

			if (!*buf->name || buf->latency)
				continue;
			ret = kt_tdset_add_stream(set, f, b, multi);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int kt_tdset_share_chunks(struct kt_tdset *set, unsigned readers)
{
	int ret;

	for (size_t i = 0; i < set->nfiles; i++) {
		if (set->files[i].borrowed)
			continue;
		ret = tracedat_share_chunks(set->files[i].td, readers);
		if (ret)
			return ktrace_error_set(set->err, ret, "out of memory");
	}
	for (size_t i = 0; i < set->nstreams; i++)
		tracedat_iter_share(set->streams[i].it);
	return 0;
}

int kt_tdset_clone(struct kt_tdset *dst, const struct kt_tdset *src, struct ktrace_error *err)
{
	int ret = kt_tdset_init(dst, src->nfiles, &src->o, err);

	if (ret)
		return ret;
	dst->nfiles = src->nfiles;
	for (size_t i = 0; i < src->nfiles; i++) {
		const struct kt_tdfile *sf = &src->files[i];
		struct kt_tdfile *f = &dst->files[i];
		char *text = NULL;

		*f = (struct kt_tdfile){
			.path = sf->path, .base = sf->base, .td = sf->td,
			.header_page = sf->header_page, .kallsyms = sf->kallsyms,
			.printk = sf->printk, .cmdlines = sf->cmdlines, .btf = sf->btf,
			.formats = sf->formats, .nformats = sf->nformats,
			.kstack_id = -1, .ustack_id = -1,
			.usecs = sf->usecs, .use_trace_clock = sf->use_trace_clock,
			.ncpus = sf->ncpus, .ninstances = sf->ninstances, .borrowed = true,
		};
		f->evs = kt_tdfile_registry(sf, &src->o);
		if (!f->evs)
			return kt_error_oom(err);
		f->fg_entry = ktrace_event_find_by_name(f->evs, "ftrace", "funcgraph_entry");
		if (sf->task_text && !(text = strdup(sf->task_text)))
			return kt_error_oom(err);
		if (sf->npos || sf->nneg) {
			ret = add_filters(dst, f, sf->filter_args, sf->nfilter_args, text);
			if (ret)
				return ret;
		} else {
			free(text);
		}
	}
	for (size_t i = 0; i < src->nstreams; i++) {
		const struct kt_tdstream *ss = &src->streams[i];
		struct kt_tdfile *f = &dst->files[ss->f - src->files];
		struct kt_tdstream *s;

		ret = kt_tdset_add_stream(dst, f, ss->buffer, false);
		if (ret)
			return ret;
		s = &dst->streams[dst->nstreams - 1];
		s->label = ss->label;
	}
	dst->filtering = src->filtering;
	dst->lazy_avail = src->lazy_avail;
	return 0;
}

void kt_tdset_close(struct kt_tdset *set)
{
	for (size_t i = 0; i < set->nstreams; i++) {
		tracedat_iter_free(set->streams[i].it);
		free(set->streams[i].vbase);
		free(set->streams[i].cpu_end);
	}
	free(set->streams);
	for (size_t i = 0; i < set->nfiles; i++) {
		struct kt_tdfile *f = &set->files[i];

		for (size_t k = 0; k < f->npos; k++)
			ktrace_event_filter_free(f->pos[k]);
		for (size_t k = 0; k < f->nneg; k++)
			ktrace_event_filter_free(f->neg[k]);
		free(f->pos);
		free(f->neg);
		free(f->task_text);
		free(f->last_printed);
		if (f->evs)
			ktrace_event_free(f->evs);
		if (f->borrowed)
			continue;
		free(f->formats);
		if (f->td)
			tracedat_close(f->td);
		if (f->own_input)
			ktrace_input_close(f->own_input);
	}
	free(set->files);
	memset(set, 0, sizeof(*set));
}
