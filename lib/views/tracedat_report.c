// SPDX-License-Identifier: MIT
/*
 * `ktrace report` for trace.dat files: the lines Debian's trace-cmd 3.1.6 prints with
 * `trace-cmd report`, byte for byte.
 *
 * Every file gets one event registry (ktrace/ftrace_event.h), shared by its buffers as
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
 */
#include <ktrace/ftrace_event.h>
#include <ktrace/ftrace_filter.h>
#include <ktrace/ftrace_meta.h>
#include <ktrace/tracedat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "views/views.h"

/* One input file: its reader, registry and filters. */
struct rfile {
	const struct ktrace_tdreport_file *arg;
	const char *base;                  /* file name without directories */
	struct tracedat *td;
	struct ktrace_events *evs;
	const struct ktrace_event *fg_entry;    /* funcgraph_entry, if any */
	/* filters: trace-cmd's tracecmd_filter, shared by the file's buffers */
	struct ktrace_filter **pos, **neg;
	size_t npos, nneg;
	int kstack_id, ustack_id;          /* kernel_stack / user_stack ids (-1: none) */
	bool *last_printed;                /* per CPU id */
	size_t nlast;
	bool usecs;                        /* times in seconds (not a raw counter) */
	bool use_trace_clock;              /* --ts-diff rounds to microseconds */
	unsigned ncpus;                    /* "cpus=N" */
	size_t ninstances;
};

/* One buffer of one file: a stream of records in timestamp order. */
struct rstream {
	struct rfile *f;
	unsigned buffer;
	const char *label;                 /* line prefix name ("" for a top buffer) */
	struct tracedat_iter *it;
	const struct tracedat_record *head;
	uint64_t map_size;                 /* trace-cmd's mapping window (uncompressed) */
	unsigned page_size;
};

struct report {
	const struct ktrace_tdreport_opts *o;
	struct kt_out *out;
	struct ktrace_error *err;
	const char **err_file;
	struct rfile *files;
	size_t nfiles;
	struct rstream *streams;
	size_t nstreams;
	/* line prefixes */
	bool prefix;                       /* print buffer/file names */
	int width;                         /* trace-cmd's max_file_size */
	/* --ts-diff */
	uint64_t last_ts;
	/* scratch */
	char *big;                         /* event texts that do not fit the output buffer */
	size_t big_cap;
	uint8_t *copy;                     /* a function-graph entry kept while looking ahead */
	size_t copy_cap;
	/* progress */
	uint64_t done, total_bytes;
	struct timespec last_progress;
	bool progress_shown;
	size_t flush_mark;
};

static void out_room(struct kt_out *o, size_t n)
{
	if (sizeof(o->buf) - o->len < n)
		kt_out_flush(o);
}

/* ---- loading ---- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int load_registry(struct rfile *f, struct ktrace_error *err)
{
	struct tracedat *td = f->td;
	const struct tracedat_header *h = tracedat_header(td);
	struct ktrace_error ignore = { 0 };
	const char *text;
	size_t len;

	f->evs = ktrace_events_new((int)h->long_size, h->big_endian);
	if (!f->evs)
		return ktrace_error_set(err, -errno, "cannot create the event registry: %s",
					strerror(errno));
	/* like trace-cmd, metadata that does not parse is skipped (what parsed is kept) */
	if (!tracedat_header_page(td, &text, &len))
		ktrace_events_parse_header_page(f->evs, text, len, &ignore);
	for (size_t i = 0; i < tracedat_ftrace_format_count(td); i++)
		if (!tracedat_ftrace_format(td, i, &text, &len))
			ktrace_events_add_format(f->evs, "ftrace", text, len, NULL, &ignore);
	for (size_t s = 0; s < tracedat_system_count(td); s++) {
		const char *sys = tracedat_system_name(td, s);

		for (size_t i = 0; i < tracedat_system_event_count(td, s); i++)
			if (!tracedat_event_format(td, s, i, &text, &len))
				ktrace_events_add_format(f->evs, sys, text, len, NULL, &ignore);
	}
	if (tracedat_kallsyms(td, &text, &len, err) < 0)
		return err->code;
	if (len)
		ktrace_events_parse_kallsyms(f->evs, text, len, &ignore);
	if (tracedat_printk_formats(td, &text, &len, err) < 0)
		return err->code;
	if (len)
		ktrace_events_parse_printk_formats(f->evs, text, len, &ignore);
	if (tracedat_cmdlines(td, &text, &len, err) < 0)
		return err->code;
	if (len)
		ktrace_events_parse_cmdlines(f->evs, text, len, &ignore);
	f->fg_entry = ktrace_events_find_by_name(f->evs, "ftrace", "funcgraph_entry");
	return 0;
}

/* trace-cmd prints times in seconds unless the clock is a raw counter (or --raw-ts). */
static void time_format(struct rfile *f, const struct ktrace_tdreport_opts *o)
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

static int open_file(struct report *r, struct rfile *f, const struct ktrace_tdreport_file *a)
{
	const struct ktrace_tdreport_opts *o = r->o;
	unsigned flags = (o->raw_ts ? TRACEDAT_RAW_TS : 0) | (o->no_date ? TRACEDAT_NO_DATE : 0);
	int ret;

	f->arg = a;
	f->base = base_name(a->path);
	*r->err_file = a->path;
	ret = tracedat_open(a->path, flags, &f->td, r->err);
	if (ret)
		return ret;
	if (a->ts_offset)
		tracedat_add_ts_offset(f->td, a->ts_offset);
	f->ncpus = tracedat_header(f->td)->cpus;
	f->ninstances = 0;
	for (size_t i = 0; i < tracedat_buffer_count(f->td); i++)
		if (*tracedat_buffer(f->td, i)->name)
			f->ninstances++;
	time_format(f, o);
	ret = load_registry(f, r->err);
	if (ret)
		return ret;
	ktrace_events_set_ts_format(f->evs, o->raw_ts ? KTRACE_EVOPT_TS_RAW
				    : o->nsec ? KTRACE_EVOPT_TS_NSECS : KTRACE_EVOPT_TS_USECS);
	*r->err_file = NULL;
	return 0;
}

static int add_filters(struct report *r, struct rfile *f)
{
	const struct ktrace_tdreport_file *a = f->arg;
	const struct ktrace_event *ev;

	if (!a->nfilters)
		return 0;
	f->pos = calloc(a->nfilters, sizeof(*f->pos));
	f->neg = calloc(a->nfilters, sizeof(*f->neg));
	if (!f->pos || !f->neg)
		return ktrace_error_set(r->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < a->nfilters; i++) {
		struct ktrace_filter *flt = ktrace_filter_new(f->evs, a->filters[i].text, r->err);

		if (!flt) {
			char msg[KTRACE_ERROR_MESSAGE_MAX];

			snprintf(msg, sizeof(msg), "%s", r->err->message);
			*r->err_file = NULL;
			return ktrace_error_set(r->err, -EINVAL,
						"failed to create event filter '%s': %s",
						a->filters[i].text, msg);
		}
		if (a->filters[i].negative)
			f->neg[f->nneg++] = flt;
		else
			f->pos[f->npos++] = flt;
	}
	ev = ktrace_events_find_by_name(f->evs, "ftrace", "kernel_stack");
	f->kstack_id = ev ? ktrace_event_id(ev) : -1;
	ev = ktrace_events_find_by_name(f->evs, "ftrace", "user_stack");
	f->ustack_id = ev ? ktrace_event_id(ev) : -1;
	f->nlast = 0;
	return 0;
}

/* ---- filtering (trace-cmd's tracecmd_filter_match) ---- */

static bool *last_printed(struct rfile *f, int cpu)
{
	if (cpu < 0)
		return NULL;
	if ((size_t)cpu >= f->nlast) {
		size_t n = (size_t)cpu + 16;
		bool *p = realloc(f->last_printed, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + f->nlast, 0, (n - f->nlast) * sizeof(*p));
		f->last_printed = p;
		f->nlast = n;
	}
	return &f->last_printed[cpu];
}

static bool filter_pass(struct rfile *f, const struct ktrace_record *kr,
			const struct ktrace_event *ev)
{
	bool found = false;
	bool *lp;

	for (size_t i = 0; i < f->npos && !found; i++) {
		enum ktrace_filter_result res = ktrace_filter_match(f->pos[i], kr);

		found = res == KTRACE_FILTER_NONE || res == KTRACE_FILTER_MATCH;
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
		enum ktrace_filter_result res = ktrace_filter_match(f->neg[i], kr);

		found = res == KTRACE_FILTER_NONE || res == KTRACE_FILTER_MATCH;
	}
	if (lp)
		*lp = !found;
	return !found;
}

/* ---- line pieces ---- */

static inline char *put_u64(char *p, uint64_t v)
{
	char buf[24];
	int n = 0;

	do {
		buf[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = buf[--n];
	return p;
}

/* v in exactly `digits` digits, zero-padded (v < 10^digits). */
static inline char *put_zdigits(char *p, uint64_t v, int digits)
{
	for (int i = digits - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return p + digits;
}

/* "%Nllu": right-aligned in width. */
static inline char *put_u64w(char *p, uint64_t v, int width)
{
	char buf[24];
	int n = 0;

	do {
		buf[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = n; i < width; i++)
		*p++ = ' ';
	while (n)
		*p++ = buf[--n];
	return p;
}

static inline char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, -(uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

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
		return put_u64w(p, ts, 12);
	if (nsec) {
		p = put_u64w(p, ts / 1000000000u, 5);
		*p++ = '.';
		return put_zdigits(p, ts % 1000000000u, 9);
	}
	ts = ts / 1000 + (ts % 1000 >= 500);      /* (ts + 500) / 1000 without overflow */
	p = put_u64w(p, ts / 1000000u, 5);
	*p++ = '.';
	return put_zdigits(p, ts % 1000000u, 6);
}

static void put_prefix(struct report *r, const char *label)
{
	struct kt_out *o = r->out;
	size_t n = strlen(label);
	char *p;

	out_room(o, (size_t)r->width + n + 4);
	p = o->buf + o->len;
	if (*label) {
		p = put_spaces(p, r->width - (int)n);
		memcpy(p, label, n);
		p += n;
		*p++ = ':';
		*p++ = ' ';
	} else {
		p = put_spaces(p, r->width + 2);
	}
	o->len = (size_t)(p - o->buf);
}

/* ---- progress on stderr ---- */

static void progress(struct report *r, const struct tracedat_record *rec)
{
	struct timespec now;
	double dt;
	char line[128];
	int n;

	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = (double)(now.tv_sec - r->last_progress.tv_sec) +
	     (double)(now.tv_nsec - r->last_progress.tv_nsec) / 1e9;
	if (dt < 0.5)
		return;
	r->last_progress = now;
	if (r->total_bytes && !rec->compressed)
		n = snprintf(line, sizeof(line), "\rktrace report: %" PRIu64 " events, %d%%  ",
			     r->done, (int)(100.0 * (double)rec->offset / (double)r->total_bytes));
	else
		n = snprintf(line, sizeof(line), "\rktrace report: %" PRIu64 " events  ", r->done);
	if (n > 0) {
		ssize_t w = write(STDERR_FILENO, line, (size_t)n);   /* best effort */

		(void)w;
	}
	r->progress_shown = true;
}

/* ---- one record ---- */

static uint32_t record_avail(const struct rstream *s, const struct tracedat_record *rec)
{
	const uint8_t *data = rec->data, *page = rec->page;
	uint64_t end, pos, chunk;
	const struct tracedat_cpu *cpu;

	if (rec->compressed || !s->map_size)
		return (uint32_t)(page + rec->page_len - data);
	/* trace-cmd maps the CPU data in windows of map_size bytes: it reads on to the end
	 * of the window holding the record */
	cpu = tracedat_buffer_cpu(s->f->td, s->buffer, rec->cpu_index);
	pos = rec->page_offset + (uint64_t)(data - page);
	chunk = (pos & ~(s->map_size - 1)) + s->map_size;
	end = cpu->offset + cpu->size;
	if (chunk < end)
		end = chunk;
	if (end > tracedat_header(s->f->td)->file_size)
		end = tracedat_header(s->f->td)->file_size;
	if (end < pos + rec->size)
		return rec->size;
	if (end - pos > UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)(end - pos);
}

static void fill_krec(const struct rstream *s, const struct tracedat_record *rec,
		      struct ktrace_record *kr)
{
	kr->data = rec->data;
	kr->size = rec->size;
	kr->cpu = (int)rec->cpu;
	kr->ts = rec->ts;
	kr->next = NULL;
	kr->avail = record_avail(s, rec);
}

static int advance(struct report *r, struct rstream *s)
{
	int ret = tracedat_iter_next(s->it, &s->head, r->err);

	if (ret <= 0) {
		s->head = NULL;
		if (ret < 0)
			*r->err_file = s->f->arg->path;
	}
	return ret < 0 ? ret : 0;
}

static bool cpu_wanted(const struct ktrace_tdreport_opts *o, unsigned cpu)
{
	for (size_t i = 0; i < o->ncpus; i++)
		if ((unsigned)o->cpus[i] == cpu)
			return true;
	return false;
}

/* Writes the event text (format into the output buffer when it fits). */
static void put_event_text(struct report *r, struct ktrace_events *evs,
			   const struct ktrace_record *kr, unsigned flags, unsigned *outf)
{
	struct kt_out *o = r->out;
	size_t room, n;
	char *dst;

	out_room(o, 4096);
	room = sizeof(o->buf) - o->len;
	dst = o->buf + o->len;
	n = ktrace_events_format(evs, kr, flags, dst, room, outf);
	if (n >= room) {
		if (r->big_cap <= n) {
			char *b = realloc(r->big, n + 1);

			if (!b) {
				n = room - 1;
				goto have;
			}
			r->big = b;
			r->big_cap = n + 1;
		}
		n = ktrace_events_format(evs, kr, flags, r->big, r->big_cap, outf);
		if (n >= r->big_cap)
			n = r->big_cap - 1;
		{
			const char *z = memchr(r->big, 0, n);

			if (z)
				n = (size_t)(z - r->big);
		}
		if (n && r->big[n - 1] == '\n')
			n--;
		kt_out_write(o, r->big, n);
		kt_out_putc(o, '\n');
		return;
	}
have:
	{
		const char *z = memchr(dst, 0, n);

		if (z)
			n = (size_t)(z - dst);
	}
	if (n && dst[n - 1] == '\n')
		n--;
	dst[n] = '\n';
	o->len += n + 1;
}

/* Prints the record at the head of s (and moves s on). */
static int print_head(struct report *r, struct rstream *s)
{
	const struct ktrace_tdreport_opts *o = r->o;
	const struct tracedat_record *rec = s->head;
	struct rfile *f = s->f;
	struct ktrace_events *evs = f->evs;
	struct ktrace_record kr, nkr;
	const struct ktrace_event *ev;
	struct kt_out *out = r->out;
	unsigned outf = 0;
	char *p;
	int ret;

	fill_krec(s, rec, &kr);
	ev = ktrace_events_record_event(evs, &kr);
	if ((f->npos || f->nneg) && !filter_pass(f, &kr, ev))
		return advance(r, s);
	if (o->cpus && !cpu_wanted(o, rec->cpu))
		return advance(r, s);
	if (o->no_irqs || o->no_softirqs) {
		int fl = ktrace_events_record_flags(evs, &kr);

		if ((o->no_irqs && (fl & 0x08)) || (o->no_softirqs && (fl & 0x10)))
			return advance(r, s);
	}

	if (r->prefix)
		put_prefix(r, s->label);
	if (rec->missed_events) {
		out_room(out, 64);
		p = out->buf + out->len;
		memcpy(p, "CPU:", 4);
		p = put_u64(p + 4, rec->cpu);
		if (rec->missed_events > 0) {
			memcpy(p, " [", 2);
			p = put_i64(p + 2, rec->missed_events);
			memcpy(p, " EVENTS DROPPED]\n", 17);
			p += 17;
		} else {
			memcpy(p, " [EVENTS DROPPED]\n", 18);
			p += 18;
		}
		out->len = (size_t)(p - out->buf);
	}

	if (!ev) {
		/* tep_print_event prints only this for an event it does not know */
		out_room(out, 160);
		p = out->buf + out->len;
		memcpy(p, "[UNKNOWN EVENT]", 15);
		p += 15;
		if (o->latency) {
			if (o->raw)
				p += sprintf(p, "-0x%x", (unsigned)ktrace_events_record_flags(evs, &kr));
			else {
				memcpy(p, "[UNKNOWN EVENT]", 15);
				p += 15;
			}
		}
		memcpy(p, "[UNKNOWN EVENT]", 15);
		p += 15;
		out->len = (size_t)(p - out->buf);
		goto diff_name;
	}

	{
		int pid = ktrace_events_record_pid(evs, &kr);
		const char *comm = ktrace_events_comm(evs, pid);
		size_t clen = strlen(comm);

		out_room(out, clen + 160);
		p = out->buf + out->len;
		if (o->latency) {
			/* "%8.8s-%-5d %3d" */
			size_t n = clen > 8 ? 8 : clen;
			char *q;

			p = put_spaces(p, 8 - (int)n);
			memcpy(p, comm, n);
			p += n;
			*p++ = '-';
			q = p;
			p = put_i64(p, pid);
			p = put_spaces(p, 5 - (int)(p - q));
			*p++ = ' ';
			p = put_u64w(p, rec->cpu, 3);
			out->len = (size_t)(p - out->buf);
			if (o->raw) {
				p += sprintf(p, "-0x%x", (unsigned)ktrace_events_record_flags(evs, &kr));
				out->len = (size_t)(p - out->buf);
			} else {
				size_t room = sizeof(out->buf) - out->len;
				size_t n2 = ktrace_events_latency(evs, &kr, p, room);

				if (n2 >= room)
					n2 = 0;
				out->len += n2;
				p += n2;
			}
		} else {
			/* "%16s-%-5d [%03d]" */
			char *q;

			p = put_spaces(p, 16 - (int)clen);
			memcpy(p, comm, clen);
			p += clen;
			*p++ = '-';
			q = p;
			p = put_i64(p, pid);
			p = put_spaces(p, 5 - (int)(p - q));
			*p++ = ' ';
			*p++ = '[';
			if (rec->cpu < 1000)
				p = put_zdigits(p, rec->cpu, 3);
			else
				p = put_u64(p, rec->cpu);
			*p++ = ']';
		}
		if (f->usecs)
			*p++ = ' ';
		p = put_time(p, f, o->nsec, rec->ts);
		*p++ = ':';
		out->len = (size_t)(p - out->buf);
	}

diff_name:
	if (o->ts_diff) {
		uint64_t ts = rec->ts;
		char buf[50] = "";

		if (f->use_trace_clock && !o->nsec)
			ts = ts / 1000 + (ts % 1000 >= 500);
		if (r->last_ts)
			snprintf(buf, sizeof(buf), "(+%lld)", (long long)(ts - r->last_ts));
		r->last_ts = ts;
		out_room(out, 64);
		out->len += (size_t)sprintf(out->buf + out->len, " %-8s", buf);
	}
	{
		const char *name = ev ? ktrace_event_name(ev) : "(NULL)";
		size_t n = strlen(name);

		out_room(out, n + 32);
		p = out->buf + out->len;
		*p++ = ' ';
		memcpy(p, name, n);
		p += n;
		*p++ = ':';
		*p++ = ' ';
		if (n < 20)
			p = put_spaces(p, 20 - (int)n);
		out->len = (size_t)(p - out->buf);
	}
	if (!ev) {
		out_room(out, 32);
		memcpy(out->buf + out->len, "[UNKNOWN EVENT]\n", 16);
		out->len += 16;
		return advance(r, s);
	}

	if (ev == f->fg_entry && ev) {
		/* look at the next record of this buffer: a leaf function prints as one line */
		if (r->copy_cap < kr.size + 64) {
			uint8_t *c = realloc(r->copy, kr.size + 64);

			if (!c)
				return ktrace_error_set(r->err, -ENOMEM, "out of memory");
			r->copy = c;
			r->copy_cap = kr.size + 64;
		}
		{
			uint32_t keep = kr.avail < kr.size + 64 ? kr.avail : kr.size + 64;

			memcpy(r->copy, kr.data, keep);
			kr.data = r->copy;
			kr.avail = keep;
		}
		ret = advance(r, s);
		if (ret)
			return ret;
		if (s->head) {
			fill_krec(s, s->head, &nkr);
			kr.next = &nkr;
		}
		put_event_text(r, evs, &kr, o->raw ? KTRACE_EVFMT_RAW : 0, &outf);
		if ((outf & KTRACE_EVFMT_OUT_CONSUMED_NEXT) && s->head)
			return advance(r, s);
		return 0;
	}
	put_event_text(r, evs, &kr, o->raw ? KTRACE_EVFMT_RAW : 0, &outf);
	return advance(r, s);
}

/* ---- the header lines, listings ---- */

static void put_file_prefix(struct report *r, const char *label, bool labelled)
{
	if (!labelled)
		return;
	kt_out_printf(r->out, label && *label ? "%*s: " : "%*s  ", r->width,
		      label && *label ? label : "");
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
	struct tracedat *td = f->td;
	int top = tracedat_find_buffer(td, "");
	const struct tracedat_buffer *b;

	kt_out_printf(r->out, "List of CPUs in %s with data:\n", f->arg->path);
	if (top < 0)
		return 0;
	b = tracedat_buffer(td, (size_t)top);
	for (unsigned cpu = 0; cpu < f->ncpus; cpu++) {
		const struct tracedat_record *rec;
		struct tracedat_iter *it;
		uint64_t first = 0, last = 0;
		bool any = false;
		int ret;

		if (b->latency)
			break;
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
		tracedat_iter_free(it);
		if (ret < 0)
			return ret;
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
	size_t n = ktrace_events_count(f->evs);
	const struct ktrace_event **v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		return ktrace_error_set(r->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		v[i] = ktrace_events_at(f->evs, i);
	qsort(v, n, sizeof(*v), cmp_events);
	for (size_t i = 0; i < n; i++)
		kt_out_printf(r->out, "%s:%s\n", ktrace_event_system(v[i]), ktrace_event_name(v[i]));
	free(v);
	return 0;
}

static int list_funcs(struct report *r, struct rfile *f)
{
	size_t n = ktrace_events_function_count(f->evs);

	for (size_t i = 0; i < n; i++) {
		uint64_t addr;
		const char *name, *mod;

		ktrace_events_function_at(f->evs, i, &addr, &name, &mod);
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
	size_t n = ktrace_events_printk_count(f->evs);

	for (size_t i = 0; i < n; i++) {
		uint64_t addr;
		const char *fmt;

		ktrace_events_printk_at(f->evs, i, &addr, &fmt);
		kt_out_hex(r->out, addr, 16);
		kt_out_putc(r->out, ' ');
		kt_out_puts(r->out, fmt);
		kt_out_putc(r->out, '\n');
	}
	return 0;
}

/* -T: libtraceevent prints each filter as it is added, then trace-cmd exits. */
static void filter_test(struct report *r, struct rfile *f)
{
	const struct ktrace_tdreport_file *a = f->arg;
	size_t ip = 0, in = 0;

	for (size_t k = 0; k < a->nfilters; k++) {
		struct ktrace_filter *flt = a->filters[k].negative ? f->neg[in++] : f->pos[ip++];
		size_t n = ktrace_filter_event_count(flt);

		for (size_t i = 0; i < n; i++) {
			const struct ktrace_event *ev = ktrace_filter_event(flt, i);
			char *s = ktrace_filter_string(flt, ktrace_event_id(ev));

			if (s) {
				kt_out_printf(r->out, " '%s: %s'\n", ktrace_event_name(ev), s);
				free(s);
			}
		}
	}
}

/* --stat */
static void print_stats(struct report *r, struct rfile *f)
{
	struct tracedat *td = f->td;
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
	for (unsigned i = 0; i < f->ncpus && i < tracedat_buffer(td, (size_t)top)->cpus; i++) {
		const struct tracedat_cpu *c = tracedat_buffer_cpu(td, (size_t)top, i);

		kt_out_printf(r->out, "CPU%u data recorded at offset=0x%" PRIx64 "\n", i, c->offset);
		kt_out_printf(r->out, "    %" PRIu64 " bytes in size\n", c->size);
	}
}

/* ---- driver ---- */

static void close_all(struct report *r)
{
	for (size_t i = 0; i < r->nstreams; i++)
		tracedat_iter_free(r->streams[i].it);
	free(r->streams);
	for (size_t i = 0; i < r->nfiles; i++) {
		struct rfile *f = &r->files[i];

		for (size_t k = 0; k < f->npos; k++)
			ktrace_filter_free(f->pos[k]);
		for (size_t k = 0; k < f->nneg; k++)
			ktrace_filter_free(f->neg[k]);
		free(f->pos);
		free(f->neg);
		free(f->last_printed);
		if (f->evs)
			ktrace_events_free(f->evs);
		if (f->td)
			tracedat_close(f->td);
	}
	free(r->files);
	free(r->big);
	free(r->copy);
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

static int add_stream(struct report *r, struct rfile *f, size_t buffer)
{
	const struct tracedat_buffer *b = tracedat_buffer(f->td, buffer);
	struct rstream *s = &r->streams[r->nstreams];
	int ret;

	memset(s, 0, sizeof(*s));
	s->f = f;
	s->buffer = (unsigned)buffer;
	s->label = *b->name ? b->name : (r->o->multi ? f->base : "");
	s->page_size = b->page_size;
	s->map_size = map_window(f->td, buffer);
	if (s->map_size & (s->map_size - 1))
		s->map_size = 0;
	ret = tracedat_iter_new(f->td, (int)buffer, -1, &s->it, r->err);
	if (ret) {
		*r->err_file = f->arg->path;
		return ret;
	}
	r->nstreams++;
	return advance(r, s);
}

static int run_records(struct report *r)
{
	const struct ktrace_tdreport_opts *o = r->o;
	int ret = 0;

	r->flush_mark = 0;
	if (o->progress)
		clock_gettime(CLOCK_MONOTONIC, &r->last_progress);
	for (;;) {
		struct rstream *best = NULL;

		if (r->nstreams == 1) {
			best = r->streams[0].head ? &r->streams[0] : NULL;
		} else {
			for (size_t i = 0; i < r->nstreams; i++) {
				struct rstream *s = &r->streams[i];

				if (s->head && (!best || s->head->ts < best->head->ts))
					best = s;
			}
		}
		if (!best)
			break;
		if (o->progress && !(++r->done & 0xffff))
			progress(r, best->head);
		ret = print_head(r, best);
		if (ret)
			break;
		if (o->line_flush && r->out->len >= 4096)
			kt_out_flush(r->out);
		if (r->out->error)
			break;
	}
	return ret;
}

int ktrace_view_tracedat_report(const struct ktrace_tdreport_opts *o, struct kt_out *out,
				struct ktrace_error *err, const char **err_file)
{
	struct report r = { 0 };
	const char *dummy;
	size_t nbufs = 0;
	int ret = 0;

	r.o = o;
	r.out = out;
	r.err = err;
	r.err_file = err_file ? err_file : &dummy;
	*r.err_file = NULL;
	r.files = calloc(o->nfiles ? o->nfiles : 1, sizeof(*r.files));
	if (!r.files)
		return ktrace_error_set(err, -ENOMEM, "out of memory");

	/* trace-cmd opens every file before printing anything; the listing options print
	 * from the first file only */
	for (size_t i = 0; i < o->nfiles; i++) {
		struct rfile *f = &r.files[i];

		ret = open_file(&r, f, &o->files[i]);
		r.nfiles = i + 1;
		if (ret)
			goto out;
		if (o->debug)
			kt_out_printf(out, "version = %u\n", tracedat_header(f->td)->version);
		switch (o->mode) {
		case KTRACE_TDREPORT_EVENTS:
			ret = list_events(&r, f);
			goto out;
		case KTRACE_TDREPORT_PRINTK:
			ret = list_printk(&r, f);
			goto out;
		case KTRACE_TDREPORT_FUNCS:
			ret = list_funcs(&r, f);
			goto out;
		case KTRACE_TDREPORT_CPUS:
			ret = list_cpus(&r, f);
			if (ret)
				goto out;
			continue;
		default:
			break;
		}
		if (o->multi) {
			int w = (int)strlen(f->base);

			if (w > r.width)
				r.width = w;
		}
		nbufs += tracedat_buffer_count(f->td);
	}
	if (o->mode == KTRACE_TDREPORT_CPUS)
		goto out;

	r.streams = calloc(nbufs ? nbufs : 1, sizeof(*r.streams));
	if (!r.streams) {
		ret = ktrace_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* trace-cmd's read_data_info: per file "cpus=N" (and the statistics), then the
	 * instances join the list of buffers */
	{
		size_t instances = 0;

		for (size_t i = 0; i < r.nfiles; i++) {
			struct rfile *f = &r.files[i];
			int top = tracedat_find_buffer(f->td, "");

			ret = add_filters(&r, f);
			if (ret)
				goto out;
			if (o->mode == KTRACE_TDREPORT_FILTER_TEST && (f->npos || f->nneg)) {
				filter_test(&r, f);
				goto out;
			}
			put_file_prefix(&r, f->base, o->multi || instances);
			kt_out_printf(out, "cpus=%u\n", f->ncpus);
			if (top >= 0 && tracedat_buffer(f->td, (size_t)top)->latency) {
				if (o->multi) {
					ret = ktrace_error_set(err, -EINVAL,
							       "latency traces do not work with multiple inputs");
					*r.err_file = f->arg->path;
					goto out;
				}
				*r.err_file = f->arg->path;
				ret = tracedat_latency_text(f->td, (size_t)top, latency_cb, out, err);
				if (!ret)
					kt_out_putc(out, '\n');
				goto out;
			}
			switch (o->mode) {
			case KTRACE_TDREPORT_STAT:
				print_stats(&r, f);
				continue;
			case KTRACE_TDREPORT_UNAME:
				kt_out_puts(out, tracedat_uname(f->td) ? tracedat_uname(f->td)
					    : " uname was not recorded in this file");
				kt_out_putc(out, '\n');
				/* fall through - trace-cmd prints the version too */
			case KTRACE_TDREPORT_VERSION: {
				const char *v = tracedat_tracer_version(f->td);

				kt_out_puts(out, v ? v : " version was not recorded in this file");
				kt_out_putc(out, '\n');
				continue;
			}
			default:
				break;
			}
			if (top >= 0) {
				ret = add_stream(&r, f, (size_t)top);
				if (ret)
					goto out;
			}
			instances = f->ninstances;
			/* the instances' handles join trace-cmd's list (and the width of the
			 * names) after their file's "cpus=" line */
			for (size_t b = 0; b < tracedat_buffer_count(f->td); b++) {
				const struct tracedat_buffer *buf = tracedat_buffer(f->td, b);
				int w = (int)strlen(buf->name);

				if (*buf->name && !buf->latency && w > r.width)
					r.width = w;
			}
		}
		if (o->mode != KTRACE_TDREPORT_RECORDS && o->mode != KTRACE_TDREPORT_FILTER_TEST)
			goto out;
		for (size_t i = 0; i < r.nfiles; i++) {
			struct rfile *f = &r.files[i];

			for (size_t b = 0; b < tracedat_buffer_count(f->td); b++) {
				const struct tracedat_buffer *buf = tracedat_buffer(f->td, b);

				if (!*buf->name || buf->latency)
					continue;
				ret = add_stream(&r, f, b);
				if (ret)
					goto out;
			}
		}
		r.prefix = o->multi || instances;
	}
	r.total_bytes = 0;
	if (r.nfiles == 1)
		r.total_bytes = tracedat_header(r.files[0].td)->file_size;
	ret = run_records(&r);
out:
	if (r.progress_shown) {
		static const char clear[] = "\r                                                  \r";

		ssize_t w = write(STDERR_FILENO, clear, sizeof(clear) - 1);

		(void)w;
	}
	close_all(&r);
	return ret;
}
