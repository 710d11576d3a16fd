#!/usr/bin/env python3
"""Makes trace.dat files whose fields disagree with each other or with the file, for
tests/tracedat/mismatch.sh, and prints the offset a reader must name for each
("place 0xOFFSET", one per line).

usage:
  mismatch.py pagesize IN OUT SIZE        v6: the header's page size made SIZE (header_page
                                          still says the old one)
  mismatch.py clock IN OUT                v6 with a TRACECLOCK option: the size of the
                                          trace_clock text after the flyrecord table made
                                          larger than the file
  mismatch.py commit IN OUT BUFFER CPU    v6: the commit word of the first sub-buffer of
                                          BUFFER's (an instance's name) CPU made 0x1fb9
  mismatch.py cpuid IN OUT BUFFER INDEX ID  v7: the CPU id of BUFFER's entry INDEX (in its
                                          BUFFER option) made ID; also prints "data OFFSET
                                          SIZE" of that entry
  mismatch.py size IN OUT BUFFER INDEX SIZE  v7: the recorded size of that entry made SIZE;
                                          also prints "stored BYTES", what its compressed
                                          data takes (chunk count and chunks)
  mismatch.py noheaders IN OUT            v7: the HEADER_INFO option's id made 200 (an
                                          unknown option: the file has no header texts)
  mismatch.py secsize IN OUT BUFFER       v7: the size of BUFFER's data section made all
                                          ones (its CPU entries still right)
  mismatch.py cutdata IN OUT BUFFER       v7: the file cut right after the header of
                                          BUFFER's data section (every option after it
                                          lost); the place is that header's offset
  mismatch.py toponly IN OUT              v6: a copy with the top buffer only (tdslim.py),
                                          what trace-cmd report --profile profiles
  mismatch.py corpus V6 V7 OUTDIR         the fuzz corpora's twins of each of the above
                                          (mismatch-*), from V6 and V7: the corpus's
                                          instance.v6.dat and instance.v7zlib.dat

BUFFER "" is the top buffer. Version 7 options sections must be uncompressed (trace-cmd
and ktrace write them so). Written for the tests: it trusts its input.
"""
import os
import struct
import sys

MAGIC = b'\x17\x08Dtracing'


class File:
    def __init__(self, path):
        self.d = bytearray(open(path, 'rb').read())
        d = self.d
        assert d[:10] == MAGIC, 'not a trace.dat'
        end = d.index(b'\0', 10)
        self.version = int(d[10:end])
        p = end + 1
        self.e = '>' if d[p] else '<'
        self.page_size_at = p + 2
        self.p = p + 6

    def u16(self, p):
        return struct.unpack_from(self.e + 'H', self.d, p)[0]

    def u32(self, p):
        return struct.unpack_from(self.e + 'I', self.d, p)[0]

    def u64(self, p):
        return struct.unpack_from(self.e + 'Q', self.d, p)[0]

    def put32(self, p, v):
        struct.pack_into(self.e + 'I', self.d, p, v)

    def put64(self, p, v):
        struct.pack_into(self.e + 'Q', self.d, p, v)

    def save(self, path):
        open(path, 'wb').write(self.d)

    # ---- version 6
    def v6_options(self):
        """(options: [(id, option offset, data offset, size)], the offset after the
        top buffer's flyrecord table, the CPU count of the tables)"""
        d, p = self.d, self.p
        p += 12
        p += 8 + self.u64(p)                      # header_page
        p += 13
        p += 8 + self.u64(p)                      # header_event
        n = self.u32(p)
        p += 4
        for _ in range(n):
            p += 8 + self.u64(p)
        n = self.u32(p)
        p += 4
        for _ in range(n):
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
        opts = []
        if d[p:p + 10] == b'options  \0':
            p += 10
            while True:
                oid = self.u16(p)
                if oid == 0:
                    p += 2
                    break
                size = self.u32(p + 2)
                opts.append((oid, p, p + 6, size))
                if oid == 8:
                    ncpus = self.u32(p + 6)
                p += 6 + size
        assert d[p:p + 10] == b'flyrecord\0', 'flyrecord only'
        return opts, p + 10 + 16 * ncpus, ncpus

    def v6_table(self, name):
        """the file offset of BUFFER name's flyrecord table"""
        opts, end, ncpus = self.v6_options()
        if name == '':
            return end - 16 * ncpus
        for oid, _, body, _ in opts:
            if oid == 3 and self.d[body + 8:self.d.index(b'\0', body + 8)] == name.encode():
                p = self.u64(body)
                assert self.d[p:p + 10] == b'flyrecord\0', 'flyrecord only'
                return p + 10
        raise SystemExit('no buffer %r' % name)

    # ---- version 7
    def v7_options(self):
        """[(id, option offset, data offset, size)] of the chain of options sections"""
        d, p = self.d, self.p
        p = d.index(b'\0', p) + 1                 # compression name
        p = d.index(b'\0', p) + 1                 # and version
        off = self.u64(p)
        opts = []
        while off:
            sid, flags, _, size = struct.unpack_from(self.e + 'HHIQ', d, off)
            assert sid == 0 and not flags & 1, 'an uncompressed options section'
            q, end, off = off + 16, off + 16 + size, 0
            while q < end:
                oid, size = self.u16(q), self.u32(q + 2)
                opts.append((oid, q, q + 6, size))
                if oid == 0:
                    off = self.u64(q + 6)
                q += 6 + size
        return opts

    def v7_section(self, name):
        """the file offset of BUFFER name's data section (its option's first field)"""
        for oid, _, body, _ in self.v7_options():
            if oid == 3 and self.d[body + 8:self.d.index(b'\0', body + 8)] == name.encode():
                return self.u64(body)
        raise SystemExit('no buffer %r' % name)

    def v7_entry(self, name, index):
        """the file offset of the CPU entry `index` of BUFFER name's option"""
        for oid, _, body, _ in self.v7_options():
            if oid != 3:
                continue
            r = self.d.index(b'\0', body + 8)
            if self.d[body + 8:r] != name.encode():
                continue
            r = self.d.index(b'\0', r + 1) + 1    # clock
            assert index < self.u32(r + 4)
            return r + 8 + 20 * index
        raise SystemExit('no buffer %r' % name)


def corpus(v6, v7, out):
    import contextlib
    import io
    os.makedirs(out, exist_ok=True)
    # V6 with a TRACECLOCK option (empty: the text follows the flyrecord table)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tdslim
    v = tdslim.V6(open(v6, 'rb').read())
    v.options.append((4, b''))
    v.clock = b'[local] global counter\n'
    clocked = os.path.join(out, 'clocked.v6.tmp')
    tdslim.write(v, clocked)
    for cmd, src, name, args in (
            ('pagesize', v6, 'mismatch-pagesize8k.v6', ['8192']),
            ('clock', clocked, 'mismatch-clock.v6', []),
            ('commit', v6, 'mismatch-instance-commit.v6', ['inst', '0']),
            ('cpuid', v7, 'mismatch-cpuid.v7zlib', ['inst', '0', '1']),
            ('size', v7, 'mismatch-size.v7zlib', ['', '0', '1000000']),
            ('noheaders', v7, 'mismatch-noheaders.v7zlib', []),
            ('secsize', v7, 'mismatch-secsize.v7zlib', ['']),
            ('cutdata', v7, 'mismatch-cutdata.v7zlib', [''])):
        sys.argv = ['mismatch.py', cmd, src, os.path.join(out, name)] + args
        with contextlib.redirect_stdout(io.StringIO()):
            main()
    os.remove(clocked)


def main():
    cmd, src, dst = sys.argv[1:4]
    a = sys.argv[4:]
    if cmd == 'corpus':
        corpus(src, dst, a[0])
        return
    if cmd == 'toponly':
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import tdslim
        v = tdslim.V6(open(src, 'rb').read())
        v.instances = []
        v.options = [o for o in v.options if o[0] != 3]
        tdslim.write(v, dst)
        return
    f = File(src)
    if cmd == 'pagesize':
        assert f.version == 6
        f.put32(f.page_size_at, int(a[0]))
        print('place 0x%x' % f.page_size_at)
    elif cmd == 'clock':
        assert f.version == 6
        opts, end, _ = f.v6_options()
        assert [o for o in opts if o[0] == 4], 'a TRACECLOCK option'
        f.put64(end, len(f.d))
        print('place 0x%x' % end)
    elif cmd == 'commit':
        assert f.version == 6
        page = f.u64(f.v6_table(a[0]) + 16 * int(a[1]))
        f.put64(page + 8, 0x1fb9)
        print('place 0x%x' % page)
    elif cmd == 'cpuid':
        assert f.version == 7
        e = f.v7_entry(a[0], int(a[1]))
        print('data %d %d' % (f.u64(e + 4), f.u64(e + 12)))
        f.put32(e, int(a[2]))
        print('place 0x%x' % e)
    elif cmd == 'size':
        assert f.version == 7
        e = f.v7_entry(a[0], int(a[1]))
        off = f.u64(e + 4)
        q = off + 4
        for _ in range(f.u32(off)):
            q += 8 + f.u32(q)
        print('stored %d' % (q - off))
        f.put64(e + 12, int(a[2]))
        print('place 0x%x' % (e + 12))
    elif cmd == 'secsize':
        assert f.version == 7
        sec = f.v7_section(a[0])
        f.put64(sec + 8, (1 << 64) - 1)
        print('place 0x%x' % (sec + 8))
    elif cmd == 'cutdata':
        assert f.version == 7
        sec = f.v7_section(a[0])
        del f.d[sec + 16:]
        print('place 0x%x' % sec)
    elif cmd == 'noheaders':
        assert f.version == 7
        opts = f.v7_options()
        hdr = [o for o in opts if o[0] == 16][0]
        struct.pack_into(f.e + 'H', f.d, hdr[1], 200)
        # the first options section: where the header's options offset points
        p = f.d.index(b'\0', f.p) + 1
        p = f.d.index(b'\0', p) + 1
        print('place 0x%x' % f.u64(p))
    else:
        raise SystemExit(__doc__)
    f.save(dst)


if __name__ == '__main__':
    main()
