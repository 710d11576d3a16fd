#!/usr/bin/python3
"""bench/python: all sched_switch events of a big trace.dat into a pandas DataFrame, three
ways, in the same run (issue 36: the module at least 50x faster than the first, 3x faster
than the second):

  ktrace module   ktrace.open(path).df(name='sched_switch')
  LISA/trappy     `trace-cmd report -R -t` read line by line, the sched_switch lines matched
                  with regular expressions (prefix, then each name=value), a dict per row,
                  pandas.DataFrame, numeric columns converted (what trappy and LISA did
                  before LISA's Rust parser)
  export tsv      `ktrace export --format tsv -o DIR`, then pandas.read_csv of its event
                  and args tables, the sched_switch rows joined with their arguments
                  pivoted into columns

Each way runs in a Python process of its own (pandas imported before the clock starts, as
in a notebook); the time is measured in it, from the path to the DataFrame; the peak RSS is
the process's and its children's (trace-cmd, ktrace export). The trace: bench/report's
(tests/data/report/allevents.v6.dat.zst with its pages repeated to MB megabytes,
bench/read/mkbig.py; 140 MB is about 3.4 M events), or --trace FILE.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'report'))
sys.path.insert(0, os.path.join(HERE, '..'))
from run import make_trace  # noqa: E402  (bench/report's trace)
from timing import load_line, publish  # noqa: E402

# Each way is a program of its own: its imports, then the common start and end (its
# CPU time and wall time around the body, the frame it made as JSON) around its body.
IMPORTS = r'''
import json, os, re, resource, subprocess, sys, tempfile, time
import pandas
'''
START = r'''
def cpu():
    return sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ('ru_utime', 'ru_stime'))
c0 = cpu()
t0 = time.monotonic()
'''
END = r'''
t1 = time.monotonic()
print(json.dumps({'secs': t1 - t0, 'cpu': cpu() - c0, 'rows': len(df), 'prev_pid': int(df['prev_pid'].sum()),
                  'columns': list(df.columns)}))
'''

KTRACE_WAY = IMPORTS + 'import ktrace\n' + START + r'''
df = ktrace.open(sys.argv[1]).df(name='sched_switch')
''' + END

LISA_WAY = IMPORTS + START + r'''
prefix = re.compile(r'^\s*(?P<comm>.*)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>[\d.]+):\s+(?P<name>\w+):\s+(?P<data>.*)$')
field = re.compile(r'(\w+)=(\S+)')
rows = []
p = subprocess.Popen(['trace-cmd', 'report', '-R', '-t', sys.argv[1]], stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True, errors='surrogateescape')
for line in p.stdout:
    if 'sched_switch:' not in line:
        continue
    m = prefix.match(line)
    if not m or m.group('name') != 'sched_switch':
        continue
    row = {'ts': m.group('ts'), 'cpu': m.group('cpu'), 'tid': m.group('pid'), 'comm': m.group('comm')}
    row.update(field.findall(m.group('data')))
    rows.append(row)
p.wait()
df = pandas.DataFrame(rows)
df['ts'] = (df['ts'].astype(float) * 1e9).round().astype('int64')
for c in ('cpu', 'tid', 'prev_pid', 'prev_prio', 'prev_state', 'next_pid', 'next_prio'):
    df[c] = pandas.to_numeric(df[c])
''' + END

TSV_WAY = IMPORTS + START + r'''
with tempfile.TemporaryDirectory(dir=sys.argv[3]) as d:
    out = os.path.join(d, 'tsv')
    subprocess.run([sys.argv[2], 'export', '--format', 'tsv', '-o', out, sys.argv[1]], check=True)
    opts = dict(sep='\t', header=None, na_values='\\N', keep_default_na=False, quoting=3,
                encoding_errors='surrogateescape')
    ev = pandas.read_csv(os.path.join(out, 'event.tsv'), **opts,
                         names=['id', 'trace_id', 'ts', 'cpu', 'utid', 'subsystem', 'name',
                                'arg_set_id', 'file_offset'],
                         usecols=['ts', 'cpu', 'utid', 'name', 'arg_set_id'])
    ev = ev[ev['name'] == 'sched_switch']
    args = pandas.read_csv(os.path.join(out, 'args.tsv'), **opts,
                           names=['arg_set_id', 'trace_id', 'key', 'int_value', 'string_value',
                                  'real_value', 'value_type'],
                           usecols=['arg_set_id', 'key', 'int_value', 'string_value'])
    args = args[args['arg_set_id'].isin(ev['arg_set_id'])]
    args['value'] = args['int_value'].where(args['string_value'].isna(), args['string_value'])
    wide = args.pivot(index='arg_set_id', columns='key', values='value')
    df = ev.merge(wide, left_on='arg_set_id', right_index=True, how='left')
    df['prev_pid'] = pandas.to_numeric(df['prev_pid'])
''' + END


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ktrace', required=True)
    ap.add_argument('--module', required=True, help='the directory holding ktrace*.so')
    ap.add_argument('--out', required=True)
    ap.add_argument('--mb', type=int, default=140)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--trace', help='a trace.dat to use instead of making one')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = a.trace or make_trace(a.out, a.mb)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(a.module))
    ktrace = os.path.abspath(a.ktrace)
    ways = {'ktrace module': (KTRACE_WAY, [path]),
            'LISA/trappy regex': (LISA_WAY, [path]),
            'export tsv+read_csv': (TSV_WAY, [path, ktrace, os.path.abspath(a.out)])}
    res = {n: [] for n in ways}
    for _ in range(a.runs):
        for n, (code, argv) in ways.items():
            p = subprocess.Popen([sys.executable, '-c', code] + argv, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=env)
            out = p.stdout.read()
            err = p.stderr.read()
            _, status, ru = os.wait4(p.pid, 0)
            if os.waitstatus_to_exitcode(status):
                sys.exit('%s failed: %s' % (n, err.decode()[-500:]))
            r = json.loads(out)
            r['rss'] = ru.ru_maxrss / 1024
            res[n].append(r)
    rows = {n: {(r['rows'], r['prev_pid']) for r in rs} for n, rs in res.items()}
    same = len(set().union(*rows.values())) == 1
    lines = ['python: all sched_switch events of %s (%d MB) into a DataFrame; %d runs each'
             % (os.path.basename(path), os.path.getsize(path) >> 20, a.runs)]
    med, mcpu = {}, {}
    for n, rs in res.items():
        secs = [r['secs'] for r in rs]
        med[n] = statistics.median(secs)
        mcpu[n] = statistics.median(r['cpu'] for r in rs)
        lines.append('    %-20s wall %8.3f s (%.3f..%.3f)   cpu %8.3f s   peak RSS %7.1f MiB   '
                     '%d rows, %d columns'
                     % (n, med[n], min(secs), max(secs), mcpu[n], max(r['rss'] for r in rs),
                        rs[0]['rows'], len(rs[0]['columns'])))
    k, kc = med['ktrace module'], mcpu['ktrace module']
    r1 = med['LISA/trappy regex'] / k
    r2 = med['export tsv+read_csv'] / k
    met = r1 >= 50 and r2 >= 3 and same
    lines.append('    module vs LISA/trappy: wall %.1fx (cpu %.1fx), vs export tsv + read_csv: wall %.1fx '
                 '(cpu %.1fx); the same rows: %s   goal >= 50x and >= 3x: %s'
                 % (r1, mcpu['LISA/trappy regex'] / kc, r2, mcpu['export tsv+read_csv'] / kc,
                    'yes' if same else 'NO', 'met' if met else 'NOT MET'))
    lines.append(load_line())
    publish(a.out, 'python.txt', lines)
    sys.exit(0 if met else 1)


if __name__ == '__main__':
    main()
