#!/usr/bin/env python3
# Compares decoded kcdata output with libkdd's expected property list, as data:
#   plistcmp.py EXPECTED(.plist|.plist.gz, XML or binary) ACTUAL (json|plist)
# Keys, nesting, integers (exact), strings and arrays must match; types are strict
# (an integer never equals a string, a list never a dict). Exit 0 when equal, else
# prints the first differences and exits 1.
#   plistcmp.py --tap NAME EXPECTED ACTUAL KIND [NAME EXPECTED ACTUAL KIND ...]
# compares each quadruple and prints "ok - NAME" / "not ok - NAME" with the differences
# (one Python start for a whole directory of samples).
import gzip
import json
import plistlib
import sys


def load_expected(path):
    raw = open(path, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    return plistlib.loads(raw)


def load_actual(path, kind):
    raw = open(path, 'rb').read()
    if kind == 'json':
        return json.loads(raw.decode('utf-8'))
    return plistlib.loads(raw)


def diff(a, b, path, out, limit=10):
    if len(out) >= limit:
        return
    if type(a) is not type(b):
        out.append('%s: type %s != %s' % (path or '/', type(a).__name__, type(b).__name__))
        return
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append('%s/%s: missing in expected' % (path, k))
            elif k not in b:
                out.append('%s/%s: missing in output' % (path, k))
            else:
                diff(a[k], b[k], path + '/' + k, out, limit)
            if len(out) >= limit:
                return
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append('%s: %d elements != %d' % (path, len(a), len(b)))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, '%s[%d]' % (path, i), out, limit)
    elif a != b:
        out.append('%s: %r != %r' % (path, a, b))


def compare(expected, actual, kind):
    out = []
    try:
        diff(load_expected(expected), load_actual(actual, kind), '', out)
    except Exception as e:  # unreadable output is a difference too
        out.append('%s: %s' % (actual, e))
    return out


def tap(args):
    if len(args) % 4 or any(k not in ('json', 'plist') for k in args[3::4]):
        print('usage: plistcmp.py --tap NAME EXPECTED ACTUAL json|plist ...', file=sys.stderr)
        return 2
    for i in range(0, len(args), 4):
        out = compare(args[i + 1], args[i + 2], args[i + 3])
        print('%s - %s' % ('not ok' if out else 'ok', args[i]))
        for line in out:
            print('#   ' + line)
    return 0


def main():
    if sys.argv[1:2] == ['--tap']:
        return tap(sys.argv[2:])
    if len(sys.argv) != 4 or sys.argv[3] not in ('json', 'plist'):
        print('usage: plistcmp.py EXPECTED ACTUAL json|plist', file=sys.stderr)
        return 2
    out = compare(sys.argv[1], sys.argv[2], sys.argv[3])
    for line in out:
        print(line)
    return 1 if out else 0


sys.exit(main())
