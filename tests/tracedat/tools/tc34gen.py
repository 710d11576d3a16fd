#!/usr/bin/env python3
"""Makes a trace.dat file laid out as trace-cmd 3.4 (2026) writes one.

usage: tc34gen.py [--compression none|zlib] [--no-btf] [--no-retval] [--no-args]
                  OUT.dat EXPECT.txt
       tc34gen.py --btf-seeds DIR      (the seeds of fuzz/fuzz_btf)

Debian ships trace-cmd 3.1.6, which cannot write these; the tests make them with this
generator, written from trace-cmd 3.4's file format (Documentation/trace-cmd/
trace-cmd.dat.v7.5.txt and lib/trace-cmd/trace-output.c, read for facts) and the
kernel's function-graph event layouts (kernel/trace/trace_entries.h):

  - version 7, little endian, 64-bit, metadata sections 16-20, then a BTF section (id
    23: /sys/kernel/btf/vmlinux as it is; a small BTF made here) and a modules section
    (id 25: /proc/modules text), then the command lines (21), as trace-cmd 3.4's record
    writes them; with --compression zlib every one of them is one compressed block;
  - two chained options sections: the first (UNAME, VERSION 3.4, TRACECLOCK,
    CPUCOUNT, LAST_BOOT_INFO "instance:text", the sections' offsets, an
    option of an id nobody knows, 200) ends with a DONE pointing at the second (BUFFER);
  - ring-buffer pages of funcgraph_entry records with arguments (the kernel's
    "unsigned long args[]" at offset 24, funcgraph-args) and funcgraph_exit records
    with a return value (CONFIG_FUNCTION_GRAPH_RETVAL: retval at 16, depth at 24).

EXPECT.txt receives, one per function-graph line, the text trace-cmd 3.4 prints after
the "funcgraph_entry:"/"funcgraph_exit:" column, written by hand below from the rules of
its lib/trace-cmd/trace-ftrace.c and libtraceevent's tep_btf_print_args (not computed
by the code under test): arguments named and typed from BTF (a signed int is masked to
its width and printed in decimal, unsigned ones and pointers in hex, an enum in decimal,
a struct as "(STRUCT)[0x..:0x..]", "..." for parameters the record does not hold), raw
hex numbers without BTF; " (ret=...)" in decimal for an error code (-4095..-1), else
in hex. --no-retval writes the older funcgraph_exit (no retval field); --no-args
records no arguments (the kernel's format still has the array, as 6.15 and later have
it whether funcgraph-args is on or not): trace-cmd 3.4 then prints "(...)" for a
function BTF gives parameters, "()" for the others. --no-btf --no-retval --no-args is
a file trace-cmd 3.1.6 prints exactly as 3.4 does.
"""
import struct
import sys
import zlib

E = '<'
PAGE = 4096
TS0 = 5000000000000          # 5000 s
PID = 4321

HEADER_PAGE = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
               b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
               b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
               b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")
HEADER_EVENT = (b"# compressed entry header\n\ttype_len    :    5 bits\n"
                b"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
                b"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                b"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")
COMMON = (b"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          b"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          b"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          b"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
FG_ENTRY = (b"name: funcgraph_entry\nID: 11\nformat:\n" + COMMON +
            b"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
            b"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
            b"\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
            b"print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n")
FG_EXIT_RETVAL = (b"name: funcgraph_exit\nID: 10\nformat:\n" + COMMON +
                  b"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
                  b"\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n"
                  b"\tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n"
                  b"\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n"
                  b"\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n"
                  b"\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n\n"
                  b"print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx\", "
                  b"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth, "
                  b"REC->retval\n")
FG_EXIT_OLD = (b"name: funcgraph_exit\nID: 10\nformat:\n" + COMMON +
               b"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
               b"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
               b"\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
               b"\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
               b"\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
               b"print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", "
               b"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth\n")

# kallsyms: the functions the records name
FUNCS = {
    'do_sys_open': 0xffffffff81300000,
    'vfs_read': 0xffffffff81301000,
    'pass_pair': 0xffffffff81302000,
    'my_printf': 0xffffffff81303000,
    'noargs': 0xffffffff81304000,
    'not_in_btf': 0xffffffff81305000,
    'rw_verify_area.isra.0': 0xffffffff81306000,
}
KALLSYMS = ''.join('%016x T %s\n' % (a, n) for n, a in sorted(FUNCS.items(), key=lambda x: x[1]))
KALLSYMS = '0000000000000000 A fixed_percpu_data\nffffffff81000000 T _text\n' + KALLSYMS
MODULES = (b"ext4 1056768 1 - Live 0xffffffffc0a00000\n"
           b"mbcache 16384 1 ext4, Live 0xffffffffc0300000\n")
LAST_BOOT = b"boot_mapped:39000000\t[kernel]\nffffffffc00ca000\tusb_serial_simple\n"


# ---- a small BTF (include/uapi/linux/btf.h layout)
class Btf:
    def __init__(self):
        self.strs = bytearray(b'\0')
        self.types = bytearray()
        self.n = 0

    def s(self, name):
        if not name:
            return 0
        at = len(self.strs)
        self.strs += name.encode() + b'\0'
        return at

    def add(self, kind, name, size_or_type, vlen=0, extra=b''):
        self.types += struct.pack(E + 'III', self.s(name), (kind << 24) | vlen, size_or_type)
        self.types += extra
        self.n += 1
        return self.n

    def int_(self, name, size, bits, enc):
        return self.add(1, name, size, 0, struct.pack(E + 'I', (enc << 24) | bits))

    def proto(self, ret, params):
        extra = b''.join(struct.pack(E + 'II', self.s(n), t) for n, t in params)
        return self.add(13, None, ret, len(params), extra)

    def blob(self):
        hdr = struct.pack(E + 'HBBIIIII', 0xeb9f, 1, 0, 24, 0, len(self.types),
                          len(self.types), len(self.strs))
        return hdr + bytes(self.types) + bytes(self.strs)


def make_btf():
    b = Btf()
    t_int = b.int_('int', 4, 32, 1)                      # signed
    t_char = b.int_('char', 1, 8, 1)
    t_cchar = b.add(10, None, t_char)                     # const char
    t_pcchar = b.add(2, None, t_cchar)                    # const char *
    t_uint = b.int_('unsigned int', 4, 32, 0)
    t_ushort = b.int_('unsigned short', 2, 16, 0)
    t_umode = b.add(8, 'umode_t', t_ushort)               # typedef
    t_file = b.add(4, 'file', 200, 0)                     # struct file (no members)
    t_pfile = b.add(2, None, t_file)
    t_ll = b.int_('long long', 8, 64, 1)
    t_loff = b.add(8, 'loff_t', t_ll)
    t_ploff = b.add(2, None, t_loff)
    t_ulong = b.int_('long unsigned int', 8, 64, 0)
    t_size = b.add(8, 'size_t', t_ulong)
    t_pchar = b.add(2, None, t_char)
    p = b.proto(t_int, [('dfd', t_int), ('filename', t_pcchar), ('flags', t_int),
                        ('mode', t_umode)])
    b.add(12, 'do_sys_open', p)
    p = b.proto(t_size, [('file', t_pfile), ('buf', t_pchar), ('count', t_size),
                         ('pos', t_ploff)])
    b.add(12, 'vfs_read', p)
    t_pair = b.add(4, 'pair', 16, 0)
    t_enum = b.add(6, 'mode_kind', 4, 1, struct.pack(E + 'Ii', b.s('MK_A'), 0))
    t_bool = b.int_('_Bool', 1, 8, 4)
    t_vol = b.add(9, None, t_uint)                        # volatile unsigned int
    p = b.proto(0, [('p', t_pair), ('k', t_enum), ('b', t_bool), ('x', t_vol)])
    b.add(12, 'pass_pair', p)
    p = b.proto(t_int, [('fmt', t_int), ('', 0)])         # int my_printf(int fmt, ...)
    b.add(12, 'my_printf', p)
    p = b.proto(0, [])
    b.add(12, 'noargs', p)
    p = b.proto(t_int, [('write', t_int), ('file', t_pfile), ('ppos', t_ploff),
                        ('count', t_size)])
    b.add(12, 'rw_verify_area', p)
    return b.blob()


# ---- records: (delta ns, kind, ...) and what trace-cmd 3.4 prints for them
def calls(btf, retval, with_args=True):
    """[(entry/exit record bytes, expected text or None)] in time order."""
    out = []

    def entry(fn, depth, args):
        return struct.pack(E + 'HBBiQI', 11, 1, 0, PID, FUNCS[fn], depth) + bytes(4) + \
            b''.join(struct.pack(E + 'Q', a) for a in args)

    def exit_(fn, depth, ret, call, rett):
        if retval:
            return struct.pack(E + 'HBBiQQIIQQ', 10, 1, 0, PID, FUNCS[fn], ret, depth, 0,
                               call, rett)
        return struct.pack(E + 'HBBiQIIQQ', 10, 1, 0, PID, FUNCS[fn], depth, 0, call, rett)

    def r(v):
        if not retval:
            return ''
        return ' (ret=%d)' % (v - (1 << 64)) if v >= (1 << 64) - 4095 else ' (ret=0x%x)' % v

    # (function, arguments, return value, text with BTF, text without); without the
    # arguments: "(...)" where BTF knows parameters (the first one is past the record)
    plan = [
        ('do_sys_open', [0xffffffffffffff9c, 0xffff888003a1c000, 0x8241, 0x1b6],
         0xfffffffffffffffe,
         'do_sys_open(dfd=4294967196, filename=0xffff888003a1c000, flags=33345, mode=0x1b6)',
         'do_sys_open(ffffffffffffff9c, ffff888003a1c000, 8241, 1b6)'),
        ('vfs_read', [0xffff888004b2e300, 0x7ffd5a3c1000, 0x1000], 0x1000,
         'vfs_read(file=0xffff888004b2e300, buf=0x7ffd5a3c1000, count=0x1000, ...)',
         'vfs_read(ffff888004b2e300, 7ffd5a3c1000, 1000)'),
        ('pass_pair', [0x11, 0x22, 0x1, 0x1, 0xdeadbeef00000005], 0,
         'pass_pair(p=(STRUCT)[0x11:0x22], k=1, b=0x1, x=0x5)',
         'pass_pair(11, 22, 1, 1, deadbeef00000005)'),
        ('my_printf', [7, 8, 9], 0xfffffffffffff001,
         'my_printf(fmt=7, =)',
         'my_printf(7, 8, 9)'),
        ('noargs', [1, 2], 0xfffffffffffff000,
         'noargs()',
         'noargs(1, 2)'),
        ('not_in_btf', [0x1, 0xabc], 0xffffffffffff0000,
         'not_in_btf(1, abc)',
         'not_in_btf(1, abc)'),
        ('rw_verify_area.isra.0', [0, 0xffff888004b2e300, 0xffffc90000a3fe58, 0x20], 0,
         'rw_verify_area.isra.0(write=0, file=0xffff888004b2e300, ppos=0xffffc90000a3fe58, count=0x20)',
         'rw_verify_area.isra.0(0, ffff888004b2e300, ffffc90000a3fe58, 20)'),
        ('noargs', [], 5, 'noargs()', 'noargs()'),
    ]
    if not with_args:
        bare = {'noargs': 'noargs()', 'not_in_btf': 'not_in_btf()'}
        plan = [(fn, [], ret, bare.get(fn, fn + '(...)'), fn + '()')
                for fn, args, ret, wb, nb in plan]
    ts = TS0 + 1000
    # an outer call holding the others: do_sys_open { vfs_read { leaves } }
    fn, args, ret, wb, nb = plan[0]
    out.append((ts, entry(fn, 0, args), (wb if btf else nb) + ' {'))
    outer = (fn, ret, ts)
    ts += 2000
    fn, args, ret, wb, nb = plan[1]
    out.append((ts, entry(fn, 1, args), (wb if btf else nb) + ' {'))
    inner = (fn, ret, ts)
    ts += 1500
    for fn, args, ret, wb, nb in plan[2:]:
        t0 = ts
        out.append((ts, entry(fn, 2, args), None))
        ts += 700
        out.append((ts, exit_(fn, 2, ret, t0, ts), (wb if btf else nb) + ';' + r(ret)))
        ts += 300
    for depth, (fn, ret, t0) in ((1, inner), (0, outer)):
        out.append((ts, exit_(fn, depth, ret, t0, ts), '}' + r(ret)))
        ts += 400
    return out


def pages(records):
    """Ring-buffer sub-buffers holding the records (type_len encoded lengths)."""
    data = bytearray()
    last = TS0
    for ts, rec, _ in records:
        assert len(rec) % 4 == 0 and len(rec) <= 112
        delta = ts - last
        assert delta < (1 << 27)
        data += struct.pack(E + 'I', (delta << 5) | (len(rec) // 4)) + rec
        last = ts
    assert len(data) <= PAGE - 16
    page = struct.pack(E + 'QQ', TS0, len(data)) + data
    return page + bytes(PAGE - len(page))


def btf_seeds(outdir):
    """Seeds of fuzz/fuzz_btf: each function of the plan with its arguments."""
    import hashlib
    import os
    blob = make_btf()
    seeds = [(0, 'do_sys_open', [0xffffffffffffff9c, 0xffff888003a1c000, 0x8241, 0x1b6]),
             (0, 'vfs_read', [1, 2, 3]), (0, 'pass_pair', [0x11, 0x22, 1, 1, 5]),
             (0, 'my_printf', [7, 8]), (0, 'noargs', [1]), (1, 'rw_verify_area', [0, 1, 2, 3]),
             (2, 'pass_pair', [0x11]), (4, 'not_in_btf', [1, 0xabc])]
    os.makedirs(outdir, exist_ok=True)
    for opt, fn, args in seeds:
        size, e = (4, '<I') if opt & 1 else (8, '<Q')
        e = ('>' if opt & 2 else '<') + e[1]
        d = bytes([opt, len(args), len(fn)]) + fn.encode()
        d += b''.join(struct.pack(e, a & ((1 << (8 * size)) - 1)) for a in args) + blob
        open(os.path.join(outdir, hashlib.sha1(d).hexdigest()), 'wb').write(d)


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == '--btf-seeds':
        btf_seeds(args[1])
        return
    comp = 'none'
    if '--compression' in args:
        i = args.index('--compression')
        comp = args[i + 1]
        del args[i:i + 2]
    btf = '--no-btf' not in args
    retval = '--no-retval' not in args
    with_args = '--no-args' not in args
    args = [a for a in args if not a.startswith('--no-')]
    if len(args) != 2 or comp not in ('none', 'zlib'):
        sys.exit(__doc__)
    z = comp == 'zlib'

    strings = bytearray()

    def sid(name):
        at = len(strings)
        strings.extend(name.encode() + b'\0')
        return at

    out = bytearray(b'\x17\x08Dtracing7\0' + bytes([0, 8]) + struct.pack(E + 'I', PAGE))
    out += (b'zlib\0' + zlib.ZLIB_VERSION.encode() + b'\0') if z else b'none\0\0'
    opt_at = len(out)
    out += bytes(8)
    offsets = {}

    def section(secid, name, body, compress=z):
        offsets[secid] = len(out)
        if compress:
            c = zlib.compress(bytes(body), 9)
            body = struct.pack(E + 'II', len(c), len(body)) + c
        out.extend(struct.pack(E + 'HHIQ', secid, 1 if compress else 0, sid(name), len(body)))
        out.extend(body)

    section(16, 'headers', b'header_page\0' + struct.pack(E + 'Q', len(HEADER_PAGE)) +
            HEADER_PAGE + b'header_event\0' + struct.pack(E + 'Q', len(HEADER_EVENT)) +
            HEADER_EVENT)
    fmts = [FG_EXIT_RETVAL if retval else FG_EXIT_OLD, FG_ENTRY]
    section(17, 'ftrace events', struct.pack(E + 'I', len(fmts)) +
            b''.join(struct.pack(E + 'Q', len(f)) + f for f in fmts))
    section(18, 'events format', struct.pack(E + 'I', 0))
    ks = KALLSYMS.encode()
    section(19, 'kallsyms', struct.pack(E + 'I', len(ks)) + ks)
    section(20, 'printk', struct.pack(E + 'I', 0))
    if btf:
        section(23, 'BTF', make_btf())
    section(25, 'modules', MODULES)
    cl = b'%d fgtest\n' % PID
    section(21, 'command lines', struct.pack(E + 'Q', len(cl)) + cl)

    def opt(oid, data):
        return struct.pack(E + 'HI', oid, len(data)) + data

    # first options section; its DONE names the second, written after the data
    first = len(out)
    o = opt(5, b'Linux fgtest 6.19.0 #1 SMP x86_64\0') + opt(9, b'3.4.0\0')
    o += opt(4, b'[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n\0')
    o += opt(8, struct.pack(E + 'I', 1)) + opt(24, LAST_BOOT + b'\0')
    # each section's option, in the order the sections were written
    for secid in (16, 17, 18, 19, 20, 23, 25, 21):
        if secid in offsets:
            o += opt(secid, struct.pack(E + 'Q', offsets[secid]))
    o += opt(200, b'someday\0')                          # an id nobody knows yet
    done_at = len(o) + 6
    o += opt(0, bytes(8))
    out += struct.pack(E + 'HHIQ', 0, 0, sid('options'), len(o))
    body_at = len(out)
    out += o
    struct.pack_into(E + 'Q', out, opt_at, first)

    # the top buffer's section: CPU 0's pages, page-aligned
    recs = calls(btf, retval, with_args)
    data = pages(recs)
    buf_at = len(out)
    out += struct.pack(E + 'HHIQ', 3, 1 if z else 0, sid('buffer'), 0)
    if len(out) % PAGE:
        out += bytes(PAGE - len(out) % PAGE)
    cpu_at = len(out)
    if z:
        c = zlib.compress(data, 9)
        cpu_data = struct.pack(E + 'I', 1) + struct.pack(E + 'II', len(c), len(data)) + c
    else:
        cpu_data = data
    out += cpu_data
    struct.pack_into(E + 'Q', out, buf_at + 8, len(out) - buf_at - 16)

    second = len(out)
    struct.pack_into(E + 'Q', out, body_at + done_at, second)
    b = struct.pack(E + 'Q', buf_at) + b'\0' + b'local\0' + struct.pack(E + 'II', PAGE, 1)
    b += struct.pack(E + 'IQQ', 0, cpu_at, len(cpu_data))
    o = opt(3, b) + opt(0, bytes(8))
    out += struct.pack(E + 'HHIQ', 0, 0, sid('options'), len(o)) + o

    # the section names come last
    name_at = sid('strings')
    body = bytes(strings)
    if z:
        c = zlib.compress(body, 9)
        body = struct.pack(E + 'II', len(c), len(body)) + c
    out += struct.pack(E + 'HHIQ', 15, 1 if z else 0, name_at, len(body)) + body
    open(args[0], 'wb').write(out)
    with open(args[1], 'w') as f:
        for _, _, text in recs:
            if text is not None:
                f.write(text + '\n')


if __name__ == '__main__':
    main()
