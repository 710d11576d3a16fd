/*
 * ktrace_allocfail: the ktrace CLI (its objects, main renamed ktrace_cli_main) linked
 * with libktrace.a and -Wl,--wrap for every allocation function the library and the CLI
 * call, so that one run can make the N-th allocation fail. Run by
 * tests/common/allocfail.sh:
 *
 *   ktrace_allocfail [--max-runs R] [--same-output [--file OUT]] [-v] -- ARGS...
 *
 * runs `ktrace ARGS...` once with no failure (it must succeed) and counts its T
 * allocations, then once for N = 1, 1 + S, 1 + 2S... (S makes it at most R runs, 1 when
 * T <= R) with the N-th allocation failing, each run in a child process, until a run
 * makes fewer than N allocations. Each such run must end with exit status 1 and at
 * least one "ktrace: " line on stderr, or with status 0 (the allocation was optional);
 * never a signal, a hang (60 s), or a sanitizer report (under ASan a leak is one).
 * --same-output: a success must also print what the run without failure printed, and
 * write the same file OUT (--file, removed before each run). -v: every wrong run, with
 * the stack of its failed allocation (for addr2line). Prints one summary line, and the
 * first wrong runs; exits 0 when every run was right, 1 otherwise, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int ktrace_cli_main(int argc, char **argv);

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_vasprintf(char **s, const char *fmt, va_list ap);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_vasprintf(char **s, const char *fmt, va_list ap);
int __wrap_asprintf(char **s, const char *fmt, ...);

/* Shared with the parent: how many allocations the child made, whether the N-th failed. */
struct shared {
	atomic_long count;
	atomic_int failed;
};
static struct shared *sh;
static long fail_at;   /* 0: none fails */
static bool counting;  /* in the child only */
static bool verbose;   /* -v: every wrong run, with where its allocation failed */
static bool same_output; /* --same-output: a success must print what the first run did */

/* Sanitizer reports must not look like the CLI's own status 1. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "exitcode=86";
}
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "exitcode=86:print_stacktrace=1";
}

static bool fail_this(void)
{
	long n;

	if (!counting)
		return false;
	n = atomic_fetch_add(&sh->count, 1) + 1;
	if (fail_at && n == fail_at) {
		atomic_store(&sh->failed, 1);
		if (verbose) {
			void *bt[16];

			backtrace_symbols_fd(bt, backtrace(bt, 16), 2);
		}
		errno = ENOMEM;
		return true;
	}
	return false;
}

void *__wrap_malloc(size_t n)
{
	return fail_this() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return fail_this() ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_this() ? NULL : __real_realloc(p, n);
}

void *__wrap_aligned_alloc(size_t a, size_t n)
{
	return fail_this() ? NULL : __real_aligned_alloc(a, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_this() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_this() ? NULL : __real_strndup(s, n);
}

int __wrap_vasprintf(char **s, const char *fmt, va_list ap)
{
	return fail_this() ? -1 : __real_vasprintf(s, fmt, ap);
}

int __wrap_asprintf(char **s, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (fail_this())
		return -1;
	va_start(ap, fmt);
	r = __real_vasprintf(s, fmt, ap);
	va_end(ap);
	return r;
}

struct run {
	int status;       /* from waitpid */
	long count;       /* allocations made */
	bool failed;      /* the N-th allocation was made, and failed */
	char *out, *err;  /* standard output and error */
	size_t out_len;
	char *file;       /* the --file, NULL when there is none */
	size_t file_len;
};

static const char *out_file;

static char *slurp(FILE *f, size_t *len)
{
	long n;
	char *buf;

	fflush(f);
	n = ftell(f);
	if (n < 0)
		n = 0;
	buf = __real_malloc((size_t)n + 1);
	if (!buf) {
		perror("ktrace_allocfail");
		exit(2);
	}
	rewind(f);
	n = (long)fread(buf, 1, (size_t)n, f);
	buf[n] = 0;
	if (len)
		*len = (size_t)n;
	return buf;
}

static void run_once(long n, int argc, char **argv, struct run *r)
{
	FILE *out = tmpfile(), *err = tmpfile();
	pid_t pid;

	if (!out || !err) {
		perror("ktrace_allocfail: tmpfile");
		exit(2);
	}
	if (out_file)
		unlink(out_file);
	atomic_store(&sh->count, 0);
	atomic_store(&sh->failed, 0);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("ktrace_allocfail: fork");
		exit(2);
	}
	if (!pid) {
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		alarm(60);
		fail_at = n;
		counting = true;
		exit(ktrace_cli_main(argc, argv));
	}
	while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
		;
	r->count = atomic_load(&sh->count);
	r->failed = atomic_load(&sh->failed);
	r->out = slurp(out, &r->out_len);
	r->err = slurp(err, NULL);
	fclose(out);
	fclose(err);
	r->file = NULL;
	if (out_file && (out = fopen(out_file, "rb"))) {
		fseek(out, 0, SEEK_END);
		r->file = slurp(out, &r->file_len);
		fclose(out);
	}
}

/* Why the run is wrong, or NULL. */
static const char *judge(const struct run *r, const struct run *base)
{
	if (WIFSIGNALED(r->status))
		return WTERMSIG(r->status) == SIGALRM ? "hang (60 s)" : "killed by a signal";
	if (strstr(r->err, "Sanitizer") || strstr(r->err, "runtime error:"))
		return "sanitizer report";
	if (WEXITSTATUS(r->status) == 1) {
		if (strncmp(r->err, "ktrace: ", 8) && !strstr(r->err, "\nktrace: "))
			return "exit 1 without an error line";
		return NULL;
	}
	if (WEXITSTATUS(r->status) != 0)
		return "exit status neither 0 nor 1";
	if (!same_output)
		return NULL;
	if (r->out_len != base->out_len || memcmp(r->out, base->out, r->out_len))
		return "exit 0 with other output";
	if (!r->file != !base->file ||
	    (r->file && (r->file_len != base->file_len || memcmp(r->file, base->file, r->file_len))))
		return "exit 0 with another output file";
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: ktrace_allocfail [--max-runs R] [--same-output [--file OUT]] [-v] -- KTRACE-ARGS...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long max_runs = 400, step, runs = 0, errors = 0, successes = 0, wrong = 0;
	struct run base, r;
	const char *why;
	int i = 1;

	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--max-runs") && i + 1 < argc)
			max_runs = atol(argv[++i]);
		else if (!strcmp(argv[i], "--same-output"))
			same_output = true;
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--file") && i + 1 < argc)
			out_file = argv[++i];
		else
			usage();
	}
	if (i + 1 >= argc || max_runs < 1)
		usage();
	/* argv[i] is "--": it stands for the program name */
	argc -= i;
	argv += i;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("ktrace_allocfail: mmap");
		return 2;
	}
	run_once(0, argc, argv, &base);
	if (!WIFEXITED(base.status) || WEXITSTATUS(base.status)) {
		printf("the run without a failed allocation did not succeed:\n%s", base.err);
		free(base.out);
		free(base.err);
		free(base.file);
		return 1;
	}
	step = (base.count + max_runs - 1) / max_runs;
	if (step < 1)
		step = 1;
	for (long n = 1;; n += step) {
		run_once(n, argc, argv, &r);
		if (!r.failed) {
			free(r.out);
			free(r.err);
			free(r.file);
			break;
		}
		runs++;
		why = judge(&r, &base);
		if (why) {
			if (verbose)
				printf("%ld: %s: %s\n", n, why, r.err);
			else if (wrong < 5)
				printf("allocation %ld failing: %s; stderr:\n%.3000s\n", n, why, r.err);
			wrong++;
		} else if (WEXITSTATUS(r.status)) {
			errors++;
		} else {
			successes++;
		}
		free(r.out);
		free(r.err);
		free(r.file);
	}
	printf("%ld allocations, %ld runs (every %ld): %ld error exits, %ld successes, %ld wrong\n",
	       base.count, runs, step, errors, successes, wrong);
	free(base.out);
	free(base.err);
	free(base.file);
	return wrong ? 1 : 0;
}
