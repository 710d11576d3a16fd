#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds small crafted crash dumps, written independently of the library from the
layouts in lib/koff/koff_layout_int.h and the ELF specification: a position-independent
"program" (namelist) with read-only format strings, and an ELF core of it whose memory
holds the crash anchor and a KOFF buffer, with NT_PRSTATUS, NT_AUXV and NT_FILE notes.

    mkcore.py DIR [VARIANT]

VARIANT (default "static"):
    static    the anchor is in the program's symbol table (linked with libktrace.a)
    shared    the program has no anchor; it is in a crafted libktrace.so.1 (dynamic
              symbols, a GNU build id) that the core maps at LIB_BASE (NT_FILE names
              it /crafted/lib/libktrace.so.1; the core holds its first page)
    32        as static, ELFCLASS32 i386 program and core
    be        as static, big-endian (ELFDATA2MSB, PowerPC 64)

Writes DIR/prog, DIR/core, DIR/buffer (the buffer image alone), DIR/lib (shared) and
the fuzz inputs DIR/elfseed (u32 length of prog, prog, core) and, for shared,
DIR/libseed (u32 length of prog, u32 length of lib, prog, lib, core).
"""
import os
import struct
import sys

VARIANT = sys.argv[2] if len(sys.argv) > 2 else "static"
W64 = VARIANT != "32"
E = ">" if VARIANT == "be" else "<"
MACHINE = {"32": 3, "be": 21}.get(VARIANT, 62)
PTR = 8 if W64 else 4
SHARED = VARIANT == "shared"

BIAS = 0x555555554000 if W64 else 0x56555000
BUF_ADDR = 0x7F0000000000 if W64 else 0xF7000000
LIB_BASE = 0x7F1000000000 if W64 else 0xF7100000
PID = 4242
T0 = 990015556 * 10**9 + 772 * 10**6          # 2001-05-16 12:19:16.772 UTC
MS = 10**6
BUILD_ID = bytes(range(0xA0, 0xB4))            # 20 bytes


def fnv1a(b):
    h = 2166136261
    for c in b:
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h or 1


def pk(fmt, *v):
    return struct.pack(E + fmt, *v)


# ---- ELF pieces, for both word sizes ----------------------------------------------------
EHSIZE, PHSIZE, SHSIZE, SYMSIZE = (64, 56, 64, 24) if W64 else (52, 32, 40, 16)


def ehdr(etype, entry, phoff, shoff, phnum, shnum, shstrndx):
    ident = b"\x7fELF" + bytes([2 if W64 else 1, 2 if E == ">" else 1, 1, 0]) + b"\0" * 8
    if W64:
        return ident + pk("HHIQQQIHHHHHH", etype, MACHINE, 1, entry, phoff, shoff, 0, EHSIZE,
                          PHSIZE, phnum, SHSIZE, shnum, shstrndx)
    return ident + pk("HHIIIIIHHHHHH", etype, MACHINE, 1, entry, phoff, shoff, 0, EHSIZE,
                      PHSIZE, phnum, SHSIZE, shnum, shstrndx)


def phdr(ptype, flags, off, vaddr, filesz, memsz, align):
    if W64:
        return pk("IIQQQQQQ", ptype, flags, off, vaddr, vaddr, filesz, memsz, align)
    return pk("IIIIIIII", ptype, off, vaddr, vaddr, filesz, memsz, flags, align)


def shdr(name, typ, flags, addr, off, size, link=0, info=0, align=1, entsize=0):
    if W64:
        return pk("IIQQQQIIQQ", name, typ, flags, addr, off, size, link, info, align, entsize)
    return pk("IIIIIIIIII", name, typ, flags, addr, off, size, link, info, align, entsize)


def sym(name, value, size, info, shndx):
    if W64:
        return pk("IBBHQQ", name, info, 0, shndx, value, size)
    return pk("IIIBBH", name, value, size, info, 0, shndx)


def word(v):
    return pk("Q" if W64 else "I", v)


def align(body, n):
    while len(body) % n:
        body += b"\0"


def elf_file(etype, entry, sections, phdrs_of, symtab_type):
    """sections: list of (name, type, flags, addr, blob or None for NOBITS size)."""
    body = bytearray(0x300)                    # ehdr + phdrs + padding
    shstr = b"\0"
    names, offs = [], []
    for s in sections:
        names.append(len(shstr))
        shstr += s[0] + b"\0"
    shstr_name = len(shstr)
    shstr += b".shstrtab\0"
    for s in sections:
        blob = s[4]
        if s[1] == 8:                          # NOBITS
            offs.append(0)
            continue
        if s[3]:                               # allocated: file offset == address
            while len(body) < s[3]:
                body += b"\0"
        else:
            align(body, 8)
        offs.append(len(body))
        body += blob
    align(body, 8)
    shstroff = len(body)
    body += shstr
    align(body, 8)
    shoff = len(body)
    sh = shdr(0, 0, 0, 0, 0, 0)
    for i, s in enumerate(sections):
        name, typ, flags, addr, blob = s[:5]
        size = len(blob) if typ != 8 else s[5]
        link = info = 0
        entsize = 0
        al = 1
        if typ == symtab_type:
            link, info, entsize, al = i + 2, 1, SYMSIZE, 8   # its string table follows
        elif typ == 7:
            al = 4
        sh += shdr(names[i], typ, flags, addr, offs[i], size, link, info, al, entsize)
    sh += shdr(shstr_name, 3, 0, 0, shstroff, len(shstr))
    body += sh
    size = len(body)
    phdrs = phdrs_of(size, offs)
    head = ehdr(etype, entry, EHSIZE, shoff, len(phdrs) // PHSIZE, len(sections) + 2,
                len(sections) + 1)
    body[0:len(head)] = head
    body[EHSIZE:EHSIZE + len(phdrs)] = phdrs
    return bytes(body)


# ---- namelist ----------------------------------------------------------------------------
RODATA = 0x300
ro = {}                                         # text -> link-time address
rodata = b""
for text in (b"fromfile: %x", b"named: %s", b"literal", b"crafted: value %d"):
    ro[text] = RODATA + len(rodata)
    rodata += text + b"\0"
ANCHOR_LINK = 0x2000 if not SHARED else None


def namelist():
    sections = [(b".rodata", 1, 2, RODATA, rodata)]
    if not SHARED:
        strtab = b"\0koff_crash_anchor\0"
        symtab = sym(0, 0, 0, 0, 0) + sym(1, 0x2000, 992, 0x11, 1 + 1)
        sections = [(b".rodata", 1, 2, RODATA, rodata),
                    (b".data", 8, 3, 0x2000, b"", 0x1000),
                    (b".symtab", 2, 0, 0, symtab),
                    (b".strtab", 3, 0, 0, strtab)]

    def phdrs(size, offs):
        return (phdr(6, 4, EHSIZE, EHSIZE, 2 * PHSIZE, 2 * PHSIZE, 8) +        # PT_PHDR
                phdr(1, 5, 0, 0, size, 0x3000, 0x1000))                         # PT_LOAD
    return elf_file(3, 0x1000, sections, phdrs, 2)


# ---- libktrace.so (shared variant) --------------------------------------------------------
LIB_NOTE = 0x300                               # link-time address of the build-id note
LIB_ANCHOR = 0x3000                            # link-time address of the anchor


def library():
    note_blob = pk("III", 4, len(BUILD_ID), 3) + b"GNU\0" + BUILD_ID
    dynstr = b"\0koff__trace\0koff_crash_anchor\0"
    dynsym = (sym(0, 0, 0, 0, 0) + sym(1, 0x1000, 16, 0x12, 4) +      # in .text
              sym(13, LIB_ANCHOR, 992, 0x11, 5))                        # in .data
    sections = [(b".note.gnu.build-id", 7, 2, LIB_NOTE, note_blob),
                (b".dynsym", 11, 2, 0x400, dynsym),
                (b".dynstr", 3, 2, 0x600, dynstr),
                (b".text", 1, 6, 0x1000, b"\xc3" * 16),
                (b".data", 8, 3, LIB_ANCHOR, b"", 0x1000)]

    def phdrs(size, offs):
        return (phdr(1, 5, 0, 0, 0x1010, 0x1010, 0x1000) +                        # text
                phdr(1, 6, 0x2000, LIB_ANCHOR, 0, 0x1000, 0x1000) +               # data
                phdr(4, 4, LIB_NOTE, LIB_NOTE, len(note_blob), len(note_blob), 4))  # note
    # .dynsym links to .dynstr (the section after it), as elf_file arranges
    return elf_file(3, 0, sections, phdrs, 11)


# ---- the buffer ------------------------------------------------------------------------------
NENT, STRTAB, SLOTS = 16, 512, 64
HASH_OFF, RING_OFF = 4096, 8192
STRTAB_OFF = RING_OFF + NENT * 128
FILE_SIZE = STRTAB_OFF + STRTAB
ANCHOR_ADDR = LIB_BASE + LIB_ANCHOR if SHARED else BIAS + 0x2000
IN_CORE_TEXT = ANCHOR_ADDR + 0x400             # a string in the core's memory


def buffer():
    b = bytearray(FILE_SIZE)
    # version 1 (one slot claimed at a time); the shared variant writes version 2 with
    # groups of 1 slot and a maximum age of 4 (layout.h)
    struct.pack_into(E + "8sIIIIQQQQQIIQQII", b, 0, b"KOFFRING", 2 if SHARED else 1, 4096,
                     128, 0x01020304, NENT, RING_OFF, STRTAB_OFF, STRTAB, HASH_OFF, SLOTS, PTR,
                     FILE_SIZE, T0 - 1000 * MS, 2, PID)
    if SHARED:
        struct.pack_into(E + "II", b, 96, 1, 4)
    records = [
        # tid, ns, id, table text or None (then the format's address), args
        (0xabcd000000001001, T0, 0, b"table: value %d", [42]),
        (0x1002, T0 + 5 * MS, 7, None, [0xBEEF], b"fromfile: %x"),
        (0x1003, T0 + 9 * MS, 8, None, [BIAS + ro[b"literal"]], b"named: %s"),
        (0x1004, T0 + 70 * 1000 * MS, 0xffffffff12345678, b"heap: %s", [IN_CORE_TEXT]),
        (0x1005, T0 + 70 * 1000 * MS + 1, 9, b"odmgetattr: flags %x", [0x10]),
    ]
    head = 0
    used = 8
    for r in records:
        tid, ns, ident, text, args = r[:5]
        str_off, fmt_addr = 0, 0
        if text is not None:
            str_off = used
            struct.pack_into(E + "II", b, STRTAB_OFF + used, len(text), fnv1a(text))
            b[STRTAB_OFF + used + 8:STRTAB_OFF + used + 8 + len(text)] = text
            used += (8 + len(text) + 1 + 7) & ~7
            fmt_addr = 0x1234
        else:
            fmt_addr = BIAS + ro[r[5]]
        args = (args + [0] * 5)[:5]
        slot = RING_OFF + head * 128
        struct.pack_into(E + "QQQQQ5QIIIIQ", b, slot, head + NENT, ns, tid, ident, fmt_addr,
                         *args, str_off, PID, 1, 0, 1)        # ..., flags, reserved, count
        head += 1
    for i in range(head, NENT):
        struct.pack_into(E + "Q", b, RING_OFF + i * 128, i)
    struct.pack_into(E + "QQI", b, 128, (1 << 64) - 1, (1 << 64) - 1, 1)   # gate, mask, on
    struct.pack_into(E + "Q", b, 256, head)
    struct.pack_into(E + "Q", b, 448, used)
    return bytes(b)


# ---- the core ----------------------------------------------------------------------------------
def note(name, typ, desc):
    n = name + b"\0"

    def pad(x):
        return x + b"\0" * ((4 - len(x) % 4) % 4)
    return pk("III", len(n), len(desc), typ) + pad(n) + pad(desc)


def core(buf, lib):
    prstatus = bytearray(336 if W64 else 144)
    struct.pack_into(E + "I", prstatus, 32 if W64 else 24, PID)
    auxv = word(3) + word(BIAS + EHSIZE) + word(9) + word(BIAS + 0x1000) + word(0) + word(0)
    files = [(BUF_ADDR, BUF_ADDR + 0x3000, 0, b"/dev/shm/koff-crafted")]
    if SHARED:
        files.append((LIB_BASE, LIB_BASE + 0x2000, 0, b"/crafted/lib/libktrace.so.1"))
    ntfile = word(len(files)) + word(4096)
    for start, end, off, _ in files:
        ntfile += word(start) + word(end) + word(off)
    for f in files:
        ntfile += f[3] + b"\0"
    notes = note(b"CORE", 1, bytes(prstatus)) + note(b"CORE", 6, auxv) + \
        note(b"CORE", 0x46494C45, ntfile)
    anchor = bytearray(0x1000)
    path = b"/dev/shm/koff-crafted"
    struct.pack_into(E + "16sIIII", anchor, 0, b"KOFF-ANCHOR-v1\n\0", 1, 8, 1, 0)
    struct.pack_into(E + "QQ104s", anchor, 32, BUF_ADDR, len(buf), path)
    anchor[0x400:0x400 + 13] = b"in-core text\0"
    bufseg = buf + b"\0" * (0x3000 - len(buf))
    segs = [(ANCHOR_ADDR, bytes(anchor)), (BUF_ADDR, bufseg)]
    if SHARED:
        segs.append((LIB_BASE, lib[:0x1000]))   # the library's first page (ELF headers)
    phnum = 1 + len(segs)
    note_off = EHSIZE + PHSIZE * phnum
    off = (note_off + len(notes) + 0xFFF) & ~0xFFF
    ph = phdr(4, 0, note_off, 0, len(notes), 0, 4)
    layout = []
    for addr, blob in segs:
        ph += phdr(1, 6, off, addr, len(blob), len(blob), 0x1000)
        layout.append((off, blob))
        off += (len(blob) + 0xFFF) & ~0xFFF
    out = bytearray(off)
    out[0:EHSIZE] = ehdr(4, 0, EHSIZE, 0, phnum, 0, 0)
    out[EHSIZE:EHSIZE + len(ph)] = ph
    out[note_off:note_off + len(notes)] = notes
    for o, blob in layout:
        out[o:o + len(blob)] = blob
    return bytes(out)


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    prog, buf = namelist(), buffer()
    lib = library() if SHARED else b""
    c = core(buf, lib)
    outs = [("prog", prog), ("core", c), ("buffer", buf),
            ("elfseed", struct.pack("<I", len(prog)) + prog + c)]
    if SHARED:
        outs += [("lib", lib),
                 ("libseed", struct.pack("<II", len(prog), len(lib)) + prog + lib + c)]
    for name, blob in outs:
        with open(os.path.join(d, name), "wb") as f:
            f.write(blob)


main()
