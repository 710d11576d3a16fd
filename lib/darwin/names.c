// SPDX-License-Identifier: MIT
/* kdebug debugid names: trace codes files, built-in class/subclass names, and Apple's
 * filter descriptions. */
#include <ktrace/darwin.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/grow.h"

/* --- trace codes tables -------------------------------------------------------- */

struct code_entry {
	uint32_t id;        /* event id (qualifier cleared); 0 = empty slot */
	uint32_t name;      /* offset in the name arena */
};

struct ktrace_darwin_codes {
	struct code_entry *slots;
	size_t cap, count;
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
	free(c->slots);
	free(c->names);
	free(c);
}

static size_t code_slot(uint32_t id, size_t cap)
{
	return (size_t)((id * 2654435761u) >> 2) & (cap - 1);
}

static int codes_grow(struct ktrace_darwin_codes *c)
{
	size_t cap = c->cap ? c->cap * 2 : 1024;
	struct code_entry *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < c->cap; i++) {
		size_t k;

		if (!c->slots[i].id)
			continue;
		k = code_slot(c->slots[i].id, cap);
		while (s[k].id)
			k = (k + 1) & (cap - 1);
		s[k] = c->slots[i];
	}
	free(c->slots);
	c->slots = s;
	c->cap = cap;
	return 0;
}

static int codes_put(struct ktrace_darwin_codes *c, uint32_t id, const char *name, size_t len,
		     struct ktrace_error *err)
{
	size_t k;

	id = KTRACE_DARWIN_EVENTID(id);
	if (!id || !len)
		return 0;
	if (len > UINT32_MAX / 2 || c->names_len > UINT32_MAX / 2)
		return ktrace_error_set(err, -EOVERFLOW, "trace codes: too many names");
	if ((c->count + 1) * 2 > c->cap && codes_grow(c) < 0)
		return ktrace_error_set(err, -ENOMEM, "out of memory");
	if (kt_grow((void **)&c->names, &c->names_cap, c->names_len + len + 1, 1))
		return ktrace_error_set(err, -ENOMEM, "out of memory");
	memcpy(c->names + c->names_len, name, len);
	c->names[c->names_len + len] = 0;
	k = code_slot(id, c->cap);
	while (c->slots[k].id && c->slots[k].id != id)
		k = (k + 1) & (c->cap - 1);
	if (!c->slots[k].id) {
		c->slots[k].id = id;
		c->count++;
	}
	c->slots[k].name = (uint32_t)c->names_len;
	c->names_len += len + 1;
	return 1;
}

int ktrace_darwin_codes_add(struct ktrace_darwin_codes *c, uint32_t debugid, const char *name,
			    struct ktrace_error *err)
{
	return codes_put(c, debugid, name, strlen(name), err);
}

size_t ktrace_darwin_codes_count(const struct ktrace_darwin_codes *c)
{
	return c->count;
}

const char *ktrace_darwin_codes_lookup(const struct ktrace_darwin_codes *c, uint32_t debugid)
{
	uint32_t id = KTRACE_DARWIN_EVENTID(debugid);
	size_t k;

	if (!c || !c->cap || !id)
		return NULL;
	k = code_slot(id, c->cap);
	while (c->slots[k].id) {
		if (c->slots[k].id == id)
			return c->names + c->slots[k].name;
		k = (k + 1) & (c->cap - 1);
	}
	return NULL;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

/* One line: "0xDEBUGID NAME" (also plain decimal/hex digits without 0x). */
static int parse_line(struct ktrace_darwin_codes *c, const char *s, const char *end,
		      struct ktrace_error *err)
{
	uint64_t v = 0;
	int digits = 0;
	const char *name;

	while (s < end && is_blank(*s))
		s++;
	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		while (s < end && isxdigit((unsigned char)*s)) {
			int d = isdigit((unsigned char)*s) ? *s - '0'
							    : (tolower((unsigned char)*s) - 'a' + 10);

			v = (v << 4) | (uint64_t)d;
			if (v > UINT32_MAX)
				return 0;
			s++;
			digits++;
		}
	} else {
		while (s < end && isdigit((unsigned char)*s)) {
			v = v * 10 + (uint64_t)(*s - '0');
			if (v > UINT32_MAX)
				return 0;
			s++;
			digits++;
		}
	}
	if (!digits || !v || (s < end && !is_blank(*s)))
		return 0;
	while (s < end && is_blank(*s))
		s++;
	name = s;
	while (end > name && is_blank(end[-1]))
		end--;
	if (end == name)
		return 0;
	return codes_put(c, (uint32_t)v, name, (size_t)(end - name), err);
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

/* --- built-in names ------------------------------------------------------------ */

struct name_entry {
	uint16_t key;
	const char *name;
};

static const struct name_entry class_names[] = {
	{ 1, "MACH" }, { 2, "NETWORK" }, { 3, "FSYSTEM" }, { 4, "BSD" }, { 5, "IOKIT" },
	{ 6, "DRIVERS" }, { 7, "TRACE" }, { 8, "DLIL" }, { 9, "PTHREAD" },
	{ 10, "CORESTORAGE" }, { 11, "CG" }, { 12, "MONOTONIC" }, { 20, "MISC" },
	{ 30, "SECURITY" }, { 31, "DYLD" }, { 32, "QT" }, { 33, "APPS" }, { 34, "LAUNCHD" },
	{ 35, "SILICON" }, { 37, "PERF" }, { 38, "IMPORTANCE" }, { 40, "BANK" }, { 41, "XPC" },
	{ 42, "ATM" }, { 43, "ARIADNE" }, { 44, "DAEMON" }, { 45, "ENERGYTRACE" },
	{ 46, "DISPATCH" }, { 49, "IMG" }, { 51, "UMALLOC" }, { 53, "TURNSTILE" },
	{ 54, "AUDIO" }, { 255, "MIG" },
};

/* key = class << 8 | subclass */
static const struct name_entry subclass_names[] = {
	{ 0x0102, "EXCP_KTRAP_x86" }, { 0x0103, "EXCP_SYNC_ARM" }, { 0x0104, "EXCP_SERR_ARM" },
	{ 0x0105, "EXCP_INTR" }, { 0x0106, "EXCP_ALNG" }, { 0x0107, "EXCP_UTRAP_x86" },
	{ 0x0108, "EXCP_FP" }, { 0x0109, "EXCP_DECI" }, { 0x010a, "SIGNPOST" },
	{ 0x010c, "EXCP_SC" }, { 0x010d, "EXCP_TRACE" }, { 0x010e, "EXCP_EMUL" },
	{ 0x0110, "IHDLR" }, { 0x0120, "IPC" }, { 0x0121, "SUSPENSION" }, { 0x0125, "RESOURCE" },
	{ 0x0130, "VM" }, { 0x0131, "LEAKS" }, { 0x0132, "WORKINGSET" }, { 0x0140, "SCHED" },
	{ 0x0150, "MSGID_INVALID" }, { 0x0160, "LOCKS" }, { 0x0170, "PMAP" }, { 0x0180, "CLOCK" },
	{ 0x0190, "MP" }, { 0x01a0, "VM_PRESSURE" }, { 0x01a1, "STACKSHOT" }, { 0x01a2, "SFI" },
	{ 0x01a3, "ENERGY_PERF" }, { 0x01a4, "SYSDIAGNOSE" }, { 0x01a5, "ZALLOC" },
	{ 0x01a6, "THREAD_GROUP" }, { 0x01a7, "COALITION" }, { 0x01a8, "SHAREDREGION" },
	{ 0x01a9, "SCHED_CLUTCH" }, { 0x01aa, "IO" }, { 0x01ab, "WORKGROUP" }, { 0x01ac, "HV" },
	{ 0x01ad, "KCOV" }, { 0x01ae, "MACHDEP_EXCP_SC_x86" }, { 0x01af, "MACHDEP_EXCP_SC_ARM" },
	{ 0x01b0, "VM_RECLAIM" },
	{ 0x0201, "IP" }, { 0x0202, "ARP" }, { 0x0203, "UDP" }, { 0x0204, "TCP" },
	{ 0x0205, "ICMP" }, { 0x0206, "IGMP" }, { 0x020b, "SOCK" }, { 0x0280, "IPSEC" },
	{ 0x0301, "FSRW" }, { 0x0302, "DKRW" }, { 0x0303, "FSVN" }, { 0x0304, "FSLOOKUP" },
	{ 0x0305, "JOURNAL" }, { 0x0306, "IOCTL" }, { 0x0307, "BOOTCACHE" }, { 0x0308, "HFS" },
	{ 0x0309, "APFS" }, { 0x030a, "SMB" }, { 0x030b, "MOUNT" }, { 0x030e, "EXFAT" },
	{ 0x030f, "MSDOS" }, { 0x0310, "ACFS" }, { 0x0311, "THROTTLE" }, { 0x0312, "DECMP" },
	{ 0x0313, "VFS" }, { 0x0314, "LIVEFS" }, { 0x0315, "NFS" }, { 0x03cf, "CONTENT_PROT" },
	{ 0x0401, "PROC" }, { 0x0402, "MEMSTAT" }, { 0x0403, "KEVENT" }, { 0x040c, "EXCP_SC" },
	{ 0x040d, "AIO" }, { 0x040e, "SC_EXTENDED_INFO" }, { 0x040f, "SC_EXTENDED_INFO2" },
	{ 0x04ff, "KDEBUG_TEST" },
	{ 0x0700, "DATA" }, { 0x0701, "STRING" }, { 0x0702, "INFO" },
	{ 0x0c01, "INSTRS_CYCLES" }, { 0x0c02, "DEBUG" },
	{ 0x1f05, "UUID" },
	{ 0x2500, "GENERIC" }, { 0x2501, "THREADINFO" }, { 0x2502, "CALLSTACK" },
	{ 0x2503, "TIMER" }, { 0x2504, "PET" }, { 0x2505, "AST" }, { 0x2506, "KPC" },
	{ 0x2507, "KDBG" }, { 0x2508, "TASK" }, { 0x2509, "LAZY" }, { 0x250a, "MEMINFO" },
};

static const struct name_entry trace_names[] = {
	{ 0x0001, "TRACE_DATA_NEWTHREAD" }, { 0x0002, "TRACE_DATA_EXEC" },
	{ 0x0003, "TRACE_DATA_THREAD_TERMINATE" }, { 0x0004, "TRACE_DATA_THREAD_TERMINATE_PID" },
	{ 0x0100, "TRACE_STRING_GLOBAL" }, { 0x0101, "TRACE_STRING_NEWTHREAD" },
	{ 0x0102, "TRACE_STRING_EXEC" }, { 0x0103, "TRACE_STRING_PROC_EXIT" },
	{ 0x0104, "TRACE_STRING_THREADNAME" }, { 0x0105, "TRACE_STRING_THREADNAME_PREV" },
	{ 0x0200, "TRACE_PANIC" }, { 0x0201, "TRACE_TIMESTAMPS" },
	{ 0x0202, "TRACE_LOST_EVENTS" }, { 0x0203, "TRACE_WRITING_EVENTS" },
	{ 0x0204, "TRACE_INFO_STRING" }, { 0x0205, "TRACE_RETROGRADE_EVENTS" },
	{ 0x0206, "TRACE_PAST_EVENTS" },
};

static const char *lookup(const struct name_entry *t, size_t n, uint32_t key)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].key == key)
			return t[i].name;
	return NULL;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *ktrace_darwin_class_name(uint32_t cls)
{
	return cls > 255 ? NULL : lookup(class_names, NELEM(class_names), cls);
}

const char *ktrace_darwin_subclass_name(uint32_t cls, uint32_t subclass)
{
	if (cls > 255 || subclass > 255)
		return NULL;
	return lookup(subclass_names, NELEM(subclass_names), cls << 8 | subclass);
}

const char *ktrace_darwin_trace_event_name(uint32_t debugid)
{
	if (KTRACE_DARWIN_CLASS(debugid) != 7)
		return NULL;
	/* key = subclass << 8 | code */
	return lookup(trace_names, NELEM(trace_names),
		      KTRACE_DARWIN_SUBCLASS(debugid) << 8 | KTRACE_DARWIN_CODE(debugid));
}

const char *ktrace_darwin_builtin_name(uint32_t debugid, char *buf, size_t len)
{
	uint32_t cls = KTRACE_DARWIN_CLASS(debugid), sub = KTRACE_DARWIN_SUBCLASS(debugid);
	uint32_t code = KTRACE_DARWIN_CODE(debugid);
	const char *t = ktrace_darwin_trace_event_name(debugid);
	const char *cn = ktrace_darwin_class_name(cls);
	const char *sn = ktrace_darwin_subclass_name(cls, sub);

	if (t)
		snprintf(buf, len, "%s", t);
	else if (cn && sn)
		snprintf(buf, len, "%s_%s:0x%x", cn, sn, code);
	else if (cn)
		snprintf(buf, len, "%s:0x%02x:0x%x", cn, sub, code);
	else
		snprintf(buf, len, "0x%02x:0x%02x:0x%x", cls, sub, code);
	return buf;
}

/* --- filters ------------------------------------------------------------------- */

struct ktrace_darwin_filter {
	uint8_t csc[65536 / 8];      /* allowed class-subclass pairs */
	uint32_t *ids;               /* allowed event ids */
	size_t nids, cap;
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

static void allow_csc(struct ktrace_darwin_filter *f, uint32_t csc)
{
	f->csc[csc >> 3] |= (uint8_t)(1u << (csc & 7));
	f->any = true;
}

static int allow_id(struct ktrace_darwin_filter *f, uint32_t id)
{
	if (f->nids == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		uint32_t *p = realloc(f->ids, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		f->ids = p;
		f->cap = cap;
	}
	f->ids[f->nids++] = KTRACE_DARWIN_EVENTID(id);
	f->any = true;
	return 0;
}

static int parse_number(const char *s, const char **end, unsigned long long *v)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 0);
	if (errno || e == s)
		return -1;
	*end = e;
	return 0;
}

int ktrace_darwin_filter_parse(struct ktrace_darwin_filter *f, const char *desc,
			       struct ktrace_error *err)
{
	const char *s = desc;
	unsigned long long v;

	if (!*s)
		return ktrace_error_set(err, -EINVAL, "empty filter description");
	if (isdigit((unsigned char)*s)) {
		if (parse_number(s, &s, &v) || *s || v > 0xffff)
			return ktrace_error_set(err, -EINVAL,
						"filter '%s': not a class-subclass number", desc);
		allow_csc(f, (uint32_t)v);
		return 0;
	}
	while (*s) {
		char type = *s++;

		if (parse_number(s, &s, &v))
			return ktrace_error_set(err, -EINVAL,
						"filter '%s': expected a number after '%c'", desc,
						type);
		switch (type) {
		case 'C':
			if (v > 0xff)
				return ktrace_error_set(err, -EINVAL,
							"filter '%s': class 0x%llx is out of range",
							desc, v);
			for (uint32_t sub = 0; sub < 256; sub++)
				allow_csc(f, (uint32_t)v << 8 | sub);
			break;
		case 'S':
			if (v > 0xffff)
				return ktrace_error_set(err, -EINVAL,
							"filter '%s': class-subclass 0x%llx is out "
							"of range", desc, v);
			allow_csc(f, (uint32_t)v);
			break;
		case 'D':
			if (v > 0xffffffffULL)
				return ktrace_error_set(err, -EINVAL,
							"filter '%s': debugid 0x%llx is out of range",
							desc, v);
			if (allow_id(f, (uint32_t)v) < 0)
				return ktrace_error_set(err, -ENOMEM, "out of memory");
			break;
		default:
			return ktrace_error_set(err, -EINVAL,
						"filter '%s': unknown filter type '%c' (C, S or D)",
						desc, type);
		}
		if (*s == ',')
			s++;
		else if (*s)
			return ktrace_error_set(err, -EINVAL,
						"filter '%s': unexpected '%c'", desc, *s);
	}
	return 0;
}

bool ktrace_darwin_filter_empty(const struct ktrace_darwin_filter *f)
{
	return !f || !f->any;
}

bool ktrace_darwin_filter_match(const struct ktrace_darwin_filter *f, uint32_t debugid)
{
	uint32_t csc = KTRACE_DARWIN_CSC(debugid), id;

	if (!f || !f->any)
		return true;
	if (f->csc[csc >> 3] & (1u << (csc & 7)))
		return true;
	id = KTRACE_DARWIN_EVENTID(debugid);
	for (size_t i = 0; i < f->nids; i++)
		if (f->ids[i] == id)
			return true;
	return false;
}
