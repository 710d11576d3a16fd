// SPDX-License-Identifier: MIT
/*
 * Live reading (ktrace stream): the records of an in_memory session, merged in
 * timestamp order over what the reader threads have captured so far.
 *
 * The reader threads append whole sub-buffers to one memfd per CPU (see
 * tracefs_capture.c); here each CPU's file is read a sub-buffer at a time behind them,
 * its records walked with kbuffer, and what was read is handed back to the kernel
 * (FALLOC_FL_PUNCH_HOLE), so that memory holds only what has not been read yet.
 * Records that a CPU's thread captures later than another CPU's newer ones come out
 * later: the order is exact within what was captured at the time. An ordered session
 * (ktrace top, with a trace clock user space reads: tracefs_capture.c's seen_to) holds
 * a record back until every other CPU's data up to its time has been captured, so that
 * the order is exact however late a reader thread runs.
 */
#include <ktrace/event.h>
#include <ktrace/kbuffer.h>
#include <ktrace/tracefs.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/check.h"
#include "tracefs/tracefs_int.h"

#define PUNCH_BYTES (1u << 20)     /* hand memory back in steps of this */

struct lcpu {
	struct tfs_buffer *b;
	struct tfs_cpu *c;
	size_t buffer;
	struct kbuffer *kb;
	uint8_t *page;
	bool loaded;                /* page holds a sub-buffer being walked */
	bool head;                  /* rec is the next record of this CPU */
	bool first;                 /* the next record is the page's first */
	uint64_t off;               /* file offset of the next sub-buffer */
	uint64_t punched;           /* bytes handed back */
	bool keep;                  /* none is handed back (keep_data) */
	uint64_t last_ts;           /* of its record returned last */
	struct ktrace_tracefs_record rec;
};

struct tfs_live {
	struct lcpu *cpus;
	size_t n;
	struct lcpu *last;          /* the CPU whose record was returned last */
	bool ordered;               /* records held back until every CPU has caught up */
};

void tfs_live_free(struct tfs_live *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		kbuffer_free(l->cpus[i].kb);
		free(l->cpus[i].page);
	}
	free(l->cpus);
	free(l);
}

static int live_init(struct ktrace_tracefs_session *s, struct ktrace_error *err)
{
	unsigned int lsize = tfs_kernel_long(s->tracefs);
	struct tfs_live *l = calloc(1, sizeof(*l));
	size_t n = 0;

	if (!l)
		return kt_error_oom(err);
	for (size_t i = 0; i < s->nbufs; i++)
		n += s->bufs[i].ncpus;
	l->cpus = calloc(n ? n : 1, sizeof(*l->cpus));
	if (!l->cpus) {
		free(l);
		return kt_error_oom(err);
	}
	s->live = l;
	l->ordered = s->live_ordered;
	for (size_t i = 0; i < s->nbufs; i++) {
		struct tfs_buffer *b = &s->bufs[i];

		if (b->clock_id < 0)
			l->ordered = false;
		for (size_t k = 0; k < b->ncpus; k++) {
			struct lcpu *lc = &l->cpus[l->n++];

			lc->b = b;
			lc->c = &b->cpus[k];
			lc->buffer = i;
			lc->keep = s->keep_data;
			lc->kb = kbuffer_alloc(lsize == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
					       __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? KBUFFER_ENDIAN_BIG
										: KBUFFER_ENDIAN_LITTLE);
			lc->page = malloc(b->page_size);
			if (!lc->kb || !lc->page)
				return kt_error_oom(err);
		}
	}
	return 0;
}

/* Loads the CPU's next captured sub-buffer: 1, 0 when none is there yet, < 0 error. */
static int load_page(struct lcpu *lc, struct ktrace_error *err)
{
	size_t ps = lc->b->page_size;
	ssize_t r;

	if (lc->c->out_fd < 0 || lc->off + ps > atomic_load(&lc->c->bytes))
		return 0;
	do
		r = pread(lc->c->out_fd, lc->page, ps, (off_t)lc->off);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)ps)
		return ktrace_error_set(err, r < 0 ? -errno : -EIO, "CPU %u: reading captured data: %s",
					lc->c->cpu, r < 0 ? strerror(errno) : "short read");
	lc->off += ps;
	atomic_store(&lc->c->consumed, lc->off);
	if (!lc->keep && lc->off - lc->punched >= PUNCH_BYTES) {
		uint64_t len = (lc->off - lc->punched) / ps * ps;

		if (fallocate(lc->c->out_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)lc->punched, (off_t)len) == 0)
			lc->punched += len;
	}
	if (kbuffer_load_subbuffer_len(lc->kb, lc->page, ps) < 0)
		return 2;   /* not a sub-buffer: skipped */
	lc->loaded = true;
	lc->first = true;
	return 1;
}

/* Makes rec the CPU's next record if there is one: 1, 0 none yet, < 0 error. */
static int fill_head(struct lcpu *lc, struct ktrace_error *err)
{
	for (;;) {
		unsigned long long ts;
		void *data;
		int ret;

		if (lc->loaded) {
			data = kbuffer_read_event(lc->kb, &ts);
			if (data) {
				uint8_t *end = lc->page + lc->b->page_size;

				lc->rec.buffer = lc->buffer;
				lc->rec.cpu = lc->c->cpu;
				lc->rec.ts = ts;
				lc->rec.data = data;
				lc->rec.size = (uint32_t)kbuffer_event_size(lc->kb);
				lc->rec.avail = (uint32_t)(end - (uint8_t *)data);
				lc->rec.missed_events = 0;
				if (lc->first) {
					lc->rec.missed_events = kbuffer_missed_events(lc->kb);
					lc->first = false;
				}
				lc->head = true;
				return 1;
			}
			lc->loaded = false;
		}
		ret = load_page(lc, err);
		if (ret <= 0)
			return ret;
	}
}

static int live_of(struct ktrace_tracefs_session *s, struct tfs_live **out,
		   struct ktrace_error *err)
{
	if (!s->in_memory)
		return ktrace_error_set(err, -EINVAL, "not a live session");
	if (!s->live) {
		int ret = live_init(s, err);

		if (ret)
			return ret;
	}
	*out = s->live;
	return 0;
}

/*
 * Every CPU's next record, where captured, in its head; *best the CPU of the oldest and
 * *complete_to the time up to which the CPUs without one have been captured
 * (UINT64_MAX: all have one, or the session is not ordered).
 */
static int heads(struct tfs_live *l, bool ordered, struct lcpu **best, uint64_t *complete_to,
		 struct ktrace_error *err)
{
	*best = NULL;
	*complete_to = UINT64_MAX;
	for (size_t i = 0; i < l->n; i++) {
		struct lcpu *lc = &l->cpus[i];
		/* (read before looking for data: what it says was captured is there then) */
		uint64_t seen = ordered ? atomic_load(&lc->c->seen_to) : 0;

		if (!lc->head) {
			int ret = fill_head(lc, err);

			if (ret < 0)
				return ret;
			if (!ret) {
				if (ordered) {
					uint64_t to = seen > lc->last_ts ? seen : lc->last_ts;

					if (to < *complete_to)
						*complete_to = to;
				}
				continue;
			}
		}
		if (!*best || lc->rec.ts < (*best)->rec.ts)
			*best = lc;
	}
	return 0;
}

int ktrace_tracefs_next_record(struct ktrace_tracefs_session *s,
			       const struct ktrace_tracefs_record **rec, struct ktrace_error *err)
{
	struct tfs_live *l = NULL;
	struct lcpu *best;
	uint64_t complete_to;
	int ret;

	*rec = NULL;
	if ((ret = live_of(s, &l, err)))
		return ret;
	if (l->last) {
		/* the record returned last is done with */
		unsigned long long ts;

		kbuffer_next_event(l->last->kb, &ts);
		l->last->head = false;
		l->last = NULL;
	}
	/* (once stopped, what is left was drained at the end) */
	if ((ret = heads(l, l->ordered && !s->stopped, &best, &complete_to, err)))
		return ret;
	/* (ordered: a CPU not caught up with it may have older ones still to come) */
	if (!best || best->rec.ts >= complete_to)
		return 0;
	best->last_ts = best->rec.ts;
	l->last = best;
	*rec = &best->rec;
	return 1;
}

int ktrace_tracefs_captured_to(struct ktrace_tracefs_session *s, uint64_t *to,
			       struct ktrace_error *err)
{
	struct tfs_live *l = NULL;
	struct lcpu *best;
	int ret;

	*to = UINT64_MAX;
	if ((ret = live_of(s, &l, err)))
		return ret;
	if (l->last) {
		/* (the record returned last is done with only at the next call) */
		*to = l->last->rec.ts;
		return 0;
	}
	return heads(l, l->ordered && !s->stopped, &best, to, err);
}

void ktrace_tracefs_set_ordered(struct ktrace_tracefs_session *s)
{
	s->live_ordered = true;
}

void ktrace_tracefs_wait(struct ktrace_tracefs_session *s, int timeout_ms)
{
	struct pollfd p = { s->data_pipe[0], POLLIN, 0 };
	char buf[256];

	if (s->data_pipe[0] < 0) {
		poll(NULL, 0, timeout_ms);
		return;
	}
	if (poll(&p, 1, timeout_ms) > 0)
		while (read(s->data_pipe[0], buf, sizeof(buf)) > 0)
			;
}

const char *ktrace_tracefs_clock(const struct ktrace_tracefs_session *s)
{
	return s->nbufs ? s->bufs[0].clock : "local";
}

/* ------------------------------------------------------------------ metadata */

static int load_text(struct ktrace_tracefs_session *s, const char *name, size_t max, char **text,
		     size_t *len, struct ktrace_error *err)
{
	char path[PATH_MAX];
	int ret;

	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else if (tfs_path(path, sizeof(path), s->tracefs, name))
		return ktrace_error_set(err, -ENAMETOOLONG, "path too long");
	ret = tfs_read_file(path, max, text, len);
	if (ret)
		return ktrace_error_set(err, ret, "cannot read %s: %s", path, strerror(-ret));
	return 0;
}

int ktrace_tracefs_load_cmdlines(struct ktrace_tracefs_session *s, struct ktrace_events *evs,
				 struct ktrace_error *err)
{
	char *text;
	size_t len;
	int ret = load_text(s, "saved_cmdlines", 256u << 20, &text, &len, err);

	if (ret)
		return ret;
	ret = ktrace_event_parse_cmdlines(evs, text, len, err);
	free(text);
	return ret;
}

int ktrace_tracefs_load_events(struct ktrace_tracefs_session *s, struct ktrace_events *evs,
			       struct ktrace_error *err)
{
	struct ktrace_error ignore = { 0 };
	char *text;
	size_t len;
	int ret;

	if ((ret = load_text(s, "events/header_page", 1u << 20, &text, &len, err)))
		return ret;
	ktrace_event_parse_header_page(evs, text, len, &ignore);
	free(text);
	for (size_t i = 0; i < s->events.n; i++) {
		const struct tfs_event *e = &s->events.ev[i];
		bool ftrace = !strcmp(e->system, "ftrace");
		char name[PATH_MAX];

		if (!ftrace && !e->selected && !s->all_formats)
			continue;
		snprintf(name, sizeof(name), "events/%s/%s/format", e->system, e->name);
		if ((ret = load_text(s, name, 1u << 20, &text, &len, err)))
			return ret;
		/* like trace-cmd, a format that does not parse is kept as it can be */
		ktrace_event_add_format(evs, e->system, text, len, NULL, &ignore);
		free(text);
	}
	if (load_text(s, "/proc/kallsyms", 256u << 20, &text, &len, &ignore) == 0) {
		ktrace_event_parse_kallsyms(evs, text, len, &ignore);
		free(text);
	}
	if (load_text(s, "printk_formats", 256u << 20, &text, &len, &ignore) == 0) {
		ktrace_event_parse_printk_formats(evs, text, len, &ignore);
		free(text);
	}
	return 0;
}
