#!/usr/bin/env python3
"""Builds a version 6 trace.dat from raw per-CPU ring-buffer dumps (copies of tracefs
per_cpu/cpuN/trace_pipe_raw) and a copy of the tracefs format files.

usage: fromraw.py FORMATS_DIR PAGE_SIZE MAX_PAGES OUT.v6.dat CPU0.raw [CPU1.raw ...]

FORMATS_DIR holds header_page, header_event, printk_formats, saved_cmdlines and
SYSTEM/EVENT/format files. Each CPU keeps its first MAX_PAGES sub-buffers of
PAGE_SIZE bytes; only the formats of the events that occur are kept (tdslim.write).
Used to make a test trace with 8 KiB sub-buffers, which trace-cmd 3.1.6 cannot record.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tdslim  # noqa: E402


class Raw:
    pass


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    fdir, page, maxp, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    v = Raw()
    v.endian, v.e, v.long, v.page = 0, '<', 8, page
    rd = lambda n: open(os.path.join(fdir, n), 'rb').read()   # noqa: E731
    v.header_page, v.header_event = rd('header_page'), rd('header_event')
    v.klong = 8
    v.ftrace = []
    d = os.path.join(fdir, 'ftrace')
    for ev in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        f = os.path.join(d, ev, 'format')
        if os.path.exists(f):
            v.ftrace.append(open(f, 'rb').read())
    v.systems = []
    for sysname in sorted(os.listdir(fdir)):
        sd = os.path.join(fdir, sysname)
        if sysname == 'ftrace' or not os.path.isdir(sd):
            continue
        fmts = [open(os.path.join(sd, ev, 'format'), 'rb').read() for ev in sorted(os.listdir(sd))
                if os.path.exists(os.path.join(sd, ev, 'format'))]
        v.systems.append((sysname.encode(), fmts))
    v.kallsyms = b''
    v.printk = rd('printk_formats')
    v.cmdlines = rd('saved_cmdlines')
    v.top = [open(f, 'rb').read()[:page * maxp] for f in sys.argv[5:]]
    v.cpus = v.ncpu = len(v.top)
    v.options = [(4, b'')]                 # TRACECLOCK: the v6 way, text after flyrecord
    v.clock = b'[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n'
    v.instances = []
    tdslim.write(v, out)


if __name__ == '__main__':
    main()
