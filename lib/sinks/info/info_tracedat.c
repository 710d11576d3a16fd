// SPDX-License-Identifier: MIT
/*
 * `ktrace info` for trace.dat files: what the file says about the traced machine and
 * the recording (header, metadata sizes, options, buffers), and per buffer and CPU the
 * number of events, the first and last timestamps and the events lost, found by
 * visiting every record.
 */
#include <ktrace/tracedat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/view.h>

#include "common/check.h"
#include "common/damage.h"
#include "common/grow.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "sinks/info/info.h"

struct cpu_stats {
	uint64_t events;
	uint64_t first_ts, last_ts;
	long long lost;         /* sum of known counts; -1 once an unknown count is seen */
	uint64_t markers;       /* dropped-events markers */
};

struct buf_stats {
	struct cpu_stats *cpus;
	uint64_t events;
	long long lost;
	uint64_t data_bytes, recorded_bytes;
};

static void add_lost(long long *acc, long long lost)
{
	if (*acc < 0)
		return;
	*acc = lost < 0 ? -1 : *acc + lost;
}

/* The damaged places of the file: found at open, then met reading the records. */
struct damage {
	struct ktrace_error *v;
	size_t n;
};

static void add_damage(struct damage *d, const struct ktrace_error *e)
{
	struct ktrace_error *v = kt_realloc_array(d->v, d->n + 1, sizeof(*v));

	if (v) {
		d->v = v;
		v[d->n++] = *e;
	}
}

/* Visits every record. *ended: the records all went out (the error returned, if any,
 * is then the damage's, whose places are in *d). */
static int count_records(struct tracedat *td, struct buf_stats *bs, struct damage *d, bool *ended,
			 struct ktrace_error *err)
{
	const struct tracedat_record *r;
	struct tracedat_iter *it;
	int ret = tracedat_iter_new(td, TRACEDAT_ALL_BUFFERS, -1, &it, err);

	*ended = false;
	if (ret)
		return ret;
	while ((ret = tracedat_iter_next(it, &r, err)) > 0) {
		struct cpu_stats *c = &bs[r->buffer].cpus[r->cpu_index];

		if (!c->events++)
			c->first_ts = r->ts;
		c->last_ts = r->ts;
		if (r->missed_events) {
			c->markers++;
			add_lost(&c->lost, r->missed_events);
		}
	}
	*ended = tracedat_iter_ended(it);
	for (size_t i = 0; i < tracedat_damage_count(td); i++)
		add_damage(d, tracedat_damage(td, i));
	for (size_t i = 0; i < tracedat_iter_damage_count(it); i++)
		add_damage(d, tracedat_iter_damage(it, i));
	tracedat_iter_free(it);
	return ret;
}

/* trace-cmd 3.4's kernel files: loaded, so that a damaged one is found here as
 * everything else is (its error is returned once the rest is shown), modules counted. */
struct kfiles {
	int64_t btf_size, modules_size;
	bool have_modules;
	size_t modules;           /* lines of /proc/modules: modules loaded */
};

static int load_kfiles(struct tracedat *td, struct kfiles *k, struct ktrace_error *err)
{
	const void *data;
	const char *text;
	size_t len;
	int ret = 0;

	k->btf_size = tracedat_btf_size(td);
	k->modules_size = tracedat_modules_size(td);
	k->modules = 0;
	k->have_modules = false;
	if (k->modules_size >= 0 && (ret = tracedat_modules(td, &text, &len, err)) == 0) {
		k->have_modules = true;
		for (size_t i = 0; i < len; i++)
			if (text[i] == '\n' || i + 1 == len)
				k->modules++;
	}
	if (!ret && k->btf_size >= 0)
		ret = tracedat_btf(td, &data, &len, err);
	return ret < 0 ? ret : 0;
}

/* A LAST_BOOT_INFO option: "instance:text" (NUL-terminated). */
static void split_last_boot(const struct tracedat_option *o, const char **inst, size_t *ilen,
			    const char **text, size_t *tlen)
{
	const char *d = (const char *)o->data;
	size_t n = o->size;
	const char *nul = memchr(d, 0, n), *colon;

	if (nul)
		n = (size_t)(nul - d);
	colon = memchr(d, ':', n);
	*inst = d;
	*ilen = colon ? (size_t)(colon - d) : 0;
	*text = colon ? colon + 1 : d;
	*tlen = n - (size_t)(*text - d);
}

static size_t event_format_total(const struct tracedat *td)
{
	size_t n = 0;

	for (size_t s = 0; s < tracedat_system_count(td); s++)
		n += tracedat_system_event_count(td, s);
	return n;
}

static void print_json(struct tracedat *td, struct buf_stats *bs, const struct kfiles *k,
		       const struct damage *d,
		       struct ktrace_out *o)
{
	const struct tracedat_header *h = tracedat_header(td);
	const char *hp, *he;
	size_t hplen = 0, helen = 0;
	uint64_t total = 0, id = 0;
	long long lost = 0;
	struct kt_json j;
	bool have_id;

	tracedat_header_page(td, &hp, &hplen);
	tracedat_header_event(td, &he, &helen);
	for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
		total += bs[b].events;
		if (lost >= 0)
			lost = bs[b].lost < 0 ? -1 : lost + bs[b].lost;
	}
	kt_json_init(&j, o, 2);
	kt_json_begin_object(&j, false);
	kt_json_kv_cstr(&j, "format", "trace.dat");
	kt_json_kv_u64(&j, "version", h->version);
	kt_json_kv_cstr(&j, "endian", h->big_endian ? "big" : "little");
	kt_json_kv_u64(&j, "long_size", h->long_size);
	kt_json_kv_u64(&j, "kernel_long_size", h->kernel_long_size);
	kt_json_kv_u64(&j, "page_size", h->page_size);
	kt_json_kv_cstr(&j, "compression", h->compression);
	kt_json_kv_cstr(&j, "compression_version", h->compression_version);
	kt_json_kv_u64(&j, "cpus", h->cpus);
	kt_json_kv_cstr(&j, "clock", tracedat_clock(td));
	kt_json_kv_cstr(&j, "uname", tracedat_uname(td));
	kt_json_kv_cstr(&j, "tracer_version", tracedat_tracer_version(td));
	have_id = tracedat_trace_id(td, &id);
	kt_json_kv_opt_u64(&j, "trace_id", have_id, id);
	kt_json_kv_i64(&j, "ts_offset", tracedat_ts_offset(td));
	kt_json_kv_u64(&j, "file_size", h->file_size);
	kt_json_kv_u64(&j, "options", h->options);
	kt_json_kv_u64(&j, "sections", h->sections);
	kt_json_kv_u64(&j, "header_page_size", hplen);
	kt_json_kv_u64(&j, "header_event_size", helen);
	kt_json_kv_u64(&j, "ftrace_formats", tracedat_ftrace_format_count(td));
	kt_json_kv_u64(&j, "event_systems", tracedat_system_count(td));
	kt_json_kv_u64(&j, "event_formats", event_format_total(td));
	kt_json_kv_i64(&j, "kallsyms_size", tracedat_kallsyms_size(td));
	kt_json_kv_i64(&j, "printk_size", tracedat_printk_size(td));
	kt_json_kv_i64(&j, "cmdlines_size", tracedat_cmdlines_size(td));
	kt_json_kv_i64(&j, "btf_size", k->btf_size);
	kt_json_kv_i64(&j, "modules_size", k->modules_size);
	kt_json_kv_opt_u64(&j, "modules", k->have_modules, k->modules);
	kt_json_key_cstr(&j, "last_boot_info");
	kt_json_begin_array(&j, false);
	for (size_t i = 0; i < tracedat_option_count(td); i++) {
		const struct tracedat_option *op = tracedat_option(td, i);
		const char *inst, *text;
		size_t ilen, tlen;

		if (op->id != TRACEDAT_OPT_LAST_BOOT_INFO)
			continue;
		split_last_boot(op, &inst, &ilen, &text, &tlen);
		kt_json_begin_object(&j, true);
		kt_json_key_cstr(&j, "instance");
		kt_json_string(&j, inst, ilen);
		kt_json_key_cstr(&j, "text");
		kt_json_string(&j, text, tlen);
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "option_list");
	kt_json_begin_array(&j, false);
	for (size_t i = 0; i < tracedat_option_count(td); i++) {
		const struct tracedat_option *op = tracedat_option(td, i);
		const char *name = tracedat_option_name(op->id);

		kt_json_begin_object(&j, true);
		kt_json_kv_u64(&j, "id", op->id);
		kt_json_key_cstr(&j, "name");
		if (name)
			kt_json_cstr(&j, name);
		else
			kt_json_null(&j);
		kt_json_kv_u64(&j, "size", op->size);
		kt_json_kv_u64(&j, "offset", op->offset);
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	kt_json_kv_u64(&j, "events", total);
	kt_json_kv_i64(&j, "lost", lost);
	kt_json_key_cstr(&j, "buffers");
	kt_json_begin_array(&j, false);
	for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
		const struct tracedat_buffer *buf = tracedat_buffer(td, b);

		kt_json_begin_object(&j, false);
		kt_json_kv_cstr(&j, "name", buf->name);
		kt_json_kv_cstr(&j, "clock", buf->clock);
		kt_json_kv_u64(&j, "page_size", buf->page_size);
		kt_json_kv_bool(&j, "latency", buf->latency);
		kt_json_kv_bool(&j, "compressed", buf->compressed);
		kt_json_kv_u64(&j, "flyrecord_bytes", bs[b].recorded_bytes);
		kt_json_kv_u64(&j, "data_bytes", bs[b].data_bytes);
		kt_json_kv_u64(&j, "events", bs[b].events);
		kt_json_kv_i64(&j, "lost", bs[b].lost);
		kt_json_key_cstr(&j, "cpus");
		kt_json_begin_array(&j, false);
		for (unsigned int c = 0; c < buf->cpus; c++) {
			const struct tracedat_cpu *cpu = tracedat_buffer_cpu(td, b, c);
			const struct cpu_stats *cs = &bs[b].cpus[c];

			kt_json_begin_object(&j, false);
			kt_json_kv_u64(&j, "cpu", cpu->cpu);
			kt_json_kv_u64(&j, "events", cs->events);
			kt_json_kv_opt_u64(&j, "first_ts", cs->events, cs->first_ts);
			kt_json_kv_opt_u64(&j, "last_ts", cs->events, cs->last_ts);
			kt_json_kv_i64(&j, "lost", cs->lost);
			kt_json_kv_u64(&j, "dropped_markers", cs->markers);
			kt_json_kv_u64(&j, "offset", cpu->offset);
			kt_json_kv_u64(&j, "size", cpu->size);
			kt_json_kv_u64(&j, "data_size", cpu->data_size);
			kt_json_kv_u64(&j, "chunks", cpu->chunks);
			kt_json_end_object(&j);
		}
		kt_json_end_array(&j);
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "warnings");
	kt_json_begin_array(&j, true);
	for (size_t i = 0; i < tracedat_warning_count(td); i++)
		kt_json_cstr(&j, tracedat_warning(td, i));
	kt_json_end_array(&j);
	/* what could not be read, each place as stderr says it */
	kt_json_key_cstr(&j, "damage");
	kt_json_begin_array(&j, !d->n);
	for (size_t i = 0; i < d->n; i++) {
		kt_json_begin_object(&j, true);
		kt_json_kv_u64(&j, "offset", d->v[i].offset);
		kt_json_kv_cstr(&j, "message", d->v[i].message);
		kt_json_end_object(&j);
	}
	kt_json_end_array(&j);
	kt_json_end_object(&j);
	kt_json_finish(&j);
}

static void print_lost(struct ktrace_out *o, long long lost, int width)
{
	if (lost < 0) {
		kt_out_spaces(o, width - 4);
		kt_out_puts(o, "some");
	} else {
		kt_out_i64(o, lost, width);
	}
}

static void print_size(struct ktrace_out *o, const char *what, int64_t size)
{
	if (size < 0)
		kt_out_printf(o, "%s none", what);
	else
		kt_out_printf(o, "%s %" PRId64 " bytes", what, size);
}

/* Text from the file on one line: printable ASCII, a tab as a space, others as '?'. */
static void put_line(struct ktrace_out *o, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		kt_out_putc(o, ch == '\t' ? ' ' : ch >= 0x20 && ch < 0x7f ? (char)ch : '?');
	}
}

/* Named options first, alphabetically, then unknown ids in increasing order. */
static int cmp_option_id(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	const char *nx = tracedat_option_name(x), *ny = tracedat_option_name(y);

	if (nx && ny)
		return strcmp(nx, ny);
	if (nx || ny)
		return nx ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Every option id once, by name ("unknown N" for the ids nobody named), "xN" when
 * repeated. */
static void print_option_names(struct tracedat *td, struct ktrace_out *o)
{
	size_t nopt = tracedat_option_count(td), nids = 0;
	unsigned int *ids = malloc((nopt ? nopt : 1) * sizeof(*ids));

	if (!ids) {
		kt_out_putc(o, '\n');
		return;
	}
	for (size_t i = 0; i < nopt; i++) {
		unsigned int id = tracedat_option(td, i)->id;
		bool seen = false;

		for (size_t k = 0; k < nids && !seen; k++)
			seen = ids[k] == id;
		if (!seen)
			ids[nids++] = id;
	}
	qsort(ids, nids, sizeof(*ids), cmp_option_id);
	for (size_t i = 0; i < nids; i++) {
		const char *name = tracedat_option_name(ids[i]);
		unsigned int n = 0;

		for (size_t k = 0; k < nopt; k++)
			n += tracedat_option(td, k)->id == ids[i];
		kt_out_puts(o, i ? ", " : " (");
		if (name)
			kt_out_puts(o, name);
		else
			kt_out_printf(o, "unknown %u", ids[i]);
		if (n > 1)
			kt_out_printf(o, " x%u", n);
	}
	kt_out_puts(o, nids ? ")\n" : "\n");
	free(ids);
}

static void print_kfiles(struct tracedat *td, const struct kfiles *k, struct ktrace_out *o)
{
	if (k->btf_size >= 0 || k->modules_size >= 0) {
		kt_out_puts(o, "Kernel files:      ");
		print_size(o, "BTF", k->btf_size);
		print_size(o, ", modules", k->modules_size);
		if (k->have_modules)
			kt_out_printf(o, " (%zu loaded)", k->modules);
		kt_out_putc(o, '\n');
	}
	for (size_t i = 0; i < tracedat_option_count(td); i++) {
		const struct tracedat_option *op = tracedat_option(td, i);
		const char *inst, *text, *nl;
		size_t ilen, tlen, lines = 0;

		if (op->id != TRACEDAT_OPT_LAST_BOOT_INFO)
			continue;
		split_last_boot(op, &inst, &ilen, &text, &tlen);
		for (size_t c = 0; c < tlen; c++)
			if (text[c] == '\n' || c + 1 == tlen)
				lines++;
		kt_out_puts(o, "Last boot info:    instance \"");
		put_line(o, inst, ilen);
		kt_out_printf(o, "\", %zu bytes, %zu line%s", tlen, lines, lines == 1 ? "" : "s");
		nl = memchr(text, '\n', tlen);
		if (tlen) {
			kt_out_puts(o, ": ");
			put_line(o, text, nl ? (size_t)(nl - text) : tlen);
			if (lines > 1)
				kt_out_puts(o, " ...");
		}
		kt_out_putc(o, '\n');
	}
}

static void print_header_text(struct tracedat *td, const struct kfiles *k, struct ktrace_out *o)
{
	const struct tracedat_header *h = tracedat_header(td);
	size_t hplen = 0, helen = 0;
	const char *t;
	uint64_t id;
	uint32_t mult, shift;
	uint64_t toff;

	tracedat_header_page(td, &t, &hplen);
	tracedat_header_event(td, &t, &helen);
	kt_out_printf(o, "File:              %s (%" PRIu64 " bytes)\n", tracedat_name(td),
		      h->file_size);
	kt_out_printf(o, "Format:            trace-cmd trace.dat, version %u\n", h->version);
	kt_out_printf(o, "Byte order:        %s endian\n", h->big_endian ? "big" : "little");
	kt_out_printf(o, "Long size:         %u bytes (user space), %u bytes (kernel)%s\n",
		      h->long_size, h->kernel_long_size, h->old_format ? ", old ring-buffer format" : "");
	kt_out_printf(o, "Page size:         %u bytes\n", h->page_size);
	if (h->version >= 7)
		kt_out_printf(o, "Compression:       %s%s%s\n", h->compression,
			      h->compression_version[0] ? " " : "", h->compression_version);
	kt_out_printf(o, "CPUs:              %u\n", h->cpus);
	kt_out_printf(o, "Clock:             %s\n", tracedat_clock(td) ? tracedat_clock(td) : "(not saved)");
	if (tracedat_uname(td))
		kt_out_printf(o, "Uname:             %s\n", tracedat_uname(td));
	if (tracedat_tracer_version(td))
		kt_out_printf(o, "Recorded by:       trace-cmd %s\n", tracedat_tracer_version(td));
	if (tracedat_trace_id(td, &id))
		kt_out_printf(o, "Trace id:          0x%" PRIx64 "\n", id);
	if (tracedat_tsc2nsec(td, &mult, &shift, &toff))
		kt_out_printf(o, "TSC to ns:         mult %u, shift %u, offset %" PRIu64 "\n", mult,
			      shift, toff);
	if (tracedat_ts_offset(td))
		kt_out_printf(o, "Timestamp offset:  %" PRId64 " ns (DATE/OFFSET options)\n",
			      tracedat_ts_offset(td));
	kt_out_printf(o, "Header texts:      header_page %zu bytes, header_event %zu bytes\n",
		      hplen, helen);
	kt_out_printf(o, "Event formats:     %zu ftrace, %zu in %zu systems\n",
		      tracedat_ftrace_format_count(td), event_format_total(td),
		      tracedat_system_count(td));
	kt_out_puts(o, "Metadata:          ");
	print_size(o, "kallsyms", tracedat_kallsyms_size(td));
	print_size(o, ", printk formats", tracedat_printk_size(td));
	print_size(o, ", saved cmdlines", tracedat_cmdlines_size(td));
	kt_out_putc(o, '\n');
	print_kfiles(td, k, o);
	kt_out_printf(o, "Options:           %u", h->options);
	print_option_names(td, o);
	if (h->version >= 7)
		kt_out_printf(o, "Sections:          %u\n", h->sections);
	for (size_t i = 0; i < tracedat_warning_count(td); i++)
		kt_out_printf(o, "Warning:           %s\n", tracedat_warning(td, i));
}

static void print_buffers_text(struct tracedat *td, struct buf_stats *bs, const struct damage *d,
			       struct ktrace_out *o)
{
	for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
		const struct tracedat_buffer *buf = tracedat_buffer(td, b);

		kt_out_printf(o, "\nBuffer %s%s%s: ", buf->name[0] ? "\"" : "",
			      buf->name[0] ? buf->name : "(top)", buf->name[0] ? "\"" : "");
		if (buf->latency) {
			kt_out_printf(o, "latency trace (text)%s\n",
				      buf->compressed ? ", compressed" : "");
			continue;
		}
		kt_out_printf(o, "clock %s, page size %u, %u CPUs, %" PRIu64 " bytes of data",
			      buf->clock[0] ? buf->clock : "?", buf->page_size, buf->cpus,
			      bs[b].data_bytes);
		if (buf->compressed)
			kt_out_printf(o, " (%" PRIu64 " compressed)", bs[b].recorded_bytes);
		kt_out_printf(o, "\n  %" PRIu64 " events, lost: ", bs[b].events);
		print_lost(o, bs[b].lost, 0);
		kt_out_puts(o, "\n     CPU       events         first timestamp          last timestamp        lost\n");
		for (unsigned int c = 0; c < buf->cpus; c++) {
			const struct tracedat_cpu *cpu = tracedat_buffer_cpu(td, b, c);
			const struct cpu_stats *cs = &bs[b].cpus[c];

			kt_out_u64(o, cpu->cpu, 8);
			kt_out_u64(o, cs->events, 13);
			if (cs->events) {
				char buf1[40];

				snprintf(buf1, sizeof(buf1), "%" PRIu64 ".%09" PRIu64,
					 cs->first_ts / 1000000000u, cs->first_ts % 1000000000u);
				kt_out_spaces(o, 24 - (int)strlen(buf1));
				kt_out_puts(o, buf1);
				snprintf(buf1, sizeof(buf1), "%" PRIu64 ".%09" PRIu64,
					 cs->last_ts / 1000000000u, cs->last_ts % 1000000000u);
				kt_out_spaces(o, 24 - (int)strlen(buf1));
				kt_out_puts(o, buf1);
			} else {
				kt_out_spaces(o, 48 - 1);
				kt_out_putc(o, '-');
			}
			print_lost(o, cs->lost, 12);
			kt_out_putc(o, '\n');
		}
	}
	if (d->n)
		kt_out_putc(o, '\n');
	for (size_t i = 0; i < d->n; i++) {
		char msg[KTRACE_ERROR_MESSAGE_MAX + 64];

		kt_out_printf(o, "Damaged:           %s\n", ktrace_error_format(&d->v[i], msg, sizeof(msg)));
	}
}

int kt_info_tracedat(struct ktrace_input *in, unsigned int flags, bool json,
			      struct ktrace_out *out, struct ktrace_error *err)
{
	struct buf_stats *bs = NULL;
	struct ktrace_error kerr = { 0 };
	struct damage d = { 0 };
	struct kfiles kf;
	struct tracedat *td;
	size_t nbufs;
	bool ended;
	int ret, kret;

	ret = tracedat_open_input(in, flags, &td, err);
	if (ret)
		return ret;
	nbufs = tracedat_buffer_count(td);
	bs = calloc(nbufs ? nbufs : 1, sizeof(*bs));
	if (!bs) {
		ret = kt_error_oom(err);
		goto out;
	}
	for (size_t b = 0; b < nbufs; b++) {
		const struct tracedat_buffer *buf = tracedat_buffer(td, b);

		bs[b].cpus = calloc(buf->cpus ? buf->cpus : 1, sizeof(*bs[b].cpus));
		if (!bs[b].cpus) {
			ret = kt_error_oom(err);
			goto out;
		}
		for (unsigned int c = 0; c < buf->cpus; c++) {
			const struct tracedat_cpu *cpu = tracedat_buffer_cpu(td, b, c);

			bs[b].data_bytes += cpu->data_size;
			/* a recorded size the chunks disagree with is damage (told): the bytes
			 * they take, not a size beyond the file */
			bs[b].recorded_bytes += buf->compressed && cpu->size != cpu->stored_size &&
						cpu->size + 4 != cpu->stored_size
						? cpu->stored_size : cpu->size;
		}
	}
	/* a damaged BTF or modules file: said once the rest is shown */
	kret = load_kfiles(td, &kf, &kerr);
	if (!json)
		print_header_text(td, &kf, out);
	ret = count_records(td, bs, &d, &ended, err);
	/* damaged data: the summary of what could be read, then the error */
	if (ret && !ended)
		goto out;
	for (size_t b = 0; b < nbufs; b++) {
		const struct tracedat_buffer *buf = tracedat_buffer(td, b);

		for (unsigned int c = 0; c < buf->cpus; c++) {
			bs[b].events += bs[b].cpus[c].events;
			if (bs[b].lost >= 0)
				bs[b].lost = bs[b].cpus[c].lost < 0 ? -1 : bs[b].lost + bs[b].cpus[c].lost;
		}
	}
	if (json)
		print_json(td, bs, &kf, &d, out);
	else
		print_buffers_text(td, bs, &d, out);
	if (kret && !ret) {
		if (err)
			*err = kerr;
		ret = kret;
	} else if (kret) {
		kt_damage(tracedat_name(td), &kerr);   /* told beside the data's damage */
	}
out:
	free(d.v);
	if (bs)
		for (size_t b = 0; b < nbufs; b++)
			free(bs[b].cpus);
	free(bs);
	tracedat_close(td);
	return ret;
}
