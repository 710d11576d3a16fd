# The inputs of ../shared/data/reliability/ (found by the hostile-input campaign of
# issue 30; its README gives the command and the old symptom of each), run with that
# command and the other subcommands the README names, through $KTRACE (under
# `make check SAN=1` the sanitizer build). Each run must:
#   - give no sanitizer report and the exit status expected;
#   - on damage, say so in one stderr line naming the input (as given) and an offset:
#     "ktrace: FILE: offset 0x..: what", the same place for every command;
#   - give JSON that parses (python3 -m json.tool) whenever it writes a document;
#   - give the right answer where there is one: trace-cmd's report (the reference), the
#     same record count from sql as from report.
# pages_2real_2zero.raw: its events counted from the page headers by
# tests/ring/tools/count_events.py (tests/ring/zero_pages.sh checks it at length).
. "$(dirname "$0")/../lib.sh"
RD="$SHARED/data/reliability"
echo "1..70"
if [ ! -d "$RD" ]; then
	i=0
	while [ $i -lt 70 ]; do
		ok "reliability input $i # SKIP $RD is missing"
		i=$((i + 1))
	done
	exit 0
fi
W="$TMP/w"
mkdir -p "$W"
cd "$W" || exit 1

# run NAME COMMAND...: stdout in $W/NAME.out, stderr in $W/NAME.err, status in $st
run() {
	n=$1; shift
	"$@" >"$W/$n.out" 2>"$W/$n.err" </dev/null
	st=$?
}

# no_san NAME: stderr of run NAME holds no sanitizer report
san_clean() {
	! grep -Eq 'AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|runtime error:' "$W/$1.err"
}

# damage NAME FILE WHAT: run NAME exited 1 with one stderr line that names FILE (as
# given) and an offset, and no sanitizer report. Sets $at to the line's offset.
damage() {
	n=$1 f=$2 what=$3
	lines=$(wc -l <"$W/$n.err")
	line=$(head -1 "$W/$n.err")
	at=$(printf '%s\n' "$line" | sed -n "s|^ktrace: $f: offset \(0x[0-9a-f]*\): .*|\1|p")
	if san_clean "$n" && [ "$st" = 1 ] && [ "$lines" = 1 ] && [ -n "$at" ]; then
		ok "$what: exit 1, one line naming the file and offset $at"
	else
		not_ok "$what: exit $st, $lines stderr lines (want 1, naming $f and an offset)"
		head -5 "$W/$n.err" | sed 's/^/#   /'
	fi
}

# damages NAME FILE N WHAT: run NAME exited 1 with N stderr lines, each naming FILE (as
# given) and an offset, and no sanitizer report. The offsets, sorted, in $W/NAME.places.
# A writer's line after them that says what became of its output (already told damage
# is not told again, the note alone) is not counted.
damages() {
	n=$1 f=$2 want=$3 what=$4
	lines=$(grep -Evc "^ktrace: $f: [^ ]+ (not written|keeps the records before it|gets the records before it)" "$W/$n.err")
	sed -n "s|^ktrace: $f: offset \(0x[0-9a-f]*\): .*|\1|p" "$W/$n.err" | sort >"$W/$n.places"
	if san_clean "$n" && [ "$st" = 1 ] && [ "$lines" = "$want" ] &&
	   [ "$(wc -l <"$W/$n.places")" = "$want" ]; then
		ok "$what: exit 1, $want lines naming the file and offsets $(tr '\n' ' ' <"$W/$n.places")"
	else
		not_ok "$what: exit $st, $lines stderr lines (want $want, each naming $f and an offset)"
		head -5 "$W/$n.err" | sed 's/^/#   /'
	fi
}

# clean NAME WHAT: run NAME exited 0 with nothing on stderr
clean() {
	if san_clean "$1" && [ "$st" = 0 ] && [ ! -s "$W/$1.err" ]; then
		ok "$2: exit 0, nothing on stderr"
	else
		not_ok "$2: exit $st"
		head -5 "$W/$1.err" | sed 's/^/#   /'
	fi
}

# json FILE WHAT: FILE is one whole JSON document
json() {
	if [ -s "$1" ] && python3 -m json.tool "$1" >/dev/null 2>"$W/json.err"; then
		ok "$2: a complete JSON document"
	else
		not_ok "$2: not a complete JSON document"
		sed 's/^/#   /' "$W/json.err" | head -3
		tail -c 200 "$1" | sed 's/^/#   /'
	fi
}

# event lines of a trace.dat report (no "cpus=" or dropped-events lines, indented or not)
event_lines() {
	grep -Ev '^cpus=[0-9]+$|^ *CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]$' "$1" | wc -l
}

have_tc=
command -v trace-cmd >/dev/null 2>&1 && have_tc=1

# ---- a damaged file that fails to open as a stream: the error names the file given,
# ---- never memory of the stream (a use after free printed heap bytes as its name)
for base in uaf_darwin_v3_trunc.ktrace uaf_koff_snapshot_trunc; do
	f="$RD/$base"
	for out in x.json x.perfetto-trace x.db; do
		rm -f "$W/$out"
		run exp "$KTRACE" export -o "$W/$out" "$f"
		damage exp "$f" "$base: export -o $out"
	done
	rm -rf "$W/x.tsv"
	run tsv "$KTRACE" export -o "$W/x.tsv" --format tsv "$f"
	damage tsv "$f" "$base: export --format tsv"
	run sql "$KTRACE" sql "$f" 'select count(*) from event'
	damage sql "$f" "$base: sql"
	run tl "$KTRACE" timeline -o "$W/x.html" "$f"
	damage tl "$f" "$base: timeline"
	run rep "$KTRACE" report "$f"
	damage rep "$f" "$base: report"
	# (the same place whatever the command)
	sed "s|^ktrace: $f: \(offset 0x[0-9a-f]*\): .*|\1|" "$W/exp.err" "$W/sql.err" "$W/tl.err" \
		"$W/rep.err" | sort -u >"$W/places"
	[ "$(wc -l <"$W/places")" = 1 ] && ok "$base: every command names the same place" ||
		{ not_ok "$base: the commands name different places"; sed 's/^/#   /' "$W/places"; }
done

# ---- report -l on a file whose every event is unknown: no memcpy from NULL; the text
# ---- is trace-cmd's, which stops at the first record after lost events (its event
# ---- unknown), said on stderr
f="$RD/ubsan_latency_memcpy.v6.dat"
for opt in -l ""; do
	run rep "$KTRACE" report $opt "$f"
	damage rep "$f" "ubsan_latency_memcpy: report${opt:+ $opt}"
	if [ -n "$have_tc" ]; then
		trace-cmd report $opt "$f" >"$W/tc.out" 2>/dev/null
		if [ -s "$W/tc.out" ] && cmp -s "$W/rep.out" "$W/tc.out"; then
			ok "ubsan_latency_memcpy: report${opt:+ $opt} is trace-cmd's ($(wc -l <"$W/tc.out") lines)"
		else
			not_ok "ubsan_latency_memcpy: report${opt:+ $opt} differs from trace-cmd's"
			diff "$W/rep.out" "$W/tc.out" | head -5 | sed 's/^/#   /'
		fi
	else
		ok "ubsan_latency_memcpy: report${opt:+ $opt} against trace-cmd # SKIP trace-cmd is not installed"
	fi
done
run sql "$KTRACE" sql "$f" 'select count(*) from event'
clean sql "ubsan_latency_memcpy: sql reads every record"
# (info counts the records of the file's CPU data on its own walk, not the stream's)
n=$("$KTRACE" info --json "$f" | python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])')
[ "$n" -gt 0 ] && [ "$(sed -n 2p "$W/sql.out")" = "$n" ] && ok "ubsan_latency_memcpy: sql counts the $n records info counts" ||
	not_ok "ubsan_latency_memcpy: sql counts $(sed -n 2p "$W/sql.out") records, info '$n'"

# ---- a sched_switch to pid -1: no thread, never "out of memory"
f="$RD/next_pid_minus1.v6.dat"
run rep "$KTRACE" report "$f"
clean rep "next_pid_minus1: report"
if [ -n "$have_tc" ]; then
	trace-cmd report "$f" >"$W/tc.out" 2>/dev/null
	[ -s "$W/tc.out" ] && cmp -s "$W/rep.out" "$W/tc.out" && ok "next_pid_minus1: report is trace-cmd's" ||
		not_ok "next_pid_minus1: report differs from trace-cmd's"
else
	ok "next_pid_minus1: report against trace-cmd # SKIP trace-cmd is not installed"
fi
run sql "$KTRACE" sql "$f" 'select count(*) from event'
clean sql "next_pid_minus1: sql"
n=$(event_lines "$W/rep.out")
[ "$n" -gt 0 ] && [ "$(sed -n 2p "$W/sql.out")" = "$n" ] && ok "next_pid_minus1: sql counts report's $n records" ||
	not_ok "next_pid_minus1: sql counts '$(sed -n 2p "$W/sql.out")', report $n"
run slices "$KTRACE" sql "$f" 'select count(*) from sched_slice'
clean slices "next_pid_minus1: sql sched_slice"
for out in x.db x.tsv x.perfetto-trace x.json; do
	rm -rf "$W/$out"
	run exp "$KTRACE" export -o "$W/$out" "$f"
	clean exp "next_pid_minus1: export -o $out"
done
run tl "$KTRACE" timeline -o "$W/x.html" "$f"
clean tl "next_pid_minus1: timeline"

# ---- a kdebug event of CPU 2147483648 (a record read out of step): damage for every
# ---- command, at the same place, after the events before it
f="$RD/kdebug_bad_cpu.bin"
: >"$W/places"
for c in "report" "report --csv" "info" "info --json" "timeline -o $W/x.html" \
	 "export -o $W/x.json" "export -o $W/x.perfetto-trace"; do
	run k "$KTRACE" $c "$f"
	damage k "$f" "kdebug_bad_cpu: $(echo "$c" | sed "s|$W/||")"
	echo "$at" >>"$W/places"
	[ "$c" = "report --csv" ] && cp "$W/k.out" "$W/csv.out"
	[ "$c" = "info --json" ] && cp "$W/k.out" "$W/info.json"
done
run sql "$KTRACE" sql "$f" 'select count(*) from event'
damage sql "$f" "kdebug_bad_cpu: sql"
echo "$at" >>"$W/places"
[ "$(sort -u "$W/places" | wc -l)" = 1 ] && ok "kdebug_bad_cpu: every command names the same place" ||
	{ not_ok "kdebug_bad_cpu: the commands name different places"; sort -u "$W/places" | sed 's/^/#   /'; }
n=$(($(wc -l <"$W/csv.out") - 1))
[ "$n" -gt 1000 ] && [ "$(sed -n 2p "$W/sql.out")" = "$n" ] &&
	ok "kdebug_bad_cpu: sql has the $n events report --csv prints before the damage" ||
	not_ok "kdebug_bad_cpu: sql counts '$(sed -n 2p "$W/sql.out")', report --csv $n"
json "$W/info.json" "kdebug_bad_cpu: info --json"
run part "$KTRACE" export --partial -o "$W/p.json" "$f"
damage part "$f" "kdebug_bad_cpu: export --partial"
json "$W/p.json" "kdebug_bad_cpu: export --partial -o p.json"
run std "$KTRACE" export --format json -o - "$f"
json "$W/std.out" "kdebug_bad_cpu: export --format json to standard output"

# ---- an instance's CPU entry of id 16777215 in a file of 2 CPUs, and the recorded size
# ---- of the entry before it beyond the file (a run of four 0xff bytes over both
# ---- fields): two damaged places, the same for every command; that entry's data is
# ---- not read (whose CPU it is cannot be told), everything else is; convert copies
# ---- nothing (a copy is whole or not made)
f="$RD/v7zstd_bad_csize.dat"
: >"$W/places"
rm -f "$W/out.dat"
for c in "report" "report --profile" "info" "info --json" "sql" "timeline -o $W/x.html" \
	 "export --partial -o $W/x.json" "convert"; do
	case $c in
	sql) run k "$KTRACE" sql "$f" 'select count(*) from event' ;;
	convert) run k "$KTRACE" convert "$f" "$W/out.dat" ;;
	*) run k "$KTRACE" $c "$f" ;;
	esac
	damages k "$f" 2 "v7zstd_bad_csize: $(echo "$c" | sed "s|$W/||")"
	tr '\n' ' ' <"$W/k.places" >>"$W/places"
	echo >>"$W/places"
	case $c in
	report) cp "$W/k.out" "$W/rep.out" ;;
	"info --json") cp "$W/k.out" "$W/info.json" ;;
	sql) cp "$W/k.out" "$W/sql.out" ;;
	esac
done
[ "$(sort -u "$W/places" | wc -l)" = 1 ] && ok "v7zstd_bad_csize: every command names the same two places" ||
	{ not_ok "v7zstd_bad_csize: the commands name different places"; sort -u "$W/places" | sed 's/^/#   /'; }
[ ! -e "$W/out.dat" ] && [ -z "$(ls "$W" | grep '^out\.dat.')" ] &&
	ok "v7zstd_bad_csize: convert leaves no output" || not_ok "v7zstd_bad_csize: convert left an output"
n=$(event_lines "$W/rep.out")
[ "$n" -gt 1000 ] && ! grep -q '\[16777215\]' "$W/rep.out" &&
	ok "v7zstd_bad_csize: report prints $n records, none on CPU 16777215" ||
	not_ok "v7zstd_bad_csize: report prints $n records, or some on CPU 16777215"
[ "$(sed -n 2p "$W/sql.out")" = "$n" ] && ok "v7zstd_bad_csize: sql counts report's $n records" ||
	not_ok "v7zstd_bad_csize: sql counts '$(sed -n 2p "$W/sql.out")', report $n"
if python3 - "$W/info.json" "$n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
inst = [b for b in d["buffers"] if b["name"] == "ktrace_tracedat"][0]
assert len(d["damage"]) == 2, d["damage"]
assert not d["warnings"], d["warnings"]
assert [c["cpu"] for c in inst["cpus"]] == [0], inst["cpus"]
assert inst["flyrecord_bytes"] < d["file_size"], inst["flyrecord_bytes"]
assert d["events"] == int(sys.argv[2]), (d["events"], sys.argv[2])
PY
then
	ok "v7zstd_bad_csize: info --json lists the two places, no warning, the instance's CPU 0 only, its bytes within the file"
else
	not_ok "v7zstd_bad_csize: info --json"
fi
# The right answer: the file with the four bytes put back (CPU 1, a size of 5938)
# read by trace-cmd, less the lines of the instance's CPU 1.
cp "$f" "$W/fixed.dat" && chmod u+w "$W/fixed.dat" &&
	printf '\000\001\000\000' | dd of="$W/fixed.dat" bs=1 seek=$((0xbef8)) conv=notrunc 2>/dev/null
run fixed "$KTRACE" report "$W/fixed.dat"
clean fixed "v7zstd_bad_csize with its four bytes put back: report"
if [ -n "$have_tc" ]; then
	trace-cmd report "$W/fixed.dat" 2>/dev/null | grep -v '^ktrace_tracedat: .* \[001\] ' >"$W/tc.out"
	if [ -s "$W/tc.out" ] && cmp -s "$W/rep.out" "$W/tc.out"; then
		ok "v7zstd_bad_csize: report is trace-cmd's of the mended file less the lost CPU's lines"
	else
		not_ok "v7zstd_bad_csize: report differs from trace-cmd's of the mended file"
		diff "$W/rep.out" "$W/tc.out" | head -5 | sed 's/^/#   /'
	fi
else
	ok "v7zstd_bad_csize: report against trace-cmd # SKIP trace-cmd is not installed"
fi

# ---- JSON documents of a damaged Darwin file are complete
f="$RD/json_darwin_v3_trunc.ktrace"
run rj "$KTRACE" report --format json "$f"
damage rj "$f" "json_darwin_v3_trunc: report --format json"
json "$W/rj.out" "json_darwin_v3_trunc: report --format json"
run ij "$KTRACE" info --json "$f"
damage ij "$f" "json_darwin_v3_trunc: info --json"
json "$W/ij.out" "json_darwin_v3_trunc: info --json"

# ---- two real 4 KiB pages, then two zero ones: the zero pages change nothing, every
# ---- command reads the real pages' events (it was 3 of 71, exit 0)
f="$RD/pages_2real_2zero.raw"
nev=$(python3 "$ROOT/tests/ring/tools/count_events.py" "$f" 4096)
run pr "$KTRACE" report "$f"
clean pr "pages_2real_2zero: report"
if [ -n "$nev" ] && [ "$(grep -c '^  0x' "$W/pr.out")" = "$nev" ] &&
   grep -qx "# 4 sub-buffers (2 all zero), $nev events" "$W/pr.out"; then
	ok "pages_2real_2zero: report lists the $nev events the page headers hold"
else
	not_ok "pages_2real_2zero: report lists $(grep -c '^  0x' "$W/pr.out") events, the page headers hold '$nev'"
	tail -1 "$W/pr.out" | sed 's/^/#   /'
fi
run pi "$KTRACE" info "$f"
clean pi "pages_2real_2zero: info"
run ps "$KTRACE" sql "$f" "select count(*) from event"
if san_clean ps && [ "$st" = 0 ] && [ "$(sed -n 2p "$W/ps.out")" = "$nev" ]; then
	ok "pages_2real_2zero: sql counts the $nev events"
else
	not_ok "pages_2real_2zero: sql (exit $st) counts '$(sed -n 2p "$W/ps.out")', want '$nev'"
fi
run pe "$KTRACE" export -o "$W/pages.json" "$f"
json "$W/pages.json" "pages_2real_2zero: export json"
