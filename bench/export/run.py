#!/usr/bin/env python3
"""bench/export: how fast `ktrace export` writes a big trace.dat as a Perfetto trace,
against `ktrace report` of the same file to /dev/null, in the same run.

The trace: tests/data/report/allevents.v6.dat.zst (every event of a 2-CPU VM, about 150
event types, almost all of them generic for Perfetto) with its pages repeated until the
CPU data reaches MB megabytes (bench/read/mkbig.py): 130 MB is 3.1 M events.

Runs, RUNS times each and alternating: `ktrace report FILE >/dev/null` (its default
threads), `ktrace export -o OUT.perfetto-trace FILE` (a new file each time) and
`ktrace export -o /dev/null FILE`. Prints the median wall and CPU times (user + system:
on a shared machine the wall time includes waiting for a CPU), the peak RSS, the
ratios, the size of the Perfetto trace against the trace's event data (the bytes of its
CPU buffers), and the load average before and after. The targets (issue 15): export
wall time <= report's, peak RSS <= 64 MiB, output <= the event data. Exits 1 when a
target is missed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'report'))
from run import make_trace  # noqa: E402  (bench/report's trace)
sys.path.insert(0, os.path.join(HERE, '..'))
from timing import publish  # noqa: E402


def measure(cmd, remove=None):
    """(wall seconds, cpu seconds, max RSS KiB) of one run with stdout to /dev/null. The
    peak RSS comes from /usr/bin/time: a child of this Python process would inherit its
    high-water mark."""
    if remove and os.path.exists(remove):
        os.unlink(remove)
    with open(os.devnull, 'wb') as null:
        t0 = time.monotonic()
        p = subprocess.Popen(['/usr/bin/time', '-f', '%M'] + cmd, stdout=null, stderr=subprocess.PIPE)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError('%s failed: %s' % (' '.join(cmd), err.decode()[-300:]))
    return wall, ru.ru_utime + ru.ru_stime, int(err.decode().split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ktrace', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--mb', type=int, default=130)
    ap.add_argument('--runs', type=int, default=7)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = make_trace(a.out, a.mb)
    pf = os.path.join(a.out, 'export%d.perfetto-trace' % a.mb)
    info = json.loads(subprocess.run([a.ktrace, 'info', '--json', path], capture_output=True,
                                     text=True).stdout)
    events = info['events']
    data = sum(b['data_bytes'] for b in info['buffers'])
    load0 = ' '.join(open('/proc/loadavg').read().split()[:3])
    cmds = {'report': ([a.ktrace, 'report', path], None),
            'export to a file': ([a.ktrace, 'export', '-q', '-o', pf, path], pf),
            'export to /dev/null': ([a.ktrace, 'export', '-q', '-o', '/dev/null', path], None)}
    res = {n: [] for n in cmds}
    for _ in range(a.runs):
        for n, (cmd, rm) in cmds.items():
            res[n].append(measure(cmd, rm))
    med = {n: (statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
               max(x[2] for x in r)) for n, r in res.items()}
    size = os.path.getsize(pf)
    lines = ['export: %s, %d MB, %d events, %d bytes of event data' % (
        os.path.basename(path), os.path.getsize(path) >> 20, events, data)]
    for n in cmds:
        w, c, r = med[n]
        lines.append('    %-20s wall %7.3f s   cpu %7.3f s   peak RSS %6.1f MiB   %5.2f M events/s (wall)'
                     % (n, w, c, r / 1024, events / w / 1e6 if w else 0))
    rep = med['report']
    good = True
    for n in ('export to a file', 'export to /dev/null'):
        ratio = rep[0] / med[n][0]
        lines.append('    %-20s %.2fx the speed of report (wall), %.2fx (cpu)' % (n, ratio, rep[1] / med[n][1]))
    ok_time = med['export to a file'][0] <= rep[0]
    ok_rss = max(med[n][2] for n in cmds if n != 'report') <= 64 * 1024
    ok_size = size <= data
    good = ok_time and ok_rss and ok_size
    lines.append('    Perfetto trace %d bytes: %.1f%% of the event data' % (size, 100.0 * size / data))
    lines.append('    targets: time %s, RSS <= 64 MiB %s, size %s' % (
        'met' if ok_time else 'MISSED', 'met' if ok_rss else 'MISSED', 'met' if ok_size else 'MISSED'))
    lines.append('    load average %s before, %s after (%d CPUs)' % (
        load0, ' '.join(open('/proc/loadavg').read().split()[:3]), os.cpu_count()))
    publish(a.out, 'export.txt', lines)
    os.unlink(pf)
    sys.exit(0 if good else 1)


if __name__ == '__main__':
    main()
