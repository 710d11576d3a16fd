#!/usr/bin/env python3
"""Makes a small copy of a version 6 trace.dat file, for committing as test data.

usage: tdslim.py [--offset NS] [--date HEX] [--tsc2nsec MULT,SHIFT,OFFSET]
                 [--time-shift FLAGS:TIME,OFFSET,...] IN.v6.dat OUT.v6.dat

The copy keeps the header texts, the ftrace formats, printk formats, saved cmdlines,
options and every buffer's CPU data unchanged, but drops kallsyms and keeps only the
format files of the events that occur in the data. `trace-cmd report` reads it the
same way (minus symbol names). --offset, --date, --tsc2nsec, --time-shift add an OFFSET, DATE, TSC2NSEC or TIME_SHIFT
(the same samples for every CPU, scaling 1) option (timestamp
corrections that only some recorders write). Written for the tests; it trusts its input.
"""
import re
import struct
import sys


class V6:
    def __init__(self, data):
        self.d = data
        self.p = 0
        assert data[:10] == b'\x17\x08Dtracing', 'not a trace.dat'
        self.p = 10
        ver = self.cstr()
        assert ver == b'6', 'version 6 only'
        self.endian = data[self.p]
        self.e = '>' if self.endian else '<'
        self.long = data[self.p + 1]
        self.p += 2
        self.page = self.u32()
        assert self.take(12) == b'header_page\0'
        self.header_page = self.take(self.u64())
        assert self.take(13) == b'header_event\0'
        self.header_event = self.take(self.u64())
        self.ftrace = [self.take(self.u64()) for _ in range(self.u32())]
        self.systems = []
        for _ in range(self.u32()):
            name = self.cstr()
            fmts = [self.take(self.u64()) for _ in range(self.u32())]
            self.systems.append((name, fmts))
        self.kallsyms = self.take(self.u32())
        self.printk = self.take(self.u32())
        self.cmdlines = self.take(self.u64())
        self.cpus = self.u32()
        self.options = []
        tag = self.take(10)
        if tag == b'options  \0':
            while True:
                oid = self.u16()
                if oid == 0:
                    break
                size = self.u32()
                self.options.append((oid, self.take(size)))
            tag = self.take(10)
        assert tag == b'flyrecord\0', 'flyrecord only'
        ncpu = self.cpus
        for oid, od in self.options:
            if oid == 8:
                ncpu = struct.unpack(self.e + 'I', od[:4])[0]
        self.ncpu = ncpu
        self.top = self.table(ncpu)
        self.clock = None
        if any(oid == 4 for oid, _ in self.options):
            self.clock = self.take(self.u64())
        self.instances = []
        for oid, od in self.options:
            if oid == 3:
                off = struct.unpack(self.e + 'Q', od[:8])[0]
                name = od[8:od.index(b'\0', 8)]
                self.p = off
                assert self.take(10) == b'flyrecord\0'
                self.instances.append((name, self.table(ncpu)))
        m = re.search(rb'commit;\s*offset:\d+;\s*size:(\d+);', self.header_page)
        self.klong = int(m.group(1)) if m else 8

    def take(self, n):
        b = self.d[self.p:self.p + n]
        assert len(b) == n, 'truncated'
        self.p += n
        return b

    def u16(self):
        return struct.unpack(self.e + 'H', self.take(2))[0]

    def u32(self):
        return struct.unpack(self.e + 'I', self.take(4))[0]

    def u64(self):
        return struct.unpack(self.e + 'Q', self.take(8))[0]

    def cstr(self):
        end = self.d.index(b'\0', self.p)
        s = self.d[self.p:end]
        self.p = end + 1
        return s

    def table(self, n):
        out = []
        for _ in range(n):
            off, size = self.u64(), self.u64()
            out.append(self.d[off:off + size])
        return out


def event_ids(v, blobs):
    """Event ids (common_type) of every data record in the CPU data blobs."""
    ids = set()
    e = v.e
    hdr = 8 + v.klong
    for blob in blobs:
        for pg in range(0, len(blob) - hdr + 1, v.page):
            page = blob[pg:pg + v.page]
            commit = struct.unpack_from(e + ('Q' if v.klong == 8 else 'I'), page, 8)[0]
            size = commit & ((1 << 27) - 1)
            data = page[hdr:hdr + size]
            i = 0
            while i + 4 <= len(data):
                w = struct.unpack_from(e + 'I', data, i)[0]
                tl = (w >> 27) if v.endian else (w & 31)
                if tl == 29:
                    if i + 8 > len(data):
                        break
                    ln = struct.unpack_from(e + 'I', data, i + 4)[0]
                    i += 4 + ln if ln else len(data)
                elif tl in (30, 31):
                    i += 8
                elif tl == 0:
                    ln = struct.unpack_from(e + 'I', data, i + 4)[0] - 4
                    if i + 8 + 2 <= len(data):
                        ids.add(struct.unpack_from(e + 'H', data, i + 8)[0])
                    i += 8 + ((ln + 3) & ~3)
                else:
                    if i + 4 + 2 <= len(data):
                        ids.add(struct.unpack_from(e + 'H', data, i + 4)[0])
                    i += 4 + tl * 4
    return ids


def fmt_id(text):
    m = re.search(rb'^ID:\s*(\d+)', text, re.M)
    return int(m.group(1)) if m else None


def write(v, out, extra=(), kallsyms=b''):
    """The trace with only the formats of events present, extra options added, and the
    kallsyms text given (none by default)."""
    e = v.e
    blobs = list(v.top) + [b for _, t in v.instances for b in t]
    used = event_ids(v, blobs)
    b = bytearray()
    b += b'\x17\x08Dtracing6\0' + bytes([v.endian, v.long]) + struct.pack(e + 'I', v.page)
    b += b'header_page\0' + struct.pack(e + 'Q', len(v.header_page)) + v.header_page
    b += b'header_event\0' + struct.pack(e + 'Q', len(v.header_event)) + v.header_event
    b += struct.pack(e + 'I', len(v.ftrace))
    for f in v.ftrace:
        b += struct.pack(e + 'Q', len(f)) + f
    systems = []
    for name, fmts in v.systems:
        keep = [f for f in fmts if fmt_id(f) in used]
        if keep:
            systems.append((name, keep))
    b += struct.pack(e + 'I', len(systems))
    for name, fmts in systems:
        b += name + b'\0' + struct.pack(e + 'I', len(fmts))
        for f in fmts:
            b += struct.pack(e + 'Q', len(f)) + f
    b += struct.pack(e + 'I', len(kallsyms)) + kallsyms
    b += struct.pack(e + 'I', len(v.printk)) + v.printk
    b += struct.pack(e + 'Q', len(v.cmdlines)) + v.cmdlines
    b += struct.pack(e + 'I', v.cpus)
    b += b'options  \0'
    patch = {}                                          # instance name -> offset of its BUFFER offset
    for oid, od in list(v.options) + list(extra):
        b += struct.pack(e + 'HI', oid, len(od))
        if oid == 3:
            patch[od[8:od.index(b'\0', 8)]] = len(b)
        b += od
    b += struct.pack(e + 'H', 0)

    def flyrecord(table):
        b.extend(b'flyrecord\0')
        at = len(b)
        b.extend(bytes(16 * len(table)))
        if v.clock is not None:
            b.extend(struct.pack(e + 'Q', len(v.clock)) + v.clock)
        for i, blob in enumerate(table):
            if len(b) % v.page:
                b.extend(bytes(v.page - len(b) % v.page))
            struct.pack_into(e + 'QQ', b, at + 16 * i, len(b) if blob else 0, len(blob))
            b.extend(blob)

    flyrecord(v.top)
    for name, table in v.instances:
        struct.pack_into(e + 'Q', b, patch[name], len(b))
        flyrecord(table)
    open(out, 'wb').write(b)


if __name__ == '__main__':
    args = sys.argv[1:]
    extra = []
    while args and args[0].startswith('--'):
        opt, val = args[0], args[1]
        args = args[2:]
        if opt == '--offset':
            extra.append((7, val.encode() + b'\0'))
        elif opt == '--date':
            extra.append((1, val.encode() + b'\0'))
        elif opt == '--time-shift':
            # FLAGS:TIME,OFFSET[,TIME,OFFSET...], the same samples for every CPU
            fl, samples = val.split(':')
            nums = [int(x, 0) for x in samples.split(',')]
            extra.append((12, (int(fl, 0), nums[0::2], nums[1::2])))
        elif opt == '--tsc2nsec':
            m, s_, o = (int(x, 0) for x in val.split(','))
            extra.append((14, (m, s_, o)))
        else:
            sys.exit(__doc__)
    if len(args) != 2:
        sys.exit(__doc__)
    v = V6(open(args[0], 'rb').read())
    def encode(i, d):
        if i == 14:
            return struct.pack(v.e + 'IIQ', *d)
        if i == 12:
            fl, times, offs = d
            b = struct.pack(v.e + 'QII', 0x1234, fl, v.ncpu)
            for _ in range(v.ncpu):
                b += struct.pack(v.e + 'I', len(times))
                b += b''.join(struct.pack(v.e + 'q', t) for t in times)
                b += b''.join(struct.pack(v.e + 'q', o) for o in offs)
                b += b''.join(struct.pack(v.e + 'q', 1) for _ in times)
            return b
        return d
    extra = [(i, encode(i, d)) for i, d in extra]
    write(v, args[1], extra)
