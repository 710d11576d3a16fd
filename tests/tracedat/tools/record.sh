#!/bin/bash
# Records the trace.dat files the tracedat tests and benchmarks start from, the way the
# project brief asks: events enabled by hand under tracefs, tracing_on 1, a workload,
# tracing_on 0, then `trace-cmd extract`. The tracefs state (tracing_on, buffer size,
# enabled events, overwrite mode) is saved first and restored afterwards.
# Needs root and a mounted tracefs. Usage: record.sh KIND OUT.dat
#   mixed     sched/irq/timer/syscalls/kmem in a small overwrite-mode buffer (dropped events)
#   all       every event, briefly
#   instance  sched in the top buffer + timer/irq in an instance with the global clock
#   big MB    sched/irq/timer/syscalls/kmem, MB megabytes of buffer per CPU (benchmarks)
set -eu
KIND=$1 OUT=$2 BIGMB=${3:-64}
T=/sys/kernel/tracing
[ -e $T/tracing_on ] || mount -t tracefs nodev $T
INST=$T/instances/ktrace_tracedat

save_on=$(cat $T/tracing_on)
save_kb=$(cat $T/buffer_size_kb)
save_ow=$(cat $T/options/overwrite)
save_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock)
save_events=$(mktemp)
cat $T/set_event > "$save_events"

restore() {
	echo 0 > $T/tracing_on
	echo > $T/set_event
	while read -r e; do echo "$e" >> $T/set_event; done < "$save_events"
	rm -f "$save_events"
	echo "$save_kb" > $T/buffer_size_kb
	echo "$save_ow" > $T/options/overwrite
	echo "$save_clock" > $T/trace_clock
	echo > $T/trace
	[ -d $INST ] && rmdir $INST
	echo "$save_on" > $T/tracing_on
}
trap restore EXIT

workload() {   # seconds
	local end=$((SECONDS + $1)) d
	d=$(mktemp -d)
	while [ $SECONDS -lt $end ]; do
		ls -lR /usr/include > /dev/null 2>&1
		dd if=/dev/zero of=$d/f bs=64k count=64 status=none; sync
		sh -c 'exit 0'; sleep 0.01
		python3 -c 'import os
for i in range(300): os.close(os.open("/proc/self/stat", os.O_RDONLY))'
	done
	rm -rf "$d"
}


echo 0 > $T/tracing_on
echo > $T/set_event
echo 1 > $T/options/overwrite
echo local > $T/trace_clock
case $KIND in
mixed)
	echo 16 > $T/buffer_size_kb
	for s in sched irq timer syscalls kmem; do echo 1 > $T/events/$s/enable; done
	echo > $T/trace
	echo 1 > $T/tracing_on; workload 2; echo 0 > $T/tracing_on
	trace-cmd extract -o "$OUT"
	;;
all)
	echo 64 > $T/buffer_size_kb
	echo 1 > $T/events/enable
	echo > $T/trace
	echo 1 > $T/tracing_on; workload 1; echo 0 > $T/tracing_on
	echo 0 > $T/events/enable
	trace-cmd extract -o "$OUT"
	;;
instance)
	echo 24 > $T/buffer_size_kb
	mkdir $INST
	echo 0 > $INST/tracing_on
	echo 24 > $INST/buffer_size_kb
	echo global > $INST/trace_clock
	echo 1 > $T/events/sched/enable
	echo 1 > $INST/events/timer/enable
	echo 1 > $INST/events/irq/enable
	echo > $T/trace; echo > $INST/trace
	echo 1 > $T/tracing_on; echo 1 > $INST/tracing_on
	workload 1
	echo 0 > $T/tracing_on; echo 0 > $INST/tracing_on
	trace-cmd extract -t -B ktrace_tracedat -o "$OUT"
	;;
big)
	echo $((BIGMB * 1024)) > $T/buffer_size_kb
	for s in sched irq timer syscalls kmem; do echo 1 > $T/events/$s/enable; done
	echo > $T/trace
	echo 1 > $T/tracing_on; workload 20; echo 0 > $T/tracing_on
	trace-cmd extract -o "$OUT"
	;;
*) echo "unknown kind $KIND" >&2; exit 2 ;;
esac
ls -l "$OUT"
