// SPDX-License-Identifier: MIT
/*
 * KOFF_TRACE tests, and the producer the script tests run (this program is also the
 * NAMELIST of their crash dumps).
 *
 *   test_koff_producer                       unit tests of KOFF_TRACE
 *   test_koff_producer threads T N [stop|abort|exit] [strings]
 *       T threads each log N records through KOFF_TRACE into the default buffer
 *       (KOFF_BUFFER), then the process stops itself (SIGSTOP), aborts (a kernel
 *       core dump) or exits
 *   test_koff_producer torture P T N
 *       P processes of T threads each log N self-checking records as fast as they can
 *   test_koff_producer example PATH
 *       writes the ktrace(1) page's example records into a new buffer at PATH
 *   test_koff_producer masks
 *       logs one record with each mask bit 0..3 ("mask: bit N")
 *   test_koff_producer check FILE P T N [complete]
 *       checks a dump (ktrace dump -v output, -t allowed) of torture records: no torn
 *       record, per-writer order, counters that add up; with "complete" also every
 *       record of every writer exactly once, nothing dropped, and (with -t) the time
 *       stamps never going back
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ktrace/koff.h>

#include "testlib.h"

static const char *const names[] = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta",
				     "eta", "theta" };

struct worker {
	int index, n, strings;
	pthread_t thread;
};

/* A reader of the buffer file at path. */
static int open_path(const char *path, struct koff_reader **out, struct ktrace_error *err)
{
	KTRACE_OPTS(koff_reader_open_opts, o, .path = path);

	return koff_reader_open(&o, out, err);
}

static void *worker_main(void *p)
{
	struct worker *w = p;

	for (int i = 0; i < w->n; i++) {
		if (w->strings)
			KOFF_TRACE(0x1, (uint64_t)w->index << 32 | (uint64_t)i,
				   "worker: %s record %d of %d", names[w->index & 7], i, w->n);
		else
			KOFF_TRACE(0x1, (uint64_t)w->index << 32 | (uint64_t)i,
				   "worker: thread %d record %d value %lx", w->index, i,
				   (long)i * 7919);
	}
	return NULL;
}

static int run_threads(int argc, char **argv)
{
	int t = atoi(argv[2]), n = atoi(argv[3]);
	const char *end = argc > 4 ? argv[4] : "exit";
	int strings = argc > 5 && !strcmp(argv[5], "strings");
	struct worker *w = calloc((size_t)t, sizeof(*w));

	if (!w || t < 1 || n < 0)
		return 2;
	for (int i = 0; i < t; i++) {
		w[i].index = i;
		w[i].n = n;
		w[i].strings = strings;
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < t; i++)
		pthread_join(w[i].thread, NULL);
	if (!koff_default())
		return 3;
	if (!strcmp(end, "stop"))
		raise(SIGSTOP);
	else if (!strcmp(end, "abort"))
		abort();
	free(w);
	return 0;
}

/* Torture records: the correlator and the arguments are tied together so that a
 * record mixing two writes shows: id = writer << 32 | n, args = { writer, n, n ^ K,
 * ~n, writer * n }. */
#define TORTURE_K 0x5a5a5a5aU

static void *torture_main(void *p)
{
	struct worker *w = p;

	for (unsigned n = 0; n < (unsigned)w->n; n++)
		KOFF_TRACE(0x1, (uint64_t)w->index << 32 | n, "torture: %x %x %x %x %x",
			   (unsigned)w->index, n, n ^ TORTURE_K, ~n, (unsigned)w->index * n);
	return NULL;
}

static int run_torture(char **argv)
{
	int procs = atoi(argv[2]), threads = atoi(argv[3]), n = atoi(argv[4]);

	for (int p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid == 0) {
			struct worker *w = calloc((size_t)threads, sizeof(*w));

			for (int i = 0; i < threads; i++) {
				w[i].index = p * threads + i;
				w[i].n = n;
				pthread_create(&w[i].thread, NULL, torture_main, &w[i]);
			}
			for (int i = 0; i < threads; i++)
				pthread_join(w[i].thread, NULL);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	return 0;
}

/* Checks a `ktrace dump -v` of torture records. */
static int run_check(int argc, char **argv)
{
	FILE *f = fopen(argv[2], "r");
	int writers = atoi(argv[3]) * atoi(argv[4]);
	long long per_writer = atoll(argv[5]);
	bool complete = argc > 6 && !strcmp(argv[6], "complete");
	long long *last = calloc((size_t)writers + 1, sizeof(*last));
	char line[512], prev_time[40] = "";
	unsigned long long logged = 0, shown = 0, over = 0, unfin = 0, dropped = 0, rejected = 0;
	long long records = 0, bad = 0, order = 0, have_counts = 0, missing = 0, backwards = 0;

	if (!f || !last)
		return 2;
	for (int i = 0; i < writers; i++)
		last[i] = -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned tid, delta, correl, w, n, x, nn, wn;
		char *rec = line;

		if (sscanf(line, "# logged %llu = shown %llu + overwritten %llu + unfinished %llu; "
			   "dropped %llu, rejected %llu", &logged, &shown, &over, &unfin, &dropped,
			   &rejected) == 6) {
			have_counts = 1;
			continue;
		}
		if (line[0] == '#' || line[4] == '+')
			continue;
		/* -t: "YYYY-MM-DD HH:MM:SS.nnnnnnnnn " first; such times compare as text */
		if (strlen(line) > 30 && line[4] == '-' && line[29] == ' ') {
			if (strncmp(line, prev_time, 29) < 0 && backwards++ < 5)
				printf("#   time goes back: %.29s after %s\n", line, prev_time);
			memcpy(prev_time, line, 29);
			prev_time[29] = '\0';
			rec = line + 30;
		}
		records++;
		if (sscanf(rec, "%8x:%4x:%8x    torture: %x %x %x %x %x", &tid, &delta, &correl, &w,
			   &n, &x, &nn, &wn) != 8 || correl != n || x != (n ^ TORTURE_K) ||
		    nn != ~n || wn != w * n || (int)w >= writers) {
			if (bad++ < 5)
				printf("#   torn or foreign record: %s", line);
			continue;
		}
		if ((long long)n <= last[w] && order++ < 5)
			printf("#   writer %u: record %u after %lld\n", w, n, last[w]);
		if (complete && (long long)n != last[w] + 1 && missing++ < 5)
			printf("#   writer %u: record %u follows %lld\n", w, n, last[w]);
		last[w] = n;
	}
	fclose(f);
	for (int i = 0; complete && i < writers; i++)
		if (last[i] != per_writer - 1 && missing++ < 5)
			printf("#   writer %d: last record %lld of %lld\n", i, last[i], per_writer);
	free(last);
	printf("# %lld records; logged %llu shown %llu overwritten %llu unfinished %llu dropped "
	       "%llu\n", records, logged, shown, over, unfin, dropped);
	if (!have_counts || bad || order || (unsigned long long)records != shown ||
	    logged != shown + over + unfin || unfin > dropped + (unsigned long long)writers)
		return 1;
	if (complete && (missing || backwards || dropped || over || unfin ||
			 records != per_writer * writers))
		return 1;
	return 0;
}

static int run_masks(void)
{
	for (int bit = 0; bit < 4; bit++)
		KOFF_TRACE(1ULL << bit, (uint64_t)bit, "mask: bit %d", bit);
	return koff_default() ? 0 : 3;
}

/* The EXAMPLES section of ktrace(1): 2001-05-16 12:19:16.772 UTC and the offsets its
 * deltas give, thread ids and correlators with bits set above the low 32. */
static int run_example(const char *file)
{
	static const uint64_t none[5];
	const uint64_t mount[5] = { 0x3f7738, 0x43fab8 };
	const uint64_t attr[5] = { 0x10 };
	const uint64_t ms = 1000000, t0 = 990015556ULL * 1000000000ULL + 772 * ms;
	struct koff_buffer *b;
	int ret = 0;

	unlink(file);
	b = koff_open(file, 64);
	if (!b)
		return 3;
	ret |= koff_log_raw(b, 0xabcd0000001bdd20ULL, t0, 0, "_init:", none);
	ret |= koff_log_raw(b, 0x00fe5d20, t0 + 3190 * ms + 5000, 0, "io_reaper: sleep", none);
	ret |= koff_log_raw(b, 0x100000005c6d780ULL, t0 + 3240 * ms, 0,
			    "odmmount: vfsp %x mvp %x", mount);
	ret |= koff_log_raw(b, 0x001bdd20, t0 + 50220 * ms, 0, "_fini:", none);
	ret |= koff_log_raw(b, 0x05325440, t0 + 68070 * ms, 0xdead00007836c820ULL,
			    "odmgetattr: flags %x", attr);
	ret |= koff_log_raw(b, 0xffffffff05325440ULL, t0 + 68070 * ms + 999, 0x7836c820,
			    "odmgetattr: flags %x", attr);
	koff_close(b);
	return ret ? 1 : 0;
}

/* ---- unit tests ------------------------------------------------------------------- */

static char path[128];

static int count_in(const char *file, const char *fmt_prefix, uint64_t *first_arg)
{
	struct ktrace_error err = { 0 };
	struct koff_reader *r;
	struct koff_record rec;
	int n = 0;

	if (open_path(file, &r, &err))
		return -1;
	while (koff_reader_next(r, &rec, &err) > 0) {
		if (rec.fmt && !strncmp(rec.fmt, fmt_prefix, strlen(fmt_prefix))) {
			if (!n && first_arg)
				*first_arg = rec.args[0];
			n++;
		}
	}
	koff_reader_close(r);
	return n;
}

static int count_records(const char *fmt_prefix, uint64_t *first_arg)
{
	return count_in(path, fmt_prefix, first_arg);
}

static void trace_gated_by_mask(void)
{
	struct koff_buffer *b = koff_default();
	struct ktrace_error err = { 0 };

	CHECK(b != NULL);
	if (!b)
		return;
	CHECK_STR(koff_path(b), path);
	CHECK_EQ(koff_get_mask(b), ~0ULL);   /* a new buffer traces everything */
	KOFF_TRACE(0x4, 1, "gate: on %d", 1);
	koff_set_mask(b, 0x3);
	KOFF_TRACE(0x4, 2, "gate: masked %d", 2);
	KOFF_TRACE(0x2, 3, "gate: bit1 %d", 3);
	koff_disable(b);
	KOFF_TRACE(0x2, 4, "gate: disabled %d", 4);
	koff_enable_last(b, &err);
	KOFF_TRACE(0x2, 5, "gate: again %d", 5);
	CHECK_EQ(count_records("gate: on", NULL), 1);
	CHECK_EQ(count_records("gate: masked", NULL), 0);
	CHECK_EQ(count_records("gate: bit1", NULL), 1);
	CHECK_EQ(count_records("gate: disabled", NULL), 0);
	CHECK_EQ(count_records("gate: again", NULL), 1);
	koff_set_mask(b, ~0ULL);
}

static void argument_words(void)
{
	struct ktrace_error err = { 0 };
	struct koff_reader *r;
	struct koff_record rec;
	char tag[11], rest[256];
	int found = 0;
	double d = 2.5;
	float fl = -0.75f;
	short sh = -3;
	char c = 'q';
	void *p = (void *)0x1234;

	KOFF_TRACE(0x1, 99, "args: %d %hd %c %p %.2f", -7, sh, c, p, d);
	KOFF_TRACE(0x1, 98, "float: %.3f", fl);
	KOFF_TRACE(0x1, 97, "none:");
	CHECK_EQ(open_path(path, &r, &err), 0);
	while (koff_reader_next(r, &rec, &err) > 0) {
		koff_record_format(&rec, tag, rest, sizeof(rest));
		if (rec.id == 99) {
			CHECK_STR(tag, "args");
			CHECK_STR(rest, " -7 -3 q 0x1234 2.50");
			CHECK_EQ(rec.args[0], (uint64_t)(int64_t)-7);
			CHECK_EQ(rec.tid, (uint64_t)gettid());
			CHECK_EQ(rec.pid, getpid());
			CHECK(rec.flags & 1);
			found++;
		} else if (rec.id == 98) {
			CHECK_STR(rest, " -0.750");
			found++;
		} else if (rec.id == 97) {
			CHECK_STR(tag, "none");
			CHECK_STR(rest, "");
			CHECK_EQ(rec.args[0], 0);
			CHECK_EQ(rec.args[4], 0);
			found++;
		}
	}
	koff_reader_close(r);
	CHECK_EQ(found, 3);
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Record time stamps (extrapolated from the TSC where the kernel uses it) stay within
 * 20 us of the wall clock read around the call, across re-anchoring. */
static void timestamps_track_wall_clock(void)
{
	struct ktrace_error err = { 0 };
	uint64_t before[60], after[60];
	struct koff_reader *r;
	struct koff_record rec;
	int i = 0, bad = 0;

	for (int k = 0; k < 60; k++) {
		before[k] = wall_ns();
		KOFF_TRACE(0x1, 1000 + k, "clock: %d", k);
		after[k] = wall_ns();
		usleep(k % 7 == 0 ? 3000 : 100);
	}
	CHECK_EQ(open_path(path, &r, &err), 0);
	while (koff_reader_next(r, &rec, &err) > 0) {
		if (rec.id < 1000 || rec.id >= 1060)
			continue;
		i = (int)(rec.id - 1000);
		if (rec.ns + 20000 < before[i] || rec.ns > after[i] + 20000) {
			if (bad++ < 3)
				printf("#   record %d: %llu not in [%llu, %llu]\n", i,
				       (unsigned long long)rec.ns, (unsigned long long)before[i],
				       (unsigned long long)after[i]);
		}
	}
	koff_reader_close(r);
	CHECK_EQ(i, 59);
	CHECK_EQ(bad, 0);
}

static void trace_to_explicit_buffer(void)
{
	char other[160];
	struct koff_buffer *b;
	uint64_t first = 0;

	snprintf(other, sizeof(other), "%s-other", path);
	unlink(other);
	b = koff_open(other, 16);
	CHECK(b != NULL);
	if (!b)
		return;
	for (int i = 0; i < 40; i++)
		KOFF_TRACE_TO(b, 0x1, i, "other: %d", i);
	koff_close(b);
	CHECK_EQ(count_in(other, "other:", &first), 16);
	CHECK_EQ(first, 24);
	unlink(other);
}

/* The buffer's slots per group, from its header. */
static uint32_t group_of(const char *file)
{
	uint32_t g = 0;
	FILE *f = fopen(file, "rb");

	if (f) {
		if (fseek(f, 96, SEEK_SET) || fread(&g, 4, 1, f) != 1)
			g = 0;
		fclose(f);
	}
	return g;
}

/* A thread logging into two buffers in turn keeps a group in each: no record costs a
 * group of its own (the holes would be a group less one per record); the only numbers
 * skipped are the rest of the group it still holds. */
static void alternating_buffers(void)
{
	struct ktrace_error err = { 0 };
	struct koff_reader *r;
	struct koff_record rec;
	struct koff_counts c;
	char other[160];
	struct koff_buffer *b;
	int n = 0;

	snprintf(other, sizeof(other), "%s-alt", path);
	unlink(other);
	b = koff_open(other, 4096);
	CHECK(b != NULL);
	if (!b)
		return;
	for (int i = 0; i < 300; i++) {
		KOFF_TRACE(0x1, 5000 + i, "alt: default %d", i);
		KOFF_TRACE_TO(b, 0x1, i, "alt: other %d", i);
	}
	CHECK_EQ(count_records("alt: default", NULL), 300);
	CHECK_EQ(open_path(other, &r, &err), 0);
	while (koff_reader_next(r, &rec, &err) > 0)
		CHECK_EQ(rec.id, (uint64_t)n++);
	koff_reader_counts(r, &c);
	koff_reader_close(r);
	CHECK_EQ(n, 300);
	CHECK(group_of(other) >= 2);
	CHECK(c.skipped < group_of(other));
	if (c.skipped >= group_of(other))
		printf("#   %llu numbers skipped (groups of %u)\n", (unsigned long long)c.skipped,
		       group_of(other));
	koff_close(b);
	unlink(other);
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "threads"))
		return run_threads(argc, argv);
	if (argc > 4 && !strcmp(argv[1], "torture"))
		return run_torture(argv);
	if (argc > 5 && !strcmp(argv[1], "check"))
		return run_check(argc, argv);
	if (argc > 2 && !strcmp(argv[1], "example"))
		return run_example(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "masks"))
		return run_masks();
	if (argc > 1)
		return 2;
	snprintf(path, sizeof(path), "/dev/shm/koff-test-%d-producer", (int)getpid());
	unlink(path);
	setenv("KOFF_BUFFER", path, 1);
	PLAN(5);
	RUN(trace_gated_by_mask);
	RUN(argument_words);
	RUN(trace_to_explicit_buffer);
	RUN(alternating_buffers);
	RUN(timestamps_track_wall_clock);
	unlink(path);
	return TEST_EXIT();
}
