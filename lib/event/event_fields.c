// SPDX-License-Identifier: MIT
/* An event's fields by name and the numbers records hold in them (ktrace/event.h), for
 * analyses that read records themselves (report -w, --profile). */
#include <ktrace/event.h>

#include <string.h>

#include "event/event_internal.h"

static const struct ktrace_event_field *pub(const struct ftev_field *f)
{
	return (const struct ktrace_event_field *)f;
}

static const struct ftev_field *priv(const struct ktrace_event_field *f)
{
	return (const struct ftev_field *)f;
}

const struct ktrace_event_field *ktrace_event_field(const struct ktrace_event *ev, const char *name)
{
	return ev && name ? pub(ftev_find_field(ev, name)) : NULL;
}

const struct ktrace_event_field *ktrace_event_common_field(const struct ktrace_event *ev,
							   const char *name)
{
	return ev && name ? pub(ftev_find_common_field(ev, name)) : NULL;
}

size_t ktrace_event_field_count(const struct ktrace_event *ev)
{
	size_t n = 0;

	for (const struct ftev_field *f = ev ? ev->fields : NULL; f; f = f->next)
		n++;
	return n;
}

const struct ktrace_event_field *ktrace_event_field_at(const struct ktrace_event *ev, size_t i)
{
	for (const struct ftev_field *f = ev ? ev->fields : NULL; f; f = f->next)
		if (!i--)
			return pub(f);
	return NULL;
}

const char *ktrace_event_field_name(const struct ktrace_event_field *f)
{
	return priv(f)->name;
}

uint32_t ktrace_event_field_offset(const struct ktrace_event_field *f)
{
	return priv(f)->offset;
}

uint32_t ktrace_event_field_size(const struct ktrace_event_field *f)
{
	return priv(f)->size;
}

int ktrace_event_field_number(const struct ktrace_events *evs, const struct ktrace_event_field *field,
			      const struct ktrace_record *rec, uint64_t *val)
{
	const struct ftev_field *f = priv(field);
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
