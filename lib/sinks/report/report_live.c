// SPDX-License-Identifier: MIT
/*
 * `ktrace stream`: the records of a live session printed as `ktrace report` (trace-cmd
 * report) prints a trace.dat file's: "comm-pid [cpu] secs.usecs: name: text", with the
 * dropped-events line where the kernel marked lost events.
 *
 * The event registry is loaded from tracefs when the view is made (formats, kallsyms,
 * printk formats); the saved command lines are read when a record's task is not known
 * yet (at most ten times a second), so that a task gets the name the kernel has for it
 * when it is first met (processes start and exec while streaming). Records come in time order over what has been captured at each call
 * (tracefs_live.c). A function-graph entry is printed on its own line: the look-ahead
 * that joins it with its exit in a report needs the next record, which may not be
 * captured yet.
 */
#include <ktrace/event.h>
#include <ktrace/tracefs.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ktrace/view.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/opts.h"
#include "common/outbuf.h"
#include "engine/engine.h"
#include "tracefs/tracefs_live.h"

struct ktrace_view_live {
	struct ktrace_tracefs_session *s;
	struct ktrace_events *evs;
	struct ktrace_view_live_opts o;
	bool usecs;                   /* times in seconds (not a raw counter) */
	struct timespec last_reload;
	char *text;
	size_t cap;
};

int ktrace_view_live_new(struct ktrace_tracefs_session *s, const struct ktrace_view_live_opts *o,
			 struct ktrace_view_live **out, struct ktrace_error *err)
{
	static const char *const secs[] = { "local", "global", "uptime", "perf", "tai", "boot" };
	struct ktrace_view_live *v = calloc(1, sizeof(*v));
	const char *clock = ktrace_tracefs_clock(s);
	int ret;

	*out = NULL;
	if (!v)
		return kt_error_oom(err);
	if ((ret = KT_OPTS_COPY(&v->o, o, "ktrace_view_live_opts", err))) {
		free(v);
		return ret;
	}
	v->s = s;
	v->evs = ktrace_event_new((int)sizeof(long), __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	v->cap = 65536;
	v->text = malloc(v->cap);
	if (!v->evs || !v->text) {
		ktrace_view_live_free(v);
		return kt_error_oom(err);
	}
	ret = ktrace_tracefs_load_events(s, v->evs, err);
	if (ret) {
		ktrace_view_live_free(v);
		return ret;
	}
	ktrace_event_set_ts_format(v->evs, v->o.nsec ? KTRACE_EVOPT_TS_NSECS : KTRACE_EVOPT_TS_USECS);
	v->usecs = !strncmp(clock, "mono", 4);
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		v->usecs |= !strcmp(clock, secs[i]);
	*out = v;
	return 0;
}

void ktrace_view_live_free(struct ktrace_view_live *v)
{
	if (!v)
		return;
	ktrace_event_free(v->evs);
	free(v->text);
	free(v);
}

/* The comm of pid, reading the saved command lines again (ten times a second at most)
 * for a task not known yet. */
static const char *comm_of(struct ktrace_view_live *v, int pid)
{
	const char *comm = ktrace_event_comm(v->evs, pid);
	struct timespec now;
	struct ktrace_error ignore = { 0 };

	if (strcmp(comm, "<...>"))
		return comm;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - v->last_reload.tv_sec) * 1000000000ll + (now.tv_nsec - v->last_reload.tv_nsec) <
	    100000000ll)
		return comm;
	v->last_reload = now;
	ktrace_tracefs_load_cmdlines(v->s, v->evs, &ignore);
	return ktrace_event_comm(v->evs, pid);
}

static int print_record(struct ktrace_view_live *v, const struct ktrace_tracefs_record *r,
			struct ktrace_out *out, struct ktrace_error *err)
{
	struct ktrace_record kr = {
		.data = r->data, .size = r->size, .cpu = (int)r->cpu, .ts = r->ts, .avail = r->avail,
	};
	const struct ktrace_event *ev = ktrace_event_record_event(v->evs, &kr);
	size_t n;

	if (r->missed_events > 0)
		kt_out_printf(out, "CPU:%u [%lld EVENTS DROPPED]\n", r->cpu, r->missed_events);
	else if (r->missed_events < 0)
		kt_out_printf(out, "CPU:%u [EVENTS DROPPED]\n", r->cpu);
	if (!ev) {
		kt_out_puts(out, "[UNKNOWN EVENT][UNKNOWN EVENT] (NULL):                [UNKNOWN EVENT]\n");
		return 0;
	}
	{
		int pid = ktrace_event_record_pid(v->evs, &kr);
		const char *comm, *name = ktrace_event_name(ev);

		/* the view's own threads: left out of the trace, but for their switches to
		 * and wakeups of traced tasks, which the kernel keeps (not shown) */
		if (ktrace_tracefs_own_thread(v->s, pid))
			return 0;
		comm = comm_of(v, pid);
		size_t cl = strlen(comm), len = strlen(name), need = cl + len + 160;
		char small[512], *b = need <= sizeof(small) ? small : malloc(need), *p;

		if (!b)
			return ktrace_error_set(err, -ENOMEM, "out of memory");
		/* trace-cmd's "%16s-%-5d [%03u] %5llu.%06llu: %s: %*s" */
		p = kt_prefix_comm(b, comm, cl, pid, 16, false);
		*p++ = ' ';
		*p++ = '[';
		p = kt_prefix_cpu(p, r->cpu);
		*p++ = ']';
		if (!v->usecs) {
			p = kt_fmt_dec_width(p, r->ts, 12);
		} else {
			*p++ = ' ';
			p = kt_prefix_time(p, NULL, r->ts, v->o.nsec);
		}
		*p++ = ':';
		*p++ = ' ';
		p = kt_prefix_name(p, name, len);
		kt_out_write(out, b, (size_t)(p - b));
		if (b != small)
			free(b);
	}
	for (;;) {
		n = ktrace_event_format(v->evs, &kr, v->o.raw ? KTRACE_EVFMT_RAW : 0, v->text, v->cap, NULL);
		if (n < v->cap)
			break;
		{
			char *t = kt_realloc_array(v->text, n + 1, 1);

			if (!t)
				return kt_error_oom(err);
			v->text = t;
			v->cap = n + 1;
		}
	}
	/* as trace-cmd: the line ends at a NUL, and one final newline goes */
	n = strnlen(v->text, n);
	if (n && v->text[n - 1] == '\n')
		n--;
	kt_out_write(out, v->text, n);
	kt_out_putc(out, '\n');
	return 0;
}

int64_t ktrace_view_live_print(struct ktrace_view_live *v, struct ktrace_out *out, struct ktrace_error *err)
{
	const struct ktrace_tracefs_record *r;
	int64_t n = 0;
	int ret;

	while ((ret = ktrace_tracefs_next_record(v->s, &r, err)) == 1) {
		if ((ret = print_record(v, r, out, err)))
			return ret;
		n++;
	}
	return ret < 0 ? ret : n;
}
