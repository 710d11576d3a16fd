// SPDX-License-Identifier: MIT
/*
 * sched_switch's prev_state as text, as the kernel's own print fmt prints it (what
 * `trace-cmd report -N` shows: "S", "D", "R", "R+", "I"...): the flags table of its
 * __print_flags is read from the event's format, so that each kernel's letters are
 * used. The value masked to the table's bits prints its flags joined by "|" (bits no
 * flag names as 0x...), or "R" when none is set; the bit above the table (the kernel's
 * TASK_REPORT_MAX, "preempted") adds "+".
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_model.h"

#define MAX_FLAGS 32

struct kt_prev_state {
	size_t n;
	uint64_t value[MAX_FLAGS];
	char name[MAX_FLAGS][8];
	char none[8];                /* the text when no flag is set ("R") */
	uint64_t mask, plus;         /* the table's bits; the "+" bit (0: none) */
};

/* Kernels since 4.14. */
static const struct kt_prev_state modern = {
	8,
	{ 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80 },
	{ "S", "D", "T", "t", "X", "Z", "P", "I" },
	"R", 0xff, 0x100,
};

static const char *skip_space(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* A C string literal at p (no escapes expected): its text into out. */
static const char *string_at(const char *p, char *out, size_t len)
{
	size_t n = 0;

	p = skip_space(p);
	if (*p != '"')
		return NULL;
	for (p++; *p && *p != '"'; p++) {
		if (*p == '\\' || n + 1 >= len)
			return NULL;
		out[n++] = *p;
	}
	if (*p != '"')
		return NULL;
	out[n] = 0;
	return p + 1;
}

/* ---- constant integer expressions of a print fmt: numbers, ( ), unary - ~ !, and
 * * / % + - << >> & ^ | with C's precedence ---- */

struct expr {
	const char *p;
	bool bad;
};

static uint64_t binary(struct expr *e, int level);

static uint64_t primary(struct expr *e)
{
	uint64_t v;
	char *end;

	e->p = skip_space(e->p);
	switch (*e->p) {
	case '(':
		e->p++;
		v = binary(e, 0);
		e->p = skip_space(e->p);
		if (*e->p != ')')
			e->bad = true;
		else
			e->p++;
		return v;
	case '-':
		e->p++;
		return -primary(e);
	case '~':
		e->p++;
		return ~primary(e);
	case '!':
		e->p++;
		return !primary(e);
	}
	if (!isdigit((unsigned char)*e->p)) {
		e->bad = true;
		return 0;
	}
	v = strtoull(e->p, &end, 0);
	e->p = end;
	while (*e->p == 'u' || *e->p == 'U' || *e->p == 'l' || *e->p == 'L')
		e->p++;
	return v;
}

/* Binary operators by precedence level, lowest first. */
static const char *const levels[][4] = {
	{ "|" }, { "^" }, { "&" }, { "<<", ">>" }, { "+", "-" }, { "*", "/", "%" },
};

static uint64_t binary(struct expr *e, int level)
{
	uint64_t v;

	if (level == (int)(sizeof(levels) / sizeof(levels[0])))
		return primary(e);
	v = binary(e, level + 1);
	for (;;) {
		const char *op = NULL;
		uint64_t r;

		e->p = skip_space(e->p);
		for (int i = 0; i < 4 && levels[level][i]; i++) {
			size_t n = strlen(levels[level][i]);

			/* "|" is not "||", "&" not "&&" */
			if (!strncmp(e->p, levels[level][i], n) && e->p[n] != e->p[0]) {
				op = levels[level][i];
				e->p += n;
				break;
			}
		}
		if (!op || e->bad)
			return v;
		r = binary(e, level + 1);
		switch (op[0]) {
		case '|': v |= r; break;
		case '^': v ^= r; break;
		case '&': v &= r; break;
		case '<': v = r < 64 ? v << r : 0; break;
		case '>': v = r < 64 ? v >> r : 0; break;
		case '+': v += r; break;
		case '-': v -= r; break;
		case '*': v *= r; break;
		case '/': v = r ? v / r : 0; break;
		case '%': v = r ? v % r : 0; break;
		}
	}
}

/* "REC->prev_state & EXPR" at p: EXPR's value; false when it does not parse. */
static bool masked(const char *p, uint64_t *v)
{
	struct expr e;

	p = skip_space(p);
	if (*p == '(')
		p = skip_space(p + 1);
	if (strncmp(p, "REC->prev_state", 15))
		return false;
	p = skip_space(p + 15);
	if (*p != '&')
		return false;
	e.p = p + 1;
	e.bad = false;
	*v = binary(&e, 0);
	return !e.bad;
}

struct kt_prev_state *kt_prev_state_parse(const char *fmt)
{
	struct kt_prev_state *ps;
	const char *p, *q;

	if (!fmt || !(p = strstr(fmt, "__print_flags(")))
		return NULL;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	/* __print_flags(REC->prev_state & MASK, "|", { value, "name" }...) */
	if (!masked(p + 14, &ps->mask) || !ps->mask)
		goto fail;
	p = strstr(p, "\"|\"");
	if (!p)
		goto fail;
	p += 3;
	for (;;) {
		char *end;
		unsigned long long v;

		p = skip_space(p);
		if (*p == ',')
			p = skip_space(p + 1);
		if (*p == ')')
			break;
		if (*p != '{' || ps->n == MAX_FLAGS)
			goto fail;
		p = skip_space(p + 1);
		v = strtoull(p, &end, 0);
		if (end == p)
			goto fail;
		p = skip_space(end);
		if (*p != ',')
			goto fail;
		p = string_at(p + 1, ps->name[ps->n], sizeof(ps->name[0]));
		if (!p)
			goto fail;
		p = skip_space(p);
		if (*p != '}')
			goto fail;
		p++;
		ps->value[ps->n++] = v;
	}
	if (!ps->n)
		goto fail;
	/* ') : "R", REC->prev_state & PLUS ? "+" : ""' */
	q = skip_space(p + 1);
	if (*q == ':' && (q = string_at(q + 1, ps->none, sizeof(ps->none)))) {
		q = skip_space(q);
		if (*q == ',' && !masked(q + 1, &ps->plus))
			ps->plus = 0;
		if (!strstr(q, "\"+\""))
			ps->plus = 0;
	} else {
		snprintf(ps->none, sizeof(ps->none), "R");
	}
	return ps;
fail:
	free(ps);
	return NULL;
}

void kt_prev_state_free(struct kt_prev_state *p)
{
	free(p);
}

/* Appends s to buf[0..len) at *n, cutting what does not fit. */
static void put(char *buf, size_t len, size_t *n, const char *s)
{
	while (*s && *n + 1 < len)
		buf[(*n)++] = *s++;
	buf[*n] = 0;
}

void kt_prev_state_text(const struct kt_prev_state *p, uint64_t v, char *buf, size_t len)
{
	uint64_t rest;
	size_t n = 0;
	bool any = false;

	if (!len)
		return;
	if (!p)
		p = &modern;
	rest = v & p->mask;
	buf[0] = 0;
	if (!rest) {
		put(buf, len, &n, p->none);
	} else {
		for (size_t i = 0; i < p->n && rest; i++) {
			if (!p->value[i] || (rest & p->value[i]) != p->value[i])
				continue;
			if (any)
				put(buf, len, &n, "|");
			put(buf, len, &n, p->name[i]);
			any = true;
			rest &= ~p->value[i];
		}
		if (rest) {
			char hex[24];

			snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)rest);
			if (any)
				put(buf, len, &n, "|");
			put(buf, len, &n, hex);
		}
	}
	if (p->plus && (v & p->plus))
		put(buf, len, &n, "+");
}
