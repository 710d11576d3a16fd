/* SPDX-License-Identifier: MIT */
/*
 * The order the Chrome JSON and Perfetto exports write threads and processes in: an
 * output-compatibility rule, not a property of the thread table.
 *
 * Before issue 31 the thread table had a hash table of its own and these exports wrote
 * the threads (and Perfetto's process tree its processes) in that hash table's slot
 * order. The table now keeps (scope, id) in the common hash map, whose slots nobody
 * walks, so the old order is computed here, and the exports' output stays byte for byte
 * what it was: the entries are placed again, in index order, by the old rule (a slot
 * array of 256 to start with, twice as many slots, the entries placed again in the old
 * slots' order, before an add would make it more than half full; home slot the top 32
 * bits of ((id + scope * 0x100000001b3) * 0x9e3779b97f4a7c15) masked to the slots;
 * linear probing), and the slots are then walked from the first.
 */
#ifndef KTRACE_SINKS_EXPORT_ORDER_H
#define KTRACE_SINKS_EXPORT_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define KT_EXPORT_FIRST_SLOTS 256

/* The indices of t's entries (t->n of them) in that order with first_slots slots to
 * start with (a power of two: the exports' is KT_EXPORT_FIRST_SLOTS, tests take fewer),
 * in *order (malloc'd, to free; NULL when t is empty): 0 or -ENOMEM. */
int kt_export_thread_order_from(const struct kt_threads *t, size_t first_slots,
				uint32_t **order);

/* The exports' order of t's entries (as above). */
static inline int kt_export_thread_order(const struct kt_threads *t, uint32_t **order)
{
	return kt_export_thread_order_from(t, KT_EXPORT_FIRST_SLOTS, order);
}

#endif
