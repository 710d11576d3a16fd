#!/bin/sh
# What commands must never do to the live kernel's tracing (issue 30, items 7 to 9):
# - consume a buffer they only look at: every command that reads a trace refuses a live
#   per_cpu/cpuN/trace_pipe_raw (named, through a link, as standard input, bind-mounted
#   elsewhere) with how to capture first, returns at once, and the kernel's "read
#   events" and "entries" counters of the buffer do not move;
# - split a buffer between two readers: a second record, stream, start or extract on a
#   buffer in use refuses, naming who holds it (another ktrace, any process reading its
#   trace_pipe_raw, ktrace start's tracing); an instance of its own works meanwhile;
# - leave a killed recording's changes unnamed: after a real SIGKILL of a top-buffer
#   record (and stream), reset and the next record on an instance name what it changed,
#   reset --restore or the next top-buffer record puts the top buffer back exactly.
# Every check compares tracefs files before and after; nothing here depends on timing
# (the waits only poll, with a long deadline, for a recording to be under way).
#
# Instances are named ktrace-test-PID-*; the top buffer is used only when nobody else
# uses it. The journal and start's state go to a directory of this test's own
# ($KTRACE_STATE_DIR), the instance registry too. Whatever happens, tracefs is left as
# it was found.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing
ID=ktrace-test-$$
CHECKS="readers-refuse-live readers-refuse-stdin readers-refuse-link readers-refuse-bind
readers-refuse-tracefs-file readers-consume-nothing readme-info-examples consumers-say-so
busy-instance-reader busy-top-record busy-top-reader busy-top-started killed-top-named
killed-top-restore killed-top-next-record killed-stream-restore state-left-as-found"
# one result a name of CHECKS
plan "$(echo $CHECKS | wc -w)"

skip_all() {
	for c in $CHECKS; do echo "ok - $c # SKIP $1"; done
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "not root"
[ -e $T/tracing_on ] || skip_all "tracefs is not mounted at $T"
command -v trace-cmd >/dev/null || skip_all "trace-cmd is not installed"
tracefs_lock
export KTRACE_STATE_DIR="$TMP/state"
export KTRACE_INSTANCE_REGISTRY="$TMP/registry"

# ---- the state that must come back -------------------------------------------------
snap() {   # the top buffer's settings, every option, our instances
	for f in tracing_on buffer_size_kb buffer_subbuf_size_kb current_tracer trace_clock \
		set_event set_event_pid set_event_notrace_pid tracing_cpumask buffer_percent \
		events/enable events/sched/sched_switch/filter events/sched/sched_wakeup/filter; do
		[ -e $T/$f ] && echo "$f: $(tr '\n' ' ' <$T/$f)"
	done
	for f in $T/options/*; do echo "${f#$T/}: $(cat "$f")"; done
	ls $T/instances | grep "^$ID" | sed 's/^/instance: /'
}
counters() {   # DIR: per CPU, the events read (consumed) and still there
	for s in "$1"/per_cpu/cpu*/stats; do
		echo "$s $(grep -E '^(read events|entries):' "$s" | tr '\n' ' ')"
	done
}
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	# a top-buffer session of ours that was killed (its journal), a start of ours: put
	# back
	[ -e "$KTRACE_STATE_DIR/top.journal" ] && "$KTRACE" reset --restore >/dev/null 2>&1
	[ -e "$KTRACE_STATE_DIR/top.state" ] && "$KTRACE" reset --restore >/dev/null 2>&1
	for i in $T/instances/$ID*; do
		[ -d "$i" ] || continue
		echo 0 >"$i/tracing_on" 2>/dev/null
		echo >"$i/set_event" 2>/dev/null
		rmdir "$i" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
snap >"$TMP/initial"

result() {   # name status
	if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1"; fi
}
top_idle() {
	[ "$(cat $T/tracing_on)" = 1 ] && [ -z "$(cat $T/set_event)" ] &&
		[ "$(cat $T/current_tracer)" = nop ] && [ -z "$(ls $T/instances)" ] &&
		[ ! -e /run/ktrace/top.journal ]
}
# waits (polling, 60 s at most) until the top buffer is being recorded by a session
# of ours: its journal there, tracing on, events enabled
wait_recording() {
	i=0
	while [ $i -lt 600 ]; do
		[ -s "$KTRACE_STATE_DIR/top.journal" ] && [ "$(cat $T/tracing_on)" = 1 ] &&
			[ -n "$(cat $T/set_event)" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "#   no recording under way after 60 s"
	return 1
}
# a command that runs until its pid file's process is killed
SLEEPER='echo $$ >"$1"; exec sleep 600'

# ---- 7. commands that only look never consume --------------------------------------
R=$ID-r
mkdir $T/instances/$R
echo 0 >$T/instances/$R/tracing_on
echo 1 >$T/instances/$R/events/sched/enable
echo 1 >$T/instances/$R/tracing_on
i=0
while [ $i -lt 50 ]; do cat /proc/self/stat >/dev/null; sleep 0.01; i=$((i + 1)); done
echo 0 >$T/instances/$R/tracing_on
P=$T/instances/$R/per_cpu/cpu0/trace_pipe_raw
counters $T/instances/$R >"$TMP/c.before"
grep -q "entries: [1-9]" "$TMP/c.before" || echo "#   (the instance holds no events: the checks below prove less)"

# refused: exit 1, at once (not the 60 s timeout), the reason and the way to capture,
# nothing written
refused() {   # rc errfile what
	[ "$1" = 1 ] || { echo "#   $3: exit $1"; return 1; }
	grep -q "a live tracefs ring buffer: reading it would take its events out of the kernel" "$2" &&
		grep -q "'ktrace extract -B $R -o trace.dat' (it empties the buffer) or 'ktrace record'" "$2" ||
		{ echo "#   $3:"; sed 's/^/#   /' "$2" | head -3; return 1; }
	ls "$TMP"/out* >/dev/null 2>&1 && { echo "#   $3 wrote $(ls "$TMP"/out*)"; rm -rf "$TMP"/out*; return 1; }
	return 0
}
READERS="info|info --json|report|export -o $TMP/out.pftrace|export --format json -o $TMP/out.json
export --format tsv -o $TMP/out.tsv|sql FILE select(1)|timeline -o $TMP/out.html|convert -o $TMP/out.dat
split -o $TMP/out.split"
st=0
echo "$READERS" | tr '|' '\n' >"$TMP/readers"
while read -r cmd; do
	case $cmd in *FILE*) args=$(echo "$cmd" | sed "s#FILE#$P#") ;; *) args="$cmd $P" ;; esac
	# shellcheck disable=SC2086
	timeout 60 "$KTRACE" $args >"$TMP/o" 2>"$TMP/e" </dev/null
	refused $? "$TMP/e" "$cmd" || st=1
	grep -q "$P: a live" "$TMP/e" || { st=1; echo "#   $cmd: the file is not named"; }
done <"$TMP/readers"
result readers-refuse-live $st

st=0
while read -r cmd; do
	case $cmd in *FILE*) args=$(echo "$cmd" | sed "s#FILE#-#") ;; *) args="$cmd -" ;; esac
	# shellcheck disable=SC2086
	timeout 60 "$KTRACE" $args >"$TMP/o" 2>"$TMP/e" <"$P"
	refused $? "$TMP/e" "$cmd (standard input)" || st=1
done <"$TMP/readers"
result readers-refuse-stdin $st

st=0
ln -s "$P" "$TMP/link.raw"
timeout 60 "$KTRACE" info "$TMP/link.raw" >"$TMP/o" 2>"$TMP/e"
refused $? "$TMP/e" "info LINK" || st=1
result readers-refuse-link $st

# bind-mounted over a file elsewhere (its name says nothing): in a mount namespace of
# our own, so that nobody else sees it
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	: >"$TMP/plain.raw"
	unshare -m sh -c 'mount --bind "$1" "$2" || exit 3; timeout 60 "$3" report "$2"' sh \
		"$P" "$TMP/plain.raw" "$KTRACE" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	# (its name unknown, it is refused as any file of tracefs)
	if [ $rc = 3 ]; then
		echo "ok - readers-refuse-bind # SKIP no bind mount in a mount namespace"
	elif [ $rc = 1 ] && grep -q "$TMP/plain.raw: a tracefs file (the kernel's live tracing state), not a trace; capture a trace first: 'ktrace extract -o trace.dat' or 'ktrace record'" "$TMP/e"; then
		ok readers-refuse-bind
	else
		not_ok readers-refuse-bind
		echo "#   report of a bind mount: exit $rc"; sed 's/^/#   /' "$TMP/e" | head -3
	fi
else
	echo "ok - readers-refuse-bind # SKIP no unshare -m"
fi

st=0
timeout 60 "$KTRACE" info "$T/instances/$R/trace" >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc = 1 ] && grep -q "a tracefs file (the kernel's live tracing state), not a trace" "$TMP/e" ||
	{ st=1; echo "#   info of a tracefs text file: exit $rc"; sed 's/^/#   /' "$TMP/e" | head -3; }
result readers-refuse-tracefs-file $st

counters $T/instances/$R >"$TMP/c.after"
check_same readers-consume-nothing "$TMP/c.before" "$TMP/c.after"

# the README's examples of info: the live file refused at once (it blocked forever, or
# consumed), a saved copy read, the live buffers saved first then read
st=0
counters $T >"$TMP/top.before"
timeout 60 "$KTRACE" info --json /sys/kernel/tracing/per_cpu/cpu0/trace_pipe_raw >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc = 1 ] && [ ! -s "$TMP/o" ] && grep -q "a live tracefs ring buffer" "$TMP/e" ||
	{ st=1; echo "#   info --json of the live cpu0: exit $rc"; head -3 "$TMP/e" | sed 's/^/#   /'; }
counters $T | grep /cpu0/ >"$TMP/top.after"
grep /cpu0/ "$TMP/top.before" | cmp -s - "$TMP/top.after" ||
	{ st=1; echo "#   the top buffer's cpu0 counters moved:"; cat "$TMP/top.after" | sed 's/^/#   /'; }
(cd "$ROOT" && "$KTRACE" info --json examples/sched_cpu0.trace_pipe_raw) >"$TMP/o" 2>"$TMP/e" &&
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["format"] == "ftrace-pages", d' "$TMP/o" ||
	{ st=1; echo "#   info --json of the example:"; head -3 "$TMP/e" | sed 's/^/#   /'; }
# (extract of our instance: the README's takes the top buffer)
"$KTRACE" extract -q -B $R -o "$TMP/now.dat" >"$TMP/e" 2>&1 && "$KTRACE" info --json "$TMP/now.dat" >"$TMP/o" 2>&1 &&
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["events"] > 0, d["events"]' "$TMP/o" ||
	{ st=1; echo "#   extract then info:"; head -3 "$TMP/e" "$TMP/o" | sed 's/^/#   /'; }
result readme-info-examples $st

st=0
for c in record stream extract; do
	"$KTRACE" help $c | tr '\n' ' ' | grep -q "consume" || { st=1; echo "#   ktrace help $c does not say it consumes"; }
done
result consumers-say-so $st
echo >$T/instances/$R/set_event
rmdir $T/instances/$R

# ---- 8. a buffer in use is not taken over -------------------------------------------
# an instance another process reads (cat of its trace_pipe_raw): start and extract
# refuse it, naming the reader
Q=$ID-q
st=0
mkdir $T/instances/$Q
cat $T/instances/$Q/per_cpu/cpu0/trace_pipe_raw >/dev/null &
cp=$!
PIDS="$PIDS $cp"
i=0
while [ $i -lt 600 ] && ! ls -l /proc/$cp/fd 2>/dev/null | grep -q "$Q/per_cpu/cpu0/trace_pipe_raw"; do
	sleep 0.1; i=$((i + 1))
done
snap >"$TMP/before"
"$KTRACE" start -q -B $Q -e sched >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc = 1 ] && grep -q "instance $Q is being read by another process, cat (pid $cp): a second reader would take part of its events" "$TMP/e" ||
	{ st=1; echo "#   start on a read instance: exit $rc"; head -3 "$TMP/e" | sed 's/^/#   /'; }
[ -z "$(cat $T/instances/$Q/set_event)" ] || { st=1; echo "#   start enabled events anyway"; }
"$KTRACE" extract -q -B $Q -o "$TMP/q.dat" >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc = 1 ] && [ ! -e "$TMP/q.dat" ] && grep -q "instance $Q is being read by another process, cat (pid $cp)" "$TMP/e" ||
	{ st=1; echo "#   extract of a read instance: exit $rc"; head -3 "$TMP/e" | sed 's/^/#   /'; }
ls "$KTRACE_STATE_DIR" 2>/dev/null | grep -q . && { st=1; echo "#   state left: $(ls "$KTRACE_STATE_DIR")"; }
kill $cp; wait $cp 2>/dev/null
snap >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after" || { st=1; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; }
rmdir $T/instances/$Q
result busy-instance-reader $st

if top_idle; then
	# two recordings of the top buffer: the second refuses (so does a stream, a start
	# and an extract), naming the first; an instance of its own records meanwhile
	st=0
	snap >"$TMP/before"
	"$KTRACE" record -q -e sched_switch -e sched_wakeup -o "$TMP/a.dat" -- sh -c "$SLEEPER" sh "$TMP/a.pid" \
		>"$TMP/a.log" 2>&1 &
	kp=$!
	PIDS="$PIDS $kp"
	wait_recording || st=1
	for c in "record -q -e sched -o $TMP/b.dat -- true" "stream -q -e sched -- true" "start -q -e sched"; do
		# shellcheck disable=SC2086
		"$KTRACE" $c >"$TMP/o" 2>"$TMP/e"
		rc=$?
		[ $rc = 1 ] && grep -q "the top buffer is in use by ktrace record (pid $kp): a second recording would take part of its events; record in an instance of your own (-B NAME)" "$TMP/e" ||
			{ st=1; echo "#   ${c%% *} on the recorded top buffer: exit $rc"; head -3 "$TMP/e" | sed 's/^/#   /'; }
		[ -s "$TMP/o" ] && { st=1; echo "#   ${c%% *} printed events"; }
	done
	[ -e "$TMP/b.dat" ] && { st=1; echo "#   the second record wrote a file"; }
	"$KTRACE" extract -q -o "$TMP/e.dat" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	[ $rc = 1 ] && [ ! -e "$TMP/e.dat" ] && grep -q "the top buffer is in use by ktrace record (pid $kp)" "$TMP/e" ||
		{ st=1; echo "#   extract of the recorded top buffer: exit $rc"; head -3 "$TMP/e" | sed 's/^/#   /'; }
	"$KTRACE" record -q -B $ID-b -e sched_switch -o "$TMP/i.dat" -- true >"$TMP/o" 2>&1 ||
		{ st=1; echo "#   an instance beside the recording:"; head -3 "$TMP/o" | sed 's/^/#   /'; }
	trace-cmd report -i "$TMP/i.dat" 2>/dev/null | grep -q "^$ID-b: .*sched_switch:" ||
		{ st=1; echo "#   the instance's recording holds no sched_switch"; }
	# its command ended by SIGTERM: the recording's status is 128+15, its file written
	kill "$(cat "$TMP/a.pid")"
	wait $kp
	rc=$?
	[ $rc = 143 ] || { st=1; echo "#   the first recording: exit $rc"; head -5 "$TMP/a.log" | sed 's/^/#   /'; }
	trace-cmd report -i "$TMP/a.dat" 2>/dev/null | grep -q "sched_switch:" ||
		{ st=1; echo "#   the first recording holds no sched_switch"; }
	snap >"$TMP/after"
	cmp -s "$TMP/before" "$TMP/after" || { st=1; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; }
	result busy-top-record $st

	# another program reading the top buffer (as trace-cmd record or cat): refused
	st=0
	cat $T/per_cpu/cpu1/trace_pipe_raw >/dev/null &
	cp=$!
	PIDS="$PIDS $cp"
	i=0
	while [ $i -lt 600 ] && ! ls -l /proc/$cp/fd 2>/dev/null | grep -q "tracing/per_cpu/cpu1/trace_pipe_raw"; do
		sleep 0.1; i=$((i + 1))
	done
	"$KTRACE" record -q -e sched -o "$TMP/c.dat" -- true >"$TMP/o" 2>"$TMP/e"
	rc=$?
	[ $rc = 1 ] && [ ! -e "$TMP/c.dat" ] && grep -q "the top buffer is being read by another process, cat (pid $cp): a second reader would take part of its events; wait for it to end, or record in an instance of your own (-B NAME)" "$TMP/e" ||
		{ st=1; echo "#   record beside a reader of the top buffer: exit $rc"; head -3 "$TMP/e" | sed 's/^/#   /'; }
	kill $cp; wait $cp 2>/dev/null
	snap >"$TMP/after"
	cmp -s "$TMP/before" "$TMP/after" || { st=1; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; }
	ls "$KTRACE_STATE_DIR" 2>/dev/null | grep -q . && { st=1; echo "#   state left: $(ls "$KTRACE_STATE_DIR")"; }
	result busy-top-reader $st

	# ktrace start's tracing on the top buffer: a recording would empty it, refused
	st=0
	"$KTRACE" start -q -e sched_switch >"$TMP/o" 2>&1 || { st=1; head -3 "$TMP/o" | sed 's/^/#   /'; }
	"$KTRACE" record -q -e sched -o "$TMP/d.dat" -- true >"$TMP/o" 2>"$TMP/e"
	rc=$?
	[ $rc = 1 ] && [ ! -e "$TMP/d.dat" ] && grep -q "the top buffer is in use by 'ktrace start' ($KTRACE_STATE_DIR/top.state): recording would empty it" "$TMP/e" ||
		{ st=1; echo "#   record over ktrace start: exit $rc"; head -3 "$TMP/e" | sed 's/^/#   /'; }
	[ "$(cat $T/set_event)" = "sched:sched_switch" ] || { st=1; echo "#   start's events changed: $(cat $T/set_event)"; }
	"$KTRACE" reset --restore >"$TMP/o" 2>&1 || { st=1; head -3 "$TMP/o" | sed 's/^/#   /'; }
	snap >"$TMP/after"
	cmp -s "$TMP/before" "$TMP/after" || { st=1; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; }
	result busy-top-started $st
else
	for c in busy-top-record busy-top-reader busy-top-started; do
		echo "ok - $c # SKIP the top buffer is in use (tracing off, events, a tracer or instances)"
	done
fi

# ---- 9. a killed recording's changes are named and put back ------------------------
# kill_recording CMD...: starts ktrace CMD (on the top buffer, its command sleeping),
# waits until it records, kills it with SIGKILL, ends its command; $kp is its pid
kill_recording() {
	"$KTRACE" "$@" -- sh -c "$SLEEPER" sh "$TMP/k.pid" >"$TMP/k.log" 2>&1 &
	kp=$!
	PIDS="$PIDS $kp"
	wait_recording || return 1
	kill -KILL $kp
	wait $kp 2>/dev/null
	[ -s "$TMP/k.pid" ] && kill "$(cat "$TMP/k.pid")" 2>/dev/null
	rm -f "$TMP/k.pid"
	return 0
}
if top_idle; then
	snap >"$TMP/before"
	st=0
	kill_recording record -e sched -b 2048 -C global -O sym-offset -o "$TMP/k.dat" || st=1
	snap >"$TMP/killed"
	# what it left: its events on, record-tgid on, its size, clock and option
	for want in "set_event: sched:" "options/record-tgid: 1" "buffer_size_kb: 2051" \
		"trace_clock: .*\[global\]" "options/sym-offset: 1" "buffer_percent: 1"; do
		grep -q "^$want" "$TMP/killed" || { st=1; echo "#   the killed recording did not leave '$want'"; }
	done
	# reset of an instance, and a record in an instance: both name it, neither touches it
	mkdir $T/instances/$ID-n
	"$KTRACE" reset -B $ID-n -d >"$TMP/o" 2>&1 || { st=1; head -3 "$TMP/o" | sed 's/^/#   /'; }
	grep -q "^the top buffer was left changed: a recording (pid $kp) that was killed changed tracing_on, set_event, buffer_size_kb, trace_clock, options/record-tgid, options/sym-offset, buffer_percent\(, set_event_notrace_pid\)\{0,1\} (now: [1-9][0-9]* events enabled); 'ktrace reset --restore' puts it back as it was$" "$TMP/o" ||
		{ st=1; echo "#   reset -B did not name it:"; sed 's/^/#   /' "$TMP/o" | head -3; }
	"$KTRACE" record -q -B $ID-n -e sched_switch -o "$TMP/n.dat" -- true >"$TMP/o" 2>&1 ||
		{ st=1; head -3 "$TMP/o" | sed 's/^/#   /'; }
	grep -q "^ktrace: the top buffer was left changed: a recording (pid $kp) that was killed changed .*; 'ktrace reset --restore' puts it back as it was$" "$TMP/o" ||
		{ st=1; echo "#   record -B did not name it:"; sed 's/^/#   /' "$TMP/o" | head -3; }
	snap >"$TMP/still"
	cmp -s "$TMP/killed" "$TMP/still" || { st=1; echo "#   naming it changed the top buffer:"; diff "$TMP/killed" "$TMP/still" | sed 's/^/#   /'; }
	result killed-top-named $st

	st=0
	"$KTRACE" reset --restore >"$TMP/o" 2>&1 || { st=1; head -3 "$TMP/o" | sed 's/^/#   /'; }
	grep -q "^the top buffer was left changed: a recording (pid $kp) that was killed changed .*; put back as it was$" "$TMP/o" ||
		{ st=1; echo "#   reset --restore did not say so:"; sed 's/^/#   /' "$TMP/o" | head -3; }
	snap >"$TMP/after"
	cmp -s "$TMP/before" "$TMP/after" || { st=1; echo "#   not put back:"; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; }
	"$KTRACE" reset -B no-such-$ID >"$TMP/o" 2>&1
	grep -q "the top buffer was left changed" "$TMP/o" && { st=1; echo "#   still named after reset --restore"; }
	result killed-top-restore $st

	# the next recording of the top buffer puts it back first, says so, and records
	st=0
	kill_recording record -e sched -e irq -M 1 -o "$TMP/k.dat" || st=1
	snap | cmp -s "$TMP/before" - && { st=1; echo "#   the killed recording changed nothing"; }
	"$KTRACE" record -q -e sched_switch -o "$TMP/m.dat" -- true >"$TMP/o" 2>&1 || { st=1; head -3 "$TMP/o" | sed 's/^/#   /'; }
	grep -q "^ktrace: the top buffer was left changed: a recording (pid $kp) that was killed changed .*tracing_cpumask.*; now put back as it was$" "$TMP/o" ||
		{ st=1; echo "#   the next record did not say so:"; sed 's/^/#   /' "$TMP/o" | head -3; }
	trace-cmd report -i "$TMP/m.dat" 2>/dev/null | grep -q "sched_switch:" || { st=1; echo "#   the next record holds no sched_switch"; }
	snap >"$TMP/after"
	cmp -s "$TMP/before" "$TMP/after" || { st=1; echo "#   not put back:"; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; }
	result killed-top-next-record $st

	# a killed stream (its own threads left out with set_event_notrace_pid) too
	st=0
	kill_recording stream -e sched_switch -b 1024 || st=1
	snap | grep -Eq "^set_event_notrace_pid: (.* )?$kp( |\$)" || { st=1; echo "#   the killed stream left no notrace pid of its own"; }
	"$KTRACE" reset --restore >"$TMP/o" 2>&1 || { st=1; head -3 "$TMP/o" | sed 's/^/#   /'; }
	grep -q "^the top buffer was left changed: a recording (pid $kp) that was killed changed .*set_event_notrace_pid.*; put back as it was$" "$TMP/o" ||
		{ st=1; echo "#   reset --restore did not say so:"; sed 's/^/#   /' "$TMP/o" | head -3; }
	snap >"$TMP/after"
	cmp -s "$TMP/before" "$TMP/after" || { st=1; echo "#   not put back:"; diff "$TMP/before" "$TMP/after" | sed 's/^/#   /'; }
	result killed-stream-restore $st
else
	for c in killed-top-named killed-top-restore killed-top-next-record killed-stream-restore; do
		echo "ok - $c # SKIP the top buffer is in use (tracing off, events, a tracer or instances)"
	done
fi

# ---- and nothing of ours is left -----------------------------------------------------
snap >"$TMP/final"
st=0
cmp -s "$TMP/initial" "$TMP/final" || { st=1; diff "$TMP/initial" "$TMP/final" | sed 's/^/#   /'; }
ls "$KTRACE_STATE_DIR" 2>/dev/null | grep -q . && { st=1; echo "#   state files left: $(ls "$KTRACE_STATE_DIR")"; }
ls "$KTRACE_INSTANCE_REGISTRY" 2>/dev/null | grep -q . && { st=1; echo "#   registry entries left: $(ls "$KTRACE_INSTANCE_REGISTRY")"; }
result state-left-as-found $st
exit 0
