// SPDX-License-Identifier: MIT
/*
 * Instances a recording created and did not remove (it was killed with SIGKILL): each
 * instance ktrace record creates is noted in a registry directory (one file per
 * instance, holding the recorder's pid and start time) and forgotten when it is
 * removed. An entry whose recorder is gone while the instance still exists is a
 * leftover. The top buffer's leftover is a killed session's journal
 * (tracefs_journal.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "tracefs/tracefs_int.h"

static const char *registry_dir(void)
{
	const char *d = getenv("KTRACE_INSTANCE_REGISTRY");

	return d && *d ? d : "/run/ktrace/instances";
}

unsigned long long tfs_process_start(long pid)
{
	char path[64], *text, *p;
	unsigned long long t = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (tfs_read_file(path, 4096, &text, NULL))
		return 0;
	p = strrchr(text, ')');       /* the command name may hold spaces */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		t = strtoull(p + 1, NULL, 10);
	free(text);
	return t;
}

void tfs_instance_note(const char *name)
{
	char path[PATH_MAX], text[64];
	const char *dir = registry_dir();
	int fd;

	/* best effort: without a registry, leftovers are not found, nothing else */
	if (mkdir(dir, 0700) < 0 && errno == ENOENT) {
		char parent[PATH_MAX];
		const char *slash = strrchr(dir, '/');

		if (slash && slash != dir) {
			snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
			mkdir(parent, 0755);
			mkdir(dir, 0700);
		}
	}
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return;
	snprintf(text, sizeof(text), "%ld %llu\n", (long)getpid(), tfs_process_start((long)getpid()));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0) {
			/* best effort, as above */
		}
		close(fd);
	}
}

void tfs_instance_forget(const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", registry_dir(), name) < (int)sizeof(path))
		unlink(path);
}

int ktrace_tracefs_leftovers(const char *tracefs, struct ktrace_tracefs_leftover **out, size_t *n,
			     struct ktrace_error *err)
{
	struct ktrace_tracefs_leftover *v = NULL;
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	d = opendir(registry_dir());   /* none: no instance was ever noted */
	while (d && (de = readdir(d))) {
		char path[PATH_MAX], inst[PATH_MAX], *text;
		unsigned long long started = 0;
		long pid = 0;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", registry_dir(), de->d_name) >= (int)sizeof(path) ||
		    tfs_read_file(path, 256, &text, NULL))
			continue;
		sscanf(text, "%ld %llu", &pid, &started);
		free(text);
		if (pid > 0 && tfs_process_start(pid) == started && started)
			continue;             /* its recorder is still running */
		if (snprintf(inst, sizeof(inst), "%s/instances/%s", tracefs, de->d_name) >=
		    (int)sizeof(inst) || stat(inst, &st) < 0) {
			unlink(path);         /* removed since: forgotten */
			continue;
		}
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct ktrace_tracefs_leftover *p = kt_realloc_array(v, ncap, sizeof(*p));

			if (!p)
				goto oom;
			v = p;
			cap = ncap;
		}
		v[*n].name = strdup(de->d_name);
		v[*n].pid = (int)pid;
		v[*n].what = NULL;
		if (!v[*n].name)
			goto oom;
		(*n)++;
	}
	if (d)
		closedir(d);
	/* the top buffer, as a killed session left it */
	{
		struct ktrace_tracefs_leftover top;
		int ret = tfs_journal_leftover(tracefs, &top, err);

		if (ret < 0) {
			ktrace_tracefs_leftovers_free(v, *n);
			*n = 0;
			return ret;
		}
		if (ret) {
			struct ktrace_tracefs_leftover *p = kt_realloc_array(v, *n + 1, sizeof(*p));

			if (!p) {
				free(top.name);
				free(top.what);
				ktrace_tracefs_leftovers_free(v, *n);
				*n = 0;
				return kt_error_oom(err);
			}
			v = p;
			v[(*n)++] = top;
		}
	}
	*out = v;
	return 0;
oom:
	closedir(d);
	ktrace_tracefs_leftovers_free(v, *n);
	*n = 0;
	return kt_error_oom(err);
}

void ktrace_tracefs_leftovers_free(struct ktrace_tracefs_leftover *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].what);
	}
	free(v);
}

int ktrace_tracefs_remove_leftover(const char *tracefs, const char *name, struct ktrace_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX];

	if (!*name)
		return tfs_journal_undo(tracefs, err);
	if (strchr(name, '/') || snprintf(dir, sizeof(dir), "%s/instances/%s", tracefs,
						    name) >= (int)sizeof(dir))
		return ktrace_error_set(err, -EINVAL, "invalid instance name \"%s\"", name);
	/* tracing off and events off first: an instance with enabled events may refuse */
	if (tfs_path(path, sizeof(path), dir, "tracing_on") == 0)
		tfs_write_file(path, "0", false);
	if (tfs_path(path, sizeof(path), dir, "set_event") == 0)
		tfs_write_file(path, "", false);
	if (rmdir(dir) < 0 && errno != ENOENT)
		return ktrace_error_set(err, -errno, "cannot remove instance %s: %s", dir,
					strerror(errno));
	tfs_instance_forget(name);
	return 0;
}
