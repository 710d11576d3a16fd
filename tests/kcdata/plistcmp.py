#!/usr/bin/env python3
# Compares decoded kcdata output with libkdd's expected property list, as data:
#   plistcmp.py EXPECTED(.plist|.plist.gz, XML or binary) ACTUAL (json|plist)
# Keys, nesting, integers (exact), strings and arrays must match; types are strict
# (an integer never equals a string, a list never a dict). Exit 0 when equal, else
# prints the first differences and exits 1.
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


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ('json', 'plist'):
        print('usage: plistcmp.py EXPECTED ACTUAL json|plist', file=sys.stderr)
        return 2
    exp = load_expected(sys.argv[1])
    act = load_actual(sys.argv[2], sys.argv[3])
    out = []
    diff(exp, act, '', out)
    for line in out:
        print(line)
    return 1 if out else 0


sys.exit(main())
