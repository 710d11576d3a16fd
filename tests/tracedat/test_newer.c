// SPDX-License-Identifier: MIT
/*
 * Files of trace-cmd 3.4 (2026): the BTF and modules sections (BTF_FILE 23 and
 * MODULES_FILE 25, each an option holding the offset of a section whose bytes are the
 * traced machine's /sys/kernel/btf/vmlinux or /proc/modules, compressed as one block
 * when the file is), LAST_BOOT_INFO (24, "instance:text") and option ids nobody knows.
 *
 * Written with ktrace's writer in every version and compression and read back byte
 * for byte; carried by conversions between them; refused where an option would hold a
 * stale offset; and files whose sections are wrong (another id, past the end, a
 * compressed one in an uncompressed file, a damaged block) fail with the offset, or
 * are read with a warning where only the option is odd. tests/tracedat/newer.sh
 * checks the CLI (info, report, convert) and trace-cmd 3.1.6's reading.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktrace/input.h>
#include <ktrace/tracedat.h>

#include "testlib.h"
#include "tracedat/tdcompare.h"

static const struct {
	unsigned int version;
	const char *comp;
} variants[] = { { 6, "none" }, { 7, "none" }, { 7, "zstd" }, { 7, "zlib" } };
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static const char header_page_text[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char modules_text[] = "ext4 1056768 1 - Live 0xffffffffc0a00000\n"
				   "mbcache 16384 1 ext4, Live 0xffffffffc0300000\n";
static const char last_boot[] = "boot_mapped:39000000\t[kernel]\n";

static uint8_t btf[150000];

static void fill_btf(void)
{
	uint32_t x = 12345;

	/* half compressible, half not */
	for (size_t i = 0; i < sizeof(btf); i++) {
		x = x * 1103515245u + 12345u;
		btf[i] = i < sizeof(btf) / 2 ? (uint8_t)(i / 97) : (uint8_t)(x >> 16);
	}
	btf[0] = 0x9f;
	btf[1] = 0xeb;
}

/* A memory file. */
struct mem {
	int fd;
	uint8_t *map;
	size_t len;
	struct ktrace_input *in;
	struct tracedat *td;
};

static int mem_open_bytes(struct mem *m, const uint8_t *p, size_t len, struct ktrace_error *err)
{
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->map = malloc(len ? len : 1);
	if (!m->map)
		return -ENOMEM;
	memcpy(m->map, p, len);
	m->len = len;
	if (ktrace_input_from_memory(m->map, len, "test.dat", &m->in, err))
		return err->code;
	return tracedat_open_input(m->in, 0, &m->td, err);
}

static void mem_free(struct mem *m)
{
	tracedat_close(m->td);
	ktrace_input_close(m->in);
	free(m->map);
	m->td = NULL;
	m->in = NULL;
	m->map = NULL;
}

/* The bytes written to fd. */
static uint8_t *slurp(int fd, size_t *len)
{
	struct stat st;
	uint8_t *p;

	if (fstat(fd, &st) < 0)
		return NULL;
	p = malloc((size_t)st.st_size + 1);
	if (p && pread(fd, p, (size_t)st.st_size, 0) != st.st_size) {
		free(p);
		return NULL;
	}
	*len = (size_t)st.st_size;
	return p;
}

/* A small file with one page of data, BTF, modules, LAST_BOOT_INFO and an option id
 * nobody knows (300), in the given version and compression. */
static uint8_t *write_file(unsigned int version, const char *comp, bool with_btf, size_t *len,
			   struct ktrace_error *err)
{
	KTRACE_OPTS(tracedat_write_opts, wo, .version = version, .compression = comp,
		    .page_size = 4096);
	struct tracedat_writer *w;
	static uint8_t page[4096];
	uint8_t *out = NULL;
	int fd = memfd_create("newer", MFD_CLOEXEC), ret;

	if (fd < 0)
		return NULL;
	memset(page, 0, sizeof(page));
	page[0] = 1;                 /* timestamp 1, commit 8: one 4-byte record */
	page[8] = 8;
	page[16] = 1;                /* type_len 1 */
	page[20] = 7;
	ret = tracedat_writer_create_fd(fd, &wo, &w, err);
	if (ret)
		goto out;
	if ((ret = tracedat_writer_headers(w, header_page_text, sizeof(header_page_text) - 1, "h",
					   1, err)) ||
	    (ret = tracedat_writer_cmdlines(w, "1 init\n", 7, err)) ||
	    (with_btf && (ret = tracedat_writer_btf(w, btf, sizeof(btf), err))) ||
	    (ret = tracedat_writer_modules(w, modules_text, sizeof(modules_text) - 1, err)) ||
	    (ret = tracedat_writer_add_option(w, TRACEDAT_OPT_LAST_BOOT_INFO, last_boot,
					      sizeof(last_boot), err)) ||
	    (ret = tracedat_writer_add_option(w, 300, "later", 5, err)) ||
	    (ret = tracedat_writer_add_buffer(w, "", "local", 0, false, err)) < 0 ||
	    (ret = tracedat_writer_cpu_begin(w, 0, 0, err)) ||
	    (ret = tracedat_writer_cpu_write(w, page, sizeof(page), err)) ||
	    (ret = tracedat_writer_cpu_end(w, err))) {
		tracedat_writer_abort(w);
		goto out;
	}
	ret = tracedat_writer_close(w, err);
	if (!ret)
		out = slurp(fd, len);
out:
	close(fd);
	return out;
}

static bool has_option(struct tracedat *td, unsigned int id)
{
	for (size_t i = 0; i < tracedat_option_count(td); i++)
		if (tracedat_option(td, i)->id == id)
			return true;
	return false;
}

static bool has_section(struct tracedat *td, unsigned int id, const char *desc)
{
	for (size_t i = 0; i < tracedat_section_count(td); i++) {
		const struct tracedat_section *s = tracedat_section(td, i);

		if (s->id == id && !strcmp(s->description, desc))
			return true;
	}
	return false;
}

static bool warned(struct tracedat *td, const char *what)
{
	for (size_t i = 0; i < tracedat_warning_count(td); i++)
		if (strstr(tracedat_warning(td, i), what))
			return true;
	return false;
}

/* Whether a damaged place found at open says `what`, at that offset. */
static bool damaged_at(struct tracedat *td, const char *what, uint64_t offset)
{
	for (size_t i = 0; i < tracedat_damage_count(td); i++) {
		const struct ktrace_error *e = tracedat_damage(td, i);

		if (strstr(e->message, what) && e->has_offset && e->offset == offset)
			return true;
	}
	return false;
}

/* Everything written reads back: BTF and modules byte for byte, where the version and
 * compression put them. */
static void written_files_read_back(void)
{
	for (size_t v = 0; v < NVARIANTS; v++) {
		struct ktrace_error err = { 0 };
		const void *data;
		const char *text;
		size_t len, flen = 0;
		struct mem m;
		char why[512];
		bool sections = variants[v].version >= 7 && strcmp(variants[v].comp, "none");
		uint8_t *f = write_file(variants[v].version, variants[v].comp, true, &flen, &err);

		if (!f) {
			printf("#   v%u %s: %s\n", variants[v].version, variants[v].comp,
			       ktrace_error_format(&err, why, sizeof(why)));
			CHECK(!"written");
			continue;
		}
		if (mem_open_bytes(&m, f, flen, &err)) {
			printf("#   v%u %s: %s\n", variants[v].version, variants[v].comp,
			       ktrace_error_format(&err, why, sizeof(why)));
			CHECK(!"opens");
			mem_free(&m);
			free(f);
			continue;
		}
		CHECK_EQ(tracedat_btf_size(m.td), sizeof(btf));
		CHECK_EQ(tracedat_modules_size(m.td), sizeof(modules_text) - 1);
		CHECK_EQ(tracedat_btf(m.td, &data, &len, &err), 0);
		CHECK(len == sizeof(btf) && !memcmp(data, btf, len));
		CHECK_EQ(tracedat_modules(m.td, &text, &len, &err), 0);
		CHECK(len == sizeof(modules_text) - 1 && !memcmp(text, modules_text, len));
		/* sections in compressed version 7 files (trace-cmd 3.4 reads them from there
		 * only), ktrace's own options elsewhere */
		CHECK_EQ(has_option(m.td, TRACEDAT_OPT_BTF_FILE), sections);
		CHECK_EQ(has_option(m.td, TRACEDAT_OPT_MODULES_FILE), sections);
		CHECK_EQ(has_option(m.td, TRACEDAT_OPT_KTRACE_BTF), !sections);
		CHECK_EQ(has_option(m.td, TRACEDAT_OPT_KTRACE_MODULES), !sections);
		CHECK_EQ(has_section(m.td, TRACEDAT_OPT_BTF_FILE, "BTF"), sections);
		CHECK_EQ(has_section(m.td, TRACEDAT_OPT_MODULES_FILE, "modules"), sections);
		CHECK(has_option(m.td, TRACEDAT_OPT_LAST_BOOT_INFO));
		for (size_t i = 0; i < tracedat_option_count(m.td); i++) {
			const struct tracedat_option *o = tracedat_option(m.td, i);

			if (o->id == TRACEDAT_OPT_LAST_BOOT_INFO)
				CHECK(o->size == sizeof(last_boot) && !memcmp(o->data, last_boot, o->size));
		}
		/* the option nobody knows: kept, named nowhere, a warning */
		CHECK(has_option(m.td, 300));
		CHECK(tracedat_option_name(300) == NULL);
		CHECK(warned(m.td, "unknown option 300 (5 bytes) skipped"));
		CHECK_STR(tracedat_option_name(TRACEDAT_OPT_BTF_FILE), "BTF_FILE");
		CHECK_STR(tracedat_option_name(TRACEDAT_OPT_LAST_BOOT_INFO), "LAST_BOOT_INFO");
		CHECK_STR(tracedat_option_name(TRACEDAT_OPT_MODULES_FILE), "MODULES_FILE");
		CHECK_STR(tracedat_option_name(TRACEDAT_OPT_KTRACE_BTF), "KTRACE_BTF");
		mem_free(&m);
		free(f);
	}
}

/* A file without them says so. */
static void absent_files(void)
{
	struct ktrace_error err = { 0 };
	const void *data = NULL;
	size_t len = 1, flen;
	struct mem m;
	uint8_t *f = write_file(7, "zstd", false, &flen, &err);

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ(mem_open_bytes(&m, f, flen, &err), 0);
	if (m.td) {
		CHECK_EQ(tracedat_btf_size(m.td), -1);
		CHECK_EQ(tracedat_btf(m.td, &data, &len, &err), -ENOENT);
		CHECK(data != NULL && len == 0);
		CHECK_EQ(tracedat_modules_size(m.td), sizeof(modules_text) - 1);
	}
	mem_free(&m);
	free(f);
}

/* Conversions between every pair of variants keep them (tdcompare.h compares BTF and
 * modules byte for byte, and every option the writer copies). */
static void conversions_carry_them(void)
{
	for (size_t a = 0; a < NVARIANTS; a++) {
		struct ktrace_error err = { 0 };
		size_t flen;
		struct mem src;
		uint8_t *f = write_file(variants[a].version, variants[a].comp, true, &flen, &err);

		if (!f || mem_open_bytes(&src, f, flen, &err)) {
			CHECK(!"source");
			free(f);
			continue;
		}
		for (size_t b = 0; b < NVARIANTS; b++) {
			KTRACE_OPTS(tracedat_write_opts, wo, .version = variants[b].version,
				    .compression = variants[b].comp);
			struct tracedat_writer *w;
			struct mem dst;
			char why[512] = "";
			size_t olen = 0;
			uint8_t *o = NULL;
			int fd = memfd_create("conv", MFD_CLOEXEC), ret;

			tracedat_write_opts_from(src.td, &wo);
			ret = tracedat_writer_create_fd(fd, &wo, &w, &err);
			if (!ret) {
				ret = tracedat_convert(src.td, w, &err);
				if (ret)
					tracedat_writer_abort(w);
				else
					ret = tracedat_writer_close(w, &err);
			}
			if (!ret)
				o = slurp(fd, &olen);
			close(fd);
			if (ret || !o || mem_open_bytes(&dst, o, olen, &err)) {
				printf("#   v%u %s -> v%u %s: %s\n", variants[a].version, variants[a].comp,
				       variants[b].version, variants[b].comp,
				       ktrace_error_format(&err, why, sizeof(why)));
				CHECK(!"converted");
				free(o);
				continue;
			}
			if (!td_same(src.td, dst.td, why, sizeof(why))) {
				printf("#   v%u %s -> v%u %s: %s\n", variants[a].version, variants[a].comp,
				       variants[b].version, variants[b].comp, why);
				CHECK(!"same content");
			}
			CHECK_EQ(tracedat_btf_size(dst.td), sizeof(btf));
			mem_free(&dst);
			free(o);
		}
		mem_free(&src);
		free(f);
	}
}

/* Options that would hold a stale offset or bypass the section are refused, and each
 * file comes once. */
static void writer_refusals(void)
{
	KTRACE_OPTS(tracedat_write_opts, wo, .version = 7, .compression = "zstd");
	struct ktrace_error err = { 0 };
	struct tracedat_writer *w;
	uint8_t off[8] = { 0 };
	int fd = memfd_create("refuse", MFD_CLOEXEC);

	CHECK_EQ(tracedat_writer_create_fd(fd, &wo, &w, &err), 0);
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_BTF_FILE, off, 8, &err), -EINVAL);
	CHECK(strstr(err.message, "describes the file layout") != NULL);
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_MODULES_FILE, off, 8, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_KTRACE_BTF, off, 8, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_KTRACE_MODULES, off, 8, &err),
		 -EINVAL);
	/* LAST_BOOT_INFO is plain text: copied as given */
	CHECK_EQ(tracedat_writer_add_option(w, TRACEDAT_OPT_LAST_BOOT_INFO, last_boot,
					    sizeof(last_boot), &err), 0);
	CHECK_EQ(tracedat_writer_btf(w, btf, 100, &err), 0);
	CHECK_EQ(tracedat_writer_btf(w, btf, 100, &err), -EINVAL);
	CHECK(strstr(err.message, "BTF given twice") != NULL);
	CHECK_EQ(tracedat_writer_modules(w, NULL, 5, &err), -EINVAL);
	CHECK_EQ(tracedat_writer_add_buffer(w, "", "local", 0, false, &err), 0);
	CHECK_EQ(tracedat_writer_cpu_begin(w, 0, 0, &err), 0);
	CHECK_EQ(tracedat_writer_cpu_end(w, &err), 0);
	/* too late once the data began */
	CHECK_EQ(tracedat_writer_modules(w, "x", 1, &err), -EINVAL);
	CHECK(strstr(err.message, "before the data") != NULL);
	CHECK_EQ(tracedat_writer_close(w, &err), 0);
	close(fd);
}

/* ---- damaged and odd files ---- */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Where the data of option `id` lies in an uncompressed options section of a v7 file
 * written by ktrace (one options section, uncompressed): 0 if none. */
static size_t find_option(const uint8_t *f, size_t len, unsigned int id)
{
	size_t p = 10;

	while (p < len && f[p])
		p++;
	p += 1 + 2 + 4;                        /* version, endian, long, page size */
	while (p < len && f[p])
		p++;
	p++;
	while (p < len && f[p])
		p++;
	p++;
	p = (size_t)get64(f + p);              /* the options section */
	if (p + 16 > len || get16(f + p) != 0)
		return 0;
	for (size_t q = p + 16, end = p + 16 + (size_t)get64(f + p + 8); q + 6 <= end;) {
		uint32_t size = get32(f + q + 2);

		if (get16(f + q) == id)
			return q + 6;
		q += 6 + size;
	}
	return 0;
}

static int open_copy(const uint8_t *f, size_t len, struct mem *m, char *why, size_t wlen)
{
	struct ktrace_error err = { 0 };
	int ret = mem_open_bytes(m, f, len, &err);

	ktrace_error_format(&err, why, wlen);
	return ret;
}

static void damaged_sections(void)
{
	struct ktrace_error err = { 0 };
	size_t len, at, sec;
	uint8_t *f = write_file(7, "zstd", true, &len, &err), *g;
	struct mem m;
	char why[512];
	int ret;

	CHECK(f != NULL);
	if (!f)
		return;
	at = find_option(f, len, TRACEDAT_OPT_BTF_FILE);
	CHECK(at != 0);
	if (!at) {
		free(f);
		return;
	}
	sec = (size_t)get64(f + at);
	CHECK_EQ(get16(f + sec), TRACEDAT_OPT_BTF_FILE);
	g = malloc(len);
	if (!g) {
		free(f);
		return;
	}

	/* the option names another section (the first one, HEADER_INFO's) */
	memcpy(g, f, len);
	put64(g + at, get64(f + find_option(f, len, TRACEDAT_OPT_HEADER_INFO)));
	ret = open_copy(g, len, &m, why, sizeof(why));
	CHECK_EQ(ret, -EBADMSG);
	CHECK(strstr(why, "BTF: expected section id 23, found 16") != NULL);
	mem_free(&m);

	/* past the end of the file */
	memcpy(g, f, len);
	put64(g + at, (uint64_t)len + 100);
	ret = open_copy(g, len, &m, why, sizeof(why));
	CHECK_EQ(ret, -ENODATA);
	CHECK(strstr(why, "past the end of the file") != NULL);
	mem_free(&m);

	/* a section size past the end */
	memcpy(g, f, len);
	put64(g + sec + 8, (uint64_t)len);
	ret = open_copy(g, len, &m, why, sizeof(why));
	CHECK(ret < 0);
	mem_free(&m);

	/* damaged compressed bytes: the file opens (the BTF is read on first use), the
	 * BTF then fails with the section's offset, the records still read */
	memcpy(g, f, len);
	g[sec + 16 + 8] ^= 0x5a;               /* the zstd frame's magic */
	ret = open_copy(g, len, &m, why, sizeof(why));
	CHECK_EQ(ret, 0);
	if (!ret) {
		const void *data;
		size_t blen;
		char off[64];

		ret = tracedat_btf(m.td, &data, &blen, &err);
		CHECK(ret < 0);
		CHECK(err.has_offset && err.offset == sec + 16);
		snprintf(off, sizeof(off), "0x%zx", sec + 16);
		CHECK(strstr(ktrace_error_format(&err, why, sizeof(why)), off) != NULL);
		CHECK_EQ(tracedat_modules(m.td, NULL, NULL, &err), 0);
		CHECK_EQ(tracedat_btf_size(m.td), sizeof(btf));
	}
	mem_free(&m);

	/* an option of 2 bytes, then an empty option of an unknown id where its other 6
	 * bytes were: the BTF_FILE option is damage (its section cannot be found), the
	 * unknown option an oddity (a warning); the rest reads */
	memcpy(g, f, len);
	g[at - 4] = 2;
	g[at + 2] = 0x2e;                      /* id 302 */
	g[at + 3] = 0x01;
	memset(g + at + 4, 0, 4);              /* size 0 */
	ret = open_copy(g, len, &m, why, sizeof(why));
	CHECK_EQ(ret, 0);
	if (!ret) {
		CHECK(damaged_at(m.td, "BTF_FILE option of 2 bytes (8 expected): its section not read",
				 at - 6));
		CHECK_EQ(tracedat_damage_count(m.td), 1);
		CHECK(!warned(m.td, "BTF_FILE"));
		CHECK(warned(m.td, "unknown option 302 (0 bytes) skipped"));
		CHECK_EQ(tracedat_btf_size(m.td), -1);
		CHECK_EQ(tracedat_modules_size(m.td), sizeof(modules_text) - 1);
	}
	mem_free(&m);

	free(g);
	free(f);
}

/* A compressed BTF section in a file that says "none", and BTF_FILE in version 6. */
static void odd_places(void)
{
	struct ktrace_error err = { 0 };
	size_t len, at;
	uint8_t *f = write_file(7, "none", true, &len, &err);
	struct mem m;
	char why[512];

	CHECK(f != NULL);
	if (!f)
		return;
	/* ktrace's own option in an uncompressed v7 file: renamed BTF_FILE, its first 8
	 * bytes taken for an offset (0xeb9f): no BTF section there */
	at = find_option(f, len, TRACEDAT_OPT_KTRACE_BTF);
	CHECK(at != 0);
	if (at) {
		f[at - 6] = TRACEDAT_OPT_BTF_FILE;
		f[at - 5] = 0;
		CHECK(open_copy(f, len, &m, why, sizeof(why)) < 0);
		CHECK(strstr(why, "offset 0xeb9f: BTF: expected section id 23") != NULL);
		mem_free(&m);
	}
	free(f);

	/* version 6: a BTF_FILE option is ignored with a warning (trace-cmd reads no
	 * sections there) */
	f = write_file(6, "none", true, &len, &err);
	CHECK(f != NULL);
	if (!f)
		return;
	for (size_t i = 0; i + 16 < len; i++) {
		/* ktrace's KTRACE_MODULES option header: id 0x8003, size */
		if (get16(f + i) == TRACEDAT_OPT_KTRACE_MODULES &&
		    get32(f + i + 2) == sizeof(modules_text) - 1 &&
		    !memcmp(f + i + 6, modules_text, 4)) {
			f[i] = TRACEDAT_OPT_MODULES_FILE;
			f[i + 1] = 0;
			break;
		}
	}
	CHECK_EQ(open_copy(f, len, &m, why, sizeof(why)), 0);
	if (m.td) {
		CHECK(warned(m.td, "MODULES_FILE option in a version 6 file, ignored"));
		CHECK_EQ(tracedat_modules_size(m.td), -1);
		CHECK_EQ(tracedat_btf_size(m.td), sizeof(btf));
	}
	mem_free(&m);
	free(f);
}

/* Every prefix of a compressed v7 file with BTF and modules: an error naming an
 * offset inside the file, or a file that reads (cut inside the last bytes). */
static void prefixes(void)
{
	struct ktrace_error err = { 0 };
	size_t len;
	uint8_t *f = write_file(7, "zstd", true, &len, &err);

	CHECK(f != NULL);
	if (!f)
		return;
	for (size_t cut = 0; cut < len; cut += cut < 4096 ? 1 : 97) {
		struct mem m;
		struct ktrace_error e = { 0 };
		int ret = mem_open_bytes(&m, f, cut, &e);

		if (ret) {
			if (!(e.has_offset ? e.offset <= cut : 1)) {
				printf("#   cut %zu: offset %llu\n", cut, (unsigned long long)e.offset);
				CHECK(!"offset inside");
			}
		} else {
			const void *d;
			size_t l;

			tracedat_btf(m.td, &d, &l, &e);
		}
		mem_free(&m);
	}
	free(f);
}

int main(void)
{
	PLAN(7);
	fill_btf();
	RUN(written_files_read_back);
	RUN(absent_files);
	RUN(conversions_carry_them);
	RUN(writer_refusals);
	RUN(damaged_sections);
	RUN(odd_places);
	RUN(prefixes);
	return TEST_EXIT();
}
