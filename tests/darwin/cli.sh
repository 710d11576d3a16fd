#!/bin/sh
# ktrace report / info on Darwin data through the CLI: pipes, usage errors, other formats.
. "$(dirname "$0")/../lib.sh"
plan 13
S="$SHARED/data/darwin/coreprofilesessiontap.bin"

"$KTRACE" report "$S" | grep -v '^#' >"$TMP/file.txt"
cat "$S" | "$KTRACE" report - | grep -v '^#' >"$TMP/pipe.txt"
check_same "report from a pipe gives the same event lines" "$TMP/file.txt" "$TMP/pipe.txt"
check "15552 event lines" test "$(wc -l <"$TMP/file.txt")" -eq 15552

cat "$S" | "$KTRACE" info --json - >"$TMP/pipe.json"
check "info --json from a pipe counts 15552 events" grep -q '"events": 15552,' "$TMP/pipe.json"
check "info --json from a pipe: 1606 threads" grep -q '"threads": 1606,' "$TMP/pipe.json"

# A trace.dat magic, version, byte order and long size, and nothing more: recognised,
# then reported as truncated.
printf '\027\010Dtracing6\000\000\010' >"$TMP/x.dat"
"$KTRACE" info "$TMP/x.dat" >"$TMP/out" 2>&1
st=$?
check "info on a truncated trace.dat exits 1" test $st -eq 1
check "info on a truncated trace.dat names the offset" grep -q "^ktrace: $TMP/x.dat: offset 0xe: truncated" "$TMP/out"

"$KTRACE" info >/dev/null 2>&1
check "info without a file is a usage error" test $? -eq 2
"$KTRACE" info --bogus "$S" >/dev/null 2>&1
check "info with a bad option is a usage error" test $? -eq 2
"$KTRACE" report --timebase 0/3 "$S" >/dev/null 2>&1
check "report --timebase 0/3 is a usage error" test $? -eq 2
"$KTRACE" report --pid x "$S" >/dev/null 2>&1
check "report --pid x is a usage error" test $? -eq 2
check "help info has EXIT STATUS" sh -c "'$KTRACE' help info | grep -q 'EXIT STATUS'"

# --timebase 1/1: times are the raw ticks.
"$KTRACE" report --timebase 1/1 "$S" | grep -v '^#' | head -1 >"$TMP/tb"
check "report --timebase 1/1 prints ticks (0x37cec9bfe1f = 3835080474143)" \
	grep -q '^ *3835.080474143 ' "$TMP/tb"

# --raw-v0 on a small V0 stream: u32 count 1, one thread, one event.
printf '\001\000\000\000' >"$TMP/v0"
printf '\063\000\000\000\000\000\000\000\011\000\000\000zero\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >>"$TMP/v0"
printf '\115\000\000\000\000\000\000\000' >>"$TMP/v0"
head -c 32 /dev/zero >>"$TMP/v0"
printf '\063\000\000\000\000\000\000\000\201\000\100\001\000\000\000\000' >>"$TMP/v0"
head -c 8 /dev/zero >>"$TMP/v0"
"$KTRACE" report --raw-v0 "$TMP/v0" | grep -v '^#' >"$TMP/v0.txt"
check "V0 event: 77 ticks, thread 0x33 of 'zero' (pid 9), MACH_DISPATCH START" \
	grep -q '^ *0.000000077 *0 *0 *0x33 *9 zero *- *START MACH_DISPATCH ' "$TMP/v0.txt"
