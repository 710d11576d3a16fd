#!/usr/bin/env python3
"""The intervals of the kernel's own work (docs/model.md, "The kernel's own work"),
computed from `trace-cmd report -t` text alone, against ktrace sql's slice rows.

  kernelcmp.py totals REPORT_T [syscalls]
      Prints the totals per handler, vector and syscall of those intervals:
      "CATEGORY NAME COUNT NS" lines (names with spaces have them as they are).
  kernelcmp.py REPORT_T SQL [syscalls]
      REPORT_T: `trace-cmd report -t FILE` of a one-buffer trace; SQL: `ktrace sql FILE
      "select category, name, ts, dur, coalesce(cpu, -1) from slice where category in
      ('irq', 'softirq', 'syscall')"`. With "syscalls", syscalls:sys_enter_NAME /
      sys_exit_NAME pairs are compared too (a trace without raw_syscalls); in totals,
      raw_syscalls sys_enter/sys_exit pairs are paired too, named "NR N" (a trace with
      one of the two kinds).

Buffers (trace.dat instances, their lines prefixed "NAME: "): each kind is read from the
top buffer when it has records of that kind, else from the first buffer whose lines
have them (as the text cannot always tell a line's buffer: trace-cmd prints some lines
of an instance without its name, the buffer with most lines of the kind); each buffer
has its own completeness. Completeness: each CPU from its first
record; a lost-events line of a CPU opens a gap from that CPU's previous record to its
next one. An IRQ or softirq still open when a gap
of its CPU begins is dropped; a syscall still open when a gap of any CPU begins is
dropped, and one is only opened where every CPU is complete.
"""
import re
import sys
from collections import Counter

LINE = re.compile(r'-(\d+)\s+\[(\d+)\]\s*(\d+)(?:\.(\d+))?: ([^:\s]+):\s*(.*)$')
DROP = re.compile(r'^\s*CPU:(\d+) \[(?:\d+ )?EVENTS DROPPED\]')
INSTANCE = re.compile(r'^\s*(\S+): +(?=\S.*-\d+\s+\[|CPU:)')
VEC = ['HI', 'TIMER', 'NET_TX', 'NET_RX', 'BLOCK', 'IRQ_POLL', 'TASKLET', 'SCHED', 'HRTIMER', 'RCU']


KIND = {'irq_handler_entry': 'irq', 'irq_handler_exit': 'irq', 'softirq_entry': 'softirq',
        'softirq_exit': 'softirq', 'sys_enter': 'syscall', 'sys_exit': 'syscall'}


def kind_of(name):
    if name.startswith(('sys_enter_', 'sys_exit_')):
        return 'syscall'
    return KIND.get(name)


def parse(path):
    """Per buffer (None: the top one), its lines: ('drop', cpu) and ('rec', ...)."""
    bufs = {}
    with open(path, errors='replace') as f:
        for line in f:
            b = INSTANCE.match(line)
            buf = b.group(1) if b else None
            if b:
                line = line[b.end():]
            out = bufs.setdefault(buf, [])
            d = DROP.match(line)
            if d:
                out.append(('drop', int(d.group(1))))
                continue
            m = LINE.search(line.rstrip('\n'))
            if m:
                # (a counter clock prints its raw value, no fraction)
                ts = int(m.group(3)) if m.group(4) is None else \
                    int(m.group(3)) * 10**9 + int(m.group(4).ljust(9, '0'))
                out.append(('rec', int(m.group(2)), ts, int(m.group(1)), m.group(5), m.group(6)))
    return bufs


def completeness(lines):
    first, last, pending, gaps = {}, {}, set(), []
    for l in lines:
        if l[0] == 'drop':
            pending.add(l[1])
            continue
        _, cpu, ts = l[:3]
        if cpu in pending and cpu in last:
            gaps.append((last[cpu], ts, cpu))
        pending.discard(cpu)
        first.setdefault(cpu, ts)
        last[cpu] = ts
    for cpu in pending:
        if cpu in last:
            gaps.append((last[cpu], float('inf'), cpu))
    return (max(first.values()) if first else 0), sorted(gaps)


def intervals(rep, with_syscalls):
    bufs = parse(rep)
    # (trace-cmd prints a few lines of an instance without its name, so a kind is the
    # buffer's that has most of its lines; the top one's when it has some, by the rule)
    count = Counter((kind_of(l[4]), buf) for buf, ls in bufs.items() for l in ls
                    if l[0] == 'rec' and kind_of(l[4]))
    owner = {}
    for (kind, buf), n in sorted(count.items(), key=lambda kv: (-kv[1], kv[0][1] is not None)):
        owner.setdefault(kind, buf)
    theirs, ngaps = [], 0
    for buf, lines in bufs.items():
        kinds = {k for k, b in owner.items() if b == buf}
        if kinds:
            t, g = buffer_intervals(lines, kinds, with_syscalls)
            theirs += t
            ngaps += len(g)
    return theirs, ngaps


def buffer_intervals(lines, kinds, with_syscalls):
    start, gaps = completeness(lines)
    gi, until = 0, 0
    irq, sirq, sysc = {}, {}, {}
    theirs = []
    for l in lines:
        if l[0] == 'drop':
            continue
        _, cpu, ts, pid, name, text = l
        while gi < len(gaps) and gaps[gi][0] < ts:
            p, n, c = gaps[gi]
            irq.pop(c, None)
            sirq.pop(c, None)
            sysc.clear()
            until = max(until, n)
            gi += 1
        complete = ts >= start and ts >= until
        if kind_of(name) not in kinds:
            continue
        if name == 'irq_handler_entry':
            m = re.search(r'irq=(\d+) name=(\S+)', text)
            irq[cpu] = (int(m.group(1)), m.group(2), ts)
        elif name == 'irq_handler_exit':
            m = re.search(r'irq=(\d+)', text)
            o = irq.get(cpu)
            if o and o[0] == int(m.group(1)):
                theirs.append(('irq', o[1], o[2], ts - o[2], cpu))
                del irq[cpu]
        elif name in ('softirq_entry', 'softirq_exit'):
            v = int(re.search(r'vec=(\d+)', text).group(1))
            if name == 'softirq_entry':
                sirq[cpu] = (v, ts)
            else:
                o = sirq.get(cpu)
                if o and o[0] == v:
                    theirs.append(('softirq', VEC[v] if v < len(VEC) else 'vec %d' % v, o[1], ts - o[1], cpu))
                    del sirq[cpu]
        elif with_syscalls and (name.startswith('sys_enter_') or name == 'sys_enter') and pid > 0:
            if name == 'sys_enter':         # raw_syscalls: by number
                sc = 'NR ' + re.search(r'NR (-?\d+)', text).group(1)
            else:
                sc = name[10:]
            if complete:
                sysc[pid] = (sc, ts, cpu)
            else:
                sysc.pop(pid, None)
        elif with_syscalls and (name.startswith('sys_exit_') or name == 'sys_exit') and pid > 0:
            o = sysc.get(pid)
            sc = 'NR ' + re.search(r'NR (-?\d+)', text).group(1) if name == 'sys_exit' else name[9:]
            if o and o[0] == sc:
                theirs.append(('syscall', o[0], o[1], ts - o[1], o[2]))
                del sysc[pid]
    return theirs, gaps


def totals(rep, with_syscalls):
    theirs, _ = intervals(rep, with_syscalls)
    tot = {}
    for c, n, ts, dur, cpu in theirs:
        k = tot.setdefault((c, n), [0, 0])
        k[0] += 1
        k[1] += dur
    for (c, n), (cnt, ns) in sorted(tot.items()):
        print('%s %s %d %d' % (c, n, cnt, ns))


def main(rep, sql, with_syscalls):
    theirs, ngaps = intervals(rep, with_syscalls)
    ours = []
    with open(sql) as f:
        for l in f.read().split('\n')[1:]:
            if l:
                c, n, ts, dur, cpu = l.split('\t')
                if c == 'syscall' and not with_syscalls:
                    continue
                ours.append((c, n, int(ts), int(dur), int(cpu)))
    a, b = Counter(theirs), Counter(ours)
    diffs = ['trace-cmd only: %s' % (k,) for k in sorted(a - b)][:4] + \
            ['ktrace only: %s' % (k,) for k in sorted(b - a)][:4]
    kinds = Counter(t[0] for t in theirs)
    name = 'IRQ, softirq%s intervals as paired from trace-cmd report -t (%s; %d gaps)' % (
        ', syscall' if with_syscalls else '', ' '.join('%s:%d' % kv for kv in sorted(kinds.items())), ngaps)
    if theirs and not diffs:
        print('ok - ' + name)
    else:
        print('not ok - ' + name)
        for d in diffs:
            print('#   ' + d)


if __name__ == '__main__':
    if len(sys.argv) in (3, 4) and sys.argv[1] == 'totals':
        totals(sys.argv[2], len(sys.argv) == 4)
    elif len(sys.argv) in (3, 4):
        main(sys.argv[1], sys.argv[2], len(sys.argv) == 4)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
