#!/usr/bin/env python3
"""Makes a large version 6 trace.dat for the read benchmark from a small recorded one.

usage: mkbig.py IN.v6.dat OUT.v6.dat MEGABYTES

Every CPU's pages are repeated until the CPU data of the file reaches MEGABYTES; each
repetition has its page timestamps moved past the previous one (plus one second), so
the result is a long, well-ordered trace made of real ring-buffer pages.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tests', 'tracedat', 'tools'))
import tdslim  # noqa: E402


def repeat_pages(v, copies):
    """Every CPU's pages of the tdslim.V6 v, `copies` times, each repetition's page
    timestamps moved past the previous one (plus one second)."""
    e = v.e
    pts = [struct.unpack_from(e + 'Q', blob, p)[0]
           for blob in v.top for p in range(0, len(blob), v.page)]
    delta = max(pts) - min(pts) + 10**9
    top = []
    for blob in v.top:
        out = bytearray(len(blob) * copies)
        for r in range(copies):
            base = r * len(blob)
            out[base:base + len(blob)] = blob
            for p in range(0, len(blob), v.page):
                ts = struct.unpack_from(e + 'Q', blob, p)[0]
                struct.pack_into(e + 'Q', out, base + p, ts + r * delta)
        top.append(bytes(out))
    v.top = top


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    v = tdslim.V6(open(sys.argv[1], 'rb').read())
    target = int(sys.argv[3]) << 20
    size = sum(len(b) for b in v.top)
    repeat_pages(v, max(1, -(-target // size)))
    tdslim.write(v, sys.argv[2])


if __name__ == '__main__':
    main()
