#!/usr/bin/env python3
"""bench/record: events lost by `ktrace record` and `ktrace stream` against `cat` of
trace_pipe_raw.

usage: run.py --ktrace KTRACE --load LOAD [--secs S] [--runs N] [--kb KB,KB...]
              [--methods ktrace,stream,cat] [--out DIR]

Every method records the same events (every sched, irq, timer, syscalls and kmem event)
into a fresh tracefs instance with the same per-CPU buffer size, while LOAD keeps both
CPUs busy (ping-pong processes pinned to CPUs 0 and 1 making bursts of system calls):

  ktrace  `ktrace record -B ktrace-bench-k -e sched -e irq -e timer -e syscalls -e kmem
          -b KB --compression none`, started before the load and stopped with SIGINT
          after it;
  stream  `ktrace stream -B ktrace-bench-s` with the same events and size, its lines
          written to a file (it formats every event as report does, behind the
          readers), started and stopped the same way (it is ready when its instance's
          events and tracing are on);
  cat     the instance set up the same way by hand, one `cat per_cpu/cpuN/trace_pipe_raw
          > file` per CPU, tracing on for the load, then off; the cats end by themselves
          once they have read what was left (stopped after 2 s otherwise).

Figures per method (median of the runs, runs interleaved): events the readers consumed
and events lost, both from the kernel's per_cpu/cpuN/stats ("read events"; overrun +
commit overrun + dropped events), bytes written, the readers' CPU time (user + system,
of the reader processes once the load is over), and the load's rounds (how much work was traced). The instances are
removed and nothing else in tracefs is touched. Needs root.
"""
import argparse
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import time

T = '/sys/kernel/tracing'
SYSTEMS = ['sched', 'irq', 'timer', 'syscalls', 'kmem']


def wfile(path, text):
    with open(path, 'w') as f:
        f.write(text)


def rfile(path):
    with open(path) as f:
        return f.read()


def stats(inst, cpus):
    read = lost = 0
    for c in cpus:
        s = rfile('%s/per_cpu/cpu%d/stats' % (inst, c))
        v = dict((k.strip(), val.strip()) for k, val in
                 (line.split(':', 1) for line in s.splitlines() if ':' in line))
        read += int(v['read events'])
        lost += int(v['overrun']) + int(v['commit overrun']) + int(v['dropped events'])
    return read, lost


def cpu_list(inst):
    return sorted(int(d[3:]) for d in os.listdir(inst + '/per_cpu') if d.startswith('cpu'))


def child_cpu(before):
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_load(load, secs):
    p = subprocess.run([load, str(secs)], stdout=subprocess.PIPE, check=True)
    return int(p.stdout.split()[0])


def load_then_stop(p, load, secs, path, what):
    """Runs the load while ktrace (p, its stderr a pipe) records into path, then stops it
    with SIGINT: its per-CPU figures (events and lost from its last lines), the output's
    size (the file is removed) and the CPU it used after the load."""
    rounds = run_load(load, secs)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p.send_signal(signal.SIGINT)
    err = p.stderr.read().decode()
    status = p.wait()
    cpu = child_cpu(before)
    if status != 0:
        raise RuntimeError('ktrace %s failed: %s' % (what, err[-400:]))
    events = sum(int(x) for x in re.findall(r'CPU \d+: (\d+) events', err))
    lost = sum(int(x) for x in re.findall(r'CPU \d+: \d+ events, [^,]+, (\d+) lost', err))
    size = os.path.getsize(path)
    os.unlink(path)
    return {'events': events, 'lost': lost, 'bytes': size, 'cpu': cpu, 'rounds': rounds}


def bench_ktrace(ktrace, load, secs, kb, out):
    path = os.path.join(out, 'bench-ktrace.dat')
    args = [ktrace, 'record', '-B', 'ktrace-bench-k', '-b', str(kb), '--compression', 'none',
            '-o', path]
    for s in SYSTEMS:
        args += ['-e', s]
    p = subprocess.Popen(args, stderr=subprocess.PIPE)
    # ready when it says so
    line = p.stderr.readline().decode()
    if 'recording' not in line:
        raise RuntimeError('ktrace record did not start: ' + line)
    return load_then_stop(p, load, secs, path, 'record')


def bench_stream(ktrace, load, secs, kb, out):
    inst = T + '/instances/ktrace-bench-s'
    path = os.path.join(out, 'bench-stream.txt')
    args = [ktrace, 'stream', '-B', 'ktrace-bench-s', '-b', str(kb)]
    for s in SYSTEMS:
        args += ['-e', s]
    with open(path, 'wb') as f:
        p = subprocess.Popen(args, stdout=f, stderr=subprocess.PIPE)
        # ready once tracing is on with its events (setting up turns tracing off first)
        deadline = time.time() + 30
        while time.time() < deadline and p.poll() is None:
            try:
                if rfile(inst + '/tracing_on').strip() == '1' and rfile(inst + '/set_event').strip():
                    break
            except OSError:
                pass
            time.sleep(0.05)
        else:
            p.kill()
            p.wait()
            raise RuntimeError('ktrace stream did not start: ' + p.stderr.read().decode()[-400:])
        return load_then_stop(p, load, secs, path, 'stream')


def bench_cat(load, secs, kb, out):
    inst = T + '/instances/ktrace-bench-c'
    os.mkdir(inst)
    cats = []
    files = []
    try:
        wfile(inst + '/tracing_on', '0')
        wfile(inst + '/buffer_size_kb', str(kb))
        for s in SYSTEMS:
            wfile('%s/events/%s/enable' % (inst, s), '1')
        cpus = cpu_list(inst)
        for c in cpus:
            path = os.path.join(out, 'bench-cat-cpu%d.raw' % c)
            f = open(path, 'wb')
            files.append((path, f))
            cats.append(subprocess.Popen(['cat', '%s/per_cpu/cpu%d/trace_pipe_raw' % (inst, c)],
                                         stdout=f))
        time.sleep(0.2)
        wfile(inst + '/tracing_on', '1')
        rounds = run_load(load, secs)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wfile(inst + '/tracing_on', '0')
        # let the cats read what is left (a read hands out partly filled pages too;
        # once tracing is off and the buffer empty, they see the end of the file)
        deadline = time.time() + 2.0
        for p in cats:
            try:
                p.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.terminate()
                p.wait()
        cpu = child_cpu(before)
        cats = []
        events, lost = stats(inst, cpus)
        size = 0
        for path, f in files:
            f.close()
            size += os.path.getsize(path)
            os.unlink(path)
        files = []
        return {'events': events, 'lost': lost, 'bytes': size, 'cpu': cpu, 'rounds': rounds}
    finally:
        for p in cats:
            p.kill()
            p.wait()
        for path, f in files:
            f.close()
            os.unlink(path)
        wfile(inst + '/tracing_on', '0')
        wfile(inst + '/set_event', '')
        os.rmdir(inst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ktrace', required=True)
    ap.add_argument('--load', required=True)
    ap.add_argument('--secs', type=float, default=5)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--kb', default='1024,4096')
    ap.add_argument('--methods', default='ktrace,stream,cat')
    ap.add_argument('--out', default='.')
    a = ap.parse_args()
    if os.geteuid() != 0:
        print('bench/record: skipped (needs root)')
        return 0
    if not os.path.exists(T + '/tracing_on'):
        subprocess.run(['mount', '-t', 'tracefs', 'nodev', T], check=False)
        if not os.path.exists(T + '/tracing_on'):
            print('bench/record: skipped (no tracefs)')
            return 0
    methods = a.methods.split(',')
    if not methods or set(methods) - {'ktrace', 'stream', 'cat'}:
        print('bench/record: --methods takes ktrace, stream and cat')
        return 2
    for name in ('ktrace-bench-k', 'ktrace-bench-s', 'ktrace-bench-c'):
        if os.path.exists(T + '/instances/' + name):
            print('bench/record: instance %s exists (another run?)' % name)
            return 1
    os.makedirs(a.out, exist_ok=True)
    print('bench/record: %g s of load per run, %d runs per method, interleaved; events: %s'
          % (a.secs, a.runs, ' '.join(SYSTEMS)))
    print()
    print('| buffer/CPU | method | events read | events lost | lost % | MB written | '
          'reader CPU s | load rounds |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- |')
    for kb in [int(x) for x in a.kb.split(',')]:
        res = {m: [] for m in methods}
        for _ in range(a.runs):
            for m in methods:
                if m == 'ktrace':
                    res[m].append(bench_ktrace(a.ktrace, a.load, a.secs, kb, a.out))
                elif m == 'stream':
                    res[m].append(bench_stream(a.ktrace, a.load, a.secs, kb, a.out))
                else:
                    res[m].append(bench_cat(a.load, a.secs, kb, a.out))
        for m in methods:
            r = res[m]
            med = {k: statistics.median(x[k] for x in r) for k in r[0]}
            pct = 100.0 * med['lost'] / (med['lost'] + med['events']) if med['events'] else 0
            print('| %d KiB | %s | %d | %d | %.2f | %.1f | %.2f | %d |'
                  % (kb, m, med['events'], med['lost'], pct, med['bytes'] / 1e6, med['cpu'],
                     med['rounds']))
            print('|  |  (each run: lost %s) |  |  |  |  |  |  |'
                  % ', '.join(str(x['lost']) for x in r))
        sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
