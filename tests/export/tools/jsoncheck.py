#!/usr/bin/env python3
"""Checks a Chrome JSON export against the records of its source, printing ok/not ok
lines:
- the file is the {"traceEvents": [...]} object form, every event has its phase, and
  times are numbers of microseconds with at most three decimals;
- per CPU, the complete events ("X") are the scheduling slices of the model
  (docs/model.md): each switch begins one, exactly (to the nanosecond), of the thread
  it puts on, named after it; when the CPU's next switch takes that thread off with no
  lost events between, the slice ends exactly there with the state it gives; else it
  ends before the next switch with no state (a switch not recorded, or lost events);
  the CPU's last one, with no lost events after its switch, ends with no state at the
  input's last record (docs/model.md: a state still open lasts to the input's end).
  Slices the model began from a thread's records (not at a switch) overlap none of
  them;
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
    switches, records, marks, threads, last = {}, 0, 0, set(), 0
    drops = {}        # per CPU: lost-events marks so far
    if mode == 'tracecmd':
        for l in open(sys.argv[4], errors='replace'):
            if 'EVENTS DROPPED' in l:
                marks += 1
                dm = re.search(r'CPU:(\d+)', l)
                if dm:
                    drops[int(dm.group(1))] = drops.get(int(dm.group(1)), 0) + 1
                continue
            m = LINE.match(l.rstrip('\n'))
            if not m:
                continue
            records += 1
            ts = int(m.group(4)) if m.group(5) is None else \
                int(m.group(4)) * 1000000000 + int(m.group(5).ljust(9, '0')[:9])
            last = max(last, ts)
            if m.group(6) == 'sched_switch':
                f = re.match(r'prev_comm=(.*) prev_pid=(-?\d+) .* next_comm=(.*) next_pid=(-?\d+) ',
                             m.group(7))
                switches.setdefault(int(m.group(3)), []).append(
                    (ts, int(f.group(2)), f.group(1), int(f.group(4)), f.group(3),
                     drops.get(int(m.group(3)), 0)))
        for l in open(sys.argv[5], errors='replace'):
            m = re.match(r'^(\d+) (.*)$', l.rstrip('\n'))
            if m:
                threads.add((int(m.group(1)), m.group(2)))
    elif mode == 'darwin':
        for r in csv.DictReader(open(sys.argv[4])):
            i = int(r['debugid'], 16) & ~3
            if i == 0x07020008:
                marks += 1
                drops[int(r['cpu'])] = drops.get(int(r['cpu']), 0) + 1
                continue
            records += 1
            last = max(last, int(r['time_ns']))
            if i in (0x01400000, 0x01400008):
                switches.setdefault(int(r['cpu']), []).append(
                    (int(r['time_ns']), int(r['thread'], 16), r['process'], int(r['arg2'], 16), '',
                     drops.get(int(r['cpu']), 0)))
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
        starts = {}
        for e in sl:
            starts.setdefault(ns(e['ts']), []).append(e)
        at_switch = set()
        for k, (ts, prev, comm, nxt, ncomm, d0) in enumerate(sw):
            a = [e for e in starts.get(ts, []) if e['args']['tid'] == nxt]
            if len(a) != 1:
                bad.append('CPU %d switch %d at %d: %d slices of %d begin there' % (cpu, k, ts, len(a), nxt))
                break
            a = a[0]
            at_switch.add(id(a))
            end = ns(a['ts']) + ns(a['dur'])
            want_name = ncomm if ncomm not in ('', '<...>') else str(nxt)
            if mode == 'tracecmd' and a['name'] != want_name:
                bad.append('CPU %d switch %d at %d: slice named %r, not %r' % (cpu, k, ts, a['name'], want_name))
                break
            if k + 1 < len(sw):
                t1, prev1, d1 = sw[k + 1][0], sw[k + 1][1], sw[k + 1][5]
                if prev1 == nxt and d0 == d1:
                    ok = end == t1 and 'end_state' in a['args']
                else:
                    ok = end <= t1 and 'end_state' not in a['args']
                if not ok:
                    bad.append('CPU %d switch %d at %d: slice %r, next switch at %d of %d' % (cpu, k, ts, a, t1, prev1))
                    break
            elif d0 == drops.get(cpu, 0) and (end != last or 'end_state' in a['args']):
                bad.append('CPU %d last switch at %d: slice %r, not to the input\'s end %d' % (cpu, ts, a, last))
    # (on every CPU, those of switches or not: one thread at a time)
    for cpu, sl in sorted(slices.items()):
        spans = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in sl)
        for (a0, a1), (b0, _) in zip(spans, spans[1:]):
            if a1 > b0:
                bad.append('CPU %d: slices at %d and %d overlap' % (cpu, a0, b0))
                break
    result(not bad,
           '%s: %d scheduling slices on %d CPUs, one beginning at each of the %d switches, none overlapping%s'
           % (name, sum(len(v) for v in slices.values()), len(slices), nsw,
              '' if not bad else ': %r' % (bad[:3],)))
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
