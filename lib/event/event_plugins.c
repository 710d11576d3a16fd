// SPDX-License-Identifier: MIT
/*
 * The print handlers trace-cmd applies on top of print fmts: libtraceevent1-plugin's
 * (sched_switch, kmem, hrtimer, function, futex, tlb, mac80211, kvm) and trace-cmd's
 * own function-graph ones. Each returns what libtraceevent's handler returns:
 * nonzero means "print the print fmt as well".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "event/event_int.h"
#include "event/event_share.h"

/* tep_get_field_val / tep_get_common_field_val: 0, or -1 after the error text. */
static int field_val(struct ftev_ctx *c, struct ktrace_out *o, const struct ftev_field *f,
		     const char *name, uint64_t *val, bool err)
{
	if (!f) {
		if (err) {
			kt_out_puts(o, "<CANT FIND FIELD ");
			kt_out_puts(o, name);
			kt_out_putc(o, '>');
		}
		return -1;
	}
	if (!ftev_field_value(c, f, val)) {
		if (err) {
			kt_out_putc(o, ' ');
			kt_out_puts(o, name);
			kt_out_puts(o, "=INVALID");
		}
		return -1;
	}
	return 0;
}

/* A field of the event by name; slot (0..15, distinct per name within a handler)
 * keeps what the lookup found. */
static inline struct ftev_field *hfield(struct ktrace_event *ev, int slot, const char *name,
				      bool any)
{
	if (!(ev->hf_known & (1u << slot))) {
		ev->hf[slot] = any ? ftev_find_any_field(ev, name) : ftev_find_field(ev, name);
		ev->hf_known |= 1u << slot;
	}
	return ev->hf[slot];
}

static int get_val(struct ftev_ctx *c, struct ktrace_out *o, const char *name, uint64_t *val, bool err)
{
	return field_val(c, o, ftev_find_field(c->ev, name), name, val, err);
}

static int get_slot(struct ftev_ctx *c, struct ktrace_out *o, int slot, const char *name, uint64_t *val,
		    bool err)
{
	return field_val(c, o, hfield(c->ev, slot, name, false), name, val, err);
}

static int get_common_val(struct ftev_ctx *c, struct ktrace_out *o, struct ktrace_event *ev,
			  const struct ktrace_record *rec, const char *name, uint64_t *val,
			  bool err)
{
	struct ftev_ctx rc = *c;

	rc.data = rec->data;
	rc.size = rec->size;
	rc.avail = rec->avail > rec->size ? rec->avail : rec->size;
	return field_val(&rc, o, ftev_find_common_field(ev, name), name, val, err);
}

/* tep_print_num_field with the formats plugins use. */
enum numfmt { NF_HEX0X, NF_LLU, NF_LD, NF_U, NF_D, NF_HEX, NF_HASHX };

static void put_num(struct ktrace_out *o, enum numfmt f, uint64_t v)
{
	switch (f) {
	case NF_HEX0X:
		kt_out_puts(o, "0x");
		kt_out_hex(o, v, 0);
		break;
	case NF_LLU:
		kt_out_u64(o, v, 0);
		break;
	case NF_LD:
		kt_out_i64(o, (int64_t)v, 0);
		break;
	case NF_U:
		kt_out_u64(o, (uint32_t)v, 0);
		break;
	case NF_D:
		kt_out_i64(o, (int32_t)v, 0);
		break;
	case NF_HEX:
		kt_out_hex(o, v, 0);
		break;
	case NF_HASHX:
		if ((uint32_t)v) {
			kt_out_puts(o, "0x");
			kt_out_hex(o, (uint32_t)v, 0);
		} else {
			kt_out_putc(o, '0');
		}
		break;
	}
}

static int print_num_field_f(struct ftev_ctx *c, struct ktrace_out *o, const char *pre,
			     enum numfmt f, const char *post, const char *name, bool err,
			     const struct ftev_field *fd)
{
	uint64_t v;

	if (!fd || !ftev_field_value(c, fd, &v)) {
		if (err) {
			kt_out_puts(o, "CAN'T FIND FIELD \"");
			kt_out_puts(o, name);
			kt_out_putc(o, '"');
		}
		return -1;
	}
	kt_out_puts(o, pre);
	put_num(o, f, v);
	kt_out_puts(o, post);
	return 1;
}

static int print_num_field(struct ftev_ctx *c, struct ktrace_out *o, const char *pre,
			   enum numfmt f, const char *post, const char *name, bool err)
{
	return print_num_field_f(c, o, pre, f, post, name, err, ftev_find_field(c->ev, name));
}

/* tep_print_func_field(s, " function=%s", ...) */
static void print_func_field(struct ftev_ctx *c, struct ktrace_out *o, const char *pre,
			     const char *name, const struct ftev_field *fd)
{
	const struct ftev_sym *f;
	uint64_t v;

	if (!fd || !ftev_field_value(c, fd, &v))
		return;
	f = ftev_find_func(c->evs, v);
	kt_out_puts(o, pre);
	if (f) {
		kt_out_write(o, f->name, f->name_len);
		kt_out_puts(o, "/0x");
		kt_out_hex(o, f->addr - v, 0);
	} else {
		kt_out_printf(o, "0x%08llx", (unsigned long long)v);
	}
}

/* ---- sched ---- */

size_t ktrace_event_task_state(uint64_t state, char *buf, size_t cap)
{
	static const char states[] = "SDTtZXxW";
	char text[16];
	size_t n = 0;

	for (int i = 0; i < 8; i++) {
		if (!(state & (1u << i)))
			continue;
		if (n)
			text[n++] = '|';
		text[n++] = states[i];
	}
	if (!n)
		text[n++] = 'R';
	if (cap) {
		size_t c = n < cap - 1 ? n : cap - 1;

		memcpy(buf, text, c);
		buf[c] = 0;
	}
	return n;
}

static void write_state(struct ktrace_out *o, int val)
{
	char text[24];
	size_t n = ktrace_event_task_state((uint64_t)(unsigned)val, text, sizeof(text));

	kt_out_write(o, text, n < sizeof(text) ? n : sizeof(text) - 1);
}

/* Registers a record's comm field for pid, as the sched plugin does (an empty comm
 * when the field lies past the record); the comm's bytes go to o, if any. */
static void save_comm(struct ftev_ctx *c, struct ktrace_out *o, const struct ftev_field *f, int pid)
{
	bool looked_up = ktrace_event_record_pid(c->evs, c->rec) != 0;
	size_t n = 0;

	if (f->offset < c->avail) {
		const uint8_t *p = c->data + f->offset;
		size_t max = f->size < c->avail - f->offset ? f->size : c->avail - f->offset;

		while (n < max && p[n])
			n++;
		if (o)
			kt_out_write(o, (const char *)p, n);
		if (!o || !c->evs->print_no_learn)
			ftev_comm_learn(c->evs, pid, (const char *)p, n, looked_up);
	} else if (!o || !c->evs->print_no_learn) {
		ftev_comm_learn(c->evs, pid, "", 0, looked_up);
	}
}

void ftev_learn_comms(struct ftev_ctx *c)
{
	/* what sched_switch and sched_wakeup below register, in their order, without
	 * their text: the pid field first (without it they stop), then the comm */
	static const char *const names[2][4] = {
		{ "prev_pid", "prev_comm", "next_pid", "next_comm" },
		{ "pid", "comm", NULL, NULL },
	};
	static const int slots[4] = { 0, 1, 4, 5 };
	int k = c->ev->handler == H_SCHED_SWITCH ? 0 : 1;

	for (int i = 0; i < 4 && names[k][i]; i += 2) {
		const struct ftev_field *pf = hfield(c->ev, slots[i], names[k][i], false), *cf;
		uint64_t val;

		if (!pf || !ftev_field_value(c, pf, &val))
			return;
		cf = hfield(c->ev, slots[i + 1], names[k][i + 1], true);
		if (cf)
			save_comm(c, NULL, cf, (int)val);
	}
}

static int sched_switch(struct ftev_ctx *c, struct ktrace_out *o)
{
	const struct ftev_field *f;
	uint64_t val;

	if (get_slot(c, o, 0, "prev_pid", &val, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	f = hfield(c->ev, 1, "prev_comm", true);
	if (f) {
		save_comm(c, o, f, (int)val);
		kt_out_putc(o, ':');
	}
	kt_out_i64(o, (int64_t)val, 0);
	kt_out_putc(o, ' ');
	if (!get_slot(c, o, 2, "prev_prio", &val, true)) {
		kt_out_putc(o, '[');
		kt_out_i64(o, (int32_t)val, 0);
		kt_out_puts(o, "] ");
	}
	if (!get_slot(c, o, 3, "prev_state", &val, true))
		write_state(o, (int)val);
	kt_out_puts(o, " ==> ");
	if (get_slot(c, o, 4, "next_pid", &val, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	f = hfield(c->ev, 5, "next_comm", true);
	if (f) {
		save_comm(c, o, f, (int)val);
		kt_out_putc(o, ':');
	}
	kt_out_i64(o, (int64_t)val, 0);
	if (!get_slot(c, o, 6, "next_prio", &val, true)) {
		kt_out_puts(o, " [");
		kt_out_i64(o, (int32_t)val, 0);
		kt_out_putc(o, ']');
	}
	return 0;
}

static int sched_wakeup(struct ftev_ctx *c, struct ktrace_out *o)
{
	const struct ftev_field *f;
	uint64_t val;

	if (get_slot(c, o, 0, "pid", &val, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	f = hfield(c->ev, 1, "comm", true);
	if (f) {
		save_comm(c, o, f, (int)val);
		kt_out_putc(o, ':');
	}
	kt_out_i64(o, (int64_t)val, 0);
	if (!get_slot(c, o, 2, "prio", &val, true)) {
		kt_out_puts(o, " [");
		kt_out_i64(o, (int64_t)val, 0);
		kt_out_putc(o, ']');
	}
	if (!get_slot(c, o, 3, "success", &val, false)) {
		kt_out_puts(o, " success=");
		kt_out_i64(o, (int64_t)val, 0);
	}
	if (!get_slot(c, o, 4, "target_cpu", &val, false)) {
		/* " CPU:%03llu", without a printf per wakeup */
		kt_out_lit(o, " CPU:");
		if (val < 100)
			kt_out_putc(o, '0');
		if (val < 10)
			kt_out_putc(o, '0');
		kt_out_u64(o, val, 0);
	}
	return 0;
}

/* ---- kmem, hrtimer ---- */

static int kmem_call_site(struct ftev_ctx *c, struct ktrace_out *o)
{
	const struct ftev_field *f = hfield(c->ev, 0, "call_site", false);
	const struct ftev_sym *fn;
	uint64_t val;

	if (!f || !ftev_field_value(c, f, &val))
		return 1;
	fn = ftev_find_func(c->evs, val);
	if (!fn)
		return 1;
	kt_out_putc(o, '(');
	kt_out_write(o, fn->name, fn->name_len);
	kt_out_puts(o, "+0x");
	kt_out_hex(o, (uint32_t)(val - fn->addr), 0);
	kt_out_puts(o, ") ");
	return 1;
}

static void hrtimer_timer(struct ftev_ctx *c, struct ktrace_out *o)
{
	kt_out_lit(o, "hrtimer=");
	if (print_num_field_f(c, o, "", NF_HEX0X, "", "timer", false,
			      hfield(c->ev, 0, "timer", false)) == -1)
		print_num_field_f(c, o, "", NF_HEX0X, "", "hrtimer", true,
				  hfield(c->ev, 1, "hrtimer", false));
}

static int hrtimer_expire(struct ftev_ctx *c, struct ktrace_out *o)
{
	hrtimer_timer(c, o);
	kt_out_lit(o, " now=");
	print_num_field_f(c, o, "", NF_LLU, "", "now", true, hfield(c->ev, 2, "now", false));
	print_func_field(c, o, " function=", "function", hfield(c->ev, 3, "function", false));
	return 0;
}

static int hrtimer_start(struct ftev_ctx *c, struct ktrace_out *o)
{
	hrtimer_timer(c, o);
	print_func_field(c, o, " function=", "function", hfield(c->ev, 3, "function", false));
	kt_out_lit(o, " expires=");
	print_num_field_f(c, o, "", NF_LLU, "", "expires", true, hfield(c->ev, 4, "expires", false));
	kt_out_lit(o, " softexpires=");
	print_num_field_f(c, o, "", NF_LLU, "", "softexpires", true,
			  hfield(c->ev, 5, "softexpires", false));
	return 0;
}

/* ---- function plugin ---- */

/* The plugin's guess of the call depth: per CPU, the chain of parents seen. */
static int fstack_index(struct ktrace_events *evs, const char *parent, const char *child, int cpu)
{
	struct ftev_fstack *st;
	int i;

	if (cpu < 0 || cpu >= 65536)
		return 0;
	if (cpu >= evs->fstack_cpus) {
		struct ftev_fstack *n = kt_realloc_array(evs->fstack, (size_t)(cpu + 1), sizeof(*n));

		if (!n)
			return 0;
		memset(n + evs->fstack_cpus, 0, (size_t)(cpu + 1 - evs->fstack_cpus) * sizeof(*n));
		evs->fstack = n;
		evs->fstack_cpus = cpu + 1;
	}
	st = &evs->fstack[cpu];
	for (i = 0; i < st->size && st->names[i]; i++) {
		if (!strcmp(parent, st->names[i])) {
			if (child) {
				if (i + 1 >= st->size) {
					const char **n;

					if (st->size >= 1 << 20)
						return i;
					n = kt_realloc_array(st->names, (size_t)(st->size + 10), sizeof(*n));
					if (!n)
						return i;
					memset(n + st->size, 0, 10 * sizeof(*n));
					st->names = n;
					st->size += 10;
				}
				st->names[i + 1] = child;
			}
			return i;
		}
	}
	if (st->size < 2) {
		const char **n = kt_realloc_array(st->names, (size_t)(st->size + 10), sizeof(*n));

		if (!n)
			return 0;
		memset(n + st->size, 0, 10 * sizeof(*n));
		st->names = n;
		st->size += 10;
	}
	st->names[0] = parent;
	if (child)
		st->names[1] = child;
	return 0;
}

static int function_handler(struct ftev_ctx *c, struct ktrace_out *o)
{
	const struct ftev_sym *func, *parent;
	uint64_t ip, pip;
	int index = 0;

	if (get_slot(c, o, 0, "ip", &ip, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	func = ftev_find_func(c->evs, ip);
	if (get_slot(c, o, 1, "parent_ip", &pip, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	parent = ftev_find_func(c->evs, pip);
	/* options: parent off, indent on, offset off */
	if (parent)
		index = fstack_index(c->evs, parent->name, func ? func->name : NULL, c->rec->cpu);
	kt_out_spaces(o, (size_t)index * 3);
	if (func) {
		kt_out_write(o, func->name, func->name_len);
	} else {
		kt_out_puts(o, "0x");
		kt_out_hex(o, ip, 0);
	}
	return 0;
}

static int func_repeats(struct ftev_ctx *c, struct ktrace_out *o)
{
	static const char *const tsfmt[] = {
		[KTRACE_EVOPT_TS_USECS] = "%6.1000d",
		[KTRACE_EVOPT_TS_NSECS] = "%9.1d",
		[KTRACE_EVOPT_TS_RAW] = "%d",
	};
	uint64_t count, top, bottom;

	function_handler(c, o);
	if (get_val(c, o, "count", &count, true) || get_val(c, o, "top_delta_ts", &top, true) ||
	    get_val(c, o, "bottom_delta_ts", &bottom, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	kt_out_puts(o, " (count: ");
	kt_out_i64(o, (int64_t)count, 0);
	kt_out_puts(o, "  last_ts: ");
	ftev_print_event_time(o, tsfmt[c->evs->ts_format <= KTRACE_EVOPT_TS_RAW ? c->evs->ts_format : 0],
			    c->rec->ts - ((top << 32) | bottom));
	kt_out_putc(o, ')');
	return 0;
}

static int kernel_stack(struct ftev_ctx *c, struct ktrace_out *o)
{
	const struct ftev_field *f = ftev_find_any_field(c->ev, "caller");
	unsigned ls = (unsigned)c->evs->long_size;

	if (!f) {
		kt_out_puts(o, "<CANT FIND FIELD caller>");
		return 0;
	}
	kt_out_puts(o, "<stack trace >\n");
	for (uint64_t off = f->offset; off < c->size; off += ls) {
		uint64_t addr = off + ls <= c->avail ? ftev_read_number(c->evs, c->data + off, ls) : 0;
		const struct ftev_sym *fn;

		if ((ls == 8 && addr == UINT64_MAX) || (int32_t)addr == -1)
			break;
		fn = ftev_find_func(c->evs, addr);
		if (fn) {
			kt_out_puts(o, "=> ");
			kt_out_write(o, fn->name, fn->name_len);
			kt_out_puts(o, " (");
			kt_out_hex(o, addr, 0);
			kt_out_puts(o, ")\n");
		} else {
			kt_out_puts(o, "=> ");
			kt_out_hex(o, addr, 0);
			kt_out_putc(o, '\n');
		}
	}
	return 0;
}

static int raw_data(struct ftev_ctx *c, struct ktrace_out *o)
{
	const struct ftev_field *f;
	uint64_t id;
	unsigned ls = (unsigned)c->evs->long_size;

	if (get_val(c, o, "id", &id, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	kt_out_puts(o, "# ");
	kt_out_hex(o, id, 0);
	f = ftev_find_any_field(c->ev, "buf");
	if (!f) {
		kt_out_puts(o, "<CANT FIND FIELD buf>");
		return 0;
	}
	for (uint64_t off = f->offset; off < c->size; off += ls) {
		uint64_t left = c->size - off, n = left < 8 ? left : 8;   /* sizeof(long) */

		for (uint64_t i = 0; i < n; i++) {
			kt_out_putc(o, ' ');
			kt_out_hex2(o, c->data[off + i]);
		}
	}
	return 0;
}

/* ---- trace-cmd's function graph ---- */

static void graph_overhead(struct ktrace_out *o, uint64_t duration)
{
	if (duration == UINT64_MAX)
		kt_out_puts(o, "  ");
	else if (duration > 1000000000ULL)
		kt_out_puts(o, "$ ");
	else if (duration > 1000000ULL)
		kt_out_puts(o, "# ");
	else if (duration > 100000ULL)
		kt_out_puts(o, "! ");
	else if (duration > 10000ULL)
		kt_out_puts(o, "+ ");
	else
		kt_out_puts(o, "  ");
}

static void graph_duration(struct ktrace_out *o, uint64_t duration)
{
	size_t start = o->len, len;

	kt_out_u64(o, duration / 1000, 0);
	if (o->len - start < 7) {
		char ns[8];

		snprintf(ns, sizeof(ns), ".%03llu", (unsigned long long)(duration % 1000));
		kt_out_puts(o, ns);
	}
	len = o->len - start;
	kt_out_puts(o, " us ");
	if (len < 7)
		kt_out_spaces(o, 7 - len);
	kt_out_puts(o, "|  ");
}

/*
 * trace-cmd 3.4 (lib/trace-cmd/trace-ftrace.c) adds to the lines of 3.1.6:
 *  - the arguments a funcgraph_entry record holds (the kernel's funcgraph-args option
 *    fills its "args" array, one long each) between the parentheses of a function
 *    found in kallsyms, named and typed from the file's BTF when it has one
 *    (event_btf.c), else as bare hex numbers;
 *  - " (ret=N)" after a leaf's ';' and an exit's '}' when funcgraph_exit has a
 *    "retval" field (CONFIG_FUNCTION_GRAPH_RETVAL): in decimal for an error code
 *    (-4095..-1 as an unsigned 64-bit number), else "0x" and hex.
 * The rest of its lines are 3.1.6's, which ktrace keeps where 3.4 changed them (a
 * nested entry of a function not in kallsyms prints its address, where 3.4 prints
 * ") {" alone; a leaf is found when the next record is the exit whatever its CPU).
 */
static void fgraph_args(struct ftev_ctx *c, struct ktrace_out *o, const struct ftev_sym *fn)
{
	struct ktrace_events *evs = c->evs;
	const struct ftev_field *f = hfield(c->ev, 0, "args", false);
	int size = evs->long_size ? evs->long_size : 8, nmem;

	if (!f)
		return;
	nmem = c->size > f->offset ? (int)((c->size - f->offset) / (uint32_t)size) : 0;
	if (!evs->btf_tried) {
		evs->btf_tried = true;
		if (evs->btf_data)
			evs->btf = ftev_btf_load(evs->btf_data, evs->btf_len);
	}
	ftev_btf_print_args(evs, evs->btf, o, c->data + f->offset, nmem, size, fn->name,
			    fn->name_len);
}

static void fgraph_retval(struct ktrace_out *o, uint64_t retval)
{
	if (retval >= (uint64_t)-4095) {
		kt_out_lit(o, " (ret=");
		kt_out_i64(o, (int64_t)retval, 0);
	} else {
		kt_out_lit(o, " (ret=0x");
		kt_out_hex(o, retval, 0);
	}
	kt_out_putc(o, ')');
}

static int fgraph_entry(struct ftev_ctx *c, struct ktrace_out *o)
{
	struct ktrace_event *ret = c->evs->fgraph_ret;
	const struct ktrace_record *next = c->rec->next;
	const struct ftev_sym *fn;
	uint64_t pid, func, depth, retval = 0;
	bool leaf = false, has_retval = false;

	if (!ret)
		return -1;
	if (get_common_val(c, o, c->ev, c->rec, "common_pid", &pid, true) ||
	    get_val(c, o, "func", &func, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	if (next) {
		uint64_t type, npid, nfunc;
		struct ftev_ctx nc = *c;

		nc.ev = ret;
		nc.data = next->data;
		nc.size = next->size;
		nc.avail = next->avail > next->size ? next->avail : next->size;
		/* a leaf: the next record is this function's exit */
		if (!get_common_val(&nc, o, ret, next, "common_type", &type, true) &&
		    type == (uint64_t)ret->id &&
		    !get_common_val(&nc, o, ret, next, "common_pid", &npid, true) &&
		    (int)pid == (int)npid && !get_val(&nc, o, "func", &nfunc, true) &&
		    nfunc == func) {
			uint64_t rettime, calltime;

			leaf = true;
			c->out_flags |= KTRACE_EVFMT_OUT_CONSUMED_NEXT;
			if (get_val(&nc, o, "rettime", &rettime, true) ||
			    get_val(&nc, o, "calltime", &calltime, true)) {
				kt_out_putc(o, '!');
				return 0;
			}
			has_retval = hfield(ret, 1, "retval", false) != NULL;
			if (has_retval && get_slot(&nc, o, 1, "retval", &retval, true)) {
				kt_out_putc(o, '!');
				return 0;
			}
			graph_overhead(o, rettime - calltime);
			graph_duration(o, rettime - calltime);
		}
	}
	if (!leaf) {
		graph_overhead(o, UINT64_MAX);
		kt_out_puts(o, "           |  ");
	}
	if (get_val(c, o, "depth", &depth, true)) {
		kt_out_putc(o, '!');
		return 0;
	}
	for (uint64_t i = 0; i < depth * 2 && i < (1u << 20); i++)
		kt_out_putc(o, ' ');
	if (get_val(c, o, "func", &func, true)) {
		kt_out_putc(o, '!');
		return 0;
	}
	fn = ftev_find_func(c->evs, func);
	if (fn) {
		kt_out_write(o, fn->name, fn->name_len);
		kt_out_putc(o, '(');
		fgraph_args(c, o, fn);
		kt_out_puts(o, leaf ? ");" : ") {");
	} else {
		kt_out_hex(o, func, 0);
		kt_out_puts(o, leaf ? "();" : "() {");
	}
	if (has_retval)
		fgraph_retval(o, retval);
	return 0;
}

static int fgraph_exit(struct ftev_ctx *c, struct ktrace_out *o)
{
	uint64_t rettime, calltime, depth, retval = 0;
	bool has_retval;

	if (!c->evs->fgraph_ret)
		return -1;
	if (get_val(c, o, "rettime", &rettime, true) ||
	    get_val(c, o, "calltime", &calltime, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	has_retval = hfield(c->ev, 1, "retval", false) != NULL;
	if (has_retval && get_slot(c, o, 1, "retval", &retval, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	graph_overhead(o, rettime - calltime);
	graph_duration(o, rettime - calltime);
	if (get_val(c, o, "depth", &depth, true)) {
		kt_out_putc(o, '!');
		return 1;
	}
	for (uint64_t i = 0; i < depth * 2 && i < (1u << 20); i++)
		kt_out_putc(o, ' ');
	kt_out_putc(o, '}');
	if (has_retval)
		fgraph_retval(o, retval);
	return 0;
}

/* ---- futex, tlb ---- */

static int futex(struct ftev_ctx *c, struct ktrace_out *o)
{
	static const struct {
		const char *name;
		int val, utime, uaddr2, val3;   /* 0 none, 1 hex, 2 decimal */
	} ops[] = {
		{ "FUTEX_WAIT", 1, 1, 0, 0 },
		{ "FUTEX_WAKE", 2, 0, 0, 0 },
		{ "FUTEX_FD", 2, 0, 0, 0 },
		{ "FUTEX_REQUEUE", 2, 2, 1, 0 },
		{ "FUTEX_CMP_REQUEUE", 2, 2, 1, 1 },
		{ "FUTEX_WAKE_OP", 2, 2, 1, 1 },
		{ "FUTEX_LOCK_PI", 0, 1, 0, 0 },
		{ "FUTEX_UNLOCK_PI", 0, 0, 0, 0 },
		{ "FUTEX_TRYLOCK_PI", 0, 0, 0, 0 },
		{ "FUTEX_WAIT_BITSET", 1, 1, 0, 1 },
		{ "FUTEX_WAKE_BITSET", 2, 0, 0, 1 },
		{ "FUTEX_WAIT_REQUEUE_PI", 1, 1, 1, 1 },
		{ "FUTEX_CMP_REQUEUE_PI", 2, 2, 1, 1 },
	};
	uint64_t uaddr, op, val, utime, uaddr2, val3, cmd;

	if (get_slot(c, o, 0, "uaddr", &uaddr, true) || get_slot(c, o, 1, "op", &op, true) ||
	    get_slot(c, o, 2, "val", &val, true) || get_slot(c, o, 3, "utime", &utime, true) ||
	    get_slot(c, o, 4, "uaddr2", &uaddr2, true) || get_slot(c, o, 5, "val3", &val3, true))
		return 1;
	cmd = op & ~(uint64_t)(128 | 256);
	if (cmd >= sizeof(ops) / sizeof(ops[0]))
		return 1;
	kt_out_puts(o, "op=");
	kt_out_puts(o, ops[cmd].name);
	if (op & 128)
		kt_out_puts(o, "|FUTEX_PRIVATE_FLAG");
	if (op & 256)
		kt_out_puts(o, "|FUTEX_CLOCK_REALTIME");
	kt_out_printf(o, " uaddr=0x%08llx", (unsigned long long)uaddr);
	if (ops[cmd].val == 1)
		kt_out_printf(o, " val=0x%08llx", (unsigned long long)val);
	else if (ops[cmd].val == 2)
		kt_out_printf(o, " val=%llu", (unsigned long long)val);
	if (ops[cmd].utime == 1)
		kt_out_printf(o, " utime=0x%08llx", (unsigned long long)utime);
	else if (ops[cmd].utime == 2)
		kt_out_printf(o, " val2=%llu", (unsigned long long)utime);
	if (ops[cmd].uaddr2)
		kt_out_printf(o, " uaddr2=0x%08llx", (unsigned long long)uaddr2);
	if (ops[cmd].val3)
		kt_out_printf(o, " val3=0x%08llx", (unsigned long long)val3);
	return 0;
}

static int tlb_flush(struct ftev_ctx *c, struct ktrace_out *o)
{
	static const char *const reasons[] = {
		"flush on task switch", "remote shootdown", "local shootdown",
		"local mm shootdown",
	};
	uint64_t val;

	kt_out_puts(o, "pages=");
	print_num_field(c, o, "", NF_LD, "", "pages", true);
	if (get_val(c, o, "reason", &val, true) < 0)
		return -1;
	kt_out_puts(o, " reason=");
	if (val < 4)
		kt_out_puts(o, reasons[val]);
	kt_out_lit(o, " (");
	kt_out_i64(o, (int64_t)val, 0);
	kt_out_putc(o, ')');
	return 0;
}

/* ---- mac80211 ---- */

static void mac_string(struct ftev_ctx *c, struct ktrace_out *o, const char *name)
{
	const struct ftev_field *f = ftev_find_field(c->ev, name);
	uint64_t off, len;

	if (!f) {
		kt_out_puts(o, "NOTFOUND:");
		kt_out_puts(o, name);
		return;
	}
	off = f->offset;
	len = f->size;
	if (!strncmp(f->type, "__data_loc", 10)) {
		uint64_t v;

		if (!ftev_field_value(c, f, &v)) {
			kt_out_puts(o, "invalid_data_loc");
			return;
		}
		off = v & 0xffff;
		len = (v >> 16) & 0xffff;
	}
	if (off >= c->avail)
		return;
	if (len > c->avail - off)
		len = c->avail - off;
	{
		const uint8_t *p = c->data + off;
		const uint8_t *nul = memchr(p, 0, len);

		kt_out_write(o, (const char *)p, nul ? (size_t)(nul - p) : len);
	}
}

static int mac80211_bss(struct ftev_ctx *c, struct ktrace_out *o)
{
	static const char *const l1[] = { "assoc", "aid", "cts", "shortpre", "shortslot",
					  "dtimper" };

	mac_string(c, o, "wiphy_name");
	kt_out_puts(o, " vif:");
	mac_string(c, o, "vif_name");
	print_num_field(c, o, "(", NF_D, ")", "vif_type", true);
	kt_out_putc(o, '\n');
	kt_out_spaces(o, 65);
	for (size_t i = 0; i < 6; i++) {
		char pre[24];

		snprintf(pre, sizeof(pre), "%s:", l1[i]);
		print_num_field(c, o, pre, NF_D, "", l1[i], false);
		kt_out_putc(o, ' ');
	}
	kt_out_putc(o, '\n');
	kt_out_spaces(o, 65);
	/* "name:%d" / "name:%#x" */
	{
		uint64_t v;
		const char *names[] = { "bcnint", "assoc_cap", "basic_rates", "enable_beacon" };

		for (size_t i = 0; i < 4; i++) {
			const struct ftev_field *f = ftev_find_field(c->ev, names[i]);

			if (f && ftev_field_value(c, f, &v)) {
				kt_out_puts(o, names[i]);
				kt_out_putc(o, ':');
				put_num(o, (i == 1 || i == 2) ? NF_HASHX : NF_D, v);
			}
			if (i < 3)
				kt_out_putc(o, ' ');
		}
	}
	kt_out_putc(o, '\n');
	kt_out_spaces(o, 65);
	{
		const struct ftev_field *f = ftev_find_field(c->ev, "ht_operation_mode");
		uint64_t v;

		if (f && ftev_field_value(c, f, &v)) {
			kt_out_puts(o, "ht_operation_mode:");
			put_num(o, NF_D, v);
		}
	}
	return 0;
}

/* ---- kvm ---- */

static const struct {
	int val;
	const char *str;
} vmx_reasons[] = {
	{ 0, "EXCEPTION_NMI" }, { 1, "EXTERNAL_INTERRUPT" }, { 2, "TRIPLE_FAULT" },
	{ 7, "PENDING_INTERRUPT" }, { 8, "NMI_WINDOW" }, { 9, "TASK_SWITCH" },
	{ 10, "CPUID" }, { 12, "HLT" }, { 13, "INVD" }, { 14, "INVLPG" }, { 15, "RDPMC" },
	{ 16, "RDTSC" }, { 18, "VMCALL" }, { 19, "VMCLEAR" }, { 20, "VMLAUNCH" },
	{ 21, "VMPTRLD" }, { 22, "VMPTRST" }, { 23, "VMREAD" }, { 24, "VMRESUME" },
	{ 25, "VMWRITE" }, { 26, "VMOFF" }, { 27, "VMON" }, { 28, "CR_ACCESS" },
	{ 29, "DR_ACCESS" }, { 30, "IO_INSTRUCTION" }, { 31, "MSR_READ" },
	{ 32, "MSR_WRITE" }, { 36, "MWAIT_INSTRUCTION" }, { 39, "MONITOR_INSTRUCTION" },
	{ 40, "PAUSE_INSTRUCTION" }, { 41, "MCE_DURING_VMENTRY" },
	{ 43, "TPR_BELOW_THRESHOLD" }, { 44, "APIC_ACCESS" }, { 45, "EOI_INDUCED" },
	{ 48, "EPT_VIOLATION" }, { 49, "EPT_MISCONFIG" }, { 50, "INVEPT" },
	{ 52, "PREEMPTION_TIMER" }, { 54, "WBINVD" }, { 55, "XSETBV" },
	{ 56, "APIC_WRITE" }, { 58, "INVPCID" }, { 62, "PML_FULL" }, { 63, "XSAVES" },
	{ 64, "XRSTORS" },
}, svm_reasons[] = {
	{ 0x000, "EXIT_READ_CR0" }, { 0x003, "EXIT_READ_CR3" }, { 0x004, "EXIT_READ_CR4" },
	{ 0x008, "EXIT_READ_CR8" }, { 0x010, "EXIT_WRITE_CR0" }, { 0x013, "EXIT_WRITE_CR3" },
	{ 0x014, "EXIT_WRITE_CR4" }, { 0x018, "EXIT_WRITE_CR8" }, { 0x020, "EXIT_READ_DR0" },
	{ 0x021, "EXIT_READ_DR1" }, { 0x022, "EXIT_READ_DR2" }, { 0x023, "EXIT_READ_DR3" },
	{ 0x024, "EXIT_READ_DR4" }, { 0x025, "EXIT_READ_DR5" }, { 0x026, "EXIT_READ_DR6" },
	{ 0x027, "EXIT_READ_DR7" }, { 0x030, "EXIT_WRITE_DR0" }, { 0x031, "EXIT_WRITE_DR1" },
	{ 0x032, "EXIT_WRITE_DR2" }, { 0x033, "EXIT_WRITE_DR3" }, { 0x034, "EXIT_WRITE_DR4" },
	{ 0x035, "EXIT_WRITE_DR5" }, { 0x036, "EXIT_WRITE_DR6" }, { 0x037, "EXIT_WRITE_DR7" },
	{ 0x040, "EXIT_EXCP_DE" }, { 0x041, "EXIT_EXCP_DB" }, { 0x043, "EXIT_EXCP_BP" },
	{ 0x044, "EXIT_EXCP_OF" }, { 0x045, "EXIT_EXCP_BR" }, { 0x046, "EXIT_EXCP_UD" },
	{ 0x047, "EXIT_EXCP_NM" }, { 0x048, "EXIT_EXCP_DF" }, { 0x04a, "EXIT_EXCP_TS" },
	{ 0x04b, "EXIT_EXCP_NP" }, { 0x04c, "EXIT_EXCP_SS" }, { 0x04d, "EXIT_EXCP_GP" },
	{ 0x04e, "EXIT_EXCP_PF" }, { 0x050, "EXIT_EXCP_MF" }, { 0x051, "EXIT_EXCP_AC" },
	{ 0x052, "EXIT_EXCP_MC" }, { 0x053, "EXIT_EXCP_XF" }, { 0x060, "EXIT_INTR" },
	{ 0x061, "EXIT_NMI" }, { 0x062, "EXIT_SMI" }, { 0x063, "EXIT_INIT" },
	{ 0x064, "EXIT_VINTR" }, { 0x065, "EXIT_CR0_SEL_WRITE" }, { 0x066, "EXIT_IDTR_READ" },
	{ 0x067, "EXIT_GDTR_READ" }, { 0x068, "EXIT_LDTR_READ" }, { 0x069, "EXIT_TR_READ" },
	{ 0x06a, "EXIT_IDTR_WRITE" }, { 0x06b, "EXIT_GDTR_WRITE" }, { 0x06c, "EXIT_LDTR_WRITE" },
	{ 0x06d, "EXIT_TR_WRITE" }, { 0x06e, "EXIT_RDTSC" }, { 0x06f, "EXIT_RDPMC" },
	{ 0x070, "EXIT_PUSHF" }, { 0x071, "EXIT_POPF" }, { 0x072, "EXIT_CPUID" },
	{ 0x073, "EXIT_RSM" }, { 0x074, "EXIT_IRET" }, { 0x075, "EXIT_SWINT" },
	{ 0x076, "EXIT_INVD" }, { 0x077, "EXIT_PAUSE" }, { 0x078, "EXIT_HLT" },
	{ 0x079, "EXIT_INVLPG" }, { 0x07a, "EXIT_INVLPGA" }, { 0x07b, "EXIT_IOIO" },
	{ 0x07c, "EXIT_MSR" }, { 0x07d, "EXIT_TASK_SWITCH" }, { 0x07e, "EXIT_FERR_FREEZE" },
	{ 0x07f, "EXIT_SHUTDOWN" }, { 0x080, "EXIT_VMRUN" }, { 0x081, "EXIT_VMMCALL" },
	{ 0x082, "EXIT_VMLOAD" }, { 0x083, "EXIT_VMSAVE" }, { 0x084, "EXIT_STGI" },
	{ 0x085, "EXIT_CLGI" }, { 0x086, "EXIT_SKINIT" }, { 0x087, "EXIT_RDTSCP" },
	{ 0x088, "EXIT_ICEBP" }, { 0x089, "EXIT_WBINVD" }, { 0x08a, "EXIT_MONITOR" },
	{ 0x08b, "EXIT_MWAIT" }, { 0x08c, "EXIT_MWAIT_COND" }, { 0x08d, "EXIT_XSETBV" },
	{ 0x400, "EXIT_NPF" }, { 0x401, "EXIT_AVIC_INCOMPLETE_IPI" },
	{ 0x402, "EXIT_AVIC_UNACCELERATED_ACCESS" }, { -1, "EXIT_ERR" },
};

static int exit_reason(struct ftev_ctx *c, struct ktrace_out *o, const char *field)
{
	uint64_t val, isa;
	const char *reason = NULL;

	if (get_val(c, o, field, &val, true) < 0)
		return -1;
	if (get_val(c, o, "isa", &isa, false) < 0)
		isa = 1;
	if (isa == 1) {
		for (size_t i = 0; i < sizeof(vmx_reasons) / sizeof(vmx_reasons[0]); i++)
			if (vmx_reasons[i].val == (int)val) {
				reason = vmx_reasons[i].str;
				break;
			}
	} else if (isa == 2) {
		for (size_t i = 0; i < sizeof(svm_reasons) / sizeof(svm_reasons[0]); i++)
			if (svm_reasons[i].val == (int)val) {
				reason = svm_reasons[i].str;
				break;
			}
	} else {
		reason = "UNKNOWN-ISA";
	}
	if (reason)
		kt_out_printf(o, "reason %s", reason);
	else
		kt_out_printf(o, "reason UNKNOWN (%llu)", (unsigned long long)val);
	return 0;
}

static int kvm_exit(struct ftev_ctx *c, struct ktrace_out *o)
{
	uint64_t rip, info1, info2;

	if (exit_reason(c, o, "exit_reason") < 0)
		return -1;
	if (get_val(c, o, "guest_rip", &rip, true) < 0)
		return -1;
	kt_out_printf(o, " rip 0x%llx", (unsigned long long)rip);
	if (get_val(c, o, "info1", &info1, false) >= 0 && get_val(c, o, "info2", &info2, false) >= 0)
		kt_out_printf(o, " info %llx %llx", (unsigned long long)info1,
			      (unsigned long long)info2);
	return 0;
}

static int kvm_entry(struct ftev_ctx *c, struct ktrace_out *o)
{
	uint64_t rip;

	print_num_field(c, o, " vcpu ", NF_U, "", "vcpu_id", true);
	if (get_val(c, o, "rip", &rip, true) < 0)
		return -1;
	kt_out_printf(o, " rip 0x%llx", (unsigned long long)rip);
	return 0;
}

static int kvm_emulate_insn(struct ftev_ctx *c, struct ktrace_out *o)
{
	uint64_t rip, csbase, len, flags, failed, off;
	const struct ftev_field *f;

	if (get_val(c, o, "rip", &rip, true) < 0 || get_val(c, o, "csbase", &csbase, true) < 0 ||
	    get_val(c, o, "len", &len, true) < 0 || get_val(c, o, "flags", &flags, true) < 0 ||
	    get_val(c, o, "failed", &failed, true) < 0)
		return -1;
	f = ftev_find_field(c->ev, "insn");
	if (!f) {
		kt_out_puts(o, "<CANT FIND FIELD insn>");
		return -1;
	}
	off = f->offset;
	if (f->flags & EVF_DYNAMIC) {
		uint64_t v = 0;

		ftev_field_value(c, f, &v);
		off = v & 0xffff;
		if (f->flags & EVF_RELATIVE)
			off += f->offset + f->size;
	}
	kt_out_printf(o, "%llx:%llx: ", (unsigned long long)csbase, (unsigned long long)rip);
	/* without a disassembler the plugin prints the bytes */
	for (uint64_t i = 0; i < len && i < 15; i++) {
		if (i)
			kt_out_putc(o, ' ');
		kt_out_hex2(o, off + i < c->avail ? c->data[off + i] : 0);
	}
	if (failed)
		kt_out_puts(o, " FAIL");
	return 0;
}

static int kvm_nested_vmexit_inject(struct ftev_ctx *c, struct ktrace_out *o)
{
	if (exit_reason(c, o, "exit_code") < 0)
		return -1;
	print_num_field(c, o, " info1 ", NF_HEX, "", "exit_info1", true);
	print_num_field(c, o, " info2 ", NF_HEX, "", "exit_info2", true);
	print_num_field(c, o, " int_info ", NF_HEX, "", "exit_int_info", true);
	print_num_field(c, o, " int_info_err ", NF_HEX, "", "exit_int_info_err", true);
	return 0;
}

static int kvm_nested_vmexit(struct ftev_ctx *c, struct ktrace_out *o)
{
	uint64_t rip;

	if (get_val(c, o, "rip", &rip, true) < 0)
		return -1;
	kt_out_printf(o, " rip %llx", (unsigned long long)rip);
	return kvm_nested_vmexit_inject(c, o);
}

static int kvm_mmu_role(struct ftev_ctx *c, struct ktrace_out *o)
{
	static const char *const access_str[] = { "---", "--x", "w--", "w-x",
						  "-u-", "-ux", "wu-", "wux" };
	uint64_t val;
	unsigned w;

	if (get_val(c, o, "role", &val, true) < 0)
		return -1;
	w = (unsigned)(int)val;
	if (!c->evs->big_endian) {
		kt_out_printf(o, "%u q%u%s %s%s %spae %snxe %swp%s%s%s", w & 15, (w >> 5) & 3,
			      (w >> 7) & 1 ? " direct" : "", access_str[(w >> 8) & 7],
			      (w >> 11) & 1 ? " invalid" : "", (w >> 4) & 1 ? "" : "!",
			      (w >> 12) & 1 ? "" : "!", (w >> 13) & 1 ? "" : "!",
			      (w >> 14) & 1 ? " smep" : "", (w >> 15) & 1 ? " smap" : "",
			      (w >> 24) & 0xff ? " smm" : "");
	} else {
		kt_out_printf(o, "WORD: %08x", w);
	}
	print_num_field(c, o, " root ", NF_U, " ", "root_count", true);
	if (get_val(c, o, "unsync", &val, true) < 0)
		return -1;
	kt_out_puts(o, val ? "unsync" : "sync");
	kt_out_putc(o, 0);
	return 0;
}

static int kvm_mmu_get_page(struct ftev_ctx *c, struct ktrace_out *o)
{
	uint64_t val;

	if (get_val(c, o, "created", &val, true) < 0)
		return -1;
	kt_out_puts(o, val ? "new " : "existing ");
	if (get_val(c, o, "gfn", &val, true) < 0)
		return -1;
	kt_out_printf(o, "sp gfn %llx ", (unsigned long long)val);
	return kvm_mmu_role(c, o);
}

bool ftev_text_from_record(const struct ktrace_events *evs, const struct ktrace_event *ev)
{
	switch (ev->handler) {
	case H_NONE:
	case H_KMEM_CALL_SITE:
	case H_HRTIMER_EXPIRE:
	case H_HRTIMER_START:
		return true;
	case H_SCHED_SWITCH:
	case H_SCHED_WAKEUP:
		/* their text names the comms of the record itself (save_comm) */
		return evs->print_no_learn;
	default:
		/* the function plugin (call depth per CPU), function graph (the next
		 * record), func_repeats (the record's time), and the others, not looked at
		 * one by one */
		return false;
	}
}

int ftev_run_handler(struct ftev_ctx *c, struct ktrace_out *o)
{
	switch (c->ev->handler) {
	case H_SCHED_SWITCH:
		return sched_switch(c, o);
	case H_SCHED_WAKEUP:
		return sched_wakeup(c, o);
	case H_KMEM_CALL_SITE:
		return kmem_call_site(c, o);
	case H_HRTIMER_EXPIRE:
		return hrtimer_expire(c, o);
	case H_HRTIMER_START:
		return hrtimer_start(c, o);
	case H_FUNCTION:
		return function_handler(c, o);
	case H_KERNEL_STACK:
		return kernel_stack(c, o);
	case H_RAW_DATA:
		return raw_data(c, o);
	case H_FUNC_REPEATS:
		return func_repeats(c, o);
	case H_FGRAPH_ENTRY:
		return fgraph_entry(c, o);
	case H_FGRAPH_EXIT:
		return fgraph_exit(c, o);
	case H_FUTEX:
		return futex(c, o);
	case H_TLB_FLUSH:
		return tlb_flush(c, o);
	case H_MAC80211_BSS:
		return mac80211_bss(c, o);
	case H_KVM_EXIT:
		return kvm_exit(c, o);
	case H_KVM_ENTRY:
		return kvm_entry(c, o);
	case H_KVM_EMULATE_INSN:
		return kvm_emulate_insn(c, o);
	case H_KVM_NESTED_VMEXIT:
		return kvm_nested_vmexit(c, o);
	case H_KVM_NESTED_VMEXIT_INJECT:
		return kvm_nested_vmexit_inject(c, o);
	case H_KVM_MMU_GET_PAGE:
		return kvm_mmu_get_page(c, o);
	case H_KVM_MMU_ROLE:
		return kvm_mmu_role(c, o);
	default:
		return 1;
	}
}

/* ---- scsi: the CDB decoding of scsi_trace_parse_cdb() ---- */

struct cdb {
	const uint8_t *p;
	size_t avail;
};

static inline uint64_t cb(const struct cdb *c, size_t i)
{
	return i < c->avail ? c->p[i] : 0;
}

/* (b << 24) is an int shift in the plugin: a set top bit extends to 64 bits */
static inline uint64_t cb24(const struct cdb *c, size_t i)
{
	return (uint64_t)(int64_t)(int32_t)((uint32_t)cb(c, i) << 24);
}

static uint64_t be64_at(const struct cdb *c, size_t i)
{
	return cb(c, i) << 56 | cb(c, i + 1) << 48 | cb(c, i + 2) << 40 | cb(c, i + 3) << 32 |
	       cb24(c, i + 4) | cb(c, i + 5) << 16 | cb(c, i + 6) << 8 | cb(c, i + 7);
}

static uint64_t be32s_at(const struct cdb *c, size_t i)
{
	return cb24(c, i) | cb(c, i + 1) << 16 | cb(c, i + 2) << 8 | cb(c, i + 3);
}

void ftev_scsi_parse_cdb(struct ktrace_out *o, const uint8_t *p, size_t avail, int len)
{
	struct cdb c = { p, avail };
	unsigned op = (unsigned)cb(&c, 0);
	unsigned sa32 = (unsigned)(cb(&c, 8) << 8 | cb(&c, 9));
	const char *cmd;

	(void)len;
	switch (op) {
	case 0x08: case 0x0a:   /* READ_6, WRITE_6 */
		kt_out_printf(o, "lba=%llu txlen=%llu",
			      (unsigned long long)((cb(&c, 1) & 0x1f) << 16 | cb(&c, 2) << 8 | cb(&c, 3)),
			      (unsigned long long)cb(&c, 4));
		return;
	case 0x28: case 0x2f: case 0x2a: case 0x41:   /* READ_10 VERIFY WRITE_10 WRITE_SAME */
		kt_out_printf(o, "lba=%llu txlen=%llu protect=%u", (unsigned long long)be32s_at(&c, 2),
			      (unsigned long long)(cb(&c, 7) << 8 | cb(&c, 8)),
			      (unsigned)(cb(&c, 1) >> 5));
		if (op == 0x41)
			kt_out_printf(o, " unmap=%u", (unsigned)(cb(&c, 1) >> 3 & 1));
		return;
	case 0xa8: case 0xaf: case 0xaa:   /* READ_12 VERIFY_12 WRITE_12 */
		kt_out_printf(o, "lba=%llu txlen=%llu protect=%u", (unsigned long long)be32s_at(&c, 2),
			      (unsigned long long)be32s_at(&c, 6), (unsigned)(cb(&c, 1) >> 5));
		return;
	case 0x88: case 0x8f: case 0x8a: case 0x93:   /* READ_16 VERIFY_16 WRITE_16 WRITE_SAME_16 */
		kt_out_printf(o, "lba=%llu txlen=%llu protect=%u", (unsigned long long)be64_at(&c, 2),
			      (unsigned long long)be32s_at(&c, 10), (unsigned)(cb(&c, 1) >> 5));
		if (op == 0x93)
			kt_out_printf(o, " unmap=%u", (unsigned)(cb(&c, 1) >> 3 & 1));
		return;
	case 0x42: {   /* UNMAP */
		unsigned regions = (unsigned)(cb(&c, 7) << 8 | cb(&c, 8));

		kt_out_printf(o, "regions=%u", (regions - 8) / 16);
		return;
	}
	case 0x9e:     /* SERVICE_ACTION_IN_16 */
		switch (cb(&c, 1) & 0x1f) {
		case 0x10:
			cmd = "READ_CAPACITY_16";
			break;
		case 0x12:
			cmd = "GET_LBA_STATUS";
			break;
		default:
			kt_out_lit(o, "UNKNOWN");
			return;
		}
		kt_out_printf(o, "%s lba=%llu alloc_len=%u", cmd, (unsigned long long)be64_at(&c, 2),
			      (unsigned)(cb(&c, 10) << 24 | cb(&c, 11) << 16 | cb(&c, 12) << 8 |
					 cb(&c, 13)));
		return;
	case 0x7f:     /* VARIABLE_LENGTH_CMD */
		switch (sa32) {
		case 0x09:
			cmd = "READ";
			break;
		case 0x0a:
			cmd = "VERIFY";
			break;
		case 0x0b:
			cmd = "WRITE";
			break;
		case 0x0d:
			cmd = "WRITE_SAME";
			break;
		default:
			kt_out_putc(o, '-');
			return;
		}
		kt_out_printf(o, "%s_32 lba=%llu txlen=%llu protect=%u ei_lbrt=%u", cmd,
			      (unsigned long long)be64_at(&c, 12), (unsigned long long)be32s_at(&c, 28),
			      (unsigned)(cb(&c, 10) >> 5),
			      (unsigned)(cb(&c, 20) << 24 | cb(&c, 21) << 16 | cb(&c, 22) << 8 |
					 cb(&c, 23)));
		if (sa32 == 0x0d)
			kt_out_printf(o, " unmap=%u", (unsigned)(cb(&c, 10) >> 3 & 1));
		return;
	default:
		kt_out_putc(o, '-');
		return;
	}
}
