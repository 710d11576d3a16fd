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

struct kc_entry {
	char *key;
	uint32_t hash;
	struct kcdata_node *val;
};

struct kcdata_node {
	uint8_t kind;           /* enum kcdata_node_kind */
	bool negative;          /* integer from a signed field, below zero */
	uint32_t count;         /* dictionary entries, array elements, string length */
	uint32_t cap;
	union {
		uint64_t u;
		char *str;
		struct kcdata_node **items;
		struct {
			struct kc_entry *entries;
			uint32_t *index;        /* hash index (slot -> entry + 1), from 16 entries */
			uint32_t index_cap;
		} d;
	} v;
};

struct kcdata_node *kc_node_new(enum kcdata_node_kind kind);
struct kcdata_node *kc_node_int(uint64_t v, bool negative);
/* A string of len bytes (copied, NUL added). */
struct kcdata_node *kc_node_string(const char *s, size_t len);
/* Index of key in a dictionary, or -1. */
long kc_dict_find(const struct kcdata_node *d, const char *key);
/* Appends key (copied) => val; the key must not be present. val is owned by d
 * afterwards, also on failure (-ENOMEM), when it is freed. */
int kc_dict_add(struct kcdata_node *d, const char *key, struct kcdata_node *val);
/* Replaces entry i's value (the old one is freed). */
void kc_dict_replace(struct kcdata_node *d, long i, struct kcdata_node *val);
/* Removes key if present. */
void kc_dict_remove(struct kcdata_node *d, const char *key);
/* Appends val (owned afterwards, freed on failure). */
int kc_array_push(struct kcdata_node *a, struct kcdata_node *val);
/* Moves src's elements to the end of dst and frees src. */
int kc_array_concat(struct kcdata_node *dst, struct kcdata_node *src);

#endif
