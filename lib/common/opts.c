// SPDX-License-Identifier: MIT
#include "common/opts.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

int kt_opts_copy(void *dst, size_t dst_size, const void *src, const char *what,
		 struct ktrace_error *err)
{
	const unsigned char *s = src;
	size_t sz;

	memset(dst, 0, dst_size);
	memcpy(dst, &dst_size, sizeof(dst_size));
	if (!src)
		return 0;
	memcpy(&sz, src, sizeof(sz));
	if (sz < sizeof(size_t))
		return ktrace_error_set(err, -EINVAL,
					"struct %s: sz is %zu, not the struct's size (use KTRACE_OPTS)",
					what, sz);
	if (sz > dst_size) {
		for (size_t i = dst_size; i < sz; i++)
			if (s[i])
				return ktrace_error_set(err, -EINVAL,
							"struct %s: an option this library does not know "
							"is set (byte %zu of %zu; the library knows %zu)",
							what, i, sz, dst_size);
		sz = dst_size;
	}
	memcpy(dst, src, sz);
	memcpy(dst, &dst_size, sizeof(dst_size));
	return 0;
}
