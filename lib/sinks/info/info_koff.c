// SPDX-License-Identifier: MIT
/* `ktrace info` for a KOFF buffer file or snapshot: the buffer's header, the records
 * (counted, first and last time, distinct processes and threads) and the counters,
 * as text or JSON. Every record is read. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/view.h>

#include "common/check.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "sinks/info/info.h"

#define SET_SLOTS 4096           /* distinct pids/tids counted exactly up to this */

struct id_set {
	uint64_t slot[SET_SLOTS];    /* value + 1; 0 is free */
	size_t n;
	bool full;
};

static void set_add(struct id_set *s, uint64_t v)
{
	size_t h = (size_t)((v * 0x9e3779b97f4a7c15ULL) >> 52) % SET_SLOTS;

	for (size_t i = 0; i < SET_SLOTS; i++, h = (h + 1) % SET_SLOTS) {
		if (s->slot[h] == v + 1)
			return;
		if (!s->slot[h]) {
			if (s->n * 4 >= SET_SLOTS * 3) {
				s->full = true;
				return;
			}
			s->slot[h] = v + 1;
			s->n++;
			return;
		}
	}
}

struct koff_summary {
	uint64_t records, no_format, bad_format;
	uint64_t first_ns, last_ns;
	struct id_set pids, tids;
	struct koff_counts counts;
};

static const char *source_id(enum koff_source s)
{
	switch (s) {
	case KOFF_SRC_FILE: return "buffer";
	case KOFF_SRC_MEMORY: return "image";
	case KOFF_SRC_CORE: return "core";
	case KOFF_SRC_SNAPSHOT: return "snapshot";
	}
	return "?";
}

static void print_text(const struct koff_info *i, const struct koff_summary *s,
		       struct ktrace_input *in, const char *failure, struct ktrace_out *o)
{
	kt_out_printf(o, "%-19s%s", "File:", ktrace_input_name(in));
	if (ktrace_input_size(in) >= 0)
		kt_out_printf(o, " (%" PRId64 " bytes)", ktrace_input_size(in));
	kt_out_printf(o, "\n%-19sKOFF trace %s, format version %u\n", "Format:",
		      i->source == KOFF_SRC_SNAPSHOT ? "snapshot (ktrace dump -o)" : "buffer",
		      i->version);
	kt_out_printf(o, "%-19s%s\n", "Buffer file:", i->path ? i->path : "(not recorded)");
	if (i->allocated)
		kt_out_printf(o, "%-19s%u of 128 bytes; string table %" PRIu64 " of %" PRIu64
			      " bytes used\n", "Entries:", i->nentries, i->strtab_used,
			      i->strtab_size);
	else
		kt_out_printf(o, "%-19sreserved for %u, not allocated\n", "Entries:", i->nentries);
	kt_out_printf(o, "%-19s%s, mask 0x%016" PRIx64 "\n", "Tracing:",
		      i->enabled ? "enabled" : "disabled", i->mask);
	kt_out_printf(o, "%-19s%" PRIu64 " ns since the epoch, by process %u\n", "Created:",
		      i->created_ns, i->creator_pid);
	if (i->source == KOFF_SRC_SNAPSHOT)
		kt_out_printf(o, "%-19s%" PRIu64 " ns since the epoch\n", "Snapshot taken:",
			      i->snapshot_ns);
	kt_out_printf(o, "%-19s%" PRIu64 " (%" PRIu64 " without a known format, %" PRIu64
		      " with an unusable one)\n", "Records:", s->records, s->no_format,
		      s->bad_format);
	if (s->records)
		kt_out_printf(o, "%-19s%" PRIu64 " to %" PRIu64 " ns (%" PRIu64 " ns)\n", "Time:",
			      s->first_ns, s->last_ns,
			      s->last_ns >= s->first_ns ? s->last_ns - s->first_ns : 0);
	kt_out_printf(o, "%-19s%zu%s processes, %zu%s threads\n", "Seen:", s->pids.n,
		      s->pids.full ? "+" : "", s->tids.n, s->tids.full ? "+" : "");
	kt_out_printf(o, "%-19slogged %" PRIu64 " since the last flush = shown %" PRIu64
		      " + overwritten %" PRIu64 " + unfinished %" PRIu64 "; dropped %" PRIu64
		      ", rejected %" PRIu64 ", skipped %" PRIu64 "; %" PRIu64 " flushes\n",
		      "Counters:", s->counts.logged, s->counts.shown, s->counts.overwritten,
		      s->counts.unfinished, s->counts.dropped, i->rejected, s->counts.skipped,
		      i->flushes);
	if (failure)
		kt_out_printf(o, "%-19s%s\n", "Error:", failure);
}

static void print_json(const struct koff_info *i, const struct koff_summary *s,
		       struct ktrace_input *in, const char *failure, struct ktrace_out *o)
{
	struct kt_json j;

	kt_json_init(&j, o, 2);
	kt_json_begin_object(&j, false);
	kt_json_kv_cstr(&j, "file", ktrace_input_name(in));
	kt_json_kv_cstr(&j, "format", i->source == KOFF_SRC_SNAPSHOT ? "koff-snapshot" : "koff-buffer");
	kt_json_key_cstr(&j, "source");
	kt_json_cstr(&j, source_id(i->source));
	kt_json_kv_u64(&j, "version", i->version);
	kt_json_key_cstr(&j, "buffer_file");
	kt_json_cstr(&j, i->path);
	kt_json_key_cstr(&j, "allocated");
	kt_json_bool(&j, i->allocated);
	kt_json_kv_u64(&j, "entries", i->nentries);
	kt_json_key_cstr(&j, "enabled");
	kt_json_bool(&j, i->enabled);
	kt_json_kv_u64(&j, "mask", i->mask);
	kt_json_kv_u64(&j, "created_ns", i->created_ns);
	kt_json_kv_u64(&j, "creator_pid", i->creator_pid);
	kt_json_kv_opt_u64(&j, "snapshot_ns", i->source == KOFF_SRC_SNAPSHOT, i->snapshot_ns);
	kt_json_kv_u64(&j, "strtab_used", i->strtab_used);
	kt_json_kv_u64(&j, "strtab_size", i->strtab_size);
	kt_json_kv_u64(&j, "records", s->records);
	kt_json_kv_u64(&j, "records_without_format", s->no_format);
	kt_json_kv_u64(&j, "records_with_bad_format", s->bad_format);
	kt_json_kv_opt_u64(&j, "first_ns", s->records, s->first_ns);
	kt_json_kv_opt_u64(&j, "last_ns", s->records, s->last_ns);
	kt_json_kv_u64(&j, "processes", s->pids.n);
	kt_json_kv_u64(&j, "threads", s->tids.n);
	kt_json_kv_u64(&j, "logged", s->counts.logged);
	kt_json_kv_u64(&j, "shown", s->counts.shown);
	kt_json_kv_u64(&j, "overwritten", s->counts.overwritten);
	kt_json_kv_u64(&j, "unfinished", s->counts.unfinished);
	kt_json_kv_u64(&j, "skipped", s->counts.skipped);
	kt_json_kv_u64(&j, "dropped", s->counts.dropped);
	kt_json_kv_u64(&j, "rejected", i->rejected);
	kt_json_kv_u64(&j, "flushes", i->flushes);
	kt_json_key_cstr(&j, "error");
	kt_json_cstr(&j, failure);
	kt_json_end_object(&j);
	kt_json_finish(&j);
}

int kt_info_koff(struct ktrace_input *in, bool json, struct ktrace_out *out,
			  struct ktrace_error *err)
{
	struct koff_summary *s;
	struct koff_reader *r;
	struct koff_record rec;
	char msg[KTRACE_ERROR_MESSAGE_MAX + 64];
	const char *failure;
	int ret;

	ret = koff_reader_open(&(struct koff_reader_open_opts){ .sz = sizeof(struct koff_reader_open_opts),
								.input = in }, &r, err);
	if (ret)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s) {
		koff_reader_close(r);
		return kt_error_oom(err);
	}
	while ((ret = koff_reader_next(r, &rec, err)) > 0) {
		if (!s->records)
			s->first_ns = rec.ns;
		s->last_ns = rec.ns;
		s->records++;
		s->no_format += !rec.fmt;
		s->bad_format += rec.fmt && rec.fmt_error;
		set_add(&s->pids, rec.pid);
		set_add(&s->tids, rec.tid);
	}
	koff_reader_counts(r, &s->counts);
	/* what was read is summarised, with the error that stopped the reading */
	failure = ret < 0 ? ktrace_error_format(err, msg, sizeof(msg)) : NULL;
	if (json)
		print_json(koff_reader_info(r), s, in, failure, out);
	else
		print_text(koff_reader_info(r), s, in, failure, out);
	free(s);
	koff_reader_close(r);
	return ret < 0 ? ret : 0;
}
