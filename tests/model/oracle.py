#!/usr/bin/env python3
"""The model's wakeup latencies and CPU time per thread, computed again from
`trace-cmd report -N -t` text with the rules of docs/model.md (written from that page
alone, not from ktrace's code or output), and compared with ktrace's tables.

  oracle.py show REPORT
      Prints what the oracle finds: the CPUs' first records and gaps, the complete
      time, then one line per wakeup latency ("lat TID TS DUR CPU WAKER") and per
      thread's CPU time ("cpu TID NS", closed slices only, idle excluded), and per
      thread running at the end the time of that slice still open up to the last
      record ("open TID NS"; summary's CPU time is both).
  oracle.py selftest SCRATCH_FILE
      Checks the oracle itself on reports written by hand (SELFTEST below).
  oracle.py compare NAME REPORT LAT_SQL CPU_SQL [uneven MS | lost | quiet]
      LAT_SQL: `ktrace sql FILE 'select dur from wakeup_latency'` (tab-separated, a
      header line); CPU_SQL: `select tid, sum(dur)` over the closed sched_slice rows by
      tid (tid 0 left out). Prints "ok - ..." / "not ok - ..." lines: the latency
      count within 1%, nearest-rank p50, p99 and max within 1%, the CPU time of the
      oracle's 10 busiest threads each within 1%; and, with a last argument, that the
      trace has what it was recorded for (CPUs' first records at least MS ms apart;
      lost-event marks; no lost-event marks).

The report must come from one buffer (a trace.dat without instances): the lines of
an instance carry its name, and trace-cmd prints a lost-events mark with the name of
the previous line's buffer, so a mark's buffer cannot be told apart.

Reading of the rules (docs/model.md):
- Records in the report's order (by time; trace-cmd's order for equal times).
- Each CPU's data is complete from its first record on. A mark "CPU:c [N EVENTS
  DROPPED]" before c's next record N, after its previous record P, is the gap (P, N);
  one before c's first record is none.
- Threads are tids, but tid 0 is one idle thread per CPU.
- Every record is evidence that its thread (sched_switch: prev_pid) runs on its CPU,
  except the records of the thread a switch on that CPU just switched out that come
  before any other record there (the switch's own: a stack trace...); a second switch
  of that thread out is evidence, and so is an interrupt's record (irq_handler_entry
  and _exit, softirq_entry and _exit, hrtimer_expire_entry and _exit).
  When the CPU's believed thread y is another (or none), y's slice ends at y's last
  record on that CPU (end_state unknown), y and the record's thread lose their states
  (a pending wakeup is no latency), and the record's thread runs from the record on;
  if it was believed running on another CPU, that CPU's slice of it ends at its last
  record there.
- sched_switch: prev's slice ends (closed); prev enters prev_state ("R", "R+" are
  runnable; any other state is not); next runs from the switch; if next was woken
  (state R after a wakeup) the wait is a latency when every CPU is complete over it.
- Wakeups (sched_waking, sched_wakeup, sched_wakeup_new) of a thread that is not
  running nor runnable (R after a wakeup, or switched out R/R+) make it R; tid 0 never.
- A state other than running that starts where some CPU is not complete is "?".
- Gap (P, N) on CPU c: after the records at P, c's running thread's slice ends at P
  (closed, end_state unknown) and every thread not running becomes "?".
- Slices still open at the end are not CPU time in the tables (dur -1); the summary
  counts them up to the trace's last record (the thread ran until then).
"""
import bisect
import math
import re
import sys
from collections import defaultdict

REC = re.compile(r'^\s*(.*?)-(-?\d+)\s+\[(\d{3,})\]\s+(\d+)(?:\.(\d+))?:\s+([^:\s]+):\s?(.*)$')
LOST = re.compile(r'^\s*CPU:(\d+) \[(?:(\d+) )?EVENTS DROPPED\]\s*$')
INSTANCE = re.compile(r'^(\S+): .*-\d+\s+\[\d{3,}\]\s+\d')
SWITCH = re.compile(r'prev_pid=(-?\d+) prev_prio=-?\d+ prev_state=(\S*) ==> '
                    r'next_comm=.* next_pid=(-?\d+) next_prio=-?\d+\s*$')
WAKE = re.compile(r'^.* pid=(-?\d+) prio=-?\d+(?: success=\d+)? target_cpu=(\d+)\s*$')
WAKEUPS = ('sched_waking', 'sched_wakeup', 'sched_wakeup_new')
INTERRUPTS = ('irq_handler_entry', 'irq_handler_exit', 'softirq_entry', 'softirq_exit',
              'hrtimer_expire_entry', 'hrtimer_expire_exit')


class Trace:
    """The report's records and lost-event marks."""

    def __init__(self, path):
        self.recs = []       # (ts, cpu, pid, event, text)
        self.marks = []      # (index of the next record in recs, cpu, count or None)
        self.lost = 0        # events the marks count
        with open(path, errors='replace') as f:
            for line in f:
                line = line.rstrip('\n')
                m = LOST.match(line)
                if m:
                    self.marks.append((len(self.recs), int(m.group(1)),
                                       int(m.group(2)) if m.group(2) else None))
                    self.lost += int(m.group(2) or 0)
                    continue
                if INSTANCE.match(line):
                    raise SystemExit('oracle.py: %s: a trace with instances (%s)'
                                     % (path, line[:60]))
                m = REC.match(line)
                if not m:
                    continue
                comm, pid, cpu, sec, frac, event, text = m.groups()
                ts = int(sec) * 10**9 + int(frac.ljust(9, '0')) if frac else int(sec)
                self.recs.append((ts, int(cpu), int(pid), event, text))


class Model:
    def __init__(self, tr):
        self.tr = tr
        recs = tr.recs
        # ---- completeness: first record and gaps (P, N) of each CPU
        self.first = {}
        prev_on = {}                 # cpu -> ts of its latest record before index i
        nxt = {}                     # (index, cpu) -> ts of cpu's next record at or after index
        by_cpu = defaultdict(list)   # cpu -> [(index, ts)]
        for i, (ts, cpu, _, _, _) in enumerate(recs):
            by_cpu[cpu].append((i, ts))
            self.first.setdefault(cpu, ts)
        self.end = max((r[0] for r in recs), default=0)
        self.gaps = defaultdict(list)      # cpu -> [(P, N)] sorted
        self.gap_starts = defaultdict(list)  # P -> [cpu]
        for idx, cpu, _ in tr.marks:
            lst = by_cpu.get(cpu, [])
            k = bisect.bisect_left(lst, (idx, -1))
            if k == 0:
                continue                 # before the CPU's first record: no gap
            p = lst[k - 1][1]
            n = lst[k][1] if k < len(lst) else self.end
            if self.gaps[cpu] and self.gaps[cpu][-1][0] == p:
                continue                 # two marks between the same records
            self.gaps[cpu].append((p, n))
        for cpu in self.gaps:
            self.gaps[cpu].sort()
            for p, _ in self.gaps[cpu]:
                self.gap_starts[p].append(cpu)
        self.gap_p = {c: [g[0] for g in gs] for c, gs in self.gaps.items()}
        self.complete_from = max(self.first.values(), default=0)

    # ---- completeness predicates
    def cpu_complete(self, c, a, b):
        if a < self.first[c]:
            return False
        ps = self.gap_p.get(c)
        if not ps:
            return True
        if a == b:   # a point: not inside an open gap
            k = bisect.bisect_left(ps, a) - 1      # last gap with P < a
            return k < 0 or self.gaps[c][k][1] <= a
        k = bisect.bisect_left(ps, b) - 1          # last gap with P < b
        return k < 0 or self.gaps[c][k][1] <= a

    def all_complete(self, a, b):
        return all(self.cpu_complete(c, a, b) for c in self.first)

    # ---- the state machine
    def run(self):
        cur = {}        # cpu -> thread key believed running there
        just_out = {}   # cpu -> the thread a switch there just switched out
        start = {}      # cpu -> ts its slice began
        last = {}       # cpu -> ts of the running thread's last record there
        on_cpu = {}     # thread key -> cpu it runs on
        # thread key -> ('R', ts, waker) after a wakeup; ('Rp',) switched out runnable;
        # ('S',) any other state it was switched out in; absent or ('?',): unknown
        state = {}
        self.cputime = defaultdict(int)
        self.latencies = []     # (tid, ts, dur, cpu, waker)
        self.slices = 0

        def key(pid, cpu):
            return ('idle', cpu) if pid == 0 else pid

        def end_slice(c, t):
            x = cur.pop(c)
            del on_cpu[x]
            if not isinstance(x, tuple):       # idle threads have no CPU time here
                self.cputime[x] += t - start[c]
            self.slices += 1
            return x

        def start_slice(c, x, t):
            cur[c] = x
            start[c] = last[c] = t
            on_cpu[x] = c
            state.pop(x, None)

        def evidence(c, x, t):
            if cur.get(c) == x:
                last[c] = t
                return
            if c in cur:                       # y: its switch out was not recorded
                y = end_slice(c, last[c])
                state.pop(y, None)
            if x in on_cpu:                    # x left another CPU unrecorded
                end_slice(on_cpu[x], last[on_cpu[x]])
            state.pop(x, None)                 # since its last change: unknown
            start_slice(c, x, t)

        recs = self.tr.recs
        i = 0
        while i < len(recs):
            t = recs[i][0]
            j = i
            while j < len(recs) and recs[j][0] == t:
                ts, c, pid, event, text = recs[j]
                j += 1
                if event == 'sched_switch':
                    m = SWITCH.search(text)
                    if not m:
                        raise SystemExit('oracle.py: a sched_switch that does not parse: %s' % text)
                    prev, pstate, nxt = int(m.group(1)), m.group(2), int(m.group(3))
                    p = key(prev, c)
                    evidence(c, p, t)
                    just_out[c] = p
                    end_slice(c, t)
                    if self.all_complete(t, t):
                        state[p] = ('Rp',) if pstate.startswith('R') else ('S',)
                    n = key(nxt, c)
                    if n in on_cpu:
                        end_slice(on_cpu[n], last[on_cpu[n]])
                    s = state.get(n)
                    if s and s[0] == 'R' and self.all_complete(s[1], t):
                        self.latencies.append((nxt, s[1], t - s[1], c, s[2]))
                    start_slice(c, n, t)
                    continue
                x = key(pid, c)
                if just_out.get(c) != x or event in INTERRUPTS:
                    just_out.pop(c, None)
                    evidence(c, x, t)
                # else: the switch's own record (its stack trace...), no evidence
                if event in WAKEUPS:
                    m = WAKE.match(text)
                    if not m:
                        raise SystemExit('oracle.py: a %s that does not parse: %s' % (event, text))
                    v = int(m.group(1))
                    if v == 0 or v in on_cpu or state.get(v, ('?',))[0] in ('R', 'Rp'):
                        continue
                    if self.all_complete(t, t):
                        state[v] = ('R', t, pid)
                    else:
                        state.pop(v, None)
            # gaps that start after the records at t
            for c in self.gap_starts.get(t, ()):
                if c in cur:
                    end_slice(c, t)
                state.clear()      # every thread not running becomes unknown
            i = j
        # still running at the end: until the last record
        self.opentime = defaultdict(int)
        for c, x in cur.items():
            if not isinstance(x, tuple) and recs:
                self.opentime[x] += recs[-1][0] - start[c]


def show(rep):
    tr = Trace(rep)
    m = Model(tr)
    m.run()
    for c in sorted(m.first):
        print('# cpu %d: first record %d, %d gaps' % (c, m.first[c], len(m.gaps.get(c, ()))))
        for p, n in m.gaps.get(c, ()):
            print('#   gap (%d, %d) %.3f ms' % (p, n, (n - p) / 1e6))
    print('# complete from %d; %d records, %d marks (%d events counted)'
          % (m.complete_from, len(tr.recs), len(tr.marks), tr.lost))
    for lat in sorted(m.latencies, key=lambda l: l[1]):
        print('lat %d %d %d %d %d' % lat)
    for tid, ns in sorted(m.cputime.items(), key=lambda kv: -kv[1]):
        print('cpu %d %d' % (tid, ns))
    for tid, ns in sorted(m.opentime.items()):
        print('open %d %d' % (tid, ns))


def sql_rows(path):
    with open(path) as f:
        lines = f.read().split('\n')
    return [l.split('\t') for l in lines[1:] if l]


def rank(sorted_list, p):
    """nearest-rank percentile"""
    return sorted_list[max(0, math.ceil(p / 100 * len(sorted_list)) - 1)]


def close(a, b):
    return abs(a - b) <= 0.01 * abs(a)


def verdict(ok, name, notes=()):
    print('%s - %s' % ('ok' if ok else 'not ok', name))
    if not ok:
        for n in list(notes)[:10]:
            print('#   %s' % n)


def compare(name, rep, lat_sql, cpu_sql, *expect):
    tr = Trace(rep)
    m = Model(tr)
    m.run()
    ours = sorted(l[2] for l in m.latencies)
    theirs = sorted(int(r[0]) for r in sql_rows(lat_sql))
    verdict((len(theirs) == 0 if not ours else close(len(ours), len(theirs))),
            '%s: wakeup latency count: oracle %d, ktrace %d' % (name, len(ours), len(theirs)))
    for label, p in (('p50', 50), ('p99', 99), ('max', 100)):
        if not ours or not theirs:
            verdict(not ours and not theirs,
                    '%s: wakeup latency %s: oracle %s, ktrace %s (no latencies)'
                    % (name, label, 'none' if not ours else rank(ours, p),
                       'none' if not theirs else rank(theirs, p)))
            continue
        a, b = rank(ours, p), rank(theirs, p)
        notes = []
        if not close(a, b):
            big = sorted(m.latencies, key=lambda l: -l[2])[:5]
            notes = ['oracle\'s longest: tid %d at %d waited %d ns (cpu %d, waker %d)' % (
                l[0], l[1], l[2], l[3], l[4]) for l in big]
        verdict(close(a, b), '%s: wakeup latency %s: oracle %d ns, ktrace %d ns' % (name, label, a, b),
                notes)
    kt = defaultdict(int)
    for r in sql_rows(cpu_sql):
        kt[int(r[0])] += int(r[1])
    top = sorted(((ns, tid) for tid, ns in m.cputime.items() if isinstance(tid, int)),
                 reverse=True)[:10]
    bad = ['tid %d: oracle %d ns, ktrace %d ns' % (tid, ns, kt.get(tid, 0))
           for ns, tid in top if not close(ns, kt.get(tid, 0))]
    verdict(top and not bad, '%s: CPU time of the oracle\'s %d busiest threads (%s ms)'
            % (name, len(top), ' '.join('%d:%.3f' % (tid, ns / 1e6) for ns, tid in top)), bad)
    if expect:
        spread = (max(m.first.values()) - min(m.first.values())) / 1e6 if m.first else 0
        ngaps = sum(len(g) for g in m.gaps.values())
        if expect[0] == 'uneven':
            verdict(spread >= float(expect[1]),
                    '%s: the CPUs\' first records are %.3f ms apart (at least %s ms)'
                    % (name, spread, expect[1]))
        elif expect[0] == 'lost':
            verdict(ngaps > 0 and len(tr.recs) > 0,
                    '%s: %d lost-event marks, %d gaps after a CPU\'s first record (%d events counted)'
                    % (name, len(tr.marks), ngaps, tr.lost))
        elif expect[0] == 'quiet':
            verdict(not tr.marks and len(m.first) > 1 and ours,
                    '%s: no lost-event marks on %d CPUs, %d latencies'
                    % (name, len(m.first), len(ours)))


def sw(cpu, t, prev, pstate, nxt):
    return ('%16s-%-5d [%03d] %s: sched_switch:         prev_comm=t%d prev_pid=%d prev_prio=120 '
            'prev_state=%s ==> next_comm=t%d next_pid=%d next_prio=120'
            % ('t%d' % prev, prev, cpu, t, prev, prev, pstate, nxt, nxt))


def wk(cpu, t, pid, woken, event='sched_waking'):
    return ('%16s-%-5d [%03d] %s: %-20s comm=t%d pid=%d prio=120 target_cpu=%03d'
            % ('t%d' % pid, pid, cpu, t, event + ':', woken, woken, cpu))


def rec(cpu, t, pid, event='sys_enter'):
    return '%16s-%-5d [%03d] %s: %-20s NR 0 (0, 0, 0, 0, 0, 0)' % ('t%d' % pid, pid, cpu, t, event + ':')


# Reports written by hand, with the latencies (tid, ts, dur) and CPU times (tid: ns)
# that docs/model.md's rules give them, worked out by hand (in the comments).
SELFTEST = [
    ('uneven starts', [
        wk(0, '1.000000000', 10, 20),        # before CPU 1's first record: b is ?
        sw(0, '1.500000000', 10, 'S', 20),   # a ran 1.0-1.5 (its record at 1.0); a ?
        rec(1, '2.000000000', 30),           # complete from here on
        wk(0, '2.100000000', 20, 10),        # a R
        sw(0, '2.300000000', 20, 'S', 10),   # a waited 0.2 s; b ran 1.5-2.3
        rec(0, '3.000000000', 10),
    ], [(10, 2100000000, 200000000)], {10: 500000000, 20: 800000000}),
    ('a gap', [
        sw(0, '1.000000000', 10, 'S', 20),   # b runs on 0 from 1.0
        rec(1, '1.000000000', 30),           # c runs on 1 from 1.0
        wk(0, '1.100000000', 20, 40),        # d R
        sw(0, '1.150000000', 20, 'S', 40),   # d waited 0.05 s; b ran 0.15 s
        wk(1, '1.200000000', 30, 10),        # a R, then the gap (1.2, 1.6) on CPU 1 makes it ?
        'CPU:1 [5 EVENTS DROPPED]',          # c ran 1.0-1.2
        rec(1, '1.600000000', 30, 'sys_exit'),
        wk(1, '1.650000000', 30, 50),        # e R
        sw(0, '1.700000000', 40, 'S', 10),   # a: no latency (?); d ran 1.15-1.7
        wk(1, '1.800000000', 30, 20),        # b R (? since the gap)
        sw(0, '1.900000000', 10, 'R+', 20),  # b waited 0.1 s; a ran 0.2 s
        sw(1, '2.000000000', 30, 'S', 50),   # e waited 0.35 s; c ran 1.6-2.0
        rec(0, '2.100000000', 20),
    ], [(40, 1100000000, 50000000), (20, 1800000000, 100000000), (50, 1650000000, 350000000)],
        {20: 150000000, 40: 550000000, 30: 600000000, 10: 200000000}),
    ('records as evidence', [
        rec(0, '1.000000000', 10),           # a runs on 0
        rec(1, '1.000000000', 0, 'irq_handler_entry'),  # idle on 1
        wk(0, '1.100000000', 10, 50),        # e R
        rec(1, '1.200000000', 50, 'sys_exit'),  # e seen running: its switch-in was lost
        sw(1, '1.300000000', 50, 'S', 0),    # e ran 1.2-1.3
        wk(0, '1.400000000', 10, 50),        # e R
        sw(0, '1.500000000', 10, 'R+', 50),  # e waited 0.1 s; a ran 1.0-1.5, preempted
        wk(0, '1.600000000', 50, 10),        # a is runnable: nothing
        sw(0, '1.700000000', 50, 'S', 10),   # a: no latency; e ran 1.5-1.7
        rec(1, '1.800000000', 10),           # a seen on CPU 1: CPU 0 loses it at 1.7
        sw(1, '2.000000000', 10, 'S', 0),    # a ran 1.8-2.0
        rec(0, '2.100000000', 0),
    ], [(50, 1400000000, 100000000)], {10: 700000000, 50: 300000000}),
    ('the switch\'s own records', [
        sw(0, '1.000000000', 10, 'R', 20),   # b runs from 1.0
        rec(1, '1.000000000', 30),
        rec(0, '1.000010000', 10, 'kernel_stack'),  # a's, the switch's own: no evidence
        rec(0, '1.500000000', 20),
        sw(0, '2.000000000', 20, 'S', 10),   # b ran 1.0-2.0
        rec(0, '2.100000000', 20),           # the switch's own
        rec(0, '2.200000000', 10),           # a
        rec(0, '2.300000000', 20),           # b again: evidence; a ran 2.0-2.2
        wk(1, '2.400000000', 30, 40),        # d R
        sw(0, '2.500000000', 20, 'S', 40),   # b ran 2.3-2.5; d waited 0.1 s
        sw(0, '2.600000000', 40, 'S', 0),    # d ran 0.1 s
        sw(0, '2.700000000', 40, 'S', 0),    # a second switch out of d: evidence, 0 s
        rec(1, '2.800000000', 30),
    ], [(40, 2400000000, 100000000)], {20: 1200000000, 10: 200000000, 40: 100000000}),
]


def selftest(tmp):
    for name, lines, lats, cpu in SELFTEST:
        with open(tmp, 'w') as f:
            f.write('cpus=2\n' + '\n'.join(lines) + '\n')
        m = Model(Trace(tmp))
        m.run()
        got_lats = sorted((l[0], l[1], l[2]) for l in m.latencies)
        got_cpu = {k: v for k, v in m.cputime.items() if v}
        verdict(got_lats == sorted(lats) and got_cpu == cpu,
                'oracle on a report written by hand: %s' % name,
                ['latencies %s, expected %s' % (got_lats, sorted(lats)),
                 'CPU time %s, expected %s' % (sorted(got_cpu.items()), sorted(cpu.items()))])


def main(argv):
    if len(argv) == 2 and argv[0] == 'show':
        show(argv[1])
    elif len(argv) == 2 and argv[0] == 'selftest':
        selftest(argv[1])
    elif len(argv) >= 5 and argv[0] == 'compare':
        compare(*argv[1:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
