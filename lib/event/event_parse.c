// SPDX-License-Identifier: MIT
/*
 * Event format parser: tokenizer, field list, print fmt and its arguments.
 *
 * The grammar and its corner cases follow what libtraceevent 1.7 accepts, because the
 * text trace-cmd prints depends on how it groups expressions and on what it refuses
 * (an event it cannot parse prints as "[FAILED TO PARSE]"). Everything allocated here
 * lives in the registry's arena; every loop consumes input; nesting is bounded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "event/event_int.h"

#define EV_MAX_DEPTH 200
#define EV_MAX_FORMAT (1u << 20)
#define EV_MAX_FIELDS 4096

struct ps {
	const char *buf;
	size_t len, pos;
	struct ktrace_events *evs;
	struct ktrace_event *ev;
	struct kt_arena *a;
	int depth;
	bool fatal;           /* out of memory or nesting too deep: give up */
	bool oom;
	struct ktrace_out tmp;
};

/* ---- character classes (C locale; bytes >= 0x80 read as negative chars) ---- */

static inline bool c_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline int rdc(struct ps *p)
{
	if (p->pos >= p->len)
		return -1;
	return (signed char)p->buf[p->pos++];
}

static inline int peekc(struct ps *p)
{
	if (p->pos >= p->len)
		return -1;
	return (signed char)p->buf[p->pos];
}

static char *intern(struct ps *p, const char *s, size_t n)
{
	char *r = kt_arena_strdup(p->a, s, n);

	if (!r)
		p->fatal = p->oom = true;
	return r;
}

static char *intern_s(struct ps *p, const char *s)
{
	return intern(p, s, strlen(s));
}

static enum ftev_tok force_token(struct ps *p, const char *str, char **tok);

/* One-character tokens are shared, from a constant table (threads may parse formats
 * at the same time): nothing ever writes into a token. */
#define ONE_CHAR2(n) { (n), 0 }, { (n) + 1, 0 }
#define ONE_CHAR8(n) ONE_CHAR2(n), ONE_CHAR2((n) + 2), ONE_CHAR2((n) + 4), ONE_CHAR2((n) + 6)
#define ONE_CHAR32(n) ONE_CHAR8(n), ONE_CHAR8((n) + 8), ONE_CHAR8((n) + 16), ONE_CHAR8((n) + 24)
static const char one_chars[128][2] = {
	ONE_CHAR32(0), ONE_CHAR32(32), ONE_CHAR32(64), ONE_CHAR32(96),
};

static char *one_char(struct ps *p, int ch)
{
	if (ch <= 0 || ch >= 128)
		return intern(p, (const char *)&ch, 1);
	return (char *)one_chars[ch];
}

static enum ftev_tok read_tok_raw(struct ps *p, char **tok)
{
	struct ktrace_out *s = &p->tmp;
	const char *text;
	int ch, last_ch, quote_ch;
	enum ftev_tok type;

	*tok = NULL;
	ch = rdc(p);
	if (ch < 0)
		return T_NONE;
	type = ftev_char_type(ch);
	if (type == T_NONE)
		return type;
	if (type == T_ITEM || type == T_SPACE) {
		/* a run of the same class: taken straight from the text */
		size_t start = p->pos - 1;

		while (p->pos < p->len && ftev_char_type((signed char)p->buf[p->pos]) == type)
			p->pos++;
		*tok = intern(p, p->buf + start, p->pos - start);
		if (!*tok)
			return T_ERROR;
		if (type == T_ITEM && p->pos - start >= 10) {
			/* Old mac80211 formats use macros that were never expanded. */
			if (!strcmp(*tok, "LOCAL_PR_FMT"))
				return force_token(p, "\"%s\" ", tok);
			if (!strcmp(*tok, "STA_PR_FMT"))
				return force_token(p, "\" sta:%pM\" ", tok);
			if (!strcmp(*tok, "VIF_PR_FMT"))
				return force_token(p, "\" vif:%p(%d)\" ", tok);
		}
		return type;
	}
	if (type == T_NEWLINE || type == T_DELIM) {
		*tok = one_char(p, ch);
		return *tok ? type : T_ERROR;
	}
	s->len = 0;
	kt_out_putc(s, (char)ch);

	switch (type) {
	case T_OP:
		switch (ch) {
		case '-':
			if (peekc(p) == '>') {
				kt_out_putc(s, (char)rdc(p));
				goto done;
			}
			/* fall through */
		case '+':
		case '|':
		case '&':
		case '>':
		case '<':
			last_ch = ch;
			if (peekc(p) != last_ch)
				goto test_equal;
			kt_out_putc(s, (char)rdc(p));
			if (last_ch == '>' || last_ch == '<')
				goto test_equal;
			goto done;
		case '!':
		case '=':
			goto test_equal;
		default:
			goto done;
		}
test_equal:
		if (peekc(p) == '=')
			kt_out_putc(s, (char)rdc(p));
		goto done;
	case T_DQUOTE:
	case T_SQUOTE:
		s->len--;               /* quotes are not kept */
		quote_ch = ch;
concat:
		do {
			last_ch = ch;
			ch = rdc(p);
			kt_out_putc(s, (char)ch);
			if (ch == '\\' && last_ch == '\\')
				last_ch = 0;
			if (ch <= 0)
				break;
		} while ((ch != quote_ch && c_is_print(ch)) || last_ch == '\\' || ch == '\n');
		s->len--;               /* the closing quote (or what stopped the string) */
		if (ch <= 0)
			type = T_NONE;
		if (type == T_DQUOTE) {
			/* "a" "b" is one string */
			size_t save = p->pos;

			do {
				ch = rdc(p);
			} while (c_space(ch));
			if (ch == '"')
				goto concat;
			p->pos = save;
		}
		goto done;
	default:
		break;
	}
	while (ftev_char_type(peekc(p)) == type)
		kt_out_putc(s, (char)rdc(p));
done:
	text = kt_out_str(s);
	if (s->error) {
		p->fatal = p->oom = true;
		return T_ERROR;
	}
	*tok = intern(p, text, s->len);
	if (!*tok)
		return T_ERROR;
	if (type == T_ITEM) {
		/* Old mac80211 formats use macros that were never expanded. */
		if (!strcmp(*tok, "LOCAL_PR_FMT"))
			return force_token(p, "\"%s\" ", tok);
		if (!strcmp(*tok, "STA_PR_FMT"))
			return force_token(p, "\" sta:%pM\" ", tok);
		if (!strcmp(*tok, "VIF_PR_FMT"))
			return force_token(p, "\" vif:%p(%d)\" ", tok);
	}
	return type;
}

static enum ftev_tok force_token(struct ps *p, const char *str, char **tok)
{
	struct ps sub = *p;
	enum ftev_tok type;

	sub.buf = str;
	sub.len = strlen(str);
	sub.pos = 0;
	sub.tmp = KT_OUT_HEAP;
	type = read_tok_raw(&sub, tok);
	if (sub.fatal)
		p->fatal = true;
	if (sub.tmp.error)
		p->oom = true;
	kt_out_heap_free(&sub.tmp);
	return type;
}

/* Skips spaces (newlines are tokens). */
static enum ftev_tok read_token(struct ps *p, char **tok)
{
	enum ftev_tok type;

	do {
		type = read_tok_raw(p, tok);
	} while (type == T_SPACE);
	return type;
}

/* Skips spaces and newlines. */
static enum ftev_tok read_token_item(struct ps *p, char **tok)
{
	enum ftev_tok type;

	do {
		type = read_tok_raw(p, tok);
	} while (type == T_SPACE || type == T_NEWLINE);
	return type;
}

static int test_type(enum ftev_tok type, enum ftev_tok expect)
{
	return type == expect ? 0 : -1;
}

static int test_type_token(enum ftev_tok type, const char *token, enum ftev_tok expect, const char *want)
{
	if (type != expect || !token)
		return -1;
	return strcmp(token, want) ? -1 : 0;
}

static int read_expect_type(struct ps *p, enum ftev_tok expect, char **tok)
{
	return test_type(read_token(p, tok), expect);
}

static int read_expected(struct ps *p, enum ftev_tok expect, const char *want)
{
	char *tok;
	enum ftev_tok type = read_token(p, &tok);

	return test_type_token(type, tok, expect, want);
}

static int read_expected_item(struct ps *p, enum ftev_tok expect, const char *want)
{
	char *tok;
	enum ftev_tok type = read_token_item(p, &tok);

	return test_type_token(type, tok, expect, want);
}

static bool tok_is(const char *tok, const char *s)
{
	return tok && !strcmp(tok, s);
}

/* Concatenation into a new arena string. */
static char *cat3(struct ps *p, const char *a, const char *b, const char *c)
{
	size_t la = a ? strlen(a) : 0, lb = strlen(b), lc = strlen(c);
	char *r = kt_arena_zalloc(p->a, la + lb + lc + 1, 16);

	if (!r) {
		p->fatal = p->oom = true;
		return NULL;
	}
	if (la)
		memcpy(r, a, la);
	memcpy(r + la, b, lb);
	memcpy(r + la + lb, c, lc);
	r[la + lb + lc] = 0;
	return r;
}

/* ---- fields ---- */

static unsigned type_size(const char *name)
{
	static const struct {
		const char *type;
		unsigned size;
	} table[] = {
		{ "u8", 1 }, { "u16", 2 }, { "u32", 4 }, { "u64", 8 },
		{ "s8", 1 }, { "s16", 2 }, { "s32", 4 }, { "s64", 8 },
		{ "char", 1 },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].type, name))
			return table[i].size;
	return 0;
}

static uint32_t to_u32(const char *tok)
{
	return (uint32_t)strtoul(tok, NULL, 0);
}

/* Returns the number of fields read, or -1; the fields read stay linked. */
static int read_fields(struct ps *p, struct ftev_field **fields)
{
	struct ktrace_event *ev = p->ev;
	const char *delim = " ";
	int count = 0;

	for (;;) {
		struct ftev_field *field;
		unsigned size_dynamic = 0;
		char *token, *last_token;
		enum ftev_tok type;

		if (p->fatal)
			return -1;
		type = read_token(p, &token);
		if (type == T_NEWLINE)
			return count;
		/* field lookups are linear: thousands of fields are refused, not slow */
		if (++count > EV_MAX_FIELDS)
			return -1;
		if (test_type_token(type, token, T_ITEM, "field"))
			return -1;
		type = read_token(p, &token);
		/* old ftrace formats: "field special:" */
		if ((ev->flags & EV_ISFTRACE) && type == T_ITEM && tok_is(token, "special"))
			type = read_token(p, &token);
		if (test_type_token(type, token, T_OP, ":") < 0)
			return -1;
		if (read_expect_type(p, T_ITEM, &token) < 0)
			return -1;
		last_token = token;

		field = kt_arena_zalloc(p->a, sizeof(*field), 16);
		if (!field) {
			p->fatal = p->oom = true;
			return -1;
		}
		field->event = ev;

		/* the rest of the type */
		for (;;) {
			type = read_token(p, &token);
			if (type == T_ITEM || (type == T_OP && tok_is(token, "*")) ||
			    ((ev->flags & EV_ISFTRACE) && type == T_OP && tok_is(token, "."))) {
				if (tok_is(token, "*"))
					field->flags |= EVF_POINTER;
				if (field->type)
					field->type = cat3(p, field->type, delim, last_token);
				else
					field->type = last_token;
				last_token = token;
				delim = " ";
				if (p->fatal)
					return -1;
				continue;
			}
			/* __attribute__((user)) */
			if (type == T_DELIM && tok_is(last_token, "__attribute__") && token[0] == '(') {
				int depth = 1;

				field->type = cat3(p, field->type, " ", last_token);
				field->type = cat3(p, field->type, "", "(");
				delim = " ";
				while ((type = read_token(p, &token)) != T_NONE) {
					if (p->fatal)
						return -1;
					if (type == T_DELIM) {
						if (token[0] == '(')
							depth++;
						else if (token[0] == ')')
							depth--;
						if (!depth)
							break;
						field->type = cat3(p, field->type, "", token);
						delim = "";
					} else {
						field->type = cat3(p, field->type, delim, token);
						delim = " ";
					}
					last_token = token;
				}
				continue;
			}
			break;
		}
		if (!field->type || p->fatal)
			return -1;
		field->name = last_token;
		if (test_type(type, T_OP))
			return -1;

		if (tok_is(token, "[")) {
			enum ftev_tok last_type = type;
			struct ktrace_out br = KT_OUT_HEAP;
			const char *brackets;

			field->flags |= EVF_ARRAY;
			kt_out_puts(&br, token);
			type = read_token(p, &token);
			field->arraylen = type == T_ITEM ? to_u32(token) : 0;
			while (!tok_is(token, "]")) {
				if (!token || p->fatal) {
					kt_out_heap_free(&br);
					return -1;
				}
				kt_out_puts(&br, last_type == T_ITEM && type == T_ITEM ? " " : "");
				last_type = type;
				kt_out_puts(&br, token);
				field->arraylen = to_u32(token);
				type = read_token(p, &token);
				if (type == T_NONE) {
					kt_out_heap_free(&br);
					return -1;
				}
			}
			kt_out_puts(&br, "]");
			brackets = kt_out_str(&br);
			if (br.error) {
				kt_out_heap_free(&br);
				p->fatal = p->oom = true;
				return -1;
			}
			type = read_token(p, &token);
			if (type == T_ITEM) {
				/* "type [] name" */
				field->type = cat3(p, field->type, " ", field->name);
				field->type = cat3(p, field->type, "", brackets);
				size_dynamic = type_size(field->name);
				field->name = token;
				type = read_token(p, &token);
			} else {
				field->type = cat3(p, field->type, "", brackets);
			}
			kt_out_heap_free(&br);
			if (p->fatal)
				return -1;
		}

		if ((field->flags & EVF_ARRAY) &&
		    (strstr(field->type, "char") || strstr(field->type, "u8") ||
		     strstr(field->type, "s8")))
			field->flags |= EVF_STRING;
		if (!strncmp(field->type, "__data_loc", 10))
			field->flags |= EVF_DYNAMIC;
		if (!strncmp(field->type, "__rel_loc", 9))
			field->flags |= EVF_DYNAMIC | EVF_RELATIVE;
		if (strstr(field->type, "long"))
			field->flags |= EVF_LONG;

		if (test_type_token(type, token, T_OP, ";"))
			return -1;
		if (read_expected(p, T_ITEM, "offset") < 0 || read_expected(p, T_OP, ":") < 0)
			return -1;
		if (read_expect_type(p, T_ITEM, &token))
			return -1;
		field->offset = to_u32(token);
		if (read_expected(p, T_OP, ";") < 0 || read_expected(p, T_ITEM, "size") < 0 ||
		    read_expected(p, T_OP, ":") < 0)
			return -1;
		if (read_expect_type(p, T_ITEM, &token))
			return -1;
		field->size = to_u32(token);
		/* Old dynamic strings: a 2-byte offset, the length up to the record's end. */
		if ((field->flags & EVF_DYNAMIC) && field->size == 2)
			field->flags |= EVF_STRING | EVF_ARRAY;
		if (read_expected(p, T_OP, ";") < 0)
			return -1;
		type = read_token(p, &token);
		if (type != T_NEWLINE) {
			if (test_type_token(type, token, T_ITEM, "signed"))
				return -1;
			if (read_expected(p, T_OP, ":") < 0)
				return -1;
			if (read_expect_type(p, T_ITEM, &token))
				return -1;
			if (strtoul(token, NULL, 0))
				field->flags |= EVF_SIGNED;
			if (read_expected(p, T_OP, ";") < 0)
				return -1;
			if (read_expect_type(p, T_NEWLINE, &token))
				return -1;
		}
		field->name_len = (uint32_t)strlen(field->name);
		if (field->flags & (EVF_ARRAY | EVF_DYNAMIC)) {
			if (field->arraylen)
				field->elementsize = field->size / field->arraylen;
			else if (field->flags & EVF_DYNAMIC)
				field->elementsize = size_dynamic;
			else if (field->flags & EVF_STRING)
				field->elementsize = 1;
			else if (field->flags & EVF_LONG)
				field->elementsize = (uint32_t)p->evs->long_size;
		} else {
			field->elementsize = field->size;
		}
		*fields = field;
		fields = &field->next;
	}
}

static int read_format(struct ps *p)
{
	char *token;
	int ret;

	if (read_expected_item(p, T_ITEM, "format") < 0)
		return -1;
	if (read_expected(p, T_OP, ":") < 0)
		return -1;
	if (read_expect_type(p, T_NEWLINE, &token))
		return -1;
	ret = read_fields(p, &p->ev->common);
	if (ret < 0)
		return ret;
	p->ev->ncommon = ret;
	ret = read_fields(p, &p->ev->fields);
	if (ret < 0)
		return ret;
	p->ev->nfields = ret;
	if (ret > 0) {
		struct ftev_field *f = p->ev->fields;

		p->ev->field_at = kt_arena_zalloc(p->a, (size_t)ret * sizeof(*p->ev->field_at), 16);
		if (!p->ev->field_at) {
			p->fatal = p->oom = true;
			return -1;
		}
		for (int i = 0; i < ret && f; i++, f = f->next)
			p->ev->field_at[i] = f;
	}
	return 0;
}

/* ---- print arguments ---- */

static struct ftev_arg *new_arg(struct ps *p)
{
	struct ftev_arg *a = kt_arena_zalloc(p->a, sizeof(*a), 16);

	if (!a)
		p->fatal = p->oom = true;
	return a;
}

static enum ftev_tok process_arg_token(struct ps *p, struct ftev_arg *arg, char **tok, enum ftev_tok type);
static enum ftev_tok process_op(struct ps *p, struct ftev_arg *arg, char **tok);

static enum ftev_tok process_arg(struct ps *p, struct ftev_arg *arg, char **tok)
{
	char *token;
	enum ftev_tok type = read_token(p, &token);

	*tok = token;
	return process_arg_token(p, arg, tok, type);
}

static void set_failed(struct ps *p)
{
	p->ev->flags |= EV_FAILED;
}

static int get_op_prio(const char *op)
{
	if (!op)
		return -1;
	if (op[0] && !op[1]) {
		switch (op[0]) {
		case '~': case '!':
			return 4;
		case '*': case '/': case '%':
			return 6;
		case '+': case '-':
			return 7;
		case '<': case '>':
			return 9;
		case '&':
			return 11;
		case '^':
			return 12;
		case '|':
			return 13;
		case '?':
			return 16;
		default:
			return -1;
		}
	}
	if (!strcmp(op, "++") || !strcmp(op, "--"))
		return 3;
	if (!strcmp(op, ">>") || !strcmp(op, "<<"))
		return 8;
	if (!strcmp(op, ">=") || !strcmp(op, "<="))
		return 9;
	if (!strcmp(op, "==") || !strcmp(op, "!="))
		return 10;
	if (!strcmp(op, "&&"))
		return 14;
	if (!strcmp(op, "||"))
		return 15;
	return -1;
}

static int set_op_prio(struct ftev_arg *arg)
{
	if (!arg->op.left || arg->op.left->type == PA_NULL)
		arg->op.prio = 0;
	else
		arg->op.prio = get_op_prio(arg->op.op);
	return arg->op.prio;
}

static enum ftev_tok process_cond(struct ps *p, struct ftev_arg *top, char **tok)
{
	struct ftev_arg *arg = new_arg(p), *left = new_arg(p), *right = new_arg(p);
	char *token = NULL;
	enum ftev_tok type;

	if (!arg || !left || !right)
		goto fail;
	arg->type = PA_OP;
	arg->op.left = left;
	arg->op.right = right;
	*tok = NULL;
	type = process_arg(p, left, &token);
	for (;;) {
		if (type == T_ERROR || p->fatal)
			goto fail;
		if (type == T_OP && !tok_is(token, ":")) {
			type = process_op(p, left, &token);
			continue;
		}
		break;
	}
	if (test_type_token(type, token, T_OP, ":"))
		goto fail;
	arg->op.op = token;
	type = process_arg(p, right, &token);
	top->op.right = arg;
	*tok = token;
	return type;
fail:
	top->op.right = NULL;
	return T_ERROR;
}

static enum ftev_tok process_array(struct ps *p, struct ftev_arg *top, char **tok)
{
	struct ftev_arg *arg = new_arg(p);
	char *token = NULL;
	enum ftev_tok type;

	*tok = NULL;
	if (!arg)
		return T_ERROR;
	type = process_arg(p, arg, &token);
	if (test_type_token(type, token, T_OP, "]"))
		return T_ERROR;
	top->op.right = arg;
	type = read_token_item(p, &token);
	*tok = token;
	return type;
}

static enum ftev_tok process_op(struct ps *p, struct ftev_arg *arg, char **tok)
{
	struct ftev_arg *left, *right = NULL;
	char *token = *tok;
	enum ftev_tok type;

	if (p->fatal || !token)
		return T_ERROR;
	if (++p->depth > EV_MAX_DEPTH) {
		p->fatal = true;
		return T_ERROR;
	}
	if (arg->type == PA_OP && !arg->op.left) {
		/* a unary operator */
		switch (token[0]) {
		case '~': case '!': case '+': case '-':
			break;
		default:
			goto fail;
		}
		if (token[1])
			goto fail;
		left = new_arg(p);
		right = new_arg(p);
		if (!left || !right)
			goto fail;
		left->type = PA_NULL;
		arg->op.left = left;
		arg->op.right = right;
		*tok = NULL;
		type = process_arg(p, right, tok);
	} else if (!strcmp(token, "?")) {
		left = new_arg(p);
		if (!left)
			goto fail;
		*left = *arg;
		arg->type = PA_OP;
		arg->op.op = token;
		arg->op.left = left;
		arg->op.right = NULL;
		arg->op.prio = 0;
		type = process_cond(p, arg, tok);
	} else if (!strcmp(token, ">>") || !strcmp(token, "<<") || !strcmp(token, "&") ||
		   !strcmp(token, "|") || !strcmp(token, "&&") || !strcmp(token, "||") ||
		   !strcmp(token, "-") || !strcmp(token, "+") || !strcmp(token, "*") ||
		   !strcmp(token, "^") || !strcmp(token, "/") || !strcmp(token, "%") ||
		   !strcmp(token, "<") || !strcmp(token, ">") || !strcmp(token, "<=") ||
		   !strcmp(token, ">=") || !strcmp(token, "==") || !strcmp(token, "!=")) {
		left = new_arg(p);
		if (!left)
			goto fail;
		*left = *arg;
		arg->type = PA_OP;
		arg->op.op = token;
		arg->op.left = left;
		arg->op.right = NULL;
		if (set_op_prio(arg) == -1) {
			set_failed(p);
			goto fail;
		}
		type = read_token_item(p, &token);
		*tok = token;
		/* "(type *)" */
		if (!strcmp(arg->op.op, "*") && type == T_DELIM && tok_is(token, ")")) {
			if (left->type != PA_ATOM)
				goto fail;
			left->atom.atom = cat3(p, left->atom.atom, " ", "*");
			*arg = *left;
			p->depth--;
			return p->fatal ? T_ERROR : type;
		}
		right = new_arg(p);
		if (!right)
			goto fail;
		type = process_arg_token(p, right, tok, type);
		if (type == T_ERROR)
			goto fail;
		if (right->type == PA_OP && get_op_prio(arg->op.op) < get_op_prio(right->op.op)) {
			struct ftev_arg tmp;

			/* rotate by priority, as libtraceevent does */
			arg->op.right = right->op.left;
			tmp = *arg;
			*arg = *right;
			*right = tmp;
			arg->op.left = right;
		} else {
			arg->op.right = right;
		}
	} else if (!strcmp(token, "[")) {
		left = new_arg(p);
		if (!left)
			goto fail;
		*left = *arg;
		arg->type = PA_OP;
		arg->op.op = token;
		arg->op.left = left;
		arg->op.right = NULL;
		arg->op.prio = 0;
		type = process_array(p, arg, tok);
	} else {
		set_failed(p);
		goto fail;
	}

	if (type == T_OP && *tok && strcmp(*tok, ":")) {
		/* higher priorities go closer to the root */
		int prio = get_op_prio(*tok);

		if (prio > arg->op.prio)
			type = process_op(p, arg, tok);
		else if (right)
			type = process_op(p, right, tok);
		else
			type = T_ERROR;
	}
	p->depth--;
	return p->fatal ? T_ERROR : type;
fail:
	p->depth--;
	*tok = NULL;
	return T_ERROR;
}

static enum ftev_tok process_entry(struct ps *p, struct ftev_arg *arg, char **tok)
{
	char *token;
	enum ftev_tok type = read_token_item(p, &token);

	/* "(REC)->field": the caller continues */
	if (type == T_DELIM && tok_is(token, ")")) {
		*tok = token;
		return T_ITEM;
	}
	if (test_type_token(type, token, T_OP, "->"))
		goto fail;
	if (read_expect_type(p, T_ITEM, &token) < 0)
		goto fail;
	arg->type = PA_FIELD;
	arg->field.name = token;
	arg->field.field = ftev_find_any_field(p->ev, token);
	type = read_token(p, &token);
	*tok = token;
	return type;
fail:
	*tok = NULL;
	return T_ERROR;
}

/* Constant folding of operations on two atoms (libtraceevent's consolidate_op_arg). */
static int consolidate_op_arg(struct ps *p, struct ftev_arg *arg, int depth)
{
	uint64_t val, left, right;
	char buf[32];
	int ret = 0;

	if (arg->type != PA_OP)
		return 0;
	if (depth > 4 * EV_MAX_DEPTH)
		return -1;
	if (arg->op.left)
		ret = consolidate_op_arg(p, arg->op.left, depth + 1);
	if (ret < 0)
		return ret;
	if (arg->op.right)
		ret = consolidate_op_arg(p, arg->op.right, depth + 1);
	if (ret < 0)
		return ret;
	if (!arg->op.left || !arg->op.right)
		return 0;
	if (arg->op.left->type != PA_ATOM || arg->op.right->type != PA_ATOM)
		return 0;
	left = strtoull(arg->op.left->atom.atom, NULL, 0);
	right = strtoull(arg->op.right->atom.atom, NULL, 0);
	switch (arg->op.op[0]) {
	case '>':
		if (arg->op.op[1] == '>')
			val = left >> (right & 63);
		else if (arg->op.op[1] == '=')
			val = left >= right;
		else
			val = left > right;
		break;
	case '<':
		if (arg->op.op[1] == '<')
			val = left << (right & 63);
		else if (arg->op.op[1] == '=')
			val = left <= right;
		else
			val = left < right;
		break;
	case '&':
		val = arg->op.op[1] == '&' ? (left && right) : (left & right);
		break;
	case '|':
		val = arg->op.op[1] == '|' ? (left || right) : (left | right);
		break;
	case '-':
		val = left - right;
		break;
	case '+':
		val = left + right;
		break;
	case '*':
		val = left * right;
		break;
	case '^':
		val = left ^ right;
		break;
	case '/':
		val = right ? left / right : 0;
		break;
	case '%':
		val = right ? left % right : 0;
		break;
	case '=':
		val = left == right;
		break;
	case '!':
		val = left != right;
		break;
	default:
		return 0;
	}
	snprintf(buf, sizeof(buf), "%lld", (long long)val);
	arg->type = PA_ATOM;
	memset(&arg->atom, 0, sizeof(arg->atom));
	arg->atom.atom = intern_s(p, buf);
	return p->fatal ? -1 : 0;
}

/* Constant evaluation of flag/symbol table entries (libtraceevent's arg_num_eval,
 * signed arithmetic). Returns false when it cannot evaluate. */
static bool arg_num_eval(struct ftev_arg *arg, int64_t *val, int depth)
{
	int64_t left = 0, right = 0;

	if (depth > 4 * EV_MAX_DEPTH)
		return false;
	switch (arg->type) {
	case PA_ATOM:
		*val = (int64_t)strtoll(arg->atom.atom, NULL, 0);
		return true;
	case PA_TYPE:
		if (!arg_num_eval(arg->typecast.item, val, depth + 1))
			return false;
		*val = (int64_t)ftev_cast_value((uint64_t)*val, arg->typecast.type, false);
		return true;
	case PA_OP:
		break;
	default:
		return false;
	}
	switch (arg->op.op[0]) {
	case '|':
	case '&':
		if (!arg_num_eval(arg->op.left, &left, depth + 1) ||
		    !arg_num_eval(arg->op.right, &right, depth + 1))
			return false;
		if (arg->op.op[0] == '|')
			*val = arg->op.op[1] ? (left || right) : (left | right);
		else
			*val = arg->op.op[1] ? (left && right) : (left & right);
		return true;
	case '<':
	case '>':
		if (!arg_num_eval(arg->op.left, &left, depth + 1) ||
		    !arg_num_eval(arg->op.right, &right, depth + 1))
			return false;
		switch (arg->op.op[1]) {
		case 0:
			*val = arg->op.op[0] == '<' ? left < right : left > right;
			return true;
		case '<':
			if (arg->op.op[0] != '<')
				return false;
			*val = (int64_t)((uint64_t)left << (right & 63));
			return true;
		case '>':
			if (arg->op.op[0] != '>')
				return false;
			*val = left >> (right & 63);
			return true;
		case '=':
			*val = arg->op.op[0] == '<' ? left <= right : left >= right;
			return true;
		default:
			return false;
		}
	case '=':
	case '!':
		if (!arg_num_eval(arg->op.left, &left, depth + 1) ||
		    !arg_num_eval(arg->op.right, &right, depth + 1))
			return false;
		if (arg->op.op[1] != '=')
			return false;
		*val = arg->op.op[0] == '=' ? left == right : left != right;
		return true;
	case '-':
	case '+':
		if (arg->op.left->type != PA_NULL &&
		    !arg_num_eval(arg->op.left, &left, depth + 1))
			return false;
		if (!arg_num_eval(arg->op.right, &right, depth + 1))
			return false;
		*val = arg->op.op[0] == '-' ? (int64_t)((uint64_t)left - (uint64_t)right)
					    : (int64_t)((uint64_t)left + (uint64_t)right);
		return true;
	case '~':
		if (!arg_num_eval(arg->op.right, &right, depth + 1))
			return false;
		*val = ~right;
		return true;
	default:
		return false;
	}
}

/* libtraceevent's arg_eval: the text of a constant argument, or NULL. */
static const char *arg_eval(struct ps *p, struct ftev_arg *arg)
{
	char buf[32];
	int64_t val;

	for (int depth = 0; arg && depth < 4 * EV_MAX_DEPTH; depth++) {
		switch (arg->type) {
		case PA_ATOM:
			return arg->atom.atom;
		case PA_TYPE:
			arg = arg->typecast.item;
			continue;
		case PA_OP:
			if (!arg_num_eval(arg, &val, 0))
				return NULL;
			snprintf(buf, sizeof(buf), "%lld", (long long)val);
			return intern_s(p, buf);
		default:
			return NULL;
		}
	}
	return NULL;
}

static enum ftev_tok process_fields(struct ps *p, struct ftev_flag_sym **list, char **tok)
{
	char *token = *tok;
	enum ftev_tok type;

	do {
		struct ftev_flag_sym *field;
		struct ftev_arg *arg;
		const char *value;

		type = read_token_item(p, &token);
		if (test_type_token(type, token, T_OP, "{"))
			break;
		arg = new_arg(p);
		if (!arg)
			goto fail;
		type = process_arg(p, arg, &token);
		if (type == T_OP)
			type = process_op(p, arg, &token);
		if (type == T_ERROR)
			goto fail;
		if (test_type_token(type, token, T_DELIM, ","))
			goto fail;
		field = kt_arena_zalloc(p->a, sizeof(*field), 16);
		if (!field)
			goto fail;
		value = arg_eval(p, arg);
		if (!value)
			goto fail;
		field->value = value;
		arg = new_arg(p);
		if (!arg)
			goto fail;
		type = process_arg(p, arg, &token);
		if (test_type_token(type, token, T_OP, "}"))
			goto fail;
		value = arg_eval(p, arg);
		if (!value)
			goto fail;
		field->str = value;
		field->str_len = (uint32_t)strlen(value);
		*list = field;
		list = &field->next;
		type = read_token_item(p, &token);
	} while (type == T_DELIM && tok_is(token, ","));
	*tok = token;
	return type;
fail:
	*tok = NULL;
	return T_ERROR;
}

static enum ftev_tok process_field_arg(struct ps *p, struct ftev_arg *arg, char **tok)
{
	enum ftev_tok type = process_arg(p, arg, tok);

	while (type == T_OP && !p->fatal)
		type = process_op(p, arg, tok);
	return type;
}

static enum ftev_tok process_flags(struct ps *p, struct ftev_arg *arg, char **tok)
{
	struct ftev_arg *field;
	char *token = NULL;
	enum ftev_tok type;

	memset(arg, 0, sizeof(*arg));
	arg->type = PA_FLAGS;
	field = new_arg(p);
	if (!field)
		goto fail;
	type = process_field_arg(p, field, &token);
	if (test_type_token(type, token, T_DELIM, ","))
		goto fail;
	arg->flags.field = field;
	type = read_token_item(p, &token);
	if (type >= T_ITEM) {
		arg->flags.delim = token;
		type = read_token_item(p, &token);
	}
	if (test_type_token(type, token, T_DELIM, ","))
		goto fail;
	type = process_fields(p, &arg->flags.flags, &token);
	if (test_type_token(type, token, T_DELIM, ")"))
		goto fail;
	return read_token_item(p, tok);
fail:
	*tok = NULL;
	return T_ERROR;
}

static enum ftev_tok process_symbols(struct ps *p, struct ftev_arg *arg, char **tok)
{
	struct ftev_arg *field;
	char *token = NULL;
	enum ftev_tok type;

	memset(arg, 0, sizeof(*arg));
	arg->type = PA_SYMBOL;
	field = new_arg(p);
	if (!field)
		goto fail;
	type = process_field_arg(p, field, &token);
	if (test_type_token(type, token, T_DELIM, ","))
		goto fail;
	arg->symbol.field = field;
	type = process_fields(p, &arg->symbol.symbols, &token);
	if (test_type_token(type, token, T_DELIM, ")"))
		goto fail;
	return read_token_item(p, tok);
fail:
	*tok = NULL;
	return T_ERROR;
}

/* Reads one argument ending with the delimiter next_token (",", ")"). */
static int alloc_and_process_delim(struct ps *p, const char *next_token, struct ftev_arg **out)
{
	struct ftev_arg *field = new_arg(p);
	char *token = NULL;
	enum ftev_tok type;

	if (!field)
		return -1;
	type = process_arg(p, field, &token);
	if (type == T_OP) {
		type = process_op(p, field, &token);
		if (consolidate_op_arg(p, field, 0) < 0)
			type = T_ERROR;
		if (type == T_ERROR)
			return -1;
	}
	if (test_type_token(type, token, T_DELIM, next_token))
		return -1;
	*out = field;
	return 0;
}

static enum ftev_tok process_hex_common(struct ps *p, struct ftev_arg *arg, char **tok,
				  enum pa_type type)
{
	memset(arg, 0, sizeof(*arg));
	arg->type = type;
	if (alloc_and_process_delim(p, ",", &arg->hex.field) ||
	    alloc_and_process_delim(p, ")", &arg->hex.size)) {
		arg->hex.field = NULL;
		*tok = NULL;
		return T_ERROR;
	}
	return read_token_item(p, tok);
}

static enum ftev_tok process_int_array(struct ps *p, struct ftev_arg *arg, char **tok)
{
	memset(arg, 0, sizeof(*arg));
	arg->type = PA_INT_ARRAY;
	if (alloc_and_process_delim(p, ",", &arg->int_array.field) ||
	    alloc_and_process_delim(p, ",", &arg->int_array.count) ||
	    alloc_and_process_delim(p, ")", &arg->int_array.el_size)) {
		arg->int_array.field = NULL;
		arg->int_array.count = NULL;
		*tok = NULL;
		return T_ERROR;
	}
	return read_token_item(p, tok);
}

static enum ftev_tok process_dynamic_array(struct ps *p, struct ftev_arg *arg, char **tok)
{
	struct ftev_field *field;
	char *token;
	enum ftev_tok type;

	memset(arg, 0, sizeof(*arg));
	arg->type = PA_DYNAMIC_ARRAY;
	type = read_token(p, &token);
	*tok = token;
	if (type != T_ITEM)
		goto fail;
	field = ftev_find_field(p->ev, token);
	if (!field)
		goto fail;
	arg->dynarray.field = field;
	if (read_expected(p, T_DELIM, ")") < 0)
		goto fail;
	type = read_token_item(p, &token);
	*tok = token;
	if (type != T_OP || !tok_is(token, "["))
		return type;
	/* An index: libtraceevent rejects "__get_dynamic_array(x)[i]" (its test is
	 * inverted) and skips over anything else after the '['. */
	{
		struct ftev_arg *idx = new_arg(p);

		if (!idx)
			goto fail;
		type = process_arg(p, idx, &token);
		if (type == T_ERROR)
			goto fail;
		if (!test_type_token(type, token, T_OP, "]"))
			goto fail;
		return read_token_item(p, tok);
	}
fail:
	*tok = NULL;
	return T_ERROR;
}

static enum ftev_tok process_dynamic_array_len(struct ps *p, struct ftev_arg *arg, char **tok)
{
	struct ftev_field *field;
	char *token;
	enum ftev_tok type;

	if (read_expect_type(p, T_ITEM, &token) < 0)
		goto fail;
	arg->type = PA_DYNAMIC_ARRAY_LEN;
	field = ftev_find_field(p->ev, token);
	if (!field)
		goto fail;
	arg->dynarray.field = field;
	if (read_expected(p, T_DELIM, ")") < 0)
		goto fail;
	type = read_token(p, &token);
	*tok = token;
	return type;
fail:
	*tok = NULL;
	return T_ERROR;
}

static enum ftev_tok process_paren(struct ps *p, struct ftev_arg *arg, char **tok)
{
	char *token;
	enum ftev_tok type;

	type = process_arg(p, arg, &token);
	if (type == T_ERROR)
		goto fail;
	if (type == T_OP)
		type = process_op(p, arg, &token);
	if (type == T_ERROR)
		goto fail;
	if (type == T_ITEM && tok_is(token, ")"))
		return process_entry(p, arg, tok);     /* "(REC)->field" */
	if (test_type_token(type, token, T_DELIM, ")"))
		goto fail;
	type = read_token_item(p, &token);
	/* An item or '(' after the parenthesis: it was a type cast. */
	if (type >= T_ITEM || (type == T_DELIM && tok_is(token, "("))) {
		struct ftev_arg *item;
		char *ctype;

		if (arg->type != PA_ATOM)
			goto fail;
		item = new_arg(p);
		if (!item)
			goto fail;
		ctype = arg->atom.atom;
		memset(&arg->typecast, 0, sizeof(arg->typecast));
		arg->type = PA_TYPE;
		arg->typecast.type = ctype;
		arg->typecast.item = item;
		type = process_arg_token(p, item, &token, type);
	}
	*tok = token;
	return type;
fail:
	*tok = NULL;
	return T_ERROR;
}

static enum ftev_tok process_str(struct ps *p, struct ftev_arg *arg, char **tok, enum pa_type t)
{
	char *token;
	enum ftev_tok type;

	if (read_expect_type(p, T_ITEM, &token) < 0)
		goto fail;
	arg->type = t;
	if (t == PA_STRING) {
		arg->string.string = token;
		arg->string.field = NULL;
	} else {
		arg->bitmask.bitmask = token;
		arg->bitmask.field = NULL;
	}
	if (read_expected(p, T_DELIM, ")") < 0)
		goto fail;
	type = read_token(p, &token);
	*tok = token;
	return type;
fail:
	*tok = NULL;
	return T_ERROR;
}

static enum ftev_tok process_func_handler(struct ps *p, enum ftev_func func, int nargs,
				    struct ftev_arg *arg, char **tok)
{
	struct ftev_arg **next_arg;
	char *token;
	enum ftev_tok type;

	arg->type = PA_FUNC;
	arg->func.func = func;
	arg->func.nargs = nargs;
	*tok = NULL;
	next_arg = &arg->func.args;
	for (int i = 0; i < nargs; i++) {
		struct ftev_arg *farg = new_arg(p);

		if (!farg)
			return T_ERROR;
		type = process_arg(p, farg, &token);
		if (test_type_token(type, token, T_DELIM, i < nargs - 1 ? "," : ")"))
			return T_ERROR;
		*next_arg = farg;
		next_arg = &farg->next;
	}
	type = read_token(p, &token);
	*tok = token;
	return type;
}

static enum ftev_tok process_builtin_expect(struct ps *p, struct ftev_arg *arg, char **tok)
{
	char *token = NULL;
	enum ftev_tok type = process_arg(p, arg, &token);

	if (type != T_DELIM || !token || token[0] != ',')
		goto fail;
	/* the expected value is a single item */
	if (read_expect_type(p, T_ITEM, &token) < 0)
		goto fail;
	if (read_expected(p, T_DELIM, ")") < 0)
		goto fail;
	return read_token_item(p, tok);
fail:
	*tok = NULL;
	return T_ERROR;
}

static enum ftev_tok process_sizeof(struct ps *p, struct ftev_arg *arg, char **tok)
{
	char *token = NULL;
	enum ftev_tok type;
	bool ok = false;
	char buf[24];

	type = read_token_item(p, &token);
	arg->type = PA_ATOM;
	memset(&arg->atom, 0, sizeof(arg->atom));
	if (tok_is(token, "unsigned")) {
		type = read_token_item(p, &token);
		if (type == T_ERROR)
			goto fail;
		if (type != T_ITEM)
			ok = true;
	}
	if (ok || tok_is(token, "int")) {
		arg->atom.atom = intern_s(p, "4");
	} else if (tok_is(token, "long")) {
		type = read_token_item(p, &token);
		if (tok_is(token, "long")) {
			arg->atom.atom = intern_s(p, "8");
		} else {
			if (p->evs->long_size != 4 && p->evs->long_size != 8)
				goto fail;
			arg->atom.atom = intern_s(p, p->evs->long_size == 4 ? "4" : "8");
			ok = true;      /* the token read is the next one */
		}
	} else if (tok_is(token, "REC")) {
		struct ftev_field *field;

		type = read_token_item(p, &token);
		if (test_type_token(type, token, T_OP, "->"))
			goto fail;
		if (read_expect_type(p, T_ITEM, &token) < 0)
			goto fail;
		field = ftev_find_any_field(p->ev, token);
		if (!field || (field->flags & EVF_ARRAY))
			goto fail;
		snprintf(buf, sizeof(buf), "%d", (int)field->size);
		arg->atom.atom = intern_s(p, buf);
	} else {
		goto fail;
	}
	if (!ok)
		type = read_token_item(p, &token);
	if (test_type_token(type, token, T_DELIM, ")"))
		goto fail;
	return read_token_item(p, tok);
fail:
	*tok = NULL;
	return T_ERROR;
}

static enum ftev_tok process_function(struct ps *p, struct ftev_arg *arg, char *token, char **tok)
{
	enum ftev_func func;
	int nargs;

	if (!strcmp(token, "__print_flags"))
		return process_flags(p, arg, tok);
	if (!strcmp(token, "__print_symbolic"))
		return process_symbols(p, arg, tok);
	if (!strcmp(token, "__print_hex"))
		return process_hex_common(p, arg, tok, PA_HEX);
	if (!strcmp(token, "__print_hex_str"))
		return process_hex_common(p, arg, tok, PA_HEX_STR);
	if (!strcmp(token, "__print_array"))
		return process_int_array(p, arg, tok);
	if (!strcmp(token, "__get_str") || !strcmp(token, "__get_rel_str"))
		return process_str(p, arg, tok, PA_STRING);
	if (!strcmp(token, "__get_bitmask") || !strcmp(token, "__get_rel_bitmask"))
		return process_str(p, arg, tok, PA_BITMASK);
	if (!strcmp(token, "__get_cpumask") || !strcmp(token, "__get_rel_cpumask"))
		return process_str(p, arg, tok, PA_CPUMASK);
	if (!strcmp(token, "__get_dynamic_array") || !strcmp(token, "__get_rel_dynamic_array") ||
	    !strcmp(token, "__get_sockaddr") || !strcmp(token, "__get_sockaddr_rel"))
		return process_dynamic_array(p, arg, tok);
	if (!strcmp(token, "__get_dynamic_array_len") ||
	    !strcmp(token, "__get_rel_dynamic_array_len"))
		return process_dynamic_array_len(p, arg, tok);
	if (!strcmp(token, "__builtin_expect"))
		return process_builtin_expect(p, arg, tok);
	if (!strcmp(token, "sizeof"))
		return process_sizeof(p, arg, tok);
	if (ftev_func_lookup(token, &func, &nargs))
		return process_func_handler(p, func, nargs, arg, tok);
	*tok = NULL;
	return T_ERROR;         /* function not defined */
}

static enum ftev_tok process_arg_token(struct ps *p, struct ftev_arg *arg, char **tok, enum ftev_tok type)
{
	char *token = *tok;
	enum ftev_tok ret;

	if (p->fatal)
		return T_ERROR;
	if (++p->depth > EV_MAX_DEPTH) {
		p->fatal = true;
		return T_ERROR;
	}
	switch (type) {
	case T_ITEM:
		if (tok_is(token, "REC")) {
			ret = process_entry(p, arg, &token);
			break;
		}
		{
			char *atom = token;

			ret = read_token_item(p, &token);
			if (ret == T_DELIM && tok_is(token, "(")) {
				token = NULL;
				ret = process_function(p, arg, atom, &token);
				break;
			}
			/* atoms can be more than one token long */
			if (ret == T_ITEM) {
				struct ktrace_out s = KT_OUT_HEAP;
				const char *text;

				kt_out_puts(&s, atom);
				while (ret == T_ITEM) {
					kt_out_putc(&s, ' ');
					kt_out_puts(&s, token);
					ret = read_token_item(p, &token);
				}
				text = kt_out_str(&s);
				if (s.error)
					p->fatal = p->oom = true;
				else
					atom = intern(p, text, s.len);
				kt_out_heap_free(&s);
			}
			arg->type = PA_ATOM;
			memset(&arg->atom, 0, sizeof(arg->atom));
			arg->atom.atom = atom;
		}
		break;
	case T_DQUOTE:
	case T_SQUOTE:
		arg->type = PA_ATOM;
		memset(&arg->atom, 0, sizeof(arg->atom));
		arg->atom.atom = token;
		ret = read_token_item(p, &token);
		break;
	case T_DELIM:
		if (tok_is(token, "(")) {
			ret = process_paren(p, arg, &token);
			break;
		}
		/* fall through */
	case T_OP:
		/* a unary operator */
		arg->type = PA_OP;
		arg->op.op = token;
		arg->op.left = NULL;
		ret = process_op(p, arg, &token);
		if (ret == T_ERROR)
			arg->op.op = NULL;
		break;
	default:
		p->depth--;
		return T_ERROR;
	}
	p->depth--;
	*tok = token;
	return p->fatal ? T_ERROR : ret;
}

static int read_print_args(struct ps *p, struct ftev_arg **list)
{
	enum ftev_tok type = T_ERROR;
	char *token;
	int args = 0;

	do {
		struct ftev_arg *arg;

		if (p->fatal)
			return -1;
		if (type == T_NEWLINE) {
			type = read_token_item(p, &token);
			continue;
		}
		arg = new_arg(p);
		if (!arg)
			return -1;
		type = process_arg(p, arg, &token);
		if (type == T_ERROR)
			return -1;
		*list = arg;
		args++;
		if (type == T_OP) {
			type = process_op(p, arg, &token);
			if (consolidate_op_arg(p, arg, 0) < 0)
				type = T_ERROR;
			if (type == T_ERROR) {
				*list = NULL;
				return -1;
			}
			list = &arg->next;
			continue;
		}
		if (type == T_DELIM && tok_is(token, ",")) {
			list = &arg->next;
			continue;
		}
		break;
	} while (type != T_NONE);
	return args;
}

static int read_print(struct ps *p)
{
	struct ktrace_event *ev = p->ev;
	struct ktrace_out fmt = KT_OUT_HEAP;
	const char *text;
	char *token;
	enum ftev_tok type;

	if (read_expected_item(p, T_ITEM, "print") < 0 || read_expected(p, T_ITEM, "fmt") < 0 ||
	    read_expected(p, T_OP, ":") < 0)
		return -1;
	if (read_expect_type(p, T_DQUOTE, &token) < 0)
		return -1;
	kt_out_puts(&fmt, token);
	/* "a" (newline) "b": one string */
	while ((type = read_token_item(p, &token)) == T_DQUOTE)
		kt_out_puts(&fmt, token);
	text = kt_out_str(&fmt);
	if (fmt.error) {
		kt_out_heap_free(&fmt);
		p->fatal = p->oom = true;
		return -1;
	}
	ev->print_fmt = intern(p, text, fmt.len);
	kt_out_heap_free(&fmt);
	ev->args = NULL;
	if (!ev->print_fmt)
		return -1;
	if (type == T_NONE)
		return 0;
	if (test_type_token(type, token, T_DELIM, ","))
		return -1;
	{
		/* the arguments as the format gives them, to the end of the line */
		size_t start = p->pos, end;

		while (start < p->len && (p->buf[start] == ' ' || p->buf[start] == '\t'))
			start++;
		for (end = start; end < p->len && p->buf[end] != '\n'; end++)
			;
		ev->print_args = intern(p, p->buf + start, end - start);
		if (!ev->print_args)
			return -1;
	}
	return read_print_args(p, &ev->args);
}

/* ---- print fmt segments (libtraceevent's parse_args) ---- */

static void add_seg(struct ps *p, struct ftev_seg ***tail, const char *fmt, size_t flen,
		    enum seg_type type, struct ftev_arg *arg, struct ftev_arg *len_arg, int ls)
{
	struct ftev_seg *seg = kt_arena_zalloc(p->a, sizeof(*seg), 16);

	if (!seg) {
		p->fatal = p->oom = true;
		return;
	}
	seg->format = intern(p, fmt, flen);
	seg->flen = flen;
	seg->type = type;
	seg->arg = arg;
	seg->len_arg = len_arg;
	seg->ls = ls;
	**tail = seg;
	*tail = &seg->next;
}

/* How many characters of a %p extension libtraceevent takes after the 'p'. */
static int pointer_ext_len(const char *f)
{
	int ret = 0, index;

	switch (*f) {
	case 'F': case 'S': case 'f': case 's':
		return 1;
	case 'M': case 'm':
		if (f[1] == 'R' || f[1] == 'F')
			ret++;
		return ret + 1;
	case 'I': case 'i':
		index = 2;
		switch (f[1]) {
		case 'S':
			while (f[index] == 'p' || f[index] == 'f' || f[index] == 's') {
				ret++;
				index++;
			}
			/* fall through */
		case '4':
			switch (f[index]) {
			case 'h': case 'n': case 'l': case 'b':
				ret++;
				index++;
				break;
			}
			if (f[1] == '4') {
				ret++;
				break;
			}
			/* fall through */
		case '6':
			if (f[index] == 'c')
				ret++;
			ret++;
			break;
		}
		return ret + 1;
	case 'U':
		switch (f[1]) {
		case 'L': case 'l': case 'B': case 'b':
			ret++;
		}
		return ret + 1;
	case 'h':
		switch (f[1]) {
		case 'C': case 'D': case 'N':
			ret++;
		}
		return ret + 1;
	default:
		return 0;
	}
}

static size_t parse_arg_format(struct ps *p, struct ftev_seg ***tail, const char *format,
			       struct ftev_arg **arg)
{
	struct ftev_arg *len_arg = NULL;
	const char *start = format;
	size_t ret = 1, len;
	int ls = 0;

	for (format++; *format; format++) {
		switch (*format) {
		case '#':
			break;
		case 'h':
			ls--;
			break;
		case 'l':
			ls++;
			break;
		case 'L':
			ls = 2;
			break;
		case 'z': case 'Z':
			ls = 1;
			break;
		case '.': case '-':
		case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			break;
		case '*':
			if (!*arg || len_arg) {
				set_failed(p);
				return ret;
			}
			len_arg = *arg;
			*arg = (*arg)->next;
			break;
		case 'p': {
			int res;

			if (!*arg) {
				set_failed(p);
				return ret;
			}
			res = pointer_ext_len(format + 1);
			if (res > 0) {
				format += res;
				ret += (size_t)res;
			}
			len = (size_t)(format + 1 - start);
			if (len > 31) {
				set_failed(p);
				len = 31;
			}
			add_seg(p, tail, start, len, SEG_POINTER, *arg, len_arg, ls);
			*arg = (*arg)->next;
			return ret + 1;
		}
		case 'd': case 'u': case 'i': case 'x': case 'X': case 'o':
			if (!*arg) {
				set_failed(p);
				return ret;
			}
			len = (size_t)(format + 1 - start);
			if (len > 30) {
				set_failed(p);
				len = 31;
			}
			if (ls < -2 || ls > 2)
				set_failed(p);
			add_seg(p, tail, start, len, SEG_DIGIT, *arg, len_arg, ls);
			*arg = (*arg)->next;
			return ret + 1;
		case 's':
			if (!*arg) {
				set_failed(p);
				return ret;
			}
			len = (size_t)(format + 1 - start);
			if (len > 31) {
				set_failed(p);
				len = 31;
			}
			add_seg(p, tail, start, len, SEG_STR, *arg, len_arg, 0);
			*arg = (*arg)->next;
			return ret + 1;
		default: {
			char lit[4] = { '>', *format, '<', 0 };

			add_seg(p, tail, lit, 3, SEG_STRING, NULL, NULL, 0);
			return ret + 1;
		}
		}
		ret++;
	}
	return ret;
}

static size_t parse_arg_string(struct ps *p, struct ftev_seg ***tail, const char *format)
{
	struct ktrace_out s = KT_OUT_HEAP;
	const char *lit;
	size_t ret = 0;

	for (; *format; format++) {
		if (*format == '\\') {
			format++;
			ret++;
			switch (*format) {
			case 'n':
				kt_out_putc(&s, '\n');
				break;
			case 't':
				kt_out_putc(&s, '\t');
				break;
			case 'r':
				kt_out_putc(&s, '\r');
				break;
			case '\\':
				kt_out_putc(&s, '\\');
				break;
			case 0:
				/* a lone backslash at the end (libtraceevent reads past it) */
				format--;
				ret--;
				goto out;
			default:
				kt_out_putc(&s, *format);
				break;
			}
		} else if (*format == '%') {
			if (format[1] == '%') {
				kt_out_putc(&s, '%');
				format++;
				ret++;
			} else {
				break;
			}
		} else {
			kt_out_putc(&s, *format);
		}
		ret++;
	}
out:
	lit = kt_out_str(&s);
	if (s.error) {
		p->fatal = p->oom = true;
	} else {
		/* the literal is kept as a C string: it ends at a NUL */
		add_seg(p, tail, lit, strlen(lit), SEG_STRING, NULL, NULL, 0);
	}
	kt_out_heap_free(&s);
	return ret ? ret : 1;
}

static struct ftev_seg *build_segments(struct ps *p, const char *format, struct ftev_arg *arg)
{
	struct ftev_seg *head = NULL, **tail = &head;
	size_t len = strlen(format), ret;

	while (*format && !p->fatal) {
		if (*format == '%' && format[1] != '%')
			ret = parse_arg_format(p, &tail, format, &arg);
		else
			ret = parse_arg_string(p, &tail, format);
		if (ret >= len)
			break;
		len -= ret;
		format += ret;
	}
	return head;
}

struct ftev_seg *ftev_build_segments(struct ktrace_event *ev, const char *format, struct ftev_arg *args)
{
	struct ps p = { 0 };
	struct ftev_seg *segs;

	p.evs = ev->evs;
	p.ev = ev;
	p.a = &ev->evs->arena;
	segs = build_segments(&p, format, args);
	ftev_compile_segments(segs);
	return p.fatal ? NULL : segs;
}

/* ---- whole format ---- */

struct ktrace_event *ftev_parse_format(struct ktrace_events *evs, const char *system, const char *text,
				 size_t len, struct ktrace_error *err)
{
	struct ktrace_event *ev;
	struct ps p = { 0 };
	char *token;
	long id;
	int ret;

	if (len > EV_MAX_FORMAT) {
		ktrace_error_set(err, -EOVERFLOW, "event format of %zu bytes is too large", len);
		return NULL;
	}
	p.buf = text;
	p.len = len;
	p.evs = evs;
	p.a = &evs->arena;
	ev = kt_arena_zalloc(p.a, sizeof(*ev), 16);
	if (!ev)
		goto oom;
	p.ev = ev;
	ev->evs = evs;

	/* name: NAME */
	if (read_expected(&p, T_ITEM, "name") < 0 || read_expected(&p, T_OP, ":") < 0 ||
	    read_expect_type(&p, T_ITEM, &token) < 0) {
		if (p.fatal)
			goto oom;
		ktrace_error_set(err, -EBADMSG, "event format: no \"name:\" line");
		goto fail;
	}
	ev->name = token;
	ev->system = intern_s(&p, system ? system : "");
	if (!ev->system)
		goto oom;
	if (!strcmp(ev->system, "ftrace")) {
		ev->flags |= EV_ISFTRACE;
		if (!strcmp(ev->name, "bprint"))
			ev->flags |= EV_ISBPRINT;
	}
	/* ID: N */
	if (read_expected_item(&p, T_ITEM, "ID") < 0 || read_expected(&p, T_OP, ":") < 0 ||
	    read_expect_type(&p, T_ITEM, &token) < 0) {
		if (p.fatal)
			goto oom;
		ktrace_error_set(err, -EBADMSG, "event format %s: no \"ID:\" line", ev->name);
		goto fail;
	}
	id = (int)strtoul(token, NULL, 0);
	if (id < 0) {
		ktrace_error_set(err, -EBADMSG, "event format %s: bad ID \"%s\"", ev->name, token);
		goto fail;
	}
	ev->id = (int)id;

	ret = read_format(&p);
	if (p.oom)
		goto oom;
	if (ret < 0 || p.fatal) {
		ev->flags |= EV_FAILED;
		goto done;
	}
	ev->handler = ftev_handler_for(ev->system, ev->name);
	ret = read_print(&p);
	if (p.oom)
		goto oom;
	if (ret < 0 || p.fatal) {
		ev->flags |= EV_FAILED;
		goto done;
	}
	if (ret == 0 && (ev->flags & EV_ISFTRACE)) {
		/* old ftrace formats have no arguments: print every field */
		struct ftev_arg **list = &ev->args;

		for (struct ftev_field *f = ev->fields; f; f = f->next) {
			struct ftev_arg *arg = new_arg(&p);

			if (!arg)
				goto oom;
			arg->type = PA_FIELD;
			arg->field.name = (char *)f->name;
			arg->field.field = f;
			*list = arg;
			list = &arg->next;
		}
	}
	if (!(ev->flags & EV_ISBPRINT))
		ev->segs = build_segments(&p, ev->print_fmt, ev->args);
	if (p.oom)
		goto oom;
	if (p.fatal)
		ev->flags |= EV_FAILED;
done:
	ftev_compile_event(ev);
	kt_out_heap_free(&p.tmp);
	return ev;
oom:
	kt_error_oom(err);
	errno = ENOMEM;
fail:
	kt_out_heap_free(&p.tmp);
	return NULL;
}

/* ---- header_page ---- */

static void parse_header_field(struct ps *p, const char *field, int *offset, int *size,
			       bool mandatory)
{
	size_t save = p->pos;
	char *token;
	enum ftev_tok type;

	if (read_expected(p, T_ITEM, "field") < 0 || read_expected(p, T_OP, ":") < 0)
		return;
	if (read_expect_type(p, T_ITEM, &token) < 0)
		return;
	if (mandatory) {
		if (read_expected(p, T_ITEM, field) < 0)
			return;
	} else {
		if (read_expect_type(p, T_ITEM, &token) < 0)
			return;
		if (strcmp(token, field)) {
			p->pos = save;
			*offset = 0;
			*size = 0;
			return;
		}
	}
	if (read_expected(p, T_OP, ";") < 0 || read_expected(p, T_ITEM, "offset") < 0 ||
	    read_expected(p, T_OP, ":") < 0 || read_expect_type(p, T_ITEM, &token) < 0)
		return;
	*offset = atoi(token);
	if (read_expected(p, T_OP, ";") < 0 || read_expected(p, T_ITEM, "size") < 0 ||
	    read_expected(p, T_OP, ":") < 0 || read_expect_type(p, T_ITEM, &token) < 0)
		return;
	*size = atoi(token);
	if (read_expected(p, T_OP, ";") < 0)
		return;
	type = read_token(p, &token);
	if (type != T_NEWLINE) {
		if (type != T_ITEM || strcmp(token, "signed"))
			return;
		if (read_expected(p, T_OP, ":") < 0 || read_expect_type(p, T_ITEM, &token) ||
		    read_expected(p, T_OP, ";") < 0)
			return;
		read_expect_type(p, T_NEWLINE, &token);
	}
}

int ftev_parse_header_page(struct ktrace_events *evs, const char *text, size_t len)
{
	struct ps p = { 0 };
	int ignore;

	if (len > EV_MAX_FORMAT)
		return -EOVERFLOW;
	p.buf = text;
	p.len = len;
	p.evs = evs;
	p.a = &evs->arena;
	parse_header_field(&p, "timestamp", &evs->hp_ts_offset, &evs->hp_ts_size, true);
	parse_header_field(&p, "commit", &evs->hp_size_offset, &evs->hp_size_size, true);
	parse_header_field(&p, "overwrite", &ignore, &ignore, false);
	parse_header_field(&p, "data", &evs->hp_data_offset, &evs->hp_data_size, true);
	if (p.tmp.error)
		p.oom = true;
	kt_out_heap_free(&p.tmp);
	return p.oom ? -ENOMEM : p.fatal ? -EBADMSG : 0;
}
