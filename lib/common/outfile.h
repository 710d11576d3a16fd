/* SPDX-License-Identifier: MIT */
/*
 * The one way every writer of the library creates its output file.
 *
 *   - A regular file, or a path that does not exist yet, is written under a temporary
 *     name beside it ("PATH.tmpXXXXXX") and renamed over it by kt_outfile_commit: a
 *     failed or interrupted writer never leaves a half-written file under the final
 *     name. An existing file keeps its mode and (when we may set it) its owner; a new
 *     file gets 0666 less the umask.
 *   - A symbolic link is followed: its target is replaced, the link stays.
 *   - A FIFO, a character or block device, and "-" (standard output) are written as a
 *     stream, never replaced. When the writer needs to seek (KT_OUTFILE_SEEKABLE), the
 *     file is built in an anonymous temporary file first (in $TMPDIR, else /tmp) and
 *     copied to the stream by kt_outfile_commit.
 *   - A directory, a socket or anything else is refused.
 *   - An existing file is replaced only when the user may write it (as open(2) judges
 *     it for the effective ids): a file someone else made read-only is not replaced
 *     behind their back by a rename in a directory the user may write, as cp and a
 *     shell's redirection refuse it. Root may replace it, as with them.
 *
 * While a temporary file exists, the signals that would end the process (SIGINT,
 * SIGTERM, SIGHUP, ... SIGSEGV) remove it first: each time a temporary file is made,
 * a handler is installed for each of those signals that is at its default action (a
 * handler the program set itself, or an ignored signal, is never replaced). The handler removes
 * the temporaries of this process, restores the default action and raises the signal
 * again.
 */
#ifndef KTRACE_COMMON_OUTFILE_H
#define KTRACE_COMMON_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>

enum {
	/* The writer seeks or writes at offsets (pwrite): streams get a spool file. */
	KT_OUTFILE_SEEKABLE = 1u << 0,
	/* Create a new regular file only: the path is not followed when it is a symbolic
	 * link, nothing is ever replaced, and kt_outfile_commit returns -EEXIST when the
	 * path exists by then (the temporary file is removed). The file is private (0600). */
	KT_OUTFILE_CREATE_ONLY = 1u << 1,
	/* Skip fsync before the rename (files in memory, such as /dev/shm buffers). */
	KT_OUTFILE_NO_SYNC = 1u << 2,
	/* A regular file only (a database that other code opens by name): "-", FIFOs and
	 * devices are refused with -EINVAL. */
	KT_OUTFILE_FILE_ONLY = 1u << 3,
};

struct kt_outfile;

/* Prepares the output for path (see above). Returns 0 and *out, or a negative errno
 * with a message naming path in err. */
int kt_outfile_open(const char *path, unsigned int flags, struct kt_outfile **out,
		    struct ktrace_error *err);
/* The descriptor to write to (the temporary file, the spool or the stream). */
int kt_outfile_fd(const struct kt_outfile *f);
/* The path as given to kt_outfile_open, for messages. */
const char *kt_outfile_name(const struct kt_outfile *f);
/* True when the output goes straight to a FIFO, a device or standard output. */
bool kt_outfile_is_stream(const struct kt_outfile *f);
/* The name of the file being written (the temporary file beside the target, or the
 * file in a kt_outdir's temporary directory), for code that writes the file by its
 * name (SQLite); NULL for streams. */
const char *kt_outfile_temp_path(const struct kt_outfile *f);
/* Writes all of p at the current position of kt_outfile_fd (EINTR retried). 0 or a
 * negative errno with a message in err. */
int kt_outfile_write(struct kt_outfile *f, const void *p, size_t n, struct ktrace_error *err);
/* Completes the output: fsync and rename over the target (or copies the spool to the
 * stream), then frees f. On failure the temporary file is removed and the target is
 * left as it was. Returns 0 or a negative errno with a message in err. */
int kt_outfile_commit(struct kt_outfile *f, struct ktrace_error *err);
/* Gives up: removes the temporary file, frees f. NULL is fine. */
void kt_outfile_abort(struct kt_outfile *f);

/*
 * An output directory (a set of files that belong together, such as one file per
 * table) is written the same way: built under a temporary name beside it
 * ("PATH.tmpXXXXXX"), removed whole by a failure or a fatal signal, and renamed to PATH
 * by kt_outdir_commit when every file is complete. A symbolic link is followed. An
 * existing PATH is replaced whole (exchanged atomically where the file system can,
 * keeping its mode and owner) when it is a directory the user may write that holds
 * only regular files named in names (what an earlier run of the same writer made; the
 * caller keeps the list until commit or abort); anything else there is refused with
 * -ENOTEMPTY (or -ENOTDIR for a file), before anything is written.
 */
struct kt_outdir;

int kt_outdir_open(const char *path, const char *const *names, struct kt_outdir **out,
		   struct ktrace_error *err);
/* Creates the file name in the directory; write it through the kt_outfile calls and
 * end it with kt_outfile_commit (fsync, close: it keeps its name) or kt_outfile_abort
 * (removed). Its messages name "PATH/name". */
int kt_outdir_file(struct kt_outdir *d, const char *name, struct kt_outfile **out,
		   struct ktrace_error *err);
/* The path as given to kt_outdir_open. */
const char *kt_outdir_name(const struct kt_outdir *d);
/* Renames the directory to PATH (its files committed first), then frees d. On failure
 * the temporary directory is removed and PATH left as it was. */
int kt_outdir_commit(struct kt_outdir *d, struct ktrace_error *err);
/* Gives up: removes the temporary directory and its files, frees d. NULL is fine. */
void kt_outdir_abort(struct kt_outdir *d);

/* An anonymous temporary file (no name, gone when closed) in dir (NULL: $TMPDIR, else
 * /tmp), open for reading and writing: for spooling streams and captured data. A
 * descriptor, or a negative errno. */
int kt_outfile_anonymous(const char *dir);

/* Writes n bytes to fd (again after EINTR and short writes): 0, or -errno (-EIO when
 * the descriptor takes nothing). */
int kt_write_all(int fd, const void *p, size_t n);
/* The same with pwrite(2) at offset at. */
int kt_pwrite_all(int fd, const void *p, size_t n, uint64_t at);
/* Reads n bytes of fd at offset at (again after EINTR and short reads): 0, or -errno
 * (-ENODATA when the file ends first). */
int kt_pread_all(int fd, void *p, size_t n, uint64_t at);

#endif
