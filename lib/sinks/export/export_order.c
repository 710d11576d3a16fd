// SPDX-License-Identifier: MIT
/* The exports' thread order (sinks/export/export_order.h). */
#include "sinks/export/export_order.h"

#include <errno.h>
#include <stdlib.h>

static size_t home_slot(const struct kt_thread *th, size_t nslots)
{
	uint64_t h = ((uint64_t)th->id + (uint64_t)th->scope * 0x100000001b3ull) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (nslots - 1);
}

/* Puts index + 1 in the first free slot from th's home slot. */
static void place(uint32_t *slots, size_t nslots, const struct kt_thread *th, uint32_t v)
{
	size_t i;

	for (i = home_slot(th, nslots); slots[i]; i = (i + 1) & (nslots - 1))
		;
	slots[i] = v;
}

int kt_export_thread_order_from(const struct kt_threads *t, size_t first_slots,
				uint32_t **order)
{
	uint32_t *slots = NULL;
	size_t nslots = 0, n = 0;

	*order = NULL;
	for (size_t k = 0; k < t->n; k++) {
		if ((k + 1) * 2 > nslots) {
			size_t more = nslots ? nslots * 2 : first_slots;
			uint32_t *s;

			if (nslots > SIZE_MAX / 4 / sizeof(*s) || !(s = calloc(more, sizeof(*s)))) {
				free(slots);
				return -ENOMEM;
			}
			for (size_t i = 0; i < nslots; i++)
				if (slots[i])
					place(s, more, &t->v[slots[i] - 1], slots[i]);
			free(slots);
			slots = s;
			nslots = more;
		}
		place(slots, nslots, &t->v[k], (uint32_t)k + 1);
	}
	/* the walk, into the front of the slots (never ahead of it) */
	for (size_t i = 0; i < nslots; i++)
		if (slots[i])
			slots[n++] = slots[i] - 1;
	*order = slots;
	return 0;
}
