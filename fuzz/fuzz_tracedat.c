// SPDX-License-Identifier: MIT
/*
 * Fuzz harness for the trace.dat reader: open (all metadata, options, buffers), load
 * the lazy texts (kallsyms..., trace-cmd 3.4's BTF and modules), read the latency texts, then iterate every record of all buffers
 * merged and of each CPU alone, touching each payload.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/input.h>
#include <ktrace/tracedat.h>

static int sink_text(const char *text, size_t len, void *arg)
{
	size_t *n = arg;

	if (len)
		*n += (unsigned char)text[len - 1];
	return 0;
}

/* Every damaged place a reader skips is told with its offset and a message. */
static void on_damage(const char *input, const struct ktrace_error *err, void *arg)
{
	(void)arg;
	if (!input || !err || err->code >= 0 || !err->has_offset || !err->message[0])
		__builtin_trap();
}

static void iterate(struct tracedat *td, int buffer, int cpu)
{
	const struct tracedat_record *r;
	struct tracedat_iter *it;
	volatile uint64_t acc = 0;
	unsigned int n = 0;
	int ret;

	if (tracedat_iter_new(td, buffer, cpu, &it, NULL))
		return;
	while ((ret = tracedat_iter_next(it, &r, NULL)) > 0 && n++ < 1000000) {
		if (r->size)
			acc += ((const uint8_t *)r->data)[0] + ((const uint8_t *)r->data)[r->size - 1];
		acc += r->ts + r->raw_ts + (uint64_t)r->missed_events + r->offset;
	}
	/* the end of damaged data is its error, and stays the end */
	if (ret <= 0 && tracedat_iter_ended(it)) {
		struct ktrace_error e2 = { 0 };
		int again = tracedat_iter_next(it, &r, &e2);

		if (again != ret || (ret < 0 && !e2.message[0]))
			__builtin_trap();
		for (size_t i = 0; i < tracedat_iter_damage_count(it); i++)
			if (!tracedat_iter_damage(it, i) || !tracedat_iter_damage(it, i)->has_offset)
				__builtin_trap();
	}
	tracedat_iter_free(it);
	(void)acc;
}

/* The built-in page walker and kbuffer must give the same records: differential. */
static void compare_walkers(struct ktrace_input *in)
{
	struct tracedat *td[2] = { NULL, NULL };
	struct tracedat_iter *it[2] = { NULL, NULL };

	if (tracedat_open_input(in, 0, &td[0], NULL) ||
	    tracedat_open_input(in, TRACEDAT_KBUFFER_WALK, &td[1], NULL))
		goto out;
	if (tracedat_iter_new(td[0], TRACEDAT_ALL_BUFFERS, -1, &it[0], NULL) ||
	    tracedat_iter_new(td[1], TRACEDAT_ALL_BUFFERS, -1, &it[1], NULL))
		goto out;
	for (unsigned int n = 0; n < 1000000; n++) {
		const struct tracedat_record *a, *b;
		int ra = tracedat_iter_next(it[0], &a, NULL);
		int rb = tracedat_iter_next(it[1], &b, NULL);

		if (ra != rb)
			__builtin_trap();
		if (ra <= 0)
			break;
		if (a->ts != b->ts || a->size != b->size || (const uint8_t *)a->data - (const uint8_t *)a->page !=
		    (const uint8_t *)b->data - (const uint8_t *)b->page ||
		    memcmp(a->data, b->data, a->size) ||
		    a->missed_events != b->missed_events || a->offset != b->offset ||
		    a->record_size != b->record_size)
			__builtin_trap();
	}
out:
	tracedat_iter_free(it[0]);
	tracedat_iter_free(it[1]);
	tracedat_close(td[0]);
	tracedat_close(td[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_input *in;
	struct tracedat *td;
	const char *t;
	size_t len, n = 0;

	ktrace_error_damage_handler(on_damage, NULL);
	if (ktrace_input_from_memory(data, size, "fuzz", &in, NULL))
		return 0;
	if (tracedat_open_input(in, 0, &td, NULL) == 0) {
		tracedat_header_page(td, &t, &len);
		tracedat_kallsyms(td, &t, &len, NULL);
		tracedat_printk_formats(td, &t, &len, NULL);
		tracedat_cmdlines(td, &t, &len, NULL);
		tracedat_modules(td, &t, &len, NULL);
		{
			const void *d;

			if (tracedat_btf(td, &d, &len, NULL) == 0 && len)
				n += ((const uint8_t *)d)[len - 1];
		}
		for (size_t s = 0; s < tracedat_system_count(td); s++)
			for (size_t e = 0; e < tracedat_system_event_count(td, s); e++)
				tracedat_event_format(td, s, e, &t, &len);
		for (size_t i = 0; i < tracedat_option_count(td); i++)
			n += tracedat_option(td, i)->size;
		iterate(td, TRACEDAT_ALL_BUFFERS, -1);
		for (size_t b = 0; b < tracedat_buffer_count(td); b++) {
			const struct tracedat_buffer *buf = tracedat_buffer(td, b);

			if (buf->latency) {
				tracedat_latency_text(td, b, sink_text, &n, NULL);
				continue;
			}
			for (unsigned int c = 0; c < buf->cpus && c < 4; c++)
				iterate(td, (int)b, (int)tracedat_buffer_cpu(td, b, c)->cpu);
		}
		tracedat_close(td);
		compare_walkers(in);
	}
	ktrace_input_close(in);
	return 0;
}
