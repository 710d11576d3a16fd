#!/bin/sh
# Built-in kdebug names on the shared V2 sample, with no trace codes file: every event
# has a class name, the events of classes and subclasses xnu's public headers define
# have both names (83% of this iOS capture: the rest are in Apple's private coprocessor
# classes EMBEDDEDGFX, PMP, RTKIT and in CLPC, XPC, IMG, DISPATCH, PTHREAD, whose
# subclasses no public header names), the scheduler events all have code names, and
# syscalls are named by number. -C adds names and overrides the built-in ones, also
# for classes and subclasses; Apple's filter descriptions, ALL included, select events.
. "$(dirname "$0")/../lib.sh"
plan 16
S="$SHARED/data/darwin/coreprofilesessiontap.bin"

"$KTRACE" report --csv "$S" >"$TMP/all.csv" 2>&1
# event column (12): a full name, CLASS_SUBCLASS:0xCODE, CLASS:0xSS:0xCODE or 0xCC:...
awk -F, 'NR > 1 { n++; e = $12; gsub(/"/, "", e)
	if (e ~ /^0x/) none++; else if (e ~ /^[^:]*:0x[0-9a-f]*:0x/) cls++; else both++
	if ($8 == 1 && $9 == 64 && e ~ /:0x/) sched_unnamed++
	if ($8 == 1 && $9 == 64) sched++ }
	END { printf "%d %d %d %d %d %d\n", n, both, cls, none, sched, sched_unnamed }' "$TMP/all.csv" >"$TMP/counts"
read n both cls none sched sched_unnamed <"$TMP/counts"
pct=$((both * 1000 / n))
echo "# $n events: $both with class and subclass names ($((pct / 10)).$((pct % 10))%), $cls with a class name only, $none without"
[ "$n" -eq 15552 ] && [ "$none" -eq 0 ] && ok "every event has a class name" || not_ok "every event has a class name ($none without)"
[ "$pct" -ge 830 ] && ok "class and subclass names for $((pct / 10)).$((pct % 10))% of the events" ||
	not_ok "class and subclass names for $((pct / 10)).$((pct % 10))% of the events (at least 83.0% expected)"
[ "$sched" -eq 1751 ] && [ "$sched_unnamed" -eq 0 ] && ok "the 1751 scheduler events have code names" ||
	not_ok "scheduler events: $sched, $sched_unnamed without a code name"
grep -q ',0x01400080,1,64,32,-,"MACH_DISPATCH",' "$TMP/all.csv" && ok "MACH_DISPATCH by name" || not_ok "MACH_DISPATCH by name"
grep -q ',0x040c0011,4,12,4,START,"BSC_write",' "$TMP/all.csv" && ok "BSD system call 4 is BSC_write" || not_ok "BSC_write"
grep -q ',0x010c0031,1,12,12,START,"MSC__kernelrpc_mach_vm_deallocate_trap",' "$TMP/all.csv" &&
	ok "Mach trap 12 by name" || not_ok "Mach trap 12 by name"

# -C adds and overrides, for events, classes and subclasses.
printf '0x01400080\tMyDispatch\nclass 0x85 GFX\nsubclass 0x85 0x09 Firmware\n0x85090000 GfxZero\n' >"$TMP/my.codes"
"$KTRACE" report --csv -C "$TMP/my.codes" "$S" >"$TMP/c.csv" 2>&1
grep -q ',0x01400080,1,64,32,-,"MyDispatch",' "$TMP/c.csv" && ok "-C overrides an event name" || not_ok "-C overrides an event name"
grep -q ',0x850900f0,133,9,60,-,"GFX_Firmware:0x3c",' "$TMP/c.csv" && ok "-C names a class and a subclass" ||
	{ not_ok "-C names a class and a subclass"; grep -m2 ',0x850900f0,' "$TMP/c.csv" | sed 's/^/#   /'; }
grep -q ',0x0140003c,1,64,15,-,"MACH_BLOCK",' "$TMP/c.csv" && ok "-C keeps the built-in names it does not replace" ||
	not_ok "-C keeps the built-in names it does not replace"
"$KTRACE" report -C "$TMP/nosuch.codes" "$S" >/dev/null 2>&1
[ $? -eq 1 ] && ok "-C of a missing file: error" || not_ok "-C of a missing file: error"

# Apple's filter descriptions.
lines() { "$KTRACE" report "$@" "$S" | grep -vc '^#'; }
[ "$(lines -f C1,S0x0140,ALL)" -eq 15552 ] && ok "-f C1,S0x0140,ALL: every event" || not_ok "-f C1,S0x0140,ALL"
[ "$(lines -f ALL)" -eq 15552 ] && ok "-f ALL: every event" || not_ok "-f ALL"
[ "$(lines -f S0x0140)" -eq 1751 ] && ok "-f S0x0140: the scheduler events" || not_ok "-f S0x0140: $(lines -f S0x0140)"
[ "$(lines -f S320)" -eq 1751 ] && ok "-f S320 (decimal)" || not_ok "-f S320"
ends=$(awk -F, '$8 == 1 && $9 == 64 && $11 == "END"' "$TMP/all.csv" | wc -l)
[ "$(lines -f S0x0140r)" -eq "$ends" ] && ok "-f S0x0140r: its $ends END events" || not_ok "-f S0x0140r: $(lines -f S0x0140r), expected $ends"
"$KTRACE" report -f all "$S" >"$TMP/e" 2>&1
[ $? -eq 2 ] && grep -q "'all' is not a specifier" "$TMP/e" && ok "-f all: usage error naming the item" || { not_ok "-f all refused"; cat "$TMP/e"; }
