#!/usr/bin/env python3
"""Hostile-input campaign: mutates real traces and runs every subcommand that reads a
file on them, checking what a user is promised whatever the input.

  robust.py KTRACE ROOT SHARED [--seed N] [--runs N] [--inputs short|all]
            [--mode auto|san|limit] [--jobs N] [--timeout S] [--workdir DIR]
            [--save DIR] [--known FILE] [--per-mutant N]

Inputs: the shared samples (../shared/data: ftrace, darwin, kcdata, reliability) and
the repository's test traces of every format: trace.dat v6 and v7 (none, zstd, zlib),
raw ring-buffer pages, Darwin raw (V2) streams and V3 files, kcdata (plain and
gzip'd), KOFF buffers, snapshots and core files. --inputs short takes one or two small
ones of each format (make check); all takes every one (make robust).

Mutations, drawn in a fixed order from the seed (a run is reproduced by its seed):
  truncation  a cut at a structural boundary of the format (section, chunk, item, page,
              header field), one byte before or after it, or in between
  extreme     0, all ones, 2^(n-1) or 2^31 over a structural field (size, offset,
              count, commit word, header field)
  inflate     a structural size or count made a little larger (+1, +8, +4096, x2)
  bitflip     one bit anywhere
  byteset     a run of 1-16 bytes set to 0x00, 0xff or a random byte
  zero        a whole page, chunk or item zeroed (a buffer never written)
  duplicate   a page, chunk or item repeated in place
The first "mutant" of every input is the input as it is (class pristine).

Commands (per format): info, info --json, report (and -l, -w, --profile, --stat, -R,
-t for trace.dat; --format json and --csv for Darwin; --format json and plist for
kcdata), info and report on standard input, export to every format (perfetto, json,
sqlite, tsv, jsonl; each also with --partial; json to and from standard input), sql
(a query over each table, and --db), timeline (html, svg, standard input), convert
(v6, v7 zstd and zlib, from standard input), split (by records and pages), dump (KOFF
buffers and core files, -l, -o). Each mutant gets the next --per-mutant commands of a
shuffled cycle over its input's commands, so that a short run still reaches every one.

Two modes: san (a build with AddressSanitizer + UBSan: any sanitizer report fails)
and limit (a normal build under a 2 GiB address-space limit, RLIMIT_AS); auto picks
san when KTRACE links the sanitizers. In both, each run has a file-size limit
(RLIMIT_FSIZE: the disk bound), no core files, a time limit, its own empty TMPDIR and
output directory.

Checks of every run:
  - no sanitizer report, no crash (signal), no hang (the time limit), exit 0, 1 or 2;
  - no "out of memory" (below the address-space limit nothing may run out);
  - no file larger than the disk bound (SIGXFSZ), no more than the bound in all;
  - stderr is printable UTF-8, and every line is "ktrace: FILE: ..." naming the input
    (or one of the inputs: the program file of a core, "-" for standard input);
  - on a structurally damaged mutant (a cut inside the data, an impossible size or
    commit word): no exit 0 with an empty stderr, and an error naming an offset;
  - every JSON document is complete and valid: info --json, report --format json,
    sql --json, export --format json (file and standard output), every line of a
    jsonl table; every other output complete: perfetto (the protobuf framing walks to
    the end), sqlite (quick_check), tsv (every table), html (closed), svg (XML),
    convert / split / dump -o outputs readable by `ktrace info`;
  - no file left in TMPDIR; when the command fails, nothing left in the output
    directory (with --partial only the output itself; a timeline marks the damage and
    keeps its page; split keeps the pieces it completed).

Prints a TAP plan and one "ok"/"not ok" line per input and mutation class, with each
failure (command, mutation, what went wrong) as a comment, then the distinct failures
with their counts. --save DIR keeps the mutant of each distinct failure (up to three)
with an index of commands. --known FILE lists known failures (issue items): a failure
matching one is reported as known, and a line whose failures are all known is
"ok ... # SKIP known"; empty the file when the items are fixed. Exits 0."""
import argparse
import concurrent.futures
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET

SAN_MARKS = (b'AddressSanitizer', b'UndefinedBehaviorSanitizer', b'runtime error:',
             b'LeakSanitizer', b'ERROR: Sanitizer')
MIB = 1 << 20
AS_LIMIT = 2048 * MIB
CLASSES = ('pristine', 'truncation', 'extreme', 'inflate', 'bitflip', 'byteset', 'zero',
           'duplicate')
SQL_TABLES = ('trace', 'process', 'thread', 'event', 'args', 'sched_slice', 'thread_state',
              'lost_events', 'counter_track', 'counter', 'slice')
TSV_TABLES = SQL_TABLES


# ---- structure of each format: boundaries, fields, units ----
#
# bounds: offsets where a cut is interesting; whole: cuts that leave a valid, shorter
# file; fields: (offset, width, kind) of structural numbers; units: (offset, length) of
# pages, chunks, items (for zero and duplicate).

class Shape:
    def __init__(self):
        self.bounds, self.whole, self.fields, self.units = set(), set(), [], []


def tracedat_shape(data, info):
    s = Shape()
    s.bounds.update((0, 10, 12, 13, 14, 18))
    version = data[10:11]
    # the kernel long size; the page size (in v7 each buffer's option gives its own)
    s.fields += [(13, 1, 'longsize'), (14, 4, 'pagesize' if version != b'7' else 'count')]
    try:
        if version == b'7':
            p = data.index(b'\0', 18) + 1          # compression name
            p = data.index(b'\0', p) + 1           # compression version
            s.bounds.add(p)
            s.fields.append((p, 8, 'offset'))      # first options offset
            p += 8
            while p + 16 <= len(data):
                s.bounds.update((p, p + 2, p + 4, p + 8, p + 16))
                s.fields.append((p + 8, 8, 'size'))  # section size
                size = struct.unpack_from('<Q', data, p + 8)[0]
                if size > len(data):
                    break
                s.units.append((p, 16 + size))
                p += 16 + size
        else:
            p = 18
            for name in (b'header_page\0', b'header_event\0'):
                if data[p:p + len(name)] != name:
                    break
                s.bounds.add(p)
                p += len(name)
                s.fields.append((p, 8, 'size'))
                p += 8 + struct.unpack_from('<Q', data, p)[0]
                s.bounds.add(p)
            if p + 4 <= len(data):
                s.fields.append((p, 4, 'count'))   # ftrace format count
                n = struct.unpack_from('<I', data, p)[0]
                q = p + 4
                for _ in range(min(n, 64)):         # each format: u64 size + text
                    if q + 8 > len(data):
                        break
                    s.bounds.update((q, q + 8))
                    s.fields.append((q, 8, 'size'))
                    q += 8 + struct.unpack_from('<Q', data, q)[0]
    except (ValueError, struct.error):
        pass
    for b in (info or {}).get('buffers', []):
        page = b.get('page_size') or 4096
        for c in b.get('cpus', []):
            off, size = c.get('offset', 0), c.get('size', 0)
            s.bounds.update((off, off + 16, off + size // 2, off + size))
            if size and not b.get('compressed'):
                for k in range(0, min(size, 16 * page), page):
                    s.fields.append((off + k + 8, 8, 'commit'))
                    s.units.append((off + k, page))
    return s


def pages_shape(data, page):
    s = Shape()
    for k in range(0, len(data), page):
        s.bounds.update((k, k + 8, k + 16, k + page // 2))
        s.whole.add(k)
        s.fields.append((k + 8, 8, 'commit'))
        s.units.append((k, page))
    return s


def kcdata_shape(data):
    s = Shape()
    s.bounds.add(0)
    p = 0
    while p + 16 <= len(data) and len(s.fields) < 400:
        s.bounds.update((p, p + 4, p + 8, p + 16))
        s.fields.append((p + 4, 4, 'size'))        # item size
        s.fields.append((p + 8, 8, 'flags'))
        size = struct.unpack_from('<I', data, p + 4)[0]
        if size > len(data):
            break
        s.units.append((p, 16 + size))
        p += 16 + size
    return s


def chunks_shape(data, first):
    """Darwin V3 files and KOFF snapshots: u32 tag, u16 major, u16 minor, u64 size
    chunks. A cut at the start of a chunk leaves a valid, shorter container."""
    s = Shape()
    s.bounds.update((0, 8, 16, first))
    s.fields.append((8, 8, 'size'))
    p = first
    while p + 16 <= len(data) and len(s.fields) < 400:
        s.bounds.update((p, p + 8, p + 16))
        s.whole.add(p)
        s.fields.append((p + 8, 8, 'size'))
        tag, size = struct.unpack_from('<I', data, p)[0], struct.unpack_from('<Q', data, p + 8)[0]
        if size > len(data):
            break
        if tag == 0x1e00 and size % 64 == 0:
            size += 8       # an events chunk's size leaves out its 8-byte timestamp
        step = 16 + ((size + 7) & ~7)
        s.units.append((p, min(step, len(data) - p)))
        p += step
    return s


def darwin_raw_shape(data):
    s = Shape()
    off = 0
    if len(data) >= 8:
        threads = struct.unpack_from('<I', data, 4)[0]
        off = 0x120 + 32 * threads
        if data[0:4] == b'\x00\x02\xaa\x55':      # RAW_VERSION2: events from 4 KiB
            off = (off + 4095) & ~4095
    s.bounds.update((0, 4, 8, 16, 24, off, off + 32, off + 64))
    s.fields += [(4, 4, 'count'), (8, 8, 'count'), (20, 4, 'flags')]
    for k in range(off, min(len(data), off + 64 * 64), 64):
        s.units.append((k, 64))
        s.fields.append((k + 48, 4, 'debugid'))
        s.fields.append((k + 52, 4, 'cpu'))
    return s


def elf_shape(data):
    """An ELF core: its header fields, program headers and notes."""
    s = Shape()
    s.bounds.update((0, 16, 32, 64))
    if len(data) < 64 or data[:4] != b'\x7fELF':
        return s
    w64 = data[4] == 2
    e = '>' if data[5] == 2 else '<'
    if w64:
        phoff, = struct.unpack_from(e + 'Q', data, 32)
        phentsize, phnum = struct.unpack_from(e + 'HH', data, 54)
        s.fields += [(32, 8, 'offset'), (54, 2, 'size'), (56, 2, 'count')]
    else:
        phoff, = struct.unpack_from(e + 'I', data, 28)
        phentsize, phnum = struct.unpack_from(e + 'HH', data, 42)
        s.fields += [(28, 4, 'offset'), (42, 2, 'size'), (44, 2, 'count')]
    for i in range(min(phnum, 64)):
        ph = phoff + i * phentsize
        if ph + phentsize > len(data):
            break
        s.bounds.add(ph)
        if w64:
            off, = struct.unpack_from(e + 'Q', data, ph + 8)
            fsz, = struct.unpack_from(e + 'Q', data, ph + 32)
            s.fields += [(ph + 8, 8, 'offset'), (ph + 32, 8, 'size'), (ph + 40, 8, 'size')]
        else:
            off, = struct.unpack_from(e + 'I', data, ph + 4)
            fsz, = struct.unpack_from(e + 'I', data, ph + 16)
            s.fields += [(ph + 4, 4, 'offset'), (ph + 16, 4, 'size')]
        if off < len(data):
            s.bounds.update((off, off + min(fsz, len(data)) // 2, off + fsz))
            if fsz and off + fsz <= len(data):
                s.units.append((off, min(fsz, 4096)))
    return s


def generic_shape(data):
    s = Shape()
    s.bounds.update((0, 8, 16, 64, 128, 256, 512))
    s.fields += [(0, 8, 'count'), (8, 8, 'count')]
    return s


# ---- inputs ----

class Input:
    def __init__(self, name, path, kind, family, damaged=False, extra=None, page=4096):
        self.name, self.path, self.kind, self.family = name, path, kind, family
        self.damaged = damaged          # the input itself is damaged (reliability)
        self.extra = extra or {}        # e.g. the program file of a core
        self.page = page
        self.data = open(path, 'rb').read()
        self.commands = []


def zstd_to(src, dst):
    with open(dst, 'wb') as out:
        subprocess.run(['zstd', '-q', '-d', '-c', src], stdout=out, check=True)


def prepare(ktrace, root, shared, work, which, helper, only=None):
    """The inputs: [(Input, short)] then filtered by `which`."""
    ft = os.path.join(shared, 'data', 'ftrace')
    kcd = os.path.join(shared, 'data', 'kcdata')
    rel = os.path.join(shared, 'data', 'reliability')
    tdata = os.path.join(root, 'tests', 'data')
    inp = os.path.join(work, 'inputs')
    os.makedirs(inp, exist_ok=True)
    have_zstd = shutil.which('zstd') is not None
    out = []

    def want(name):
        return not only or only in name

    def add(name, path, kind, family, short, **kw):
        if want(name) and path and os.path.exists(path) and os.path.getsize(path) > 0:
            out.append((Input(name, path, kind, family, **kw), short))

    def unz(rel_path, name):
        src = os.path.join(tdata, rel_path)
        if not have_zstd or not os.path.exists(src) or not want(name):
            return None
        dst = os.path.join(inp, name)
        zstd_to(src, dst)
        return dst

    # trace.dat
    for n, short in (('schedviz_cpu0.v6.dat', True), ('schedviz_cpu0.v7none.dat', False),
                     ('schedviz_cpu0.v7zstd.dat', True), ('synthetic_edge.v6.dat', False),
                     ('synthetic_edge.v7zstd.dat', True), ('trappy_tests_trace.v6.dat', False),
                     ('trappy_tests_trace.v7zstd.dat', False),
                     ('trappy_tests_raw_trace.v7zstd.dat', False)):
        add(n, os.path.join(ft, n), 'tracedat', 'tracedat', short)
    src = os.path.join(ft, 'schedviz_cpu0.v6.dat')
    if os.path.exists(src) and want('schedviz_cpu0.v7zlib.dat'):
        zl = os.path.join(inp, 'schedviz_cpu0.v7zlib.dat')
        r = subprocess.run([ktrace, 'convert', '-q', src, zl, '--file-version', '7',
                            '--compression', 'zlib'], capture_output=True)
        if r.returncode == 0:
            add('schedviz_cpu0.v7zlib.dat', zl, 'tracedat', 'tracedat', True)
    for rp, short in (('tracedat/instance.v6.dat.zst', True), ('tracedat/all.v6.dat.zst', False),
                      ('tracedat/mixed.v6.dat.zst', False), ('tracedat/subbuf8k.v6.dat.zst', False),
                      ('report/profile.v6.dat.zst', False), ('report/stacks.v6.dat.zst', False),
                      ('report/boot.v6.dat.zst', False), ('report/kmem.v6.dat.zst', False),
                      ('report/allevents.v6.dat.zst', False),
                      ('tracedat_write/kt_instances.v6.dat.zst', False),
                      ('tracedat_write/kt_all.v6.dat.zst', False),
                      ('tracedat_write/kt_dropped.v6.dat.zst', False)):
        n = os.path.basename(rp)[:-4]
        if not short and which == 'short':
            continue
        add(n, unz(rp, n), 'tracedat', 'tracedat', short)
    add('unknown_events.v7.dat', os.path.join(tdata, 'report', 'unknown_events.v7.dat'),
        'tracedat', 'tracedat', False)
    # raw ring-buffer pages
    for n, short in (('schedviz_cpu0.trace_pipe_raw', True),
                     ('schedviz_cpu0-32.trace_pipe_raw', True),
                     ('synthetic_edge_cpu0.trace_pipe_raw', True)):
        add(n, os.path.join(ft, n), 'pages', 'pages', short)
    if which == 'all':
        for rp, page in (('pages/abs_timestamp.page.zst', 4096),
                         ('pages/full_page_sched_switch.page.zst', 4096),
                         ('pages/switch_page_lost_events.page.zst', 4096),
                         ('pages/zero_padded.page.zst', 4096),
                         ('pages/invalid_page.page.zst', 4096),
                         ('recorded/overwrite_cpu0.raw.zst', 4096),
                         ('recorded/mixed_cpu0.raw.zst', 4096),
                         ('subbuf8k_cpu0.raw.zst', 8192)):
            n = os.path.basename(rp)[:-4]
            add(n, unz(rp, n), 'pages', 'pages', False, page=page)
    # Darwin: the kdebug V2 stream, a short head of it, V3 files
    cp = os.path.join(shared, 'data', 'darwin', 'coreprofilesessiontap.bin')
    add('coreprofilesessiontap.bin', cp, 'darwin-raw', 'darwin', False)
    if os.path.exists(cp) and want('coreprofile-head.bin'):
        head = os.path.join(inp, 'coreprofile-head.bin')
        open(head, 'wb').write(open(cp, 'rb').read()[:0xD000 + 64 * 400])
        add('coreprofile-head.bin', head, 'darwin-raw', 'darwin', True)
    if helper and os.path.exists(os.path.join(kcd, 'stackshot-sample')) and want('stackshots'):
        v3 = os.path.join(inp, 'stackshots.ktrace')
        r = subprocess.run([helper, 'write', v3, os.path.join(kcd, 'stackshot-sample'),
                            os.path.join(kcd, 'corpse-sample')], capture_output=True)
        if r.returncode == 0:
            add('stackshots.ktrace', v3, 'chunks', 'darwin', True)
    # kcdata: raw items, and gzip'd as the samples come
    for n, short in (('stackshot-sample', True), ('corpse-sample', False),
                     ('exitreason-sample', False), ('nested-sample', False),
                     ('stackshot-sample-new-arrays', False),
                     ('delta-stackshot-sample-new-arrays', False),
                     ('stackshot-fault-stats', False), ('stackshot-sample-sharedcachev2', False),
                     ('stackshot-sample-asid-pagetable', False)):
        p = os.path.join(kcd, n)
        if not os.path.exists(p) or not want(n):
            continue
        raw = open(p, 'rb').read()
        if raw[:2] == b'\x1f\x8b':
            if short:
                add(n + '.gz', p, 'generic', 'kcdata', short)
            raw = gzip.decompress(raw)
        dst = os.path.join(inp, n + '.kcdata')
        open(dst, 'wb').write(raw)
        add(n + '.kcdata', dst, 'kcdata', 'kcdata', short)
    add('compressed-stackshot-sample', os.path.join(tdata, 'kcdata', 'compressed-stackshot-sample'),
        'generic', 'kcdata', False)
    # KOFF: a buffer, its snapshot, crash dumps (tests/koff/mkcore.py)
    for variant, short in (('static', True), ('32', False), ('be', False)):
        if not want('koff'):
            break
        kdir = os.path.join(inp, 'koff-' + variant)
        r = subprocess.run([sys.executable, os.path.join(root, 'tests', 'koff', 'mkcore.py'),
                            kdir, variant], capture_output=True)
        if r.returncode != 0:
            continue
        buf, prog, core = (os.path.join(kdir, x) for x in ('buffer', 'prog', 'core'))
        add('koff-%s-core' % variant, core, 'elf', 'koff-core', short, extra={'prog': prog})
        if variant != 'static':
            continue
        add('koff-buffer', buf, 'generic', 'koff-buffer', True)
        snap = os.path.join(inp, 'koff-snapshot.ktrace')
        if subprocess.run([ktrace, 'dump', '-o', snap, '--buffer', buf],
                          capture_output=True).returncode == 0:
            add('koff-snapshot.ktrace', snap, 'chunks', 'darwin', True)
    # the inputs of issue #30 (each damaged or once misread)
    damaged = {'uaf_darwin_v3_trunc.ktrace', 'uaf_koff_snapshot_trunc',
               'json_darwin_v3_trunc.ktrace', 'v7zstd_bad_csize.dat'}
    if os.path.isdir(rel):
        for n in sorted(os.listdir(rel)):
            if n.endswith('.md'):
                continue
            p = os.path.join(rel, n)
            head = open(p, 'rb').read(16)
            if head[:10] == b'\x17\x08\x44tracing':
                kind, fam = 'tracedat', 'tracedat'
            elif head[:4] in (b'\x00\x02\xaa\x55', b'\x00\x03\xaa\x55'):
                kind, fam = ('darwin-raw', 'darwin') if head[1] == 2 else ('chunks', 'darwin')
            elif n.endswith('.raw'):
                kind, fam = 'pages', 'pages'
            elif n.endswith('.ktrace') or 'koff_snapshot' in n:
                kind, fam = 'chunks', 'darwin'
            elif n.endswith('.bin'):
                kind, fam = 'darwin-raw', 'darwin'
            else:
                kind, fam = 'generic', 'tracedat'
            add('reliability/' + n, p, kind, fam, True, damaged=n in damaged)
    return [i for i, short in out if which == 'all' or short]


# ---- commands ----

class Cmd:
    """argv with IN (the input), PROG (a core's program), OUT (a path in the output
    directory); out: what the output is; stdin: the input comes on standard input."""
    def __init__(self, label, argv, out=None, outname=None, stdin=False, partial=False,
                 reads_all=True, json_stdout=False, keeps_on_error=False):
        self.label, self.argv, self.out, self.outname = label, argv, out, outname
        self.stdin, self.partial, self.reads_all = stdin, partial, reads_all
        self.json_stdout, self.keeps_on_error = json_stdout, keeps_on_error


def commands(family):
    c = []
    if family == 'kcdata':
        return [Cmd('info', ['info', 'IN']),
                Cmd('info --json', ['info', '--json', 'IN'], json_stdout=True),
                Cmd('report', ['report', 'IN']),
                Cmd('report --format json', ['report', '--format', 'json', 'IN'],
                    json_stdout=True),
                Cmd('report --format plist', ['report', '--format', 'plist', 'IN']),
                Cmd('info -', ['info', '-'], stdin=True),
                Cmd('report --format json -', ['report', '--format', 'json', '-'],
                    stdin=True, json_stdout=True)]
    if family == 'koff-core':
        return [Cmd('dump PROG CORE', ['dump', 'PROG', 'IN']),
                Cmd('dump -v PROG CORE', ['dump', '-v', '-v', 'PROG', 'IN']),
                Cmd('dump -l PROG CORE', ['dump', '-l', 'PROG', 'IN'], reads_all=False),
                Cmd('dump -o PROG CORE', ['dump', '-o', 'OUT', 'PROG', 'IN'],
                    out='ktrace', outname='snap.ktrace')]
    c += [Cmd('info', ['info', 'IN']),
          Cmd('info --json', ['info', '--json', 'IN'], json_stdout=True),
          Cmd('report', ['report', 'IN']),
          Cmd('info -', ['info', '-'], stdin=True),
          Cmd('report -', ['report', '-'], stdin=True),
          Cmd('export perfetto', ['export', '-q', '--format', 'perfetto', '-o', 'OUT', 'IN'],
              out='perfetto', outname='t.perfetto-trace'),
          Cmd('export perfetto --partial', ['export', '-q', '--partial', '-o', 'OUT', 'IN'],
              out='perfetto', outname='t.pftrace', partial=True),
          Cmd('export json', ['export', '-q', '-o', 'OUT', 'IN'], out='json', outname='t.json'),
          Cmd('export json --partial', ['export', '-q', '--partial', '--format', 'json',
                                        '-o', 'OUT', 'IN'], out='json', outname='t.json',
              partial=True),
          Cmd('export json -o -', ['export', '-q', '--format', 'json', '-o', '-', 'IN'],
              json_stdout=True),
          Cmd('export json - (stdin)', ['export', '-q', '--format', 'json', '-o', 'OUT', '-'],
              out='json', outname='t.json', stdin=True),
          Cmd('export sqlite', ['export', '-o', 'OUT', 'IN'], out='sqlite', outname='t.db'),
          Cmd('export tsv', ['export', '--format', 'tsv', '-o', 'OUT', 'IN'], out='tsv',
              outname='tsv'),
          Cmd('export jsonl', ['export', '--format', 'jsonl', '-o', 'OUT', 'IN'], out='jsonl',
              outname='jsonl'),
          Cmd('export sqlite --partial', ['export', '--partial', '-o', 'OUT', 'IN'],
              out='sqlite', outname='t.sqlite', partial=True),
          Cmd('export tsv --partial', ['export', '--partial', '--format', 'tsv', '-o', 'OUT',
                                       'IN'], out='tsv', outname='tsv', partial=True),
          Cmd('export jsonl --partial', ['export', '--partial', '--format', 'jsonl', '-o',
                                         'OUT', 'IN'], out='jsonl', outname='jsonl',
              partial=True),
          Cmd('sql --db', ['sql', '--db', 'OUT', 'IN', 'select count(*) from event'],
              out='sqlite', outname='q.db'),
          Cmd('timeline html', ['timeline', '-q', '-o', 'OUT', 'IN'], out='html',
              outname='t.html', keeps_on_error=True),
          Cmd('timeline svg', ['timeline', '-q', '-o', 'OUT', 'IN'], out='svg',
              outname='t.svg', keeps_on_error=True),
          Cmd('timeline - (stdin)', ['timeline', '-q', '-o', 'OUT', '-'], out='html',
              outname='t.html', stdin=True, keeps_on_error=True)]
    for t in SQL_TABLES:
        c.append(Cmd('sql ' + t, ['sql', '--json', 'IN', 'select * from %s' % t],
                     json_stdout=True))
    if family == 'tracedat':
        c += [Cmd('report -l', ['report', '-l', 'IN']),
              Cmd('report -w', ['report', '-w', 'IN']),
              Cmd('report --profile', ['report', '--profile', 'IN']),
              Cmd('report --stat', ['report', '--stat', 'IN'], reads_all=False),
              Cmd('report -R', ['report', '-R', 'IN']),
              Cmd('report -t --cpu 0', ['report', '-t', '--cpu', '0', 'IN'], reads_all=False),
              Cmd('convert', ['convert', '-q', 'IN', 'OUT'], out='tracedat', outname='c.dat'),
              Cmd('convert v7 zstd', ['convert', '-q', 'IN', 'OUT', '--file-version', '7',
                                      '--compression', 'zstd'], out='tracedat',
                  outname='c.dat'),
              Cmd('convert v6', ['convert', '-q', 'IN', 'OUT', '--file-version', '6'],
                  out='tracedat', outname='c.dat'),
              Cmd('convert - (stdin)', ['convert', '-q', '-', 'OUT', '--compression', 'zlib'],
                  out='tracedat', outname='c.dat', stdin=True),
              Cmd('split -e', ['split', '-q', '-o', 'OUT', '-e', '300', 'IN'], out='split',
                  outname='piece', reads_all=False),      # one piece: the first 300
              Cmd('split -r -p', ['split', '-q', '-r', '-o', 'OUT', '-p', '2', 'IN'],
                  out='split', outname='piece')]
    if family == 'darwin':
        c += [Cmd('report --format json', ['report', '--format', 'json', 'IN'],
                  json_stdout=True),
              Cmd('report --csv', ['report', '--csv', 'IN'])]
    if family == 'koff-buffer':
        c += [Cmd('dump --buffer', ['dump', '--buffer', 'IN']),
              Cmd('dump -v --buffer', ['dump', '-v', '-v', '-t', '--buffer', 'IN']),
              Cmd('dump -o --buffer', ['dump', '-o', 'OUT', '--buffer', 'IN'], out='ktrace',
                  outname='snap.ktrace')]
    return c


# Commands run once per campaign on an endless standard input (/dev/zero): each must
# stop (the first bytes cannot be a trace) within the disk bound and the time limit.
ENDLESS = [Cmd('info - </dev/zero', ['info', '-'], stdin=True),
           Cmd('report - </dev/zero', ['report', '-'], stdin=True),
           Cmd('convert - </dev/zero', ['convert', '-q', '-', 'OUT'], out='tracedat',
               outname='c.dat', stdin=True),
           Cmd('split - </dev/zero', ['split', '-q', '-o', 'OUT', '-'], out='split',
               outname='piece', stdin=True),
           Cmd('export - </dev/zero', ['export', '-q', '-o', 'OUT', '-'], out='json',
               outname='t.json', stdin=True),
           Cmd('sql - </dev/zero', ['sql', '-', 'select count(*) from event'], stdin=True),
           Cmd('timeline - </dev/zero', ['timeline', '-q', '-o', 'OUT', '-'], out='html',
               outname='t.html', stdin=True, keeps_on_error=True)]


# ---- mutations ----

def breaks(kind, v, width, inp):
    """Does writing v over a field of this kind make the file structurally wrong?"""
    if kind == 'longsize':               # trace.dat: 4 or 8
        return v not in (4, 8)
    if kind == 'pagesize':               # trace.dat v6: the pages are of this size
        return v != inp.page
    if kind == 'size':                   # no size in these files comes near 2^31
        return v >= (1 << 31) and inp.kind in ('tracedat', 'kcdata', 'chunks')
    if kind == 'commit':                 # bits 0-26: bytes of records; 30, 31: flags
        return (v & ((1 << 27) - 1)) > inp.page
    return False


class Mutant:
    def __init__(self, cls, desc, damaged, fn):
        self.cls, self.desc, self.damaged, self.fn = cls, desc, damaged, fn

    def data(self, inp):
        return self.fn(inp.data)


def _trunc(b):
    return lambda d: d[:b]


def _write(off, width, v):
    def f(d):
        d = bytearray(d)
        d[off:off + width] = v.to_bytes(width, 'little')
        return bytes(d)
    return f


def _flip(k, bit):
    def f(d):
        d = bytearray(d)
        d[k] ^= 1 << bit
        return bytes(d)
    return f


def _set(k, n, v):
    def f(d):
        d = bytearray(d)
        d[k:k + n] = bytes([v]) * len(d[k:k + n])
        return bytes(d)
    return f


def _zero(off, n):
    def f(d):
        d = bytearray(d)
        d[off:off + n] = bytes(len(d[off:off + n]))
        return bytes(d)
    return f


def _dup(off, n):
    return lambda d: d[:off + n] + d[off:off + n] + d[off + n:]


def make_mutant(inp, shape, cls, rng):
    data, size = inp.data, len(inp.data)
    if size < 2:
        cls = 'bitflip'
    if cls == 'truncation':
        bl = sorted(b for b in shape.bounds if 0 < b < size)
        if bl and rng.random() < 0.85:
            b = rng.choice(bl) + rng.choice((-1, 0, 1, 0))
        else:
            b = rng.randrange(1, size)
        b = max(1, min(size - 1, b))
        if inp.kind == 'pages':
            damaged = b % inp.page != 0
        elif inp.kind in ('darwin-raw', 'generic', 'elf'):
            damaged = False  # a stream of events; a buffer's ring; a core's pieces
        else:
            damaged = b not in shape.whole
        return Mutant(cls, 'cut at %d of %d' % (b, size), damaged, _trunc(b))
    fields = [f for f in shape.fields if f[0] + f[1] <= size]
    if cls in ('extreme', 'inflate') and fields:
        off, width, kind = rng.choice(fields)
        old = int.from_bytes(data[off:off + width], 'little')
        mask = (1 << (8 * width)) - 1
        if cls == 'extreme':
            v = rng.choice((0, mask, 1 << (8 * width - 1), (1 << 31) if width >= 4 else 0x7f))
            damaged = breaks(kind, v, width, inp)
        else:
            v = rng.choice((old + 1, old + 8, old + 4096, old * 2 + 1, old + size)) & mask
            damaged = (kind == 'size' and inp.kind in ('tracedat', 'chunks', 'kcdata')
                       and v > size) or breaks(kind, v, width, inp)
        return Mutant(cls, '%s field of %d bytes at %d: %#x -> %#x' % (kind, width, off, old, v),
                      damaged, _write(off, width, v))
    units = [u for u in shape.units if u[0] + u[1] <= size and u[1] > 0]
    if cls in ('zero', 'duplicate') and units:
        off, n = rng.choice(units)
        if cls == 'zero':
            return Mutant(cls, 'zeroed %d bytes at %d' % (n, off), False, _zero(off, n))
        return Mutant(cls, 'repeated %d bytes at %d' % (n, off), False, _dup(off, n))
    if cls == 'byteset':
        k = rng.randrange(size)
        n = rng.randint(1, 16)
        v = rng.choice((0, 0xff, rng.randrange(256)))
        return Mutant(cls, '%d bytes at %d set to %#x' % (n, k, v), False, _set(k, n, v))
    k = rng.randrange(size)
    bit = rng.randrange(8)
    return Mutant('bitflip', 'bit %d of byte %d' % (bit, k), False, _flip(k, bit))


def structure(inp, ktrace):
    if inp.kind == 'tracedat':
        r = subprocess.run([ktrace, 'info', '--json', inp.path], capture_output=True)
        try:
            info = json.loads(r.stdout)
        except ValueError:
            info = None
        return tracedat_shape(inp.data, info)
    if inp.kind == 'pages':
        return pages_shape(inp.data, inp.page)
    if inp.kind == 'kcdata':
        return kcdata_shape(inp.data)
    if inp.kind == 'chunks':
        first = 56
        if inp.data[:4] == b'\x00\x03\xaa\x55' and len(inp.data) >= 16:
            # V3: the header chunk, then chunks from its end (its size says)
            first = 16 + struct.unpack_from('<Q', inp.data, 8)[0]
            first = first if first < len(inp.data) else 56
        return chunks_shape(inp.data, first)
    if inp.kind == 'darwin-raw':
        return darwin_raw_shape(inp.data)
    if inp.kind == 'elf':
        return elf_shape(inp.data)
    return generic_shape(inp.data)


# ---- running ----

class Result:
    def __init__(self):
        self.rc, self.timeout, self.stdout, self.stderr = None, False, b'', b''
        self.out_entries, self.tmp_entries, self.disk = [], [], 0


def limited(ctx, argv):
    """argv under the limits: no core file, the disk bound per file (RLIMIT_FSIZE) and
    in limit mode the address space (RLIMIT_AS), set by a shell that then execs argv
    (a preexec_fn is not safe with the threads of --jobs)."""
    script = 'ulimit -c 0 && ulimit -f %d' % (ctx.fsize // 512)
    if ctx.mode == 'limit':
        script += ' && ulimit -v %d' % (AS_LIMIT // 1024)
    return ['/bin/sh', '-c', script + ' && exec "$@"', 'ktrace-robust'] + argv


def dir_size(path):
    total = 0
    for dp, dn, fn in os.walk(path):
        for f in fn:
            try:
                total += os.lstat(os.path.join(dp, f)).st_size
            except OSError:
                pass
    return total


def clean(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.unlink(path)


def run_one(ctx, cmd, in_path, stdin_path, slot, timeout, prog=None):
    """Runs cmd in slot's own directories; returns a Result (the outputs stay in
    slot/out for the checks)."""
    outd, tmpd = os.path.join(slot, 'out'), os.path.join(slot, 'tmp')
    for d in (outd, tmpd):
        clean(d)
        os.makedirs(d)
    argv = [ctx.ktrace]
    for a in cmd.argv:
        if a == 'IN':
            argv.append(in_path)
        elif a == 'PROG':
            argv.append(prog)
        elif a == 'OUT':
            argv.append(os.path.join(outd, cmd.outname))
        else:
            argv.append(a)
    env = dict(os.environ)
    env['TMPDIR'] = tmpd
    env['LC_ALL'] = 'C'
    if ctx.mode == 'san':
        extra = 'detect_leaks=1:malloc_limit_mb=%d:allocator_may_return_null=0' % (AS_LIMIT // MIB)
        env['ASAN_OPTIONS'] = (env.get('ASAN_OPTIONS', '') + ':' + extra).lstrip(':')
        env['UBSAN_OPTIONS'] = (env.get('UBSAN_OPTIONS', '') + ':print_stacktrace=1').lstrip(':')
    r = Result()
    so, se = os.path.join(slot, 'stdout'), os.path.join(slot, 'stderr')
    with open(so, 'wb') as fo, open(se, 'wb') as fe, open(stdin_path or os.devnull, 'rb') as fi:
        p = subprocess.Popen(limited(ctx, argv), stdin=fi, stdout=fo, stderr=fe, cwd=outd,
                             env=env, start_new_session=True)
        try:
            r.rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            r.timeout = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
    r.argv = argv
    with open(se, 'rb') as f:
        r.stderr = f.read(256 * 1024)
    r.stdout_path = so
    r.stdout_size = os.path.getsize(so)
    r.out_entries = sorted(os.listdir(outd))
    r.tmp_entries = sorted(os.listdir(tmpd))
    r.disk = dir_size(outd) + dir_size(tmpd) + r.stdout_size + os.path.getsize(se)
    r.outd = outd
    return r


# ---- checks ----

def printable_utf8(err):
    try:
        text = err.decode('utf-8')
    except UnicodeDecodeError as e:
        return 'stderr is not UTF-8 | %s' % e
    for line in text.split('\n'):
        if line and not all(ch.isprintable() or ch == '\t' for ch in line):
            return 'stderr line not printable | %r' % line[:120]
    return None


def san_summary(err):
    text = err.decode('utf-8', 'replace')
    kind = ''
    m = re.search(r'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer): ([\w-]+)', text)
    if m:
        kind = '%s: %s' % (m.group(1), m.group(2))
    m2 = re.search(r'(\S+:\d+:\d+): runtime error: (.*)', text)
    if m2 and not kind:
        kind = 'UBSan: %s: %s' % (os.path.basename(m2.group(1)), m2.group(2)[:100])
    # the first frame of ktrace's own code (paths relative to the tree, as built), and
    # for a use after free, where it was freed
    stacks = re.split(r'\n(?=\S)', text)
    frames = []
    for st in stacks:
        for fm in re.finditer(r'#\d+ 0x[0-9a-f]+ in (\S+) ((?:lib|src|include)/\S+)', st):
            frames.append('%s (%s)' % (fm.group(1), fm.group(2)))
            break
    frame = frames[0] if frames else ''
    if 'use-after-free' in kind and len(frames) > 1:
        frame += ', freed in ' + frames[1]
    if not kind:
        kind = text.strip().split('\n')[0][:120]
    return kind + (' in ' + frame if frame else '')


def protobuf_complete(path):
    """The top level of a Perfetto trace: field 1 (packet), length-delimited, to the end."""
    with open(path, 'rb') as f:
        data = f.read()
    p, n = 0, len(data)

    def varint(p):
        v, s = 0, 0
        while True:
            if p >= n or s > 63:
                raise ValueError('varint runs past the end')
            b = data[p]
            v |= (b & 0x7f) << s
            p += 1
            s += 7
            if not b & 0x80:
                return v, p
    try:
        while p < n:
            tag, p = varint(p)
            if tag != (1 << 3 | 2):
                return 'perfetto: top-level tag %#x at %d (not a packet)' % (tag, p)
            ln, p = varint(p)
            if p + ln > n:
                return 'perfetto: packet at %d runs past the end (%d > %d)' % (p, p + ln, n)
            p += ln
    except ValueError as e:
        return 'perfetto: %s' % e
    return None


def json_error(data):
    try:
        json.loads(data)
    except ValueError as e:
        return str(e)
    return None


def check_output(ctx, cmd, r):
    """The output of a run that kept it: complete and readable."""
    path = os.path.join(r.outd, cmd.outname)
    k = cmd.out
    if k == 'split':
        pieces = [e for e in r.out_entries if re.fullmatch(re.escape(cmd.outname) + r'\.\d+', e)]
        if r.rc == 0 and not pieces:
            return 'split exited 0 but wrote no piece'
        for e in pieces[:2]:
            why = readable(ctx, os.path.join(r.outd, e))
            if why:
                return 'split piece %s: %s' % (e, why)
        return None
    if not os.path.lexists(path):
        return 'exit 0 but no output %s' % cmd.outname if r.rc == 0 else None
    if k == 'perfetto':
        return protobuf_complete(path)
    if k == 'json':
        with open(path, 'rb') as f:
            e = json_error(f.read())
        return e and 'invalid JSON in %s (%s)' % (cmd.outname, e)
    if k == 'jsonl' or k == 'tsv':
        ext = '.' + k
        for t in TSV_TABLES:
            f = os.path.join(path, t + ext)
            if not os.path.exists(f):
                return '%s: no %s%s' % (cmd.outname, t, ext)
            with open(f, 'rb') as fh:
                for i, line in enumerate(fh):
                    if not line.endswith(b'\n'):
                        return '%s%s: line %d not ended' % (t, ext, i + 1)
                    if k == 'jsonl':
                        e = json_error(line)
                        if e:
                            return 'invalid JSON in %s%s line %d (%s)' % (t, ext, i + 1, e)
        for s in ('schema.sqlite.sql', 'schema.clickhouse.sql'):
            if not os.path.exists(os.path.join(path, s)):
                return '%s: no %s' % (cmd.outname, s)
        return None
    if k == 'sqlite':
        try:
            db = sqlite3.connect('file:%s?mode=ro' % path, uri=True)
            q = db.execute('pragma quick_check').fetchone()[0]
            if q != 'ok':
                return 'sqlite quick_check: %s' % q
            db.execute('select count(*) from event').fetchone()
            db.close()
        except sqlite3.Error as e:
            return 'sqlite: %s' % e
        return None
    if k == 'html':
        with open(path, 'rb') as f:
            f.seek(max(0, os.path.getsize(path) - 64))
            tail = f.read()
        return None if tail.rstrip().endswith(b'</html>') else 'html page not closed'
    if k == 'svg':
        try:
            ET.parse(path)
        except ET.ParseError as e:
            return 'svg is not well-formed XML (%s)' % e
        return None
    if k in ('tracedat', 'ktrace'):
        return readable(ctx, path)
    return None


def readable(ctx, path):
    env = dict(os.environ, LC_ALL='C')
    try:
        p = subprocess.run(limited(ctx, [ctx.ktrace, 'info', path]), capture_output=True,
                           timeout=ctx.timeout, env=env)
    except subprocess.TimeoutExpired:
        return 'ktrace info on the output hangs'
    if p.returncode != 0:
        return 'written with exit 0 but ktrace info on it exits %d: %s' % (
            p.returncode, p.stderr.decode('utf-8', 'replace').strip().split('\n')[0][:160])
    return None


def check(ctx, cmd, r, damaged, names):
    """None, or what went wrong (the first failed promise)."""
    if r.timeout:
        return 'hang (no end after %ds)' % ctx.timeout
    if any(m in r.stderr for m in SAN_MARKS):
        return 'sanitizer: ' + san_summary(r.stderr)
    if r.rc < 0:
        if -r.rc == signal.SIGXFSZ:
            return 'disk use beyond the bound (SIGXFSZ: a file passed %d MiB)' % (ctx.fsize // MIB)
        return 'killed by signal %d (%s)' % (-r.rc, signal.Signals(-r.rc).name)
    if r.rc not in (0, 1, 2):
        return 'exit status %d' % r.rc
    if r.disk >= ctx.fsize:
        return 'disk use %d MiB beyond the bound' % (r.disk // MIB)
    if re.search(rb'out of memory|cannot allocate memory', r.stderr, re.I):
        return '"out of memory" below the limit: %s' % tidy(first_line(r.stderr), names, r.outd)
    lines = [l for l in r.stderr.decode('utf-8', 'replace').split('\n') if l.strip()]
    # a usage error names the command (a mutant can turn into another format, to which
    # an option does not apply)
    prefixes = ['ktrace: %s: ' % n for n in names]
    if r.rc == 2:
        prefixes.append('ktrace: %s: ' % cmd.argv[0])
    for line in lines:
        if not line.startswith(tuple(prefixes)):
            return misnamed(line, r.outd, names)
    bad = printable_utf8(r.stderr)
    if bad:
        return bad
    if r.rc == 2 and not lines:
        return 'exit 2 with an empty stderr'
    if r.tmp_entries:
        return 'left in TMPDIR: %s' % ', '.join(r.tmp_entries[:4])
    if damaged and cmd.reads_all and r.rc == 0 and not lines:
        if cmd.json_stdout and r.stdout_size:
            try:
                doc = json.load(open(r.stdout_path, 'rb'))
                if isinstance(doc, dict) and (doc.get('error') or doc.get('warnings')):
                    return None
            except ValueError:
                pass
        return 'exit 0 with an empty stderr on a damaged file'
    # (a file no longer recognised as its format has no place to name)
    if damaged and r.rc == 1 and lines and not any(
            re.search(r'offset (0x)?[0-9a-f]+|unrecognised file format', l) for l in lines):
        return 'no offset in the error on a damaged file: %r' % tidy(lines[0], names, r.outd)
    if cmd.json_stdout and r.stdout_size:
        with open(r.stdout_path, 'rb') as f:
            e = json_error(f.read())
        if e:
            return 'invalid JSON on stdout (%s)' % e
    # what is left in the output directory
    if cmd.out:
        keep = r.rc == 0 or (r.rc == 1 and (cmd.partial or cmd.keeps_on_error))
        allowed = set()
        if cmd.out == 'split':
            allowed = {e for e in r.out_entries
                       if re.fullmatch(re.escape(cmd.outname) + r'\.\d+', e)}
        elif keep:
            allowed = {cmd.outname}
        left = [e for e in r.out_entries if e not in allowed]
        if left:
            return '%s: left %s' % ('exit %d' % r.rc, ', '.join(left[:4]))
        if keep and r.rc != 2:
            return check_output(ctx, cmd, r)
    elif r.out_entries:
        return 'wrote into the working directory: %s' % ', '.join(r.out_entries[:4])
    return None


def first_line(err):
    return err.decode('utf-8', 'replace').strip().split('\n')[0][:160]


def tidy(line, names, outd):
    """A stderr line with the input's path as IN and the output directory as OUT."""
    for n in names:
        if n != '-':
            line = line.replace(n, 'IN' if n == names[0] else 'PROG')
    return line.replace(outd + '/', 'OUT/')[:200]


def misnamed(line, outd, names):
    """What is wrong with a stderr line that does not begin with 'ktrace: INPUT: '.
    The part after ' | ' is left out of the failure's signature."""
    m = re.match(r'ktrace: (.*?): (.*)', line)
    if not m:
        return 'stderr line without a file name: %r' % tidy(line, names, outd)
    name, rest = m.group(1), m.group(2)
    if name.startswith(outd + '/'):
        return 'stderr line names the output, not the input: %r' % tidy(line, names, outd)
    if re.fullmatch(r'CPU \d+|[a-z]+', name):
        return 'stderr line without a file name: %r' % tidy(line, names, outd)
    return 'stderr line names a file that is no input (freed memory?) | %r (name %r)' % (
        'ktrace: ?: ' + tidy(rest, names, outd), name)


def signature(cmd, why):
    """What makes two failures the same: the command and the symptom without numbers
    and details."""
    w = why.split(' | ')[0]
    w = re.sub(r'0x[0-9a-f]+|\d+', 'N', w)
    return '%s: %s' % (cmd.label.split(' ')[0], w[:220])


# ---- the campaign ----

class Ctx:
    pass


def load_known(path):
    known = []
    if path and os.path.exists(path):
        for line in open(path):
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            item, _, rx = line.partition('\t')
            known.append((item.strip(), re.compile(rx.strip())))
    return known


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ktrace')
    ap.add_argument('root')
    ap.add_argument('shared')
    ap.add_argument('--seed', type=int, default=13)
    ap.add_argument('--runs', type=int, default=400, help='runs of ktrace in all')
    ap.add_argument('--inputs', choices=('short', 'all'), default='short')
    ap.add_argument('--mode', choices=('auto', 'san', 'limit'), default='auto')
    ap.add_argument('--per-mutant', type=int, default=3, help='commands per mutant')
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--timeout', type=int, default=30)
    ap.add_argument('--disk-mib', type=int, default=0,
                    help='the disk bound (default: 256 MiB, or 32 times the largest input)')
    ap.add_argument('--workdir')
    ap.add_argument('--save', help='keep the mutants of the failures here')
    ap.add_argument('--known', help='known failures: ITEM<TAB>regex per line')
    ap.add_argument('--verbose', action='store_true', help='every failure, not 8 per line')
    ap.add_argument('--only', help='only the inputs whose name holds this')
    a = ap.parse_args()

    ctx = Ctx()
    ctx.ktrace, ctx.timeout = os.path.abspath(a.ktrace), a.timeout
    mode = a.mode
    if mode == 'auto':
        with open(ctx.ktrace, 'rb') as f:
            mode = 'san' if b'__asan_init' in f.read() else 'limit'
    ctx.mode = mode
    work = a.workdir or tempfile.mkdtemp(prefix='ktrace-robust-')
    os.makedirs(work, exist_ok=True)
    helper = os.path.join(a.root, os.environ.get('B', 'build'), 'tests', 'darwin', 'test_stackshot')
    inputs = prepare(ctx.ktrace, a.root, a.shared, work, a.inputs,
                     helper if os.access(helper, os.X_OK) else None, a.only)
    if not inputs:
        print('1..1')
        print('ok - robust # SKIP no input data')
        return
    biggest = max(len(i.data) for i in inputs)
    ctx.fsize = (a.disk_mib * MIB) if a.disk_mib else max(256 * MIB, 32 * biggest)
    known = load_known(a.known)

    # the work list, in a fixed order from the seed
    rng = random.Random(a.seed)
    for inp in inputs:
        inp.commands = commands(inp.family)
    share = max(a.per_mutant, a.runs // len(inputs))
    work_list = []          # (input, mutant, cmd)
    for inp in inputs:
        shape = structure(inp, ctx.ktrace)
        cycle = []

        def next_cmd():
            if not cycle:
                cycle.extend(rng.sample(inp.commands, len(inp.commands)))
            return cycle.pop()
        n = 0
        # pristine: every command when the share allows, else the next few
        pr = Mutant('pristine', 'as it is', inp.damaged, lambda d: d)
        k = len(inp.commands) if share >= 3 * len(inp.commands) else a.per_mutant
        for _ in range(min(k, len(inp.commands))):
            work_list.append((inp, pr, next_cmd()))
            n += 1
        classes = [c for c in CLASSES if c != 'pristine']
        if inp.damaged:
            classes = ['bitflip', 'byteset', 'truncation']
        i = 0
        while n < share:
            m = make_mutant(inp, shape, classes[i % len(classes)], rng)
            i += 1
            for _ in range(a.per_mutant):
                work_list.append((inp, m, next_cmd()))
                n += 1
    endless = ENDLESS if a.inputs == 'all' else [c for c in ENDLESS if c.label.startswith(
        ('info', 'convert'))]

    groups = []             # (input name, class) in order
    for inp, m, cmd in work_list:
        g = (inp.name, m.cls)
        if not groups or groups[-1] != g:
            if g not in groups:
                groups.append(g)
    print('1..%d' % (len(groups) + 1))
    print('# mode %s (%s), %d inputs, %d runs, seed %d, disk bound %d MiB, time limit %ds' % (
        mode, 'sanitizers' if mode == 'san' else 'address space %d MiB' % (AS_LIMIT // MIB),
        len(inputs), len(work_list) + len(endless), a.seed, ctx.fsize // MIB, a.timeout))
    sys.stdout.flush()

    slots = threading.local()
    slot_n = [0]
    lock = threading.Lock()

    def my_slot():
        if not hasattr(slots, 'dir'):
            with lock:
                slot_n[0] += 1
                slots.dir = os.path.join(work, 'slot%d' % slot_n[0])
            os.makedirs(slots.dir, exist_ok=True)
        return slots.dir

    def do(item):
        inp, m, cmd = item
        slot = my_slot()
        ind = os.path.join(slot, 'in')
        clean(ind)
        os.makedirs(ind)
        path = os.path.join(ind, os.path.basename(inp.name))
        with open(path, 'wb') as f:
            f.write(m.data(inp))
        prog = inp.extra.get('prog')
        names = ['-'] if cmd.stdin else [path]
        if prog:
            names.append(prog)
        r = run_one(ctx, cmd, None if cmd.stdin else path, path if cmd.stdin else None,
                    slot, a.timeout, prog)
        why = check(ctx, cmd, r, m.damaged, names)
        saved = None
        if why and a.save:
            saved = save(a.save, inp, m, cmd, why, path)
        return why, saved

    def do_endless(cmd):
        slot = my_slot()
        r = run_one(ctx, cmd, None, '/dev/zero', slot, min(a.timeout, 20))
        return check(ctx, cmd, r, False, ['-'])

    saved_sigs = {}
    save_lock = threading.Lock()

    def save(dest, inp, m, cmd, why, path):
        sig = signature(cmd, why)
        with save_lock:
            n = saved_sigs.get(sig, 0)
            if n >= 3:
                return None
            saved_sigs[sig] = n + 1
        h = hashlib.sha1(sig.encode()).hexdigest()[:8]
        name = '%s-%d-%s' % (h, n, os.path.basename(inp.name))
        try:
            os.makedirs(dest, exist_ok=True)
            shutil.copyfile(path, os.path.join(dest, name))
        except OSError as e:
            print('# could not save %s: %s' % (name, e), file=sys.stderr)
            return None
        sub = {'IN': name, 'PROG': inp.extra.get('prog'), 'OUT': 'OUT/%s' % cmd.outname}
        argv = ['ktrace'] + [sub.get(x, x) for x in cmd.argv]
        line = '%s\t%s%s\t%s\t%s (%s)\t%s\n' % (
            h, ' '.join(argv), ' <' + name if cmd.stdin else '', why, inp.name, m.desc, sig)
        with save_lock:
            with open(os.path.join(dest, 'index.tsv'), 'a') as f:
                f.write(line)
        return name

    if a.jobs > 1:
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            results = list(ex.map(do, work_list))
            endless_results = list(ex.map(do_endless, endless))
    else:
        results = [do(x) for x in work_list]
        endless_results = [do_endless(c) for c in endless]

    # the report, in the work list's order
    per_group = {}
    distinct = {}
    for (inp, m, cmd), (why, saved) in zip(work_list, results):
        g = per_group.setdefault((inp.name, m.cls), {'runs': 0, 'muts': set(), 'fail': []})
        g['runs'] += 1
        g['muts'].add(m.desc)
        if why:
            line = 'ktrace %s (%s: %s): %s' % (cmd.label, inp.name, m.desc, why)
            item = next((k for k, rx in known if rx.search(line)), None)
            g['fail'].append((line + (' [known: %s]' % item if item else ''), item))
            sig = signature(cmd, why)
            d = distinct.setdefault(sig, {'n': 0, 'first': line, 'item': item, 'saved': saved,
                                          'labels': set(), 'inputs': set()})
            d['n'] += 1
            d['labels'].add(cmd.label)
            d['inputs'].add(inp.family)
    seen_items = {d['item'] for d in distinct.values() if d['item']}
    for name, cls in groups:
        g = per_group[(name, cls)]
        desc = '%s: %d %s mutants, %d runs' % (name, len(g['muts']), cls, g['runs'])
        fails = g['fail']
        if not fails:
            print('ok - %s' % desc)
        elif all(item for _, item in fails):
            print('ok - %s # SKIP known failures (%s)' % (
                desc, ', '.join(sorted({i for _, i in fails}))))
        else:
            print('not ok - %s' % desc)
        for f, item in fails[:None if a.verbose else 8]:
            print('#   %s' % f)
        if len(fails) > 8 and not a.verbose:
            print('#   ... %d more' % (len(fails) - 8))
    bad_endless = [(c, w) for c, w in zip(endless, endless_results) if w]
    desc = 'endless standard input (/dev/zero): %d commands stop within the bounds' % len(endless)
    lines = []
    for c, w in bad_endless:
        line = 'ktrace %s: %s' % (c.label, w)
        item = next((k for k, rx in known if rx.search(line)), None)
        lines.append((line + (' [known: %s]' % item if item else ''), item))
        d = distinct.setdefault(signature(c, w), {'n': 0, 'first': line, 'item': item,
                                                  'saved': None, 'labels': set(),
                                                  'inputs': set()})
        d['n'] += 1
        d['labels'].add(c.label)
        d['inputs'].add('endless')
    if not lines:
        print('ok - %s' % desc)
    elif all(i for _, i in lines):
        print('ok - %s # SKIP known failures (%s)' % (desc, ', '.join(sorted({i for _, i in lines}))))
    else:
        print('not ok - %s' % desc)
    for l, _ in lines:
        print('#   %s' % l)
    seen_items |= {i for _, i in lines if i}
    for item in sorted({k for k, _ in known} - seen_items):
        print('# known failure %s not met by this run (its seed, inputs and %s mode): when the '
              'item is fixed, remove its lines from %s' % (item, mode, a.known))
    total = len(work_list) + len(endless)
    nfail = sum(d['n'] for d in distinct.values())
    print('# %d runs of ktrace (%s mode) on %d inputs, seed %d: %d failed, %d distinct' % (
        total, mode, len(inputs), a.seed, nfail, len(distinct)))
    for sig, d in sorted(distinct.items(), key=lambda x: -x[1]['n']):
        print('# %5d x %s%s' % (d['n'], sig, ' [known: %s]' % d['item'] if d['item'] else ''))
        print('#         commands: %s; inputs: %s' % (', '.join(sorted(d['labels'])),
                                                    ', '.join(sorted(d['inputs']))))
        print('#         e.g. %s%s' % (d['first'][:300],
                                      ' (saved as %s)' % d['saved'] if d['saved'] else ''))
    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
