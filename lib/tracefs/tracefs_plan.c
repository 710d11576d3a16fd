// SPDX-License-Identifier: MIT
/*
 * Putting a buffer back: the writes that restore what a session changed, in order, and
 * the state file `ktrace start` leaves so that `ktrace reset --restore` can do them
 * later.
 *
 * A state file is text: a first line "ktrace-state 1", then "remove" when the instance
 * is to be removed at the end, then one line per write, "w\tFILE\tVALUE" (the file
 * emptied first) or "a\tFILE\tVALUE" (appended), where FILE is relative to the buffer's
 * directory and VALUE has backslash, newline and tab written \\, \n and \t.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "tracefs/tracefs_int.h"

#define STATE_MAGIC "ktrace-state 1"

int tfs_plan_add(struct tfs_plan *p, const char *file, const char *value, bool append)
{
	struct tfs_step *v = kt_realloc_array(p->v, p->n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->v = v;
	v[p->n].file = strdup(file);
	v[p->n].value = strdup(value);
	v[p->n].append = append;
	if (!v[p->n].file || !v[p->n].value) {
		free(v[p->n].file);
		free(v[p->n].value);
		return -ENOMEM;
	}
	p->n++;
	return 0;
}

void tfs_plan_free(struct tfs_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].file);
		free(p->v[i].value);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int tfs_plan_run(const char *dir, const struct tfs_plan *p, struct ktrace_error *err)
{
	struct ktrace_error e2 = { 0 };
	int first = 0;

	for (size_t i = 0; i < p->n; i++) {
		int ret = tfs_dir_write(dir, p->v[i].file, p->v[i].value, p->v[i].append, &e2);

		if (ret && !first) {
			first = ret;
			if (err)
				*err = e2;
		}
	}
	if (p->remove) {
		for (int tries = 0;; tries++) {
			if (rmdir(dir) == 0 || errno == ENOENT)
				break;
			if (errno != EBUSY || tries == 40) {
				if (!first)
					first = ktrace_error_set(err, -errno, "cannot remove instance %s: %s",
								 dir, strerror(errno));
				break;
			}
			usleep(50000);
		}
	}
	return first;
}

/* ------------------------------------------------------------------ state files */

int tfs_state_path(const char *state_dir, const char *instance, char *out, size_t len,
		   struct ktrace_error *err)
{
	const char *dir = state_dir;
	int n;

	if (!dir || !*dir)
		dir = getenv("KTRACE_STATE_DIR");
	if (!dir || !*dir)
		dir = "/run/ktrace";
	if (instance && *instance)
		n = snprintf(out, len, "%s/instance-%s.state", dir, instance);
	else
		n = snprintf(out, len, "%s/top.state", dir);
	if (n < 0 || (size_t)n >= len)
		return ktrace_error_set(err, -ENAMETOOLONG, "state file name too long");
	return 0;
}

char *tfs_escape(const char *s)
{
	size_t n = 0;
	char *out, *d;

	for (const char *p = s; *p; p++)
		n += *p == '\\' || *p == '\n' || *p == '\t' ? 2 : 1;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	for (d = out; *s; s++) {
		if (*s == '\\' || *s == '\n' || *s == '\t') {
			*d++ = '\\';
			*d++ = *s == '\n' ? 'n' : *s == '\t' ? 't' : '\\';
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
	return out;
}

void tfs_unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*d++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

int tfs_state_load(const char *path, struct tfs_plan *p, struct ktrace_error *err)
{
	char *text, *line, *save = NULL;
	bool first = true;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = tfs_read_file(path, 64u << 20, &text, NULL);
	if (ret)
		return ret == -ENOENT ? ret : ktrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char *file, *value;

		if (first) {
			first = false;
			if (strcmp(line, STATE_MAGIC))
				ret = -EINVAL;
			continue;
		}
		if (!strcmp(line, "remove")) {
			p->remove = true;
			continue;
		}
		if ((line[0] != 'w' && line[0] != 'a') || line[1] != '\t' ||
		    !(value = strchr(line + 2, '\t'))) {
			ret = -EINVAL;
			break;
		}
		file = line + 2;
		*value++ = 0;
		tfs_unescape(value);
		if (!*file || strstr(file, "..")) {
			ret = -EINVAL;
			break;
		}
		ret = tfs_plan_add(p, file, value, line[0] == 'a');
	}
	if (first && !ret)
		ret = -EINVAL;
	free(text);
	if (ret) {
		tfs_plan_free(p);
		if (ret == -EINVAL)
			return ktrace_error_set(err, ret, "%s: not a ktrace state file", path);
		return ktrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	}
	return 0;
}

static bool plan_has_file(const struct tfs_plan *p, const char *file)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].file, file))
			return true;
	return false;
}

/* old + the steps of new for files old does not put back, before old's last step when
 * that one turns tracing back on (it must stay last). */
static int merge(struct tfs_plan *old, const struct tfs_plan *new)
{
	struct tfs_plan m = { 0 };
	size_t keep = old->n;
	int ret = 0;

	if (keep && !strcmp(old->v[keep - 1].file, "tracing_on"))
		keep--;
	for (size_t i = 0; i < keep && !ret; i++)
		ret = tfs_plan_add(&m, old->v[i].file, old->v[i].value, old->v[i].append);
	for (size_t i = 0; i < new->n && !ret; i++)
		if (!plan_has_file(old, new->v[i].file))
			ret = tfs_plan_add(&m, new->v[i].file, new->v[i].value, new->v[i].append);
	for (size_t i = keep; i < old->n && !ret; i++)
		ret = tfs_plan_add(&m, old->v[i].file, old->v[i].value, old->v[i].append);
	m.remove = old->remove;
	if (ret) {
		tfs_plan_free(&m);
		return ret;
	}
	tfs_plan_free(old);
	*old = m;
	return 0;
}

int tfs_state_save(const char *path, const struct tfs_plan *p, struct ktrace_error *err)
{
	struct tfs_plan old = { 0 };
	const struct tfs_plan *w = p;
	char tmp[PATH_MAX], dir[PATH_MAX];
	char *slash;
	FILE *f;
	int fd, ret;

	/* a start after a start: what was there before the first one is what stays */
	if (!p->remove && tfs_state_load(path, &old, NULL) == 0) {
		if ((ret = merge(&old, p))) {
			tfs_plan_free(&old);
			return ktrace_error_set(err, ret, "out of memory");
		}
		w = &old;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			ret = -errno;
			tfs_plan_free(&old);
			return ktrace_error_set(err, ret, "cannot create %s: %s", dir, strerror(-ret));
		}
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp)) {
		tfs_plan_free(&old);
		return ktrace_error_set(err, -ENAMETOOLONG, "state file name too long");
	}
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ret = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		tfs_plan_free(&old);
		return ktrace_error_set(err, ret, "cannot write the state file %s: %s", path,
					strerror(-ret));
	}
	fprintf(f, "%s\n", STATE_MAGIC);
	if (w->remove)
		fputs("remove\n", f);
	ret = 0;
	for (size_t i = 0; i < w->n && !ret; i++) {
		char *e = tfs_escape(w->v[i].value);

		if (!e)
			ret = -ENOMEM;
		else
			fprintf(f, "%c\t%s\t%s\n", w->v[i].append ? 'a' : 'w', w->v[i].file, e);
		free(e);
	}
	tfs_plan_free(&old);
	if (!ret && ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ktrace_error_set(err, ret, "cannot write the state file %s: %s", path,
					strerror(-ret));
	}
	return 0;
}
