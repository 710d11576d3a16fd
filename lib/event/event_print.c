// SPDX-License-Identifier: MIT
/*
 * Formatting a record: evaluation of the compiled print fmt, the %p extensions,
 * bprint's binary arguments, the raw (-R) field list and the latency column.
 *
 * The results are libtraceevent's. Where it would read outside the record (a
 * corrupt offset, a string without its NUL), we stop at the record's end instead.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "event/event_int.h"
#include "event/event_share.h"

#define EV_EVAL_DEPTH 1000

static inline bool in_rec(const struct ftev_ctx *c, uint64_t off, uint64_t len)
{
	return off <= c->size && len <= c->size - off;
}

/* Where libtraceevent does not check a read against the record, it reads whatever
 * follows in the sub-buffer: so do we, up to avail. */
static inline bool in_avail(const struct ftev_ctx *c, uint64_t off, uint64_t len)
{
	return off <= c->avail && len <= c->avail - off;
}

static inline uint8_t byte_at(const struct ftev_ctx *c, uint64_t off)
{
	return off < c->avail ? c->data[off] : 0;
}

/* A number of 1/2/4/8 bytes at off, 0 when it does not lie inside the record. */
static uint64_t read_at(const struct ftev_ctx *c, uint64_t off, unsigned size)
{
	if (!in_avail(c, off, size))
		return 0;
	return ftev_read_number(c->evs, c->data + off, size);
}

/* Host-order (little-endian) read, as libtraceevent dereferences some pointers. */
static uint64_t read_host(const struct ftev_ctx *c, uint64_t off, unsigned size)
{
	uint64_t v = 0;

	if (!in_avail(c, off, size))
		return 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)c->data[off + i] << (8 * i);
	return v;
}

bool ftev_field_value(const struct ftev_ctx *c, const struct ftev_field *f, uint64_t *val)
{
	switch (f->size) {
	case 1: case 2: case 4: case 8:
		*val = read_at(c, f->offset, f->size);
		return true;
	default:
		return false;
	}
}

/* libtraceevent's dynamic_offset_field (32-bit arithmetic included). */
static void dyn_offset(const struct ftev_ctx *c, const struct ftev_field *f, uint32_t *offset,
		       uint32_t *len)
{
	uint32_t o, l, size = c->size;
	uint64_t val;

	if ((uint64_t)f->offset + f->size > size) {
		*offset = 0;
		*len = 0;
		return;
	}
	val = ftev_read_number(c->evs, c->data + f->offset, f->size);
	o = (uint32_t)(val & 0xffff);
	if (f->size == 2)
		l = size - o;      /* the rest of the record (wraps past it, as libtraceevent's) */
	else
		l = (uint32_t)((val >> 16) & 0xffff);
	*offset = o > size ? 0 : o;
	*len = o + l > size ? 0 : l;
	if (f->flags & EVF_RELATIVE)
		*offset += f->offset + f->size;
}

/* Length of the C string at off, bounded by the record. */
static size_t str_len_at(const struct ftev_ctx *c, uint64_t off)
{
	const uint8_t *nul;

	if (off >= c->avail)
		return 0;
	nul = memchr(c->data + off, 0, c->avail - off);
	return nul ? (size_t)(nul - (c->data + off)) : c->avail - off;
}


static uint64_t run_func(struct ftev_ctx *c, struct ktrace_out *o, struct ftev_arg *arg);

__attribute__((noinline)) static uint64_t field_op(const struct ftev_arg *arg, uint64_t v)
{
	return ftev_apply_op(arg->vop, v, arg->varg);
}

/* ftev_eval, with the compiled shortcuts (a field through its casts and an operator
 * with a constant, a number) inline. */
__attribute__((always_inline)) static inline uint64_t value_of(struct ftev_ctx *c,
							      struct ftev_arg *arg)
{
	if (arg && arg->vk == VK_FIELD) {
		uint64_t v = 0;

		if (in_rec(c, arg->voff, arg->vsize))
			v = ftev_read_number(c->evs, c->data + arg->voff, arg->vsize) & arg->vmask;
		return arg->vop ? field_op(arg, v) : v;
	}
	if (arg && arg->vk == VK_CONST)
		return arg->vmask;
	return ftev_eval(c, arg);
}

static uint64_t atom_value(struct ftev_ctx *c, struct ftev_arg *arg)
{
	if (!arg->atom.num_zero || !arg->atom.atom)
		return arg->atom.num;
	/* libtraceevent's test_for_symbol, once: the atom becomes the number */
	if (!arg->atom.sym_done) {
		char buf[24];
		uint64_t val = 0;
		char *s;

		arg->atom.sym_done = true;
		if (!(arg->atom.atom[0] >= '0' && arg->atom.atom[0] <= '9')) {
			val = ftev_symbol_value(c->evs, arg->atom.atom);
			snprintf(buf, sizeof(buf), "%lld", (long long)val);
			s = kt_arena_strdup(&c->evs->arena, buf, strlen(buf));
			if (s)
				arg->atom.atom = s;
			arg->atom.num = val;
		}
	}
	return arg->atom.num;
}

uint64_t ftev_eval(struct ftev_ctx *c, struct ftev_arg *arg)
{
	uint64_t val = 0, left, right;

	if (!arg || c->depth > EV_EVAL_DEPTH)
		return 0;
	c->depth++;
	switch (arg->type) {
	case PA_ATOM:
		val = atom_value(c, arg);
		break;
	case PA_FIELD: {
		const struct ftev_field *f = arg->field.field;

		if (f && in_rec(c, f->offset, f->size))
			val = ftev_read_number(c->evs, c->data + f->offset, f->size);
		break;
	}
	case PA_TYPE:
		val = ftev_apply_cast(value_of(c, arg->typecast.item), arg->typecast.cast);
		break;
	case PA_FUNC: {
		struct ktrace_out discard = KT_OUT_MEM(NULL, 0);

		val = run_func(c, &discard, arg);
		break;
	}
	case PA_OP:
		switch (arg->op.code) {
		case OP_ARRAY: {
			struct ftev_arg *larg = arg->op.left, *typearg = NULL;
			uint64_t offset, fsize = (uint64_t)c->evs->long_size;

			right = value_of(c, arg->op.right);
			while (larg && larg->type == PA_TYPE) {
				if (!typearg)
					typearg = larg;
				larg = larg->typecast.item;
			}
			if (larg && larg->type == PA_DYNAMIC_ARRAY && larg->dynarray.field) {
				uint32_t o32, l32;

				dyn_offset(c, larg->dynarray.field, &o32, &l32);
				offset = (uint32_t)(o32 + (uint32_t)right);
				if (larg->dynarray.field->elementsize)
					fsize = larg->dynarray.field->elementsize;
			} else if (larg && larg->type == PA_FIELD) {
				const struct ftev_field *f = larg->field.field;

				if (!f)
					break;
				fsize = f->elementsize;
				offset = (uint32_t)(f->offset + (uint32_t)right * f->elementsize);
			} else {
				/* libtraceevent's "all bets off": a binary op it cannot do */
				ftev_eval(c, arg->op.left);
				break;
			}
			if (!in_rec(c, offset, fsize))
				break;
			val = ftev_read_number(c->evs, c->data + offset, (unsigned)fsize);
			if (typearg)
				val = ftev_apply_cast(val, typearg->typecast.ptr_cast);
			break;
		}
		case OP_COND: {
			struct ftev_arg *r = arg->op.right;

			left = value_of(c, arg->op.left);
			if (r)
				val = value_of(c, left ? r->op.left : r->op.right);
			break;
		}
		default:
			left = value_of(c, arg->op.left);
			right = value_of(c, arg->op.right);
			val = ftev_apply_op(arg->op.code, left, right);
		}
		break;
	case PA_DYNAMIC_ARRAY_LEN: {
		uint32_t o32, l32;

		if (arg->dynarray.field) {
			dyn_offset(c, arg->dynarray.field, &o32, &l32);
			val = l32;
		}
		break;
	}
	case PA_DYNAMIC_ARRAY: {
		/* libtraceevent passes the address of the data */
		uint32_t o32 = 0, l32;

		if (arg->dynarray.field)
			dyn_offset(c, arg->dynarray.field, &o32, &l32);
		val = (uint64_t)(uintptr_t)(c->data + (o32 <= c->size ? o32 : 0));
		break;
	}
	default:
		/* NULL, FLAGS, SYMBOL, arrays, strings, masks: 0 */
		break;
	}
	c->depth--;
	return val;
}

/* ---- helper functions of the plugins ---- */

/* A host pointer libtraceevent would dereference: only inside this record. */
static bool rec_ptr(const struct ftev_ctx *c, uint64_t p, uint64_t len, uint64_t *off)
{
	uintptr_t base = (uintptr_t)c->data;

	if (p < base || p - base > c->avail || len > c->avail - (p - base))
		return false;
	*off = p - base;
	return true;
}

static const char *const xen_hypercalls[] = {
	[0] = "(set_trap_table)", [1] = "(mmu_update)", [2] = "(set_gdt)",
	[3] = "(stack_switch)", [4] = "(set_callbacks)", [5] = "(fpu_taskswitch)",
	[6] = "(sched_op_compat)", [7] = "(dom0_op)", [8] = "(set_debugreg)",
	[9] = "(get_debugreg)", [10] = "(update_descriptor)", [12] = "(memory_op)",
	[13] = "(multicall)", [14] = "(update_va_mapping)", [15] = "(set_timer_op)",
	[16] = "(event_channel_op_compat)", [17] = "(xen_version)", [18] = "(console_io)",
	[19] = "(physdev_op_compat)", [20] = "(grant_table_op)", [21] = "(vm_assist)",
	[22] = "(update_va_mapping_otherdomain)", [23] = "(iret)", [24] = "(vcpu_op)",
	[25] = "(set_segment_base)", [26] = "(mmuext_op)", [27] = "(acm_op)",
	[28] = "(nmi_op)", [29] = "(sched_op)", [30] = "(callback_op)",
	[31] = "(xenoprof_op)", [32] = "(event_channel_op)", [33] = "(physdev_op)",
	[34] = "(hvm_op)", [48] = "(arch_0)", [49] = "(arch_1)", [50] = "(arch_2)",
	[51] = "(arch_3)", [52] = "(arch_4)", [53] = "(arch_5)", [54] = "(arch_6)",
	[55] = "(arch_7)",
};


static uint64_t run_func(struct ftev_ctx *c, struct ktrace_out *o, struct ftev_arg *arg)
{
	uint64_t args[3] = { 0, 0, 0 };
	struct ftev_arg *farg = arg->func.args;

	for (int i = 0; i < arg->func.nargs && i < 3 && farg; i++, farg = farg->next)
		args[i] = value_of(c, farg);
	switch (arg->func.func) {
	case FN_JBD2_DEV_TO_NAME: {
		unsigned dev = (unsigned)args[0];

		kt_out_u64(o, dev >> 20, 0);
		kt_out_putc(o, ':');
		kt_out_u64(o, dev & ((1u << 20) - 1), 0);
		return 0;
	}
	case FN_JIFFIES_TO_MSECS:
		kt_out_i64(o, (int64_t)args[0], 0);
		return args[0];
	case FN_LE16_TO_CPUP: {
		uint64_t off;

		if (!args[0] || !rec_ptr(c, args[0], 2, &off))
			return 0;
		return (uint64_t)(c->data[off] | c->data[off + 1] << 8);
	}
	case FN_IS_WRITABLE_PTE:
		return args[0] & 2;
	case FN_SCSI_PARSE_CDB: {
		uint64_t off;

		if (rec_ptr(c, args[1], 0, &off))
			ftev_scsi_parse_cdb(o, c->data + off, c->avail - off, (int)args[2]);
		return 0;
	}
	case FN_XEN_HYPERCALL_NAME: {
		unsigned op = (unsigned)args[0];

		if (op < sizeof(xen_hypercalls) / sizeof(xen_hypercalls[0]) && xen_hypercalls[op])
			kt_out_puts(o, xen_hypercalls[op]);
		return 0;
	}
	default:
		return 0;
	}
}

/* ---- strings (%s) ---- */

/* printf(format, [len_arg,] str) of one segment's specification. */
static void put_str(struct ktrace_out *o, const struct ftev_seg *seg, int len_arg, const char *s,
		    size_t n)
{
	int width, prec;

	if (!seg || !seg->spec_ok) {
		kt_out_write(o, s, n);
		return;
	}
	width = seg->spec.width;
	prec = seg->spec.prec;
	if (seg->spec.width_star) {
		if (len_arg < 0) {
			/* printf: a negative '*' width is the '-' flag */
			struct ftev_spec left = seg->spec;

			left.minus = true;
			ftev_out_str(o, &left, len_arg == INT_MIN ? 0 : -len_arg, prec, s, n);
			return;
		}
		width = len_arg;
	} else if (seg->spec.prec_star) {
		prec = len_arg < 0 ? -1 : len_arg;
	}
	ftev_out_str(o, &seg->spec, width, prec, s, n);
}

static void put_cstr(struct ktrace_out *o, const struct ftev_seg *seg, int len_arg, const char *s)
{
	put_str(o, seg, len_arg, s, strlen(s));
}

static inline void put_flag(struct ktrace_out *o, const struct ftev_seg *seg, int len_arg,
			    const struct ftev_flag_sym *fl)
{
	put_str(o, seg, len_arg, fl->str, fl->str_len);
}

/* The bytes of a bitmask or cpumask: libtraceevent holds the length in an int (a
 * wrapped one prints nothing) and reads on past the record; we stop where the bytes
 * readable after the record end (all further bytes would read as zero). */
static bool mask_bytes(const struct ftev_ctx *c, uint64_t off, uint32_t *size)
{
	if ((int32_t)*size < 0)
		return false;
	if (off >= c->avail)
		*size = 0;
	else if (*size > c->avail - off)
		*size = (uint32_t)(c->avail - off);
	return true;
}

__attribute__((noinline)) static void print_bitmask(struct ftev_ctx *c, struct ktrace_out *o, const struct ftev_seg *seg,
			  int len_arg, uint64_t off, uint32_t size)
{
	char small[256], *str = small;
	uint64_t nbits = (uint64_t)size * 8;
	uint64_t str_size = (nbits + 3) / 4;
	uint32_t len = 0;

	if (nbits)
		str_size += (nbits - 1) / 32;
	if (str_size + 1 > sizeof(small)) {
		str = malloc(str_size + 1);
		if (!str)
			return;
	}
	str[str_size] = 0;
	for (int64_t i = (int64_t)str_size - 2; i >= 0; i -= 2) {
		uint32_t index = c->evs->big_endian ? size - (len + 1) : len;
		uint8_t b = byte_at(c, off + index);

		memcpy(str + i, kt_hex_pairs[0] + 2 * b, 2);
		len++;
		if (!(len & 3) && i > 0) {
			i--;
			str[i] = ',';
		}
	}
	put_cstr(o, seg, len_arg, str);
	if (str != small)
		free(str);
}

/* The cpus of a cpumask as "0-3,8" (libtraceevent's print_cpumask_to_seq). */
static void cpumask_text(struct ftev_ctx *c, struct ktrace_out *t, uint64_t off, uint32_t size)
{
	int64_t firstone = -1, firstzero = -1;
	uint64_t nbits = (uint64_t)size * 8;
	bool first = true;

	for (uint32_t i = 0; i < size; i++) {
		uint32_t index = c->evs->big_endian ? size - (i + 1) : i;
		unsigned byte = byte_at(c, off + index);

		for (;;) {
			if (firstone < 0 && byte) {
				int b = __builtin_ctz(byte);

				byte |= (1u << b) - 1;
				firstone = (int64_t)b + (int64_t)i * 8;
			}
			if (firstone < 0)
				break;
			if ((~byte) & 0xff) {
				int z = __builtin_ctz(~byte & 0xff);

				byte &= ~((1u << z) - 1);
				firstzero = (int64_t)z + (int64_t)i * 8;
			} else if (i == size - 1) {
				firstzero = (int64_t)nbits;
				byte = 0;
			} else {
				break;
			}
			if (!first)
				kt_out_putc(t, ',');
			first = false;
			kt_out_u64(t, (uint64_t)firstone, 0);
			if (firstzero > firstone + 1) {
				kt_out_putc(t, '-');
				kt_out_u64(t, (uint64_t)(firstzero - 1), 0);
			}
			firstzero = firstone = -1;
			if (!byte)
				break;
		}
	}
}

__attribute__((noinline)) static void print_cpumask(struct ftev_ctx *c, struct ktrace_out *o, const struct ftev_seg *seg,
			  int len_arg, uint64_t off, uint32_t size)
{
	char small[512];
	struct ktrace_out t = KT_OUT_MEM(small, sizeof(small));

	cpumask_text(c, &t, off, size);
	if (t.len <= t.cap) {
		put_str(o, seg, len_arg, small, t.len);
	} else {
		size_t need = t.len;
		char *big = malloc(need);

		if (!big)
			return;
		t = KT_OUT_MEM(big, need);
		cpumask_text(c, &t, off, size);
		put_str(o, seg, len_arg, big, need);
		free(big);
	}
}

/* __print_flags: the names of the flags set in val, then what is left in hex. */
static void print_flags(struct ktrace_out *o, const struct ftev_seg *seg, int len_arg,
			const struct ftev_arg *arg, int64_t val, bool print)
{
	for (struct ftev_flag_sym *fl = arg->flags.flags; fl; fl = fl->next) {
		if (!val && !fl->neg_after)
			break;      /* nothing more can print */
		if (!val && fl->fval < 0) {
			put_flag(o, seg, len_arg, fl);
			break;
		}
		if (fl->fval > 0 && (val & fl->fval) == fl->fval) {
			if (print && arg->flags.delim)
				kt_out_puts(o, arg->flags.delim);
			put_flag(o, seg, len_arg, fl);
			print = true;
			val &= ~fl->fval;
		}
	}
	if (val) {
		if (print && arg->flags.delim)
			kt_out_puts(o, arg->flags.delim);
		kt_out_puts(o, "0x");
		kt_out_hex(o, (uint64_t)val, 0);
	}
}

static void print_str_arg(struct ftev_ctx *c, struct ktrace_out *o, const struct ftev_seg *seg,
			  int len_arg, struct ftev_arg *arg, int depth)
{
	if (!arg || depth > EV_EVAL_DEPTH)
		return;
	switch (arg->type) {
	case PA_ATOM:
		if (arg->atom.atom) {
			put_cstr(o, seg, len_arg, arg->atom.atom);
		} else {
			/* a bprint number: libtraceevent holds it as "%lld" text */
			char buf[24];

			snprintf(buf, sizeof(buf), "%lld", (long long)arg->atom.num);
			put_cstr(o, seg, len_arg, buf);
		}
		return;
	case PA_FIELD: {
		const struct ftev_field *f = arg->field.field;
		uint64_t len;

		if (!f)
			return;
		/* a long that is not an array: a pointer, maybe to a printk string */
		if (!(f->flags & EVF_ARRAY) && f->size == (uint32_t)c->evs->long_size) {
			uint64_t addr = read_host(c, f->offset, (unsigned)c->evs->long_size);
			const struct ftev_printk *pk = ftev_find_printk(c->evs, addr);

			if (pk)
				kt_out_puts(o, pk->fmt);
			else
				kt_out_hex(o, addr, 0);
			return;
		}
		/* zero-sized fields mean the rest of the record */
		len = f->size ? f->size : (uint32_t)(c->size - f->offset);
		if (f->offset >= c->avail) {
			put_str(o, seg, len_arg, "", 0);
			return;
		}
		if (len > c->avail - f->offset)
			len = c->avail - f->offset;
		{
			const uint8_t *p = c->data + f->offset;
			const uint8_t *nul = memchr(p, 0, len);

			put_str(o, seg, len_arg, (const char *)p, nul ? (size_t)(nul - p) : len);
		}
		return;
	}
	case PA_FLAGS: {
		int64_t val = (int64_t)value_of(c, arg->flags.field);
		struct ftev_flags_cache *fc = arg->flags.cache;
		size_t start = o->len;
		bool print = false;
		int slot = -1;

		/* a plain %s of recent values: the text they gave (gfp flags repeat) */
		if (!seg || !seg->spec_ok || seg->spec.plain) {
			if (!fc) {
				fc = kt_arena_zalloc(&c->evs->arena, sizeof(*fc), 16);
				arg->flags.cache = fc;
			}
			for (int k = 0; fc && k < FTEV_FLAGS_CACHE; k++) {
				if (fc->len[k] && fc->val[k] == val) {
					kt_out_write(o, fc->text[k], fc->len[k] - 1u);
					return;
				}
			}
			if (fc)
				slot = fc->next++ % FTEV_FLAGS_CACHE;
		}
		unsigned noted = o->nums ? o->nums->n : 0;

		print_flags(o, seg, len_arg, arg, val, print);
		/* (not a text whose numbers were noted: its digits are '0's) */
		if (slot >= 0 && o->len <= o->cap && o->len - start < FTEV_FLAGS_TEXT &&
		    (!o->nums || o->nums->n == noted)) {
			fc->val[slot] = val;
			fc->len[slot] = (uint8_t)(o->len - start + 1);
			memcpy(fc->text[slot], o->buf + start, o->len - start);
		}
		return;
	}
	case PA_SYMBOL: {
		int64_t val = (int64_t)value_of(c, arg->symbol.field);
		struct ftev_flag_sym *fl;

		for (fl = arg->symbol.symbols; fl; fl = fl->next) {
			if (val == fl->fval) {
				put_flag(o, seg, len_arg, fl);
				break;
			}
		}
		if (!fl) {
			kt_out_puts(o, "0x");
			kt_out_hex(o, (uint64_t)val, 0);
		}
		return;
	}
	case PA_HEX:
	case PA_HEX_STR: {
		struct ftev_arg *fa = arg->hex.field;
		uint64_t off, len;

		if (!fa)
			return;
		if (fa->type == PA_DYNAMIC_ARRAY) {
			uint32_t o32 = 0, l32;

			if (fa->dynarray.field)
				dyn_offset(c, fa->dynarray.field, &o32, &l32);
			off = o32;
		} else if (fa->type == PA_FIELD && fa->field.field) {
			off = fa->field.field->offset;
		} else {
			return;
		}
		len = (uint32_t)value_of(c, arg->hex.size);
		for (uint64_t i = 0; i < len && off + i < c->avail; i++) {
			if (i && arg->type == PA_HEX)
				kt_out_putc(o, ' ');
			kt_out_hex2(o, c->data[off + i]);
		}
		return;
	}
	case PA_INT_ARRAY: {
		struct ftev_arg *fa = arg->int_array.field;
		uint64_t off, len;
		int el_size;

		if (!fa)
			return;
		if (fa->type == PA_DYNAMIC_ARRAY) {
			uint32_t o32 = 0, l32;

			if (fa->dynarray.field)
				dyn_offset(c, fa->dynarray.field, &o32, &l32);
			off = o32;
		} else if (fa->type == PA_FIELD && fa->field.field) {
			off = fa->field.field->offset;
		} else {
			return;
		}
		len = (uint32_t)value_of(c, arg->int_array.count);
		el_size = (int)value_of(c, arg->int_array.el_size);
		for (uint64_t i = 0; i < len && off < c->avail; i++) {
			if (i)
				kt_out_putc(o, ' ');
			switch (el_size) {
			case 1: case 2: case 4: case 8:
				kt_out_u64(o, read_host(c, off, (unsigned)el_size), 0);
				break;
			default:
				kt_out_printf(o, "BAD SIZE:%d 0x%x", el_size, byte_at(c, off));
				el_size = 1;
				break;
			}
			off += (unsigned)el_size;
		}
		return;
	}
	case PA_STRING: {
		uint32_t off, len;

		if (!arg->string.field)
			return;
		dyn_offset(c, arg->string.field, &off, &len);
		if (!len)
			return;     /* libtraceevent prints nothing, not even padding */
		put_str(o, seg, len_arg, (const char *)c->data + (off < c->avail ? off : 0),
			off < c->avail ? str_len_at(c, off) : 0);
		return;
	}
	case PA_BSTRING:
		put_str(o, seg, len_arg, arg->string.string, arg->string.slen);
		return;
	case PA_BITMASK:
	case PA_CPUMASK: {
		uint32_t off, len;

		if (!arg->bitmask.field)
			return;
		dyn_offset(c, arg->bitmask.field, &off, &len);
		if (!mask_bytes(c, off, &len))
			return;
		if (arg->type == PA_BITMASK)
			print_bitmask(c, o, seg, len_arg, off, len);
		else
			print_cpumask(c, o, seg, len_arg, off, len);
		return;
	}
	case PA_OP:
		/* only ?: gives a string */
		if (arg->op.code != OP_COND || !arg->op.right)
			return;
		if (value_of(c, arg->op.left))
			print_str_arg(c, o, seg, len_arg, arg->op.right->op.left, depth + 1);
		else
			print_str_arg(c, o, seg, len_arg, arg->op.right->op.right, depth + 1);
		return;
	case PA_FUNC:
		run_func(c, o, arg);
		return;
	default:
		return;
	}
}

/* ---- numbers ---- */

static void print_arg_number(struct ftev_ctx *c, struct ktrace_out *o, const struct ftev_seg *seg,
			     int plen, bool has_plen)
{
	uint64_t val = value_of(c, seg->arg);
	bool is_signed = seg->spec.conv == 'd' || seg->spec.conv == 'i';
	int width, prec;

	switch (seg->ls) {
	case -2:
		val = is_signed ? (uint64_t)(int64_t)(int8_t)val : (uint8_t)val;
		break;
	case -1:
		val = is_signed ? (uint64_t)(int64_t)(int16_t)val : (uint16_t)val;
		break;
	case 0:
		val = is_signed ? (uint64_t)(int64_t)(int32_t)val : (uint32_t)val;
		break;
	case 1:
	case 2:
		break;
	default:
		/* libtraceevent: "bad count", prints nothing and fails the event */
		c->ev->flags |= EV_FAILED;
		return;
	}
	if (!seg->spec_ok) {
		char fmt[40], buf[128];

		/* an unusual specification: let the C library read it */
		snprintf(fmt, sizeof(fmt), "%s", seg->format);
		if (has_plen)
			snprintf(buf, sizeof(buf), fmt, plen, (long long)val);
		else
			snprintf(buf, sizeof(buf), fmt, (long long)val);
		kt_out_puts(o, buf);
		return;
	}
	width = seg->spec.width;
	prec = seg->spec.prec;
	if (has_plen) {
		if (seg->spec.width_star) {
			if (plen < 0) {
				struct ftev_spec left = seg->spec;

				left.minus = true;
				ftev_out_int(o, &left, plen == INT_MIN ? 0 : -plen, prec, val, is_signed);
				return;
			}
			width = plen;
		} else if (seg->spec.prec_star) {
			prec = plen < 0 ? -1 : plen;
		}
	}
	if (seg->spec.conv == 's' || seg->spec.conv == 'p')
		return;
	ftev_out_int(o, &seg->spec, width, prec, val, is_signed);
}

/* ---- %p ---- */

/* glibc's %p */
static inline void put_pointer(struct ktrace_out *o, uint64_t val)
{
	if (!val) {
		kt_out_lit(o, "(nil)");
	} else {
		kt_out_lit(o, "0x");
		kt_out_hex(o, val, 0);
	}
}

static void out_type_not_field(struct ktrace_out *o, const struct ftev_arg *arg)
{
	kt_out_puts(o, "ARG TYPE NOT FIELD BUT ");
	kt_out_u64(o, arg->type, 0);
}

static struct ftev_arg *skip_casts(struct ftev_arg *arg)
{
	for (int n = 0; arg && arg->type == PA_TYPE && n < EV_EVAL_DEPTH; n++)
		arg = arg->typecast.item;
	return arg;
}

static void print_function(struct ftev_ctx *c, struct ktrace_out *o, char how, struct ftev_arg *arg)
{
	uint64_t val = value_of(c, arg);
	const struct ftev_sym *f = ftev_find_func(c->evs, val);

	if (f) {
		kt_out_write(o, f->name, f->name_len);
		if (how == 'F' || how == 'S') {
			kt_out_puts(o, "+0x");
			kt_out_hex(o, val - f->addr, 0);
		}
	} else {
		kt_out_puts(o, "0x");
		kt_out_hex(o, val, 0);
	}
}

/* The fixed-size field a %p extension (MAC, IPv4, IPv6, UUID) prints, checked in
 * libtraceevent's order; NULL when that is all (a helper function's text or the reason
 * was printed, or there is no field). */
static const struct ftev_field *ext_field(struct ftev_ctx *c, struct ktrace_out *o,
					 struct ftev_arg *arg, uint32_t size, const char *invalid)
{
	const struct ftev_field *f;

	if (arg->type == PA_FUNC) {
		run_func(c, o, arg);
		return NULL;
	}
	arg = skip_casts(arg);
	if (!arg || arg->type != PA_FIELD) {
		if (arg)
			out_type_not_field(o, arg);
		return NULL;
	}
	f = arg->field.field;
	if (f && f->size != size) {
		kt_out_puts(o, invalid);
		return NULL;
	}
	return f;
}

__attribute__((noinline)) static void print_mac(struct ftev_ctx *c, struct ktrace_out *o, const char *fmt, struct ftev_arg *arg)
{
	const char *sep = ":";
	bool reverse = fmt[1] == 'R';
	const struct ftev_field *f = ext_field(c, o, arg, 6, "INVALIDMAC");

	if (!f)
		return;
	if (fmt[0] == 'm')
		sep = "";
	else if (fmt[0] == 'M' && fmt[1] == 'F')
		sep = "-";
	for (int i = 0; i < 6; i++) {
		if (i)
			kt_out_puts(o, sep);
		kt_out_hex2(o, byte_at(c, f->offset + (reverse ? 5 - i : i)));
	}
}

static void print_ip4(struct ftev_ctx *c, struct ktrace_out *o, char i, bool reverse, uint64_t off)
{
	for (int k = 0; k < 4; k++) {
		unsigned b = byte_at(c, off + (reverse ? 3 - k : k));

		if (k)
			kt_out_putc(o, '.');
		if (i == 'i')
			kt_out_printf(o, "%03u", b);
		else
			kt_out_u64(o, b, 0);
	}
}

static void print_ip6(struct ftev_ctx *c, struct ktrace_out *o, char i, uint64_t off)
{
	for (int j = 0; j < 16; j += 2) {
		kt_out_hex2(o, byte_at(c, off + j));
		kt_out_hex2(o, byte_at(c, off + j + 1));
		if (i == 'I' && j < 14)
			kt_out_putc(o, ':');
	}
}

/* Compressed IPv6 (%pI6c), with IPv4-mapped and ISATAP addresses ending in a.b.c.d. */
__attribute__((noinline)) static void print_ip6c(struct ftev_ctx *c, struct ktrace_out *o, uint64_t off)
{
	uint8_t a[16];
	uint16_t w[8];
	uint8_t zerolen[8] = { 0 };
	int longest = 1, colonpos = -1, range;
	bool needcolon = false, v4;

	for (int k = 0; k < 16; k++)
		a[k] = byte_at(c, off + k);
	for (int k = 0; k < 8; k++)
		w[k] = (uint16_t)(a[2 * k] << 8 | a[2 * k + 1]);
	v4 = (!w[0] && !w[1] && !w[2] && !w[3] && !w[4] && w[5] == 0xffff) ||
	     ((w[4] | 0x0200) == 0x0200 && w[5] == 0x5efe);
	range = v4 ? 6 : 8;
	for (int k = 0; k < range; k++)
		for (int j = k; j < range && !w[j]; j++)
			zerolen[k]++;
	for (int k = 0; k < range; k++)
		if (zerolen[k] > longest) {
			longest = zerolen[k];
			colonpos = k;
		}
	if (longest == 1)
		colonpos = -1;
	for (int k = 0; k < range; k++) {
		if (k == colonpos) {
			if (needcolon || k == 0)
				kt_out_putc(o, ':');
			kt_out_putc(o, ':');
			needcolon = false;
			k += longest - 1;
			continue;
		}
		if (needcolon) {
			kt_out_putc(o, ':');
			needcolon = false;
		}
		kt_out_hex(o, w[k], 0);
		needcolon = true;
	}
	if (v4) {
		if (needcolon)
			kt_out_putc(o, ':');
		print_ip4(c, o, 'I', false, off + 12);
	}
}

static int ip4_order(struct ftev_ctx *c, const char *p, bool *reverse)
{
	*reverse = false;
	switch (*p) {
	case 'h':
		*reverse = !c->evs->big_endian;
		return 1;
	case 'l':
		*reverse = true;
		return 1;
	case 'n':
	case 'b':
		return 1;
	default:
		return 0;
	}
}

__attribute__((noinline)) static void print_ip(struct ftev_ctx *c, struct ktrace_out *o, const char *p, struct ftev_arg *arg)
{
	char i = p[0];
	const struct ftev_field *f;

	p++;
	switch (*p) {
	case '4': {
		bool reverse;

		ip4_order(c, p + 1, &reverse);
		f = ext_field(c, o, arg, 4, "INVALIDIPv4");
		if (!f)
			return;
		print_ip4(c, o, i, reverse, f->offset);
		return;
	}
	case '6': {
		bool have_c = i == 'I' && p[1] == 'c';

		f = ext_field(c, o, arg, 16, "INVALIDIPv6");
		if (!f)
			return;
		if (have_c)
			print_ip6c(c, o, f->offset);
		else
			print_ip6(c, o, i, f->offset);
		return;
	}
	case 'S': {
		bool have_c = false, have_p = false, reverse;
		uint64_t off;
		uint32_t len;
		unsigned family;

		p++;
		if (i == 'I') {
			if (*p == 'p') {
				have_p = true;
				p++;
			}
			if (*p == 'c') {
				have_c = true;
				p++;
			}
		}
		ip4_order(c, p, &reverse);
		if (arg->type == PA_FUNC) {
			run_func(c, o, arg);
			return;
		}
		arg = skip_casts(arg);
		if (arg && arg->type == PA_FIELD) {
			if (!arg->field.field)
				return;
			off = arg->field.field->offset;
			len = arg->field.field->size;
		} else if (arg && arg->type == PA_DYNAMIC_ARRAY) {
			uint32_t o32 = 0;

			len = 0;
			if (arg->dynarray.field)
				dyn_offset(c, arg->dynarray.field, &o32, &len);
			off = o32;
		} else {
			if (arg) {
				kt_out_puts(o, "ARG NOT FIELD NOR DYNAMIC ARRAY BUT TYPE ");
				kt_out_u64(o, arg->type, 0);
			}
			return;
		}
		family = (unsigned)read_host(c, off, 2);
		if (family == 2) {          /* AF_INET */
			if (len < 16) {
				kt_out_puts(o, "INVALIDIPv4");
				return;
			}
			print_ip4(c, o, i, reverse, off + 4);
			if (have_p) {
				kt_out_putc(o, ':');
				kt_out_u64(o, (unsigned)(byte_at(c, off + 2) << 8 | byte_at(c, off + 3)), 0);
			}
		} else if (family == 10) {  /* AF_INET6 */
			if (len < 28) {
				kt_out_puts(o, "INVALIDIPv6");
				return;
			}
			if (have_p)
				kt_out_putc(o, '[');
			if (have_c)
				print_ip6c(c, o, off + 8);
			else
				print_ip6(c, o, i, off + 8);
			if (have_p) {
				kt_out_puts(o, "]:");
				kt_out_u64(o, (unsigned)(byte_at(c, off + 2) << 8 | byte_at(c, off + 3)), 0);
			}
		}
		return;
	}
	default:
		return;
	}
}

__attribute__((noinline)) static void print_uuid(struct ftev_ctx *c, struct ktrace_out *o, const char *p, struct ftev_arg *arg)
{
	static const int guid_index[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	bool upper = false, guid = false;
	const struct ftev_field *f;

	switch (p[1]) {
	case 'L':
		upper = true;
		/* fall through */
	case 'l':
		guid = true;
		break;
	case 'B':
		upper = true;
		break;
	}
	f = ext_field(c, o, arg, 16, "INVALIDUUID");
	if (!f)
		return;
	for (int k = 0; k < 16; k++) {
		uint8_t b = byte_at(c, f->offset + (guid ? guid_index[k] : k));

		if (upper)
			kt_out_printf(o, "%02X", b);
		else
			kt_out_hex2(o, b);
		if (k == 3 || k == 5 || k == 7 || k == 9)
			kt_out_putc(o, '-');
	}
}

__attribute__((noinline)) static void print_raw_buff(struct ftev_ctx *c, struct ktrace_out *o, const char *p,
			   struct ftev_arg *arg, int plen)
{
	const char *delim = " ";
	uint32_t off = 0, len = 0;

	switch (p[1]) {
	case 'C':
		delim = ":";
		break;
	case 'D':
		delim = "-";
		break;
	case 'N':
		delim = "";
		break;
	}
	if (arg->type == PA_FUNC) {
		run_func(c, o, arg);
		return;
	}
	if (arg->type != PA_DYNAMIC_ARRAY) {
		out_type_not_field(o, arg);
		return;
	}
	if (arg->dynarray.field)
		dyn_offset(c, arg->dynarray.field, &off, &len);
	if ((uint32_t)plen > len)
		plen = (int)len;
	if (plen < 1)
		return;
	kt_out_hex2(o, byte_at(c, off));
	for (int k = 1; k < plen && off + (uint64_t)k < c->avail; k++) {
		kt_out_puts(o, delim);
		kt_out_hex2(o, byte_at(c, off + (uint64_t)k));
	}
}

static void print_arg_pointer(struct ftev_ctx *c, struct ktrace_out *o, const struct ftev_seg *seg,
			      int plen)
{
	struct ftev_arg *arg = seg->arg;
	const char *p = seg->format;

	if (!arg)
		return;
	if (arg->type == PA_BSTRING) {
		kt_out_write(o, arg->string.string, arg->string.slen);
		return;
	}
	while (*p && *p != 'p')
		p++;
	if (*p)
		p++;
	switch (*p) {
	case 'F': case 'f': case 'S': case 's':
		print_function(c, o, *p, arg);
		return;
	case 'M': case 'm':
		print_mac(c, o, p, arg);
		return;
	case 'I': case 'i':
		print_ip(c, o, p, arg);
		return;
	case 'U':
		print_uuid(c, o, p, arg);
		return;
	case 'h':
		print_raw_buff(c, o, p, arg, plen);
		return;
	default:
		put_pointer(o, value_of(c, arg));
		return;
	}
}

/* libtraceevent's print_parse_data. */
static void print_seg(struct ftev_ctx *c, struct ktrace_out *o, const struct ftev_seg *seg)
{
	int len_arg = 0;

	if (seg->len_arg)
		len_arg = (int)value_of(c, seg->len_arg);
	switch (seg->type) {
	case SEG_DIGIT:
		print_arg_number(c, o, seg, len_arg, seg->len_arg != NULL);
		break;
	case SEG_POINTER:
		print_arg_pointer(c, o, seg, seg->len_arg ? len_arg : 1);
		break;
	case SEG_STR:
		if (seg->len_arg && len_arg < 0) {
			/* libtraceevent would call printf without the length */
			struct ftev_seg plain = *seg;

			plain.spec_ok = false;
			print_str_arg(c, o, &plain, -1, seg->arg, 0);
		} else {
			print_str_arg(c, o, seg, seg->len_arg ? len_arg : -1, seg->arg, 0);
		}
		break;
	case SEG_STRING:
		kt_out_write(o, seg->format, seg->flen);
		break;
	}
}

/* ---- bprint ---- */

static void bprint_scan(struct ktrace_events *evs, struct ftev_bprint *bp)
{
	const char *ptr = bp->fmt;
	int n = 0, cap = 0;

	/* one action per '%' conversion at most, plus the '*' reads */
	for (const char *q = ptr; *q; q++)
		if (*q == '%' || *q == '*')
			cap++;
	bp->scan = kt_arena_zalloc(&evs->arena, (size_t)(cap + 1) * sizeof(*bp->scan), 16);
	if (!bp->scan)
		return;
	if (strlen(ptr) < 5)
		return;
	/* skip the first "%ps: " */
	for (ptr += 5; *ptr; ptr++) {
		int ls = 0;
		bool start = true;

		if (*ptr != '%')
			continue;
again:
		ptr++;
		switch (*ptr) {
		case '%':
			break;
		case 'l':
			ls++;
			goto again;
		case 'L':
			ls = 2;
			goto again;
		case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
		case '.': case '#':
			goto again;
		case 'z': case 'Z':
			ls = 1;
			goto again;
		case 'p': {
			bool pext = false;

			ls = 1;
			if (c_is_alnum(ptr[1])) {
				ptr++;
				switch (*ptr) {
				case 's': case 'S': case 'x':
					break;
				case 'f': case 'F':
					if (ptr[1] != 'w')
						break;
					/* fall through */
				default:
					pext = true;
				}
			}
			if (n < cap) {
				bp->scan[n].kind = pext ? BS_PEXT : BS_NUM;
				bp->scan[n].vsize = (uint8_t)evs->long_size;
				bp->scan[n].start = start;
				n++;
			}
			break;
		}
		case 'd': case 'u': case 'i': case 'x': case 'X': case 'o':
		case '*': {
			int vsize;

			switch (ls) {
			case 0:
				vsize = 4;
				break;
			case 1:
				vsize = evs->long_size;
				break;
			case 2:
				vsize = 8;
				break;
			default:
				vsize = ls;
				break;
			}
			if (*ptr == '*')
				vsize = 4;
			if (n < cap) {
				bp->scan[n].kind = BS_NUM;
				bp->scan[n].vsize = (uint8_t)(vsize > 255 ? 255 : vsize);
				bp->scan[n].start = start;
				n++;
			}
			start = false;
			if (*ptr == '*')
				goto again;
			break;
		}
		case 's':
			if (n < cap) {
				bp->scan[n].kind = BS_STR;
				bp->scan[n].start = start;
				n++;
			}
			break;
		default:
			break;
		}
		if (!*ptr)
			break;
	}
	bp->nscan = n;
}

static struct ftev_bprint *bprint_get(struct ftev_ctx *c, uint64_t addr)
{
	struct ktrace_events *evs = c->evs;
	const struct ftev_printk *pk;
	struct ftev_bprint *bp;
	struct ftev_arg *list = NULL, **tail = &list;
	size_t flen;
	int nph = 1;
	uint32_t v;

	if (kt_map_get(&evs->bprint_index, addr, 0, &v))
		return evs->bprints[v];
	bp = kt_arena_zalloc(&evs->arena, sizeof(*bp), 16);
	if (!bp)
		return NULL;
	bp->addr = addr;
	pk = ftev_find_printk(evs, addr);
	if (pk) {
		flen = strlen(pk->fmt);
		bp->fmt = kt_arena_zalloc(&evs->arena, flen + 6, 16);
		if (!bp->fmt)
			return NULL;
		memcpy(bp->fmt, "%ps: ", 5);
		memcpy(bp->fmt + 5, pk->fmt, flen + 1);
	} else {
		char buf[80];

		snprintf(buf, sizeof(buf), "%%ps: (NO FORMAT FOUND at %llx)\n",
			 (unsigned long long)addr);
		bp->fmt = kt_arena_strdup(&evs->arena, buf, strlen(buf));
		if (!bp->fmt)
			return NULL;
	}
	bprint_scan(evs, bp);
	if (!bp->scan)
		return NULL;
	nph += bp->nscan;
	bp->ph = kt_arena_zalloc(&evs->arena, (size_t)nph * sizeof(*bp->ph), 16);
	if (!bp->ph)
		return NULL;
	bp->nph = nph;
	for (int i = 0; i < nph; i++) {
		*tail = &bp->ph[i];
		tail = &bp->ph[i].next;
	}
	/* With as many placeholders as the scan can produce; at run time a segment whose
	 * argument was not produced is dropped and fails the event, as libtraceevent's
	 * parse_args does when it runs out of arguments. */
	bp->segs = ftev_build_segments(c->ev, bp->fmt, list);
	if (kt_grow((void **)&evs->bprints, &evs->cap_bprints, evs->nbprints + 1,
		    sizeof(*evs->bprints)) ||
	    kt_map_put(&evs->bprint_index, addr, 0, (uint32_t)evs->nbprints))
		return NULL;
	evs->bprints[evs->nbprints++] = bp;
	return bp;
}

static void bprint_print(struct ftev_ctx *c, struct ktrace_out *o)
{
	struct ktrace_events *evs = c->evs;
	struct ktrace_event *ev = c->ev;
	struct ftev_bprint *bp;
	uint64_t addr, ip, pos, end = c->size;
	int nargs = 0;

	if (!evs->bprint_fmt_field) {
		evs->bprint_fmt_field = ftev_find_field(ev, "fmt");
		if (!evs->bprint_fmt_field)
			return;
	}
	addr = read_at(c, evs->bprint_fmt_field->offset, evs->bprint_fmt_field->size);
	bp = bprint_get(c, addr);
	if (!bp)
		return;
	if (!evs->bprint_buf_field) {
		evs->bprint_buf_field = ftev_find_field(ev, "buf");
		evs->bprint_ip_field = ftev_find_field(ev, "ip");
		if (!evs->bprint_buf_field || !evs->bprint_ip_field)
			evs->bprint_buf_field = NULL;
	}
	if (evs->bprint_buf_field) {
		ip = read_at(c, evs->bprint_ip_field->offset, evs->bprint_ip_field->size);
		memset(&bp->ph[0], 0, sizeof(bp->ph[0]));
		bp->ph[0].type = PA_ATOM;
		bp->ph[0].atom.num = ip;
		bp->ph[0].next = bp->nph > 1 ? &bp->ph[1] : NULL;
		nargs = 1;
		pos = evs->bprint_buf_field->offset;
		for (int i = 0; i < bp->nscan; i++) {
			const struct ftev_bscan *s = &bp->scan[i];
			struct ftev_arg *a = &bp->ph[nargs];
			int kind = s->kind;

			if (s->start && pos >= end)
				break;
			if (kind == BS_PEXT)
				kind = pos < c->avail && c_is_print((signed char)c->data[pos]) ? BS_STR
											: BS_NUM;
			a->type = kind == BS_STR ? PA_BSTRING : PA_ATOM;
			if (kind == BS_STR) {
				size_t n = pos < c->avail ? str_len_at(c, pos) : 0;

				a->string.string = (char *)(pos < c->avail ? (const char *)c->data + pos
									  : "");
				a->string.slen = (uint32_t)n;
				pos += n + 1;
			} else {
				pos = (pos + 3) & ~(uint64_t)3;
				a->atom.atom = NULL;
				a->atom.num = read_at(c, pos, s->vsize);
				a->atom.num_zero = false;
				pos += s->vsize;
			}
			nargs++;
		}
	}
	for (const struct ftev_seg *seg = bp->segs; seg; seg = seg->next) {
		if ((seg->arg && seg->arg - bp->ph >= nargs) ||
		    (seg->len_arg && seg->len_arg - bp->ph >= nargs)) {
			ev->flags |= EV_FAILED;
			continue;
		}
		print_seg(c, o, seg);
	}
}

/* ---- the whole event ---- */

void ftev_pretty_print(struct ftev_ctx *c, struct ktrace_out *o)
{
	if (c->ev->flags & EV_FAILED) {
		kt_out_puts(o, "[FAILED TO PARSE]");
		ftev_print_fields(c, o);
		return;
	}
	if (c->ev->flags & EV_ISBPRINT) {
		bprint_print(c, o);
		return;
	}
	if (!c->ev->steps) {
		for (const struct ftev_seg *seg = c->ev->segs; seg; seg = seg->next) {
			if (seg->type == SEG_STRING)
				kt_out_write(o, seg->format, seg->flen);
			else
				print_seg(c, o, seg);
		}
		return;
	}
	for (const struct ftev_step *st = c->ev->steps;; st++) {
		uint64_t val;

		if (st->lit_len)
			kt_out_write(o, st->lit, st->lit_len);
		switch (st->kind) {
		case STEP_LAST:
			return;
		case STEP_LIT:
			break;
		case STEP_INT:
			val = value_of(c, st->seg->arg);
			if (st->sgn) {
				val = (uint64_t)((int64_t)(val << st->shift) >> st->shift);
				if (st->conv == 'd') {
					kt_out_i64(o, (int64_t)val, 0);
					break;
				}
			} else {
				val = val << st->shift >> st->shift;
				if (st->conv == 'u') {
					kt_out_u64(o, val, 0);
					break;
				}
			}
			kt_out_hex_case(o, val, 0, st->conv == 'X');
			break;
		case STEP_ZPAD:
			val = value_of(c, st->seg->arg);
			if (st->sgn) {
				val = (uint64_t)((int64_t)(val << st->shift) >> st->shift);
				if ((int64_t)val < 0) {
					ftev_out_int(o, &st->seg->spec, st->width, -1, val, true);
					break;
				}
			} else {
				val = val << st->shift >> st->shift;
			}
			ftev_out_zero_padded(o, val, st->width, st->conv);
			break;
		case STEP_PTR:
			put_pointer(o, value_of(c, st->seg->arg));
			break;
		case STEP_FUNC:
			print_function(c, o, st->conv, st->seg->arg);
			break;
		case STEP_CONDSTR: {
			const struct ftev_arg *r = st->seg->arg->op.right;
			const char *str = value_of(c, st->seg->arg->op.left) ? r->op.left->atom.atom
									: r->op.right->atom.atom;

			kt_out_write(o, str, strlen(str));
			break;
		}
		case STEP_DYNSTR: {
			const struct ftev_field *f = st->seg->arg->string.field;
			uint32_t off, len;

			if (!f)
				break;
			dyn_offset(c, f, &off, &len);
			if (len && off < c->avail)
				kt_out_write(o, (const char *)c->data + off, str_len_at(c, off));
			break;
		}
		default:
			print_seg(c, o, st->seg);
			break;
		}
	}
}

static bool printable_array(const struct ftev_ctx *c, uint64_t off, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++) {
		int ch;

		if (off + i >= c->avail)
			break;
		ch = (signed char)c->data[off + i];
		if (!ch)
			break;
		if (!c_is_print(ch) && !(ch == ' ' || (ch >= '\t' && ch <= '\r')))
			return false;
	}
	return true;
}

static void print_field_raw(struct ftev_ctx *c, struct ktrace_out *o, struct ftev_field *f)
{
	if (f->flags & EVF_ARRAY) {
		uint64_t off, len;

		if (f->flags & EVF_DYNAMIC) {
			uint32_t o32, l32;

			dyn_offset(c, f, &o32, &l32);
			off = o32;
			len = l32;
		} else {
			off = f->offset;
			len = f->size;
		}
		if ((f->flags & EVF_STRING) && printable_array(c, off, len)) {
			if (off < c->avail)
				kt_out_write(o, (const char *)c->data + off, str_len_at(c, off));
		} else {
			kt_out_puts(o, "ARRAY[");
			for (uint64_t i = 0; i < len && off + i < c->avail; i++) {
				if (i)
					kt_out_puts(o, ", ");
				kt_out_hex2(o, c->data[off + i]);
			}
			kt_out_putc(o, ']');
			f->flags &= ~EVF_STRING;   /* libtraceevent remembers this */
		}
		return;
	}
	{
		uint64_t val = read_at(c, f->offset, f->size);

		if (f->flags & EVF_POINTER) {
			kt_out_puts(o, "0x");
			kt_out_hex(o, val, 0);
		} else if (f->flags & EVF_SIGNED) {
			switch (f->size) {
			case 4:
				if (f->flags & EVF_LONG) {
					kt_out_puts(o, "0x");
					kt_out_hex(o, (uint32_t)val, 0);
				} else {
					kt_out_i64(o, (int32_t)val, 0);
				}
				break;
			case 2:
				kt_out_printf(o, "%2d", (int16_t)val);
				break;
			case 1:
				kt_out_i64(o, (int8_t)val, 0);
				break;
			default:
				kt_out_i64(o, (int64_t)val, 0);
				break;
			}
		} else if (f->flags & EVF_LONG) {
			kt_out_puts(o, "0x");
			kt_out_hex(o, val, 0);
		} else {
			kt_out_u64(o, val, 0);
		}
	}
}

/* libtraceevent's print_field: the field through its print fmt conversion when the
 * print fmt uses it directly, else its raw value. */
static void print_field(struct ftev_ctx *c, struct ktrace_out *o, struct ftev_field *f,
			const struct ftev_seg **parse_ptr)
{
	const struct ftev_seg *parse = *parse_ptr, *start;
	bool has_0x = false;

	if (!parse || (c->ev->flags & EV_FAILED) || (f->flags & (EVF_ARRAY | EVF_STRING)))
		goto raw;
	start = parse;
	do {
		struct ftev_arg *arg;

		if (parse->type == SEG_STRING) {
			has_0x = parse->ends_0x;
			goto next;
		}
		arg = skip_casts(parse->arg);
		if (!arg || arg->type != PA_FIELD || arg->field.field != f) {
			has_0x = false;
			goto next;
		}
		if (has_0x)
			kt_out_puts(o, "0x");
		print_seg(c, o, parse);
		*parse_ptr = parse->next;
		return;
next:
		parse = parse->next ? parse->next : c->ev->segs;
	} while (parse != start);
raw:
	print_field_raw(c, o, f);
}

void ftev_print_fields(struct ftev_ctx *c, struct ktrace_out *o)
{
	const struct ftev_seg *parse = (c->ev->flags & EV_ISBPRINT) ? NULL : c->ev->segs;

	for (struct ftev_field *f = c->ev->fields; f; f = f->next) {
		kt_out_putc(o, ' ');
		kt_out_write(o, f->name, f->name_len);
		kt_out_putc(o, '=');
		print_field(c, o, f, &parse);
	}
}

/* tep_print_event's "%<prec>.<div>d" time format. */
void ftev_print_event_time(struct ktrace_out *o, const char *format, uint64_t ts)
{
	const char *divstr;
	int prec = 0, div = 0;
	uint64_t p10 = 1;

	if (format[1] >= '0' && format[1] <= '9')
		prec = atoi(format + 1);
	divstr = strchr(format, '.');
	if (divstr && divstr[1] >= '0' && divstr[1] <= '9')
		div = atoi(divstr + 1);
	if (div) {
		ts += (uint64_t)(div / 2);
		ts /= (uint64_t)div;
	}
	/* an int in libtraceevent: 10^10 and more overflow it and print the plain number */
	for (int pr = prec; pr > 0; pr--) {
		p10 *= 10;
		if (p10 > 0x7fffffff) {
			p10 = 0;
			break;
		}
	}
	if (p10 > 1)
		kt_out_printf(o, "%5llu.%0*llu", (unsigned long long)(ts / p10), prec,
			      (unsigned long long)(ts % p10));
	else
		kt_out_printf(o, "%12llu", (unsigned long long)ts);
}

/* ---- entry points ---- */

static size_t format_record(struct ktrace_events *evs, const struct ktrace_record *rec,
			    unsigned flags, char *buf, size_t cap, unsigned *out_flags, struct kt_nums *nums)
{
	struct ktrace_out o = KT_OUT_MEM(buf, cap ? cap - 1 : 0);
	struct ftev_ctx c = { 0 };
	const struct ktrace_event *ev;

	o.nums = nums;
	if (nums)
		nums->n = 0;
	if (out_flags)
		*out_flags = 0;
	ev = ktrace_event_record_event(evs, rec);
	if (!ev) {
		kt_out_puts(&o, "[UNKNOWN EVENT]");
	} else {
		ftev_ctx_init(&c, evs, rec, ev);
		if (flags & KTRACE_EVFMT_RAW) {
			ftev_print_fields(&c, &o);
		} else {
			int pretty = 1;

			if (ev->handler != H_NONE)
				pretty = ftev_run_handler(&c, &o);
			if (pretty)
				ftev_pretty_print(&c, &o);
		}
		if (out_flags)
			*out_flags = c.out_flags;
	}
	if (cap)
		buf[o.len < cap - 1 ? o.len : cap - 1] = 0;
	return o.len;
}

size_t ktrace_event_format(struct ktrace_events *evs, const struct ktrace_record *rec,
			    unsigned flags, char *buf, size_t cap, unsigned *out_flags)
{
	return format_record(evs, rec, flags, buf, cap, out_flags, NULL);
}

size_t ftev_format_nums(struct ktrace_events *evs, const struct ktrace_record *rec, char *buf,
			size_t cap, struct kt_nums *nums)
{
	return format_record(evs, rec, 0, buf, cap, NULL, nums);
}

size_t ktrace_event_latency(struct ktrace_events *evs, const struct ktrace_record *rec,
			     char *buf, size_t cap)
{
	struct ktrace_out o = KT_OUT_MEM(buf, cap ? cap - 1 : 0);
	const uint8_t *data = rec->data;
	uint32_t size = rec->avail > rec->size ? rec->avail : rec->size;
	int lat_flags, pc, lock_depth = 0, migrate_disable = 0;
	bool hardirq, softirq;

	lat_flags = ftev_common_value(evs, data, size, "common_flags", &evs->flags_offset,
				    &evs->flags_size);
	pc = ftev_common_value(evs, data, size, "common_preempt_count", &evs->pc_offset,
			     &evs->pc_size);
	/* lock_depth and migrate_disable may not exist; libtraceevent shares one slot for
	 * both, so when both exist the second reads the first's value */
	if (evs->lock_depth_exists) {
		lock_depth = ftev_common_value(evs, data, size, "common_lock_depth",
					     &evs->ld_offset, &evs->ld_size);
	} else if (evs->check_lock_depth) {
		lock_depth = ftev_common_value(evs, data, size, "common_lock_depth",
					     &evs->ld_offset, &evs->ld_size);
		if (lock_depth < 0)
			evs->check_lock_depth = false;
		else
			evs->lock_depth_exists = true;
	}
	if (evs->migrate_disable_exists) {
		migrate_disable = ftev_common_value(evs, data, size, "common_migrate_disable",
						  &evs->ld_offset, &evs->ld_size);
	} else if (evs->check_migrate_disable) {
		migrate_disable = ftev_common_value(evs, data, size, "common_migrate_disable",
						  &evs->ld_offset, &evs->ld_size);
		if (migrate_disable < 0)
			evs->check_migrate_disable = false;
		else
			evs->migrate_disable_exists = true;
	}
	hardirq = lat_flags & 0x08;
	softirq = lat_flags & 0x10;
	kt_out_putc(&o, (lat_flags & 0x01) ? 'd' : (lat_flags & 0x02) ? 'X' : '.');
	kt_out_putc(&o, (lat_flags & 0x04) ? 'N' : '.');
	kt_out_putc(&o, (hardirq && softirq) ? 'H' : hardirq ? 'h' : softirq ? 's' : '.');
	if (pc & 0xf)
		kt_out_hex(&o, (unsigned)pc & 0xf, 0);
	else
		kt_out_putc(&o, '.');
	if (pc & 0xf0)
		kt_out_hex(&o, (unsigned)(pc >> 4), 0);
	else
		kt_out_putc(&o, '.');
	if (evs->migrate_disable_exists) {
		if (migrate_disable < 0)
			kt_out_putc(&o, '.');
		else
			kt_out_i64(&o, migrate_disable, 0);
	}
	if (evs->lock_depth_exists) {
		if (lock_depth < 0)
			kt_out_putc(&o, '.');
		else
			kt_out_i64(&o, lock_depth, 0);
	}
	if (cap)
		buf[o.len < cap - 1 ? o.len : cap - 1] = 0;
	return o.len;
}
