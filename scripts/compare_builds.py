#!/usr/bin/env python3
"""Runs two builds of ktrace side by side and says where their behaviour differs.

  compare_builds.py OLD_KTRACE NEW_KTRACE [--quick] [--inputs DIR...] [--jobs N]

Every input (the files of tests/data, ../shared/data and the fuzz corpora of the
readers, or the DIRs given) goes through a fixed set of commands (report and its main
options, info, export to every format, sql, timeline); for each, the exit status, stdout,
stderr (the scratch directory's name made neutral) and every output file must be the
same bytes. SQLite outputs are compared by their `.dump` text. Prints one line per
difference and "N commands, M differ"; exits 1 when any differ.

A refactoring that must not change behaviour checks itself with it against the commit
before it:
  git worktree add /tmp/old HEAD~1 && make -C /tmp/old -j2
  scripts/compare_builds.py /tmp/old/build/ktrace build/ktrace
"""
import concurrent.futures as cf
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, args): "IN" is the input, "OUT" a file in the scratch directory.
COMMANDS = [
    ('report', ['report', 'IN']),
    ('report-t', ['report', '-t', 'IN']),
    ('report-R', ['report', '-R', 'IN']),
    ('report-l', ['report', '-l', 'IN']),
    ('report-w', ['report', '-w', 'IN']),
    ('report-profile', ['report', '--profile', 'IN']),
    ('report-stat', ['report', '--stat', 'IN']),
    ('report-cpu0', ['report', '--cpu', '0', 'IN']),
    ('report-F', ['report', '-F', 'sched_switch', 'IN']),
    ('report-json', ['report', '--format', 'json', 'IN']),
    ('report-threads', ['report', '--threads', '2', 'IN']),
    ('info', ['info', 'IN']),
    ('info-json', ['info', '--json', 'IN']),
    ('export-json', ['export', '--format', 'json', '-o', 'OUT.json', 'IN']),
    ('export-perfetto', ['export', '--format', 'perfetto', '-o', 'OUT.pftrace', 'IN']),
    ('export-jsonl', ['export', '--format', 'jsonl', '-o', 'OUT.jsonl', 'IN']),
    ('export-tsv', ['export', '--format', 'tsv', '-o', 'OUT.tsv', 'IN']),
    ('export-sqlite', ['export', '--format', 'sqlite', '-o', 'OUT.db', 'IN']),
    ('sql', ['sql', '--tsv', '-q', 'SELECT name FROM sqlite_master ORDER BY name', 'IN']),
    ('sql-events', ['sql', '--tsv', '-q', 'SELECT * FROM events LIMIT 2000', 'IN']),
    ('sql-threads', ['sql', '--tsv', '-q', 'SELECT * FROM threads', 'IN']),
    ('timeline', ['timeline', '-o', 'OUT.html', 'IN']),
    ('timeline-svg', ['timeline', '--svg', '-o', 'OUT.svg', 'IN']),
]
# Outputs whose line order is not fixed (trace-cmd's own --profile prints events in hash
# order, which changes from run to run; ktrace's follows it): compared as sorted lines.
UNORDERED = {'report-profile'}
QUICK = {'report', 'report-R', 'info', 'info-json', 'export-json', 'sql-events', 'timeline-svg'}
CORPORA = ['fuzz_tracedat', 'fuzz_kbuffer', 'fuzz_ktrace_file', 'fuzz_kcdata',
           'fuzz_koff_buffer', 'fuzz_report_tracedat']


def inputs(dirs):
    seen = set()
    out = []
    for d in dirs:
        for dp, _, files in os.walk(d):
            for f in sorted(files):
                p = os.path.join(dp, f)
                if f.startswith('README') or f.endswith(('.md', '.txt', '.py', '.sh', '.json',
                                                          '.expected', '.golden', '.out')):
                    continue
                if os.path.getsize(p) > 64 << 20 or os.path.islink(p):
                    continue
                key = os.path.realpath(p)
                if key not in seen:
                    seen.add(key)
                    out.append(p)
    return sorted(out)


def sqlite_dump(path):
    try:
        con = sqlite3.connect('file:%s?mode=ro' % path, uri=True)
        text = '\n'.join(con.iterdump())
        con.close()
        return text.encode()
    except Exception as e:  # a file that is not a database: its bytes
        return open(path, 'rb').read()


def run(ktrace, args, inp):
    d = tempfile.mkdtemp(prefix='kcmp.')
    try:
        argv = [ktrace]
        for a in args:
            if a == 'IN':
                argv.append(inp)
            elif a.startswith('OUT'):
                argv.append(os.path.join(d, a))
            else:
                argv.append(a)
        try:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                               env=dict(os.environ, LC_ALL='C', TZ='UTC'))
            rc, so, se = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, so, se = 'timeout', b'', b''
        se = se.replace(d.encode(), b'SCRATCH')
        so = so.replace(d.encode(), b'SCRATCH')
        files = {}
        for dp, _, fs in os.walk(d):
            for f in fs:
                p = os.path.join(dp, f)
                rel = os.path.relpath(p, d)
                files[rel] = sqlite_dump(p) if rel.endswith('.db') else open(p, 'rb').read()
        return rc, so, se, files
    finally:
        shutil.rmtree(d, ignore_errors=True)


def compare(old, new, name, args, inp):
    a = run(old, args, inp)
    b = run(new, args, inp)
    if name in UNORDERED:
        a = (a[0], sorted(a[1].split(b'\n')), a[2], a[3])
        b = (b[0], sorted(b[1].split(b'\n')), b[2], b[3])
    if a == b:
        return None
    what = []
    if a[0] != b[0]:
        what.append('exit %s vs %s' % (a[0], b[0]))
    if a[1] != b[1]:
        what.append('stdout')
    if a[2] != b[2]:
        what.append('stderr')
    if a[3] != b[3]:
        what.append('files %s' % sorted(set(a[3]) ^ set(b[3]) or
                                        [k for k in a[3] if a[3][k] != b[3].get(k)]))
    return '%s %s: %s' % (name, os.path.relpath(inp, ROOT), ', '.join(what))


def main():
    argv = sys.argv[1:]
    quick = '--quick' in argv
    argv = [a for a in argv if a != '--quick']
    jobs = os.cpu_count() or 1
    if '--jobs' in argv:
        i = argv.index('--jobs')
        jobs = int(argv[i + 1])
        del argv[i:i + 2]
    dirs = []
    if '--inputs' in argv:
        i = argv.index('--inputs')
        dirs = argv[i + 1:]
        argv = argv[:i]
    if len(argv) != 2:
        sys.exit(__doc__)
    old, new = (os.path.abspath(x) for x in argv)
    if not dirs:
        dirs = [os.path.join(ROOT, 'tests', 'data'), os.path.join(ROOT, '..', 'shared', 'data')]
        dirs += [os.path.join(ROOT, 'fuzz', 'corpus', c) for c in CORPORA]
    ins = inputs([d for d in dirs if os.path.isdir(d)])
    cmds = [(n, a) for n, a in COMMANDS if not quick or n in QUICK]
    jobs_list = [(n, a, i) for i in ins for n, a in cmds]
    bad = 0
    with cf.ThreadPoolExecutor(jobs) as ex:
        for r in ex.map(lambda t: compare(old, new, *t), jobs_list):
            if r:
                bad += 1
                print(r, flush=True)
    print('%d commands over %d inputs, %d differ' % (len(jobs_list), len(ins), bad))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
