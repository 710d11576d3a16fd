// SPDX-License-Identifier: MIT
/*
 * tracefs access for the recorder: finding (and mounting) tracefs, reading and writing
 * its files, listing and selecting events, reading the per-CPU counters.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "tracefs/tracefs_int.h"

#define TRACEFS_MAGIC_NUMBER 0x74726163
#define DEFAULT_TRACEFS "/sys/kernel/tracing"

int tfs_path(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int tfs_pathf(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int tfs_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = malloc(cap + 1);
	int fd;

	*buf = NULL;
	if (len)
		*len = 0;
	if (!b)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;

		free(b);
		return e;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap >= max) {
				close(fd);
				free(b);
				return -EFBIG;
			}
			cap = cap * 2 > max ? max : cap * 2;
			nb = kt_realloc_array(b, cap + 1, 1);
			if (!nb) {
				close(fd);
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;

			close(fd);
			free(b);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = 0;
	*buf = b;
	if (len)
		*len = n;
	return 0;
}

int tfs_write_file(const char *path, const char *text, bool append)
{
	size_t n = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	int ret = 0;

	if (fd < 0)
		return -errno;
	while (n) {
		ssize_t r = write(fd, text, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			break;
		}
		text += r;
		n -= (size_t)r;
	}
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

int tfs_read_value(const char *dir, const char *name, char **out)
{
	char path[PATH_MAX];
	size_t len;
	int ret = tfs_path(path, sizeof(path), dir, name);

	*out = NULL;
	if (ret)
		return ret;
	ret = tfs_read_file(path, 1 << 20, out, &len);
	if (ret)
		return ret;
	while (len && ((*out)[len - 1] == '\n' || (*out)[len - 1] == ' '))
		(*out)[--len] = 0;
	return 0;
}

int tfs_dir_write(const char *dir, const char *name, const char *value, bool append,
		  struct ktrace_error *err)
{
	char path[PATH_MAX];
	int ret = tfs_path(path, sizeof(path), dir, name);

	if (!ret)
		ret = tfs_write_file(path, value, append);
	if (ret)
		return ktrace_error_set(err, ret, "cannot write \"%s\" to %s: %s%s", value, path,
					strerror(-ret),
					ret == -EACCES || ret == -EPERM ? " (ktrace needs root)" : "");
	return 0;
}

int tfs_dir_read(const char *dir, const char *name, char **out, struct ktrace_error *err)
{
	int ret = tfs_read_value(dir, name, out);

	if (ret)
		return ktrace_error_set(err, ret, "cannot read %s/%s: %s", dir, name, strerror(-ret));
	return 0;
}

/* ------------------------------------------------------------------ mount point */

static bool is_tracefs(const char *dir)
{
	char path[PATH_MAX];
	struct statfs sf;

	if (tfs_path(path, sizeof(path), dir, "tracing_on"))
		return false;
	if (access(path, F_OK))
		return false;
	return statfs(dir, &sf) == 0 && (sf.f_type == TRACEFS_MAGIC_NUMBER ||
					 (unsigned long)sf.f_type == 0x64626720 /* debugfs */);
}

/* A tracefs mount listed in /proc/mounts, or NULL. */
static char *mounted_tracefs(void)
{
	char *text, *line, *save = NULL, *found = NULL;

	if (tfs_read_file("/proc/mounts", 16 << 20, &text, NULL))
		return NULL;
	for (line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[PATH_MAX], type[64];

		if (sscanf(line, "%255s %4095s %63s", dev, mnt, type) != 3)
			continue;
		if (!strcmp(type, "tracefs") && is_tracefs(mnt))
			found = strdup(mnt);
	}
	free(text);
	return found;
}

int ktrace_tracefs_find(bool mount_it, char **dir, bool *mounted, struct ktrace_error *err)
{
	char *d;

	*dir = NULL;
	if (mounted)
		*mounted = false;
	if (is_tracefs(DEFAULT_TRACEFS))
		d = strdup(DEFAULT_TRACEFS);
	else if ((d = mounted_tracefs()))
		;
	else if (is_tracefs("/sys/kernel/debug/tracing"))
		d = strdup("/sys/kernel/debug/tracing");
	else if (!mount_it)
		return ktrace_error_set(err, -ENOENT, "tracefs is not mounted (mount -t tracefs "
					"nodev " DEFAULT_TRACEFS ")");
	else if (mount("nodev", DEFAULT_TRACEFS, "tracefs", 0, NULL) < 0) {
		int e = errno;

		return ktrace_error_set(err, -e, "tracefs is not mounted and mounting it on "
					DEFAULT_TRACEFS " failed: %s%s", strerror(e),
					e == EPERM ? " (ktrace record needs root)" : "");
	} else {
		if (!is_tracefs(DEFAULT_TRACEFS)) {
			umount(DEFAULT_TRACEFS);
			return ktrace_error_set(err, -ENOENT, "tracefs mounted on " DEFAULT_TRACEFS
						" has no tracing_on: is tracing built into this kernel?");
		}
		if (mounted)
			*mounted = true;
		d = strdup(DEFAULT_TRACEFS);
	}
	if (!d)
		return kt_error_oom(err);
	*dir = d;
	return 0;
}

/* ------------------------------------------------------------------ events */

static int cmp_event(const void *a, const void *b)
{
	const struct tfs_event *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tfs_list_dirs(const char *path, bool sorted, char ***out, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (cnt == cap) {
			char **nn;

			cap = cap ? cap * 2 : 64;
			nn = kt_realloc_array(names, cap, sizeof(*nn));
			if (!nn)
				goto oom;
			names = nn;
		}
		if (!(names[cnt] = strdup(de->d_name)))
			goto oom;
		cnt++;
	}
	closedir(d);
	if (cnt && sorted)
		qsort(names, cnt, sizeof(*names), cmp_name);
	*out = names;
	*n = cnt;
	return 0;
oom:
	closedir(d);
	for (size_t i = 0; i < cnt; i++)
		free(names[i]);
	free(names);
	return -ENOMEM;
}

void tfs_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int tfs_list_events(const char *dir, struct tfs_events *out, struct ktrace_error *err)
{
	char path[PATH_MAX];
	char **systems;
	size_t nsys, cap = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (tfs_path(path, sizeof(path), dir, "events"))
		return ktrace_error_set(err, -ENAMETOOLONG, "path too long");
	ret = tfs_list_dirs(path, true, &systems, &nsys);
	if (ret)
		return ktrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	for (size_t s = 0; s < nsys && !ret; s++) {
		char sdir[PATH_MAX];
		char **evs;
		size_t nev;

		if (snprintf(sdir, sizeof(sdir), "%s/events/%s", dir, systems[s]) >= (int)sizeof(sdir) ||
		    tfs_list_dirs(sdir, true, &evs, &nev))
			continue;
		for (size_t e = 0; e < nev && !ret; e++) {
			char fpath[PATH_MAX];

			if (snprintf(fpath, sizeof(fpath), "%s/%s/format", sdir, evs[e]) >=
			    (int)sizeof(fpath) || access(fpath, R_OK))
				continue;
			if (out->n == cap) {
				struct tfs_event *n;

				cap = cap ? cap * 2 : 256;
				n = kt_realloc_array(out->ev, cap, sizeof(*n));
				if (!n) {
					ret = -ENOMEM;
					break;
				}
				out->ev = n;
			}
			out->ev[out->n].system = strdup(systems[s]);
			out->ev[out->n].name = strdup(evs[e]);
			out->ev[out->n].selected = false;
			if (!out->ev[out->n].system || !out->ev[out->n].name) {
				free(out->ev[out->n].system);
				free(out->ev[out->n].name);
				ret = -ENOMEM;
				break;
			}
			out->n++;
		}
		tfs_free_names(evs, nev);
	}
	tfs_free_names(systems, nsys);
	if (ret) {
		tfs_free_events(out);
		return ktrace_error_set(err, ret, "out of memory");
	}
	if (out->n)
		qsort(out->ev, out->n, sizeof(*out->ev), cmp_event);
	return 0;
}

void tfs_free_events(struct tfs_events *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->ev[i].system);
		free(e->ev[i].name);
	}
	free(e->ev);
	e->ev = NULL;
	e->n = 0;
}

/* A parsed event specification. */
struct spec {
	bool all, colon, is_system, bad;
	char sys[256];
	const char *ev;
};

static void parse_spec(const struct tfs_events *e, const char *text, struct spec *sp)
{
	const char *colon = strchr(text, ':');

	memset(sp, 0, sizeof(*sp));
	if (!strcmp(text, "all") || !strcmp(text, "*") || !strcmp(text, "*:*")) {
		sp->all = true;
		return;
	}
	if (colon) {
		size_t n = (size_t)(colon - text);

		if (n >= sizeof(sp->sys)) {
			sp->bad = true;
			return;
		}
		memcpy(sp->sys, text, n);
		sp->sys[n] = 0;
		sp->colon = true;
		sp->ev = colon[1] ? colon + 1 : "*";
		return;
	}
	/* a system name (glob) if one matches, else an event name */
	sp->ev = text;
	for (size_t i = 0; i < e->n && !sp->is_system; i++)
		sp->is_system = !fnmatch(text, e->ev[i].system, 0) && strcmp(e->ev[i].system, "ftrace");
}

static bool spec_matches(const struct tfs_events *e, size_t i, const struct spec *sp)
{
	const struct tfs_event *ev = &e->ev[i];

	if (sp->bad || !strcmp(ev->system, "ftrace"))
		return false;
	if (sp->all)
		return true;
	if (sp->colon)
		return !fnmatch(sp->sys, ev->system, 0) && !fnmatch(sp->ev, ev->name, 0);
	return !fnmatch(sp->ev, sp->is_system ? ev->system : ev->name, 0);
}

bool tfs_event_matches(const struct tfs_events *e, size_t i, const char *spec)
{
	struct spec sp;

	parse_spec(e, spec, &sp);
	return spec_matches(e, i, &sp);
}

size_t tfs_select_events(struct tfs_events *e, const char *spec, bool value)
{
	struct spec sp;
	size_t hits = 0;

	parse_spec(e, spec, &sp);
	for (size_t i = 0; i < e->n; i++) {
		if (spec_matches(e, i, &sp)) {
			e->ev[i].selected = value;
			hits++;
		}
	}
	return hits;
}

int tfs_buffer_dir(const char *tracefs, const char *instance, char *out, size_t len,
		   struct ktrace_error *err)
{
	struct stat st;
	int n;

	if (!instance || !*instance)
		n = snprintf(out, len, "%s", tracefs);
	else if (strchr(instance, '/') || !strcmp(instance, ".") || !strcmp(instance, ".."))
		return ktrace_error_set(err, -EINVAL, "invalid instance name \"%s\"", instance);
	else
		n = snprintf(out, len, "%s/instances/%s", tracefs, instance);
	if (n < 0 || (size_t)n >= len)
		return ktrace_error_set(err, -ENAMETOOLONG, "instance name too long");
	if (stat(out, &st) < 0 || !S_ISDIR(st.st_mode))
		return ktrace_error_set(err, -ENOENT, "no instance \"%s\" in %s/instances", instance,
					tracefs);
	return 0;
}

/* ------------------------------------------------------------------ counters */

static uint64_t stat_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p;) {
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

int tfs_read_counters(const char *bufdir, unsigned int cpu, struct tfs_counters *c, char **text)
{
	char path[PATH_MAX];
	char *t;
	int ret;

	memset(c, 0, sizeof(*c));
	if (text)
		*text = NULL;
	if (snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stats", bufdir, cpu) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = tfs_read_file(path, 1 << 16, &t, NULL);
	if (ret)
		return ret;
	c->overrun = stat_field(t, "overrun");
	c->commit_overrun = stat_field(t, "commit overrun");
	c->dropped = stat_field(t, "dropped events");
	c->read = stat_field(t, "read events");
	c->entries = stat_field(t, "entries");
	c->ok = true;
	if (text)
		*text = t;
	else
		free(t);
	return 0;
}
