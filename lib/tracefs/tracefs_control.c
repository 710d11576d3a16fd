// SPDX-License-Identifier: MIT
/*
 * Tracing controlled without a recorder: tracing_on of buffers (ktrace stop, restart),
 * emptying them (clear), and putting them back to the kernel's defaults or to what
 * ktrace start found (reset).
 *
 * The defaults of the per-buffer settings that differ from one kernel to another (the
 * buffer size, the sub-buffer size, buffer_percent, the trace options) are read from an
 * instance made for the purpose and removed at once: a new instance has them.
 */
#include <ktrace/tracefs.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/opts.h"
#include "tracefs/tracefs_int.h"

struct target {
	char *tracefs;
	bool mounted;
	char **names;                   /* "" for the top buffer */
	size_t n;
};

static void target_free(struct target *t)
{
	if (t->mounted)
		umount2(t->tracefs, 0);
	tfs_free_names(t->names, t->n);
	free(t->tracefs);
	memset(t, 0, sizeof(*t));
}

static int add(struct target *t, const char *name)
{
	char **v = kt_realloc_array(t->names, t->n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->names = v;
	v[t->n] = strdup(name);
	if (!v[t->n])
		return -ENOMEM;
	t->n++;
	return 0;
}

/* The buffers a command acts on, each checked to exist. */
static int resolve(const struct ktrace_tracefs_target *tt, bool mount_it, struct target *t,
		   struct ktrace_error *err)
{
	int ret;

	memset(t, 0, sizeof(*t));
	if (tt->tracefs) {
		t->tracefs = strdup(tt->tracefs);
		if (!t->tracefs)
			return kt_error_oom(err);
	} else if ((ret = ktrace_tracefs_find(mount_it, &t->tracefs, &t->mounted, err))) {
		return ret;
	}
	ret = 0;
	if (tt->all || tt->top || !tt->ninstances)
		ret = add(t, "");
	if (!ret && tt->all) {
		char path[PATH_MAX], **names;
		size_t n;

		snprintf(path, sizeof(path), "%s/instances", t->tracefs);
		if (tfs_list_dirs(path, true, &names, &n) == 0) {
			for (size_t i = 0; i < n && !ret; i++)
				ret = add(t, names[i]);
			tfs_free_names(names, n);
		}
	}
	for (size_t i = 0; !ret && !tt->all && i < tt->ninstances; i++) {
		char dir[PATH_MAX];

		if ((ret = tfs_buffer_dir(t->tracefs, tt->instances[i], dir, sizeof(dir), err))) {
			target_free(t);
			return ret;
		}
		ret = add(t, tt->instances[i]);
	}
	if (ret) {
		target_free(t);
		return ktrace_error_set(err, ret, "out of memory");
	}
	return 0;
}

static void buffer_dir(const struct target *t, size_t i, char *out, size_t len)
{
	if (*t->names[i])
		snprintf(out, len, "%s/instances/%s", t->tracefs, t->names[i]);
	else
		snprintf(out, len, "%s", t->tracefs);
}

/* Keeps the first error of a series of writes. */
static void keep(int ret, int *first, struct ktrace_error *err, const struct ktrace_error *e2)
{
	if (ret && !*first) {
		*first = ret;
		*err = *e2;
	}
}

int ktrace_tracefs_set_tracing(const struct ktrace_tracefs_target *tt, bool on, struct ktrace_error *err)
{
	struct target t;
	int first = 0, ret = resolve(tt, false, &t, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < t.n; i++) {
		struct ktrace_error e2 = { 0 };
		char dir[PATH_MAX];

		buffer_dir(&t, i, dir, sizeof(dir));
		keep(tfs_dir_write(dir, "tracing_on", on ? "1" : "0", false, &e2), &first, err, &e2);
	}
	target_free(&t);
	return first;
}

int ktrace_tracefs_clear(const struct ktrace_tracefs_target *tt, struct ktrace_error *err)
{
	struct target t;
	int first = 0, ret = resolve(tt, false, &t, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < t.n; i++) {
		struct ktrace_error e2 = { 0 };
		char dir[PATH_MAX];

		buffer_dir(&t, i, dir, sizeof(dir));
		keep(tfs_dir_write(dir, "trace", "", false, &e2), &first, err, &e2);
	}
	target_free(&t);
	return first;
}

/* ------------------------------------------------------------------ reset */

/* What a new instance has. */
struct defaults {
	char *buffer_kb, *subbuf_kb, *buffer_percent;
	struct tfs_kv *options;
	size_t noptions;
	bool ok;
};

static void defaults_free(struct defaults *d)
{
	free(d->buffer_kb);
	free(d->subbuf_kb);
	free(d->buffer_percent);
	for (size_t i = 0; i < d->noptions; i++) {
		free(d->options[i].file);
		free(d->options[i].value);
	}
	free(d->options);
	memset(d, 0, sizeof(*d));
}

static void read_defaults(const char *tracefs, struct defaults *d)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	DIR *od;

	memset(d, 0, sizeof(*d));
	if (tfs_pathf(dir, sizeof(dir), "%s/instances/ktrace-defaults-%d", tracefs, (int)getpid()) ||
	    mkdir(dir, 0755) < 0)
		return;
	if (tfs_read_value(dir, "buffer_size_kb", &d->buffer_kb) == 0) {
		/* "7 (expanded: 1410)": the size it gets once used */
		char *exp = strstr(d->buffer_kb, "expanded:");

		if (exp)
			memmove(d->buffer_kb, exp + 9, strlen(exp + 9) + 1);
		d->buffer_kb[strcspn(d->buffer_kb, ")")] = 0;
	}
	tfs_read_value(dir, "buffer_subbuf_size_kb", &d->subbuf_kb);
	tfs_read_value(dir, "buffer_percent", &d->buffer_percent);
	od = tfs_pathf(path, sizeof(path), "%s/options", dir) ? NULL : opendir(path);
	while (od && (de = readdir(od))) {
		struct tfs_kv *v;
		char *value;

		if (de->d_name[0] == '.' || tfs_read_value(path, de->d_name, &value))
			continue;
		v = kt_realloc_array(d->options, d->noptions + 1, sizeof(*v));
		if (!v || !(v[d->noptions].file = strdup(de->d_name))) {
			if (v)
				d->options = v;
			free(value);
			break;
		}
		d->options = v;
		v[d->noptions++].value = value;
	}
	if (od)
		closedir(od);
	for (int tries = 0; rmdir(dir) < 0 && errno == EBUSY && tries < 40; tries++)
		usleep(50000);
	d->ok = true;
}

/* Every event's filter file back to none, every trigger removed. */
static void clear_event_settings(const char *dir, int *first, struct ktrace_error *err)
{
	char path[PATH_MAX], **systems;
	size_t nsys;

	if (tfs_pathf(path, sizeof(path), "%s/events", dir) || tfs_list_dirs(path, true, &systems, &nsys))
		return;
	for (size_t s = 0; s < nsys; s++) {
		char sdir[PATH_MAX], **evs;
		size_t nev;

		if (tfs_pathf(sdir, sizeof(sdir), "%s/%s", path, systems[s]) ||
		    tfs_list_dirs(sdir, true, &evs, &nev))
			continue;
		for (size_t e = 0; e < nev; e++) {
			struct ktrace_error e2 = { 0 };
			char edir[PATH_MAX], *v;

			if (tfs_pathf(edir, sizeof(edir), "%s/%s", sdir, evs[e]))
				continue;
			if (tfs_read_value(edir, "filter", &v) == 0) {
				if (strcmp(v, "none"))
					keep(tfs_dir_write(edir, "filter", "0", false, &e2), first, err, &e2);
				free(v);
			}
			/* opened with O_TRUNC, a trigger file drops its triggers; those that
			 * depend on others go one by one, in a few rounds */
			for (int round = 0; round < 4 && tfs_read_value(edir, "trigger", &v) == 0; round++) {
				char *line, *save = NULL;
				bool left = false;

				for (line = strtok_r(v, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
					char cmd[1024];

					if (line[0] == '#')
						continue;
					left = true;
					if (round == 0)
						continue;
					snprintf(cmd, sizeof(cmd), "!%.*s", (int)strcspn(line, " "), line);
					tfs_dir_write(edir, "trigger", cmd, true, &e2);
				}
				free(v);
				if (!left)
					break;
				if (round == 0)
					tfs_dir_write(edir, "trigger", "", false, &e2);
			}
		}
		tfs_free_names(evs, nev);
	}
	tfs_free_names(systems, nsys);
}

/* Whether a pid or function filter file holds something (not just comments, "no pid"
 * or nothing): only then is it written, as writing them may be refused where function
 * tracing is. */
static bool is_set(const char *dir, const char *file)
{
	char *v;
	bool set = false;

	if (tfs_read_value(dir, file, &v))
		return false;
	for (const char *p = v; *p && !set;) {
		size_t n = strcspn(p, "\n");

		if (n && *p != '#' && strncmp(p, "no pid", n > 6 ? n : 6))
			set = true;
		p += n + (p[n] == '\n');
	}
	free(v);
	return set;
}

/* trace-cmd's mask of every CPU of the machine ("3", "ffffffff,ffffffff"...). */
static void all_cpus_mask(char *out, size_t len)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int cpus = n > 0 ? (unsigned int)n : 1;
	unsigned int full = (cpus - 1) / 32, bits = (cpus - 1) % 32 + 1;
	size_t used = (size_t)snprintf(out, len, "%x", (unsigned int)((1ull << bits) - 1));

	while (full-- && used + 10 < len)
		used += (size_t)snprintf(out + used, len - used, ",ffffffff");
}

static void reset_buffer(const char *dir, bool top, const struct defaults *d, int *first,
			 struct ktrace_error *err)
{
	static const char *const empty[] = {
		"set_event_pid", "set_event_notrace_pid", "set_ftrace_pid", "set_ftrace_notrace_pid",
		"set_ftrace_filter", "set_ftrace_notrace", "set_graph_function", "set_graph_notrace",
	};
	struct ktrace_error e2 = { 0 };
	char mask[256], path[PATH_MAX], *v;

#define W(file, value) keep(tfs_dir_write(dir, file, value, false, &e2), first, err, &e2)
#define W_IF(file, value)                                                          \
	do {                                                                       \
		if (tfs_path(path, sizeof(path), dir, file) == 0 && access(path, F_OK) == 0) \
			W(file, value);                                            \
	} while (0)

	W("tracing_on", "0");
	W("current_tracer", "nop");
	W("set_event", "");
	W_IF("events/enable", "0");
	clear_event_settings(dir, first, err);
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
		if (is_set(dir, empty[i]))
			W(empty[i], "");
	W("trace_clock", "local");
	all_cpus_mask(mask, sizeof(mask));
	W_IF("tracing_cpumask", mask);
	W_IF("tracing_max_latency", "0");
	if (d->ok) {
		if (d->subbuf_kb && tfs_read_value(dir, "buffer_subbuf_size_kb", &v) == 0) {
			if (strcmp(v, d->subbuf_kb))
				W("buffer_subbuf_size_kb", d->subbuf_kb);
			free(v);
		}
		if (d->buffer_kb)
			W("buffer_size_kb", d->buffer_kb);
		if (d->buffer_percent)
			W_IF("buffer_percent", d->buffer_percent);
		for (size_t i = 0; i < d->noptions; i++) {
			char file[PATH_MAX];
			const char *want;

			if (tfs_pathf(file, sizeof(file), "options/%s", d->options[i].file) ||
			    tfs_read_value(dir, file, &v))
				continue;
			/* options whose default differs between the top buffer and a new
			 * instance: trace_printk() goes to one buffer, by default the top
			 * one (an instance has 0, which the top buffer refuses); the top
			 * buffer's trace_marker writes land only with copy_trace_marker on
			 * (off, writing to it fails with ENODEV) */
			want = top && (!strcmp(d->options[i].file, "trace_printk_dest") ||
				       !strcmp(d->options[i].file, "copy_trace_marker"))
				       ? "1" : d->options[i].value;
			if (strcmp(v, want))
				W(file, want);
			free(v);
		}
	}
	W("trace", "");
	W_IF("error_log", "");
	if (top) {
		/* kprobes, uprobes, synthetic events: they are all events of the top level */
		struct ktrace_error ignore = { 0 };

		if (tfs_path(path, sizeof(path), dir, "dynamic_events") == 0 && access(path, F_OK) == 0)
			tfs_dir_write(dir, "dynamic_events", "", false, &ignore);
	}
	W("tracing_on", "1");
#undef W
#undef W_IF
}

static int remove_instance(const char *dir, struct ktrace_error *err)
{
	for (int tries = 0;; tries++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || tries == 40)
			return ktrace_error_set(err, -errno, "cannot remove instance %s: %s", dir,
						strerror(errno));
		usleep(50000);
	}
}

int ktrace_tracefs_reset(const struct ktrace_tracefs_target *tt,
			 const struct ktrace_tracefs_reset_opts *opts, struct ktrace_error *err)
{
	struct ktrace_tracefs_reset_opts copy;
	const struct ktrace_tracefs_reset_opts *o = &copy;
	struct defaults d = { 0 };
	struct target t;
	size_t restored = 0;
	int first = 0, ret;

	if ((ret = KT_OPTS_COPY(&copy, opts, "ktrace_tracefs_reset_opts", err)))
		return ret;
	if ((ret = resolve(tt, true, &t, err)))
		return ret;
	if (!o->restore)
		read_defaults(t.tracefs, &d);
	for (size_t i = 0; i < t.n; i++) {
		struct ktrace_error e2 = { 0 };
		char dir[PATH_MAX], state[PATH_MAX];
		bool removed = false;

		buffer_dir(&t, i, dir, sizeof(dir));
		if (tfs_state_path(o->state_dir, t.names[i], state, sizeof(state), &e2)) {
			keep(-ENAMETOOLONG, &first, err, &e2);
			continue;
		}
		if (o->restore) {
			struct tfs_plan p;
			bool undone = false;

			/* the top buffer as a killed record, stream or start found it */
			if (!*t.names[i]) {
				ret = tfs_journal_undo(t.tracefs, &e2);
				if (!ret) {
					undone = true;
					restored++;
				} else if (ret != -ENOENT) {
					keep(ret, &first, err, &e2);
				}
			}
			ret = tfs_state_load(state, &p, &e2);
			if (ret == -ENOENT && (tt->all || undone))
				continue;
			if (ret == -ENOENT) {
				ktrace_error_set(&e2, -ENOENT, "nothing to restore for %s: no state saved "
						 "by ktrace start (%s)", *t.names[i] ? t.names[i] : "the top buffer",
						 state);
				keep(-ENOENT, &first, err, &e2);
				continue;
			}
			if (ret) {
				keep(ret, &first, err, &e2);
				continue;
			}
			keep(tfs_plan_run(dir, &p, &e2), &first, err, &e2);
			removed = p.remove;
			restored++;
			tfs_plan_free(&p);
		} else {
			reset_buffer(dir, !*t.names[i], &d, &first, err);
			/* a killed session's journal: nothing of it is left to put back */
			if (!*t.names[i])
				tfs_journal_forget();
		}
		unlink(state);
		if (!removed && *t.names[i] && (o->remove || (tt->all && !o->restore)))
			keep(remove_instance(dir, &e2), &first, err, &e2);
	}
	if (o->restore && tt->all && !restored && !first)
		first = ktrace_error_set(err, -ENOENT, "nothing to restore: no state saved by ktrace "
					 "start");
	defaults_free(&d);
	/* tracefs stays mounted: it is the default state */
	t.mounted = false;
	target_free(&t);
	return first;
}
