#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns a trace.dat into the directory layout test_evdiff reads, using only Debian's
trace-cmd to read the file (trace-cmd dump / report --events), so that the event
formatter can be tested on trace.dat files without a trace.dat reader of ours:

    OUT/header_page  OUT/kallsyms  OUT/printk_formats  OUT/saved_cmdlines
    OUT/SYSTEM/EVENT/format   (ftrace formats under OUT/ftrace/)
    OUT/cpuN.raw              (the CPU's flyrecord data)
    OUT/meta                  "long=4 kernel_long=4 big_endian=0 page_size=4096 cpus=8"

Files of version 7 or compressed are first converted with trace-cmd convert to an
uncompressed version 6 copy in OUT/v6.dat.

usage: tracedat_extract.py IN.dat OUT
"""
import os
import re
import subprocess
import sys


def tc(*args):
    return subprocess.run(['trace-cmd'] + list(args), check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout


def body(out):
    """Drops the "\t[Section, N bytes]" line trace-cmd dump prints first."""
    lines = out.split(b'\n', 1)
    return lines[1] if len(lines) > 1 else b''


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)


def split_formats(text):
    """Formats one after the other, each starting with a "name:" line."""
    fmts, cur = [], []
    for line in text.split(b'\n'):
        if line.startswith(b'name: '):
            if cur:
                fmts.append(b'\n'.join(cur))
            cur = [line]
        elif cur:
            cur.append(line)
    if cur:
        fmts.append(b'\n'.join(cur))
    out = []
    for f in fmts:
        name = f.split(b'\n', 1)[0][6:].strip().decode()
        out.append((name, f.rstrip(b'\n') + b'\n'))
    return out


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    summary = tc('dump', '--summary', '-i', src).decode()
    version = int(re.search(r'(\d+)\s+\[Version\]', summary).group(1))
    if version != 6 or 'ompression' in summary:
        v6 = os.path.join(out, 'v6.dat')
        subprocess.run(['trace-cmd', 'convert', '--file-version', '6', '--compression', 'none',
                        '-i', src, '-o', v6], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        src = v6
        summary = tc('dump', '--summary', '-i', src).decode()
    big = 1 if 'Big endian' in summary else 0
    long_size = int(re.search(r'(\d+)\s+\[Bytes in a long\]', summary).group(1))
    page_size = int(re.search(r'(\d+)\s+\[Page size, bytes\]', summary).group(1))

    header_page = body(tc('dump', '--head-page', '-i', src))
    write(os.path.join(out, 'header_page'), header_page)
    m = re.search(rb'field:\s*\S+\s+commit;\s*offset:\d+;\s*size:(\d+);', header_page)
    kernel_long = int(m.group(1)) if m else long_size
    write(os.path.join(out, 'kallsyms'), body(tc('dump', '--kallsyms', '-i', src)))
    write(os.path.join(out, 'printk_formats'), body(tc('dump', '--printk', '-i', src)))
    write(os.path.join(out, 'saved_cmdlines'), body(tc('dump', '--cmd-lines', '-i', src)))

    for name, text in split_formats(body(tc('dump', '--ftrace-events', '-i', src))):
        write(os.path.join(out, 'ftrace', name, 'format'), text)
    system = None
    chunk = []
    events = tc('report', '--events', '-i', src)

    def flush():
        if system is not None:
            for name, text in split_formats(b'\n'.join(chunk)):
                write(os.path.join(out, system, name, 'format'), text)

    for line in events.split(b'\n'):
        if line.startswith(b'system: '):
            flush()
            system = line[8:].strip().decode()
            chunk = []
        else:
            chunk.append(line)
    flush()

    cpus = 0
    with open(src, 'rb') as f:
        for line in tc('dump', '--flyrecord', '-i', src).decode().split('\n'):
            m = re.match(r'\s*(\d+)\s+(\d+)\s+\[offset, size of cpu (\d+)\]', line)
            if not m:
                continue
            off, size, cpu = int(m.group(1)), int(m.group(2)), int(m.group(3))
            f.seek(off)
            write(os.path.join(out, 'cpu%d.raw' % cpu), f.read(size))
            cpus = max(cpus, cpu + 1)
    m = re.search(r'(\d+) \[CPUs with tracing data\]', summary)
    if m:
        cpus = max(cpus, int(m.group(1)))
    for cpu in range(cpus):
        path = os.path.join(out, 'cpu%d.raw' % cpu)
        if not os.path.exists(path):
            write(path, b'')
    write(os.path.join(out, 'meta'), ('long=%d kernel_long=%d big_endian=%d page_size=%d cpus=%d\n'
                                      % (long_size, kernel_long, big, page_size, cpus)).encode())


if __name__ == '__main__':
    main()
