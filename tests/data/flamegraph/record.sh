#!/bin/sh
# Records the flame graph test's trace (tests/flamegraph/flamegraph.sh) on a live
# machine: run as root from the repository's top after `make`, with trace-cmd installed;
# writes tests/data/flamegraph/offcpu.dat.zst. `ktrace record -T` (a kernel stack after
# every event) of sched_switch and sched_wakeup while a shell sleeps (nanosleep: S) and
# dd writes with O_DIRECT and O_DSYNC to a file on disk (the waits for the device: D).
# The whole system is traced: other threads are in it too. Then the kallsyms of the
# file are cut to the functions its stacks name (trim_kallsyms.py: the file would be
# 1.4 MB with all of them), and trace-cmd report of the cut file is checked to be
# the same as the uncut one's.
# Takes the test suite's tracefs lock; ktrace record puts tracefs back as it found it,
# which is checked (the settings below before and after).
set -eu
T=/sys/kernel/tracing
OUT=$(cd "$(dirname "$0")" && pwd)
KTRACE=${KTRACE:-$OUT/../../../build/ktrace}
W=$(mktemp -d /var/tmp/ktrace-fg-rec.XXXXXX)   # on disk: O_DIRECT needs a real file system
exec 9>/tmp/ktrace-tracefs.lock
flock 9

snap() {
	for f in tracing_on buffer_size_kb current_tracer trace_clock set_event set_event_pid \
		tracing_cpumask buffer_percent options/stacktrace options/record-tgid \
		options/event-fork; do
		[ -e $T/$f ] && echo "$f: $(tr '\n' ' ' <$T/$f)"
	done
	ls $T/instances | sed 's/^/instance: /'
}
snap >"$W/before"
trap 'rm -rf "$W"' EXIT
cd "$W"
"$KTRACE" record -T -e sched_switch -e sched_wakeup -o full.dat -- sh -c '
	sleep 0.05
	dd if=/dev/zero of=data bs=4k count=40 oflag=direct,dsync 2>/dev/null
	sleep 0.03
	dd if=data of=/dev/null bs=4k iflag=direct 2>/dev/null
	sleep 0.02' 2>&1 | tail -3 >&2
snap >"$W/after"
cmp -s before after || { echo "record.sh: tracefs differs from how it was found:" >&2; diff before after >&2; exit 1; }
"$KTRACE" convert full.dat full6.dat --file-version 6 --compression none 2>/dev/null
trace-cmd report full6.dat >full.txt 2>/dev/null
python3 "$OUT/trim_kallsyms.py" full6.dat full.txt cut6.dat
trace-cmd report cut6.dat >cut.txt 2>/dev/null
cmp full.txt cut.txt || { echo "record.sh: the cut file reports differently" >&2; exit 1; }
"$KTRACE" convert cut6.dat offcpu.dat --file-version 7 --compression zstd 2>/dev/null
zstd -q -19 -f offcpu.dat -o "$OUT/offcpu.dat.zst"
ls -l "$OUT/offcpu.dat.zst" >&2
