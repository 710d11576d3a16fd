#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cuts a small dataset for tests/data/eventfmt/ out of a large one (a directory made
by tracedat_extract.py or a tracefs copy with cpuN.raw files and meta):

  * the sub-buffers that bring event types not seen yet, at most --max-pages;
  * the formats of the events they hold (and of the lowest-id event: libtraceevent
    finds the common fields there);
  * kallsyms cut down to the symbols the report prints, the ones after them and the
    ones sharing their addresses (so that every lookup gives the same answer); the
    reports with the full and the cut kallsyms are checked to be identical;
  * printk formats and saved cmdlines as they are.

usage: make_dataset.py SRCDIR OUT.tar.gz [--max-pages N] [--min-pages N] [--evdiff build/tests/event/test_evdiff]
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile


def main():
    args = sys.argv[1:]
    max_pages = 40
    min_pages = 0
    evdiff = 'build/tests/event/test_evdiff'
    if '--max-pages' in args:
        i = args.index('--max-pages')
        max_pages = int(args[i + 1])
        del args[i:i + 2]
    if '--min-pages' in args:
        i = args.index('--min-pages')
        min_pages = int(args[i + 1])
        del args[i:i + 2]
    if '--evdiff' in args:
        i = args.index('--evdiff')
        evdiff = args[i + 1]
        del args[i:i + 2]
    src, out = args
    meta = dict(kv.split('=') for kv in open(os.path.join(src, 'meta')).read().split())
    page_size = int(meta['page_size'])
    cpus = int(meta['cpus'])

    # event ids of every sub-buffer
    pages = {}
    for line in subprocess.run([evdiff, '--list', src], check=True, stdout=subprocess.PIPE,
                               text=True).stdout.split('\n'):
        if not line:
            continue
        cpu, page, evid = map(int, line.split())
        pages.setdefault((cpu, page), set()).add(evid)
    seen, chosen = set(), []
    while len(chosen) < max_pages:
        best = max(pages.items(), key=lambda kv: (len(kv[1] - seen), -kv[0][1]), default=None)
        if not best or not (best[1] - seen):
            break
        chosen.append(best[0])
        seen |= best[1]
        del pages[best[0]]
    for key in sorted(pages):
        if len(chosen) >= min_pages:
            break
        chosen.append(key)

    tmp = tempfile.mkdtemp()
    name = os.path.basename(out).split('.')[0]
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for cpu in range(cpus):
        with open(os.path.join(src, 'cpu%d.raw' % cpu), 'rb') as f:
            raw = f.read()
        with open(os.path.join(d, 'cpu%d.raw' % cpu), 'wb') as f:
            for c, p in sorted(chosen):
                if c == cpu:
                    f.write(raw[p * page_size:(p + 1) * page_size])
    for fn in ('meta', 'header_page', 'printk_formats', 'saved_cmdlines'):
        if os.path.exists(os.path.join(src, fn)):
            shutil.copy(os.path.join(src, fn), d)
    ids = {}
    for path in glob.glob(os.path.join(src, '*', '*', 'format')):
        m = re.search(r'^ID:\s*(\d+)', open(path, errors='replace').read(), re.M)
        if m:
            ids[int(m.group(1))] = path
    keep = seen | {min(ids)}
    for evid in keep:
        if evid in ids:
            rel = os.path.relpath(ids[evid], src)
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            shutil.copy(ids[evid], os.path.join(d, rel))

    def reports():
        return [subprocess.run([evdiff, '--report', m, d], check=True, stdout=subprocess.PIPE).stdout
                for m in ('-', 'R')]

    kallsyms = os.path.join(src, 'kallsyms')
    if os.path.exists(kallsyms):
        shutil.copy(kallsyms, d)
        full = reports()
        words = set(re.findall(rb'[A-Za-z_.$][A-Za-z0-9_.$]*', b''.join(full)))
        lines = open(kallsyms, 'rb').read().split(b'\n')
        parsed = []
        for ln in lines:
            p = ln.split()
            if len(p) >= 3:
                try:
                    parsed.append((int(p[0], 16), p[2], ln))
                except ValueError:
                    pass
        by_addr = sorted(parsed, key=lambda t: t[0])
        addrs = set()
        for i, (a, n, _) in enumerate(by_addr):
            if n in words:
                addrs.add(a)
                j = i + 1
                while j < len(by_addr) and by_addr[j][0] == a:
                    j += 1
                if j < len(by_addr):
                    addrs.add(by_addr[j][0])
        with open(os.path.join(d, 'kallsyms'), 'wb') as f:
            for a, n, ln in parsed:
                if a in addrs:
                    f.write(ln + b'\n')
        if reports() != full:
            sys.exit('the cut kallsyms changes the report')
    with tarfile.open(out, 'w:gz') as t:
        t.add(d, arcname=name)
    shutil.rmtree(tmp)
    print('%s: %d sub-buffers, %d event types, %d bytes' % (out, len(chosen), len(seen),
                                                           os.path.getsize(out)))


if __name__ == '__main__':
    main()
