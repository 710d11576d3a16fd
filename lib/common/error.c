// SPDX-License-Identifier: MIT
#include <ktrace/error.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/check.h"
#include "common/damage.h"
#include "common/json.h"
#include "common/numfmt.h"

static ktrace_error_damage_fn damage_fn;
static void *damage_arg;

void ktrace_error_damage_handler(ktrace_error_damage_fn fn, void *arg)
{
	damage_fn = fn;
	damage_arg = arg;
}

void kt_damage(const char *input, const struct ktrace_error *err)
{
	ktrace_error_damage_fn fn = damage_fn;

	if (fn)
		fn(input, err, damage_arg);
}

static void error_vset(struct ktrace_error *err, int code, int has_offset, uint64_t offset,
		       const char *fmt, va_list ap)
{
	err->code = code;
	err->has_offset = has_offset;
	err->offset = offset;
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
}

int ktrace_error_set(struct ktrace_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		error_vset(err, code, 0, 0, fmt, ap);
		va_end(ap);
	}
	return code;
}

int ktrace_error_at(struct ktrace_error *err, int code, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		error_vset(err, code, 1, offset, fmt, ap);
		va_end(ap);
	}
	return code;
}

int kt_error_oom(struct ktrace_error *err)
{
	return ktrace_error_set(err, -ENOMEM, "out of memory");
}

void ktrace_error_clear(struct ktrace_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

const char *ktrace_error_format(const struct ktrace_error *err, char *buf, size_t len)
{
	const char *msg;

	if (!buf || !len)
		return buf;
	if (!err) {
		snprintf(buf, len, "unknown error");
		return buf;
	}
	msg = err->message[0] ? err->message : strerror(err->code < 0 ? -err->code : err->code);
	if (err->has_offset) {
		int n = snprintf(buf, len, "offset 0x%llx: ", (unsigned long long)err->offset);

		if (n > 0 && (size_t)n < len)
			ktrace_error_escape(buf + n, len - (size_t)n, msg);
	} else {
		ktrace_error_escape(buf, len, msg);
	}
	return buf;
}

size_t ktrace_error_escape(char *buf, size_t len, const char *s)
{
	const uint8_t *p = (const uint8_t *)(s ? s : "");
	size_t n = strlen((const char *)p), i = 0, o = 0;

	if (!buf || !len)
		return 0;
	while (i < n) {
		uint32_t cp;
		size_t k = kt_utf8_next(p + i, n - i, &cp);
		bool plain = k > 1 ? cp >= 0xa0 : (p[i] >= 0x20 && p[i] < 0x7f);

		if (plain) {
			if (o + k >= len)
				break;
			memcpy(buf + o, p + i, k);
			o += k;
		} else {
			/* controls (C0, DEL, C1) and bytes that are not UTF-8: \xNN each */
			if (o + 4 * k >= len)
				break;
			for (size_t b = 0; b < k; b++) {
				buf[o++] = '\\';
				buf[o++] = 'x';
				memcpy(buf + o, kt_hex_pairs[0] + 2 * p[i + b], 2);
				o += 2;
			}
		}
		i += k;
	}
	buf[o] = 0;
	return o;
}
