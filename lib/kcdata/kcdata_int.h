/* SPDX-License-Identifier: MIT */
/* Internals shared by the kcdata reader, decoder and writer. */
#ifndef KTRACE_KCDATA_INT_H
#define KTRACE_KCDATA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/kcdata.h>

/* Deepest nesting of containers plus nested buffers the decoder follows. */
#define KC_MAX_DEPTH 64
#define KC_NAME_MAX 32          /* names are at most 31 bytes + NUL */

/* One field of a type: a kcdata_subtype_descriptor, name cut to 31 bytes. */
struct kc_field {
	uint8_t flags;          /* KCDATA_SUBTYPE_FLAG_* */
	uint8_t elem_type;      /* enum kcdata_subtype, or anything for in-buffer typedefs */
	uint16_t offset;
	uint32_t size;          /* as stored: count << 16 | elem size for arrays */
	char name[KC_NAME_MAX + 1];   /* in-buffer names may fill all 32 bytes */
};

/* How the decoder turns an item of a type into tree nodes (libkdd's three kinds of
 * type description). */
enum kc_kind {
	KC_BASIC,       /* one field, no STRUCT flag: {field name: value}, merged */
	KC_STRUCT,      /* {type name: {fields}} unless merge */
	KC_NESTED,      /* a nested kcdata buffer */
};

struct kc_type {
	uint32_t id;            /* libkdd's type id for it (see decode.c) */
	enum kc_kind kind;
	bool merge;             /* the result's keys go straight into the parent */
	bool desc_key;          /* types 1..6: the "desc" field names the "data" field */
	bool typedef_fields;    /* KCDATA_TYPE_TYPEDEFINITION: add the "fields" list */
	char name[40];          /* "Type_0x%x" fits */
	uint32_t nfields;
	struct kc_field *fields;
};

/* Fills t from the built-in table; false when the type is unknown. t->fields is
 * allocated (free it); on allocation failure returns true with t->fields NULL and
 * t->nfields != 0, which the caller must treat as -ENOMEM. */
bool kc_builtin_type(uint32_t id, struct kc_type *t);
/* Name from the built-in table without building the fields, or NULL. */
const char *kc_builtin_name(uint32_t id);

/* Natural width in bytes of a subtype (0 for unknown subtypes). */
unsigned int kc_subtype_width(uint8_t elem_type);
/* libkdd's element count and total size of a field. */
static inline uint32_t kc_field_count(const struct kc_field *f)
{
	return (f->flags & KCDATA_SUBTYPE_FLAG_ARRAY) ? (f->size >> 16) & 0xffff : 1;
}

static inline uint32_t kc_field_total_size(const struct kc_field *f)
{
	if (f->flags & KCDATA_SUBTYPE_FLAG_ARRAY)
		return (f->size & 0xffff) * ((f->size >> 16) & 0xffff);
	return f->size;
}

const char *kc_subtype_name(uint8_t elem_type);

/* kcdata_buffer_open with a smaller limit on the (decoded) size (fuzzing). */
int kc_buffer_open_limited(const void *data, size_t len, size_t max,
			   struct kcdata_buffer **out, struct ktrace_error *err);

/* ---- Tree nodes (tree.c) ---- */

/* A dictionary entry. key points into an interned struct kc_key, which also holds
 * the key's hash and number. */
struct kc_entry {
	const char *key;
	struct kcdata_node *val;
};

/*
 * A node. Integers and strings use only the first 16 bytes (and are allocated that
 * small); dictionaries and arrays also have cap, and large dictionaries a number in
 * their tree's key index (kcdata_tree.c).
 */
struct kcdata_node {
	uint8_t kind;           /* enum kcdata_node_kind; high bit: owns the arena */
	bool negative;          /* integer from a signed field, below zero */
	uint32_t count;         /* dictionary entries, array elements, string length */
	union {
		uint64_t u;
		char *str;
		struct kcdata_node **items;
		struct kc_entry *entries;
	} v;
	/* dictionaries and arrays only */
	uint32_t cap;
	uint32_t dict_id;       /* indexed dictionaries: their number in the tree's index */
	struct kc_arena *tree;  /* indexed dictionaries: the tree whose index has them */
};

#define KC_SCALAR_NODE_SIZE offsetof(struct kcdata_node, cap)

/* Where a tree's memory comes from; freed all at once. */
struct kc_arena;
struct kc_arena *kc_arena_new(void);
void kc_arena_free(struct kc_arena *a);
void *kc_alloc(struct kc_arena *a, size_t n);

/* Constructors: NULL when out of memory. cap: room for that many children. */
struct kcdata_node *kc_node_new(struct kc_arena *a, enum kcdata_node_kind kind, uint32_t cap);
struct kcdata_node *kc_node_int(struct kc_arena *a, uint64_t v, bool negative);
/* A string of len bytes (copied, NUL added). */
struct kcdata_node *kc_node_string(struct kc_arena *a, const char *s, size_t len);
/* The node handed to the caller: a copy of top that owns the arena (freed with
 * kcdata_node_free). */
struct kcdata_node *kc_root_new(struct kc_arena *a, const struct kcdata_node *top);
/* Index of key in a dictionary, or -1. */
long kc_dict_find(const struct kcdata_node *d, const char *key);
/* Appends key => val; the key must not be present. 0 or -ENOMEM. */
int kc_dict_add(struct kc_arena *a, struct kcdata_node *d, const char *key,
		struct kcdata_node *val);
/* Replaces entry i's value. */
void kc_dict_replace(struct kcdata_node *d, long i, struct kcdata_node *val);
/* Removes key if present. */
void kc_dict_remove(struct kc_arena *a, struct kcdata_node *d, const char *key);
/* Appends val. 0 or -ENOMEM. */
int kc_array_push(struct kc_arena *a, struct kcdata_node *arr, struct kcdata_node *val);
/* Appends src's elements to dst (src is left as it was). 0 or -ENOMEM. */
int kc_array_concat(struct kc_arena *a, struct kcdata_node *dst, struct kcdata_node *src);

/* ---- not exported ---- */
/* True for the begin magics above (COMPRESSED included, BUFFER_END not). */
bool kcdata_is_begin_magic(uint32_t type);

#endif
