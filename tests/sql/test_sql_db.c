// SPDX-License-Identifier: MIT
/* A program's own statements on the database ktrace_sql_open built (ktrace_sql_db). */
#include <sqlite3.h>
#include <string.h>

#include <ktrace/api.h>
#include <ktrace/sql.h>

#include "testlib.h"

static long long count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long n = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void own_statements(void)
{
	const char *paths[] = { "examples/sched_demo.dat" };
	struct ktrace_error err = { 0 };
	struct ktrace_sql *q = NULL;
	sqlite3 *db;

	CHECK_EQ(ktrace_sql_open(&q, paths, 1, NULL, &err, NULL), 0);
	if (!q)
		return;
	db = ktrace_sql_db(q);
	CHECK(db != NULL);
	if (db) {
		CHECK(count(db, "SELECT count(*) FROM sched_slice") > 10);
		/* the trace has two CPUs (trace-cmd dump: CPUCOUNT 2) */
		CHECK(count(db, "SELECT count(*) FROM sched_slice WHERE cpu NOT IN (0, 1)") == 0);
		CHECK_EQ(sqlite3_exec(db, "CREATE TEMP TABLE mine (x)", NULL, NULL, NULL), SQLITE_OK);
		CHECK_EQ(count(db, "SELECT count(*) FROM mine"), 0);
	}
	ktrace_sql_close(q);
}

int main(void)
{
	PLAN(1);
	RUN(own_statements);
	return tl_failed_cases != 0;
}
