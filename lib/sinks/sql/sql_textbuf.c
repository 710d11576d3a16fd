// SPDX-License-Identifier: MIT
/* Growable text buffers for SQL statements and schema text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sinks/sql/sql_int.h"

void sql_buf_add(struct sql_buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 < b->len || kt_grow((void **)&b->p, &b->cap, b->len + n + 1, 1)) {
		b->failed = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void sql_buf_puts(struct sql_buf *b, const char *s)
{
	sql_buf_add(b, s, strlen(s));
}

void sql_buf_printf(struct sql_buf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		sql_buf_add(b, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (!big) {
			b->failed = true;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sql_buf_add(b, big, (size_t)n);
		free(big);
	}
}

const char *sql_buf_str(struct sql_buf *b)
{
	return b->p && !b->failed ? b->p : "";
}

void sql_buf_free(struct sql_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
