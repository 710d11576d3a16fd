#!/bin/sh
# Runs every test: unit-test programs (build/tests/*/test_*), script tests
# (tests/*/*.sh) and the fuzz-corpus regression drivers. Each prints "ok - ..." /
# "not ok - ..." lines; a program that crashes or exits non-zero without reporting a
# failure counts as one failure. Each test declares how many results it prints with a
# TAP plan line "1..N" (a corpus replay: one per file of its corpus); a test without a
# plan, or with another count of results, gets one failure more that says both numbers.
# Ends with "N passed, N failed; M corpus replays passed": the corpus replays (they say
# "did not crash") are counted apart from the checks.
#
# The scripts that change tracefs (they take tracefs_lock) or time the live kernel run
# first, one at a time, with nothing else running; then everything else runs JOBS at a
# time (default: the number of CPUs). The results are printed in a fixed order.
set -u
: "${B:=build}"
export B
cd "$(dirname "$0")/.."
log=$B/test-log
mkdir -p "$log"

logname() { echo "$1" | tr '/' '_'; }

# --one NAME COMMAND...: runs one test into $log/NAME.log, .status and .secs
if [ "${1:-}" = --one ]; then
	shift
	name=$1; shift
	out="$log/$(logname "$name")"
	t0=$(date +%s)
	"$@" >"$out.log" 2>&1 </dev/null
	echo $? >"$out.status"
	echo $(($(date +%s) - t0)) >"$out.secs"
	exit 0
fi

: "${JOBS:=$(nproc 2>/dev/null || echo 1)}"
list=$log/list
serial=$log/list.serial
: >"$list"
: >"$serial"
for t in $(ls $B/tests/*/test_* 2>/dev/null | grep -v '\.d$'); do
	[ -x "$t" ] && echo "${t#$B/} $t" >>"$list"
done
for t in tests/*/*.sh; do
	[ -f "$t" ] || continue
	if grep -q '^[[:space:]]*tracefs_lock' "$t"; then
		echo "$t sh $t" >>"$serial"
	else
		echo "$t sh $t" >>"$list"
	fi
done
for r in $B/fuzz/*_regress; do
	[ -x "$r" ] || continue
	name=$(basename "$r" _regress)
	echo "fuzz/$name $r fuzz/corpus/$name" >>"$list"
done
rm -f "$log"/*.status "$log"/*.secs "$log"/*.log

# The live tests need tracefs at /sys/kernel/tracing. A machine that has not mounted it
# (some boot without it) gets it mounted for the run, and unmounted again afterwards.
mounted_here=
if [ "$(id -u)" = 0 ] && [ ! -e /sys/kernel/tracing/tracing_on ] &&
	grep -q tracefs /proc/filesystems 2>/dev/null &&
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	mounted_here=1
	echo "(tracefs was not mounted: mounted on /sys/kernel/tracing for the tests)"
fi
while read -r line; do
	sh tests/run.sh --one $line </dev/null
done <"$serial"
[ -n "$mounted_here" ] && umount /sys/kernel/tracing 2>/dev/null
xargs -L 1 -P "$JOBS" sh tests/run.sh --one <"$list"

pass=0
fail=0
skip=0
replays=0
report() {   # name rest-of-its-list-line
	name=$1
	out="$log/$(logname "$name")"
	status=$(cat "$out.status" 2>/dev/null || echo 255)
	secs=$(cat "$out.secs" 2>/dev/null || echo "?")
	# "ok - name # SKIP why" is a skip, counted apart and never as a pass
	s=$(grep -c '^ok .*# SKIP' "$out.log")
	p=$(($(grep -c '^ok ' "$out.log") - s))
	f=$(grep -c '^not ok ' "$out.log")
	seen=$((p + s + f))
	# the plan: the test's "1..N" line; a corpus replay prints one line per file
	case $name in
	fuzz/*)
		planned=0
		for d in $3; do planned=$((planned + $(ls "$d" | grep -vc '^\.'))); done
		plans=1 ;;
	*)
		plans=$(grep -c '^1\.\.[0-9][0-9]*$' "$out.log")
		planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$out.log" | head -1) ;;
	esac
	bad_plan=
	if [ "$plans" -eq 0 ]; then
		bad_plan="no plan (a \"1..N\" line), $seen results seen"
	elif [ "$plans" -gt 1 ]; then
		bad_plan="$plans plan lines, one expected"
	elif [ "$planned" -ne "$seen" ]; then
		bad_plan="planned $planned results, saw $seen"
	fi
	if [ -n "$bad_plan" ]; then
		[ "$status" -ne 0 ] && bad_plan="$bad_plan (exit status $status)"
		f=$((f + 1))
		echo "not ok - $name: $bad_plan" >>"$out.log"
	fi
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited with status $status" >>"$out.log"
	fi
	case $name in
	fuzz/*) replays=$((replays + p)) ;;
	*) pass=$((pass + p)) ;;
	esac
	fail=$((fail + f))
	skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		echo "FAIL $name ($p passed, $f failed, ${secs}s)"
		grep -v '^ok ' "$out.log" | head -40 | sed 's/^/    /'
	elif [ "$s" -gt 0 ]; then
		echo "PASS $name ($p, $s skipped, ${secs}s)"
		grep '^ok .*# SKIP' "$out.log" | head -5 | sed 's/^/    /'
	else
		echo "PASS $name ($p, ${secs}s)"
	fi
}
while read -r name rest; do
	# shellcheck disable=SC2086
	report "$name" $rest
done <"$serial"
while read -r name rest; do
	# shellcheck disable=SC2086
	report "$name" $rest
done <"$list"

[ "$skip" -gt 0 ] && echo "$skip skipped (not counted as passed)"
echo "$pass passed, $fail failed; $replays corpus replays passed"
[ "$fail" -eq 0 ]
