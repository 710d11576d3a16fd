#!/bin/sh
# Damaged trace.dat files: every CPU is read up to its own damage, a damaged sub-buffer
# or compressed chunk is left behind and the CPU's next one read, each damaged place is
# named once on stderr (`ktrace: FILE: offset 0x...: what`), and the exit status is 1.
#
# The inputs are made here by tools/damage.py from tests/data/report/allevents.v6.dat
# (2 CPUs of 65 sub-buffers each, their records interleaved in time): sub-buffers whose
# commit word runs past the page, records that run past their sub-buffer, files cut in a
# CPU's data, and (version 7, made by trace-cmd convert and ktrace convert) chunks that do
# not decompress, damaged chunk headers (the chunks after them are found again), files
# cut in a chunk.
#
# What must be printed does not come from ktrace: `trace-cmd report --debug` of the
# undamaged file gives every line with the file offset of its sub-buffer, and
# `damage.py expect` leaves out the records of the damaged places (records of a cut
# sub-buffer that end before the cut stay). trace-cmd is also run on each damaged file:
# every event line it prints must be among ktrace's. What trace-cmd 3.1.6 does with them:
# a commit beyond the page ends that CPU's records (3,013 lines of 12,269); a record
# running past its sub-buffer prints the sub-buffer's records before it and two lines of
# "[UNKNOWN EVENT]" garbage (left out of the comparison); a chunk that does not
# decompress ends that CPU; a cut file or a chunk size beyond the file prints nothing
# ("failed to init data", or "File possibly truncated" on stdout, also left out); it
# cannot read zlib files (those are compared with the oracle only).
. "$(dirname "$0")/../lib.sh"
T="$ROOT/tests/tracedat/tools/damage.py"

echo "1..75"
if ! command -v trace-cmd >/dev/null 2>&1 || ! command -v zstd >/dev/null 2>&1; then
	for i in $(seq 75); do echo "ok - damaged trace.dat $i # SKIP trace-cmd and zstd are needed"; done
	exit 0
fi

A="$TMP/allevents.v6.dat"
zstd -q -d -f "$ROOT/tests/data/report/allevents.v6.dat.zst" -o "$A"
trace-cmd report --debug "$A" >"$TMP/debug.txt" 2>/dev/null
# the undamaged file as version 7: trace-cmd's layout (options before the data, the
# BUFFER option after it) and ktrace's (every option after the data)
trace-cmd convert -i "$A" -o "$TMP/tc.v7zstd.dat" --file-version 7 --compression zstd >/dev/null 2>&1
"$KTRACE" convert -q "$A" "$TMP/kt.v7zstd.dat"
"$KTRACE" convert -q --compression zlib "$A" "$TMP/kt.v7zlib.dat"

# the event lines trace-cmd prints for a file (its notes and garbage left out)
tc_lines() {
	trace-cmd report "$1" 2>/dev/null |
		grep -v -e '^cpus=' -e 'UNKNOWN EVENT' -e '^File possibly truncated' | sort
}

# places NAME: "ktrace: FILE: offset 0x..:" of every line of $TMP/NAME.err, one per line
places() {
	sed -n 's/^ktrace: [^ ]*: offset \(0x[0-9a-f]*\): .*/\1/p' "$TMP/$1.err" | sort
}

# file NAME: the file of the variant NAME
file() {
	echo "$TMP/$(echo "$1" | tr -c 'A-Za-z0-9\n' _).dat"
}

# variant NAME [notc]: ktrace report of the variant's file against $TMP/NAME.lost (the
# places it must name, what is lost); notc: trace-cmd cannot read it
variant() {
	name=$1 f=$(file "$1")
	python3 "$T" expect "$A" "$TMP/debug.txt" "$TMP/$name.lost" >"$TMP/$name.exp"
	"$KTRACE" report "$f" >"$TMP/$name.out" 2>"$TMP/$name.err"
	st=$?
	if [ $st = 1 ] && cmp -s "$TMP/$name.out" "$TMP/$name.exp"; then
		ok "$name: exit 1, every record before and after the damage ($(wc -l <"$TMP/$name.out") lines of 12269)"
	else
		not_ok "$name: exit $st, $(wc -l <"$TMP/$name.out") lines, $(wc -l <"$TMP/$name.exp") expected"
		diff "$TMP/$name.out" "$TMP/$name.exp" | head -5 | sed 's/^/#   /'
	fi
	sed -n 's/^place //p' "$TMP/$name.lost" | sort >"$TMP/$name.want"
	places "$name" >"$TMP/$name.got"
	if cmp -s "$TMP/$name.got" "$TMP/$name.want" &&
		[ "$(wc -l <"$TMP/$name.err")" = "$(wc -l <"$TMP/$name.want")" ] &&
		! grep -qv "^ktrace: $f: offset 0x" "$TMP/$name.err"; then
		ok "$name: one line per damaged place, with the file and offset ($(tr '\n' ' ' <"$TMP/$name.want"))"
	else
		not_ok "$name: the damaged places named"
		sed 's/^/#   /' "$TMP/$name.err" | head -8
		sed 's/^/#   want /' "$TMP/$name.want"
	fi
	if [ "${2:-}" = notc ]; then
		echo "ok - $name: trace-cmd's lines among ktrace's # SKIP not for trace-cmd 3.1.6 (see above)"
		return
	fi
	tc_lines "$f" >"$TMP/$name.tc"
	sort "$TMP/$name.out" >"$TMP/$name.sorted"
	missing=$(comm -23 "$TMP/$name.tc" "$TMP/$name.sorted" | wc -l)
	[ "$missing" = 0 ] && ok "$name: every line trace-cmd prints is there ($(wc -l <"$TMP/$name.tc") of them)" ||
		{ not_ok "$name: $missing lines of trace-cmd's missing"; comm -23 "$TMP/$name.tc" "$TMP/$name.sorted" | head -3 | sed 's/^/#   /'; }
}

# v6 NAME SPEC...: a damaged version 6 file
v6() {
	name=$1; shift
	python3 "$T" v6 "$A" "$(file "$name")" "$@" >"$TMP/$name.lost"
	variant "$name"
}

# v7 NAME IN SPEC...: a damaged version 7 file (compressed)
v7() {
	name=$1 in=$2; shift 2
	python3 "$T" v7 "$in" "$(file "$name")" "$@" >"$TMP/$name.lost"
}

# as7 NAME FROM COMPRESSION: v6 variant FROM converted by trace-cmd (which copies the
# damaged sub-buffers as they are); the places are the chunks holding them
as7() {
	name=$1 from=$2
	trace-cmd convert -i "$(file "$from")" -o "$(file "$name")" --file-version 7 --compression "$3" >/dev/null 2>&1
	grep '^lost' "$TMP/$from.lost" >"$TMP/$name.lost"
	awk '$1 == "lost" && $3 !~ /-$/ { print $2, $3 }' "$TMP/$from.lost" | sort -u |
		while read -r cpu page; do
			echo "place $(python3 "$T" place "$(file "$name")" "$cpu" "$page")"
		done | sort -u >>"$TMP/$name.lost"
}

# ---- version 6 ----
v6 "v6 bad commit, one sub-buffer per CPU" badpage:0:10 badpage:1:20
v6 "v6 record past its sub-buffer, one per CPU" runpast:0:12:4 runpast:1:25:3
v6 "v6 three bad sub-buffers in a row" badpages:0:30:3
v6 "v6 cut in CPU 1's data" cut:1:40:1000
v6 "v6 cut in CPU 0's data, CPU 1 beyond the end" cut:0:30:2100
v6 "v6 one bad sub-buffer per CPU and cut short" badpage:0:10 badpage:1:20 cut:1:40:1000
ACC6=$(file "v6 one bad sub-buffer per CPU and cut short")

# ---- version 7 ----
as7 "v7 zstd bad commit, one sub-buffer per CPU" "v6 bad commit, one sub-buffer per CPU" zstd
variant "v7 zstd bad commit, one sub-buffer per CPU"
as7 "v7 none bad records, one sub-buffer per CPU" "v6 record past its sub-buffer, one per CPU" none
variant "v7 none bad records, one sub-buffer per CPU"
v7 "v7 zstd chunk that does not decompress, one per CPU" "$TMP/tc.v7zstd.dat" zap:0:2 zap:1:4
variant "v7 zstd chunk that does not decompress, one per CPU"
v7 "v7 zlib chunk that does not decompress, one per CPU" "$TMP/kt.v7zlib.dat" zap:0:2 zap:1:4
variant "v7 zlib chunk that does not decompress, one per CPU" notc
v7 "v7 chunk size beyond the file, the next chunks found again" "$TMP/tc.v7zstd.dat" csize:0:3
variant "v7 chunk size beyond the file, the next chunks found again"
v7 "v7 zlib chunk of 0 bytes uncompressed, the next chunks found again" "$TMP/kt.v7zlib.dat" usize:1:2
variant "v7 zlib chunk of 0 bytes uncompressed, the next chunks found again" notc
v7 "v7 ktrace layout cut in a chunk" "$TMP/kt.v7zstd.dat" cut:1:4:500
variant "v7 ktrace layout cut in a chunk"
# the acceptance file: one bad sub-buffer per CPU and cut short (trace-cmd's layout: its
# CPU count says the CPU numbers found walking the data are sure)
as7 "v7 bad" "v6 bad commit, one sub-buffer per CPU" zstd
v7 "v7 one bad sub-buffer per CPU and cut short" "$(file "v7 bad")" cut:1:4:500
cat "$TMP/v7 bad.lost" >>"$TMP/v7 one bad sub-buffer per CPU and cut short.lost"
ACC7=$(file "v7 one bad sub-buffer per CPU and cut short")
variant "v7 one bad sub-buffer per CPU and cut short"
grep -q 'numbered in file order (' "$TMP/v7 one bad sub-buffer per CPU and cut short.err" &&
	not_ok "v7 cut, trace-cmd's layout: CPU numbers said to be a guess" ||
	ok "v7 cut, trace-cmd's layout: the CPU count makes the CPU numbers sure"
grep -q 'numbered in file order (a CPU without data leaves nothing' "$TMP/v7 ktrace layout cut in a chunk.err" &&
	ok "v7 cut, every option lost: the CPU numbers are said to be a guess" ||
	not_ok "v7 cut, every option lost: no word on the CPU numbers"

# ---- a CPU's data never reads another's, nor another section ----
# (trace-cmd reads on: CPU 1's records a second time as CPU 0's, or the next section's
# bytes as a sub-buffer of "[UNKNOWN EVENT]" garbage; compared with the oracle only)
python3 "$T" v6 "$A" "$(file "v6 CPU 0's size runs into CPU 1's data")" size:0:532480 >"$TMP/v6 CPU 0's size runs into CPU 1's data.lost"
variant "v6 CPU 0's size runs into CPU 1's data" notc
U="$ROOT/tests/data/report/unknown_events.v7.dat"
python3 - "$U" "$TMP/sect.dat" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.index(struct.pack('<IQQ', 0, 0x1000, 12288))      # BUFFER option: CPU 0's entry
struct.pack_into('<Q', d, i + 12, 12288 + 256)          # 256 bytes into the next section
open(sys.argv[2], 'wb').write(d)
PY
trace-cmd report "$U" >"$TMP/sect.want" 2>/dev/null
"$KTRACE" report "$TMP/sect.dat" >"$TMP/sect.out" 2>"$TMP/sect.err"; st=$?
[ $st = 1 ] && [ -s "$TMP/sect.want" ] && cmp -s "$TMP/sect.out" "$TMP/sect.want" &&
	ok "v7 CPU data said to run past its section: the section's records, exit 1" ||
	not_ok "v7 CPU data said to run past its section (exit $st)"
[ "$(wc -l <"$TMP/sect.err")" = 1 ] && grep -q "^ktrace: $TMP/sect.dat: offset 0x1000: .*runs past the end of its section" "$TMP/sect.err" &&
	ok "v7 CPU data said to run past its section: named, with its offset" ||
	{ not_ok "v7 CPU data said to run past its section: the place"; sed 's/^/#   /' "$TMP/sect.err"; }

# ---- every command that reads the records: the same records, the same places ----
others() {   # name file
	name=$1 f=$2
	grep -v -e '^cpus=' -e 'EVENTS DROPPED\]$' "$TMP/$name.exp" | wc -l >"$TMP/n"
	n=$(cat "$TMP/n")
	"$KTRACE" report --threads 3 "$f" >"$TMP/o" 2>"$TMP/e"; st=$?
	sort "$TMP/e" >"$TMP/e1"; sort "$TMP/$name.err" >"$TMP/e2"
	[ $st = 1 ] && cmp -s "$TMP/o" "$TMP/$name.out" && cmp -s "$TMP/e1" "$TMP/e2" &&
		ok "$name: report --threads 3, the same lines and places" ||
		not_ok "$name: report --threads 3 (exit $st)"
	"$KTRACE" info --json "$f" >"$TMP/o" 2>"$TMP/e"; st=$?
	got=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["events"], len(j["damage"]))' "$TMP/o" 2>&1)
	[ $st = 1 ] && [ "$got" = "$n $(wc -l <"$TMP/$name.want")" ] &&
		ok "$name: info, $n events and every damaged place in its JSON" ||
		not_ok "$name: info (exit $st, events and places $got, want $n)"
	"$KTRACE" sql "$f" 'select count(*) from event' >"$TMP/o" 2>"$TMP/e"; st=$?
	sort "$TMP/e" >"$TMP/e1"
	[ $st = 1 ] && [ "$(tail -1 "$TMP/o")" = "$n" ] && cmp -s "$TMP/e1" "$TMP/e2" &&
		ok "$name: sql counts the $n records, names the same places" ||
		not_ok "$name: sql (exit $st, $(tail -1 "$TMP/o") records, want $n)"
	rm -rf "$TMP/x.tsv"
	"$KTRACE" export --partial --format tsv -o "$TMP/x.tsv" "$f" 2>"$TMP/e"; st=$?
	[ $st = 1 ] && [ "$(wc -l <"$TMP/x.tsv/event.tsv" 2>/dev/null)" = "$n" ] && grep -qF "$(head -1 "$TMP/$name.err")" "$TMP/e" &&
		ok "$name: export --partial writes the $n records" ||
		not_ok "$name: export --partial (exit $st)"
	"$KTRACE" timeline -q "$f" -o "$TMP/t.html" 2>"$TMP/e"; st=$?
	sort "$TMP/e" >"$TMP/e1"
	[ $st = 1 ] && [ -s "$TMP/t.html" ] && cmp -s "$TMP/e1" "$TMP/e2" &&
		ok "$name: timeline drawn, the same places" || not_ok "$name: timeline (exit $st)"
	rm -f "$TMP/c.dat"
	"$KTRACE" convert -q "$f" "$TMP/c.dat" 2>"$TMP/e"; st=$?
	[ $st = 1 ] && [ ! -e "$TMP/c.dat" ] && grep -q "^ktrace: $f: offset 0x" "$TMP/e" &&
		ok "$name: convert copies all or nothing: nothing, and where" ||
		not_ok "$name: convert (exit $st)"
	# the places in the order of their offsets, the same on every run (the threads of
	# summary, timeline, export and report meet them in no fixed order)
	same=true
	for c in summary "timeline -q -o $TMP/t.html" "export --partial -o $TMP/x.json" "report --threads 3"; do
		for i in 1 2 3 4 5 6; do
			rm -f "$TMP/x.json"
			"$KTRACE" $c "$f" >/dev/null 2>"$TMP/e.$i"
			places_sorted=$(sed -n 's/^ktrace: [^ ]*: offset 0x\([0-9a-f]*\): .*/\1/p' "$TMP/e.$i" |
				while read -r x; do printf '%d\n' "0x$x"; done)
			[ "$places_sorted" = "$(echo "$places_sorted" | sort -n)" ] &&
				[ "$(grep -c '^ktrace: .*: offset 0x' "$TMP/e.$i")" = "$(wc -l <"$TMP/e2")" ] &&
				cmp -s "$TMP/e.$i" "$TMP/e.1" || { same=false; echo "#   $c, run $i:"; sed 's/^/#     /' "$TMP/e.$i"; }
		done
	done
	$same && ok "$name: the places by offset, the same lines on each of 6 runs of 4 commands" ||
		not_ok "$name: the places' order"
}
others "v6 one bad sub-buffer per CPU and cut short" "$ACC6"
others "v7 one bad sub-buffer per CPU and cut short" "$ACC7"
others "v7 zstd chunk that does not decompress, one per CPU" "$(file "v7 zstd chunk that does not decompress, one per CPU")"

# ---- standard input: the places are named "-", as the user named the input ----
for c in report sql export; do
	case $c in
	report) "$KTRACE" report - <"$ACC7" >/dev/null 2>"$TMP/e" ;;
	sql) "$KTRACE" sql - 'select count(*) from event' <"$ACC7" >/dev/null 2>"$TMP/e" ;;
	export) "$KTRACE" export --partial --format tsv -o "$TMP/in.tsv" - <"$ACC7" >/dev/null 2>"$TMP/e" ;;
	esac
	st=$?
	grep '^ktrace: [^ ]*: offset 0x' "$TMP/e" | sed 's/^ktrace: [^ ]*: //' | sort >"$TMP/e1"
	sed 's/^ktrace: [^ ]*: //' "$TMP/v7 one bad sub-buffer per CPU and cut short.err" | sort >"$TMP/e2"
	[ $st = 1 ] && cmp -s "$TMP/e1" "$TMP/e2" && ! grep '^ktrace: [^ ]*: offset 0x' "$TMP/e" | grep -qv '^ktrace: -: ' &&
		ok "$c of standard input: each damaged place once, named -" ||
		{ not_ok "$c of standard input (exit $st)"; sed 's/^/#   /' "$TMP/e"; }
done

# ---- instances: damage in the top buffer leaves the instance whole ----
I="$TMP/instance.v6.dat"
zstd -q -d -f "$ROOT/tests/data/tracedat/instance.v6.dat.zst" -o "$I"
python3 "$T" v6 "$I" "$TMP/inst.dat" badpage:0:2 >/dev/null
"$KTRACE" report "$TMP/inst.dat" >"$TMP/inst.out" 2>"$TMP/inst.err"; st=$?
trace-cmd report "$I" 2>/dev/null | grep '^ktrace_tracedat:' >"$TMP/inst.want"
grep '^ktrace_tracedat:' "$TMP/inst.out" >"$TMP/inst.got"
[ $st = 1 ] && [ -s "$TMP/inst.want" ] && cmp -s "$TMP/inst.got" "$TMP/inst.want" &&
	ok "a bad sub-buffer of the top buffer: every line of the instance ($(wc -l <"$TMP/inst.want"))" ||
	not_ok "a bad sub-buffer of the top buffer: the instance's lines (exit $st)"
trace-cmd report "$I" 2>/dev/null | grep -v '^ktrace_tracedat:' | sort >"$TMP/top.all"
grep -v '^ktrace_tracedat:' "$TMP/inst.out" | sort >"$TMP/top.got"
[ "$(comm -13 "$TMP/top.all" "$TMP/top.got" | wc -l)" = 0 ] && [ "$(wc -l <"$TMP/inst.err")" = 1 ] &&
	ok "a bad sub-buffer of the top buffer: its other lines, one damaged place" ||
	not_ok "a bad sub-buffer of the top buffer: lines not in the undamaged file's report"
exit 0
