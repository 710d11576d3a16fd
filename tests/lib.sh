# Shell helpers for script tests (sourced). Each check prints "ok - name" or
# "not ok - name", which tests/run.sh counts.
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
# check NAME COMMAND...: passes when COMMAND exits 0
check() {
	name=$1; shift
	if "$@" >"$TMP/check.out" 2>&1; then ok "$name"; else not_ok "$name"; sed 's/^/#   /' "$TMP/check.out" | head -20; fi
}
# check_same NAME FILE1 FILE2: passes when both files are byte-identical
check_same() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1"; diff "$2" "$3" | head -20 | sed 's/^/#   /'; fi
}
# tracefs_lock: one test at a time may change tracefs (several checkouts may run their
# suites at once on one machine); the lock is released when the script exits.
tracefs_lock() {
	exec 9>/tmp/ktrace-tracefs.lock
	flock 9
}
