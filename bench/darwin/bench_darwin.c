// SPDX-License-Identifier: MIT
/*
 * Darwin kdebug benchmark: writes a large synthetic V3 ktrace file with our writer
 * (default 4,000,000 events in 4096-event chunks, 512 threads, START/END pairs), then
 * measures
 *   1. decoding: ktrace_darwin_next over every event (library only);
 *   2. `ktrace report FILE > /dev/null` and `ktrace report --csv FILE > /dev/null`
 *      (decoding, name lookup, START/END matching and formatting).
 * Prints events per second for each. Usage: bench_darwin [EVENTS] [KTRACE_BINARY]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ktrace/darwin.h>
#include <ktrace/ktrace_file.h>

#define THREADS 512
#define CHUNK_EVENTS 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i); }

static const uint32_t ids[] = {
	0x01400080, 0x040c0010, 0x01300008, 0x010c0024, 0x25010014, 0x31a00034, 0x05000100,
};

static int write_file(const char *path, uint64_t nevents)
{
	struct ktrace_error err = { 0 };
	struct ktrace_file_writer *w;
	struct ktrace_file_header h = { .flavour = KTRACE_FILE_LIBKTRACE, .major = 1,
					.timebase_numer = 125, .timebase_denom = 3,
					.flags = KTRACE_FILE_FLAG_64BIT };
	uint8_t *map = calloc(THREADS, 32), *ev = malloc(CHUNK_EVENTS * 64);
	uint64_t ts = 1000000, rng = 88172645463325252ULL;

	if (!map || !ev || ktrace_file_writer_create(path, &h, &w, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.message);
		return -1;
	}
	for (int t = 0; t < THREADS; t++) {
		put64(map + 32 * t, 0x1000 + (uint64_t)t);
		put32(map + 32 * t + 8, 100 + (uint32_t)t / 8);
		snprintf((char *)map + 32 * t + 12, 20, "proc%d", t / 8);
	}
	ktrace_file_writer_add_chunk(w, KTRACE_TAG_THREAD_MAP, 1, 0, map, THREADS * 32, &err);
	for (uint64_t done = 0; done < nevents;) {
		size_t n = nevents - done < CHUNK_EVENTS ? (size_t)(nevents - done) : CHUNK_EVENTS;

		memset(ev, 0, n * 64);
		for (size_t i = 0; i < n; i++) {
			uint8_t *p = ev + 64 * i;
			uint64_t k = done + i;
			uint32_t id = ids[(k / 2) % (sizeof(ids) / sizeof(ids[0]))];

			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			ts += 1 + rng % 200;
			put64(p, ts);
			put64(p + 8, rng);
			put64(p + 16, k);
			put64(p + 40, 0x1000 + (k / 2) % THREADS);
			put32(p + 48, id | (k & 1 ? 2 : 1));     /* START, then END */
			put32(p + 52, (uint32_t)(k % 8));
		}
		if (ktrace_file_writer_add_events(w, 0, ev, n * 64, true, &err) < 0) {
			fprintf(stderr, "bench: %s\n", err.message);
			ktrace_file_writer_abort(w);
			return -1;
		}
		done += n;
	}
	free(map);
	free(ev);
	return ktrace_file_writer_close(w, &err);
}

static double time_cli(const char *bin, const char *opt, const char *path)
{
	double t0 = now();
	pid_t pid;

	fflush(stdout);
	pid = fork();
	int st;

	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		if (*opt)
			execl(bin, bin, "report", opt, path, (char *)NULL);
		else
			execl(bin, bin, "report", path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return now() - t0;
}

int main(int argc, char **argv)
{
	uint64_t nevents = argc > 1 ? strtoull(argv[1], NULL, 0) : 4000000;
	const char *bin = argc > 2 ? argv[2] : "../../build/ktrace";
	char path[] = "/tmp/ktrace-bench-darwin-XXXXXX";
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_event ev;
	uint64_t n = 0, sum = 0;
	double t0, dt, dr, dc;
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	t0 = now();
	if (write_file(path, nevents) < 0)
		return 1;
	printf("darwin: wrote %llu events (%.1f MB V3 file) in %.2f s\n",
	       (unsigned long long)nevents, (double)(nevents * 64) / 1e6, now() - t0);

	if (ktrace_input_open(path, &in, &err) < 0 || ktrace_darwin_open(in, NULL, &k, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.message);
		return 1;
	}
	t0 = now();
	while (ktrace_darwin_next(k, &ev, &err) > 0) {
		sum += ev.ns ^ ev.debugid;
		n++;
	}
	dt = now() - t0;
	ktrace_darwin_close(k);
	ktrace_input_close(in);
	if (n != nevents) {
		fprintf(stderr, "bench: decoded %llu of %llu events\n", (unsigned long long)n,
			(unsigned long long)nevents);
		return 1;
	}
	printf("darwin: decode (library):       %8.3f s  %6.1f M events/s  (checksum %llx)\n", dt,
	       (double)n / dt / 1e6, (unsigned long long)sum);
	dr = time_cli(bin, "", path);
	dc = time_cli(bin, "--csv", path);
	if (dr > 0)
		printf("darwin: ktrace report >/dev/null %7.3f s  %6.1f M events/s\n", dr,
		       (double)n / dr / 1e6);
	if (dc > 0)
		printf("darwin: ktrace report --csv      %7.3f s  %6.1f M events/s\n", dc,
		       (double)n / dc / 1e6);
	unlink(path);
	return dr > 0 && dc > 0 ? 0 : 1;
}
