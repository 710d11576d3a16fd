#!/usr/bin/env python3
"""bench/report: how fast `ktrace report` prints a big trace.dat, against Debian's
`trace-cmd report`, both writing to /dev/null.

The trace: tests/data/report/allevents.v6.dat.zst (every event of a 2-CPU VM, about 150
event types) with its pages repeated until the CPU data reaches MB megabytes
(bench/read/mkbig.py), version 6. Both programs run RUNS times each, alternating, in the
same run; the script first checks that their outputs are identical (SHA-256 of the whole
report), then prints the median wall time, the median CPU time (user + system: on a
shared machine the wall time includes waiting for a CPU), the peak RSS and the ratios.
ktrace runs with its default threads (one per CPU) and, for comparison, with --threads 1.
"""
import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
sys.path.insert(0, os.path.join(HERE, '..'))
from timing import publish  # noqa: E402


def make_trace(out, mb):
    path = os.path.join(out, 'report%d.v6.dat' % mb)
    if not os.path.exists(path):
        small = os.path.join(out, 'report-allevents.v6.dat')
        subprocess.run(['zstd', '-q', '-d', '-f', '-o', small,
                        os.path.join(ROOT, 'tests', 'data', 'report', 'allevents.v6.dat.zst')],
                       check=True)
        subprocess.run([sys.executable, os.path.join(ROOT, 'bench', 'read', 'mkbig.py'), small,
                        path + '.tmp', str(mb)], check=True)
        os.rename(path + '.tmp', path)
    return path


def measure(cmd):
    """(wall seconds, cpu seconds, max RSS KiB) of one run with stdout to /dev/null."""
    with open(os.devnull, 'wb') as null:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=null, stderr=subprocess.PIPE)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError('%s failed: %s' % (' '.join(cmd), err.decode()[-300:]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def digest(cmd):
    h = hashlib.sha256()
    lines = 0
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    for chunk in iter(lambda: p.stdout.read(1 << 20), b''):
        h.update(chunk)
        lines += chunk.count(b'\n')
    p.wait()
    return h.hexdigest(), lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ktrace', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--mb', type=int, default=140)
    ap.add_argument('--runs', type=int, default=5)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = make_trace(a.out, a.mb)
    info = subprocess.run([a.ktrace, 'info', path], capture_output=True, text=True).stdout
    events = 0
    for line in info.splitlines():
        if 'events, lost' in line:
            events += int(line.split()[0])
    cmds = {'ktrace': [a.ktrace, 'report', path],
            'ktrace 1 thread': [a.ktrace, 'report', '--threads', '1', path],
            'trace-cmd': ['trace-cmd', 'report', path]}
    kd, kl = digest(cmds['ktrace'])
    td, tl = digest(cmds['trace-cmd'])
    lines = ['report: %s, %d MB, %d events, %d report lines' % (
        os.path.basename(path), os.path.getsize(path) >> 20, events, tl)]
    if kd != td or kl != tl:
        lines.append('OUTPUTS DIFFER: ktrace %s (%d lines), trace-cmd %s (%d lines)' % (
            kd, kl, td, tl))
    else:
        lines.append('outputs identical (sha256 %s)' % kd[:16])
    res = {n: [] for n in cmds}
    for _ in range(a.runs):
        for n, cmd in cmds.items():
            res[n].append(measure(cmd))
    med = {n: (statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
               max(x[2] for x in r)) for n, r in res.items()}
    for n in cmds:
        w, c, r = med[n]
        lines.append('    %-16s wall %7.3f s   cpu %7.3f s   peak RSS %7.1f MiB   %5.2f M events/s (wall)'
                     % (n, w, c, r / 1024, events / w / 1e6 if w else 0))
    t = med['trace-cmd']
    for n in ('ktrace', 'ktrace 1 thread'):
        lines.append('    ratio %-16s wall %5.1fx   cpu %5.1fx' % (n, t[0] / med[n][0], t[1] / med[n][1]))
    lines.append('    load average %s' % ' '.join(open('/proc/loadavg').read().split()[:3]))
    publish(a.out, 'report.txt', lines)
    sys.exit(0 if kd == td else 1)


if __name__ == '__main__':
    main()
