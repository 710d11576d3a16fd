// SPDX-License-Identifier: MIT
/*
 * A trace.dat file cut into pieces (tracedat_split, ktrace split): each piece is a
 * file of its own with every piece of metadata and every option of the input, and the
 * records of a stretch of it, written anew into sub-buffers (tracedat_encode.c) in the
 * buffer and CPU they came from. The records' raw timestamps are kept, so the options
 * that correct them (offsets, tsc2nsec, guests' time shifts) apply as in the input.
 *
 * A stretch ends, as in trace-cmd split, after a number of seconds (milliseconds,
 * microseconds) from its first record, after a number of records, or, per CPU, after a
 * number of sub-buffers; the record that does not fit begins the next piece. In the
 * per-CPU mode each CPU counts its own units. While a piece is written, its
 * sub-buffers wait in a temporary file per buffer and CPU next to the output.
 *
 * A report learns task names from sched_switch and sched_wakeup records as it prints
 * them (libtraceevent's sched plugin registers the names of pids the saved command
 * lines lack), and uses them on later lines. So that a piece's report shows the names
 * the whole file's report shows, the names the records of the earlier pieces teach are
 * added to the piece's saved command lines.
 */
#include <ktrace/event.h>
#include <ktrace/tracedat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/opts.h"
#include "common/outfile.h"
#include "tracedat/tracedat_int.h"

struct stream {
	size_t buffer, cpu_index;
	unsigned int cpu;
	struct td_pages pages;
	int fd;
	/* per-CPU mode: this CPU's own iterator and record waiting for the next piece */
	struct tracedat_iter *it;
	const struct tracedat_record *held;
	bool done;
};

/* Names taught by sched records, as "pid comm" lines. */
struct learn {
	struct ktrace_events *evs;
	const struct ktrace_event *sw, *wk, *wkn;
	int prev_pid, prev_comm, next_pid, next_comm, wk_pid, wk_comm, wkn_pid, wkn_comm;
	char *text;
	size_t len, cap;
};

struct split {
	struct tracedat *td;
	struct learn learn;
	const struct tracedat_split_opts *o;
	struct tracedat_write_opts wo;
	struct ktrace_error *err;
	char dir[PATH_MAX];
	struct stream *streams;       /* one per buffer and CPU entry */
	size_t nstreams;
	size_t *first;                /* per buffer: its first stream */
	unsigned long_size;
	bool big_endian;
};

static uint64_t unit_ns(enum tracedat_split_unit u)
{
	switch (u) {
	case TRACEDAT_SPLIT_SECONDS: return 1000000000ull;
	case TRACEDAT_SPLIT_MSECS: return 1000000ull;
	case TRACEDAT_SPLIT_USECS: return 1000ull;
	default: return 0;
	}
}

/* A registry of the file's formats and command lines, and the fields to learn from. */
static void learn_init(struct split *sp)
{
	const struct tracedat_header *h = tracedat_header(sp->td);
	struct learn *l = &sp->learn;
	struct ktrace_error ignore = { 0 };
	const char *t;
	size_t len;

	l->evs = ktrace_event_new((int)h->long_size, h->big_endian);
	if (!l->evs)
		return;
	if (tracedat_header_page(sp->td, &t, &len) == 0)
		ktrace_event_parse_header_page(l->evs, t, len, &ignore);
	for (size_t s = 0; s < tracedat_system_count(sp->td); s++) {
		if (strcmp(tracedat_system_name(sp->td, s), "sched"))
			continue;
		for (size_t i = 0; i < tracedat_system_event_count(sp->td, s); i++)
			if (tracedat_event_format(sp->td, s, i, &t, &len) == 0)
				ktrace_event_add_format(l->evs, "sched", t, len, NULL, &ignore);
	}
	if (tracedat_cmdlines_size(sp->td) >= 0 && tracedat_cmdlines(sp->td, &t, &len, &ignore) == 0)
		ktrace_event_parse_cmdlines(l->evs, t, len, &ignore);
	l->sw = ktrace_event_find_by_name(l->evs, "sched", "sched_switch");
	l->wk = ktrace_event_find_by_name(l->evs, "sched", "sched_wakeup");
	l->wkn = ktrace_event_find_by_name(l->evs, "sched", "sched_wakeup_new");
	l->prev_pid = ktrace_event_field_index(l->sw, "prev_pid");
	l->prev_comm = ktrace_event_field_index(l->sw, "prev_comm");
	l->next_pid = ktrace_event_field_index(l->sw, "next_pid");
	l->next_comm = ktrace_event_field_index(l->sw, "next_comm");
	l->wk_pid = ktrace_event_field_index(l->wk, "pid");
	l->wk_comm = ktrace_event_field_index(l->wk, "comm");
	l->wkn_pid = ktrace_event_field_index(l->wkn, "pid");
	l->wkn_comm = ktrace_event_field_index(l->wkn, "comm");
}

static void learn_pair(struct learn *l, const struct ktrace_event *ev, int pid_field, int comm_field,
		       const struct ktrace_record *kr)
{
	struct ktrace_event_value v;
	uint64_t pid;
	char line[64];
	int n;

	if (pid_field < 0 || comm_field < 0 ||
	    ktrace_event_field_number(l->evs, ev, (size_t)pid_field, kr, &pid) ||
	    ktrace_event_field_value(l->evs, ev, (size_t)comm_field, kr, &v) ||
	    v.type != KTRACE_EVENT_STRING)
		return;
	/* libtraceevent registers a name only for a pid it has none for */
	if (strcmp(ktrace_event_comm(l->evs, (int)pid), "<...>"))
		return;
	n = snprintf(line, sizeof(line), "%d %.*s\n", (int)pid, (int)(v.len < 32 ? v.len : 32),
		     (const char *)v.data);
	if (n <= 0 || (size_t)n >= sizeof(line) || memchr(line, 0, (size_t)n - 1))
		return;
	if (l->len + (size_t)n > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		char *t;

		while (cap < l->len + (size_t)n)
			cap *= 2;
		t = kt_realloc_array(l->text, cap, 1);
		if (!t)
			return;
		l->text = t;
		l->cap = cap;
	}
	memcpy(l->text + l->len, line, (size_t)n);
	l->len += (size_t)n;
	line[n - 1] = 0;
	ktrace_event_register_comm(l->evs, (int)pid, strchr(line, ' ') + 1);
}

/* The names a record teaches a report. */
static void learn_record(struct split *sp, const struct tracedat_record *rec)
{
	struct learn *l = &sp->learn;
	struct ktrace_record kr = { .data = rec->data, .size = rec->size, .cpu = (int)rec->cpu,
				    .ts = rec->ts };
	const struct ktrace_event *ev;

	if (!l->evs || !(l->sw || l->wk || l->wkn))
		return;
	ev = ktrace_event_record_event(l->evs, &kr);
	if (!ev)
		return;
	if (ev == l->sw) {
		learn_pair(l, ev, l->prev_pid, l->prev_comm, &kr);
		learn_pair(l, ev, l->next_pid, l->next_comm, &kr);
	} else if (ev == l->wk) {
		learn_pair(l, ev, l->wk_pid, l->wk_comm, &kr);
	} else if (ev == l->wkn) {
		learn_pair(l, ev, l->wkn_pid, l->wkn_comm, &kr);
	}
}

static struct stream *stream_of(struct split *sp, const struct tracedat_record *rec)
{
	return &sp->streams[sp->first[rec->buffer] + rec->cpu_index];
}

/* Empties every stream's temporary file for a new piece. */
static int reset_streams(struct split *sp)
{
	for (size_t i = 0; i < sp->nstreams; i++) {
		struct stream *s = &sp->streams[i];

		if (s->fd < 0) {
			s->fd = kt_outfile_anonymous(sp->dir);
			if (s->fd < 0)
				return ktrace_error_set(sp->err, s->fd, "%s: cannot create a temporary file "
							"in %s: %s", sp->o->output, sp->dir, strerror(-s->fd));
			if (td_pages_init(&s->pages, s->fd,
					  tracedat_buffer(sp->td, s->buffer)->page_size, sp->long_size,
					  sp->big_endian))
				return kt_error_oom(sp->err);
		}
		if (ftruncate(s->fd, 0) < 0 || lseek(s->fd, 0, SEEK_SET) < 0)
			return ktrace_error_set(sp->err, -errno, "%s: temporary file: %s", sp->o->output,
						strerror(errno));
		s->pages.bytes = s->pages.pages = 0;
		s->pages.open = false;
		s->pages.used = 0;
	}
	return 0;
}

static int add_record(struct split *sp, struct stream *s, const struct tracedat_record *rec)
{
	int ret = td_pages_add(&s->pages, rec->raw_ts, rec->data, rec->size, rec->missed_events);

	learn_record(sp, rec);
	if (ret == -EINVAL)
		return ktrace_error_set(sp->err, ret, "a record of %u bytes does not fit a sub-buffer of "
					"%u bytes", rec->size, s->pages.page_size);
	if (ret)
		return ktrace_error_set(sp->err, ret, "%s: writing a temporary file: %s", sp->o->output,
					strerror(-ret));
	return 0;
}

/* The piece's file: metadata, options (with the names learnt before the piece began:
 * learned bytes of the learnt lines), buffers, then each stream's pages. */
static int write_piece(struct split *sp, const char *path, size_t learned)
{
	size_t nbufs = tracedat_buffer_count(sp->td);
	struct tracedat_writer *w;
	int *index = calloc(nbufs ? nbufs : 1, sizeof(*index));
	int ret;

	if (!index)
		return kt_error_oom(sp->err);
	for (size_t i = 0; i < sp->nstreams; i++) {
		ret = td_pages_flush(&sp->streams[i].pages);
		if (ret) {
			free(index);
			return ktrace_error_set(sp->err, ret, "%s: writing a temporary file: %s",
						sp->o->output, strerror(-ret));
		}
	}
	ret = tracedat_writer_create(path, &sp->wo, &w, sp->err);
	if (ret) {
		free(index);
		return ret;
	}
	ret = td_copy_layout(sp->td, w, index, sp->learn.text, learned, sp->err);
	for (size_t i = 0; i < sp->nstreams && !ret; i++) {
		struct stream *s = &sp->streams[i];

		if (!s->pages.bytes)
			continue;
		ret = tracedat_writer_cpu_begin(w, (unsigned int)index[s->buffer], s->cpu, sp->err);
		if (!ret)
			ret = tracedat_writer_cpu_copy_fd(w, s->fd, 0, s->pages.bytes, sp->err);
		if (!ret)
			ret = tracedat_writer_cpu_end(w, sp->err);
	}
	free(index);
	if (ret) {
		tracedat_writer_abort(w);
		return ret;
	}
	return tracedat_writer_close(w, sp->err);
}

static void piece_name(const struct split *sp, unsigned n, char *out, size_t len)
{
	if (sp->o->repeat)
		snprintf(out, len, "%s.%04u", sp->o->output, n);
	else
		snprintf(out, len, "%s.1", sp->o->output);
}

/* Whether rec ends the piece that began at t0 with count records so far. */
static bool beyond(const struct split *sp, const struct tracedat_record *rec, uint64_t t0, uint64_t count)
{
	uint64_t span = unit_ns(sp->o->unit);

	if (span)
		return rec->ts > t0 + sp->o->count * span;
	if (sp->o->unit == TRACEDAT_SPLIT_EVENTS)
		return count >= sp->o->count;
	return false;
}

static int next(struct split *sp, struct tracedat_iter *it, const struct tracedat_record **rec)
{
	for (;;) {
		int ret = tracedat_iter_next(it, rec, sp->err);

		if (ret <= 0)
			return ret;
		if ((*rec)->ts >= sp->o->start)
			return 1;
	}
}

/* All CPUs merged: a stretch of records in time order per piece. */
static int split_merged(struct split *sp)
{
	const struct tracedat_split_opts *o = sp->o;
	const struct tracedat_record *held = NULL;
	struct tracedat_iter *it;
	unsigned piece = 0;
	bool eof = false;
	int ret;

	ret = tracedat_iter_new(sp->td, TRACEDAT_ALL_BUFFERS, o->cpu, &it, sp->err);
	if (ret)
		return ret;
	do {
		char path[PATH_MAX + 16];
		uint64_t n = 0, t0 = 0;
		size_t learned = sp->learn.len;

		if ((ret = reset_streams(sp)))
			goto out;
		for (;;) {
			const struct tracedat_record *rec = held;

			held = NULL;
			if (!rec) {
				ret = next(sp, it, &rec);
				if (ret < 0)
					goto out;
				if (!ret) {
					eof = true;
					break;
				}
			}
			if (o->end && rec->ts > o->end) {
				eof = true;
				break;
			}
			if (!n)
				t0 = !piece && o->start ? o->start : rec->ts;
			else if (beyond(sp, rec, t0, n)) {
				held = rec;
				break;
			}
			if ((ret = add_record(sp, stream_of(sp, rec), rec)))
				goto out;
			n++;
		}
		/* an empty piece only when there is nothing at all */
		if (!n && piece)
			break;
		piece_name(sp, ++piece, path, sizeof(path));
		if ((ret = write_piece(sp, path, learned)))
			goto out;
		if (o->piece)
			o->piece(o->arg, path, n);
	} while (o->repeat && !eof && held);
	ret = 0;
out:
	tracedat_iter_free(it);
	return ret < 0 ? ret : (int)piece;
}

/* Each CPU on its own: up to count units of every CPU per piece. */
static int split_per_cpu(struct split *sp)
{
	const struct tracedat_split_opts *o = sp->o;
	unsigned piece = 0;
	int ret = 0;

	for (size_t i = 0; i < sp->nstreams; i++) {
		struct stream *s = &sp->streams[i];

		if (o->cpu >= 0 && s->cpu != (unsigned)o->cpu) {
			s->done = true;
			continue;
		}
		ret = tracedat_iter_new(sp->td, (int)s->buffer, (int)s->cpu, &s->it, sp->err);
		if (ret)
			return ret;
	}
	for (;;) {
		char path[PATH_MAX + 16];
		uint64_t total = 0;
		size_t learned = sp->learn.len;
		bool more = false;

		if ((ret = reset_streams(sp)))
			return ret;
		for (size_t i = 0; i < sp->nstreams; i++) {
			struct stream *s = &sp->streams[i];
			uint64_t n = 0, t0 = 0;

			while (!s->done) {
				const struct tracedat_record *rec = s->held;

				s->held = NULL;
				if (!rec) {
					ret = next(sp, s->it, &rec);
					if (ret < 0)
						return ret;
					if (!ret) {
						s->done = true;
						break;
					}
				}
				if (o->end && rec->ts > o->end) {
					s->done = true;
					break;
				}
				if (!n)
					t0 = !piece && o->start ? o->start : rec->ts;
				else if (beyond(sp, rec, t0, n) ||
					 (o->unit == TRACEDAT_SPLIT_PAGES &&
					  td_pages_starts_page(&s->pages, rec->raw_ts, rec->size, rec->missed_events) &&
					  s->pages.pages + 1 >= o->count)) {
					s->held = rec;
					break;
				}
				if ((ret = add_record(sp, s, rec)))
					return ret;
				n++;
			}
			total += n;
			more |= !s->done;
		}
		if (!total && piece)
			break;
		piece_name(sp, ++piece, path, sizeof(path));
		if ((ret = write_piece(sp, path, learned)))
			return ret;
		if (o->piece)
			o->piece(o->arg, path, total);
		if (!o->repeat || !more)
			break;
	}
	return (int)piece;
}

int tracedat_split(struct tracedat *td, const struct tracedat_split_opts *opts,
		   struct ktrace_error *err)
{
	const struct tracedat_header *h = tracedat_header(td);
	size_t nbufs = tracedat_buffer_count(td);
	struct tracedat_split_opts copy;
	const struct tracedat_split_opts *o = &copy;
	struct split sp = { .td = td, .o = o, .err = err };
	const char *slash;
	int ret;

	if ((ret = KT_OPTS_COPY(&copy, opts, "tracedat_split_opts", err)))
		return ret;
	if (!o->output || !*o->output)
		return ktrace_error_set(err, -EINVAL, "no output name");
	if (o->unit != TRACEDAT_SPLIT_NONE && !o->count)
		return ktrace_error_set(err, -EINVAL, "units must be greater than 0");
	if (o->end && o->end < o->start)
		return ktrace_error_set(err, -EINVAL, "the end is before the start");
	if (h->old_format)
		return ktrace_error_set(err, -ENOTSUP, "files of the pre-2.6.31 ring buffer cannot be split");
	for (size_t i = 0; i < nbufs; i++)
		if (tracedat_buffer(td, i)->latency)
			return ktrace_error_set(err, -ENOTSUP, "latency traces (text) cannot be split");
	/* pieces are whole or not made: damage found at open (told) ends it */
	if (tracedat_damage_count(td)) {
		if (err)
			*err = *tracedat_damage(td, 0);
		return tracedat_damage(td, 0)->code;
	}
	/* temporary files next to the pieces */
	slash = strrchr(o->output, '/');
	if (slash && slash != o->output)
		snprintf(sp.dir, sizeof(sp.dir), "%.*s", (int)(slash - o->output), o->output);
	else
		snprintf(sp.dir, sizeof(sp.dir), "%s", slash ? "/" : ".");
	if ((ret = KT_OPTS_COPY(&sp.wo, o->wopts, "tracedat_write_opts", err)))
		return ret;
	if (!o->wopts) {
		sp.wo.version = h->version;
		sp.wo.compression = h->compression;
	}
	tracedat_write_opts_from(td, &sp.wo);
	sp.long_size = h->kernel_long_size;
	sp.big_endian = h->big_endian;
	sp.first = calloc(nbufs ? nbufs : 1, sizeof(*sp.first));
	if (!sp.first)
		return kt_error_oom(err);
	for (size_t i = 0; i < nbufs; i++) {
		sp.first[i] = sp.nstreams;
		sp.nstreams += tracedat_buffer(td, i)->cpus;
	}
	sp.streams = calloc(sp.nstreams ? sp.nstreams : 1, sizeof(*sp.streams));
	if (!sp.streams) {
		free(sp.first);
		return kt_error_oom(err);
	}
	for (size_t i = 0, k = 0; i < nbufs; i++) {
		for (size_t c = 0; c < tracedat_buffer(td, i)->cpus; c++, k++) {
			sp.streams[k].buffer = i;
			sp.streams[k].cpu_index = c;
			sp.streams[k].cpu = tracedat_buffer_cpu(td, i, c)->cpu;
			sp.streams[k].fd = -1;
		}
	}
	learn_init(&sp);
	if (o->per_cpu || o->unit == TRACEDAT_SPLIT_PAGES)
		ret = split_per_cpu(&sp);
	else
		ret = split_merged(&sp);
	for (size_t i = 0; i < sp.nstreams; i++) {
		td_pages_free(&sp.streams[i].pages);
		if (sp.streams[i].fd >= 0)
			close(sp.streams[i].fd);
		tracedat_iter_free(sp.streams[i].it);
	}
	free(sp.streams);
	free(sp.first);
	ktrace_event_free(sp.learn.evs);
	free(sp.learn.text);
	return ret;
}
