// SPDX-License-Identifier: MIT
/*
 * The stream's raw ring-buffer source: one per_cpu/cpuN/trace_pipe_raw dump (its
 * layout inferred from the sub-buffer headers), its records in order. With an events
 * directory (a tracefs "events" tree or a copy: header_page and SYS/EVENT/format files)
 * records get names and fields; without one they are "ftrace" events named by their id.
 * The CPU is the last "cpuN" in the file's path when there is one (trace_pipe_raw
 * pages do not say), else unknown.
 */
#include <ktrace/kbuffer.h>
#include <ktrace/ring.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/grow.h"
#include "engine/engine_stream_int.h"
#include "event/event_share.h"

struct ring_source {
	struct kt_source src;
	struct ktrace_input *in;
	struct ktrace_ring_layout layout;
	struct kbuffer *kb;
	struct ktrace_events *evs;      /* NULL without an events directory */
	const struct ktrace_event *ev;  /* the current record's event */
	struct ktrace_record kr;
	uint64_t page_off;              /* the loaded sub-buffer (UINT64_MAX: none yet) */
	bool in_page;                   /* a record of the page was handed out */
	bool lost_pending;              /* the page's lost mark went out, its first record next */
	int cpu;
	char name[24];                  /* "id 123" without formats */
	char *text;
	size_t text_cap;
};

/* Reads a whole small file (a format) into a new buffer; NULL when it cannot. */
static char *read_small(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 0, n = 0;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t k;

		if (n + 4096 > cap) {
			char *p = cap < (1u << 20) ? kt_realloc_array(buf, cap ? cap * 2 : 8192, 1) : NULL;

			if (!p) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = p;
			cap = cap ? cap * 2 : 8192;
		}
		k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	*len = n;
	return buf;
}

/* header_page and every SYS/EVENT/format of an events directory. */
static int load_events_dir(struct ring_source *r, const char *dir, struct ktrace_error *err)
{
	char path[4608];
	struct ktrace_error ignore = { 0 };
	DIR *d;
	struct dirent *sys;
	size_t len;
	char *text;

	r->evs = ktrace_event_new(r->layout.long_size, r->layout.big_endian == 1);
	if (!r->evs)
		return kt_error_oom(err);
	ftev_print_learns(r->evs, false);   /* (every record's are, as it is read) */
	snprintf(path, sizeof(path), "%s/header_page", dir);
	text = read_small(path, &len);
	if (text) {
		ktrace_event_parse_header_page(r->evs, text, len, &ignore);
		free(text);
	}
	d = opendir(dir);
	if (!d)
		return ktrace_error_set(err, -errno, "%s: %s", dir, strerror(errno));
	while ((sys = readdir(d))) {
		DIR *sd;
		struct dirent *ev;
		char sdir[2048];

		if (sys->d_name[0] == '.')
			continue;
		snprintf(sdir, sizeof(sdir), "%s/%s", dir, sys->d_name);
		sd = opendir(sdir);
		if (!sd)
			continue;
		while ((ev = readdir(sd))) {
			if (ev->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/format", sdir, ev->d_name);
			text = read_small(path, &len);
			if (!text)
				continue;
			ktrace_event_add_format(r->evs, sys->d_name, text, len, NULL, &ignore);
			free(text);
		}
		closedir(sd);
	}
	closedir(d);
	return 0;
}

static int cpu_from_path(const char *path)
{
	const char *p = path, *hit = NULL;

	while ((p = strstr(p, "cpu"))) {
		if (p[3] >= '0' && p[3] <= '9')
			hit = p + 3;
		p += 3;
	}
	return hit ? atoi(hit) : -1;
}

/* The record at data: 1, or -ENOMEM (err set). */
static int fill_event(struct ring_source *r, void *data, unsigned long long ts,
		      struct ktrace_error *err)
{
	struct ktrace_stream_record *rec = &r->src.rec;
	int size = kbuffer_event_size(r->kb);

	memset(rec, 0, sizeof(*rec));
	rec->kind = KTRACE_STREAM_EVENT;
	rec->ts = ts;
	rec->cpu = r->cpu;
	rec->offset = r->page_off + (uint64_t)kbuffer_curr_offset(r->kb);
	r->kr = (struct ktrace_record){ .data = data, .size = size > 0 ? (uint32_t)size : 0,
					.cpu = r->cpu, .ts = ts };
	r->ev = r->evs ? ktrace_event_record_event(r->evs, &r->kr) : NULL;
	rec->tid = rec->pid = -1;
	rec->comm = "";
	if (r->ev) {
		rec->tid = ktrace_event_record_pid(r->evs, &r->kr);
		rec->comm = ktrace_event_comm(r->evs, (int)rec->tid);
		rec->system = ktrace_event_system(r->ev);
		rec->name = ktrace_event_name(r->ev);
		rec->event_id = (uint32_t)ktrace_event_id(r->ev);
		ktrace_event_learn_comms(r->evs, &r->kr);
	} else {
		rec->event_id = size >= 2 ? kt_load_u16(data, r->layout.big_endian == 1) : 0;
		snprintf(r->name, sizeof(r->name), "id %u", rec->event_id);
		rec->system = "ftrace";
		rec->name = kt_stream_intern(r->src.stream, r->name);
		if (!rec->name) {
			r->src.err_path = NULL;
			return kt_error_oom(err);
		}
	}
	return 1;
}

static int ring_advance(struct kt_source *src, struct ktrace_error *err)
{
	struct ring_source *r = (struct ring_source *)src;
	unsigned long long ts;
	void *data;

	if (r->lost_pending) {
		r->lost_pending = false;
		data = kbuffer_read_event(r->kb, &ts);
		if (data)
			return fill_event(r, data, ts, err);
	} else if (r->in_page) {
		data = kbuffer_next_event(r->kb, &ts);
		if (data)
			return fill_event(r, data, ts, err);
	}
	for (;;) {
		const uint8_t *page;
		uint64_t off = r->page_off == UINT64_MAX ? 0 : r->page_off + r->layout.page_size;
		int64_t got;
		long long missed;

		if (r->in_page && kbuffer_corrupt(r->kb)) {
			src->err_path = ktrace_input_name(r->in);
			return ktrace_error_at(err, -EBADMSG, r->page_off,
					       "corrupt sub-buffer (records inconsistent after "
					       "offset 0x%llx)",
					       (unsigned long long)(r->page_off +
								    (uint64_t)kbuffer_curr_offset(r->kb)));
		}
		r->in_page = false;
		got = ktrace_input_peek(r->in, off, r->layout.page_size, &page, err);
		if (got < 0) {
			src->err_path = ktrace_input_name(r->in);
			return (int)got;
		}
		if (got == 0)
			return 0;
		r->page_off = off;
		if ((size_t)got < r->layout.page_size) {
			src->err_path = ktrace_input_name(r->in);
			return ktrace_error_at(err, -ENODATA, off, "truncated sub-buffer: %lld of %zu bytes",
					       (long long)got, r->layout.page_size);
		}
		kbuffer_load_subbuffer_len(r->kb, (void *)page, r->layout.page_size);
		r->in_page = true;
		missed = kbuffer_lost_events(r->kb);
		if (missed && !(kt_stream_opts(src->stream)->flags & KTRACE_STREAM_NO_LOST)) {
			struct ktrace_stream_record *rec = &src->rec;

			memset(rec, 0, sizeof(*rec));
			rec->kind = KTRACE_STREAM_LOST;
			rec->ts = kbuffer_subbuf_timestamp(r->kb, (void *)page);
			rec->cpu = r->cpu;
			rec->tid = rec->pid = -1;
			rec->comm = rec->system = rec->name = "";
			rec->lost = missed > 0 ? (uint64_t)missed : 0;
			rec->offset = off;
			r->lost_pending = true;
			return 1;
		}
		data = kbuffer_read_event(r->kb, &ts);
		if (data)
			return fill_event(r, data, ts, err);
	}
}

static int ring_field(struct kt_source *src, size_t i, struct ktrace_event_value *v)
{
	struct ring_source *r = (struct ring_source *)src;

	if (r->ev)
		return ktrace_event_field_value(r->evs, r->ev, i, &r->kr, v);
	/* without formats: the payload as bytes */
	memset(v, 0, sizeof(*v));
	if (i)
		return -ENOENT;
	v->name = "data";
	v->type = KTRACE_EVENT_BYTES;
	v->data = r->kr.data;
	v->len = r->kr.size;
	return 0;
}

static size_t ring_fields(struct kt_source *src, struct ktrace_event_value *v, size_t max)
{
	struct ring_source *r = (struct ring_source *)src;
	size_t n = r->ev ? ktrace_event_field_count(r->ev) : 1;

	for (size_t i = 0; i < n && i < max; i++)
		ring_field(src, i, &v[i]);
	return n;
}

static int ring_format(struct kt_source *src, char *buf, size_t len, bool text_only)
{
	struct ring_source *r = (struct ring_source *)src;
	size_t n = 0;

	if (r->ev && src->rec.kind == KTRACE_STREAM_EVENT) {
		for (;;) {
			n = ktrace_event_format(r->evs, &r->kr, 0, r->text, r->text_cap, NULL);
			if (n < r->text_cap)
				break;
			if (kt_grow((void **)&r->text, &r->text_cap, n + 1, 1))
				return -ENOMEM;
		}
		if (n && r->text[n - 1] == '\n')
			r->text[--n] = 0;
	} else if (src->rec.kind == KTRACE_STREAM_EVENT) {
		if (kt_grow((void **)&r->text, &r->text_cap, 64, 1))
			return -ENOMEM;
		snprintf(r->text, r->text_cap, "length %u", r->kr.size);
	}
	if (text_only)
		return snprintf(buf, len, "%s", src->rec.kind == KTRACE_STREAM_EVENT ? r->text : "");
	return kt_stream_generic_line(&src->rec, r->text, buf, len);
}

static void ring_close(struct kt_source *src)
{
	struct ring_source *r = (struct ring_source *)src;

	if (r->kb)
		kbuffer_free(r->kb);
	if (r->evs)
		ktrace_event_free(r->evs);
	ktrace_input_close(r->in);
	free(r->text);
	free(r);
}

static int ring_raw(struct kt_source *src, struct kt_ftrace_raw *out)
{
	struct ring_source *r = (struct ring_source *)src;

	if (src->rec.kind != KTRACE_STREAM_EVENT || !r->ev)
		return -ENOENT;
	*out = (struct kt_ftrace_raw){ r->evs, r->ev, r->kr.data, r->kr.size };
	return 0;
}

static size_t ring_snap_size(struct kt_source *src)
{
	return kt_ftrace_snap_size(((struct ring_source *)src)->kr.size);
}

static void ring_snap_write(struct kt_source *src, void *data)
{
	struct ring_source *r = (struct ring_source *)src;

	kt_ftrace_snap_write(data, r->evs, r->ev, &r->kr, !r->ev);
}

static const struct kt_source_ops ring_ops = {
	.advance = ring_advance,
	.field = ring_field,
	.fields = ring_fields,
	.format = ring_format,
	.sched = kt_sched_from_fields,
	.close = ring_close,
	.raw = ring_raw,
	.snap_raw = kt_ftrace_snap_raw,
	.snap_size = ring_snap_size,
	.snap_write = ring_snap_write,
	.snap_field = kt_ftrace_snap_field,
	.snap_fields = kt_ftrace_snap_fields,
	.snap_sched = kt_ftrace_snap_sched,
};

int kt_source_ring(struct ktrace_stream *s, const char *path, uint32_t index,
		   struct kt_source **out, struct ktrace_error *err)
{
	const struct ktrace_stream_opts *o = kt_stream_opts(s);
	struct ring_source *r = calloc(1, sizeof(*r));
	struct ktrace_stream_source *info;
	const uint8_t *head;
	int64_t got;
	int ret;

	if (!r)
		return kt_error_oom(err);
	r->src.ops = &ring_ops;
	r->src.stable_comm = true;     /* the registry's comms, or "" */
	r->src.stream = s;
	r->page_off = UINT64_MAX;
	r->layout = (struct ktrace_ring_layout){ 0, 0, -1 };
	r->cpu = cpu_from_path(path);
	ret = ktrace_input_open(path, &r->in, err);
	if (ret) {
		free(r);
		return ret;
	}
	got = ktrace_input_peek(r->in, 0, KTRACE_RING_DETECT_BYTES, &head, err);
	if (got < 0) {
		ret = (int)got;
		goto fail;
	}
	if (ktrace_ring_detect(head, (size_t)got, &r->layout) <= 0) {
		ret = ktrace_error_at(err, -EBADMSG, 0, "no sub-buffer layout fits");
		goto fail;
	}
	r->kb = kbuffer_alloc(r->layout.long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			      r->layout.big_endian == 1 ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!r->kb) {
		ret = kt_error_oom(err);
		goto fail;
	}
	if (o->events_dir) {
		ret = load_events_dir(r, o->events_dir, err);
		if (ret)
			goto fail;
	}
	info = kt_stream_add_info(s, index, path, KTRACE_FORMAT_FTRACE_PAGES);
	if (!info) {
		ret = kt_error_oom(err);
		goto fail;
	}
	info->cpus = r->cpu >= 0 ? (uint32_t)r->cpu + 1 : 0;
	*out = &r->src;
	return 0;
fail:
	ring_close(&r->src);
	return ret;
}
