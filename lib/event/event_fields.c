// SPDX-License-Identifier: MIT
/*
 * Typed field values of a record (ktrace_event_field_*) and the comms a record teaches
 * (ktrace_event_learn_comms), for readers that do not format text: the event stream,
 * export, SQL. Nothing is read outside the record.
 */
#include <ktrace/event.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event/event_int.h"
#include "event/event_share.h"

static const struct ftev_field *nth_field(const struct ktrace_event *ev, size_t i)
{
	return i < (size_t)(ev->nfields > 0 ? ev->nfields : 0) ? ev->field_at[i] : NULL;
}

size_t ktrace_event_field_count(const struct ktrace_event *ev)
{
	return ev && ev->nfields > 0 ? (size_t)ev->nfields : 0;
}

const char *ktrace_event_field_name(const struct ktrace_event *ev, size_t i)
{
	const struct ftev_field *f = ev ? nth_field(ev, i) : NULL;

	return f ? f->name : NULL;
}

/* Where a __data_loc / __rel_loc field's data lies in the record (0, 0 when it does not). */
static void dynamic_span(const struct ktrace_events *evs, const struct ftev_field *f,
			 const uint8_t *data, uint32_t size, uint32_t *off, uint32_t *len)
{
	uint64_t word, o, l;

	*off = *len = 0;
	if ((f->size != 4 && f->size != 2) || (uint64_t)f->offset + f->size > size)
		return;
	word = ftev_read_number(evs, data + f->offset, f->size);
	o = word & 0xffff;
	/* a 2-byte __data_loc has no length: the data goes on to the end of the record */
	l = f->size == 2 ? (o <= size ? size - o : 0) : (word >> 16) & 0xffff;
	if (f->flags & EVF_RELATIVE)
		o += (uint64_t)f->offset + f->size;
	if (o > size || l > size - o)
		return;
	*off = (uint32_t)o;
	*len = (uint32_t)l;
}

static uint32_t str_len(const uint8_t *p, uint32_t max)
{
	const uint8_t *z = memchr(p, 0, max);

	return z ? (uint32_t)(z - p) : max;
}

static void field_value(const struct ktrace_events *evs, const struct ftev_field *f,
			const struct ktrace_record *rec, struct ktrace_event_value *v)
{
	const uint8_t *data = rec->data;
	uint32_t size = rec->size, off, len;
	unsigned elem;

	memset(v, 0, sizeof(*v));
	v->name = f->name;
	v->big_endian = evs->big_endian;
	if (f->flags & EVF_DYNAMIC) {
		dynamic_span(evs, f, data, size, &off, &len);
	} else {
		/* a fixed array may run past a shorter record (a stack trace of fewer frames
		 * than caller[] holds): its value is the part inside the record */
		off = f->offset;
		len = f->size;
		/* "char buf[]" (size 0): the data goes on to the end of the record */
		if (!len && (f->flags & EVF_ARRAY) && off <= size)
			len = size - off;
		if ((uint64_t)off + len > size) {
			if (off < size && (f->flags & (EVF_ARRAY | EVF_STRING)))
				len = size - off;
			else
				off = len = 0;
		}
	}
	if (f->flags & EVF_STRING) {
		v->type = KTRACE_EVENT_STRING;
		v->data = data + off;
		v->len = str_len(data + off, len);
		return;
	}
	elem = f->elementsize ? f->elementsize : f->size;
	if (!(f->flags & (EVF_ARRAY | EVF_DYNAMIC)) && (len == 1 || len == 2 || len == 4 || len == 8)) {
		uint64_t u = ftev_read_number(evs, data + off, len);

		if (f->flags & EVF_SIGNED) {
			v->type = KTRACE_EVENT_SIGNED;
			v->i = kt_sign_extend(u, len);
			v->u = (uint64_t)v->i;
		} else {
			v->type = KTRACE_EVENT_UNSIGNED;
			v->u = u;
			v->i = (int64_t)u;
		}
		return;
	}
	v->data = data + off;
	v->len = len;
	if ((f->flags & (EVF_ARRAY | EVF_DYNAMIC)) && (elem == 1 || elem == 2 || elem == 4 || elem == 8)) {
		v->type = KTRACE_EVENT_ARRAY;
		v->elem_size = (uint8_t)elem;
		v->elem_signed = (f->flags & EVF_SIGNED) != 0;
		v->count = len / elem;
		return;
	}
	v->type = KTRACE_EVENT_BYTES;
	return;
}

int ftev_field_class(const struct ktrace_event *ev, size_t i, uint32_t *offset, uint32_t *size)
{
	const struct ftev_field *f = ev ? nth_field(ev, i) : NULL;

	if (!f || (f->flags & (EVF_STRING | EVF_ARRAY | EVF_DYNAMIC)) ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return FTEV_FIELD_OTHER;
	*offset = f->offset;
	*size = f->size;
	return f->flags & EVF_SIGNED ? FTEV_FIELD_SIGNED : FTEV_FIELD_UNSIGNED;
}

int ktrace_event_field_value(struct ktrace_events *evs, const struct ktrace_event *ev, size_t i,
			     const struct ktrace_record *rec, struct ktrace_event_value *v)
{
	const struct ftev_field *f = ev ? nth_field(ev, i) : NULL;

	if (!f) {
		memset(v, 0, sizeof(*v));
		return -ENOENT;
	}
	field_value(evs, f, rec, v);
	return 0;
}

size_t ktrace_event_field_values(struct ktrace_events *evs, const struct ktrace_event *ev,
				 const struct ktrace_record *rec, struct ktrace_event_value *v,
				 size_t max)
{
	size_t n = ktrace_event_field_count(ev);

	for (size_t i = 0; i < n && i < max; i++)
		field_value(evs, ev->field_at[i], rec, &v[i]);
	return n;
}

uint64_t ktrace_event_array_at(const struct ktrace_event_value *v, size_t k)
{
	const uint8_t *p;
	uint64_t u = 0;

	if (v->type != KTRACE_EVENT_ARRAY || k >= v->count)
		return 0;
	p = (const uint8_t *)v->data + k * v->elem_size;
	for (unsigned b = 0; b < v->elem_size; b++)
		u |= (uint64_t)p[v->big_endian ? b : v->elem_size - 1 - b] << (8 * (v->elem_size - 1 - b));
	return v->elem_signed ? (uint64_t)kt_sign_extend(u, v->elem_size) : u;
}

/* Where ev keeps the pids it teaches comms of (learn_state). */
static void learn_layout(struct ktrace_event *ev)
{
	static const char *const names[2][4] = {
		{ "prev_pid", "prev_comm", "next_pid", "next_comm" }, { "pid", "comm", NULL, NULL },
	};
	int k = ev->handler == H_SCHED_SWITCH ? 0 : 1;
	unsigned n = 0;

	for (int i = 0; i < 4 && names[k][i]; i += 2) {
		int pi = ktrace_event_field_index(ev, names[k][i]);
		uint32_t off, size;

		/* a pid without its comm is learnt from by the slow path only */
		if (pi < 0 || ktrace_event_field_index(ev, names[k][i + 1]) < 0 ||
		    ftev_field_class(ev, (size_t)pi, &off, &size) == FTEV_FIELD_OTHER || size != 4 ||
		    off > UINT16_MAX) {
			ev->learn_state = 1;
			return;
		}
		ev->learn_off[n++] = (uint16_t)off;
	}
	ev->learn_state = (uint8_t)(1 + n);
}

int ktrace_event_learn_comms(struct ktrace_events *evs, const struct ktrace_record *rec)
{
	struct ktrace_event *ev = (struct ktrace_event *)ktrace_event_record_event(evs, rec);
	struct ftev_ctx c = { 0 };
	uint32_t pid[2];
	unsigned n = 0;
	bool known;

	if (!ev || (ev->handler != H_SCHED_SWITCH && ev->handler != H_SCHED_WAKEUP))
		return 0;
	if (!ev->learn_state)
		learn_layout(ev);
	/* the pids learnt from before teach nothing new (the first comm of a pid stays) */
	if (ev->learn_state > 1 && (evs->learnt_pids ||
				    (evs->learnt_pids = calloc(EV_LEARNT_PIDS, sizeof(uint32_t))))) {
		n = ev->learn_state - 1u;
		known = true;
		for (unsigned i = 0; i < n; i++) {
			if (rec->size < ev->learn_off[i] + 4u) {
				n = 0;
				break;
			}
			pid[i] = (uint32_t)ftev_read_number(evs, (const uint8_t *)rec->data +
								  ev->learn_off[i], 4);
			if (evs->learnt_pids[pid[i] % EV_LEARNT_PIDS] != pid[i] + 1)
				known = false;
		}
		if (n && known)
			return 1;
	}
	ftev_ctx_init(&c, evs, rec, ev);
	ftev_learn_comms(&c);
	for (unsigned i = 0; i < n; i++)
		evs->learnt_pids[pid[i] % EV_LEARNT_PIDS] = pid[i] + 1;
	return 1;
}

/* ---- what analyses that read records themselves need (report -w, --profile) ---- */

int ktrace_event_field_index(const struct ktrace_event *ev, const char *name)
{
	int i = 0;

	for (const struct ftev_field *f = ev ? ev->fields : NULL; f && name; f = f->next, i++)
		if (!strcmp(f->name, name))
			return i;
	return -1;
}

int ktrace_event_field_layout(const struct ktrace_event *ev, size_t i, uint32_t *offset,
			      uint32_t *size)
{
	const struct ftev_field *f = ev ? nth_field(ev, i) : NULL;

	if (!f)
		return -ENOENT;
	*offset = f->offset;
	*size = f->size;
	return 0;
}

int ktrace_event_field_number(const struct ktrace_events *evs, const struct ktrace_event *ev,
			      size_t i, const struct ktrace_record *rec, uint64_t *val)
{
	const struct ftev_field *f = ev ? nth_field(ev, i) : NULL;
	uint32_t avail;

	if (!f)
		return -1;
	avail = rec->avail > rec->size ? rec->avail : rec->size;
	switch (f->size) {
	case 1: case 2: case 4: case 8:
		if ((uint64_t)f->offset + f->size > avail)
			return -1;
		*val = ftev_read_number(evs, (const uint8_t *)rec->data + f->offset, f->size);
		return 0;
	default:
		return -1;
	}
}
