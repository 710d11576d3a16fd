// SPDX-License-Identifier: MIT
/* Listings of a registry's functions and printk formats (ktrace/ftrace_meta.h). */
#include <ktrace/ftrace_meta.h>

#include "ftrace/event_internal.h"

size_t ktrace_events_function_count(struct ktrace_events *evs)
{
	/* a lookup sorts the table the way libtraceevent's func_map_init does */
	if (evs->nsyms)
		ftev_find_func(evs, 0);
	return evs->nsyms;
}

void ktrace_events_function_at(struct ktrace_events *evs, size_t i, uint64_t *addr,
			       const char **name, const char **mod)
{
	if (i >= ktrace_events_function_count(evs)) {
		*addr = 0;
		*name = "";
		*mod = NULL;
		return;
	}
	*addr = evs->syms[i].addr;
	*name = evs->syms[i].name;
	*mod = evs->syms[i].mod;
}

size_t ktrace_events_printk_count(struct ktrace_events *evs)
{
	if (evs->nprintks)
		ftev_find_printk(evs, 0);
	return evs->nprintks;
}

void ktrace_events_printk_at(struct ktrace_events *evs, size_t i, uint64_t *addr,
			     const char **fmt)
{
	if (i >= ktrace_events_printk_count(evs)) {
		*addr = 0;
		*fmt = "";
		return;
	}
	*addr = evs->printks[i].addr;
	*fmt = evs->printks[i].fmt;
}

/* Keep in step with the state event_print.c and event_plugins.c keep between records. */
bool ktrace_event_ordered(const struct ktrace_event *ev, bool raw)
{
	switch (ev->handler) {
	case H_SCHED_SWITCH:        /* learn comms */
	case H_SCHED_WAKEUP:
	case H_FUNCTION:            /* per-CPU call stacks */
	case H_FUNC_REPEATS:
	case H_FGRAPH_ENTRY:        /* looks at the next record */
	case H_FGRAPH_EXIT:
		return true;
	default:
		break;
	}
	/* a bprint record can fail the event for the records after it */
	if (ev->flags & (EV_ISBPRINT | EV_FAILED))
		return true;
	/* -R (and [FAILED TO PARSE]) output turns a string field into an array for good
	 * once it held a non-printable byte */
	if (raw)
		for (const struct ftev_field *f = ev->fields; f; f = f->next)
			if (f->flags & EVF_STRING)
				return true;
	if (raw)
		for (const struct ftev_field *f = ev->common; f; f = f->next)
			if (f->flags & EVF_STRING)
				return true;
	/* a conversion libtraceevent cannot print fails the event on first use */
	for (const struct ftev_seg *s = ev->segs; s; s = s->next)
		if (s->ls < -2 || s->ls > 2)
			return true;
	return false;
}

uint32_t ktrace_event_fixed_size(const struct ktrace_event *ev)
{
	uint64_t end = 0;

	for (const struct ftev_field *f = ev->common; f; f = f->next)
		if ((uint64_t)f->offset + f->size > end)
			end = (uint64_t)f->offset + f->size;
	for (const struct ftev_field *f = ev->fields; f; f = f->next)
		if ((uint64_t)f->offset + f->size > end)
			end = (uint64_t)f->offset + f->size;
	return end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
}
