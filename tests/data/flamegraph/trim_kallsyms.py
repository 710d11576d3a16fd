#!/usr/bin/env python3
"""Keeps in a trace.dat (version 6, uncompressed: `ktrace convert --file-version 6
--compression none` first) only the kallsyms lines a report of it needs: the functions
that the kernel_stack records name (given as the names of `trace-cmd report`'s
"=> name (address)" lines) and, for each, the function after it by address, which ends
it. Every other part of the file is copied as it is; the CPU data moves up to the first
page boundary after the shorter metadata and its offsets in the flyrecord table with it.

    trim_kallsyms.py IN.dat REPORT.txt OUT.dat

The file layout read here (v6): magic, version, endianness, long size, page size; the
header_page and header_event texts (name, 8-byte size); ftrace formats (4-byte count,
8-byte sizes); event systems (4-byte count; name, 4-byte count, 8-byte sizes);
kallsyms (4-byte size); printk formats (4-byte size); saved cmdlines (8-byte size);
CPU count (4 bytes); "options  " and its options (2-byte id, 4-byte size) to id 0;
"flyrecord" and an (offset, size) pair of 8-byte numbers per CPU.
"""
import re
import struct
import sys


def main():
    src, report, dst = sys.argv[1:4]
    data = open(src, 'rb').read()
    assert data[:10] == b'\x17\x08\x44tracing' and data[10:12] == b'6\0', 'not a v6 trace.dat'
    le = data[12] == 0
    e = '<' if le else '>'
    pos = 12 + 2
    page = struct.unpack_from(e + 'I', data, pos)[0]
    pos += 4

    def skip(fmt):
        nonlocal pos
        n = u(fmt)
        pos += n

    def u(fmt):
        nonlocal pos
        v = struct.unpack_from(e + fmt, data, pos)[0]
        pos += struct.calcsize(fmt)
        return v

    def cstr():
        nonlocal pos
        z = data.index(b'\0', pos)
        s = data[pos:z]
        pos = z + 1
        return s

    for name in (b'header_page', b'header_event'):
        assert cstr() == name
        skip('Q')
    for _ in range(u('I')):
        skip('Q')
    for _ in range(u('I')):
        cstr()
        for _ in range(u('I')):
            skip('Q')
    ks_at = pos
    ks_len = u('I')
    ks = data[pos:pos + ks_len]
    pos += ks_len
    rest_at = pos   # printk formats, cmdlines, CPUs, options, flyrecord
    skip('I')
    skip('Q')
    ncpus = u('I')
    assert data[pos:pos + 10] == b'options  \0'
    pos += 10
    while True:
        oid = u('H')
        if oid == 0:
            break
        assert oid != 3, 'BUFFER options (instances) are not handled'
        skip('I')
    assert data[pos:pos + 10] == b'flyrecord\0'
    pos += 10
    fly = pos
    cpus = [(u('Q'), u('Q')) for _ in range(ncpus)]
    head_end = pos

    names = set(re.findall(r'^=> (\S+) \(', open(report).read(), re.M))
    lines = ks.decode('latin-1').split('\n')
    parsed = []
    for i, l in enumerate(lines):
        p = l.split()
        if len(p) >= 3:
            parsed.append((int(p[0], 16), i, p[2]))
    parsed.sort()
    keep = set()
    for k, (addr, i, name) in enumerate(parsed):
        if name in names:
            keep.add(i)
            if k + 1 < len(parsed):
                keep.add(parsed[k + 1][1])
    new_ks = ('\n'.join(lines[i] for i in sorted(keep)) + '\n').encode('latin-1')

    out = bytearray(data[:ks_at])
    out += struct.pack(e + 'I', len(new_ks)) + new_ks
    out += data[rest_at:fly]
    shift_at = len(out)
    out += b'\0' * (16 * ncpus)
    first = min(o for o, s in cpus if s) if any(s for o, s in cpus) else head_end
    new_first = (len(out) + page - 1) // page * page
    out += b'\0' * (new_first - len(out))
    out += data[first:]
    for i, (o, s) in enumerate(cpus):
        struct.pack_into(e + 'QQ', out, shift_at + 16 * i, o - first + new_first if s else 0, s)
    open(dst, 'wb').write(out)
    print('kallsyms: %d lines kept of %d' % (len(keep), len(lines)), file=sys.stderr)


main()
