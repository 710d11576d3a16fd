// SPDX-License-Identifier: MIT
#include "common/json.h"

void kt_json_init(struct kt_json *j, struct ktrace_out *out, int indent)
{
	j->out = out;
	j->indent = indent < 0 ? 0 : indent;
	j->depth = 0;
	j->after_key = false;
	j->count[0] = 0;
	j->flow[0] = 0;
}

static bool in_flow(const struct kt_json *j)
{
	return j->indent == 0 || (j->depth > 0 && j->depth <= KT_JSON_MAX_DEPTH &&
				  j->flow[j->depth - 1]);
}

static void newline(struct kt_json *j, int depth)
{
	kt_out_putc(j->out, '\n');
	kt_out_spaces(j->out, depth * j->indent);
}

/* Separator and position before a value (or a key) at the current depth. */
static void before_value(struct kt_json *j)
{
	bool first;

	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0 || j->depth > KT_JSON_MAX_DEPTH)
		return;
	first = !j->count[j->depth - 1];
	j->count[j->depth - 1] = 1;
	if (!first)
		kt_out_putc(j->out, ',');
	if (!in_flow(j))
		newline(j, j->depth);
	else if (!first && j->indent)
		kt_out_putc(j->out, ' ');
}

static void begin(struct kt_json *j, char c, bool flow)
{
	before_value(j);
	kt_out_putc(j->out, c);
	if (j->depth < KT_JSON_MAX_DEPTH) {
		j->count[j->depth] = 0;
		j->flow[j->depth] = flow || (j->depth > 0 && j->flow[j->depth - 1]);
		j->closer[j->depth] = c == '{' ? '}' : ']';
	}
	j->depth++;
}

static void end(struct kt_json *j, char c)
{
	bool had_values = j->depth > 0 && j->depth <= KT_JSON_MAX_DEPTH && j->count[j->depth - 1];
	bool flow = in_flow(j);

	if (j->depth > 0)
		j->depth--;
	if (had_values && !flow)
		newline(j, j->depth);
	kt_out_putc(j->out, c);
}

void kt_json_begin_object(struct kt_json *j, bool flow)
{
	begin(j, '{', flow);
}

void kt_json_end_object(struct kt_json *j)
{
	end(j, '}');
}

void kt_json_begin_array(struct kt_json *j, bool flow)
{
	begin(j, '[', flow);
}

void kt_json_end_array(struct kt_json *j)
{
	end(j, ']');
}

void kt_json_key(struct kt_json *j, const char *key, size_t len)
{
	before_value(j);
	kt_json_write_string(j->out, key, len);
	kt_out_putc(j->out, ':');
	if (j->indent)
		kt_out_putc(j->out, ' ');
	j->after_key = true;
}

void kt_json_string(struct kt_json *j, const char *s, size_t len)
{
	before_value(j);
	kt_json_write_string(j->out, s, len);
}

void kt_json_cstr(struct kt_json *j, const char *s)
{
	if (s)
		kt_json_string(j, s, __builtin_strlen(s));
	else
		kt_json_null(j);
}

void kt_json_u64(struct kt_json *j, uint64_t v)
{
	before_value(j);
	kt_out_u64(j->out, v, 0);
}

void kt_json_i64(struct kt_json *j, int64_t v)
{
	before_value(j);
	kt_out_i64(j->out, v, 0);
}

void kt_json_number(struct kt_json *j, const char *text, size_t len)
{
	before_value(j);
	kt_out_write(j->out, text, len);
}

void kt_json_fixed(struct kt_json *j, uint64_t v, unsigned decimals)
{
	uint64_t scale = 1;
	char frac[20];

	if (decimals > 18)
		decimals = 18;
	for (unsigned i = 0; i < decimals; i++)
		scale *= 10;
	before_value(j);
	kt_out_u64(j->out, v / scale, 0);
	if (!decimals)
		return;
	v %= scale;
	kt_fmt_dec_zero(frac, v, decimals);
	kt_out_putc(j->out, '.');
	kt_out_write(j->out, frac, decimals);
}

void kt_json_bool(struct kt_json *j, bool v)
{
	before_value(j);
	kt_out_puts(j->out, v ? "true" : "false");
}

void kt_json_null(struct kt_json *j)
{
	before_value(j);
	kt_out_puts(j->out, "null");
}

void kt_json_kv_u64(struct kt_json *j, const char *key, uint64_t v)
{
	kt_json_key_cstr(j, key);
	kt_json_u64(j, v);
}

void kt_json_kv_i64(struct kt_json *j, const char *key, int64_t v)
{
	kt_json_key_cstr(j, key);
	kt_json_i64(j, v);
}

void kt_json_kv_cstr(struct kt_json *j, const char *key, const char *s)
{
	kt_json_key_cstr(j, key);
	kt_json_cstr(j, s);
}

void kt_json_kv_bool(struct kt_json *j, const char *key, bool v)
{
	kt_json_key_cstr(j, key);
	kt_json_bool(j, v);
}

void kt_json_kv_opt_u64(struct kt_json *j, const char *key, bool have, uint64_t v)
{
	kt_json_key_cstr(j, key);
	if (have)
		kt_json_u64(j, v);
	else
		kt_json_null(j);
}

void kt_json_finish(struct kt_json *j)
{
	if (j->after_key)
		kt_json_null(j);
	while (j->depth > 0)
		end(j, j->depth <= KT_JSON_MAX_DEPTH ? j->closer[j->depth - 1] : '}');
	kt_out_putc(j->out, '\n');
}

size_t kt_utf8_next(const uint8_t *s, size_t len, uint32_t *cp)
{
	uint8_t c = s[0];
	size_t n;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		n = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		goto latin1;
	}
	if (n > len)
		goto latin1;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto latin1;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		goto latin1;
	*cp = v;
	return n;
latin1:
	*cp = c;
	return 1;
}

void kt_utf8_put(struct ktrace_out *o, uint32_t cp)
{
	if (cp < 0x80) {
		kt_out_putc(o, (char)cp);
	} else if (cp < 0x800) {
		kt_out_putc(o, (char)(0xc0 | cp >> 6));
		kt_out_putc(o, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		kt_out_putc(o, (char)(0xe0 | cp >> 12));
		kt_out_putc(o, (char)(0x80 | ((cp >> 6) & 0x3f)));
		kt_out_putc(o, (char)(0x80 | (cp & 0x3f)));
	} else {
		kt_out_putc(o, (char)(0xf0 | cp >> 18));
		kt_out_putc(o, (char)(0x80 | ((cp >> 12) & 0x3f)));
		kt_out_putc(o, (char)(0x80 | ((cp >> 6) & 0x3f)));
		kt_out_putc(o, (char)(0x80 | (cp & 0x3f)));
	}
}

void kt_json_write_string(struct ktrace_out *o, const char *str, size_t len)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0;

	kt_out_putc(o, '"');
	while (i < len) {
		size_t run = i, n;
		uint32_t cp;

		/* Copy plain ASCII in one go. */
		while (run < len && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' && s[run] != '\\')
			run++;
		if (run > i) {
			kt_out_write(o, s + i, run - i);
			i = run;
			continue;
		}
		switch (s[i]) {
		case '"':  kt_out_puts(o, "\\\""); i++; continue;
		case '\\': kt_out_puts(o, "\\\\"); i++; continue;
		case '\n': kt_out_puts(o, "\\n"); i++; continue;
		case '\r': kt_out_puts(o, "\\r"); i++; continue;
		case '\t': kt_out_puts(o, "\\t"); i++; continue;
		case '\b': kt_out_puts(o, "\\b"); i++; continue;
		case '\f': kt_out_puts(o, "\\f"); i++; continue;
		}
		if (s[i] < 0x80) {
			/* other control characters and DEL */
			kt_out_puts(o, "\\u00");
			kt_out_hex2(o, s[i]);
			i++;
			continue;
		}
		n = kt_utf8_next(s + i, len - i, &cp);
		if (n == 1) {
			/* not valid UTF-8: the byte, escaped */
			kt_out_puts(o, "\\u00");
			kt_out_hex2(o, s[i]);
		} else {
			kt_out_write(o, s + i, n);
		}
		i += n;
	}
	kt_out_putc(o, '"');
}
