// SPDX-License-Identifier: MIT
/*
 * `ktrace stat`: what tracefs is set to, as `trace-cmd stat` prints it (the same lines
 * for the same settings, in the same order: tracer, events, filters, triggers,
 * function filters, buffer sizes, clock, CPU mask, max latency, probes, pid filters,
 * options with -o, tracing on/off, error log, instances), or as one JSON object.
 */
#include <ktrace/tracefs.h>

#include <stdio.h>
#include <string.h>

#include <ktrace/view.h>

#include "common/json.h"
#include "common/outbuf.h"

/* trace-cmd's report_file: "\n<title><value>\n" when the value is set and not dflt. */
static void setting(struct ktrace_out *out, const char *value, const char *dflt, const char *title)
{
	if (value && *value && strcmp(value, dflt))
		kt_out_printf(out, "\n%s%s\n", title, value);
}

static void events(struct ktrace_out *out, const struct ktrace_tracefs_buffer_state *b)
{
	bool systems = false, parts = false;

	if (!b->events_enable)
		return;
	kt_out_puts(out, "\nEvents:\n");
	if (b->events_enable[0] == '1') {
		kt_out_puts(out, " All enabled\n");
		return;
	}
	if (b->events_enable[0] == '0') {
		kt_out_puts(out, " All disabled\n");
		return;
	}
	for (size_t i = 0; i < b->nsystems; i++) {
		if (b->systems[i].enable != '1')
			continue;
		if (!systems)
			kt_out_puts(out, " Individual systems:\n");
		systems = true;
		kt_out_printf(out, "   %s\n", b->systems[i].name);
	}
	for (size_t i = 0; i < b->nsystems; i++) {
		const struct ktrace_tracefs_system_state *s = &b->systems[i];

		for (size_t k = 0; k < s->nenabled; k++) {
			if (!parts)
				kt_out_puts(out, " Individual events:\n");
			if (!k)
				kt_out_printf(out, "    %s\n", s->name);
			parts = true;
			kt_out_printf(out, "        %s\n", s->enabled[k]);
		}
	}
	if (!systems && !parts)
		kt_out_puts(out, "  (none enabled)\n");
}

static void settings(struct ktrace_out *out, const char *title,
		     const struct ktrace_tracefs_event_setting *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!i)
			kt_out_printf(out, "\n%s:\n", title);
		kt_out_printf(out, "  %s:%s \"%s\"\n", v[i].system, v[i].event, v[i].value);
	}
}

/* The lines of a function filter file that are not comments. */
static void functions(struct ktrace_out *out, const char *text, const char *title)
{
	bool first = true;

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		if (*p != '#') {
			if (first)
				kt_out_printf(out, "\n%s:\n", title);
			first = false;
			kt_out_printf(out, "   %.*s\n", (int)n, p);
		}
		p += n + (p[n] == '\n');
	}
}

static void probes(struct ktrace_out *out, const char *text, const char *title)
{
	if (!text || !*text)
		return;
	kt_out_printf(out, "\n%s:\n", title);
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		kt_out_printf(out, "   %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

static void buffer_text(struct ktrace_out *out, const struct ktrace_tracefs_state *st, size_t i,
			bool options)
{
	const struct ktrace_tracefs_buffer_state *b = &st->buffers[i];

	if (*b->name) {
		if (i)
			kt_out_puts(out, "---------------\n");
		kt_out_printf(out, "Instance: %s\n", b->name);
	}
	setting(out, b->tracer, "nop", "Tracer: ");
	events(out, b);
	settings(out, "Filters", b->filters, b->nfilters);
	settings(out, "Triggers", b->triggers, b->ntriggers);
	functions(out, b->ftrace_filter, "Function Filter");
	functions(out, b->ftrace_notrace, "Function No Trace");
	functions(out, b->graph_function, "Function Graph Filter");
	functions(out, b->graph_notrace, "Function Graph No Trace");
	/* sizes of a buffer not allocated yet ("expanded") are not shown */
	if (b->buffer_size_kb && !strstr(b->buffer_size_kb, "expanded")) {
		if (strcmp(b->buffer_size_kb, "X")) {
			kt_out_printf(out, "\nBuffer size in kilobytes (per cpu):\n   %s\n", b->buffer_size_kb);
		} else {
			for (size_t c = 0; c < b->ncpu_kb; c++)
				kt_out_printf(out, "%sCPU %zu buffer size (kb): %s\n", c ? "" : "\n", c,
					      b->cpu_kb[c]);
		}
		if (b->buffer_total_size_kb)
			kt_out_printf(out, "\nBuffer total size in kilobytes:\n   %s\n", b->buffer_total_size_kb);
	}
	if (b->clock && strcmp(b->clock, "local"))
		kt_out_printf(out, "\nClock: %s\n", b->clock);
	if (b->cpumask && !b->cpumask_all)
		kt_out_printf(out, "\nCPU mask: %s\n", b->cpumask);
	setting(out, b->max_latency, "0", "Max Latency: ");
	probes(out, b->kprobe_events, "Kprobe events");
	probes(out, b->uprobe_events, "Uprobe events");
	probes(out, b->synthetic_events, "Synthetic events");
	setting(out, b->event_pid, "", "Filtered event PIDs:\n");
	setting(out, b->event_notrace_pid, "", "Filtered notrace event PIDs:\n");
	setting(out, b->ftrace_pid, "no pid", "Filtered function tracer PIDs:\n");
	setting(out, b->ftrace_notrace_pid, "no pid", "Filtered function tracer notrace PIDs:\n");
	if (options) {
		kt_out_puts(out, "\nOptions:\n");
		for (size_t k = 0; k < b->noptions; k++)
			kt_out_printf(out, "   %s%s\n", b->options[k].on ? "" : "no", b->options[k].name);
	}
	if (b->tracing_on)
		kt_out_printf(out, "\nTracing is %s\n\n", strcmp(b->tracing_on, "0") ? "enabled" : "disabled");
	setting(out, b->error_log, "", "Error log:\n");
	if (!*b->name) {
		for (size_t k = 0; k < st->ninstances; k++)
			kt_out_printf(out, "%s %s\n", k ? "" : "\nInstances:\n", st->instances[k]);
	}
}

/* ---- JSON ---- */

static void jstr(struct kt_json *j, const char *key, const char *value)
{
	kt_json_key_cstr(j, key);
	if (value)
		kt_json_string(j, value, strlen(value));
	else
		kt_json_null(j);
}

static void jlist(struct kt_json *j, const char *key, const char *text, const char *skip)
{
	kt_json_key_cstr(j, key);
	if (!text) {
		kt_json_null(j);
		return;
	}
	kt_json_begin_array(j, false);
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (n && (!skip || !strchr(skip, *p)))
			kt_json_string(j, p, n);
		p += n + (p[n] == '\n');
	}
	kt_json_end_array(j);
}

static void jsettings(struct kt_json *j, const char *key, const struct ktrace_tracefs_event_setting *v,
		      size_t n)
{
	kt_json_key_cstr(j, key);
	kt_json_begin_array(j, false);
	for (size_t i = 0; i < n; i++) {
		kt_json_begin_object(j, true);
		jstr(j, "system", v[i].system);
		jstr(j, "event", v[i].event);
		jstr(j, "value", v[i].value);
		kt_json_end_object(j);
	}
	kt_json_end_array(j);
}

static void buffer_json(struct kt_json *j, const struct ktrace_tracefs_buffer_state *b)
{
	kt_json_begin_object(j, false);
	jstr(j, "name", b->name);
	kt_json_key_cstr(j, "tracing_on");
	kt_json_bool(j, b->tracing_on && strcmp(b->tracing_on, "0"));
	jstr(j, "tracer", b->tracer);
	kt_json_key_cstr(j, "events");
	kt_json_begin_object(j, false);
	jstr(j, "enable", b->events_enable);
	kt_json_key_cstr(j, "systems");
	kt_json_begin_array(j, true);
	for (size_t i = 0; i < b->nsystems; i++)
		if (b->systems[i].enable == '1')
			kt_json_string(j, b->systems[i].name, strlen(b->systems[i].name));
	kt_json_end_array(j);
	kt_json_key_cstr(j, "enabled");
	kt_json_begin_array(j, false);
	for (size_t i = 0; i < b->nsystems; i++) {
		for (size_t k = 0; k < b->systems[i].nenabled; k++) {
			char name[512];

			snprintf(name, sizeof(name), "%s:%s", b->systems[i].name, b->systems[i].enabled[k]);
			kt_json_string(j, name, strlen(name));
		}
	}
	kt_json_end_array(j);
	kt_json_end_object(j);
	jsettings(j, "filters", b->filters, b->nfilters);
	jsettings(j, "triggers", b->triggers, b->ntriggers);
	jlist(j, "function_filter", b->ftrace_filter, "#");
	jlist(j, "function_notrace", b->ftrace_notrace, "#");
	jlist(j, "graph_function", b->graph_function, "#");
	jlist(j, "graph_notrace", b->graph_notrace, "#");
	jstr(j, "buffer_size_kb", b->buffer_size_kb);
	kt_json_key_cstr(j, "cpu_buffer_size_kb");
	kt_json_begin_array(j, true);
	for (size_t i = 0; i < b->ncpu_kb; i++)
		kt_json_string(j, b->cpu_kb[i], strlen(b->cpu_kb[i]));
	kt_json_end_array(j);
	jstr(j, "buffer_total_size_kb", b->buffer_total_size_kb);
	jstr(j, "clock", b->clock);
	jstr(j, "cpumask", b->cpumask);
	kt_json_key_cstr(j, "cpumask_all");
	kt_json_bool(j, b->cpumask_all);
	jstr(j, "max_latency", b->max_latency);
	jlist(j, "kprobe_events", b->kprobe_events, NULL);
	jlist(j, "uprobe_events", b->uprobe_events, NULL);
	jlist(j, "synthetic_events", b->synthetic_events, NULL);
	jlist(j, "event_pid", b->event_pid, NULL);
	jlist(j, "event_notrace_pid", b->event_notrace_pid, NULL);
	jstr(j, "ftrace_pid", b->ftrace_pid);
	jstr(j, "ftrace_notrace_pid", b->ftrace_notrace_pid);
	kt_json_key_cstr(j, "options");
	kt_json_begin_object(j, false);
	for (size_t i = 0; i < b->noptions; i++) {
		kt_json_key_cstr(j, b->options[i].name);
		kt_json_bool(j, b->options[i].on);
	}
	kt_json_end_object(j);
	jlist(j, "error_log", b->error_log, NULL);
	kt_json_end_object(j);
}

int ktrace_view_tracefs_state(const struct ktrace_tracefs_state *st, bool options, bool json,
			      struct ktrace_out *out, struct ktrace_error *err)
{
	struct kt_json j;

	if (!json) {
		for (size_t i = 0; i < st->nbuffers; i++)
			buffer_text(out, st, i, options);
		if (st->stack_tracer > 0)
			kt_out_puts(out, "Stack tracing is enabled\n\n");
		else if (st->stack_tracer < 0)
			kt_out_puts(out, "Error reading stack tracer status\n\n");
		return 0;
	}
	kt_json_init(&j, out, 2);
	kt_json_begin_object(&j, false);
	jstr(&j, "tracefs", st->tracefs);
	kt_json_key_cstr(&j, "buffers");
	kt_json_begin_array(&j, false);
	for (size_t i = 0; i < st->nbuffers; i++)
		buffer_json(&j, &st->buffers[i]);
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "instances");
	kt_json_begin_array(&j, true);
	for (size_t i = 0; i < st->ninstances; i++)
		kt_json_string(&j, st->instances[i], strlen(st->instances[i]));
	kt_json_end_array(&j);
	kt_json_key_cstr(&j, "stack_tracer");
	if (st->stack_tracer < 0)
		kt_json_null(&j);
	else
		kt_json_bool(&j, st->stack_tracer > 0);
	kt_json_end_object(&j);
	kt_json_finish(&j);
	return 0;
}
