#!/bin/sh
# Runs every test: unit-test programs (build/tests/*/test_*), script tests
# (tests/*/*.sh) and the fuzz-corpus regression drivers. Each prints "ok - ..." /
# "not ok - ..." lines; a program that crashes or exits non-zero without reporting a
# failure counts as one failure. Ends with "N passed, N failed".
set -u
: "${B:=build}"
export B
cd "$(dirname "$0")/.."
log=$B/test-log
mkdir -p "$log"
pass=0
fail=0
skip=0

run_one() {   # name, command...
	name=$1; shift
	out="$log/$(echo "$name" | tr '/' '_').log"
	"$@" >"$out" 2>&1
	status=$?
	# "ok - name # SKIP why" is a skip, counted apart and never as a pass
	s=$(grep -c '^ok .*# SKIP' "$out")
	p=$(($(grep -c '^ok ' "$out") - s))
	f=$(grep -c '^not ok ' "$out")
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited with status $status" >>"$out"
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		echo "FAIL $name ($p passed, $f failed)"
		grep -v '^ok ' "$out" | head -40 | sed 's/^/    /'
	else
		if [ "$s" -gt 0 ]; then
			echo "PASS $name ($p, $s skipped)"
			grep '^ok .*# SKIP' "$out" | head -5 | sed 's/^/    /'
		else
			echo "PASS $name ($p)"
		fi
	fi
}

for t in $(ls $B/tests/*/test_* 2>/dev/null | grep -v '\.d$'); do
	[ -x "$t" ] && run_one "${t#$B/}" "$t"
done
for t in tests/*/*.sh; do
	[ -f "$t" ] && run_one "$t" sh "$t"
done
for r in $B/fuzz/*_regress; do
	[ -x "$r" ] || continue
	name=$(basename "$r" _regress)
	run_one "fuzz/$name" "$r" "fuzz/corpus/$name"
done

[ "$skip" -gt 0 ] && echo "$skip skipped (not counted as passed)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
