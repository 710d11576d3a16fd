#!/usr/bin/env python3
"""bench/read: how fast `ktrace info --json` reads big trace.dat files, against a small
program using libtracecmd's tracecmd_iterate_events (tc_read.c) doing the same counting.

The traces: tests/data/tracedat/all.v6.dat.zst (every event of a 2-CPU VM) with its
pages repeated to MB megabytes of CPU data (mkbig.py), and its `trace-cmd convert` to
version 7 with zstd. Both readers run RUNS times each, alternating, in the same run; the
script checks they count the same events per CPU with the same first and last
timestamps, then prints median wall time, median CPU time (user + system: on a shared
machine the wall time includes waiting for a CPU), peak RSS, and the ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
sys.path.insert(0, os.path.join(HERE, '..'))
from timing import publish  # noqa: E402


def make_traces(out, mb):
    v6 = os.path.join(out, 'big%d.v6.dat' % mb)
    v7 = os.path.join(out, 'big%d.v7zstd.dat' % mb)
    if not os.path.exists(v6):
        small = os.path.join(out, 'all.v6.dat')
        subprocess.run(['zstd', '-q', '-d', '-f', '-o', small,
                        os.path.join(ROOT, 'tests', 'data', 'tracedat', 'all.v6.dat.zst')], check=True)
        subprocess.run([sys.executable, os.path.join(HERE, 'mkbig.py'), small, v6 + '.tmp', str(mb)],
                       check=True)
        os.rename(v6 + '.tmp', v6)
    if not os.path.exists(v7):
        subprocess.run(['trace-cmd', 'convert', '--file-version', '7', '--compression', 'zstd',
                        '-i', v6, '-o', v7 + '.tmp'], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.rename(v7 + '.tmp', v7)
    return v6, v7


def measure(cmd):
    """(wall seconds, cpu seconds, max RSS KiB, stdout) of one run."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise RuntimeError('%s failed: %s' % (' '.join(cmd), err.decode()[-300:]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out.decode()


def stats_ktrace(out):
    j = json.loads(out)
    top = [b for b in j['buffers'] if b['name'] == ''][0]
    return {c['cpu']: (c['events'], c['first_ts'], c['last_ts']) for c in top['cpus'] if c['events']}


def stats_tc(out):
    res = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == 'cpu':
            res[int(f[1])] = (int(f[3]), int(f[5]), int(f[7]))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ktrace', required=True)
    ap.add_argument('--tc-read', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--mb', type=int, default=128)
    ap.add_argument('--runs', type=int, default=5)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    v6, v7 = make_traces(a.out, a.mb)
    lines = []
    ok = True
    for label, path in (('v6', v6), ('v7 zstd', v7)):
        res = {'ktrace': [], 'libtracecmd': []}
        outs = {}
        for _ in range(a.runs):
            for name, cmd in (('ktrace', [a.ktrace, 'info', '--json', path]),
                              ('libtracecmd', [a.tc_read, path])):
                wall, cpu, rss, out = measure(cmd)
                res[name].append((wall, cpu, rss))
                outs[name] = out
        k, t = stats_ktrace(outs['ktrace']), stats_tc(outs['libtracecmd'])
        if k != t:
            ok = False
            lines.append('%s: the readers disagree: ktrace %r, libtracecmd %r' % (label, k, t))
        events = sum(v[0] for v in k.values())
        data = sum(os.path.getsize(path) for _ in [0])
        med = {n: (statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
                   max(x[2] for x in r)) for n, r in res.items()}
        lines.append('%-8s %s: %d MB file, %d events' % (label, os.path.basename(path),
                                                        data >> 20, events))
        for n in ('ktrace', 'libtracecmd'):
            w, c, r = med[n]
            lines.append('    %-12s wall %7.3f s   cpu %7.3f s   peak RSS %7.1f MiB   %6.1f M events/s (cpu)'
                         % (n, w, c, r / 1024, events / c / 1e6 if c else 0))
        lines.append('    ratio        wall %6.1fx    cpu %6.1fx' % (
            med['libtracecmd'][0] / med['ktrace'][0], med['libtracecmd'][1] / med['ktrace'][1]))
    publish(a.out, 'read.txt', lines)
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
