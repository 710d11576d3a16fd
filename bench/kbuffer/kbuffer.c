// SPDX-License-Identifier: MIT
/*
 * bench/kbuffer: walks every sub-buffer of a large ring-buffer dump with libktrace's
 * kbuffer and with Debian's libtraceevent (dlopen'ed: the symbol names are the same),
 * in the same run, and prints events per second for both and the ratio.
 *
 *   bench/kbuffer [DUMP]
 *
 * DUMP is a raw trace_pipe_raw copy of 4 KiB pages (little-endian, 64-bit kernel).
 * Without it, the dumps recorded on a real machine in tests/data/recorded/ are
 * decompressed and repeated until there are at least 100 MB of CPU data.
 * Each walk loads every page, reads every event with its timestamp and size; the best
 * of several rounds counts. Both walks must agree on the event count and a checksum.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include <ktrace/kbuffer.h>

#define PAGE 4096
#define MIN_BYTES (100u << 20)
#define ROUNDS 5

struct api {
	struct kbuffer *(*alloc)(enum kbuffer_long_size, enum kbuffer_endian);
	void (*free)(struct kbuffer *);
	int (*load)(struct kbuffer *, void *);
	void *(*read_event)(struct kbuffer *, unsigned long long *);
	void *(*next_event)(struct kbuffer *, unsigned long long *);
	int (*event_size)(struct kbuffer *);
};

static const struct api ours = {
	kbuffer_alloc, kbuffer_free, kbuffer_load_subbuffer, kbuffer_read_event,
	kbuffer_next_event, kbuffer_event_size,
};

static int load_tep(struct api *a)
{
	void *h = dlopen("libtraceevent.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);

	if (!h)
		return -1;
	*(void **)&a->alloc = dlsym(h, "kbuffer_alloc");
	*(void **)&a->free = dlsym(h, "kbuffer_free");
	*(void **)&a->load = dlsym(h, "kbuffer_load_subbuffer");
	*(void **)&a->read_event = dlsym(h, "kbuffer_read_event");
	*(void **)&a->next_event = dlsym(h, "kbuffer_next_event");
	*(void **)&a->event_size = dlsym(h, "kbuffer_event_size");
	return a->alloc && a->free && a->load && a->read_event && a->next_event && a->event_size ? 0 : -1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* One full walk; returns the number of events, and a checksum in *sum. */
static uint64_t walk(const struct api *a, uint8_t *data, size_t len, uint64_t *sum)
{
	struct kbuffer *kb = a->alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	uint64_t events = 0, s = 0;

	for (size_t off = 0; off + PAGE <= len; off += PAGE) {
		unsigned long long ts;
		void *ev;

		a->load(kb, data + off);
		for (ev = a->read_event(kb, &ts); ev; ev = a->next_event(kb, &ts)) {
			s += ts + (uint64_t)a->event_size(kb);
			events++;
		}
	}
	a->free(kb);
	*sum = s;
	return events;
}

static double best_rate(const struct api *a, uint8_t *data, size_t len, uint64_t *events,
			uint64_t *sum)
{
	double best = 1e30;

	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now(), t;

		*events = walk(a, data, len, sum);
		t = now() - t0;
		if (t < best)
			best = t;
	}
	return (double)*events / best;
}

static uint8_t *append(uint8_t *buf, size_t *len, const uint8_t *p, size_t n)
{
	uint8_t *nb = realloc(buf, *len + n);

	if (!nb) {
		free(buf);
		return NULL;
	}
	memcpy(nb + *len, p, n);
	*len += n;
	return nb;
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, chunk[1 << 16];
	size_t n;

	*len = 0;
	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (!(buf = append(buf, len, chunk, n)))
			break;
	fclose(f);
	return buf;
}

/* The recorded dumps, decompressed and repeated up to MIN_BYTES. */
static uint8_t *recorded_sample(const char *dir, size_t *len)
{
	uint8_t *one = NULL, *all = NULL;
	size_t one_len = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	*len = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char path[1024];
		size_t clen;
		uint8_t *c;
		unsigned long long dlen;

		if (!strstr(de->d_name, ".raw.zst"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		c = read_all(path, &clen);
		if (!c)
			continue;
		dlen = ZSTD_getFrameContentSize(c, clen);
		if (dlen != ZSTD_CONTENTSIZE_ERROR && dlen != ZSTD_CONTENTSIZE_UNKNOWN) {
			uint8_t *p = realloc(one, one_len + dlen);

			if (p) {
				one = p;
				if (!ZSTD_isError(ZSTD_decompress(one + one_len, dlen, c, clen)))
					one_len += dlen;
			}
		}
		free(c);
	}
	closedir(d);
	if (!one_len)
		return NULL;
	while (*len < MIN_BYTES)
		if (!(all = append(all, len, one, one_len)))
			break;
	free(one);
	return all;
}

int main(int argc, char **argv)
{
	struct api tep;
	uint64_t ev_ours, ev_tep, sum_ours, sum_tep;
	double r_ours, r_tep;
	uint8_t *data;
	size_t len;

	if (load_tep(&tep) < 0) {
		fprintf(stderr, "bench/kbuffer: cannot load libtraceevent.so.1 (apt-get install libtraceevent1)\n");
		return 1;
	}
	data = argc > 1 ? read_all(argv[1], &len) : recorded_sample("tests/data/recorded", &len);
	if (!data || len < PAGE) {
		fprintf(stderr, "bench/kbuffer: no input data\n");
		return 1;
	}
	/* Warm the pages in memory once. */
	walk(&ours, data, len, &sum_ours);
	r_tep = best_rate(&tep, data, len, &ev_tep, &sum_tep);
	r_ours = best_rate(&ours, data, len, &ev_ours, &sum_ours);
	if (ev_ours != ev_tep || sum_ours != sum_tep) {
		fprintf(stderr, "bench/kbuffer: walks disagree (%llu vs %llu events)\n",
			(unsigned long long)ev_ours, (unsigned long long)ev_tep);
		return 1;
	}
	printf("kbuffer walk: %.1f MB of sub-buffers, %llu events, best of %d rounds\n",
	       len / 1048576.0, (unsigned long long)ev_ours, ROUNDS);
	printf("  libtraceevent %-8s %8.1f M events/s\n", "1.7.1", r_tep / 1e6);
	printf("  libktrace     %-8s %8.1f M events/s\n", "", r_ours / 1e6);
	printf("  ratio (libktrace / libtraceevent): %.2fx\n", r_ours / r_tep);
	free(data);
	return 0;
}
