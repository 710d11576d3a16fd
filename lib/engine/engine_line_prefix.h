/* SPDX-License-Identifier: MIT */
/*
 * The start of a record's line as trace-cmd report prints it, without printf: the one
 * writer of it. Its pieces (comm-pid, CPU, time, name columns) are inline for the
 * report's hot loop (lib/sinks/report/report_tracedat_text.c), which keeps caches of
 * them; kt_line_prefix puts them together for the stream's lines
 * (lib/engine/engine_source_tracedat.c) and the timeline page's (which rebuilds them
 * from columns). Each piece writes at p and returns the end; the caller makes room.
 */
#ifndef KTRACE_ENGINE_LINE_PREFIX_H
#define KTRACE_ENGINE_LINE_PREFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/numfmt.h"

/* "%*s-%-5d": comm[0..len) right-aligned in width (cut to width when cut: "%8.8s"),
 * then the pid left-aligned in 5. Room: max(len, width) + 27. */
static inline char *kt_prefix_comm(char *p, const char *comm, size_t len, int64_t pid,
				   size_t width, bool cut)
{
	char *q;

	if (cut && len > width)
		len = width;
	if (len < width) {
		memset(p, ' ', width - len);
		p += width - len;
	}
	memcpy(p, comm, len);
	p += len;
	*p++ = '-';
	q = p;
	p = kt_fmt_i64(p, pid);
	if (p - q < 5) {
		memset(p, ' ', (size_t)(5 - (p - q)));
		p = q + 5;
	}
	return p;
}

/* "%03u" of a CPU (the part between the brackets). Room: 10. */
static inline char *kt_prefix_cpu(char *p, unsigned cpu)
{
	if (cpu < 1000) {
		p[0] = (char)('0' + cpu / 100);
		memcpy(p + 1, kt_dec_pairs + 2 * (cpu % 100), 2);
		return p + 3;
	}
	return kt_fmt_dec(p, cpu);
}

/* The seconds part of the time column last written ("%5llu."), kept by a caller that
 * writes many lines of the same second; zeroed: none yet. */
struct kt_prefix_secs {
	uint64_t key;                  /* the seconds + 1 */
	uint8_t len;
	char text[32];
};

/* The time column "%5llu.%06llu" of ts rounded to microseconds, or with nsec9
 * "%5llu.%09llu" of ts. secs may be NULL. Room: 32 + 16. */
static inline char *kt_prefix_time(char *p, struct kt_prefix_secs *secs, uint64_t ts, bool nsec9)
{
	uint64_t sec, frac;

	if (nsec9) {
		sec = ts / 1000000000u;
		frac = ts % 1000000000u;
	} else {
		ts = ts / 1000 + (ts % 1000 >= 500);      /* (ts + 500) / 1000 without overflow */
		sec = ts / 1000000u;
		frac = ts % 1000000u;
	}
	if (!secs) {
		p = kt_fmt_dec_width(p, sec, 5);
		*p++ = '.';
	} else {
		if (sec + 1 != secs->key) {
			char *q = kt_fmt_dec_width(secs->text, sec, 5);

			*q++ = '.';
			secs->len = (uint8_t)(q - secs->text);
			secs->key = sec + 1;
		}
		memcpy(p, secs->text, 16);  /* fixed size: the longest (20 digits) has its own copy */
		if (secs->len > 16)
			memcpy(p, secs->text, secs->len);
		p += secs->len;
	}
	{
		/* 32-bit steps that do not wait on each other much */
		uint32_t fr = (uint32_t)frac, a, b, rest;

		if (nsec9) {
			uint32_t top = fr / 1000000u;

			fr -= top * 1000000u;
			*p++ = (char)('0' + top / 100);
			memcpy(p, kt_dec_pairs + 2 * (top % 100), 2);
			p += 2;
		}
		a = fr / 10000u;
		rest = fr - a * 10000u;
		b = rest / 100u;
		memcpy(p, kt_dec_pairs + 2 * a, 2);
		memcpy(p + 2, kt_dec_pairs + 2 * b, 2);
		memcpy(p + 4, kt_dec_pairs + 2 * (rest - b * 100u), 2);
		return p + 6;
	}
}

/* "name: " and the padding to 20 trace-cmd puts after a shorter name. Room: len + 22. */
static inline char *kt_prefix_name(char *p, const char *name, size_t len)
{
	memcpy(p, name, len);
	p += len;
	*p++ = ':';
	*p++ = ' ';
	if (len < 20) {
		memset(p, ' ', 20 - len);
		p += 20 - len;
	}
	return p;
}

enum {
	KT_PREFIX_USECS = 1,     /* "%16s-%-5d [%03d] %5lu.%06lu: %s: %*s" (20 - name) */
	KT_PREFIX_NSECS = 2,     /* the same with the time as "%12lu" nanoseconds */
	KT_PREFIX_GENERIC = 3,   /* other formats: "<...>" for no comm, "[---]" for no CPU,
				    "%-20s " for the name (kt_stream_generic_line) */
};

/* The prefix of style st into p (room for 256 + name + comm bytes); returns its length. */
size_t kt_line_prefix(char *p, int st, const char *comm, int64_t tid, int cpu, uint64_t ts,
		      const char *name);

#endif
