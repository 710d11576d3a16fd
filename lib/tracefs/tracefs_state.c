// SPDX-License-Identifier: MIT
/*
 * What tracefs is set to now (ktrace stat): per buffer the tracer, the events enabled
 * (by system, in directory order, as trace-cmd stat walks them), filters and triggers,
 * function filters, buffer sizes, clock, CPU mask, pid filters, options, tracing_on and
 * the error log; for the whole, the instances and the stack tracer.
 */
#include <ktrace/tracefs.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "tracefs/tracefs_int.h"

/* A file's text with trailing white space removed (trace-cmd's strstrip keeps leading
 * white space out too); NULL when the file cannot be read. */
static char *read_stripped(const char *dir, const char *name)
{
	char path[PATH_MAX], *text, *p;
	size_t len;

	if (tfs_path(path, sizeof(path), dir, name) || tfs_read_file(path, 16u << 20, &text, &len))
		return NULL;
	while (len && isspace((unsigned char)text[len - 1]))
		text[--len] = 0;
	for (p = text; *p && isspace((unsigned char)*p); p++)
		;
	if (p != text)
		memmove(text, p, strlen(p) + 1);
	return text;
}

static int push_setting(struct ktrace_tracefs_event_setting **v, size_t *n, const char *system,
			const char *event, const char *value)
{
	struct ktrace_tracefs_event_setting *nv = kt_realloc_array(*v, *n + 1, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n].system = strdup(system);
	nv[*n].event = strdup(event);
	nv[*n].value = strdup(value);
	(*n)++;
	return nv[*n - 1].system && nv[*n - 1].event && nv[*n - 1].value ? 0 : -ENOMEM;
}

static int push_name(char ***v, size_t *n, const char *name)
{
	char **nv = kt_realloc_array(*v, *n + 1, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = strdup(name);
	return nv[*n - 1] ? 0 : -ENOMEM;
}

/* Systems, their enabled events, filters and triggers, in directory order. */
static int read_events(const char *dir, struct ktrace_tracefs_buffer_state *b)
{
	char path[PATH_MAX], **systems;
	size_t nsys;
	int ret;

	if (tfs_pathf(path, sizeof(path), "%s/events", dir))
		return -ENAMETOOLONG;
	ret = tfs_list_dirs(path, false, &systems, &nsys);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	b->systems = calloc(nsys ? nsys : 1, sizeof(*b->systems));
	if (!b->systems) {
		tfs_free_names(systems, nsys);
		return -ENOMEM;
	}
	for (size_t s = 0; s < nsys && !ret; s++) {
		struct ktrace_tracefs_system_state *sy = &b->systems[b->nsystems];
		char sdir[PATH_MAX], *enable, **evs;
		size_t nev;

		if (tfs_pathf(sdir, sizeof(sdir), "%s/%s", path, systems[s]) ||
		    tfs_list_dirs(sdir, false, &evs, &nev))
			continue;
		enable = read_stripped(sdir, "enable");
		sy->name = strdup(systems[s]);
		sy->enable = enable ? enable[0] : 0;
		free(enable);
		b->nsystems++;
		if (!sy->name)
			ret = -ENOMEM;
		for (size_t e = 0; e < nev && !ret; e++) {
			char edir[PATH_MAX], *v;

			if (tfs_pathf(edir, sizeof(edir), "%s/%s", sdir, evs[e]))
				continue;
			if (sy->enable != '0' && sy->enable != '1' && (v = read_stripped(edir, "enable"))) {
				if (v[0] == '1')
					ret = push_name(&sy->enabled, &sy->nenabled, evs[e]);
				free(v);
			}
			if (!ret && (v = read_stripped(edir, "filter"))) {
				if (strcmp(v, "none"))
					ret = push_setting(&b->filters, &b->nfilters, systems[s], evs[e], v);
				free(v);
			}
			if (!ret && (v = read_stripped(edir, "trigger"))) {
				if (v[0] != '#')
					ret = push_setting(&b->triggers, &b->ntriggers, systems[s], evs[e], v);
				free(v);
			}
		}
		tfs_free_names(evs, nev);
	}
	tfs_free_names(systems, nsys);
	return ret;
}

static int read_options(const char *dir, struct ktrace_tracefs_buffer_state *b)
{
	char path[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = tfs_pathf(path, sizeof(path), "%s/options", dir) ? NULL : opendir(path);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		struct ktrace_tracefs_option_state *nv;
		char *v;

		if (de->d_name[0] == '.' || !(v = read_stripped(path, de->d_name)))
			continue;
		nv = kt_realloc_array(b->options, b->noptions + 1, sizeof(*nv));
		if (nv)
			b->options = nv;
		if (!nv || !(nv[b->noptions].name = strdup(de->d_name)))
			ret = -ENOMEM;
		else
			nv[b->noptions++].on = strtol(v, NULL, 0) != 0;
		free(v);
	}
	closedir(d);
	return ret;
}

/* trace-cmd's test: every CPU of the machine set in the (hexadecimal) mask. */
static bool mask_all(const char *mask, unsigned int cpus)
{
	unsigned int bit = 0;

	for (size_t i = strlen(mask); i-- > 0 && bit < cpus;) {
		int c = tolower((unsigned char)mask[i]), v;

		if (c == ',')
			continue;
		v = isdigit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
		for (int k = 0; k < 4 && bit < cpus; k++, bit++)
			if (!(v & (1 << k)))
				return false;
	}
	return bit >= cpus;
}

static int read_buffer(const char *dir, const char *name, unsigned int cpus,
		       struct ktrace_tracefs_buffer_state *b)
{
	char *clock;
	int ret;

	b->name = strdup(name);
	if (!b->name)
		return -ENOMEM;
	b->tracing_on = read_stripped(dir, "tracing_on");
	b->tracer = read_stripped(dir, "current_tracer");
	b->events_enable = read_stripped(dir, "events/enable");
	if ((ret = read_events(dir, b)))
		return ret;
	b->ftrace_filter = read_stripped(dir, "set_ftrace_filter");
	b->ftrace_notrace = read_stripped(dir, "set_ftrace_notrace");
	b->graph_function = read_stripped(dir, "set_graph_function");
	b->graph_notrace = read_stripped(dir, "set_graph_notrace");
	b->buffer_size_kb = read_stripped(dir, "buffer_size_kb");
	if (b->buffer_size_kb && !strcmp(b->buffer_size_kb, "X")) {
		for (unsigned int cpu = 0;; cpu++) {
			char file[64], *v, **nv;

			snprintf(file, sizeof(file), "per_cpu/cpu%u/buffer_size_kb", cpu);
			v = read_stripped(dir, file);
			if (!v)
				break;
			nv = kt_realloc_array(b->cpu_kb, b->ncpu_kb + 1, sizeof(*nv));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			b->cpu_kb = nv;
			nv[b->ncpu_kb++] = v;
		}
	}
	b->buffer_total_size_kb = read_stripped(dir, "buffer_total_size_kb");
	clock = read_stripped(dir, "trace_clock");
	if (clock) {
		char *o = strchr(clock, '['), *c = o ? strchr(o, ']') : NULL;

		if (c) {
			*c = 0;
			b->clock = strdup(o + 1);
		}
		free(clock);
	}
	b->cpumask = read_stripped(dir, "tracing_cpumask");
	b->cpumask_all = !b->cpumask || mask_all(b->cpumask, cpus);
	b->max_latency = read_stripped(dir, "tracing_max_latency");
	b->kprobe_events = read_stripped(dir, "kprobe_events");
	b->uprobe_events = read_stripped(dir, "uprobe_events");
	b->synthetic_events = read_stripped(dir, "synthetic_events");
	b->event_pid = read_stripped(dir, "set_event_pid");
	b->event_notrace_pid = read_stripped(dir, "set_event_notrace_pid");
	b->ftrace_pid = read_stripped(dir, "set_ftrace_pid");
	b->ftrace_notrace_pid = read_stripped(dir, "set_ftrace_notrace_pid");
	if ((ret = read_options(dir, b)))
		return ret;
	b->error_log = read_stripped(dir, "error_log");
	return 0;
}

static void free_buffer(struct ktrace_tracefs_buffer_state *b)
{
	char **texts[] = {
		&b->name, &b->tracing_on, &b->tracer, &b->events_enable, &b->ftrace_filter,
		&b->ftrace_notrace, &b->graph_function, &b->graph_notrace, &b->buffer_size_kb,
		&b->buffer_total_size_kb, &b->clock, &b->cpumask, &b->max_latency,
		&b->kprobe_events, &b->uprobe_events, &b->synthetic_events, &b->event_pid,
		&b->event_notrace_pid, &b->ftrace_pid, &b->ftrace_notrace_pid, &b->error_log,
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		free(*texts[i]);
	for (size_t i = 0; i < b->nsystems; i++) {
		free(b->systems[i].name);
		tfs_free_names(b->systems[i].enabled, b->systems[i].nenabled);
	}
	free(b->systems);
	for (size_t i = 0; i < b->nfilters; i++) {
		free(b->filters[i].system);
		free(b->filters[i].event);
		free(b->filters[i].value);
	}
	free(b->filters);
	for (size_t i = 0; i < b->ntriggers; i++) {
		free(b->triggers[i].system);
		free(b->triggers[i].event);
		free(b->triggers[i].value);
	}
	free(b->triggers);
	tfs_free_names(b->cpu_kb, b->ncpu_kb);
	for (size_t i = 0; i < b->noptions; i++)
		free(b->options[i].name);
	free(b->options);
}

void ktrace_tracefs_state_free(struct ktrace_tracefs_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nbuffers; i++)
		free_buffer(&st->buffers[i]);
	free(st->buffers);
	tfs_free_names(st->instances, st->ninstances);
	free(st->tracefs);
	free(st);
}

int ktrace_tracefs_state_read(const char *tracefs, const char *const *instances, size_t n, bool all,
			      struct ktrace_tracefs_state **out, struct ktrace_error *err)
{
	struct ktrace_tracefs_state *st = calloc(1, sizeof(*st));
	char path[PATH_MAX], *v;
	size_t want;
	int ret = 0;

	*out = NULL;
	if (!st)
		return kt_error_oom(err);
	if (tracefs)
		st->tracefs = strdup(tracefs);
	else if ((ret = ktrace_tracefs_find(false, &st->tracefs, NULL, err))) {
		free(st);
		return ret;
	}
	if (!st->tracefs) {
		free(st);
		return kt_error_oom(err);
	}
	snprintf(path, sizeof(path), "%s/instances", st->tracefs);
	if (tfs_list_dirs(path, false, &st->instances, &st->ninstances))
		st->ninstances = 0;
	{
		long c = sysconf(_SC_NPROCESSORS_CONF);

		st->machine_cpus = c > 0 ? (unsigned int)c : 1;
	}
	/* as trace-cmd: no stack tracer in the kernel means disabled */
	st->stack_tracer = 0;
	if (access("/proc/sys/kernel/stack_tracer_enabled", F_OK) == 0) {
		st->stack_tracer = -1;
		if (tfs_read_value("/proc/sys/kernel", "stack_tracer_enabled", &v) == 0) {
			st->stack_tracer = atoi(v) > 0;
			free(v);
		}
	}
	want = all ? 1 + st->ninstances : n ? n : 1;
	st->buffers = calloc(want, sizeof(*st->buffers));
	if (!st->buffers) {
		ktrace_tracefs_state_free(st);
		return kt_error_oom(err);
	}
	for (size_t i = 0; i < want && !ret; i++) {
		const char *name = all ? (i ? st->instances[i - 1] : "") : n ? instances[i] : "";
		char dir[PATH_MAX];

		if (!name)
			name = "";
		ret = tfs_buffer_dir(st->tracefs, name, dir, sizeof(dir), err);
		if (ret)
			break;
		ret = read_buffer(dir, name, st->machine_cpus, &st->buffers[st->nbuffers++]);
		if (ret)
			ktrace_error_set(err, ret, "%s: %s", dir, strerror(-ret));
	}
	if (ret) {
		ktrace_tracefs_state_free(st);
		return ret;
	}
	*out = st;
	return 0;
}
