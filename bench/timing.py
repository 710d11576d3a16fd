"""What the benches share: one command run and timed (wall, CPU of the process and its
threads, peak RSS), and the medians of several runs as one line."""
import os
import statistics
import subprocess
import time


def run_timed(cmd, keep=False):
    """Runs cmd (its standard output kept when keep): (wall s, CPU s, peak RSS KiB, output)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE if keep else subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    out = p.stdout.read() if keep else b''
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError('%s failed: %s' % (' '.join(cmd), err.decode()[-300:]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out


def medians(name, runs):
    """runs: [(wall, cpu, rss KiB, ...)]: ((wall, cpu, rss MiB), the line that says so)."""
    w = statistics.median(x[0] for x in runs)
    c = statistics.median(x[1] for x in runs)
    rss = max(x[2] for x in runs) / 1024
    return (w, c, rss), ('    %-22s wall %7.3f s (%6.3f..%6.3f)   cpu %7.3f s   peak RSS %6.1f MiB'
                         % (name, w, min(x[0] for x in runs), max(x[0] for x in runs), c, rss))


def load_line():
    return '    load average %s, %d CPUs' % (' '.join(open('/proc/loadavg').read().split()[:3]),
                                            os.cpu_count())


def publish(out_dir, name, lines):
    """The bench's lines on standard output and in out_dir/name (the file the README's
    table is read from)."""
    text = '\n'.join(lines)
    print(text)
    with open(os.path.join(out_dir, name), 'w') as f:
        f.write(text + '\n')
