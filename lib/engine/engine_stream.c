// SPDX-License-Identifier: MIT
/*
 * The event stream (<ktrace/stream.h>): opens every input with the source of its
 * format, and merges the sources' records in time order (ties: the earlier input).
 */
#include <ktrace/stream.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/check.h"
#include "common/cpus.h"
#include "common/arena.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "common/opts.h"
#include "common/livefile.h"
#include "common/outfile.h"
#include "engine/engine.h"
#include "engine/engine_stream_int.h"
#include "event/event_share.h"

struct ktrace_stream {
	struct ktrace_stream_opts o;
	struct kt_source **src;
	size_t nsrc;
	struct kt_source *cur;              /* the source of the current record */
	struct ktrace_stream_source **info; /* per input, by index */
	size_t ninfo;
	struct ktrace_stream_task_info *tasks;
	size_t ntasks, cap_tasks;
	struct kt_arena strings;            /* what the stream keeps for its whole life */
	struct kt_strtab interned;          /* kt_stream_intern's set */
	const char *err_path;
	bool failed;
	/* inputs that cannot be read twice (standard input, FIFOs), copied to anonymous
	 * files read through /proc/self/fd: per input, the copy's fd (-1 none), the path
	 * the readers open and the name the user gave */
	int *spool_fd;
	char **spool_path;
	const char **reopen;                /* per input: what another stream opens */
	const char **given;           /* the names shown for the inputs (the caller's) */
	const char **opened;          /* the paths the readers were given (the caller's) */
	/* read-ahead: the reading thread owns everything above but the tables; the
	 * caller's thread has the current copy and its own error state */
	_Alignas(128) struct kt_readahead *ra;
	const struct ktrace_stream_record *snap_rec;
	const struct kt_source *snap_src;
	const void *snap_data;
	const char *ra_err_path;
	bool ra_failed;
	struct kt_sched_cache sched;        /* ktrace_stream_sched's, the caller's thread */
};

const struct ktrace_stream_opts *kt_stream_opts(const struct ktrace_stream *s)
{
	return &s->o;
}

void *kt_stream_alloc(struct ktrace_stream *s, size_t size)
{
	return kt_arena_alloc(&s->strings, size, 8);
}

const char *kt_stream_strdup(struct ktrace_stream *s, const char *str, size_t len)
{
	return kt_arena_strdup(&s->strings, str, len);
}

const char *kt_stream_intern(struct ktrace_stream *s, const char *str)
{
	return kt_intern(&s->interned, str, strlen(str));
}

struct ktrace_stream_source *kt_stream_add_info(struct ktrace_stream *s, uint32_t index,
						const char *path, enum ktrace_format format)
{
	struct ktrace_stream_source *i;

	if (index >= s->ninfo)
		return NULL;
	i = calloc(1, sizeof(*i));
	if (!i)
		return NULL;
	i->path = path;
	i->format = format;
	i->sysname = i->release = i->version = i->machine = i->clock = i->nodename = "";
	free(s->info[index]);
	s->info[index] = i;
	return i;
}

void kt_stream_set_err_path(struct ktrace_stream *s, const char *path)
{
	s->err_path = path;
}

int kt_stream_add_task(struct ktrace_stream *s, uint32_t source, int64_t tid, int64_t pid,
		       const char *comm)
{
	struct ktrace_stream_task_info *t;

	if (kt_grow((void **)&s->tasks, &s->cap_tasks, s->ntasks + 1, sizeof(*s->tasks)))
		return -ENOMEM;
	t = &s->tasks[s->ntasks];
	t->source = source;
	t->tid = tid;
	t->pid = pid;
	t->comm = comm ? kt_stream_strdup(s, comm, strlen(comm)) : "";
	if (!t->comm)
		return -ENOMEM;
	s->ntasks++;
	return 0;
}

/* trace-cmd's "sysname nodename release machine", or uname -a's "sysname nodename
 * release version... machine". */
void kt_stream_set_uname(struct ktrace_stream *s, struct ktrace_stream_source *info,
			 const char *uname)
{
	const char *w[4] = { 0 }, *p = uname, *last = NULL, *last_end = NULL;
	size_t wl[4] = { 0 };
	int n = 0;

	if (!uname || !*uname)
		return;
	while (*p) {
		const char *start;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		start = p;
		while (*p && *p != ' ')
			p++;
		if (n < 4) {
			w[n] = start;
			wl[n] = (size_t)(p - start);
		}
		n++;
		last = start;
		last_end = p;
	}
	if (n >= 1)
		info->sysname = kt_stream_strdup(s, w[0], wl[0]);
	if (n >= 2)
		info->nodename = kt_stream_strdup(s, w[1], wl[1]);
	if (n >= 3)
		info->release = kt_stream_strdup(s, w[2], wl[2]);
	if (n >= 4)
		info->machine = kt_stream_strdup(s, last, (size_t)(last_end - last));
	if (n >= 5)   /* the version is everything between the release and the machine */
		info->version = kt_stream_strdup(s, w[3], (size_t)(last - w[3]) - 1);
	if (!info->sysname)
		info->sysname = "";
	if (!info->release)
		info->release = "";
	if (!info->machine)
		info->machine = "";
	if (!info->version)
		info->version = "";
	if (!info->nodename)
		info->nodename = "";
}

int kt_stream_generic_line(const struct ktrace_stream_record *r, const char *text, char *buf,
			   size_t len)
{
	char comm[32], cpu[16];
	const char *name = r->name && *r->name ? r->name : "(unknown)";
	uint64_t us = r->ts / 1000 + (r->ts % 1000 >= 500);

	if (r->kind == KTRACE_STREAM_LOST)
		return r->lost ? snprintf(buf, len, "CPU:%d [%llu EVENTS DROPPED]", r->cpu,
					  (unsigned long long)r->lost)
			       : snprintf(buf, len, "CPU:%d [EVENTS DROPPED]", r->cpu);
	snprintf(comm, sizeof(comm), "%s", r->comm && *r->comm ? r->comm : "<...>");
	if (r->cpu < 0)
		snprintf(cpu, sizeof(cpu), "---");
	else
		snprintf(cpu, sizeof(cpu), "%03d", r->cpu);
	return snprintf(buf, len, "%16s-%-5lld [%s] %5llu.%06llu: %-20s %s", comm,
			(long long)r->tid, cpu, (unsigned long long)(us / 1000000),
			(unsigned long long)(us % 1000000), name, text ? text : "");
}

static void free_stream(struct ktrace_stream *s)
{
	for (size_t i = 0; i < s->nsrc; i++)
		if (s->src[i])
			s->src[i]->ops->close(s->src[i]);
	free(s->src);
	for (size_t i = 0; s->spool_fd && i < s->ninfo; i++)
		if (s->spool_fd[i] >= 0)
			close(s->spool_fd[i]);
	for (size_t i = 0; s->spool_path && i < s->ninfo; i++)
		free(s->spool_path[i]);
	free(s->spool_fd);
	free(s->spool_path);
	free(s->reopen);
	free(s->given);
	free(s->opened);
	for (size_t i = 0; i < s->ninfo; i++)
		free(s->info[i]);
	free(s->info);
	free(s->tasks);
	kt_strtab_free(&s->interned);
	kt_arena_free(&s->strings);
	free(s);
}

/* The caller's own string for a path the readers were given: the name the user gave
 * for input i (paths[i] of ktrace_stream_open, also for its spooled copy), or the
 * options' events directory or codes file; NULL when path is none of them. Errors hand
 * out only these, never a source's copy, which goes with the stream (a stream that
 * fails to open is freed before the caller prints its error). */
static const char *caller_path(const struct ktrace_stream *s, const char *path)
{
	if (!path)
		return NULL;
	for (size_t i = 0; s->given && i < s->ninfo; i++)
		if (path == s->given[i] || (s->given[i] && !strcmp(path, s->given[i])) ||
		    (s->opened && s->opened[i] && !strcmp(path, s->opened[i])) ||
		    (s->spool_path && s->spool_path[i] && !strcmp(path, s->spool_path[i])))
			return s->given[i];
	if (s->o.events_dir && !strcmp(path, s->o.events_dir))
		return s->o.events_dir;
	if (s->o.codes_file && !strcmp(path, s->o.codes_file))
		return s->o.codes_file;
	return NULL;
}

/* The path an error concerns, as the caller's own string (caller_path); a path that is
 * not one is written into the error's message instead, which the caller owns. */
static const char *error_path(const struct ktrace_stream *s, const char *path,
			      struct ktrace_error *err)
{
	const char *p = caller_path(s, path);

	if (!p && path && err) {
		size_t n = strlen(err->message);

		snprintf(err->message + n, sizeof(err->message) - n, " (in %s)", path);
	}
	return p;
}

/* The name the user gave for a path the readers were given (info's path). */
static const char *shown(const struct ktrace_stream *s, const char *path)
{
	const char *p = caller_path(s, path);

	return p ? p : path;
}

const char *kt_stream_shown(const struct ktrace_stream *s, const char *path)
{
	return shown(s, path);
}

/* Input i, when it is standard input or a FIFO (its format is looked at first, then its
 * reader opens it again): copied to an anonymous file (engine/engine.h), which the
 * readers open as /proc/self/fd/N. 0, or a negative code. */
static int spool(struct ktrace_stream *s, size_t i, const char *path, struct ktrace_error *err)
{
	int ret;

	/* standard input from a live tracefs file: copying it would consume it */
	if (!strcmp(path, "-") && kt_refuse_live_tracefs(STDIN_FILENO, NULL, err))
		return -EPERM;
	ret = kt_spool_once(path, &s->spool_fd[i], err);
	if (ret || s->spool_fd[i] < 0)
		return ret;
	if (asprintf(&s->spool_path[i], "/proc/self/fd/%d", s->spool_fd[i]) < 0) {
		s->spool_path[i] = NULL;
		return kt_error_oom(err);
	}
	return 0;
}

/* The format of each input, from its first bytes. */
static int detect(const char *path, enum ktrace_format *fmt, struct ktrace_error *err)
{
	struct ktrace_input *in;
	const uint8_t *head;
	int64_t got;
	int ret = ktrace_input_open(path, &in, err);

	if (ret)
		return ret;
	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, err);
	if (got < 0) {
		ktrace_input_close(in);
		return (int)got;
	}
	*fmt = ktrace_detect_format(head, (size_t)got);
	ktrace_input_close(in);
	if (*fmt == KTRACE_FORMAT_UNKNOWN)
		return ktrace_error_set(err, -EBADMSG, "%s",
					got ? "unrecognised file format" : "empty file");
	return 0;
}

/* What a source's advance (or skip) returned, taken in: 0 when it moved (to a record or
 * to its end), else the error, which stops the stream. */
static int moved(struct ktrace_stream *s, struct kt_source *c, int ret, struct ktrace_error *err)
{
	if (ret < 0) {
		s->failed = true;
		s->err_path = error_path(s, c->err_path, err);
		c->has = false;
		c->done = true;
		return ret;
	}
	c->has = ret > 0;
	c->done = ret == 0;
	if (c->has && !c->several_inputs)
		c->rec.source = c->input;
	return 0;
}

/* A stream with its options and nothing else in *out: 0, or an error (*out not set). */
static int stream_new(struct ktrace_stream **out, const struct ktrace_stream_opts *opts,
		      struct ktrace_error *err)
{
	struct ktrace_stream *s = aligned_alloc(_Alignof(struct ktrace_stream), sizeof(*s));
	int ret;

	if (!s)
		return kt_error_oom(err);
	memset(s, 0, sizeof(*s));
	kt_arena_init(&s->strings, 16384, 16384);
	if ((ret = KT_OPTS_COPY(&s->o, opts, "ktrace_stream_opts", err))) {
		free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int ktrace_stream_open(struct ktrace_stream **out, const char *const *paths, size_t npaths,
		       const struct ktrace_stream_opts *opts, struct ktrace_error *err,
		       const char **err_path)
{
	struct ktrace_stream *s;
	const char **td_paths = NULL, *epath;
	uint32_t *td_index = NULL;
	size_t ntd = 0;
	int ret = 0;

	*out = NULL;
	if (err_path)
		*err_path = NULL;
	if ((ret = stream_new(&s, opts, err)))
		return ret;
	if (!npaths || npaths > UINT16_MAX) {
		free(s);
		return ktrace_error_set(err, -EINVAL, "%s", npaths ? "too many inputs" : "no input");
	}
	s->info = calloc(npaths, sizeof(*s->info));
	s->src = calloc(npaths, sizeof(*s->src));
	td_paths = calloc(npaths, sizeof(*td_paths));
	td_index = calloc(npaths, sizeof(*td_index));
	if (!s->info || !s->src || !td_paths || !td_index) {
		ret = kt_error_oom(err);
		goto fail;
	}
	s->ninfo = npaths;
	s->spool_fd = malloc(npaths * sizeof(*s->spool_fd));
	for (size_t i = 0; s->spool_fd && i < npaths; i++)
		s->spool_fd[i] = -1;
	s->spool_path = calloc(npaths, sizeof(*s->spool_path));
	s->given = calloc(npaths, sizeof(*s->given));
	s->opened = calloc(npaths, sizeof(*s->opened));
	if (!s->spool_fd || !s->spool_path || !s->given || !s->opened) {
		ret = kt_error_oom(err);
		goto fail;
	}
	for (size_t i = 0; i < npaths; i++) {
		s->opened[i] = paths[i];
		s->given[i] = s->o.names && s->o.names[i] ? s->o.names[i] : paths[i];
	}
	for (size_t i = 0; i < npaths && !ret; i++) {
		enum ktrace_format fmt = KTRACE_FORMAT_UNKNOWN;
		struct kt_source *src = NULL;
		const char *path = paths[i];

		ret = spool(s, i, paths[i], err);
		if (ret) {
			s->err_path = paths[i];
			break;
		}
		if (s->spool_path[i])
			path = s->spool_path[i];
		ret = detect(path, &fmt, err);
		if (ret) {
			s->err_path = paths[i];
			break;
		}
		switch (fmt) {
		case KTRACE_FORMAT_TRACEDAT:
			td_paths[ntd] = path;
			td_index[ntd++] = (uint32_t)i;
			continue;
		case KTRACE_FORMAT_FTRACE_PAGES:
			ret = kt_source_ring(s, path, (uint32_t)i, &src, err);
			break;
		case KTRACE_FORMAT_DARWIN_V3:
		case KTRACE_FORMAT_DARWIN_RAW:
			ret = kt_source_darwin(s, path, (uint32_t)i, &src, err);
			break;
		case KTRACE_FORMAT_KOFF:
		case KTRACE_FORMAT_ELF:
			ret = kt_source_koff(s, path, (uint32_t)i, &src, err);
			break;
		default:
			ret = ktrace_error_set(err, -ENOTSUP, "%s: no events to stream",
					       ktrace_detect_format_name(fmt));
			s->err_path = paths[i];
			break;
		}
		if (!ret) {
			src->input = (uint32_t)i;
			s->src[s->nsrc++] = src;
		} else if (!s->err_path)
			s->err_path = paths[i];
	}
	if (!ret && ntd)
		ret = kt_source_tracedat(s, td_paths, td_index, ntd, &s->src[s->nsrc++], err);
	if (ret)
		goto fail;
	if (ntd)
		s->src[s->nsrc - 1]->several_inputs = true;
	/* every source reads its first record */
	for (size_t i = 0; i < s->nsrc; i++) {
		struct kt_source *src = s->src[i];

		ret = moved(s, src, src->ops->advance(src, err), err);
		if (ret)
			goto fail;
	}
	/* what another stream of the same inputs opens: a copy of those read once */
	s->reopen = calloc(npaths, sizeof(*s->reopen));
	if (!s->reopen) {
		ret = kt_error_oom(err);
		goto fail;
	}
	for (size_t i = 0; i < npaths; i++)
		s->reopen[i] = s->spool_path[i] ? s->spool_path[i] : paths[i];
	/* the inputs as the user named them */
	for (size_t i = 0; i < s->ninfo; i++)
		if (s->info[i])
			s->info[i]->path = shown(s, s->info[i]->path);
	if (s->o.flags & KTRACE_STREAM_READAHEAD) {
		ret = kt_readahead_start(s, &s->ra, err);
		if (ret)
			goto fail;
	}
	free(td_paths);
	free(td_index);
	*out = s;
	return 0;
fail:
	/* the caller's string (or the message names the file): the stream is freed here */
	epath = error_path(s, s->err_path, err);
	if (err_path)
		*err_path = epath;
	free(td_paths);
	free(td_index);
	free_stream(s);
	return ret < 0 ? ret : -EINVAL;
}

int kt_stream_open_source(struct ktrace_stream **out, const char *name, enum ktrace_format format,
			  const struct ktrace_stream_opts *opts,
			  int (*make)(struct ktrace_stream *s, void *arg, struct kt_source **src,
				      struct ktrace_error *err),
			  void *arg, struct ktrace_error *err)
{
	struct ktrace_stream *s;
	struct kt_source *src = NULL;
	int ret;

	*out = NULL;
	if ((ret = stream_new(&s, opts, err)))
		return ret;
	s->o.flags &= ~(unsigned)KTRACE_STREAM_READAHEAD;
	s->ninfo = 1;
	s->info = calloc(1, sizeof(*s->info));
	s->src = calloc(1, sizeof(*s->src));
	s->spool_fd = malloc(sizeof(*s->spool_fd));
	s->spool_path = calloc(1, sizeof(*s->spool_path));
	s->given = calloc(1, sizeof(*s->given));
	s->opened = calloc(1, sizeof(*s->opened));
	s->reopen = calloc(1, sizeof(*s->reopen));
	if (!s->info || !s->src || !s->spool_fd || !s->spool_path || !s->given || !s->opened ||
	    !s->reopen) {
		free_stream(s);
		return kt_error_oom(err);
	}
	s->spool_fd[0] = -1;
	s->given[0] = s->opened[0] = s->reopen[0] = name;
	if (!kt_stream_add_info(s, 0, name, format)) {
		free_stream(s);
		return kt_error_oom(err);
	}
	ret = make(s, arg, &src, err);
	if (ret) {
		free_stream(s);
		return ret;
	}
	src->input = 0;
	src->stream = s;
	s->src[s->nsrc++] = src;
	ret = moved(s, src, src->ops->advance(src, err), err);
	if (ret) {
		free_stream(s);
		return ret;
	}
	*out = s;
	return 0;
}

struct kt_source *kt_stream_first_source(struct ktrace_stream *s)
{
	return s->nsrc ? s->src[0] : NULL;
}

void ktrace_stream_close(struct ktrace_stream *s)
{
	if (!s)
		return;
	kt_readahead_stop(s->ra);
	free_stream(s);
}

/* --cpu: records of unknown CPUs (KOFF) stay. */
static bool cpu_wanted(const struct ktrace_stream *s, int cpu)
{
	if (!s->o.cpus || cpu < 0)
		return true;
	for (size_t i = 0; i < s->o.ncpus; i++)
		if (s->o.cpus[i] == cpu)
			return true;
	return false;
}

int ktrace_stream_next(struct ktrace_stream *s, const struct ktrace_stream_record **rec,
		       struct ktrace_error *err)
{
	struct kt_source *src;
	int ret;

	if (!s->ra)
		return kt_stream_direct_next(s, rec, &src, err);
	*rec = NULL;
	s->snap_rec = NULL;
	if (s->ra_failed)
		return ktrace_error_set(err, -EIO, "the stream stopped at an earlier error");
	ret = kt_readahead_next(s->ra, rec, &s->snap_src, &s->snap_data, err, &s->ra_err_path);
	if (ret < 0)
		s->ra_failed = true;
	if (ret > 0)
		s->snap_rec = *rec;
	return ret;
}

int kt_stream_direct_next(struct ktrace_stream *s, const struct ktrace_stream_record **rec,
			  struct kt_source **src, struct ktrace_error *err)
{
	struct kt_source *best = NULL;
	int ret;

	*rec = NULL;
	*src = NULL;
	if (s->failed)
		return ktrace_error_set(err, -EIO, "the stream stopped at an earlier error");
	/* the source that handed out the current record moves on first */
	if (s->cur) {
		struct kt_source *c = s->cur;

		s->cur = NULL;
		ret = moved(s, c, c->ops->advance(c, err), err);
		if (ret)
			return ret;
	}
	/* a live source with none before may have some now */
	for (size_t i = 0; i < s->nsrc; i++) {
		struct kt_source *c = s->src[i];

		if (c->live && !c->has && (ret = moved(s, c, c->ops->advance(c, err), err)))
			return ret;
	}
	for (;;) {
		best = NULL;
		if (s->nsrc == 1)
			best = s->src[0]->has ? s->src[0] : NULL;   /* nothing to merge */
		else
			for (size_t i = 0; i < s->nsrc; i++) {
				struct kt_source *c = s->src[i];

				if (c->has && (!best || c->rec.ts < best->rec.ts))
					best = c;
			}
		if (!best)
			return 0;
		if (cpu_wanted(s, best->rec.cpu))
			break;
		ret = moved(s, best, best->ops->advance(best, err), err);
		if (ret)
			return ret;
	}
	s->cur = best;
	*rec = &best->rec;
	*src = best;
	return 1;
}

int kt_stream_skip(struct ktrace_stream *s, uint64_t max, const struct kt_stream_skip *how,
		   uint64_t *skipped, struct ktrace_error *err)
{
	struct kt_source *c = s->cur;

	*skipped = 0;
	/* (with a CPU filter the source hands out records the stream drops, unless the
	 * others CPUs are left unread) */
	if (s->ra || s->failed || s->nsrc != 1 || !c || !c->ops->skip ||
	    (s->o.cpus && !(s->o.flags & KT_STREAM_CPUS_ONLY)))
		return 0;
	s->cur = NULL;
	return moved(s, c, c->ops->skip(c, max, how, skipped, err), err);
}

int kt_stream_record_error(struct ktrace_stream *s, const struct ktrace_stream_record *r,
			   struct ktrace_error *err, int code, const char *fmt, ...)
{
	char msg[KTRACE_ERROR_MESSAGE_MAX];
	const char *path = r && r->source < s->ninfo ? s->given[r->source] : NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* (with read-ahead the reading thread owns err_path: the caller's own is set) */
	if (s->ra)
		s->ra_err_path = path;
	else
		s->err_path = path;
	return r ? ktrace_error_at(err, code, r->offset, "%s", msg)
		 : ktrace_error_set(err, code, "%s", msg);
}

void kt_stream_fields_only(struct ktrace_stream *s,
			   bool (*wanted)(void *arg, const struct ktrace_stream_record *r), void *arg)
{
	if (s->ra)
		kt_readahead_fields_only(s->ra, wanted, arg);
}

const char *kt_stream_direct_error_path(const struct ktrace_stream *s)
{
	return s->err_path;
}

const char *ktrace_stream_error_path(const struct ktrace_stream *s)
{
	return !s ? NULL : s->ra ? s->ra_err_path : s->err_path;
}

/* Read-ahead: the current record's copy has fields. */
static bool snap_event(const struct ktrace_stream *s)
{
	return s->snap_rec && s->snap_rec->kind == KTRACE_STREAM_EVENT && s->snap_data;
}

size_t ktrace_stream_field_count(struct ktrace_stream *s)
{
	if (s->ra)
		return snap_event(s) ? s->snap_src->ops->snap_fields(s->snap_data, NULL, 0) : 0;
	if (!s->cur || s->cur->rec.kind != KTRACE_STREAM_EVENT)
		return 0;
	return s->cur->ops->fields(s->cur, NULL, 0);
}

int ktrace_stream_field(struct ktrace_stream *s, size_t i, struct ktrace_event_value *f)
{
	/* the source checks i (and clears *f) itself */
	if (s->ra && snap_event(s))
		return s->snap_src->ops->snap_field(s->snap_data, i, f);
	if (s->ra || !s->cur || s->cur->rec.kind != KTRACE_STREAM_EVENT) {
		memset(f, 0, sizeof(*f));
		return -ENOENT;
	}
	return s->cur->ops->field(s->cur, i, f);
}

int kt_stream_ftrace_raw(struct ktrace_stream *s, struct kt_ftrace_raw *out)
{
	if (s->ra)
		return snap_event(s) && s->snap_src->ops->snap_raw ?
		       s->snap_src->ops->snap_raw(s->snap_data, out) : -ENOENT;
	if (!s->cur || s->cur->rec.kind != KTRACE_STREAM_EVENT || !s->cur->ops->raw)
		return -ENOENT;
	return s->cur->ops->raw(s->cur, out);
}

int kt_stream_text_key(struct ktrace_stream *s, const uint8_t **key, size_t *n)
{
	struct kt_ftrace_raw raw;

	if (kt_stream_ftrace_raw(s, &raw) || !raw.ev || !raw.evs || !ftev_text_from_record(raw.evs, raw.ev))
		return -ENOENT;
	*key = raw.data;
	*n = raw.size;
	return 0;
}

bool kt_stream_labels_lines(const struct ktrace_stream *s)
{
	for (size_t i = 0; i < s->nsrc; i++)
		if (s->src[i] && s->src[i]->labels_lines)
			return true;
	return false;
}

size_t ktrace_stream_fields(struct ktrace_stream *s, struct ktrace_event_value *v, size_t max)
{
	if (s->ra)
		return snap_event(s) ? s->snap_src->ops->snap_fields(s->snap_data, v, max) : 0;
	if (!s->cur || s->cur->rec.kind != KTRACE_STREAM_EVENT)
		return 0;
	return s->cur->ops->fields(s->cur, v, max);
}

int ktrace_stream_field_by_name(struct ktrace_stream *s, const char *name,
				struct ktrace_event_value *f)
{
	size_t n = ktrace_stream_field_count(s);

	for (size_t i = 0; i < n; i++)
		if (!ktrace_stream_field(s, i, f) && !strcmp(f->name, name))
			return 0;
	memset(f, 0, sizeof(*f));
	return -ENOENT;
}

int ktrace_stream_format(struct ktrace_stream *s, char *buf, size_t len)
{
	if (s->ra)
		return -ENOTSUP;
	if (!s->cur)
		return -ENOENT;
	return s->cur->ops->format(s->cur, buf, len, false);
}

size_t kt_stream_registry_bytes(struct ktrace_stream *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nsrc; i++)
		if (s->src[i] && s->src[i]->ops->registry_bytes)
			n += s->src[i]->ops->registry_bytes(s->src[i]);
	return n;
}

uint64_t kt_stream_data_bytes(struct ktrace_stream *s, const char *const *paths, size_t n)
{
	uint64_t files = kt_files_bytes(paths, n), data = 0;

	if (files == UINT64_MAX)
		return files;
	for (size_t i = 0; i < s->nsrc; i++)
		if (s->src[i] && s->src[i]->ops->data_bytes)
			data += s->src[i]->ops->data_bytes(s->src[i]);
	return data > files ? data : files;
}

bool kt_stream_stable_comm(const struct ktrace_stream *s)
{
	for (size_t i = 0; i < s->nsrc; i++)
		if (s->src[i] && !s->src[i]->stable_comm)
			return false;
	return true;
}

int kt_stream_format_parts(struct ktrace_stream *s, char *buf, size_t len,
			   const struct kt_line_parts **parts, unsigned how)
{
	static const struct kt_line_parts none;
	int ret;

	/* (the source's own parts, not a copy: read back whole right after the source
	 * wrote them field by field, a copy stalled on every line) */
	*parts = &none;
	if (s->ra)
		return -ENOTSUP;
	if (!s->cur)
		return -ENOENT;
	memset(&s->cur->line, 0, sizeof(s->cur->line));
	s->cur->omit_prefix = (how & KT_FORMAT_OMIT_PREFIX) != 0;
	s->cur->nul_later = (how & KT_FORMAT_NUL_LATER) != 0;
	s->cur->label_only = (how & KT_FORMAT_LABEL_ONLY) != 0;
	s->cur->want_nums = true;
	ret = s->cur->ops->format(s->cur, buf, len, false);
	s->cur->omit_prefix = false;
	s->cur->nul_later = false;
	s->cur->label_only = false;
	s->cur->want_nums = false;
	if (ret >= 0)
		*parts = &s->cur->line;
	return ret;
}

int ktrace_stream_format_text(struct ktrace_stream *s, char *buf, size_t len)
{
	if (s->ra)
		return -ENOTSUP;
	if (!s->cur)
		return -ENOENT;
	return s->cur->ops->format(s->cur, buf, len, true);
}

const struct ktrace_event *ktrace_stream_event(struct ktrace_stream *s)
{
	/* with read-ahead the source's state belongs to the reading thread */
	struct kt_ftrace_raw raw;

	if (s->ra || !s->cur || !s->cur->ops->raw)
		return NULL;
	return s->cur->ops->raw(s->cur, &raw) ? NULL : raw.ev;
}

/* A switch or wakeup of nothing: every field 0 or empty, no target CPU; without the
 * names, their first bytes alone (the numbers' reader never looks past them). */
static void sched_clear(struct ktrace_stream_sched *out, bool names)
{
	if (names) {
		memset(out, 0, sizeof(*out));
	} else {
		out->kind = KTRACE_STREAM_SCHED_NONE;
		out->prev_tid = out->next_tid = out->prev_state = 0;
		out->prev_prio = out->next_prio = 0;
		out->prev_state_text[0] = out->prev_comm[0] = out->next_comm[0] = 0;
	}
	out->target_cpu = -1;
}

static int stream_sched(struct ktrace_stream *s, bool names, struct ktrace_stream_sched *out)
{
	int ret;

	sched_clear(out, names);
	if (s->ra) {
		if (!snap_event(s) || !s->snap_src->ops->snap_sched)
			return 0;
		ret = s->snap_src->ops->snap_sched(&s->sched, s->snap_rec, s->snap_data, names, out);
	} else {
		if (!s->cur || s->cur->rec.kind != KTRACE_STREAM_EVENT || !s->cur->ops->sched)
			return 0;
		ret = s->cur->ops->sched(s->cur, &s->sched, names, out);
	}
	if (ret <= 0) {
		sched_clear(out, names);
		return 0;
	}
	return 1;
}

int ktrace_stream_sched(struct ktrace_stream *s, struct ktrace_stream_sched *out)
{
	return stream_sched(s, true, out);
}

int kt_stream_sched_numbers(struct ktrace_stream *s, struct ktrace_stream_sched *out)
{
	return stream_sched(s, false, out);
}

const char *const *kt_stream_reopen_paths(const struct ktrace_stream *s, size_t *n,
					  const char *const **names)
{
	*n = s->ninfo;
	*names = s->given;
	return s->reopen;
}

size_t ktrace_stream_source_count(const struct ktrace_stream *s)
{
	return s->ninfo;
}

const struct ktrace_stream_source *ktrace_stream_source(const struct ktrace_stream *s, size_t i)
{
	return i < s->ninfo ? s->info[i] : NULL;
}

size_t ktrace_stream_task_count(const struct ktrace_stream *s)
{
	return s->ntasks;
}

const struct ktrace_stream_task_info *ktrace_stream_task(const struct ktrace_stream *s, size_t i)
{
	return i < s->ntasks ? &s->tasks[i] : NULL;
}

unsigned ktrace_stream_threads(const char *const *paths, size_t npaths, unsigned want, unsigned cap)
{
	return kt_file_threads(paths, npaths, want, cap);
}
