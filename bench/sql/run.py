#!/usr/bin/env python3
"""bench/sql: how fast `ktrace sql` answers questions about a big trace.dat, from a cold
start (a new process, no database file: the tables are built from the trace), against
`trace-cmd report` of the same file to /dev/null, in the same run.

The trace: bench/report's (tests/data/report/allevents.v6.dat.zst with its pages
repeated until the CPU data reaches MB megabytes, bench/read/mkbig.py; 140 MB is about
3.4 M events). The queries:
  count       select count(*) from event
  top-cpu     the ten threads with the most CPU time (sched_slice joined with thread)
  by-name     events per name (a full scan of the event table, for information)
Each command runs RUNS times, alternating; the script prints the median wall and CPU
(user + system) times, the peak RSS, the memory SQLite held at most (ktrace sql
--stats), and the ratios to trace-cmd. The machine is shared: the load average is
printed, and the CPU ratio is the steadier figure. The goal: both queries at least 3x
faster than trace-cmd report, and peak RSS below 64 MiB plus SQLite's memory.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'report'))
from run import make_trace  # noqa: E402  (bench/report's trace)
sys.path.insert(0, os.path.join(HERE, '..'))
from timing import publish  # noqa: E402

QUERIES = {
    'count': 'select count(*) from event',
    'top-cpu': 'select t.tid, t.name, sum(s.dur) as cpu_ns from sched_slice s join thread t '
               'using (trace_id, utid) where s.dur >= 0 group by s.utid order by cpu_ns desc limit 10',
    'by-name': 'select name, count(*) as n from event group by name order by n desc',
}


def run_timed(cmd):
    null = open(os.devnull, 'wb')
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=null if cmd[0] == 'trace-cmd' else subprocess.PIPE,
                         stderr=subprocess.PIPE)
    out = p.stdout.read() if p.stdout else b''
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError('%s failed: %s' % (' '.join(cmd), err.decode()[-300:]))
    m = re.search(rb'SQLite memory [\d.]+ MiB now, ([\d.]+) MiB at most', err)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, float(m.group(1)) if m else None, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ktrace', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--mb', type=int, default=140)
    ap.add_argument('--runs', type=int, default=5)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = make_trace(a.out, a.mb)
    cmds = {'trace-cmd report': ['trace-cmd', 'report', path]}
    for n, q in QUERIES.items():
        cmds['ktrace sql ' + n] = [a.ktrace, 'sql', '--stats', path, q]
    res = {n: [] for n in cmds}
    outs = {}
    for _ in range(a.runs):
        for n, cmd in cmds.items():
            w, c, r, s, out = run_timed(cmd)
            res[n].append((w, c, r, s))
            outs[n] = out
    events = int(outs['ktrace sql count'].split()[1])
    lines = ['sql: %s, %d MB, %d events; %d runs each' % (
        os.path.basename(path), os.path.getsize(path) >> 20, events, a.runs)]
    med = {}
    for n, r in res.items():
        w = statistics.median(x[0] for x in r)
        c = statistics.median(x[1] for x in r)
        rss = max(x[2] for x in r) / 1024
        sq = max((x[3] for x in r if x[3] is not None), default=None)
        med[n] = (w, c, rss, sq)
        extra = ''
        if sq is not None:
            extra = '   SQLite at most %5.1f MiB   RSS - SQLite %5.1f MiB' % (sq, rss - sq)
        lines.append('    %-22s wall %7.3f s (%6.3f..%6.3f)   cpu %7.3f s   peak RSS %6.1f MiB%s'
                     % (n, w, min(x[0] for x in r), max(x[0] for x in r), c, rss, extra))
    t = med['trace-cmd report']
    ok = True
    for n in cmds:
        if n == 'trace-cmd report':
            continue
        w, c, rss, sq = med[n]
        goal = n.endswith(('count', 'top-cpu'))
        met = t[0] / w >= 3 and t[1] / c >= 3 and rss - (sq or 0) < 64
        if goal:
            ok = ok and met
        lines.append('    ratio %-22s wall %5.1fx   cpu %5.1fx%s' % (
            n, t[0] / w, t[1] / c, ('   goal 3x, RSS < 64 MiB + SQLite: ' + ('met' if met else 'NOT MET'))
            if goal else '   (information)'))
    lines.append('    top-cpu answer: ' + outs['ktrace sql top-cpu'].decode().split('\n')[1])
    lines.append('    load average %s, %d CPUs' % (' '.join(open('/proc/loadavg').read().split()[:3]),
                                                    os.cpu_count()))
    publish(a.out, 'sql.txt', lines)
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
