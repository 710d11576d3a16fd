#!/bin/sh
# Crash dumps of programs built the ordinary way, `cc prog.c -lktrace` (libktrace.so):
# two threads log 2500 records each, the process stops itself, gcore writes a core.
# `ktrace dump PROGRAM CORE` must print exactly what the live dump of the buffer file
# prints, for a PIE, a stripped PIE and a non-PIE program; with libktrace.so moved
# after the crash, with --lib (and --sysroot); a second open buffer is listed by -l and
# dumped with --buffer-name; a library whose build id differs is refused.
. "$(dirname "$0")/../lib.sh"
CC=${CC:-cc}
BUF=/dev/shm/koff-test-$$-shared
SECOND=/dev/shm/koff-test-$$-second
trap 'rm -rf "$TMP" "$BUF" "$SECOND"' EXIT
export KOFF_BUFFER="$BUF"
plan 23

if ! command -v gcore >/dev/null 2>&1; then
	skip 23 "shared-library crash dumps" "gdb (gcore) not installed"; exit 0
fi
case "${SANFLAGS:-}" in
*address*)
	# gdb walks the AddressSanitizer shadow mappings for minutes; the shared-library
	# paths are covered under the sanitizers by crafted.sh and the fuzz corpus.
	skip 23 "shared-library crash dumps" "sanitizer build"; exit 0 ;;
esac

# The library is copied beside the programs (and moved away after the crash).
mkdir -p "$TMP/lib" "$TMP/moved" "$TMP/sysroot$TMP/lib"
cp "$ROOT/$B/libktrace.so.1" "$TMP/lib/libktrace.so.1"
ln -s libktrace.so.1 "$TMP/lib/libktrace.so"
SRC="$ROOT/tests/koff/tools/shared_prog.c"
build() {   # output, extra flags
	out=$1; shift
	$CC -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I"$ROOT/include" "$@" -o "$out" "$SRC" \
		-L"$TMP/lib" -lktrace -Wl,-rpath,"$TMP/lib" -pthread >"$TMP/cc.log" 2>&1
}
if ! build "$TMP/pie" -fPIE -pie || ! build "$TMP/nopie" -fno-PIE -no-pie; then
	not_ok "build the programs"; sed 's/^/#   /' "$TMP/cc.log" | head; exit 0
fi
cp "$TMP/pie" "$TMP/stripped" && strip "$TMP/stripped"
readelf -S "$TMP/stripped" >"$TMP/sections" 2>&1 && grep -q '\.text' "$TMP/sections" &&
	! grep -q '\.symtab' "$TMP/sections" && ok "stripped program has no symbol table" ||
	not_ok "stripped program has no symbol table"
readelf -d "$TMP/pie" | grep -q 'NEEDED.*libktrace.so' && ok "programs use libktrace.so" ||
	not_ok "programs use libktrace.so"

wait_stopped() {   # pid
	i=0
	while [ $i -lt 400 ]; do
		[ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" = T ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# run PROGRAM ARGS...: runs it until it stops, writes $TMP/core, lets it finish.
run() {
	rm -f "$BUF" "$SECOND" "$TMP"/core.*
	"$@" &
	pid=$!
	if ! wait_stopped $pid; then
		kill -9 $pid; wait $pid 2>/dev/null; return 1
	fi
	gcore -o "$TMP/core" $pid >"$TMP/gcore.log" 2>&1
	kill -CONT $pid
	wait $pid
	mv "$TMP/core.$pid" "$TMP/core" 2>/dev/null
}

records() {   # file: record lines
	grep -vc '^....+' "$1"
}

for prog in pie stripped nopie; do
	if ! run "$TMP/$prog" 2 2500 || [ ! -f "$TMP/core" ]; then
		not_ok "$prog: producer stopped and gcore wrote a core"; sed 's/^/#   /' "$TMP/gcore.log" | head -5
		skip 2 "$prog: the dumps" "no core"
		continue
	fi
	"$KTRACE" dump --buffer "$BUF" >"$TMP/live.txt" 2>&1
	"$KTRACE" dump "$TMP/$prog" "$TMP/core" >"$TMP/core.txt" 2>&1
	[ "$(records "$TMP/live.txt")" -eq 5000 ] && ok "$prog: live dump has the 5000 records" ||
		not_ok "$prog: live dump has $(records "$TMP/live.txt") records"
	check_same "$prog: dump of the core equals the live dump" "$TMP/core.txt" "$TMP/live.txt"
	# -v names the library the anchor was found in.
	"$KTRACE" dump -v "$TMP/$prog" "$TMP/core" >"$TMP/v.txt" 2>&1
	grep -q "^# crash anchor at 0x[0-9a-f]* ($TMP/lib/libktrace.so.1), 1 buffer listed" "$TMP/v.txt" &&
		ok "$prog: -v says the anchor was found in libktrace.so" ||
		{ not_ok "$prog: -v says the anchor was found in libktrace.so"; head -4 "$TMP/v.txt" | sed 's/^/#   /'; }
done
# A program file that is not the one that crashed.
"$KTRACE" dump "$TMP/pie" "$TMP/core" >"$TMP/e.txt" 2>&1
[ $? -eq 1 ] && grep -q 'the program file does not match the core' "$TMP/e.txt" &&
	ok "another program file is refused" || { not_ok "another program file is refused"; cat "$TMP/e.txt"; }

# The library moved after the crash: a clear message, then --lib and --sysroot.
if run "$TMP/pie" 2 2500 && [ -f "$TMP/core" ]; then
	"$KTRACE" dump --buffer "$BUF" >"$TMP/live.txt" 2>&1
	mv "$TMP/lib/libktrace.so.1" "$TMP/moved/libktrace.so.1"
	"$KTRACE" dump "$TMP/pie" "$TMP/core" >"$TMP/e.txt" 2>&1
	[ $? -eq 1 ] && grep -q 'if it moved, give it with --lib PATH or --sysroot DIR' "$TMP/e.txt" &&
		ok "moved library: clear message" || { not_ok "moved library: clear message"; cat "$TMP/e.txt"; }
	"$KTRACE" dump --lib "$TMP/moved/libktrace.so.1" "$TMP/pie" "$TMP/core" >"$TMP/core.txt" 2>&1
	check_same "moved library, --lib: dump of the core equals the live dump" "$TMP/core.txt" "$TMP/live.txt"
	cp "$TMP/moved/libktrace.so.1" "$TMP/sysroot$TMP/lib/libktrace.so.1"
	"$KTRACE" dump --sysroot "$TMP/sysroot" "$TMP/pie" "$TMP/core" >"$TMP/core.txt" 2>&1
	check_same "moved library, --sysroot: dump of the core equals the live dump" "$TMP/core.txt" "$TMP/live.txt"
	# Another build of the library (its build id changed) is refused.
	python3 - "$TMP/moved/libktrace.so.1" "$TMP/other.so" <<'PY'
import subprocess, sys
data = bytearray(open(sys.argv[1], "rb").read())
out = subprocess.run(["readelf", "-n", sys.argv[1]], capture_output=True, text=True).stdout
bid = bytes.fromhex(out.split("Build ID:")[1].split()[0])
at = data.find(bid)
data[at] ^= 0xff
open(sys.argv[2], "wb").write(data)
PY
	"$KTRACE" dump --lib "$TMP/other.so" "$TMP/pie" "$TMP/core" >"$TMP/e.txt" 2>&1
	[ $? -eq 1 ] && grep -q 'build ids differ' "$TMP/e.txt" && ok "a library with another build id is refused" ||
		{ not_ok "a library with another build id is refused"; cat "$TMP/e.txt"; }
	mv "$TMP/moved/libktrace.so.1" "$TMP/lib/libktrace.so.1"
else
	not_ok "moved library: producer stopped and gcore wrote a core"
	skip 3 "moved library" "no core"
fi

# Two buffers open: -l lists both, --buffer-name dumps the second.
if run "$TMP/pie" 2 100 "$SECOND" 300 && [ -f "$TMP/core" ]; then
	"$KTRACE" dump -l "$TMP/pie" "$TMP/core" >"$TMP/list.txt" 2>&1
	[ "$(wc -l <"$TMP/list.txt")" -eq 2 ] && head -1 "$TMP/list.txt" | grep -q "^$BUF	0x[0-9a-f]*, [0-9]* bytes, default$" &&
		sed -n 2p "$TMP/list.txt" | grep -q "^$SECOND	0x" &&
		ok "-l lists both buffers, the default one first" ||
		{ not_ok "-l lists both buffers"; sed 's/^/#   /' "$TMP/list.txt"; }
	"$KTRACE" dump --buffer "$SECOND" >"$TMP/live2.txt" 2>&1
	"$KTRACE" dump --buffer-name "$(basename "$SECOND")" "$TMP/pie" "$TMP/core" >"$TMP/core2.txt" 2>&1
	[ "$(records "$TMP/live2.txt")" -eq 300 ] && ok "second buffer: 300 records" || not_ok "second buffer: $(records "$TMP/live2.txt") records"
	check_same "--buffer-name: the second buffer of the core equals its live dump" "$TMP/core2.txt" "$TMP/live2.txt"
	"$KTRACE" dump --buffer "$BUF" >"$TMP/live.txt" 2>&1
	"$KTRACE" dump --buffer-name "$BUF" "$TMP/pie" "$TMP/core" >"$TMP/core.txt" 2>&1
	check_same "--buffer-name with a full path: the default buffer" "$TMP/core.txt" "$TMP/live.txt"
	"$KTRACE" dump --buffer-name nosuch "$TMP/pie" "$TMP/core" >"$TMP/e.txt" 2>&1
	[ $? -eq 1 ] && grep -q "no buffer named nosuch in the core (it lists $BUF, $SECOND)" "$TMP/e.txt" &&
		ok "--buffer-name of no buffer: clear message" || { not_ok "--buffer-name of no buffer"; cat "$TMP/e.txt"; }
else
	not_ok "two buffers: producer stopped and gcore wrote a core"
	skip 4 "two buffers" "no core"
fi
"$KTRACE" dump --lib x >/dev/null 2>&1
[ $? -eq 2 ] && ok "--lib without a core: usage error" || not_ok "--lib without a core: usage error"

# The core alone: the program is the file the core maps at its entry point.
if run "$TMP/stripped" 2 500 && [ -f "$TMP/core" ]; then
	"$KTRACE" dump --buffer "$BUF" >"$TMP/live.txt" 2>&1
	"$KTRACE" dump "$TMP/core" >"$TMP/core.txt" 2>&1
	check_same "a core alone: the program found from the core" "$TMP/core.txt" "$TMP/live.txt"
else
	not_ok "core alone: producer stopped and gcore wrote a core"
fi
