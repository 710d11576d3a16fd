/* SPDX-License-Identifier: MIT */
/*
 * The numbers a formatter wrote into a line, as it wrote them: where they are, so that
 * a consumer that cuts the line into text and numbers (the timeline's line encoder)
 * need not find and parse them again.
 */
#ifndef KTRACE_COMMON_NUMSPAN_H
#define KTRACE_COMMON_NUMSPAN_H

#include <stdint.h>

#include "common/numfmt.h"

/* One number: bytes [at, at + len) of the line are value, in decimal without a leading
 * zero (hex 0; at most 15 digits) or in lower-case hex of exactly hex = len digits. The
 * formatter (ftev_format_nums) leaves '0's there instead of the digits: whoever reads
 * the line's text writes them from the value. */
struct kt_num {
	uint64_t value;
	uint32_t at;
	uint8_t len;
	uint8_t hex;
};

/* A line's numbers in the order written (increasing at); past KT_NUMS_MAX the rest go
 * unnoted (the consumer finds them itself). */
#define KT_NUMS_MAX 32
struct kt_nums {
	unsigned n;
	struct kt_num v[KT_NUMS_MAX];
};

/* Writes m's digits at at[0..m->len) (where the formatter left '0's). */
static inline void kt_num_write(char *at, const struct kt_num *m)
{
	if (m->hex)
		kt_put_hex(at + m->len, m->value, m->len, false);
	else if (kt_dec_len(m->value) <= m->len)     /* (as noted: len is the value's) */
		kt_fmt_dec_zero(at, m->value, m->len);
}

#endif
