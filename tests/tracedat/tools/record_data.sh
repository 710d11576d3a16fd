#!/bin/bash
# Records the trace.dat files tests/tracedat/convert.sh converts, with ktrace
# itself (root and tracefs needed), into tests/data/tracedat_write/*.dat.zst. To keep
# them small they are converted to version 6 (ktrace convert) and slimmed with
# tests/tracedat/tools/tdslim.py (no kallsyms, only the formats of events present):
#   kt_dropped    ktrace record in an instance with a 16 KiB buffer under a
#                 syscall-heavy load: dropped events, with and without counts
#   kt_instances  ktrace extract of two instances set up by hand (sched with the
#                 global clock; irq + timer), version 6
#   kt_all        ktrace record of every event for a moment, uncompressed
# Only instances named ktrace-data-* are used; everything is removed afterwards.
# Usage: record_data.sh KTRACE OUTDIR
set -eu
K=$1 OUT=$2
T=/sys/kernel/tracing
[ -e $T/tracing_on ] || mount -t tracefs nodev $T
tmp=$(mktemp -d)
A=$T/instances/ktrace-data-a B=$T/instances/ktrace-data-b
cleanup() {
	for i in "$A" "$B"; do
		[ -d "$i" ] || continue
		echo 0 > "$i/tracing_on"; echo > "$i/set_event"; rmdir "$i"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# a burst of short system calls for $1 seconds
cat > "$tmp/load.py" <<'PY'
import os, sys, time
end = time.time() + float(sys.argv[1])
while time.time() < end:
    for i in range(200):
        os.close(os.open("/proc/self/stat", os.O_RDONLY))
    time.sleep(0.002)
PY

"$K" record -q -B ktrace-data-r -e sched -e 'syscalls:sys_*_openat' -e 'syscalls:sys_*_close' \
	-b 16 --compression zstd -o "$tmp/kt_dropped.v7zstd.dat" -- python3 "$tmp/load.py" 0.12

mkdir "$A" "$B"
echo 0 > "$A/tracing_on"; echo 0 > "$B/tracing_on"
echo 24 > "$A/buffer_size_kb"; echo 24 > "$B/buffer_size_kb"
echo global > "$A/trace_clock"
echo 1 > "$A/events/sched/enable"
echo 1 > "$B/events/irq/enable"; echo 1 > "$B/events/timer/enable"
echo 1 > "$A/tracing_on"; echo 1 > "$B/tracing_on"
python3 "$tmp/load.py" 0.1
echo 0 > "$A/tracing_on"; echo 0 > "$B/tracing_on"
"$K" extract -q -B ktrace-data-a -B ktrace-data-b --file-version 6 -o "$tmp/kt_instances.v6.dat"

"$K" record -q -B ktrace-data-all -e all -b 32 --compression none \
	-o "$tmp/kt_all.v7none.dat" -- sleep 0.02

SLIM=$(dirname "$0")/../../tracedat/tools/tdslim.py
for f in "$tmp"/*.dat; do
	n=$(basename "$f" .dat)
	n=${n%.v*}
	"$K" convert -q -i "$f" -o "$tmp/$n.full.v6" --file-version 6
	python3 "$SLIM" "$tmp/$n.full.v6" "$tmp/$n.v6.dat"
	zstd -q -19 -f -o "$OUT/$n.v6.dat.zst" "$tmp/$n.v6.dat"
done
ls -l "$OUT"
