/* SPDX-License-Identifier: MIT */
/* Internal state of the trace.dat reader, shared by its source files. */
#ifndef KTRACE_TRACEDAT_INT_H
#define KTRACE_TRACEDAT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ktrace/error.h>
#include <ktrace/input.h>
#include <ktrace/tracedat.h>

/* Limits that keep memory bounded by the file (and sane) whatever the bytes say. */
#define TD_MIN_PAGE_SIZE      64u
#define TD_MAX_PAGE_SIZE      (1u << 20)
#define TD_MAX_CPUS           (1u << 20)        /* CPUs the writer takes (ids below) */
#define TD_PAGES_PER_CHUNK    10u               /* trace-cmd's PAGES_IN_CHUNK */
#define TD_MAX_SECTION_BYTES  (1ull << 30)      /* one decompressed metadata section */
#define TD_MAX_OPTION_SECTIONS 4096
#define TD_MAX_WARNINGS       64
#define TD_MAX_DAMAGE         256

/* ---- decompression ---- */
enum td_codec_kind { TD_CODEC_NONE, TD_CODEC_ZSTD, TD_CODEC_ZLIB };

struct td_codec {
	enum td_codec_kind kind;
	void *zstd;                 /* ZSTD_DCtx */
};

int td_codec_init(struct td_codec *c, enum td_codec_kind kind);
void td_codec_fini(struct td_codec *c);
/* Whether want bytes announced for slen compressed bytes are within a ratio real data
 * reaches (64:1): then they are allocated at once, else the output grows only as far as
 * the data really goes. */
static inline bool td_size_plausible(size_t slen, size_t want)
{
	return want / 64 <= slen + 4096;
}
/* Decompresses src, which must produce exactly want bytes, into *buf (of *cap bytes),
 * growing it as the output really appears (never beyond want). 0, -EBADMSG (corrupt
 * data or another size) or -ENOMEM. */
int td_decompress_grow(struct td_codec *c, const void *src, size_t slen, uint8_t **buf,
		       size_t *cap, size_t want);

/* ---- metadata ---- */
struct td_text {
	const char *data;
	size_t len;
};

/* A region of metadata: mapped bytes, or a decompressed copy we own. */
struct td_region {
	bool present;
	bool compressed;
	uint64_t offset;            /* file offset of the section header (v7) or data (v6) */
	uint64_t data_offset;       /* file offset of the content (the compression header
	                               when compressed) */
	uint64_t size;              /* content bytes in the file */
	uint8_t *owned;             /* decompressed content, when loaded */
	size_t owned_big;           /* owned is kt_bigmem memory of this many bytes (0:
				     * malloc's) */
	const uint8_t *data;        /* content (mapped or owned) */
	size_t len;
};

struct td_format {
	size_t system;              /* index in systems, or SIZE_MAX for ftrace */
	struct td_text text;
};

struct td_system {
	const char *name;
	size_t first;               /* index of its first format in events[] */
	size_t count;
};

struct td_zcpu;

struct td_cpu {
	struct tracedat_cpu pub;
	uint64_t first_chunk;       /* file offset of the first chunk header (compressed) */
	uint64_t from;              /* where its offset was read (for errors) */
	uint64_t id_at, size_at;    /* where its CPU id (v7) and size were read */
	/* v7: its CPU id is not below the file's CPU count: told as damage at open and
	 * its entry left out of the buffer (its place still bounds the others' data) */
	bool bad_id;
	struct td_zcpu *zc;         /* its shared decompressed chunks (tracedat_share.c) */
	/* Its data was found damaged at open and ends early: pub.data_size (and
	 * pub.chunks) cover what can be read, cut says where and why (also in td->damage).
	 * cut_page: the last page is cut by the end of the file (read up to there). */
	bool damaged;
	bool cut_page;
	struct ktrace_error cut;
	/* compressed data whose chunk header was damaged: the chunks found again after it
	 * start at resync_at, as chunk resync_chunk (0: none) */
	uint64_t resync_at;
	uint32_t resync_chunk;
};

struct td_buffer {
	struct tracedat_buffer pub;
	struct td_cpu *cpus;
	size_t ncpus;
	uint64_t latency_offset;    /* latency text: content offset and size */
	uint64_t latency_size;
	bool host_sync;             /* TIME_SHIFT corrections apply (top buffer only) */
	uint64_t from;              /* where its offset was read (for errors) */
	uint64_t data_start;        /* where its CPU data may be: v7 its section's content, */
	uint64_t data_end;          /* v6 the file */
	bool recovered;             /* v7: found walking data whose option was lost */
};

struct td_tsync_sample {
	int64_t time, offset, scaling, fraction;
};

struct td_tsync_cpu {
	struct td_tsync_sample *samples;
	size_t count;
};

/* A lazily loaded text section (kallsyms, printk, cmdlines, BTF, modules). */
struct td_lazy {
	bool present;
	struct td_region region;    /* the whole section */
	uint16_t id;                /* the section's id */
	size_t header_bytes;        /* size field before the text: 4 or 8; 0: none, the
				     * section (or the option) is the text */
	uint64_t text_size;         /* the size field */
	struct td_text text;        /* once loaded */
	bool loaded;
};

struct tracedat {
	struct ktrace_input *in;
	bool owns_input;
	bool release_pages;         /* the map is a file mapping: drop consumed pages */
	const uint8_t *map;
	uint64_t size;
	unsigned int flags;

	struct tracedat_header hdr;
	char version_str[16];
	char comp_name[32];
	char comp_version[64];
	enum td_codec_kind codec_kind;
	struct td_codec codec;      /* for metadata */

	struct td_text header_page, header_event;
	uint64_t header_page_at;    /* where header_page was found (for errors) */
	uint64_t page_size_at;      /* where the header's page size is */
	bool no_header_info;        /* v7 without a HEADER_INFO section (damage) */
	uint64_t options_offset_at; /* where the first options offset is (v7) */
	struct td_format *formats;  /* ftrace formats first (nftrace), then events */
	size_t nformats, nftrace;
	struct td_system *systems;
	size_t nsystems;
	struct td_lazy kallsyms, printk, cmdlines;
	struct td_lazy btf, modules;  /* trace-cmd 3.4's BTF_FILE / MODULES_FILE */

	/* regions we own (decompressed sections kept for their texts) */
	struct td_owned {
		uint8_t *p;
		size_t big;         /* as td_region.owned_big */
	} *owned;
	size_t nowned, owned_cap;

	struct tracedat_section *sections;   /* v7: every section, in file order */
	size_t nsections;
	char *strings;              /* v7 STRINGS sections, concatenated */
	size_t strings_len;

	struct tracedat_option *opts;
	size_t nopts, opts_cap;

	struct td_buffer *bufs;
	size_t nbufs;

	/* option values */
	const char *uname;
	const char *tracer_version;
	char *clock_text;           /* trace_clock text, NUL-terminated copy */
	char top_clock[64];
	bool has_trace_id;
	uint64_t trace_id;
	bool has_tsc;
	uint32_t tsc_mult, tsc_shift;
	uint64_t tsc_offset;
	int64_t ts_offset;
	bool has_cpucount;
	unsigned int cpucount;
	bool has_traceclock_option;

	/* TIME_SHIFT */
	uint32_t tsync_flags;
	struct td_tsync_cpu *tsync;
	size_t tsync_cpus;

	char *warnings[TD_MAX_WARNINGS];
	size_t nwarnings;

	/* damaged places found at open (told to the damage handler as found): the first
	 * TD_MAX_DAMAGE kept, all counted */
	struct ktrace_error *damage;
	size_t ndamage, damage_cap;
	/* some records could not be read (not only one CPU's), or damage found at open that
	 * is not one CPU's (the metadata, a field the records are read or shown by) */
	bool data_damaged;
	size_t ncut;                /* of ndamage, the CPU data cut short (cpu_cut) */
	/* v7: the file ends inside section cut_section (an index in sections, SIZE_MAX
	 * none), or before its strings: cut (what follows is lost) */
	bool cut;
	size_t cut_section;
	bool options_lost;          /* the chain of options sections goes past the cut */

	/* decompressed chunks shared by iterators (tracedat_share.c): one per compressed
	 * CPU entry, NULL when not shared */
	struct td_zcpu *zcpus;
	size_t nzcpus;
};

void td_warn(struct tracedat *td, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A damaged place found at open: kept in td->damage (err, when not NULL, gets a copy)
 * and told to the damage handler. Returns code. */
int td_damage(struct tracedat *td, struct ktrace_error *err, int code, uint64_t offset,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* tracedat_rewrite.c: everything of td but the CPU data and latency texts handed to w
 * (metadata, CPU count, options, the buffers declared); index[i] receives the writer's
 * index of td's buffer i (nbufs entries). more_cmdlines (more_len bytes, "pid comm"
 * lines) is added to the saved command lines. */
int td_copy_layout(struct tracedat *td, struct tracedat_writer *w, int *index, const char *more_cmdlines,
		   size_t more_len, struct ktrace_error *err);

/* tracedat_encode.c: ring-buffer sub-buffers made from records, as the kernel writes
 * them, appended to a file. */
struct td_pages {
	int fd;                     /* where whole sub-buffers go */
	uint64_t bytes;             /* written to fd */
	uint64_t pages;
	unsigned int page_size, long_size;
	bool big_endian;
	uint8_t *page;              /* the sub-buffer being filled */
	bool open;
	size_t used;                /* data bytes after the header */
	uint64_t last_ts;
	long long missed;           /* the lost-events mark of the open page */
};

/* page_size, kernel long size (4/8), byte order; fd takes the pages. 0 or -ENOMEM. */
int td_pages_init(struct td_pages *p, int fd, unsigned int page_size, unsigned int long_size,
		  bool big_endian);
void td_pages_free(struct td_pages *p);
/* Whether adding this record starts a new sub-buffer. */
bool td_pages_starts_page(const struct td_pages *p, uint64_t ts, uint32_t size, long long missed);
/* Appends a record (ts: its raw timestamp; missed: events lost before it); a full page
 * is written out. 0 or a negative errno (EINVAL: a record too big for a sub-buffer). */
int td_pages_add(struct td_pages *p, uint64_t ts, const void *data, uint32_t size, long long missed);
/* Writes out the page being filled. */
int td_pages_flush(struct td_pages *p);
/* Options that hold a version 7 section (metadata moved out of the header). */
static inline bool td_section_option(uint16_t id)
{
	return id == TRACEDAT_OPT_HEADER_INFO || id == TRACEDAT_OPT_FTRACE_EVENTS ||
	       id == TRACEDAT_OPT_EVENT_FORMATS || id == TRACEDAT_OPT_KALLSYMS ||
	       id == TRACEDAT_OPT_PRINTK || id == TRACEDAT_OPT_CMDLINES;
}

/* Options that hold a file of the traced machine (trace-cmd 3.4's BTF and modules
 * sections, or ktrace's own options holding them). */
static inline bool td_file_option(uint16_t id)
{
	return id == TRACEDAT_OPT_BTF_FILE || id == TRACEDAT_OPT_MODULES_FILE ||
	       id == TRACEDAT_OPT_KTRACE_BTF || id == TRACEDAT_OPT_KTRACE_MODULES;
}

/* Options that describe the file's layout: the writer makes them itself. */
static inline bool td_layout_option(uint16_t id)
{
	return td_section_option(id) || td_file_option(id) || id == TRACEDAT_OPT_DONE ||
	       id == TRACEDAT_OPT_BUFFER || id == TRACEDAT_OPT_BUFFER_TEXT ||
	       id == TRACEDAT_OPT_CPUCOUNT || id == TRACEDAT_OPT_STRINGS;
}

#endif
