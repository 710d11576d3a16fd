// SPDX-License-Identifier: MIT
/* The start of a record's line as trace-cmd report prints it, without printf. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/numfmt.h"
#include "engine/engine.h"

/* "%*s" of s (right-aligned) or "%-*s" (left) into p; returns the length. */
static size_t put_padded(char *p, const char *s, size_t sl, size_t width, bool left)
{
	size_t pad = sl < width ? width - sl : 0, k = 0;

	if (!left) {
		memset(p, ' ', pad);
		k = pad;
	}
	memcpy(p + k, s, sl);
	k += sl;
	if (left) {
		memset(p + k, ' ', pad);
		k += pad;
	}
	return k;
}

static size_t put_num_padded(char *p, int64_t v, size_t width, bool left, size_t zeros)
{
	char tmp[32];
	size_t n = 0, z = 0;

	if (v < 0) {
		tmp[n++] = '-';
		n += (size_t)(kt_fmt_dec(tmp + n, (uint64_t)-v) - (tmp + n));
	} else {
		n = (size_t)(kt_fmt_dec(tmp, (uint64_t)v) - tmp);
	}
	if (zeros && n < zeros)
		z = zeros - n;
	if (!left && z + n < width) {
		memset(p, ' ', width - z - n);
		p += width - z - n;
	}
	memset(p, '0', z);
	memcpy(p + z, tmp, n);
	if (left && z + n < width) {
		memset(p + z + n, ' ', width - z - n);
		return width;
	}
	return (z + n < width ? width : z + n);
}

size_t kt_line_prefix(char *p, int st, const char *comm, int64_t tid, int cpu, uint64_t ts,
			   const char *name)
{
	char *start = p;
	size_t cl = strlen(comm), nl = strlen(name);

	if (st == 3 && !cl) {
		comm = "<...>";
		cl = 5;
	}
	p = kt_prefix_comm(p, comm, cl, tid, 16, false);
	*p++ = ' ';
	*p++ = '[';
	if (cpu < 0 && st == 3) {
		memcpy(p, "---", 3);
		p += 3;
	} else if (cpu < 0) {
		p += put_num_padded(p, cpu, 0, false, 3);      /* (no record has one) */
	} else {
		p = kt_prefix_cpu(p, (unsigned)cpu);
	}
	*p++ = ']';
	if (st == 2) {
		p += put_num_padded(p, (int64_t)ts, 12, false, 0);
	} else {
		*p++ = ' ';
		p = kt_prefix_time(p, NULL, ts, false);
	}
	*p++ = ':';
	*p++ = ' ';
	if (st == 3) {
		p += put_padded(p, name, nl, 20, true);
		*p++ = ' ';
	} else {
		p = kt_prefix_name(p, name, nl);
	}
	return (size_t)(p - start);
}
