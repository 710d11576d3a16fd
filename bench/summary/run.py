#!/usr/bin/env python3
"""bench/summary: how fast `ktrace summary --json` answers, and how big its answer is, on
a big trace.dat, against `ktrace report` of the same file to /dev/null in the same run
(issue 33: at most report's time, the JSON under 64 KiB).

The trace: bench/report's (tests/data/report/allevents.v6.dat.zst with its pages
repeated until the CPU data reaches MB megabytes, bench/read/mkbig.py; 140 MB is about
3.4 M events). Each command runs RUNS times, alternating; the script prints the median
wall and CPU (user + system) times, the peak RSS and the ratios.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'report'))
sys.path.insert(0, os.path.join(HERE, '..'))
from run import make_trace  # noqa: E402  (bench/report's trace)
from timing import load_line, medians, publish, run_timed  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ktrace', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--mb', type=int, default=140)
    ap.add_argument('--runs', type=int, default=5)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = make_trace(a.out, a.mb)
    cmds = {'ktrace report': [a.ktrace, 'report', path],
            'ktrace summary --json': [a.ktrace, 'summary', '--json', path]}
    res = {n: [] for n in cmds}
    size = 0
    for _ in range(a.runs):
        for n, cmd in cmds.items():
            w, c, r, out = run_timed(cmd, n != 'ktrace report')
            res[n].append((w, c, r))
            if out:
                size = len(out)
    lines = ['summary: %s, %d MB; %d runs each' % (os.path.basename(path), os.path.getsize(path) >> 20,
                                                   a.runs)]
    med = {}
    for n, r in res.items():
        med[n], line = medians(n, r)
        lines.append(line)
    rw, rc, _ = med['ktrace report']
    sw, sc, _ = med['ktrace summary --json']
    met = sw <= rw and size < 65536
    lines.append('    summary / report: wall %.2fx, cpu %.2fx; JSON %d bytes   goal <= 1x and < 64 KiB: %s'
                 % (sw / rw, sc / rc, size, 'met' if met else 'NOT MET'))
    lines.append(load_line())
    publish(a.out, 'summary.txt', lines)
    sys.exit(0 if met else 1)


if __name__ == '__main__':
    main()
