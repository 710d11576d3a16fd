#!/usr/bin/env python3
"""bench/diff: how fast `ktrace diff` compares two big traces, against `ktrace report` of
both to /dev/null in the same run (issue 34: at most report's time, memory bounded as
report's).

The traces: bench/report's (tests/data/report/allevents.v6.dat.zst with its pages
repeated until the CPU data reaches MB megabytes, bench/read/mkbig.py; 140 MB is about
3.4 M events), and a copy of it as version 7 (`ktrace convert`), so the two inputs are
two files. Each command runs RUNS times, alternating; the script prints the median wall
and CPU (user + system) times, the peak RSS and the ratios.
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
    other = os.path.join(a.out, 'diff-other.v7.dat')
    if not os.path.exists(other):
        subprocess.run([a.ktrace, 'convert', '-q', '-i', path, '-o', other], check=True)
    cmds = {'ktrace report A': [a.ktrace, 'report', path],
            'ktrace report B': [a.ktrace, 'report', other],
            'ktrace diff A B': [a.ktrace, 'diff', path, other]}
    res = {n: [] for n in cmds}
    for _ in range(a.runs):
        for n, cmd in cmds.items():
            res[n].append(run_timed(cmd))
    lines = ['diff: %s (%d MB) and its v7 copy; %d runs each'
             % (os.path.basename(path), os.path.getsize(path) >> 20, a.runs)]
    med = {}
    for n, r in res.items():
        med[n], line = medians(n, r)
        lines.append(line)
    rw = med['ktrace report A'][0] + med['ktrace report B'][0]
    rc = med['ktrace report A'][1] + med['ktrace report B'][1]
    rr = max(med['ktrace report A'][2], med['ktrace report B'][2])
    dw, dc, dr = med['ktrace diff A B']
    met = dw <= rw
    lines.append('    diff / both reports: wall %.2fx, cpu %.2fx; RSS %.1f MiB (a report %.1f MiB)'
                 '   goal <= 1x: %s' % (dw / rw, dc / rc, dr, rr, 'met' if met else 'NOT MET'))
    lines.append(load_line())
    publish(a.out, 'diff.txt', lines)
    sys.exit(0 if met else 1)


if __name__ == '__main__':
    main()
