#!/bin/sh
# Acceptance 1 through the CLI: the ktrace(1) page's example, written with
# koff_log_raw, dumps (TZ=UTC) to exactly the page's eight lines; so do a snapshot
# (-o) read back by `ktrace report`, and `ktrace report` of the buffer file itself.
. "$(dirname "$0")/../lib.sh"
plan 19
PROD="$ROOT/$B/tests/koff/test_koff_producer"
EXPECTED="$ROOT/tests/koff/data/example.expected"
BUF=/dev/shm/koff-test-$$-example
trap 'rm -rf "$TMP" "$BUF"' EXIT

check "example buffer written" "$PROD" example "$BUF"
TZ=UTC "$KTRACE" dump --buffer "$BUF" >"$TMP/dump.txt" 2>&1
check_same "dump prints the page's example" "$TMP/dump.txt" "$EXPECTED"
TZ=UTC KOFF_BUFFER="$BUF" "$KTRACE" dump >"$TMP/env.txt" 2>&1
check_same "KOFF_BUFFER selects the buffer" "$TMP/env.txt" "$EXPECTED"
(unset KOFF_BUFFER; TZ=UTC "$KTRACE" dump "/no/such/dir/test-$$-example") >"$TMP/nl.txt" 2>&1
check_same "a NAMELIST alone selects /dev/shm/koff-NAME" "$TMP/nl.txt" "$EXPECTED"
check "snapshot written" "$KTRACE" dump --buffer "$BUF" -o "$TMP/snap.ktrace"
TZ=UTC "$KTRACE" report "$TMP/snap.ktrace" >"$TMP/report.txt" 2>&1
check_same "report of the snapshot prints the same" "$TMP/report.txt" "$EXPECTED"
TZ=UTC "$KTRACE" report - <"$TMP/snap.ktrace" >"$TMP/report-pipe.txt" 2>&1
check_same "report of the snapshot from a pipe" "$TMP/report-pipe.txt" "$EXPECTED"
TZ=UTC "$KTRACE" report "$BUF" >"$TMP/report-buf.txt" 2>&1
check_same "report of the buffer file" "$TMP/report-buf.txt" "$EXPECTED"
TZ=UTC "$KTRACE" report - <"$BUF" >"$TMP/report-bufpipe.txt" 2>&1
check_same "report of the buffer file from a pipe" "$TMP/report-bufpipe.txt" "$EXPECTED"

# The snapshot is a Darwin V3 container: magic 0x55aa0300, then our chunks.
magic=$(od -An -tx4 -N4 "$TMP/snap.ktrace" | tr -d ' ')
if [ "$magic" = 55aa0300 ]; then ok "snapshot has the V3 magic"; else not_ok "snapshot has the V3 magic ($magic)"; fi

# -s: microseconds. 0x304 ms = 772000 us -> fraction cut to 16 bits.
TZ=UTC "$KTRACE" dump -s 1000 --buffer "$BUF" >"$TMP/us.txt"
first=$(head -1 "$TMP/us.txt")
want=$(printf '%04x+Wed May 16 12:19:16 2001' $((772000 % 65536)))
if [ "$first" = "$want" ]; then ok "-s 1000 scales the fraction"; else not_ok "-s 1000 scales the fraction: $first"; fi
# With microseconds every gap but 49.995 ms and 1 us overflows 16 bits: 4 stamps.
stamps=$(grep -c '^....+' "$TMP/us.txt")
if [ "$stamps" -eq 4 ]; then ok "-s 1000 starts new time stamps"; else not_ok "-s 1000 time stamps: $stamps"; fi

# -t: absolute time on each record line.
TZ=UTC "$KTRACE" dump -t --buffer "$BUF" >"$TMP/t.txt"
line=$(sed -n 3p "$TMP/t.txt")
case "$line" in
"2001-05-16 12:19:19.962005000 00fe5d20:0c76:00000000  io_reaper: sleep") ok "-t prefixes the absolute time" ;;
*) not_ok "-t prefixes the absolute time: $line" ;;
esac

# -v: header and counters.
"$KTRACE" dump -v --buffer "$BUF" >"$TMP/v.txt"
if grep -q '^# logged 6 = shown 6 + overwritten 0 + unfinished 0; dropped 0' "$TMP/v.txt" &&
   grep -q '^# 64 entries of 128 bytes' "$TMP/v.txt"; then ok "-v shows header and counters"
else not_ok "-v shows header and counters"; sed 's/^/#   /' "$TMP/v.txt"; fi

# Errors: a missing buffer, a file that is not one, usage errors.
"$KTRACE" dump --buffer /dev/shm/koff-test-$$-missing >"$TMP/e1" 2>&1
[ $? -eq 1 ] && grep -q 'No such file' "$TMP/e1" && ok "missing buffer: exit 1" || not_ok "missing buffer: exit 1"
printf 'KOFFRING garbage' >"$TMP/bad"
"$KTRACE" dump --buffer "$TMP/bad" >"$TMP/e2" 2>&1
[ $? -eq 1 ] && grep -q 'truncated' "$TMP/e2" && ok "short buffer: exit 1" || { not_ok "short buffer: exit 1"; cat "$TMP/e2"; }
"$KTRACE" dump -s 0 --buffer "$BUF" >/dev/null 2>&1
[ $? -eq 2 ] && ok "bad scale: exit 2" || not_ok "bad scale: exit 2"
"$KTRACE" dump -F prog core >/dev/null 2>&1
[ $? -eq 2 ] && ok "-F with a core: exit 2" || not_ok "-F with a core: exit 2"
"$KTRACE" help dump | grep -q '^SYNOPSIS' && ok "help dump" || not_ok "help dump"
