/* SPDX-License-Identifier: MIT */
/* Output files written under a temporary name and renamed when complete (tempfile.c). */
#ifndef KTRACE_SQL_TEMPFILE_H
#define KTRACE_SQL_TEMPFILE_H

#include <ktrace/error.h>

struct sql_tmp {
	char *final;                 /* the path written (a link's target) */
	char *tmp;                   /* the temporary file beside it */
	int fd;                      /* open on tmp, -1 once closed */
	int slot;                    /* its entry in the signal cleanup list */
};

/* Creates the temporary file for path: 0, or a negative code with err set. */
int sql_tmp_create(const char *path, struct sql_tmp *t, struct ktrace_error *err);
/* fsync, close, rename over the final path: 0, or a negative code (the temporary file
 * is removed). */
int sql_tmp_commit(struct sql_tmp *t, struct ktrace_error *err);
/* Removes the temporary file. */
void sql_tmp_abort(struct sql_tmp *t);

#endif
