#!/usr/bin/env python3
"""Compares ktrace sql's tables with what trace-cmd prints for the same trace.

  tracecmp.py counts NAME REPORT SQL
      REPORT: `trace-cmd report FILE`; SQL: `ktrace sql FILE 'select name, count(*)
      from event group by name'`. The count of every event name must be equal.
  tracecmp.py cputime NAME REPORT_T SQL
      REPORT_T: `trace-cmd report -t FILE`; the CPU time of every pid is the sum, per
      CPU, of the time from each sched_switch line to the next one on that CPU,
      given to the next_pid of the first. SQL: `select tid, sum(dur) ...` over the
      closed sched_slice rows.
  tracecmp.py states NAME REPORT_NT SQL
      REPORT_NT: `trace-cmd report -N -t FILE` (the kernel's print fmt: prev_state as
      "S", "R+"...); every closed slice (cpu, ts, dur) ends with the next switch's
      prev_state when that switch's prev_pid is the thread of the slice, else NULL (the
      CPU lost events in between). SQL: `select cpu, ts, dur, end_state from
      sched_slice where dur >= 0`.
  tracecmp.py slices NAME REPORT_NT SQL
      Every row of sched_slice, computed from the sched_switch lines of REPORT_NT alone
      (of the first buffer that has some: the top one, else an instance): on each CPU,
      each switch starts a slice of next_pid with priority next_prio; the next switch
      on that CPU ends it (dur: the time between them; end_state: that switch's
      prev_state when its prev_pid is the slice's thread, else NULL); the last one of
      each CPU is still open (dur -1, end_state NULL). SQL: `select s.cpu, s.ts, s.dur,
      t.tid, s.end_state, s.priority from sched_slice s join thread t using (utid)`.

Prints "ok - ..." or "not ok - ..." (with the first differences) lines.
"""
import re
import sys
from collections import Counter, defaultdict

LINE = re.compile(r'\[(\d{3,})\]\s*(\d+)(?:\.(\d+))?: ([^:\s]+):\s?(.*)$')


def records(path, nsec):
    """(cpu, ts_ns, name, text) of each record line of a trace-cmd report."""
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.search(line.rstrip('\n'))
            if not m:
                continue
            cpu, sec, frac, name, text = m.groups()
            if frac is None:          # a counter clock: the raw value
                ts = int(sec)
            elif nsec:
                ts = int(sec) * 10**9 + int(frac.ljust(9, '0'))
            else:
                ts = int(sec) * 10**6 + int(frac)
            yield int(cpu), ts, name, text


def sql_rows(path):
    with open(path) as f:
        lines = f.read().split('\n')
    return [l.split('\t') for l in lines[1:] if l]


def report(ok, name, diffs=()):
    if ok:
        print('ok - %s' % name)
    else:
        print('not ok - %s' % name)
        for d in list(diffs)[:8]:
            print('#   %s' % d)


def counts(name, rep, sql):
    theirs = Counter(r[2] for r in records(rep, False))
    ours = {r[0]: int(r[1]) for r in sql_rows(sql)}
    diffs = ['%s: trace-cmd %d, ktrace %d' % (k, theirs.get(k, 0), ours.get(k, 0))
             for k in sorted(set(theirs) | set(ours)) if theirs.get(k, 0) != ours.get(k, 0)]
    total = sum(theirs.values())
    report(total > 0 and not diffs,
           '%s: events per name as trace-cmd report (%d events, %d names)' % (name, total, len(theirs)),
           diffs)


SWITCH_NEXT = re.compile(r'==> .*:(-?\d+) \[-?\d+\]\s*$')
SWITCH_N = re.compile(r'prev_pid=(-?\d+) .*prev_state=(\S*) ==> .*next_pid=(-?\d+)')


def switch_fields(text):
    m = SWITCH_N.search(text)
    return (int(m.group(1)), m.group(2), int(m.group(3))) if m else None


def switches(rep, raw):
    """Per CPU, [(ts, next_pid, prev_state)] of the sched_switch lines."""
    per_cpu = defaultdict(list)
    for cpu, ts, name, text in records(rep, True):
        if name != 'sched_switch':
            continue
        if raw:
            f = switch_fields(text)
            if f:
                per_cpu[cpu].append((ts, f[2], (f[0], f[1])))
        else:
            m = SWITCH_NEXT.search(text)
            if m:
                per_cpu[cpu].append((ts, int(m.group(1)), None))
    return per_cpu


def cputime(name, rep, sql):
    theirs = Counter()
    nsw = 0
    for cpu, sw in switches(rep, False).items():
        nsw += len(sw)
        for (t0, pid, _), (t1, _, _) in zip(sw, sw[1:]):
            theirs[pid] += t1 - t0
    ours = {int(r[0]): int(r[1]) for r in sql_rows(sql)}
    theirs = {k: v for k, v in theirs.items()}
    diffs = ['pid %d: trace-cmd %d ns, ktrace %s ns' % (k, theirs.get(k, 0), ours.get(k))
             for k in sorted(set(theirs) | set(ours)) if theirs.get(k, 0) != ours.get(k, 0)]
    report(nsw > 1 and not diffs,
           '%s: CPU time of %d threads from %d sched_switch lines of trace-cmd report -t'
           % (name, len(theirs), nsw), diffs)


def states(name, rep, sql):
    theirs = []
    for cpu, sw in switches(rep, True).items():
        for (t0, pid, _), (t1, _, (prev, state)) in zip(sw, sw[1:]):
            theirs.append((cpu, t0, t1 - t0, state if prev == pid else ''))
    ours = [(int(r[0]), int(r[1]), int(r[2]), r[3]) for r in sql_rows(sql)]
    theirs.sort()
    ours.sort()
    kinds = Counter(t[3] or 'NULL' for t in theirs)
    diffs = []
    for a, b in zip(theirs, ours):
        if a != b:
            diffs.append('trace-cmd %s, ktrace %s' % (a, b))
    if len(theirs) != len(ours):
        diffs.append('%d slices from trace-cmd, %d from ktrace' % (len(theirs), len(ours)))
    report(theirs and not diffs,
           '%s: %d closed slices, end_state as trace-cmd report -N prints prev_state (%s)'
           % (name, len(theirs), ' '.join('%s:%d' % kv for kv in sorted(kinds.items()))), diffs)


SWITCH_ALL = re.compile(r'prev_comm=.* prev_pid=(-?\d+) prev_prio=(-?\d+) prev_state=(\S*) ==> '
                        r'next_comm=.* next_pid=(-?\d+) next_prio=(-?\d+)\s*$')
BUFFER = re.compile(r'^\s*(\S+): +\S.*-\d+\s+\[\d{3,}\]')


def slices(name, rep, sql):
    # the switches of each buffer (None: the top one), in the report's order
    per_buf = defaultdict(lambda: defaultdict(list))
    order = []
    with open(rep, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = LINE.search(line)
            if not m or m.group(4) != 'sched_switch':
                continue
            b = BUFFER.match(line)
            buf = b.group(1) if b else None
            s = SWITCH_ALL.search(m.group(5))
            if not s:
                print('#   %s: a sched_switch line that does not parse: %s' % (name, line))
                continue
            # (a counter clock prints its raw value, no fraction)
            ts = int(m.group(2)) if m.group(3) is None else \
                int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, '0'))
            if buf not in per_buf:
                order.append(buf)
            per_buf[buf][int(m.group(1))].append(
                (ts, int(s.group(1)), s.group(3), int(s.group(4)), int(s.group(5))))
    buf = None if None in per_buf else (order[0] if order else None)
    theirs = []
    for cpu, sw in per_buf[buf].items():
        for k, (ts, _, _, nxt, prio) in enumerate(sw):
            if k + 1 < len(sw):
                t1, prev1, state1 = sw[k + 1][0], sw[k + 1][1], sw[k + 1][2]
                theirs.append((cpu, ts, t1 - ts, nxt, state1 if prev1 == nxt else '', str(prio)))
            else:
                theirs.append((cpu, ts, -1, nxt, '', str(prio)))
    ours = [(int(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4], r[5]) for r in sql_rows(sql)]
    theirs.sort()
    ours.sort()
    diffs = ['trace-cmd %s, ktrace %s' % (a, b) for a, b in zip(theirs, ours) if a != b]
    if len(theirs) != len(ours):
        diffs.append('%d slices from trace-cmd, %d from ktrace' % (len(theirs), len(ours)))
    report(theirs and not diffs,
           '%s: sched_slice (cpu, ts, dur, tid, end_state, priority) as computed from the %d '
           'sched_switch lines of trace-cmd report -N -t (%d CPUs, their last slices open)'
           % (name, len(theirs), len(per_buf[buf])), diffs)


def main(argv):
    modes = {'counts': counts, 'cputime': cputime, 'states': states, 'slices': slices}
    if len(argv) != 4 or argv[0] not in modes:
        print(__doc__, file=sys.stderr)
        return 2
    modes[argv[0]](*argv[1:])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
