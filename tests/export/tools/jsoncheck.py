#!/usr/bin/env python3
"""Checks a Chrome JSON export against the records of its source, printing ok/not ok
lines:
- the file is the {"traceEvents": [...]} object form, every event has its phase, and
  times are numbers of microseconds with at most three decimals;
- per CPU, the complete events ("X") are the scheduling slices: one more than the
  context switches of that CPU; slice k ends exactly (to the nanosecond) at switch k,
  and is the thread switch k-1 put on (the first one: switch 0's prev), named after
  it, with the state switch k gives when it takes that thread off; the next starts
  there;
- every other record is an instant event; lost events are global instants, one per
  dropped-events mark;
- every thread the source names (saved cmdlines, Darwin thread map) has a thread_name.

usage: jsoncheck.py NAME EXPORT.json tracecmd REPORT_R_T CMDLINES
       jsoncheck.py NAME EXPORT.json darwin REPORT.csv
       jsoncheck.py NAME EXPORT.json count RECORDS
REPORT_R_T is `trace-cmd report -R -t`; CMDLINES `trace-cmd dump --cmd-lines`.
"""
import csv
import json
import re
import sys
from decimal import Decimal

CPU_PID = 2147483647
LINE = re.compile(r'^\s*(?:\S+: +)?(.*?)-(\d+)\s+\[(\d+)\]\s*(\d+)(?:\.(\d+))?:\s+(\S+):\s*(.*)$')


def result(good, text):
    print('%s - %s' % ('ok' if good else 'not ok', text))
    return good


def ns(v):
    return int(Decimal(v) * 1000)


def main():
    name, path, mode = sys.argv[1:4]
    try:
        d = json.load(open(path), parse_float=Decimal)
    except ValueError as e:
        result(False, '%s: not JSON: %s' % (name, e))
        return 1
    evs = d.get('traceEvents') if isinstance(d, dict) else None
    if not result(isinstance(evs, list), '%s: the {"traceEvents": [...]} object form' % name):
        return 1
    bad = [e for e in evs if 'ph' not in e or ('ts' in e and not isinstance(e['ts'], Decimal) and
                                                 not isinstance(e['ts'], int))]
    bad += [e for e in evs if 'ts' in e and isinstance(e['ts'], Decimal) and -e['ts'].as_tuple().exponent > 3]
    result(not bad, '%s: %d events, each with its phase, times in us with 3 decimals%s'
           % (name, len(evs), '' if not bad else ' (%r)' % bad[:2]))
    slices = {}
    for e in evs:
        if e['ph'] == 'X':
            if e['pid'] != CPU_PID:
                result(False, '%s: a slice outside the CPU rows: %r' % (name, e))
                return 1
            slices.setdefault(e['tid'], []).append(e)
    instants = [e for e in evs if e['ph'] == 'i' and e.get('s') == 't']
    lost = [e for e in evs if e['ph'] == 'i' and e.get('s') == 'g']
    names = {(e['tid'], e['args']['name']) for e in evs if e['ph'] == 'M' and e['name'] == 'thread_name'}

    # the source: switches per CPU (ts, prev tid, prev comm), records, lost marks, threads
    switches, records, marks, threads = {}, 0, 0, set()
    if mode == 'tracecmd':
        for l in open(sys.argv[4], errors='replace'):
            if 'EVENTS DROPPED' in l:
                marks += 1
                continue
            m = LINE.match(l.rstrip('\n'))
            if not m:
                continue
            records += 1
            ts = int(m.group(4)) if m.group(5) is None else \
                int(m.group(4)) * 1000000000 + int(m.group(5).ljust(9, '0')[:9])
            if m.group(6) == 'sched_switch':
                f = re.match(r'prev_comm=(.*) prev_pid=(-?\d+) .* next_comm=(.*) next_pid=(-?\d+) ',
                             m.group(7))
                switches.setdefault(int(m.group(3)), []).append(
                    (ts, int(f.group(2)), f.group(1), int(f.group(4)), f.group(3)))
        for l in open(sys.argv[5], errors='replace'):
            m = re.match(r'^(\d+) (.*)$', l.rstrip('\n'))
            if m:
                threads.add((int(m.group(1)), m.group(2)))
    elif mode == 'darwin':
        for r in csv.DictReader(open(sys.argv[4])):
            i = int(r['debugid'], 16) & ~3
            if i == 0x07020008:
                marks += 1
                continue
            records += 1
            if i in (0x01400000, 0x01400008):
                switches.setdefault(int(r['cpu']), []).append(
                    (int(r['time_ns']), int(r['thread'], 16), r['process'], int(r['arg2'], 16), ''))
            if r['process']:
                threads.add((int(r['thread'], 16), r['process']))
    else:
        records = int(sys.argv[4])
    nsw = sum(len(v) for v in switches.values())
    result(len(instants) == records - nsw and len(lost) == marks,
           '%s: %d instant events for the %d records that are not switches, %d lost-event instants (%d marks)'
           % (name, len(instants), records - nsw, len(lost), marks))
    bad = []
    for cpu, sw in sorted(switches.items()):
        sl = sorted(slices.get(cpu, []), key=lambda e: ns(e['ts']))
        if len(sl) != len(sw) + 1:
            bad.append('CPU %d: %d slices for %d switches' % (cpu, len(sl), len(sw)))
            continue
        for k, (ts, prev, comm, nxt, ncomm) in enumerate(sw):
            a, b = sl[k], sl[k + 1]
            end = ns(a['ts']) + ns(a['dur'])
            # slice k: the first switch's prev, then the thread switch k-1 put on
            tid, comm = (prev, comm) if k == 0 else (sw[k - 1][3], sw[k - 1][4])
            want_name = comm if comm not in ('', '<...>') else str(tid)
            state_ok = ('end_state' in a['args']) == (tid == prev)
            if end != ts or ns(b['ts']) != ts or a['args']['tid'] != tid or b['args']['tid'] != nxt or \
               not state_ok or (mode == 'tracecmd' and a['name'] != want_name):
                bad.append('CPU %d switch %d at %d: slices %r / %r' % (cpu, k, ts, a, b))
                break
    extra = sorted(set(slices) - set(switches))
    result((nsw or not slices) and not bad and not extra,
           '%s: %d scheduling slices on %d CPUs, one more than the %d switches of each, ending at them%s'
           % (name, sum(len(v) for v in slices.values()), len(slices), nsw,
              '' if not bad and not extra else ': %r %r' % (bad[:3], extra)))
    # (one line for each source that can name threads, so that the caller's plan holds)
    if threads:
        missing = sorted(threads - names)
        result(not missing, '%s: thread_name for the %d threads the source names%s'
               % (name, len(threads), '' if not missing else ', missing %r' % missing[:5]))
    elif mode != 'count':
        print('ok - %s: thread names # SKIP the source names no thread' % name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
