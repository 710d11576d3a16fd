#!/bin/sh
# ktrace record / extract on the live kernel. Runs when the machine allows tracing (root
# and tracefs, mounted or mountable); otherwise every check reports itself skipped.
# Recordings are short and use instances named ktrace-test-PID-* (the top buffer only
# for the literal `ktrace record -e sched -e syscalls -o x.dat -- workload` case).
# Checked each time: exit status, `trace-cmd report` reads the file with nothing on
# stderr, the workload's events are there, the lost-event counts ktrace prints are the
# kernel's counters (saved in the file's CPUSTAT options, shown by trace-cmd report
# --stat) and agree with the dropped-events marks, and tracefs is left as it was.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing
ID=ktrace-test-$$
CHECKS="record-instance record-top record-lost record-sigint record-sigterm-command \
record-v6 record-filter record-errors record-mount extract convert-recorded \
record-command-status record-stream record-killed extract-empty record-progress"
# one result each
plan "$(echo $CHECKS | wc -w)"

skip_all() {
	for c in $CHECKS; do echo "ok - $c # SKIP $1"; done
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "not root"
if [ ! -e $T/tracing_on ]; then
	grep -q tracefs /proc/filesystems || skip_all "no tracefs in this kernel"
fi
command -v trace-cmd >/dev/null || skip_all "trace-cmd is not installed"
tracefs_lock

# remove what a failed run of ours may leave
cleanup() {
	for i in $T/instances/$ID*; do
		[ -d "$i" ] || continue
		echo 0 >"$i/tracing_on" 2>/dev/null; echo >"$i/set_event" 2>/dev/null
		rmdir "$i" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# the tracefs state that must not change
snap() {
	[ -e $T/tracing_on ] || { echo "tracefs not mounted"; return; }
	for f in tracing_on buffer_size_kb buffer_subbuf_size_kb current_tracer trace_clock \
		set_event set_event_pid options/event-fork options/record-tgid options/overwrite \
		buffer_percent; do
		[ -e $T/$f ] && echo "$f: $(tr '\n' ' ' <$T/$f)"
	done
	ls $T/instances | grep "^$ID" | sed 's/^/instance: /'
}

# workload: a process with a known pid doing system calls, then exiting
cat >"$TMP/wl.sh" <<'EOF'
echo $$ >"$1"
i=0
while [ $i -lt 200 ]; do cat /proc/self/stat >/dev/null; i=$((i + 1)); done
exec dd if=/dev/zero of=/dev/null bs=1k count=3000 status=none
EOF

# wait_file FILE: until FILE exists (a command writes its pid there: ktrace runs it only
# once tracing is on); 60 s at most
wait_file() {
	n=0
	while [ ! -e "$1" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
	[ -e "$1" ]
}

# report FILE NAME: trace-cmd report must read FILE cleanly
report_ok() {
	if trace-cmd report -i "$1" >"$TMP/rep.txt" 2>"$TMP/rep.err" && [ ! -s "$TMP/rep.err" ]; then
		return 0
	fi
	echo "#   trace-cmd report failed or complained:"; head -3 "$TMP/rep.err" | sed 's/^/#   /'
	return 1
}

# lost_ok LOG FILE: per CPU, "overrun N" printed by ktrace == overrun in the file's
# CPUSTAT (the kernel's counter); marked counts in the report <= it (== when all counted)
lost_ok() {
	trace-cmd report --stat -i "$2" 2>/dev/null |
		awk '/^CPU: /{cpu=$2} /^overrun: /{print cpu, $2}' >"$TMP/kernel.txt"
	sed -n 's/.*CPU \([0-9]*\): .*(overrun \([0-9]*\),.*/\1 \2/p' "$1" >"$TMP/printed.txt"
	if ! [ -s "$TMP/printed.txt" ] || ! cmp -s "$TMP/kernel.txt" "$TMP/printed.txt"; then
		echo "#   ktrace printed overruns differ from the kernel's counters:"
		paste "$TMP/printed.txt" "$TMP/kernel.txt" | sed 's/^/#   /' | head -5
		return 1
	fi
	trace-cmd report -i "$2" 2>/dev/null | grep "EVENTS DROPPED" |
		sed 's/.*CPU:\([0-9]*\) \[\([0-9]*\) *EVENTS.*/\1 \2/' >"$TMP/marks.txt"
	while read -r cpu over; do
		sum=$(awk -v c="$cpu" '$1 == c && $2 != "" {s += $2} END {print s + 0}' "$TMP/marks.txt")
		nocount=$(awk -v c="$cpu" '$1 == c && NF == 1 {n++} END {print n + 0}' "$TMP/marks.txt")
		if [ "$sum" -gt "$over" ] || { [ "$nocount" = 0 ] && [ "$sum" != "$over" ]; }; then
			echo "#   CPU $cpu: overrun $over, dropped-events marks sum to $sum ($nocount without a count)"
			return 1
		fi
	done <"$TMP/kernel.txt"
	return 0
}

# The machine's tracefs may be used by someone else at the same time: a difference that
# goes away within a few seconds is theirs, and so is one that holds none of the values
# ktrace sets while recording (buffer_percent 1, record-tgid or event-fork 1, the
# events, sizes and clocks these tests ask for). Anything else fails.
OURS='^(buffer_percent: 1 |options/record-tgid: 1|options/event-fork: 1|set_event: .*(sched|syscalls)|buffer_size_kb: 16 |instance: )'
state_ok() {
	snap >"$TMP/after"
	if cmp -s "$TMP/before" "$TMP/after"; then return 0; fi
	for i in 1 2 3 4 5; do
		sleep 1
		snap >"$TMP/after"
		cmp -s "$TMP/before" "$TMP/after" && return 0
	done
	diff "$TMP/before" "$TMP/after" | sed -n 's/^> //p' >"$TMP/changed"
	if grep -Eq "$OURS" "$TMP/changed"; then
		echo "#   tracefs state changed:"; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /' | head -10
		return 1
	fi
	echo "#   (tracefs top level changed meanwhile, not by ktrace: $(tr '\n' ';' <"$TMP/changed"))"
	snap >"$TMP/before"
	return 0
}

# the top buffer is used only when nobody else seems to use it
top_idle() {
	[ "$(cat $T/tracing_on)" = 1 ] && [ -z "$(cat $T/set_event)" ] &&
		[ "$(cat $T/current_tracer)" = nop ] && [ -z "$(ls $T/instances)" ]
}

result() {   # name status
	if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1"; fi
}

# 1. an instance, sched + syscalls, with a command
snap >"$TMP/before"
st=0
"$KTRACE" record -B "$ID-a" -e sched -e syscalls -o "$TMP/a.dat" -- sh "$TMP/wl.sh" "$TMP/pid" \
	>"$TMP/log" 2>&1 || { st=1; sed 's/^/#   /' "$TMP/log" | head -5; }
report_ok "$TMP/a.dat" || st=1
pid=$(cat "$TMP/pid" 2>/dev/null)
grep -q "^$ID-a: *[^ ]*-$pid  *\[" "$TMP/rep.txt" || { echo "#   no event of the workload (pid $pid)"; st=1; }
grep -q "sys_enter_write\|sys_write" "$TMP/rep.txt" || { echo "#   no syscall event"; st=1; }
grep -q "sched_process_exit" "$TMP/rep.txt" || { echo "#   no sched event"; st=1; }
lost_ok "$TMP/log" "$TMP/a.dat" || st=1
state_ok || st=1
result record-instance $st

# 2. the top buffer, literally as the acceptance asks (when nobody else uses it)
if top_idle; then
	snap >"$TMP/before"
	st=0
	"$KTRACE" record -e sched -e syscalls -o "$TMP/x.dat" -- sh "$TMP/wl.sh" "$TMP/pid" \
		>"$TMP/log" 2>&1 || { st=1; sed 's/^/#   /' "$TMP/log" | head -5; }
	report_ok "$TMP/x.dat" || st=1
	pid=$(cat "$TMP/pid" 2>/dev/null)
	grep -q "^ *[^ ]*-$pid  *\[" "$TMP/rep.txt" || { echo "#   no event of the workload (pid $pid)"; st=1; }
	lost_ok "$TMP/log" "$TMP/x.dat" || st=1
	state_ok || st=1
	result record-top $st
else
	echo "ok - record-top # SKIP the top buffer is in use (tracing off, events, a tracer or instances)"
fi

# 3. a small buffer under a syscall storm (one-byte reads, about 600,000 events): events
#    are lost and reported. The loss must not depend on how fast the reader is: ktrace is
#    stopped (SIGSTOP, every thread) while the storm runs, so nothing drains the 16 KiB.
st=0
rm -f "$TMP/lpid" "$TMP/lgo" "$TMP/ldone"
"$KTRACE" record -B "$ID-l" -e sched -e syscalls -b 16 -o "$TMP/l.dat" -- \
	sh -c 'echo $$ >"$1"; while [ ! -e "$2" ]; do sleep 0.05; done
		dd if=/dev/zero of=/dev/null bs=1 count=150000 2>/dev/null; : >"$3"' \
	sh "$TMP/lpid" "$TMP/lgo" "$TMP/ldone" >"$TMP/log" 2>&1 &
kp=$!
if wait_file "$TMP/lpid"; then
	kill -STOP $kp
	: >"$TMP/lgo"
	wait_file "$TMP/ldone" || { echo "#   the storm did not end"; st=1; }
	kill -CONT $kp
else
	echo "#   the command did not start"; st=1
	: >"$TMP/lgo"
fi
wait $kp || { st=1; sed 's/^/#   /' "$TMP/log" | head -5; }
report_ok "$TMP/l.dat" || st=1
lost=$(sed -n 's/^ktrace: .* events recorded .*, \([0-9]*\) lost$/\1/p' "$TMP/log")
[ "${lost:-0}" -gt 0 ] || { echo "#   no loss reported with a 16 KiB buffer"; st=1; }
grep -q "EVENTS DROPPED" "$TMP/rep.txt" || { echo "#   no dropped-events mark in the file"; st=1; }
lost_ok "$TMP/log" "$TMP/l.dat" || st=1
state_ok || st=1
result record-lost $st
cp "$TMP/rep.txt" "$TMP/l.ref"

# 4. SIGINT in the middle of a recording without a command
st=0
"$KTRACE" record -B "$ID-i" -e sched -e 'syscalls:*read*' -o "$TMP/i.dat" >"$TMP/log" 2>&1 &
kp=$!
# tracing is on once ktrace says it records
i=0
while [ $i -lt 1200 ] && ! grep -q "recording; Ctrl-C to stop" "$TMP/log"; do
	sleep 0.05; i=$((i + 1))
done
ls -R /usr/include >/dev/null 2>&1
kill -INT $kp
wait $kp || { st=1; echo "#   exit status $?"; sed 's/^/#   /' "$TMP/log" | head -5; }
report_ok "$TMP/i.dat" || st=1
[ "$(wc -l <"$TMP/rep.txt")" -gt 10 ] || { echo "#   too few records"; st=1; }
lost_ok "$TMP/log" "$TMP/i.dat" || st=1
state_ok || st=1
result record-sigint $st

# 5. SIGTERM while a command runs
st=0
"$KTRACE" record -B "$ID-t" -e sched -o "$TMP/t.dat" -- \
	sh -c 'echo $$ >"$1"; exec sleep 30' sh "$TMP/spid" >"$TMP/log" 2>&1 &
kp=$!
wait_file "$TMP/spid" || { st=1; echo "#   the command did not start"; }
kill -TERM $kp
wait $kp || { st=1; echo "#   exit status $?"; }
report_ok "$TMP/t.dat" || st=1
state_ok || st=1
# the command goes on after ktrace stopped: end it (ours, by its pid)
[ -s "$TMP/spid" ] && kill "$(cat "$TMP/spid")" 2>/dev/null
result record-sigterm-command $st

# 6. version 6, uncompressed, all of one system with a glob
st=0
"$KTRACE" record -q -B "$ID-6" -e 'sched:sched_sw*' --file-version 6 -o "$TMP/six.dat" -- \
	sh "$TMP/wl.sh" "$TMP/pid" >"$TMP/log" 2>&1 || { st=1; sed 's/^/#   /' "$TMP/log" | head -5; }
report_ok "$TMP/six.dat" || st=1
grep -q "sched_switch:" "$TMP/rep.txt" || { echo "#   no sched_switch"; st=1; }
! grep -q "sched_waking:" "$TMP/rep.txt" || { echo "#   sched_waking was not asked for"; st=1; }
head -c 11 "$TMP/six.dat" | tail -c 1 | grep -q 6 || { echo "#   not version 6"; st=1; }
state_ok || st=1
result record-v6 $st

# 7. -F (only the command) and -F -c (and its children)
st=0
"$KTRACE" record -q -B "$ID-f" -F -e syscalls -o "$TMP/f.dat" -- sh "$TMP/wl.sh" "$TMP/pid" \
	>"$TMP/log" 2>&1 || { st=1; sed 's/^/#   /' "$TMP/log" | head -5; }
report_ok "$TMP/f.dat" || st=1
pid=$(cat "$TMP/pid")
sed -n 's/^[^ ]*: *[^ ]*-\([0-9][0-9]*\)  *\[.*/\1/p' "$TMP/rep.txt" | sort -u >"$TMP/pids"
[ "$(cat "$TMP/pids")" = "$pid" ] || { echo "#   -F: events of other processes: $(head -5 "$TMP/pids" | tr '\n' ' ')"; st=1; }
"$KTRACE" record -q -B "$ID-c" -F -c -e syscalls -o "$TMP/c.dat" -- sh "$TMP/wl.sh" "$TMP/pid" \
	>"$TMP/log" 2>&1 || { st=1; sed 's/^/#   /' "$TMP/log" | head -5; }
report_ok "$TMP/c.dat" || st=1
grep -q "^$ID-c: *cat-[0-9]*  *\[" "$TMP/rep.txt" || { echo "#   -F -c: no event of the command's children"; st=1; }
state_ok || st=1
result record-filter $st

# 8. errors: unknown event, existing instance, not root; nothing left behind
st=0
if "$KTRACE" record -B "$ID-e" -e no_such_event_xyz -o "$TMP/e.dat" -- true >"$TMP/log" 2>&1; then
	st=1; echo "#   unknown event accepted"
fi
grep -q 'no event matches "no_such_event_xyz"' "$TMP/log" || { st=1; sed 's/^/#   /' "$TMP/log"; }
mkdir $T/instances/$ID-x
if "$KTRACE" record -B "$ID-x" -e sched -o "$TMP/e.dat" -- true >"$TMP/log" 2>&1; then
	st=1; echo "#   existing instance accepted"
fi
grep -q "exists already" "$TMP/log" || { st=1; sed 's/^/#   /' "$TMP/log"; }
[ -d $T/instances/$ID-x ] || { st=1; echo "#   the existing instance was removed"; }
rmdir $T/instances/$ID-x
if command -v setpriv >/dev/null; then
	if setpriv --reuid=65534 --regid=65534 --clear-groups "$KTRACE" record -e sched \
		-o /tmp/ktrace-nobody-$$.dat -- true >"$TMP/log" 2>&1; then
		st=1; echo "#   recording as nobody succeeded"
	fi
	grep -q "needs root" "$TMP/log" || { st=1; sed 's/^/#   /' "$TMP/log" | head -3; }
fi
[ ! -e "$TMP/e.dat" ] || { st=1; echo "#   a file was written"; }
state_ok || st=1
result record-errors $st

# 9. tracefs not mounted: ktrace mounts it, and unmounts it afterwards (in a mount
# namespace of our own, so that nobody else loses tracefs)
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	st=0
	unshare -m sh -c '
		umount /sys/kernel/tracing 2>/dev/null; umount -l /sys/kernel/debug 2>/dev/null
		grep -q " tracefs " /proc/mounts && { echo "#   cannot unmount tracefs"; exit 3; }
		"$1" record -q -B "$2" -e sched -o "$3" -- true || exit 1
		! grep -q " tracefs " /proc/mounts || { echo "#   tracefs left mounted"; exit 2; }
	' sh "$KTRACE" "$ID-m" "$TMP/m.dat" >"$TMP/log" 2>&1
	case $? in
	0) report_ok "$TMP/m.dat" || st=1 ;;
	3) st=skip ;;
	*) st=1; sed 's/^/#   /' "$TMP/log" | head -5 ;;
	esac
	state_ok || st=1
	if [ "$st" = skip ]; then
		echo "ok - record-mount # SKIP tracefs cannot be unmounted in a mount namespace"
	else
		result record-mount $st
	fi
else
	echo "ok - record-mount # SKIP no unshare -m"
fi

# 10. extract: an instance set up by hand is saved as it is, and left as it is
st=0
I=$T/instances/$ID-x
mkdir $I
echo 0 >$I/tracing_on
echo 1 >$I/events/sched/enable
echo 1 >$I/tracing_on
sh "$TMP/wl.sh" "$TMP/pid"
echo 0 >$I/tracing_on
ls $I >"$TMP/inst-before"; cat $I/set_event $I/tracing_on >>"$TMP/inst-before"
"$KTRACE" extract -B "$ID-x" -o "$TMP/ex.dat" >"$TMP/log" 2>&1 || { st=1; sed 's/^/#   /' "$TMP/log" | head -5; }
report_ok "$TMP/ex.dat" || st=1
pid=$(cat "$TMP/pid")
grep -q "^$ID-x: *[^ ]*-$pid  *\[" "$TMP/rep.txt" || { echo "#   no event of the workload"; st=1; }
ls $I >"$TMP/inst-after"; cat $I/set_event $I/tracing_on >>"$TMP/inst-after"
cmp -s "$TMP/inst-before" "$TMP/inst-after" || { echo "#   the instance changed"; st=1; }
lost_ok "$TMP/log" "$TMP/ex.dat" || st=1
echo >$I/set_event
rmdir $I
state_ok || st=1
result extract $st

# 11. the recordings as they are (instance buffers, dropped events with and without
# counts, kallsyms, every option) converted: trace-cmd report sees the same
st=0
for src in l ex; do
	trace-cmd report -i "$TMP/$src.dat" >"$TMP/src.ref" 2>/dev/null
	for v in "6 none" "7 none" "7 zstd" "7 zlib"; do
		set -- $v
		if ! "$KTRACE" convert -q -i "$TMP/$src.dat" -o "$TMP/conv.dat" --file-version $1 \
			--compression $2 >"$TMP/log" 2>&1; then
			st=1; echo "#   $src -> v$1 $2:"; sed 's/^/#   /' "$TMP/log" | head -3; continue
		fi
		if [ $2 = zlib ]; then
			# Debian's trace-cmd cannot read zlib: back to v6 through ktrace
			"$KTRACE" convert -q -i "$TMP/conv.dat" -o "$TMP/conv6.dat" --file-version 6 &&
				mv "$TMP/conv6.dat" "$TMP/conv.dat"
		fi
		report_ok "$TMP/conv.dat" || st=1
		cmp -s "$TMP/src.ref" "$TMP/rep.txt" || { st=1; echo "#   $src -> v$1 $2: report differs"; }
	done
done
grep -q "EVENTS DROPPED" "$TMP/l.ref" || { st=1; echo "#   the source had no dropped events"; }
result convert-recorded $st

# 12. a command that cannot start is refused before tracing (127, nothing written);
# a failing command's status is ktrace's (the file is written)
st=0
"$KTRACE" record -B "$ID-n" -e sched -o "$TMP/n.dat" -- /nonexistent/cmd >"$TMP/log" 2>&1
[ $? -eq 127 ] || { st=1; echo "#   /nonexistent/cmd: not exit 127"; }
[ ! -e "$TMP/n.dat" ] || { st=1; echo "#   a file was written"; }
grep -q "/nonexistent/cmd: cannot run the command" "$TMP/log" || { st=1; sed 's/^/#   /' "$TMP/log"; }
"$KTRACE" record -q -B "$ID-n" -e sched -o "$TMP/n.dat" -- sh -c 'exit 3' >"$TMP/log" 2>&1
[ $? -eq 3 ] || { st=1; echo "#   exit 3 not passed on"; }
report_ok "$TMP/n.dat" || st=1
state_ok || st=1
result record-command-status $st

# 13. record -o - and into a FIFO: a stream, the FIFO stays
st=0
"$KTRACE" record -q -B "$ID-s" -e sched -o - -- sh "$TMP/wl.sh" "$TMP/pid" >"$TMP/s.dat" 2>"$TMP/log" ||
	{ st=1; sed 's/^/#   /' "$TMP/log" | head -5; }
report_ok "$TMP/s.dat" || st=1
mkfifo "$TMP/rec.fifo"
cat "$TMP/rec.fifo" >"$TMP/f2.dat" &
reader=$!
"$KTRACE" record -q -B "$ID-s" -e sched -o "$TMP/rec.fifo" -- true >"$TMP/log" 2>&1 || st=1
wait $reader
[ -p "$TMP/rec.fifo" ] || { st=1; echo "#   the FIFO was replaced"; }
report_ok "$TMP/f2.dat" || st=1
state_ok || st=1
result record-stream $st

# 14. a recording killed with SIGKILL leaves its instance: the next record names it,
# ktrace reset lists it and reset -a removes it (a registry of this test's own, so that
# no other recording's leftovers are touched)
st=0
KTRACE_INSTANCE_REGISTRY=$TMP/registry
export KTRACE_INSTANCE_REGISTRY
"$KTRACE" record -B "$ID-k" -e sched -o "$TMP/k.dat" -- \
	sh -c 'echo $$ >"$1"; exec sleep 30' sh "$TMP/kpid" >"$TMP/klog" 2>&1 &
kp=$!
wait_file "$TMP/kpid" || { st=1; echo "#   the command did not start"; }
kill -KILL $kp
wait $kp 2>/dev/null
# the command goes on after ktrace died: end it (ours, by its pid)
[ -s "$TMP/kpid" ] && kill "$(cat "$TMP/kpid")" 2>/dev/null
[ -d $T/instances/$ID-k ] || { st=1; echo "#   the instance went away by itself"; }
"$KTRACE" record -q -B "$ID-k2" -e sched -o "$TMP/k2.dat" -- true >"$TMP/log" 2>&1 || st=1
grep -q "instance '$ID-k' was left behind by a recording that was killed (pid $kp)" "$TMP/log" ||
	{ st=1; echo "#   the leftover was not named:"; sed 's/^/#   /' "$TMP/log" | head -3; }
ls "$TMP" | grep -q '\.tmp' && { st=1; echo "#   temporary files left"; }
"$KTRACE" reset >"$TMP/log" 2>&1 || st=1
grep -q "instance '$ID-k' was left behind by a recording that was killed (pid $kp)" "$TMP/log" ||
	{ st=1; echo "#   reset did not list the leftover:"; sed 's/^/#   /' "$TMP/log" | head -3; }
[ -d $T/instances/$ID-k ] || { st=1; echo "#   reset without -a removed the instance"; }
# reset -B NAME resets an instance (as trace-cmd reset -B) and keeps it: only -d or -a
# remove instances, a leftover or not
mkdir $T/instances/$ID-other
"$KTRACE" reset -B "$ID-other" >"$TMP/log" 2>&1 || { st=1; echo "#   reset -B of an instance: exit $?"; sed 's/^/#   /' "$TMP/log" | head -3; }
[ -d $T/instances/$ID-other ] || { st=1; echo "#   reset -B without -d removed the instance"; }
[ -d $T/instances/$ID-k ] || { st=1; echo "#   reset -B $ID-other removed the leftover"; }
rmdir $T/instances/$ID-other
# reset -B LEFTOVER -d removes that leftover (and its registry entry)
"$KTRACE" record -B "$ID-k3" -e sched -o "$TMP/k3.dat" -- \
	sh -c 'echo $$ >"$1"; exec sleep 30' sh "$TMP/k3pid" >"$TMP/k3log" 2>&1 &
kp3=$!
wait_file "$TMP/k3pid" || { st=1; echo "#   the command did not start"; }
kill -KILL $kp3
wait $kp3 2>/dev/null
[ -s "$TMP/k3pid" ] && kill "$(cat "$TMP/k3pid")" 2>/dev/null
"$KTRACE" reset -B "$ID-k3" -d >"$TMP/log" 2>&1 || { st=1; sed 's/^/#   /' "$TMP/log" | head -3; }
[ ! -d $T/instances/$ID-k3 ] || { st=1; echo "#   reset -B LEFTOVER -d left the instance"; }
grep -q "removed instance '$ID-k3' (left by recorder pid $kp3)" "$TMP/log" || { st=1; echo "#   reset -B LEFTOVER -d did not say what it removed"; }
grep -q "instance '$ID-k' was left behind" "$TMP/log" || { st=1; echo "#   reset -B ... -d did not name the other leftover"; }
"$KTRACE" reset -a >"$TMP/log" 2>&1 || { st=1; sed 's/^/#   /' "$TMP/log" | head -3; }
[ ! -d $T/instances/$ID-k ] || { st=1; echo "#   reset -a left the instance"; }
grep -q "removed instance '$ID-k'" "$TMP/log" || { st=1; echo "#   reset -a did not say what it removed"; }
"$KTRACE" reset >"$TMP/log" 2>&1
grep -q "no instance left behind" "$TMP/log" || { st=1; echo "#   a leftover is still listed after reset -a"; }
# the top buffer keeps its own defaults (copy_trace_marker 1: else trace_marker fails)
echo "ktrace-test: after reset -a" 2>/dev/null >$T/trace_marker ||
	{ st=1; echo "#   trace_marker refuses writes after reset -a"; }
unset KTRACE_INSTANCE_REGISTRY
cleanup_k() { echo 0 >$T/instances/$1/tracing_on; echo >$T/instances/$1/set_event; rmdir $T/instances/$1; }
cleanup_k $ID-k 2>/dev/null
cleanup_k $ID-k3 2>/dev/null
result record-killed $st

# 15. extract of empty buffers: says so, saves nothing, exit 1; the count printed is
# what the file holds
st=0
I=$T/instances/$ID-y
mkdir $I
echo 0 >$I/tracing_on
"$KTRACE" extract -B "$ID-y" -o "$TMP/empty.dat" >"$TMP/log" 2>&1
[ $? -eq 1 ] || { st=1; echo "#   empty extract: not exit 1"; }
[ ! -e "$TMP/empty.dat" ] || { st=1; echo "#   empty extract wrote a file"; }
grep -q "hold no events" "$TMP/log" || { st=1; sed 's/^/#   /' "$TMP/log" | head -3; }
echo 1 >$I/events/sched/enable
echo 1 >$I/tracing_on
sh "$TMP/wl.sh" "$TMP/pid"
echo 0 >$I/tracing_on
"$KTRACE" extract -B "$ID-y" -o "$TMP/y.dat" >"$TMP/log" 2>&1 || st=1
printed=$(sed -n 's/^ktrace: \([0-9]*\) events recorded.*/\1/p' "$TMP/log")
infile=$("$KTRACE" info --json "$TMP/y.dat" | python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])')
[ -n "$printed" ] && [ "$printed" = "$infile" ] || { st=1; echo "#   printed $printed events, the file holds $infile"; }
"$KTRACE" extract -B "$ID-y" -o "$TMP/y2.dat" >"$TMP/log" 2>&1
[ $? -eq 1 ] && [ ! -e "$TMP/y2.dat" ] || { st=1; echo "#   a second extract of the emptied buffer did not say so"; }
echo >$I/set_event
rmdir $I
state_ok || st=1
result extract-empty $st

# 16. progress on stderr while record and extract work (their file is written with a
# line every 4 MiB of data), when it is a terminal (script(1) gives one); none when
# stderr is a file. About 17 MB of syscall events.
st=0
if command -v script >/dev/null; then
	script -qec "'$KTRACE' record -B '$ID-p' -b 16384 -e syscalls -o '$TMP/p.dat' -- dd if=/dev/zero of=/dev/null bs=1 count=100000 status=none" \
		/dev/null >"$TMP/tty.txt" 2>&1 || { st=1; echo "#   record under script failed"; }
	grep -q "ktrace record: [0-9]*% (" "$TMP/tty.txt" ||
		{ st=1; echo "#   no progress line from record:"; head -c 300 "$TMP/tty.txt" | tr "\r" "\n" | sed 's/^/#   /'; echo; }
	I=$T/instances/$ID-p
	mkdir $I
	echo 0 >$I/tracing_on
	echo 16384 >$I/buffer_size_kb
	echo 1 >$I/events/syscalls/enable
	echo 1 >$I/tracing_on
	dd if=/dev/zero of=/dev/null bs=1 count=100000 status=none
	echo 0 >$I/tracing_on
	script -qec "'$KTRACE' extract -B '$ID-p' -o '$TMP/pe.dat'" /dev/null >"$TMP/tty.txt" 2>&1 ||
		{ st=1; echo "#   extract under script failed"; }
	grep -q "ktrace extract: [0-9]*% (" "$TMP/tty.txt" ||
		{ st=1; echo "#   no progress line from extract:"; head -c 300 "$TMP/tty.txt" | tr "\r" "\n" | sed 's/^/#   /'; echo; }
	echo >$I/set_event
	rmdir $I
	"$KTRACE" record -B "$ID-p" -b 16384 -e syscalls -o "$TMP/p.dat" -- \
		dd if=/dev/zero of=/dev/null bs=1 count=100000 status=none >"$TMP/log" 2>&1 || st=1
	grep -q "%\|events/s" "$TMP/log" && { st=1; echo "#   a progress line in a file"; }
	rm -f "$TMP/p.dat" "$TMP/pe.dat"
	state_ok || st=1
	result record-progress $st
else
	echo "ok - record-progress # SKIP no script(1)"
fi
exit 0
