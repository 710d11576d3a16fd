#!/usr/bin/env python3
"""Reads a Perfetto trace written by `ktrace export`, with a decoder of the protobuf
wire format written here (it shares nothing with the exporter's C code), and prints:

  pftrace.py fields TRACE    every ftrace event as stream_dump --fields prints a record
                             ("E ts cpu pid -1 "" system:name f=v ..."), in time order
                             (ties: lower CPU first, then bundle order), for
                             tests/engine/fieldcmp.py against trace-cmd report -R
  pftrace.py fields-file-order TRACE   the same in the order of the file
  pftrace.py summary TRACE   one JSON object: counts by event name, sched_switch per
                             CPU, named threads, processes, uname, lost events per CPU
                             (ftrace_stats), bundles marked lost_events, and the
                             structural problems found (a packet without sequence id,
                             an event before its descriptor, a field of the wrong wire
                             type, a process tree stamped after the first event...)

The field numbers are Perfetto's (the same as tests/export/tools/perfetto_subset.proto).
"""
import json
import sys

VARINT, FIXED64, LEN, FIXED32 = 0, 1, 2, 5


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if c < 0x80:
            return v, i
        if shift > 70:
            raise ValueError('varint too long')


def fields(b):
    """(number, wire type, value) of every field of message b."""
    i, out = 0, []
    while i < len(b):
        tag, i = varint(b, i)
        num, wt = tag >> 3, tag & 7
        if wt == VARINT:
            v, i = varint(b, i)
        elif wt == FIXED64:
            v = int.from_bytes(b[i:i + 8], 'little')
            i += 8
        elif wt == FIXED32:
            v = int.from_bytes(b[i:i + 4], 'little')
            i += 4
        elif wt == LEN:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError('field %d runs past its message' % num)
            v = bytes(b[i:i + n])
            i += n
        else:
            raise ValueError('wire type %d' % wt)
        out.append((num, wt, v))
    if i != len(b):
        raise ValueError('message overrun')
    return out


def signed64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


# FtraceEvent field -> (system, name, {number: (field name, kind)}); kinds: i signed
# varint, u unsigned varint, s string
TYPED = {
    3: ('ftrace', 'print', {1: ('ip', 'u'), 2: ('buf', 's')}),
    4: ('sched', 'sched_switch', {1: ('prev_comm', 's'), 2: ('prev_pid', 'i'), 3: ('prev_prio', 'i'),
                                  4: ('prev_state', 'i'), 5: ('next_comm', 's'), 6: ('next_pid', 'i'),
                                  7: ('next_prio', 'i')}),
    11: ('power', 'cpu_frequency', {1: ('state', 'u'), 2: ('cpu_id', 'u')}),
    13: ('power', 'cpu_idle', {1: ('state', 'u'), 2: ('cpu_id', 'u')}),
    17: ('sched', 'sched_wakeup', {1: ('comm', 's'), 2: ('pid', 'i'), 3: ('prio', 'i'),
                                   4: ('success', 'i'), 5: ('target_cpu', 'i')}),
    18: ('sched', 'sched_blocked_reason', {1: ('pid', 'i'), 2: ('caller', 'u'), 3: ('io_wait', 'u')}),
    20: ('sched', 'sched_waking', {1: ('comm', 's'), 2: ('pid', 'i'), 3: ('prio', 'i'),
                                   4: ('success', 'i'), 5: ('target_cpu', 'i')}),
    24: ('irq', 'softirq_entry', {1: ('vec', 'u')}),
    25: ('irq', 'softirq_exit', {1: ('vec', 'u')}),
    26: ('irq', 'softirq_raise', {1: ('vec', 'u')}),
    36: ('irq', 'irq_handler_entry', {1: ('irq', 'i'), 2: ('name', 's'), 3: ('handler', 'u')}),
    37: ('irq', 'irq_handler_exit', {1: ('irq', 'i'), 2: ('ret', 'i')}),
    114: ('sched', 'sched_wakeup_new', {1: ('comm', 's'), 2: ('pid', 'i'), 3: ('prio', 'i'),
                                        4: ('success', 'i'), 5: ('target_cpu', 'i')}),
    235: ('task', 'task_newtask', {1: ('pid', 'i'), 2: ('comm', 's'), 3: ('clone_flags', 'u'),
                                   4: ('oom_score_adj', 'i')}),
    236: ('task', 'task_rename', {1: ('pid', 'i'), 2: ('oldcomm', 's'), 3: ('newcomm', 's'),
                                  4: ('oom_score_adj', 'i')}),
    237: ('sched', 'sched_process_exec', {1: ('filename', 's'), 2: ('pid', 'i'), 3: ('old_pid', 'i')}),
    238: ('sched', 'sched_process_exit', {1: ('comm', 's'), 2: ('pid', 'i'), 3: ('tgid', 'i'),
                                          4: ('prio', 'i')}),
    239: ('sched', 'sched_process_fork', {1: ('parent_comm', 's'), 2: ('parent_pid', 'i'),
                                          3: ('child_comm', 's'), 4: ('child_pid', 'i')}),
    240: ('sched', 'sched_process_free', {1: ('comm', 's'), 2: ('pid', 'i'), 3: ('prio', 'i')}),
    242: ('sched', 'sched_process_wait', {1: ('comm', 's'), 2: ('pid', 'i'), 3: ('prio', 'i')}),
}
GENERIC = 327
# descriptor.proto FieldDescriptorProto.Type
T_UINT64, T_FIXED64, T_STRING, T_BYTES, T_SINT64 = 4, 6, 9, 12, 18


def quote(b):
    out = ['"']
    for c in b:
        if c in (0x22, 0x5c):
            out.append('\\' + chr(c))
        elif c < 0x20 or c >= 0x7f:
            out.append('\\x%02x' % c)
        else:
            out.append(chr(c))
    return ''.join(out) + '"'


def text_value(b):
    """A bytes field of a generic event: "[...]" (an array's text) or hex digits."""
    s = b.decode('ascii')
    if s.startswith('['):
        els = [x for x in s[1:-1].split(',') if x]
        return '[%s]' % ','.join(str(int(x, 16) if x.startswith('0x') else int(x)) for x in els)
    return '<%s>' % s


class Trace:
    def __init__(self, data):
        self.events = []          # (ts, cpu, seq, pid, system, name, [(field, text)])
        self.problems = []
        self.descriptors = {}     # field id -> (group, name, {number: (name, type)})
        self.threads = {}         # tid -> name
        self.thread_entries = 0
        self.first_threads = {}   # tid -> name, from the trees written before the events
        self.first_tree_only = True
        self.processes = {}
        self.tree_ts = []
        self.uname = {}
        self.stats = {}           # phase -> {cpu: overrun}
        self.lost_bundles = 0
        self.packets = 0
        self.legacy = 0
        seq = 0
        for num, wt, pkt in fields(data):
            if num != 1 or wt != LEN:
                self.problems.append('Trace field %d is not a packet' % num)
                continue
            self.packets += 1
            pf = fields(pkt)
            ids = [f for f in pf if f[0] == 10]
            if not ids or ids[0][2] != 1:
                self.problems.append('packet %d without trusted_packet_sequence_id 1' % self.packets)
            ts = [f[2] for f in pf if f[0] == 8]
            for n, w, v in pf:
                if n == 1:
                    seq = self.bundle(v, seq)
                elif n == 2:
                    self.tree(v, ts[0] if ts else None)
                elif n == 34:
                    self.ftrace_stats(v)
                elif n == 45:
                    for n2, _, v2 in fields(v):
                        if n2 == 1:
                            for n3, _, v3 in fields(v2):
                                self.uname[{1: 'sysname', 2: 'version', 3: 'release',
                                            4: 'machine'}.get(n3, str(n3))] = v3.decode()
        first = min((e[0] for e in self.events), default=None)
        last = max((e[0] for e in self.events), default=None)
        for ts in self.tree_ts:
            # the inputs' threads come before every event, names learnt on the way after
            if first is not None and first < ts < last:
                self.problems.append('a process tree (%d) among the events (%d..%d)' % (ts, first, last))

    def bundle(self, b, seq):
        bf = fields(b)
        cpus = [v for n, w, v in bf if n == 1 and w == VARINT]
        if len(cpus) != 1:
            self.problems.append('bundle without its cpu')
            return seq
        cpu = cpus[0]
        for n, w, v in bf:
            if n == 3 and v:
                self.lost_bundles += 1
            elif n == 11:
                d = {k: val for k, _, val in fields(v)}
                desc = fields(d.get(2, b''))
                name = [x[2].decode() for x in desc if x[0] == 1][0]
                flds = {}
                for k, _, fv in desc:
                    if k == 2:
                        fd = {a: bv for a, _, bv in fields(fv)}
                        flds[fd[3]] = (fd[1].decode(), fd[5])
                self.descriptors[d[1]] = (d.get(3, b'').decode(), name, flds)
            elif n == 2:
                seq += 1
                self.event(cpu, seq, v)
        return seq

    def event(self, cpu, seq, b):
        ef = fields(b)
        if len(ef) < 3 or ef[0][0] != 1 or ef[1][0] != 2:
            self.problems.append('event without timestamp and pid first')
            return
        ts, pid = ef[0][2], ef[1][2]
        num, wt, body = ef[2]
        if wt != LEN or len(ef) != 3:
            self.problems.append('event %d: not one event message' % seq)
            return
        out = []
        if num in TYPED:
            system, name, spec = TYPED[num]
            for n, w, v in fields(body):
                if n not in spec:
                    self.problems.append('%s: unknown field %d' % (name, n))
                    continue
                fname, kind = spec[n]
                if (kind == 's') != (w == LEN):
                    self.problems.append('%s.%s: wire type %d' % (name, fname, w))
                    continue
                out.append((fname, quote(v) if kind == 's' else
                            str(signed64(v)) if kind == 'i' else str(v)))
        elif num == GENERIC:
            self.legacy += 1
            system, name = 'generic', ''
            for n, w, v in fields(body):
                if n == 1:
                    name = v.decode()
                elif n == 2:
                    fd = {a: (aw, av) for a, aw, av in fields(v)}
                    fname = fd[1][1].decode()
                    if 4 in fd:
                        out.append((fname, str(signed64(fd[4][1]))))
                    elif 5 in fd:
                        out.append((fname, str(fd[5][1])))
                    else:
                        s = fd.get(3, (LEN, b''))[1]
                        out.append((fname, text_value(s) if s[:1] == b'[' else quote(s)))
        elif num >= 65536:
            if num not in self.descriptors:
                self.problems.append('event %d of type %d before its descriptor' % (seq, num))
                return
            system, name, spec = self.descriptors[num]
            for n, w, v in fields(body):
                if n not in spec:
                    self.problems.append('%s: field %d not described' % (name, n))
                    continue
                fname, t = spec[n]
                if t == T_SINT64 and w == VARINT:
                    out.append((fname, str((v >> 1) ^ -(v & 1))))
                elif t == T_UINT64 and w == VARINT or t == T_FIXED64 and w == FIXED64:
                    out.append((fname, str(v)))
                elif t == T_STRING and w == LEN:
                    out.append((fname, quote(v)))
                elif t == T_BYTES and w == LEN:
                    out.append((fname, text_value(v)))
                else:
                    self.problems.append('%s.%s: wire type %d for type %d' % (name, fname, w, t))
        else:
            self.problems.append('event field %d unknown' % num)
            return
        self.events.append((ts, cpu, seq, pid, system, name, out))

    def tree(self, b, ts):
        if ts is None:
            self.problems.append('a process tree without timestamp')
        if self.tree_ts and self.tree_ts[-1] != ts:
            self.first_tree_only = False
        self.tree_ts.append(ts if ts is not None else -1)
        first = self.first_tree_only
        for n, w, v in fields(b):
            d = {}
            for a, aw, av in fields(v):
                d.setdefault(a, []).append(av)
            if n == 2:
                self.thread_entries += 1
                if 2 in d:
                    self.threads[d[1][0]] = d[2][0].decode(errors='replace')
                    if first:
                        self.first_threads[d[1][0]] = self.threads[d[1][0]]
            elif n == 1:
                self.processes[d[1][0]] = [x.decode(errors='replace') for x in d.get(3, [])]

    def ftrace_stats(self, b):
        phase, cpus = 0, {}
        for n, w, v in fields(b):
            if n == 1:
                phase = v
            elif n == 2:
                d = {a: av for a, _, av in fields(v)}
                cpus[d.get(1, 0)] = d.get(3, 0)
        self.stats[phase] = cpus


def load(path):
    return Trace(open(path, 'rb').read())


def field_lines(t, file_order=False):
    key = (lambda e: e[2]) if file_order else (lambda e: (e[0], e[1], e[2]))
    return ['E %d %d %d -1 "" %s:%s%s' % (ts, cpu, pid, system, name, ''.join(' %s=%s' % f for f in out))
            for ts, cpu, seq, pid, system, name, out in sorted(t.events, key=key)]


def summary(t):
    names, switches = {}, {}
    for e in t.events:
        names[e[5]] = names.get(e[5], 0) + 1
        if e[5] == 'sched_switch':
            switches[e[1]] = switches.get(e[1], 0) + 1
    return {
        'events': len(t.events), 'packets': t.packets, 'names': names,
        'sched_switch_per_cpu': {str(k): v for k, v in sorted(switches.items())},
        'thread_entries': t.thread_entries, 'named_threads': len(t.threads),
        'first_named_threads': len(t.first_threads),
        'thread_names': sorted(set(t.threads.values())),
        'processes': len(t.processes), 'uname': t.uname,
        'lost': {str(k): v for k, v in sorted(t.stats.get(2, {}).items())},
        'lost_start': {str(k): v for k, v in sorted(t.stats.get(1, {}).items())},
        'lost_bundles': t.lost_bundles, 'descriptors': len(t.descriptors),
        'legacy_generic': t.legacy, 'problems': t.problems[:20]}


def main():
    mode, path = sys.argv[1], sys.argv[2]
    t = load(path)
    if mode in ('fields', 'fields-file-order'):
        for line in field_lines(t, mode == 'fields-file-order'):
            print(line)
    else:
        print(json.dumps(summary(t), sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
