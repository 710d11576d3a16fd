// SPDX-License-Identifier: MIT
/* Listings of a registry's functions and printk formats (ktrace/ftrace_meta.h). */
#include <ktrace/ftrace_meta.h>

#include "ftrace/event_internal.h"

size_t ktrace_events_function_count(struct ktrace_events *evs)
{
	/* a lookup sorts the table the way libtraceevent's func_map_init does */
	if (evs->nsyms)
		ev_find_func(evs, 0);
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
		ev_find_printk(evs, 0);
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
