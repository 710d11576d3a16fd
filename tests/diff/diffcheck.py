#!/usr/bin/env python3
"""Checks `ktrace diff --json` against changes computed independently, from `trace-cmd
report -N -t` text through tests/model/oracle.py (docs/model.md's rules, written from
that page alone): a thread's wakeup latency quantiles (nearest rank) and CPU time per
second of the trace's complete time.

  diffcheck.py change NAME DIFF_JSON BASE_REPORT BASE_ORACLE NEW_REPORT NEW_ORACLE COMM METRIC...
      For the thread named COMM (one thread of that name in each trace, process and
      thread both COMM: entity COMM/COMM), each METRIC (wakeup_latency.p50/p90/p99,
      cpu_time) must be a significant row whose change is within 10% of the oracle's
      (and of its sign). Prints "ok - ..." / "not ok - ..." lines, one per metric.
  diffcheck.py quiet NAME DIFF_JSON PATTERN...
      No significant row for an entity whose process or thread name matches a PATTERN.
  diffcheck.py same NAME DIFF_JSON
      Every row present on both sides with the same value, none significant, none new
      or gone.
"""
import fnmatch
import json
import re
import sys


def oracle(report, orc, comm):
    tids = set()
    first = last = None
    pat = re.compile(r'^\s*(.+?)-(\d+)\s+\[\d+\]\s+(\d+\.\d+):')
    with open(report, errors='replace') as f:
        for line in f:
            m = pat.match(line)
            if not m:
                continue
            ts = round(float(m.group(3)) * 1e9)
            first = ts if first is None else min(first, ts)
            last = ts if last is None else max(last, ts)
            if m.group(1).strip() == comm:
                tids.add(int(m.group(2)))
    lats, cpu, complete = [], 0, first
    with open(orc) as f:
        for line in f:
            w = line.split()
            if line.startswith('# complete from'):
                complete = int(w[3].rstrip(';'))
            elif w and w[0] == 'lat' and int(w[1]) in tids:
                lats.append(int(w[3]))
            elif w and w[0] in ('cpu', 'open') and int(w[1]) in tids:   # (as summary counts)
                cpu += int(w[2])
    return tids, sorted(lats), cpu / ((last - complete) / 1e9)


def quantile(v, pct):
    rank = max(1, -(-len(v) * pct // 100))
    return v[rank - 1]


def change(argv):
    name, dj, br, bo, nr, no, comm = argv[:7]
    rows = json.load(open(dj))['rows']
    tb, lb, cb = oracle(br, bo, comm)
    tn, ln, cn = oracle(nr, no, comm)
    ent = '%s/%s' % (comm, comm)
    bad = 0
    for metric in argv[7:]:
        if metric == 'cpu_time':
            want = (cn - cb) / cb * 100
        else:
            pct = int(metric.split('.p')[1])
            qb, qn = quantile(lb, pct), quantile(ln, pct)
            want = (qn - qb) / qb * 100
        got = [r for r in rows if r['metric'] == metric and r['entity'] == ent]
        what = '%s: %s of %s, %+.1f%% (oracle %+.1f%%)' % (
            name, metric, ent, got[0]['change'] if got and got[0]['change'] is not None else float('nan'), want)
        if (len(tb), len(tn)) != (1, 1):
            print('not ok - %s\n#   %s threads in base, %s in new' % (what, tb, tn))
            bad += 1
        elif not got or not got[0]['significant'] or got[0]['change'] is None or \
                abs(got[0]['change'] - want) > 0.1 * abs(want) or (got[0]['change'] > 0) != (want > 0):
            print('not ok - %s, significant\n#   row %s' % (what, got))
            bad += 1
        else:
            print('ok - %s, significant (p %.2g)' % (what, got[0]['p']))
    return bad


def quiet(argv):
    name, dj = argv[:2]
    rows = json.load(open(dj))['rows']
    hits = [r for r in rows if r['significant'] and r['kind'] in ('thread', 'process') and
            any(fnmatch.fnmatchcase(part, p) for p in argv[2:] for part in r['entity'].split('/'))]
    n = len([r for r in rows if r['kind'] in ('thread', 'process') and
             any(fnmatch.fnmatchcase(part, p) for p in argv[2:] for part in r['entity'].split('/'))])
    if hits or not n:
        print('not ok - %s: no significant change of %s (%d rows)' % (name, ' '.join(argv[2:]), n))
        for r in hits:
            print('#   %s' % r)
        return 1
    print('ok - %s: no significant change among the %d rows of %s' % (name, n, ' '.join(argv[2:])))
    return 0


def same(argv):
    name, dj = argv[:2]
    d = json.load(open(dj))
    bad = [r for r in d['rows'] if r['significant'] or r['status'] != 'both' or r['base'] != r['new']]
    if bad or not d['rows']:
        print('not ok - %s: no change at all (%d rows)' % (name, len(d['rows'])))
        for r in bad[:10]:
            print('#   %s' % r)
        return 1
    print('ok - %s: no change at all in %d rows' % (name, len(d['rows'])))
    return 0


def main(argv):
    return {'change': change, 'quiet': quiet, 'same': same}[argv[0]](argv[1:])


if __name__ == '__main__':
    sys.exit(1 if main(sys.argv[1:]) else 0)
