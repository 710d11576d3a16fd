#!/usr/bin/env python3
"""Checks the Perfetto export of a trace.dat file against trace-cmd and `ktrace info`,
printing one ok/not ok line per check:
- the number of events equals trace-cmd report's records, and of sched_switch events
  its sched_switch lines; the trace has no structural problem (tools/pftrace.py);
- the uname release is trace-cmd's (none when trace-cmd says it was not recorded);
- every saved cmdline (trace-cmd dump --cmd-lines) names its thread;
- the lost events per CPU (ftrace_stats END_OF_TRACE overrun) are `ktrace info`'s,
  summed over buffers (a CPU whose count the kernel did not give counts what is known);
- with a fields file name: writes every event in stream_dump --fields form there, for
  tests/engine/fieldcmp.py.

usage: tdcheck.py NAME TRACE REPORT UNAME CMDLINES INFO_JSON [FIELDS_OUT]
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pftrace  # noqa: E402

RECORD = re.compile(r'^ *(\S+: +)?.*-\d+ +\[\d+\] *[\d.]+: ')


def result(good, text):
    print('%s - %s' % ('ok' if good else 'not ok', text))


def main():
    name, trace, report, uname, cmdlines, info = sys.argv[1:7]
    t = pftrace.load(trace)
    s = pftrace.summary(t)
    lines = open(report, errors='replace').read().splitlines()
    records = sum(1 for l in lines if RECORD.match(l) or '[UNKNOWN EVENT]' in l)
    switches = sum(1 for l in lines if RECORD.match(l) and re.search(r'\] *[\d.]+: sched_switch: ', l))
    got_sw = s['names'].get('sched_switch', 0)
    result(s['events'] == records and got_sw == switches and not s['problems'],
           '%s: %d events as trace-cmd\'s records (%d), %d sched_switch as its report (%d)%s'
           % (name, s['events'], records, got_sw, switches,
              '' if not s['problems'] else ', problems %r' % s['problems']))

    u = open(uname, errors='replace').read().splitlines()
    if len(u) > 1 and 'not recorded' in u[1]:
        result('release' not in s['uname'], '%s: no uname, as trace-cmd says' % name)
    else:
        rel = u[1].split()[2] if len(u) > 1 and len(u[1].split()) > 2 else None
        result(rel is not None and s['uname'].get('release') == rel,
               '%s: uname release %s (trace-cmd %s)' % (name, s['uname'].get('release'), rel))

    want = set()
    for l in open(cmdlines, errors='replace'):
        m = re.match(r'^(\d+) (.*)$', l.rstrip('\n'))
        if m:
            want.add((int(m.group(1)), m.group(2)))
    missing = sorted((tid, comm) for tid, comm in want if t.threads.get(tid) != comm)
    result(not missing, '%s: the %d saved cmdlines name their threads%s'
           % (name, len(want), '' if not missing else ', missing %r' % missing[:5]))

    d = json.load(open(info))
    lost, unknown = {}, set()
    for b in d['buffers']:
        for c in b['cpus']:
            if c['lost'] < 0:
                unknown.add(str(c['cpu']))
            elif c['lost'] > 0:
                lost[str(c['cpu'])] = lost.get(str(c['cpu']), 0) + c['lost']
    got = {k: v for k, v in s['lost'].items() if v and k not in unknown}
    want_l = {k: v for k, v in lost.items() if k not in unknown}
    marks = s['lost_bundles']
    result(got == want_l and (marks > 0) == bool(lost or unknown),
           '%s: lost events per CPU as ktrace info: %s%s, %d bundles marked lost_events'
           % (name, json.dumps(got, sort_keys=True),
              ' (count unknown on CPU %s)' % ','.join(sorted(unknown)) if unknown else '', marks))
    if len(sys.argv) > 7:
        with open(sys.argv[7], 'w') as f:
            f.write('\n'.join(pftrace.field_lines(t)) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
