#!/usr/bin/env python3
"""Hostile-input driver: mutates real traces and runs every subcommand on them.

  robust.py KTRACE ROOT SHARED --seed N --runs N [--timeout S] [--workdir DIR]

Inputs: the shared data and the repository's test traces, one of each format
(trace.dat v6 and v7, raw ring-buffer pages, Darwin V3 and raw streams, kcdata, a
KOFF buffer and snapshot). Mutations, drawn in a fixed order from the seed:
  - truncations at the structural boundaries of each format (section, chunk, item,
    page and header field starts), one byte before and after them, and in between;
  - extreme values (0, all ones, 2^31, 2^63) written over structural fields (sizes,
    offsets, commit words, counts, header fields);
  - bit flips anywhere.
Every run of `ktrace info`, `info --json`, `report` (and `report --format json` for
kcdata, `convert` for trace.dat, `dump` for KOFF buffers) is checked for:
  - no crash, no sanitizer report, no hang (a time limit per run);
  - no exit 0 with an empty stderr on a structurally damaged file (truncations inside
    the data and extreme sizes: the file must be refused or warned about);
  - every stderr line is printable UTF-8;
  - every --json output (and report --format json) is valid JSON;
  - no output file and no temporary file left when convert fails.
Prints one "ok"/"not ok" line per input file and mutation class, with the failures
(command, mutation, what went wrong) as comments; exits 0. Reproduce a failure with
the same seed."""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

WHOLE = set()      # cut offsets that leave a valid file (chunk starts), per input

SAN_MARKS = (b'AddressSanitizer', b'UndefinedBehaviorSanitizer', b'runtime error:',
             b'LeakSanitizer')


# ---- structural fields of each format: (boundaries, [(offset, size)] of fields) ----

def tracedat_fields(data, info):
    bounds, fields = {0, 10, 12, 13, 14, 18}, [(13, 1, 'header'), (14, 4, 'header')]
    version = data[10:11]
    if version == b'7':
        p = data.index(b'\0', 18) + 1          # compression name
        p = data.index(b'\0', p) + 1           # compression version
        bounds.add(p)
        fields.append((p, 8, 'offset'))        # first options offset
        p += 8
        while p + 16 <= len(data):
            bounds.update((p, p + 4, p + 8, p + 16))
            fields.append((p + 8, 8, 'size'))  # section size
            size = struct.unpack_from('<Q', data, p + 8)[0]
            if size > len(data):
                break
            p += 16 + size
    else:
        p = 18
        for name in (b'header_page\0', b'header_event\0'):
            if data[p:p + len(name)] != name:
                break
            bounds.add(p)
            p += len(name)
            fields.append((p, 8, 'size'))
            p += 8 + struct.unpack_from('<Q', data, p)[0]
            bounds.add(p)
        if p + 4 <= len(data):
            fields.append((p, 4, 'count'))     # ftrace format count
    for b in (info or {}).get('buffers', []):
        for c in b.get('cpus', []):
            off, size = c.get('offset', 0), c.get('size', 0)
            bounds.update((off, off + 16, off + size // 2, off + size))
            page = b.get('page_size') or 4096
            if size and not b.get('compressed'):
                for k in range(0, min(size, 8 * page), page):
                    fields.append((off + k + 8, 8, 'commit'))
    return bounds, fields


def pages_fields(data, page=4096):
    bounds, fields = set(), []
    for k in range(0, len(data), page):
        bounds.update((k, k + 8, k + 16, k + page // 2))
        fields.append((k + 8, 8, 'commit'))
    return bounds, fields


def kcdata_fields(data):
    bounds, fields, p = {0}, [], 0
    while p + 16 <= len(data) and len(fields) < 400:
        bounds.update((p, p + 4, p + 8, p + 16))
        fields.append((p + 4, 4, 'size'))      # item size
        size = struct.unpack_from('<I', data, p + 4)[0]
        if size > len(data):
            break
        p += 16 + size
    return bounds, fields


def chunks_fields(data, first, step_hdr=16):
    """Darwin V3 and KOFF snapshots: u32 tag, u16 major, u16 minor, u64 size chunks.
    A cut at the start of a chunk leaves a valid, shorter container."""
    bounds, fields, p = {0, 8, 16, first}, [(8, 8, 'size')], first
    while p + step_hdr <= len(data) and len(fields) < 400:
        bounds.update((p, p + 8, p + 16))
        WHOLE.add(p)
        fields.append((p + 8, 8, 'size'))
        size = struct.unpack_from('<Q', data, p + 8)[0]
        if size > len(data):
            break
        p += 16 + ((size + 7) & ~7)
    return bounds, fields


def darwin_raw_fields(data, info):
    off = (info or {}).get('events_offset') or 0
    bounds = {0, 4, 8, 16, 24, off, off + 32, off + 64}
    return bounds, [(4, 4, 'count'), (8, 8, 'count')]


# ---- inputs ----

class Input:
    def __init__(self, name, path, kind, commands):
        self.name, self.path, self.kind, self.commands = name, path, kind, commands
        self.data = open(path, 'rb').read()


def prepare(ktrace, root, shared, work):
    ft, inputs = os.path.join(shared, 'data', 'ftrace'), []
    td = [['info'], ['info', '--json'], ['report'], ['convert']]
    for n in ('schedviz_cpu0.v6.dat', 'schedviz_cpu0.v7zstd.dat', 'synthetic_edge.v6.dat',
              'synthetic_edge.v7zstd.dat', 'trappy_tests_trace.v7zstd.dat'):
        p = os.path.join(ft, n)
        if os.path.exists(p):
            inputs.append(Input(n, p, 'tracedat', td))
    z = os.path.join(root, 'tests', 'data', 'tracedat', 'instance.v6.dat.zst')
    if os.path.exists(z) and shutil.which('zstd'):
        out = os.path.join(work, 'instance.v6.dat')
        subprocess.run(['zstd', '-q', '-d', '-f', z, '-o', out], check=True)
        inputs.append(Input('instance.v6.dat', out, 'tracedat', td))
    pg = [['info'], ['info', '--json'], ['report']]
    for n in ('schedviz_cpu0.trace_pipe_raw', 'schedviz_cpu0-32.trace_pipe_raw',
              'synthetic_edge_cpu0.trace_pipe_raw'):
        p = os.path.join(ft, n)
        if os.path.exists(p):
            inputs.append(Input(n, p, 'pages', pg))
    d = os.path.join(shared, 'data', 'darwin', 'coreprofilesessiontap.bin')
    if os.path.exists(d):
        inputs.append(Input('coreprofilesessiontap.bin', d, 'darwin-raw',
                            [['info'], ['info', '--json'], ['report'], ['report', '--csv']]))
    kc = [['info'], ['info', '--json'], ['report'], ['report', '--format', 'json'],
          ['report', '--format', 'plist']]
    for n in ('stackshot-sample', 'corpse-sample', 'exitreason-sample', 'nested-sample'):
        p = os.path.join(shared, 'data', 'kcdata', n)
        if os.path.exists(p):
            raw = open(p, 'rb').read()
            if raw[:2] == b'\x1f\x8b':          # gzip'd sample: its kcdata
                import gzip
                raw = gzip.decompress(raw)
            out = os.path.join(work, n + '.kcdata')
            open(out, 'wb').write(raw)
            inputs.append(Input(n, out, 'kcdata', kc))
    # a KOFF buffer (tests/koff/mkcore.py), a snapshot of it, and a Darwin V3 file
    kdir = os.path.join(work, 'koff')
    r = subprocess.run([sys.executable, os.path.join(root, 'tests', 'koff', 'mkcore.py'), kdir],
                       capture_output=True)
    if r.returncode == 0:
        buf = os.path.join(kdir, 'buffer')
        inputs.append(Input('koff-buffer', buf, 'koff',
                            [['info'], ['info', '--json'], ['report'], ['dump', '--buffer']]))
        snap = os.path.join(work, 'snap.ktrace')
        if subprocess.run([ktrace, 'dump', '-o', snap, '--buffer', buf],
                          capture_output=True).returncode == 0:
            inputs.append(Input('koff-snapshot', snap, 'chunks',
                                [['info'], ['info', '--json'], ['report']]))
    return inputs


def structure(inp, ktrace):
    info = None
    if inp.kind in ('tracedat', 'darwin-raw'):
        r = subprocess.run([ktrace, 'info', '--json', inp.path], capture_output=True)
        try:
            info = json.loads(r.stdout)
        except ValueError:
            info = None
    if inp.kind == 'tracedat':
        return tracedat_fields(inp.data, info)
    if inp.kind == 'pages':
        return pages_fields(inp.data)
    if inp.kind == 'kcdata':
        return kcdata_fields(inp.data)
    if inp.kind == 'chunks':
        return chunks_fields(inp.data, 56)
    if inp.kind == 'darwin-raw':
        return darwin_raw_fields(inp.data, info)
    return {0, 64, 128, 256, 512}, [(0, 8, 'count'), (64, 8, 'count')]


# ---- mutations ----

def breaks(kind, v, width, fmt):
    """Does writing v over a field of this kind make the file structurally wrong?"""
    if kind == 'header':                 # trace.dat long size (4/8) and page size
        return v not in (4, 8, 4096)
    if kind == 'size':                   # no size in these files comes near 2^31
        return v >= (1 << 31) and fmt in ('tracedat', 'kcdata', 'chunks')
    if kind == 'commit':                 # bits 0-26: bytes of records; 30, 31: flags
        return (v & ((1 << 27) - 1)) > 4096
    return False


def mutations(inp, bounds, fields, rng, n):
    """n mutations: (class, description, bytes, damaged) where damaged says the file is
    structurally broken (it must not pass in silence)."""
    size = len(inp.data)
    bl = sorted(b for b in bounds if 0 < b < size)
    out = []
    for i in range(n):
        c = i % 3
        if c == 0 and bl:
            b = rng.choice(bl) + rng.choice((-1, 0, 1, 0))
            b = max(1, min(size - 1, b))
            # a cut at a page, chunk or record start leaves a valid, shorter file
            damaged = b not in WHOLE
            if inp.kind == 'pages':
                damaged = b % 4096 != 0
            if inp.kind in ('darwin-raw', 'koff'):
                damaged = False      # a stream of 64-byte events; a buffer's ring
            out.append(('truncation', 'cut at %d of %d' % (b, size), inp.data[:b], damaged))
        elif c == 1 and fields:
            off, width, kind = rng.choice(fields)
            if off + width > size:
                continue
            v = rng.choice((0, (1 << (8 * width)) - 1, 1 << (8 * width - 1), 1 << 31 if width >= 4 else 0x7f))
            d = bytearray(inp.data)
            d[off:off + width] = v.to_bytes(width, 'little')
            out.append(('extreme', '%s field of %d bytes at %d = %#x' % (kind, width, off, v),
                        bytes(d), breaks(kind, v, width, inp.kind)))
        else:
            d = bytearray(inp.data)
            k = rng.randrange(size)
            bit = rng.randrange(8)
            d[k] ^= 1 << bit
            out.append(('bitflip', 'bit %d of byte %d' % (bit, k), bytes(d), False))
    return out


# ---- running and checking ----

def printable_utf8(err):
    try:
        text = err.decode('utf-8')
    except UnicodeDecodeError as e:
        return 'stderr is not UTF-8 (%s)' % e
    for line in text.split('\n'):
        if line and not all(ch.isprintable() or ch == '\t' for ch in line):
            return 'stderr line not printable: %r' % line[:120]
    return None


def run_one(ktrace, cmd, path, work, timeout):
    out_file = None
    argv = [ktrace] + cmd
    if cmd == ['convert']:
        out_dir = os.path.join(work, 'out')
        for f in os.listdir(out_dir):
            os.unlink(os.path.join(out_dir, f))
        out_file = os.path.join(out_dir, 'converted.dat')
        argv = [ktrace, 'convert', '-q', path, out_file]
    elif cmd[-1] == '--buffer':
        argv = [ktrace] + cmd + [path]
    else:
        argv = [ktrace] + cmd + [path]
    try:
        r = subprocess.run(argv, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 'hang (no end after %ds)' % timeout, None
    return r, out_file


def check(r, out_file, cmd, damaged):
    if isinstance(r, str):
        return r
    if r.returncode < 0:
        return 'killed by signal %d' % -r.returncode
    if any(m in r.stderr for m in SAN_MARKS):
        return 'sanitizer: ' + r.stderr.decode('utf-8', 'replace').strip().split('\n')[0][:160]
    if r.returncode not in (0, 1, 2):
        return 'exit status %d' % r.returncode
    bad = printable_utf8(r.stderr)
    if bad:
        return bad
    if ('--json' in cmd or 'json' in cmd) and r.stdout.strip():
        try:
            json.loads(r.stdout)
        except ValueError as e:
            return 'invalid JSON on stdout (%s)' % e
    if damaged and r.returncode == 0 and not r.stderr.strip() and cmd[0] != 'dump':
        if '--json' in cmd:
            try:
                doc = json.loads(r.stdout)
                if doc.get('error') or doc.get('warnings'):
                    return None
            except ValueError:
                pass
        return 'exit 0 with an empty stderr on a damaged file'
    if out_file:
        d = os.path.dirname(out_file)
        left = os.listdir(d)
        if r.returncode != 0 and left:
            return 'convert failed but left %s' % ', '.join(left)
        for f in left:
            os.unlink(os.path.join(d, f))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ktrace')
    ap.add_argument('root')
    ap.add_argument('shared')
    ap.add_argument('--seed', type=int, default=13)
    ap.add_argument('--runs', type=int, default=400, help='mutated files in all')
    ap.add_argument('--timeout', type=int, default=30)
    ap.add_argument('--workdir')
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix='ktrace-robust-')
    os.makedirs(os.path.join(work, 'out'), exist_ok=True)
    rng = random.Random(a.seed)
    inputs = prepare(a.ktrace, a.root, a.shared, work)
    if not inputs:
        print('1..1')
        print('ok - robust # SKIP no input data')
        return
    # the plan (TAP): a line for each input and mutation class
    print('1..%d' % (3 * len(inputs)))
    per = max(3, a.runs // len(inputs))
    total_runs = 0
    for inp in inputs:
        WHOLE.clear()
        bounds, fields = structure(inp, a.ktrace)
        failures = {}
        counts = {}
        for cls, desc, data, damaged in mutations(inp, bounds, fields, rng, per):
            path = os.path.join(work, 'mutated')
            open(path, 'wb').write(data)
            counts[cls] = counts.get(cls, 0) + 1
            for cmd in inp.commands:
                r, out_file = run_one(a.ktrace, cmd, path, work, a.timeout)
                total_runs += 1
                why = check(r, out_file, cmd, damaged)
                if why:
                    failures.setdefault(cls, []).append('ktrace %s FILE (%s): %s' %
                                                        (' '.join(cmd), desc, why))
        for cls in ('truncation', 'extreme', 'bitflip'):
            if cls not in counts:
                print('ok - %s: %s mutations # SKIP none for this input' % (inp.name, cls))
                continue
            name = '%s: %d %s mutations' % (inp.name, counts[cls], cls)
            if cls in failures:
                print('not ok - %s' % name)
                for f in failures[cls][:8]:
                    print('#   %s' % f)
            else:
                print('ok - %s' % name)
    print('# %d runs of ktrace on %d inputs, seed %d' % (total_runs, len(inputs), a.seed))
    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
