#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds a small crafted crash dump, written independently of the library from the
layouts in lib/koff/layout.h and the ELF specification: a position-independent
"program" (namelist) with a symbol table and read-only format strings, and an ELF core
of it whose memory holds the crash anchor and a KOFF buffer, with NT_PRSTATUS, NT_AUXV
and NT_FILE notes.

    mkcore.py DIR    writes DIR/prog, DIR/core, DIR/buffer (the buffer image alone)
                     and DIR/elfseed (u32 length of prog, prog, core: the fuzz input)
"""
import os
import struct
import sys

BIAS = 0x555555554000
BUF_ADDR = 0x7F0000000000
PID = 4242
T0 = 990015556 * 10**9 + 772 * 10**6          # 2001-05-16 12:19:16.772 UTC
MS = 10**6

def fnv1a(b):
    h = 2166136261
    for c in b:
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h or 1

# ---- namelist --------------------------------------------------------------------
RODATA = 0x300
ro = {}                                         # text -> link-time address
rodata = b""
for text in (b"fromfile: %x", b"named: %s", b"literal", b"crafted: value %d"):
    ro[text] = RODATA + len(rodata)
    rodata += text + b"\0"

def namelist():
    strtab = b"\0koff_crash_anchor\0"
    shstr = b"\0.data\0.symtab\0.strtab\0.shstrtab\0.rodata\0"
    sym0 = b"\0" * 24
    sym1 = struct.pack("<IBBHQQ", 1, 0x11, 0, 1, 0x2000, 992)
    symtab = sym0 + sym1
    body = bytearray(RODATA)                   # ehdr + phdrs + padding
    body += rodata
    def put(blob):
        nonlocal body
        while len(body) % 8:
            body += b"\0"
        off = len(body)
        body += blob
        return off
    symoff = put(symtab)
    stroff = put(strtab)
    shstroff = put(shstr)
    while len(body) % 8:
        body += b"\0"
    shoff = len(body)
    def sh(name, typ, flags, addr, off, size, link=0, info=0, align=1, entsize=0):
        return struct.pack("<IIQQQQIIQQ", name, typ, flags, addr, off, size, link, info,
                           align, entsize)
    shdrs = (sh(0, 0, 0, 0, 0, 0) +
             sh(1, 8, 3, 0x2000, 0, 0x1000, align=8) +                 # .data NOBITS
             sh(7, 2, 0, 0, symoff, len(symtab), 3, 1, 8, 24) +       # .symtab
             sh(15, 3, 0, 0, stroff, len(strtab)) +                    # .strtab
             sh(23, 3, 0, 0, shstroff, len(shstr)) +                   # .shstrtab
             sh(33, 1, 2, RODATA, RODATA, len(rodata)))                # .rodata
    body += shdrs
    size = len(body)
    ehdr = (b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8 +
            struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0x1000, 64, shoff, 0, 64, 56, 2, 64, 6, 4))
    phdrs = (struct.pack("<IIQQQQQQ", 6, 4, 64, 64, 64, 112, 112, 8) +          # PT_PHDR
             struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, size, 0x3000, 0x1000))    # PT_LOAD
    body[0:64] = ehdr
    body[64:64 + len(phdrs)] = phdrs
    return bytes(body)

# ---- the buffer -------------------------------------------------------------------
NENT, STRTAB, SLOTS = 16, 512, 64
HASH_OFF, RING_OFF = 4096, 8192
STRTAB_OFF = RING_OFF + NENT * 128
FILE_SIZE = STRTAB_OFF + STRTAB
IN_CORE_TEXT = BIAS + 0x2000 + 0x400           # a string in the core's memory

def buffer():
    b = bytearray(FILE_SIZE)
    struct.pack_into("<8sIIIIQQQQQIIQQII", b, 0, b"KOFFRING", 1, 4096, 128, 0x01020304,
                     NENT, RING_OFF, STRTAB_OFF, STRTAB, HASH_OFF, SLOTS, 8, FILE_SIZE,
                     T0 - 1000 * MS, 2, PID)
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
            struct.pack_into("<II", b, STRTAB_OFF + used, len(text), fnv1a(text))
            b[STRTAB_OFF + used + 8:STRTAB_OFF + used + 8 + len(text)] = text
            used += (8 + len(text) + 1 + 7) & ~7
            fmt_addr = 0x1234
        else:
            fmt_addr = BIAS + ro[r[5]]
        args = (args + [0] * 5)[:5]
        slot = RING_OFF + head * 128
        struct.pack_into("<QQQQQ5QIIIIQ", b, slot, head + NENT, ns, tid, ident, fmt_addr, *args,
                         str_off, PID, 1, 0, 1)        # ..., flags, reserved, count
        head += 1
    for i in range(head, NENT):
        struct.pack_into("<Q", b, RING_OFF + i * 128, i)
    struct.pack_into("<QQI", b, 128, (1 << 64) - 1, (1 << 64) - 1, 1)   # gate, mask, enabled
    struct.pack_into("<Q", b, 256, head)
    struct.pack_into("<Q", b, 448, used)
    return bytes(b)

# ---- the core -----------------------------------------------------------------------
def note(name, typ, desc):
    n = name + b"\0"
    pad = lambda x: x + b"\0" * ((4 - len(x) % 4) % 4)
    return struct.pack("<III", len(n), len(desc), typ) + pad(n) + pad(desc)

def core(buf):
    prstatus = bytearray(336)
    struct.pack_into("<I", prstatus, 32, PID)
    auxv = struct.pack("<6Q", 3, BIAS + 64, 9, BIAS + 0x1000, 0, 0)
    fname = b"/dev/shm/koff-crafted\0"
    ntfile = struct.pack("<QQQQQ", 1, 4096, BUF_ADDR, BUF_ADDR + 0x3000, 0) + fname
    notes = note(b"CORE", 1, bytes(prstatus)) + note(b"CORE", 6, auxv) + \
        note(b"CORE", 0x46494C45, ntfile)
    anchor = bytearray(0x1000)
    path = b"/dev/shm/koff-crafted"
    struct.pack_into("<16sIIII", anchor, 0, b"KOFF-ANCHOR-v1\n\0", 1, 8, 1, 0)
    struct.pack_into("<QQ104s", anchor, 32, BUF_ADDR, len(buf), path)
    anchor[0x400:0x400 + 13] = b"in-core text\0"
    bufseg = buf + b"\0" * (0x3000 - len(buf))
    phnum = 3
    data_off = 64 + 56 * phnum
    note_off = data_off
    anchor_off = (note_off + len(notes) + 0xFFF) & ~0xFFF
    buf_off = anchor_off + len(anchor)
    out = bytearray(buf_off + len(bufseg))
    out[0:64] = (b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8 +
                 struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, phnum, 64, 0, 0))
    ph = (struct.pack("<IIQQQQQQ", 4, 0, note_off, 0, 0, len(notes), 0, 4) +
          struct.pack("<IIQQQQQQ", 1, 6, anchor_off, BIAS + 0x2000, 0, len(anchor), len(anchor),
                      0x1000) +
          struct.pack("<IIQQQQQQ", 1, 6, buf_off, BUF_ADDR, 0, len(bufseg), len(bufseg), 0x1000))
    out[64:64 + len(ph)] = ph
    out[note_off:note_off + len(notes)] = notes
    out[anchor_off:anchor_off + len(anchor)] = anchor
    out[buf_off:buf_off + len(bufseg)] = bufseg
    return bytes(out)

def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    prog, buf = namelist(), buffer()
    c = core(buf)
    for name, blob in (("prog", prog), ("core", c), ("buffer", buf),
                       ("elfseed", struct.pack("<I", len(prog)) + prog + c)):
        with open(os.path.join(d, name), "wb") as f:
            f.write(blob)

main()
