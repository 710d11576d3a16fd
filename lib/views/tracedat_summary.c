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

#include "common/outbuf.h"

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

static int count_records(struct tracedat *td, struct buf_stats *bs, struct ktrace_error *err)
{
	const struct tracedat_record *r;
	struct tracedat_iter *it;
	int ret = tracedat_iter_new(td, TRACEDAT_ALL_BUFFERS, -1, &it, err);

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
	tracedat_iter_free(it);
	return ret;
}

/* A JSON string (or null). */
static void json_str(struct ktrace_out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (!s) {
		kt_out_puts(o, "null");
		return;
	}
	kt_out_putc(o, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': kt_out_puts(o, "\\\""); break;
		case '\\': kt_out_puts(o, "\\\\"); break;
		case '\n': kt_out_puts(o, "\\n"); break;
		case '\t': kt_out_puts(o, "\\t"); break;
		case '\r': kt_out_puts(o, "\\r"); break;
		default:
			if (*p < 0x20 || *p >= 0x7f) {
				/* bytes outside printable ASCII: escaped, never invalid UTF-8 */
				kt_out_puts(o, "\\u00");
				kt_out_putc(o, hex[*p >> 4]);
				kt_out_putc(o, hex[*p & 15]);
			} else {
				kt_out_putc(o, (char)*p);
			}
		}
	}
	kt_out_putc(o, '"');
}

static void json_key(struct ktrace_out *o, const char *indent, const char *key, bool *first)
{
	if (!*first)
		kt_out_putc(o, ',');
	*first = false;
	kt_out_putc(o, '\n');
	kt_out_puts(o, indent);
	json_str(o, key);
	kt_out_puts(o, ": ");
}

static void json_kv_u(struct ktrace_out *o, const char *indent, const char *key, uint64_t v,
		      bool *first)
{
	json_key(o, indent, key, first);
	kt_out_u64(o, v, 0);
}

static void json_kv_i(struct ktrace_out *o, const char *indent, const char *key, int64_t v,
		      bool *first)
{
	json_key(o, indent, key, first);
	kt_out_i64(o, v, 0);
}

static void json_kv_s(struct ktrace_out *o, const char *indent, const char *key, const char *v,
		      bool *first)
{
	json_key(o, indent, key, first);
	json_str(o, v);
}

static void json_kv_b(struct ktrace_out *o, const char *indent, const char *key, bool v,
		      bool *first)
{
	json_key(o, indent, key, first);
	kt_out_puts(o, v ? "true" : "false");
}

static size_t event_format_total(const struct tracedat *td)
{
	size_t n = 0;

	for (size_t s = 0; s < tracedat_system_count(td); s++)
		n += tracedat_system_event_count(td, s);
	return n;
}

static void print_json(struct tracedat *td, struct buf_stats *bs, struct ktrace_out *o)
{
	const struct tracedat_header *h = tracedat_header(td);
	const char *hp, *he;
	size_t hplen = 0, helen = 0;
	uint64_t total = 0, id;
	long long lost = 0;
	bool first = true;

	tracedat_header_page(td, &hp, &hplen);
	tracedat_header_event(td, &he, &helen);
	for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
		total += bs[b].events;
		if (lost >= 0)
			lost = bs[b].lost < 0 ? -1 : lost + bs[b].lost;
	}
	kt_out_putc(o, '{');
	json_kv_s(o, "  ", "format", "trace.dat", &first);
	json_kv_u(o, "  ", "version", h->version, &first);
	json_kv_s(o, "  ", "endian", h->big_endian ? "big" : "little", &first);
	json_kv_u(o, "  ", "long_size", h->long_size, &first);
	json_kv_u(o, "  ", "kernel_long_size", h->kernel_long_size, &first);
	json_kv_u(o, "  ", "page_size", h->page_size, &first);
	json_kv_s(o, "  ", "compression", h->compression, &first);
	json_kv_s(o, "  ", "compression_version", h->compression_version, &first);
	json_kv_u(o, "  ", "cpus", h->cpus, &first);
	json_kv_s(o, "  ", "clock", tracedat_clock(td), &first);
	json_kv_s(o, "  ", "uname", tracedat_uname(td), &first);
	json_kv_s(o, "  ", "tracer_version", tracedat_tracer_version(td), &first);
	json_key(o, "  ", "trace_id", &first);
	if (tracedat_trace_id(td, &id))
		kt_out_u64(o, id, 0);
	else
		kt_out_puts(o, "null");
	json_kv_i(o, "  ", "ts_offset", tracedat_ts_offset(td), &first);
	json_kv_u(o, "  ", "file_size", h->file_size, &first);
	json_kv_u(o, "  ", "options", h->options, &first);
	json_kv_u(o, "  ", "sections", h->sections, &first);
	json_kv_u(o, "  ", "header_page_size", hplen, &first);
	json_kv_u(o, "  ", "header_event_size", helen, &first);
	json_kv_u(o, "  ", "ftrace_formats", tracedat_ftrace_format_count(td), &first);
	json_kv_u(o, "  ", "event_systems", tracedat_system_count(td), &first);
	json_kv_u(o, "  ", "event_formats", event_format_total(td), &first);
	json_kv_i(o, "  ", "kallsyms_size", tracedat_kallsyms_size(td), &first);
	json_kv_i(o, "  ", "printk_size", tracedat_printk_size(td), &first);
	json_kv_i(o, "  ", "cmdlines_size", tracedat_cmdlines_size(td), &first);
	json_kv_u(o, "  ", "events", total, &first);
	json_kv_i(o, "  ", "lost", lost, &first);
	json_key(o, "  ", "buffers", &first);
	kt_out_putc(o, '[');
	for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
		const struct tracedat_buffer *buf = tracedat_buffer(td, b);
		bool bf = true;

		kt_out_puts(o, b ? ",\n    {" : "\n    {");
		json_kv_s(o, "      ", "name", buf->name, &bf);
		json_kv_s(o, "      ", "clock", buf->clock, &bf);
		json_kv_u(o, "      ", "page_size", buf->page_size, &bf);
		json_kv_b(o, "      ", "latency", buf->latency, &bf);
		json_kv_b(o, "      ", "compressed", buf->compressed, &bf);
		json_kv_u(o, "      ", "flyrecord_bytes", bs[b].recorded_bytes, &bf);
		json_kv_u(o, "      ", "data_bytes", bs[b].data_bytes, &bf);
		json_kv_u(o, "      ", "events", bs[b].events, &bf);
		json_kv_i(o, "      ", "lost", bs[b].lost, &bf);
		json_key(o, "      ", "cpus", &bf);
		kt_out_putc(o, '[');
		for (unsigned int c = 0; c < buf->cpus; c++) {
			const struct tracedat_cpu *cpu = tracedat_buffer_cpu(td, b, c);
			const struct cpu_stats *cs = &bs[b].cpus[c];
			bool cf = true;

			kt_out_puts(o, c ? ",\n        {" : "\n        {");
			json_kv_u(o, "          ", "cpu", cpu->cpu, &cf);
			json_kv_u(o, "          ", "events", cs->events, &cf);
			json_key(o, "          ", "first_ts", &cf);
			if (cs->events)
				kt_out_u64(o, cs->first_ts, 0);
			else
				kt_out_puts(o, "null");
			json_key(o, "          ", "last_ts", &cf);
			if (cs->events)
				kt_out_u64(o, cs->last_ts, 0);
			else
				kt_out_puts(o, "null");
			json_kv_i(o, "          ", "lost", cs->lost, &cf);
			json_kv_u(o, "          ", "dropped_markers", cs->markers, &cf);
			json_kv_u(o, "          ", "offset", cpu->offset, &cf);
			json_kv_u(o, "          ", "size", cpu->size, &cf);
			json_kv_u(o, "          ", "data_size", cpu->data_size, &cf);
			json_kv_u(o, "          ", "chunks", cpu->chunks, &cf);
			kt_out_puts(o, "\n        }");
		}
		kt_out_puts(o, buf->cpus ? "\n      ]" : "]");
		kt_out_puts(o, "\n    }");
	}
	kt_out_puts(o, tracedat_buffer_count(td) ? "\n  ]" : "]");
	json_key(o, "  ", "warnings", &first);
	kt_out_putc(o, '[');
	for (size_t i = 0; i < tracedat_warning_count(td); i++) {
		kt_out_puts(o, i ? ", " : "");
		json_str(o, tracedat_warning(td, i));
	}
	kt_out_puts(o, "]\n}\n");
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

static void print_header_text(struct tracedat *td, struct ktrace_out *o)
{
	const struct tracedat_header *h = tracedat_header(td);
	size_t hplen = 0, helen = 0, nopt = tracedat_option_count(td);
	unsigned int counts[64] = { 0 };
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
	kt_out_printf(o, "Options:           %u", h->options);
	for (size_t i = 0; i < nopt; i++) {
		unsigned int oid = tracedat_option(td, i)->id;

		counts[oid < 63 ? oid : 63]++;
	}
	for (unsigned int i = 0; i < 64; i++) {
		const char *name = tracedat_option_name(i);

		if (!counts[i])
			continue;
		kt_out_printf(o, "%s %s", i ? "," : " (", name ? name : "unknown");
		if (counts[i] > 1)
			kt_out_printf(o, " x%u", counts[i]);
	}
	kt_out_puts(o, nopt ? ")\n" : "\n");
	if (h->version >= 7)
		kt_out_printf(o, "Sections:          %u\n", h->sections);
	for (size_t i = 0; i < tracedat_warning_count(td); i++)
		kt_out_printf(o, "Warning:           %s\n", tracedat_warning(td, i));
}

static void print_buffers_text(struct tracedat *td, struct buf_stats *bs, struct ktrace_out *o)
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
}

int ktrace_view_tracedat_info(struct ktrace_input *in, unsigned int flags, bool json,
			      struct ktrace_out *out, struct ktrace_error *err)
{
	struct buf_stats *bs = NULL;
	struct tracedat *td;
	size_t nbufs;
	int ret;

	ret = tracedat_open_input(in, flags, &td, err);
	if (ret)
		return ret;
	nbufs = tracedat_buffer_count(td);
	bs = calloc(nbufs ? nbufs : 1, sizeof(*bs));
	if (!bs) {
		ret = ktrace_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t b = 0; b < nbufs; b++) {
		const struct tracedat_buffer *buf = tracedat_buffer(td, b);

		bs[b].cpus = calloc(buf->cpus ? buf->cpus : 1, sizeof(*bs[b].cpus));
		if (!bs[b].cpus) {
			ret = ktrace_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		for (unsigned int c = 0; c < buf->cpus; c++) {
			const struct tracedat_cpu *cpu = tracedat_buffer_cpu(td, b, c);

			bs[b].data_bytes += cpu->data_size;
			bs[b].recorded_bytes += cpu->size;
		}
	}
	if (!json)
		print_header_text(td, out);
	ret = count_records(td, bs, err);
	if (ret)
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
		print_json(td, bs, out);
	else
		print_buffers_text(td, bs, out);
out:
	if (bs)
		for (size_t b = 0; b < nbufs; b++)
			free(bs[b].cpus);
	free(bs);
	tracedat_close(td);
	return ret;
}
