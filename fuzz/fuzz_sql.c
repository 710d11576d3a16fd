// SPDX-License-Identifier: MIT
/*
 * Fuzz harness for ktrace sql (<ktrace/sql.h>): any input (the format is detected)
 * from a memory file built into the tables (the walk with its scheduling, counter and
 * slice derivations), then queries that scan the virtual tables (event, args, joins,
 * extract_arg, id ranges) and every derived table, printed to /dev/null.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ktrace/sql.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char queries[] =
	"select count(*) from event;"
	"select * from event where id between 2 and 40;"
	"select * from args limit 2000;"
	"select e.id, e.name, a.key, a.int_value from event e join args a using (arg_set_id) "
	"  where e.id % 5 = 0 limit 500;"
	"select extract_arg(arg_set_id, 'prev_pid'), extract_arg(arg_set_id, 'text') from event limit 200;"
	"select name, count(*) from event group by name;"
	"select * from trace; select * from thread; select * from process;"
	"select * from sched_slice; select * from thread_state; select * from lost_events;"
	"select * from counter_track; select * from counter; select * from slice;";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_error err = { 0 };
	struct ktrace_sql *q;
	struct ktrace_out *out;
	char path[64];
	const char *paths[1];
	int fd = memfd_create("fuzz_sql", 0);
	int null = open("/dev/null", O_WRONLY);
	const char *ep = NULL;
	volatile size_t sink = 0;

	if (fd < 0 || null < 0)
		goto done;
	if (size && write(fd, data, size) != (ssize_t)size)
		goto done;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	paths[0] = path;
	/* the error's path is the caller's string, read after the tables are gone */
	if (ktrace_sql_open(&q, paths, 1, NULL, &err, &ep)) {
		sink ^= ep ? strlen(ep) : 0;
		goto done;
	}
	out = ktrace_out_new(null);
	if (out) {
		ktrace_sql_exec(q, queries, KTRACE_SQL_TSV, out, &err);
		ktrace_sql_exec(q, "select * from event where id > 3 limit 20", KTRACE_SQL_JSON, out, &err);
		ktrace_out_flush(out);
		ktrace_out_free(out);
	}
	if (ktrace_sql_input_error(q, &err, &ep) && ep)
		sink ^= strlen(ep);
	ktrace_sql_close(q);
done:
	if (fd >= 0)
		close(fd);
	if (null >= 0)
		close(null);
	(void)sink;
	return 0;
}
