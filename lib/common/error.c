// SPDX-License-Identifier: MIT
#include <ktrace/error.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
	if (err->has_offset)
		snprintf(buf, len, "offset 0x%llx: %s", (unsigned long long)err->offset, msg);
	else
		snprintf(buf, len, "%s", msg);
	return buf;
}
