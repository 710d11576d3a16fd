#!/usr/bin/env python3
"""Compares ktrace sql's tables with what trace-cmd prints for the same trace.

  tracecmp.py counts NAME REPORT SQL
      REPORT: `trace-cmd report FILE`; SQL: `ktrace sql FILE 'select name, count(*)
      from event group by name'`. The count of every event name must be equal.
  tracecmp.py cputime NAME REPORT_NT SQL
      REPORT_NT: `trace-cmd report -N -t FILE`; the CPU time of every pid over the
      slices both of whose switches were recorded: per CPU, the time from each
      sched_switch line to the next one on that CPU when the next one switches out the
      thread the first switched in. SQL: `select cpu, ts, dur, tid` of the closed
      sched_slice rows; of them, those that begin at a switch and end at the next one
      (docs/model.md: the others begin or end where the model saw a switch missing).
  tracecmp.py states NAME REPORT_NT SQL
      REPORT_NT: `trace-cmd report -N -t FILE` (the kernel's print fmt: prev_state as
      "S", "R+"...); every closed slice (cpu, ts, dur) ends with the next switch's
      prev_state when that switch's prev_pid is the thread of the slice, else NULL (the
      CPU lost events in between). SQL: `select cpu, ts, dur, end_state from
      sched_slice where dur >= 0`.
  tracecmp.py slices NAME REPORT_NT SQL
      The rows of sched_slice that switches begin, computed from the sched_switch
      lines of REPORT_NT alone (of the first buffer that has some: the top one, else an
      instance): on each CPU, each switch starts a slice of next_pid with priority
      next_prio. When the next switch on that CPU switches that thread out, it ends
      the slice (dur: the time between them; end_state: its prev_state); when it
      switches out another thread, a switch was not recorded and the slice ends
      earlier with end_state NULL (docs/model.md, rule 3); the last one of each CPU is
      still open (dur -1, end_state NULL) unless the model saw it end. Every switch
      has its row; the other rows (slices the model began from a thread's records)
      never overlap them. SQL: `select s.cpu, s.ts, s.dur, t.tid, s.end_state,
      s.priority from sched_slice s join thread t using (utid)`.

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


DROPPED = re.compile(r'^CPU:(\d+) \[(?:\d+ )?EVENTS DROPPED\]')


def drop_marks(rep):
    """Per CPU, how many lost-events lines come before each line (by line number)."""
    marks = defaultdict(int)
    with open(rep, errors='replace') as f:
        for line in f:
            m = DROPPED.match(line)
            if m:
                marks[int(m.group(1))] += 1
            yield dict(marks), line


def switches(rep, raw):
    """Per CPU, [(ts, next_pid, prev_state, lost marks of the CPU before it)] of the
    sched_switch lines."""
    per_cpu = defaultdict(list)
    for marks, line in drop_marks(rep):
        m = LINE.search(line.rstrip('\n'))
        if not m or m.group(4) != 'sched_switch':
            continue
        cpu, text = int(m.group(1)), m.group(5)
        ts = int(m.group(2)) if m.group(3) is None else \
            int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, '0'))
        if raw:
            f = switch_fields(text)
            if f:
                per_cpu[cpu].append((ts, f[2], (f[0], f[1]), marks.get(cpu, 0)))
        else:
            m = SWITCH_NEXT.search(text)
            if m:
                per_cpu[cpu].append((ts, int(m.group(1)), None, marks.get(cpu, 0)))
    return per_cpu


def cputime(name, rep, sql):
    theirs = Counter()
    nsw = 0
    starts = set()
    for cpu, sw in switches(rep, True).items():
        nsw += len(sw)
        for (t0, pid, _, d0), (t1, _, (prev, _), d1) in zip(sw, sw[1:]):
            # (a slice across lost events ends where they begin: tests/model/)
            if prev == pid and d0 == d1:
                starts.add((cpu, t0, pid))
                theirs[pid] += t1 - t0
    ours = Counter()
    for r in sql_rows(sql):
        cpu, ts, dur, tid, end_state = int(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4]
        if (cpu, ts, tid) in starts and end_state:
            ours[tid] += dur
    diffs = ['pid %d: trace-cmd %d ns, ktrace %s ns' % (k, theirs.get(k, 0), ours.get(k, 0))
             for k in sorted(set(theirs) | set(ours)) if theirs.get(k, 0) != ours.get(k, 0)]
    report(nsw > 1 and not diffs,
           '%s: CPU time of %d threads between recorded switches, from %d sched_switch '
           'lines of trace-cmd report -N -t' % (name, len(theirs), nsw), diffs)


def states(name, rep, sql):
    theirs = []
    for cpu, sw in switches(rep, True).items():
        for (t0, pid, _, _), (t1, _, (prev, state), _) in zip(sw, sw[1:]):
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
    for marks, line in drop_marks(rep):
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
            (ts, int(s.group(1)), s.group(3), int(s.group(4)), int(s.group(5)),
             marks.get(int(m.group(1)), 0)))
    buf = None if None in per_buf else (order[0] if order else None)
    theirs = {}
    for cpu, sw in per_buf[buf].items():
        for k, (ts, _, _, nxt, prio, d0) in enumerate(sw):
            if k + 1 < len(sw):
                t1, prev1, state1, d1 = sw[k + 1][0], sw[k + 1][1], sw[k + 1][2], sw[k + 1][5]
                # (a thread switched out unseen, or events lost: the slice ends earlier,
                # with its end state unknown)
                end = (t1 - ts, state1) if prev1 == nxt and d0 == d1 else (None, t1 - ts)
            else:
                end = (None, None)
            theirs[(cpu, ts, nxt)] = (end, str(prio))
    ours = [(int(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4], r[5]) for r in sql_rows(sql)]
    diffs = []
    found = set()
    by_cpu = defaultdict(list)
    for cpu, ts, dur, tid, end_state, prio in ours:
        by_cpu[cpu].append((ts, dur))
        want = theirs.get((cpu, ts, tid))
        if want is None:
            continue
        found.add((cpu, ts, tid))
        (dur_or_none, state_or_max), wprio = want
        if prio != wprio:
            diffs.append('cpu %d ts %d tid %d: priority %s, trace-cmd %s' % (cpu, ts, tid, prio, wprio))
        if dur_or_none is not None:
            if (dur, end_state) != (dur_or_none, state_or_max):
                diffs.append('cpu %d ts %d tid %d: (%d, %r), trace-cmd (%d, %r)'
                             % (cpu, ts, tid, dur, end_state, dur_or_none, state_or_max))
        elif end_state or (state_or_max is not None and not (0 <= dur < state_or_max) and dur != 0):
            diffs.append('cpu %d ts %d tid %d: (%d, %r), a switch is missing before %s'
                         % (cpu, ts, tid, dur, end_state, state_or_max))
    missing = set(theirs) - found
    diffs += ['no row for the switch to %d on cpu %d at %d' % (k[2], k[0], k[1]) for k in sorted(missing)]
    for cpu, rows in by_cpu.items():
        rows.sort()
        for (t0, d0), (t1, _) in zip(rows, rows[1:]):
            if d0 >= 0 and t0 + d0 > t1:
                diffs.append('cpu %d: slices at %d and %d overlap' % (cpu, t0, t1))
    report(theirs and not diffs,
           '%s: sched_slice (cpu, ts, dur, tid, end_state, priority) of the %d switches of '
           'trace-cmd report -N -t, the others not overlapping them (%d CPUs)'
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
