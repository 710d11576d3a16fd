#!/usr/bin/env python3
# Checks `ktrace info --json` of a kcdata sample against counts computed here from the
# bytes (gunzipping/base64-decoding like libkdd's kdd): items before BUFFER_END, arrays,
# container begins, the BUFFER_END offset, and decodes == true.
#   countitems.py SAMPLE INFO.json
#   countitems.py --tap NAME SAMPLE INFO.json [NAME SAMPLE INFO.json ...]: "ok - NAME" lines
import base64
import gzip
import json
import struct
import sys

MAGICS = {0x59a25807, 0xde17a59a, 0xdeadf157, 0x53a20900, 0x1e21c09f, 0x46414e47}


def plain(raw):
    if len(raw) >= 4 and struct.unpack_from('<I', raw)[0] in MAGICS:
        return raw
    if raw[:2] == b'\x1f\x8b':
        return plain(gzip.decompress(raw))
    return plain(base64.b64decode(raw))


def mismatch(sample, info_path):
    data = plain(open(sample, 'rb').read())
    info = json.load(open(info_path))
    pos = items = arrays = containers = 0
    while True:
        t, size = struct.unpack_from('<II', data, pos)
        if t == 0xf19158ed:
            break
        items += 1
        if t == 0x11 or 0x20 <= t <= 0x2f:
            arrays += 1
        if t == 0x13:
            containers += 1
        pos += 16 + size
    want = {'format': 'kcdata', 'items': items, 'arrays': arrays, 'containers': containers,
            'end_offset': pos, 'size': len(data), 'decodes': True, 'error': None}
    return {k: (info.get(k), v) for k, v in want.items() if info.get(k) != v}


def main():
    if sys.argv[1:2] == ['--tap']:
        args = sys.argv[2:]
        for i in range(0, len(args) - 2, 3):
            try:
                bad = mismatch(args[i + 1], args[i + 2])
            except Exception as e:
                bad = {'error': str(e)}
            print('%s - %s' % ('not ok' if bad else 'ok', args[i]))
            if bad:
                print('#   mismatch (got, expected): %s' % bad)
        return 0
    bad = mismatch(sys.argv[1], sys.argv[2])
    if bad:
        print('mismatch (got, expected):', bad)
        return 1
    return 0


sys.exit(main())
