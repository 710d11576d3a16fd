#!/usr/bin/env python3
"""The stream's Darwin records (stream_dump --fields) against `ktrace report --csv` of
the same file: the same events, with the same time, CPU, thread, process, debugid, name
and arguments, in time order (the report prints file order: its rows are sorted by
time, ties in file order, as the stream sorts them). Prints one ok/not ok line."""
import csv
import re
import sys

OURS = re.compile(r'^E (\d+) (-?\d+) (-?\d+) (-?\d+) "(.*?)(?<!\\)" ([^:]*):(\S+)(.*)$')


def main():
    ours = [l.rstrip('\n') for l in open(sys.argv[1]) if l.startswith(('E ', 'L '))]
    rows = sorted(csv.DictReader(open(sys.argv[2])), key=lambda r: int(r['time_ns']))
    bad = []
    if len(ours) != len(rows) or not ours:
        bad.append('%d records, the report has %d' % (len(ours), len(rows)))
    for k, (o, r) in enumerate(zip(ours, rows)):
        if o.startswith('L '):
            if int(r['debugid'], 16) & ~3 != 0x07020008:
                bad.append('record %d: a lost mark where the report has %s' % (k + 1, r['event']))
            continue
        m = OURS.match(o)
        if not m:
            bad.append('record %d does not parse' % (k + 1))
            continue
        f = dict(x.split('=', 1) for x in m.group(8).split())
        want = (int(r['time_ns']), int(r['cpu']), int(r['thread'], 16),
                int(r['pid']) if r['pid'] else -1, int(r['debugid'], 16), r['event'],
                [int(r['arg%d' % i], 16) for i in range(1, 5)])
        got = (int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)),
               int(f['debugid']), m.group(7), [int(f['arg%d' % i]) for i in range(1, 5)])
        if want != got:
            bad.append('record %d: %r, the report %r' % (k + 1, got, want))
    for b in bad[:10]:
        print('#   ' + b)
    print('%s - Darwin: %d records equal to ktrace report --csv' % ('not ok' if bad else 'ok', len(ours)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
