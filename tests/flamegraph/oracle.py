#!/usr/bin/env python3
"""The off-CPU weights of a trace computed again from `trace-cmd report -t` text, from
docs/flamegraph.md and docs/model.md, without ktrace: for the flame graph test
(tests/flamegraph/flamegraph.sh).

    oracle.py folded REPORT.txt          prints the oracle's folded lines (tid keyed)
    oracle.py compare REPORT.txt FOLDED  "ok"/"not ok" lines: the folded file's
                                         weights against the oracle's, within 1%
    oracle.py sql SQL.txt FOLDED         the same against thread_state's sums
    oracle.py shape FOLDED               flamegraph.pl's line shape
    oracle.py oncpu REPORT.txt FOLDED    --on-cpu's counts per thread and event: the
                                         kernel_stack records that follow another event
                                         than a switch, of the same thread on its CPU

An interval: a thread switched out (sched_switch) in a state other than R, R+ at or
after the time every CPU has data (the latest first record of the CPUs), until its
first wakeup (sched_wakeup, sched_waking) or its next switch in, whichever is first. One
of its own records meanwhile (other than the kernel_stack right after its switch, on
that CPU) means a switch was not recorded: the interval is left out, as are those a
lost-events mark falls in; one still open at the end lasts until the last record,
unless the thread exited (X, Z, x: nothing waits). Its stack: the kernel_stack
lines right after the switch, on the same CPU and of the same thread, innermost first
in the text; the innermost run of tracing frames (trace_event_raw_event_*,
__traceiter_*, perf_trace_*, __bpf_trace_*, trace_event_buffer_*, ftrace_trace_stack*,
__ftrace_trace_stack*, __trace_stack*, trace_buffer_unlock_commit*) left out, written
outermost first; none: "[no stack]". States are compared as the kernel's format prints
them (the model's): trace-cmd 3.1.6's sched plugin prints the kernel's 0x80 (TASK_IDLE's
report bit, "I") as "W", which the oracle reads as "I".
"""
import collections
import re
import sys

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+([^:\s]+):\s*(.*)$')
SWITCH = re.compile(r'^(.*):(-?\d+) \[(-?\d+)\] (\S+) ==> (.*):(-?\d+) \[(-?\d+)\]')
WAKE = re.compile(r'^(.*):(-?\d+) \[(-?\d+)\]')
DROP = re.compile(r'^CPU:\s*(\d+) \[(\d+) EVENTS DROPPED\]')
FRAME = re.compile(r'^=> (\S+)')
TRACING = ('trace_event_raw_event_', '__traceiter_', 'perf_trace_', '__bpf_trace_',
           'trace_event_buffer_', 'ftrace_trace_stack', '__ftrace_trace_stack',
           '__trace_stack', 'trace_buffer_unlock_commit')


def clean(name):
    return ''.join('_' if c in '; \t' else c if 0x21 <= ord(c) < 0x7f else '?' for c in name)


def parse(path):
    """The records: (cpu, ts ns, pid, event, text, [frames])."""
    recs = []
    drops = []
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = FRAME.match(line)
        if m and recs:
            recs[-1][5].append(m.group(1))
            continue
        m = DROP.match(line)
        if m:
            drops.append(int(m.group(1)))
            continue
        m = LINE.match(line)
        if not m:
            continue
        ts = int(m.group(4)) * 10**9 + int(m.group(5).ljust(9, '0')[:9])
        recs.append((int(m.group(3)), ts, int(m.group(2)), m.group(6), m.group(7), []))
    return recs, drops


def intervals(recs, drops):
    first = {}
    for cpu, ts, *_ in recs:
        first.setdefault(cpu, ts)
    complete = max(first.values()) if first else 0
    # a lost-events mark: a gap on that CPU from its record before to its record after
    gaps = []
    if drops:
        raise SystemExit('oracle.py: traces with lost events are not handled')
    opened = {}      # tid -> interval still open
    done = []
    last_switch = {}  # cpu -> interval whose stack may come next
    for cpu, ts, pid, ev, text, frames in recs:
        pending = last_switch.pop(cpu, None)
        if ev == 'kernel_stack' and pending is not None and pending['tid'] == pid:
            inner = 0
            while inner < len(frames) and frames[inner].startswith(TRACING):
                inner += 1
            kept = [clean(f) for f in frames[inner:]][::-1]
            pending['stack'] = ';'.join(kept) if kept else None
            continue
        if ev == 'kernel_stack':
            continue
        if pid in opened and pid != 0:
            # its own record while switched out: a switch not recorded
            del opened[pid]
        if ev == 'sched_switch':
            m = SWITCH.match(text)
            if not m:
                continue
            prev, state, nxt = int(m.group(2)), m.group(4), int(m.group(6))
            state = 'I' if state == 'W' else state
            iv = None
            if prev > 0 and state not in ('R', 'R+') and ts >= complete:
                iv = {'tid': prev, 'state': state, 'ts': ts, 'stack': None}
                opened[prev] = iv
            last_switch[cpu] = iv if iv else {'tid': prev}
            if nxt in opened:
                iv2 = opened.pop(nxt)
                iv2['dur'] = ts - iv2['ts']
                done.append(iv2)
        elif ev in ('sched_wakeup', 'sched_waking', 'sched_wakeup_new'):
            m = WAKE.match(text)
            if m and int(m.group(2)) in opened:
                iv2 = opened.pop(int(m.group(2)))
                iv2['dur'] = ts - iv2['ts']
                done.append(iv2)
    for iv in opened.values():
        if iv['state'][0] not in 'XZx':
            iv['dur'] = recs[-1][1] - iv['ts']
            done.append(iv)
    return [iv for iv in done if iv['dur'] > 0 and not any(a < iv['ts'] + iv['dur'] and b > iv['ts'] for a, b in gaps)]


def oracle_weights(report):
    w = collections.Counter()
    for iv in intervals(*parse(report)):
        w[(iv['tid'], '[%s]' % clean(iv['state']), iv['stack'] or '[no stack]')] += iv['dur']
    return w


def folded_weights(path):
    w = collections.Counter()
    for line in open(path):
        path_, value = line.rstrip('\n').rsplit(' ', 1)
        frames = path_.split(';')
        tid = int(frames[0].rsplit('-', 1)[1])
        w[(tid, frames[1], ';'.join(frames[2:]))] += int(value)
    return w


def close(a, b):
    return abs(a - b) <= 0.01 * max(abs(a), abs(b))


def by(w, n):
    out = collections.Counter()
    for k, v in w.items():
        out[k[:n]] += v
    return out


def compare(name, want, got):
    keys = sorted(set(want) | set(got), key=str)
    bad = [(k, want.get(k, 0), got.get(k, 0)) for k in keys if not close(want.get(k, 0), got.get(k, 0))]
    if keys and not bad:
        print('ok - %s (%d keys)' % (name, len(keys)))
    else:
        print('not ok - %s (%d keys, %d differ)' % (name, len(keys), len(bad)))
        for k, a, b in bad[:10]:
            print('#   %s: expected %d, got %d' % (k, a, b))


def main():
    cmd = sys.argv[1]
    if cmd == 'folded':
        for (tid, label, stack), v in sorted(oracle_weights(sys.argv[2]).items(), key=str):
            print('%d;%s;%s %d' % (tid, label, stack, v))
    elif cmd == 'compare':
        want, got = oracle_weights(sys.argv[2]), folded_weights(sys.argv[3])
        compare('oracle: off-CPU time per thread within 1% of trace-cmd report\'s', by(want, 1), by(got, 1))
        compare('oracle: off-CPU time per thread and state within 1%', by(want, 2), by(got, 2))
        compare('oracle: off-CPU time per thread, state and stack within 1%', want, got)
        n = sum(1 for k in want if k[2] != '[no stack]')
        d = sum(v for k, v in want.items() if k[1] == '[D]')
        s = sum(v for k, v in want.items() if k[1] == '[S]')
        print('%s - oracle: the trace has stacks of switch-outs (%d), D time (%d ns) and S time (%d ns)'
              % ('ok' if n and d and s else 'not ok', n, d, s))
    elif cmd == 'sql':
        want = collections.Counter()
        for line in open(sys.argv[2]):
            p = line.split()
            if len(p) == 3 and p[0].isdigit():
                want[(int(p[0]), '[%s]' % p[1])] += int(p[2])
        compare('thread_state: off-CPU time per thread and state within 1% of ktrace sql\'s',
                want, by(folded_weights(sys.argv[3]), 2))
    elif cmd == 'oncpu':
        want = collections.Counter()
        last = {}
        for cpu, ts, pid, ev, text, frames in parse(sys.argv[2])[0]:
            if ev == 'kernel_stack':
                prev = last.pop(cpu, None)
                if prev and prev[1] == pid and prev[0] == 'sched_switch':
                    continue   # the switch-out's stack
                want[(pid, '[%s]' % (prev[0] if prev and prev[1] == pid else 'unknown_event'))] += 1
            else:
                last[cpu] = (ev, pid)
        compare('on-CPU: stacks per thread and event equal trace-cmd report\'s', want,
                by(folded_weights(sys.argv[3]), 2))
    elif cmd == 'shape':
        lines = open(sys.argv[2]).read().split('\n')
        if lines and lines[-1] == '':
            lines.pop()
        bad = [l for l in lines if not re.match(r'^[^ ]+( [0-9]+)$', l)]
        print('%s - folded: %d lines, each "frame;...;frame COUNT"%s' % (
            'ok' if lines and not bad else 'not ok', len(lines), (': ' + bad[0][:100]) if bad else ''))


main()
