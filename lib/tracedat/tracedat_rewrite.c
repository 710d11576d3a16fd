// SPDX-License-Identifier: MIT
/*
 * trace.dat conversion: everything a reader holds, handed to a writer. Ring-buffer
 * pages are copied as they are (never decoded), so every record, lost-events mark and
 * padding stays where the kernel put it.
 */
#include <ktrace/tracedat.h>

#include "common/check.h"
#include "tracedat/tracedat_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tracedat/tracedat_int.h"

/* The page size every record buffer shares, or 0. */
static unsigned int common_page_size(const struct tracedat *td)
{
	unsigned int ps = 0;

	for (size_t i = 0; i < tracedat_buffer_count(td); i++) {
		const struct tracedat_buffer *b = tracedat_buffer(td, i);

		if (b->latency)
			continue;
		if (ps && b->page_size != ps)
			return 0;
		ps = b->page_size;
	}
	return ps;
}

void tracedat_write_opts_from(const struct tracedat *td, struct tracedat_write_opts *opts)
{
	const struct tracedat_header *h = tracedat_header(td);
	unsigned int ps = common_page_size(td);

	opts->big_endian = h->big_endian;
	opts->long_size = h->long_size;
	opts->page_size = ps ? ps : h->page_size;
}

struct sink {
	struct tracedat_writer *w;
	unsigned int buffer;
	struct ktrace_error *err;
};

static int cpu_sink(const void *data, size_t len, void *arg)
{
	struct sink *s = arg;

	return tracedat_writer_cpu_write(s->w, data, len, s->err);
}

static int latency_sink(const char *text, size_t len, void *arg)
{
	struct sink *s = arg;

	return tracedat_writer_latency_write(s->w, s->buffer, text, len, s->err);
}


static int copy_metadata(struct tracedat *td, struct tracedat_writer *w, const char *more_cmdlines,
			 size_t more_len, struct ktrace_error *err)
{
	const char *t, *t2;
	size_t len, len2;
	int ret;

	if (tracedat_header_page(td, &t, &len) == 0 && tracedat_header_event(td, &t2, &len2) == 0 &&
	    (ret = tracedat_writer_headers(w, t, len, t2, len2, err)))
		return ret;
	for (size_t i = 0; i < tracedat_ftrace_format_count(td); i++) {
		if (tracedat_ftrace_format(td, i, &t, &len) == 0 &&
		    (ret = tracedat_writer_add_ftrace_format(w, t, len, err)))
			return ret;
	}
	for (size_t s = 0; s < tracedat_system_count(td); s++) {
		const char *sys = tracedat_system_name(td, s);

		for (size_t i = 0; i < tracedat_system_event_count(td, s); i++) {
			if (tracedat_event_format(td, s, i, &t, &len) == 0 &&
			    (ret = tracedat_writer_add_event_format(w, sys, t, len, err)))
				return ret;
		}
	}
	if (tracedat_kallsyms_size(td) >= 0) {
		if ((ret = tracedat_kallsyms(td, &t, &len, err)) ||
		    (ret = tracedat_writer_kallsyms(w, t, len, err)))
			return ret;
	}
	if (tracedat_printk_size(td) >= 0) {
		if ((ret = tracedat_printk_formats(td, &t, &len, err)) ||
		    (ret = tracedat_writer_printk(w, t, len, err)))
			return ret;
	}
	if (more_len) {
		char *all;

		t = "";
		len = 0;
		if (tracedat_cmdlines_size(td) >= 0 && (ret = tracedat_cmdlines(td, &t, &len, err)))
			return ret;
		all = malloc(len + more_len);
		if (!all)
			return kt_error_oom(err);
		memcpy(all, t, len);
		memcpy(all + len, more_cmdlines, more_len);
		ret = tracedat_writer_cmdlines(w, all, len + more_len, err);
		free(all);
		return ret;
	}
	if (tracedat_cmdlines_size(td) >= 0) {
		if ((ret = tracedat_cmdlines(td, &t, &len, err)) ||
		    (ret = tracedat_writer_cmdlines(w, t, len, err)))
			return ret;
	}
	return 0;
}

/* trace-cmd 3.4's BTF and modules files: sections or ktrace's own options, whichever
 * the output's version and compression hold (tracedat_writer_btf). */
static int copy_files(struct tracedat *td, struct tracedat_writer *w, struct ktrace_error *err)
{
	const void *data;
	const char *text;
	size_t len;
	int ret;

	if (tracedat_btf_size(td) >= 0 &&
	    ((ret = tracedat_btf(td, &data, &len, err)) ||
	     (ret = tracedat_writer_btf(w, data, len, err))))
		return ret;
	if (tracedat_modules_size(td) >= 0 &&
	    ((ret = tracedat_modules(td, &text, &len, err)) ||
	     (ret = tracedat_writer_modules(w, text, len, err))))
		return ret;
	return 0;
}

static int copy_options(struct tracedat *td, struct tracedat_writer *w, unsigned int version,
			struct ktrace_error *err)
{
	for (size_t i = 0; i < tracedat_option_count(td); i++) {
		const struct tracedat_option *o = tracedat_option(td, i);
		int ret;

		if (td_layout_option(o->id))
			continue;
		if (o->id == TRACEDAT_OPT_TRACECLOCK && !o->size && tracedat_clock_text(td)) {
			/* A version 6 file may keep the clock text after its CPU table and
			 * leave this option empty; version 7 has no such place, and trace-cmd
			 * parses an empty option past its end (now and then reading another
			 * clock name there): the text goes into the option. */
			const char *text = tracedat_clock_text(td);

			ret = tracedat_writer_add_option(w, o->id, text, (uint32_t)strlen(text) + 1,
							 err);
		} else {
			ret = tracedat_writer_add_option(w, o->id, o->data, o->size, err);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int td_copy_layout(struct tracedat *td, struct tracedat_writer *w, int *index, const char *more_cmdlines,
		   size_t more_len, struct ktrace_error *err)
{
	size_t nbufs = tracedat_buffer_count(td);
	unsigned int cpus = tracedat_header(td)->cpus;
	int ret;

	/* CPUs beyond what the writer takes are the input's: its error, at its offset */
	if (cpus > TD_MAX_CPUS) {
		uint64_t at = nbufs ? tracedat_buffer(td, 0)->offset : 0;

		for (size_t i = 0; i < tracedat_option_count(td); i++)
			if (tracedat_option(td, i)->id == TRACEDAT_OPT_CPUCOUNT)
				at = tracedat_option(td, i)->offset;
		return ktrace_error_at(err, -EBADMSG, at, "%u CPUs: a trace.dat holds at most %u",
				       cpus, TD_MAX_CPUS);
	}
	for (size_t i = 0; i < nbufs; i++) {
		const struct tracedat_buffer *b = tracedat_buffer(td, i);

		for (size_t c = 0; c < b->cpus; c++) {
			const struct tracedat_cpu *cpu = tracedat_buffer_cpu(td, i, c);

			if (!cpu || !cpu->data_size)
				continue;
			if (cpu->cpu >= TD_MAX_CPUS)
				return ktrace_error_at(err, -EBADMSG, b->offset,
						       "%s%s%s: CPU %u: a trace.dat holds CPUs 0 to %u",
						       *b->name ? "buffer \"" : "the top buffer", b->name,
						       *b->name ? "\"" : "", cpu->cpu, TD_MAX_CPUS - 1);
			if (cpu->cpu + 1 > cpus)
				cpus = cpu->cpu + 1;
		}
	}
	ret = copy_metadata(td, w, more_cmdlines, more_len, err);
	if (!ret)
		ret = copy_files(td, w, err);
	if (ret)
		return ret;
	if (cpus && (ret = tracedat_writer_set_cpus(w, cpus, err)))
		return ret;
	ret = copy_options(td, w, tracedat_writer_version(w), err);
	if (ret)
		return ret;
	for (size_t i = 0; i < nbufs; i++) {
		const struct tracedat_buffer *b = tracedat_buffer(td, i);

		index[i] = tracedat_writer_add_buffer(w, b->name, b->clock, b->page_size, b->latency,
						      err);
		if (index[i] < 0)
			return index[i];
	}
	return 0;
}

int tracedat_convert(struct tracedat *td, struct tracedat_writer *w, struct ktrace_error *err)
{
	size_t nbufs = tracedat_buffer_count(td);
	int *index;
	int ret;

	/* a copy is whole or not made: damage found at open (told) ends it */
	if (tracedat_damage_count(td)) {
		if (err)
			*err = *tracedat_damage(td, 0);
		return tracedat_damage(td, 0)->code;
	}
	index = calloc(nbufs ? nbufs : 1, sizeof(*index));
	if (!index)
		return kt_error_oom(err);
	ret = td_copy_layout(td, w, index, NULL, 0, err);
	for (size_t i = 0; i < nbufs && !ret; i++) {
		const struct tracedat_buffer *b = tracedat_buffer(td, i);
		struct sink s = { w, (unsigned int)index[i], err };

		if (b->latency) {
			ret = tracedat_latency_text(td, i, latency_sink, &s, err);
			continue;
		}
		for (size_t c = 0; c < b->cpus && !ret; c++) {
			const struct tracedat_cpu *cpu = tracedat_buffer_cpu(td, i, c);

			if (!cpu->data_size)
				continue;
			ret = tracedat_writer_cpu_begin(w, s.buffer, cpu->cpu, err);
			if (!ret)
				ret = tracedat_cpu_data(td, i, c, cpu_sink, &s, err);
			if (!ret)
				ret = tracedat_writer_cpu_end(w, err);
		}
	}
	free(index);
	return ret;
}
