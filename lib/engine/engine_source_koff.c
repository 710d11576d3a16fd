// SPDX-License-Identifier: MIT
/*
 * The stream's KOFF source: the records of a KOFF buffer file, a `ktrace dump -o`
 * snapshot or a core file, oldest first (the order the dump prints). Each record is a
 * "koff" event named by its tag, with its text as ktrace(1) formats it, its correlator
 * id and its argument words as fields.
 */
#include <ktrace/koff.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "engine/engine_stream_int.h"

struct ksrc {
	struct kt_source src;
	struct ktrace_input *in;
	struct koff_reader *r;
	struct koff_record kr;
	char tag[11];
	const char *name;            /* the tag without its padding */
	char text[1024];
	size_t text_len;
};

enum { F_TEXT, F_ID, F_A0, NFIELDS = F_A0 + 5 };
static const char *const field_names[NFIELDS] = { "text", "id", "a0", "a1", "a2", "a3", "a4" };

static int ksrc_advance(struct kt_source *src, struct ktrace_error *err)
{
	struct ksrc *k = (struct ksrc *)src;
	struct ktrace_stream_record *r = &src->rec;
	int ret = koff_reader_next(k->r, &k->kr, err);

	if (ret <= 0) {
		if (ret < 0)
			src->err_path = ktrace_input_name(k->in);
		return ret;
	}
	k->text_len = koff_record_format(&k->kr, k->tag, k->text, sizeof(k->text));
	if (k->text_len >= sizeof(k->text))
		k->text_len = sizeof(k->text) - 1;
	/* the dump prints "tag:" then the text, which starts with its own space */
	if (k->text_len && k->text[0] == ' ')
		memmove(k->text, k->text + 1, k->text_len--);
	k->name = k->tag;
	while (*k->name == ' ')
		k->name++;
	k->name = kt_stream_intern(src->stream, k->name);
	if (!k->name) {
		src->err_path = NULL;
		return kt_error_oom(err);
	}
	memset(r, 0, sizeof(*r));
	r->kind = KTRACE_STREAM_EVENT;
	r->ts = k->kr.ns;
	r->cpu = -1;
	r->tid = (int64_t)k->kr.tid;
	r->pid = k->kr.pid ? (int64_t)k->kr.pid : -1;
	r->comm = "";
	r->system = "koff";
	r->name = k->name;
	r->event_id = (uint32_t)k->kr.id;
	r->offset = k->kr.seq;
	return 1;
}

/* A record's fields: its text, correlator and argument words (also the read-ahead
 * copy, with the text after it). */
struct ksnap {
	uint64_t id, args[5];
	uint32_t text_len;
	char text[];
};

static int record_field(uint64_t id, const uint64_t *args, const char *text, size_t text_len,
			size_t i, struct ktrace_event_value *v)
{
	memset(v, 0, sizeof(*v));
	if (i >= NFIELDS)
		return -ENOENT;
	v->name = field_names[i];
	if (i == F_TEXT) {
		v->type = KTRACE_EVENT_STRING;
		v->data = text;
		v->len = (uint32_t)text_len;
		return 0;
	}
	v->type = KTRACE_EVENT_UNSIGNED;
	v->u = i == F_ID ? id : args[i - F_A0];
	v->i = (int64_t)v->u;
	return 0;
}

static int ksrc_field(struct kt_source *src, size_t i, struct ktrace_event_value *v)
{
	struct ksrc *k = (struct ksrc *)src;

	return record_field(k->kr.id, k->kr.args, k->text, k->text_len, i, v);
}

static size_t ksrc_fields(struct kt_source *src, struct ktrace_event_value *v, size_t max)
{
	for (size_t i = 0; i < NFIELDS && i < max; i++)
		ksrc_field(src, i, &v[i]);
	return NFIELDS;
}

static size_t ksrc_snap_size(struct kt_source *src)
{
	return (sizeof(struct ksnap) + ((struct ksrc *)src)->text_len + 7) & ~(size_t)7;
}

static void ksrc_snap_write(struct kt_source *src, void *data)
{
	struct ksrc *k = (struct ksrc *)src;
	struct ksnap *sn = data;

	sn->id = k->kr.id;
	memcpy(sn->args, k->kr.args, sizeof(sn->args));
	sn->text_len = (uint32_t)k->text_len;
	memcpy(sn->text, k->text, k->text_len);
}

static int ksrc_snap_field(const void *data, size_t i, struct ktrace_event_value *v)
{
	const struct ksnap *sn = data;

	return record_field(sn->id, sn->args, sn->text, sn->text_len, i, v);
}

static size_t ksrc_snap_fields(const void *data, struct ktrace_event_value *v, size_t max)
{
	for (size_t i = 0; i < NFIELDS && i < max; i++)
		ksrc_snap_field(data, i, &v[i]);
	return NFIELDS;
}

static int ksrc_format(struct kt_source *src, char *buf, size_t len, bool text_only)
{
	struct ksrc *k = (struct ksrc *)src;

	if (text_only)
		return snprintf(buf, len, "%s", k->text);
	return kt_stream_generic_line(&src->rec, k->text, buf, len);
}

static void ksrc_close(struct kt_source *src)
{
	struct ksrc *k = (struct ksrc *)src;

	if (k->r)
		koff_reader_close(k->r);
	ktrace_input_close(k->in);
	free(k);
}

static const struct kt_source_ops ksrc_ops = {
	.advance = ksrc_advance,
	.field = ksrc_field,
	.fields = ksrc_fields,
	.format = ksrc_format,
	.close = ksrc_close,
	.snap_size = ksrc_snap_size,
	.snap_write = ksrc_snap_write,
	.snap_field = ksrc_snap_field,
	.snap_fields = ksrc_snap_fields,
};

int kt_source_koff(struct ktrace_stream *s, const char *path, uint32_t index,
		   struct kt_source **out, struct ktrace_error *err)
{
	struct ksrc *k = calloc(1, sizeof(*k));
	struct ktrace_stream_source *info;
	int ret;

	if (!k)
		return kt_error_oom(err);
	k->src.ops = &ksrc_ops;
	k->src.stable_comm = true;     /* "" */
	k->src.stream = s;
	ret = ktrace_input_open(path, &k->in, err);
	if (ret) {
		free(k);
		return ret;
	}
	{
		const uint8_t *head;
		int64_t got = ktrace_input_peek(k->in, 0, 4, &head, err);

		/* a core file: the program is found from the core's file mappings */
		struct koff_reader_open_opts ro = { .sz = sizeof(ro) };

		if (got == 4 && !memcmp(head, "\x7f" "ELF", 4))
			ro.core = path;
		else
			ro.input = k->in;
		ret = koff_reader_open(&ro, &k->r, err);
	}
	if (ret)
		goto fail;
	info = kt_stream_add_info(s, index, path, KTRACE_FORMAT_KOFF);
	if (!info) {
		ret = kt_error_oom(err);
		goto fail;
	}
	info->clock = "realtime";
	*out = &k->src;
	return 0;
fail:
	ksrc_close(&k->src);
	return ret;
}
