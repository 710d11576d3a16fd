#!/bin/sh
# Acceptance 2: two threads log 2500 records each through KOFF_TRACE into the buffer
# KOFF_BUFFER names; the process stops itself. `ktrace dump --buffer PATH` and
# `ktrace dump PROGRAM CORE` (core from gcore, and from the kernel where it writes
# core files here) print the same 5000 records. Also: formats from the program file
# when the buffer has no string table, and %s arguments read from the core.
. "$(dirname "$0")/../lib.sh"
PROD="$ROOT/$B/tests/koff/test_koff_producer"
BUF=/dev/shm/koff-test-$$-crash
trap 'rm -rf "$TMP" "$BUF" "$BUF"-*' EXIT
export KOFF_BUFFER="$BUF" KOFF_ENTRIES=8192
# gcore: 9 checks; the kernel's core dump: 3
plan 12

# The 5000 records: each thread's records 0..2499 exactly once, in order.
check_records() {   # file
	awk -F: '
		/^....\+/ { next }
		{ n++; split($4, w, " "); t = w[2]; r = w[4]
		  if (r != next_rec[t] + 0) bad++; next_rec[t] = r + 1 }
		END { if (n != 5000 || bad || next_rec[0] != 2500 || next_rec[1] != 2500) {
			print "records " n ", out of order " bad; exit 1 } }' "$1"
}

wait_stopped() {   # pid
	i=0
	while [ $i -lt 200 ]; do
		[ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" = T ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

if ! command -v gdb >/dev/null 2>&1 || ! command -v gcore >/dev/null 2>&1; then
	echo "# gdb (gcore) is not installed: the gcore crash-dump test is skipped"
	skip 9 "gcore crash dump" "gdb not installed"
elif nm "$PROD" 2>/dev/null | grep -q ' __asan_init'; then
	# gdb walks the terabytes of AddressSanitizer shadow mappings for minutes; the
	# dumper's core reading is covered under the sanitizers by crafted.sh and the
	# fuzz corpus.
	echo "# the producer is built with AddressSanitizer: gcore would take minutes, skipped"
	skip 9 "gcore crash dump" "sanitizer build"
else
	rm -f "$BUF"
	"$PROD" threads 2 2500 stop &
	pid=$!
	if wait_stopped $pid; then
		ok "producer stopped itself"
		grep -q 'b$\|[89a-f]$' /proc/$pid/coredump_filter && ok "coredump_filter includes shared file mappings" || not_ok "coredump_filter: $(cat /proc/$pid/coredump_filter)"
		gcore -o "$TMP/core" $pid >"$TMP/gcore.log" 2>&1
		kill -CONT $pid
		wait $pid
		"$KTRACE" dump --buffer "$BUF" >"$TMP/live.txt" 2>"$TMP/live.err"
		check "live dump: 5000 records in order" check_records "$TMP/live.txt"
		if [ -f "$TMP/core.$pid" ]; then
			"$KTRACE" dump "$PROD" "$TMP/core.$pid" >"$TMP/core.txt" 2>"$TMP/core.err"
			check_same "gcore dump prints the same records" "$TMP/core.txt" "$TMP/live.txt"
			"$KTRACE" dump -v "$PROD" "$TMP/core.$pid" >"$TMP/core-v.txt" 2>&1
			grep -q "^# from the core of process $pid, load bias 0x" "$TMP/core-v.txt" &&
				grep -q "^# KOFF buffer $BUF (core dump)" "$TMP/core-v.txt" &&
				ok "core dump -v names the process and the buffer" ||
				{ not_ok "core dump -v names the process and the buffer"; head -5 "$TMP/core-v.txt" | sed 's/^/#   /'; }
			"$KTRACE" dump -o "$TMP/snap.ktrace" "$PROD" "$TMP/core.$pid" &&
				"$KTRACE" report "$TMP/snap.ktrace" >"$TMP/snap.txt" 2>&1
			check_same "snapshot of the core dump" "$TMP/snap.txt" "$TMP/live.txt"
			# A program file that is not the one that crashed.
			"$KTRACE" dump "$KTRACE" "$TMP/core.$pid" >"$TMP/wrong.txt" 2>&1
			[ $? -eq 1 ] && grep -q 'koff_crash_anchor not found\|does not match' "$TMP/wrong.txt" &&
				ok "wrong program file refused" || { not_ok "wrong program file refused"; cat "$TMP/wrong.txt"; }
			rm -f "$TMP/core.$pid"
		else
			not_ok "gcore wrote a core"; sed 's/^/#   /' "$TMP/gcore.log" | head
			skip 3 "gcore dump" "no core"
		fi
	else
		not_ok "producer stopped itself"; kill -9 $pid
		skip 6 "gcore dump" "the producer did not stop"
	fi

	# No string table: formats come from the program file (and the core).
	rm -f "$BUF"
	KOFF_STRTAB=0 "$PROD" threads 2 2500 stop &
	pid=$!
	if wait_stopped $pid; then
		gcore -o "$TMP/core" $pid >/dev/null 2>&1
		kill -CONT $pid
		wait $pid
		"$KTRACE" dump "$PROD" "$TMP/core.$pid" >"$TMP/nl.txt" 2>&1
		check "formats read from the program file" check_records "$TMP/nl.txt"
		"$KTRACE" dump --buffer "$BUF" >"$TMP/nl-live.txt" 2>&1
		grep -q ':<format at 0x[0-9a-f]* not found> 0 1 1eef 0 0$' "$TMP/nl-live.txt" &&
			ok "live dump without string table shows placeholders" ||
			{ not_ok "live dump without string table shows placeholders"; head -3 "$TMP/nl-live.txt"; }
		rm -f "$TMP/core.$pid"
	else
		not_ok "producer (no string table) stopped itself"; kill -9 $pid
		skip 1 "live dump without string table" "the producer did not stop"
	fi
fi

# A kernel core dump (abort), where core files land in the working directory.
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
case "$pattern" in
'|'*|*/*|'')
	echo "# core_pattern is '$pattern': kernel core dumps do not land here, test skipped"
	skip 3 "kernel core dump" "core_pattern $pattern" ;;
*)
	rm -f "$BUF"
	mkdir -p "$TMP/kcore"
	sh -c 'cd "$1" && ulimit -c unlimited && "$2" threads 2 2500 abort strings; true' sh \
		"$TMP/kcore" "$PROD" 2>/dev/null
	core=$(ls "$TMP"/kcore/core* 2>/dev/null | head -1)
	if [ -z "$core" ]; then
		echo "# no kernel core file was written (ulimit or policy): test skipped"
		skip 3 "kernel core dump" "no core written"
	else
		"$KTRACE" dump --buffer "$BUF" >"$TMP/k-live.txt" 2>&1
		"$KTRACE" dump "$PROD" "$core" >"$TMP/k-core.txt" 2>&1
		# %s arguments: shown as pointers in the buffer dump, as text from the core.
		sed 's/<0x[0-9a-f]*>/STR/' "$TMP/k-live.txt" >"$TMP/k-live.norm"
		sed 's/ alpha / STR /; s/ beta / STR /' "$TMP/k-core.txt" >"$TMP/k-core.norm"
		check_same "kernel core dump prints the same records" "$TMP/k-core.norm" "$TMP/k-live.norm"
		[ "$(grep -c ' worker: alpha record' "$TMP/k-core.txt")" -eq 2500 ] &&
			[ "$(grep -c ' worker: beta record' "$TMP/k-core.txt")" -eq 2500 ] &&
			ok "%s arguments read from the core" || not_ok "%s arguments read from the core"
		[ "$(wc -l <"$TMP/k-core.txt")" -gt 5000 ] && ok "kernel core: 5000 records" || not_ok "kernel core: 5000 records"
	fi ;;
esac
