# Shared by the ktrace top tests (sourced after tests/lib.sh): a CPU-bound process
# with a known name, and the tracefs state top must leave as it found it.
T=/sys/kernel/tracing
SPIN=ktspin$$
SPIN=$(echo "$SPIN" | cut -c1-15)    # (a task's name is 15 bytes at most)

# spin_start [rt]: a copy of sh named $SPIN looping forever; its pid in SPIN_PID. With
# rt it runs SCHED_FIFO (chrt) for as long as the check needs, so that it has a CPU
# of its own on a busy machine whatever else runs (nice does not reach past the
# session's autogroup; the kernel's RT throttling leaves the CPU 5% for the rest);
# else niced up.
spin_start() {
	cp "$(command -v sh)" "$TMP/$SPIN"
	if [ "$1" = rt ] && command -v chrt >/dev/null && chrt -f 1 true 2>/dev/null; then
		chrt -f 1 "$TMP/$SPIN" -c 'while :; do :; done' &
	else
		nice -n -15 "$TMP/$SPIN" -c 'while :; do :; done' &
	fi
	SPIN_PID=$!
}
spin_stop() {
	[ -n "$SPIN_PID" ] && kill "$SPIN_PID" 2>/dev/null
	[ -n "$SPIN_PID" ] && wait "$SPIN_PID" 2>/dev/null
	SPIN_PID=
}

# tracefs_snap: what top must leave as it was: the top buffer's state and the
# instances top makes (ktrace-top-*), with their sizes and tracing_on when any is left
tracefs_snap() {
	for f in tracing_on buffer_size_kb buffer_total_size_kb current_tracer trace_clock \
		set_event set_event_pid set_event_notrace_pid tracing_cpumask buffer_percent \
		options/record-tgid options/event-fork; do
		[ -e $T/$f ] && echo "$f: $(tr '\n' ' ' <$T/$f)"
	done
	for i in $T/instances/ktrace-top-*; do
		[ -d "$i" ] || continue
		echo "instance: $(basename "$i") tracing_on=$(cat "$i/tracing_on") size=$(cat "$i/buffer_size_kb")"
	done
}

top_cleanup() {
	spin_stop
	for i in $T/instances/ktrace-top-*; do
		[ -d "$i" ] || continue
		pid=${i##*-}
		kill -0 "$pid" 2>/dev/null && continue     # (another top that runs)
		echo 0 >"$i/tracing_on" 2>/dev/null
		echo >"$i/set_event" 2>/dev/null
		rmdir "$i" 2>/dev/null
	done
	rm -rf "$TMP"
}
