#!/usr/bin/env python3
"""Builds the seed corpus of fuzz/fuzz_tracedat from the shared synthetic_edge trace.

usage: mkcorpus.py SHARED_FTRACE_DIR OUTDIR

Writes small files covering each layout the reader knows: v6 with an instance buffer,
v6 latency, v7 uncompressed / zstd / zlib with an instance (via trace-cmd convert and
v7zlib.py), and the shared v6 / v7 zstd files themselves.
"""
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tdslim  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    for name in ('synthetic_edge.v6.dat', 'synthetic_edge.v7zstd.dat'):
        shutil.copy(os.path.join(src, name), os.path.join(out, name))
    v = tdslim.V6(open(os.path.join(src, 'synthetic_edge.v6.dat'), 'rb').read())

    # v6 with an instance "inst" holding the same pages, plus OFFSET/TSC2NSEC options
    v.options.append((3, bytes(8) + b'inst\0'))
    v.instances.append((b'inst', list(v.top)))
    inst6 = os.path.join(out, 'instance.v6.dat')
    tdslim.write(v, inst6, [(7, b'-5\0'), (14, struct.pack('<IIQ', 3, 1, 0))])

    # v7 versions of it
    none7 = os.path.join(out, 'instance.v7none.dat')
    subprocess.run(['trace-cmd', 'convert', '-i', inst6, '--file-version', '7',
                    '--compression', 'none', '-o', none7], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), 'v7zlib.py'),
                    '--short-size', none7, os.path.join(out, 'instance.v7zlib.dat')], check=True)

    # v6 latency: the flyrecord part replaced by "latency" and text
    d = open(inst6, 'rb').read()
    j = d.index(b'options  \0')
    lat = d[:j] + b'latency  \0' + b'# tracer: irqsoff\n#\n  <idle>-0  0d.h1  1us : foo\n'
    open(os.path.join(out, 'latency.v6.dat'), 'wb').write(lat)

    # v7 latency (trace-cmd cannot convert one): headers, BUFFER_TEXT, options; + zlib
    text = b'# tracer: irqsoff\n#\n  <idle>-0  0d.h1  1us : foo\n'
    e = v.e
    b = bytearray(b'\x17\x08Dtracing7\0' + bytes([v.endian, v.long]) + struct.pack(e + 'I', v.page))
    b += b'none\0\0'
    at_opt = len(b)
    b += bytes(8)
    hdr_off = len(b)
    body = (b'header_page\0' + struct.pack(e + 'Q', len(v.header_page)) + v.header_page +
            b'header_event\0' + struct.pack(e + 'Q', len(v.header_event)) + v.header_event)
    b += struct.pack(e + 'HHiQ', 16, 0, -1, len(body)) + body
    lat_off = len(b)
    b += struct.pack(e + 'HHiQ', 22, 0, -1, len(text)) + text
    opt_off = len(b)
    opts = struct.pack(e + 'HIQ', 16, 8, hdr_off)
    bt = struct.pack(e + 'Q', lat_off) + b'\0local\0'
    opts += struct.pack(e + 'HI', 22, len(bt)) + bt
    opts += struct.pack(e + 'HIQ', 0, 8, 0)
    b += struct.pack(e + 'HHiQ', 0, 0, -1, len(opts)) + opts
    struct.pack_into(e + 'Q', b, at_opt, opt_off)
    lat7 = os.path.join(out, 'latency.v7none.dat')
    open(lat7, 'wb').write(b)
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), 'v7zlib.py'),
                    lat7, os.path.join(out, 'latency.v7zlib.dat')], check=True)


if __name__ == '__main__':
    main()
