#!/bin/sh
# The live commands leave themselves out of the trace: no event of `ktrace record -e
# syscalls -- WORKLOAD` (read back with trace-cmd report) nor line of `ktrace stream -e
# sched_switch -- WORKLOAD` has one of ktrace's threads as its current task; with
# --trace-self there are some (so the count can fail). A recording of the scheduler
# keeps only what the kernel keeps of them: their switches to and wakeups of other
# tasks (those tasks' switch-in and wakeup). The workload is still traced, from its
# fork on (its execve is in the trace); a -f filter still applies; tracefs is put back
# (set_event_notrace_pid, set_ftrace_notrace_pid, with a value there before, kept while
# recording; a sched_switch filter there before left as it was) after a recording and
# after one stopped by SIGTERM.
#
# ktrace's threads are found apart from the trace: the workload, a child of ktrace
# started once the readers run, lists /proc/$PPID/task (and the test checks that
# $PPID is the ktrace it started). The thread ids in the trace are the "comm-PID"
# of each line, as trace-cmd report and ktrace stream print it.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing
ID=ktrace-test-self-$$
CHECKS="record-no-self record-trace-self record-workload stream-no-self stream-trace-self
stream-workload stream-filter-kept top-restored top-restored-sigterm function-no-self"
plan "$(echo $CHECKS | wc -w)"

skip_all() {
	for c in $CHECKS; do echo "ok - $c # SKIP $1"; done
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "not root"
[ -e $T/tracing_on ] || skip_all "tracefs is not mounted at $T"
[ -e $T/set_event_notrace_pid ] || skip_all "the kernel has no set_event_notrace_pid"
command -v trace-cmd >/dev/null || skip_all "trace-cmd is not installed"
tracefs_lock
export KTRACE_STATE_DIR="$TMP/state"

result() {   # name status
	if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1"; fi
}
cleanup() {
	for i in $T/instances/$ID*; do
		[ -d "$i" ] || continue
		echo 0 >"$i/tracing_on" 2>/dev/null
		echo >"$i/set_event" 2>/dev/null
		rmdir "$i" 2>/dev/null
	done
	[ -n "$SEEDED" ] && { echo >$T/set_event_notrace_pid; echo 0 >$T/events/sched/sched_switch/filter; }
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# the workloads: a copy of cat and of sleep under names of their own
cp "$(command -v cat)" "$TMP/ktselfcat"
cp "$(command -v sleep)" "$TMP/ktselfsleep"
# $1: where ktrace's threads go; then it runs its programs
cat >"$TMP/wl.sh" <<EOF
echo "\$PPID \$\$" >"\$1.ids"
ls /proc/\$PPID/task >"\$1"
for i in 1 2 3; do "$TMP/ktselfcat" /proc/version >/dev/null; "$TMP/ktselfsleep" 0.05; done
EOF

# threads LIST: ktrace's thread ids as the workload found them, checked against the
# ktrace process started ($2): one per line, the main thread and at least one reader
threads_ok() {
	[ -s "$1" ] && [ "$(cut -d' ' -f1 "$1.ids")" = "$2" ] && grep -qx "$2" "$1" &&
		[ "$(wc -l <"$1")" -ge 2 ]
}
# mine FILE LIST: lines of FILE whose "comm-PID [CPU]" names a thread of LIST
mine() {
	awk -v list="$(tr '\n' ' ' <"$2")" '
		BEGIN { n = split(list, a, " "); for (i = 1; i <= n; i++) t[a[i]] = 1 }
		match($0, /-[0-9]+ +\[[0-9]+\]/) {
			pid = substr($0, RSTART + 1, RLENGTH - 1); sub(/ .*/, "", pid)
			if (pid in t) c++
		}
		END { print c + 0 }' "$1"
}

# other FILE LIST: lines of FILE whose current task is a thread of LIST and which are
# not a switch to, nor a wakeup of, a task outside LIST (trace-cmd's sched plugin lines:
# "sched_switch: A:1 [120] S ==> B:2 [120]", "sched_wakeup: B:2 [120] CPU:001")
other() {
	awk -v list="$(tr '\n' ' ' <"$2")" '
		BEGIN { n = split(list, a, " "); for (i = 1; i <= n; i++) t[a[i]] = 1 }
		match($0, /-[0-9]+ +\[[0-9]+\]/) {
			pid = substr($0, RSTART + 1, RLENGTH - 1); sub(/ .*/, "", pid)
			if (!(pid in t)) next
			s = $0; o = ""
			if (s ~ /sched_switch:/) { sub(/.*==> /, "", s) }
			else if (s ~ /sched_wakeup(_new)?:/) { sub(/.*sched_wakeup(_new)?: +/, "", s) }
			else { c++; next }
			if (match(s, /:[0-9]+ \[/)) o = substr(s, RSTART + 1, RLENGTH - 3)
			if (o == "" || (o in t)) c++
		}
		END { print c + 0 }' "$1"
}

# self_checks CMD A B WHAT: run_CMD as A (by default) and as B (--trace-self): A has no
# line of ktrace's own threads (CMD-no-self), B has some (CMD-trace-self); WHAT names
# the lines
self_checks() {
	cmd=$1 a=$2 b=$3 what=$4
	st=0
	run_$cmd "$a" || st=1
	c=$(mine "$TMP/$a.txt" "$TMP/$a.tids")
	[ "$c" = 0 ] || { st=1; echo "#   $c $what of ktrace's threads ($(tr '\n' ' ' <"$TMP/$a.tids")):"; }
	[ "$c" = 0 ] || grep -E -- "-($(paste -sd'|' "$TMP/$a.tids")) +\[" "$TMP/$a.txt" | head -3 | sed 's/^/#   /'
	result $cmd-no-self $st

	st=0
	run_$cmd "$b" --trace-self || st=1
	c=$(mine "$TMP/$b.txt" "$TMP/$b.tids")
	[ "$c" -gt 0 ] || { st=1; echo "#   --trace-self: no $what of ktrace's threads"; }
	echo "# $cmd: $(mine "$TMP/$a.txt" "$TMP/$a.tids") $what of ktrace by default, $c with --trace-self"
	result $cmd-trace-self $st
}

# ---- record -e syscalls -- WORKLOAD ------------------------------------------------
# run_record NAME [OPTIONS]: $TMP/NAME.dat, its report $TMP/NAME.txt, the threads
run_record() {
	n=$1
	shift
	"$KTRACE" record -q -B $ID-$n -e syscalls -b 4096 -o "$TMP/$n.dat" "$@" -- sh "$TMP/wl.sh" "$TMP/$n.tids" \
		>"$TMP/$n.log" 2>&1 &
	kp=$!
	wait $kp
	rc=$?
	trace-cmd report -i "$TMP/$n.dat" >"$TMP/$n.txt" 2>/dev/null
	[ $rc = 0 ] && threads_ok "$TMP/$n.tids" $kp && [ -s "$TMP/$n.txt" ] && return 0
	echo "#   record $*: exit $rc, threads: $(tr '\n' ' ' <"$TMP/$n.tids" 2>/dev/null)"
	sed 's/^/#   /' "$TMP/$n.log" | head -3
	return 1
}
self_checks record r s events

# the workload's events: its own process from its fork (the execve of sh, before which
# it is a copy of ktrace), its cat (an openat and an exit_group each)
st=0
w=$(cut -d' ' -f2 "$TMP/r.tids.ids")
grep -Eq -- "-$w +\[[0-9]+\] .*sys_enter_execve:" "$TMP/r.txt" || { st=1; echo "#   no execve of the workload ($w)"; }
n=$(grep -c "ktselfcat-[0-9]* .*sys_enter_exit_group:" "$TMP/r.txt")
[ "$n" = 3 ] || { st=1; echo "#   $n exit_group of the workload's cat (3 ran)"; }
grep -q "ktselfcat-[0-9]* .*sys_enter_openat:" "$TMP/r.txt" || { st=1; echo "#   no openat of the workload's cat"; }
result record-workload $st

# ---- stream -e sched_switch -- WORKLOAD --------------------------------------------
run_stream() {
	n=$1
	shift
	"$KTRACE" stream -q -B $ID-$n -e sched_switch "$@" -- sh "$TMP/wl.sh" "$TMP/$n.tids" \
		>"$TMP/$n.txt" 2>"$TMP/$n.log" &
	kp=$!
	wait $kp
	rc=$?
	[ $rc = 0 ] && threads_ok "$TMP/$n.tids" $kp && [ -s "$TMP/$n.txt" ] && return 0
	echo "#   stream $*: exit $rc, threads: $(tr '\n' ' ' <"$TMP/$n.tids" 2>/dev/null)"
	sed 's/^/#   /' "$TMP/$n.log" | head -3
	return 1
}
self_checks stream t u switches

# the workload's sleeps: its switches away, state S, are there
st=0
n=$(grep -c "sched_switch: *ktselfsleep:[0-9]* \[[0-9]*\] S ==>" "$TMP/t.txt")
[ "$n" -ge 3 ] || { st=1; echo "#   $n switches of the workload's sleep (3 slept)"; }
w=$(cut -d' ' -f2 "$TMP/t.tids.ids")
grep -Eq -- "-$w +\[[0-9]+\] .*sched_switch:" "$TMP/t.txt" || { st=1; echo "#   no switch of the workload's shell ($w)"; }
result stream-workload $st

# a -f filter still applies with the one that leaves ktrace out: no switch away from
# a shell (the workload's is one)
st=0
run_stream v -f 'prev_comm != "sh"' || st=1
c=$(mine "$TMP/v.txt" "$TMP/v.tids")
[ "$c" = 0 ] || { st=1; echo "#   $c switches away from ktrace's threads with -f"; }
grep -q "sched_switch: *sh:[0-9]* " "$TMP/v.txt" && { st=1; echo "#   -f 'prev_comm != \"sh\"' did not apply"; }
grep -q "ktselfsleep:[0-9]* \[[0-9]*\] S ==>" "$TMP/v.txt" || { st=1; echo "#   no switch of the workload with -f"; }
result stream-filter-kept $st

# ---- the top buffer put back ---------------------------------------------------------
snap() {
	for f in set_event_notrace_pid set_ftrace_notrace_pid set_event_pid set_event \
		events/sched/sched_switch/filter events/sched/sched_wakeup/filter tracing_on; do
		[ -e $T/$f ] && echo "$f: $(cat $T/$f 2>&1 | tr '\n' ' ')"
	done
}
top_idle() {
	[ "$(cat $T/tracing_on)" = 1 ] && [ -z "$(cat $T/set_event)" ] &&
		[ "$(cat $T/current_tracer)" = nop ] && [ -z "$(cat $T/set_event_notrace_pid)" ] &&
		[ "$(cat $T/events/sched/sched_switch/filter)" = none ]
}
if top_idle; then
	# values there before: an excluded pid (1) and a filter, kept while recording
	SEEDED=1
	echo 1 >$T/set_event_notrace_pid
	echo 'prev_prio < 1000' >$T/events/sched/sched_switch/filter
	snap >"$TMP/before"
	st=0
	"$KTRACE" record -q -e sched_switch -e sched_wakeup -e syscalls -o "$TMP/top.dat" -- \
		sh "$TMP/wl.sh" "$TMP/top.tids" >"$TMP/top.log" 2>&1 || { st=1; sed 's/^/#   /' "$TMP/top.log" | head -3; }
	snap >"$TMP/after"
	cmp -s "$TMP/before" "$TMP/after" || { st=1; echo "#   not put back:"; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; }
	trace-cmd report -i "$TMP/top.dat" >"$TMP/top.txt" 2>/dev/null
	c=$(other "$TMP/top.txt" "$TMP/top.tids")
	[ "$c" = 0 ] || { st=1; echo "#   $c events of ktrace's threads on the top buffer beyond switches to and wakeups of other tasks"; }
	echo "# the top buffer: $(mine "$TMP/top.txt" "$TMP/top.tids") switches to or wakeups of other tasks by ktrace's threads, kept"
	grep -Eq -- "-1 +\[" "$TMP/top.txt" && { st=1; echo "#   the pid excluded before was traced"; }
	result top-restored $st

	# SIGTERM of a recording without a command: put back too
	st=0
	"$KTRACE" record -q -e sched_switch -o "$TMP/term.dat" >"$TMP/term.log" 2>&1 &
	kp=$!
	i=0
	while [ $i -lt 600 ] && ! grep -qw "$kp" $T/set_event_notrace_pid; do sleep 0.1; i=$((i + 1)); done
	grep -qw "$kp" $T/set_event_notrace_pid || { st=1; echo "#   the recording did not leave itself out after 60 s"; }
	grep -qw 1 $T/set_event_notrace_pid || { st=1; echo "#   the pid excluded before was dropped while recording"; }
	[ "$(head -1 $T/events/sched/sched_switch/filter)" = "prev_prio < 1000" ] ||
		{ st=1; echo "#   the filter there before is not kept while recording: $(head -1 $T/events/sched/sched_switch/filter)"; }
	kill -TERM $kp
	wait $kp || { st=1; sed 's/^/#   /' "$TMP/term.log" | head -3; }
	snap >"$TMP/after"
	cmp -s "$TMP/before" "$TMP/after" || { st=1; echo "#   not put back after SIGTERM:"; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; }
	result top-restored-sigterm $st
	echo >$T/set_event_notrace_pid
	echo 0 >$T/events/sched/sched_switch/filter
	SEEDED=
else
	ok "top-restored # SKIP the top buffer is in use"
	ok "top-restored-sigterm # SKIP the top buffer is in use"
fi

# ---- a function tracer: set_ftrace_notrace_pid ----------------------------------------
mkdir $T/instances/$ID-f
if ! cat $T/instances/$ID-f/set_ftrace_notrace_pid >/dev/null 2>&1 ||
	! echo function >$T/instances/$ID-f/current_tracer 2>/dev/null; then
	rmdir $T/instances/$ID-f
	ok "function-no-self # SKIP the kernel refuses the function tracer or set_ftrace_notrace_pid here"
else
	echo nop >$T/instances/$ID-f/current_tracer
	rmdir $T/instances/$ID-f
	st=0
	"$KTRACE" record -q -B $ID-f -p function -b 8192 -o "$TMP/f.dat" -- sh "$TMP/wl.sh" "$TMP/f.tids" \
		>"$TMP/f.log" 2>&1 &
	kp=$!
	wait $kp || { st=1; sed 's/^/#   /' "$TMP/f.log" | head -3; }
	threads_ok "$TMP/f.tids" $kp || st=1
	trace-cmd report -i "$TMP/f.dat" >"$TMP/f.txt" 2>/dev/null
	c=$(mine "$TMP/f.txt" "$TMP/f.tids")
	[ "$c" = 0 ] || { st=1; echo "#   $c functions run by ktrace's threads"; }
	grep -q "ktselfcat-" "$TMP/f.txt" || { st=1; echo "#   no function of the workload"; }
	result function-no-self $st
fi
