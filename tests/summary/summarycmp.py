#!/usr/bin/env python3
"""`ktrace summary --json` against independent computations from trace-cmd's text.

  summarycmp.py NAME SUMMARY_JSON ORACLE KERNEL [WHY NOT SYSCALLS...]
      SUMMARY_JSON: `ktrace summary --json --top 100000 FILE`; ORACLE: `oracle.py show`
      of `trace-cmd report -N -t FILE` (tests/model/oracle.py: wakeup latencies and
      CPU time per thread by docs/model.md's rules); KERNEL: `kernelcmp.py totals` of
      `trace-cmd report -t FILE` (tests/engine/kernelcmp.py: IRQ, softirq and syscall
      intervals paired from their entries and exits).

Prints four "ok - ..." / "not ok - ..." lines, each figure within 1% of the other
side's: the CPU time of the oracle's 10 busiest threads; per thread with wakeup
latencies their count and nearest-rank p50, p90, p99 and max; the count and time of
every IRQ handler and softirq vector; the count of every syscall (raw_syscalls,
named by number in trace-cmd's text: the counts as a multiset, and their total time).
"""
import json
import math
import sys
from collections import defaultdict


def close(a, b):
    return abs(a - b) <= 0.01 * max(abs(a), abs(b))


def rank(xs, p):
    return xs[max(0, math.ceil(p / 100 * len(xs)) - 1)]


def verdict(ok, name, notes):
    print('%s - %s' % ('ok' if ok else 'not ok', name))
    if not ok:
        for n in notes[:6]:
            print('#   %s' % n)


def main(name, sj, orc, ker, *skip):
    doc = json.load(open(sj))
    s = doc['inputs'][0]
    lats, cpu = defaultdict(list), {}
    for line in open(orc):
        f = line.split()
        if f and f[0] == 'lat':
            lats[int(f[1])].append(int(f[3]))
        elif f and f[0] in ('cpu', 'open'):
            # (summary's CPU time: the closed slices and the one still open at the end)
            cpu[int(f[1])] = cpu.get(int(f[1]), 0) + int(f[2])
    # CPU time
    ours = {r['tid']: r['cpu_ns'] for r in s['threads_by_cpu_time']['rows']}
    top = sorted(cpu.items(), key=lambda kv: -kv[1])[:10]
    bad = ['tid %d: oracle %d ns, summary %s' % (t, ns, ours.get(t)) for t, ns in top
           if not close(ns, ours.get(t, 0))]
    verdict(not bad, '%s: CPU time of the oracle\'s %d busiest threads' % (name, len(top)), bad)
    # wakeup latency
    ours = {r['tid']: r for r in s['threads_by_wakeup_latency']['rows']}
    bad = []
    for t, xs in sorted(lats.items()):
        xs.sort()
        r = ours.get(t)
        want = (len(xs), rank(xs, 50), rank(xs, 90), rank(xs, 99), xs[-1])
        got = (r['count'], r['p50_ns'], r['p90_ns'], r['p99_ns'], r['max_ns']) if r else None
        if not got or not all(close(a, b) for a, b in zip(want, got)):
            bad.append('tid %d: oracle (count, p50, p90, p99, max) %s, summary %s' % (t, want, got))
    extra = sorted(set(ours) - set(lats))
    if extra:
        bad.append('threads with latencies in the summary only: %s' % extra[:5])
    verdict(not bad, '%s: wakeup latency count, p50, p90, p99, max of %d threads (%d latencies)'
            % (name, len(lats), sum(len(x) for x in lats.values())), bad)
    # IRQ, softirq, syscalls
    want = {}
    for line in open(ker):
        c, rest_ = line.rstrip('\n').split(' ', 1)
        n, cnt, ns = rest_.rsplit(' ', 2)
        want[(c, n)] = (int(cnt), int(ns))
    got = {}
    for key, cat in (('irq_handlers', 'irq'), ('softirq_vectors', 'softirq'), ('syscalls', 'syscall')):
        for r in s[key]['rows']:
            got[(cat, r['name'])] = (r['count'], r['ns'])
    irq = [k for k in set(want) | set(got) if k[0] != 'syscall']
    bad = ['%s %s: trace-cmd %s, summary %s' % (k[0], k[1], want.get(k), got.get(k)) for k in sorted(irq)
           if not want.get(k) or not got.get(k) or want[k][0] != got[k][0] or not close(want[k][1], got[k][1])]
    verdict(not bad, '%s: count and time of %d IRQ handlers and softirq vectors' % (name, len(irq)), bad)
    sysk = [k for k in set(want) | set(got) if k[0] == 'syscall']
    if skip:
        print('ok - %s: syscalls # SKIP %s' % (name, ' '.join(skip)))
        return
    raw = [k for k in want if k[0] == 'syscall' and k[1].startswith('NR ')]
    if raw:
        # raw_syscalls name numbers: the summary names them on the trace's machine, so
        # the counts are compared as a multiset, and the total time
        a = sorted(want[k][0] for k in raw)
        b = sorted(got[k][0] for k in got if k[0] == 'syscall')
        ta, tb = sum(want[k][1] for k in raw), sum(got[k][1] for k in got if k[0] == 'syscall')
        bad = [] if a == b and close(ta, tb) else ['counts trace-cmd %s, summary %s; time %d, %d'
                                                   % (a[-8:], b[-8:], ta, tb)]
        verdict(a and not bad, '%s: counts of %d syscalls (by number) and their time' % (name, len(a)), bad)
    else:
        bad = ['%s: trace-cmd %s, summary %s' % (k[1], want.get(k), got.get(k)) for k in sorted(sysk)
               if not want.get(k) or not got.get(k) or not close(want[k][0], got[k][0])]
        verdict(not bad, '%s: count of each of %d syscalls' % (name, len(sysk)), bad)


if __name__ == '__main__':
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
