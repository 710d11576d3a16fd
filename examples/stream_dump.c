// SPDX-License-Identifier: MIT
/*
 * stream_dump: every record of any trace through libktrace's event stream
 * (<ktrace/stream.h>). An example of the API, and the driver of tests/engine/stream.sh.
 *
 *   stream_dump [--lines|--text|--fields|--sched|--tasks|--sources] [--readahead]
 *               [-e EVENTS_DIR]
 *               [-F FILTER]... [--cpu N]... FILE...
 *
 *   --lines    the line `ktrace report` prints for each record (the default)
 *   --text     the event's text only
 *   --fields   kind, time, CPU, tid, pid, comm, system:name and every field, one
 *              record per line: "E ts cpu tid pid comm sys:name f1=v1 f2=v2 ..."
 *              (numbers in decimal, strings quoted with C escapes, arrays as
 *              [e0,e1,...], bytes as <hex>); lost-event marks as "L ts cpu count"
 *   --sched    the context switches (ktrace_stream_sched), as trace-cmd's sched plugin
 *              prints them: "ts cpu prev_comm:prev_tid [prio] STATE ==> next_comm:next_tid
 *              [prio]", and wakeups: "ts cpu W comm:tid [prio]"
 *   --readahead  read the inputs on a second thread (KTRACE_STREAM_READAHEAD; not
 *              with --lines or --text)
 *   --tasks    the thread table: "tid pid comm"
 *   --sources  what each input says about itself
 *
 * Build: cc -o stream_dump stream_dump.c $(pkg-config --cflags --libs ktrace)
 */
#include <ktrace/ktrace.h>
#include <ktrace/stream.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { LINES, TEXT, FIELDS, SCHED, TASKS, SOURCES };

static void put_string(const unsigned char *p, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '"' || p[i] == '\\')
			printf("\\%c", p[i]);
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			printf("\\x%02x", p[i]);
		else
			putchar(p[i]);
	}
	putchar('"');
}

static void put_value(const struct ktrace_event_value *v)
{
	switch (v->type) {
	case KTRACE_EVENT_SIGNED:
		printf("%" PRId64, v->i);
		break;
	case KTRACE_EVENT_UNSIGNED:
		printf("%" PRIu64, v->u);
		break;
	case KTRACE_EVENT_STRING:
		put_string(v->data, v->len);
		break;
	case KTRACE_EVENT_ARRAY:
		putchar('[');
		for (size_t k = 0; k < v->count; k++) {
			uint64_t e = ktrace_event_array_at(v, k);

			if (v->elem_signed)
				printf("%s%" PRId64, k ? "," : "", (int64_t)e);
			else
				printf("%s%" PRIu64, k ? "," : "", e);
		}
		putchar(']');
		break;
	case KTRACE_EVENT_BYTES:
		putchar('<');
		for (size_t k = 0; k < v->len; k++)
			printf("%02x", ((const unsigned char *)v->data)[k]);
		putchar('>');
		break;
	}
}

int main(int argc, char **argv)
{
	KTRACE_OPTS(ktrace_stream_opts, o);
	struct ktrace_stream_filter filters[16];
	int cpus[64];
	const char *files[64] = { 0 };
	size_t nfiles = 0, nfilters = 0, ncpus = 0;
	enum mode mode = LINES;
	struct ktrace_stream *s;
	struct ktrace_error err = { 0 }, walk_err = { 0 };
	const struct ktrace_stream_record *r;
	const char *path;
	char *line = NULL;
	size_t cap = 0;
	char msg[512];
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lines"))
			mode = LINES;
		else if (!strcmp(argv[i], "--text"))
			mode = TEXT;
		else if (!strcmp(argv[i], "--fields"))
			mode = FIELDS;
		else if (!strcmp(argv[i], "--sched"))
			mode = SCHED;
		else if (!strcmp(argv[i], "--readahead"))
			o.flags |= KTRACE_STREAM_READAHEAD;
		else if (!strcmp(argv[i], "--tasks"))
			mode = TASKS;
		else if (!strcmp(argv[i], "--sources"))
			mode = SOURCES;
		else if (!strcmp(argv[i], "-e") && i + 1 < argc)
			o.events_dir = argv[++i];
		else if (!strcmp(argv[i], "-F") && i + 1 < argc && nfilters < 16)
			filters[nfilters++] = (struct ktrace_stream_filter){ argv[++i], false };
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc && ncpus < 64)
			cpus[ncpus++] = atoi(argv[++i]);
		else if (argv[i][0] != '-' && nfiles < 64)
			files[nfiles++] = argv[i];
		else {
			fprintf(stderr, "usage: stream_dump [--lines|--text|--fields|--sched|--tasks|--sources] "
				"[--readahead] "
				"[-e EVENTS_DIR] [-F FILTER]... [--cpu N]... FILE...\n");
			return 2;
		}
	}
	o.filters = nfilters ? filters : NULL;
	o.nfilters = nfilters;
	o.cpus = ncpus ? cpus : NULL;
	o.ncpus = ncpus;
	if (ktrace_stream_open(&s, files, nfiles, &o, &err, &path)) {
		fprintf(stderr, "stream_dump: %s%s%s\n", path ? path : "", path ? ": " : "",
			ktrace_error_format(&err, msg, sizeof(msg)));
		return 1;
	}
	if (mode == TASKS) {
		for (size_t i = 0; i < ktrace_stream_task_count(s); i++) {
			const struct ktrace_stream_task_info *t = ktrace_stream_task(s, i);

			printf("%" PRId64 " %" PRId64 " %s\n", t->tid, t->pid, t->comm);
		}
		ktrace_stream_close(s);
		return 0;
	}
	if (mode == SOURCES) {
		for (size_t i = 0; i < ktrace_stream_source_count(s); i++) {
			const struct ktrace_stream_source *src = ktrace_stream_source(s, i);

			printf("%s: format=%s sysname=%s release=%s machine=%s clock=%s cpus=%u "
			       "buffers=%zu\n", src->path, ktrace_detect_format_name(src->format),
			       src->sysname, src->release, src->machine, src->clock, src->cpus,
			       src->nbuffers);
		}
		ktrace_stream_close(s);
		return 0;
	}
	/* the walk's errors in an error of their own (not the one open filled) */
	while ((ret = ktrace_stream_next(s, &r, &walk_err)) > 0) {
		if (mode == SCHED) {
			struct ktrace_stream_sched sc;

			if (!ktrace_stream_sched(s, &sc))
				continue;
			if (sc.kind == KTRACE_STREAM_SCHED_SWITCH)
				printf("%" PRIu64 " %d %s:%" PRId64 " [%d] %s ==> %s:%" PRId64 " [%d]\n",
				       r->ts, r->cpu, sc.prev_comm, sc.prev_tid, sc.prev_prio,
				       sc.prev_state_text, sc.next_comm, sc.next_tid, sc.next_prio);
			else
				printf("%" PRIu64 " %d W %s:%" PRId64 " [%d]\n", r->ts, r->cpu, sc.next_comm,
				       sc.next_tid, sc.next_prio);
			continue;
		}
		if (mode == FIELDS) {
			struct ktrace_event_value v;

			if (r->kind == KTRACE_STREAM_LOST) {
				printf("L %" PRIu64 " %d %" PRIu64 "\n", r->ts, r->cpu, r->lost);
				continue;
			}
			printf("E %" PRIu64 " %d %" PRId64 " %" PRId64 " ", r->ts, r->cpu, r->tid, r->pid);
			put_string((const unsigned char *)r->comm, strlen(r->comm));
			printf(" %s:%s", r->system, r->name);
			for (size_t i = 0; i < ktrace_stream_field_count(s); i++) {
				if (ktrace_stream_field(s, i, &v))
					continue;
				printf(" %s=", v.name);
				put_value(&v);
			}
			putchar('\n');
			continue;
		}
		for (;;) {
			int n = mode == TEXT ? ktrace_stream_format_text(s, line, cap)
					     : ktrace_stream_format(s, line, cap);

			if (n < 0) {
				fprintf(stderr, "stream_dump: formatting failed\n");
				return 1;
			}
			if ((size_t)n < cap)
				break;
			cap = (size_t)n + 1;
			line = realloc(line, cap);
			if (!line)
				return 1;
		}
		puts(line);
	}
	free(line);
	if (ret < 0) {
		path = ktrace_stream_error_path(s);
		fflush(stdout);
		fprintf(stderr, "stream_dump: %s%s%s\n", path ? path : "", path ? ": " : "",
			ktrace_error_format(&walk_err, msg, sizeof(msg)));
	}
	ktrace_stream_close(s);
	return ret < 0 ? 1 : 0;
}
