// SPDX-License-Identifier: MIT
/*
 * BTF (the kernel's /sys/kernel/btf/vmlinux, which trace-cmd 3.4 saves in trace.dat) for
 * one purpose: naming and typing the arguments of a function-graph entry the way trace-cmd
 * 3.4 prints them (libtraceevent's tep_btf_print_args, read for its rules):
 *
 *   - the function is found by its kallsyms name among the BTF's FUNC types (sorted by
 *     name, looked up by binary search; a name with a '.' suffix, "f.isra.0", is tried
 *     again as "f"); not found, or no BTF: the arguments as bare hex numbers, ", "
 *     between them;
 *   - found: for each parameter of its prototype "name=value": a pointer or an unknown
 *     type in hex ("0x..", an unknown one after a '?'), an integer shifted and masked to
 *     its bits, then in decimal when signed (no sign extension: an int -1 is 4294967295)
 *     and in hex when not, an enum in decimal, anything else as "(KIND)[0x..:0x..]" over
 *     the long words its size covers; "..." for the parameters the record does not
 *     hold; a parameter without a type (varargs) prints "=" and nothing else.
 *
 * The BTF comes from the file and is not trusted: every type, name and offset is
 * checked against its bytes; a BTF libtraceevent refuses (another byte order, a header
 * too short, types past the end, a kind it does not know) is not used at all, as
 * there. Where libtraceevent would read out of bounds or loop (a type id past the
 * table, a cycle of typedefs), ktrace prints the value as of an unknown type.
 */
#include <stdlib.h>
#include <string.h>

#include "event/event_int.h"
#include "event/event_share.h"

enum {
	BTF_KIND_UNKN, BTF_KIND_INT, BTF_KIND_PTR, BTF_KIND_ARRAY, BTF_KIND_STRUCT,
	BTF_KIND_UNION, BTF_KIND_ENUM, BTF_KIND_FWD, BTF_KIND_TYPEDEF, BTF_KIND_VOLATILE,
	BTF_KIND_CONST, BTF_KIND_RESTRICT, BTF_KIND_FUNC, BTF_KIND_FUNC_PROTO, BTF_KIND_VAR,
	BTF_KIND_DATASEC, BTF_KIND_FLOAT, BTF_KIND_DECL_TAG, BTF_KIND_TYPE_TAG,
	BTF_KIND_ENUM64, BTF_NR_KINDS,
};

static const char *const kind_names[BTF_NR_KINDS] = {
	"UNKNOWN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD", "TYPEDEF",
	"VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO", "VAR", "DATASEC", "FLOAT",
	"DECL_TAG", "TYPE_TAG", "ENUM64",
};

#define BTF_HEADER_SIZE 24u
#define BTF_TYPE_SIZE   12u      /* name_off, info, size/type */
#define BTF_MAX_CHAIN   64       /* typedef/const/... links followed */

struct ftev_btf {
	const uint8_t *data;         /* the whole BTF (owned by the caller) */
	size_t len;
	const char *strs;            /* string section, clipped to the data */
	size_t strs_len;
	uint32_t str_len;            /* as the header says (names at or past it are "") */
	uint32_t *types;             /* offset in data of type id i + 1 */
	size_t ntypes;
	uint32_t *funcs;             /* ids of the FUNC types, sorted by name */
	size_t nfuncs;
};

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);            /* libtraceevent reads BTF in the host's byte order */
	return v;
}

static unsigned kind_of(uint32_t info)
{
	return (info >> 24) & 0x1f;
}

/* Bytes a type takes, -1 for a kind libtraceevent does not know. */
static long type_size(uint32_t info)
{
	long vlen = info & 0xffff;

	switch (kind_of(info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return BTF_TYPE_SIZE + 4;
	case BTF_KIND_ARRAY:
		return BTF_TYPE_SIZE + 12;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return BTF_TYPE_SIZE + 8 * vlen;
	case BTF_KIND_ENUM64:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
		return BTF_TYPE_SIZE + 12 * vlen;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
		return BTF_TYPE_SIZE;
	}
	return -1;
}

/* A name: "" when off is at or past the header's string length, as libtraceevent;
 * bounded by the string section's bytes (it would read on). */
static const char *name_at(const struct ftev_btf *b, uint32_t off, size_t *len)
{
	const char *s, *nul;

	if (off >= b->str_len || off >= b->strs_len) {
		*len = 0;
		return "";
	}
	s = b->strs + off;
	nul = memchr(s, 0, b->strs_len - off);
	*len = nul ? (size_t)(nul - s) : b->strs_len - off;
	return s;
}

/* strcmp of two counted names */
static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

static const uint8_t *type_at(const struct ftev_btf *b, uint32_t id)
{
	if (!id || id > b->ntypes)
		return NULL;
	return b->data + b->types[id - 1];
}

static int func_cmp(const struct ftev_btf *b, uint32_t x, uint32_t y)
{
	size_t lx, ly;
	const char *nx = name_at(b, rd32(type_at(b, x)), &lx);
	const char *ny = name_at(b, rd32(type_at(b, y)), &ly);

	return name_cmp(nx, lx, ny, ly);
}

/* A stable merge sort of the FUNC ids by name (glibc's qsort is one when it has the
 * memory, so that equal names keep their BTF order there too). */
static void sort_funcs(const struct ftev_btf *b, uint32_t *v, uint32_t *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sort_funcs(b, v, tmp, h);
	sort_funcs(b, v + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = func_cmp(b, v[j], v[i]) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

void ftev_btf_free(struct ftev_btf *b)
{
	if (!b)
		return;
	free(b->types);
	free(b->funcs);
	free(b);
}

struct ftev_btf *ftev_btf_load(const uint8_t *data, size_t len)
{
	struct ftev_btf *b;
	uint32_t hdr_len, type_off, type_len, str_off;
	size_t start, end, cap;
	uint16_t magic;
	uint32_t *tmp;

	if (len < BTF_HEADER_SIZE)
		return NULL;
	memcpy(&magic, data, 2);
	hdr_len = rd32(data + 4);
	type_off = rd32(data + 8);
	type_len = rd32(data + 12);
	str_off = rd32(data + 16);
	if (magic != 0xeb9f || hdr_len < BTF_HEADER_SIZE || str_off > len)
		return NULL;
	start = (size_t)hdr_len + type_off;
	end = start + type_len;
	if (hdr_len > len || start > len || end > len)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->data = data;
	b->len = len;
	b->str_len = rd32(data + 20);
	if ((size_t)hdr_len + str_off < len) {
		b->strs = (const char *)data + hdr_len + str_off;
		b->strs_len = len - hdr_len - str_off;
	}
	cap = type_len / BTF_TYPE_SIZE + 1;
	b->types = malloc(cap * sizeof(*b->types));
	b->funcs = malloc(cap * sizeof(*b->funcs));
	if (!b->types || !b->funcs)
		goto fail;
	for (size_t at = start; at < end;) {
		long size;

		if (len - at < BTF_TYPE_SIZE)
			goto fail;
		size = type_size(rd32(data + at + 4));
		if (size < 0 || (size_t)size > len - at || b->ntypes >= cap)
			goto fail;
		if (kind_of(rd32(data + at + 4)) == BTF_KIND_FUNC)
			b->funcs[b->nfuncs++] = (uint32_t)b->ntypes + 1;
		b->types[b->ntypes++] = (uint32_t)at;
		at += (size_t)size;
	}
	tmp = malloc((b->nfuncs ? b->nfuncs : 1) * sizeof(*tmp));
	if (!tmp)
		goto fail;
	sort_funcs(b, b->funcs, tmp, b->nfuncs);
	free(tmp);
	return b;
fail:
	ftev_btf_free(b);
	return NULL;
}

/* glibc's bsearch over the sorted FUNC ids: the one its probes meet first. */
static const uint8_t *find_func(const struct ftev_btf *b, const char *name, size_t len)
{
	size_t l = 0, u = b->nfuncs;

	while (l < u) {
		size_t idx = (l + u) / 2, flen;
		const uint8_t *t = type_at(b, b->funcs[idx]);
		const char *fname = name_at(b, rd32(t), &flen);
		int c = name_cmp(name, len, fname, flen);

		if (c < 0)
			u = idx;
		else if (c > 0)
			l = idx + 1;
		else
			return t;
	}
	return NULL;
}

/* The type with typedefs, qualifiers and tags skipped; NULL where libtraceevent would
 * read out of the table or go round for ever. */
static const uint8_t *skip_modifiers(const struct ftev_btf *b, uint32_t id)
{
	const uint8_t *t = type_at(b, id);

	for (int n = 0; t && n < BTF_MAX_CHAIN; n++) {
		switch (kind_of(rd32(t + 4))) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t = type_at(b, rd32(t + 8));
			continue;
		}
		return t;
	}
	return NULL;
}

static uint64_t arg_at(const struct ktrace_events *evs, const uint8_t *args, int size, int a)
{
	return ftev_read_number(evs, args + (size_t)a * (size_t)size, (unsigned)size);
}

void ftev_btf_print_args(struct ktrace_events *evs, const struct ftev_btf *b, struct ktrace_out *o,
			 const uint8_t *args, int nmem, int size, const char *func, size_t flen)
{
	const uint8_t *ft = NULL, *proto;
	unsigned nr;

	if (size != 4 && size != 8)
		return;
	if (nmem < 0)
		nmem = 0;
	if (b) {
		const char *dot = memchr(func, '.', flen);

		ft = find_func(b, func, flen);
		if (!ft && dot)
			ft = find_func(b, func, (size_t)(dot - func));
	}
	if (!ft) {
		for (int i = 0; i < nmem; i++) {
			if (i)
				kt_out_lit(o, ", ");
			kt_out_hex(o, arg_at(evs, args, size, i), 0);
		}
		return;
	}
	proto = type_at(b, rd32(ft + 8));
	if (!proto || kind_of(rd32(proto + 4)) != BTF_KIND_FUNC_PROTO)
		return;
	nr = rd32(proto + 4) & 0xffff;
	for (int a = 0, p = 0; p < (int)nr; a++, p++) {
		const uint8_t *param = proto + BTF_TYPE_SIZE + 8 * (size_t)p, *t;
		uint32_t ptype = rd32(param + 4);
		const char *pname;
		size_t plen;
		uint64_t arg;
		unsigned kind;

		if (p)
			kt_out_lit(o, ", ");
		if (a == nmem) {
			kt_out_lit(o, "...");
			break;
		}
		arg = arg_at(evs, args, size, a);
		pname = name_at(b, rd32(param), &plen);
		kt_out_write(o, pname, plen);
		kt_out_putc(o, '=');
		if (!ptype)
			continue;
		t = skip_modifiers(b, ptype);
		kind = t ? kind_of(rd32(t + 4)) : BTF_KIND_UNKN;
		switch (kind) {
		case BTF_KIND_UNKN:
			kt_out_putc(o, '?');
			/* fall through */
		case BTF_KIND_PTR:
			kt_out_lit(o, "0x");
			kt_out_hex(o, arg, 0);
			break;
		case BTF_KIND_INT: {
			uint32_t enc = rd32(t + BTF_TYPE_SIZE);
			unsigned bits = enc & 0xff, off = (enc >> 16) & 0xff;

			arg = off < 64 ? arg >> off : 0;
			if (bits < 64)
				arg &= (1ull << bits) - 1;
			if ((enc >> 24) & 1) {           /* BTF_INT_SIGNED */
				kt_out_i64(o, (int64_t)arg, 0);
			} else {
				kt_out_lit(o, "0x");
				kt_out_hex(o, arg, 0);
			}
			break;
		}
		case BTF_KIND_ENUM:
			kt_out_i64(o, (int64_t)arg, 0);
			break;
		default:
			/* a struct by value and the rest: the long words it covers */
			kt_out_putc(o, '(');
			kt_out_puts(o, kind_names[kind]);
			kt_out_lit(o, ")[0x");
			kt_out_hex(o, arg, 0);
			for (uint64_t x = 8; x < rd32(t + 8); x += 8) {
				kt_out_putc(o, ':');
				if (++a == nmem) {
					kt_out_lit(o, "...]");
					return;
				}
				kt_out_lit(o, "0x");
				kt_out_hex(o, arg_at(evs, args, size, a), 0);
			}
			kt_out_putc(o, ']');
			break;
		}
	}
}

void ftev_defer_btf(struct ktrace_events *evs, const void *data, size_t len)
{
	ftev_btf_free(evs->btf);
	evs->btf = NULL;
	evs->btf_tried = false;
	evs->btf_data = data;
	evs->btf_len = len;
}
