/* SPDX-License-Identifier: MIT */
/*
 * Moving an iterator past records without handing them out one by one: for readers that
 * only count the records of an event class (the report's threads skip the lines other
 * threads print), split a walk by CPU, or need only what a CPU's records say of its
 * data's completeness (the model's walk). Library-internal.
 */
#ifndef KTRACE_TRACEDAT_SKIP_H
#define KTRACE_TRACEDAT_SKIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/tracedat.h>

/* Which records tracedat_iter_skip moves past: those whose event id (the 2-byte field at
 * id_offset of the record's data, in the file's byte order) has skip[id] == 1, and those
 * with skip[id] == 2 for which check returns true (it may look at the record first); with
 * skip NULL, those for which check returns true. Ids from nids on are never skipped. */
struct tracedat_skip {
	const uint8_t *skip;
	size_t nids;
	uint32_t id_offset;
	bool (*check)(void *arg, const struct tracedat_record *rec, size_t id);
	void *arg;
};

/*
 * it's current record (the one tracedat_iter_next gave last) and the ones after it in
 * merged order, up to max of them, as long as they are to be skipped: *skipped says how
 * many. Returns 1 with *rec the record it stopped on (the current record now, as if
 * tracedat_iter_next had returned it), 0 at the end of the data, or the error
 * tracedat_iter_next would have returned (err filled), *rec NULL in both cases.
 */
int tracedat_iter_skip(struct tracedat_iter *it, const struct tracedat_skip *how, uint64_t max,
		       uint64_t *skipped, const struct tracedat_record **rec,
		       struct ktrace_error *err);

/*
 * Leaves the data of CPUs other than cpus[0..n) unread (their records, lost events and
 * damage unseen), for readers that split a walk by CPU. Before the first
 * tracedat_iter_next only: 0, or -EBUSY.
 */
int tracedat_iter_only_cpus(struct tracedat_iter *it, const int *cpus, size_t n);

/* What one CPU's records say of its data's completeness (the model's walk): whether it
 * has records, and its first record's time. */
struct tracedat_cpu_span {
	bool has;
	uint64_t first;
};

/*
 * Reads the records of one CPU of a buffer (cpu_index as for tracedat_buffer_cpu) in
 * that CPU's order, alone, with the times tracedat_iter_next gives them: fills *out,
 * and calls gap(arg, from, to) for each record with a lost-events mark after an earlier
 * record (from: the time of that CPU's record before it; to: its own), in order. 0; a
 * non-zero return of gap, which stops the walk; or, for damage of any kind (data cut
 * short at open too), its error, told to nobody (the caller reads the merged records
 * instead, which tell it).
 */
int tracedat_cpu_span(struct tracedat *td, size_t buffer, size_t cpu_index,
		      struct tracedat_cpu_span *out,
		      int (*gap)(void *arg, uint64_t from, uint64_t to), void *arg,
		      struct ktrace_error *err);

#endif
