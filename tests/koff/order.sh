#!/bin/sh
# Producers that scale, dumps in time order: 2 and 8 threads (and 2 processes of 4
# threads) log as fast as they can into a buffer large enough to keep everything; the
# dump (-t) shows every record of every writer exactly once, each writer's records in
# the order they were logged, the time stamps never going back, nothing dropped, torn
# or unfinished. The same for a snapshot of it and for `ktrace report` of the
# snapshot.
. "$(dirname "$0")/../lib.sh"
plan 5
PROD="$ROOT/$B/tests/koff/test_koff_producer"
BUF=/dev/shm/koff-test-$$-order
trap 'rm -rf "$TMP" "$BUF"' EXIT
export KOFF_BUFFER="$BUF"

run() {   # processes threads records-per-thread
	rm -f "$BUF"
	"$KTRACE" dump -b 262144 -e >/dev/null 2>&1
	"$PROD" torture "$1" "$2" "$3"
	"$KTRACE" dump -v -t >"$TMP/d.txt" 2>&1
	if "$PROD" check "$TMP/d.txt" "$1" "$2" "$3" complete >"$TMP/check.txt"; then
		ok "$1 x $2 threads, $3 records each: all dumped once, in time order ($(sed -n 's/^# //p' "$TMP/check.txt" | head -1))"
	else
		not_ok "$1 x $2 threads, $3 records each: all dumped once, in time order"
		sed 's/^/#   /' "$TMP/check.txt" | head -12
		grep '^# logged' "$TMP/d.txt" | sed 's/^/#   /'
	fi
}

run 1 2 100000
run 1 8 25000
run 2 4 25000

# A snapshot keeps the order; `ktrace report` of it prints what `dump` printed.
"$KTRACE" dump -t -o "$TMP/snap.ktrace" && "$KTRACE" dump -t >"$TMP/live.txt" &&
	"$KTRACE" report "$TMP/snap.ktrace" >"$TMP/snap.txt" 2>&1
"$KTRACE" dump >"$TMP/live-plain.txt"
check_same "report of the snapshot prints the dump" "$TMP/snap.txt" "$TMP/live-plain.txt"

# -l on a running system: the buffers in /dev/shm, this one among them.
"$KTRACE" dump -l >"$TMP/l.txt" 2>&1
grep -q "^$BUF	allocated, 262144 entries, tracing enabled, created by process [0-9]*$" "$TMP/l.txt" &&
	ok "-l lists the buffers in /dev/shm" || { not_ok "-l lists the buffers in /dev/shm"; head -5 "$TMP/l.txt"; }
