#!/usr/bin/env python3
"""The CPU time of every thread in a `ktrace timeline` page (its metadata's, which also
orders the thread lanes) against `ktrace sql`'s sched_slice of the same inputs: the sum
of each thread's slices, one still open at the input's end (dur -1) up to the trace's
model_end_ts (docs/model.md, "CPU time"), per input and tid. Before the timeline drew from the engine's
model it had its own, and the two disagreed (issue 32).

  cputime.py NAME PAGE.html KTRACE FILE...

Prints one "ok - ..." or "not ok - ..." line.
"""
import json
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pagecheck import sql  # noqa: E402


def inputs_by_trace(ktrace, files, meta):
    """trace_id -> the page's input index (the inputs' paths as given to both)."""
    paths = [i['path'] for i in meta['inputs']]
    return {int(t): paths.index(p) for t, p in sql(ktrace, files, 'select trace_id, path from trace')}


def main():
    name, page, ktrace, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    html = open(page, encoding='utf-8').read()
    meta = json.loads(re.search(r'<script type="application/json" id="meta">(.*?)</script>', html, re.S).group(1))
    ours = Counter()
    for t in meta['threads']:          # [tid, pid, comm, cpu_ns, records, input]
        if t[0] != 0 and t[3]:
            ours[(t[5], t[0])] += t[3]
    inp = inputs_by_trace(ktrace, files, meta)
    theirs = Counter()
    for trace, tid, ns in sql(ktrace, files, 'select s.trace_id, t.tid, '
                              'sum(iif(s.dur >= 0, s.dur, tr.model_end_ts - s.ts)) from sched_slice s '
                              'join thread t using(utid) join trace tr using(trace_id) '
                              'where t.tid != 0 group by s.utid'):
        theirs[(inp[int(trace)], int(tid))] += int(ns)
    theirs = +theirs
    diffs = ['input %d tid %d: page %d ns, sched_slice %d ns' % (k[0], k[1], ours.get(k, 0), theirs.get(k, 0))
             for k in sorted(set(ours) | set(theirs)) if ours.get(k, 0) != theirs.get(k, 0)]
    good = theirs and not diffs
    print('%s - %s: the CPU time of each of the %d threads that ran (per input and tid) is the sum of its '
          'sched_slice rows in ktrace sql, open ones to the end (%.3f ms in all)' % (
              'ok' if good else 'not ok', name, len(theirs), sum(theirs.values()) / 1e6))
    for d in diffs[:8]:
        print('#   ' + d)
    return 0 if good else 1


if __name__ == '__main__':
    sys.exit(main())
