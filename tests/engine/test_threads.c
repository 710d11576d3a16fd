// SPDX-License-Identifier: MIT
/*
 * The thread and process table (lib/engine/engine_threads.h): entries found by (scope,
 * id) after the table grows, kept in the order they were added, with the sink's data
 * zeroed; scopes apart only per source; names cut and compared; and the threads of a
 * trace.dat's saved cmdlines loaded by both rules, checked against the stream's own
 * task list walked here; a thread two inputs name differently keeps the first name,
 * the last, or one per input, as the table's rules say.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <ktrace/stream.h>

#include "engine/engine_threads.h"
#include "testlib.h"

struct ext {
	uint64_t a, b;
};

static void add_find_grow(void)
{
	struct kt_threads t;
	const int n = 5000;
	bool ok = true;

	kt_threads_init(&t, 0, 0, sizeof(struct ext));
	CHECK(kt_threads_find(&t, 0, 1) == NULL);
	for (int i = 0; i < n && ok; i++) {
		/* ids that collide in the low bits, and negative ones */
		int64_t id = (int64_t)i * 1024 - 7;
		struct kt_thread *th = kt_threads_add(&t, 0, id);
		struct ext *e;

		ok = th && th->id == id && th->pid == -1 && !th->name && !th->flags &&
		     kt_threads_index(&t, th) == (size_t)i;
		if (!ok)
			break;
		e = kt_threads_ext(&t, (size_t)i);
		ok = !e->a && !e->b;
		e->a = (uint64_t)id;
		th->pid = i;
	}
	CHECK(ok);
	CHECK_EQ(t.n, n);
	for (int i = 0; i < n && ok; i++) {
		int64_t id = (int64_t)i * 1024 - 7;
		struct kt_thread *th = kt_threads_find(&t, 0, id);

		ok = th && kt_threads_index(&t, th) == (size_t)i && th->pid == i &&
		     ((struct ext *)kt_threads_ext(&t, (size_t)i))->a == (uint64_t)id &&
		     kt_threads_add(&t, 0, id) == th;
	}
	CHECK(ok);
	CHECK_EQ(t.n, n);
	CHECK(kt_threads_find(&t, 0, 3) == NULL);
	/* every entry once in the map */
	CHECK_EQ(t.map.n, n);
	kt_threads_free(&t);
	CHECK_EQ(t.n, 0);
	CHECK(kt_threads_find(&t, 0, -7) == NULL);
}

static void scopes(void)
{
	struct kt_threads per, all;
	struct kt_thread *a, *b;

	kt_threads_init(&per, KT_THREADS_PER_SOURCE, 0, 0);
	kt_threads_init(&all, 0, 0, 0);
	a = kt_threads_add(&per, 0, 42);
	b = kt_threads_add(&per, 1, 42);
	CHECK(a && b && a != b);
	CHECK_EQ(per.n, 2);
	CHECK(kt_threads_find(&per, 1, 42) == &per.v[1]);
	CHECK(kt_threads_find(&per, 2, 42) == NULL);
	a = kt_threads_add(&all, 0, 42);
	b = kt_threads_add(&all, 1, 42);
	CHECK(a && a == b && a->scope == 0);
	CHECK_EQ(all.n, 1);
	kt_threads_free(&per);
	kt_threads_free(&all);
}

static void names(void)
{
	struct kt_threads t;
	struct kt_thread *th;

	kt_threads_init(&t, 0, 4, 0);
	th = kt_threads_add(&t, 0, 1);
	CHECK(th != NULL);
	if (!th)
		return;
	CHECK_STR(kt_thread_name(th), "");
	CHECK_EQ(kt_thread_set_name(&t, th, "", 0), 0);
	CHECK_EQ(kt_thread_set_name(&t, th, "kworker", 7), 1);
	CHECK_STR(kt_thread_name(th), "kwor");
	/* the same once cut: no change */
	CHECK_EQ(kt_thread_set_name(&t, th, "kworkers", 8), 0);
	CHECK_EQ(kt_thread_set_name(&t, th, "kwo", 3), 1);
	CHECK_STR(kt_thread_name(th), "kwo");
	/* a length, not a NUL, ends the name */
	CHECK_EQ(kt_thread_set_name(&t, th, "bash-more", 4), 1);
	CHECK_STR(kt_thread_name(th), "bash");
	CHECK_EQ(kt_thread_set_name(&t, th, "", 0), 1);
	CHECK(th->name == NULL);
	kt_threads_free(&t);

	kt_threads_init(&t, 0, 0, 0);
	th = kt_threads_add(&t, 0, 1);
	CHECK(th != NULL);
	if (th) {
		CHECK_EQ(kt_thread_set_name(&t, th, "a-long-name-of-a-thread-past-sixty-four-bytes-"
						     "as-an-event-field-may-give",
					     72), 1);
		CHECK_EQ(strlen(kt_thread_name(th)), 72);
	}
	kt_threads_free(&t);
}

/* The tid's task entries, walked in the stream's order: the first and the last
 * non-empty name, the first and the last known pid. */
static void expect(const struct ktrace_stream *s, int64_t tid, const char **first,
		   const char **last, int64_t *first_pid, int64_t *last_pid)
{
	bool any = false;

	*first = *last = "";
	*first_pid = *last_pid = -1;
	for (size_t i = 0; i < ktrace_stream_task_count(s); i++) {
		const struct ktrace_stream_task_info *ti = ktrace_stream_task(s, i);

		if (ti->tid != tid)
			continue;
		if (!any)
			*first = ti->comm;
		any = true;
		if (*ti->comm)
			*last = ti->comm;
		if (ti->pid >= 0) {
			if (*first_pid < 0)
				*first_pid = ti->pid;
			*last_pid = ti->pid;
		}
	}
}

static void load(void)
{
	const char *const paths[] = { "examples/sched_demo.dat" };
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	struct kt_threads first, last;
	bool ok = true;
	size_t named = 0;

	CHECK_EQ(ktrace_stream_open(&s, paths, 1, &so, &err, NULL), 0);
	if (!s)
		return;
	CHECK(ktrace_stream_task_count(s) > 10);
	kt_threads_init(&first, KT_THREADS_FIRST_WINS, 15, 0);
	kt_threads_init(&last, KT_THREADS_NEGATIVE, 0, 0);
	CHECK_EQ(kt_threads_load(&first, s), 0);
	CHECK_EQ(kt_threads_load(&last, s), 0);
	CHECK(first.n > 10 && first.n <= ktrace_stream_task_count(s));
	CHECK_EQ(first.n, last.n);
	for (size_t i = 0; i < ktrace_stream_task_count(s) && ok; i++) {
		const struct ktrace_stream_task_info *ti = ktrace_stream_task(s, i);
		const struct kt_thread *f = kt_threads_find(&first, 0, ti->tid);
		const struct kt_thread *l = kt_threads_find(&last, 0, ti->tid);
		const char *fname, *lname;
		int64_t fpid, lpid;

		expect(s, ti->tid, &fname, &lname, &fpid, &lpid);
		ok = f && l && !strncmp(kt_thread_name(f), fname, 15) &&
		     strlen(kt_thread_name(f)) == (strlen(fname) < 15 ? strlen(fname) : 15) &&
		     !strcmp(kt_thread_name(l), lname) && f->pid == fpid && l->pid == lpid;
		if (!ok)
			printf("#   tid %" PRId64 ": \"%s\" %" PRId64 ", \"%s\" %" PRId64 "\n", ti->tid,
			       f ? kt_thread_name(f) : "?", f ? f->pid : -2,
			       l ? kt_thread_name(l) : "?", l ? l->pid : -2);
		named += *lname != 0;
	}
	CHECK(ok);
	CHECK(named > 10);
	kt_threads_free(&first);
	kt_threads_free(&last);
	ktrace_stream_close(s);
}

#define RULES_SRC "../shared/data/ftrace/trappy_tests_trace.v6.dat"

/* The same trace twice, the second's saved cmdline of 2875 renamed (same length): the
 * rules of the table decide which name a thread named by both inputs keeps. */
static void rules(void)
{
	static const char was[] = "2875 AudioOut_2\n";
	char tmp[] = "/tmp/ktrace-test-threads-XXXXXX";
	const char *paths[2] = { RULES_SRC, tmp };
	KTRACE_OPTS(ktrace_stream_opts, so);
	struct ktrace_stream *s = NULL;
	struct ktrace_error err = { 0 };
	struct kt_threads first, last, per;
	const struct kt_thread *th;
	FILE *f = fopen(RULES_SRC, "rb");
	char *buf = malloc(8 << 20), *at;
	size_t n = f && buf ? fread(buf, 1, 8 << 20, f) : 0;
	int fd = mkstemp(tmp);

	if (f)
		fclose(f);
	at = n ? memmem(buf, n, was, sizeof(was) - 1) : NULL;
	CHECK(at && !memmem(at + 1, n - (size_t)(at + 1 - buf), was, sizeof(was) - 1));
	CHECK(fd >= 0);
	if (!at || fd < 0)
		goto out;
	at[10] = 'X';   /* AudioXut_2 */
	CHECK_EQ(write(fd, buf, n), (long long)n);
	CHECK_EQ(ktrace_stream_open(&s, paths, 2, &so, &err, NULL), 0);
	if (!s)
		goto out;
	kt_threads_init(&first, KT_THREADS_FIRST_WINS, 0, 0);
	kt_threads_init(&last, 0, 0, 0);
	kt_threads_init(&per, KT_THREADS_PER_SOURCE, 0, 0);
	CHECK(!kt_threads_load(&first, s) && !kt_threads_load(&last, s) &&
	      !kt_threads_load(&per, s));
	CHECK(first.n > 100);
	CHECK_EQ(last.n, first.n);
	CHECK_EQ(per.n, 2 * first.n);
	th = kt_threads_find(&first, 1, 2875);
	CHECK(th && !strcmp(kt_thread_name(th), "AudioOut_2"));
	th = kt_threads_find(&last, 0, 2875);
	CHECK(th && !strcmp(kt_thread_name(th), "AudioXut_2"));
	th = kt_threads_find(&per, 0, 2875);
	CHECK(th && !strcmp(kt_thread_name(th), "AudioOut_2") && th->scope == 0);
	th = kt_threads_find(&per, 1, 2875);
	CHECK(th && !strcmp(kt_thread_name(th), "AudioXut_2") && th->scope == 1);
	th = kt_threads_find(&per, 1, 13353);
	CHECK(th && !strcmp(kt_thread_name(th), "UnityWorker"));
	kt_threads_free(&first);
	kt_threads_free(&last);
	kt_threads_free(&per);
	ktrace_stream_close(s);
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(buf);
}

int main(void)
{
	PLAN(5);
	RUN(add_find_grow);
	RUN(scopes);
	RUN(names);
	RUN(load);
	if (access(RULES_SRC, R_OK))
		printf("ok - rules # SKIP no %s\n", RULES_SRC);
	else
		RUN(rules);
	return TEST_EXIT();
}
