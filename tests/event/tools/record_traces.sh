#!/bin/sh
# Records the traces the event formatter is checked on (root and tracefs needed; NOT
# run by make check). tracefs is set up here and the ring buffer is saved with Debian's
# `trace-cmd extract` (trace-cmd record cannot run where /proc/sys/kernel/ftrace_enabled
# is read-only), so that trace-cmd's own report is the reference:
#   OUT/allevents.dat   every event of every system (echo 1 > events/enable)
#   OUT/kmem.dat        sched, kmem, timer, syscalls, irq (plugin-formatted events)
#   OUT/function.dat    the function tracer with kernel and user stack traces,
#                       func_repeats, trace_marker (print) and trace_marker_raw (raw_data)
# The tracefs settings are saved first and put back afterwards.
# usage: tests/event/tools/record_traces.sh OUTDIR [SECONDS]
set -u
OUT=${1:?usage: record_traces.sh OUTDIR [SECONDS]}
SECS=${2:-2}
T=/sys/kernel/tracing
mkdir -p "$OUT"

save=$(mktemp -d)
for f in tracing_on current_tracer buffer_size_kb; do
	cat $T/$f > "$save/$f" 2>/dev/null
done
clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock)
quiet_all() {
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	echo 0 > $T/events/enable
	for o in stacktrace userstacktrace func-no-repeats; do
		[ -e $T/options/$o ] && echo 0 > $T/options/$o
	done
}
restore() {
	quiet_all
	cat "$save/buffer_size_kb" > $T/buffer_size_kb
	echo "$clock" > $T/trace_clock
	cat "$save/current_tracer" > $T/current_tracer
	cat "$save/tracing_on" > $T/tracing_on
	rm -rf "$save"
}
trap restore EXIT

workload() {
	# a bit of everything: processes, files, pipes, sockets, timers, memory, markers
	end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -lt "$end" ]; do
		ls -la /usr/bin > /dev/null
		dd if=/dev/zero of=/tmp/ktrace-wl.$$ bs=64k count=16 2>/dev/null
		sync
		gzip -1 < /tmp/ktrace-wl.$$ > /dev/null
		rm -f /tmp/ktrace-wl.$$
		sh -c 'sleep 0.01; echo x' | wc -c > /dev/null
		python3 -c 'import socket,os; s=socket.socket(); s.close(); os.urandom(64)' 2>/dev/null
		echo "ktrace marker $(date +%N)" > $T/trace_marker 2>/dev/null
		printf 'raw\001\002\003\004\005\006\007' > $T/trace_marker_raw 2>/dev/null
	done
}

# record NAME BUFKB: tracefs is set up by the caller
record() {
	echo "$2" > $T/buffer_size_kb
	echo > $T/trace
	echo 1 > $T/tracing_on
	workload "$SECS"
	echo 0 > $T/tracing_on
	(cd "$OUT" && trace-cmd extract -o "$1.dat" > /dev/null 2>&1)
	quiet_all
}

quiet_all
echo 1 > $T/events/enable
record allevents 4096

for s in sched kmem timer syscalls irq; do
	echo 1 > $T/events/$s/enable
done
record kmem 4096

echo function > $T/current_tracer
for o in stacktrace userstacktrace func-no-repeats; do
	[ -e $T/options/$o ] && echo 1 > $T/options/$o
done
echo 1 > $T/events/sched/sched_switch/enable
record function 2048
ls -l "$OUT"
