#!/usr/bin/env python3
"""bench/timeline: how long `ktrace timeline` takes to build the page of a big trace, its
peak RSS and the page's size, against `ktrace report` of the same trace to /dev/null in
the same run; then how long the page takes to load in headless Chromium.

The trace is bench/report's: tests/data/report/allevents.v6.dat.zst (every event of a
2-CPU VM) with its pages repeated until the CPU data reaches MB megabytes
(bench/read/mkbig.py), about 3.4 M events for 140 MB. Both commands run RUNS times,
alternating; the medians of wall and CPU time (user + system) and the largest peak RSS
are printed with the ratios and the load average. Goals (issue 17): build in at most 2x
report's time, at most 64 MiB RSS, a page of at most 1/4 of the trace.dat, loaded in
under 2 s. Issue 33 asks for the 2x on every bench mix: the same pairs then run on each
of bench/report's mixes (--mixes; recorded here at bench time, root needed, about
--events events each), one line per mix.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
sys.path.insert(0, os.path.join(ROOT, 'bench', 'report'))
import run as report_bench  # noqa: E402  (make_trace, measure)
import mixes  # noqa: E402  (make_mix, make_v7)
sys.path.insert(0, os.path.join(ROOT, 'bench'))
from timing import publish  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ktrace', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--mb', type=int, default=140)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--load-runs', type=int, default=3)
    ap.add_argument('--mixes', default='sched,kmem,syscalls,all,kmem-v7',
                    help="bench/report's mixes to time as well ('' for none)")
    ap.add_argument('--events', type=int, default=3000000)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    trace = report_bench.make_trace(a.out, a.mb)
    page = os.path.join(a.out, 'timeline.html')
    cmds = {'ktrace report': [a.ktrace, 'report', trace],
            'ktrace timeline': [a.ktrace, 'timeline', '-q', trace, '-o', page]}
    loads = [os.getloadavg()[0]]
    res = {n: [] for n in cmds}
    for _ in range(a.runs):
        for n, cmd in cmds.items():
            res[n].append(report_bench.measure(cmd))
        loads.append(os.getloadavg()[0])
    size, tsize = os.path.getsize(page), os.path.getsize(trace)
    lines = ['timeline: %s, %d MB, page %.1f MB (%.3f of the trace.dat; goal <= 0.25)' % (
        os.path.basename(trace), tsize >> 20, size / 1e6, size / tsize)]
    med = {}
    for n, r in res.items():
        med[n] = (statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
                  max(x[2] for x in r))
        lines.append('    %-16s wall %7.3f s (%s)   cpu %7.3f s   peak RSS %6.1f MiB' % (
            n, med[n][0], ' '.join('%.2f' % x[0] for x in r), med[n][1], med[n][2] / 1024))
    t, r = med['ktrace timeline'], med['ktrace report']
    lines.append('    timeline / report: wall %.2fx, cpu %.2fx (goal <= 2x); RSS %.1f MiB (goal <= 64)' % (
        t[0] / r[0], t[1] / r[1], t[2] / 1024))
    for i in range(a.load_runs):
        p = subprocess.run([sys.executable, os.path.join(ROOT, 'tests', 'timeline', 'browser.py'),
                            '--load-time', page], capture_output=True, text=True)
        lines.append('    Chromium run %d: %s' % (i + 1, (p.stdout.strip() or p.stderr.strip()[-300:])))
        loads.append(os.getloadavg()[0])
    for name in [x for x in a.mixes.split(',') if x]:
        path = mixes.make_mix(a.ktrace, a.out, name.replace('-v7', ''), a.events)
        if name.endswith('-v7'):
            path = mixes.make_v7(a.ktrace, path)
        pair = {'r': [], 't': []}
        for _ in range(a.runs):
            pair['r'].append(report_bench.measure([a.ktrace, 'report', path]))
            pair['t'].append(report_bench.measure([a.ktrace, 'timeline', '-q', path, '-o', page]))
            loads.append(os.getloadavg()[0])
        r, t = ([statistics.median(x[k] for x in pair[w]) for k in (0, 1)] for w in ('r', 't'))
        lines.append('    mix %-9s report %.3f s (cpu %.3f)  timeline %.3f s (cpu %.3f): '
                     'wall %.2fx, cpu %.2fx (goal <= 2x)' % (name, r[0], r[1], t[0], t[1],
                                                             t[0] / r[0], t[1] / r[1]))
    lines.append('    load average (1 min) during the run: %s' % ' '.join('%.1f' % x for x in loads))
    publish(a.out, 'timeline.txt', lines)


if __name__ == '__main__':
    main()
