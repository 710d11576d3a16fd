/* SPDX-License-Identifier: MIT */
/*
 * Internals of the event-format parser and the print-fmt engine.
 *
 * Parsing (event_parse.c) turns a format text into fields and a tree of print
 * arguments, following the grammar libtraceevent accepts (including its operator
 * precedence rules, so that expressions group the way trace-cmd groups them). The
 * tree is then compiled (event_compile.c): atoms become numbers, operators opcodes,
 * casts masks, field names field pointers, and the print fmt string a list of
 * segments with parsed conversion specifications. Formatting (event_print.c) walks
 * the compiled segments of a record.
 */
#ifndef KTRACE_FTRACE_EVENT_INTERNAL_H
#define KTRACE_FTRACE_EVENT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <ktrace/event.h>

#include "common/arena.h"
#include "common/cursor.h"
#include "common/hashmap.h"
#include "common/numfmt.h"
#include "common/numspan.h"
#include "common/outbuf.h"

/* ---- memory: everything parsed lives in the registry's arena (common/arena.h) ---- */

/* Tokens and concatenations are built in KT_OUT_HEAP output buffers (common/outbuf.h). */

/* C-locale character classes (chars >= 0x80 are negative and match nothing). */
static inline bool c_is_alnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool c_is_print(int c)
{
	return c >= 0x20 && c < 0x7f;
}

static inline bool c_space(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* The token types of libtraceevent's two tokenizers (print fmts and filters), in its
 * order (the "item" types are T_ITEM..T_SQUOTE), and the type a character starts. */
enum ftev_tok { T_ERROR, T_NONE, T_SPACE, T_NEWLINE, T_OP, T_DELIM, T_ITEM, T_DQUOTE, T_SQUOTE };

static inline enum ftev_tok ftev_char_type(int ch)
{
	if (ch == '\n')
		return T_NEWLINE;
	if (ch < 0)
		return T_NONE;
	if (c_space(ch))
		return T_SPACE;
	if (c_is_alnum(ch) || ch == '_')
		return T_ITEM;
	if (ch == '\'')
		return T_SQUOTE;
	if (ch == '"')
		return T_DQUOTE;
	if (!c_is_print(ch))
		return T_NONE;
	if (ch == '(' || ch == ')' || ch == ',')
		return T_DELIM;
	return T_OP;
}

/* ---- output: a bounded buffer that counts what did not fit (KT_OUT_MEM) ---- */

/* A printf conversion specification, parsed once. */
struct ftev_spec {
	char conv;          /* d i u x X o s p, or 0 */
	bool minus, zero, hash, plus, space;
	bool width_star, prec_star;
	bool plain;         /* no flag, width or precision at all */
	int width;          /* -1: none */
	int prec;           /* -1: none */
};

/* Parses the spec of a format piece ("%-10s"...); returns false if glibc would not
 * accept it as one conversion. */
bool ftev_spec_parse(const char *fmt, struct ftev_spec *spec);
/* printf of one integer per spec, with the width and precision to use (-1: none; a
 * negative '*' width must have been turned into the '-' flag by the caller). value is
 * already converted to the argument type: is_signed reads it as int64 (d, i). */
void ftev_out_int(struct ktrace_out *o, const struct ftev_spec *spec, int width, int prec,
		uint64_t value, bool is_signed);
/* "%0<width>x" (X u d) of a value (d: not negative); width at most 24. */
void ftev_out_zero_padded(struct ktrace_out *o, uint64_t value, unsigned width, char conv);
/* printf("%s") per spec, the string being s[0..n). */
void ftev_out_str(struct ktrace_out *o, const struct ftev_spec *spec, int width, int prec,
		const char *s, size_t n);

/* ---- fields ---- */

enum {
	EVF_ARRAY    = 1 << 0,
	EVF_POINTER  = 1 << 1,
	EVF_SIGNED   = 1 << 2,
	EVF_STRING   = 1 << 3,
	EVF_DYNAMIC  = 1 << 4,
	EVF_LONG     = 1 << 5,
	EVF_RELATIVE = 1 << 6,
};

struct ktrace_event;

struct ftev_field {
	struct ftev_field *next;
	struct ktrace_event *event;
	const char *type;
	const char *name;
	uint32_t name_len;
	uint32_t offset;
	uint32_t size;
	uint32_t arraylen;
	uint32_t elementsize;
	unsigned flags;     /* EVF_*; EVF_STRING may be dropped while printing (-R) */
};

/* ---- print arguments (the tree libtraceevent builds, same shapes) ---- */

enum pa_type {     /* numbered as libtraceevent's (they appear in some messages) */
	PA_NULL,
	PA_ATOM,
	PA_FIELD,
	PA_FLAGS,
	PA_SYMBOL,
	PA_HEX,
	PA_INT_ARRAY,
	PA_TYPE,
	PA_STRING,
	PA_BSTRING,
	PA_DYNAMIC_ARRAY,
	PA_OP,
	PA_FUNC,
	PA_BITMASK,
	PA_DYNAMIC_ARRAY_LEN,
	PA_HEX_STR,
	PA_CPUMASK,
};

struct ftev_flag_sym {
	struct ftev_flag_sym *next;
	const char *value;
	const char *str;
	uint32_t str_len;
	int64_t fval;       /* compiled: libtraceevent's eval_flag(value) */
	bool neg_after;     /* compiled: this entry or a later one has fval < 0 */
};

/* Operators after compilation. */
enum ftev_op {
	OP_BAD = 0,
	OP_ARRAY, OP_COND, OP_NOT, OP_NE, OP_TILDE, OP_LOR, OP_OR, OP_LAND, OP_AND,
	OP_LT, OP_SHL, OP_LE, OP_GT, OP_SHR, OP_GE, OP_EQ, OP_SUB, OP_ADD, OP_DIV, OP_MOD,
	OP_MUL,
};

/* A binary (or, with left 0, unary) operator of the evaluator: both sides evaluated
 * (not for OP_ARRAY and OP_COND). */
static inline uint64_t ftev_apply_op(enum ftev_op code, uint64_t left, uint64_t right)
{
	switch (code) {
	case OP_NOT:
		return !right;
	case OP_NE:
		return left != right;
	case OP_TILDE:
		return ~right;
	case OP_LOR:
		return left || right;
	case OP_OR:
		return left | right;
	case OP_LAND:
		return left && right;
	case OP_AND:
		return left & right;
	case OP_LT:
		return left < right;
	case OP_SHL:
		return left << (right & 63);
	case OP_LE:
		return left <= right;
	case OP_GT:
		return left > right;
	case OP_SHR:
		return left >> (right & 63);
	case OP_GE:
		return left >= right;
	case OP_EQ:
		return left == right;
	case OP_SUB:
		return left - right;
	case OP_ADD:
		return left + right;
	case OP_DIV:
		return right ? left / right : 0;
	case OP_MOD:
		return right ? left % right : 0;
	case OP_MUL:
		return left * right;
	default:
		return 0;
	}
}

/* Casts after compilation (libtraceevent's eval_type_str). */
/* The texts __print_flags gave for the last few values of one argument (a registry is
 * used by one thread: no lock). */
#define FTEV_FLAGS_CACHE 4
#define FTEV_FLAGS_TEXT 112
struct ftev_flags_cache {
	int64_t val[FTEV_FLAGS_CACHE];
	uint8_t len[FTEV_FLAGS_CACHE];   /* 0: empty slot */
	uint8_t next;
	char text[FTEV_FLAGS_CACHE][FTEV_FLAGS_TEXT];
};

enum ftev_cast {
	CAST_NONE = 0, CAST_U8, CAST_U16, CAST_U32,
};

/* A value through an unsigned cast ((u8), (unsigned short), (u32)...). */
static inline uint64_t ftev_apply_cast(uint64_t val, enum ftev_cast c)
{
	switch (c) {
	case CAST_U8:
		return val & 0xff;
	case CAST_U16:
		return val & 0xffff;
	case CAST_U32:
		return val & 0xffffffff;
	default:
		return val;
	}
}

/* Helper functions plugins register (tep_register_print_function). */
enum ftev_func {
	FN_JBD2_DEV_TO_NAME = 1,
	FN_JIFFIES_TO_MSECS,
	FN_LE16_TO_CPUP,
	FN_IS_WRITABLE_PTE,
	FN_SCSI_PARSE_CDB,
	FN_XEN_HYPERCALL_NAME,
};

/* How the value of an argument is got (compiled; 0, the default of a zeroed argument,
 * is the general evaluator). */
enum ftev_vk {
	VK_EVAL = 0,
	VK_FIELD,       /* a 1/2/4/8-byte field, through casts: (read & vmask), 0 outside
			 * the record; then vop with varg, if any */
	VK_CONST,       /* a fixed number: vmask */
};

struct ftev_arg {
	struct ftev_arg *next;
	enum pa_type type;
	uint8_t vk;             /* enum ftev_vk */
	uint8_t vsize;
	uint8_t vop;            /* VK_FIELD: then this operator with varg (OP_BAD: none) */
	uint32_t voff;
	uint64_t vmask;
	uint64_t varg;
	union {
		struct {
			char *atom;
			/* compiled */
			uint64_t num;
			bool num_zero;      /* strtoull gave 0: may be a kallsyms symbol */
			bool sym_done;
		} atom;
		struct {
			char *name;
			struct ftev_field *field;
		} field;
		struct {
			struct ftev_arg *field;
			char *delim;
			struct ftev_flag_sym *flags;
			struct ftev_flags_cache *cache;   /* recent values' texts */
		} flags;
		struct {
			struct ftev_arg *field;
			struct ftev_flag_sym *symbols;
		} symbol;
		struct {
			struct ftev_arg *field;
			struct ftev_arg *size;
		} hex;
		struct {
			struct ftev_arg *field;
			struct ftev_arg *count;
			struct ftev_arg *el_size;
		} int_array;
		struct {
			char *type;
			struct ftev_arg *item;
			enum ftev_cast cast;        /* compiled, for a value */
			enum ftev_cast ptr_cast;    /* compiled, for "(type *)" array reads */
		} typecast;
		struct {
			char *string;
			struct ftev_field *field;
			uint32_t slen;            /* BSTRING: its length */
		} string;
		struct {
			char *bitmask;
			struct ftev_field *field;
		} bitmask;
		struct {
			struct ftev_field *field;
		} dynarray;
		struct {
			char *op;
			struct ftev_arg *left;
			struct ftev_arg *right;
			int prio;
			enum ftev_op code;          /* compiled */
		} op;
		struct {
			enum ftev_func func;
			int nargs;
			struct ftev_arg *args;
		} func;
	};
};

/* ---- the print fmt as segments (libtraceevent's print cache) ---- */

enum seg_type {
	SEG_STRING,     /* literal text */
	SEG_DIGIT,      /* %d %u %x ... */
	SEG_POINTER,    /* %p and extensions */
	SEG_STR,        /* %s */
};

struct ftev_seg {
	struct ftev_seg *next;
	enum seg_type type;
	char *format;           /* the conversion text, or the literal */
	size_t flen;
	struct ftev_arg *arg;
	struct ftev_arg *len_arg;
	int ls;                 /* length modifier: -2 hh, -1 h, 0, 1 l, 2 ll */
	struct ftev_spec spec;    /* compiled */
	bool spec_ok;
	bool ends_0x;           /* literal ending in "0x" (for -R) */
};

/* The print fmt of an event as steps, compiled from its segments: each step writes
 * the literal text before a conversion, then the conversion, the common ones through
 * shortcuts. */
enum ftev_step_kind {
	STEP_LAST,      /* the literal, and the end */
	STEP_LIT,       /* only the literal (two literals in a row) */
	STEP_SEG,       /* the segment, in full */
	STEP_INT,       /* plain %d %i %u %x %X of a value */
	STEP_ZPAD,      /* the same with a '0' flag and a width ("%08lx") */
	STEP_PTR,       /* plain %p of a value */
	STEP_FUNC,      /* %pS %ps %pF %pf */
	STEP_DYNSTR,    /* plain %s of __get_str() */
	STEP_CONDSTR,   /* plain %s of COND ? "string" : "string" */
};

struct ftev_step {
	const char *lit;
	uint32_t lit_len;
	uint8_t kind;           /* enum ftev_step_kind */
	uint8_t shift;          /* STEP_INT, STEP_ZPAD: 64 - the bits of the length modifier */
	bool sgn;               /* STEP_INT, STEP_ZPAD: %d %i */
	char conv;              /* STEP_INT, STEP_ZPAD: d u x X; STEP_FUNC: S s F f */
	uint8_t width;          /* STEP_ZPAD: 1..24 */
	const struct ftev_seg *seg;
};

/* ---- events ---- */

enum {
	EV_FAILED   = 1 << 0,
	EV_ISFTRACE = 1 << 1,
	EV_ISBPRINT = 1 << 2,
};

/* Print handlers of the plugins (and of trace-cmd itself, for function graphs). */
enum ftev_handler {
	H_NONE = 0,
	H_SCHED_SWITCH,
	H_SCHED_WAKEUP,
	H_KMEM_CALL_SITE,
	H_HRTIMER_EXPIRE,
	H_HRTIMER_START,
	H_FUNCTION,
	H_KERNEL_STACK,
	H_RAW_DATA,
	H_FUNC_REPEATS,
	H_FGRAPH_ENTRY,
	H_FGRAPH_EXIT,
	H_FUTEX,
	H_TLB_FLUSH,
	H_MAC80211_BSS,
	H_KVM_EXIT,
	H_KVM_ENTRY,
	H_KVM_EMULATE_INSN,
	H_KVM_NESTED_VMEXIT,
	H_KVM_NESTED_VMEXIT_INJECT,
	H_KVM_MMU_GET_PAGE,
	H_KVM_MMU_ROLE,
};

struct ktrace_event {
	struct ktrace_events *evs;
	int id;
	char *name;
	char *system;
	unsigned flags;
	struct ftev_field *common;
	struct ftev_field *fields;
	int ncommon, nfields;
	struct ftev_field **field_at;   /* fields[i] by index (nfields) */
	char *print_fmt;
	char *print_args;               /* their text, as the format gives it (or NULL) */
	struct ftev_arg *args;
	struct ftev_seg *segs;
	struct ftev_step *steps;        /* NULL: print the segments one by one */
	enum ftev_handler handler;
	/* fields a print handler looks up by name, found once */
	struct ftev_field *hf[16];
	uint32_t hf_known;
	/* ktrace_event_learn_comms: 0 not worked out yet, 1 read the fields by name, 2 or 3:
	 * the 1 or 2 pids it teaches comms of are 4-byte numbers at learn_off */
	uint8_t learn_state;
	uint16_t learn_off[2];
};

/* What libtraceevent's make_bprint_args does at one '%' of a bprint format. */
struct ftev_bscan {
	uint8_t kind;           /* BS_NUM, BS_STR, BS_PEXT */
	uint8_t vsize;          /* bytes of a number */
	bool start;             /* first read of a conversion: the data must remain */
};
enum { BS_NUM, BS_STR, BS_PEXT };

/* bprint formats, compiled once per printk address. */
struct ftev_bprint {
	uint64_t addr;
	char *fmt;              /* "%ps: " + the printk format */
	struct ftev_seg *segs;
	struct ftev_arg *ph;      /* placeholders the segments point to: ip, then args */
	int nph;
	struct ftev_bscan *scan;
	int nscan;
};

struct ftev_sym {
	uint64_t addr;
	const char *name;
	const char *mod;
	uint32_t name_len;
	uint32_t index;             /* the order kallsyms listed it in */
};

/* Makes the symbol table of a registry whose kallsyms were deferred. */
void ftev_syms_load(struct ktrace_events *evs);

/* Recent function lookups (the same call sites come back all the time). */
#define EV_FCACHE 1024
struct ftev_fcache {
	uint64_t addr;
	const struct ftev_sym *sym;   /* NULL: not found */
	bool valid;
};

struct ftev_printk {
	uint64_t addr;
	const char *fmt;
};

struct ftev_comm {
	int pid;
	const char *comm;
};

#define EV_COMM_CACHE 256
#define EV_LEARNT_PIDS 4096

struct ftev_fstack {     /* the function plugin's per-CPU stack of names */
	const char **names;
	int size;
};

struct ktrace_events {
	struct kt_arena arena;
	int long_size;
	bool big_endian;
	enum ktrace_event_option ts_format;

	/* header_page */
	int hp_ts_offset, hp_ts_size, hp_size_offset, hp_size_size, hp_data_offset, hp_data_size;

	struct ktrace_event **events;      /* sorted by id like libtraceevent's array */
	size_t nevents, cap_events;
	struct ktrace_event **by_id;       /* direct table up to the largest id, built lazily */
	size_t nby_id;
	bool by_id_valid;

	/* common fields (from the event with the lowest id, found on first use) */
	int type_offset, type_size;
	int pid_offset, pid_size;
	int flags_offset, flags_size;
	int pc_offset, pc_size;
	int ld_offset, ld_size;
	bool check_lock_depth, check_migrate_disable;
	bool lock_depth_exists, migrate_disable_exists;

	/* kallsyms, sorted as libtraceevent sorts them, plus a sentinel */
	struct ftev_sym *syms;
	size_t nsyms, cap_syms;
	bool syms_sorted;           /* libtraceevent's function map is built (the first
				     * lookup sorts): symbol names resolve in its order */
	bool syms_in_order;         /* the table itself is sorted by address */
	bool syms_borrowed;         /* another registry's table (ftev_share_symbols) */
	size_t sym_name_bytes;      /* the symbols' names and modules in sym_arena */
	struct kt_arena sym_arena;
	/* a big kallsyms read into one go: syms (syms_big bytes) and the names (names_big
	 * bytes, names_used of them filled) in kt_bigmem_alloc memory (common/bigmem.h) */
	size_t syms_big;
	char *names;
	size_t names_big, names_used;
	struct ftev_fcache *fcache;
	/* kallsyms taken but not parsed yet (ftev_defer_kallsyms): the table is made on
	 * first need (ftev_syms_need), under sym_mu; a registry that shares another's
	 * symbols (sym_owner) has it made there and takes it then */
	atomic_bool syms_pending;
	const char *ksym_text;
	size_t ksym_len;
	struct ktrace_events *sym_owner;
	pthread_mutex_t sym_mu;

	/* the last comm looked up, and recent lookups by pid (direct-mapped) */
	int last_pid;
	const char *last_comm;
	struct ftev_comm comm_cache[EV_COMM_CACHE];

	struct ftev_printk *printks;
	size_t nprintks, cap_printks;
	bool printks_sorted;

	/* pids ktrace_event_learn_comms learnt from (pid + 1 at pid modulo
	 * EV_LEARNT_PIDS): their first comm stays, later records teach nothing */
	uint32_t *learnt_pids;

	struct ftev_comm *comms;
	size_t ncomms, cap_comms;
	bool comms_sorted;          /* the table was looked up: new pids are inserted */
	bool print_no_learn;        /* printing a record registers no comm (its reader
				     * registered them already: ftev_print_learns) */

	/* bprint */
	struct ftev_field *bprint_fmt_field, *bprint_ip_field, *bprint_buf_field;
	struct kt_map bprint_index;      /* printk address -> bprints[] */
	struct ftev_bprint **bprints;
	size_t nbprints, cap_bprints;

	/* function plugin state */
	struct ftev_fstack *fstack;
	int fstack_cpus;            /* highest cpu + 1 */

	/* trace-cmd's function graph */
	struct ktrace_event *fgraph_ret;
	/* BTF (ftev_defer_btf): parsed on the first funcgraph_entry with an args field */
	const uint8_t *btf_data;
	size_t btf_len;
	struct ftev_btf *btf;
	bool btf_tried;

	char scratch[64];
};

/* A 1/2/4/8-byte number of the record's byte order (0 for other sizes). */
static inline uint64_t ftev_read_number(const struct ktrace_events *evs, const uint8_t *p,
				      unsigned size)
{
	return kt_load_sized(p, size, evs->big_endian);
}

/* event_btf.c: the traced kernel's BTF, for function-graph arguments (trace-cmd 3.4).
 * ftev_btf_load: NULL when the BTF is one libtraceevent refuses (or no memory); data
 * must stay valid as long as the result. ftev_btf_print_args writes what
 * tep_btf_print_args writes for nmem arguments of size bytes (4 or 8, in the record's
 * byte order) of the function named func (flen bytes); b NULL: no BTF. */
struct ftev_btf;
struct ftev_btf *ftev_btf_load(const uint8_t *data, size_t len);
void ftev_btf_free(struct ftev_btf *b);
void ftev_btf_print_args(struct ktrace_events *evs, const struct ftev_btf *b, struct ktrace_out *o,
			 const uint8_t *args, int nmem, int size, const char *func, size_t flen);

/* event_parse.c */
struct ktrace_event *ftev_parse_format(struct ktrace_events *evs, const char *system, const char *text,
				 size_t len, struct ktrace_error *err);
int ftev_parse_header_page(struct ktrace_events *evs, const char *text, size_t len);
/* Builds the segment list of a print fmt (libtraceevent's parse_args); may set
 * EV_FAILED on ev. */
struct ftev_seg *ftev_build_segments(struct ktrace_event *ev, const char *format, struct ftev_arg *args);
uint64_t ftev_cast_value(uint64_t val, const char *type, bool pointer);
/* Parses a print fmt string (a format text's print fmt line) into segments for a
 * bprint format and its argument list built at run time. */

/* event_compile.c */
void ftev_compile_event(struct ktrace_event *ev);
void ftev_compile_segments(struct ftev_seg *segs);
struct ftev_field *ftev_find_field(const struct ktrace_event *ev, const char *name);
struct ftev_field *ftev_find_common_field(const struct ktrace_event *ev, const char *name);
struct ftev_field *ftev_find_any_field(const struct ktrace_event *ev, const char *name);
enum ftev_handler ftev_handler_for(const char *system, const char *name);
bool ftev_func_lookup(const char *name, enum ftev_func *func, int *nargs);

/* event_meta.c */
const struct ftev_sym *ftev_find_func(struct ktrace_events *evs, uint64_t addr);
const struct ftev_printk *ftev_find_printk(struct ktrace_events *evs, uint64_t addr);
uint64_t ftev_symbol_value(struct ktrace_events *evs, const char *name);
const char *ftev_comm_lookup(struct ktrace_events *evs, int pid);
void ftev_comm_learn(struct ktrace_events *evs, int pid, const char *comm, size_t n,
		     bool looked_up);
int ftev_common_value(struct ktrace_events *evs, const uint8_t *data, uint32_t size,
		    const char *name, int *offset, int *fsize);

/* event_print.c */
struct ftev_ctx {
	struct ktrace_events *evs;
	const struct ktrace_record *rec;
	const uint8_t *data;
	uint32_t size;          /* the record */
	uint32_t avail;         /* readable from data (>= size): libtraceevent reads past
				 * the record where it does not check */
	struct ktrace_event *ev;
	unsigned out_flags;
	int depth;
};

/* A context for formatting rec, an event of ev. */
static inline void ftev_ctx_init(struct ftev_ctx *c, struct ktrace_events *evs,
				 const struct ktrace_record *rec, const struct ktrace_event *ev)
{
	c->evs = evs;
	c->rec = rec;
	c->data = rec->data;
	c->size = rec->size;
	c->avail = rec->avail > rec->size ? rec->avail : rec->size;
	c->ev = (struct ktrace_event *)ev;
}

/* A field's number when it lies inside the record (tep_read_number_field). */
bool ftev_field_value(const struct ftev_ctx *c, const struct ftev_field *f, uint64_t *val);
uint64_t ftev_eval(struct ftev_ctx *c, struct ftev_arg *arg);
void ftev_pretty_print(struct ftev_ctx *c, struct ktrace_out *o);
void ftev_print_fields(struct ftev_ctx *c, struct ktrace_out *o);
void ftev_print_event_time(struct ktrace_out *o, const char *format, uint64_t ts);

/* event_plugins.c: returns libtraceevent's "print pretty too" value. */
void ftev_scsi_parse_cdb(struct ktrace_out *o, const uint8_t *cdb, size_t avail, int len);
int ftev_run_handler(struct ftev_ctx *c, struct ktrace_out *o);
/* What the sched_switch/sched_wakeup handlers teach the comm table, without their text
 * (c->ev is one of them). */
void ftev_learn_comms(struct ftev_ctx *c);

/* The symbol table, made now if it was deferred (one atomic load when it is made). */
static inline void ftev_syms_need(struct ktrace_events *evs)
{
	if (__builtin_expect(atomic_load_explicit(&evs->syms_pending, memory_order_acquire), 0))
		ftev_syms_load(evs);
}

#endif
