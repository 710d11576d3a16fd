/* SPDX-License-Identifier: MIT */
/*
 * Compares what two trace.dat readers hold, for the writer's tests and fuzz harness:
 * metadata texts, options (those the writer copies), buffers by name, each CPU's raw
 * ring-buffer data and records, latency texts. Header-only (static functions).
 *
 * td_same(a, b, why, len) returns true when b holds everything a holds; otherwise why
 * says what differs first. Buffers and CPUs without data may differ (a writer may add
 * an empty top buffer, version 6 lists every CPU).
 */
#ifndef KTRACE_TESTS_TDCOMPARE_H
#define KTRACE_TESTS_TDCOMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/tracedat.h>

#define TDC_MAX_RECORDS 2000000u

static bool tdc_fail(char *why, size_t len, const char *fmt, const char *a, long long n)
{
	snprintf(why, len, fmt, a, n);
	return false;
}

static bool tdc_text_same(int ra, const char *ta, size_t la, int rb, const char *tb, size_t lb)
{
	if (ra != rb)
		return false;
	return ra || (la == lb && (!la || !memcmp(ta, tb, la)));
}

/* FNV-1a over every piece a walk hands out. */
struct tdc_hash {
	uint64_t h, n;
};

static int tdc_hash_piece(const void *data, size_t len, void *arg)
{
	struct tdc_hash *hs = arg;
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++)
		hs->h = (hs->h ^ p[i]) * 0x100000001b3ull;
	hs->n += len;
	return 0;
}

static int tdc_hash_text(const char *text, size_t len, void *arg)
{
	return tdc_hash_piece(text, len, arg);
}

static bool tdc_layout_option(uint16_t id)
{
	return id == TRACEDAT_OPT_DONE || id == TRACEDAT_OPT_BUFFER ||
	       id == TRACEDAT_OPT_BUFFER_TEXT || id == TRACEDAT_OPT_CPUCOUNT ||
	       id == TRACEDAT_OPT_STRINGS ||
	       (id >= TRACEDAT_OPT_HEADER_INFO && id <= TRACEDAT_OPT_CMDLINES) ||
	       /* BTF and modules: sections or ktrace's options, compared by content */
	       id == TRACEDAT_OPT_BTF_FILE || id == TRACEDAT_OPT_MODULES_FILE ||
	       id == TRACEDAT_OPT_KTRACE_BTF || id == TRACEDAT_OPT_KTRACE_MODULES;
}

static bool tdc_metadata(struct tracedat *a, struct tracedat *b, char *why, size_t len)
{
	const char *ta, *tb;
	size_t la, lb;
	int ra, rb;

	ra = tracedat_header_page(a, &ta, &la);
	rb = tracedat_header_page(b, &tb, &lb);
	if (ra == 0 && !tdc_text_same(ra, ta, la, rb, tb, lb))
		return tdc_fail(why, len, "header_page differs%s", "", 0);
	ra = tracedat_header_event(a, &ta, &la);
	rb = tracedat_header_event(b, &tb, &lb);
	if (ra == 0 && !tdc_text_same(ra, ta, la, rb, tb, lb))
		return tdc_fail(why, len, "header_event differs%s", "", 0);
	if (tracedat_ftrace_format_count(a) != tracedat_ftrace_format_count(b))
		return tdc_fail(why, len, "%sftrace format count differs", "", 0);
	for (size_t i = 0; i < tracedat_ftrace_format_count(a); i++) {
		ra = tracedat_ftrace_format(a, i, &ta, &la);
		rb = tracedat_ftrace_format(b, i, &tb, &lb);
		if (!tdc_text_same(ra, ta, la, rb, tb, lb))
			return tdc_fail(why, len, "%sftrace format %lld differs", "", (long long)i);
	}
	{
		/* systems without formats may vanish */
		size_t sb = 0;

		for (size_t s = 0; s < tracedat_system_count(a); s++) {
			size_t n = tracedat_system_event_count(a, s);

			if (!n)
				continue;
			while (sb < tracedat_system_count(b) && !tracedat_system_event_count(b, sb))
				sb++;
			if (sb >= tracedat_system_count(b) ||
			    strcmp(tracedat_system_name(a, s), tracedat_system_name(b, sb)) ||
			    tracedat_system_event_count(b, sb) != n)
				return tdc_fail(why, len, "event system %s differs (%lld formats)",
						tracedat_system_name(a, s), (long long)n);
			for (size_t i = 0; i < n; i++) {
				ra = tracedat_event_format(a, s, i, &ta, &la);
				rb = tracedat_event_format(b, sb, i, &tb, &lb);
				if (!tdc_text_same(ra, ta, la, rb, tb, lb))
					return tdc_fail(why, len, "format %lld of system %s differs",
							tracedat_system_name(a, s), (long long)i);
			}
			sb++;
		}
	}
	ra = tracedat_kallsyms(a, &ta, &la, NULL);
	rb = tracedat_kallsyms(b, &tb, &lb, NULL);
	if (ra == 0 && !tdc_text_same(ra, ta, la, rb, tb, lb))
		return tdc_fail(why, len, "kallsyms differ%s", "", 0);
	ra = tracedat_printk_formats(a, &ta, &la, NULL);
	rb = tracedat_printk_formats(b, &tb, &lb, NULL);
	if (ra == 0 && !tdc_text_same(ra, ta, la, rb, tb, lb))
		return tdc_fail(why, len, "printk formats differ%s", "", 0);
	ra = tracedat_cmdlines(a, &ta, &la, NULL);
	rb = tracedat_cmdlines(b, &tb, &lb, NULL);
	if (ra == 0 && !tdc_text_same(ra, ta, la, rb, tb, lb))
		return tdc_fail(why, len, "saved cmdlines differ%s", "", 0);
	{
		const void *da, *db;

		ra = tracedat_btf(a, &da, &la, NULL);
		rb = tracedat_btf(b, &db, &lb, NULL);
		if ((ra == 0 || rb == 0) && !tdc_text_same(ra, da, la, rb, db, lb))
			return tdc_fail(why, len, "BTF differs%s", "", 0);
	}
	ra = tracedat_modules(a, &ta, &la, NULL);
	rb = tracedat_modules(b, &tb, &lb, NULL);
	if ((ra == 0 || rb == 0) && !tdc_text_same(ra, ta, la, rb, tb, lb))
		return tdc_fail(why, len, "modules differ%s", "", 0);
	return true;
}

static bool tdc_options(struct tracedat *a, struct tracedat *b, char *why, size_t len)
{
	size_t j = 0;

	for (size_t i = 0; i < tracedat_option_count(a); i++) {
		const struct tracedat_option *oa = tracedat_option(a, i), *ob = NULL;

		if (tdc_layout_option(oa->id))
			continue;
		while (j < tracedat_option_count(b)) {
			ob = tracedat_option(b, j++);
			if (!tdc_layout_option(ob->id))
				break;
			ob = NULL;
		}
		if (!ob || ob->id != oa->id)
			return tdc_fail(why, len, "option %s (#%lld) missing or out of place",
					tracedat_option_name(oa->id) ? tracedat_option_name(oa->id) : "?",
					(long long)i);
		/* an empty version 6 TRACECLOCK may get the clock text in version 7 */
		if (oa->id == TRACEDAT_OPT_TRACECLOCK && !oa->size)
			continue;
		if (oa->size != ob->size || (oa->size && memcmp(oa->data, ob->data, oa->size)))
			return tdc_fail(why, len, "option %s (#%lld) content differs",
					tracedat_option_name(oa->id) ? tracedat_option_name(oa->id) : "?",
					(long long)i);
	}
	return true;
}

/* Records of one CPU of one buffer in each file, compared one by one. */
static bool tdc_records(struct tracedat *a, int ba, struct tracedat *b, int bb, unsigned int cpu,
			char *why, size_t len)
{
	struct tracedat_iter *ia = NULL, *ib = NULL;
	bool ok = true;
	unsigned int n = 0;

	if (tracedat_iter_new(a, ba, (int)cpu, &ia, NULL) || tracedat_iter_new(b, bb, (int)cpu, &ib, NULL)) {
		tracedat_iter_free(ia);
		tracedat_iter_free(ib);
		return tdc_fail(why, len, "%scannot iterate CPU %lld", "", cpu);
	}
	for (;; n++) {
		const struct tracedat_record *ra, *rb;
		int xa = tracedat_iter_next(ia, &ra, NULL);
		int xb = tracedat_iter_next(ib, &rb, NULL);

		if ((xa > 0) != (xb > 0) || (xa < 0) != (xb < 0)) {
			ok = tdc_fail(why, len, "CPU data ends differently at record %s%lld", "", n);
			break;
		}
		if (xa <= 0 || n >= TDC_MAX_RECORDS)
			break;
		if (ra->ts != rb->ts || ra->raw_ts != rb->raw_ts || ra->size != rb->size ||
		    ra->record_size != rb->record_size || ra->missed_events != rb->missed_events ||
		    ra->cpu != rb->cpu || (ra->size && memcmp(ra->data, rb->data, ra->size))) {
			ok = tdc_fail(why, len, "record %s%lld differs", "", n);
			break;
		}
	}
	tracedat_iter_free(ia);
	tracedat_iter_free(ib);
	return ok;
}

static bool tdc_buffers(struct tracedat *a, struct tracedat *b, char *why, size_t len)
{
	for (size_t i = 0; i < tracedat_buffer_count(a); i++) {
		const struct tracedat_buffer *ba = tracedat_buffer(a, i);
		int j = tracedat_find_buffer(b, ba->name);
		const struct tracedat_buffer *bb = j >= 0 ? tracedat_buffer(b, (size_t)j) : NULL;

		if (!bb)
			return tdc_fail(why, len, "buffer \"%s\" missing%lld", ba->name, 0);
		if (bb->latency != ba->latency)
			return tdc_fail(why, len, "buffer \"%s\": latency flag differs%lld", ba->name, 0);
		if (ba->latency) {
			struct tdc_hash ha = { 0xcbf29ce484222325ull, 0 }, hb = ha;
			int ra = tracedat_latency_text(a, i, tdc_hash_text, &ha, NULL);
			int rb = tracedat_latency_text(b, (size_t)j, tdc_hash_text, &hb, NULL);

			if (ra || rb || ha.h != hb.h || ha.n != hb.n)
				return tdc_fail(why, len, "buffer \"%s\": latency text differs%lld",
						ba->name, 0);
			continue;
		}
		for (size_t c = 0; c < ba->cpus; c++) {
			const struct tracedat_cpu *ca = tracedat_buffer_cpu(a, i, c), *cb = NULL;
			struct tdc_hash ha = { 0xcbf29ce484222325ull, 0 }, hb = ha;
			size_t k;

			if (!ca->data_size)
				continue;
			if (bb->page_size != ba->page_size)
				return tdc_fail(why, len, "buffer \"%s\": page size differs%lld", ba->name, 0);
			for (k = 0; k < bb->cpus; k++) {
				cb = tracedat_buffer_cpu(b, (size_t)j, k);
				if (cb->cpu == ca->cpu)
					break;
				cb = NULL;
			}
			if (!cb || cb->data_size != ca->data_size)
				return tdc_fail(why, len, "buffer \"%s\": CPU %lld missing or of another size",
						ba->name, ca->cpu);
			if (tracedat_cpu_data(a, i, c, tdc_hash_piece, &ha, NULL) ||
			    tracedat_cpu_data(b, (size_t)j, k, tdc_hash_piece, &hb, NULL) ||
			    ha.h != hb.h || ha.n != hb.n)
				return tdc_fail(why, len, "buffer \"%s\": CPU %lld data differs", ba->name,
						ca->cpu);
			if (!tdc_records(a, (int)i, b, j, ca->cpu, why, len))
				return false;
		}
	}
	/* nothing more in b */
	for (size_t j = 0; j < tracedat_buffer_count(b); j++) {
		const struct tracedat_buffer *bb = tracedat_buffer(b, j);
		int i = tracedat_find_buffer(a, bb->name);

		if (i >= 0)
			continue;
		for (size_t c = 0; c < bb->cpus; c++)
			if (tracedat_buffer_cpu(b, j, c)->data_size)
				return tdc_fail(why, len, "extra buffer \"%s\" with data%lld", bb->name, 0);
		if (bb->latency)
			return tdc_fail(why, len, "extra latency buffer \"%s\"%lld", bb->name, 0);
	}
	return true;
}

static bool td_same(struct tracedat *a, struct tracedat *b, char *why, size_t len)
{
	const struct tracedat_header *ha = tracedat_header(a), *hb = tracedat_header(b);

	/* a header long size other than 4 or 8 (corrupt) is written as 8 */
	if (ha->big_endian != hb->big_endian ||
	    (ha->long_size != hb->long_size && (ha->long_size == 4 || ha->long_size == 8)) ||
	    ha->kernel_long_size != hb->kernel_long_size || ha->old_format != hb->old_format)
		return tdc_fail(why, len, "%sheader facts differ (endianness, long sizes)", "", 0);
	if (hb->cpus < ha->cpus)
		return tdc_fail(why, len, "%sCPU count %lld became smaller", "", ha->cpus);
	return tdc_metadata(a, b, why, len) && tdc_options(a, b, why, len) &&
	       tdc_buffers(a, b, why, len);
}

#endif
