// SPDX-License-Identifier: MIT
/* `ktrace info` for Darwin kdebug data: format, header fields, counts, chunks. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/darwin.h>
#include <ktrace/kcdata.h>
#include <ktrace/ktrace_file.h>

#include "common/check.h"
#include "common/grow.h"
#include "sinks/report/report.h"
#include <ktrace/view.h>

#include "common/json.h"
#include "common/outbuf.h"
#include "sinks/info/info.h"

#define MAX_LISTED_CHUNKS 100000

struct info_chunks {
	struct ktrace_chunk *v;
	size_t n, cap;
	uint64_t more;            /* chunks past MAX_LISTED_CHUNKS, counted only */
};

struct info_totals {
	uint64_t events, lost_markers, retrograde;
	struct ktrace_darwin_event first, last;
	uint64_t min_ns, max_ns;
	uint8_t cpu_bits[65536 / 8];
	uint64_t cpus_seen;
};

static void note_cpu(struct info_totals *t, uint32_t cpu)
{
	static const uint32_t nbits = 65536;

	if (cpu < nbits) {
		if (!(t->cpu_bits[cpu >> 3] & (1u << (cpu & 7)))) {
			t->cpu_bits[cpu >> 3] |= (uint8_t)(1u << (cpu & 7));
			t->cpus_seen++;
		}
	}
}

static int collect_chunks(struct ktrace_file *f, struct info_chunks *ch, struct ktrace_error *err)
{
	struct ktrace_chunk_iter it;
	struct ktrace_chunk c;
	int ret;

	ktrace_file_chunks_begin(f, &it);
	while ((ret = ktrace_file_next_chunk(f, &it, &c, err)) > 0) {
		if (ch->n >= MAX_LISTED_CHUNKS) {
			ch->more++;
			continue;
		}
		if (ch->n == ch->cap) {
			size_t cap = ch->cap ? ch->cap * 2 : 16;
			struct ktrace_chunk *p = kt_realloc_array(ch->v, cap, sizeof(*p));

			if (!p)
				return kt_error_oom(err);
			ch->v = p;
			ch->cap = cap;
		}
		ch->v[ch->n++] = c;
	}
	return ret;
}

/* A number as a "0x..." string (JSON numbers lose precision above 2^53). */
static void json_hex(struct kt_json *j, const char *key, uint64_t v, int digits)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%0*" PRIx64, digits, v);
	if (key)
		kt_json_key_cstr(j, key);
	kt_json_cstr(j, buf);
}

static void json_event(struct kt_json *j, const char *key, const struct ktrace_darwin_event *ev)
{
	kt_json_key_cstr(j, key);
	kt_json_begin_object(j, true);
	kt_json_kv_u64(j, "offset", ev->offset);
	kt_json_kv_u64(j, "timestamp", ev->timestamp);
	json_hex(j, "timestamp_hex", ev->timestamp, 0);
	kt_json_kv_u64(j, "ns", ev->ns);
	json_hex(j, "debugid", ev->debugid, 8);
	kt_json_kv_u64(j, "cpu", ev->cpu);
	json_hex(j, "thread", ev->thread, 0);
	kt_json_key_cstr(j, "args");
	kt_json_begin_array(j, true);
	for (int a = 0; a < 4; a++)
		json_hex(j, NULL, ev->arg[a], 0);
	kt_json_end_array(j);
	kt_json_end_object(j);
}

static void print_json(struct ktrace_out *o, struct ktrace_input *in, struct ktrace_darwin *k,
		       const struct info_chunks *ch, const struct info_totals *t,
		       const struct ktrace_error *failure)
{
	const struct ktrace_darwin_info *i = ktrace_darwin_get_info(k);
	size_t ncpus;
	const struct ktrace_darwin_cpu *cpus = ktrace_darwin_cpus(k, &ncpus);
	char desc[128];
	struct kt_json j;

	kt_json_init(&j, o, 2);
	kt_json_begin_object(&j, false);
	kt_json_kv_cstr(&j, "file", ktrace_input_name(in));
	kt_json_kv_cstr(&j, "format", kt_darwin_format_id(i));
	kt_json_kv_cstr(&j, "description", kt_darwin_format_desc(i, desc, sizeof(desc)));
	kt_json_kv_u64(&j, "version", (uint64_t)kt_darwin_version(i));
	json_hex(&j, "magic", i->magic, 8);
	if (i->kind == KTRACE_DARWIN_V3) {
		kt_json_kv_cstr(&j, "flavour", i->flavour == KTRACE_FILE_KERNEL ? "kernel" : "libktrace");
		kt_json_key_cstr(&j, "header_version");
		kt_json_begin_object(&j, true);
		kt_json_kv_u64(&j, "major", i->major);
		kt_json_kv_u64(&j, "minor", i->minor);
		kt_json_end_object(&j);
		kt_json_kv_u64(&j, "start_timestamp", i->start_timestamp);
	}
	kt_json_kv_u64(&j, "word_size", i->is64 ? 64 : 32);
	kt_json_kv_u64(&j, "event_size", i->event_size);
	kt_json_kv_u64(&j, "flags", i->flags);
	kt_json_key_cstr(&j, "timebase");
	kt_json_begin_object(&j, true);
	kt_json_kv_u64(&j, "numer", i->timebase_numer);
	kt_json_kv_u64(&j, "denom", i->timebase_denom);
	kt_json_key_cstr(&j, "known");
	kt_json_bool(&j, i->timebase_known);
	kt_json_kv_u64(&j, "frequency", i->frequency);
	kt_json_end_object(&j);
	kt_json_key_cstr(&j, "walltime");
	kt_json_begin_object(&j, true);
	kt_json_kv_u64(&j, "secs", i->walltime_secs);
	kt_json_kv_u64(&j, "usecs", i->walltime_usecs);
	kt_json_key_cstr(&j, "minutes_west");
	kt_json_i64(&j, i->minutes_west);
	kt_json_kv_u64(&j, "dst", i->dst);
	kt_json_end_object(&j);
	if (i->kind != KTRACE_DARWIN_V3)
		kt_json_kv_u64(&j, "events_offset", i->events_offset);
	kt_json_kv_u64(&j, "events", t->events);
	kt_json_kv_u64(&j, "threads", i->threads);
	kt_json_kv_u64(&j, "thread_map_entries", i->thread_map_entries);
	kt_json_kv_u64(&j, "cpus", ncpus ? (uint64_t)ncpus : t->cpus_seen);
	kt_json_kv_u64(&j, "cpus_seen", t->cpus_seen);
	kt_json_key_cstr(&j, "cpu_map");
	kt_json_begin_array(&j, true);
	for (size_t c = 0; c < ncpus; c++) {
		kt_json_begin_object(&j, true);
		kt_json_kv_u64(&j, "cpu_id", cpus[c].cpu_id);
		kt_json_kv_u64(&j, "flags", cpus[c].flags);
		kt_json_key_cstr(&j, "name");
		kt_json_string(&j, cpus[c].name, strnlen(cpus[c].name, 8));
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	if (t->events) {
		json_event(&j, "first_event", &t->first);
		json_event(&j, "last_event", &t->last);
		kt_json_kv_u64(&j, "duration_ns", t->max_ns - t->min_ns);
	}
	kt_json_kv_u64(&j, "lost_events_markers", t->lost_markers);
	kt_json_kv_u64(&j, "retrograde_events", t->retrograde);
	if (i->trailing_bytes)
		kt_json_kv_u64(&j, "trailing_bytes", i->trailing_bytes);
	kt_json_key_cstr(&j, "chunks");
	kt_json_begin_array(&j, false);
	for (size_t c = 0; c < ch->n; c++) {
		const struct ktrace_chunk *x = &ch->v[c];

		kt_json_begin_object(&j, true);
		json_hex(&j, "tag", x->tag, 8);
		kt_json_kv_cstr(&j, "name", ktrace_file_tag_name(x->tag));
		kt_json_kv_u64(&j, "major", x->major);
		kt_json_kv_u64(&j, "minor", x->minor);
		kt_json_kv_u64(&j, "offset", x->offset);
		kt_json_kv_u64(&j, "size", x->size);
		kt_json_kv_u64(&j, "data_size", x->data_size);
		kt_json_key_cstr(&j, "header");
		kt_json_bool(&j, x->in_header);
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	if (ch->more)
		kt_json_kv_u64(&j, "chunks_not_listed", ch->more);
	{
		struct ktrace_error e = { 0 };
		int n = ktrace_darwin_stackshot_count(k, &e);

		kt_json_key_cstr(&j, "stackshots");
		kt_json_begin_array(&j, false);
		for (int s = 0; s < n; s++) {
			struct ktrace_darwin_stackshot si = { 0 };

			kt_json_begin_object(&j, true);
			if (ktrace_darwin_stackshot(k, (size_t)s, &si, NULL, &e) == 0) {
				kt_json_kv_u64(&j, "offset", si.offset);
				kt_json_kv_u64(&j, "size", si.size);
				kt_json_kv_cstr(&j, "kind", kcdata_begin_name(si.begin_type)
							    ? kcdata_begin_name(si.begin_type) : "kcdata");
				kt_json_kv_u64(&j, "tasks", si.tasks);
				kt_json_kv_u64(&j, "threads", si.threads);
			} else {
				kt_json_kv_u64(&j, "offset", e.offset);
				kt_json_key_cstr(&j, "error");
				kt_json_string(&j, e.message, strnlen(e.message, sizeof(e.message)));
			}
			kt_json_end_object(&j);
		}
		kt_json_end_array(&j);
	}
	kt_json_key_cstr(&j, "error");
	if (failure) {
		char msg[KTRACE_ERROR_MESSAGE_MAX + 64];

		kt_json_cstr(&j, ktrace_error_format(failure, msg, sizeof(msg)));
	} else {
		kt_json_null(&j);
	}
	kt_json_end_object(&j);
	kt_json_finish(&j);
}

static void text_event(struct ktrace_out *o, const char *label, const struct ktrace_darwin_event *ev)
{
	kt_out_printf(o, "%-13s ticks 0x%" PRIx64 " (", label, ev->timestamp);
	kt_darwin_put_time(o, ev->ns);
	kt_out_printf(o, " s), debugid 0x%08x, cpu %u, thread 0x%" PRIx64 ", file offset 0x%"
		      PRIx64 "\n", ev->debugid, ev->cpu, ev->thread, ev->offset);
}

/* The stackshot chunks, decoded: their tasks and threads. */
static void print_text_stackshots(struct ktrace_out *o, struct ktrace_darwin *k)
{
	struct ktrace_error e = { 0 };
	uint64_t tasks = 0, threads = 0;
	int n = ktrace_darwin_stackshot_count(k, &e);

	if (n <= 0)
		return;
	for (int s = 0; s < n; s++) {
		struct ktrace_darwin_stackshot si;

		if (ktrace_darwin_stackshot(k, (size_t)s, &si, NULL, &e) == 0) {
			tasks += si.tasks;
			threads += si.threads;
		}
	}
	kt_out_printf(o, "stackshots: %d (%" PRIu64 " tasks, %" PRIu64 " threads)\n", n, tasks,
		      threads);
	for (int s = 0; s < n; s++) {
		struct ktrace_darwin_stackshot si = { 0 };

		if (ktrace_darwin_stackshot(k, (size_t)s, &si, NULL, &e) == 0)
			kt_out_printf(o, "  stackshot %d at 0x%" PRIx64 ": %" PRIu64 " tasks, %" PRIu64
				      " threads (%s, %" PRIu64 " bytes of kcdata)\n", s, si.offset,
				      si.tasks, si.threads, kcdata_begin_name(si.begin_type)
				      ? kcdata_begin_name(si.begin_type) : "kcdata", si.size);
		else
			kt_out_printf(o, "  stackshot %d: does not decode: %s\n", s, e.message);
	}
}

static void print_text(struct ktrace_out *o, struct ktrace_input *in, struct ktrace_darwin *k,
		       const struct info_chunks *ch, const struct info_totals *t)
{
	const struct ktrace_darwin_info *i = ktrace_darwin_get_info(k);
	size_t ncpus;
	const struct ktrace_darwin_cpu *cpus = ktrace_darwin_cpus(k, &ncpus);
	char desc[128];

	kt_out_printf(o, "%-13s %s\n", "file:", ktrace_input_name(in));
	kt_out_printf(o, "%-13s %s\n", "format:", kt_darwin_format_desc(i, desc, sizeof(desc)));
	kt_out_printf(o, "%-13s %s, %zu-byte kd_buf\n", "word size:",
		      i->is64 ? "64-bit" : "32-bit", i->event_size);
	kt_out_printf(o, "%-13s %" PRIu64 "/%" PRIu64 "%s", "timebase:", i->timebase_numer,
		      i->timebase_denom, i->timebase_known ? "" : " (none in the file; assumed)");
	if (i->frequency)
		kt_out_printf(o, " (%" PRIu64 " Hz)", i->frequency);
	kt_out_putc(o, '\n');
	kt_out_printf(o, "%-13s %" PRIu64 ".%06u s since the epoch, %d minutes west, dst %u\n",
		      "wall time:", i->walltime_secs, i->walltime_usecs, i->minutes_west, i->dst);
	if (i->kind == KTRACE_DARWIN_V3)
		kt_out_printf(o, "%-13s 0x%" PRIx64 " ticks\n", "start:", i->start_timestamp);
	else
		kt_out_printf(o, "%-13s 0x%" PRIx64 "\n", "events at:", i->events_offset);
	kt_out_printf(o, "%-13s %" PRIu64 "\n", "events:", t->events);
	kt_out_printf(o, "%-13s %" PRIu64 " (%" PRIu64 " thread map entries)\n", "threads:",
		      i->threads, i->thread_map_entries);
	if (ncpus) {
		kt_out_printf(o, "%-13s %zu in the CPU map (%" PRIu64 " seen in events):", "cpus:",
			      ncpus, t->cpus_seen);
		for (size_t c = 0; c < ncpus; c++) {
			kt_out_printf(o, " %u=", cpus[c].cpu_id);
			kt_darwin_put_text(o, cpus[c].name, 8, KT_QUOTE_NONE);
		}
		kt_out_putc(o, '\n');
	} else {
		kt_out_printf(o, "%-13s %" PRIu64 " seen in events (no CPU map)\n", "cpus:",
			      t->cpus_seen);
	}
	if (t->events) {
		text_event(o, "first event:", &t->first);
		text_event(o, "last event:", &t->last);
		kt_out_printf(o, "%-13s %" PRIu64 " ns\n", "duration:", t->max_ns - t->min_ns);
	}
	kt_out_printf(o, "%-13s %" PRIu64 " TRACE_LOST_EVENTS markers, %" PRIu64
		      " events earlier than the one before\n", "anomalies:", t->lost_markers,
		      t->retrograde);
	if (i->trailing_bytes)
		kt_out_printf(o, "%-13s %" PRIu64 " bytes after the last whole event\n",
			      "trailing:", i->trailing_bytes);
	if (i->kind != KTRACE_DARWIN_V3)
		return;
	kt_out_printf(o, "chunks:\n  %-10s %-7s %-12s %-12s %s\n", "tag", "version", "offset",
		      "size", "kind");
	for (size_t c = 0; c < ch->n; c++) {
		const struct ktrace_chunk *x = &ch->v[c];
		const char *n = ktrace_file_tag_name(x->tag);
		char ver[16];

		snprintf(ver, sizeof(ver), "%u.%u", x->major, x->minor);
		kt_out_printf(o, "  0x%08x %-7s 0x%-10" PRIx64 " %-12" PRIu64 " %s%s\n", x->tag, ver,
			      x->offset, x->size, n ? n : "unknown",
			      x->in_header ? " (header)" : "");
	}
	if (ch->more)
		kt_out_printf(o, "  ... %" PRIu64 " more chunks\n", ch->more);
	print_text_stackshots(o, k);
}

int kt_info_darwin(struct ktrace_input *in, const struct ktrace_view_darwin_opts *o,
			    struct ktrace_out *out, struct ktrace_error *err)
{
	struct info_chunks ch = { 0 };
	struct info_totals *t;
	struct ktrace_darwin_event ev;
	struct ktrace_darwin *k;
	struct ktrace_error cerr = { 0 };
	int ret, cret = 0;

	ret = ktrace_darwin_open(in, o->kdebug, &k, err);
	if (ret < 0)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t) {
		ktrace_darwin_close(k);
		return kt_error_oom(err);
	}
	/* The chunk list needs a second pass over the file: mapped inputs only. */
	if (ktrace_darwin_file(k) && ktrace_input_is_mapped(in))
		cret = collect_chunks(ktrace_darwin_file(k), &ch, &cerr);
	while ((ret = ktrace_darwin_next(k, &ev, err)) > 0) {
		if (!t->events) {
			t->first = ev;
			t->min_ns = t->max_ns = ev.ns;
		} else if (ev.ns < t->last.ns) {
			t->retrograde++;
		}
		t->min_ns = ev.ns < t->min_ns ? ev.ns : t->min_ns;
		t->max_ns = ev.ns > t->max_ns ? ev.ns : t->max_ns;
		t->last = ev;
		t->events++;
		note_cpu(t, ev.cpu);
		if (KTRACE_DARWIN_EVENTID(ev.debugid) == KTRACE_TRACE_LOST_EVENTS)
			t->lost_markers++;
	}
	if (ret >= 0 && cret < 0) {
		if (err)
			*err = cerr;
		ret = cret;
	}
	if (o->json)
		print_json(out, in, k, &ch, t, ret < 0 ? err : NULL);
	else
		print_text(out, in, k, &ch, t);
	free(ch.v);
	free(t);
	ktrace_darwin_close(k);
	return ret < 0 ? ret : 0;
}
