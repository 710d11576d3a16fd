#!/usr/bin/env python3
"""Prints where a trace.dat file keeps trace-cmd 3.4's BTF and modules files, and a hash
of their bytes, read without ktrace.

usage: kfiles.py FILE.dat

One line each: "BTF section <flags> <size> <sha256>" for a BTF_FILE option (23) naming
a section of id 23 whose bytes are the file (decompressed with the zstd program or
Python's zlib when the section says so), "BTF option <size> <sha256>" for ktrace's own
KTRACE_BTF option (0x8002); the same with "modules" (25, 0x8003). A BTF_FILE option
naming anything else than a section of its id prints "BTF bad ...". Version 6 and 7,
little-endian files; written for the tests, it trusts the rest of its input.
"""
import hashlib
import struct
import subprocess
import sys
import zlib

NAMES = {23: 'BTF', 25: 'modules', 0x8002: 'BTF', 0x8003: 'modules'}


def block(d, at, comp):
    csize, usize = struct.unpack_from('<II', d, at)
    raw = d[at + 8:at + 8 + csize]
    if comp == 'zstd':
        out = subprocess.run(['zstd', '-d', '-c', '-q'], input=raw, stdout=subprocess.PIPE,
                             check=True).stdout
    else:
        out = zlib.decompress(raw)
    assert len(out) == usize, (len(out), usize)
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = open(sys.argv[1], 'rb').read()
    assert d[:10] == b'\x17\x08Dtracing'
    p = d.index(b'\0', 10)
    version = int(d[10:p])
    p += 1
    assert d[p] == 0, 'little endian only'
    p += 6
    lines = []
    if version < 7:
        # options come after the metadata: find the "options  " tag by walking it
        p = d.index(b'\0', p) + 1                       # "header_page"
        p += 8 + struct.unpack_from('<Q', d, p)[0]
        p = d.index(b'\0', p) + 1                       # "header_event"
        p += 8 + struct.unpack_from('<Q', d, p)[0]
        n = struct.unpack_from('<I', d, p)[0]           # ftrace formats
        p += 4
        for _ in range(n):
            p += 8 + struct.unpack_from('<Q', d, p)[0]
        n = struct.unpack_from('<I', d, p)[0]           # event systems
        p += 4
        for _ in range(n):
            p = d.index(b'\0', p) + 1
            m = struct.unpack_from('<I', d, p)[0]
            p += 4
            for _ in range(m):
                p += 8 + struct.unpack_from('<Q', d, p)[0]
        p += 4 + struct.unpack_from('<I', d, p)[0]      # kallsyms
        p += 4 + struct.unpack_from('<I', d, p)[0]      # printk
        p += 8 + struct.unpack_from('<Q', d, p)[0]      # cmdlines
        p += 4                                          # CPU count
        assert d[p:p + 10] == b'options  \0', d[p:p + 10]
        p += 10
        while True:
            oid = struct.unpack_from('<H', d, p)[0]
            if oid == 0:
                break
            size = struct.unpack_from('<I', d, p + 2)[0]
            data = d[p + 6:p + 6 + size]
            if oid in (0x8002, 0x8003):
                lines.append('%s option %d %s' % (NAMES[oid], size, hashlib.sha256(data).hexdigest()))
            elif oid in (23, 25):
                lines.append('%s bad option in version 6' % NAMES[oid])
            p += 6 + size
    else:
        comp = d[p:d.index(b'\0', p)].decode()
        p = d.index(b'\0', d.index(b'\0', p) + 1) + 1
        off = struct.unpack_from('<Q', d, p)[0]
        while off:
            sid, flags, _, size = struct.unpack_from('<HHIQ', d, off)
            assert sid == 0 and flags == 0, 'uncompressed options sections only'
            r, nxt = off + 16, 0
            while r < off + 16 + size:
                oid, osz = struct.unpack_from('<HI', d, r)
                od = d[r + 6:r + 6 + osz]
                if oid == 0:
                    nxt = struct.unpack_from('<Q', od, 0)[0]
                elif oid in (0x8002, 0x8003):
                    lines.append('%s option %d %s' % (NAMES[oid], osz, hashlib.sha256(od).hexdigest()))
                elif oid in (23, 25):
                    at = struct.unpack_from('<Q', od, 0)[0]
                    ssid, sflags, _, ssize = struct.unpack_from('<HHIQ', d, at)
                    if ssid != oid:
                        lines.append('%s bad section id %d' % (NAMES[oid], ssid))
                    else:
                        body = d[at + 16:at + 16 + ssize]
                        if sflags & 1:
                            body = block(d, at + 16, comp)
                        lines.append('%s section %d %d %s' % (NAMES[oid], sflags, len(body),
                                                              hashlib.sha256(body).hexdigest()))
                r += 6 + osz
            off = nxt
    for line in sorted(lines):
        print(line)


if __name__ == '__main__':
    main()
