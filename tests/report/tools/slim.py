#!/usr/bin/env python3
"""Cuts a version 6 trace.dat down to a small file for tests/data/report.

usage: slim.py [--pages N [--last M]] IN.v6.dat OUT.v6.dat

Keeps the first N sub-buffers of every CPU of every buffer (all of them without
--pages), and with --last its last M too (the recording's start and end), the format
files of the events that occur in them, the ftrace formats,
printk formats, saved cmdlines and options as they are, and of kallsyms only the
symbols trace-cmd's report of the cut file names (each with the symbol after it, so
that address ranges end where they did). Checks with trace-cmd that the cut kallsyms
give the same report (default and -R) as the whole one, and says so.
Written for the tests; it trusts its input.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tracedat', 'tools'))
import tdslim  # noqa: E402


def report(path, *opts):
    return subprocess.run(['trace-cmd', 'report', *opts, path], capture_output=True,
                          check=True).stdout


def main():
    args = sys.argv[1:]
    pages = None
    last = 0
    if len(args) >= 4 and args[0] == '--pages':
        pages = int(args[1])
        args = args[2:]
        if len(args) >= 4 and args[0] == '--last':
            last = int(args[1])
            args = args[2:]
    if len(args) != 2:
        sys.exit(__doc__)
    v = tdslim.V6(open(args[0], 'rb').read())
    if pages is not None:
        def cut(blob):
            if len(blob) <= (pages + last) * v.page:
                return blob
            return blob[:pages * v.page] + (blob[len(blob) - last * v.page:] if last else b'')
        v.top = [cut(x) for x in v.top]
        v.instances = [(n, [cut(x) for x in t]) for n, t in v.instances]
    full = v.kallsyms
    with tempfile.TemporaryDirectory() as tmp:
        whole = os.path.join(tmp, 'whole.dat')
        tdslim.write(v, whole, kallsyms=full)
        text = report(whole) + report(whole, '-l')
        words = set(re.findall(rb'[A-Za-z_.$][A-Za-z0-9_.$]*', text))
        lines = [ln for ln in full.split(b'\n') if ln]
        syms = []
        for ln in lines:
            p = ln.split()
            if len(p) >= 3:
                syms.append((int(p[0], 16), p[2], ln))
        order = sorted(range(len(syms)), key=lambda i: syms[i][0])
        keep = set()
        for k, i in enumerate(order):
            if syms[i][1] in words:
                keep.add(i)
                # the next symbol at a higher address bounds this one's range
                j = k + 1
                while j < len(order) and syms[order[j]][0] == syms[i][0]:
                    j += 1
                if j < len(order):
                    keep.add(order[j])
        cutk = b''.join(syms[i][2] + b'\n' for i in sorted(keep))
        tdslim.write(v, args[1], kallsyms=cutk)
        same = all(report(whole, *o) == report(args[1], *o) for o in ((), ('-R',)))
    print('%s: %d of %d kallsyms lines kept; report %s' % (
        args[1], len(keep), len(lines), 'unchanged' if same else 'CHANGED'))
    sys.exit(0 if same else 1)


if __name__ == '__main__':
    main()
