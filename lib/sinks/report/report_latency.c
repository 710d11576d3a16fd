// SPDX-License-Identifier: MIT
/*
 * `ktrace report -w`: wake-up latencies, as trace-cmd 3.1.6's `trace-cmd report -w`
 * measures them. A successful sched_wakeup (or sched_wakeup_new) of a task starts the
 * clock (a second wake-up restarts it); the sched_switch to that task stops it: its
 * report line ends with " Latency: U.NNN usecs". Tasks switched to with a priority below
 * 100 are real-time ones, counted apart too. After the report come the average, the
 * longest and the shortest latency with the time of the switch, for all tasks, then
 * for real-time tasks when there were some.
 *
 * The report itself is the trace.dat report view's; this only adds to its lines (the
 * line_suffix hook, called in output order for the records that pass the filters) and
 * prints the summary. Like trace-cmd, it works when the file has sched_wakeup and
 * sched_switch (with pid, next_pid and next_prio fields), and tasks are told apart by
 * the low 32 bits of their pid.
 */
#include <ktrace/event.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/view.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "common/outbuf.h"
#include "sinks/report/report.h"

/* A task woken and not yet switched to: its wake-up time. */
struct pending {
	uint64_t start;
	uint32_t next_free;             /* (on the free list) the next free one + 1 */
};

struct totals {
	uint64_t total, count;
	uint64_t max, max_time, min, min_time;
};

struct wakeup {
	struct ktrace_events *evs;            /* the registry the ids below are of */
	bool ok;                              /* the events are there */
	int wakeup_id, wakeup_new_id, switch_id;
	const struct ktrace_event *wakeup, *wakeup_new, *sched_switch;
	int wakeup_pid, wakeup_success, new_pid, new_success, next_pid, next_prio;
	struct kt_map by_pid;                 /* pid -> pending[] */
	struct pending *pending;
	size_t npending, cap_pending;
	uint32_t free_pending;                /* the first free one + 1 (0: none) */
	struct totals all, rt;
	bool oom;
};

static void init_events(struct wakeup *w, struct ktrace_events *evs)
{
	w->evs = evs;
	w->ok = false;
	w->wakeup = ktrace_event_find_by_name(evs, "sched", "sched_wakeup");
	w->sched_switch = ktrace_event_find_by_name(evs, "sched", "sched_switch");
	w->wakeup_new = ktrace_event_find_by_name(evs, "sched", "sched_wakeup_new");
	if (!w->wakeup || !w->sched_switch)
		return;
	w->wakeup_id = ktrace_event_id(w->wakeup);
	w->wakeup_pid = ktrace_event_field_index(w->wakeup, "pid");
	w->wakeup_success = ktrace_event_field_index(w->wakeup, "success");
	w->switch_id = ktrace_event_id(w->sched_switch);
	w->next_pid = ktrace_event_field_index(w->sched_switch, "next_pid");
	w->next_prio = ktrace_event_field_index(w->sched_switch, "next_prio");
	if (w->wakeup_pid < 0 || w->next_pid < 0 || w->next_prio < 0)
		return;
	w->wakeup_new_id = -1;
	if (w->wakeup_new) {
		w->wakeup_new_id = ktrace_event_id(w->wakeup_new);
		w->new_pid = ktrace_event_field_index(w->wakeup_new, "pid");
		w->new_success = ktrace_event_field_index(w->wakeup_new, "success");
		if (w->new_pid < 0)
			return;
	}
	w->ok = true;
}

static int field(const struct wakeup *w, const struct ktrace_event *ev, int i,
		 const struct ktrace_record *rec, uint64_t *val)
{
	return i < 0 ? -1 : ktrace_event_field_number(w->evs, ev, (size_t)i, rec, val);
}

static void woken(struct wakeup *w, uint32_t pid, uint64_t ts)
{
	uint32_t i;

	if (!kt_map_get(&w->by_pid, pid, 0, &i)) {
		if (w->free_pending) {
			i = w->free_pending - 1;
		} else {
			if (w->npending >= UINT32_MAX - 1 ||
			    kt_grow((void **)&w->pending, &w->cap_pending, w->npending + 1,
				    sizeof(*w->pending))) {
				w->oom = true;
				return;
			}
			i = (uint32_t)w->npending;
		}
		if (kt_map_put(&w->by_pid, pid, 0, i)) {
			w->oom = true;
			return;
		}
		if (w->free_pending)
			w->free_pending = w->pending[i].next_free;
		else
			w->npending++;
	}
	/* a second wake-up before the switch: the clock starts again */
	w->pending[i].start = ts;
}

static void account(struct totals *t, uint64_t lat, uint64_t ts)
{
	if (lat > t->max) {
		t->max = lat;
		t->max_time = ts;
	}
	if (!t->count || lat < t->min) {
		t->min = lat;
		t->min_time = ts;
	}
	t->total += lat;
	t->count++;
}

static size_t line_suffix(void *arg, struct ktrace_events *evs, const struct ktrace_record *rec,
			  char *buf, size_t cap)
{
	struct wakeup *w = arg;
	const struct ktrace_event *ev;
	uint64_t val, lat;
	uint32_t i;
	int id;

	if (evs != w->evs)
		init_events(w, evs);
	if (!w->ok)
		return 0;
	ev = ktrace_event_record_event(evs, rec);
	if (!ev)
		return 0;
	id = ktrace_event_id(ev);
	if (id == w->wakeup_id || id == w->wakeup_new_id) {
		bool is_new = id != w->wakeup_id;

		if (field(w, ev, is_new ? w->new_success : w->wakeup_success, rec, &val) == 0 && !val)
			return 0;
		if (field(w, ev, is_new ? w->new_pid : w->wakeup_pid, rec, &val))
			return 0;
		woken(w, (uint32_t)val, rec->ts);
		return 0;
	}
	if (id != w->switch_id)
		return 0;
	if (field(w, ev, w->next_prio, rec, &val))
		return 0;
	{
		bool rt = val <= 99;

		if (field(w, ev, w->next_pid, rec, &val))
			return 0;
		if (!kt_map_get(&w->by_pid, (uint32_t)val, 0, &i))
			return 0;
		lat = rec->ts - w->pending[i].start;
		kt_map_del(&w->by_pid, (uint32_t)val, 0);
		w->pending[i].next_free = w->free_pending;
		w->free_pending = i + 1;
		account(&w->all, lat, rec->ts);
		if (rt)
			account(&w->rt, lat, rec->ts);
	}
	return (size_t)snprintf(buf, cap, " Latency: %llu.%03llu usecs", (unsigned long long)(lat / 1000),
				(unsigned long long)(lat % 1000));
}

static void put_totals(struct ktrace_out *out, const struct totals *t)
{
	uint64_t avg = t->total / t->count;

	kt_out_printf(out, "\nAverage wakeup latency: %llu.%03llu usecs\n", (unsigned long long)(avg / 1000),
		      (unsigned long long)(avg % 1000));
	kt_out_printf(out, "Maximum Latency: %llu.%03llu usecs at timestamp: %llu.%06llu\n",
		      (unsigned long long)(t->max / 1000), (unsigned long long)(t->max % 1000),
		      (unsigned long long)(t->max_time / 1000000000u),
		      (unsigned long long)(((t->max_time + 500) % 1000000000u) / 1000));
	kt_out_printf(out, "Minimum Latency: %llu.%03llu usecs at timestamp: %llu.%06llu\n\n",
		      (unsigned long long)(t->min / 1000), (unsigned long long)(t->min % 1000),
		      (unsigned long long)(t->min_time / 1000000000u),
		      (unsigned long long)(((t->min_time + 500) % 1000000000u) / 1000));
}

int ktrace_view_tracedat_wakeup(const struct ktrace_view_text_opts *o, struct ktrace_out *out,
				struct ktrace_error *err, const char **err_file)
{
	struct ktrace_view_text_opts wo = *o;
	struct wakeup *w;
	int ret;

	if (o->nfiles != 1)
		return ktrace_error_set(err, -EINVAL, "Wakeup tracing can only be done on a single input file");
	w = calloc(1, sizeof(*w));
	if (!w)
		return kt_error_oom(err);
	wo.line_suffix = line_suffix;
	wo.line_suffix_arg = w;
	ret = ktrace_view_tracedat_text(&wo, out, err, err_file);
	if (!ret && w->oom)
		ret = kt_error_oom(err);
	if (!ret && w->ok && w->all.count) {
		put_totals(out, &w->all);
		if (w->rt.count) {
			kt_out_puts(out, "RT task timings:\n");
			put_totals(out, &w->rt);
		}
	}
	kt_map_free(&w->by_pid);
	free(w->pending);
	free(w);
	return ret;
}
