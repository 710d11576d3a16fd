#!/usr/bin/env python3
"""The CPU time of every thread in a `ktrace timeline` page (its metadata: the timeline
model's sums, which also order the thread lanes) against the one computed from
`trace-cmd report -t` of the same trace: on each CPU a sched_switch starts a slice of
next_pid that the next switch there ends, the last slice of each CPU ends at the
trace's last record, and a thread's CPU time is the sum of its slices (the idle thread,
tid 0, has none).

  cputime.py NAME PAGE.html REPORT_T.txt

Prints one "ok - ..." or "not ok - ..." line.
"""
import json
import re
import sys
from collections import Counter

RECORD = re.compile(r'\[(\d{3,})\]\s*(\d+)(?:\.(\d+))?: ([^:\s]+):\s?(.*)$')


def main():
    name, page, report = sys.argv[1:4]
    html = open(page, encoding='utf-8').read()
    meta = json.loads(re.search(r'<script type="application/json" id="meta">(.*?)</script>', html, re.S).group(1))
    ours = Counter()
    for t in meta['threads']:          # [tid, pid, comm, cpu_ns, records]
        if t[0] != 0 and t[3]:
            ours[t[0]] += t[3]
    per_cpu, last = {}, None
    for line in open(report, encoding='utf-8', errors='replace'):
        m = RECORD.search(line.rstrip('\n'))
        if not m:
            continue
        ts = int(m.group(2)) if m.group(3) is None else int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, '0'))
        last = ts if last is None else max(last, ts)
        if m.group(4) == 'sched_switch':
            n = re.search(r'next_pid=(-?\d+)', m.group(5)) or re.search(r'==> .*:(-?\d+) \[-?\d+\]\s*$', m.group(5))
            if n:
                per_cpu.setdefault(int(m.group(1)), []).append((ts, int(n.group(1))))
    theirs = Counter()
    for sw in per_cpu.values():
        for k, (ts, pid) in enumerate(sw):
            end = sw[k + 1][0] if k + 1 < len(sw) else last
            if pid != 0:
                theirs[pid] += end - ts
    theirs = +theirs
    diffs = ['tid %d: page %d ns, trace-cmd %d ns' % (t, ours.get(t, 0), theirs.get(t, 0))
             for t in sorted(set(ours) | set(theirs)) if ours.get(t, 0) != theirs.get(t, 0)]
    print('%s - %s: the CPU time of each of the %d threads that ran as computed from trace-cmd '
          'report -t (%d switches on %d CPUs, the last slices ending at the last record)' % (
              'ok' if theirs and not diffs else 'not ok', name, len(theirs),
              sum(len(v) for v in per_cpu.values()), len(per_cpu)))
    for d in diffs[:8]:
        print('#   ' + d)
    return 0 if theirs and not diffs else 1


if __name__ == '__main__':
    sys.exit(main())
