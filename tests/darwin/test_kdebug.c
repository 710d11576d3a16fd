// SPDX-License-Identifier: MIT
/*
 * kdebug decoding tests on the real RAW_VERSION2 capture (../shared/data/darwin) and
 * on V3 files built from its bytes by our writer, in both flavours:
 *   - the sample's events are checked against a direct decode of its bytes here and
 *     against values from its README;
 *   - `ktrace info --json` and `ktrace report` on the V3 files must give the same
 *     counts and the same event lines as on the sample;
 *   - report lines are checked against values computed independently (Python over the
 *     raw bytes: floor(ticks * 125 / 3), START/END pairs per thread and event id).
 * Also: legacy V0/V1 streams, 32-bit files, trace codes files, filters, names.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/darwin.h>
#include <ktrace/ktrace_file.h>

#include "testlib.h"

#define SAMPLE "../shared/data/darwin/coreprofilesessiontap.bin"
#define SAMPLE_THREADS 1606
#define SAMPLE_EVENTS 15552
#define SAMPLE_MAP_OFFSET 0x120
#define SAMPLE_EVENTS_OFFSET 0xd000

static uint8_t *sample;
static size_t sample_len;
static char tmpdir[64];
static char v3_lib[128], v3_kernel[128];
static const char *ktrace_bin;

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* --- the V2 sample --------------------------------------------------------------- */

static struct ktrace_darwin *open_file(const char *path, struct ktrace_input **in,
				       const struct ktrace_darwin_opts *opt)
{
	struct ktrace_error err = { 0 };
	struct ktrace_darwin *k = NULL;

	if (ktrace_input_open(path, in, &err) < 0)
		return NULL;
	if (ktrace_darwin_open(*in, opt, &k, &err) < 0) {
		printf("# %s: %s\n", path, err.message);
		ktrace_input_close(*in);
		return NULL;
	}
	return k;
}

static void sample_header_and_maps(void)
{
	struct ktrace_input *in;
	struct ktrace_darwin *k = open_file(SAMPLE, &in, NULL);
	const struct ktrace_darwin_info *i;
	const struct ktrace_darwin_thread *t;
	size_t n;

	CHECK(k != NULL);
	if (!k)
		return;
	i = ktrace_darwin_get_info(k);
	CHECK_EQ(i->kind, KTRACE_DARWIN_RAW_V2);
	CHECK_EQ(i->magic, 0x55aa0200);
	CHECK(i->is64);
	CHECK_EQ(i->frequency, 24000000);
	CHECK_EQ(i->timebase_numer, 125);    /* 1e9 / 24e6 reduced */
	CHECK_EQ(i->timebase_denom, 3);
	CHECK_EQ(i->threads, SAMPLE_THREADS);
	CHECK_EQ(i->events, SAMPLE_EVENTS);
	CHECK_EQ(i->events_offset, SAMPLE_EVENTS_OFFSET);
	CHECK_EQ(i->trailing_bytes, 0);
	t = ktrace_darwin_threads(k, &n);
	CHECK_EQ(n, SAMPLE_THREADS);
	/* Every entry, against the bytes. */
	for (size_t e = 0; e < n && t; e++) {
		const uint8_t *p = sample + SAMPLE_MAP_OFFSET + 32 * e;

		if (t[e].thread != le64(p) || t[e].pid != (int32_t)le32(p + 8) ||
		    strncmp(t[e].command, (const char *)p + 12, 20)) {
			CHECK(!"thread map entry differs");
			break;
		}
	}
	CHECK_STR(t[0].command, "kernel_task");
	CHECK_STR(ktrace_darwin_find_thread(k, 0x16a3c2)->command, "DTServiceHub");
	CHECK_EQ(ktrace_darwin_find_thread(k, 0x16a3c2)->pid, 19884);
	CHECK(ktrace_darwin_find_thread(k, 0) == NULL);
	ktrace_darwin_close(k);
	ktrace_input_close(in);
}

static void sample_events_match_bytes(void)
{
	struct ktrace_input *in;
	struct ktrace_error err = { 0 };
	struct ktrace_darwin *k = open_file(SAMPLE, &in, NULL);
	struct ktrace_darwin_event ev;
	size_t n = 0;
	int ret, bad = 0;

	if (!k)
		return;
	while ((ret = ktrace_darwin_next(k, &ev, &err)) > 0) {
		const uint8_t *p = sample + SAMPLE_EVENTS_OFFSET + 64 * n;
		unsigned __int128 ns = (unsigned __int128)le64(p) * 125 / 3;

		if (ev.timestamp != le64(p) || ev.arg[0] != le64(p + 8) ||
		    ev.arg[1] != le64(p + 16) || ev.arg[2] != le64(p + 24) ||
		    ev.arg[3] != le64(p + 32) || ev.thread != le64(p + 40) ||
		    ev.debugid != le32(p + 48) || ev.cpu != le32(p + 52) || ev.ns != (uint64_t)ns ||
		    ev.offset != SAMPLE_EVENTS_OFFSET + 64 * n)
			bad++;
		if (n == 0) {
			/* The sample's README: first event timestamp 0x37cec9bfe1f, debugid
			 * 0x25000001; 0x37cec9bfe1f * 125 / 3 = 159795019755958.33 ns. */
			CHECK_EQ(ev.timestamp, 0x37cec9bfe1fULL);
			CHECK_EQ(ev.debugid, 0x25000001);
			CHECK_EQ(ev.ns, 159795019755958ULL);
		}
		n++;
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(bad, 0);
	CHECK_EQ(n, SAMPLE_EVENTS);
	CHECK_EQ(ktrace_darwin_rewind(k, &err), 0);
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_EQ(ev.timestamp, 0x37cec9bfe1fULL);
	ktrace_darwin_close(k);
	ktrace_input_close(in);
}

/* --- V3 files built from the sample's bytes -------------------------------------- */

static const uint8_t cpu_ids[8] = { 0, 1, 2, 3, 4, 5, 11, 15 };

static int write_v3(const char *path, enum ktrace_file_flavour flavour)
{
	struct ktrace_error err = { 0 };
	struct ktrace_file_writer *w;
	struct ktrace_file_header h = { 0 };
	const uint8_t *map = sample + SAMPLE_MAP_OFFSET;
	const uint8_t *events = sample + SAMPLE_EVENTS_OFFSET;
	uint8_t cpumap[8 * 16] = { 0 };
	bool kernel = flavour == KTRACE_FILE_KERNEL;
	int ret;

	h.flavour = flavour;
	h.major = 1;
	h.timebase_numer = 125;
	h.timebase_denom = 3;
	h.timestamp = le64(events);
	h.flags = KTRACE_FILE_FLAG_64BIT;
	ret = ktrace_file_writer_create(path, &h, &w, &err);
	if (ret < 0)
		return ret;
	if (kernel) {
		/* The kernel's header: a CPU map sub-chunk (the sample's 8 CPUs). */
		for (int c = 0; c < 8; c++) {
			cpumap[16 * c] = cpu_ids[c];
			memcpy(cpumap + 16 * c + 8, "AP", 2);
		}
		ret = ktrace_file_writer_add_header_chunk(w, KTRACE_TAG_CPU_MAP, 1, 0, cpumap,
							  sizeof(cpumap), &err);
	} else {
		/* A header chunk of odd size, needing padding. */
		ret = ktrace_file_writer_add_header_chunk(w, KTRACE_TAG_CONFIG, 1, 0,
							  "config: odd size", 17, &err);
		if (!ret)
			ret = ktrace_file_writer_add_header_chunk(w, KTRACE_TAG_CPU_MAP, 1, 0, NULL,
								  0, &err);
	}
	if (!ret)
		ret = ktrace_file_writer_add_chunk(w, KTRACE_TAG_THREAD_MAP, 1, 0, map,
						   SAMPLE_THREADS * 32, &err);
	if (!ret && !kernel)
		ret = ktrace_file_writer_add_chunk(w, 0x7e57, 3, 1, "an unknown chunk", 15, &err);
	/* Events in chunks of 4096 (the last one shorter), as kernels write them. */
	for (size_t first = 0; !ret && first < SAMPLE_EVENTS; first += 4096) {
		size_t n = SAMPLE_EVENTS - first < 4096 ? SAMPLE_EVENTS - first : 4096;

		ret = ktrace_file_writer_add_events(w, 0, events + 64 * first, 64 * n, !kernel, &err);
		if (!ret && !kernel && first == 0)
			ret = ktrace_file_writer_add_chunk(w, KTRACE_TAG_NULL, 1, 0, NULL, 0, &err);
	}
	if (ret) {
		ktrace_file_writer_abort(w);
		return ret;
	}
	return ktrace_file_writer_close(w, &err);
}

static void v3_files_decode_like_the_sample(void)
{
	const char *paths[2] = { v3_lib, v3_kernel };

	for (int f = 0; f < 2; f++) {
		struct ktrace_input *in, *in2;
		struct ktrace_error err = { 0 };
		struct ktrace_darwin *k = open_file(paths[f], &in, NULL);
		struct ktrace_darwin *ref = open_file(SAMPLE, &in2, NULL);
		struct ktrace_darwin_event a, b;
		const struct ktrace_darwin_info *i;
		size_t n = 0, ncpus;
		int ra, rb, bad = 0;

		CHECK(k && ref);
		if (!k || !ref)
			return;
		i = ktrace_darwin_get_info(k);
		CHECK_EQ(i->kind, KTRACE_DARWIN_V3);
		CHECK_EQ(i->flavour, f ? KTRACE_FILE_KERNEL : KTRACE_FILE_LIBKTRACE);
		CHECK_EQ(i->events, SAMPLE_EVENTS);
		CHECK_EQ(i->threads, SAMPLE_THREADS);
		CHECK_EQ(i->timebase_numer, 125);
		CHECK_EQ(i->timebase_denom, 3);
		ktrace_darwin_cpus(k, &ncpus);
		CHECK_EQ(ncpus, f ? 8 : 0);
		for (;;) {
			ra = ktrace_darwin_next(k, &a, &err);
			rb = ktrace_darwin_next(ref, &b, &err);
			if (ra <= 0 || rb <= 0)
				break;
			if (a.timestamp != b.timestamp || a.ns != b.ns || a.debugid != b.debugid ||
			    a.cpu != b.cpu || a.thread != b.thread ||
			    memcmp(a.arg, b.arg, sizeof(a.arg)))
				bad++;
			n++;
		}
		CHECK_EQ(ra, 0);
		CHECK_EQ(rb, 0);
		CHECK_EQ(bad, 0);
		CHECK_EQ(n, SAMPLE_EVENTS);
		ktrace_darwin_close(k);
		ktrace_darwin_close(ref);
		ktrace_input_close(in);
		ktrace_input_close(in2);
	}
}

/* --- the CLI ------------------------------------------------------------------- */

/* Runs the CLI; returns its output (malloc'd) and exit status. */
static char *run_cli(const char *args, int *status)
{
	char cmd[1024];
	FILE *p;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", ktrace_bin, args);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	do {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap + 1);
		}
		n = fread(buf + len, 1, cap - len, p);
		len += n;
	} while (n);
	buf[len] = 0;
	st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

/* The value after "key": in a JSON text, as text up to , or } */
static long long json_num(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	return p ? strtoll(p + strlen(pat), NULL, 0) : -1;
}

static bool json_has(const char *json, const char *text)
{
	return strstr(json, text) != NULL;
}

static void info_json_counts(void)
{
	const char *files[3] = { SAMPLE, v3_lib, v3_kernel };

	for (int f = 0; f < 3; f++) {
		char args[256];
		int st;
		char *out;

		snprintf(args, sizeof(args), "info --json %s", files[f]);
		out = run_cli(args, &st);
		CHECK(out != NULL);
		if (!out)
			return;
		CHECK_EQ(st, 0);
		CHECK_EQ(json_num(out, "events"), SAMPLE_EVENTS);
		CHECK_EQ(json_num(out, "threads"), SAMPLE_THREADS);
		CHECK_EQ(json_num(out, "cpus"), 8);
		CHECK_EQ(json_num(out, "numer"), 125);
		CHECK_EQ(json_num(out, "denom"), 3);
		/* First event as in the sample's README. */
		CHECK(json_has(out, "\"first_event\": {\"offset\": "));
		CHECK(json_has(out, "\"timestamp_hex\": \"0x37cec9bfe1f\", \"ns\": 159795019755958, "
				    "\"debugid\": \"0x25000001\""));
		CHECK(json_has(out, f ? "\"format\": \"darwin-v3\"" : "\"format\": \"darwin-raw\""));
		CHECK(json_has(out, "\"error\": null"));
		if (f == 1) {
			CHECK(json_has(out, "{\"tag\": \"0x00007e57\", \"name\": null, \"major\": 3, "
					    "\"minor\": 1, \"offset\": "));
			CHECK(json_has(out, "\"size\": 15, \"data_size\": 15, \"header\": false}"));
			CHECK(json_has(out, "{\"tag\": \"0x00001b00\", \"name\": \"config\", \"major\": 1, "
					    "\"minor\": 0, \"offset\": 56, \"size\": 17"));
		}
		if (f == 2)
			CHECK(json_has(out, "\"size\": 262144, \"data_size\": 262152"));
		free(out);
	}
}

/* Event lines: everything but the '#' comment lines. */
static char *event_lines(const char *report)
{
	char *out = malloc(strlen(report) + 1), *o = out;
	const char *p = report;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (*p != '#') {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	*o = 0;
	return out;
}

static size_t count_lines(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = s; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!needle || memmem(p, len, needle, strlen(needle)))
			n++;
		p += len + (nl ? 1 : 0);
	}
	return n;
}

/* Collapses runs of blanks, for comparing a line without its column widths. */
static void squeeze(const char *line, char *out, size_t cap)
{
	size_t n = 0;
	bool blank = true;

	for (; *line && *line != '\n' && n + 1 < cap; line++) {
		if (*line == ' ') {
			if (!blank)
				out[n++] = ' ';
			blank = true;
		} else {
			out[n++] = *line;
			blank = false;
		}
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = 0;
}

static const char *nth_line(const char *s, size_t k)
{
	while (k-- && s)
		if ((s = strchr(s, '\n')))
			s++;
	return s;
}

static void report_same_lines_for_v2_and_v3(void)
{
	char args[256], *ref, *refl, line[512];
	unsigned long long sum = 0;
	int st;

	snprintf(args, sizeof(args), "report %s", SAMPLE);
	ref = run_cli(args, &st);
	CHECK(ref != NULL);
	if (!ref)
		return;
	CHECK_EQ(st, 0);
	refl = event_lines(ref);
	CHECK_EQ(count_lines(refl, NULL), SAMPLE_EVENTS);
	/* Values computed independently from the bytes (see the file comment). */
	squeeze(nth_line(refl, 0), line, sizeof(line));
	CHECK_STR(line, "159795.019755958 0 0 0x0 - - - START PERF_GEN_EVENT 0x0 0x0 0x0 0x0");
	squeeze(nth_line(refl, 3), line, sizeof(line));
	CHECK_STR(line, "159795.019756625 84 0 0x0 - - - END PERF_GEN_EVENT 0x0 0x0 0x0 0x0 "
			"elapsed_ns=667");
	squeeze(nth_line(refl, 4), line, sizeof(line));
	CHECK_STR(line, "159795.006090750 -13665875 0 0x16a3c2 19884 DTServiceHub - - IMG:0xa0:0xd "
			"0xffffffe3ebe5c000 0x0 0x0 0x0");
	squeeze(nth_line(refl, 11), line, sizeof(line));
	CHECK_STR(line, "159795.006112458 500 3 0x16a371 95 cfprefsd - END MACH_EXCP_SYNC_ARM:0x115 "
			"0x56000080 0x161030208 0x1b947a3f8 0x0 elapsed_ns=18708");
	/* 3736 END events have a START on the same thread; their elapsed times add up to
	 * 563994852 ns. */
	CHECK_EQ(count_lines(refl, "elapsed_ns="), 3736);
	for (const char *p = refl; (p = strstr(p, "elapsed_ns=")); p++)
		sum += strtoull(p + 11, NULL, 10);
	CHECK_EQ(sum, 563994852ULL);

	for (int f = 0; f < 2; f++) {
		char *out, *lines;

		snprintf(args, sizeof(args), "report %s", f ? v3_kernel : v3_lib);
		out = run_cli(args, &st);
		CHECK_EQ(st, 0);
		lines = event_lines(out);
		CHECK(!strcmp(lines, refl));
		if (f == 0)
			CHECK(strstr(out, "# body chunk 0x00007e57 at ") != NULL);
		free(lines);
		free(out);
	}
	free(refl);
	free(ref);
}

static void report_csv_and_filters(void)
{
	static const struct {
		const char *opts;
		size_t lines;   /* independently counted over the bytes */
	} cases[] = {
		{ "-f C0x01", 6179 },
		{ "-f S0x010C", 419 },
		{ "-f C1,S0x0403", 6179 },
		{ "-f D0x01400080", 436 },
		{ "-f 0x010c", 419 },
		{ "--filter C0x25 -f C1", 6179 + 3562 },
	};
	char args[256];
	int st;
	char *out, *lines;

	snprintf(args, sizeof(args), "report --csv %s", SAMPLE);
	out = run_cli(args, &st);
	CHECK_EQ(st, 0);
	CHECK_EQ(count_lines(out, NULL), SAMPLE_EVENTS + 1);
	{
		static const char head[] =
			"time_ns,delta_ns,cpu,thread,pid,process,debugid,class,subclass,"
			"code,func,event,arg1,arg2,arg3,arg4,elapsed_ns,thread_name\n"
			"159795019755958,0,0,0x0,,,0x25000001,37,0,0,START,"
			"\"PERF_GEN_EVENT\",0x0,0x0,0x0,0x0,,\n";

		CHECK(!strncmp(out, head, strlen(head)));
		if (strncmp(out, head, strlen(head)))
			printf("#   %.300s\n", out);
	}
	CHECK(strstr(out, "\n159795019756625,84,0,0x0,,,0x25000002,37,0,0,END,"
			  "\"PERF_GEN_EVENT\",0x0,0x0,0x0,0x0,667,\n") != NULL);
	free(out);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		snprintf(args, sizeof(args), "report %s %s", cases[c].opts, SAMPLE);
		out = run_cli(args, &st);
		lines = event_lines(out);
		CHECK_EQ(st, 0);
		if (count_lines(lines, NULL) != cases[c].lines)
			printf("#   %s: %zu lines\n", cases[c].opts, count_lines(lines, NULL));
		CHECK_EQ(count_lines(lines, NULL), cases[c].lines);
		free(lines);
		free(out);
	}
	/* Usage errors. */
	snprintf(args, sizeof(args), "report -f X1 %s", SAMPLE);
	free(run_cli(args, &st));
	CHECK_EQ(st, 2);
	snprintf(args, sizeof(args), "report -C /nonexistent/codes %s", SAMPLE);
	free(run_cli(args, &st));
	CHECK_EQ(st, 1);
}

static void report_with_codes_file(void)
{
	char path[128], args[512], line[512];
	int st;
	char *out, *lines;
	FILE *f;

	snprintf(path, sizeof(path), "%s/codes", tmpdir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	/* Mixed separators and case, a 0X prefix, trailing blanks, blank lines, a zero
	 * value and a line without a name. */
	fputs("0x25000000\tPERF_Event   \n"
	      "\n"
	      "0X0140003C    MACH_Sched_thing\t \n"
	      "0x0\tZERO\n"
	      "0x31a00034\n"
	      "   0x31a00034  \t IMG_first\n", f);
	fclose(f);
	snprintf(args, sizeof(args), "report -C %s -C %s %s", path, path, SAMPLE);
	out = run_cli(args, &st);
	CHECK_EQ(st, 0);
	lines = event_lines(out);
	squeeze(nth_line(lines, 0), line, sizeof(line));
	CHECK_STR(line, "159795.019755958 0 0 0x0 - - - START PERF_Event 0x0 0x0 0x0 0x0");
	squeeze(nth_line(lines, 4), line, sizeof(line));
	CHECK_STR(line, "159795.006090750 -13665875 0 0x16a3c2 19884 DTServiceHub - - IMG_first "
			"0xffffffe3ebe5c000 0x0 0x0 0x0");
	CHECK(strstr(lines, " MACH_Sched_thing ") != NULL);
	free(lines);
	free(out);
	unlink(path);
}

static void info_and_report_errors(void)
{
	char path[128], args[512];
	uint8_t *cut;
	size_t len;
	int st;
	char *out;
	FILE *f;

	/* The kernel-flavour file cut in the middle of an event. */
	cut = slurp(v3_kernel, &len);
	CHECK(cut != NULL);
	if (!cut)
		return;
	snprintf(path, sizeof(path), "%s/cut.ktrace", tmpdir);
	f = fopen(path, "wb");
	fwrite(cut, 1, len - 100, f);
	fclose(f);
	snprintf(args, sizeof(args), "info --json %s", path);
	out = run_cli(args, &st);
	CHECK_EQ(st, 1);
	CHECK(strstr(out, "runs past the end of the file") != NULL);
	CHECK_EQ(json_num(out, "events"), 4096 * 3);
	free(out);
	snprintf(args, sizeof(args), "report %s", path);
	out = run_cli(args, &st);
	CHECK_EQ(st, 1);
	CHECK_EQ(count_lines(out, "elapsed") > 0, 1);
	CHECK(strstr(out, "ktrace: ") != NULL);
	free(out);
	unlink(path);
	free(cut);

	/* The V2 sample cut inside an event. */
	snprintf(path, sizeof(path), "%s/cut.bin", tmpdir);
	f = fopen(path, "wb");
	fwrite(sample, 1, sample_len - 10, f);
	fclose(f);
	snprintf(args, sizeof(args), "report %s", path);
	out = run_cli(args, &st);
	CHECK_EQ(st, 1);
	CHECK(strstr(out, "offset 0xfffc0: truncated event: 54 of 64 bytes") != NULL);
	free(out);
	unlink(path);
}

/* --- legacy streams, 32-bit ---------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i); }

static void raw_v1_with_cpumap_and_v0(void)
{
	uint8_t *b = calloc(1, 8192);
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_event ev;
	KTRACE_OPTS(ktrace_darwin_opts, opt);
	const struct ktrace_darwin_cpu *cpus;
	size_t ncpus, len = 4096 + 3 * 64;

	put32(b, 0x55aa0101);
	put32(b + 4, 2);
	put64(b + 8, 1600000000);
	put32(b + 16, 5);
	put64(b + 24, 0x11);
	put32(b + 32, 100);
	memcpy(b + 36, "first", 5);
	put64(b + 56, 0x22);
	put32(b + 64, 200);
	memcpy(b + 68, "second", 6);
	put32(b + 88, 0x55aa0101);        /* CPU map in the padding */
	put32(b + 92, 2);
	put32(b + 96, 0);
	memcpy(b + 104, "AP", 2);
	put32(b + 112, 1);
	put32(b + 116, 1);
	memcpy(b + 120, "IOP0", 4);
	for (int e = 0; e < 3; e++) {
		uint8_t *p = b + 4096 + 64 * e;

		put64(p, 1000 + (uint64_t)e);
		put64(p + 40, e ? 0x22 : 0x11);
		put32(p + 48, 0x04010004);
		put32(p + 52, (uint32_t)e);
	}
	ktrace_input_from_memory(b, len, "v1", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK_EQ(ktrace_darwin_get_info(k)->kind, KTRACE_DARWIN_RAW_V1);
	CHECK(!ktrace_darwin_get_info(k)->timebase_known);
	CHECK_EQ(ktrace_darwin_get_info(k)->walltime_secs, 1600000000);
	CHECK_EQ(ktrace_darwin_get_info(k)->events, 3);
	cpus = ktrace_darwin_cpus(k, &ncpus);
	CHECK_EQ(ncpus, 2);
	CHECK_STR(cpus[1].name, "IOP0");
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_EQ(ev.ns, 1000);
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_STR(ktrace_darwin_find_thread(k, ev.thread)->command, "second");
	ktrace_darwin_close(k);
	ktrace_input_close(in);

	/* Timebase override. */
	opt.timebase_numer = 125;
	opt.timebase_denom = 3;
	ktrace_input_from_memory(b, len, "v1", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, &opt, &k, &err), 0);
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_EQ(ev.ns, 41666);
	ktrace_darwin_close(k);
	ktrace_input_close(in);

	/* Cut inside the padding: an error, not zero events. */
	ktrace_input_from_memory(b, 2000, "v1", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), -ENODATA);
	ktrace_darwin_close(k);
	ktrace_input_close(in);

	/* V0: u32 thread count, thread map, events. */
	memset(b, 0, 8192);
	put32(b, 1);
	put64(b + 4, 0x33);
	put32(b + 12, 9);
	memcpy(b + 16, "zero", 4);
	put64(b + 36, 77);
	put64(b + 36 + 40, 0x33);
	put32(b + 36 + 48, 0x01400081);
	opt.timebase_numer = opt.timebase_denom = 0;
	opt.raw_v0 = true;
	ktrace_input_from_memory(b, 36 + 64, "v0", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, &opt, &k, &err), 0);
	CHECK_EQ(ktrace_darwin_get_info(k)->kind, KTRACE_DARWIN_RAW_V0);
	CHECK_EQ(ktrace_darwin_get_info(k)->events, 1);
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_EQ(ev.timestamp, 77);
	CHECK_STR(ktrace_darwin_find_thread(k, ev.thread)->command, "zero");
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 0);
	ktrace_darwin_close(k);
	ktrace_input_close(in);

	/* A thread count that does not fit the file. */
	put32(b, 0x55aa0200);
	put32(b + 4, 0x7fffffff);
	ktrace_input_from_memory(b, 0x200, "v2", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), -ENODATA);
	ktrace_input_close(in);
	free(b);
}

static void v3_32bit_layout(void)
{
	uint8_t b[56 + 16 + 28 + 4 + 16 + 8 + 32] = { 0 };
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_event ev;
	uint8_t *p = b;

	put32(p, KTRACE_FILE_MAGIC);
	p[4] = 1;
	put64(p + 8, 40);
	put32(p + 16, 1);
	put32(p + 20, 1);
	p += 56;                             /* flags 0: 32-bit */
	put32(p, KTRACE_TAG_THREAD_MAP);
	put64(p + 8, 28);
	put32(p + 16, 0xabc);
	put32(p + 20, 5);
	memcpy(p + 24, "thirtytwo", 9);
	p += 16 + 28 + 4;                    /* padded to 8 */
	put32(p, KTRACE_TAG_EVENTS);
	put64(p + 8, 8 + 32);
	p += 24;
	put64(p, 0x0300000000001234ULL);     /* CPU 3 in the top byte */
	put32(p + 8, 0xa1);
	put32(p + 20, 0xa4);
	put32(p + 24, 0xabc);
	put32(p + 28, 0x04010005);
	ktrace_input_from_memory(b, (size_t)(p + 32 - b), "32", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK(!ktrace_darwin_get_info(k)->is64);
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_EQ(ev.timestamp, 0x1234);
	CHECK_EQ(ev.cpu, 3);
	CHECK_EQ(ev.arg[0], 0xa1);
	CHECK_EQ(ev.arg[3], 0xa4);
	CHECK_EQ(ev.debugid, 0x04010005);
	CHECK_STR(ktrace_darwin_find_thread(k, ev.thread)->command, "thirtytwo");
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 0);
	ktrace_darwin_close(k);
	ktrace_input_close(in);
}

/* --- names, filters, timebase --------------------------------------------------- */

static void codes_parsing(void)
{
	static const char text[] =
		"0x1020000\tKTrap_DivideError\n"
		"0x1020004  \t KTrap_Debug  \t\r\n"
		"0X0102000c\tKTrap_Int3\n"
		"0xABCDEF10 Upper_Case\n"
		"\n   \n"
		"0x0\tZero_Ignored\n"
		"0x1030000\n"
		"0x1030004   \n"
		"# comment\n"
		"not a line\n"
		"0x1020008\tKTrap_NMI";      /* no final newline */
	struct ktrace_error err = { 0 };
	struct ktrace_darwin_codes *c = ktrace_darwin_codes_new();

	CHECK_EQ(ktrace_darwin_codes_load_buffer(c, text, strlen(text), &err), 5);
	CHECK_EQ(ktrace_darwin_codes_count(c), 5);
	CHECK_STR(ktrace_darwin_codes_lookup(c, 0x1020000), "KTrap_DivideError");
	CHECK_STR(ktrace_darwin_codes_lookup(c, 0x1020005), "KTrap_Debug");   /* START */
	CHECK_STR(ktrace_darwin_codes_lookup(c, 0x102000e), "KTrap_Int3");    /* END */
	CHECK_STR(ktrace_darwin_codes_lookup(c, 0xabcdef10), "Upper_Case");
	CHECK_STR(ktrace_darwin_codes_lookup(c, 0x1020008), "KTrap_NMI");
	CHECK(ktrace_darwin_codes_lookup(c, 0) == NULL);
	CHECK(ktrace_darwin_codes_lookup(c, 0x1030000) == NULL);
	CHECK(ktrace_darwin_codes_lookup(c, 0x1030004) == NULL);
	/* Later definitions win; many names grow the table. */
	CHECK_EQ(ktrace_darwin_codes_add(c, 0x1020000, "Renamed", &err), 1);
	CHECK_STR(ktrace_darwin_codes_lookup(c, 0x1020000), "Renamed");
	for (uint32_t i = 1; i <= 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "N%u", i);
		ktrace_darwin_codes_add(c, 0x05000000 | i << 2, name, &err);
	}
	CHECK_EQ(ktrace_darwin_codes_count(c), 5005);
	CHECK_STR(ktrace_darwin_codes_lookup(c, 0x05000000 | 4321 << 2), "N4321");
	CHECK_STR(ktrace_darwin_codes_lookup(c, 0x1020004), "KTrap_Debug");
	ktrace_darwin_codes_free(c);
}

/* Class and subclass lines; a table given by the caller comes before the built-in
 * names, for events, classes and subclasses alike. */
static void codes_classes_and_overrides(void)
{
	static const char text[] =
		"class 0x85 GFX\n"
		"subclass 0x85 0x09 Firmware\n"
		"subclass 133 10 Decimal\n"
		"class 0x100 TooBig\n"          /* refused: out of range */
		"subclass 0x01 Missing\n"       /* refused: one number */
		"classy 0x05 NotAKeyword\n"
		"class 0x01 Kernel\n"
		"0x01400080\tMyDispatch\n"
		"0x01400084 MyHandoffName\n";
	struct ktrace_error err = { 0 };
	struct ktrace_darwin_codes *c = ktrace_darwin_codes_new();
	char buf[64];

	CHECK_EQ(ktrace_darwin_codes_load_buffer(c, text, strlen(text), &err), 6);
	CHECK_EQ(ktrace_darwin_codes_count(c), 2);   /* events */
	CHECK_STR(ktrace_darwin_codes_class(c, 0x85), "GFX");
	CHECK_STR(ktrace_darwin_codes_class(NULL, 0x85), "EMBEDDEDGFX");
	CHECK_STR(ktrace_darwin_codes_subclass(c, 0x85, 9), "Firmware");
	CHECK_STR(ktrace_darwin_codes_subclass(c, 0x85, 10), "Decimal");
	CHECK(ktrace_darwin_codes_subclass(NULL, 0x85, 9) == NULL);
	CHECK_STR(ktrace_darwin_codes_class(c, 0x01), "Kernel");
	CHECK_STR(ktrace_darwin_codes_subclass(c, 0x01, 0x40), "SCHED");   /* built in */
	CHECK_STR(ktrace_darwin_event_name(c, 0x8509003c, buf, sizeof(buf)), "GFX_Firmware:0xf");
	CHECK_STR(ktrace_darwin_event_name(c, 0x01400081, buf, sizeof(buf)), "MyDispatch");
	CHECK_STR(ktrace_darwin_event_name(c, 0x0140003c, buf, sizeof(buf)), "MACH_BLOCK");
	CHECK_STR(ktrace_darwin_event_name(c, 0x01300000, buf, sizeof(buf)), "Kernel_VM:0x0");
	CHECK_STR(ktrace_darwin_event_name(NULL, 0x8509003c, buf, sizeof(buf)),
		  "EMBEDDEDGFX:0x09:0xf");
	/* class and subclass keys never answer an event lookup */
	CHECK(ktrace_darwin_codes_lookup(c, 0x85000000) == NULL);
	CHECK(ktrace_darwin_codes_lookup(c, 0x85090000) == NULL);
	ktrace_darwin_codes_free(c);
}

static void builtin_names(void)
{
	char buf[64];

	CHECK_STR(ktrace_darwin_class_name(1), "MACH");
	CHECK_STR(ktrace_darwin_class_name(37), "PERF");
	CHECK(ktrace_darwin_class_name(99) == NULL);
	CHECK_STR(ktrace_darwin_subclass_name(1, 0x40), "SCHED");
	CHECK_STR(ktrace_darwin_subclass_name(4, 0x0c), "EXCP_SC");
	CHECK_STR(ktrace_darwin_builtin_name(0x07020008, buf, sizeof(buf)), "TRACE_LOST_EVENTS");
	CHECK_STR(ktrace_darwin_builtin_name(0x07010006, buf, sizeof(buf)),
		  "TRACE_STRING_NEWTHREAD");
	/* xnu's bsd/sys/kdebug.h: DBG_MACH 1, DBG_MACH_SCHED 0x40, MACH_DISPATCH 0x20 */
	CHECK_STR(ktrace_darwin_builtin_name(0x01400081, buf, sizeof(buf)), "MACH_DISPATCH");
	/* a code without a name in a named subclass: DBG_MACH_EXCP_SYNC_ARM 0x03 */
	CHECK_STR(ktrace_darwin_builtin_name(0x01030455, buf, sizeof(buf)),
		  "MACH_EXCP_SYNC_ARM:0x115");
	CHECK_STR(ktrace_darwin_builtin_name(0x25990000, buf, sizeof(buf)), "PERF:0x99:0x0");
	/* kdebug_private.h: DBG_RTKIT 135, no public subclasses */
	CHECK_STR(ktrace_darwin_builtin_name(0x8704fffe, buf, sizeof(buf)), "RTKIT:0x04:0x3fff");
	CHECK_STR(ktrace_darwin_builtin_name(0x7a04fffe, buf, sizeof(buf)), "0x7a:0x04:0x3fff");
	/* syscalls.master: 3 read, 4 write; syscall_sw.c: Mach trap 31 mach_msg_trap */
	CHECK_STR(ktrace_darwin_builtin_name(0x040c000d, buf, sizeof(buf)), "BSC_read");
	CHECK_STR(ktrace_darwin_builtin_name(0x040c0012, buf, sizeof(buf)), "BSC_write");
	CHECK_STR(ktrace_darwin_builtin_name(0x010c007c, buf, sizeof(buf)), "MSC_mach_msg_trap");
	/* scheduler codes: MACH_BLOCK 0xf, MACH_MAKE_RUNNABLE 0x6, MACH_IDLE 0x9 */
	CHECK_STR(ktrace_darwin_builtin_name(0x0140003c, buf, sizeof(buf)), "MACH_BLOCK");
	CHECK_STR(ktrace_darwin_builtin_name(0x01400018, buf, sizeof(buf)), "MACH_MAKE_RUNNABLE");
	CHECK_STR(ktrace_darwin_builtin_name(0x01400024, buf, sizeof(buf)), "MACH_IDLE");
	/* every class of kdebug.h and kdebug_private.h */
	{
		static const struct { uint32_t cls; const char *name; } classes[] = {
			{ 1, "MACH" }, { 2, "NETWORK" }, { 3, "FSYSTEM" }, { 4, "BSD" },
			{ 5, "IOKIT" }, { 6, "DRIVERS" }, { 7, "TRACE" }, { 8, "DLIL" },
			{ 9, "PTHREAD" }, { 10, "CORESTORAGE" }, { 11, "CG" },
			{ 12, "MONOTONIC" }, { 20, "MISC" }, { 30, "SECURITY" }, { 31, "DYLD" },
			{ 32, "QT" }, { 33, "APPS" }, { 34, "LAUNCHD" }, { 35, "SILICON" },
			{ 36, "PPT" }, { 37, "PERF" }, { 38, "IMPORTANCE" }, { 39, "PERFCTRL" },
			{ 40, "BANK" }, { 41, "XPC" }, { 42, "ATM" }, { 43, "ARIADNE" },
			{ 44, "DAEMON" }, { 45, "ENERGYTRACE" }, { 46, "DISPATCH" }, { 49, "IMG" },
			{ 50, "CLPC" }, { 51, "UMALLOC" }, { 52, "MUSE" }, { 53, "TURNSTILE" },
			{ 54, "AUDIO" }, { 128, "ANS" }, { 129, "SIO" }, { 130, "SEP" },
			{ 131, "ISP" }, { 132, "OSCAR" }, { 133, "EMBEDDEDGFX" }, { 134, "PMP" },
			{ 135, "RTKIT" }, { 136, "DCP" }, { 137, "KMP" }, { 255, "MIG" },
		};
		int named = 0;

		for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
			CHECK_STR(ktrace_darwin_class_name(classes[i].cls), classes[i].name);
		for (uint32_t c = 0; c < 256; c++)
			named += ktrace_darwin_class_name(c) != NULL;
		CHECK_EQ(named, (int)(sizeof(classes) / sizeof(classes[0])));
	}
	CHECK_EQ(KTRACE_DARWIN_CODE(0x0140003c), 0xf);
	CHECK_EQ(KTRACE_DARWIN_FUNC(0x0140003e), 2);
}

static void filter_descriptions(void)
{
	struct ktrace_error err = { 0 };
	struct ktrace_darwin_filter *f = ktrace_darwin_filter_new();

	CHECK(ktrace_darwin_filter_empty(f));
	CHECK(ktrace_darwin_filter_match(f, 0x12345678));
	CHECK_EQ(ktrace_darwin_filter_parse(f, "C0x01,S0x040C,D0x25000000", &err), 0);
	CHECK(!ktrace_darwin_filter_empty(f));
	CHECK(ktrace_darwin_filter_match(f, 0x01400080));
	CHECK(ktrace_darwin_filter_match(f, 0x010c0001));
	CHECK(ktrace_darwin_filter_match(f, 0x040c0002));
	CHECK(!ktrace_darwin_filter_match(f, 0x040d0002));
	CHECK(ktrace_darwin_filter_match(f, 0x25000001));   /* D ignores the qualifier */
	CHECK(!ktrace_darwin_filter_match(f, 0x25000004));
	CHECK_EQ(ktrace_darwin_filter_parse(f, "C5", &err), 0);
	CHECK(ktrace_darwin_filter_match(f, 0x05ff0000));
	CHECK_EQ(ktrace_darwin_filter_parse(f, "0x0702", &err), 0);
	CHECK(ktrace_darwin_filter_match(f, 0x07020008));
	CHECK(!ktrace_darwin_filter_match(f, 0x07010008));
	CHECK_EQ(ktrace_darwin_filter_parse(f, "C0x100", &err), -EINVAL);
	CHECK_EQ(ktrace_darwin_filter_parse(f, "S0x10000", &err), -EINVAL);
	CHECK_EQ(ktrace_darwin_filter_parse(f, "X1", &err), -EINVAL);
	CHECK_EQ(ktrace_darwin_filter_parse(f, "C", &err), -EINVAL);
	CHECK_EQ(ktrace_darwin_filter_parse(f, "C1;S2", &err), -EINVAL);
	CHECK_EQ(ktrace_darwin_filter_parse(f, "", &err), -EINVAL);
	ktrace_darwin_filter_free(f);
}

/*
 * The forms Apple's tools take (ktrace(1) FILTER DESCRIPTIONS: C<class byte>,
 * S<class-subclass, two bytes>, decimal or hex, ALL; kperf's kdebug filters add
 * D<debugid> and a trailing r for END events), each with events it must and must not
 * select; then forms that are refused.
 */
static void filter_table(void)
{
	static const struct {
		const char *desc;
		uint32_t yes[4], no[4];    /* 0 ends a list */
	} accepted[] = {
		{ "ALL", { 0x01400080, 0xff000004, 0x00000001 }, { 0 } },
		{ "C1", { 0x01400080, 0x01ff0000 }, { 0x02400080, 0x00010000 } },
		{ "C0x25", { 0x25000001, 0x25990000 }, { 0x24000000, 0x26000000 } },
		{ "C255", { 0xff123450 }, { 0xfe000000 } },
		{ "S0x0140", { 0x01400080, 0x01400083 }, { 0x01410080, 0x02400080 } },
		{ "S320", { 0x01400080 }, { 0x01410000 } },            /* 320 = 0x0140 */
		{ "S0xffff", { 0xffff0004 }, { 0xfffe0004 } },
		{ "S0x040C", { 0x040c000c }, { 0x040d000c } },
		{ "S0x040c", { 0x040c000c }, { 0x040d000c } },
		{ "C1,C0x25,S0x0521,S0x0523",                           /* ktrace(1)'s example */
		  { 0x01000000, 0x25000000, 0x05210000, 0x05230004 }, { 0x05220000, 0x02000000 } },
		{ "C1,S0x0140,ALL", { 0x99000000, 0x01400080 }, { 0 } },
		{ "ALL,C1", { 0x42000000 }, { 0 } },
		{ "D0x07020008", { 0x07020008, 0x07020009, 0x0702000a }, { 0x0702000c } },
		{ "D117571592", { 0x07020008 }, { 0x07020004 } },      /* the same, decimal */
		{ "D0xfeff0000", { 0xfeff0000 }, { 0xfeff0004 } },        /* kperf's test */
		{ "C0xfe,C0xfdr", { 0xfe010004, 0xfd010006, 0xfd020002 },
		  { 0xfd010004, 0xfd010005, 0xfc010006 } },               /* r: END only */
		{ "S0xfeff,S0xfdffr", { 0xfeff0000, 0xfdff0006 }, { 0xfdff0004, 0xfdff0005 } },
		{ "D0x01400080r", { 0x01400082 }, { 0x01400080, 0x01400081 } },
		{ "0x0702", { 0x07020008 }, { 0x07010008 } },           /* a bare subclass */
		{ "1794", { 0x07020008 }, { 0x07010008 } },             /* the same, decimal */
		{ "C010", { 0x0a000000 }, { 0x08000000 } },             /* decimal, not octal */
	};
	static const char *const refused[] = {
		"", "C", "S", "D", "C0x100", "C256", "S0x10000", "D0x100000000", "X1", "c1",
		"s0x0140", "all", "All", "ALLx", "ALL1", "ALL,", "C1,", ",C1", "C1,,S2", "C1;S2",
		"C1 S2", " C1", "C1 ", "C-1", "C+1", "C1x", "C0x", "Cr", "C1rr", "C1R", "S0x0140g",
		"D0xfeff0000,", "0x10000", "0x", "1,2", "C1,X", "Cx1", "C 1",
	};
	struct ktrace_error err = { 0 };

	for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		struct ktrace_darwin_filter *f = ktrace_darwin_filter_new();
		int ret = ktrace_darwin_filter_parse(f, accepted[i].desc, &err);

		if (ret)
			printf("#   '%s' refused: %s\n", accepted[i].desc, err.message);
		CHECK_EQ(ret, 0);
		for (int k = 0; k < 4 && accepted[i].yes[k]; k++)
			if (!ktrace_darwin_filter_match(f, accepted[i].yes[k])) {
				printf("#   '%s' misses 0x%08x\n", accepted[i].desc, accepted[i].yes[k]);
				CHECK(0);
			}
		for (int k = 0; k < 4 && accepted[i].no[k]; k++)
			if (ktrace_darwin_filter_match(f, accepted[i].no[k])) {
				printf("#   '%s' takes 0x%08x\n", accepted[i].desc, accepted[i].no[k]);
				CHECK(0);
			}
		ktrace_darwin_filter_free(f);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct ktrace_darwin_filter *f = ktrace_darwin_filter_new();

		err.message[0] = '\0';
		if (ktrace_darwin_filter_parse(f, refused[i], &err) != -EINVAL) {
			printf("#   '%s' accepted\n", refused[i]);
			CHECK(0);
		}
		CHECK(err.message[0] != '\0');
		ktrace_darwin_filter_free(f);
	}
}

/* A V3 file's header, a thread map naming thread 0x10 of pid 7 "proc", and the
 * header of an events chunk of n 64-byte events, at p; returns where the events go. */
static uint8_t *put_v3_start(uint8_t *p, size_t n)
{
	put32(p, KTRACE_FILE_MAGIC);
	put64(p + 8, 40);
	put32(p + 16, 1);
	put32(p + 20, 1);
	put32(p + 52, 1);
	p += 56;
	put32(p, KTRACE_TAG_THREAD_MAP);
	put64(p + 8, 32);
	put64(p + 16, 0x10);
	put32(p + 24, 7);
	memcpy(p + 28, "proc", 4);
	p += 48;
	put32(p, KTRACE_TAG_EVENTS);
	put64(p + 8, 8 + n * 64);
	return p + 24;
}

/*
 * A thread names itself (TRACE_STRING_THREADNAME in two pieces, as xnu writes a name
 * longer than the four arguments), then makes two read system calls (BSC_read, number
 * 3, START/END) and one MACH_DISPATCH: the report shows the name beside the thread,
 * --durations one line per call and the totals.
 */
static void thread_names_and_durations(void)
{
	static const char tname[] = "io-worker-thread-number-00000001-abc";  /* 36 bytes */
	uint8_t b[56 + 16 + 32 + 16 + 8 + 7 * 64] = { 0 };
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_event ev;
	char path[160], args[320], line[512], *out, *lines;
	const uint64_t ts[7] = { 100, 110, 200, 250, 300, 400, 500 };
	const uint32_t ids[7] = { KTRACE_TRACE_STRING_THREADNAME | 1, KTRACE_TRACE_STRING_THREADNAME | 2,
				  0x040c000d, 0x040c000e, 0x040c000d, 0x040c000e, 0x01400080 };
	uint8_t *p = b;
	FILE *f;
	int st;

	p = put_v3_start(p, 7);
	for (int i = 0; i < 7; i++, p += 64) {
		put64(p, ts[i]);
		put64(p + 8, (uint64_t)i);
		put64(p + 40, 0x10);
		put32(p + 48, ids[i]);
	}
	p = b + 56 + 48 + 24;
	memset(p + 8, 0, 32);
	memcpy(p + 8, tname, 32);
	memset(p + 64 + 8, 0, 32);
	memcpy(p + 64 + 8, tname + 32, 4);
	ktrace_input_from_memory(b, sizeof(b), "t", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK(ktrace_darwin_thread_name(k, 0x10) == NULL);
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK(ktrace_darwin_thread_name(k, 0x10) == NULL);       /* not complete yet */
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_STR(ktrace_darwin_thread_name(k, 0x10), tname);
	CHECK_STR(ktrace_darwin_find_thread(k, 0x10)->command, "proc");
	ktrace_darwin_close(k);
	ktrace_input_close(in);

	snprintf(path, sizeof(path), "%s/names.ktrace", tmpdir);
	f = fopen(path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	fwrite(b, 1, sizeof(b), f);
	fclose(f);
	snprintf(args, sizeof(args), "report %s", path);
	out = run_cli(args, &st);
	CHECK_EQ(st, 0);
	lines = event_lines(out);
	squeeze(nth_line(lines, 2), line, sizeof(line));
	CHECK_STR(line, "0.000000200 90 0 0x10 7 proc io-worker-thread-number-00000001-abc START "
			"BSC_read 0x2 0x0 0x0 0x0");
	squeeze(nth_line(lines, 3), line, sizeof(line));
	CHECK_STR(line, "0.000000250 50 0 0x10 7 proc io-worker-thread-number-00000001-abc END "
			"BSC_read 0x3 0x0 0x0 0x0 elapsed_ns=50");
	free(lines);
	free(out);

	snprintf(args, sizeof(args), "report --durations %s", path);
	out = run_cli(args, &st);
	CHECK_EQ(st, 0);
	lines = event_lines(out);
	CHECK_EQ(count_lines(lines, NULL), 2);
	squeeze(nth_line(lines, 0), line, sizeof(line));
	CHECK_STR(line, "0.000000200 50 0 0x10 7 proc io-worker-thread-number-00000001-abc BSC_read "
			"0x2 0x0 0x0 0x0 -> 0x3 0x0 0x0 0x0");
	squeeze(nth_line(lines, 1), line, sizeof(line));
	CHECK_STR(line, "0.000000300 100 0 0x10 7 proc io-worker-thread-number-00000001-abc BSC_read "
			"0x4 0x0 0x0 0x0 -> 0x5 0x0 0x0 0x0");
	CHECK(strstr(out, "\n# 2 150 75 50 100 BSC_read\n") != NULL ||
	      strstr(out, "\n#          2              150               75               50  "
			  "            100  BSC_read\n") != NULL);
	CHECK(strstr(out, "# 7 events read, 2 START/END pairs,") != NULL);
	free(lines);
	free(out);

	snprintf(args, sizeof(args), "report --durations --csv %s", path);
	out = run_cli(args, &st);
	CHECK_EQ(st, 0);
	CHECK(strstr(out, "start_ns,duration_ns,cpu,thread,pid,process,thread_name,eventid,event,") ==
	      out);
	CHECK(strstr(out, "\n300,100,0,0x10,7,\"proc\",\"io-worker-thread-number-00000001-abc\","
			  "0x040c000c,\"BSC_read\",0x4,0x0,0x0,0x0,0x5,0x0,0x0,0x0\n") != NULL);
	free(out);
	unlink(path);
}

/*
 * --durations totals by event id, including event id 0 (class 0, subclass 0, code 0)
 * and an id that lands on the same slot of a small table as id 0 would. The expected
 * totals lines are computed here from the events written: pairs matched per event id
 * (last START first), then count, total, mean, min and max, the largest total first.
 */
static void duration_totals_by_id(void)
{
	enum { N = 10 };
	static const uint64_t ts[N] = { 100, 130, 200, 270, 300, 305, 400, 460, 500, 520 };
	static const uint32_t ids[N] = { 0x1, 0x2, 0x1, 0x2, 0x401, 0x402,
					 0x040c000d, 0x040c000e, 0x401, 0x402 };
	/* (a codes file cannot name id 0: its lines with a zero value are skipped; an event
	 * no table names shows as class:subclass:code) */
	static const struct { uint32_t id; const char *name; } names[] = {
		{ 0x400, "SLOT_MATE" }, { 0x040c000c, "READ_CALL" },
	};
	uint8_t b[56 + 16 + 32 + 16 + 8 + N * 64] = { 0 };
	struct { uint32_t id; uint64_t count, total, min, max; } tot[N], tmp;
	uint64_t open_ts[N];
	uint32_t open_id[N];
	size_t nopen = 0, ntot = 0;
	char path[160], codes[160], args[400], want[256], *out;
	const char *prev = NULL, *head, *tail;
	size_t nlines = 0;
	uint8_t *p = b;
	FILE *f;
	int st;

	p = put_v3_start(p, N);
	for (int i = 0; i < N; i++, p += 64) {
		put64(p, ts[i]);
		put64(p + 40, 0x10);
		put32(p + 48, ids[i]);
	}

	/* the expected totals */
	for (int i = 0; i < N; i++) {
		uint32_t id = ids[i] & ~3u;
		size_t k, j;

		if (ids[i] & 1) {
			open_ts[nopen] = ts[i];
			open_id[nopen++] = id;
			continue;
		}
		for (k = nopen; k-- > 0 && open_id[k] != id;)
			;
		CHECK(k < nopen);
		if (k >= nopen)
			return;
		uint64_t dur = ts[i] - open_ts[k];

		memmove(&open_ts[k], &open_ts[k + 1], (nopen - k - 1) * sizeof(open_ts[0]));
		memmove(&open_id[k], &open_id[k + 1], (nopen - k - 1) * sizeof(open_id[0]));
		nopen--;
		for (j = 0; j < ntot && tot[j].id != id; j++)
			;
		if (j == ntot) {
			tot[ntot].id = id;
			tot[ntot].count = tot[ntot].total = tot[ntot].max = 0;
			tot[ntot++].min = UINT64_MAX;
		}
		tot[j].count++;
		tot[j].total += dur;
		tot[j].min = dur < tot[j].min ? dur : tot[j].min;
		tot[j].max = dur > tot[j].max ? dur : tot[j].max;
	}
	for (size_t i = 1; i < ntot; i++)
		for (size_t j = i; j > 0 && (tot[j].total > tot[j - 1].total ||
					     (tot[j].total == tot[j - 1].total &&
					      tot[j].id < tot[j - 1].id)); j--) {
			tmp = tot[j];
			tot[j] = tot[j - 1];
			tot[j - 1] = tmp;
		}
	CHECK_EQ(ntot, 3);

	snprintf(path, sizeof(path), "%s/durations.ktrace", tmpdir);
	snprintf(codes, sizeof(codes), "%s/durations.codes", tmpdir);
	f = fopen(path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	fwrite(b, 1, sizeof(b), f);
	fclose(f);
	f = fopen(codes, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fprintf(f, "0x%08x\t%s\n", names[i].id, names[i].name);
	fclose(f);

	snprintf(args, sizeof(args), "report --durations -C %s %s", codes, path);
	out = run_cli(args, &st);
	CHECK_EQ(st, 0);
	CHECK(out != NULL);
	if (!out)
		return;
	snprintf(want, sizeof(want), "# durations by event: %d pairs\n", N / 2);
	CHECK(strstr(out, want) != NULL);
	for (size_t i = 0; i < ntot; i++) {
		const char *name = "0x00:0x00:0x0", *at;

		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++)
			if (names[j].id == tot[i].id)
				name = names[j].name;
		snprintf(want, sizeof(want), "# %10" PRIu64 " %16" PRIu64 " %16" PRIu64 " %16" PRIu64
			 " %16" PRIu64 "  %s\n", tot[i].count, tot[i].total,
			 tot[i].total / tot[i].count, tot[i].min, tot[i].max, name);
		at = strstr(out, want);
		if (!at)
			printf("#   missing: %s", want);
		CHECK(at != NULL && (!prev || at > prev));   /* in order */
		prev = at;
	}
	/* no other totals line: between the column heads and the closing count */
	head = strstr(out, "#      count ");
	tail = head ? strstr(head, " events read,") : NULL;
	CHECK(head != NULL && tail != NULL);
	for (const char *l = head ? strchr(head, '\n') : NULL; l && tail && l < tail; l = strchr(l + 1, '\n'))
		nlines++;
	CHECK_EQ(nlines, ntot + 1);     /* the newlines after the heads and each total */
	free(out);
	unlink(path);
	unlink(codes);
}

static void thread_tracking(void)
{
	/* TRACE_DATA_NEWTHREAD + TRACE_STRING_NEWTHREAD name a thread absent from the
	 * map; TRACE_STRING_EXEC renames one. */
	uint8_t b[56 + 16 + 32 + 16 + 8 + 4 * 64] = { 0 };
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct ktrace_darwin *k;
	struct ktrace_darwin_event ev;
	uint8_t *p = b;

	put32(p, KTRACE_FILE_MAGIC);
	put64(p + 8, 40);
	put32(p + 52, 1);
	p += 56;
	put32(p, KTRACE_TAG_THREAD_MAP);
	put64(p + 8, 32);
	put64(p + 16, 0x10);
	put32(p + 24, 7);
	memcpy(p + 28, "parent", 6);
	p += 48;
	put32(p, KTRACE_TAG_EVENTS);
	put64(p + 8, 8 + 4 * 64);
	p += 24;
	put64(p + 8, 0x20);                 /* new thread */
	put64(p + 16, 8);                   /* its pid */
	put64(p + 40, 0x10);
	put32(p + 48, KTRACE_TRACE_DATA_NEWTHREAD);
	p += 64;
	memcpy(p + 8, "childproc", 9);
	put64(p + 40, 0x10);
	put32(p + 48, KTRACE_TRACE_STRING_NEWTHREAD);
	p += 64;
	memcpy(p + 8, "exec_image_name_longer", 22);
	put64(p + 40, 0x20);
	put32(p + 48, KTRACE_TRACE_STRING_EXEC);
	p += 64;
	put64(p + 40, 0x20);
	put32(p + 48, 0x01400080);
	ktrace_input_from_memory(b, sizeof(b), "t", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK(ktrace_darwin_find_thread(k, 0x20) == NULL);
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_EQ(ktrace_darwin_find_thread(k, 0x20)->pid, 8);
	CHECK_STR(ktrace_darwin_find_thread(k, 0x20)->command, "parent");
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_STR(ktrace_darwin_find_thread(k, 0x20)->command, "childproc");
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_STR(ktrace_darwin_find_thread(k, 0x20)->command, "exec_image_name_long");
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 1);
	CHECK_EQ(ktrace_darwin_next(k, &ev, &err), 0);
	CHECK_EQ(ktrace_darwin_get_info(k)->threads, 1);
	ktrace_darwin_close(k);
	ktrace_input_close(in);
}

static void timebase_exact(void)
{
	uint8_t b[56 + 24 + 64] = { 0 };
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct ktrace_darwin *k;

	put32(b, KTRACE_FILE_MAGIC);
	put64(b + 8, 40);
	put32(b + 16, 125);
	put32(b + 20, 3);
	ktrace_input_from_memory(b, 56, "t", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	/* Python: 0x0123456789abcdef * 125 // 3 */
	CHECK_EQ(ktrace_darwin_ns(k, 0x0123456789abcdefULL), 3416063717353620625ULL);
	CHECK_EQ(ktrace_darwin_ns(k, UINT64_MAX), UINT64_MAX);   /* saturates */
	ktrace_darwin_close(k);
	ktrace_input_close(in);
	/* Zero denominator: 1/1 assumed. */
	put32(b + 20, 0);
	ktrace_input_from_memory(b, 56, "t", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK(!ktrace_darwin_get_info(k)->timebase_known);
	CHECK_EQ(ktrace_darwin_ns(k, 12345), 12345);
	ktrace_darwin_close(k);
	ktrace_input_close(in);
	/* Inverse ratio, Python: 0x7fffffffffffffff * 3 // 125 */
	put32(b + 16, 3);
	put32(b + 20, 125);
	ktrace_input_from_memory(b, 56, "t", &in, &err);
	CHECK_EQ(ktrace_darwin_open(in, NULL, &k, &err), 0);
	CHECK_EQ(ktrace_darwin_ns(k, 0x7fffffffffffffffULL), 221360928884514619ULL);
	ktrace_darwin_close(k);
	ktrace_input_close(in);
}

int main(void)
{
	static char bin[256];
	const char *b = getenv("B");

	snprintf(bin, sizeof(bin), "%s/ktrace", b && *b ? b : "build");
	ktrace_bin = bin;
	sample = slurp(SAMPLE, &sample_len);
	if (!sample || sample_len != 1048576) {
		printf("not ok - cannot read %s\n", SAMPLE);
		return 1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ktrace-kdebug-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	snprintf(v3_lib, sizeof(v3_lib), "%s/lib.ktrace", tmpdir);
	snprintf(v3_kernel, sizeof(v3_kernel), "%s/kernel.ktrace", tmpdir);
	if (write_v3(v3_lib, KTRACE_FILE_LIBKTRACE) || write_v3(v3_kernel, KTRACE_FILE_KERNEL)) {
		printf("not ok - writing the V3 files\n");
		return 1;
	}
	PLAN(19);
	RUN(sample_header_and_maps);
	RUN(sample_events_match_bytes);
	RUN(v3_files_decode_like_the_sample);
	RUN(info_json_counts);
	RUN(report_same_lines_for_v2_and_v3);
	RUN(report_csv_and_filters);
	RUN(report_with_codes_file);
	RUN(info_and_report_errors);
	RUN(raw_v1_with_cpumap_and_v0);
	RUN(v3_32bit_layout);
	RUN(codes_parsing);
	RUN(builtin_names);
	RUN(codes_classes_and_overrides);
	RUN(filter_descriptions);
	RUN(filter_table);
	RUN(thread_tracking);
	RUN(thread_names_and_durations);
	RUN(duration_totals_by_id);
	RUN(timebase_exact);
	unlink(v3_lib);
	unlink(v3_kernel);
	rmdir(tmpdir);
	free(sample);
	return TEST_EXIT();
}
