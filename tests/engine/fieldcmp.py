#!/usr/bin/env python3
"""Compares the stream's typed field values (stream_dump --fields) with the raw fields
trace-cmd prints for the same records (trace-cmd report -R -t), record by record.

trace-cmd's -R text is libtraceevent's: numbers in decimal, or in hex with or without
"0x" as the event's print fmt suggests; arrays as "ARRAY[xx, xx, ...]" bytes; strings
as they are. A number matches when trace-cmd's text read as decimal or as hex (modulo
2^64, for negative values) is ours; an array matches when its bytes are ours laid out in
the record's byte order; a string matches when equal (strings with spaces are skipped:
the -R text cannot be split there). Timestamps, CPUs and pids must be equal.
Prints one "ok"/"not ok" line; exits 1 on a mismatch.
Usage: fieldcmp.py OURS TRACECMD [big]
"""
import re
import sys

FIELD = re.compile(r'(\w+)=(ARRAY\[[^\]]*\]|\S+)')
LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s*(\d+)(?:\.(\d+))?:\s+(\S+):\s*(.*)$')
OURS = re.compile(r'^E (\d+) (-?\d+) (-?\d+) (-?\d+) "(.*?)(?<!\\)" (\S+)(.*)$')


def parse_ours_fields(rest):
    out = {}
    i = 0
    rest = rest.strip()
    while i < len(rest):
        m = re.match(r'(\w+)=', rest[i:])
        if not m:
            break
        name = m.group(1)
        i += m.end()
        if rest[i] == '"':
            j = i + 1
            while j < len(rest) and rest[j] != '"':
                j += 2 if rest[j] == '\\' else 1
            out[name] = ('s', rest[i + 1:j])
            i = j + 1
        elif rest[i] == '[':
            j = rest.index(']', i)
            els = [int(x) for x in rest[i + 1:j].split(',') if x]
            out[name] = ('a', els)
            i = j + 1
        elif rest[i] == '<':
            j = rest.index('>', i)
            out[name] = ('b', bytes.fromhex(rest[i + 1:j]))
            i = j + 1
        else:
            j = rest.find(' ', i)
            j = len(rest) if j < 0 else j
            out[name] = ('n', int(rest[i:j]))
            i = j
        while i < len(rest) and rest[i] == ' ':
            i += 1
    return out


def num_ok(ours, text):
    cands = []
    for base in (0, 10, 16, 8):          # the print fmt may say %x, %o...
        try:
            cands.append(int(text, base))
        except ValueError:
            pass
    return any((c - ours) % (1 << 64) == 0 for c in cands)


def main():
    ours_path, tc_path = sys.argv[1], sys.argv[2]
    big = len(sys.argv) > 3 and sys.argv[3] == 'big'
    ours = [l for l in open(ours_path, errors='replace') if l.startswith('E ')]
    theirs = [l for l in open(tc_path, errors='replace')
              if LINE.match(l) and not l.startswith('cpus=')]
    bad = []
    checked = 0
    if len(ours) != len(theirs):
        bad.append('record counts differ: %d against trace-cmd %d' % (len(ours), len(theirs)))
    for k, (o, t) in enumerate(zip(ours, theirs)):
        mo, mt = OURS.match(o.rstrip('\n')), LINE.match(t.rstrip('\n'))
        if not mo or not mt:
            bad.append('line %d does not parse' % (k + 1))
            continue
        if mt.group(5) is None:
            ts = int(mt.group(4))                 # a raw clock: the counter as it is
        else:
            ts = int(mt.group(4)) * 1000000000 + int(mt.group(5).ljust(9, '0')[:9])
        if int(mo.group(1)) != ts or int(mo.group(2)) != int(mt.group(3)) or \
           int(mo.group(3)) != int(mt.group(2)):
            bad.append('record %d: ts/cpu/pid %s %s %s, trace-cmd %d %s %s' %
                       (k + 1, mo.group(1), mo.group(2), mo.group(3), ts, mt.group(3), mt.group(2)))
            continue
        name = mo.group(6).split(':', 1)[1]
        if name != mt.group(6):
            bad.append('record %d: event %s, trace-cmd %s' % (k + 1, name, mt.group(6)))
            continue
        fo = parse_ours_fields(mo.group(7))
        for fname, text in FIELD.findall(mt.group(7)):
            if fname not in fo:
                continue
            kind, val = fo[fname]
            checked += 1
            if kind == 'n':
                if text == '(nil)':
                    text = '0'
                if not re.match(r'^-?(0x)?[0-9a-fA-F]+$', text):
                    checked -= 1        # a symbol (%pS) or a string the pointer names
                    continue
                good = num_ok(val, text)
            elif kind == 'a' and text.startswith('ARRAY['):
                tb = bytes(int(x, 16) for x in text[6:-1].split(',') if x.strip())
                # our elements back into bytes: the element size is what makes the length fit
                good = False
                for size in (1, 2, 4, 8):
                    if len(val) * size == len(tb):
                        ob = b''.join(((e % (1 << (8 * size))).to_bytes(size, 'big' if big else 'little'))
                                      for e in val)
                        good = ob == tb
                        break
                    # a record shorter than its fixed array: ours is the part inside it,
                    # trace-cmd reads on past the record
                    if len(val) * size < len(tb) and size == 8 and tb.startswith(
                            b''.join((e % (1 << 64)).to_bytes(8, 'big' if big else 'little') for e in val)):
                        good = True
                        break
            elif kind == 'b' and text.startswith('ARRAY['):
                tb = bytes(int(x, 16) for x in text[6:-1].split(',') if x.strip())
                good = val == tb
            elif kind == 's':
                if ' ' in val or '\\' in val:
                    checked -= 1
                    continue
                good = val == text
            else:
                checked -= 1
                continue
            if not good:
                bad.append('record %d (%s) field %s: ours %r, trace-cmd %s' % (k + 1, name, fname, val, text))
    for b in bad[:15]:
        print('#   ' + b)
    print('%s - %s: %d records, %d field values against trace-cmd -R' %
          ('not ok' if bad or not checked else 'ok', tc_path.split('/')[-1], len(ours), checked))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
