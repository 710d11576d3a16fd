#!/usr/bin/env python3
"""Damages trace.dat files for tests/tracedat/damaged.sh, and says what a reader that
reads every CPU up to its own damage must print for them.

usage:
  damage.py v6 IN OUT SPEC...    damage a version 6 file; SPEC is one of
      badpage:CPU:PAGE          the sub-buffer's commit word beyond the page
      badpages:CPU:PAGE:N       the same for N sub-buffers in a row (one damaged place)
      runpast:CPU:PAGE:REC      record REC (0-based, data records) of the sub-buffer made
                                one whose length runs past the page
      cut:CPU:PAGE:BYTES        the file ends BYTES bytes into that sub-buffer
      size:CPU:BYTES            the CPU's size in the flyrecord table made BYTES (more than
                                its data: it runs into the next CPU's)
      late:CPU:PAGE:NS          not damage: a pause of NS nanoseconds in the trace; every
                                sub-buffer of every CPU that starts where page PAGE of
                                CPU does or later, starts NS later
  damage.py v7 IN OUT SPEC...    damage a version 7 file with compressed CPU data
      zap:CPU:CHUNK             64 bytes in the middle of the chunk's compressed data
      csize:CPU:CHUNK           the chunk's compressed size made 0x7fffffff (the chunks
                                after it are found again)
      usize:CPU:CHUNK           the chunk's uncompressed size made 0 (the same)
      cut:CPU:CHUNK:BYTES       the file ends BYTES bytes into the chunk (header included)
  damage.py place FILE CPU PAGE  the offset a reader names for a damaged sub-buffer of FILE
                                (v6 or v7: the sub-buffer, or the chunk that holds it)
  damage.py corpus SCHEDVIZ KTRACE OUTDIR  the damaged twins of the fuzz corpora: a small
                                2-CPU file made from the shared schedviz_cpu0.v6.dat (its
                                first 3 sub-buffers as CPU 0, the next 3 as CPU 1), damaged
                                in each way above, as version 6 and 7 (trace-cmd convert,
                                KTRACE convert for ktrace's layout and zlib)
  damage.py expect FILE DEBUG LOST  the lines `trace-cmd report` prints for FILE, the
                                undamaged version 6 file (DEBUG: its `trace-cmd report
                                --debug` output), less the records LOST says are lost

v6 and v7 print, one per line, "place 0xOFFSET" for each place a reader must name and
"lost CPU PAGE [REC|@END]" for what is lost: page PAGE of CPU (from record REC on, or the
records that end past file offset END in a page of the undamaged file), or "lost CPU
FROM-" (every page from FROM on). The page numbers are those of the CPU's data, the same
in every version of a trace. Written for the tests: it trusts its input.
"""
import contextlib
import io
import os
import re
import struct
import subprocess
import sys

MAGIC = b'\x17\x08Dtracing'


class TraceDat:
    """The CPU data of the top buffer: per CPU (offset, size), and for compressed
    version 7 data the chunks (header offset, csize, usize); the offsets of the
    version 6 flyrecord table entries; v7 sections."""

    def __init__(self, data):
        d = self.d = data
        assert d[:10] == MAGIC, 'not a trace.dat'
        p = 10
        end = d.index(b'\0', p)
        self.version = int(d[p:end])
        p = end + 1
        self.e = '>' if d[p] else '<'
        p += 2
        self.page = self.u32(p)
        p += 4
        self.cpus = []          # (cpu, offset, size)
        self.table = []         # v6: file offset of each CPU's table entry
        self.chunks = {}        # v7: cpu -> [(offset, csize, usize)]
        self.sections = []      # v7: (offset, id, flags, size)
        if self.version == 6:
            self._v6(p)
        else:
            self._v7(p)

    def u16(self, p):
        return struct.unpack_from(self.e + 'H', self.d, p)[0]

    def u32(self, p):
        return struct.unpack_from(self.e + 'I', self.d, p)[0]

    def u64(self, p):
        return struct.unpack_from(self.e + 'Q', self.d, p)[0]

    def _v6(self, p):
        d = self.d
        p += 12
        p += 8 + self.u64(p)                      # header_page
        p += 13
        p += 8 + self.u64(p)                      # header_event
        n = self.u32(p)
        p += 4
        for _ in range(n):                        # ftrace formats
            p += 8 + self.u64(p)
        n = self.u32(p)
        p += 4
        for _ in range(n):                        # systems
            p = d.index(b'\0', p) + 1
            k = self.u32(p)
            p += 4
            for _ in range(k):
                p += 8 + self.u64(p)
        p += 4 + self.u32(p)                      # kallsyms
        p += 4 + self.u32(p)                      # printk
        p += 8 + self.u64(p)                      # cmdlines
        ncpus = self.u32(p)
        p += 4
        if d[p:p + 10] == b'options  \0':
            p += 10
            while True:
                oid = self.u16(p)
                p += 2
                if oid == 0:
                    break
                size = self.u32(p)
                if oid == 8:
                    ncpus = self.u32(p + 4)
                p += 4 + size
        assert d[p:p + 10] == b'flyrecord\0', 'flyrecord only'
        p += 10
        for c in range(ncpus):
            self.table.append(p)
            self.cpus.append((c, self.u64(p), self.u64(p + 8)))
            p += 16

    def _v7(self, p):
        d = self.d
        p = d.index(b'\0', p) + 1                 # compression name
        p = d.index(b'\0', p) + 1                 # and version
        opts = self.u64(p)
        p += 8
        while p + 16 <= len(d):
            sid, flags, _, size = struct.unpack_from(self.e + 'HHIQ', d, p)
            self.sections.append((p, sid, flags, size))
            p += 16 + size
        while opts:
            sec = [s for s in self.sections if s[0] == opts][0]
            q, end, opts = sec[0] + 16, sec[0] + 16 + sec[3], 0
            while q < end:
                oid, size = self.u16(q), self.u32(q + 2)
                body = q + 6
                if oid == 0:
                    opts = self.u64(body)
                elif oid == 3:
                    name = d[body + 8:d.index(b'\0', body + 8)]
                    r = d.index(b'\0', body + 8) + 1
                    r = d.index(b'\0', r) + 1     # clock
                    n = self.u32(r + 4)
                    r += 8
                    if name == b'':
                        for _ in range(n):
                            cpu, off, sz = struct.unpack_from(self.e + 'IQQ', d, r)
                            self.cpus.append((cpu, off, sz))
                            r += 20
                q = body + size
        flyrecord = [s for s in self.sections if s[1] == 3]
        for cpu, off, size in self.cpus:
            sec = [s for s in flyrecord if s[0] < off <= s[0] + 16 + s[3]]
            if not size or not sec or not sec[0][2] & 1:
                continue
            n = self.u32(off)
            q, ch = off + 4, []
            for _ in range(n):
                cs, us = self.u32(q), self.u32(q + 4)
                ch.append((q, cs, us))
                q += 8 + cs
            self.chunks[cpu] = ch

    def cpu(self, c):
        return [x for x in self.cpus if x[0] == c][0]


def page_records(t, off):
    """The data records of the sub-buffer at off: (offset, end) each."""
    d, e = t.d, t.e
    commit = struct.unpack_from(e + 'Q', d, off + 8)[0] & ((1 << 27) - 1)
    p, end, out = off + 16, off + 16 + commit, []
    while p < end:
        w = struct.unpack_from(e + 'I', d, p)[0]
        tl = w & 31 if e == '<' else w >> 27
        if tl == 29:                              # padding
            p += 4 + struct.unpack_from(e + 'I', d, p + 4)[0]
        elif tl in (30, 31):                      # time extend, time stamp
            p += 8
        elif tl == 0:
            n = struct.unpack_from(e + 'I', d, p + 4)[0] - 4
            out.append((p, p + 8 + ((n + 3) & ~3)))
            p += 8 + ((n + 3) & ~3)
        else:
            out.append((p, p + 4 + tl * 4))
            p += 4 + tl * 4
    return out


def damage_v6(src, dst, specs):
    t = TraceDat(open(src, 'rb').read())
    d = bytearray(t.d)
    cut = None
    for spec in specs:
        kind, *a = spec.split(':')
        cpu, off, size = t.cpu(int(a[0]))
        if kind == 'size':
            struct.pack_into(t.e + 'Q', d, t.table[t.cpus.index((cpu, off, size))] + 8, int(a[1]))
            print('place 0x%x' % off)
            continue
        page = off + int(a[1]) * t.page
        if kind == 'late':
            start = struct.unpack_from(t.e + 'Q', d, page)[0]
            for _, o2, s2 in t.cpus:
                for p in range(o2, o2 + s2, t.page):
                    ts = struct.unpack_from(t.e + 'Q', d, p)[0]
                    if ts >= start:
                        struct.pack_into(t.e + 'Q', d, p, ts + int(a[2]))
        elif kind in ('badpage', 'badpages'):
            n = int(a[2]) if kind == 'badpages' else 1
            for i in range(n):
                struct.pack_into(t.e + 'Q', d, page + i * t.page + 8, 0x7ffff0)
                print('lost %d %d' % (cpu, int(a[1]) + i))
            print('place 0x%x' % page)
        elif kind == 'runpast':
            rec = page_records(t, page)[int(a[2])][0]
            w = struct.unpack_from(t.e + 'I', d, rec)[0]
            struct.pack_into(t.e + 'II', d, rec, w & ~31 if t.e == '<' else w & ((1 << 27) - 1),
                             0x3ff0)
            print('place 0x%x' % page)
            print('lost %d %s %s' % (cpu, a[1], a[2]))
        elif kind == 'cut':
            cut = page + int(a[2])
            print('place 0x%x' % off)
            print('lost %d %s @%d' % (cpu, a[1], cut))
            print('lost %d %d-' % (cpu, int(a[1]) + 1))
            # the CPUs whose data starts past the cut are lost, each named where its
            # table entry is
            for i, (c2, o2, s2) in enumerate(t.cpus):
                if s2 and o2 >= cut:
                    print('place 0x%x' % t.table[i])
                    print('lost %d 0-' % c2)
    if cut is not None:
        d = d[:cut]
    open(dst, 'wb').write(d)


def damage_v7(src, dst, specs):
    t = TraceDat(open(src, 'rb').read())
    d = bytearray(t.d)
    cut = None
    for spec in specs:
        kind, *a = spec.split(':')
        cpu, k = int(a[0]), int(a[1])
        h, cs, us = t.chunks[cpu][k]
        first = sum(u for _, _, u in t.chunks[cpu][:k]) // t.page
        if kind == 'zap':
            o = h + 8 + cs // 2
            d[o:o + 64] = b'\x5a' * 64
            print('place 0x%x' % h)
            for i in range(us // t.page):
                print('lost %d %d' % (cpu, first + i))
        elif kind == 'csize':
            # the chunks after it are found again: only its own sub-buffers are lost
            struct.pack_into(t.e + 'I', d, h, 0x7fffffff)
            print('place 0x%x' % h)
            for i in range(us // t.page):
                print('lost %d %d' % (cpu, first + i))
        elif kind == 'usize':
            struct.pack_into(t.e + 'I', d, h + 4, 0)
            print('place 0x%x' % h)
            for i in range(us // t.page):
                print('lost %d %d' % (cpu, first + i))
        elif kind == 'cut':
            cut = h + int(a[2])
            # the buffer's section: its CPUs are found walking it (the BUFFER option
            # after the data is lost)
            sec = [s for s in t.sections if s[1] == 3 and s[0] < h][-1]
            print('place 0x%x' % sec[0])
            print('place 0x%x' % h)
            print('lost %d %d-' % (cpu, first))
    if cut is not None:
        d = d[:cut]
    open(dst, 'wb').write(d)


def place(path, cpu, page):
    t = TraceDat(open(path, 'rb').read())
    c, off, size = t.cpu(cpu)
    if t.version == 6 or cpu not in t.chunks:
        print('0x%x' % (off + page * t.page))
        return
    at = 0
    for h, cs, us in t.chunks[cpu]:
        if at + us > page * t.page:
            print('0x%x' % h)
            return
        at += us


def expect(path, debug, lost):
    """The report of the undamaged file (from its --debug output, whose sub-buffer
    lines give each page's file offset) less the lost records."""
    t = TraceDat(open(path, 'rb').read())
    whole, partial, ends, after = set(), {}, {}, {}
    for line in open(lost):
        w = line.split()
        if w[0] != 'lost':
            continue
        cpu = int(w[1])
        if w[2].endswith('-'):
            after[cpu] = min(after.get(cpu, 1 << 30), int(w[2][:-1]))
        elif len(w) == 3:
            whole.add((cpu, int(w[2])))
        elif w[3].startswith('@'):
            ends[(cpu, int(w[2]))] = int(w[3][1:])
        else:
            partial[(cpu, int(w[2]))] = int(w[3])
    sub = re.compile(r'^CPU:(\d+) \[SUBBUFFER START\] \[\d+:0x([0-9a-f]+)\]$')
    rec = re.compile(r'^(.*-\d+ +\[(\d+)\] .*) \[\d+:0x([0-9a-f]+):(\d+)\]$')
    drop = re.compile(r'^CPU:(\d+) \[\d+ EVENTS DROPPED\]$')
    pages, index, pending = {}, {}, {}
    out = []
    for line in open(debug):
        line = line.rstrip('\n')
        m = sub.match(line)
        if m:
            cpu, off = int(m.group(1)), int(m.group(2), 16)
            pages[cpu] = (off, (off - t.cpu(cpu)[1]) // t.page)
            index[cpu] = 0
            continue
        m = drop.match(line)
        if m:
            pending[int(m.group(1))] = line      # printed before the page's first record
            continue
        m = rec.match(line)
        if not m:
            if line.startswith('cpus='):
                out.append(line)
            continue
        cpu, at, size = int(m.group(2)), int(m.group(3), 16), int(m.group(4))
        off, page = pages[cpu]
        i = index[cpu]
        index[cpu] += 1
        end = off + at + (4 if size <= 112 else 8) + size
        gone = ((cpu, page) in whole or page >= after.get(cpu, 1 << 30) or
                ((cpu, page) in partial and i >= partial[(cpu, page)]) or
                ((cpu, page) in ends and end > ends[(cpu, page)]))
        mark = pending.pop(cpu, None)
        if gone:
            continue
        if mark:
            out.append(mark)
        out.append(m.group(1))
    sys.stdout.write(''.join(x + '\n' for x in out))


def corpus(schedviz, ktrace, out):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tdslim
    os.makedirs(out, exist_ok=True)
    v = tdslim.V6(open(schedviz, 'rb').read())
    blob = v.top[0]
    v.top = [blob[:3 * v.page], blob[3 * v.page:6 * v.page]]
    v.cpus = 2
    base = os.path.join(out, 'base.v6.tmp')
    tdslim.write(v, base)

    def q(*cmd):
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def tc7(src, dst, comp):
        q('trace-cmd', 'convert', '-i', src, '-o', dst, '--file-version', '7', '--compression', comp)

    def d6(name, *specs):
        with contextlib.redirect_stdout(io.StringIO()):
            damage_v6(base, os.path.join(out, name), specs)

    def d7(src, name, *specs):
        with contextlib.redirect_stdout(io.StringIO()):
            damage_v7(src, os.path.join(out, name), specs)

    d6('damaged-badpage.v6', 'badpage:0:1', 'badpage:1:1')
    d6('damaged-runpast.v6', 'runpast:0:1:2', 'runpast:1:1:3')
    d6('damaged-cut.v6', 'cut:1:1:1000')
    d6('damaged-badpage-cut.v6', 'badpage:0:1', 'cut:1:1:1000')
    d6('damaged-overlap.v6', 'size:0:%d' % (5 * v.page))
    tc7(os.path.join(out, 'damaged-badpage.v6'), os.path.join(out, 'damaged-badpage.v7zstd'), 'zstd')
    tc7(os.path.join(out, 'damaged-runpast.v6'), os.path.join(out, 'damaged-runpast.v7none'), 'none')
    sound = os.path.join(out, 'sound.v7zstd.tmp')
    tc7(base, sound, 'zstd')
    d7(sound, 'damaged-zap.v7zstd', 'zap:0:0')
    d7(sound, 'damaged-csize.v7zstd', 'csize:1:0')
    d7(sound, 'damaged-cut.v7zstd', 'cut:1:0:300')
    kt = os.path.join(out, 'sound.kt.tmp')
    q(ktrace, 'convert', '-q', base, kt)
    d7(kt, 'damaged-cut-ktlayout.v7zstd', 'cut:1:0:300')
    q(ktrace, 'convert', '-q', '--compression', 'zlib', base, kt)
    d7(kt, 'damaged-zap.v7zlib', 'zap:1:0')
    for f in (base, sound, kt):
        os.remove(f)


def main():
    if sys.argv[1] == 'corpus':
        corpus(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == 'v6':
        damage_v6(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == 'v7':
        damage_v7(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == 'place':
        place(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == 'expect':
        expect(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
