// SPDX-License-Identifier: MIT
/*
 * Fuzz harness: the KOFF buffer reader and the ktrace(1) view. The input is a buffer
 * file image or a snapshot (`ktrace dump -o`), as `ktrace report` would be given; every
 * record is read, resolved and formatted.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <ktrace/input.h>
#include <ktrace/koff.h>

#include <ktrace/view.h>

#include "common/outbuf.h"
#include "sinks/info/info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ktrace_out *out;
	static int devnull = -1;
	struct ktrace_view_koff_opts o = { .sz = sizeof(o), .scale = 1000, .verbose = 2,
					  .abs_time = 1 };
	struct ktrace_error err = { 0 };
	struct ktrace_input *in;
	struct koff_reader *r;

	if (!out) {
		out = kt_out_new(-1);
		devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (!out)
			return 0;
	}
	if (ktrace_input_from_memory(data, size, "(fuzz input)", &in, &err))
		return 0;
	out->fd = devnull;
	kt_out_reset(out);
	if (koff_reader_open(&(struct koff_reader_open_opts){ .sz = sizeof(struct koff_reader_open_opts),
							     .input = in }, &r, &err) == 0) {
		ktrace_view_koff_reader(r, &o, out, &err);
		koff_reader_close(r);
	}
	/* the summary (ktrace info), text and JSON */
	kt_info_koff(in, size & 1, out, &err);
	kt_out_flush(out);
	ktrace_input_close(in);
	/* Raw memory images too (the path a mapped live buffer takes). */
	if (koff_reader_open(&(struct koff_reader_open_opts){ .sz = sizeof(struct koff_reader_open_opts),
							     .data = data, .len = size }, &r, &err) == 0) {
		struct koff_record rec;
		char tag[11], rest[512];

		while (koff_reader_next(r, &rec, &err) > 0)
			koff_record_format(&rec, tag, rest, sizeof(rest));
		koff_reader_close(r);
	}
	return 0;
}
