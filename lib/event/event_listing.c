// SPDX-License-Identifier: MIT
/* Listings of a registry's functions and printk formats (ktrace/event.h). */
#include <ktrace/event.h>

#include <stdio.h>
#include <string.h>

#include "event/event_int.h"
#include "event/event_share.h"

size_t ktrace_event_function_count(struct ktrace_events *evs)
{
	/* a lookup sorts the table the way libtraceevent's func_map_init does */
	ftev_syms_need(evs);
	if (evs->nsyms)
		ftev_find_func(evs, 0);
	return evs->nsyms;
}

void ktrace_event_function_at(struct ktrace_events *evs, size_t i, uint64_t *addr,
			       const char **name, const char **mod)
{
	if (i >= ktrace_event_function_count(evs)) {
		*addr = 0;
		*name = "";
		*mod = NULL;
		return;
	}
	*addr = evs->syms[i].addr;
	*name = evs->syms[i].name;
	*mod = evs->syms[i].mod;
}

size_t ktrace_event_printk_count(struct ktrace_events *evs)
{
	if (evs->nprintks)
		ftev_find_printk(evs, 0);
	return evs->nprintks;
}

void ktrace_event_printk_at(struct ktrace_events *evs, size_t i, uint64_t *addr,
			     const char **fmt)
{
	if (i >= ktrace_event_printk_count(evs)) {
		*addr = 0;
		*fmt = "";
		return;
	}
	*addr = evs->printks[i].addr;
	*fmt = evs->printks[i].fmt;
}

/* Keep in step with the state event_print.c and event_plugins.c keep between records. */
enum ktrace_event_order ktrace_event_order(const struct ktrace_event *ev, bool raw)
{
	bool learns = false;

	switch (ev->handler) {
	case H_SCHED_SWITCH:        /* learn comms (the text does not depend on them) */
	case H_SCHED_WAKEUP:
		learns = !raw;
		break;
	case H_FUNCTION:            /* per-CPU call stacks */
	case H_FUNC_REPEATS:
	case H_FGRAPH_ENTRY:        /* looks at the next record */
	case H_FGRAPH_EXIT:
		return KTRACE_EVENT_IN_ORDER;
	default:
		break;
	}
	/* a bprint record can fail the event for the records after it */
	if (ev->flags & EV_ISBPRINT)
		return KTRACE_EVENT_IN_ORDER;
	/* -R (and [FAILED TO PARSE]) output turns a string field into an array for good
	 * once it held a non-printable byte */
	if (raw || (ev->flags & EV_FAILED))
		for (const struct ftev_field *f = ev->fields; f; f = f->next)
			if (f->flags & EVF_STRING)
				return KTRACE_EVENT_IN_ORDER;
	if (raw)
		for (const struct ftev_field *f = ev->common; f; f = f->next)
			if (f->flags & EVF_STRING)
				return KTRACE_EVENT_IN_ORDER;
	/* a conversion libtraceevent cannot print fails the event on first use */
	for (const struct ftev_seg *s = ev->segs; s; s = s->next)
		if (s->ls < -2 || s->ls > 2)
			return KTRACE_EVENT_IN_ORDER;
	return learns ? KTRACE_EVENT_LEARN_IN_ORDER : KTRACE_EVENT_ANY_ORDER;
}

bool ktrace_event_ordered(const struct ktrace_event *ev, bool raw)
{
	/* the sched events teach comms even with -R: their plugin is not run then, but
	 * callers that ask this keep them in order as before */
	switch (ev->handler) {
	case H_SCHED_SWITCH:
	case H_SCHED_WAKEUP:
		return true;
	default:
		return ktrace_event_order(ev, raw) != KTRACE_EVENT_ANY_ORDER;
	}
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

size_t ktrace_event_comm_pids(struct ktrace_events *evs, const char *comm, int *pids, size_t max)
{
	size_t n = 0;

	/* before the first lookup the table is in registration order and libtraceevent
	 * searches its list, newest first; after it, the sorted table from the start */
	for (size_t k = 0; k < evs->ncomms; k++) {
		size_t i = evs->comms_sorted ? k : evs->ncomms - 1 - k;

		if (!strcmp(evs->comms[i].comm, comm)) {
			if (n < max)
				pids[n] = evs->comms[i].pid;
			n++;
		}
	}
	return n;
}

int ktrace_event_add_blktrace(struct ktrace_events *evs)
{
	static const char *const after[] = { "power", "kmem_free", "user_stack" };
	static const struct { const char *name; uint32_t offset, size; } common[] = {
		{ "common_type", 0, 2 }, { "common_flags", 2, 1 },
		{ "common_preempt_count", 3, 1 }, { "common_pid", 4, 4 },
	};
	const struct ktrace_event *ev = NULL;
	const struct ftev_field *f;
	char buf[2048];
	int id, n;

	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]) && !ev; i++)
		ev = ktrace_event_find_by_name(evs, "ftrace", after[i]);
	if (!ev || ev->id == INT32_MAX)
		return 0;
	id = ev->id + 1;
	if (ktrace_event_find(evs, id))
		return 0;
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		f = ftev_find_common_field(ev, common[i].name);
		if (!f || f->offset != common[i].offset || f->size != common[i].size)
			return 0;
	}
	n = snprintf(buf, sizeof(buf),
		     "name: blktrace\nID: %d\nformat:\n"
		     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
		     "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\n"
		     "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\n"
		     "\tfield:int common_pid;\toffset:4;\tsize:4;\n", id);
	/* lock depth is optional */
	f = ftev_find_common_field(ev, "common_lock_depth");
	if (f) {
		if (f->offset != 8 || f->size != 4)
			return 0;
		n += snprintf(buf + n, sizeof(buf) - (size_t)n,
			      "\tfield:int common_lock_depth;\toffset:8;\tsize:4;\n");
	}
	n += snprintf(buf + n, sizeof(buf) - (size_t)n, "\n"
		      "\tfield:u64 sector;\toffset:16;\tsize:8;\n"
		      "\tfield:int bytes;\toffset:24;\tsize:4;\n"
		      "\tfield:int action;\toffset:28;\tsize:4;\n"
		      "\tfield:int pid;\toffset:32;\tsize:4;\n"
		      "\tfield:int device;\toffset:36;\tsize:4;\n"
		      "\tfield:int cpu;\toffset:40;\tsize:4;\n"
		      "\tfield:short error;\toffset:44;\tsize:2;\n"
		      "\tfield:short pdu_len;\toffset:46;\tsize:2;\n"
		      "\tfield:void data;\toffset:48;\tsize:0;\n"
		      "\n"
		      "print fmt: \"%%d\", REC->pid\n");
	return ktrace_event_add_format(evs, "ftrace", buf, (size_t)n, NULL, NULL) == 0;
}
