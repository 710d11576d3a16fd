/* SPDX-License-Identifier: MIT */
/*
 * Format detection as a table. Each reader defines one `struct kt_detector` (in its own
 * folder, next to its parser) that recognises its format from the first bytes of an
 * input; the engine lists them in the order they are tried (lib/engine/engine_formats.c) and
 * ktrace_detect_format runs that table. Formats with a magic number come first; raw
 * ftrace pages, which have none, last.
 */
#ifndef KTRACE_COMMON_DETECT_H
#define KTRACE_COMMON_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kt_detector {
	int format;                                /* enum ktrace_format (<ktrace/detect.h>) */
	const char *name;                          /* ktrace_detect_format_name's text */
	bool (*match)(const uint8_t *head, size_t len);   /* NULL: never detected */
};

/* The first detector of table (n entries) whose match accepts head, or NULL. */
const struct kt_detector *kt_detect_run(const struct kt_detector *const *table, size_t n,
					const void *head, size_t len);

/* Each reader's detector (defined in its own folder). */
extern const struct kt_detector kt_detector_tracedat;     /* tracedat/tracedat.c */
extern const struct kt_detector kt_detector_elf;          /* koff/elfcore.c */
extern const struct kt_detector kt_detector_koff;         /* koff/reader.c */
extern const struct kt_detector kt_detector_darwin_v3;    /* darwin/ktfile.c */
extern const struct kt_detector kt_detector_darwin_raw;   /* darwin/kdebug.c */
extern const struct kt_detector kt_detector_kcdata;       /* kcdata/buffer.c */
extern const struct kt_detector kt_detector_ring;         /* ring/pages.c */

#endif
