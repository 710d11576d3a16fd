#!/usr/bin/env python3
"""Rewrites an uncompressed version 7 trace.dat file with zlib compression.

usage: v7zlib.py [--short-size] IN.v7none.dat OUT.v7zlib.dat

Debian's trace-cmd cannot write zlib files, so the tests make them with this. The
layout follows what trace-cmd writes: metadata sections (headers, formats, kallsyms,
printk, cmdlines, strings) compressed as one block ("u32 compressed size, u32
uncompressed size, bytes", zlib stream as compress2() makes it); CPU data page-aligned
and compressed in chunks of at most 10 pages ("u32 count", then per chunk "u32 csize,
u32 usize, bytes"); options sections uncompressed, their offsets rewritten.
--short-size records each CPU's compressed size 4 bytes short, as trace-cmd 3.1.x does.
Written for the tests; it trusts its input.
"""
import struct
import sys
import zlib

PAGES_IN_CHUNK = 10


def main():
    args = sys.argv[1:]
    short = '--short-size' in args
    args = [a for a in args if a != '--short-size']
    if len(args) != 2:
        sys.exit(__doc__)
    d = open(args[0], 'rb').read()
    assert d[:10] == b'\x17\x08Dtracing'
    p = 10
    end = d.index(b'\0', p)
    assert d[p:end] == b'7', 'version 7 only'
    p = end + 1
    e = '>' if d[p] else '<'
    endian_long = d[p:p + 2]
    page = struct.unpack_from(e + 'I', d, p + 2)[0]
    p += 6
    end = d.index(b'\0', p)
    assert d[p:end] == b'none', 'input must be uncompressed'
    p = d.index(b'\0', end + 1) + 1
    opt_off = struct.unpack_from(e + 'Q', d, p)[0]
    p += 8
    first_section = p

    # every section, in file order
    sections = []
    q = first_section
    while q + 16 <= len(d):
        sid, flags, desc, size = struct.unpack_from(e + 'HHiQ', d, q)
        assert flags == 0
        sections.append((q, sid, desc, size))
        q += 16 + size

    # options: where BUFFER options put their CPU data
    buffers = {}       # section offset -> (page size, [(cpu, offset, size)])
    off = opt_off
    while off:
        sid, flags, desc, size = struct.unpack_from(e + 'HHiQ', d, off)
        r = off + 16
        nxt = 0
        while r < off + 16 + size:
            oid, osz = struct.unpack_from(e + 'HI', d, r)
            od = d[r + 6:r + 6 + osz]
            if oid == 3:
                boff = struct.unpack_from(e + 'Q', od, 0)[0]
                i = od.index(b'\0', 8) + 1
                i = od.index(b'\0', i) + 1
                bpage, ncpu = struct.unpack_from(e + 'II', od, i)
                i += 8
                cpus = []
                for _ in range(ncpu):
                    cpus.append(struct.unpack_from(e + 'IQQ', od, i))
                    i += 20
                buffers[boff] = (bpage, cpus)
            if oid == 0:
                nxt = struct.unpack_from(e + 'Q', od, 0)[0]
            r += 6 + osz
        off = nxt

    out = bytearray(d[:10] + b'7\0' + endian_long + struct.pack(e + 'I', page))
    out += b'zlib\0' + zlib.ZLIB_VERSION.encode() + b'\0'
    hdr_opt = len(out)
    out += bytes(8)
    secmap = {}
    cpumap = {}        # old CPU data offset -> (new offset, recorded size)
    options = []       # (old offset, new offset, size) of options sections

    def chunks(data, chunk):
        body = bytearray(struct.pack(e + 'I', (len(data) + chunk - 1) // chunk))
        for i in range(0, len(data), chunk):
            c = zlib.compress(data[i:i + chunk], 9)
            body += struct.pack(e + 'II', len(c), len(data[i:i + chunk])) + c
        return body

    for (so, sid, desc, size) in sections:
        secmap[so] = len(out)
        body = d[so + 16:so + 16 + size]
        if sid == 0:
            options.append((so, len(out), size))
            out += d[so:so + 16 + size]
        elif sid in (15, 16, 17, 18, 19, 20, 21):
            c = zlib.compress(body, 9)
            out += struct.pack(e + 'HHiQ', sid, 1, desc, 8 + len(c))
            out += struct.pack(e + 'II', len(c), len(body)) + c
        elif sid == 3:
            bpage, cpus = buffers[so]
            start = len(out)
            out += struct.pack(e + 'HHiQ', sid, 1, desc, 0)
            for cpu, coff, csize in cpus:
                if len(out) % bpage:
                    out += bytes(bpage - len(out) % bpage)
                if not csize:
                    cpumap[coff] = (len(out), 0)
                    continue
                z = chunks(d[coff:coff + csize], PAGES_IN_CHUNK * bpage)
                cpumap[coff] = (len(out), len(z) - 4 if short else len(z))
                out += z
            struct.pack_into(e + 'Q', out, start + 8, len(out) - start - 16)
        elif sid == 22:
            z = chunks(body, PAGES_IN_CHUNK * page)
            out += struct.pack(e + 'HHiQ', sid, 1, desc, len(z)) + z
        else:
            out += d[so:so + 16 + size]

    struct.pack_into(e + 'Q', out, hdr_opt, secmap[opt_off])
    for old, new, size in options:
        r = new + 16
        while r < new + 16 + size:
            oid, osz = struct.unpack_from(e + 'HI', out, r)
            o = r + 6
            if oid in (16, 17, 18, 19, 20, 21, 22):
                struct.pack_into(e + 'Q', out, o, secmap[struct.unpack_from(e + 'Q', out, o)[0]])
            elif oid == 3:
                struct.pack_into(e + 'Q', out, o, secmap[struct.unpack_from(e + 'Q', out, o)[0]])
                i = out.index(b'\0', o + 8) + 1
                i = out.index(b'\0', i) + 1
                ncpu = struct.unpack_from(e + 'I', out, i + 4)[0]
                i += 8
                for _ in range(ncpu):
                    cpu, coff, csize = struct.unpack_from(e + 'IQQ', out, i)
                    struct.pack_into(e + 'IQQ', out, i, cpu, *cpumap.get(coff, (coff, csize)))
                    i += 20
            elif oid == 0:
                nxt = struct.unpack_from(e + 'Q', out, o)[0]
                struct.pack_into(e + 'Q', out, o, secmap[nxt] if nxt else 0)
            r += 6 + osz
    open(args[1], 'wb').write(out)


if __name__ == '__main__':
    main()
