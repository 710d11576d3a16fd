#!/usr/bin/env python3
"""bench/top: ktrace top's own CPU time at a load of about 100 k events/s.

Each run starts the load (load.c: pipe ping-pong at --rate rounds/s), then
`ktrace top --json -e syscalls -n SECS -d 1` as a child; top's CPU time is the
user + system time of all its threads from wait4's rusage, over its wall time
(startup, reading the event formats, included). The event rate is top's own count
(the "events" of its intervals over their duration). Prints each run and the
medians."""
import argparse, json, os, statistics, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--ktrace", required=True)
ap.add_argument("--load", required=True)
ap.add_argument("--secs", type=int, default=10)
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--rate", type=float, default=8000)
a = ap.parse_args()

if os.geteuid() != 0 or not os.path.exists("/sys/kernel/tracing/tracing_on"):
    print("bench/top: needs root and tracefs at /sys/kernel/tracing")
    sys.exit(0)

shares, rates, losts = [], [], []
for run in range(a.runs):
    load = subprocess.Popen([a.load, str(a.secs + 4), str(a.rate)], stdout=subprocess.DEVNULL)
    time.sleep(1)
    t0 = time.monotonic()
    top = subprocess.Popen([a.ktrace, "top", "--json", "-e", "syscalls", "-n", str(a.secs), "-d", "1"],
                           stdout=subprocess.PIPE)
    out = top.stdout.read()
    _, status, ru = os.wait4(top.pid, 0)
    wall = time.monotonic() - t0
    load.wait()
    snaps = [json.loads(l) for l in out.decode().splitlines()]
    if status or len(snaps) != a.secs:
        print("run %d: top failed (status %d, %d intervals)" % (run + 1, status, len(snaps)))
        continue
    ev = sum(s["events"] for s in snaps)
    dur = sum(s["duration_ns"] for s in snaps) / 1e9
    lost = sum(s["lost_events"] for s in snaps)
    cpu = ru.ru_utime + ru.ru_stime
    share = 100 * cpu / wall
    shares.append(share)
    rates.append(ev / dur)
    losts.append(lost)
    print("run %d: %.0f events/s, %d lost; top %.3f s CPU (user %.3f, sys %.3f) in %.2f s: %.2f%% of one CPU; max RSS %d MiB"
          % (run + 1, ev / dur, lost, cpu, ru.ru_utime, ru.ru_stime, wall, share, ru.ru_maxrss // 1024))
if shares:
    print("median: %.0f events/s, top %.2f%% of one CPU (%.2f to %.2f), %d lost at most; load average %s"
          % (statistics.median(rates), statistics.median(shares), min(shares), max(shares), max(losts),
             open("/proc/loadavg").read().split()[0]))
