// SPDX-License-Identifier: MIT
/* The start of a record's line as trace-cmd report prints it, without printf. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/numfmt.h"
#include "engine/engine_line_prefix.h"

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
	size_t k = 0, cl = strlen(comm), nl = strlen(name);

	if (st == 3 && !cl) {
		comm = "<...>";
		cl = 5;
	}
	k += put_padded(p + k, comm, cl, 16, false);
	p[k++] = '-';
	k += put_num_padded(p + k, tid, 5, true, 0);
	p[k++] = ' ';
	p[k++] = '[';
	if (cpu < 0 && st == 3) {
		memcpy(p + k, "---", 3);
		k += 3;
	} else {
		k += put_num_padded(p + k, cpu, 0, false, 3);
	}
	p[k++] = ']';
	if (st == 2) {
		k += put_num_padded(p + k, (int64_t)ts, 12, false, 0);
	} else {
		uint64_t us = ts / 1000 + (ts % 1000 >= 500);

		p[k++] = ' ';
		k += put_num_padded(p + k, (int64_t)(us / 1000000), 5, false, 0);
		p[k++] = '.';
		k += put_num_padded(p + k, (int64_t)(us % 1000000), 0, false, 6);
	}
	p[k++] = ':';
	p[k++] = ' ';
	if (st == 3) {
		k += put_padded(p + k, name, nl, 20, true);
		p[k++] = ' ';
	} else {
		memcpy(p + k, name, nl);
		k += nl;
		p[k++] = ':';
		p[k++] = ' ';
		if (nl < 20) {
			memset(p + k, ' ', 20 - nl);
			k += 20 - nl;
		}
	}
	return k;
}
