// SPDX-License-Identifier: MIT
/*
 * What tracefs offers, by name: its files read whole or opened, the events as
 * `trace-cmd list -e` selects them, and the names closest to an event specification
 * that matches nothing (for record's error message).
 */
#include <ktrace/tracefs.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "tracefs/tracefs_int.h"

/* tracefs, found when not given (never mounted here: reading needs it mounted). */
static int tracefs_dir(const char *tracefs, char **dir, struct ktrace_error *err)
{
	if (tracefs) {
		*dir = strdup(tracefs);
		return *dir ? 0 : kt_error_oom(err);
	}
	return ktrace_tracefs_find(false, dir, NULL, err);
}

static int file_path(const char *tracefs, const char *instance, const char *name, char *path,
		     size_t len, char **dir, struct ktrace_error *err)
{
	char bdir[PATH_MAX];
	int ret = tracefs_dir(tracefs, dir, err);

	if (ret)
		return ret;
	ret = tfs_buffer_dir(*dir, instance, bdir, sizeof(bdir), err);
	if (!ret && (!name || strstr(name, "..")))
		ret = ktrace_error_set(err, -EINVAL, "invalid tracefs file name");
	if (!ret && tfs_path(path, len, bdir, name))
		ret = ktrace_error_set(err, -ENAMETOOLONG, "path too long");
	return ret;
}

int ktrace_tracefs_read(const char *tracefs, const char *instance, const char *name, char **text,
			size_t *len, struct ktrace_error *err)
{
	char path[PATH_MAX], *dir = NULL;
	int ret = file_path(tracefs, instance, name, path, sizeof(path), &dir, err);

	*text = NULL;
	if (!ret) {
		ret = tfs_read_file(path, 1u << 30, text, len);
		if (ret)
			ktrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	}
	free(dir);
	return ret;
}

int ktrace_tracefs_open(const char *tracefs, const char *instance, const char *name, int flags,
			struct ktrace_error *err)
{
	char path[PATH_MAX], *dir = NULL;
	int ret = file_path(tracefs, instance, name, path, sizeof(path), &dir, err);

	if (!ret) {
		ret = open(path, flags | O_CLOEXEC);
		if (ret < 0) {
			ret = -errno;
			ktrace_error_set(err, ret, "%s: %s%s", path, strerror(-ret),
					 ret == -EACCES || ret == -EPERM ? " (ktrace needs root)" : "");
		}
	}
	free(dir);
	return ret;
}

int ktrace_tracefs_list_dir(const char *tracefs, const char *instance, const char *name,
			    bool dirs_only, char ***names, size_t *n, struct ktrace_error *err)
{
	char path[PATH_MAX], *dir = NULL;
	int ret = file_path(tracefs, instance, name, path, sizeof(path), &dir, err);
	struct dirent *de;
	char **v = NULL;
	size_t cnt = 0;
	DIR *d;

	*names = NULL;
	*n = 0;
	free(dir);
	if (ret)
		return ret;
	d = opendir(path);
	if (!d)
		return ktrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		char **nv;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (dirs_only && de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		nv = kt_realloc_array(v, cnt + 1, sizeof(*nv));
		if (!nv || !(nv[cnt] = strdup(de->d_name))) {
			if (nv)
				v = nv;
			closedir(d);
			tfs_free_names(v, cnt);
			return kt_error_oom(err);
		}
		v = nv;
		cnt++;
	}
	closedir(d);
	*names = v;
	*n = cnt;
	return 0;
}

void ktrace_tracefs_free_names(char **names, size_t n)
{
	tfs_free_names(names, n);
}

/* ------------------------------------------------------------------ list -e */

struct names {
	char **v;
	size_t n, cap;
	int err;
};

static void add_name(struct names *l, const char *system, const char *event)
{
	char *s;

	if (l->err)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		char **v = kt_realloc_array(l->v, cap, sizeof(*v));

		if (!v) {
			l->err = -ENOMEM;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	if (asprintf(&s, "%s:%s", system, event) < 0) {
		l->err = -ENOMEM;
		return;
	}
	l->v[l->n++] = s;
}

/* The events of one system (those with a format), all or those re matches, in
 * directory order (libtracefs's). */
static void system_events(struct names *l, const char *tracefs, const char *system, const regex_t *re)
{
	char path[PATH_MAX], **evs;
	size_t n;

	if (tfs_pathf(path, sizeof(path), "%s/events/%s", tracefs, system) ||
	    tfs_list_dirs(path, false, &evs, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		char file[PATH_MAX];

		if (tfs_pathf(file, sizeof(file), "%s/%s/format", path, evs[i]) || access(file, F_OK))
			continue;
		if (!re || regexec(re, evs[i], 0, NULL, 0) == 0)
			add_name(l, system, evs[i]);
	}
	tfs_free_names(evs, n);
}

/* The systems libtracefs lists: directories of events/ with an enable file (so not
 * ftrace), in directory order. */
static int event_systems(const char *tracefs, char ***out, size_t *n)
{
	char path[PATH_MAX], **all;
	size_t nall, k = 0;
	int ret;

	if (tfs_pathf(path, sizeof(path), "%s/events", tracefs))
		return -ENAMETOOLONG;
	ret = tfs_list_dirs(path, false, &all, &nall);
	if (ret)
		return ret;
	for (size_t i = 0; i < nall; i++) {
		char file[PATH_MAX];

		if (!tfs_pathf(file, sizeof(file), "%s/%s/enable", path, all[i]) && access(file, F_OK) == 0)
			all[k++] = all[i];
		else
			free(all[i]);
	}
	*out = all;
	*n = k;
	return 0;
}

static int list_available(const char *tracefs, struct names *l, struct ktrace_error *err)
{
	char path[PATH_MAX], *text, *line, *save = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/available_events", tracefs);
	ret = tfs_read_file(path, 64u << 20, &text, NULL);
	if (ret)
		return ktrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	for (line = strtok_r(text, "\n", &save); line && !l->err; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = 0;
		add_name(l, line, colon + 1);
	}
	free(text);
	return 0;
}

int ktrace_tracefs_list_events(const char *tracefs, const char *regex, char ***names, size_t *n,
			       struct ktrace_error *err)
{
	struct names l = { 0 };
	char *dir = NULL, *copy = NULL, *system, *event, *save = NULL;
	char **systems = NULL;
	size_t nsystems = 0;
	regex_t sys_re, ev_re;
	bool just_systems = true, have_sys = false, have_ev = false;
	int ret;

	*names = NULL;
	*n = 0;
	ret = tracefs_dir(tracefs, &dir, err);
	if (ret)
		return ret;
	if (!regex || !*regex) {
		ret = list_available(dir, &l, err);
		goto out;
	}
	if ((ret = event_systems(dir, &systems, &nsystems))) {
		ktrace_error_set(err, ret, "%s/events: %s", dir, strerror(-ret));
		goto out;
	}
	/* trace-cmd's split of "SYS:EV" (strtok: leading colons are skipped) */
	copy = strdup(regex);
	if (!copy) {
		ret = kt_error_oom(err);
		goto out;
	}
	system = strtok_r(copy, ":", &save);
	event = strtok_r(NULL, "", &save);
	if (!system) {
		ret = ktrace_error_set(err, -EINVAL, "invalid regex '%s'", regex);
		goto out;
	}
	if (regcomp(&sys_re, system, REG_ICASE | REG_NOSUB)) {
		ret = ktrace_error_set(err, -EINVAL, "invalid regex '%s'", system);
		goto out;
	}
	have_sys = true;
	if (event) {
		if (regcomp(&ev_re, event, REG_ICASE | REG_NOSUB)) {
			ret = ktrace_error_set(err, -EINVAL, "invalid regex '%s'", event);
			goto out;
		}
		have_ev = true;
	} else if (regex[strlen(regex) - 1] != ':') {
		just_systems = false;
	}
	/* ftrace is not among the systems, but its events can be matched */
	if (regexec(&sys_re, "ftrace", 0, NULL, 0) == 0)
		system_events(&l, dir, "ftrace", event ? &ev_re : NULL);
	else if (!just_systems)
		system_events(&l, dir, "ftrace", &sys_re);
	for (size_t i = 0; i < nsystems; i++) {
		if (regexec(&sys_re, systems[i], 0, NULL, 0) == 0)
			system_events(&l, dir, systems[i], event ? &ev_re : NULL);
		else if (!just_systems)
			system_events(&l, dir, systems[i], &sys_re);
	}
out:
	if (have_sys)
		regfree(&sys_re);
	if (have_ev)
		regfree(&ev_re);
	free(copy);
	tfs_free_names(systems, nsystems);
	free(dir);
	if (!ret && l.err)
		ret = ktrace_error_set(err, l.err, "out of memory");
	if (ret) {
		tfs_free_names(l.v, l.n);
		return ret;
	}
	*names = l.v;
	*n = l.n;
	return 0;
}

/* ------------------------------------------------------------------ suggestions */

/* Optimal string alignment distance (insertions, deletions, substitutions and
 * transpositions), without case; capped at 99. */
static unsigned distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[3][64];

	if (la > 62 || lb > 62)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned *cur = d[i % 3], *prev = d[(i + 2) % 3], *prev2 = d[(i + 1) % 3];

		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			unsigned v = prev[j - 1] + (ca != cb);

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
	}
	return d[la % 3][lb] > 99 ? 99 : d[la % 3][lb];
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (!n)
		return false;
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return false;
}

struct cand {
	char name[160];
	unsigned score;
};

static void consider(struct cand *best, size_t max, const char *name, unsigned score)
{
	size_t i;

	for (i = 0; i < max; i++)
		if (best[i].name[0] && !strcmp(best[i].name, name)) {
			if (score < best[i].score)
				best[i].score = score;
			return;
		}
	for (i = 0; i < max; i++)
		if (!best[i].name[0] || score < best[i].score)
			break;
	if (i == max)
		return;
	memmove(&best[i + 1], &best[i], (max - 1 - i) * sizeof(*best));
	snprintf(best[i].name, sizeof(best[i].name), "%s", name);
	best[i].score = score;
}

void tfs_suggest_text(const struct tfs_events *e, const char *spec, char *out, size_t len)
{
	enum { MAX = 4 };
	struct cand best[MAX];
	const char *colon = strchr(spec, ':');
	unsigned limit;
	size_t used;

	memset(best, 0, sizeof(best));
	out[0] = 0;
	limit = strlen(colon ? colon + 1 : spec) / 3;
	if (limit < 2)
		limit = 2;
	for (size_t i = 0; i < e->n; i++) {
		const struct tfs_event *ev = &e->ev[i];
		char full[160];
		unsigned d;

		if (!strcmp(ev->system, "ftrace"))
			continue;
		snprintf(full, sizeof(full), "%s:%s", ev->system, ev->name);
		if (colon) {
			d = distance(spec, full);
			if (d > limit && contains_nocase(ev->name, colon + 1))
				d = limit;
		} else {
			d = distance(spec, ev->name);
			if (d > limit && contains_nocase(ev->name, spec))
				d = limit;
			if (distance(spec, ev->system) <= limit)
				consider(best, MAX, ev->system, distance(spec, ev->system));
		}
		if (d <= limit)
			consider(best, MAX, full, d);
	}
	if (!best[0].name[0])
		return;
	used = (size_t)snprintf(out, len, " (did you mean ");
	for (size_t i = 0; i < MAX && best[i].name[0] && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", best[i].name);
	if (used < len)
		snprintf(out + used, len - used, "? 'ktrace list -e' lists the events)");
}
