#!/usr/bin/env python3
"""Checks the process tree of a Perfetto export (pstree.py's JSON of protoc's text)
against trace-cmd report text; prints "ok"/"not ok" lines.

  treecheck.py report NAME TREE.json MACHINE REPORT.txt
      every thread trace-cmd report shows (the comm-pid column, pid > 0) is a thread
      of MACHINE, and the thread group of every thread of MACHINE is a process of it
  treecheck.py group NAME TREE.json MACHINE PID TID...
      PID is a named process of MACHINE and every TID a thread of it with tgid PID
      (the ids from the kernel, as the traced program saw them)
  treecheck.py same NAME TREE.json MACHINE ALONE.json
      MACHINE's threads and processes are those of machine 0 of ALONE.json (the
      input exported alone)
"""
import json
import re
import sys

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[\d+\]')


def verdict(good, name):
    print('%s - %s' % ('ok' if good else 'not ok', name))


def main():
    mode, name, tree, machine = sys.argv[1:5]
    m = json.load(open(tree)).get(machine, {'threads': {}, 'processes': {}})
    threads, procs = m['threads'], m['processes']
    if mode == 'report':
        pids = set()
        with open(sys.argv[5], encoding='utf-8', errors='replace') as f:
            for line in f:
                g = LINE.match(line)
                if g and int(g.group(2)) > 0:
                    pids.add(g.group(2))
        missing = sorted(pids - set(threads), key=int)
        orphans = sorted({str(t[0]) for t in threads.values()} - set(procs), key=int)
        verdict(pids and not missing and not orphans and procs,
                '%s: the %d threads of trace-cmd report among %d threads, %d processes '
                '(missing %s, thread groups without a process %s)' %
                (name, len(pids), len(threads), len(procs), missing[:5], orphans[:5]))
    elif mode == 'group':
        pid, tids = sys.argv[5], sys.argv[6:]
        bad = [(t, threads.get(t)) for t in tids if t not in threads or threads[t][0] != int(pid)]
        verdict(tids and pid in procs and procs[pid][1] and not bad,
                '%s: process %s %s, threads %s with tgid %s (wrong: %s)' %
                (name, pid, procs.get(pid), ' '.join(tids), pid, bad[:5]))
    elif mode == 'same':
        alone = json.load(open(sys.argv[5])).get('0', {'threads': {}, 'processes': {}})
        verdict(threads and threads == alone['threads'] and procs == alone['processes'],
                '%s: machine %s: %d threads, %d processes, as the input alone (%d, %d)' %
                (name, machine, len(threads), len(procs), len(alone['threads']),
                 len(alone['processes'])))
    return 0


if __name__ == '__main__':
    sys.exit(main())
