// SPDX-License-Identifier: MIT
/*
 * The journal of a session on the top buffer (record, stream, start; see tracefs_int.h),
 * and who else holds a buffer.
 *
 * A journal is text: "ktrace-journal 1", "owner PID START KIND" (the process, its start
 * time as /proc/PID/stat gives it, and "record" or "start"), "tracefs DIR", then one
 * line per value noted, "K\tFILE\tVALUE", K being s (a file of the buffer: tracing_on,
 * set_event...), x (a filter, an option, the CPU mask: put back last first) or c (FILE
 * a CPU's number, VALUE its buffer size), VALUE escaped as in state files. The first
 * value noted for a file is the one that was found. The file is written under a
 * temporary name and linked into place, so that it is never seen without its owner;
 * lines are appended (O_APPEND) before the value they note changes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/grow.h"
#include "tracefs/tracefs_int.h"

#define JOURNAL_MAGIC "ktrace-journal 1"

/* <$KTRACE_STATE_DIR or /run/ktrace>/top.journal */
static int journal_path(char *out, size_t len)
{
	const char *dir = getenv("KTRACE_STATE_DIR");

	if (!dir || !*dir)
		dir = "/run/ktrace";
	return tfs_pathf(out, len, "%s/top.journal", dir);
}

/* Its directory (and that one's parent), created when missing. */
static void make_dir(const char *path)
{
	char dir[PATH_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = 0;
	if (mkdir(dir, 0700) == 0 || errno != ENOENT)
		return;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0755);
		*slash = '/';
	}
	mkdir(dir, 0700);
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ------------------------------------------------------------------ reading */

struct journal {
	long pid;
	unsigned long long start;
	char kind[16];
	char *tracefs;
	struct tfs_buffer b;          /* saved values; cpus: the CPUs of 'c' lines */
	char *files;                  /* the files noted, ", " between them */
};

static void journal_free(struct journal *j)
{
	tfs_free_saved(&j->b.saved);
	free(j->b.cpus);
	free(j->tracefs);
	free(j->files);
	memset(j, 0, sizeof(*j));
}

/* Its process still runs: the pid exists with the start time noted (when both are
 * known: without /proc a process is taken as running while its pid exists). */
static bool journal_alive(const struct journal *j)
{
	unsigned long long now;

	if (j->pid <= 0 || (kill((pid_t)j->pid, 0) < 0 && errno != EPERM))
		return false;
	now = tfs_process_start(j->pid);
	return !now || !j->start || now == j->start;
}

static int add_name(char **list, const char *file)
{
	size_t len = *list ? strlen(*list) : 0, flen = strlen(file);
	char *n;

	/* once each */
	for (const char *p = *list; p && *p; p += strcspn(p, ","), p += strspn(p, ", "))
		if (strcspn(p, ",") == flen && !strncmp(p, file, flen))
			return 0;
	n = kt_realloc_array(*list, len + flen + 3, 1);
	if (!n)
		return -ENOMEM;
	sprintf(n + len, "%s%s", len ? ", " : "", file);
	*list = n;
	return 0;
}

/* The value noted first for a file of the buffer ('s' lines) goes to its slot. */
static int take(struct tfs_saved *sv, const char *file, char *value, bool *used)
{
	static const struct { const char *file; size_t off; } slots[] = {
		{ "tracing_on", offsetof(struct tfs_saved, tracing_on) },
		{ "current_tracer", offsetof(struct tfs_saved, tracer) },
		{ "set_event", offsetof(struct tfs_saved, set_event) },
		{ "buffer_size_kb", offsetof(struct tfs_saved, buffer_kb) },
		{ "trace_clock", offsetof(struct tfs_saved, clock) },
		{ "set_event_pid", offsetof(struct tfs_saved, event_pid) },
		{ "options/event-fork", offsetof(struct tfs_saved, event_fork) },
		{ "options/record-tgid", offsetof(struct tfs_saved, record_tgid) },
		{ "buffer_percent", offsetof(struct tfs_saved, buffer_percent) },
	};

	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
		char **slot = (char **)((char *)sv + slots[i].off);

		if (strcmp(file, slots[i].file))
			continue;
		*used = true;
		if (*slot)
			return 0;
		if (!(*slot = strdup(value)))
			return -ENOMEM;
		if (slot == &sv->tracing_on)
			sv->tracing_changed = true;
		if (slot == &sv->set_event)
			sv->events_changed = true;
		return 0;
	}
	*used = false;
	return 0;
}

static int take_extra(struct tfs_saved *sv, const char *file, const char *value)
{
	struct tfs_kv *n;

	for (size_t i = 0; i < sv->nextra; i++)
		if (!strcmp(sv->extra[i].file, file))
			return 0;
	n = kt_realloc_array(sv->extra, sv->nextra + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	sv->extra = n;
	n[sv->nextra].file = strdup(file);
	n[sv->nextra].value = strdup(value);
	if (!n[sv->nextra].file || !n[sv->nextra].value) {
		free(n[sv->nextra].file);
		free(n[sv->nextra].value);
		return -ENOMEM;
	}
	sv->nextra++;
	return 0;
}

static int take_cpu(struct tfs_buffer *b, const char *cpu, const char *value)
{
	struct tfs_saved *sv = &b->saved;
	struct tfs_cpu *c;
	char **kb, *end;
	unsigned long id = strtoul(cpu, &end, 10);

	if (*end || end == cpu || id > 1u << 20)
		return -EINVAL;
	for (size_t i = 0; i < b->ncpus; i++)
		if (b->cpus[i].cpu == id)
			return 0;
	c = kt_realloc_array(b->cpus, b->ncpus + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	b->cpus = c;
	kb = kt_realloc_array(sv->cpu_kb, sv->ncpu_kb + 1, sizeof(*kb));
	if (!kb)
		return -ENOMEM;
	sv->cpu_kb = kb;
	memset(&c[b->ncpus], 0, sizeof(*c));
	c[b->ncpus].cpu = (unsigned int)id;
	if (!(kb[sv->ncpu_kb] = strdup(value)))
		return -ENOMEM;
	b->ncpus++;
	sv->ncpu_kb++;
	return 0;
}

/* Reads the journal at path: 0, -ENOENT (err untouched) when there is none, or an
 * error. */
static int journal_load(const char *path, struct journal *j, struct ktrace_error *err)
{
	char *text, *line, *save = NULL;
	size_t len;
	int ret, n = 0;

	memset(j, 0, sizeof(*j));
	j->b.journal_fd = -1;
	ret = tfs_read_file(path, 64u << 20, &text, &len);
	if (ret)
		return ret == -ENOENT ? ret : ktrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	/* a last line without its new line was cut by a kill in the middle of its write:
	 * its value may be cut too, and its change was not made yet */
	while (len && text[len - 1] != '\n')
		text[--len] = 0;
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save), n++) {
		char *file, *value;
		bool used;

		if (n == 0) {
			if (strcmp(line, JOURNAL_MAGIC))
				ret = -EINVAL;
			continue;
		}
		if (!strncmp(line, "owner ", 6)) {
			if (sscanf(line + 6, "%ld %llu %15s", &j->pid, &j->start, j->kind) < 2)
				ret = -EINVAL;
			continue;
		}
		if (!strncmp(line, "tracefs ", 8)) {
			free(j->tracefs);
			if (!(j->tracefs = strdup(line + 8)))
				ret = -ENOMEM;
			continue;
		}
		if (!strchr("sxc", line[0]) || line[1] != '\t' || !(value = strchr(line + 2, '\t')))
			continue;
		file = line + 2;
		*value++ = 0;
		tfs_unescape(value);
		if (!*file || strstr(file, "..") || file[0] == '/')
			continue;
		if (line[0] == 'c') {
			ret = take_cpu(&j->b, file, value);
			if (ret == -EINVAL)
				ret = 0;
			if (!ret)
				ret = add_name(&j->files, "buffer_size_kb");
			continue;
		}
		ret = line[0] == 's' ? take(&j->b.saved, file, value, &used) : 0;
		if (!ret && (line[0] == 'x' || !used))
			ret = take_extra(&j->b.saved, file, value);
		if (!ret)
			ret = add_name(&j->files, file);
	}
	free(text);
	if (!ret && (n == 0 || !j->pid))
		ret = -EINVAL;
	if (ret) {
		journal_free(j);
		if (ret == -EINVAL)
			return ktrace_error_set(err, ret, "%s: not a ktrace journal", path);
		return ktrace_error_set(err, ret, "%s: %s", path, strerror(-ret));
	}
	j->b.saved_valid = true;
	return 0;
}

/* "a recording" / "a ktrace start" */
static const char *what_ran(const struct journal *j)
{
	return strcmp(j->kind, "start") ? "a recording" : "a ktrace start";
}

/* ------------------------------------------------------------------ writing */

int tfs_journal_claim(struct tfs_buffer *b, const char *tracefs, bool recorder,
		      struct ktrace_error *err)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32], *head = NULL;
	int fd, ret;

	if (journal_path(path, sizeof(path)))
		return ktrace_error_set(err, -ENAMETOOLONG, "journal file name too long");
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ENOENT) {
		make_dir(path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		ret = -errno;
		return ktrace_error_set(err, ret, "cannot write the journal %s: %s (it notes what "
					"tracefs values change; $KTRACE_STATE_DIR names another directory)",
					path, strerror(-ret));
	}
	if (asprintf(&head, "%s\nowner %ld %llu %s\ntracefs %s\n", JOURNAL_MAGIC, (long)getpid(),
		     tfs_process_start((long)getpid()), recorder ? "record" : "start", tracefs) < 0) {
		head = NULL;
		ret = -ENOMEM;
	} else {
		ret = write_all(fd, head, strlen(head));
	}
	free(head);
	for (int tries = 0; !ret && tries < 3; tries++) {
		struct journal j;

		if (link(tmp, path) == 0) {
			unlink(tmp);
			b->journal_path = strdup(path);
			if (!b->journal_path) {
				unlink(path);
				close(fd);
				return kt_error_oom(err);
			}
			b->journal_fd = fd;
			return 0;
		}
		if (errno != EEXIST) {
			ret = -errno;
			break;
		}
		/* someone's journal: a session running, or one that was killed */
		ret = journal_load(path, &j, err);
		if (ret == -ENOENT) {
			ret = 0;      /* gone meanwhile: try again */
			continue;
		}
		unlink(tmp);
		close(fd);
		if (ret)
			return ret;
		if (journal_alive(&j))
			ret = ktrace_error_set(err, -EBUSY, "the top buffer is in use by ktrace %s (pid %ld): "
					       "a second recording would take part of its events; record "
					       "in an instance of your own (-B NAME)", j.kind, j.pid);
		else
			ret = ktrace_error_set(err, -ESTALE, "the top buffer was left changed by %s that "
					       "was killed (pid %ld): 'ktrace reset --restore' puts back what "
					       "it found (%s)", what_ran(&j), j.pid, j.files ? j.files : "");
		journal_free(&j);
		return ret;
	}
	unlink(tmp);
	close(fd);
	if (!ret)
		ret = -EBUSY;
	return ktrace_error_set(err, ret, "cannot write the journal %s: %s", path, strerror(-ret));
}

int tfs_journal_note(struct tfs_buffer *b, char kind, const char *file, const char *value,
		     struct ktrace_error *err)
{
	char *e, *line = NULL;
	int ret;

	if (b->journal_fd < 0)
		return 0;
	e = tfs_escape(value ? value : "");
	if (!e || asprintf(&line, "%c\t%s\t%s\n", kind, file, e) < 0) {
		free(e);
		return kt_error_oom(err);
	}
	free(e);
	ret = write_all(b->journal_fd, line, strlen(line));
	free(line);
	if (ret)
		return ktrace_error_set(err, ret, "cannot write the journal %s: %s", b->journal_path,
					strerror(-ret));
	return 0;
}

void tfs_journal_release(struct tfs_buffer *b)
{
	if (b->journal_fd >= 0) {
		unlink(b->journal_path);
		close(b->journal_fd);
		b->journal_fd = -1;
	}
	free(b->journal_path);
	b->journal_path = NULL;
}

/* ------------------------------------------------------------------ a killed session's */

/* Files of a buffer: the events enabled ("26 events enabled"), "" when unknown. */
static void enabled_events(const char *tracefs, char *out, size_t len)
{
	char *v = NULL;
	size_t n = 0;

	out[0] = 0;
	if (tfs_read_value(tracefs, "set_event", &v))
		return;
	for (const char *p = v; *p; p += strcspn(p, "\n"), p += *p == '\n')
		n += strcspn(p, "\n") > 0;
	free(v);
	snprintf(out, len, "%zu event%s enabled", n, n == 1 ? "" : "s");
}

/* The top buffer's journal as a leftover (its session was killed): 1 with *lo filled,
 * 0 when there is none (or its session runs). */
int tfs_journal_leftover(const char *tracefs, struct ktrace_tracefs_leftover *lo,
			 struct ktrace_error *err)
{
	char path[PATH_MAX], events[64];
	struct journal j;
	int ret;

	memset(lo, 0, sizeof(*lo));
	if (journal_path(path, sizeof(path)))
		return 0;
	ret = journal_load(path, &j, err);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	if (journal_alive(&j)) {
		journal_free(&j);
		return 0;
	}
	enabled_events(tracefs, events, sizeof(events));
	lo->pid = (int)j.pid;
	lo->name = strdup("");
	if (asprintf(&lo->what, "%s (pid %ld) that was killed changed %s%s%s%s", what_ran(&j), j.pid,
		     j.files ? j.files : "nothing yet", *events ? " (now: " : "", events,
		     *events ? ")" : "") < 0)
		lo->what = NULL;
	journal_free(&j);
	if (!lo->name || !lo->what) {
		free(lo->name);
		free(lo->what);
		return kt_error_oom(err);
	}
	return 1;
}

int tfs_journal_undo(const char *tracefs, struct ktrace_error *err)
{
	char path[PATH_MAX];
	struct journal j;
	int ret;

	if (journal_path(path, sizeof(path)))
		return ktrace_error_set(err, -ENAMETOOLONG, "journal file name too long");
	ret = journal_load(path, &j, err);
	if (ret == -ENOENT)
		return ktrace_error_set(err, -ENOENT, "nothing to put back: no journal %s", path);
	if (ret)
		return ret;
	if (journal_alive(&j)) {
		ret = ktrace_error_set(err, -EBUSY, "the top buffer is in use by ktrace %s (pid %ld)",
				       j.kind, j.pid);
		journal_free(&j);
		return ret;
	}
	if (tfs_pathf(j.b.dir, sizeof(j.b.dir), "%s", tracefs)) {
		journal_free(&j);
		return ktrace_error_set(err, -ENAMETOOLONG, "path too long");
	}
	ret = tfs_restore_buffer(&j.b, err);
	journal_free(&j);
	/* what could be put back is; what could not is said (the error) */
	unlink(path);
	return ret;
}

void tfs_journal_forget(void)
{
	char path[PATH_MAX];
	struct journal j;

	if (journal_path(path, sizeof(path)) || journal_load(path, &j, NULL))
		return;
	if (!journal_alive(&j))
		unlink(path);
	journal_free(&j);
}

/* ------------------------------------------------------------------ readers */

struct pipe_id {
	dev_t dev;
	ino_t ino;
};

static int add_id(struct pipe_id **v, size_t *n, const char *path)
{
	struct pipe_id *p;
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	p = kt_realloc_array(*v, *n + 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*v = p;
	p[*n].dev = st.st_dev;
	p[*n].ino = st.st_ino;
	(*n)++;
	return 0;
}

/* The pipes of the buffer at dir (trace_pipe, per_cpu/cpuN/trace_pipe_raw and
 * trace_pipe): reading any of them takes events out of it. */
static int buffer_pipes(const char *dir, struct pipe_id **v, size_t *n)
{
	char path[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	*v = NULL;
	*n = 0;
	if (!tfs_path(path, sizeof(path), dir, "trace_pipe"))
		ret = add_id(v, n, path);
	if (tfs_path(path, sizeof(path), dir, "per_cpu") || !(d = opendir(path)))
		return ret;
	while (!ret && (de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3))
			continue;
		if (!tfs_pathf(path, sizeof(path), "%s/per_cpu/%s/trace_pipe_raw", dir, de->d_name))
			ret = add_id(v, n, path);
		if (!ret && !tfs_pathf(path, sizeof(path), "%s/per_cpu/%s/trace_pipe", dir, de->d_name))
			ret = add_id(v, n, path);
	}
	closedir(d);
	return ret;
}

/* A process other than this one with one of the pipes open: its pid (comm filled), or
 * 0. */
static long pipe_reader(const struct pipe_id *v, size_t n, char *comm, size_t len)
{
	DIR *proc = opendir("/proc");
	struct dirent *pe;
	long found = 0, self = (long)getpid();

	if (!proc)
		return 0;
	while (!found && (pe = readdir(proc))) {
		char dir[64], link[PATH_MAX], target[PATH_MAX];
		struct dirent *fe;
		char *end;
		long pid = strtol(pe->d_name, &end, 10);
		DIR *fds;

		if (*end || pid <= 0 || pid == self)
			continue;
		snprintf(dir, sizeof(dir), "/proc/%ld/fd", pid);
		if (!(fds = opendir(dir)))
			continue;
		while (!found && (fe = readdir(fds))) {
			const char *base;
			struct stat st;
			ssize_t k;

			if (fe->d_name[0] == '.' ||
			    snprintf(link, sizeof(link), "%s/%s", dir, fe->d_name) >= (int)sizeof(link))
				continue;
			/* the name first (cheap), then the file itself */
			k = readlink(link, target, sizeof(target) - 1);
			if (k <= 0)
				continue;
			target[k] = 0;
			base = strrchr(target, '/');
			if (!base || (strcmp(base, "/trace_pipe_raw") && strcmp(base, "/trace_pipe")) ||
			    stat(link, &st) < 0)
				continue;
			for (size_t i = 0; i < n && !found; i++)
				if (v[i].dev == st.st_dev && v[i].ino == st.st_ino)
					found = pid;
		}
		closedir(fds);
	}
	closedir(proc);
	if (found) {
		char path[64], *c = NULL;

		snprintf(path, sizeof(path), "/proc/%ld/comm", found);
		snprintf(comm, len, "%s", "?");
		if (tfs_read_file(path, 256, &c, NULL) == 0) {
			c[strcspn(c, "\n")] = 0;
			snprintf(comm, len, "%s", c);
			free(c);
		}
	}
	return found;
}

int tfs_buffer_busy(const char *tracefs, const char *name, const char *dir,
		    struct ktrace_error *err)
{
	char what[300], comm[64];
	struct pipe_id *ids;
	size_t n;
	long pid;
	int ret;

	if (*name)
		snprintf(what, sizeof(what), "instance %s", name);
	else
		snprintf(what, sizeof(what), "the top buffer");
	if (!*name) {
		char path[PATH_MAX];
		struct journal j;

		/* a session of another process on the top buffer (a killed one's journal is
		 * the next session's to handle) */
		if (!journal_path(path, sizeof(path)) && journal_load(path, &j, NULL) == 0) {
			bool busy = j.pid != (long)getpid() && journal_alive(&j);

			if (busy)
				ret = ktrace_error_set(err, -EBUSY, "the top buffer is in use by ktrace %s "
						       "(pid %ld): reading it would take part of its "
						       "events", j.kind, j.pid);
			journal_free(&j);
			if (busy)
				return ret;
		}
	}
	if (buffer_pipes(dir, &ids, &n)) {
		free(ids);
		return kt_error_oom(err);
	}
	pid = n ? pipe_reader(ids, n, comm, sizeof(comm)) : 0;
	free(ids);
	if (!pid)
		return 0;
	return ktrace_error_set(err, -EBUSY, "%s is being read by another process, %s (pid %ld): a "
				"second reader would take part of its events; wait for it to end%s",
				what, comm, pid, *name ? "" : ", or record in an instance of your own "
				"(-B NAME)");
}
