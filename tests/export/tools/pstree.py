#!/usr/bin/env python3
"""Reads the text `protoc --decode=ktrace_test.Trace perfetto_subset.proto` prints of a
Perfetto trace (protoc is the reader: nothing of ktrace's) and prints, as one JSON
object keyed by machine id (0: the default machine, packets without machine_id), the
ProcessTree entries of each machine:

  {"0": {"threads": {"tid": [tgid, name]}, "processes": {"pid": [ppid, cmdline]}}}

(ppid null when not given). A thread or process given twice keeps the last entry.

  pstree.py TEXT
"""
import json
import re
import sys


def unquote(v):
    """A protoc text string ("...", C escapes, octal bytes) as text."""
    if not v.startswith('"'):
        return v
    raw = v[1:-1].encode('latin1', 'backslashreplace').decode('unicode_escape')
    return raw.encode('latin1', 'replace').decode('utf-8', 'replace')


def main():
    out = {}
    stack, packet, entry = [], None, None
    with open(sys.argv[1], encoding='utf-8', errors='replace') as f:
        for line in f:
            t = line.strip()
            if not t:
                continue
            if t.endswith('{'):
                stack.append(t[:-1].strip())
                if len(stack) == 1:
                    packet = {'machine': '0', 'threads': [], 'processes': []}
                elif len(stack) == 3 and stack[1] == 'process_tree':
                    entry = {}
                continue
            if t == '}':
                if len(stack) == 3 and stack[1] == 'process_tree' and entry is not None:
                    packet[stack[2]].append(entry)
                    entry = None
                stack.pop()
                if not stack:
                    m = out.setdefault(packet['machine'], {'threads': {}, 'processes': {}})
                    for e in packet['threads']:
                        m['threads'][e['tid']] = [int(e.get('tgid', -1)),
                                                  unquote(e.get('name', '""'))]
                    for e in packet['processes']:
                        pp = e.get('ppid')
                        m['processes'][e['pid']] = [int(pp) if pp else None,
                                                    unquote(e.get('cmdline', '""'))]
                continue
            mt = re.match(r'([A-Za-z0-9_]+): (.*)$', t)
            if not mt:
                continue
            if len(stack) == 1 and mt.group(1) == 'machine_id':
                packet['machine'] = mt.group(2)
            elif entry is not None and len(stack) == 3:
                entry[mt.group(1)] = mt.group(2)
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
