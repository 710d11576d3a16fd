#!/bin/sh
# Records the traces the report golden tests start from (root and tracefs needed; NOT
# run by make check). tracefs is set up by hand and the ring buffers are saved with
# Debian's `trace-cmd extract` (trace-cmd record cannot run where
# /proc/sys/kernel/ftrace_enabled is read-only). The tracefs settings are put back
# afterwards. Writes OUT/NAME.v7.dat (extract's zstd version 7) and OUT/NAME.v6.dat:
#   allevents   every event of every system (echo 1 > events/enable)
#   function    the function tracer with func_repeats, kernel stack traces after each
#               function, sched_switch, trace_marker (print) and trace_marker_raw
#   boot        sched/irq/timer events with the "boot" clock (trace-cmd prints its
#               timestamps raw) and an instance with the x86-tsc clock
# Then tools/slim.py cuts them down for tests/data/report.
# usage: tests/report/tools/record.sh OUTDIR [SECONDS]
set -u
OUT=${1:?usage: record.sh OUTDIR [SECONDS]}
SECS=${2:-1}
T=/sys/kernel/tracing
INST=$T/instances/ktrace_report
mkdir -p "$OUT"
[ -e $T/tracing_on ] || mount -t tracefs nodev $T

save_kb=$(cat $T/buffer_size_kb)
save_on=$(cat $T/tracing_on)
save_tracer=$(cat $T/current_tracer)
save_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock)
quiet_all() {
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	echo 0 > $T/events/enable
	echo > $T/set_ftrace_filter
	for o in func_stack_trace func-no-repeats stacktrace; do
		[ -e $T/options/$o ] && echo 0 > $T/options/$o
	done
	echo local > $T/trace_clock
}
restore() {
	quiet_all
	[ -d $INST ] && rmdir $INST
	echo "$save_kb" > $T/buffer_size_kb
	echo "$save_clock" > $T/trace_clock
	echo "$save_tracer" > $T/current_tracer
	echo "$save_on" > $T/tracing_on
}
trap restore EXIT

workload() {
	end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -lt "$end" ]; do
		ls -la /usr/bin > /dev/null
		dd if=/dev/zero of=/tmp/ktrace-rep.$$ bs=64k count=8 2>/dev/null
		sync
		gzip -1 < /tmp/ktrace-rep.$$ > /dev/null
		rm -f /tmp/ktrace-rep.$$
		sh -c 'sleep 0.01; echo x' | wc -c > /dev/null
		python3 -c 'import socket,os; s=socket.socket(); s.close(); os.urandom(64)' 2>/dev/null
		echo "ktrace report marker $(date +%N)" > $T/trace_marker 2>/dev/null
		printf 'raw\001\002\003\004' > $T/trace_marker_raw 2>/dev/null
	done
}

# save NAME [extract options]
save() {
	name=$1
	shift
	rm -f "$OUT/$name.v7.dat" "$OUT/$name.v6.dat"
	(cd "$OUT" && trace-cmd extract "$@" -o "$name.v7.dat" > /dev/null 2>&1)
	trace-cmd convert -i "$OUT/$name.v7.dat" -o "$OUT/$name.v6.dat" --file-version 6 > /dev/null 2>&1
	ls -l "$OUT/$name.v7.dat" "$OUT/$name.v6.dat"
}

quiet_all
echo 256 > $T/buffer_size_kb
echo 1 > $T/events/enable
echo > $T/trace
echo 1 > $T/tracing_on
workload "$SECS"
echo 0 > $T/tracing_on
save allevents
quiet_all

echo 128 > $T/buffer_size_kb
echo 1 > $T/events/sched/sched_switch/enable
echo 'vfs_* do_sys_* ksys_* __x64_sys_*' > $T/set_ftrace_filter 2>/dev/null
echo function > $T/current_tracer
for o in func_stack_trace func-no-repeats; do
	[ -e $T/options/$o ] && echo 1 > $T/options/$o
done
echo > $T/trace
echo 1 > $T/tracing_on
workload "$SECS"
echo 0 > $T/tracing_on
save function
quiet_all

echo 64 > $T/buffer_size_kb
echo boot > $T/trace_clock
mkdir -p $INST
echo 0 > $INST/tracing_on
echo 64 > $INST/buffer_size_kb
echo x86-tsc > $INST/trace_clock
for s in sched irq timer; do echo 1 > $T/events/$s/enable; done
echo 1 > $INST/events/syscalls/enable 2>/dev/null || echo 1 > $INST/events/raw_syscalls/enable
echo > $T/trace
echo > $INST/trace
echo 1 > $T/tracing_on
echo 1 > $INST/tracing_on
workload "$SECS"
echo 0 > $T/tracing_on
echo 0 > $INST/tracing_on
save boot -t -B ktrace_report
