/* SPDX-License-Identifier: MIT */
/*
 * ktrace error convention.
 *
 * Every library function that can fail returns a negative errno-style code
 * (-EINVAL, -ENOMEM, -EBADMSG for corrupt input, -ENODATA for truncated input,
 * -EOVERFLOW for a size that does not fit) or NULL with errno set. Functions that
 * take a `struct ktrace_error *` also leave a human-readable message there, with the
 * file offset the problem was found at when there is one. The library never prints
 * and never exits: the caller decides what to show.
 */
#ifndef KTRACE_ERROR_H
#define KTRACE_ERROR_H

#include <ktrace/api.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KTRACE_ERROR_MESSAGE_MAX 256

struct ktrace_error {
	int code;              /* negative errno value; 0 when no error was recorded */
	int has_offset;        /* offset below is meaningful */
	uint64_t offset;       /* input offset the error refers to */
	char message[KTRACE_ERROR_MESSAGE_MAX];
};

/* Records an error (if err is not NULL) and returns code, so that callers can write
 * `return ktrace_error_set(err, -EINVAL, "bad %s", what);`. */
KTRACE_API int ktrace_error_set(struct ktrace_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Same, for an error found at an input offset. */
KTRACE_API int ktrace_error_at(struct ktrace_error *err, int code, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
KTRACE_API void ktrace_error_clear(struct ktrace_error *err);

/* "offset 0x1a2c: chunk size 9999999 exceeds file" (or the message alone when no offset
 * is known, or strerror(-code) when no message was set), escaped as
 * ktrace_error_escape does: one line of printable UTF-8. Returns buf. */
KTRACE_API const char *ktrace_error_format(const struct ktrace_error *err, char *buf, size_t len);

/* Copies s into buf (len bytes, always NUL-terminated) as printable UTF-8: valid
 * UTF-8 is kept, control characters (new lines included) and bytes that are not
 * UTF-8 become \xNN. A character that does not fit whole is left out. Returns the
 * length written. For any text from a file that goes into a message. */
KTRACE_API size_t ktrace_error_escape(char *buf, size_t len, const char *s);

/*
 * Damaged input that a reader skips. A reader that can leave a damaged place of its
 * input behind and read on (trace.dat: a sub-buffer or a compressed chunk that does not
 * read, CPU data cut short, metadata lost at the end of a file) tells the function set
 * here about each place as it meets it: the input's name and the error, with its
 * offset. The reader's caller still gets an error when the reading ends (after every
 * record that could be read), so a program that sets no function learns of the damage
 * too, one place only. The function may be called from any thread that reads, from
 * several at once, and the same place may be told more than once (each reader of an
 * input meets it). Set it before reading starts; NULL (the default) tells nobody.
 */
typedef void (*ktrace_error_damage_fn)(const char *input, const struct ktrace_error *err, void *arg);
KTRACE_API void ktrace_error_damage_handler(ktrace_error_damage_fn fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif
