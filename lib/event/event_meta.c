// SPDX-License-Identifier: MIT
/*
 * The event registry: formats by id, kallsyms, printk formats, saved cmdlines.
 *
 * Lookups reproduce libtraceevent's results exactly, including which entry wins when
 * several share an address or pid: entries are kept in the order libtraceevent's
 * (stable) sort leaves them and searched with the same binary search.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event/event_int.h"
#include "event/event_share.h"
#include "common/bigmem.h"
#include "common/check.h"
#include "common/grow.h"

struct ktrace_events *ktrace_event_new(int long_size, bool big_endian)
{
	struct ktrace_events *evs;

	if (long_size != 4 && long_size != 8) {
		errno = EINVAL;
		return NULL;
	}
	evs = calloc(1, sizeof(*evs));
	if (!evs) {
		errno = ENOMEM;
		return NULL;
	}
	/* a big registry fills block after block: each made resident in one call rather
	 * than a page fault per 4 KiB (the threads of a report each parse theirs) */
	evs->arena.populate = true;
	evs->sym_arena.populate = true;
	evs->long_size = long_size;
	evs->big_endian = big_endian;
	evs->check_lock_depth = true;
	evs->check_migrate_disable = true;
	pthread_mutex_init(&evs->sym_mu, NULL);
	return evs;
}

void ktrace_event_free(struct ktrace_events *evs)
{
	if (!evs)
		return;
	for (int i = 0; i < evs->fstack_cpus; i++)
		free(evs->fstack[i].names);
	free(evs->fstack);
	free(evs->events);
	free(evs->by_id);
	if (!evs->syms_borrowed && evs->syms_big)
		kt_bigmem_free(evs->syms, evs->syms_big);
	else if (!evs->syms_borrowed)
		free(evs->syms);
	kt_bigmem_free(evs->names, evs->names_big);
	kt_arena_free(&evs->sym_arena);
	pthread_mutex_destroy(&evs->sym_mu);
	free(evs->fcache);
	free(evs->printks);
	for (size_t i = 0; i < evs->ncomms; i++)
		free((char *)evs->comms[i].comm);
	free(evs->comms);
	free(evs->learnt_pids);
	ftev_btf_free(evs->btf);
	kt_map_free(&evs->bprint_index);
	free(evs->bprints);
	kt_arena_free(&evs->arena);
	free(evs);
}

void ktrace_event_set_ts_format(struct ktrace_events *evs, enum ktrace_event_option ts)
{
	evs->ts_format = ts;
}

/* ---- header page and formats ---- */

int ktrace_event_parse_header_page(struct ktrace_events *evs, const char *text, size_t len,
				    struct ktrace_error *err)
{
	int ret = ftev_parse_header_page(evs, text, len);

	if (ret < 0)
		return ktrace_error_set(err, ret, "header_page: cannot parse");
	return 0;
}

int ktrace_event_add_format(struct ktrace_events *evs, const char *system, const char *text,
			     size_t len, const struct ktrace_event **out, struct ktrace_error *err)
{
	struct ktrace_event *ev, **events;
	size_t i;

	if (out)
		*out = NULL;
	ev = ftev_parse_format(evs, system, text, len, err);
	if (!ev)
		return err && err->code ? err->code : -EBADMSG;
	if (kt_grow((void **)&evs->events, &evs->cap_events, evs->nevents + 1, sizeof(*evs->events)))
		return kt_error_oom(err);
	events = evs->events;
	/* before the first event with a greater id, as libtraceevent inserts */
	for (i = 0; i < evs->nevents; i++)
		if (events[i]->id > ev->id)
			break;
	memmove(events + i + 1, events + i, (evs->nevents - i) * sizeof(*events));
	events[i] = ev;
	evs->nevents++;
	evs->by_id_valid = false;
	/* the common fields are found again from the lowest-id event */
	evs->type_size = evs->pid_size = evs->flags_size = evs->pc_size = evs->ld_size = 0;
	if (!strcmp(ev->system, "ftrace") && !strcmp(ev->name, "funcgraph_exit"))
		evs->fgraph_ret = ev;
	if (out)
		*out = ev;
	return 0;
}

size_t ktrace_event_count(const struct ktrace_events *evs)
{
	return evs->nevents;
}

size_t ktrace_event_memory(const struct ktrace_events *evs)
{
	size_t n = sizeof(*evs) + evs->arena.total + evs->cap_events * sizeof(*evs->events) +
		   evs->cap_printks * sizeof(*evs->printks) + evs->cap_comms * sizeof(*evs->comms);

	if (!evs->syms_borrowed)
		n += evs->cap_syms * sizeof(*evs->syms);
	return n;
}

const struct ktrace_event *ktrace_event_at(const struct ktrace_events *evs, size_t index)
{
	return index < evs->nevents ? evs->events[index] : NULL;
}

/* glibc's bsearch over the id-sorted array (which of several equal ids it finds). */
static struct ktrace_event *bsearch_id(struct ktrace_events *evs, int id)
{
	size_t l = 0, u = evs->nevents;

	while (l < u) {
		size_t idx = (l + u) / 2;
		int eid = evs->events[idx]->id;

		if (id < eid)
			u = idx;
		else if (id > eid)
			l = idx + 1;
		else
			return evs->events[idx];
	}
	return NULL;
}

const struct ktrace_event *ktrace_event_find(struct ktrace_events *evs, int id)
{
	if (!evs->by_id_valid) {
		size_t n = 0;

		/* a direct table up to the largest id (ids are 16 bits in records) */
		for (size_t i = 0; i < evs->nevents; i++) {
			int eid = evs->events[i]->id;

			if (eid >= 0 && eid <= 0xffff && (size_t)eid + 1 > n)
				n = (size_t)eid + 1;
		}
		free(evs->by_id);
		evs->by_id = n ? calloc(n, sizeof(*evs->by_id)) : NULL;
		evs->nby_id = evs->by_id ? n : 0;
		for (size_t i = 0; i < evs->nevents && evs->by_id; i++) {
			int eid = evs->events[i]->id;

			if (eid >= 0 && eid <= 0xffff && !evs->by_id[eid])
				evs->by_id[eid] = bsearch_id(evs, eid);
		}
		evs->by_id_valid = true;
	}
	if (id >= 0 && (size_t)id < evs->nby_id)
		return evs->by_id[id];
	if (id >= 0 && id <= 0xffff && evs->by_id)
		return NULL;
	return bsearch_id(evs, id);
}

const struct ktrace_event *ktrace_event_find_by_name(const struct ktrace_events *evs,
						      const char *system, const char *name)
{
	for (size_t i = 0; i < evs->nevents; i++) {
		const struct ktrace_event *ev = evs->events[i];

		if (!strcmp(ev->name, name) && (!system || !strcmp(ev->system, system)))
			return ev;
	}
	return NULL;
}

const char *ktrace_event_name(const struct ktrace_event *ev)
{
	return ev->name;
}

const char *ktrace_event_system(const struct ktrace_event *ev)
{
	return ev->system;
}

int ktrace_event_id(const struct ktrace_event *ev)
{
	return ev->id;
}

bool ktrace_event_failed(const struct ktrace_event *ev)
{
	return ev->flags & EV_FAILED;
}

const char *ktrace_event_print_fmt(const struct ktrace_event *ev)
{
	return ev->print_fmt;
}

const char *ktrace_event_print_args(const struct ktrace_event *ev)
{
	return ev->print_args;
}

/* ---- common fields ---- */

/*
 * libtraceevent's __parse_common: the common field is located on the event with the
 * lowest id the first time, then read at that place in every record. Returns the
 * value truncated to int, or -1 when the field does not exist.
 */
int ftev_common_value(struct ktrace_events *evs, const uint8_t *data, uint32_t size,
		    const char *name, int *offset, int *fsize)
{
	if (!*fsize) {
		struct ftev_field *f;

		if (!evs->nevents)
			return -1;
		f = ftev_find_common_field(evs->events[0], name);
		if (!f)
			return -1;
		*offset = (int)f->offset;
		*fsize = (int)f->size;
	}
	if (*offset < 0 || (uint64_t)(unsigned)*offset + (unsigned)*fsize > size)
		return 0;
	return (int)ftev_read_number(evs, data + *offset, (unsigned)*fsize);
}

const struct ktrace_event *ktrace_event_record_event(struct ktrace_events *evs,
						      const struct ktrace_record *rec)
{
	int type;

	/* once the offsets and the id table are known: a 2-byte read and a table */
	if (evs->by_id_valid && evs->type_size == 2 && evs->type_offset >= 0 &&
	    (uint64_t)evs->type_offset + 2 <= rec->size) {
		uint64_t id = ftev_read_number(evs, rec->data + evs->type_offset, 2);

		if (id < evs->nby_id)
			return evs->by_id[id];
	}
	type = ftev_common_value(evs, rec->data, rec->size, "common_type", &evs->type_offset,
				 &evs->type_size);

	return ktrace_event_find(evs, type);
}

int ftev_type_field(const struct ktrace_events *evs, uint32_t *offset)
{
	if (!evs->by_id_valid || evs->type_size != 2 || evs->type_offset < 0)
		return -1;
	*offset = (uint32_t)evs->type_offset;
	return 0;
}

int ktrace_event_record_pid(struct ktrace_events *evs, const struct ktrace_record *rec)
{
	if (evs->pid_size == 4 && evs->pid_offset >= 0 && (uint64_t)evs->pid_offset + 4 <= rec->size)
		return (int)ftev_read_number(evs, rec->data + evs->pid_offset, 4);
	return ftev_common_value(evs, rec->data, rec->size, "common_pid", &evs->pid_offset,
			       &evs->pid_size);
}

int ktrace_event_record_flags(struct ktrace_events *evs, const struct ktrace_record *rec)
{
	return ftev_common_value(evs, rec->data, rec->size, "common_flags", &evs->flags_offset,
			       &evs->flags_size);
}

/* ---- kallsyms ---- */

/* isspace in the C locale, as sscanf's %s stops at it. */
static const bool space_tab[256] = {
	[' '] = true, ['\t'] = true, ['\n'] = true, ['\v'] = true, ['\f'] = true, ['\r'] = true,
};

static inline bool k_space(int c)
{
	return space_tab[(unsigned char)c];
}

/* Hex digit values plus one, 0 for other bytes. */
static const uint8_t hex_value[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline int k_hex(int c)
{
	return (int)hex_value[(unsigned char)c] - 1;
}

/* Next line of text (strtok_r on "\n": empty lines are skipped). */
static bool next_line(const char **pos, const char *end, const char **line, size_t *len)
{
	const char *p = *pos, *nl;

	while (p < end && *p == '\n')
		p++;
	if (p >= end)
		return false;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		nl = end;
	*line = p;
	*len = (size_t)(nl - p);
	*pos = nl;
	return true;
}

/*
 * One kallsyms line, as sscanf("%16llx %c %n%*s%n%*1[\t][%n%*s%n") reads it.
 * Returns false when libtraceevent stops parsing at this line.
 */
static bool parse_kallsyms_line(const char *s, size_t n, uint64_t *addr, char *type,
				size_t *fs, size_t *fe, size_t *ms, size_t *me)
{
	size_t i = 0, digits = 0;
	uint64_t v = 0;
	bool neg = false;

	*ms = *me = 0;
	while (i < n && k_space(s[i]))
		i++;
	if (i < n && (s[i] == '+' || s[i] == '-')) {
		neg = s[i] == '-';
		i++;
	}
	if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') && i + 2 < n &&
	    k_hex(s[i + 2]) >= 0) {
		i += 2;
		digits = 2;
	}
	if (!digits && n - i > 16 && k_hex(s[i + 16]) < 0) {
		/* the usual line: 16 digits in a row, read without a test per digit */
		unsigned bad = 0;

#pragma GCC unroll 16
		for (int k = 0; k < 16; k++) {
			unsigned d = hex_value[(unsigned char)s[i + k]];

			bad |= d - 1u;     /* wraps (top bit set) for a byte that is no digit */
			v = v << 4 | ((d - 1u) & 15);
		}
		if (!(bad & 0x80000000u)) {
			i += 16;
			digits = 16;
		} else {
			v = 0;
		}
	}
	while (i < n && digits < 16 && k_hex(s[i]) >= 0) {
		v = v << 4 | (uint64_t)k_hex(s[i]);
		i++;
		digits++;
	}
	if (!digits)
		return false;
	*addr = neg ? -v : v;
	while (i < n && k_space(s[i]))
		i++;
	if (i >= n)
		return false;
	*type = s[i++];
	while (i < n && k_space(s[i]))
		i++;
	*fs = i;
	/* eight bytes at a time while none is below '!' (white space is) */
	while (n - i >= 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		if ((w - 0x2121212121212121ull) & ~w & 0x8080808080808080ull)
			break;
		i += 8;
	}
	while (i < n && !k_space(s[i]))
		i++;
	*fe = i;
	if (*fe == *fs)
		return false;
	if (i < n && s[i] == '\t' && i + 1 < n && s[i + 1] == '[') {
		i += 2;
		*ms = i;
		/* "%*s" skips leading white space first */
		while (i < n && k_space(s[i]))
			i++;
		if (i < n) {
			*ms = *ms;
			while (i < n && !k_space(s[i]))
				i++;
			*me = i;
		}
	}
	return true;
}

/* A kallsyms this big into an empty registry is read into bigmem (common/bigmem.h). */
#define KSYMS_BIG ((size_t)1 << 20)

/* For a big kallsyms into an empty registry: the table sized for every line at once
 * and a block for the names (a name and its module, each with its NUL, fit in the
 * bytes of their line), in huge pages where the kernel has them. 0, or -ENOMEM. */
static int reserve_big(struct ktrace_events *evs, const char *text, size_t len)
{
	size_t lines = 1;

	for (const char *p = text, *end = text + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		lines++;
	if (lines > (SIZE_MAX / sizeof(*evs->syms)) - 2)
		return -ENOMEM;
	evs->syms = kt_bigmem_alloc((lines + 2) * sizeof(*evs->syms));
	if (!evs->syms)
		return -ENOMEM;
	evs->syms_big = (lines + 2) * sizeof(*evs->syms);
	evs->cap_syms = lines + 2;
	evs->names = kt_bigmem_alloc(len + 1);
	if (!evs->names)
		return -ENOMEM;
	evs->names_big = len + 1;
	evs->names_used = 0;
	return 0;
}

/* A copy of s[0..n) with a NUL: in the names block when there is one, else the arena. */
static char *sym_strndup(struct ktrace_events *evs, const char *s, size_t n)
{
	char *p;

	/* the block is full only when kallsyms come again (ktrace_event_parse_kallsyms) */
	if (!evs->names || evs->names_big - evs->names_used < n + 1)
		return kt_arena_strdup(&evs->sym_arena, s, n);
	p = evs->names + evs->names_used;
	memcpy(p, s, n);
	p[n] = 0;
	evs->names_used += n + 1;
	return p;
}

/* Room for one more symbol and the sentinel. A table in bigmem has room for every line
 * of its kallsyms; when more come (ktrace_event_parse_kallsyms again) it moves to the
 * heap. 0, or -ENOMEM. */
static int grow_syms(struct ktrace_events *evs)
{
	struct ftev_sym *heap;

	if (!evs->syms_big)
		return kt_grow((void **)&evs->syms, &evs->cap_syms, evs->nsyms + 2, sizeof(*evs->syms));
	heap = malloc(evs->cap_syms * 2 * sizeof(*heap));
	if (!heap)
		return -ENOMEM;
	memcpy(heap, evs->syms, evs->nsyms * sizeof(*heap));
	kt_bigmem_free(evs->syms, evs->syms_big);
	evs->syms = heap;
	evs->syms_big = 0;
	evs->cap_syms *= 2;
	return 0;
}

static int parse_kallsyms(struct ktrace_events *evs, const char *text, size_t len,
			  struct ktrace_error *err)
{
	const char *pos = text, *end = text + len, *line;
	size_t n, lineno = 0;

	if (len >= KSYMS_BIG && !evs->syms && !evs->nsyms && !evs->names &&
	    reserve_big(evs, text, len))
		return kt_error_oom(err);
	while (next_line(&pos, end, &line, &n)) {
		size_t fs, fe, ms, me;
		uint64_t addr;
		char type;
		struct ftev_sym *syms;

		lineno++;
		if (!parse_kallsyms_line(line, n, &addr, &type, &fs, &fe, &ms, &me))
			return ktrace_error_set(err, -EBADMSG, "kallsyms line %zu: cannot parse",
						lineno);
		/* libtraceevent skips ARM's '$a' symbols and absolute symbols */
		if (line[fs] == '$' || type == 'A' || type == 'a')
			continue;
		if (evs->nsyms + 2 > evs->cap_syms && grow_syms(evs))
			return kt_error_oom(err);
		syms = evs->syms;
		syms[evs->nsyms].addr = addr;
		syms[evs->nsyms].name = sym_strndup(evs, line + fs, fe - fs);
		syms[evs->nsyms].name_len = (uint32_t)(fe - fs);
		syms[evs->nsyms].mod = me > ms ? sym_strndup(evs, line + ms, me - ms - 1) : NULL;
		syms[evs->nsyms].index = (uint32_t)evs->nsyms;
		evs->sym_name_bytes += fe - fs + 1 + (me > ms ? me - ms : 0);
		if (!syms[evs->nsyms].name)
			return kt_error_oom(err);
		evs->nsyms++;
		evs->syms_sorted = false;
		evs->syms_in_order = false;
	}
	if (evs->fcache)
		memset(evs->fcache, 0, EV_FCACHE * sizeof(*evs->fcache));
	return 0;
}

int ktrace_event_parse_kallsyms(struct ktrace_events *evs, const char *text, size_t len,
				 struct ktrace_error *err)
{
	ftev_syms_need(evs);
	if (evs->syms_borrowed || evs->sym_owner)
		return ktrace_error_set(err, -EINVAL, "kallsyms shared with another registry");
	return parse_kallsyms(evs, text, len, err);
}

void ftev_defer_kallsyms(struct ktrace_events *evs, const char *text, size_t len)
{
	struct ktrace_error ignore;

	if (evs->syms_borrowed || evs->sym_owner ||
	    atomic_load_explicit(&evs->syms_pending, memory_order_relaxed) || evs->nsyms) {
		if (!evs->syms_borrowed && !evs->sym_owner) {
			ftev_syms_need(evs);
			parse_kallsyms(evs, text, len, &ignore);
		}
		return;
	}
	evs->ksym_text = text;
	evs->ksym_len = len;
	atomic_store_explicit(&evs->syms_pending, true, memory_order_release);
}

static void order_syms(struct ktrace_events *evs);

/* With evs->sym_mu held: the deferred table made (in address order: it may be shared
 * from now on), or another registry's taken. */
static void syms_load_locked(struct ktrace_events *evs)
{
	struct ktrace_error ignore;

	if (!atomic_load_explicit(&evs->syms_pending, memory_order_relaxed))
		return;
	if (evs->sym_owner) {
		struct ktrace_events *o = evs->sym_owner;

		pthread_mutex_lock(&o->sym_mu);
		syms_load_locked(o);
		pthread_mutex_unlock(&o->sym_mu);
		evs->syms = o->syms;
		evs->nsyms = o->nsyms;
		evs->cap_syms = o->cap_syms;
		evs->syms_in_order = true;
		evs->syms_sorted = false;
		evs->syms_borrowed = true;
	} else {
		/* like trace-cmd, lines after one that does not parse are dropped */
		parse_kallsyms(evs, evs->ksym_text, evs->ksym_len, &ignore);
		order_syms(evs);
	}
	atomic_store_explicit(&evs->syms_pending, false, memory_order_release);
}

void ftev_syms_load(struct ktrace_events *evs)
{
	pthread_mutex_lock(&evs->sym_mu);
	syms_load_locked(evs);
	pthread_mutex_unlock(&evs->sym_mu);
}

/* Order of libtraceevent's function map: by address; for equal addresses, the symbol
 * registered last first (its list is built backwards and the sort is stable). */
static int sym_cmp(const void *a, const void *b)
{
	const struct ftev_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index > y->index ? -1 : x->index < y->index;
}

/* Puts the table in that order (kallsyms lists symbols by address already: then only
 * the runs of equal addresses turn round), with the sentinel after it. */
static void order_syms(struct ktrace_events *evs)
{
	size_t n = evs->nsyms, i = 1;

	if (evs->syms_in_order)
		return;
	evs->syms_in_order = true;
	while (i < n && evs->syms[i - 1].addr <= evs->syms[i].addr)
		i++;
	if (i < n) {
		qsort(evs->syms, n, sizeof(*evs->syms), sym_cmp);
	} else {
		for (i = 0; i < n;) {
			size_t j = i + 1;

			while (j < n && evs->syms[j].addr == evs->syms[i].addr)
				j++;
			for (size_t a = i, b = j - 1; a < b; a++, b--) {
				struct ftev_sym t = evs->syms[a];

				evs->syms[a] = evs->syms[b];
				evs->syms[b] = t;
			}
			i = j;
		}
	}
	if (evs->syms) {
		/* the cap always leaves room for the sentinel */
		evs->syms[n].addr = 0;
		evs->syms[n].name = NULL;
		evs->syms[n].mod = NULL;
	}
}

/* libtraceevent builds its function map at the first lookup. */
static void sort_syms(struct ktrace_events *evs)
{
	order_syms(evs);
	evs->syms_sorted = true;
}

int ftev_share_symbols(struct ktrace_events *dst, const struct ktrace_events *src)
{
	if (dst->nsyms || dst->syms || dst->sym_owner ||
	    atomic_load_explicit(&dst->syms_pending, memory_order_relaxed))
		return -EINVAL;
	if (atomic_load_explicit(&src->syms_pending, memory_order_acquire)) {
		/* made on first need, by whichever registry needs it first */
		dst->sym_owner = (struct ktrace_events *)src;
		atomic_store_explicit(&dst->syms_pending, true, memory_order_release);
		return 0;
	}
	if (!src->syms_in_order)
		return -EINVAL;
	dst->syms = src->syms;
	dst->nsyms = src->nsyms;
	dst->cap_syms = src->cap_syms;
	dst->syms_in_order = true;
	dst->syms_sorted = false;
	dst->syms_borrowed = true;
	return 0;
}

void ftev_prepare_share(struct ktrace_events *evs)
{
	/* a deferred table is put in order when it is made */
	if (!atomic_load_explicit(&evs->syms_pending, memory_order_acquire))
		order_syms(evs);
}

size_t ftev_shared_bytes(const struct ktrace_events *evs)
{
	return evs->syms_borrowed ? 0 : evs->cap_syms * sizeof(*evs->syms) + evs->sym_name_bytes;
}

size_t ftev_memory_with_syms(struct ktrace_events *evs)
{
	size_t n = ktrace_event_memory(evs) + evs->sym_name_bytes;

	/* a kallsyms not parsed yet: about a symbol and its name per 30 bytes of text */
	if (!evs->syms_borrowed && atomic_load_explicit(&evs->syms_pending, memory_order_acquire))
		n += evs->ksym_len / 30 * sizeof(*evs->syms) + evs->ksym_len;
	return n;
}

static const struct ftev_sym *find_func_search(struct ktrace_events *evs, uint64_t addr)
{
	size_t l = 0, u;

	sort_syms(evs);
	u = evs->nsyms;
	/* glibc's bsearch with libtraceevent's "address within" comparison */
	while (l < u) {
		size_t idx = (l + u) / 2;
		const struct ftev_sym *f = &evs->syms[idx];

		if (addr == f->addr || (addr > f->addr && addr < f[1].addr))
			return f;
		if (addr < f->addr)
			u = idx;
		else
			l = idx + 1;
	}
	return NULL;
}

const struct ftev_sym *ftev_find_func(struct ktrace_events *evs, uint64_t addr)
{
	struct ftev_fcache *e;

	ftev_syms_need(evs);
	if (!evs->nsyms)
		return NULL;
	if (evs->nsyms < 1024)
		return find_func_search(evs, addr);
	if (!evs->fcache) {
		evs->fcache = calloc(EV_FCACHE, sizeof(*evs->fcache));
		if (!evs->fcache)
			return find_func_search(evs, addr);
	}
	e = &evs->fcache[(addr ^ (addr >> 10) ^ (addr >> 20)) & (EV_FCACHE - 1)];
	if (e->valid && e->addr == addr)
		return e->sym;
	e->addr = addr;
	e->sym = find_func_search(evs, addr);
	e->valid = true;
	return e->sym;
}

const char *ktrace_event_function(struct ktrace_events *evs, uint64_t addr, uint64_t *start)
{
	const struct ftev_sym *f = ftev_find_func(evs, addr);

	if (!f)
		return NULL;
	if (start)
		*start = f->addr;
	return f->name;
}

/* libtraceevent's test_for_symbol: an atom that is not a number may be a kernel
 * symbol; the first one of that name in its current list order gives the value. */
uint64_t ftev_symbol_value(struct ktrace_events *evs, const char *name)
{
	const struct ftev_sym *best = NULL;
	size_t len = strlen(name);

	ftev_syms_need(evs);
	if (evs->syms_sorted) {
		for (size_t i = 0; i < evs->nsyms; i++)
			if (evs->syms[i].name_len == len && !memcmp(evs->syms[i].name, name, len))
				return evs->syms[i].addr;
		return 0;
	}
	/* before the map: its list, the symbol listed last first (wherever the table's
	 * own order has put it) */
	for (size_t i = 0; i < evs->nsyms; i++)
		if (evs->syms[i].name_len == len && (!best || evs->syms[i].index > best->index) &&
		    !memcmp(evs->syms[i].name, name, len))
			best = &evs->syms[i];
	return best ? best->addr : 0;
}

/* ---- printk formats ---- */

int ktrace_event_parse_printk_formats(struct ktrace_events *evs, const char *text, size_t len,
				       struct ktrace_error *err)
{
	const char *pos = text, *end = text + len, *line;
	size_t n;

	while (next_line(&pos, end, &line, &n)) {
		const char *p = line, *lend = line + n, *colon, *fmt;
		struct ftev_printk *pk;
		uint64_t addr = 0;
		size_t flen;
		char *s;

		/* strtok_r(line, ":"): leading ':' are skipped */
		while (p < lend && *p == ':')
			p++;
		if (p >= lend)
			break;       /* "printk format with empty entry" */
		colon = memchr(p, ':', (size_t)(lend - p));
		/* strtoull(addr, 16) */
		{
			const char *q = p;
			bool neg = false;

			while (q < lend && k_space(*q))
				q++;
			if (q < lend && (*q == '+' || *q == '-')) {
				neg = *q == '-';
				q++;
			}
			if (q + 1 < lend && q[0] == '0' && (q[1] == 'x' || q[1] == 'X') &&
			    q + 2 < lend && k_hex(q[2]) >= 0)
				q += 2;
			while (q < lend && (!colon || q < colon) && k_hex(*q) >= 0) {
				addr = addr << 4 | (uint64_t)k_hex(*q);
				q++;
			}
			if (neg)
				addr = -addr;
		}
		/* the format follows ": " (libtraceevent skips one character) */
		if (!colon || colon + 1 >= lend)
			fmt = lend;
		else
			fmt = colon + 2;
		if (fmt > lend)
			fmt = lend;
		flen = (size_t)(lend - fmt);
		if (flen && *fmt == '"') {
			fmt++;
			flen--;
		}
		s = kt_arena_strdup(&evs->arena, fmt, flen);
		if (!s)
			return kt_error_oom(err);
		/* a closing quote goes, and then a final "\\n" */
		flen = strlen(s);
		if (flen >= 3 && s[flen - 1] == '"') {
			s[--flen] = 0;
			if (s[flen - 2] == '\\' && s[flen - 1] == 'n')
				s[flen - 2] = 0;
		} else if (flen && s[flen - 1] == '"') {
			s[--flen] = 0;
		}
		if (kt_grow((void **)&evs->printks, &evs->cap_printks, evs->nprintks + 1,
			    sizeof(*evs->printks)))
			return kt_error_oom(err);
		pk = evs->printks;
		pk[evs->nprintks].addr = addr;
		pk[evs->nprintks].fmt = s;
		evs->nprintks++;
		evs->printks_sorted = false;
	}
	return 0;
}

struct printk_key {
	struct ftev_printk pk;
	size_t index;
};

static int printk_cmp(const void *a, const void *b)
{
	const struct printk_key *x = a, *y = b;

	if (x->pk.addr != y->pk.addr)
		return x->pk.addr < y->pk.addr ? -1 : 1;
	return x->index > y->index ? -1 : x->index < y->index;
}

const struct ftev_printk *ftev_find_printk(struct ktrace_events *evs, uint64_t addr)
{
	size_t l = 0, u;

	if (!evs->nprintks)
		return NULL;
	if (!evs->printks_sorted) {
		struct printk_key *keys = malloc(evs->nprintks * sizeof(*keys));

		evs->printks_sorted = true;
		if (keys) {
			for (size_t i = 0; i < evs->nprintks; i++) {
				keys[i].pk = evs->printks[i];
				keys[i].index = i;
			}
			qsort(keys, evs->nprintks, sizeof(*keys), printk_cmp);
			for (size_t i = 0; i < evs->nprintks; i++)
				evs->printks[i] = keys[i].pk;
			free(keys);
		}
	}
	u = evs->nprintks;
	while (l < u) {
		size_t idx = (l + u) / 2;
		uint64_t a = evs->printks[idx].addr;

		if (addr < a)
			u = idx;
		else if (addr > a)
			l = idx + 1;
		else
			return &evs->printks[idx];
	}
	return NULL;
}

/* ---- comms ---- */

static int comm_cmp(const void *a, const void *b)
{
	const struct ftev_comm *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Before the first lookup, registrations accumulate; the first lookup sorts them the
 * way libtraceevent does (later registrations first among equal pids). */
static void comms_init(struct ktrace_events *evs)
{
	struct ftev_comm *c = evs->comms;
	size_t n = evs->ncomms;

	if (evs->comms_sorted)
		return;
	evs->comms_sorted = true;
	/* reverse (the list was built by prepending), then a stable sort */
	for (size_t i = 0; i < n / 2; i++) {
		struct ftev_comm t = c[i];

		c[i] = c[n - 1 - i];
		c[n - 1 - i] = t;
	}
	/* insertion-merge sort: stable */
	if (n > 1) {
		struct ftev_comm *tmp = malloc(n * sizeof(*tmp));

		if (tmp) {
			for (size_t width = 1; width < n; width *= 2) {
				for (size_t lo = 0; lo < n; lo += 2 * width) {
					size_t mid = lo + width < n ? lo + width : n;
					size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
					size_t i = lo, j = mid, k = lo;

					while (i < mid && j < hi)
						tmp[k++] = comm_cmp(&c[j], &c[i]) < 0 ? c[j++] : c[i++];
					while (i < mid)
						tmp[k++] = c[i++];
					while (j < hi)
						tmp[k++] = c[j++];
				}
				memcpy(c, tmp, n * sizeof(*c));
			}
			free(tmp);
		}
	}
}

/* What ftev_comm_lookup answers for a pid with no name (compared by address). */
static const char comm_unknown[] = "<...>";

static struct ftev_comm *comm_bsearch(struct ktrace_events *evs, int pid)
{
	size_t l = 0, u = evs->ncomms;

	while (l < u) {
		size_t idx = (l + u) / 2;
		int p = evs->comms[idx].pid;

		if (pid < p)
			u = idx;
		else if (pid > p)
			l = idx + 1;
		else
			return &evs->comms[idx];
	}
	return NULL;
}

const char *ftev_comm_lookup(struct ktrace_events *evs, int pid)
{
	struct ftev_comm *c;

	if (!pid)
		return "<idle>";
	struct ftev_comm *slot = &evs->comm_cache[(unsigned)pid % EV_COMM_CACHE];

	if (evs->last_comm && evs->last_pid == pid)
		return evs->last_comm;
	if (slot->comm && slot->pid == pid) {
		evs->last_pid = pid;
		evs->last_comm = slot->comm;
		return slot->comm;
	}
	comms_init(evs);
	c = comm_bsearch(evs, pid);
	evs->last_pid = pid;
	evs->last_comm = c ? c->comm : comm_unknown;
	slot->pid = pid;
	slot->comm = evs->last_comm;
	return evs->last_comm;
}

const char *ktrace_event_comm(struct ktrace_events *evs, int pid)
{
	return ftev_comm_lookup(evs, pid);
}

static int comm_add(struct ktrace_events *evs, int pid, const char *comm, size_t n)
{
	struct ftev_comm *comms;
	char *copy;
	size_t pos;

	if (evs->comms_sorted) {
		struct ftev_comm *slot = &evs->comm_cache[(unsigned)pid % EV_COMM_CACHE];
		const struct ftev_comm *known;

		/* a pid looked up or met lately: its name is known (the first one stays) */
		if (slot->pid == pid && slot->comm && slot->comm != comm_unknown)
			return 0;
		if (!pid)
			return 0;
		known = comm_bsearch(evs, pid);
		if (known) {
			slot->pid = pid;
			slot->comm = known->comm;
			return 0;
		}
	}
	if (kt_grow((void **)&evs->comms, &evs->cap_comms, evs->ncomms + 1, sizeof(*evs->comms)))
		return -ENOMEM;
	comms = evs->comms;
	copy = malloc(n + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, comm, n);
	copy[n] = 0;
	if (!evs->comms_sorted) {
		pos = evs->ncomms;
	} else {
		size_t l = 0, u = evs->ncomms;

		while (l < u) {
			size_t m = (l + u) / 2;

			if (comms[m].pid < pid)
				l = m + 1;
			else
				u = m;
		}
		pos = l;
		memmove(comms + pos + 1, comms + pos, (evs->ncomms - pos) * sizeof(*comms));
	}
	comms[pos].pid = pid;
	comms[pos].comm = copy;
	evs->ncomms++;
	evs->last_comm = NULL;
	evs->comm_cache[(unsigned)pid % EV_COMM_CACHE].comm = NULL;
	return 0;
}

int ktrace_event_register_comm(struct ktrace_events *evs, int pid, const char *comm)
{
	if (!comm)
		comm = "<...>";
	return comm_add(evs, pid, comm, strlen(comm));
}

void ktrace_event_comm_passed(struct ktrace_events *evs, const struct ktrace_record *rec)
{
	if (!evs->comms_sorted && ktrace_event_record_pid(evs, rec) != 0)
		comms_init(evs);
}

bool ktrace_event_comms_ordered(const struct ktrace_events *evs)
{
	return evs->comms_sorted;
}

void ftev_print_learns(struct ktrace_events *evs, bool learns)
{
	evs->print_no_learn = !learns;
}

void ftev_comm_learn(struct ktrace_events *evs, int pid, const char *comm, size_t n,
		     bool looked_up)
{
	/* in trace-cmd the record's comm column is looked up before its event prints,
	 * which sorts the names registered so far, unless its pid is 0 ("<idle>", no
	 * lookup): a name registered before any lookup is added beside the saved one */
	if (looked_up)
		comms_init(evs);
	comm_add(evs, pid, comm, n);
}

int ktrace_event_parse_cmdlines(struct ktrace_events *evs, const char *text, size_t len,
				 struct ktrace_error *err)
{
	const char *pos = text, *end = text + len, *line;
	size_t n;

	while (next_line(&pos, end, &line, &n)) {
		size_t i = 0;
		long long pid = 0;
		bool neg = false, any = false;

		/* sscanf("%d %m[^\n]s") */
		while (i < n && k_space(line[i]))
			i++;
		if (i < n && (line[i] == '+' || line[i] == '-')) {
			neg = line[i] == '-';
			i++;
		}
		while (i < n && line[i] >= '0' && line[i] <= '9') {
			if (pid < 10000000000LL)
				pid = pid * 10 + (line[i] - '0');
			any = true;
			i++;
		}
		if (!any || pid > 0x7fffffffLL + neg)
			return ktrace_error_set(err, -EBADMSG, "saved cmdlines: cannot parse a line");
		while (i < n && k_space(line[i]))
			i++;
		if (i >= n)
			return ktrace_error_set(err, -EBADMSG, "saved cmdlines: a line has no comm");
		if (comm_add(evs, (int)(neg ? -pid : pid), line + i, n - i) < 0)
			return kt_error_oom(err);
	}
	return 0;
}
