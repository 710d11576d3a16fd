// SPDX-License-Identifier: MIT
/*
 * Compilation of a parsed print fmt: the argument tree gets its numbers, opcodes,
 * cast masks and field pointers resolved once, and every conversion segment its
 * parsed specification, so that formatting a record never looks at text again.
 * Also: the tables of plugin handlers and helper functions.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event/event_int.h"

struct ftev_field *ftev_find_common_field(const struct ktrace_event *ev, const char *name)
{
	for (struct ftev_field *f = ev->common; f; f = f->next)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

struct ftev_field *ftev_find_field(const struct ktrace_event *ev, const char *name)
{
	for (struct ftev_field *f = ev->fields; f; f = f->next)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

struct ftev_field *ftev_find_any_field(const struct ktrace_event *ev, const char *name)
{
	struct ftev_field *f = ftev_find_common_field(ev, name);

	return f ? f : ftev_find_field(ev, name);
}

/* The print handlers Debian's trace-cmd has: libtraceevent1-plugin's and trace-cmd's
 * own function-graph ones (the function plugin's "function" wins over trace-cmd's). */
static const struct {
	const char *system, *name;
	enum ftev_handler handler;
} handlers[] = {
	{ "sched", "sched_switch", H_SCHED_SWITCH },
	{ "sched", "sched_wakeup", H_SCHED_WAKEUP },
	{ "sched", "sched_wakeup_new", H_SCHED_WAKEUP },
	{ "kmem", "kfree", H_KMEM_CALL_SITE },
	{ "kmem", "kmalloc", H_KMEM_CALL_SITE },
	{ "kmem", "kmalloc_node", H_KMEM_CALL_SITE },
	{ "kmem", "kmem_cache_alloc", H_KMEM_CALL_SITE },
	{ "kmem", "kmem_cache_alloc_node", H_KMEM_CALL_SITE },
	{ "kmem", "kmem_cache_free", H_KMEM_CALL_SITE },
	{ "timer", "hrtimer_expire_entry", H_HRTIMER_EXPIRE },
	{ "timer", "hrtimer_start", H_HRTIMER_START },
	{ "ftrace", "function", H_FUNCTION },
	{ "ftrace", "kernel_stack", H_KERNEL_STACK },
	{ "ftrace", "raw_data", H_RAW_DATA },
	{ "ftrace", "func_repeats", H_FUNC_REPEATS },
	{ "ftrace", "funcgraph_entry", H_FGRAPH_ENTRY },
	{ "ftrace", "funcgraph_exit", H_FGRAPH_EXIT },
	{ "syscalls", "sys_enter_futex", H_FUTEX },
	{ "tlb", "tlb_flush", H_TLB_FLUSH },
	{ "mac80211", "drv_bss_info_changed", H_MAC80211_BSS },
	{ "kvm", "kvm_exit", H_KVM_EXIT },
	{ "kvm", "kvm_entry", H_KVM_ENTRY },
	{ "kvm", "kvm_emulate_insn", H_KVM_EMULATE_INSN },
	{ "kvm", "kvm_nested_vmexit", H_KVM_NESTED_VMEXIT },
	{ "kvm", "kvm_nested_vmexit_inject", H_KVM_NESTED_VMEXIT_INJECT },
	{ "kvmmmu", "kvm_mmu_get_page", H_KVM_MMU_GET_PAGE },
	{ "kvmmmu", "kvm_mmu_sync_page", H_KVM_MMU_ROLE },
	{ "kvmmmu", "kvm_mmu_unsync_page", H_KVM_MMU_ROLE },
	{ "kvmmmu", "kvm_mmu_zap_page", H_KVM_MMU_ROLE },
	{ "kvmmmu", "kvm_mmu_prepare_zap_page", H_KVM_MMU_ROLE },
};

enum ftev_handler ftev_handler_for(const char *system, const char *name)
{
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		if (!strcmp(handlers[i].name, name) && !strcmp(handlers[i].system, system))
			return handlers[i].handler;
	return H_NONE;
}

static const struct {
	const char *name;
	enum ftev_func func;
	int nargs;
} funcs[] = {
	{ "jbd2_dev_to_name", FN_JBD2_DEV_TO_NAME, 1 },
	{ "jiffies_to_msecs", FN_JIFFIES_TO_MSECS, 1 },
	{ "__le16_to_cpup", FN_LE16_TO_CPUP, 1 },
	{ "is_writable_pte", FN_IS_WRITABLE_PTE, 1 },
	{ "scsi_trace_parse_cdb", FN_SCSI_PARSE_CDB, 3 },
	{ "xen_hypercall_name", FN_XEN_HYPERCALL_NAME, 1 },
};

bool ftev_func_lookup(const char *name, enum ftev_func *func, int *nargs)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strcmp(funcs[i].name, name)) {
			*func = funcs[i].func;
			*nargs = funcs[i].nargs;
			return true;
		}
	return false;
}

/* libtraceevent's eval_type_str: casts only ever mask (its "signed" path is dead). */
static enum ftev_cast cast_of(const char *type, bool pointer)
{
	size_t len = strlen(type);

	if (len < 2)
		return CAST_NONE;
	if (pointer) {
		char buf[256];

		if (type[len - 1] != '*' || len - 2 >= sizeof(buf))
			return CAST_NONE;
		memcpy(buf, type, len - 2);
		buf[len - 2] = 0;
		return cast_of(buf, false);
	}
	if (type[len - 1] == '*')
		return CAST_NONE;
	if (!strncmp(type, "struct", 6))
		return CAST_NONE;
	if (!strcmp(type, "u8") || !strcmp(type, "s8"))
		return CAST_U8;
	if (!strcmp(type, "u16") || !strcmp(type, "s16"))
		return CAST_U16;
	if (!strcmp(type, "u32") || !strcmp(type, "s32"))
		return CAST_U32;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return CAST_U8;
	if (!strcmp(type, "short"))
		return CAST_U16;
	if (!strcmp(type, "int"))
		return CAST_U32;
	return CAST_NONE;
}


uint64_t ftev_cast_value(uint64_t val, const char *type, bool pointer)
{
	return ftev_apply_cast(val, cast_of(type, pointer));
}

/* libtraceevent's eval_flag: the value of a __print_flags/__print_symbolic entry. */
static int64_t eval_flag(const char *flag)
{
	static const struct {
		const char *name;
		int64_t value;
	} known[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 }, { "NET_TX_SOFTIRQ", 2 },
		{ "NET_RX_SOFTIRQ", 3 }, { "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 }, { "HRTIMER_SOFTIRQ", 8 },
		{ "RCU_SOFTIRQ", 9 }, { "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};

	if (flag[0] >= '0' && flag[0] <= '9')
		return (int64_t)strtoull(flag, NULL, 0);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].name, flag))
			return known[i].value;
	return -1;
}

static enum ftev_op op_code(const char *op)
{
	if (!op || !op[0])
		return OP_BAD;
	switch (op[0]) {
	case '[':
		return OP_ARRAY;
	case '?':
		return OP_COND;
	case '!':
		return !op[1] ? OP_NOT : op[1] == '=' ? OP_NE : OP_BAD;
	case '~':
		return OP_TILDE;
	case '|':
		return op[1] ? OP_LOR : OP_OR;
	case '&':
		return op[1] ? OP_LAND : OP_AND;
	case '<':
		return !op[1] ? OP_LT : op[1] == '<' ? OP_SHL : op[1] == '=' ? OP_LE : OP_BAD;
	case '>':
		return !op[1] ? OP_GT : op[1] == '>' ? OP_SHR : op[1] == '=' ? OP_GE : OP_BAD;
	case '=':
		return op[1] == '=' ? OP_EQ : OP_BAD;
	case '-':
		return OP_SUB;
	case '+':
		return OP_ADD;
	case '/':
		return OP_DIV;
	case '%':
		return OP_MOD;
	case '*':
		return OP_MUL;
	default:
		return OP_BAD;    /* '^' and the rest evaluate to 0 */
	}
}

static void compile_flags(struct ftev_flag_sym *list)
{
	size_t i = 0, last_neg = SIZE_MAX;

	for (struct ftev_flag_sym *f = list; f; f = f->next, i++) {
		f->fval = eval_flag(f->value);
		if (f->fval < 0)
			last_neg = i;
	}
	i = 0;
	for (struct ftev_flag_sym *f = list; f; f = f->next, i++)
		f->neg_after = last_neg != SIZE_MAX && i <= last_neg;
}

static void compile_one(struct ktrace_event *ev, struct ftev_arg *arg, int depth);
static void compile_kind(struct ktrace_event *ev, struct ftev_arg *arg, int depth);

static void compile_list(struct ktrace_event *ev, struct ftev_arg *arg, int depth)
{
	for (int n = 0; arg && n < 100000; arg = arg->next, n++)
		compile_one(ev, arg, depth);
}

static uint64_t cast_mask(enum ftev_cast c)
{
	return ftev_apply_cast(~(uint64_t)0, c);
}

/* FIELD[N] with a constant N, as ftev_eval reads it: the element at the 32-bit offset
 * field + N * element size, through the pointer casts around the field. */
static void compile_array_value(struct ftev_arg *arg)
{
	const struct ftev_arg *larg = arg->op.left, *right = arg->op.right, *typearg = NULL;
	const struct ftev_field *f;
	int n = 0;

	if (arg->op.code != OP_ARRAY || !right || right->vk != VK_CONST)
		return;
	for (; larg && larg->type == PA_TYPE && n < 1000; n++) {
		if (!typearg)
			typearg = larg;
		larg = larg->typecast.item;
	}
	if (!larg || larg->type != PA_FIELD || !larg->field.field)
		return;
	f = larg->field.field;
	switch (f->elementsize) {
	case 1: case 2: case 4: case 8:
		break;
	default:
		return;
	}
	arg->vk = VK_FIELD;
	arg->voff = (uint32_t)(f->offset + (uint32_t)right->vmask * f->elementsize);
	arg->vsize = (uint8_t)f->elementsize;
	arg->vmask = typearg ? cast_mask(typearg->typecast.ptr_cast) : ~(uint64_t)0;
}

/* An operator whose sides are constants is a constant; a field OP a constant is the
 * field's shortcut with the operator after it. */
static void compile_op_value(struct ftev_arg *arg)
{
	const struct ftev_arg *l = arg->op.left, *r = arg->op.right;
	bool lconst = !l || l->vk == VK_CONST, rconst = !r || r->vk == VK_CONST;

	if (lconst && rconst) {
		arg->vk = VK_CONST;
		arg->vmask = ftev_apply_op(arg->op.code, l ? l->vmask : 0, r ? r->vmask : 0);
	} else if (l && l->vk == VK_FIELD && l->vop == OP_BAD && rconst && arg->op.code != OP_BAD) {
		arg->vk = VK_FIELD;
		arg->voff = l->voff;
		arg->vsize = l->vsize;
		arg->vmask = l->vmask;
		arg->vop = (uint8_t)arg->op.code;
		arg->varg = r ? r->vmask : 0;
	}
}

/* The quick way to an argument's value, where there is one (see enum ftev_vk). */
static void compile_value(struct ftev_arg *arg)
{
	const struct ftev_field *f;
	const struct ftev_arg *item;

	switch (arg->type) {
	case PA_ATOM:
		/* an atom that reads as 0 and is not a number is a kallsyms symbol, looked
		 * up on first use */
		if (!arg->atom.num_zero || (arg->atom.atom[0] >= '0' && arg->atom.atom[0] <= '9')) {
			arg->vk = VK_CONST;
			arg->vmask = arg->atom.num;
		}
		break;
	case PA_FIELD:
		f = arg->field.field;
		if (f && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
			arg->vk = VK_FIELD;
			arg->voff = f->offset;
			arg->vsize = (uint8_t)f->size;
			arg->vmask = ~(uint64_t)0;
		}
		break;
	case PA_NULL:
		arg->vk = VK_CONST;     /* evaluates to 0 */
		arg->vmask = 0;
		break;
	case PA_OP:
		if (arg->op.code == OP_ARRAY)
			compile_array_value(arg);
		else if (arg->op.code != OP_COND)
			compile_op_value(arg);
		break;
	case PA_TYPE:
		item = arg->typecast.item;
		if (item && item->vk == VK_FIELD && item->vop == OP_BAD) {
			arg->vk = VK_FIELD;
			arg->voff = item->voff;
			arg->vsize = item->vsize;
			arg->vmask = item->vmask & cast_mask(arg->typecast.cast);
		} else if (item && item->vk == VK_CONST) {
			arg->vk = VK_CONST;
			arg->vmask = ftev_apply_cast(item->vmask, arg->typecast.cast);
		}
		break;
	default:
		break;
	}
}

static void compile_one(struct ktrace_event *ev, struct ftev_arg *arg, int depth)
{
	if (!arg || depth > 2000)
		return;
	compile_kind(ev, arg, depth);
	compile_value(arg);
}

static void compile_kind(struct ktrace_event *ev, struct ftev_arg *arg, int depth)
{
	switch (arg->type) {
	case PA_ATOM:
		arg->atom.num = strtoull(arg->atom.atom, NULL, 0);
		arg->atom.num_zero = arg->atom.num == 0;
		break;
	case PA_FIELD:
		if (!arg->field.field && arg->field.name)
			arg->field.field = ftev_find_any_field(ev, arg->field.name);
		break;
	case PA_FLAGS:
		compile_one(ev, arg->flags.field, depth + 1);
		compile_flags(arg->flags.flags);
		break;
	case PA_SYMBOL:
		compile_one(ev, arg->symbol.field, depth + 1);
		compile_flags(arg->symbol.symbols);
		break;
	case PA_HEX:
	case PA_HEX_STR:
		compile_one(ev, arg->hex.field, depth + 1);
		compile_one(ev, arg->hex.size, depth + 1);
		break;
	case PA_INT_ARRAY:
		compile_one(ev, arg->int_array.field, depth + 1);
		compile_one(ev, arg->int_array.count, depth + 1);
		compile_one(ev, arg->int_array.el_size, depth + 1);
		break;
	case PA_TYPE:
		arg->typecast.cast = cast_of(arg->typecast.type, false);
		arg->typecast.ptr_cast = cast_of(arg->typecast.type, true);
		compile_one(ev, arg->typecast.item, depth + 1);
		break;
	case PA_STRING:
		if (!arg->string.field && arg->string.string)
			arg->string.field = ftev_find_any_field(ev, arg->string.string);
		break;
	case PA_BITMASK:
	case PA_CPUMASK:
		if (!arg->bitmask.field && arg->bitmask.bitmask)
			arg->bitmask.field = ftev_find_any_field(ev, arg->bitmask.bitmask);
		break;
	case PA_OP:
		arg->op.code = op_code(arg->op.op);
		compile_one(ev, arg->op.left, depth + 1);
		compile_one(ev, arg->op.right, depth + 1);
		break;
	case PA_FUNC:
		compile_list(ev, arg->func.args, depth + 1);
		break;
	default:
		break;
	}
}

void ftev_compile_segments(struct ftev_seg *segs)
{
	for (struct ftev_seg *s = segs; s; s = s->next) {
		if (s->type == SEG_STRING) {
			s->ends_0x = s->flen > 1 && s->format[s->flen - 2] == '0' &&
				     s->format[s->flen - 1] == 'x';
			continue;
		}
		s->spec_ok = ftev_spec_parse(s->format, &s->spec);
	}
}

static bool is_text_atom(const struct ftev_arg *arg)
{
	return arg && arg->type == PA_ATOM && arg->atom.atom;
}

/* The shortcut a conversion segment can take (STEP_SEG: none). */
static void step_kind(struct ftev_step *st, const struct ftev_seg *seg)
{
	const struct ftev_arg *arg = seg->arg;
	const char *p;

	st->kind = STEP_SEG;
	if (!arg || seg->len_arg)
		return;
	switch (seg->type) {
	case SEG_DIGIT: {
		const struct ftev_spec *sp = &seg->spec;

		if (!seg->spec_ok || seg->ls < -2 || seg->ls > 2)
			return;
		switch (sp->conv) {
		case 'd': case 'i': case 'u': case 'x': case 'X':
			break;
		default:
			return;
		}
		if (sp->plain) {
			st->kind = STEP_INT;
		} else if (sp->zero && sp->width > 0 && sp->width <= 24 && sp->prec < 0 &&
			   !sp->minus && !sp->hash && !sp->plus && !sp->space &&
			   !sp->width_star && !sp->prec_star) {
			st->kind = STEP_ZPAD;
			st->width = (uint8_t)sp->width;
		} else {
			return;
		}
		st->sgn = seg->spec.conv == 'd' || seg->spec.conv == 'i';
		st->conv = seg->spec.conv == 'i' ? 'd' : seg->spec.conv;
		st->shift = seg->ls == -2 ? 56 : seg->ls == -1 ? 48 : seg->ls == 0 ? 32 : 0;
		return;
	}
	case SEG_POINTER:
		if (arg->type == PA_BSTRING)
			return;
		p = strchr(seg->format, 'p');
		if (!p)
			return;
		switch (p[1]) {
		case 'F': case 'f': case 'S': case 's':
			st->kind = STEP_FUNC;
			st->conv = p[1];
			return;
		case 'M': case 'm': case 'I': case 'i': case 'U': case 'h':
			return;
		default:
			st->kind = STEP_PTR;
			return;
		}
	case SEG_STR:
		if (!seg->spec_ok || !seg->spec.plain)
			return;
		if (arg->type == PA_STRING)
			st->kind = STEP_DYNSTR;
		else if (arg->type == PA_OP && arg->op.code == OP_COND && arg->op.right &&
			 arg->op.right->type == PA_OP && is_text_atom(arg->op.right->op.left) &&
			 is_text_atom(arg->op.right->op.right))
			st->kind = STEP_CONDSTR;
		return;
	default:
		return;
	}
}

static void compile_steps(struct ktrace_event *ev)
{
	size_t n = 1;
	struct ftev_step *steps, *st;

	for (const struct ftev_seg *seg = ev->segs; seg; seg = seg->next)
		n++;
	steps = kt_arena_zalloc(&ev->evs->arena, n * sizeof(*steps), 16);
	if (!steps)
		return;     /* the segments print one by one */
	st = steps;
	for (const struct ftev_seg *seg = ev->segs; seg; seg = seg->next) {
		if (seg->type == SEG_STRING) {
			if (st->lit) {
				st->kind = STEP_LIT;
				st++;
			}
			st->lit = seg->format;
			st->lit_len = (uint32_t)seg->flen;
			continue;
		}
		st->seg = seg;
		step_kind(st, seg);
		st++;
	}
	st->kind = STEP_LAST;
	ev->steps = steps;
}

void ftev_compile_event(struct ktrace_event *ev)
{
	compile_list(ev, ev->args, 0);
	ftev_compile_segments(ev->segs);
	if (!(ev->flags & EV_ISBPRINT))
		compile_steps(ev);
}
