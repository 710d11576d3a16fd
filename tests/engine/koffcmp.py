#!/usr/bin/env python3
"""The stream's KOFF records (stream_dump --fields) against `ktrace dump` of the same
buffer: one record per dump line, the same thread id and correlator (the dump shows
their low 32 bits), tag and text. Prints one ok/not ok line."""
import re
import sys

OURS = re.compile(r'^E (\d+) (-?\d+) (-?\d+) (-?\d+) "(.*?)(?<!\\)" koff:(\S*) text="(.*?)(?<!\\)" id=(\d+)')
DUMP = re.compile(r'^([0-9a-f]{8}):([0-9a-f]{4}):([0-9a-f]{8}) *([^:]*):(.*)$')


def main():
    ours = [l.rstrip('\n') for l in open(sys.argv[1]) if l.startswith('E ')]
    dump = [l.rstrip('\n') for l in open(sys.argv[2]) if DUMP.match(l)]
    bad = []
    if len(ours) != len(dump) or not ours:
        bad.append('%d records, the dump has %d' % (len(ours), len(dump)))
    for k, (o, d) in enumerate(zip(ours, dump)):
        mo, md = OURS.match(o), DUMP.match(d)
        if not mo:
            bad.append('record %d does not parse: %s' % (k + 1, o))
            continue
        got = (int(mo.group(3)) & 0xffffffff, int(mo.group(8)) & 0xffffffff, mo.group(6),
               mo.group(7).encode().decode('unicode_escape'))
        want = (int(md.group(1), 16), int(md.group(3), 16), md.group(4).strip(),
                md.group(5)[1:] if md.group(5).startswith(' ') else md.group(5))
        if got != want:
            bad.append('record %d: %r, the dump %r' % (k + 1, got, want))
    for b in bad[:10]:
        print('#   ' + b)
    print('%s - KOFF: %d records equal to ktrace dump' % ('not ok' if bad else 'ok', len(ours)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
