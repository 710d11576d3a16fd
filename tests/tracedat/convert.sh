#!/bin/sh
# ktrace convert round trips, checked with trace-cmd 3.1.6 (the reference reader):
#  - every trace.dat of ../shared/data/ftrace, the recorded traces of tests/data/tracedat
#    and the ktrace-recorded ones of tests/data/tracedat_write (instances, dropped events
#    with and without counts, every event);
#  - each converted to v6, v7 uncompressed and v7 zstd: `trace-cmd report` of the result
#    must be byte-identical to `trace-cmd report` of the source, with nothing on stderr;
#  - a chain v6 -> v7 none -> v7 zstd -> v6 made of ktrace's own outputs, the same way;
#  - zlib outputs (Debian's trace-cmd cannot read zlib): `ktrace info --json` must read
#    them like their zstd twin (tests/tracedat/tools/compare.py), and converted back to
#    v6 they must give the source's `trace-cmd report`;
#  - `ktrace info` of a v7 zstd output checked against trace-cmd dump/report (compare.py);
#  - failures: a truncated input, an impossible v6 conversion, leave no output behind.
. "$(dirname "$0")/../lib.sh"
FT="$SHARED/data/ftrace"
COMPARE="$ROOT/tests/tracedat/tools/compare.py"
# 7 checks a round trip: one for each shared trace.dat, two for each recorded one (as
# v6 and as v7 zstd); then compare.py's 3 for each of 2 files, and 5
plan $((7 * $(ls "$FT"/*.dat | wc -l) +
	14 * $(ls "$ROOT"/tests/data/tracedat/*.v6.dat.zst "$ROOT"/tests/data/tracedat_write/*.v6.dat.zst | wc -l) + 6 + 5))

report() {   # file out: trace-cmd report, stdout to out, stderr to out.err
	trace-cmd report -i "$1" >"$2" 2>"$2.err"
}

conv() {   # in out version compression
	"$KTRACE" convert -q -i "$1" -o "$2" --file-version "$3" --compression "$4" \
		>"$TMP/conv.log" 2>&1 && return 0
	not_ok "ktrace convert $(basename "$1") -> v$3 $4"
	sed 's/^/#   /' "$TMP/conv.log" | head -5
	return 1
}

same_report() {   # name file reference
	report "$2" "$TMP/got" || { not_ok "$1 (trace-cmd report failed)"; head -3 "$TMP/got.err" | sed 's/^/#   /'; return; }
	if [ -s "$TMP/got.err" ]; then
		not_ok "$1 (trace-cmd report wrote on stderr)"
		head -3 "$TMP/got.err" | sed 's/^/#   /'
		return
	fi
	check_same "$1" "$3" "$TMP/got"
}

roundtrip() {   # source name [reference report]
	rsrc=$1 rn=$2 ref="$TMP/$2.ref"
	if [ -n "${3:-}" ]; then
		cp "$3" "$ref"
	elif ! report "$rsrc" "$ref"; then
		not_ok "$rn: trace-cmd report of the source"
		return
	fi
	for v in "6 none" "7 none" "7 zstd"; do
		set -- $v
		out="$TMP/$rn.v$1$2.dat"
		conv "$rsrc" "$out" "$1" "$2" &&
			same_report "$rn -> v$1 $2: trace-cmd report identical to the source's" "$out" "$ref"
	done
	# a chain through ktrace's own outputs
	if conv "$TMP/$rn.v6none.dat" "$TMP/$rn.c1.dat" 7 none &&
	   conv "$TMP/$rn.c1.dat" "$TMP/$rn.c2.dat" 7 zstd &&
	   conv "$TMP/$rn.c2.dat" "$TMP/$rn.c3.dat" 6 none; then
		same_report "$rn -> v6 -> v7 none -> v7 zstd: report identical" "$TMP/$rn.c2.dat" "$ref"
		same_report "$rn -> ... -> v7 zstd -> v6: report identical" "$TMP/$rn.c3.dat" "$ref"
	fi
	# zlib: read by ktrace like the zstd twin, and back to v6 like the source
	if conv "$rsrc" "$TMP/$rn.zlib.dat" 7 zlib; then
		checker python3 "$COMPARE" "$KTRACE" "$TMP/$rn.v7zstd.dat" --twin-only --twin "$TMP/$rn.zlib.dat"
		conv "$TMP/$rn.zlib.dat" "$TMP/$rn.zlib6.dat" 6 none &&
			same_report "$rn -> v7 zlib -> v6: report identical to the source's" \
				"$TMP/$rn.zlib6.dat" "$ref"
	fi
	rm -f "$TMP/$rn".*.dat
}

# The shared files' reference is their recorded trace-cmd 3.1.6 report (expected/): the
# trappy files keep their clock in an empty TRACECLOCK option, which trace-cmd parses
# past its end, so its report of them depends on what the heap holds there (a CI run
# printed raw timestamps). ktrace's outputs put the clock text in the option, and
# trace-cmd reads them the same way every time.
for f in "$FT"/*.dat; do
	n=$(basename "$f" .dat)
	base=${n%.v6}; base=${base%.v7none}; base=${base%.v7zstd}
	if [ -f "$FT/expected/$base.report.txt" ]; then
		roundtrip "$f" "$n" "$FT/expected/$base.report.txt"
	else
		roundtrip "$f" "$n"
	fi
done
for z in "$ROOT"/tests/data/tracedat/*.v6.dat.zst "$ROOT"/tests/data/tracedat_write/*.v6.dat.zst; do
	n=$(basename "$z" .v6.dat.zst)
	zstd -q -d -f -o "$TMP/$n.src.v6" "$z" || { not_ok "unpack $z"; continue; }
	roundtrip "$TMP/$n.src.v6" "$n.v6"
	# the same trace as a version 7 source (written by ktrace, checked above)
	conv "$TMP/$n.src.v6" "$TMP/$n.src.v7" 7 zstd && roundtrip "$TMP/$n.src.v7" "$n.v7zstd"
done

# ktrace info of ktrace's outputs agrees with trace-cmd dump / report
for n in kt_instances kt_dropped; do
	conv "$TMP/$n.src.v6" "$TMP/$n.check.v7zstd.dat" 7 zstd &&
		checker python3 "$COMPARE" "$KTRACE" "$TMP/$n.check.v7zstd.dat"
done

# OUT may be IN
cp "$TMP/kt_instances.src.v6" "$TMP/self.dat"
report "$TMP/self.dat" "$TMP/self.ref"
conv "$TMP/self.dat" "$TMP/self.dat" 7 zstd &&
	same_report "converting a file onto itself" "$TMP/self.dat" "$TMP/self.ref"

# failures leave nothing behind
mkdir "$TMP/out"
head -c 30000 "$TMP/kt_instances.src.v6" >"$TMP/trunc.dat"
if "$KTRACE" convert -i "$TMP/trunc.dat" -o "$TMP/out/x.dat" >"$TMP/e" 2>&1; then
	not_ok "truncated input: convert fails"
else
	check "truncated input: error names the input and an offset" grep -q "trunc.dat: offset 0x" "$TMP/e"
fi
check "truncated input: no output, no temporary file" test -z "$(ls -A "$TMP/out")"
if "$KTRACE" convert -q -i "$FT/trappy_tests_trace.v6.dat" -o "$TMP/out/x.dat" --compression zstd \
	--file-version 6 >"$TMP/e" 2>&1; then
	not_ok "v6 with compression refused"
else
	check "v6 with compression refused (usage)" grep -q "cannot be compressed" "$TMP/e"
fi
check "refusals leave no output" test -z "$(ls -A "$TMP/out")"
exit 0
