// SPDX-License-Identifier: MIT
/* ktrace dump: control and print a KOFF trace buffer, live or from a crash dump. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/koff.h>

#include "cli.h"
#include <ktrace/view.h>

static const char dump_help[] =
"NAME\n"
"    ktrace dump - control and print a KOFF trace buffer\n"
"\n"
"SYNOPSIS\n"
"    ktrace dump [-vtFd] [-s scale] [-e[mask]] [-b num_ent] [--buffer PATH] [-o FILE]\n"
"    ktrace dump [-vt] [-s scale] [-o FILE] [--buffer-name NAME] [--lib PATH]\n"
"                [--sysroot DIR] NAMELIST [COREFILE]\n"
"    ktrace dump [-vt] [-s scale] [-o FILE] [--buffer-name NAME] COREFILE\n"
"    ktrace dump -l [[NAMELIST] COREFILE]\n"
"\n"
"DESCRIPTION\n"
"    Programs linked with libktrace log KOFF trace records (KOFF_TRACE) into a\n"
"    circular buffer: a file under /dev/shm that every process using it maps, and\n"
"    that outlives them. ktrace dump locates the records, formats them and prints\n"
"    them oldest first, as ktrace(1) of the KOFF facility does. The first synopsis is\n"
"    for a running system (the buffer file), the second for a crash dump. The options\n"
"    that change the tracing state (-F, -d, -e, -b) apply to a running system only;\n"
"    when one is given, nothing is printed (except the state, with -v).\n"
"\n"
"    The buffer is the file given by --buffer, else the one named by the environment\n"
"    variable KOFF_BUFFER (as for the producers), else /dev/shm/koff-NAME when a\n"
"    NAMELIST is given (NAME being its base name, the producers' default), else the\n"
"    only KOFF buffer in /dev/shm.\n"
"\n"
"    Output has two kinds of lines. A time stamp\n"
"        0304+Wed May 16 12:19:16 2001\n"
"    gives a record's time: 4 hex digits of the fraction of a second divided by the\n"
"    scale, then the whole seconds as ctime(3) prints them, in the local time zone.\n"
"    A trace record\n"
"        05c6d780:0ca8:00000000   odmmount: vfsp 3f7738 mvp 43fab8\n"
"    gives the low 32 bits of the thread id, 4 hex digits of the time since the last\n"
"    time stamp divided by the scale, the low 32 bits of the correlator, then the\n"
"    tag (the format's text before its first colon) right-aligned and cut to 10\n"
"    columns, the colon, and the rest of the formatted record. A new time stamp is\n"
"    printed whenever the delta would not fit in 16 bits and at least every 100 lines.\n"
"    Control characters in formats and strings are shown escaped (\\n, \\t, \\xNN).\n"
"\n"
"ARGUMENTS\n"
"    NAMELIST\n"
"        The program file (ELF; it may be stripped) of the process that logged the\n"
"        records. Without COREFILE, it selects that program's default buffer on the\n"
"        running system.\n"
"    COREFILE\n"
"        An ELF core of that process (from the kernel, or from gdb's gcore), of this\n"
"        machine's byte order (64- or 32-bit). Given alone, the program is the file\n"
"        the core maps at its entry point (under --sysroot if given). The buffers\n"
"        are found through the crash anchor (koff_crash_anchor): in the program's\n"
"        symbol table when it is linked with libktrace.a, else in the libktrace.so\n"
"        the core maps (the core's NT_FILE note names the file and its load\n"
"        address; the library's build id must match the core's copy). The\n"
"        auxiliary vector gives the load address of a position-independent\n"
"        program. Formats come from the buffer's string\n"
"        table, else from the process's memory, the program file or the file mapped\n"
"        there; %s arguments are shown only in crash dumps, read from the process's\n"
"        memory.\n"
"\n"
"OPTIONS\n"
"    -v, --verbose\n"
"        More detail: the buffer header first (file, size, string table use, mask,\n"
"        creation), and after the records the counters: records logged since the\n"
"        last flush = shown + overwritten + unfinished (being written while read),\n"
"        then those dropped (no free slot found), rejected (unusable format) and\n"
"        skipped (sequence numbers nobody took). Twice: also each record's sequence\n"
"        number, process, full thread id and correlator.\n"
"    -t, --time\n"
"        Start every record line with the record's absolute time,\n"
"        'YYYY-MM-DD HH:MM:SS.nnnnnnnnn' in the local time zone.\n"
"    -s, --scale SCALE\n"
"        Nanoseconds per unit of the time-stamp fractions and deltas (default\n"
"        1000000: milliseconds). A smaller scale gives more resolution, but the\n"
"        deltas still have 16 bits and the fraction is cut to its low 16 bits.\n"
"    -e[MASK], --enable[=MASK]\n"
"        Enable tracing and set the event mask (a number; 0x for hex). Without a\n"
"        mask, restore the last mask used. Allocates a buffer sized with -b, and\n"
"        creates the buffer (32768 entries) when there is none.\n"
"    -d, --disable\n"
"        Disable tracing: KOFF_TRACE logs nothing until -e.\n"
"    -F, --flush\n"
"        Flush the buffer: the records logged so far are no longer shown.\n"
"    -b, --entries NUM_ENT\n"
"        Size the buffer to NUM_ENT entries (rounded up to a power of two, 16 to\n"
"        4194304). The buffer is not allocated until tracing is enabled with -e. A\n"
"        buffer that is allocated cannot be resized or freed: this is then an error.\n"
"    --buffer PATH\n"
"        The buffer file (for a running system, or one left over after a crash).\n"
"    -l, --list\n"
"        List the buffers instead of dumping one: those a core's crash anchor lists\n"
"        (path, address, size, the default one), or the KOFF buffers in /dev/shm.\n"
"    --buffer-name NAME\n"
"        With a core: dump the buffer NAME (its path, or its base name) instead of\n"
"        the default one.\n"
"    --lib PATH\n"
"        With a core: the libktrace.so to read the crash anchor's place from, when\n"
"        it is no longer where the core says (its build id must match).\n"
"    --sysroot DIR\n"
"        With a core: look for the files the core names (libktrace.so, shared\n"
"        libraries holding formats) under DIR, as for a core from another machine.\n"
"    -o, --output FILE\n"
"        Instead of printing, save the records as a Darwin ktrace (V3 chunked) file;\n"
"        'ktrace report FILE' prints it the same way. FILE is written under a\n"
"        temporary name and renamed when complete; '-' (standard output), a FIFO or\n"
"        a device gets it as a stream.\n"
"    -h, --help\n"
"        Show this manual.\n"
"\n"
"ENVIRONMENT\n"
"    KOFF_BUFFER   the default buffer file of producers and of ktrace dump\n"
"    TZ            the time zone of the time stamps\n"
"\n"
"EXAMPLES\n"
"    ktrace dump --buffer /dev/shm/koff-myprog\n"
"    KOFF_BUFFER=/dev/shm/koff-test ktrace dump -v -s 1000\n"
"    ktrace dump -b 65536 -e0x3 --buffer /dev/shm/koff-myprog\n"
"    ktrace dump -d; ktrace dump -F; ktrace dump -e\n"
"    ktrace dump ./myprog core.12345\n"
"    ktrace dump -l ./myprog core.12345\n"
"    ktrace dump --buffer-name koff-other ./myprog core.12345\n"
"    ktrace dump --lib /opt/old/libktrace.so.1 ./myprog core.12345\n"
"    ktrace dump -o snap.ktrace && ktrace report snap.ktrace\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 when the buffer or core cannot be read or the operation is\n"
"    refused (such as -b on an allocated buffer), 2 for usage errors.\n";

enum { OPT_BUFFER = 256, OPT_BUFFER_NAME, OPT_LIB, OPT_SYSROOT };

static const struct option dump_options[] = {
	{ "verbose", no_argument,       NULL, 'v' },
	{ "time",    no_argument,       NULL, 't' },
	{ "flush",   no_argument,       NULL, 'F' },
	{ "disable", no_argument,       NULL, 'd' },
	{ "enable",  optional_argument, NULL, 'e' },
	{ "scale",   required_argument, NULL, 's' },
	{ "entries", required_argument, NULL, 'b' },
	{ "buffer",  required_argument, NULL, OPT_BUFFER },
	{ "output",  required_argument, NULL, 'o' },
	{ "list",    no_argument,       NULL, 'l' },
	{ "buffer-name", required_argument, NULL, OPT_BUFFER_NAME },
	{ "lib",     required_argument, NULL, OPT_LIB },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "help",    no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct dump_opts {
	struct ktrace_view_koff_opts view;
	bool flush, disable, enable, enable_mask, list;
	uint64_t mask;
	uint32_t entries;
	const char *buffer, *output, *namelist, *core;
	struct koff_reader_open_opts core_opts;    /* --core-buffer, --lib, --sysroot */
};

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static int parse_options(int argc, char **argv, struct dump_opts *o)
{
	uint64_t v;
	int c;

	o->view.sz = sizeof(o->view);
	o->view.scale = 1000000;
	optind = 1;
	while ((c = getopt_long(argc, argv, "vtFde::s:b:o:lh", dump_options, NULL)) != -1) {
		switch (c) {
		case 'v':
			o->view.verbose++;
			break;
		case 't':
			o->view.abs_time = 1;
			break;
		case 'F':
			o->flush = true;
			break;
		case 'd':
			o->disable = true;
			break;
		case 'e':
			o->enable = true;
			if (optarg) {
				if (parse_u64(optarg, &o->mask))
					return cli_usage_error("dump", "invalid mask '%s'", optarg);
				o->enable_mask = true;
			}
			break;
		case 's':
			if (parse_u64(optarg, &v) || !v || v > 1000000000ULL)
				return cli_usage_error("dump", "invalid scale '%s' (1 to 1000000000)",
						       optarg);
			o->view.scale = v;
			break;
		case 'b':
			if (parse_u64(optarg, &v) || !v || v > (1u << 22))
				return cli_usage_error("dump", "invalid entry count '%s' (1 to 4194304)",
						       optarg);
			o->entries = (uint32_t)v;
			break;
		case OPT_BUFFER:
			o->buffer = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'l':
			o->list = true;
			break;
		case OPT_BUFFER_NAME:
			o->core_opts.buffer = optarg;
			break;
		case OPT_LIB:
			o->core_opts.lib = optarg;
			break;
		case OPT_SYSROOT:
			o->core_opts.sysroot = optarg;
			break;
		case 'h':
			cli_print_help(&cli_dump);
			exit(CLI_OK);
		default:
			return cli_bad_option("dump", "vtFde::s:b:o:h", argv);
		}
	}
	if (optind < argc)
		o->namelist = argv[optind++];
	if (optind < argc)
		o->core = argv[optind++];
	if (optind < argc)
		return cli_usage_error("dump", "too many arguments");
	if (o->enable && o->disable)
		return cli_usage_error("dump", "-e and -d contradict each other");
	if (o->core && (o->flush || o->disable || o->enable || o->entries))
		return cli_usage_error("dump", "-F, -d, -e and -b apply to a running system only, "
				       "not to a crash dump");
	if (o->core && o->buffer)
		return cli_usage_error("dump", "--buffer and a core file exclude each other");
	if (o->list && (o->output || o->flush || o->disable || o->enable || o->entries ||
			o->core_opts.buffer))
		return cli_usage_error("dump", "-l lists the buffers of a core (NAMELIST COREFILE) "
				       "or of /dev/shm, alone");
	if (o->output && (o->flush || o->disable || o->enable || o->entries))
		return cli_usage_error("dump", "-o saves records: it does not combine with "
				       "-F, -d, -e or -b");
	return CLI_OK;
}

/* The only KOFF buffer under /dev/shm, if there is exactly one. */
static int find_only_buffer(char *path, size_t len)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *de;
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char p[PATH_MAX], magic[8];
		int fd;

		if (strncmp(de->d_name, "koff-", 5) || strstr(de->d_name, ".tmp"))
			continue;
		snprintf(p, sizeof(p), "/dev/shm/%s", de->d_name);
		fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (read(fd, magic, 8) == 8 && !memcmp(magic, "KOFFRING", 8)) {
			if (!found)
				snprintf(path, len, "%s", p);
			if (found == 1)
				fprintf(stderr, "ktrace: KOFF buffers in /dev/shm:\n  %s\n", path);
			if (found >= 1)
				fprintf(stderr, "  %s\n", p);
			found++;
		}
		close(fd);
	}
	closedir(d);
	return found;
}

/* An ELF core file (ET_CORE)? */
static bool is_core_file(const char *path)
{
	unsigned char h[18];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool core;

	if (fd < 0)
		return false;
	core = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && !memcmp(h, "\x7f" "ELF", 4) &&
	       (h[5] == 1 ? h[16] | h[17] << 8 : h[16] << 8 | h[17]) == 4;
	close(fd);
	return core;
}

/* -l for a running system: the KOFF buffers in /dev/shm, with their state. */
static int list_shm(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *de;
	int found = 0;

	if (!d) {
		cli_errorf("/dev/shm", "%s", strerror(errno));
		return CLI_FAILED;
	}
	while ((de = readdir(d))) {
		struct ktrace_error err = { 0 };
		struct koff_reader *r;
		char p[PATH_MAX];

		if (strncmp(de->d_name, "koff-", 5) || strstr(de->d_name, ".tmp"))
			continue;
		snprintf(p, sizeof(p), "/dev/shm/%s", de->d_name);
		if (koff_reader_open(&(struct koff_reader_open_opts){
					.sz = sizeof(struct koff_reader_open_opts), .path = p },
				     &r, &err) < 0)
			continue;
		{
			const struct koff_info *i = koff_reader_info(r);

			printf("%s\t%s, %u entries, tracing %s, created by process %u\n", p,
			       i->allocated ? "allocated" : "reserved", i->nentries,
			       i->enabled ? "enabled" : "disabled", i->creator_pid);
		}
		koff_reader_close(r);
		found++;
	}
	closedir(d);
	if (!found)
		fprintf(stderr, "ktrace: no KOFF buffer in /dev/shm\n");
	return CLI_OK;
}

/* -l with a core: the buffers its crash anchor lists. */
static int list_core(const struct dump_opts *o)
{
	struct koff_core_buffer list[KOFF_CORE_MAX_BUFFERS];
	struct ktrace_error err = { 0 };
	struct koff_reader_open_opts ro = o->core_opts;
	int n;

	ro.sz = sizeof(ro);
	ro.namelist = o->namelist;
	ro.core = o->core;
	n = koff_core_list_buffers(&ro, list, KOFF_CORE_MAX_BUFFERS, &err);
	if (n < 0) {
		cli_error(o->core, &err);
		return CLI_FAILED;
	}
	if (!n)
		fprintf(stderr, "ktrace: %s: the process had no KOFF buffer open\n", o->core);
	for (int i = 0; i < n && i < KOFF_CORE_MAX_BUFFERS; i++)
		printf("%s\t0x%llx, %llu bytes%s%s\n", list[i].path, (unsigned long long)list[i].addr,
		       (unsigned long long)list[i].size, list[i].is_default ? ", default" : "",
		       list[i].in_core ? "" : ", not in the core");
	return CLI_OK;
}

static int buffer_path(const struct dump_opts *o, char *path, size_t len, bool creating)
{
	const char *env = getenv("KOFF_BUFFER");
	int n;

	if (o->buffer) {
		snprintf(path, len, "%s", o->buffer);
		return 0;
	}
	if (env && *env) {
		snprintf(path, len, "%s", env);
		return 0;
	}
	if (o->namelist) {
		const char *base = strrchr(o->namelist, '/');

		snprintf(path, len, "/dev/shm/koff-%s", base ? base + 1 : o->namelist);
		return 0;
	}
	n = find_only_buffer(path, len);
	if (n == 1)
		return 0;
	if (n > 1)
		cli_errorf(NULL, "several KOFF buffers in /dev/shm: choose one with --buffer");
	else
		cli_errorf(NULL, "no KOFF buffer found in /dev/shm%s: give one with --buffer or "
			   "KOFF_BUFFER", creating ? " (and none to create)" : "");
	return -1;
}

static int control(const struct dump_opts *o, const char *path)
{
	struct ktrace_error err = { 0 };
	KTRACE_OPTS(koff_open_opts, oo);
	struct koff_buffer *b;
	int ret = 0;

	if (o->entries && koff_reserve(path, o->entries, &err) < 0) {
		cli_error(NULL, &err);
		return CLI_FAILED;
	}
	if (!o->enable && !o->disable && !o->flush && !o->view.verbose)
		return CLI_OK;
	if (o->enable)
		oo.nentries = KOFF_DEFAULT_ENTRIES;    /* creates it when there is none */
	b = koff_buffer_open(path, &oo, &err);
	if (!b) {
		if (errno == ENOENT)
			cli_errorf(path, "no such buffer");
		else
			cli_error(NULL, &err);
		return CLI_FAILED;
	}
	if (o->enable)
		ret = o->enable_mask ? koff_enable(b, o->mask, &err) : koff_enable_last(b, &err);
	else if (o->disable)
		ret = koff_disable(b);
	if (!ret && o->flush)
		ret = koff_flush(b);
	if (ret < 0) {
		cli_error(NULL, &err);
		koff_close(b);
		return CLI_FAILED;
	}
	if (o->view.verbose) {
		struct koff_counters c;

		koff_get_counters(b, &c);
		printf("# KOFF buffer %s: %s, %u entries, tracing %s, mask 0x%016llx\n", path,
		       c.allocated ? "allocated" : "reserved (not allocated)", c.nentries,
		       c.enabled ? "enabled" : "disabled", (unsigned long long)c.mask);
		printf("# logged %llu since the last flush (%llu overwritten), dropped %llu, "
		       "flushes %llu\n", (unsigned long long)c.logged,
		       (unsigned long long)c.overwritten, (unsigned long long)c.dropped,
		       (unsigned long long)c.flushes);
	}
	koff_close(b);
	return CLI_OK;
}

static int run_dump(int argc, char **argv)
{
	struct dump_opts opts = { 0 };
	struct ktrace_error err = { 0 };
	struct koff_reader *r = NULL;
	char path[PATH_MAX];
	const char *what;
	struct ktrace_out *out;
	int ret;

	ret = parse_options(argc, argv, &opts);
	if (ret)
		return ret;
	/* A core alone: its program is the file the core maps at its entry point. */
	if (opts.namelist && !opts.core && is_core_file(opts.namelist)) {
		opts.core = opts.namelist;
		opts.namelist = NULL;
	}
	if (!opts.core && (opts.core_opts.buffer || opts.core_opts.lib || opts.core_opts.sysroot))
		return cli_usage_error("dump", "--buffer-name, --lib and --sysroot apply to a core "
				       "file (for a running system, give the buffer with --buffer)");
	if (opts.core && opts.buffer)
		return cli_usage_error("dump", "--buffer and a core file exclude each other");
	if (opts.list)
		return opts.core ? list_core(&opts) : list_shm();
	if (opts.core) {
		what = opts.core;
		opts.core_opts.sz = sizeof(opts.core_opts);
		opts.core_opts.namelist = opts.namelist;
		opts.core_opts.core = opts.core;
		ret = koff_reader_open(&opts.core_opts, &r, &err);
	} else {
		bool ctl = opts.flush || opts.disable || opts.enable || opts.entries;

		if (buffer_path(&opts, path, sizeof(path), ctl) < 0)
			return CLI_FAILED;
		if (ctl)
			return control(&opts, path);
		what = path;
		KTRACE_OPTS(koff_reader_open_opts, ro, .path = path);

		ret = koff_reader_open(&ro, &r, &err);
	}
	if (ret < 0) {
		cli_error(what, &err);
		return CLI_FAILED;
	}
	if (opts.output) {
		ret = koff_snapshot_write(r, opts.output, &err);
		if (ret < 0)
			cli_error(what, &err);
		koff_reader_close(r);
		return ret < 0 ? CLI_FAILED : CLI_OK;
	}
	out = ktrace_out_new(STDOUT_FILENO);
	if (!out) {
		koff_reader_close(r);
		cli_errorf(what, "out of memory");
		return CLI_FAILED;
	}
	ret = ktrace_view_koff_reader(r, &opts.view, out, &err);
	ret = cli_out_finish(out, &err, ret);
	if (ret < 0)
		cli_error(what, &err);
	koff_reader_close(r);
	return ret < 0 ? CLI_FAILED : CLI_OK;
}

const struct cli_command cli_dump = {
	.name = "dump",
	.summary = "control and print a KOFF trace buffer, live or from a crash dump",
	.help = dump_help,
	.run = run_dump,
};
