// SPDX-License-Identifier: MIT
/*
 * Crash dumps: a program file (the namelist) and an ELF core of it, from the kernel or
 * from gdb's gcore. libelf reads the headers, the symbol tables and the notes; memory
 * is copied out of the core's PT_LOAD segments (and, for what the core left out, such
 * as read-only text, out of the file mapped there: the program file, libktrace.so, or
 * any file the NT_FILE note names).
 *
 *   NT_PRSTATUS  the crashed process's pid
 *   NT_AUXV      AT_ENTRY (and AT_PHDR): the load bias of a position-independent program
 *   NT_FILE      which file each mapping comes from, at which offset: names the
 *                buffers, and places libktrace.so when the program uses the shared
 *                library (the crash anchor is then in the library, found through its
 *                dynamic symbols; its build id is checked against the core's copy)
 *
 * Every size and offset from any of the files is checked before use.
 */
#include <ktrace/detect.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/cursor.h"
#include "common/detect_table.h"
#include "koff/koff_int.h"

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif
#define MAX_SEGMENTS 65536u
#define MAX_FILES    65536u
#define MAX_OPENED   16u           /* mapped files opened for reading strings */
#define LIB_PREFIX   "libktrace.so"

struct seg {
	uint64_t vaddr, filesz, offset;
};

struct mapped_file {
	uint64_t start, end;
	uint64_t offset;           /* file offset of start, bytes */
	char *name;
};

/* A mapped file opened (lazily, by name) to read what the core left out. */
struct opened_file {
	char *name;
	int fd;                    /* -1: could not be opened */
	uint64_t size;
};

struct image {
	int fd;
	const uint8_t *mem;        /* memory image (fuzzing), else NULL */
	uint8_t *copy;             /* writable copy handed to libelf */
	uint64_t size;
	Elf *elf;
	struct seg *segs;
	size_t nsegs;
};

struct koff_core {
	struct image nl, core, lib;
	bool pie, have_lib;
	uint64_t bias;             /* the program's load bias */
	uint64_t lib_bias;         /* libktrace.so's, when the anchor is there */
	uint64_t anchor;           /* run-time address of the anchor */
	char *anchor_file;         /* where its symbol was found */
	uint32_t pid;
	struct mapped_file *files;
	size_t nfiles;
	uint64_t page_size;        /* NT_FILE's unit of file offsets */
	int is64;
	bool memory;               /* images given in memory: no file is opened */
	char *sysroot;
	char *nl_path;             /* the program file found from the core */
	struct opened_file opened[MAX_OPENED];
	size_t nopened;
};

static int image_read(const struct image *im, uint64_t off, void *dst, size_t len)
{
	if (off > im->size || len > im->size - off)
		return -EFAULT;
	if (im->mem) {
		memcpy(dst, im->mem + off, len);
		return 0;
	}
	for (size_t done = 0; done < len;) {
		ssize_t n = pread(im->fd, (uint8_t *)dst + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EFAULT;
		done += (size_t)n;
	}
	return 0;
}

static int image_open(struct image *im, const char *path, const void *mem, size_t len,
		      const char *what, struct ktrace_error *err)
{
	struct stat st;

	im->fd = -1;
	if (mem) {
		/* libelf may want to write into what it is given: hand it a copy. */
		im->copy = malloc(len ? len : 1);
		if (!im->copy)
			return kt_error_oom(err);
		memcpy(im->copy, mem, len);
		im->mem = im->copy;
		im->size = len;
		im->elf = elf_memory((char *)im->copy, len);
	} else {
		/* neither a file nor memory (a core opened without its program) */
		if (!path)
			return ktrace_error_set(err, -EINVAL, "no %s given", what);
		im->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (im->fd < 0)
			return ktrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
		if (fstat(im->fd, &st) < 0 || !S_ISREG(st.st_mode))
			return ktrace_error_set(err, -EINVAL, "%s: not a regular file", path);
		im->size = (uint64_t)st.st_size;
		im->elf = elf_begin(im->fd, ELF_C_READ_MMAP, NULL);
	}
	if (!im->elf || elf_kind(im->elf) != ELF_K_ELF)
		return ktrace_error_set(err, -EBADMSG, "%s%s%s is not an ELF file", what,
					path ? " " : "", path ? path : "");
	return 0;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

static const char *endian_name(unsigned data)
{
	return data == ELFDATA2MSB ? "big-endian" : data == ELFDATA2LSB ? "little-endian"
									: "of unknown byte order";
}

/* A file the core names, under the sysroot if one was given. Returns a new string. */
static char *host_path(const struct koff_core *c, const char *name)
{
	char *p;

	if (!c->sysroot)
		return strdup(name);
	p = malloc(strlen(c->sysroot) + strlen(name) + 2);
	if (p)
		sprintf(p, "%s%s%s", c->sysroot, name[0] == '/' ? "" : "/", name);
	return p;
}

static void image_close(struct image *im)
{
	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	free(im->copy);
	free(im->segs);
}

/* The PT_LOAD segments with file contents that lie inside the file. */
static int load_segments(struct image *im, const char *what, struct ktrace_error *err)
{
	size_t n;

	if (elf_getphdrnum(im->elf, &n) != 0)
		return ktrace_error_set(err, -EBADMSG, "%s: bad program headers: %s", what,
					elf_errmsg(-1));
	if (n > MAX_SEGMENTS)
		return ktrace_error_set(err, -EBADMSG, "%s: %zu program headers", what, n);
	im->segs = calloc(n ? n : 1, sizeof(*im->segs));
	if (!im->segs)
		return kt_error_oom(err);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(im->elf, (int)i, &ph))
			return ktrace_error_set(err, -EBADMSG, "%s: bad program header %zu", what, i);
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		if (ph.p_offset > im->size || ph.p_filesz > im->size - ph.p_offset)
			continue;   /* a truncated core: what is missing cannot be read */
		if (ph.p_vaddr + ph.p_filesz < ph.p_vaddr)
			continue;
		im->segs[im->nsegs++] = (struct seg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
	return 0;
}

/* Copies from the segments of im at address a (addresses of that image). Returns the
 * number of bytes copied from the first segment that holds a (<= len), 0 if none. */
static size_t seg_read(const struct image *im, uint64_t a, uint8_t *dst, size_t len)
{
	for (size_t i = 0; i < im->nsegs; i++) {
		const struct seg *s = &im->segs[i];
		uint64_t k, n;

		if (a < s->vaddr || a - s->vaddr >= s->filesz)
			continue;
		k = a - s->vaddr;
		n = s->filesz - k < len ? s->filesz - k : len;
		if (image_read(im, s->offset + k, dst, (size_t)n))
			return 0;
		return (size_t)n;
	}
	return 0;
}

int koff_core_read(struct koff_core *c, uint64_t addr, void *dst, size_t len)
{
	uint8_t *d = dst;

	while (len) {
		size_t n = seg_read(&c->core, addr, d, len);

		if (!n)
			return -EFAULT;
		addr += n;
		d += n;
		len -= n;
	}
	return 0;
}

/* The mapping that holds addr, per NT_FILE, or NULL. */
static const struct mapped_file *mapping_at(const struct koff_core *c, uint64_t addr)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (addr >= c->files[i].start && addr < c->files[i].end)
			return &c->files[i];
	return NULL;
}

/* Reads what a mapped file holds at addr (at most len bytes, within the mapping),
 * opening the file the first time. Returns the bytes read, 0 if none. */
static size_t mapped_read(struct koff_core *c, uint64_t addr, uint8_t *dst, size_t len)
{
	const struct mapped_file *m = mapping_at(c, addr);
	struct opened_file *o = NULL;
	uint64_t off;
	ssize_t n;

	if (!m || c->memory)
		return 0;
	for (size_t i = 0; i < c->nopened; i++)
		if (!strcmp(c->opened[i].name, m->name))
			o = &c->opened[i];
	if (!o) {
		struct stat st;
		char *p;

		if (c->nopened >= MAX_OPENED)
			return 0;
		o = &c->opened[c->nopened];
		o->name = strdup(m->name);
		if (!o->name)
			return 0;
		c->nopened++;
		p = host_path(c, m->name);
		o->fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;
		free(p);
		if (o->fd >= 0 && (fstat(o->fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(o->fd);
			o->fd = -1;
		}
		o->size = o->fd >= 0 ? (uint64_t)st.st_size : 0;
	}
	if (o->fd < 0)
		return 0;
	if (m->offset == UINT64_MAX || addr - m->start > UINT64_MAX - m->offset)
		return 0;
	off = m->offset + (addr - m->start);
	if (off >= o->size)
		return 0;
	if (len > m->end - addr)
		len = (size_t)(m->end - addr);
	if (len > o->size - off)
		len = (size_t)(o->size - off);
	n = pread(o->fd, dst, len, (off_t)off);
	return n > 0 ? (size_t)n : 0;
}

int koff_core_string(struct koff_core *c, uint64_t addr, char *dst, size_t max)
{
	size_t have = 0;

	if (!max)
		return -E2BIG;
	while (have < max - 1) {
		size_t want = max - 1 - have, n;
		uint8_t *d = (uint8_t *)dst + have;
		void *nul;

		if (want > 256)
			want = 256;
		n = seg_read(&c->core, addr + have, d, want);
		if (!n)   /* not in the core: the program file's copy, at the link address */
			n = seg_read(&c->nl, addr + have - c->bias, d, want);
		if (!n && c->have_lib)
			n = seg_read(&c->lib, addr + have - c->lib_bias, d, want);
		if (!n)   /* another mapped file (a shared library logging records) */
			n = mapped_read(c, addr + have, d, want);
		if (!n) {
			dst[0] = '\0';
			return -EFAULT;
		}
		nul = memchr(d, 0, n);
		if (nul)
			return (int)(have + (size_t)((uint8_t *)nul - d));
		have += n;
	}
	dst[max - 1] = '\0';
	return -E2BIG;
}

/* ---- notes ------------------------------------------------------------------------- */

static uint64_t word(const uint8_t *p, int is64)
{
	return is64 ? kt_load_u64(p, false) : kt_load_u32(p, false);
}

static void parse_auxv(const uint8_t *d, size_t n, int is64, uint64_t *entry, uint64_t *phdr)
{
	size_t w = is64 ? 8 : 4;

	for (size_t off = 0; off + 2 * w <= n; off += 2 * w) {
		uint64_t type = word(d + off, is64), val = word(d + off + w, is64);

		if (type == AT_NULL)
			break;
		if (type == AT_ENTRY)
			*entry = val;
		else if (type == AT_PHDR)
			*phdr = val;
	}
}

static void parse_nt_file(struct koff_core *c, const uint8_t *d, size_t n)
{
	size_t w = c->is64 ? 8 : 4, names;
	uint64_t count;

	if (n < 2 * w)
		return;
	count = word(d, c->is64);
	c->page_size = word(d + w, c->is64);
	if (c->page_size == 0 || c->page_size > (1u << 30))
		c->page_size = 4096;
	if (count > MAX_FILES || count > (n - 2 * w) / (3 * w))
		return;
	names = 2 * w + (size_t)count * 3 * w;
	c->files = calloc(count ? count : 1, sizeof(*c->files));
	if (!c->files)
		return;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *e = d + 2 * w + i * 3 * w;
		const uint8_t *end;

		if (names >= n)
			break;
		end = memchr(d + names, 0, n - names);
		if (!end)
			break;
		c->files[c->nfiles].start = word(e, c->is64);
		c->files[c->nfiles].end = word(e + w, c->is64);
		c->files[c->nfiles].offset = word(e + 2 * w, c->is64) * c->page_size;
		if (c->files[c->nfiles].offset / c->page_size != word(e + 2 * w, c->is64))
			c->files[c->nfiles].offset = UINT64_MAX;   /* overflow: never read */
		c->files[c->nfiles].name = strndup((const char *)d + names, (size_t)(end - (d + names)));
		if (!c->files[c->nfiles].name)
			break;
		c->nfiles++;
		names = (size_t)(end - d) + 1;
	}
}

static int read_notes(struct koff_core *c, uint64_t *at_entry, uint64_t *at_phdr,
		      struct ktrace_error *err)
{
	size_t n;

	if (elf_getphdrnum(c->core.elf, &n) != 0 || n > MAX_SEGMENTS)
		return ktrace_error_set(err, -EBADMSG, "core: bad program headers");
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *data;
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getphdr(c->core.elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (ph.p_offset > c->core.size || ph.p_filesz > c->core.size - ph.p_offset ||
		    ph.p_filesz > (64u << 20))
			continue;
		data = elf_getdata_rawchunk(c->core.elf, (int64_t)ph.p_offset, ph.p_filesz,
					    ELF_T_NHDR);
		if (!data || !data->d_buf)
			continue;
		while (off < data->d_size &&
		       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const uint8_t *desc = (const uint8_t *)data->d_buf + desc_off;
			const char *name = (const char *)data->d_buf + name_off;
			size_t dsz = nh.n_descsz;

			if (next <= off || desc_off > data->d_size || dsz > data->d_size - desc_off)
				break;
			if (nh.n_namesz == 5 && name_off + 5 <= data->d_size &&
			    !memcmp(name, "CORE", 5)) {
				if (nh.n_type == NT_PRSTATUS && !c->pid) {
					size_t at = c->is64 ? 32 : 24;

					if (dsz >= at + 4)
						c->pid = kt_load_u32(desc + at, false);
				} else if (nh.n_type == NT_AUXV) {
					parse_auxv(desc, dsz, c->is64, at_entry, at_phdr);
				} else if (nh.n_type == NT_FILE && !c->files) {
					parse_nt_file(c, desc, dsz);
				}
			}
			off = next;
		}
	}
	return 0;
}

/* ---- symbols ----------------------------------------------------------------------- */

/* The value of a defined symbol, from the symbol table, else the dynamic symbols.
 * Returns 0, or -ENOENT. */
static int find_symbol(Elf *elf, bool is64, const char *want, uint64_t *value)
{
	Elf_Scn *scn = NULL;

	for (int pass = 0; pass < 2; pass++) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;
			size_t count;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
				continue;
			if (!sh.sh_entsize || sh.sh_entsize > 64)
				continue;
			data = elf_getdata(scn, NULL);
			if (!data || !data->d_buf)
				continue;
			count = data->d_size / (is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym));
			for (size_t i = 0; i < count && i < (1u << 24); i++) {
				GElf_Sym sym;
				const char *name;

				if (!gelf_getsym(data, (int)i, &sym) || !sym.st_name)
					continue;
				name = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (name && !strcmp(name, want) && sym.st_shndx != SHN_UNDEF) {
					*value = sym.st_value;
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}

/* The GNU build id of an ELF file and the link-time address of its bytes. Returns
 * its length (0 when there is none). */
static size_t build_id(Elf *elf, uint64_t size, const uint8_t **id, uint64_t *vaddr)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0 || n > MAX_SEGMENTS)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *data;
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset || ph.p_filesz > 65536)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (!data || !data->d_buf)
			continue;
		while (off < data->d_size &&
		       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (next <= off || desc_off > data->d_size ||
			    nh.n_descsz > data->d_size - desc_off)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    name_off + 4 <= data->d_size &&
			    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz > 0 && nh.n_descsz <= 64) {
				*id = (const uint8_t *)data->d_buf + desc_off;
				*vaddr = ph.p_vaddr + desc_off;
				return nh.n_descsz;
			}
			off = next;
		}
	}
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * The anchor is not in the program: the process used libktrace.so. The core's NT_FILE
 * note gives the library's file and where it was mapped; the library (as named there,
 * under the sysroot, or as given) gives the anchor's offset in its dynamic symbols.
 */
static int find_lib_anchor(struct koff_core *c, const GElf_Ehdr *core_eh,
			   const struct koff_reader_open_opts *o, struct ktrace_error *err)
{
	const struct mapped_file *m = NULL;
	GElf_Ehdr eh;
	uint64_t value, id_vaddr = 0, lowest = UINT64_MAX;
	const uint8_t *id = NULL;
	size_t idlen, nph;
	char *path = NULL;
	int ret;

	for (size_t i = 0; i < c->nfiles && !m; i++)
		if (c->files[i].offset == 0 &&
		    !strncmp(base_name(c->files[i].name), LIB_PREFIX, strlen(LIB_PREFIX)))
			m = &c->files[i];
	if (!m)
		return ktrace_error_set(err, -ENOENT,
					"symbol %s not found in the program file, and the core maps "
					"no %s: is the program linked with libktrace, and is this "
					"its core?", KOFF_ANCHOR_SYMBOL, LIB_PREFIX);
	if (o && o->lib_image) {
		ret = image_open(&c->lib, NULL, o->lib_image, o->lib_image_len, "libktrace image",
				 err);
	} else if (c->memory) {
		return ktrace_error_set(err, -ENOENT, "the anchor is in %s (%s), not given",
					LIB_PREFIX, m->name);
	} else {
		path = o && o->lib ? strdup(o->lib) : host_path(c, m->name);
		if (!path)
			return kt_error_oom(err);
		c->lib.fd = -1;
		ret = image_open(&c->lib, path, NULL, 0, LIB_PREFIX, err);
		if (ret == -ENOENT || ret == -EACCES || ret == -ENOTDIR)
			ret = ktrace_error_set(err, ret, "%s (the %s the process had mapped%s): %s; "
					       "if it moved, give it with --lib PATH or --sysroot "
					       "DIR", path, LIB_PREFIX, o && o->lib ? ", as given"
					       : "", strerror(-ret));
	}
	if (ret)
		goto out;
	c->have_lib = true;
	if (!gelf_getehdr(c->lib.elf, &eh) || eh.e_type != ET_DYN ||
	    eh.e_ident[EI_CLASS] != core_eh->e_ident[EI_CLASS] ||
	    eh.e_ident[EI_DATA] != core_eh->e_ident[EI_DATA] ||
	    eh.e_machine != core_eh->e_machine) {
		ret = ktrace_error_set(err, -EINVAL, "%s is not a shared library of the core's "
				       "machine type", path ? path : "the library image");
		goto out;
	}
	ret = load_segments(&c->lib, LIB_PREFIX, err);
	if (ret)
		goto out;
	if (find_symbol(c->lib.elf, c->is64, KOFF_ANCHOR_SYMBOL, &value)) {
		ret = ktrace_error_set(err, -ENOENT, "symbol %s not found in %s either",
				       KOFF_ANCHOR_SYMBOL, path ? path : "the library image");
		goto out;
	}
	/* The mapping at file offset 0 is the first loadable segment, page-aligned. */
	if (elf_getphdrnum(c->lib.elf, &nph) == 0) {
		for (size_t i = 0; i < nph && i < MAX_SEGMENTS; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(c->lib.elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    ph.p_vaddr < lowest)
				lowest = ph.p_vaddr;
		}
	}
	if (lowest == UINT64_MAX) {
		ret = ktrace_error_set(err, -EBADMSG, "%s has no loadable segment",
				       path ? path : "the library image");
		goto out;
	}
	c->lib_bias = m->start - (lowest & ~(c->page_size - 1));
	c->anchor = c->lib_bias + value;
	/* The library read must be the one the process loaded: compare build ids with
	 * the core's copy of the first page (dumped by default) when it has it. */
	idlen = build_id(c->lib.elf, c->lib.size, &id, &id_vaddr);
	if (idlen) {
		uint8_t mem[64];

		if (koff_core_read(c, c->lib_bias + id_vaddr, mem, idlen) == 0 &&
		    memcmp(mem, id, idlen)) {
			ret = ktrace_error_set(err, -EINVAL,
					       "%s is not the %s the process had loaded (%s): their "
					       "build ids differ; give the right one with --lib PATH",
					       path ? path : "the library image", LIB_PREFIX, m->name);
			goto out;
		}
	}
	c->anchor_file = strdup(path ? path : m->name);
out:
	free(path);
	return ret;
}

/* ---- opening ----------------------------------------------------------------------- */

int koff_core_open(const char *namelist, const char *core, const void *nl_mem, size_t nl_len,
		   const void *core_mem, size_t core_len, const struct koff_reader_open_opts *o,
		   struct koff_core **out, struct ktrace_error *err)
{
	struct koff_core *c = calloc(1, sizeof(*c));
	GElf_Ehdr nl_eh, core_eh;
	uint64_t at_entry = 0, at_phdr = 0, value;
	size_t nph;
	int ret;

	*out = NULL;
	if (!c)
		return kt_error_oom(err);
	c->nl.fd = c->core.fd = c->lib.fd = -1;
	c->page_size = 4096;
	c->memory = core_mem != NULL;
	if (o && o->sysroot && *o->sysroot && !(c->sysroot = strdup(o->sysroot))) {
		free(c);
		return kt_error_oom(err);
	}
	elf_version(EV_CURRENT);
	ret = image_open(&c->core, core, core_mem, core_len, "core file", err);
	if (ret)
		goto fail;
	if (!gelf_getehdr(c->core.elf, &core_eh)) {
		ret = ktrace_error_set(err, -EBADMSG, "bad ELF header: %s", elf_errmsg(-1));
		goto fail;
	}
	if (core_eh.e_type != ET_CORE) {
		ret = ktrace_error_set(err, -EINVAL, "%s is not a core file (ELF type %u)",
				       core ? core : "core", core_eh.e_type);
		goto fail;
	}
	/* The anchor, the buffers and their records are words of the producer's byte
	 * order; 32-bit cores are read (their layouts are the same), cores of the other
	 * byte order are not. */
	if (core_eh.e_ident[EI_DATA] != NATIVE_DATA) {
		ret = ktrace_error_set(err, -ENOTSUP,
				       "the core is %s and this ktrace reads cores of its own byte "
				       "order (%s) only: run ktrace dump on a machine of the "
				       "crashed one's byte order", endian_name(core_eh.e_ident[EI_DATA]),
				       endian_name(NATIVE_DATA));
		goto fail;
	}
	c->is64 = core_eh.e_ident[EI_CLASS] == ELFCLASS64;
	ret = load_segments(&c->core, "core file", err);
	if (!ret)
		ret = read_notes(c, &at_entry, &at_phdr, err);
	if (ret)
		goto fail;
	/* No program file given: the one mapped at the entry point, as the core names it. */
	if (!namelist && !nl_mem) {
		const struct mapped_file *m = at_entry ? mapping_at(c, at_entry) : NULL;

		if (!m || c->memory) {
			ret = ktrace_error_set(err, -EINVAL, "the core does not say which program "
					       "it is (no NT_FILE mapping of its entry point): give "
					       "the program file");
			goto fail;
		}
		namelist = c->nl_path = host_path(c, m->name);
		if (!namelist) {
			ret = kt_error_oom(err);
			goto fail;
		}
	}
	ret = image_open(&c->nl, namelist, nl_mem, nl_len, "program file", err);
	if (ret)
		goto fail;
	if (!gelf_getehdr(c->nl.elf, &nl_eh)) {
		ret = ktrace_error_set(err, -EBADMSG, "bad ELF header: %s", elf_errmsg(-1));
		goto fail;
	}
	if (nl_eh.e_type != ET_EXEC && nl_eh.e_type != ET_DYN) {
		ret = ktrace_error_set(err, -EINVAL, "%s is not a program file (ELF type %u)",
				       namelist ? namelist : "namelist", nl_eh.e_type);
		goto fail;
	}
	if (nl_eh.e_ident[EI_CLASS] != core_eh.e_ident[EI_CLASS] ||
	    nl_eh.e_ident[EI_DATA] != core_eh.e_ident[EI_DATA] ||
	    nl_eh.e_machine != core_eh.e_machine) {
		ret = ktrace_error_set(err, -EINVAL,
				       "the core is not of this program's machine type (program: "
				       "%s %s machine %u; core: %s %s machine %u)",
				       nl_eh.e_ident[EI_CLASS] == ELFCLASS64 ? "64-bit" : "32-bit",
				       endian_name(nl_eh.e_ident[EI_DATA]), nl_eh.e_machine,
				       core_eh.e_ident[EI_CLASS] == ELFCLASS64 ? "64-bit" : "32-bit",
				       endian_name(core_eh.e_ident[EI_DATA]), core_eh.e_machine);
		goto fail;
	}
	c->pie = nl_eh.e_type == ET_DYN;
	ret = load_segments(&c->nl, "program file", err);
	if (ret)
		goto fail;
	if (c->pie) {
		if (!at_entry) {
			ret = ktrace_error_set(err, -EBADMSG,
					       "the core has no auxiliary vector (NT_AUXV): cannot "
					       "place the position-independent program");
			goto fail;
		}
		c->bias = at_entry - nl_eh.e_entry;
	}
	/* The program headers are where AT_PHDR says when the namelist is the program
	 * that crashed. */
	if (at_phdr && elf_getphdrnum(c->nl.elf, &nph) == 0) {
		for (size_t i = 0; i < nph && i < MAX_SEGMENTS; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(c->nl.elf, (int)i, &ph) && ph.p_type == PT_PHDR &&
			    ph.p_vaddr + c->bias != at_phdr) {
				ret = ktrace_error_set(err, -EINVAL,
						       "the program file does not match the core "
						       "(program headers at 0x%llx, expected 0x%llx)",
						       (unsigned long long)(ph.p_vaddr + c->bias),
						       (unsigned long long)at_phdr);
				goto fail;
			}
		}
	}
	/* The crash anchor: in the program (linked with libktrace.a), else in the
	 * libktrace.so the core maps. */
	if (find_symbol(c->nl.elf, c->is64, KOFF_ANCHOR_SYMBOL, &value) == 0) {
		c->anchor = value + c->bias;
		c->anchor_file = strdup(namelist ? namelist : "program file");
	} else {
		ret = find_lib_anchor(c, &core_eh, o, err);
		if (ret)
			goto fail;
	}
	*out = c;
	return 0;
fail:
	koff_core_close(c);
	return ret;
}

void koff_core_close(struct koff_core *c)
{
	if (!c)
		return;
	image_close(&c->nl);
	image_close(&c->core);
	image_close(&c->lib);
	for (size_t i = 0; i < c->nfiles; i++)
		free(c->files[i].name);
	for (size_t i = 0; i < c->nopened; i++) {
		if (c->opened[i].fd >= 0)
			close(c->opened[i].fd);
		free(c->opened[i].name);
	}
	free(c->files);
	free(c->anchor_file);
	free(c->sysroot);
	free(c->nl_path);
	free(c);
}

int koff_core_buffers(struct koff_core *c, struct koff_anchor_slot *slots, int max,
		      bool *first_is_default, struct ktrace_error *err)
{
	struct koff_anchor a;
	int n = 0;
	uint32_t def;

	if (koff_core_read(c, c->anchor, &a, sizeof(a)) < 0)
		return ktrace_error_set(err, -EFAULT,
					"the crash anchor (%s at 0x%llx) is not in the core",
					KOFF_ANCHOR_SYMBOL, (unsigned long long)c->anchor);
	if (memcmp(a.magic, KOFF_ANCHOR_MAGIC, sizeof(a.magic)) || a.slots != KOFF_ANCHOR_SLOTS)
		return ktrace_error_set(err, -EBADMSG,
					"no crash anchor at 0x%llx: %s does not match the core",
					(unsigned long long)c->anchor,
					c->anchor_file ? c->anchor_file : "the program file");
	def = a.default_slot;
	*first_is_default = false;
	if (def >= 1 && def <= KOFF_ANCHOR_SLOTS && a.slot[def - 1].addr && n < max) {
		slots[n++] = a.slot[def - 1];
		*first_is_default = true;
	}
	for (uint32_t i = 0; i < KOFF_ANCHOR_SLOTS && n < max; i++)
		if (a.slot[i].addr && i + 1 != def)
			slots[n++] = a.slot[i];
	for (int i = 0; i < n; i++)
		slots[i].path[KOFF_ANCHOR_PATH - 1] = '\0';
	return n;
}

uint32_t koff_core_pid(const struct koff_core *c)
{
	return c->pid;
}

uint64_t koff_core_bias(const struct koff_core *c)
{
	return c->bias;
}

uint64_t koff_core_anchor(const struct koff_core *c)
{
	return c->anchor;
}

const char *koff_core_anchor_file(const struct koff_core *c)
{
	return c->anchor_file;
}

const char *koff_core_mapped_file(const struct koff_core *c, uint64_t addr)
{
	const struct mapped_file *m = mapping_at(c, addr);

	return m ? m->name : NULL;
}

static bool elf_match(const uint8_t *p, size_t len)
{
	return len >= 4 && !memcmp(p, "\x7f" "ELF", 4);
}

const struct kt_detector kt_detector_elf = { KTRACE_FORMAT_ELF, "ELF file", elf_match };
