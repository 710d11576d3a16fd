"""The Python module `ktrace` (python/, docs/python.md) against the reference outputs:
per-event row counts against `trace-cmd report` (Debian's 3.1.6), every sched_switch
field against `ktrace report -R -t`, info/summary/sql/kcdata against the CLI's own
answers, errors against the CLI's message, on this tree's recorded traces and the shared
real-world files. Run by tests/python/python.sh (TAP through tap.py)."""
import collections
import contextlib
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

import numpy as np

import ktrace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KTRACE = os.environ['KTRACE']
SHARED = os.environ.get('SHARED', os.path.join(ROOT, '..', 'shared'))
TMP = os.environ['TMP']
sys.path.insert(0, HERE)
import tap  # noqa: E402


def zst(rel):
    """A .zst file of tests/data, decompressed once into TMP."""
    src = os.path.join(ROOT, 'tests', 'data', rel)
    dst = os.path.join(TMP, os.path.basename(rel)[:-4])
    if not os.path.exists(dst):
        subprocess.run(['zstd', '-dqf', src, '-o', dst], check=True, env=ENV)
    return dst


def shared(rel):
    return os.path.join(SHARED, 'data', rel)


# the commands run without the ASan runtime python.sh preloads into python (SAN build)
ENV = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}


def run(*cmd, ok=(0,)):
    p = subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    if p.returncode not in ok:
        raise AssertionError('%s: exit %d: %s' % (cmd, p.returncode, p.stderr.decode()[:500]))
    return p


# recorded traces of this tree (every tests/data/*/*.dat.zst) and the shared real-world
# and conformance ones (trace.dat v6 and v7)
SHARED_TRACEDAT = ['ftrace/trappy_tests_trace.v6.dat', 'ftrace/trappy_tests_trace.v7zstd.dat',
                   'ftrace/trappy_tests_raw_trace.v7zstd.dat', 'ftrace/schedviz_cpu0.v6.dat',
                   'ftrace/schedviz_cpu0.v7none.dat', 'ftrace/schedviz_cpu0.v7zstd.dat',
                   'ftrace/synthetic_edge.v6.dat', 'ftrace/synthetic_edge.v7zstd.dat']


def tracedat_files():
    data = os.path.join(ROOT, 'tests', 'data')
    tree = sorted(glob.glob(os.path.join(data, '*', '*.dat.zst')))
    return [zst(os.path.relpath(z, data)) for z in tree] + [shared(s) for s in SHARED_TRACEDAT]


LINE = re.compile(r'^\s*(.*)-(-?\d+)\s+\[(\d+)\]\s*(\d+)(?:\.(\d+))?:\s+([^:\s]+):\s*(.*)$')


def report_lines(path, *opts, tool=None):
    """(comm, pid, cpu, ts_text, name, text) of each record line of a report."""
    cmd = ([tool, 'report'] if tool else [KTRACE, 'report']) + list(opts) + [path]
    out = run(*cmd, ok=(0, 1)).stdout.decode('utf-8', 'surrogateescape')
    res = []
    for line in out.split('\n'):
        m = LINE.match(line)
        if m:
            res.append(m.groups())
    return res


class Events(unittest.TestCase):
    def test_columns_and_types(self):
        t = ktrace.open(zst('tracedat/mixed.v6.dat.zst'))
        e = t.events(name='sched_switch')
        self.assertEqual(list(e)[:6], ['ts', 'cpu', 'tid', 'pid', 'comm', 'name'])
        self.assertEqual(e['ts'].dtype, np.int64)
        self.assertEqual(e['cpu'].dtype, np.int32)
        self.assertEqual(e['prev_pid'].dtype, np.int64)
        self.assertEqual(e['prev_comm'].dtype, object)
        self.assertTrue(isinstance(e['prev_comm'][0], str))
        self.assertTrue(set(e['name']) == {'sched_switch'})
        self.assertTrue(np.all(np.diff(e['ts']) >= 0))
        k = t.events(name='kmem:kmalloc', fields=['call_site', 'ts'])
        self.assertEqual(list(k), ['call_site', 'ts'])
        self.assertEqual(k['call_site'].dtype, np.uint64)
        self.assertGreater(len(k['ts']), 0)

    def test_counts_match_trace_cmd(self):
        tc = shutil.which('trace-cmd')
        if not tc:
            self.skipTest('trace-cmd not installed')
        n = 0
        for path in tracedat_files():
            with self.subTest(path=path):
                want = collections.Counter(g[5] for g in report_lines(path, tool=tc))
                got = collections.Counter(ktrace.open(path).df(fields=['name'])['name'])
                self.assertGreater(sum(want.values()), 0)
                self.assertEqual(dict(got), dict(want))
                # the same asked by name (the stream's filter)
                t = ktrace.open(path)
                for name in list(want)[:3]:
                    self.assertEqual(len(t.events(name=name, fields=['ts'])['ts']), want[name], name)
                n += 1
        self.assertGreaterEqual(n, 25)

    def test_sched_switch_equals_report_R(self):
        checked = 0
        for path in tracedat_files():
            lines = [g for g in report_lines(path, '-R', '-t') if g[5] == 'sched_switch']
            if not lines:
                continue
            with self.subTest(path=path):
                df = ktrace.open(path).df(name='sched_switch')
                self.assertEqual(len(df), len(lines))
                fields = [c for c in df.columns if c not in ('ts', 'cpu', 'tid', 'pid', 'comm', 'name')]
                self.assertIn('prev_state', fields)
                rows = df.itertuples(index=False)
                for g, row in zip(lines, rows):
                    r = row._asdict()
                    # seconds.nanoseconds, or a counter clock's raw count
                    self.assertEqual(r['ts'], int(g[3]) * 10**9 + int(g[4]) if g[4] else int(g[3]))
                    self.assertEqual(r['cpu'], int(g[2]))
                    self.assertEqual(r['tid'], int(g[1]))
                    text = ' '.join('%s=%s' % (f, r[f]) for f in fields)
                    self.assertEqual(text, g[6].rstrip(), 'at ts %d' % r['ts'])
                    checked += 1
        self.assertGreater(checked, 1000)

    def test_filters(self):
        t = ktrace.open(zst('tracedat/all.v6.dat.zst'))
        full = t.df()
        names = list(full['name'].value_counts().index[:2])
        part = t.df(name=names)
        self.assertEqual(len(part), int(full['name'].isin(names).sum()))
        # the names are the stream's filter: the same rows, every column alike
        for n in ('sched_switch', 'sched:sched_wakeup', 'kmalloc'):
            one = t.df(name=n)
            sub = full[full['name'] == n.split(':')[-1]].reset_index(drop=True)[one.columns]
            self.assertGreater(len(one), 0)
            self.assertEqual(one.astype(object).values.tolist(), sub.astype(object).values.tolist())
        cpu = int(full['cpu'].iloc[0])
        self.assertEqual(len(t.df(cpus=[cpu])), int((full['cpu'] == cpu).sum()))
        self.assertEqual(len(t.events(cpus=[])['ts']), 0)
        ts = full['ts']
        lo, hi = int(ts.quantile(0.25)), int(ts.quantile(0.75))
        w = t.df(start=np.int64(lo), end=np.uint64(hi))
        self.assertEqual(len(w), int(((ts >= lo) & (ts < hi)).sum()))
        self.assertTrue((w['ts'] >= lo).all() and (w['ts'] < hi).all())
        both = t.df(name=names[0], fields=['ts', 'cpu'], cpus=[cpu], start=lo, end=hi)
        self.assertEqual(list(both.columns), ['ts', 'cpu'])
        with self.assertRaises(ValueError):
            t.df(start=-1)
        with self.assertRaises(ValueError):
            t.df(start=1.5)
        sel = full[(full['name'] == names[0]) & (full['cpu'] == cpu) & (ts >= lo) & (ts < hi)]
        self.assertEqual(both['ts'].tolist(), sel['ts'].tolist())

    def test_missing_fields(self):
        t = ktrace.open(zst('tracedat/mixed.v6.dat.zst'))
        e = t.events(name=['sched_switch', 'sched_waking'])
        w = np.asarray(e['name']) == 'sched_waking'
        self.assertTrue(w.any() and (~w).any())
        self.assertTrue(np.ma.isMaskedArray(e['prev_pid']))
        self.assertTrue(np.array_equal(np.ma.getmaskarray(e['prev_pid']), w))
        self.assertTrue(np.array_equal(np.ma.getmaskarray(e['target_cpu']), ~w))
        df = t.df(name=['sched_switch', 'sched_waking'])
        self.assertEqual(str(df['prev_pid'].dtype), 'Int64')
        self.assertEqual(int(df['prev_pid'].isna().sum()), int(w.sum()))
        # a field called like a standard column keeps both
        self.assertIn('field_pid', df.columns)
        self.assertTrue((df['field_pid'].dropna() >= 0).all())


class Formats(unittest.TestCase):
    def count_of(self, path):
        return len(ktrace.open(path).events(fields=['ts'])['ts'])

    def test_raw_pages(self):
        p = shared('ftrace/schedviz_cpu0.trace_pipe_raw')
        info = json.loads(run(KTRACE, 'info', '--json', p).stdout)
        self.assertEqual(self.count_of(p), info['events'])
        self.assertEqual(ktrace.open(p).format, 'ftrace-pages')
        # with the events directory of tracefs, names and fields: the same rows as the
        # trace.dat made of these pages and formats
        raw = ktrace.open(p, events_dir=shared('ftrace/schedviz_formats')).df(name='sched_switch')
        dat = ktrace.open(shared('ftrace/schedviz_cpu0.v6.dat')).df(name='sched_switch')
        cols = ['ts', 'cpu', 'prev_comm', 'prev_pid', 'prev_prio', 'prev_state', 'next_comm',
                'next_pid', 'next_prio']
        self.assertEqual(len(raw), 779)
        self.assertEqual(raw[cols].values.tolist(), dat[cols].values.tolist())
        for rel in ('recorded/mixed_cpu0.raw.zst', 'recorded/overwrite_cpu0.raw.zst'):
            q = zst(rel)
            info = json.loads(run(KTRACE, 'info', '--json', q).stdout)
            self.assertEqual(self.count_of(q), info['events'])

    def test_darwin(self):
        p = shared('darwin/coreprofilesessiontap.bin')
        info = json.loads(run(KTRACE, 'info', '--json', p).stdout)
        df = ktrace.open(p).df()
        self.assertEqual(len(df), info['events'])
        self.assertIn('debugid', df.columns)

    def test_koff(self):
        for name in ('wrapped.koff', 'v2-groups.koff'):
            p = os.path.join(ROOT, 'fuzz', 'corpus', 'fuzz_koff_buffer', name)
            info = json.loads(run(KTRACE, 'info', '--json', p).stdout)
            df = ktrace.open(p).df()
            self.assertEqual(len(df), info['records'])
            self.assertIn('text', df.columns)

    def test_darwin_v3_and_koff_dump(self):
        v3, koff = os.environ.get('KT_V3'), os.environ.get('KT_KOFF')
        if not v3 or not koff:
            self.skipTest('no V3 file (tests/darwin/test_stackshot) or KOFF dump (tests/koff/mkcore.py)')
        info = json.loads(run(KTRACE, 'info', '--json', v3).stdout)
        df = ktrace.open(v3).df()
        shots = [c for c in info['chunks'] if 'stackshot' in c['name']]
        self.assertEqual(len(df), info['events'] + len(shots))
        self.assertEqual(int(df['name'].str.contains('stackshot').sum()), len(shots))
        self.assertEqual(ktrace.open(v3).format, 'darwin-v3')
        info = json.loads(run(KTRACE, 'info', '--json', koff).stdout)
        self.assertEqual(len(ktrace.open(koff).df()), info['records'])

    def test_koff_snapshot(self):
        """A snapshot (ktrace dump -o) gives the records of the buffer it was taken of."""
        buf = os.path.join(ROOT, 'examples', 'koff-odm')
        snap = os.path.join(TMP, 'snap.ktrace')
        run(KTRACE, 'dump', '--buffer', buf, '-o', snap)
        a, b = ktrace.open(buf), ktrace.open(snap)
        self.assertEqual((a.format, b.format), ('koff', 'koff'))
        cols = ['ts', 'tid', 'pid', 'name', 'text', 'id', 'a0']
        da, db = a.df(), b.df()
        self.assertEqual(len(da), json.loads(run(KTRACE, 'info', '--json', buf).stdout)['records'])
        self.assertEqual(da[cols].values.tolist(), db[cols].values.tolist())

    def test_kcdata_tree(self):
        for name in ('stackshot-sample', 'corpse-sample', 'exitreason-sample'):
            p = shared('kcdata/' + name)
            t = ktrace.open(p)
            self.assertEqual(t.format, 'kcdata')
            want = json.loads(run(KTRACE, 'report', '--format', 'json', p).stdout)
            self.assertIsInstance(t.tree, dict)
            self.assertEqual(t.tree, want)
            with self.assertRaises(ValueError):
                t.events()

    def test_info_equals_cli(self):
        for p in (zst('tracedat/mixed.v6.dat.zst'), shared('ftrace/schedviz_cpu0.trace_pipe_raw'),
                  shared('darwin/coreprofilesessiontap.bin'), shared('kcdata/stackshot-sample')):
            with self.subTest(path=p):
                want = json.loads(run(KTRACE, 'info', '--json', p).stdout)
                self.assertEqual(ktrace.open(p).info, want)

    def test_several_files(self):
        a, b = zst('diff/base1.dat.zst'), zst('diff/base2.dat.zst')
        n = self.count_of(a) + self.count_of(b)
        both = ktrace.open([a, b])
        self.assertEqual(len(both.events(fields=['ts'])['ts']), n)
        self.assertEqual(len(both.info), 2)


class Errors(unittest.TestCase):
    def cli_error(self, *cmd):
        p = run(*cmd, ok=(1,))
        return [l[len('ktrace: '):] for l in p.stderr.decode().split('\n') if l.startswith('ktrace: ')]

    def test_missing_file(self):
        p = os.path.join(TMP, 'no-such.dat')
        with self.assertRaises(ktrace.Error) as cm:
            ktrace.open(p)
        self.assertIsInstance(cm.exception, OSError)
        self.assertEqual(cm.exception.errno, 2)
        self.assertEqual([str(cm.exception)], self.cli_error(KTRACE, 'info', p))

    def test_not_a_trace(self):
        junk, empty = os.path.join(TMP, 'junk.txt'), os.path.join(TMP, 'empty.dat')
        with open(junk, 'w') as f:
            f.write('hello world\n')
        open(empty, 'w').close()
        for p in (junk, empty):
            with self.subTest(path=p):
                with self.assertRaises(ktrace.Error) as cm:
                    ktrace.open(p)
                self.assertEqual([str(cm.exception)], self.cli_error(KTRACE, 'summary', p))

    def test_damaged_as_cli(self):
        cases = [shared('reliability/v7zstd_bad_csize.dat'),
                 shared('reliability/uaf_darwin_v3_trunc.ktrace'),
                 shared('reliability/uaf_koff_snapshot_trunc')]
        # a trace.dat cut short in its CPU data
        src = zst('tracedat/mixed.v6.dat.zst')
        cut = os.path.join(TMP, 'cut.dat')
        with open(src, 'rb') as f, open(cut, 'wb') as g:
            g.write(f.read()[:os.path.getsize(src) * 2 // 3])
        cases.append(cut)
        for p in cases:
            with self.subTest(path=p):
                want = self.cli_error(KTRACE, 'summary', p)
                self.assertTrue(want)
                with self.assertRaises(ktrace.Error) as cm:
                    ktrace.open(p).events()
                e = cm.exception
                self.assertIn(str(e), want)
                self.assertEqual(sorted(set(e.damage + [str(e)])), sorted(set(want)))
                m = re.search(r'offset (0x[0-9a-f]+)', str(e))
                self.assertEqual(e.offset, int(m.group(1), 16) if m else None)
                if e.partial is not None:
                    self.assertIn('ts', e.partial)

    def test_partial_rows(self):
        cut = os.path.join(TMP, 'cut2.dat')
        src = zst('tracedat/mixed.v6.dat.zst')
        with open(src, 'rb') as f, open(cut, 'wb') as g:
            g.write(f.read()[:os.path.getsize(src) * 9 // 10])
        with self.assertRaises(ktrace.Error) as cm:
            ktrace.open(cut).events(name='sched_switch')
        n = len([g for g in report_lines(cut) if g[5] == 'sched_switch'])
        self.assertEqual(len(cm.exception.partial['ts']), n)


    def test_sql_of_damaged_input(self):
        """The answer of what could be read, then the error, as `ktrace sql` prints them."""
        cut = os.path.join(TMP, 'cut3.dat')
        src = zst('tracedat/mixed.v6.dat.zst')
        with open(src, 'rb') as f, open(cut, 'wb') as g:
            g.write(f.read()[:os.path.getsize(src) * 9 // 10])
        q = 'select count(*) as n from event'
        p = run(KTRACE, 'sql', '--json', cut, q, ok=(1,))
        want = json.loads(p.stdout)
        t = ktrace.open(cut)
        for _ in range(2):
            with self.assertRaises(ktrace.Error) as cm:
                t.sql(q)
            self.assertEqual(cm.exception.partial.to_dict('records'), want)
            self.assertIn('ktrace: ' + str(cm.exception), p.stderr.decode().split('\n'))
            self.assertEqual(cm.exception.filename, cut)


class SqlSummary(unittest.TestCase):
    def test_sql_equals_cli(self):
        p = zst('tracedat/mixed.v6.dat.zst')
        t = ktrace.open(p)
        for q in ('select count(*) as n from event',
                  'select utid, state, count(*) as n, sum(dur) as d from thread_state '
                  'group by utid, state order by utid, state',
                  'select cpu, utid, ts, dur from sched_slice order by ts limit 50',
                  'select * from wakeup_latency order by ts'):
            with self.subTest(q=q):
                df = t.sql(q)
                out = run(KTRACE, 'sql', '--json', p, q).stdout
                want = json.loads(out)
                rows = [{k: (None if v is None or v != v else v) for k, v in r.items()}
                        for r in df.astype(object).to_dict('records')]
                self.assertEqual(rows, want)
        self.assertEqual(t.sql('select 1 as a, 2.5 as b, null as c, \'x\' as d').dtypes.tolist(),
                         [np.int64, np.float64, object, object])
        self.assertEqual(t.sql('select 1 as a, 2 as a, 3 as a_2').columns.tolist(),
                         ['a', 'a_2', 'a_2_2'])
        with self.assertRaises(ktrace.Error) as cm:
            t.sql('select * from no_such_table')
        self.assertIn('no such table', str(cm.exception))

    def test_summary_equals_cli(self):
        p = zst('tracedat/mixed.v6.dat.zst')
        want = json.loads(run(KTRACE, 'summary', '--json', p).stdout)
        got = ktrace.open(p).summary()
        self.assertEqual(got['schema'], 'ktrace-summary/1')
        self.assertEqual(got, want)
        # a window and the rows per list, as --from/--to (seconds) and --top say them
        p = zst('model/uneven.dat.zst')
        t = ktrace.open(p)
        ts = t.events(fields=['ts'])['ts']
        lo, hi = int(ts[len(ts) // 4]), int(ts[3 * len(ts) // 4])
        sec = lambda x: '%d.%09d' % (x // 10**9, x % 10**9)  # noqa: E731
        want = json.loads(run(KTRACE, 'summary', '--json', '--top', '3', '--from', sec(lo),
                              '--to', sec(hi), p).stdout)
        got = t.summary(top=3, start=lo, end=hi)
        self.assertEqual((got['from_ns'], got['to_ns']), (lo, hi))
        self.assertEqual(got, want)


class Docs(unittest.TestCase):
    def test_readme_example_runs(self):
        md = open(os.path.join(ROOT, 'README.md')).read()
        blocks = re.findall(r'```python\n(.*?)```', md, re.S)
        self.assertEqual(len(blocks), 1)
        env = {}
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            exec(compile(blocks[0], 'README.md', 'exec'), env)
        finally:
            os.chdir(cwd)
        self.assertEqual(set(env['df']['name']), {'sched_switch'})
        self.assertGreater(len(env['df']), 1000)

    def test_python_md_example_runs(self):
        """The notebook example of docs/python.md, run on a recorded trace."""
        md = open(os.path.join(ROOT, 'docs', 'python.md')).read()
        blocks = re.findall(r'```python\n(.*?)```', md, re.S)
        self.assertGreaterEqual(len(blocks), 2)
        env = {'TRACE': zst('model/uneven.dat.zst')}
        code = '\n'.join(blocks).replace("'trace.dat'", 'TRACE')
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(compile(code, 'docs/python.md', 'exec'), env)
        self.assertIn('us', out.getvalue())
        mine = env['cpu_time'].groupby(level=0).sum()
        self.assertGreater(len(mine), 10)
        # CPU time per thread from the sched_switch rows against the model's sched_slice:
        # the same for most threads (the model also knows where data is missing: lost
        # events, a CPU's first slice, threads it tells apart by process)
        model = ktrace.open(env['TRACE']).sql(
            'select t.tid as tid, sum(s.dur) as ns from sched_slice s join thread t using (utid) '
            'where t.tid != 0 group by t.tid')
        m = dict(zip(model['tid'], model['ns']))
        same = [k for k, v in mine.items() if m.get(k) == v]
        self.assertGreaterEqual(len(same), len(mine) * 3 // 4)
        self.assertEqual(int(env['hist'].sum()), len(env['lat']))
        self.assertGreater(len(env['lat']), 100)


if __name__ == '__main__':
    tap.main(sys.modules[__name__])
