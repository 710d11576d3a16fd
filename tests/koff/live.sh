#!/bin/sh
# Acceptance 3: while producers in several processes and threads log at full speed,
# repeated live dumps never show a torn record and their counts add up (logged =
# shown + overwritten + unfinished); at the end every record logged is accounted for.
# Then the control options: the mask, -e, -d, -F and -b as ktrace(1) describes them.
. "$(dirname "$0")/../lib.sh"
plan 21
PROD="$ROOT/$B/tests/koff/test_koff_producer"
BUF=/dev/shm/koff-test-$$-live
trap 'rm -rf "$TMP" "$BUF"' EXIT
export KOFF_BUFFER="$BUF"

# ---- torture ------------------------------------------------------------------
P=2 T=3 N=1000000
rm -f "$BUF"
"$KTRACE" dump -b 4096 -e >/dev/null 2>&1
"$PROD" torture $P $T $N &
pid=$!
dumps=0 during=0 bad=0
while :; do
	running=0
	kill -0 $pid 2>/dev/null && running=1
	"$KTRACE" dump -v >"$TMP/d.txt" 2>&1
	dumps=$((dumps + 1))
	[ $running -eq 1 ] && during=$((during + 1))
	if ! "$PROD" check "$TMP/d.txt" $P $T $N >"$TMP/check.txt"; then
		bad=$((bad + 1))
		sed 's/^/#   /' "$TMP/check.txt" | head -8
	fi
	[ $running -eq 0 ] && break
done
wait $pid
echo "# $dumps dumps, $during while the producers ran"
[ $bad -eq 0 ] && ok "no torn record, counts add up in $dumps live dumps" || not_ok "$bad of $dumps dumps failed"
[ $during -ge 1 ] && ok "dumps ran while producers logged" || not_ok "dumps ran while producers logged"
"$KTRACE" dump -v >"$TMP/final.txt" 2>&1
total=$((P * T * N))
if grep -q "^# logged $total = shown 4096 + overwritten $((total - 4096)) + unfinished 0;" "$TMP/final.txt"; then
	ok "final counts: $total logged = 4096 shown + overwritten"
elif grep -q "^# logged $total = shown [0-9]* + overwritten [0-9]* + unfinished [0-9]*;" "$TMP/final.txt" &&
     "$PROD" check "$TMP/final.txt" $P $T $N >/dev/null; then
	# Records dropped (a writer preempted for a whole lap) leave holes, counted.
	ok "final counts: $total logged, add up with drops: $(grep '^# logged' "$TMP/final.txt")"
else
	not_ok "final counts"; grep '^#' "$TMP/final.txt" | sed 's/^/#   /'
fi

# ---- control options -------------------------------------------------------------
count() { "$KTRACE" dump | grep -c "mask: bit $1\$"; }
records() { "$KTRACE" dump | grep -vc '^....+'; }

rm -f "$BUF"
"$KTRACE" dump -b 100 >"$TMP/b1" 2>&1
check "-b on no buffer: reserved" test $? -eq 0
"$KTRACE" dump -v >"$TMP/v1" 2>&1
grep -q 'not allocated yet: reserved for 128 entries' "$TMP/v1" && ok "-b reserves 128 entries, not allocated" ||
	{ not_ok "-b reserves"; sed 's/^/#   /' "$TMP/v1"; }
"$PROD" masks
[ "$(records)" -eq 0 ] && ok "nothing logged before -e" || not_ok "nothing logged before -e"
"$KTRACE" dump -b 200 >/dev/null 2>&1
check "-b again while not allocated" test $? -eq 0
"$KTRACE" dump -e0x5 >/dev/null 2>&1
check "-e0x5 allocates and enables" test $? -eq 0
"$KTRACE" dump -v | grep -q '^# 256 entries of 128 bytes' && ok "allocated with the last -b size (256)" || not_ok "allocated with the last -b size"
"$KTRACE" dump -b 64 >"$TMP/b2" 2>&1
st=$?
[ $st -eq 1 ] && grep -q 'already allocated with 256 entries; it cannot be resized or freed' "$TMP/b2" &&
	ok "-b on an allocated buffer is an error with a clear message" || { not_ok "-b on an allocated buffer ($st)"; cat "$TMP/b2"; }
"$PROD" masks
[ "$(count 0)$(count 1)$(count 2)$(count 3)" = 1010 ] && ok "mask 0x5 lets bits 0 and 2 through" || not_ok "mask 0x5: $(count 0)$(count 1)$(count 2)$(count 3)"
"$KTRACE" dump -d
"$PROD" masks
[ "$(records)" -eq 2 ] && ok "-d disables tracing" || not_ok "-d disables tracing: $(records)"
"$KTRACE" dump -v | grep -q '^# tracing disabled, mask 0x0000000000000005' && ok "-d keeps the mask" || not_ok "-d keeps the mask"
"$KTRACE" dump -e
"$PROD" masks
[ "$(count 0)$(count 1)$(count 2)$(count 3)" = 2020 ] && ok "-e without a mask restores the last mask" || not_ok "-e restores: $(count 0)$(count 1)$(count 2)$(count 3)"
"$KTRACE" dump -F
[ "$(records)" -eq 0 ] && ok "-F flushes the buffer" || not_ok "-F flushes the buffer"
"$KTRACE" dump -v | grep -q '^# logged 0 = shown 0' && ok "-F: counters restart" || not_ok "-F: counters restart"
"$KTRACE" dump -e0xa
"$PROD" masks
[ "$(count 0)$(count 1)$(count 2)$(count 3)" = 0101 ] && ok "-e0xa sets a new mask" || not_ok "-e0xa: $(count 0)$(count 1)$(count 2)$(count 3)"
"$KTRACE" dump -e --enable=zz >/dev/null 2>&1
[ $? -eq 2 ] && ok "bad mask: usage error" || not_ok "bad mask: usage error"
"$KTRACE" dump -e -d >/dev/null 2>&1
[ $? -eq 2 ] && ok "-e with -d: usage error" || not_ok "-e with -d: usage error"
rm -f "$BUF"
"$KTRACE" dump -e0x1 && "$KTRACE" dump -v | grep -q '^# 32768 entries of 128 bytes' &&
	ok "-e creates a default-size buffer" || not_ok "-e creates a default-size buffer"
"$KTRACE" dump -d --buffer /dev/shm/koff-test-$$-none >"$TMP/e" 2>&1
[ $? -eq 1 ] && grep -q 'no such buffer' "$TMP/e" && ok "-d on no buffer: error" || { not_ok "-d on no buffer"; cat "$TMP/e"; }
