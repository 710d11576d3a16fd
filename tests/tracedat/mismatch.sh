#!/bin/sh
# trace.dat fields that disagree with each other or with the file, and data a command
# does not show (issue 30, findings 8-10 of the hostile-input campaign). Each is damage:
# every command reads what it can, names the place (the field's offset) in one stderr
# line and exits 1; nothing is lost or shown wrong in silence. The files are made here
# by tools/mismatch.py from tests/data/tracedat/instance.v6.dat (a top buffer and an
# instance, 2 CPUs) and its version 7 twin (trace-cmd convert), and the offsets it
# prints come from its own walk of the format, not from ktrace.
#   - v6: a header page size that disagrees with header_page's sub-buffer (data offset
#     + size; trace-cmd writes the page size from it) is refused: read with the wrong
#     one, half of every page or every other page would go unread;
#   - v6: a trace_clock text after the flyrecord table that cannot be read;
#   - v7: a buffer's CPU entry whose id is not below the file's CPU count (that entry's
#     data is not read), a recorded CPU data size the chunks disagree with (all read),
#     no HEADER_INFO section (read as every kernel since 2.6.31 writes sub-buffers);
#   - v7: a buffer's data section whose size runs past the end of the file though its
#     CPU entries are all there; a file cut right after that section's header (its
#     data and every option after it lost: nothing of it can be read);
#   - report --profile profiles the top buffer as trace-cmd does, and reads the other
#     buffers only to check them: their damage is named too.
# The right answers are trace-cmd's report (and --profile) of the undamaged files, less
# the lines of the CPU entry left unread.
. "$(dirname "$0")/../lib.sh"
M="$ROOT/tests/tracedat/tools/mismatch.py"
N=56
plan $N
if ! command -v trace-cmd >/dev/null 2>&1 || ! command -v zstd >/dev/null 2>&1; then
	skip $N "mismatched trace.dat" "trace-cmd and zstd are needed"
	exit 0
fi
V6="$TMP/instance.v6.dat"
V7="$TMP/instance.v7zstd.dat"
zstd -q -d -f "$ROOT/tests/data/tracedat/instance.v6.dat.zst" -o "$V6"
zstd -q -d -f "$ROOT/tests/data/tracedat/subbuf8k.v6.dat.zst" -o "$TMP/subbuf8k.v6.dat"
trace-cmd convert -i "$V6" -o "$V7" --file-version 7 --compression zstd >/dev/null 2>&1
trace-cmd report "$V6" >"$TMP/tc6.txt" 2>/dev/null
trace-cmd report "$V7" >"$TMP/tc7.txt" 2>/dev/null

# run NAME COMMAND...: stdout in $TMP/NAME.out, stderr in $TMP/NAME.err, status in $st
run() {
	n=$1; shift
	"$@" >"$TMP/$n.out" 2>"$TMP/$n.err" </dev/null
	st=$?
}

# one NAME FILE PLACE WHAT: run NAME exited 1 with one stderr line, naming FILE and PLACE
# (and, from a writer, a line after it saying what became of its output)
one() {
	if [ "$st" = 1 ] &&
	   [ "$(grep -Evc "^ktrace: $2: [^ ]+ (not written|keeps the records before it|gets the records before it)" "$TMP/$1.err")" = 1 ] &&
	   grep -q "^ktrace: $2: offset $3: " "$TMP/$1.err"; then
		ok "$4: exit 1, one line naming offset $3"
	else
		not_ok "$4: exit $st, want 1 and one line naming $2 at $3"
		head -5 "$TMP/$1.err" | sed 's/^/#   /'
	fi
}

# every FILE PLACE WHAT [notread]: every command reading trace.dat names FILE's one place
# and exits 1 (notread: the file is refused, nothing is written, stdout empty); the
# outputs of report, sql and info --json are kept as $TMP/every.{rep,sql,json}
every() {
	f=$1 at=$2 what=$3 notread=${4:-}
	rm -rf "$TMP/out"
	mkdir "$TMP/out"
	for c in "report" "report --profile" "info" "info --json" "sql" "timeline" "export" \
		 "convert"; do
		case $c in
		sql) run e "$KTRACE" sql "$f" 'select count(*) from event' ;;
		timeline) run e "$KTRACE" timeline -o "$TMP/out/x.html" "$f" ;;
		export) run e "$KTRACE" export --partial -o "$TMP/out/x.json" "$f" ;;
		convert) run e "$KTRACE" convert "$f" "$TMP/out/x.dat" ;;
		*) run e "$KTRACE" $c "$f" ;;
		esac
		one e "$f" "$at" "$what: $c"
		case $c in
		report) cp "$TMP/e.out" "$TMP/every.rep" ;;
		sql) cp "$TMP/e.out" "$TMP/every.sql" ;;
		"info --json") cp "$TMP/e.out" "$TMP/every.json" ;;
		esac
		[ -n "$notread" ] && [ -s "$TMP/e.out" ] && echo "$c" >>"$TMP/out/printed"
	done
	# a copy is whole or not made; a refused file gives nothing at all
	if [ -n "$notread" ]; then
		[ -z "$(ls "$TMP/out")" ] && ok "$what: nothing written, nothing printed" ||
			{ not_ok "$what: outputs left or printed"; ls "$TMP/out" | sed 's/^/#   /'; }
	else
		[ ! -e "$TMP/out/x.dat" ] && [ -z "$(ls "$TMP/out" | grep '^x\.dat.')" ] &&
			ok "$what: convert writes nothing" || not_ok "$what: convert left an output"
	fi
}

# event lines of a report (no "cpus=" line, no dropped-events marks)
events() {
	grep -Ev '^cpus=[0-9]+$|^ *CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]$' "$1" | wc -l
}

# ---- the undamaged files read clean, as trace-cmd reads them (no false damage)
for f in "$V6" "$V7" "$TMP/subbuf8k.v6.dat"; do
	run r "$KTRACE" report "$f"
	trace-cmd report "$f" >"$TMP/tc.txt" 2>/dev/null
	if [ "$st" = 0 ] && [ ! -s "$TMP/r.err" ] && [ -s "$TMP/r.out" ] && cmp -s "$TMP/r.out" "$TMP/tc.txt"; then
		ok "$(basename "$f"): report exits 0, is trace-cmd's"
	else
		not_ok "$(basename "$f"): report exit $st, or differs from trace-cmd's"
		head -3 "$TMP/r.err" | sed 's/^/#   /'
	fi
done

# ---- v6: the header's page size against header_page (4096 = 16 + 4080 here)
at=$(python3 "$M" pagesize "$V6" "$TMP/ps8k.dat" 8192 | sed -n 's/^place //p')
every "$TMP/ps8k.dat" "$at" "page size 8192, header_page 4096" notread
# the other way: 8 KiB sub-buffers (header_page 16 + 8176) said to be 4 KiB pages
at=$(python3 "$M" pagesize "$TMP/subbuf8k.v6.dat" "$TMP/ps4k.dat" 4096 | sed -n 's/^place //p')
run r "$KTRACE" report "$TMP/ps4k.dat"
one r "$TMP/ps4k.dat" "$at" "page size 4096, header_page 8192: report"

# ---- v6: the trace_clock text's size beyond the file: the times as the local
# ---- clock's (the file's clock is local): every record, as trace-cmd reads the
# ---- undamaged file
at=$(python3 "$M" clock "$V6" "$TMP/clock.dat" | sed -n 's/^place //p')
run r "$KTRACE" report "$TMP/clock.dat"
one r "$TMP/clock.dat" "$at" "unreadable trace_clock text: report"
check_same "unreadable trace_clock text: report is trace-cmd's of the undamaged file" \
	"$TMP/r.out" "$TMP/tc6.txt"
# damage that is not one CPU's ends every reading: export writes nothing without --partial
rm -f "$TMP/x.json"
run x "$KTRACE" export -o "$TMP/x.json" "$TMP/clock.dat"
[ "$st" = 1 ] && [ ! -e "$TMP/x.json" ] && grep -q "offset $at: " "$TMP/x.err" &&
	ok "unreadable trace_clock text: export writes nothing (no --partial)" ||
	not_ok "unreadable trace_clock text: export exit $st, or wrote its output"
run r "$KTRACE" info --json "$TMP/clock.dat"
check "unreadable trace_clock text: info --json lists the place, no warning" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert [x['offset'] for x in d['damage']] == [int(sys.argv[2], 16)], d['damage']
assert not d['warnings'], d['warnings']" "$TMP/r.out" "$at"

# ---- v7: an instance's CPU entry 1 given id 2 (the file has 2 CPUs): its data is not
# ---- read, every other record is
out=$(python3 "$M" cpuid "$V7" "$TMP/cpuid.dat" ktrace_tracedat 1 2)
at=$(echo "$out" | sed -n 's/^place //p')
every "$TMP/cpuid.dat" "$at" "instance CPU id 2 of 2 CPUs"
grep -v '^ktrace_tracedat: .* \[001\] ' "$TMP/tc7.txt" >"$TMP/expect"
check "instance CPU id 2: trace-cmd's lines of the undamaged file less that CPU's ($(($(wc -l <"$TMP/tc7.txt") - $(wc -l <"$TMP/expect"))))" \
	cmp "$TMP/every.rep" "$TMP/expect"
n=$(events "$TMP/every.rep")
[ "$n" -gt 1000 ] && [ "$(sed -n 2p "$TMP/every.sql")" = "$n" ] &&
	ok "instance CPU id 2: sql counts report's $n records" ||
	not_ok "instance CPU id 2: sql counts '$(sed -n 2p "$TMP/every.sql")', report $n"
check "instance CPU id 2: info --json has the instance's CPU 0 only, the place, no warning" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
b = [b for b in d['buffers'] if b['name'] == 'ktrace_tracedat'][0]
assert [c['cpu'] for c in b['cpus']] == [0], b['cpus']
assert d['cpus'] == 2, d['cpus']
assert [x['offset'] for x in d['damage']] == [int(sys.argv[2], 16)], d['damage']
assert not d['warnings'], d['warnings']" "$TMP/every.json" "$at"
# the top buffer's CPU 1 given id 1048576 (the most the writer takes): the file still
# has 2 CPUs, its other records are read
at=$(python3 "$M" cpuid "$V7" "$TMP/topid.dat" "" 1 1048576 | sed -n 's/^place //p')
run r "$KTRACE" report "$TMP/topid.dat"
one r "$TMP/topid.dat" "$at" "top CPU id 1048576: report"
awk 'index($0, "ktrace_tracedat:") == 1 || !/ \[001\] /' "$TMP/tc7.txt" >"$TMP/expect"
check "top CPU id 1048576: trace-cmd's lines of the undamaged file less that CPU's" \
	cmp "$TMP/r.out" "$TMP/expect"

# ---- v7: the top buffer's CPU 0 recorded size against its chunks (trace-cmd 3.1
# ---- writes it 4 bytes short: not damage)
stored=$(python3 "$M" size "$V7" "$TMP/size.dat" "" 0 0 | sed -n 's/^stored //p')
for size in $stored $((stored - 4)); do
	python3 "$M" size "$V7" "$TMP/size.dat" "" 0 $size >/dev/null
	run r "$KTRACE" report "$TMP/size.dat"
	[ "$st" = 0 ] && [ ! -s "$TMP/r.err" ] && ok "recorded size $size for chunks of $stored bytes: no damage" ||
		not_ok "recorded size $size for chunks of $stored bytes: exit $st"
done
at=$(python3 "$M" size "$V7" "$TMP/size.dat" "" 0 1000000 | sed -n 's/^place //p')
every "$TMP/size.dat" "$at" "recorded size 1000000"
check "recorded size 1000000: every record, as trace-cmd reads the undamaged file" \
	cmp "$TMP/every.rep" "$TMP/tc7.txt"
check "recorded size 1000000: info --json lists the place, no warning" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert [x['offset'] for x in d['damage']] == [int(sys.argv[2], 16)], d['damage']
assert not d['warnings'], d['warnings']" "$TMP/every.json" "$at"

# ---- v7: no HEADER_INFO option (its id made unknown): trace-cmd fails ("failed to
# ---- init data"); ktrace reads the sub-buffers as Linux >= 2.6.31 writes them
at=$(python3 "$M" noheaders "$V7" "$TMP/nohdr.dat" | sed -n 's/^place //p')
run r "$KTRACE" report "$TMP/nohdr.dat"
one r "$TMP/nohdr.dat" "$at" "no HEADER_INFO: report"
check_same "no HEADER_INFO: every record, as trace-cmd reads the undamaged file" "$TMP/r.out" "$TMP/tc7.txt"
rm -f "$TMP/x.db"
run x "$KTRACE" export -o "$TMP/x.db" "$TMP/nohdr.dat"
[ "$st" = 1 ] && [ ! -e "$TMP/x.db" ] && grep -q "offset $at: " "$TMP/x.err" &&
	ok "no HEADER_INFO: export writes nothing (no --partial)" ||
	not_ok "no HEADER_INFO: export exit $st, or wrote its output"

# ---- report --profile: trace-cmd profiles the top buffer (of a copy with it alone
# ---- here: it cannot profile a file with instances); damage in an instance is named
# ---- as plain report names it, and the profile is still the top buffer's
python3 "$M" toponly "$V6" "$TMP/top.dat"
trace-cmd report --profile "$TMP/top.dat" 2>/dev/null | sort >"$TMP/tcprof.txt"
run p "$KTRACE" report --profile "$V6"
sort "$TMP/p.out" >"$TMP/p.sorted"
[ "$st" = 0 ] && [ ! -s "$TMP/p.err" ] && cmp -s "$TMP/p.sorted" "$TMP/tcprof.txt" && [ -s "$TMP/p.sorted" ] &&
	ok "report --profile of the undamaged file: exit 0, trace-cmd's profile of its top buffer" ||
	not_ok "report --profile of the undamaged file: exit $st, or not trace-cmd's profile"
at=$(python3 "$M" commit "$V6" "$TMP/icommit.dat" ktrace_tracedat 0 | sed -n 's/^place //p')
run p "$KTRACE" report --profile "$TMP/icommit.dat"
one p "$TMP/icommit.dat" "$at" "instance commit beyond the page: report --profile"
sort "$TMP/p.out" >"$TMP/p.sorted"
check_same "instance commit beyond the page: report --profile is trace-cmd's of the top buffer" \
	"$TMP/p.sorted" "$TMP/tcprof.txt"
run r "$KTRACE" report "$TMP/icommit.dat"
check_same "instance commit beyond the page: report names the same place" "$TMP/r.err" "$TMP/p.err"
# damage in both: each named, once
top=$(python3 "$M" commit "$TMP/icommit.dat" "$TMP/both.dat" "" 1 | sed -n 's/^place //p')
run p "$KTRACE" report --profile "$TMP/both.dat"
[ "$st" = 1 ] && [ "$(wc -l <"$TMP/p.err")" = 2 ] && grep -q "offset $at: " "$TMP/p.err" &&
	grep -q "offset $top: " "$TMP/p.err" &&
	ok "top and instance damage: report --profile names both ($top, $at)" ||
	{ not_ok "top and instance damage: report --profile exit $st"; sed 's/^/#   /' "$TMP/p.err"; }

# a data section's size beyond the file, its CPU entries right: everything read, the
# size named
at=$(python3 "$M" secsize "$V7" "$TMP/secsize.dat" "" | sed -n 's/^place //p')
run r "$KTRACE" report "$TMP/secsize.dat"
one r "$TMP/secsize.dat" "$at" "data section size beyond the file: report"
check_same "data section size beyond the file: every line trace-cmd prints of the file" \
	"$TMP/r.out" "$TMP/tc7.txt"
run x "$KTRACE" export -o "$TMP/secsize.json" "$TMP/secsize.dat"
check "data section size beyond the file: export writes nothing without --partial" \
	sh -c "[ $st = 1 ] && [ ! -e '$TMP/secsize.json' ]"
# cut right after the header of the top buffer's data section
at=$(python3 "$M" cutdata "$V7" "$TMP/cutdata.dat" "" | sed -n 's/^place //p')
run r "$KTRACE" info "$TMP/cutdata.dat"
grep -q "offset $at: truncated: the file ends where this buffer's CPU data" "$TMP/r.err" &&
	[ "$st" = 1 ] && ok "cut at the top buffer's data: info names the lost data at $at" ||
	{ not_ok "cut at the top buffer's data: info exit $st"; sed 's/^/#   /' "$TMP/r.err"; }
