// SPDX-License-Identifier: MIT
/*
 * The ktrace(1) view of a KOFF buffer:
 *
 *   0304+Wed May 16 12:19:16 2001
 *   001bdd20:0000:00000000      _init:
 *   00fe5d20:0c76:00000000  io_reaper: sleep
 *
 * A time-stamp line gives the whole seconds of a record's time in ctime(3) form (local
 * time zone), preceded by 4 hex digits of the rest divided by the scale. Record lines
 * give the low 32 bits of the thread id, 4 hex digits of the record's time minus the
 * time-stamp line's, divided by the scale, the low 32 bits of the correlator, the tag
 * right-aligned in 10 columns and the formatted rest of the record. A new time-stamp
 * line starts whenever the delta would not fit in 16 bits (or would be negative) and
 * after 99 record lines, so that there is one at least every 100 output lines.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <ktrace/view.h>

#include "common/opts.h"
#include "common/outbuf.h"
#include "sinks/report/report.h"

#define NS_PER_SEC 1000000000ULL
#define LINES_PER_STAMP 99

static void put_ctime(struct ktrace_out *out, uint64_t secs)
{
	char buf[64];
	time_t t = (time_t)secs;
	struct tm tm;

	/* ctime(3)'s form, built from the broken-down local time so that no year can make
	 * it fail: "Wed May 16 12:19:16 2001". */
	if ((uint64_t)t != secs || !localtime_r(&t, &tm) ||
	    !strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm)) {
		kt_out_printf(out, "(time %llu)", (unsigned long long)secs);
		return;
	}
	kt_out_puts(out, buf);
}

static void put_ns9(struct ktrace_out *out, uint64_t v)
{
	char d[24];

	kt_out_write(out, d, (size_t)(kt_fmt_dec_zero(d, v, 9) - d));
}

static void put_time_full(struct ktrace_out *out, uint64_t ns)
{
	char buf[64];
	time_t t = (time_t)(ns / NS_PER_SEC);
	struct tm tm;

	if (localtime_r(&t, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm)) {
		kt_out_puts(out, buf);
		kt_out_putc(out, '.');
		put_ns9(out, ns % NS_PER_SEC);
	} else {
		kt_out_u64(out, ns / NS_PER_SEC, 0);
		kt_out_putc(out, '.');
		put_ns9(out, ns % NS_PER_SEC);
	}
}

static const char *source_name(enum koff_source s)
{
	switch (s) {
	case KOFF_SRC_FILE: return "buffer file";
	case KOFF_SRC_MEMORY: return "buffer image";
	case KOFF_SRC_CORE: return "core dump";
	case KOFF_SRC_SNAPSHOT: return "snapshot";
	}
	return "?";
}

static void print_header(struct ktrace_out *out, const struct koff_info *i)
{
	kt_out_printf(out, "# KOFF buffer %s (%s), format version %u\n",
		      i->path ? i->path : "(unnamed)", source_name(i->source), i->version);
	if (i->source == KOFF_SRC_CORE) {
		kt_out_printf(out, "# from the core of process %u, load bias 0x%llx\n", i->core_pid,
			      (unsigned long long)i->load_bias);
		kt_out_printf(out, "# crash anchor at 0x%llx (%s), %u buffer%s listed\n",
			      (unsigned long long)i->anchor_addr,
			      i->anchor_file ? i->anchor_file : "?", i->core_buffers,
			      i->core_buffers == 1 ? "" : "s");
	}
	if (i->source == KOFF_SRC_SNAPSHOT) {
		kt_out_puts(out, "# snapshot taken ");
		put_time_full(out, i->snapshot_ns);
		kt_out_putc(out, '\n');
	}
	if (!i->allocated) {
		kt_out_printf(out, "# not allocated yet: reserved for %u entries (allocated by "
			      "'ktrace dump -e')\n", i->nentries);
	} else {
		kt_out_printf(out, "# %u entries of 128 bytes; string table %llu of %llu bytes "
			      "used\n", i->nentries, (unsigned long long)i->strtab_used,
			      (unsigned long long)i->strtab_size);
	}
	kt_out_printf(out, "# tracing %s, mask 0x%016llx\n", i->enabled ? "enabled" : "disabled",
		      (unsigned long long)i->mask);
	kt_out_puts(out, "# created ");
	put_time_full(out, i->created_ns);
	kt_out_printf(out, " by process %u; next sequence number %llu, last flush at %llu "
		      "(%llu flushes)\n", i->creator_pid, (unsigned long long)i->head,
		      (unsigned long long)i->base, (unsigned long long)i->flushes);
}

int ktrace_view_koff_reader(struct koff_reader *r, const struct ktrace_view_koff_opts *opts,
			    struct ktrace_out *out, struct ktrace_error *err)
{
	const struct koff_info *info = koff_reader_info(r);
	struct ktrace_view_koff_opts copy;
	const struct ktrace_view_koff_opts *o = &copy;
	uint64_t scale;
	uint64_t base = 0;
	struct koff_record rec;
	struct koff_counts c;
	char tag[11], rest[2048];
	int since = 0, have_base = 0, ret;

	if ((ret = KT_OPTS_COPY(&copy, opts, "ktrace_view_koff_opts", err)))
		return ret;
	scale = o->scale ? o->scale : 1000000;
	tzset();
	if (o->verbose) {
		print_header(out, info);
	}
	while ((ret = koff_reader_next(r, &rec, err)) > 0) {
		uint64_t delta = 0;

		if (have_base && rec.ns >= base)
			delta = (rec.ns - base) / scale;
		if (!have_base || rec.ns < base || delta > 0xffff || since >= LINES_PER_STAMP) {
			base = rec.ns;
			delta = 0;
			have_base = 1;
			since = 0;
			kt_out_hex(out, ((base % NS_PER_SEC) / scale) & 0xffff, 4);
			kt_out_putc(out, '+');
			put_ctime(out, base / NS_PER_SEC);
			kt_out_putc(out, '\n');
		}
		if (o->abs_time) {
			put_time_full(out, rec.ns);
			kt_out_putc(out, ' ');
		}
		koff_record_format(&rec, tag, rest, sizeof(rest));
		kt_out_hex(out, rec.tid & 0xffffffffu, 8);
		kt_out_putc(out, ':');
		kt_out_hex(out, delta, 4);
		kt_out_putc(out, ':');
		kt_out_hex(out, rec.id & 0xffffffffu, 8);
		kt_out_putc(out, ' ');
		kt_out_spaces(out, 10 - (int)strlen(tag));
		kt_out_puts(out, tag);
		kt_out_putc(out, ':');
		kt_out_puts(out, rest);
		kt_out_putc(out, '\n');
		since++;
		if (o->verbose >= 2)
			kt_out_printf(out, "#   seq %llu pid %u tid 0x%llx id 0x%llx time %llu.%09llu "
				      "format 0x%llx%s\n", (unsigned long long)rec.seq, rec.pid,
				      (unsigned long long)rec.tid, (unsigned long long)rec.id,
				      (unsigned long long)(rec.ns / NS_PER_SEC),
				      (unsigned long long)(rec.ns % NS_PER_SEC),
				      (unsigned long long)rec.fmt_addr,
				      (rec.flags & 2) ? " (raw)" : "");
	}
	if (o->verbose) {
		koff_reader_counts(r, &c);
		kt_out_printf(out, "# logged %llu = shown %llu + overwritten %llu + unfinished %llu; "
			      "dropped %llu, rejected %llu, skipped %llu\n",
			      (unsigned long long)c.logged, (unsigned long long)c.shown,
			      (unsigned long long)c.overwritten, (unsigned long long)c.unfinished,
			      (unsigned long long)c.dropped, (unsigned long long)info->rejected,
			      (unsigned long long)c.skipped);
	}
	return ret < 0 ? ret : 0;
}

int kt_report_koff(struct ktrace_input *in, struct ktrace_out *out, struct ktrace_error *err)
{
	struct ktrace_view_koff_opts o = { .sz = sizeof(o), .scale = 1000000 };
	struct koff_reader_open_opts ro = { .sz = sizeof(ro), .input = in };
	struct koff_reader *r;
	int ret;

	ret = koff_reader_open(&ro, &r, err);
	if (ret)
		return ret;
	ret = ktrace_view_koff_reader(r, &o, out, err);
	koff_reader_close(r);
	return ret;
}
