// SPDX-License-Identifier: MIT
/* kdebug debugid names: codes tables (trace codes files, and the built-in table of
 * kdebug_table.c in the same format), and Apple's filter descriptions. */
#include <ktrace/darwin.h>

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/check.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "darwin/darwin_kdebug_names_int.h"

/* --- trace codes tables -------------------------------------------------------- */

/*
 * One hash of keys: an event id (qualifier bits clear), a class (class << 24 | 1) or a
 * subclass (class << 24 | subclass << 16 | 2): the low two bits tell them apart.
 */
#define KEY_CLASS(cls)          ((uint32_t)(cls) << 24 | 1u)
#define KEY_SUBCLASS(cls, sub)  ((uint32_t)(cls) << 24 | (uint32_t)(sub) << 16 | 2u)

struct ktrace_darwin_codes {
	struct kt_map index;  /* key -> offset of its name in the name arena */
	size_t count;         /* event names */
	char *names;
	size_t names_len, names_cap;
};

struct ktrace_darwin_codes *ktrace_darwin_codes_new(void)
{
	return calloc(1, sizeof(struct ktrace_darwin_codes));
}

void ktrace_darwin_codes_free(struct ktrace_darwin_codes *c)
{
	if (!c)
		return;
	kt_map_free(&c->index);
	free(c->names);
	free(c);
}

/* Adds key (an event id, KEY_CLASS or KEY_SUBCLASS) with its name; a later name
 * replaces an earlier one. Returns 1, 0 (nothing to add) or a negative error. */
static int codes_put(struct ktrace_darwin_codes *c, uint32_t id, const char *name, size_t len,
		     struct ktrace_error *err)
{
	uint32_t old;
	bool had;

	if (!id || !len)
		return 0;
	if (len > 255)
		len = 255;
	if (len > UINT32_MAX / 2 || c->names_len > UINT32_MAX / 2)
		return ktrace_error_set(err, -EOVERFLOW, "trace codes: too many names");
	if (kt_grow((void **)&c->names, &c->names_cap, c->names_len + len + 1, 1))
		return kt_error_oom(err);
	had = kt_map_get(&c->index, id, 0, &old);
	if (kt_map_put(&c->index, id, 0, (uint32_t)c->names_len))
		return kt_error_oom(err);
	if (!had && !(id & 3))
		c->count++;
	memcpy(c->names + c->names_len, name, len);
	c->names[c->names_len + len] = 0;
	c->names_len += len + 1;
	return 1;
}

int ktrace_darwin_codes_add(struct ktrace_darwin_codes *c, uint32_t debugid, const char *name,
			    struct ktrace_error *err)
{
	return codes_put(c, KTRACE_DARWIN_EVENTID(debugid), name, strlen(name), err);
}

size_t ktrace_darwin_codes_count(const struct ktrace_darwin_codes *c)
{
	return c->count;
}

static const char *codes_get(const struct ktrace_darwin_codes *c, uint32_t id)
{
	uint32_t off;

	if (!c || !id || !kt_map_get(&c->index, id, 0, &off))
		return NULL;
	return c->names + off;
}

const char *ktrace_darwin_codes_lookup(const struct ktrace_darwin_codes *c, uint32_t debugid)
{
	return codes_get(c, KTRACE_DARWIN_EVENTID(debugid));
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

/* A number at *sp (0x hex, else decimal) up to max; moves *sp past it. */
static bool take_number(const char **sp, const char *end, uint64_t max, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;
	int digits = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		while (s < end && isxdigit((unsigned char)*s)) {
			int d = isdigit((unsigned char)*s) ? *s - '0'
							    : (tolower((unsigned char)*s) - 'a' + 10);

			v = (v << 4) | (uint64_t)d;
			if (v > max)
				return false;
			s++;
			digits++;
		}
	} else {
		while (s < end && isdigit((unsigned char)*s)) {
			v = v * 10 + (uint64_t)(*s - '0');
			if (v > max)
				return false;
			s++;
			digits++;
		}
	}
	if (!digits || (s < end && !is_blank(*s)))
		return false;
	while (s < end && is_blank(*s))
		s++;
	*sp = s;
	*out = v;
	return true;
}

static bool take_word(const char **sp, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *sp) <= n || memcmp(*sp, word, n) || !is_blank((*sp)[n]))
		return false;
	*sp += n;
	while (*sp < end && is_blank(**sp))
		(*sp)++;
	return true;
}

/*
 * One line: "0xDEBUGID NAME" (also plain decimal digits), "class CLASS NAME" or
 * "subclass CLASS SUBCLASS NAME". Anything else is ignored.
 */
static int parse_line(struct ktrace_darwin_codes *c, const char *s, const char *end,
		      struct ktrace_error *err)
{
	uint64_t v = 0, sub = 0;
	uint32_t key;
	const char *name;

	while (s < end && is_blank(*s))
		s++;
	if (take_word(&s, end, "class")) {
		if (!take_number(&s, end, 0xff, &v))
			return 0;
		key = KEY_CLASS(v);
	} else if (take_word(&s, end, "subclass")) {
		if (!take_number(&s, end, 0xff, &v) || !take_number(&s, end, 0xff, &sub))
			return 0;
		key = KEY_SUBCLASS(v, sub);
	} else {
		if (!take_number(&s, end, UINT32_MAX, &v) || !v)
			return 0;
		key = KTRACE_DARWIN_EVENTID((uint32_t)v);
	}
	name = s;
	while (end > name && is_blank(end[-1]))
		end--;
	if (end == name)
		return 0;
	return codes_put(c, key, name, (size_t)(end - name), err);
}

int ktrace_darwin_codes_load_buffer(struct ktrace_darwin_codes *c, const char *text,
				    size_t len, struct ktrace_error *err)
{
	const char *p = text, *end = text + len;
	int added = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		int ret = parse_line(c, p, le, err);

		if (ret < 0)
			return ret;
		if (added < INT32_MAX)
			added += ret;
		p = nl ? nl + 1 : end;
	}
	return added;
}

int ktrace_darwin_codes_load_file(struct ktrace_darwin_codes *c, const char *path,
				  struct ktrace_error *err)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int added = 0, ret = 0;

	if (!f) {
		int e = errno;

		return ktrace_error_set(err, -e, "trace codes file %s: %s", path, strerror(e));
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		ret = parse_line(c, line, line + n, err);
		if (ret < 0)
			break;
		if (added < INT32_MAX)
			added += ret;
	}
	if (ret >= 0 && ferror(f)) {
		int e = errno;

		ret = ktrace_error_set(err, -e, "trace codes file %s: %s", path, strerror(e));
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret < 0 ? ret : added;
}

/* --- built-in names ---------------------------------------------------------- */

static struct ktrace_darwin_codes *builtin;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_load(void)
{
	struct ktrace_darwin_codes *c = ktrace_darwin_codes_new();

	if (c && ktrace_darwin_codes_load_buffer(c, kt_kdebug_builtin_table,
						 kt_kdebug_builtin_table_len, NULL) < 0) {
		ktrace_darwin_codes_free(c);
		c = NULL;
	}
	builtin = c;
}

static const struct ktrace_darwin_codes *builtin_codes(void)
{
	pthread_once(&builtin_once, builtin_load);
	return builtin;
}

int kt_darwin_builtin_names(struct ktrace_error *err)
{
	return builtin_codes() ? 0 : kt_error_oom(err);
}

const char *ktrace_darwin_class_name(uint32_t cls)
{
	return cls > 255 ? NULL : codes_get(builtin_codes(), KEY_CLASS(cls));
}

const char *ktrace_darwin_subclass_name(uint32_t cls, uint32_t subclass)
{
	if (cls > 255 || subclass > 255)
		return NULL;
	return codes_get(builtin_codes(), KEY_SUBCLASS(cls, subclass));
}

const char *ktrace_darwin_trace_event_name(uint32_t debugid)
{
	if (KTRACE_DARWIN_CLASS(debugid) != 7)
		return NULL;
	return ktrace_darwin_codes_lookup(builtin_codes(), debugid);
}

const char *ktrace_darwin_codes_class(const struct ktrace_darwin_codes *c, uint32_t cls)
{
	const char *n = cls > 255 ? NULL : codes_get(c, KEY_CLASS(cls));

	return n ? n : ktrace_darwin_class_name(cls);
}

const char *ktrace_darwin_codes_subclass(const struct ktrace_darwin_codes *c, uint32_t cls,
					 uint32_t subclass)
{
	const char *n = cls > 255 || subclass > 255 ? NULL
						    : codes_get(c, KEY_SUBCLASS(cls, subclass));

	return n ? n : ktrace_darwin_subclass_name(cls, subclass);
}

const char *ktrace_darwin_event_name(const struct ktrace_darwin_codes *c, uint32_t debugid,
				     char *buf, size_t len)
{
	uint32_t cls = KTRACE_DARWIN_CLASS(debugid), sub = KTRACE_DARWIN_SUBCLASS(debugid);
	uint32_t code = KTRACE_DARWIN_CODE(debugid);
	const char *n = ktrace_darwin_codes_lookup(c, debugid);
	const char *cn, *sn;

	if (!n)
		n = ktrace_darwin_codes_lookup(builtin_codes(), debugid);
	if (n) {
		snprintf(buf, len, "%s", n);
		return buf;
	}
	cn = ktrace_darwin_codes_class(c, cls);
	sn = ktrace_darwin_codes_subclass(c, cls, sub);
	if (cn && sn)
		snprintf(buf, len, "%s_%s:0x%x", cn, sn, code);
	else if (cn)
		snprintf(buf, len, "%s:0x%02x:0x%x", cn, sub, code);
	else
		snprintf(buf, len, "0x%02x:0x%02x:0x%x", cls, sub, code);
	return buf;
}

const char *ktrace_darwin_builtin_name(uint32_t debugid, char *buf, size_t len)
{
	return ktrace_darwin_event_name(NULL, debugid, buf, len);
}

/* --- filters ------------------------------------------------------------------- */

/*
 * Apple's filter descriptions (ktrace(1) FILTER DESCRIPTIONS, kperf's kdebug filters):
 * comma-separated specifiers, each
 *   ALL        every event
 *   C<class>   one class (a byte)
 *   S<csc>     one subclass: class in the high byte, subclass in the low byte
 *   D<debugid> one event (its qualifier bits ignored)
 * numbers in decimal or in hex with 0x; C, S and D take a trailing 'r' to select only
 * the END events of what they name (kperf's "return" specifiers). A description that
 * is a bare number is one subclass (S implied).
 */
struct ktrace_darwin_filter {
	uint8_t csc[65536 / 8];      /* allowed class-subclass pairs, every event */
	uint8_t csc_end[65536 / 8];  /* ... their END events only */
	uint32_t *ids;               /* allowed event ids (bit 0 set: END events only) */
	size_t nids, cap;
	bool all;                    /* ALL */
	bool any;                    /* something was added */
};

struct ktrace_darwin_filter *ktrace_darwin_filter_new(void)
{
	return calloc(1, sizeof(struct ktrace_darwin_filter));
}

void ktrace_darwin_filter_free(struct ktrace_darwin_filter *f)
{
	if (!f)
		return;
	free(f->ids);
	free(f);
}

static void allow_csc(uint8_t *set, uint32_t csc)
{
	set[csc >> 3] |= (uint8_t)(1u << (csc & 7));
}

static bool has_csc(const uint8_t *set, uint32_t csc)
{
	return set[csc >> 3] & (1u << (csc & 7));
}

static int allow_id(struct ktrace_darwin_filter *f, uint32_t id)
{
	if (f->nids == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		uint32_t *p = kt_realloc_array(f->ids, cap, sizeof(*p));

		if (!p)
			return -ENOMEM;
		f->ids = p;
		f->cap = cap;
	}
	f->ids[f->nids++] = id;
	return 0;
}

/* A number of a filter: decimal, or hex after 0x; at most max. */
static bool filter_number(const char **sp, uint64_t max, uint64_t *v)
{
	const char *s = *sp;
	int base = 10, digits = 0;

	*v = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++, digits++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		*v = *v * (uint64_t)base + (uint64_t)d;
		if (*v > max)
			return false;
	}
	if (!digits)
		return false;
	*sp = s;
	return true;
}

int ktrace_darwin_filter_parse(struct ktrace_darwin_filter *f, const char *desc,
			       struct ktrace_error *err)
{
	const char *s = desc;
	uint64_t v;

	if (!*s)
		return ktrace_error_set(err, -EINVAL, "empty filter description");
	if (isdigit((unsigned char)*s)) {
		if (!filter_number(&s, 0xffff, &v) || *s)
			return ktrace_error_set(err, -EINVAL,
						"filter '%s': not a class-subclass number (0 to "
						"0xffff)", desc);
		allow_csc(f->csc, (uint32_t)v);
		f->any = true;
		return 0;
	}
	for (;;) {
		const char *item = s;
		char type = *s;
		uint64_t max;
		bool end_only;

		if (!strncmp(s, "ALL", 3) && (s[3] == ',' || !s[3])) {
			f->all = f->any = true;
			s += 3;
		} else {
			if (type != 'C' && type != 'S' && type != 'D')
				return ktrace_error_set(err, -EINVAL,
							"filter '%s': '%.20s' is not a specifier "
							"(ALL, C<class>, S<class-subclass> or "
							"D<debugid>)", desc, item);
			max = type == 'C' ? 0xff : type == 'S' ? 0xffff : 0xffffffff;
			s++;
			if (!filter_number(&s, max, &v))
				return ktrace_error_set(err, -EINVAL,
							"filter '%s': '%c' wants a number from 0 to "
							"0x%llx, in decimal or 0x hex", desc, type,
							(unsigned long long)max);
			end_only = *s == 'r';
			if (end_only)
				s++;
			if (type == 'C') {
				for (uint32_t sub = 0; sub < 256; sub++)
					allow_csc(end_only ? f->csc_end : f->csc,
						  (uint32_t)v << 8 | sub);
			} else if (type == 'S') {
				allow_csc(end_only ? f->csc_end : f->csc, (uint32_t)v);
			} else if (allow_id(f, KTRACE_DARWIN_EVENTID((uint32_t)v) |
						  (end_only ? 1u : 0u)) < 0) {
				return kt_error_oom(err);
			}
			f->any = true;
		}
		if (!*s)
			return 0;
		if (*s != ',')
			return ktrace_error_set(err, -EINVAL, "filter '%s': unexpected '%c' after "
						"'%.*s'", desc, *s, (int)(s - item), item);
		s++;
		if (!*s)
			return ktrace_error_set(err, -EINVAL, "filter '%s': ends with a comma",
						desc);
	}
}

bool ktrace_darwin_filter_empty(const struct ktrace_darwin_filter *f)
{
	return !f || !f->any;
}

bool ktrace_darwin_filter_match(const struct ktrace_darwin_filter *f, uint32_t debugid)
{
	uint32_t csc = KTRACE_DARWIN_CSC(debugid), id;
	bool is_end = KTRACE_DARWIN_FUNC(debugid) == KTRACE_DARWIN_FUNC_END;

	if (!f || !f->any || f->all)
		return true;
	if (has_csc(f->csc, csc) || (is_end && has_csc(f->csc_end, csc)))
		return true;
	id = KTRACE_DARWIN_EVENTID(debugid);
	for (size_t i = 0; i < f->nids; i++)
		if ((f->ids[i] & ~1u) == id && (!(f->ids[i] & 1) || is_end))
			return true;
	return false;
}
