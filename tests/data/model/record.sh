#!/bin/sh
# Records the model test's traces (tests/model/model.sh) on a live machine: run as root
# from the repository's top after `make`, with trace-cmd installed; writes
# tests/data/model/*.dat.zst (usage: record.sh [uneven|lost|quiet]). Here /proc/sys/kernel/ftrace_enabled is read-only, so
# `trace-cmd record`/`start` cannot run: tracefs is set up by hand and saved with
# `trace-cmd extract`, except for the trace that needs a reader during the recording.
# Takes the test suite's tracefs lock and leaves tracefs as it found it (the settings
# below are saved first, written back, and compared).
#   uneven: overwrite mode, 200 KB a CPU, a ping-pong pinned to CPU 1 while CPU 0 is
#           quiet, then `trace-cmd extract`: CPU 1's oldest pages are overwritten, its
#           data starts much later than CPU 0's.
#   lost:   `ktrace record -b 100` (a reader that splices sub-buffers while the kernel
#           writes) under a storm of wakeups and system calls on both CPUs:
#           [N EVENTS DROPPED] marks in the middle of the trace.
#   quiet:  4 MB a CPU, a light workload (sleeps, a few pipes), `trace-cmd extract`:
#           no lost events.
set -eu
T=/sys/kernel/tracing
OUT=$(cd "$(dirname "$0")" && pwd)
KTRACE=${KTRACE:-$OUT/../../../build/ktrace}
ONLY=${1:-}   # one of them only: uneven, lost or quiet
W=$(mktemp -d /tmp/ktrace-model-rec.XXXXXX)
exec 9>/tmp/ktrace-tracefs.lock
flock 9

EVENTS="sched irq raw_syscalls"
snap() {
	for f in tracing_on buffer_size_kb buffer_total_size_kb current_tracer trace_clock \
		set_event set_event_pid tracing_cpumask buffer_percent \
		saved_cmdlines_size options/overwrite options/record-tgid options/event-fork \
		options/record-cmd per_cpu/cpu0/buffer_size_kb per_cpu/cpu1/buffer_size_kb; do
		[ -e $T/$f ] && echo "$f: $(tr '\n' ' ' <$T/$f)"
	done
	ls $T/instances | sed 's/^/instance: /'
	for s in $EVENTS; do grep -H -v '^none$' $T/events/$s/*/filter || true; done
}
snap >"$W/before"
kb=$(cat $T/buffer_size_kb)
on=$(cat $T/tracing_on)
[ -z "$(cat $T/set_event)" ] || { echo "record.sh: events are enabled: the top buffer is in use" >&2; exit 1; }
quiet_all() {
	echo 0 >$T/tracing_on
	for s in $EVENTS; do echo 0 >$T/events/$s/enable; done
	echo "$kb" >$T/buffer_size_kb
	echo "$on" >$T/tracing_on
}
restore() {
	quiet_all
	snap >"$W/after"
	if ! cmp -s "$W/before" "$W/after"; then
		echo "record.sh: tracefs differs from how it was found:" >&2
		diff "$W/before" "$W/after" >&2 || true
	fi
	rm -rf "$W"
}
trap restore EXIT
trap 'exit 1' INT TERM
cd "$W"

start() {   # KB
	echo 0 >$T/tracing_on
	echo "$1" >$T/buffer_size_kb
	for s in $EVENTS; do echo 1 >$T/events/$s/enable; done
	echo >$T/trace
	echo 1 >$T/tracing_on
}

want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }

# ---- uneven: overwrite mode, one CPU much busier -------------------------------------
if want uneven; then
start 200
# CPU 0: a perl loop that wakes every 20 ms (a few records); CPU 1: a ping-pong of two
# threads over a pipe (hundreds of thousands of switches and system calls)
taskset -c 0 perl -e 'select(undef, undef, undef, 0.02) for 1..100' &
p0=$!
taskset -c 1 perf bench sched pipe -l 300000 >/dev/null 2>&1
wait $p0
echo 0 >$T/tracing_on
trace-cmd extract -o uneven.dat >/dev/null 2>&1
quiet_all
fi

# ---- lost: a reader during the recording, a small buffer, a storm of wakeups ---------
if want lost; then
"$KTRACE" record -b 100 -e sched -e irq -e raw_syscalls -o lost.dat -- \
	sh -c 'perf bench sched messaging -g 1 -l 5 >/dev/null 2>&1 &
	       taskset -c 0 perf bench sched pipe -l 4000 >/dev/null 2>&1 &
	       taskset -c 1 perf bench sched pipe -l 4000 >/dev/null 2>&1; wait' 2>&1 |
	tail -4 >&2
fi

# ---- quiet: a light workload, nothing lost -------------------------------------------
if want quiet; then
start 4096
i=0
while [ $i -lt 20 ]; do sleep 0.01; echo x | cat >/dev/null; i=$((i + 1)); done
echo 0 >$T/tracing_on
trace-cmd extract -o quiet.dat >/dev/null 2>&1
quiet_all
fi

for f in uneven lost quiet; do
	[ -f "$f.dat" ] && zstd -q -19 -f "$f.dat" -o "$OUT/$f.dat.zst"
done
exit 0
