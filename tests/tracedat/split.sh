#!/bin/sh
# ktrace split: every piece is a trace.dat file Debian's trace-cmd 3.1.6 reports without
# a complaint, and the pieces reported one after the other give the whole file's report
# (but its header lines), by records (-e), by time (-s -m -u), in a time window
# (START END), per CPU (-c -p: then the same records, in another order) and for one
# CPU (--cpu). Files of both versions, compressed or not, 4- and 8-byte kernels, with
# an instance, with time offsets and tsc2nsec, with lost events.
. "$(dirname "$0")/../lib.sh"
D="$SHARED/data/ftrace"
TOOLS="$ROOT/tests/tracedat/tools"
# 10 files split by records, then one check a line that starts with s or check
plan $((10 + $(grep -cE '^(s|check) ' "$0")))

if ! command -v trace-cmd > /dev/null 2>&1 || ! command -v zstd > /dev/null 2>&1; then
	not_ok "trace-cmd and zstd are needed (scripts/deps.sh test)"
	exit 0
fi
for n in allevents kmem stacks boot; do
	zstd -q -d -f -o "$TMP/$n.dat" "$ROOT/tests/data/report/$n.v6.dat.zst"
done
cp "$D/schedviz_cpu0.v6.dat" "$TMP/sv.dat"
python3 "$TOOLS/tdslim.py" --offset 123456789 "$TMP/sv.dat" "$TMP/sv_offset.dat"
python3 "$TOOLS/tdslim.py" --tsc2nsec 5,2,100 "$TMP/sv.dat" "$TMP/sv_tsc.dat"

# the report without its header lines
body() {
	trace-cmd report "$@" 2> "$TMP/tc.err" | grep -v '^cpus=\|^version = '
}

# trace-cmd now and then prints raw timestamps for a file whose clock option it parses
# past its end: the whole file's report gets three tries
whole_like_parts() {
	for try in 1 2 3; do
		body -i "$1" > "$TMP/whole"
		[ "$2" = sorted ] && sort -o "$TMP/whole" "$TMP/whole"
		[ -s "$TMP/whole" ] && cmp -s "$TMP/whole" "$TMP/parts" && return 0
	done
	return 1
}

# pieces OPTIONS...: the concatenated report of $TMP/p.* in $TMP/parts, their complaints
# in $TMP/parts.err
pieces() {
	: > "$TMP/parts"
	: > "$TMP/parts.err"
	for p in "$TMP"/p.*; do
		body -i "$p" >> "$TMP/parts"
		cat "$TMP/tc.err" >> "$TMP/parts.err"
	done
}

# s FILE SORTED OPTIONS...: split FILE, compare the pieces' reports with FILE's
s() {
	f=$1 sorted=$2; shift 2
	rm -f "$TMP"/p.*
	if ! "$KTRACE" split -q -o "$TMP/p" "$@" "$f" > "$TMP/log" 2>&1; then
		not_ok "split $* $(basename "$f")"
		sed 's/^/#   /' "$TMP/log" | head -5
		return
	fi
	n=$(ls "$TMP"/p.* | wc -l)
	pieces
	[ "$sorted" = sorted ] && sort -o "$TMP/parts" "$TMP/parts"
	if whole_like_parts "$f" "$sorted" && ! [ -s "$TMP/parts.err" ]; then
		ok "split $* $(basename "$f"): $n pieces, $(wc -l < "$TMP/whole") lines"
	else
		not_ok "split $* $(basename "$f"): $n pieces"
		diff "$TMP/whole" "$TMP/parts" | head -6 | sed 's/^/#   /'
		head -3 "$TMP/parts.err" | sed 's/^/#   /'
	fi
}

for f in "$TMP/sv.dat" "$D/schedviz_cpu0.v7zstd.dat" "$TMP/allevents.dat" "$TMP/kmem.dat" \
	"$TMP/boot.dat" "$TMP/stacks.dat" "$D/trappy_tests_trace.v7zstd.dat" "$TMP/sv_offset.dat" \
	"$TMP/sv_tsc.dat" "$D/synthetic_edge.v6.dat"; do
	s "$f" in-order -r -e 1000
done
s "$TMP/sv.dat" in-order -r -e 40
s "$D/trappy_tests_trace.v6.dat" in-order -r -s 1
s "$TMP/sv.dat" in-order -r -m 100
s "$TMP/sv.dat" in-order -r -u 50000
s "$TMP/kmem.dat" in-order -r -s 1
s "$TMP/boot.dat" in-order -r -e 2000 --file-version 6
s "$TMP/sv.dat" in-order -r -e 300 --compression none --file-version 7
s "$TMP/kmem.dat" sorted -r -c -p 3
s "$TMP/allevents.dat" sorted -r -c -e 500
s "$D/trappy_tests_trace.v7zstd.dat" sorted -r -c -s 2
s "$TMP/sv.dat" in-order

# a window: the records from the 100th to the 300th (times as report -t shows them)
trace-cmd report -t -i "$TMP/allevents.dat" 2> /dev/null | grep -v '^cpus=' > "$TMP/all.t"
lo=$(sed -n 100p "$TMP/all.t" | sed 's/.*\] *\([0-9.]*\):.*/\1/')
hi=$(sed -n 300p "$TMP/all.t" | sed 's/.*\] *\([0-9.]*\):.*/\1/')
rm -f "$TMP"/p.*
"$KTRACE" split -q -o "$TMP/p" "$TMP/allevents.dat" "$lo" "$hi" > "$TMP/log" 2>&1
trace-cmd report -t -i "$TMP/p.1" 2> "$TMP/tc.err" | grep -v '^cpus=' > "$TMP/part.t"
awk -v lo="$lo" -v hi="$hi" 'match($0, /\] +[0-9]+\.[0-9]+:/) {
	t = substr($0, RSTART + 1, RLENGTH - 2) + 0; if (t >= lo + 0 && t <= hi + 0) print }' \
	"$TMP/all.t" > "$TMP/window.t"
check "split FILE START END: the records of the window ($lo to $hi)" \
	sh -c "[ -s '$TMP/part.t' ] && cmp '$TMP/window.t' '$TMP/part.t' && ! [ -s '$TMP/tc.err' ]"

# one CPU
rm -f "$TMP"/p.*
"$KTRACE" split -q -o "$TMP/p" --cpu 1 -r -e 200 "$TMP/kmem.dat" > "$TMP/log" 2>&1
# (the comm column left out: the names the sched events of CPU 0 teach are not there)
body -i "$TMP/kmem.dat" | grep -e '\[001\]' -e '^CPU:1 ' | sed 's/^.*\[001\]//' > "$TMP/whole"
pieces
sed -i 's/^.*\[001\]//' "$TMP/parts"
check "split --cpu 1: that CPU's records" sh -c "[ -s '$TMP/parts' ] && cmp '$TMP/whole' '$TMP/parts'"

# names: OUT.1 without -r, OUT.0001... with it
rm -f "$TMP"/p.*
"$KTRACE" split -q -o "$TMP/p" -e 10 "$TMP/sv.dat" && "$KTRACE" split -q -o "$TMP/p" -r -e 1000 "$TMP/sv.dat"
check "pieces are named as trace-cmd names them" sh -c "ls '$TMP'/p.1 '$TMP'/p.0001 '$TMP'/p.0002 && ! ls '$TMP'/p.0003"

# usage errors and unreadable input
"$KTRACE" split -e 0 "$TMP/sv.dat" > /dev/null 2>&1
st1=$?
"$KTRACE" split -e 5 -s 1 "$TMP/sv.dat" > /dev/null 2>&1
st2=$?
"$KTRACE" split -o "$TMP/p" "$TMP/sv.dat" 3 2 > /dev/null 2>&1
st3=$?
head -c 5000 "$TMP/sv.dat" > "$TMP/cut.dat"
"$KTRACE" split -o "$TMP/q" "$TMP/cut.dat" > /dev/null 2> "$TMP/err"
st4=$?
check "split: bad units, two units, an end before the start are usage errors" \
	sh -c "[ $st1 = 2 ] && [ $st2 = 2 ] && [ $st3 = 2 ]"
check "split: a truncated file is an error, no piece is left" \
	sh -c "[ $st4 = 1 ] && grep -q 'cut.dat' '$TMP/err' && ! ls '$TMP'/q.* 2>/dev/null"
exit 0
