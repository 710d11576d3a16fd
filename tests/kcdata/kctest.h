/* SPDX-License-Identifier: MIT */
/* Helpers for the kcdata tests: building buffers byte by byte, and reading the tree. */
#ifndef KTRACE_TESTS_KCTEST_H
#define KTRACE_TESTS_KCTEST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ktrace/kcdata.h>

struct kbuf {
	uint8_t *p;
	size_t len, cap;
};

static inline void kb_bytes(struct kbuf *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
}

static inline void kb_u32(struct kbuf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	kb_bytes(b, x, 4);
}

static inline void kb_u64(struct kbuf *b, uint64_t v)
{
	kb_u32(b, (uint32_t)v);
	kb_u32(b, (uint32_t)(v >> 32));
}

/* An item header exactly as given (the payload is appended separately). */
static inline void kb_header(struct kbuf *b, uint32_t type, uint32_t size, uint64_t flags)
{
	kb_u32(b, type);
	kb_u32(b, size);
	kb_u64(b, flags);
}

/* Header + payload of `size` bytes from data. */
static inline void kb_item(struct kbuf *b, uint32_t type, uint32_t size, uint64_t flags,
			   const void *data)
{
	kb_header(b, type, size, flags);
	kb_bytes(b, data, size);
}

static inline void kb_begin(struct kbuf *b, uint32_t magic)
{
	kb_header(b, magic, 0, 0);
}

static inline void kb_end(struct kbuf *b)
{
	kb_header(b, KCDATA_TYPE_BUFFER_END, 0, 0);
}

static inline void kb_free(struct kbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Decodes b; returns the tree or NULL (error code in *ret). */
static inline struct kcdata_node *kb_decode(const struct kbuf *b, int *ret)
{
	struct kcdata_node *root = NULL;
	struct ktrace_error err = { 0 };

	*ret = kcdata_decode(b->p, b->len, &root, &err);
	return root;
}

static inline uint64_t path_u64(const struct kcdata_node *root, const char *path)
{
	return kcdata_node_uint(kcdata_node_path(root, path));
}

static inline const char *path_str(const struct kcdata_node *root, const char *path)
{
	return kcdata_node_string(kcdata_node_path(root, path), NULL);
}

#endif
