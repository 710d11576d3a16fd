// SPDX-License-Identifier: MIT
/*
 * Record and extract sessions: tracefs configuration (saved first, put back at the end),
 * per-CPU capture, kernel counters, and the trace.dat file assembled from the captured
 * data and the metadata tracefs and /proc offer.
 */
#include <ktrace/tracefs.h>
#include <ktrace/version.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/opts.h"
#include "tracefs/tracefs_int.h"

#define MAX_TEXT (256u << 20)       /* largest kallsyms / cmdlines we read */
#define RECORD_BUFFER_PERCENT "1"   /* readers woken when the buffer is this % full */

static int oom(struct ktrace_error *err)
{
	return kt_error_oom(err);
}

static int bwrite(struct tfs_buffer *b, const char *name, const char *value, bool append,
		  struct ktrace_error *err)
{
	return tfs_dir_write(b->dir, name, value, append, err);
}

static int bread(struct tfs_buffer *b, const char *name, char **out, struct ktrace_error *err)
{
	return tfs_dir_read(b->dir, name, out, err);
}

/* ------------------------------------------------------------------ sessions */

static int session_new(const char *tracefs, const char *tmpdir, bool record,
		       struct ktrace_tracefs_session **out, struct ktrace_error *err)
{
	struct ktrace_tracefs_session *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s)
		return oom(err);
	s->record = record;
	s->stop_pipe[0] = s->stop_pipe[1] = -1;
	s->data_pipe[0] = s->data_pipe[1] = -1;
	s->idle_wait_ms = 1000;
	if (pipe2(s->stop_pipe, O_CLOEXEC) < 0) {
		ret = -errno;
		free(s);
		return ktrace_error_set(err, ret, "pipe: %s", strerror(-ret));
	}
	s->tmpdir = strdup(tmpdir && *tmpdir ? tmpdir : ".");
	if (!s->tmpdir) {
		ktrace_tracefs_close(s);
		return oom(err);
	}
	if (tracefs) {
		s->tracefs = strdup(tracefs);
		if (!s->tracefs) {
			ktrace_tracefs_close(s);
			return oom(err);
		}
	} else {
		ret = ktrace_tracefs_find(true, &s->tracefs, &s->mounted, err);
		if (ret) {
			ktrace_tracefs_close(s);
			return ret;
		}
	}
	*out = s;
	return 0;
}

static struct tfs_buffer *add_buffer(struct ktrace_tracefs_session *s, const char *name,
				     struct ktrace_error *err)
{
	struct tfs_buffer *n = kt_realloc_array(s->bufs, s->nbufs + 1, sizeof(*n)), *b;
	int len;

	if (!n) {
		oom(err);
		return NULL;
	}
	s->bufs = n;
	b = &n[s->nbufs];
	memset(b, 0, sizeof(*b));
	b->journal_fd = -1;
	b->name = strdup(name);
	if (!b->name) {
		oom(err);
		return NULL;
	}
	if (*name)
		len = snprintf(b->dir, sizeof(b->dir), "%s/instances/%s", s->tracefs, name);
	else
		len = snprintf(b->dir, sizeof(b->dir), "%s", s->tracefs);
	if (len < 0 || (size_t)len >= sizeof(b->dir)) {
		free(b->name);
		ktrace_error_set(err, -ENAMETOOLONG, "instance name too long");
		return NULL;
	}
	s->nbufs++;
	return b;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The buffer's CPUs (per_cpu/cpuN), sub-buffer size and clock. */
static int buffer_info(struct ktrace_tracefs_session *s, struct tfs_buffer *b, struct ktrace_error *err)
{
	char path[PATH_MAX];
	unsigned int *ids = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	char *v = NULL;
	DIR *d;

	if (tfs_path(path, sizeof(path), b->dir, "per_cpu"))
		return ktrace_error_set(err, -ENAMETOOLONG, "path too long");
	d = opendir(path);
	if (!d)
		return ktrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		char *end;
		unsigned long id;

		if (strncmp(de->d_name, "cpu", 3) || !de->d_name[3])
			continue;
		id = strtoul(de->d_name + 3, &end, 10);
		if (*end || id > 1u << 20)
			continue;
		if (n == cap) {
			unsigned int *nn;

			cap = cap ? cap * 2 : 64;
			nn = kt_realloc_array(ids, cap, sizeof(*nn));
			if (!nn) {
				closedir(d);
				free(ids);
				return oom(err);
			}
			ids = nn;
		}
		ids[n++] = (unsigned int)id;
	}
	closedir(d);
	if (!n) {
		free(ids);
		return ktrace_error_set(err, -ENOENT, "%s: no per-CPU buffers", path);
	}
	qsort(ids, n, sizeof(*ids), cmp_uint);
	b->cpus = calloc(n, sizeof(*b->cpus));
	if (!b->cpus) {
		free(ids);
		return oom(err);
	}
	for (size_t i = 0; i < n; i++) {
		b->cpus[i].cpu = ids[i];
		b->cpus[i].trace_fd = b->cpus[i].out_fd = b->cpus[i].old_fd = -1;
		b->cpus[i].pipefd[0] = b->cpus[i].pipefd[1] = -1;
		if (ids[i] + 1 > s->ncpus_machine)
			s->ncpus_machine = ids[i] + 1;
	}
	b->ncpus = n;
	free(ids);

	/* sub-buffer size: buffer_subbuf_size_kb (Linux 6.8+), else the page size */
	b->page_size = (unsigned int)sysconf(_SC_PAGESIZE);
	if (tfs_read_value(b->dir, "buffer_subbuf_size_kb", &v) == 0) {
		unsigned long kb = strtoul(v, NULL, 10);

		if (kb && kb <= 1024)
			b->page_size = (unsigned int)(kb * 1024);
		/* its header_page says that size too (the file's is the first buffer's,
		 * read while an instance of ours still exists); none: the top's */
		free(b->header_page);
		b->header_page = NULL;
		if (tfs_path(path, sizeof(path), b->dir, "events/header_page") == 0 &&
		    tfs_read_file(path, 1 << 20, &b->header_page, &b->header_page_len))
			b->header_page = NULL;
	}
	free(v);
	if (bread(b, "trace_clock", &b->clock_text, err))
		return -ENOENT;
	{
		const char *o = strchr(b->clock_text, '['), *c = o ? strchr(o, ']') : NULL;
		size_t len = c ? (size_t)(c - o - 1) : 0;

		if (!c || len >= sizeof(b->clock))
			len = 0;
		memcpy(b->clock, o ? o + 1 : "", len);
		b->clock[len] = 0;
		if (!len)
			strcpy(b->clock, "local");
	}
	return 0;
}

/* ------------------------------------------------------------------ state */

/* Saves a value before changing it (only the first time). */
static int save_set(struct tfs_buffer *b, const char *name, char **slot, const char *value,
		    struct ktrace_error *err)
{
	int ret;

	if (!*slot) {
		if (bread(b, name, slot, err))
			return -EIO;
		/* written down before it changes (a killed session's is put back) */
		if ((ret = tfs_journal_note(b, 's', name, *slot, err)))
			return ret;
	}
	return bwrite(b, name, value, false, err);
}

/* Saves file's value in the extra list (what writing it back needs: a filter of
 * "none" is cleared with "0"), then writes value. */
static int save_set_extra(struct tfs_buffer *b, const char *file, const char *value,
			  struct ktrace_error *err)
{
	struct tfs_saved *sv = &b->saved;
	struct tfs_kv *n;
	char *old = NULL;
	int ret;

	for (size_t i = 0; i < sv->nextra; i++)
		if (!strcmp(sv->extra[i].file, file))
			return bwrite(b, file, value, false, err);
	if (bread(b, file, &old, err))
		return -EIO;
	{
		const char *slash = strrchr(file, '/');

		if (slash && !strcmp(slash, "/filter") && !strcmp(old, "none"))
			strcpy(old, "0");
	}
	n = kt_realloc_array(sv->extra, sv->nextra + 1, sizeof(*n));
	if (!n || !(n[sv->nextra].file = strdup(file))) {
		if (n)
			sv->extra = n;
		free(old);
		return oom(err);
	}
	sv->extra = n;
	n[sv->nextra].value = old;
	sv->nextra++;
	ret = tfs_journal_note(b, 'x', file, old, err);
	return ret ? ret : bwrite(b, file, value, false, err);
}

/* Enables the selected events in b: a whole system at once when every one of its
 * events is selected. */
static int enable_events(struct ktrace_tracefs_session *s, struct tfs_buffer *b, struct ktrace_error *err)
{
	struct tfs_events *e = &s->events;
	size_t i = 0;

	while (i < e->n) {
		size_t j = i, sel = 0;
		char name[PATH_MAX];
		int ret;

		while (j < e->n && !strcmp(e->ev[j].system, e->ev[i].system))
			sel += e->ev[j++].selected;
		if (sel && sel == j - i) {
			snprintf(name, sizeof(name), "events/%s/enable", e->ev[i].system);
			if ((ret = bwrite(b, name, "1", false, err)))
				return ret;
		} else if (sel) {
			for (size_t k = i; k < j; k++) {
				if (!e->ev[k].selected)
					continue;
				snprintf(name, sizeof(name), "events/%s/%s/enable", e->ev[k].system,
					 e->ev[k].name);
				if ((ret = bwrite(b, name, "1", false, err)))
					return ret;
			}
		}
		i = j;
	}
	return 0;
}

/* The kernel's complaint about a filter, from the filter file it left it in. */
static void filter_complaint(struct tfs_buffer *b, const char *file, char *out, size_t len)
{
	char *text = NULL, *p;

	out[0] = 0;
	if (tfs_read_value(b->dir, file, &text))
		return;
	p = strstr(text, "parse_error: ");
	if (p) {
		p += 13;
		snprintf(out, len, ": %.*s", (int)strcspn(p, "\n"), p);
	}
	free(text);
}

/* -f: each filter goes to the (selected) events its specification matches; the kernel
 * refuses it for events that lack a field, which is fine as long as one takes it. */
static int set_filters(struct ktrace_tracefs_session *s, struct tfs_buffer *b,
		       const struct ktrace_tracefs_record_opts *o, struct ktrace_error *err)
{
	struct tfs_events *e = &s->events;

	for (size_t k = 0; o->filters && k < o->nevents; k++) {
		const char *filter = o->filters[k];
		char file[PATH_MAX], why[256] = "", first[PATH_MAX] = "";
		size_t taken = 0;
		int last = 0;

		if (!filter || (o->disable && o->disable[k]))
			continue;
		for (size_t i = 0; i < e->n; i++) {
			struct ktrace_error e2 = { 0 };
			int ret;

			if (!e->ev[i].selected || !tfs_event_matches(e, i, o->events[k]))
				continue;
			snprintf(file, sizeof(file), "events/%s/%s/filter", e->ev[i].system, e->ev[i].name);
			ret = save_set_extra(b, file, filter, &e2);
			if (!ret) {
				taken++;
				continue;
			}
			if (ret != -EINVAL) {
				*err = e2;
				return ret;
			}
			if (!first[0]) {
				snprintf(first, sizeof(first), "%s:%s", e->ev[i].system, e->ev[i].name);
				filter_complaint(b, file, why, sizeof(why));
			}
			last = ret;
		}
		if (!taken && last)
			return ktrace_error_set(err, -EINVAL, "the kernel refuses the filter \"%s\" for %s%s",
						filter, first, why);
	}
	return 0;
}

/* The tracer, with the kernel's reason when it refuses it. */
static int set_tracer(struct tfs_buffer *b, const char *tracer, struct ktrace_error *err)
{
	struct ktrace_error e2 = { 0 };
	char *avail = NULL;
	int ret = bwrite(b, "current_tracer", tracer, false, &e2);

	if (!ret)
		return 0;
	tfs_read_value(b->dir, "available_tracers", &avail);
	if (ret == -EINVAL)
		ret = ktrace_error_set(err, ret, "no tracer \"%s\" in %s (available: %s)", tracer, b->dir,
				       avail ? avail : "?");
	else
		ret = ktrace_error_set(err, ret, "the kernel refuses the \"%s\" tracer: writing it to "
				       "%s/current_tracer gives \"%s\" (tracers here: %s)", tracer, b->dir,
				       strerror(-ret), avail ? avail : "?");
	free(avail);
	return ret;
}

/* -O NAME / noNAME */
static int set_option(struct tfs_buffer *b, const char *opt, struct ktrace_error *err)
{
	bool on = strncmp(opt, "no", 2) != 0;
	const char *name = on ? opt : opt + 2;
	char file[PATH_MAX];
	struct stat st;

	if (!*name || strchr(name, '/') ||
	    snprintf(file, sizeof(file), "%s/options/%s", b->dir, name) >= (int)sizeof(file) ||
	    stat(file, &st) < 0) {
		/* an option whose own name starts with "no" */
		if (!on && snprintf(file, sizeof(file), "%s/options/%s", b->dir, opt) < (int)sizeof(file) &&
		    stat(file, &st) == 0) {
			name = opt;
			on = true;
		} else {
			return ktrace_error_set(err, -ENOENT, "no trace option \"%s\" in %s/options "
						"('ktrace list -o' lists them)", on ? opt : opt + 2, b->dir);
		}
	}
	snprintf(file, sizeof(file), "options/%s", name);
	return save_set_extra(b, file, on ? "1" : "0", err);
}

/* Every value and file a session changes, saved then set. capture: for a recorder
 * (buffer_percent, record-tgid). */
static int configure(struct ktrace_tracefs_session *s, struct tfs_buffer *b,
		     const struct ktrace_tracefs_record_opts *o, bool capture, struct ktrace_error *err)
{
	struct tfs_saved *sv = &b->saved;
	const char *tracer = o->tracer ? o->tracer : "nop";
	char *v = NULL;
	int ret;

	b->saved_valid = true;
	if (bread(b, "tracing_on", &sv->tracing_on, err))
		return -EIO;
	sv->tracing_changed = true;
	/* each value is written down in the journal before it changes */
	if ((ret = tfs_journal_note(b, 's', "tracing_on", sv->tracing_on, err)) ||
	    (ret = bwrite(b, "tracing_on", "0", false, err)))
		return ret;

	if (bread(b, "current_tracer", &v, err))
		return -EIO;
	if (strcmp(v, tracer)) {
		sv->tracer = v;
		v = NULL;
		if ((ret = tfs_journal_note(b, 's', "current_tracer", sv->tracer, err)) ||
		    (ret = bwrite(b, "current_tracer", "nop", false, err)))
			return ret;
	}
	free(v);
	v = NULL;

	/* events: the ones enabled now are switched off while recording */
	if (bread(b, "set_event", &sv->set_event, err))
		return -EIO;
	sv->events_changed = true;
	if ((ret = tfs_journal_note(b, 's', "set_event", sv->set_event, err)) ||
	    (ret = bwrite(b, "set_event", "", false, err)) || (ret = enable_events(s, b, err)))
		return ret;
	if ((ret = set_filters(s, b, o, err)))
		return ret;

	if (o->buffer_kb) {
		char val[32];

		if (bread(b, "buffer_size_kb", &v, err))
			return -EIO;
		if (v[0] == 'X') {
			/* per-CPU sizes differ: save each */
			sv->cpu_kb = calloc(b->ncpus, sizeof(*sv->cpu_kb));
			if (!sv->cpu_kb) {
				free(v);
				return oom(err);
			}
			sv->ncpu_kb = b->ncpus;
			for (size_t i = 0; i < b->ncpus; i++) {
				char name[64];

				snprintf(name, sizeof(name), "per_cpu/cpu%u/buffer_size_kb",
					 b->cpus[i].cpu);
				if (bread(b, name, &sv->cpu_kb[i], err)) {
					free(v);
					return -EIO;
				}
				snprintf(name, sizeof(name), "%u", b->cpus[i].cpu);
				if ((ret = tfs_journal_note(b, 'c', name, sv->cpu_kb[i], err))) {
					free(v);
					return ret;
				}
			}
			free(v);
		} else {
			/* "7 (expanded: 1408)": the buffer has not been allocated yet; it
			 * will be at its expanded size once used */
			char *exp = strstr(v, "expanded:");

			if (exp) {
				size_t len;

				exp += 9 + strspn(exp + 9, " ");
				len = strcspn(exp, ")");
				memmove(v, exp, len);
				v[len] = 0;
			}
			sv->buffer_kb = v;
			if ((ret = tfs_journal_note(b, 's', "buffer_size_kb", v, err)))
				return ret;
		}
		v = NULL;
		snprintf(val, sizeof(val), "%lu", o->buffer_kb);
		if ((ret = bwrite(b, "buffer_size_kb", val, false, err)))
			return ret;
	}
	if (o->clock && strcmp(o->clock, b->clock)) {
		/* the clock selected now (the file's text lists them all) */
		if (!sv->clock && !(sv->clock = strdup(b->clock)))
			return oom(err);
		if ((ret = tfs_journal_note(b, 's', "trace_clock", sv->clock, err)))
			return ret;
		if ((ret = bwrite(b, "trace_clock", o->clock, false, err))) {
			if (ret == -EINVAL)
				ktrace_error_set(err, -EINVAL, "unknown trace clock \"%s\" (%s has: %s)",
						 o->clock, b->dir, b->clock_text);
			return ret;
		}
		free(b->clock_text);
		b->clock_text = NULL;
		if (bread(b, "trace_clock", &b->clock_text, err))
			return -EIO;
		snprintf(b->clock, sizeof(b->clock), "%s", o->clock);
	}
	if (o->npids) {
		char *list = malloc(o->npids * 24 + 1);
		size_t len = 0;

		if (!list)
			return oom(err);
		for (size_t i = 0; i < o->npids; i++)
			len += (size_t)sprintf(list + len, "%s%d", i ? " " : "", (int)o->pids[i]);
		list[len] = 0;
		ret = 0;
		if (!sv->event_pid) {
			ret = bread(b, "set_event_pid", &sv->event_pid, err) ? -EIO : 0;
			if (!ret)
				ret = tfs_journal_note(b, 's', "set_event_pid", sv->event_pid, err);
		}
		if (!ret)
			ret = bwrite(b, "set_event_pid", list, false, err);
		free(list);
		if (ret)
			return ret;
	}
	if (o->follow_forks && (ret = save_set(b, "options/event-fork", &sv->event_fork, "1", err)))
		return ret;
	if (capture && !o->no_tgids &&
	    (ret = save_set(b, "options/record-tgid", &sv->record_tgid, "1", err)))
		return ret;
	if (o->stacktrace && (ret = save_set_extra(b, "options/stacktrace", "1", err)))
		return ret;
	for (size_t i = 0; i < o->noptions; i++)
		if ((ret = set_option(b, o->options[i], err)))
			return ret;
	if (o->cpumask && (ret = save_set_extra(b, "tracing_cpumask", o->cpumask, err))) {
		if (ret == -EINVAL)
			ktrace_error_set(err, ret, "the kernel refuses the CPU mask \"%s\" (hexadecimal, "
					 "e.g. 3 for CPUs 0 and 1)", o->cpumask);
		return ret;
	}
	/* wake the readers as soon as about 1% of the buffer holds data (the default, 50%,
	 * leaves too little room to absorb a reader scheduled late under load) */
	if (capture && tfs_read_value(b->dir, "buffer_percent", &v) == 0) {
		if (strcmp(v, RECORD_BUFFER_PERCENT)) {
			sv->buffer_percent = v;
			v = NULL;
			if ((ret = tfs_journal_note(b, 's', "buffer_percent", sv->buffer_percent, err)) ||
			    (ret = bwrite(b, "buffer_percent", RECORD_BUFFER_PERCENT, false, err)))
				return ret;
		}
		free(v);
		v = NULL;
	}
	/* the tracer last: it starts writing into the buffer at once */
	if (strcmp(tracer, "nop") && sv->tracer && (ret = set_tracer(b, tracer, err)))
		return ret;
	/* an empty buffer, counters included */
	return bwrite(b, "trace", "", false, err);
}

/* The writes that put back what configure changed, in order. */
int tfs_restore_plan(struct tfs_buffer *b, struct tfs_plan *p)
{
	struct tfs_saved *sv = &b->saved;
	int ret = 0;

#define ADD(file, value, append)                                                  \
	do {                                                                      \
		if (!ret)                                                         \
			ret = tfs_plan_add(p, file, value, append);                \
	} while (0)

	p->remove = b->created;
	if (!b->saved_valid)
		return 0;
	if (sv->tracing_changed)
		ADD("tracing_on", "0", false);
	if (sv->events_changed) {
		ADD("set_event", "", false);
		if (sv->set_event && !b->created) {
			const char *line = sv->set_event;

			while (*line && !ret) {
				size_t n = strcspn(line, "\n");
				char *one = strndup(line, n);

				if (!one)
					return -ENOMEM;
				if (*one)
					ADD("set_event", one, true);
				free(one);
				line += n + (line[n] == '\n');
			}
		}
	}
	if (b->created)
		return ret;
	if (sv->tracer)
		ADD("current_tracer", sv->tracer, false);
	if (sv->clock)
		ADD("trace_clock", sv->clock, false);
	if (sv->cpu_kb) {
		for (size_t i = 0; i < sv->ncpu_kb; i++) {
			char name[64];

			snprintf(name, sizeof(name), "per_cpu/cpu%u/buffer_size_kb", b->cpus[i].cpu);
			ADD(name, sv->cpu_kb[i], false);
		}
	} else if (sv->buffer_kb) {
		ADD("buffer_size_kb", sv->buffer_kb, false);
	}
	if (sv->event_pid) {
		for (char *q = sv->event_pid; *q; q++)
			if (*q == '\n')
				*q = ' ';
		ADD("set_event_pid", sv->event_pid, false);
	}
	if (sv->event_fork)
		ADD("options/event-fork", sv->event_fork, false);
	if (sv->record_tgid)
		ADD("options/record-tgid", sv->record_tgid, false);
	if (sv->buffer_percent)
		ADD("buffer_percent", sv->buffer_percent, false);
	for (size_t i = sv->nextra; i-- > 0;)
		ADD(sv->extra[i].file, sv->extra[i].value, false);
	if (sv->tracing_changed)
		ADD("tracing_on", sv->tracing_on, false);
#undef ADD
	return ret;
}

/* Puts back what configure changed; carries on after errors (the first is kept). The
 * instance, if created, is removed by the caller. */
int tfs_restore_buffer(struct tfs_buffer *b, struct ktrace_error *err)
{
	struct tfs_plan p = { 0 };
	int ret;

	if (!b->saved_valid)
		return 0;
	ret = tfs_restore_plan(b, &p);
	p.remove = false;
	if (ret)
		ret = ktrace_error_set(err, ret, "out of memory");
	else
		ret = tfs_plan_run(b->dir, &p, err);
	tfs_plan_free(&p);
	b->saved_valid = false;
	return ret;
}

void tfs_free_saved(struct tfs_saved *sv)
{
	free(sv->tracing_on);
	free(sv->buffer_kb);
	for (size_t i = 0; i < sv->ncpu_kb; i++)
		free(sv->cpu_kb[i]);
	free(sv->cpu_kb);
	free(sv->clock);
	free(sv->tracer);
	free(sv->set_event);
	free(sv->event_pid);
	free(sv->event_fork);
	free(sv->record_tgid);
	free(sv->buffer_percent);
	for (size_t i = 0; i < sv->nextra; i++) {
		free(sv->extra[i].file);
		free(sv->extra[i].value);
	}
	free(sv->extra);
	memset(sv, 0, sizeof(*sv));
}

/* ------------------------------------------------------------------ open */

static int read_start_counters(struct tfs_buffer *b)
{
	for (size_t i = 0; i < b->ncpus; i++)
		tfs_read_counters(b->dir, b->cpus[i].cpu, &b->cpus[i].start, NULL);
	return 0;
}

/* Selects the events of o (in order: -v specifications deselect), with the closest
 * names in the message for a specification that matches nothing. */
static int select_events(struct ktrace_tracefs_session *s, const struct ktrace_tracefs_record_opts *o,
			 struct ktrace_error *err)
{
	for (size_t i = 0; i < o->nevents; i++) {
		bool off = o->disable && o->disable[i];
		char hint[512];

		if (tfs_select_events(&s->events, o->events[i], !off))
			continue;
		tfs_suggest_text(&s->events, o->events[i], hint, sizeof(hint));
		return ktrace_error_set(err, -ENOENT, "no event matches \"%s\"%s", o->events[i], hint);
	}
	return 0;
}

/* A recording on the top buffer while ktrace start's tracing is there would empty the
 * buffer and switch its events off: refused. */
static int started_top(struct ktrace_error *err)
{
	char path[PATH_MAX];
	struct stat st;

	if (tfs_state_path(NULL, NULL, path, sizeof(path), NULL) || stat(path, &st) < 0)
		return 0;
	return ktrace_error_set(err, -EBUSY, "the top buffer is in use by 'ktrace start' (%s): "
				"recording would empty it; save it with 'ktrace extract', end it with "
				"'ktrace reset --restore', or record in an instance (-B NAME)", path);
}

/* A session on one buffer, configured by o (record, stream, start). capture: readers
 * will be opened; existing: an existing instance is used (start) instead of refused. */
static int setup(const struct ktrace_tracefs_record_opts *o, bool capture, bool existing,
		 struct ktrace_tracefs_session **out, struct ktrace_error *err)
{
	struct ktrace_tracefs_session *s;
	struct tfs_buffer *b;
	char path[PATH_MAX];
	int ret;

	*out = NULL;
	if (!o->nevents && !o->tracer)
		return ktrace_error_set(err, -EINVAL, "no events to record");
	ret = session_new(o->tracefs, o->tmpdir, true, &s, err);
	if (ret)
		return ret;
	if (tfs_path(path, sizeof(path), s->tracefs, "tracing_on") == 0 && access(path, W_OK)) {
		ret = -errno;
		ktrace_error_set(err, ret, "cannot write %s: %s (ktrace needs root to change tracing)",
				 path, strerror(-ret));
		ktrace_tracefs_close(s);
		return ret;
	}
	s->save_tgids = capture && !o->no_tgids;
	s->in_memory = o->in_memory;
	s->exclude_self = capture && !o->trace_self;
	s->function_tracer = o->tracer && strcmp(o->tracer, "nop");
	s->keep_data = o->in_memory && o->keep_data;
	if (s->in_memory && pipe2(s->data_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		ret = -errno;
		ktrace_tracefs_close(s);
		return ktrace_error_set(err, ret, "pipe: %s", strerror(-ret));
	}
	s->half_bytes = o->max_kb ? (uint64_t)o->max_kb * 512 : 0;
	if (o->sleep_us)
		s->idle_wait_ms = o->sleep_us < 1000 ? 1 : (int)(o->sleep_us / 1000 > 60000 ? 60000
								     : o->sleep_us / 1000);
	b = add_buffer(s, o->instance ? o->instance : "", err);
	if (!b) {
		ktrace_tracefs_close(s);
		return -ENOMEM;
	}
	if (o->instance) {
		struct stat st;

		if (!*o->instance || strchr(o->instance, '/') || !strcmp(o->instance, ".") ||
		    !strcmp(o->instance, "..")) {
			ktrace_tracefs_close(s);
			return ktrace_error_set(err, -EINVAL, "invalid instance name \"%s\"",
						o->instance);
		}
		if (existing && stat(b->dir, &st) == 0) {
			/* ktrace start on an instance that is there: used as it is */
		} else if (mkdir(b->dir, 0755) < 0) {
			ret = -errno;
			ktrace_error_set(err, ret, "cannot create instance %s: %s%s", b->dir,
					 strerror(-ret),
					 ret == -EEXIST ? " (it exists already: remove it, or name "
							  "another one)" : "");
			ktrace_tracefs_close(s);
			return ret;
		} else {
			b->created = true;
			/* a recorder's instance (not ktrace start's, which stays on purpose) is
			 * noted so that a killed recording's is found */
			if (capture)
				tfs_instance_note(o->instance);
		}
	}
	/* a buffer in use is not taken over: the top buffer is claimed through its
	 * journal, which then notes every value before it changes; a buffer another
	 * process reads is refused (two readers split its events between them) */
	if (!b->created) {
		ret = *b->name ? 0 : tfs_journal_claim(b, s->tracefs, capture, err);
		if (!ret)
			ret = tfs_buffer_busy(s->tracefs, b->name, b->dir, err);
		if (!ret && capture && !*b->name)
			ret = started_top(err);
		if (ret) {
			ktrace_tracefs_close(s);
			return ret;
		}
	}
	ret = tfs_list_events(b->dir, &s->events, err);
	if (!ret)
		ret = select_events(s, o, err);
	if (!ret)
		ret = buffer_info(s, b, err);
	if (!ret)
		ret = configure(s, b, o, capture, err);
	if (!ret && capture)
		ret = tfs_capture_open(s, b, err);
	if (ret) {
		ktrace_tracefs_close(s);
		return ret;
	}
	read_start_counters(b);
	*out = s;
	return 0;
}

int ktrace_tracefs_record_open(const struct ktrace_tracefs_record_opts *opts,
			       struct ktrace_tracefs_session **out, struct ktrace_error *err)
{
	struct ktrace_tracefs_record_opts o;
	int ret;

	*out = NULL;
	if ((ret = KT_OPTS_COPY(&o, opts, "ktrace_tracefs_record_opts", err)))
		return ret;
	return setup(&o, true, false, out, err);
}

int ktrace_tracefs_start_tracing(const struct ktrace_tracefs_record_opts *opts,
				 const char *state_dir, struct ktrace_error *err)
{
	struct ktrace_tracefs_record_opts copy;
	const struct ktrace_tracefs_record_opts *o = &copy;
	struct ktrace_tracefs_session *s;
	struct tfs_plan plan = { 0 };
	char path[PATH_MAX];
	int ret;

	if ((ret = KT_OPTS_COPY(&copy, opts, "ktrace_tracefs_record_opts", err)))
		return ret;
	ret = tfs_state_path(state_dir, o->instance, path, sizeof(path), err);
	if (ret)
		return ret;
	ret = setup(o, false, true, &s, err);
	if (ret)
		return ret;
	ret = tfs_restore_plan(&s->bufs[0], &plan);
	if (ret)
		ret = ktrace_error_set(err, ret, "out of memory");
	if (!ret)
		ret = tfs_state_save(path, &plan, err);
	tfs_plan_free(&plan);
	if (!ret)
		ret = bwrite(&s->bufs[0], "tracing_on", "1", false, err);
	if (!ret) {
		/* from now on the buffer stays as configured (and tracefs mounted) */
		s->keep_state = true;
		s->bufs[0].saved_valid = false;
		s->bufs[0].created = false;
		s->mounted = false;
	}
	ktrace_tracefs_close(s);
	return ret;
}

int ktrace_tracefs_extract_open(const struct ktrace_tracefs_extract_opts *opts,
				struct ktrace_tracefs_session **out, struct ktrace_error *err)
{
	struct ktrace_tracefs_extract_opts copy;
	const struct ktrace_tracefs_extract_opts *o = &copy;
	struct ktrace_tracefs_session *s;
	int ret;

	*out = NULL;
	if ((ret = KT_OPTS_COPY(&copy, opts, "ktrace_tracefs_extract_opts", err)))
		return ret;
	ret = session_new(o->tracefs, o->tmpdir, false, &s, err);
	if (ret)
		return ret;
	s->all_formats = true;
	if (o->all || o->top || !o->ninstances) {
		if (!add_buffer(s, "", err)) {
			ktrace_tracefs_close(s);
			return -ENOMEM;
		}
	}
	if (o->all) {
		char path[PATH_MAX];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "%s/instances", s->tracefs);
		d = opendir(path);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.' || de->d_type != DT_DIR)
				continue;
			if (!add_buffer(s, de->d_name, err)) {
				closedir(d);
				ktrace_tracefs_close(s);
				return -ENOMEM;
			}
		}
		if (d)
			closedir(d);
	} else {
		for (size_t i = 0; i < o->ninstances; i++) {
			struct tfs_buffer *b = add_buffer(s, o->instances[i], err);
			struct stat st;

			if (!b) {
				ktrace_tracefs_close(s);
				return -ENOMEM;
			}
			if (!*o->instances[i] || strchr(o->instances[i], '/') ||
			    stat(b->dir, &st) < 0) {
				ktrace_error_set(err, -ENOENT, "no instance \"%s\" in %s/instances",
						 o->instances[i], s->tracefs);
				ktrace_tracefs_close(s);
				return -ENOENT;
			}
		}
	}
	for (size_t i = 0; i < s->nbufs; i++) {
		/* reading consumes: not while another process reads (records) the buffer */
		ret = tfs_buffer_busy(s->tracefs, s->bufs[i].name, s->bufs[i].dir, err);
		if (!ret)
			ret = buffer_info(s, &s->bufs[i], err);
		if (!ret)
			ret = tfs_capture_open(s, &s->bufs[i], err);
		if (ret) {
			ktrace_tracefs_close(s);
			return ret;
		}
	}
	ret = tfs_list_events(s->tracefs, &s->events, err);
	if (ret) {
		ktrace_tracefs_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

int ktrace_tracefs_add_pid(struct ktrace_tracefs_session *s, pid_t pid, struct ktrace_error *err)
{
	char v[32];

	if (!s->record || !s->nbufs)
		return ktrace_error_set(err, -EINVAL, "not a record session");
	snprintf(v, sizeof(v), "%d", (int)pid);
	if (!s->bufs[0].saved.event_pid) {
		int ret;

		if (bread(&s->bufs[0], "set_event_pid", &s->bufs[0].saved.event_pid, err))
			return -EIO;
		if ((ret = tfs_journal_note(&s->bufs[0], 's', "set_event_pid",
					    s->bufs[0].saved.event_pid, err)))
			return ret;
	}
	return bwrite(&s->bufs[0], "set_event_pid", v, true, err);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The process's threads, sorted (malloc'ed; 0 when /proc cannot tell). */
static size_t own_threads(int **out)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int *t = NULL;
	size_t n = 0;

	*out = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		int *g;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (!(g = kt_realloc_array(t, n + 1, sizeof(*t)))) {
			free(t);
			closedir(d);
			return 0;
		}
		t = g;
		t[n++] = atoi(e->d_name);
	}
	closedir(d);
	qsort(t, n, sizeof(*t), cmp_int);
	*out = t;
	return n;
}

/* The threads as a pid list ("tid tid ..."); malloc'ed, NULL without memory. */
static char *threads_text(const int *t, size_t n)
{
	char *s = malloc(n * 12 + 1);
	size_t len = 0;

	if (!s)
		return NULL;
	s[0] = 0;
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(s + len, "%s%d", len ? " " : "", t[i]);
	return s;
}

/* The process's own threads (the caller's and the readers) are left out of the trace:
 * a recorder's system calls and switches would otherwise fill the trace it writes, and
 * a live view's printing would feed what it shows. Their ids go in each buffer's
 * set_event_notrace_pid and, with a tracer, set_ftrace_notrace_pid, where the kernel
 * has (and lets one write) them; the old values are saved like the session's others and
 * put back at the end. The kernel still records a switch away from such a thread and a
 * wakeup it does when the other task is traced: those are the other task's switch-in
 * and wakeup, without which its time on the CPU and its wakeup latency could not be
 * told, so they stay (the live view does not print them: ktrace_tracefs_own_thread). A
 * process the caller forked before (the command run under tracing) is not among them
 * and is traced from its fork on. Best effort: where the kernel lacks a file or refuses
 * a value, the threads stay in the trace. */
static void exclude_self(struct ktrace_tracefs_session *s)
{
	int *t;
	size_t n = own_threads(&t);
	char *list = n ? threads_text(t, n) : NULL;

	for (size_t i = 0; list && i < s->nbufs; i++) {
		static const char *const files[] = { "set_event_notrace_pid", "set_ftrace_notrace_pid" };
		struct tfs_buffer *b = &s->bufs[i];
		struct ktrace_error ignore;

		for (size_t f = 0; f < 2; f++) {
			char path[PATH_MAX + 32], *old = NULL, *both = NULL;

			if (f == 1 && !s->function_tracer)
				continue;
			snprintf(path, sizeof(path), "%s/%s", b->dir, files[f]);
			if (access(path, W_OK) || tfs_read_value(b->dir, files[f], &old))
				continue;
			/* the ids already there stay (one a line in the file) */
			for (char *c = old; *c; c++)
				if (*c == '\n')
					*c = ' ';
			if (*old && asprintf(&both, "%s %s", old, list) < 0)
				both = NULL;
			if (!*old || both)
				save_set_extra(b, files[f], both ? both : list, &ignore);
			free(both);
			free(old);
		}
	}
	free(list);
	if (list) {
		free(s->self);
		s->self = t;
		s->nself = n;
	} else {
		free(t);
	}
}

bool ktrace_tracefs_own_thread(const struct ktrace_tracefs_session *s, int tid)
{
	size_t lo = 0, hi = s->nself;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (s->self[m] == tid)
			return true;
		if (s->self[m] < tid)
			lo = m + 1;
		else
			hi = m;
	}
	return false;
}

int ktrace_tracefs_start(struct ktrace_tracefs_session *s, struct ktrace_error *err)
{
	int ret;

	if (!s->record || s->started)
		return ktrace_error_set(err, -EINVAL, "session not startable");
	for (size_t i = 0; i < s->nbufs; i++)
		if ((ret = tfs_capture_start(s, &s->bufs[i], err)))
			return ret;
	s->started = true;
	/* the readers exist now: every thread of the process goes in the lists */
	if (s->exclude_self)
		exclude_self(s);
	for (size_t i = 0; i < s->nbufs; i++)
		if ((ret = bwrite(&s->bufs[i], "tracing_on", "1", false, err)))
			return ret;
	return 0;
}

void ktrace_tracefs_progress(struct ktrace_tracefs_session *s, struct ktrace_progress *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < s->nbufs; i++) {
		struct tfs_buffer *b = &s->bufs[i];

		for (size_t k = 0; k < b->ncpus; k++) {
			struct tfs_cpu *c = &b->cpus[k];
			struct tfs_counters now;

			p->bytes += atomic_load(&c->bytes);
			if (tfs_read_counters(b->dir, c->cpu, &now, NULL))
				continue;
			p->events += now.read - c->start.read;
			p->lost += (now.overrun - c->start.overrun) +
				   (now.commit_overrun - c->start.commit_overrun) +
				   (now.dropped - c->start.dropped);
		}
	}
}

static uint64_t delta(uint64_t end, uint64_t start)
{
	return end >= start ? end - start : 0;
}

/* Kernel long size from events/header_page (size of the commit field). */
unsigned int tfs_kernel_long(const char *tracefs)
{
	char path[PATH_MAX], *t;
	unsigned int size = sizeof(long);

	if (tfs_path(path, sizeof(path), tracefs, "events/header_page") ||
	    tfs_read_file(path, 1 << 16, &t, NULL))
		return size;
	{
		const char *p = strstr(t, " commit;");
		const char *sz = p ? strstr(p, "size:") : NULL;

		if (sz && (sz[5] == '4' || sz[5] == '8'))
			size = (unsigned int)(sz[5] - '0');
	}
	free(t);
	return size;
}

int ktrace_tracefs_stop(struct ktrace_tracefs_session *s, struct ktrace_error *err)
{
	unsigned int lsize;
	int ret = 0;

	if (s->stopped)
		return 0;
	s->stopped = true;
	if (s->record) {
		for (size_t i = 0; i < s->nbufs; i++) {
			int r = bwrite(&s->bufs[i], "tracing_on", "0", false, err);

			if (r && !ret)
				ret = r;
		}
		if (write(s->stop_pipe[1], "x", 1) < 0 && !ret)
			ret = ktrace_error_set(err, -errno, "cannot stop the reader threads");
		for (size_t i = 0; i < s->nbufs; i++)
			tfs_capture_join(&s->bufs[i]);
	}
	lsize = tfs_kernel_long(s->tracefs);
	for (size_t i = 0; i < s->nbufs; i++) {
		struct tfs_buffer *b = &s->bufs[i];

		for (size_t k = 0; k < b->ncpus; k++) {
			struct tfs_cpu *c = &b->cpus[k];
			uint64_t limit = UINT64_MAX;
			char *text = NULL;
			int r = 0;

			if (c->error && !ret)
				ret = ktrace_error_set(err, c->error, "CPU %u: %s: %s", c->cpu,
						       c->error_what ? c->error_what : "capture",
						       strerror(-c->error));
			if (!s->record) {
				/* the buffer may still be written to: read at most twice its
				 * size, so that extract ends */
				char name[64], *v = NULL;

				snprintf(name, sizeof(name), "per_cpu/cpu%u/buffer_size_kb", c->cpu);
				limit = 64ull << 20;
				if (tfs_read_value(b->dir, name, &v) == 0 && strtoull(v, NULL, 10))
					limit = strtoull(v, NULL, 10) * 2048 + 16ull * b->page_size;
				free(v);
			}
			if (!ret)
				r = tfs_capture_drain(b, c, limit, err);
			if (r && !ret)
				ret = r;
			tfs_read_counters(b->dir, c->cpu, &c->end, &text);
			c->stats.cpu = c->cpu;
			c->stats.events = delta(c->end.read, c->start.read);
			c->stats.overrun = delta(c->end.overrun, c->start.overrun);
			c->stats.commit_overrun = delta(c->end.commit_overrun, c->start.commit_overrun);
			c->stats.dropped = delta(c->end.dropped, c->start.dropped);
			c->stats.unread = c->end.entries;
			c->stats.discarded = c->discarded;
			c->stats.lost = c->stats.overrun + c->stats.commit_overrun + c->stats.dropped +
					c->stats.unread;
			free(c->stats.stats_text);
			c->stats.stats_text = text;
			tfs_capture_scan(b, c, lsize, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
			/* a live session's data is given up as it is printed: what it read is
			 * the kernel's count since the start */
			if (s->in_memory)
				c->stats.events = delta(c->end.read, c->start.read);
		}
		/* the temporary files stay open until written */
		tfs_capture_close(b, false);
	}
	return ret;
}

size_t ktrace_tracefs_buffer_count(const struct ktrace_tracefs_session *s)
{
	return s->nbufs;
}

const char *ktrace_tracefs_buffer_name(const struct ktrace_tracefs_session *s, size_t buffer)
{
	return buffer < s->nbufs ? s->bufs[buffer].name : NULL;
}

size_t ktrace_tracefs_cpu_count(const struct ktrace_tracefs_session *s, size_t buffer)
{
	return buffer < s->nbufs ? s->bufs[buffer].ncpus : 0;
}

const struct ktrace_cpu_stats *ktrace_tracefs_cpu_stats(const struct ktrace_tracefs_session *s,
							size_t buffer, size_t i)
{
	if (buffer >= s->nbufs || i >= s->bufs[buffer].ncpus)
		return NULL;
	return &s->bufs[buffer].cpus[i].stats;
}

/* ------------------------------------------------------------------ write */

static int read_text(const char *dir, const char *name, size_t max, char **text, size_t *len,
		     struct ktrace_error *err)
{
	char path[PATH_MAX];
	int ret = dir ? tfs_path(path, sizeof(path), dir, name)
		      : (snprintf(path, sizeof(path), "%s", name) < 0 ? -EINVAL : 0);

	if (!ret)
		ret = tfs_read_file(path, max, text, len);
	if (ret)
		return ktrace_error_set(err, ret, "cannot read %s: %s", path, strerror(-ret));
	return 0;
}

static int write_formats(struct ktrace_tracefs_session *s, struct tracedat_writer *w,
			 struct ktrace_error *err)
{
	int ret = 0;

	/* the ftrace system's formats, always */
	for (size_t i = 0; i < s->events.n && !ret; i++) {
		char name[PATH_MAX], *t;
		size_t len;

		if (strcmp(s->events.ev[i].system, "ftrace"))
			continue;
		snprintf(name, sizeof(name), "events/ftrace/%s/format", s->events.ev[i].name);
		if (read_text(s->tracefs, name, 1 << 20, &t, &len, err))
			return -EIO;
		ret = tracedat_writer_add_ftrace_format(w, t, len, err);
		free(t);
	}
	for (size_t i = 0; i < s->events.n && !ret; i++) {
		const struct tfs_event *e = &s->events.ev[i];
		char name[PATH_MAX], *t;
		size_t len;

		if (!strcmp(e->system, "ftrace") || (!s->all_formats && !e->selected))
			continue;
		snprintf(name, sizeof(name), "events/%s/%s/format", e->system, e->name);
		if (read_text(s->tracefs, name, 1 << 20, &t, &len, err))
			return -EIO;
		ret = tracedat_writer_add_event_format(w, e->system, t, len, err);
		free(t);
	}
	return ret;
}

static int add_text_option(struct tracedat_writer *w, uint16_t id, const char *text,
			   struct ktrace_error *err)
{
	return tracedat_writer_add_option(w, id, text, (uint32_t)strlen(text) + 1, err);
}

static int write_options(struct ktrace_tracefs_session *s, struct tracedat_writer *w,
			 struct ktrace_error *err)
{
	struct utsname u;
	char text[1024];
	uint64_t id;
	int ret;

	if ((ret = add_text_option(w, TRACEDAT_OPT_TRACECLOCK, s->bufs[0].clock_text, err)))
		return ret;
	if (uname(&u) == 0) {
		snprintf(text, sizeof(text), "%s %s %s %s", u.sysname, u.nodename, u.release,
			 u.machine);
		if ((ret = add_text_option(w, TRACEDAT_OPT_UNAME, text, err)))
			return ret;
	}
	snprintf(text, sizeof(text), "ktrace %s", ktrace_version());
	if ((ret = add_text_option(w, TRACEDAT_OPT_VERSION, text, err)))
		return ret;
	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
	if ((ret = tracedat_writer_add_option(w, TRACEDAT_OPT_TRACEID, &id, 8, err)))
		return ret;
	if (s->save_tgids) {
		char *t;
		size_t len;

		if (read_text(s->tracefs, "saved_tgids", MAX_TEXT, &t, &len, err))
			return -EIO;
		ret = tracedat_writer_add_option(w, TRACEDAT_OPT_SAVED_TGIDS, t, (uint32_t)len, err);
		free(t);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < s->nbufs; i++) {
		struct tfs_buffer *b = &s->bufs[i];

		if (*b->name) {
			snprintf(text, sizeof(text), "\nBuffer: %s\n\n", b->name);
			if ((ret = add_text_option(w, TRACEDAT_OPT_CPUSTAT, text, err)))
				return ret;
		}
		for (size_t k = 0; k < b->ncpus; k++) {
			struct tfs_cpu *c = &b->cpus[k];
			char *st;
			int n;

			if (!c->stats.stats_text)
				continue;
			n = asprintf(&st, "CPU: %u\n%s", c->cpu, c->stats.stats_text);
			if (n < 0)
				return oom(err);
			ret = add_text_option(w, TRACEDAT_OPT_CPUSTAT, st, err);
			free(st);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int ktrace_tracefs_write(struct ktrace_tracefs_session *s, const char *path,
			 const struct tracedat_write_opts *wopts, struct ktrace_error *err)
{
	struct tracedat_write_opts o;
	struct tracedat_writer *w;
	char *hp = NULL, *he = NULL, *text = NULL;
	size_t hplen, helen, len;
	int *index = NULL;
	int ret;

	if ((ret = KT_OPTS_COPY(&o, wopts, "tracedat_write_opts", err)))
		return ret;
	if (!s->stopped || !s->nbufs)
		return ktrace_error_set(err, -EINVAL, "nothing recorded yet");
	o.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	o.long_size = sizeof(long);
	o.page_size = s->bufs[0].page_size;
	ret = tracedat_writer_create(path, &o, &w, err);
	if (ret)
		return ret;
	/* the first buffer's header_page (buffer_info), which says its sub-buffer size */
	if (!s->bufs[0].header_page)
		ret = read_text(s->tracefs, "events/header_page", 1 << 20, &hp, &hplen, err);
	if (!ret && !(ret = read_text(s->tracefs, "events/header_event", 1 << 20, &he, &helen, err)))
		ret = hp ? tracedat_writer_headers(w, hp, hplen, he, helen, err)
			 : tracedat_writer_headers(w, s->bufs[0].header_page,
						   s->bufs[0].header_page_len, he, helen, err);
	free(hp);
	free(he);
	if (!ret)
		ret = write_formats(s, w, err);
	if (!ret && !(ret = read_text(NULL, "/proc/kallsyms", MAX_TEXT, &text, &len, err))) {
		ret = tracedat_writer_kallsyms(w, text, len, err);
		free(text);
	}
	if (!ret && !(ret = read_text(s->tracefs, "printk_formats", MAX_TEXT, &text, &len, err))) {
		ret = tracedat_writer_printk(w, text, len, err);
		free(text);
	}
	if (!ret && !(ret = read_text(s->tracefs, "saved_cmdlines", MAX_TEXT, &text, &len, err))) {
		ret = tracedat_writer_cmdlines(w, text, len, err);
		free(text);
	}
	if (!ret)
		ret = tracedat_writer_set_cpus(w, s->ncpus_machine, err);
	if (!ret)
		ret = write_options(s, w, err);
	if (!ret && !(index = calloc(s->nbufs, sizeof(*index))))
		ret = oom(err);
	/* an instance-only session still has a (empty) top buffer, as trace-cmd writes */
	if (!ret && *s->bufs[0].name)
		ret = tracedat_writer_add_buffer(w, "", s->bufs[0].clock, s->bufs[0].page_size, false,
						 err);
	for (size_t i = 0; ret >= 0 && i < s->nbufs; i++) {
		ret = tracedat_writer_add_buffer(w, s->bufs[i].name, s->bufs[i].clock,
						 s->bufs[i].page_size, false, err);
		if (ret >= 0)
			index[i] = ret;
	}
	if (ret > 0)
		ret = 0;
	for (size_t i = 0; !ret && i < s->nbufs; i++) {
		struct tfs_buffer *b = &s->bufs[i];

		for (size_t k = 0; !ret && k < b->ncpus; k++) {
			struct tfs_cpu *c = &b->cpus[k];
			uint64_t bytes = atomic_load(&c->bytes);

			if (!bytes && !c->old_bytes)
				continue;
			ret = tracedat_writer_cpu_begin(w, (unsigned int)index[i], c->cpu, err);
			if (!ret && c->old_fd >= 0 && c->old_bytes)
				ret = tracedat_writer_cpu_copy_fd(w, c->old_fd, 0, c->old_bytes, err);
			if (!ret)
				ret = tracedat_writer_cpu_copy_fd(w, c->out_fd, 0, bytes, err);
			if (!ret)
				ret = tracedat_writer_cpu_end(w, err);
		}
	}
	free(index);
	if (ret) {
		tracedat_writer_abort(w);
		return ret;
	}
	return tracedat_writer_close(w, err);
}

/* ------------------------------------------------------------------ restore, close */

int ktrace_tracefs_restore(struct ktrace_tracefs_session *s, struct ktrace_error *err)
{
	int first = 0;

	if (s->restored)
		return 0;
	s->restored = true;
	for (size_t i = 0; i < s->nbufs; i++) {
		struct tfs_buffer *b = &s->bufs[i];
		int ret = tfs_restore_buffer(b, first ? NULL : err);

		if (ret && !first)
			first = ret;
		/* everything is put back (or said not to be): the journal goes */
		tfs_journal_release(b);
		if (b->created) {
			/* an instance cannot go while its files are open */
			tfs_capture_close(b, false);
			for (int tries = 0;; tries++) {
				if (rmdir(b->dir) == 0 || errno == ENOENT) {
					tfs_instance_forget(b->name);
					break;
				}
				if (errno != EBUSY || tries == 40) {
					if (!first)
						first = ktrace_error_set(err, -errno,
									 "cannot remove instance %s: %s",
									 b->dir, strerror(errno));
					break;
				}
				usleep(50000);
			}
			b->created = false;
		}
	}
	return first;
}

void ktrace_tracefs_close(struct ktrace_tracefs_session *s)
{
	if (!s)
		return;
	if (s->started && !s->stopped) {
		/* stop the threads without reading more */
		if (s->stop_pipe[1] >= 0 && write(s->stop_pipe[1], "x", 1) < 0) {
			/* the threads also wake up every second and see the closed fds */
		}
		for (size_t i = 0; i < s->nbufs; i++)
			tfs_capture_join(&s->bufs[i]);
	}
	ktrace_tracefs_restore(s, NULL);
	for (size_t i = 0; i < s->nbufs; i++)
		tfs_capture_close(&s->bufs[i], true);
	if (s->mounted && umount(s->tracefs) == 0) {
		/* we mounted it: it is left unmounted, as we found it */
		s->mounted = false;
	}
	for (size_t i = 0; i < s->nbufs; i++) {
		struct tfs_buffer *b = &s->bufs[i];

		for (size_t k = 0; k < b->ncpus; k++)
			free(b->cpus[k].stats.stats_text);
		free(b->cpus);
		free(b->name);
		free(b->header_page);
		free(b->clock_text);
		tfs_free_saved(&b->saved);
		tfs_journal_release(b);
	}
	free(s->bufs);
	tfs_free_events(&s->events);
	if (s->stop_pipe[0] >= 0)
		close(s->stop_pipe[0]);
	if (s->stop_pipe[1] >= 0)
		close(s->stop_pipe[1]);
	if (s->data_pipe[0] >= 0)
		close(s->data_pipe[0]);
	if (s->data_pipe[1] >= 0)
		close(s->data_pipe[1]);
	tfs_live_free(s->live);
	free(s->tracefs);
	free(s->tmpdir);
	free(s->self);
	free(s);
}
