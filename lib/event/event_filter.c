// SPDX-License-Identifier: MIT
/*
 * Event filters with libtraceevent 1.7.1's grammar and evaluation (ktrace/event.h).
 *
 * The text "EVENTS:EXPRESSION" is split at its first ':'; every comma-separated part of
 * EVENTS selects events by regular expression, and EXPRESSION is parsed once per
 * selected event (field names resolve per event). The parser is the same state machine
 * as libtraceevent's process_filter: items, comparison and arithmetic operators, the
 * logical operators (which group strictly left to right), '!' taking one expression,
 * and parentheses. The tree is then simplified the way libtraceevent's collapse_tree
 * simplifies it: a comparison with a field the event does not have is FALSE, and
 * constant operands of && || ! are folded away.
 *
 * Where libtraceevent's result depends on memory it should not read, we do what it
 * means to do (docs/report.md lists the cases): a 1-character 'c' constant compares as
 * that character, a regular expression on a number field matches its hex or symbol
 * text, a numeric comparison with COMM compares 0, division by zero gives 0.
 */
#include <ktrace/event.h>

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "event/event_int.h"

/* The trees are walked recursively (as libtraceevent walks them); a chain of && and ||
 * is as deep as it is long (--comm with thousands of pids makes long ones), so the walks
 * stop at this depth (about 2 MiB of stack). */
#define FILTER_MAX_DEPTH 20000

/* Node kinds, as libtraceevent's tep_filter_arg_type. */
enum fk { FK_NONE, FK_BOOL, FK_FIELD, FK_VALUE, FK_OP, FK_EXP, FK_NUM, FK_STR };
enum fop { OP_AND_ = 1, OP_OR_, OP_NOT_ };
enum fexp { EX_NONE, EX_ADD, EX_SUB, EX_MUL, EX_DIV, EX_MOD, EX_RSHIFT, EX_LSHIFT, EX_AND,
	    EX_OR, EX_XOR, EX_NOT };
enum fcmp { CMP_NONE, CMP_EQ, CMP_NE, CMP_GT, CMP_LT, CMP_GE, CMP_LE, CMP_MATCH,
	    CMP_NOT_MATCH, CMP_REGEX, CMP_NOT_REGEX };
enum fval { V_NUMBER, V_STRING, V_CHAR };
enum fspecial { SP_NONE, SP_COMM, SP_CPU };

struct fnode {
	enum fk kind;
	int sub;                        /* fop / fexp / fcmp */
	struct fnode *left, *right;
	bool bval;                      /* FK_BOOL */
	enum fval vtype;                /* FK_VALUE */
	char *str;                      /* FK_VALUE strings, FK_STR value */
	uint64_t val;
	const struct ftev_field *field;   /* FK_FIELD, FK_STR */
	enum fspecial special;
	regex_t *reg;                   /* FK_STR regex */
};

struct ftype {
	int id;
	const struct ktrace_event *event;
	struct fnode *root;
};

struct ktrace_event_filter {
	struct ktrace_events *evs;
	struct ftype *types;            /* sorted by id */
	size_t ntypes;
	const struct ktrace_event **order;   /* events in the order they were parsed */
	size_t norder;
	regex_t **regs;
	size_t nregs, cap_regs;
	struct kt_arena mem;           /* the filter tree and its strings */
	char *scratch;                  /* a copy of a string field without its NUL */
	size_t scratch_cap;
};

/* ---- memory ---- */

static void *falloc(struct ktrace_event_filter *f, size_t n)
{
	return kt_arena_zalloc(&f->mem, n, 16);
}

void ktrace_event_filter_free(struct ktrace_event_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nregs; i++) {
		regfree(f->regs[i]);
		free(f->regs[i]);
	}
	free(f->regs);
	kt_arena_free(&f->mem);
	free(f->types);
	free(f->order);
	free(f->scratch);
	free(f);
}

/* ---- the tokenizer (libtraceevent's __read_token on the filter text) ---- */


struct lexer {
	const char *buf;
	size_t len, pos;
	/* the current token */
	char *tok;
	size_t tlen, tcap;
	bool oom;
};

/* Characters come out as the signed chars libtraceevent reads: bytes >= 0x80 are
 * negative, which ends the input for it. */
static int lx_read(struct lexer *l)
{
	if (l->pos >= l->len)
		return -1;
	return (signed char)l->buf[l->pos++];
}

static int lx_peek(const struct lexer *l)
{
	if (l->pos >= l->len)
		return -1;
	return (signed char)l->buf[l->pos];
}

static void tk_add(struct lexer *l, int ch)
{
	if (l->tlen + 2 > l->tcap) {
		size_t cap = l->tcap ? l->tcap * 2 : 64;
		char *p = kt_realloc_array(l->tok, cap, 1);

		if (!p) {
			l->oom = true;
			return;
		}
		l->tok = p;
		l->tcap = cap;
	}
	l->tok[l->tlen++] = (char)ch;
	l->tok[l->tlen] = 0;
}

static enum ftev_tok lx_token_raw(struct lexer *l)
{
	int ch, last, quote, next;
	enum ftev_tok type;

	l->tlen = 0;
	tk_add(l, 0);
	l->tlen = 0;
	ch = lx_read(l);
	if (ch < 0)
		return T_NONE;
	type = ftev_char_type(ch);
	if (type == T_NONE)
		return T_NONE;
	tk_add(l, ch);
	switch (type) {
	case T_NEWLINE:
	case T_DELIM:
		return type;
	case T_OP:
		switch (ch) {
		case '-':
			next = lx_peek(l);
			if (next == '>') {
				tk_add(l, lx_read(l));
				return type;
			}
			/* fall through */
		case '+': case '|': case '&': case '>': case '<':
			last = ch;
			ch = lx_peek(l);
			if (ch != last)
				goto test_equal;
			tk_add(l, lx_read(l));
			if (last == '>' || last == '<')
				goto test_equal;
			return type;
		case '!': case '=':
			goto test_equal;
		default:
			return type;
		}
test_equal:
		if (lx_peek(l) == '=')
			tk_add(l, lx_read(l));
		return type;
	case T_DQUOTE:
	case T_SQUOTE:
		/* the quotes are not kept; a backslash is kept and protects what follows */
		l->tlen = 0;
		quote = ch;
		last = 0;
concat:
		do {
			last = ch;
			ch = lx_read(l);
			tk_add(l, ch);
			if (ch == '\\' && last == '\\')
				last = 0;
			if (ch <= 0)
				break;
		} while ((ch != quote && c_is_print(ch)) || last == '\\' || ch == '\n');
		/* the closing quote (or whatever ended the string) goes */
		if (l->tlen)
			l->tok[--l->tlen] = 0;
		if (ch <= 0)
			type = T_NONE;
		if (type == T_DQUOTE) {
			size_t save = l->pos;

			do
				ch = lx_read(l);
			while (c_space(ch));
			if (ch == '"')
				goto concat;
			l->pos = save;
		}
		return type;
	default:
		break;
	}
	while (ftev_char_type(lx_peek(l)) == type)
		tk_add(l, lx_read(l));
	return type;
}

/* filter_read_token: spaces and newlines skipped, "=~" and "!~" joined. */
static enum ftev_tok lx_token(struct lexer *l)
{
	enum ftev_tok type;

	do
		type = lx_token_raw(l);
	while (type == T_NEWLINE || type == T_SPACE);
	if (l->oom)
		return T_ERROR;
	if (l->tlen == 1 && (l->tok[0] == '=' || l->tok[0] == '!') && lx_peek(l) == '~') {
		tk_add(l, '~');
		lx_read(l);
	}
	return type;
}

/* ---- parsing (libtraceevent's process_filter) ---- */

enum perr {
	PE_OK = 0,
	PE_MEM = -1,
	PE_SYNTAX = -2,
	PE_ILLEGAL_TOKEN = -3,
	PE_INVALID_PAREN = -4,
	PE_UNBALANCED = -5,       /* also the "')' seen" signal, as in libtraceevent */
	PE_UNKNOWN_TOKEN = -6,
	PE_UNEXPECTED_TYPE = -7,
	PE_RVALUE = -8,
	PE_LVALUE = -9,
	PE_REGEX = -10,
	PE_STRING_CMP = -11,
	PE_INTEGER_CMP = -12,
	PE_INVALID_ARG = -13,
};

struct parser {
	struct ktrace_event_filter *f;
	const struct ktrace_event *ev;
	struct lexer lx;
	char msg[160];
	int depth;
};

static int perr(struct parser *p, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int perr(struct parser *p, int code, const char *fmt, ...)
{
	va_list ap;

	if (!p->msg[0]) {
		va_start(ap, fmt);
		vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

static struct fnode *node(struct parser *p, enum fk kind)
{
	struct fnode *n = falloc(p->f, sizeof(*n));

	if (n)
		n->kind = kind;
	return n;
}

static int create_item(struct parser *p, enum ftev_tok type, struct fnode **out)
{
	const char *tok = p->lx.tok;
	struct fnode *n = node(p, FK_NONE);

	if (!n)
		return perr(p, PE_MEM, "failed to allocate filter arg");
	switch (type) {
	case T_SQUOTE:
	case T_DQUOTE:
		n->kind = FK_VALUE;
		n->vtype = type == T_DQUOTE ? V_STRING : V_CHAR;
		n->str = kt_arena_strdup(&p->f->mem, tok, strlen(tok));
		if (!n->str)
			return perr(p, PE_MEM, "failed to allocate string filter arg");
		break;
	case T_ITEM:
		if (tok[0] >= '0' && tok[0] <= '9') {
			n->kind = FK_VALUE;
			n->vtype = V_NUMBER;
			n->val = strtoull(tok, NULL, 0);
			break;
		}
		n->field = ftev_find_any_field(p->ev, tok);
		if (!n->field) {
			if (!strcmp(tok, "COMM")) {
				n->special = SP_COMM;
			} else if (!strcmp(tok, "CPU")) {
				n->special = SP_CPU;
			} else {
				/* not a field of this event: false */
				n->kind = FK_BOOL;
				n->bval = false;
				break;
			}
		}
		n->kind = FK_FIELD;
		break;
	default:
		return perr(p, PE_UNEXPECTED_TYPE, "expected a value but found %s", tok);
	}
	*out = n;
	return 0;
}

static struct fnode *rotate_op_right(struct fnode *a, struct fnode *b)
{
	struct fnode *arg = a->right;

	a->right = b;
	return arg;
}

static int add_left(struct fnode *op, struct fnode *arg)
{
	switch (op->kind) {
	case FK_EXP:
		if (arg->kind == FK_OP)
			arg = rotate_op_right(arg, op);
		op->left = arg;
		return 0;
	case FK_OP:
		op->left = arg;
		return 0;
	case FK_NUM:
		if (arg->kind == FK_OP)
			arg = rotate_op_right(arg, op);
		/* the left side of a comparison is a field */
		if (!arg || (arg->kind != FK_FIELD && arg->kind != FK_BOOL))
			return PE_INVALID_ARG;
		op->left = arg;
		return 0;
	default:
		return PE_INVALID_ARG;
	}
}

static int add_right(struct parser *p, struct fnode *op, struct fnode *arg)
{
	switch (op->kind) {
	case FK_EXP:
	case FK_OP:
		if (op->right)
			goto fail;
		op->right = arg;
		return 0;
	case FK_NUM:
		if (op->right)
			goto fail;
		if (arg->kind != FK_VALUE && arg->kind != FK_FIELD)
			return perr(p, PE_RVALUE, "Illegal rvalue");
		/* libtraceevent reads a field node as a value here: it is never one of its
		 * value types, so a field on the right is a syntax error */
		if (arg->kind == FK_FIELD)
			goto fail;
		if (arg->vtype == V_CHAR && strlen(arg->str) == 1 && op->sub != CMP_REGEX &&
		    op->sub != CMP_NOT_REGEX) {
			arg->vtype = V_NUMBER;
			arg->val = (unsigned char)arg->str[0];
		}
		if (arg->vtype == V_CHAR || arg->vtype == V_STRING) {
			struct fnode *left = op->left;
			int cmp = op->sub;

			memset(op, 0, sizeof(*op));
			if (left->kind == FK_BOOL) {
				/* a field the event does not have: the whole test is false */
				op->kind = FK_BOOL;
				op->bval = false;
				return 0;
			}
			if (left->kind != FK_FIELD)
				return perr(p, PE_LVALUE, "Illegal lvalue for string comparison");
			switch (cmp) {
			case CMP_EQ:
				cmp = CMP_MATCH;
				break;
			case CMP_NE:
				cmp = CMP_NOT_MATCH;
				break;
			case CMP_REGEX:
			case CMP_NOT_REGEX: {
				regex_t *re;
				struct ktrace_event_filter *f = p->f;

				if (f->nregs == f->cap_regs) {
					size_t cap = f->cap_regs ? f->cap_regs * 2 : 8;
					regex_t **v = kt_realloc_array(f->regs, cap, sizeof(*v));

					if (!v)
						return perr(p, PE_MEM, "Failed to allocate string filter");
					f->regs = v;
					f->cap_regs = cap;
				}
				re = malloc(sizeof(*re));
				if (!re)
					return perr(p, PE_MEM, "Failed to allocate string filter");
				if (regcomp(re, arg->str, REG_ICASE | REG_NOSUB)) {
					free(re);
					return perr(p, PE_REGEX, "RegEx '%s' did not compute", arg->str);
				}
				f->regs[f->nregs++] = re;
				op->reg = re;
				break;
			}
			default:
				return perr(p, PE_STRING_CMP, "Illegal comparison for string");
			}
			op->kind = FK_STR;
			op->sub = cmp;
			op->field = left->field;
			op->special = left->special;
			op->str = arg->str;
			return 0;
		}
		if (op->sub == CMP_REGEX || op->sub == CMP_NOT_REGEX)
			return perr(p, PE_INTEGER_CMP, "Op not allowed with integers");
		op->right = arg;
		return 0;
	default:
		goto fail;
	}
fail:
	return perr(p, PE_SYNTAX, "Syntax error");
}

enum optype { OPT_NONE, OPT_BOOL, OPT_NOT, OPT_EXP, OPT_CMP };

static enum optype process_op(const char *t, int *btype, int *etype, int *ctype)
{
	static const struct { const char *s; int v; } exps[] = {
		{ "+", EX_ADD }, { "-", EX_SUB }, { "*", EX_MUL }, { "/", EX_DIV },
		{ "%", EX_MOD }, { ">>", EX_RSHIFT }, { "<<", EX_LSHIFT }, { "&", EX_AND },
		{ "|", EX_OR }, { "^", EX_XOR }, { "~", EX_NOT },
	};
	static const struct { const char *s; int v; } cmps[] = {
		{ "==", CMP_EQ }, { "!=", CMP_NE }, { "<", CMP_LT }, { ">", CMP_GT },
		{ "<=", CMP_LE }, { ">=", CMP_GE }, { "=~", CMP_REGEX }, { "!~", CMP_NOT_REGEX },
	};

	*btype = OP_NOT_;
	*etype = EX_NONE;
	*ctype = CMP_NONE;
	if (!strcmp(t, "&&")) {
		*btype = OP_AND_;
		return OPT_BOOL;
	}
	if (!strcmp(t, "||")) {
		*btype = OP_OR_;
		return OPT_BOOL;
	}
	if (!strcmp(t, "!"))
		return OPT_NOT;
	for (size_t i = 0; i < sizeof(exps) / sizeof(exps[0]); i++)
		if (!strcmp(t, exps[i].s)) {
			*etype = exps[i].v;
			return OPT_EXP;
		}
	for (size_t i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++)
		if (!strcmp(t, cmps[i].s)) {
			*ctype = cmps[i].v;
			return OPT_CMP;
		}
	return OPT_NONE;
}

static bool op_done(const struct fnode *n)
{
	switch (n->kind) {
	case FK_EXP:
	case FK_OP:
	case FK_NUM:
		return n->right != NULL;
	case FK_STR:
	case FK_BOOL:
		return true;
	default:
		return false;
	}
}

static int process_filter(struct parser *p, struct fnode **parg, bool not);

/* Folding of constant operands (libtraceevent's test_arg / reparent_op_arg). */
enum { FV_NORM = 0, FV_FALSE = 1, FV_TRUE = 2 };

static int reparent(struct parser *p, struct fnode *parent, struct fnode *old, struct fnode *arg)
{
	struct fnode **ptr;

	if (parent->kind != FK_OP && arg->kind != FK_OP)
		return perr(p, -20, "can not reparent other than OP");
	if (old->right == arg)
		ptr = &old->right;
	else if (old->left == arg)
		ptr = &old->left;
	else
		return perr(p, -21, "Error in reparent op, find other child");
	*ptr = NULL;
	if (parent == old) {
		*parent = *arg;
		return 0;
	}
	if (parent->right == old)
		parent->right = arg;
	else if (parent->left == old)
		parent->left = arg;
	else
		return perr(p, -21, "Error in reparent op");
	return 0;
}

static int test_arg(struct parser *p, struct fnode *parent, struct fnode *arg, int depth)
{
	int l, r;

	if (!arg)
		return perr(p, -22, "bad arg in filter tree");
	if (depth > FILTER_MAX_DEPTH)
		return perr(p, -23, "filter nested too deeply");
	switch (arg->kind) {
	case FK_BOOL:
		return arg->bval ? FV_TRUE : FV_FALSE;
	case FK_STR:
	case FK_VALUE:
	case FK_FIELD:
		return FV_NORM;
	case FK_EXP:
	case FK_NUM:
		l = test_arg(p, arg, arg->left, depth + 1);
		if (l != FV_NORM)
			return l;
		r = test_arg(p, arg, arg->right, depth + 1);
		if (r != FV_NORM)
			return r;
		return FV_NORM;
	case FK_OP:
		if (arg->sub != OP_NOT_) {
			l = test_arg(p, arg, arg->left, depth + 1);
			switch (l) {
			case FV_NORM:
				break;
			case FV_TRUE:
				if (arg->sub == OP_OR_)
					return FV_TRUE;
				r = test_arg(p, arg, arg->right, depth + 1);
				if (r != FV_NORM)
					return r;
				return reparent(p, parent, arg, arg->right);
			case FV_FALSE:
				if (arg->sub == OP_AND_)
					return FV_FALSE;
				r = test_arg(p, arg, arg->right, depth + 1);
				if (r != FV_NORM)
					return r;
				return reparent(p, parent, arg, arg->right);
			default:
				return l;
			}
		}
		r = test_arg(p, arg, arg->right, depth + 1);
		switch (r) {
		case FV_TRUE:
			if (arg->sub == OP_OR_)
				return FV_TRUE;
			if (arg->sub == OP_NOT_)
				return FV_FALSE;
			return reparent(p, parent, arg, arg->left);
		case FV_FALSE:
			if (arg->sub == OP_AND_)
				return FV_FALSE;
			if (arg->sub == OP_NOT_)
				return FV_TRUE;
			return reparent(p, parent, arg, arg->left);
		default:
			return r;
		}
	default:
		return perr(p, -22, "bad arg in filter tree");
	}
}

static int collapse(struct parser *p, struct fnode *arg, struct fnode **out)
{
	int ret = test_arg(p, arg, arg, 0);

	if (ret == FV_TRUE || ret == FV_FALSE) {
		struct fnode *b = node(p, FK_BOOL);

		if (!b)
			return perr(p, PE_MEM, "Failed to allocate filter arg");
		b->bval = ret == FV_TRUE;
		*out = b;
		return 0;
	}
	if (ret < 0)
		return ret;
	*out = arg;
	return 0;
}

static int process_filter(struct parser *p, struct fnode **parg, bool not)
{
	struct fnode *current_op = NULL, *current_exp = NULL, *left_item = NULL, *arg = NULL;
	enum ftev_tok type;
	int ret;

	*parg = NULL;
	if (++p->depth > 200) {
		p->depth--;
		return perr(p, PE_SYNTAX, "filter nested too deeply");
	}
	do {
		type = lx_token(&p->lx);
		switch (type) {
		case T_SQUOTE:
		case T_DQUOTE:
		case T_ITEM:
			ret = create_item(p, type, &arg);
			if (ret < 0)
				goto fail;
			if (!left_item) {
				left_item = arg;
			} else if (current_exp) {
				ret = add_right(p, current_exp, arg);
				if (ret < 0)
					goto fail;
				left_item = NULL;
				/* a not takes one expression */
				if (not) {
					if (current_op)
						goto fail_syntax;
					*parg = current_exp;
					p->depth--;
					return 0;
				}
			} else {
				goto fail_syntax;
			}
			arg = NULL;
			break;
		case T_DELIM:
			if (p->lx.tok[0] == ',') {
				ret = perr(p, PE_ILLEGAL_TOKEN, "Illegal token ','");
				goto fail;
			}
			if (p->lx.tok[0] == '(') {
				if (left_item) {
					ret = perr(p, PE_INVALID_PAREN,
						   "Open paren can not come after item");
					goto fail;
				}
				if (current_exp) {
					ret = perr(p, PE_INVALID_PAREN,
						   "Open paren can not come after expression");
					goto fail;
				}
				ret = process_filter(p, &arg, false);
				if (ret != PE_UNBALANCED) {
					if (ret == 0)
						ret = perr(p, PE_UNBALANCED, "Unbalanced number of '('");
					goto fail;
				}
				ret = 0;
				if (not) {
					if (current_op)
						goto fail_syntax;
					*parg = arg;
					p->depth--;
					return 0;
				}
				if (current_op)
					ret = add_right(p, current_op, arg);
				else
					current_exp = arg;
				if (ret < 0)
					goto fail;
			} else {
				/* ')' */
				if (!current_op && !current_exp)
					goto fail_syntax;
				if (current_exp && !op_done(current_exp))
					goto fail_syntax;
				if (current_op && !op_done(current_op))
					goto fail_syntax;
				*parg = current_op ? current_op : current_exp;
				p->depth--;
				return PE_UNBALANCED;
			}
			break;
		case T_OP: {
			int btype, etype, ctype;
			enum optype ot = process_op(p->lx.tok, &btype, &etype, &ctype);

			switch (ot) {
			case OPT_BOOL:
				if (!current_exp && !current_op)
					goto fail_syntax;
				/* fall through */
			case OPT_NOT:
				if (left_item)
					goto fail_syntax;
				break;
			case OPT_EXP:
			case OPT_CMP:
				if (!left_item)
					goto fail_syntax;
				break;
			case OPT_NONE:
				ret = perr(p, PE_UNKNOWN_TOKEN, "Unknown op token %s", p->lx.tok);
				goto fail;
			}
			ret = 0;
			switch (ot) {
			case OPT_BOOL:
				arg = node(p, FK_OP);
				if (!arg)
					goto fail_alloc;
				arg->sub = btype;
				ret = add_left(arg, current_op ? current_op : current_exp);
				current_op = arg;
				current_exp = NULL;
				break;
			case OPT_NOT:
				arg = node(p, FK_OP);
				if (!arg)
					goto fail_alloc;
				arg->sub = OP_NOT_;
				if (current_op)
					ret = add_right(p, current_op, arg);
				if (ret < 0)
					goto fail;
				current_exp = arg;
				ret = process_filter(p, &arg, true);
				if (ret < 0)
					goto fail;
				ret = add_right(p, current_exp, arg);
				if (ret < 0)
					goto fail;
				break;
			case OPT_EXP:
			case OPT_CMP:
				arg = node(p, ot == OPT_EXP ? FK_EXP : FK_NUM);
				if (!arg)
					goto fail_alloc;
				arg->sub = ot == OPT_EXP ? etype : ctype;
				if (current_op)
					ret = add_right(p, current_op, arg);
				if (ret < 0)
					goto fail;
				ret = add_left(arg, left_item);
				if (ret < 0)
					goto fail_syntax;
				current_exp = arg;
				break;
			default:
				break;
			}
			arg = NULL;
			if (ret < 0)
				goto fail_syntax;
			break;
		}
		case T_NONE:
			break;
		case T_ERROR:
			goto fail_alloc;
		default:
			goto fail_syntax;
		}
	} while (type != T_NONE);

	if (!current_op && !current_exp)
		goto fail_syntax;
	if (!current_op)
		current_op = current_exp;
	ret = collapse(p, current_op, parg);
	p->depth--;
	return ret < 0 ? ret : 0;

fail_alloc:
	p->depth--;
	return perr(p, PE_MEM, "failed to allocate filter arg");
fail_syntax:
	ret = perr(p, PE_SYNTAX, "Syntax error");
fail:
	p->depth--;
	return ret;
}

/* ---- events and the filter text ---- */

static int add_type(struct ktrace_event_filter *f, const struct ktrace_event *ev, struct fnode *root)
{
	int id = ktrace_event_id(ev);
	size_t lo = 0, hi = f->ntypes;
	struct ftype *t;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->types[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->ntypes && f->types[lo].id == id) {
		f->types[lo].root = root;
		return 0;
	}
	t = kt_realloc_array(f->types, f->ntypes + 1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	f->types = t;
	memmove(t + lo + 1, t + lo, (f->ntypes - lo) * sizeof(*t));
	t[lo].id = id;
	t[lo].event = ev;
	t[lo].root = root;
	f->ntypes++;
	return 0;
}

static const struct ftype *find_type(const struct ktrace_event_filter *f, int id)
{
	size_t lo = 0, hi = f->ntypes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->types[mid].id < id)
			lo = mid + 1;
		else if (f->types[mid].id > id)
			hi = mid;
		else
			return &f->types[mid];
	}
	return NULL;
}

/* libtraceevent's strim: spaces removed at both ends (in place). */
static char *strim(char *s)
{
	char *e;

	if (!s)
		return NULL;
	while (c_space((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && c_space((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Events matching one "system/event" or "name" part, appended in registry order (the
 * order libtraceevent's list ends up reversed into: see ktrace_event_filter_event). */
static int find_events(struct ktrace_event_filter *f, char *part, const struct ktrace_event ***list,
		       size_t *n, size_t *cap, struct ktrace_error *err)
{
	char *save = NULL, *sys, *name, *pat;
	regex_t sreg, ereg;
	bool match = false;
	int ret = 0;

	sys = strtok_r(part, "/", &save);
	name = strtok_r(NULL, "/", &save);
	if (!sys)
		return ktrace_error_set(err, -ENOENT, "no filter found");
	sys = strim(sys);
	name = strim(name);
	if (!name) {
		name = sys;
		sys = NULL;
	}
	pat = malloc(strlen(name) + 3);
	if (!pat)
		return kt_error_oom(err);
	sprintf(pat, "^%s$", name);
	ret = regcomp(&ereg, pat, REG_ICASE | REG_NOSUB);
	free(pat);
	if (ret)
		return ktrace_error_set(err, -EINVAL, "invalid event name");
	if (sys) {
		pat = malloc(strlen(sys) + 3);
		if (!pat) {
			regfree(&ereg);
			return kt_error_oom(err);
		}
		sprintf(pat, "^%s$", sys);
		ret = regcomp(&sreg, pat, REG_ICASE | REG_NOSUB);
		free(pat);
		if (ret) {
			regfree(&ereg);
			return ktrace_error_set(err, -EINVAL, "invalid event name");
		}
	}
	ret = 0;
	for (size_t i = 0; i < ktrace_event_count(f->evs); i++) {
		const struct ktrace_event *ev = ktrace_event_at(f->evs, i);
		bool hit;

		if (sys)
			hit = !regexec(&sreg, ktrace_event_system(ev), 0, NULL, 0) &&
			      !regexec(&ereg, ktrace_event_name(ev), 0, NULL, 0);
		else
			hit = !regexec(&ereg, ktrace_event_system(ev), 0, NULL, 0) ||
			      !regexec(&ereg, ktrace_event_name(ev), 0, NULL, 0);
		if (!hit)
			continue;
		match = true;
		if (*n == *cap) {
			size_t c = *cap ? *cap * 2 : 64;
			const struct ktrace_event **v = kt_realloc_array(*list, c, sizeof(*v));

			if (!v) {
				ret = kt_error_oom(err);
				break;
			}
			*list = v;
			*cap = c;
		}
		(*list)[(*n)++] = ev;
	}
	regfree(&ereg);
	if (sys)
		regfree(&sreg);
	if (!ret && !match)
		return ktrace_error_set(err, -ENOENT, "no event found");
	return ret;
}

struct ktrace_event_filter *ktrace_event_filter_new(struct ktrace_events *evs, const char *text,
					struct ktrace_error *err)
{
	struct ktrace_event_filter *f = calloc(1, sizeof(*f));
	const struct ktrace_event **list = NULL;
	size_t n = 0, cap = 0;
	const char *colon, *s = text;
	int ret = 0;

	if (!f) {
		kt_error_oom(err);
		errno = ENOMEM;
		return NULL;
	}
	f->evs = evs;
	colon = strchr(text, ':');
	/* the event list: comma-separated parts before the first ':' (a comma after the
	 * ':' makes libtraceevent misread the text; it fails, and so do we) */
	do {
		const char *comma = strchr(s, ',');
		size_t len;
		char *part;

		if (comma && (!colon || comma < colon))
			len = (size_t)(comma - s);
		else if (colon)
			len = colon >= s ? (size_t)(colon - s) : 0;
		else
			len = strlen(s);
		if (colon && comma && comma > colon) {
			ret = ktrace_error_set(err, -EINVAL, "Illegal token ','");
			break;
		}
		part = malloc(len + 1);
		if (!part) {
			ret = kt_error_oom(err);
			break;
		}
		memcpy(part, s, len);
		part[len] = 0;
		ret = find_events(f, part, &list, &n, &cap, err);
		free(part);
		if (ret)
			break;
		s = comma && (!colon || comma < colon) ? comma + 1 : NULL;
	} while (s);

	/* libtraceevent's list is built by prepending: the last match comes first */
	for (size_t i = 0; !ret && i < n / 2; i++) {
		const struct ktrace_event *t = list[i];

		list[i] = list[n - 1 - i];
		list[n - 1 - i] = t;
	}
	for (size_t i = 0; !ret && i < n; i++) {
		struct fnode *root = NULL;

		if (colon) {
			struct parser p = { .f = f, .ev = list[i] };

			p.lx.buf = colon + 1;
			p.lx.len = strlen(colon + 1);
			ret = process_filter(&p, &root, false);
			free(p.lx.tok);
			if (!ret && !root) {
				root = node(&p, FK_BOOL);
				if (!root)
					ret = perr(&p, PE_MEM, "out of memory");
			}
			if (ret) {
				ktrace_error_set(err, ret == PE_MEM ? -ENOMEM : -EINVAL, "%s",
						 p.msg[0] ? p.msg : "Syntax error");
				ret = err ? err->code : -EINVAL;
				break;
			}
		} else {
			root = falloc(f, sizeof(*root));
			if (!root) {
				ret = kt_error_oom(err);
				break;
			}
			root->kind = FK_BOOL;
			root->bval = true;
		}
		if (add_type(f, list[i], root)) {
			ret = kt_error_oom(err);
			break;
		}
	}
	if (ret) {
		free(list);
		ktrace_event_filter_free(f);
		errno = ret < 0 ? -ret : EINVAL;
		return NULL;
	}
	f->order = list;
	f->norder = n;
	return f;
}

size_t ktrace_event_filter_event_count(const struct ktrace_event_filter *f)
{
	return f->norder;
}

const struct ktrace_event *ktrace_event_filter_event(const struct ktrace_event_filter *f, size_t i)
{
	return i < f->norder ? f->order[i] : NULL;
}

/* ---- evaluation ---- */

struct evalctx {
	struct ktrace_event_filter *f;
	const struct ktrace_record *rec;
	const struct ktrace_event *ev;
	bool err;
};

static uint64_t field_number(const struct evalctx *c, const struct ftev_field *fld)
{
	const struct ktrace_record *rec = c->rec;
	uint32_t avail = rec->avail > rec->size ? rec->avail : rec->size;
	uint64_t v;

	if (fld->offset > avail || fld->size > avail - fld->offset)
		return 0;
	v = ftev_read_number(c->f->evs, (const uint8_t *)rec->data + fld->offset, fld->size);
	return fld->flags & EVF_SIGNED ? (uint64_t)kt_sign_extend(v, fld->size) : v;
}

static uint64_t value_of(struct evalctx *c, const struct fnode *n, int depth);

static uint64_t field_value(struct evalctx *c, const struct fnode *n)
{
	if (n->special == SP_COMM)
		return 0;      /* libtraceevent compares the address of the name */
	if (n->special == SP_CPU)
		return (uint64_t)(int64_t)c->rec->cpu;
	return field_number(c, n->field);
}

static uint64_t value_of(struct evalctx *c, const struct fnode *n, int depth)
{
	uint64_t l, r;

	if (!n || depth > FILTER_MAX_DEPTH) {
		c->err = true;
		return 0;
	}
	switch (n->kind) {
	case FK_FIELD:
		return field_value(c, n);
	case FK_VALUE:
		if (n->vtype != V_NUMBER)
			c->err = true;
		return n->val;
	case FK_EXP:
		l = value_of(c, n->left, depth + 1);
		r = value_of(c, n->right, depth + 1);
		if (c->err)
			return 0;
		switch (n->sub) {
		case EX_ADD: return l + r;
		case EX_SUB: return l - r;
		case EX_MUL: return l * r;
		case EX_DIV: return r ? l / r : 0;
		case EX_MOD: return r ? l % r : 0;
		case EX_RSHIFT: return l >> (r & 63);
		case EX_LSHIFT: return l << (r & 63);
		case EX_AND: return l & r;
		case EX_OR: return l | r;
		case EX_XOR: return l ^ r;
		default:
			c->err = true;
			return 0;
		}
	default:
		c->err = true;
		return 0;
	}
}

/* The text a string test looks at (libtraceevent's get_field_str). */
static const char *field_text(struct evalctx *c, const struct fnode *n, char hex[64])
{
	struct ktrace_events *evs = c->f->evs;
	const struct ktrace_record *rec = c->rec;
	const struct ftev_field *fld = n->field;
	uint32_t avail = rec->avail > rec->size ? rec->avail : rec->size;
	const uint8_t *data = rec->data;

	if (n->special == SP_COMM)
		return ktrace_event_comm(evs, ktrace_event_record_pid(evs, rec));
	if (n->special == SP_CPU) {
		snprintf(hex, 64, "0x%llx", (unsigned long long)(int64_t)rec->cpu);
		return hex;
	}
	if (fld->flags & EVF_STRING) {
		uint32_t off = fld->offset, size = fld->size;

		if (off > avail || size > avail - off)
			return "";
		if (fld->flags & EVF_DYNAMIC) {
			uint32_t loc = (uint32_t)ftev_read_number(evs, data + off, 4);

			size = loc >> 16;
			off = loc & 0xffff;
			if (fld->flags & EVF_RELATIVE)
				off += fld->offset + fld->size;
			if (off > avail || size > avail - off)
				return "";
		}
		/* a string whose last byte is not NUL is copied: its first field-size bytes */
		if (!size || data[off + size - 1]) {
			size_t keep = fld->size;

			if (c->f->scratch_cap < keep + 1) {
				char *s = kt_realloc_array(c->f->scratch, keep + 1, 1);

				if (!s)
					return "";
				c->f->scratch = s;
				c->f->scratch_cap = keep + 1;
			}
			if (off > avail || keep > avail - off)
				keep = avail > off ? avail - off : 0;
			memcpy(c->f->scratch, data + off, keep);
			c->f->scratch[keep] = 0;
			return c->f->scratch;
		}
		return (const char *)data + off;
	}
	{
		uint64_t v = field_number(c, fld);
		const char *fn = NULL;

		if (fld->flags & (EVF_POINTER | EVF_LONG))
			fn = ktrace_event_function(evs, v, NULL);
		if (fn)
			return fn;
		snprintf(hex, 64, "0x%llx", (unsigned long long)v);
		return hex;
	}
}

static bool test_node(struct evalctx *c, const struct fnode *n, int depth)
{
	uint64_t l, r;

	if (c->err)
		return false;
	if (!n || depth > FILTER_MAX_DEPTH) {
		c->err = true;
		return false;
	}
	switch (n->kind) {
	case FK_BOOL:
		return n->bval;
	case FK_OP:
		switch (n->sub) {
		case OP_AND_:
			return test_node(c, n->left, depth + 1) && test_node(c, n->right, depth + 1);
		case OP_OR_:
			return test_node(c, n->left, depth + 1) || test_node(c, n->right, depth + 1);
		case OP_NOT_:
			return !test_node(c, n->right, depth + 1);
		default:
			c->err = true;
			return false;
		}
	case FK_NUM:
		l = value_of(c, n->left, depth + 1);
		r = value_of(c, n->right, depth + 1);
		if (c->err)
			return false;
		switch (n->sub) {
		case CMP_EQ: return l == r;
		case CMP_NE: return l != r;
		case CMP_GT: return l > r;
		case CMP_LT: return l < r;
		case CMP_GE: return l >= r;
		case CMP_LE: return l <= r;
		default:
			c->err = true;
			return false;
		}
	case FK_STR: {
		char hex[64];
		const char *v = field_text(c, n, hex);

		switch (n->sub) {
		case CMP_MATCH: return strcmp(v, n->str) == 0;
		case CMP_NOT_MATCH: return strcmp(v, n->str) != 0;
		case CMP_REGEX: return !regexec(n->reg, v, 0, NULL, 0);
		case CMP_NOT_REGEX: return regexec(n->reg, v, 0, NULL, 0) != 0;
		default:
			c->err = true;
			return false;
		}
	}
	case FK_EXP:
	case FK_VALUE:
	case FK_FIELD:
		return value_of(c, n, depth + 1) != 0;
	default:
		c->err = true;
		return false;
	}
}

enum ktrace_event_filter_result ktrace_event_filter_match(struct ktrace_event_filter *f,
					      const struct ktrace_record *rec)
{
	const struct ktrace_event *ev;
	const struct ftype *t;
	struct evalctx c;
	bool res;

	if (!f->ntypes)
		return KTRACE_EVENT_FILTER_NONE;
	ev = ktrace_event_record_event(f->evs, rec);
	if (!ev)
		return KTRACE_EVENT_FILTER_NOT_FOUND;
	t = find_type(f, ktrace_event_id(ev));
	if (!t)
		return KTRACE_EVENT_FILTER_NOT_FOUND;
	c.f = f;
	c.rec = rec;
	c.ev = ev;
	c.err = false;
	res = test_node(&c, t->root, 0);
	if (c.err)
		return KTRACE_EVENT_FILTER_MISS;     /* an evaluation error: neither match nor none */
	return res ? KTRACE_EVENT_FILTER_MATCH : KTRACE_EVENT_FILTER_MISS;
}

/* ---- back to text (libtraceevent's arg_to_str) ---- */

static char *to_str(const struct fnode *n, int depth);

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

static const char *field_name(const struct fnode *n)
{
	if (n->special == SP_COMM)
		return "COMM";
	if (n->special == SP_CPU)
		return "CPU";
	return n->field ? n->field->name : "";
}

static char *op_to_str(const struct fnode *n, int depth)
{
	char *left = NULL, *right = NULL, *str = NULL;
	int lv = -1, rv = -1;

	if (n->sub == OP_NOT_) {
		right = to_str(n->right, depth + 1);
		if (!right)
			return NULL;
		if (!strcmp(right, "TRUE"))
			rv = 1;
		else if (!strcmp(right, "FALSE"))
			rv = 0;
		if (rv >= 0)
			str = xasprintf("%s", rv ? "FALSE" : "TRUE");
		else
			str = xasprintf("!(%s)", right);
		free(right);
		return str;
	}
	left = to_str(n->left, depth + 1);
	right = to_str(n->right, depth + 1);
	if (!left || !right)
		goto out;
	if (!strcmp(left, "TRUE"))
		lv = 1;
	else if (!strcmp(left, "FALSE"))
		lv = 0;
	if (!strcmp(right, "TRUE"))
		rv = 1;
	else if (!strcmp(right, "FALSE"))
		rv = 0;
	if (lv >= 0) {
		if ((n->sub == OP_AND_ && !lv) || (n->sub == OP_OR_ && lv)) {
			str = left;
			left = NULL;
			goto out;
		}
		if (rv >= 0) {
			int v = n->sub == OP_AND_ ? (lv && rv) : (lv || rv);

			str = xasprintf("%s", v ? "TRUE" : "FALSE");
			goto out;
		}
	}
	if (rv >= 0) {
		if ((n->sub == OP_AND_ && !rv) || (n->sub == OP_OR_ && rv)) {
			str = right;
			right = NULL;
		} else {
			str = left;
			left = NULL;
		}
		goto out;
	}
	str = xasprintf("(%s) %s (%s)", left, n->sub == OP_AND_ ? "&&" : "||", right);
out:
	free(left);
	free(right);
	return str;
}

static char *to_str(const struct fnode *n, int depth)
{
	static const char *const exps[] = { "", "+", "-", "*", "/", "%", ">>", "<<", "&", "|",
					    "^" };
	static const char *const cmps[] = { "", "==", "!=", ">", "<", ">=", "<=", "==", "!=",
					    "=~", "!~" };
	char *l, *r, *s = NULL;

	if (!n || depth > FILTER_MAX_DEPTH)
		return NULL;
	switch (n->kind) {
	case FK_BOOL:
		return xasprintf("%s", n->bval ? "TRUE" : "FALSE");
	case FK_OP:
		return op_to_str(n, depth);
	case FK_NUM:
	case FK_EXP:
		l = to_str(n->left, depth + 1);
		r = to_str(n->right, depth + 1);
		if (l && r) {
			const char *op;

			if (n->kind == FK_NUM)
				op = n->sub >= CMP_EQ && n->sub <= CMP_LE ? cmps[n->sub] : NULL;
			else
				op = n->sub >= EX_ADD && n->sub <= EX_XOR ? exps[n->sub]
									  : "[ERROR IN EXPRESSION TYPE]";
			if (op)
				s = xasprintf("%s %s %s", l, op, r);
		}
		free(l);
		free(r);
		return s;
	case FK_STR:
		return xasprintf("%s %s \"%s\"", field_name(n),
				 n->sub >= CMP_MATCH && n->sub <= CMP_NOT_REGEX ? cmps[n->sub] : "",
				 n->str);
	case FK_VALUE:
		return xasprintf("%lld", (long long)n->val);
	case FK_FIELD:
		return xasprintf("%s", field_name(n));
	default:
		return NULL;
	}
}

char *ktrace_event_filter_string(const struct ktrace_event_filter *f, int event_id)
{
	const struct ftype *t = find_type(f, event_id);

	return t ? to_str(t->root, 0) : NULL;
}
