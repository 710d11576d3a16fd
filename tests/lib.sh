# Shell helpers for script tests (sourced). Each check prints "ok - name" or
# "not ok - name", which tests/run.sh counts. A script first declares how many checks it
# makes with `plan N` (TAP's "1..N"; N computed where it loops over data): tests/run.sh
# fails a script that prints no plan, or another number of results (a script that dies
# midway, or a branch that drops its checks). A check that cannot be made here is still
# counted: `skip N NAME WHY`.
# Environment: B (build dir), KTRACE (the CLI), SHARED (../shared), TMP (scratch dir).
: "${B:=build}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KTRACE="$ROOT/$B/ktrace"
SHARED="$ROOT/../shared"
TMP=${TMPDIR:-/tmp}/ktrace-test.$$.$(basename "$0" .sh)
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
# python3: the one make check links in $B/tests/bin (see the Makefile's TEST_PYTHON)
if [ -x "$ROOT/$B/tests/bin/python3" ]; then
	PATH="$ROOT/$B/tests/bin:$PATH"
	export PATH
fi
# trace-cmd, the reference, runs through tests/bin/trace-cmd (a heap-independent
# reading of empty TRACECLOCK options; see tests/tools/malloc0.c).
if command -v trace-cmd >/dev/null 2>&1; then
	PATH="$ROOT/tests/bin:$PATH"
	KTRACE_TC_PRELOAD="$ROOT/$B/tests/tools/malloc0.so"
	export PATH KTRACE_TC_PRELOAD
fi

ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; }
# plan N: this script makes N checks (printed once: before the first, or after the last
# where the checks depend on what the script finds, as TAP allows)
plan() { echo "1..$1"; }
# skip N NAME WHY: N checks named NAME that cannot be made here, each an
# "ok - NAME # SKIP WHY" line (numbered when N > 1), counted as skipped, never as passed
skip() {
	sk_i=1
	while [ "$sk_i" -le "$1" ]; do
		if [ "$1" -gt 1 ]; then echo "ok - $2 ($sk_i of $1) # SKIP $3"; else echo "ok - $2 # SKIP $3"; fi
		sk_i=$((sk_i + 1))
	done
}
# check NAME COMMAND...: passes when COMMAND exits 0
check() {
	name=$1; shift
	if "$@" >"$TMP/check.out" 2>&1; then ok "$name"; else not_ok "$name"; sed 's/^/#   /' "$TMP/check.out" | head -20; fi
}
# check_same NAME FILE1 FILE2: passes when both files are byte-identical and not empty
# (two empty outputs, or two missing files, agree on nothing; an expected empty output
# is checked with `test ! -s`)
check_same() {
	if [ ! -s "$2" ] && [ ! -s "$3" ]; then
		not_ok "$1 (both empty or missing: $(basename "$2"), $(basename "$3"))"
	elif cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1"; diff "$2" "$3" | head -20 | sed 's/^/#   /'; fi
}
# checker CMD...: runs a checker that prints its own "ok"/"not ok" lines (a Python
# comparison, say) and passes them on, its stderr as comments; a checker that exits
# non-zero without a "not ok" line (it died before its verdict) fails here
checker() {
	"$@" >"$TMP/checker.out" 2>"$TMP/checker.err"
	ck_st=$?
	cat "$TMP/checker.out"
	sed 's/^/#   /' "$TMP/checker.err" | tail -20
	if [ $ck_st -ne 0 ] && ! grep -q '^not ok ' "$TMP/checker.out"; then
		not_ok "checker exited with status $ck_st and no verdict: $(echo "$*" | sed "s|$ROOT/||g" | cut -c1-120)"
	fi
}
# tracefs_lock: one test at a time may change tracefs (several checkouts may run their
# suites at once on one machine); the lock is released when the script exits.
tracefs_lock() {
	exec 9>/tmp/ktrace-tracefs.lock
	flock 9
}
