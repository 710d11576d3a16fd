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

#include "sql/sql_int.h"

#define MAX_FLAGS 32

struct sql_prev_state {
	size_t n;
	uint64_t value[MAX_FLAGS];
	char name[MAX_FLAGS][8];
	char none[8];                /* the text when no flag is set ("R") */
	uint64_t mask, plus;         /* the table's bits; the "+" bit (0: none) */
};

/* Kernels since 4.14. */
static const struct sql_prev_state modern = {
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

struct sql_prev_state *sql_prev_state_parse(const char *fmt)
{
	struct sql_prev_state *ps;
	const char *p, *q;
	uint64_t max = 0;

	if (!fmt || !(p = strstr(fmt, "__print_flags(REC->prev_state")))
		return NULL;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	/* the delimiter argument, then { value, "name" } pairs up to the closing ')' */
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
		if (v > max)
			max = v;
	}
	if (!ps->n || !max || max >> 62)
		goto fail;
	/* ") : "R"" */
	q = skip_space(p + 1);
	if (*q == ':' && string_at(q + 1, ps->none, sizeof(ps->none)))
		;
	else
		snprintf(ps->none, sizeof(ps->none), "R");
	ps->plus = strstr(p, "\"+\"") ? max << 1 : 0;
	ps->mask = (max << 1) - 1;
	return ps;
fail:
	free(ps);
	return NULL;
}

void sql_prev_state_free(struct sql_prev_state *p)
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

void sql_prev_state_text(const struct sql_prev_state *p, uint64_t v, char *buf, size_t len)
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
