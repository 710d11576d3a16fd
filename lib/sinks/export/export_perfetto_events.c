// SPDX-License-Identifier: MIT
/*
 * Records as Perfetto FtraceEvent messages (sinks/export/export_perfetto_events.h).
 *
 * The field numbers below are Perfetto's (the ftrace protos of google/perfetto, read
 * for the numbers only; this is our own encoder). FtraceEvent: timestamp 1, pid 2,
 * then one message field per event type.
 *
 * An event type is the (input, system, name) of a record. The first record of a type
 * decides how every record of the type is written:
 * - a typed message when Perfetto has one for (system, name) and every field of the
 *   record has a place in it (a format with a field more goes generic: nothing lost);
 * - a typed sched_switch or sched_waking when the stream says the record is a context
 *   switch or a wakeup (ktrace_stream_sched: Darwin's MACH_SCHED, MACH_STACK_HANDOFF
 *   and MACH_MAKE_RUNNABLE), as Perfetto's scheduler tables are built from those;
 * - else a generic event. By default it is a message of its own, under a FtraceEvent
 *   field from Perfetto's range for self-describing events (65536 and up), whose
 *   fields 1..N are the record's fields in order, described once per trace by a proto
 *   descriptor in FtraceEventBundle.generic_event_descriptors (trace_processor v50+):
 *   signed numbers as sint64, unsigned ones as uint64 (fixed64 when the first value
 *   needs 57 bits or more: kernel addresses), strings as strings, arrays as bytes
 *   holding their text ("[1,-2]", unsigned elements in hex "[0x1,0x2]") and other
 *   bytes as bytes holding their hex digits.
 *   In the legacy form (and for types of more than 31 fields, or a record whose
 *   values do not fit its type's description) it is a GenericFtraceEvent (field 327):
 *   the event name and every field with its name and a str_value 3, int_value 4 or
 *   uint_value 5.
 */
#include "sinks/export/export_perfetto_events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cursor.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "common/numfmt.h"
#include "engine/engine.h"
#include "event/event_share.h"

/* FtraceEvent fields */
enum {
	FE_TIMESTAMP = 1,
	FE_PID = 2,
	FE_SCHED_SWITCH = 4,
	FE_SCHED_WAKING = 20,
	FE_GENERIC = 327,
	FE_DENSE_FIRST = 65536,     /* Perfetto's range for self-describing events */
	FE_DENSE_LAST = 131072,
};

/* How a value is written: 'i' varint of the signed value (int32, int64), 'u' varint
 * (uint32, uint64), 'z' zigzag (sint64), 'f' fixed64, 's' string. */
struct pf_typed_field {
	const char *name;
	uint8_t number;
	char kind;
};

struct pf_typed {
	const char *system, *name;
	uint32_t id;                  /* the FtraceEvent field */
	struct pf_typed_field f[8];
};

/* The typed messages (Perfetto's field numbers), each used only when it holds every
 * field of the record's format. */
static const struct pf_typed typed[] = {
	{ "ftrace", "print", 3, { { "ip", 1, 'u' }, { "buf", 2, 's' } } },
	{ "sched", "sched_switch", 4,
	  { { "prev_comm", 1, 's' }, { "prev_pid", 2, 'i' }, { "prev_prio", 3, 'i' },
	    { "prev_state", 4, 'i' }, { "next_comm", 5, 's' }, { "next_pid", 6, 'i' },
	    { "next_prio", 7, 'i' } } },
	{ "power", "cpu_frequency", 11, { { "state", 1, 'u' }, { "cpu_id", 2, 'u' } } },
	{ "power", "cpu_idle", 13, { { "state", 1, 'u' }, { "cpu_id", 2, 'u' } } },
	{ "sched", "sched_wakeup", 17,
	  { { "comm", 1, 's' }, { "pid", 2, 'i' }, { "prio", 3, 'i' }, { "success", 4, 'i' },
	    { "target_cpu", 5, 'i' } } },
	{ "sched", "sched_blocked_reason", 18,
	  { { "pid", 1, 'i' }, { "caller", 2, 'u' }, { "io_wait", 3, 'u' } } },
	{ "sched", "sched_waking", 20,
	  { { "comm", 1, 's' }, { "pid", 2, 'i' }, { "prio", 3, 'i' }, { "success", 4, 'i' },
	    { "target_cpu", 5, 'i' } } },
	{ "irq", "softirq_entry", 24, { { "vec", 1, 'u' } } },
	{ "irq", "softirq_exit", 25, { { "vec", 1, 'u' } } },
	{ "irq", "softirq_raise", 26, { { "vec", 1, 'u' } } },
	{ "irq", "irq_handler_entry", 36,
	  { { "irq", 1, 'i' }, { "name", 2, 's' }, { "handler", 3, 'u' } } },
	{ "irq", "irq_handler_exit", 37, { { "irq", 1, 'i' }, { "ret", 2, 'i' } } },
	{ "sched", "sched_wakeup_new", 114,
	  { { "comm", 1, 's' }, { "pid", 2, 'i' }, { "prio", 3, 'i' }, { "success", 4, 'i' },
	    { "target_cpu", 5, 'i' } } },
	{ "task", "task_newtask", 235,
	  { { "pid", 1, 'i' }, { "comm", 2, 's' }, { "clone_flags", 3, 'u' },
	    { "oom_score_adj", 4, 'i' } } },
	{ "task", "task_rename", 236,
	  { { "pid", 1, 'i' }, { "oldcomm", 2, 's' }, { "newcomm", 3, 's' },
	    { "oom_score_adj", 4, 'i' } } },
	{ "sched", "sched_process_exec", 237,
	  { { "filename", 1, 's' }, { "pid", 2, 'i' }, { "old_pid", 3, 'i' } } },
	{ "sched", "sched_process_exit", 238,
	  { { "comm", 1, 's' }, { "pid", 2, 'i' }, { "tgid", 3, 'i' }, { "prio", 4, 'i' } } },
	{ "sched", "sched_process_fork", 239,
	  { { "parent_comm", 1, 's' }, { "parent_pid", 2, 'i' }, { "child_comm", 3, 's' },
	    { "child_pid", 4, 'i' } } },
	{ "sched", "sched_process_free", 240,
	  { { "comm", 1, 's' }, { "pid", 2, 'i' }, { "prio", 3, 'i' } } },
	{ "sched", "sched_process_wait", 242,
	  { { "comm", 1, 's' }, { "pid", 2, 'i' }, { "prio", 3, 'i' } } },
};

enum mode { M_TYPED, M_SCHED, M_DENSE, M_LEGACY };

struct pf_field {
	const char *ptr;              /* the name as the stream gave it first */
	char *name;
	uint32_t number;
	char kind;
	/* a number read straight from the record (plan): where, and its sign */
	uint8_t cls;                  /* FTEV_FIELD_*: OTHER is decoded the long way */
	uint8_t size;
	uint8_t taglen;
	uint8_t tag[5];               /* the field's tag as written (its wire type's) */
	uint32_t off;
};

struct pf_type {
	struct pf_type *next;         /* e->types */
	uint32_t source;
	char *system, *name;
	enum mode mode;
	uint32_t id;                  /* the FtraceEvent field */
	size_t nfields;
	struct pf_field *f;
	/* the plan for ftrace records of ev: 1 usable, -1 not, 0 not made yet */
	const struct ktrace_event *plan_ev;
	int plan;
	bool big;                     /* the records' byte order */
	uint32_t need;                /* the bytes a record needs for its numbers */
};

/* A type by the stream's (input, system, name) pointers. */
struct pf_slot {
	const char *system, *name;
	uint32_t source;
	struct pf_type *type;           /* NULL: none */
};

#define DIRECT_SOURCES 16
#define DIRECT_IDS 4096

struct pf_events {
	bool legacy;
	struct kt_map index;            /* hash of (input, system, name) -> known[] */
	struct pf_slot *known;          /* every type with its pointers */
	size_t ntypes, cap_known;
	struct pf_type *types;          /* every type, for freeing */
	uint32_t next_dense;
	struct kt_pb_buf text;        /* arrays and bytes as text */
	struct pf_slot last;          /* the type found last */
	/* the types of small event ids, per input (DIRECT_SOURCES x DIRECT_IDS) */
	struct pf_slot *direct[DIRECT_SOURCES];
};

/* DescriptorProto / FieldDescriptorProto (descriptor.proto) */
enum {
	DP_NAME = 1, DP_FIELD = 2,
	FD_NAME = 1, FD_NUMBER = 3, FD_LABEL = 4, FD_TYPE = 5,
	FD_LABEL_OPTIONAL = 1,
	FD_TYPE_UINT64 = 4, FD_TYPE_FIXED64 = 6, FD_TYPE_STRING = 9, FD_TYPE_BYTES = 12,
	FD_TYPE_SINT64 = 18,
	GD_FIELD_ID = 1, GD_DESCRIPTOR = 2, GD_GROUP = 3,
	/* GenericFtraceEvent */
	GE_NAME = 1, GE_FIELD = 2, GF_NAME = 1, GF_STR = 3, GF_INT = 4, GF_UINT = 5,
};

struct pf_events *pf_events_new(bool legacy)
{
	struct pf_events *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->legacy = legacy;
	e->next_dense = FE_DENSE_FIRST;
	return e;
}

static void free_type(struct pf_type *t)
{
	for (size_t i = 0; i < t->nfields; i++)
		free(t->f[i].name);
	free(t->f);
	free(t->system);
	free(t->name);
	free(t);
}

void pf_events_free(struct pf_events *e)
{
	if (!e)
		return;
	while (e->types) {
		struct pf_type *t = e->types;

		e->types = t->next;
		free_type(t);
	}
	kt_map_free(&e->index);
	free(e->known);
	for (size_t i = 0; i < DIRECT_SOURCES; i++)
		free(e->direct[i]);
	kt_pb_free(&e->text);
	free(e);
}

/* A record's type: the stream gives every record of one event of an input the same
 * system and name pointers. */
static uint64_t hash_type(uint32_t source, const char *system, const char *name)
{
	uint64_t h = ((uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)(uintptr_t)system * 0xc2b2ae3d27d4eb4full) ^ source;

	return h ^ h >> 29;
}

static const char *event_name(const struct ktrace_stream_record *r)
{
	return *r->name ? r->name : "unknown";
}

/* ---- values ---- */

static bool is_number(const struct ktrace_event_value *v)
{
	return v->type == KTRACE_EVENT_SIGNED || v->type == KTRACE_EVENT_UNSIGNED;
}

static uint64_t bits(const struct ktrace_event_value *v)
{
	return v->type == KTRACE_EVENT_SIGNED ? (uint64_t)v->i : v->u;
}

/* Appends v in hex (with "0x" when prefix) at p; returns the end. */
static char *put_hex(char *p, uint64_t v, bool prefix)
{
	if (prefix) {
		*p++ = '0';
		*p++ = 'x';
	}
	return kt_fmt_hex(p, v, 0, false);
}

/* A string value's bytes, or arrays and other bytes as text in e->text. */
static void value_text(struct pf_events *e, const struct ktrace_event_value *v, const void **data,
		       size_t *len)
{
	struct kt_pb_buf *t = &e->text;

	t->len = 0;
	switch (v->type) {
	case KTRACE_EVENT_STRING:
		*data = v->data;
		*len = v->len;
		return;
	case KTRACE_EVENT_ARRAY:
		/* "[e0,e1,...]": at most 22 bytes an element */
		if (!kt_pb_room(t, (size_t)v->count * 22 + 2))
			break;
		{
			char *p = (char *)t->p, *q = p;

			*q++ = '[';
			for (size_t k = 0; k < v->count; k++) {
				uint64_t x = ktrace_event_array_at(v, k);

				if (k)
					*q++ = ',';
				q = v->elem_signed ? kt_fmt_i64(q, (int64_t)x) : put_hex(q, x, true);
			}
			*q++ = ']';
			t->len = (size_t)(q - p);
		}
		break;
	case KTRACE_EVENT_BYTES:
		if (!kt_pb_room(t, (size_t)v->len * 2))
			break;
		kt_fmt_hex_bytes((char *)t->p, v->data, v->len);
		t->len = (size_t)v->len * 2;
		break;
	default: {
		char *p;

		if (!kt_pb_room(t, 24))
			break;
		p = (char *)t->p;
		t->len = (size_t)((v->type == KTRACE_EVENT_SIGNED ? kt_fmt_i64(p, v->i)
								  : put_hex(p, v->u, true)) - p);
		break;
	}
	}
	*data = t->p;
	*len = t->len;
}

/* ---- types ---- */

static const struct pf_typed *find_typed(const char *system, const char *name)
{
	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++)
		if (!strcmp(typed[i].name, name) && !strcmp(typed[i].system, system))
			return &typed[i];
	return NULL;
}

static const struct pf_typed_field *typed_field(const struct pf_typed *d, const char *name)
{
	for (size_t i = 0; i < 8 && d->f[i].name; i++)
		if (!strcmp(d->f[i].name, name))
			return &d->f[i];
	return NULL;
}

/* Decides how the type of the current record is written (see the top). */
static int classify(struct pf_events *e, struct ktrace_stream *s, struct pf_type *t)
{
	const struct pf_typed *d = find_typed(t->system, t->name);
	size_t n = ktrace_stream_field_count(s);
	struct ktrace_stream_sched sc;
	bool typed_ok = d != NULL;

	t->f = calloc(n ? n : 1, sizeof(*t->f));
	if (!t->f)
		return -ENOMEM;
	t->nfields = n;
	for (size_t i = 0; i < n; i++) {
		struct ktrace_event_value v;
		const struct pf_typed_field *tf;

		if (ktrace_stream_field(s, i, &v))
			return -EINVAL;
		t->f[i].ptr = v.name;
		t->f[i].name = strdup(v.name);
		if (!t->f[i].name)
			return -ENOMEM;
		t->f[i].kind = v.type == KTRACE_EVENT_SIGNED ? 'z' :
			       v.type == KTRACE_EVENT_UNSIGNED ? (v.u >> 56 ? 'f' : 'u') :
			       v.type == KTRACE_EVENT_ARRAY ? 'a' :
			       v.type == KTRACE_EVENT_BYTES ? 'b' : 's';
		t->f[i].number = (uint32_t)i + 1;
		tf = d ? typed_field(d, v.name) : NULL;
		if (!tf || (tf->kind == 's') != !is_number(&v))
			typed_ok = false;
	}
	if (typed_ok) {
		t->mode = M_TYPED;
		t->id = d->id;
		for (size_t i = 0; i < n; i++) {
			const struct pf_typed_field *tf = typed_field(d, t->f[i].name);

			t->f[i].number = tf->number;
			t->f[i].kind = tf->kind;
		}
		return 0;
	}
	if (!d && ktrace_stream_sched(s, &sc)) {
		t->mode = M_SCHED;
		return 0;
	}
	if (e->legacy || n > 31 || e->next_dense > FE_DENSE_LAST) {
		t->mode = M_LEGACY;
		t->id = FE_GENERIC;
		return 0;
	}
	t->mode = M_DENSE;
	t->id = e->next_dense++;
	return 0;
}

/* The GenericEventDescriptor of a dense type, as field 11 of a bundle. */
static void describe(const struct pf_type *t, struct kt_pb_buf *desc)
{
	size_t g = kt_pb_open(desc, PF_BUNDLE_GENERIC_DESCRIPTORS), dp;

	kt_pb_varint(desc, GD_FIELD_ID, t->id);
	kt_pb_string(desc, GD_GROUP, t->system);
	dp = kt_pb_open(desc, GD_DESCRIPTOR);
	kt_pb_string(desc, DP_NAME, t->name);
	for (size_t i = 0; i < t->nfields; i++) {
		size_t f = kt_pb_open(desc, DP_FIELD);
		char k = t->f[i].kind;
		int type = k == 'z' ? FD_TYPE_SINT64 : k == 'f' ? FD_TYPE_FIXED64 :
			   k == 'u' ? FD_TYPE_UINT64 : k == 's' ? FD_TYPE_STRING : FD_TYPE_BYTES;

		kt_pb_string(desc, FD_NAME, t->f[i].name);
		kt_pb_varint(desc, FD_NUMBER, t->f[i].number);
		kt_pb_varint(desc, FD_LABEL, FD_LABEL_OPTIONAL);
		kt_pb_varint(desc, FD_TYPE, (uint64_t)type);
		kt_pb_close(desc, f);
	}
	kt_pb_close(desc, dp);
	kt_pb_close(desc, g);
}

struct type_key {
	const struct pf_events *e;
	const char *system, *name;
	uint32_t source;
};

static bool same_type(const void *ctx, uint32_t i)
{
	const struct type_key *k = ctx;
	const struct pf_slot *t = &k->e->known[i];

	return t->name == k->name && t->system == k->system && t->source == k->source;
}

static struct pf_type *find_type(struct pf_events *e, struct ktrace_stream *s,
				 const struct ktrace_stream_record *r, struct kt_pb_buf *desc,
				 int *err)
{
	const char *name = event_name(r);
	struct type_key k = { e, r->system, r->name, r->source };
	uint64_t h;
	uint32_t at;
	struct pf_type *t;

	struct pf_slot *d = NULL;

	/* records of one type come in runs; and ftrace event ids are small */
	if (e->last.type && e->last.name == r->name && e->last.system == r->system &&
	    e->last.source == r->source)
		return e->last.type;
	if (r->source < DIRECT_SOURCES && r->event_id < DIRECT_IDS) {
		if (!e->direct[r->source])
			e->direct[r->source] = calloc(DIRECT_IDS, sizeof(struct pf_slot));
		d = e->direct[r->source] ? &e->direct[r->source][r->event_id] : NULL;
		if (d && d->type && d->name == r->name && d->system == r->system) {
			e->last = *d;
			return d->type;
		}
	}
	h = hash_type(r->source, r->system, r->name);
	if (kt_map_find(&e->index, h, same_type, &k, &at)) {
		e->last = e->known[at];
		if (d)
			*d = e->last;
		return e->last.type;
	}
	if (kt_grow((void **)&e->known, &e->cap_known, e->ntypes + 1, sizeof(*e->known))) {
		*err = -ENOMEM;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(t->system = strdup(r->system)) || !(t->name = strdup(name))) {
		if (t)
			free_type(t);
		*err = -ENOMEM;
		return NULL;
	}
	t->source = r->source;
	*err = classify(e, s, t);
	if (*err) {
		free_type(t);
		return NULL;
	}
	if (t->mode == M_DENSE)
		describe(t, desc);
	t->next = e->types;
	e->types = t;
	if (kt_map_add(&e->index, h, (uint32_t)e->ntypes)) {
		*err = -ENOMEM;
		return NULL;
	}
	e->known[e->ntypes] = (struct pf_slot){ r->system, r->name, r->source, t };
	if (d)
		*d = e->known[e->ntypes];
	e->ntypes++;
	return t;
}

/* ---- encoding ---- */

static void put_legacy(struct pf_events *e, struct ktrace_stream *s,
		       const struct ktrace_stream_record *r, struct kt_pb_buf *b)
{
	size_t n = ktrace_stream_field_count(s), g = kt_pb_open(b, FE_GENERIC);

	kt_pb_string(b, GE_NAME, event_name(r));
	for (size_t i = 0; i < n; i++) {
		struct ktrace_event_value v;
		size_t f;

		if (ktrace_stream_field(s, i, &v))
			continue;
		f = kt_pb_open(b, GE_FIELD);
		kt_pb_string(b, GF_NAME, v.name);
		if (v.type == KTRACE_EVENT_SIGNED) {
			kt_pb_varint(b, GF_INT, (uint64_t)v.i);
		} else if (v.type == KTRACE_EVENT_UNSIGNED) {
			kt_pb_varint(b, GF_UINT, v.u);
		} else {
			const void *data;
			size_t len;

			value_text(e, &v, &data, &len);
			kt_pb_bytes(b, GF_STR, data, len);
		}
		kt_pb_close(b, f);
	}
	kt_pb_close(b, g);
}

/* One value as field f of its type says: false when it does not fit. */
static bool put_value(struct pf_events *e, const struct pf_type *t, const struct pf_field *f,
		      const struct ktrace_event_value *v, struct kt_pb_buf *b)
{
	if (f->kind == 's' || f->kind == 'a' || f->kind == 'b') {
		const void *data;
		size_t len;

		/* a typed string takes any text; a generic field keeps its kind */
		if (is_number(v) || (t->mode == M_DENSE &&
				      f->kind != (v->type == KTRACE_EVENT_ARRAY ? 'a' :
						  v->type == KTRACE_EVENT_BYTES ? 'b' : 's')))
			return false;
		value_text(e, v, &data, &len);
		kt_pb_bytes(b, f->number, data, len);
		return true;
	}
	if (!is_number(v))
		return false;
	switch (f->kind) {
	case 'z':
		kt_pb_sint(b, f->number, (int64_t)bits(v));
		break;
	case 'f':
		kt_pb_fixed64(b, f->number, bits(v));
		break;
	default:   /* 'i', 'u': the value's bits, sign-extended when signed */
		kt_pb_varint(b, f->number, bits(v));
		break;
	}
	return true;
}

/* The record's fields as its type says; false when a value does not fit (then the
 * caller writes the record in the legacy form). */
static bool put_fields(struct pf_events *e, struct ktrace_stream *s, const struct pf_type *t,
		       struct kt_pb_buf *b)
{
	/* typed and described types have 31 fields at most */
	struct ktrace_event_value vals[32];

	if (t->nfields > 31 || ktrace_stream_fields(s, vals, 32) != t->nfields)
		return false;
	for (size_t i = 0; i < t->nfields; i++) {
		const struct pf_field *f = &t->f[i];
		const struct ktrace_event_value *v = &vals[i];

		if (!v->name || (v->name != f->ptr && strcmp(v->name, f->name)))
			return false;
		if (!put_value(e, t, f, v, b))
			return false;
	}
	return true;
}

/* Where the numbers of ev's records lie, for put_fast: false when the type's fields are
 * not ev's fields or a number field is not written as a number. */
static bool make_plan(struct pf_type *t, struct ktrace_events *evs, const struct ktrace_event *ev)
{
	struct ktrace_event_value v;
	struct ktrace_record kr = { .data = "", .size = 0 };

	t->plan_ev = ev;
	t->plan = -1;
	t->need = 0;
	if (ktrace_event_field_count(ev) != t->nfields || t->nfields > 31)
		return false;
	if (t->nfields && !ktrace_event_field_value(evs, ev, 0, &kr, &v))
		t->big = v.big_endian;
	for (size_t i = 0; i < t->nfields; i++) {
		struct pf_field *f = &t->f[i];
		const char *name = ktrace_event_field_name(ev, i);
		uint32_t off = 0, size = 0;

		if (!name || strcmp(name, f->name))
			return false;
		f->cls = (uint8_t)ftev_field_class(ev, i, &off, &size);
		if (f->cls == FTEV_FIELD_OTHER)
			continue;
		if (f->kind == 's' || f->kind == 'a' || f->kind == 'b')
			return false;
		f->off = off;
		f->size = (uint8_t)size;
		f->taglen = (uint8_t)(kt_pb_put_varint(f->tag, kt_pb_tag(f->number, f->kind == 'f' ?
									   KT_PB_FIXED64 : KT_PB_VARINT)) -
				      f->tag);
		if (off + size > t->need)
			t->need = off + size;
	}
	t->plan = 1;
	return true;
}

/* put_fields for an ftrace record, its numbers read straight from its bytes and written
 * in place: 1 done, 0 to be done the long way (-1: a value does not fit). */
static int put_fast(struct pf_events *e, struct ktrace_stream *s, struct pf_type *t,
		    struct kt_pb_buf *b)
{
	struct kt_ftrace_raw raw;
	struct ktrace_record kr;
	uint8_t *p;

	if (t->plan < 0 || kt_stream_ftrace_raw(s, &raw))
		return 0;
	if (t->plan_ev != raw.ev && !make_plan(t, raw.evs, raw.ev))
		return 0;
	if (raw.size < t->need || !kt_pb_room(b, t->nfields * 16))
		return 0;
	kr = (struct ktrace_record){ .data = raw.data, .size = raw.size, .avail = raw.size };
	p = b->p + b->len;
	for (size_t i = 0; i < t->nfields; i++) {
		const struct pf_field *f = &t->f[i];
		const uint8_t *d = raw.data + f->off;
		uint64_t u;

		if (f->cls == FTEV_FIELD_OTHER) {
			struct ktrace_event_value v;

			b->len = (size_t)(p - b->p);
			ktrace_event_field_value(raw.evs, raw.ev, i, &kr, &v);
			if (!put_value(e, t, f, &v, b))
				return -1;
			if (!kt_pb_room(b, (t->nfields - i) * 16))
				return -1;
			p = b->p + b->len;
			continue;
		}
		u = kt_load_sized(d, f->size, t->big);
		if (f->cls == FTEV_FIELD_SIGNED)
			u = (uint64_t)kt_sign_extend(u, f->size);
		memcpy(p, f->tag, sizeof(f->tag));   /* room checked above: 16 bytes a field */
		p += f->taglen;
		if (f->kind == 'f') {
			for (int k = 0; k < 8; k++)
				p[k] = (uint8_t)(u >> (8 * k));
			p += 8;
		} else {
			p = kt_pb_put_varint(p, f->kind == 'z' ? kt_pb_zigzag((int64_t)u) : u);
		}
	}
	b->len = (size_t)(p - b->p);
	return 1;
}

static void put_sched(struct ktrace_stream *s, struct kt_pb_buf *b)
{
	struct ktrace_stream_sched sc;
	size_t m;

	ktrace_stream_sched(s, &sc);
	if (sc.kind == KTRACE_STREAM_SCHED_SWITCH) {
		m = kt_pb_open(b, FE_SCHED_SWITCH);
		kt_pb_string(b, 1, sc.prev_comm);
		kt_pb_varint(b, 2, (uint64_t)sc.prev_tid);
		kt_pb_varint(b, 3, (uint64_t)(int64_t)sc.prev_prio);
		kt_pb_varint(b, 4, (uint64_t)sc.prev_state);
		kt_pb_string(b, 5, sc.next_comm);
		kt_pb_varint(b, 6, (uint64_t)sc.next_tid);
		kt_pb_varint(b, 7, (uint64_t)(int64_t)sc.next_prio);
	} else {
		m = kt_pb_open(b, FE_SCHED_WAKING);
		kt_pb_string(b, 1, sc.next_comm);
		kt_pb_varint(b, 2, (uint64_t)sc.next_tid);
		kt_pb_varint(b, 3, (uint64_t)(int64_t)sc.next_prio);
		if (sc.target_cpu >= 0)
			kt_pb_varint(b, 5, (uint64_t)sc.target_cpu);
	}
	kt_pb_close(b, m);
}

int pf_event_type(struct pf_events *e, struct ktrace_stream *s,
		  const struct ktrace_stream_record *r, struct kt_pb_buf *desc)
{
	int err = 0;

	return find_type(e, s, r, desc, &err) ? 0 : err;
}

bool pf_event_known(const struct pf_events *e, uint32_t source, uint32_t id)
{
	return source < DIRECT_SOURCES && id < DIRECT_IDS && e->direct[source] &&
	       e->direct[source][id].type;
}

int pf_event_encode(struct pf_events *e, struct ktrace_stream *s,
		    const struct ktrace_stream_record *r, struct kt_pb_buf *b,
		    struct kt_pb_buf *desc)
{
	int err = 0;
	struct pf_type *t = find_type(e, s, r, desc, &err);
	size_t ev, start;

	if (!t)
		return err;
	start = b->len;
	ev = kt_pb_open(b, PF_BUNDLE_EVENT);
	kt_pb_varint(b, FE_TIMESTAMP, r->ts);
	/* unknown: 0; ids of more than 32 bits (KOFF) keep their low 32 bits, as ktrace dump
	 * shows them */
	kt_pb_varint(b, FE_PID, r->tid == -1 ? 0 : (uint32_t)r->tid);
	switch (t->mode) {
	case M_SCHED:
		put_sched(s, b);
		break;
	case M_LEGACY:
		put_legacy(e, s, r, b);
		break;
	default: {
		size_t before = b->len, m = kt_pb_open(b, t->id);
		int fast = put_fast(e, s, t, b);

		if (fast == 0) {
			b->len = m;
			fast = put_fields(e, s, t, b) ? 1 : -1;
		}
		if (fast > 0) {
			kt_pb_close(b, m);
		} else {
			b->len = before;
			put_legacy(e, s, r, b);
		}
		break;
	}
	}
	kt_pb_close(b, ev);
	if (b->oom || desc->oom || e->text.oom) {
		b->len = start;
		return -ENOMEM;
	}
	return 0;
}
