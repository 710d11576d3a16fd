#!/bin/sh
# Golden test of the event formatter on trace.dat files: each file is taken apart with
# Debian's trace-cmd (tracedat_extract.py) and test_evdiff --report prints the lines
# trace-cmd report prints from it (comm, pid, cpu and time columns included). They must
# be byte-identical to the expected outputs in ../shared/data/ftrace/expected (made by
# trace-cmd 3.1.6), or to trace-cmd report run here when no expected file exists.
# Extra trace.dat files can be checked with: report_golden.sh FILE.dat...
. "$(dirname "$0")/../lib.sh"
EVDIFF="$ROOT/$B/tests/event/test_evdiff"
EXTRACT="$ROOT/tests/event/tools/tracedat_extract.py"
D="$SHARED/data/ftrace"
E="$D/expected"

# golden NAME DATFILE [MODES]: report modes against the expected file or trace-cmd
golden() {
	name=$1
	dat=$2
	modes=${3:-- R l t Rt}
	dir="$TMP/$name"
	if ! python3 "$EXTRACT" "$dat" "$dir" > "$TMP/extract.log" 2>&1; then
		not_ok "$name: extraction with trace-cmd"
		sed 's/^/#   /' "$TMP/extract.log" | head -5
		skip $(($(echo $modes | wc -w) - 1)) "$name: the other modes" "not extracted"
		return
	fi
	src=$dat
	[ -f "$dir/v6.dat" ] && src="$dir/v6.dat"
	for mode in $modes; do
		case $mode in
		-) suffix=report; opts="" ;;
		R) suffix=report-R; opts="-R" ;;
		l) suffix=report-l; opts="-l" ;;
		t) suffix=report-t; opts="-t" ;;
		Rt) suffix=report-R-t; opts="-R -t" ;;
		esac
		expect="$E/$name.$suffix.txt"
		# a converted copy is compared with trace-cmd's report of that copy
		if [ ! -f "$expect" ] || [ "$src" != "$dat" ]; then
			expect="$TMP/$name.$suffix.expected"
			# shellcheck disable=SC2086
			if ! trace-cmd report $opts -i "$src" > "$expect" 2>/dev/null; then
				not_ok "$name: trace-cmd report $opts (the reference) failed"
				continue
			fi
		fi
		"$EVDIFF" --report "$mode" "$dir" > "$TMP/$name.$suffix.out" 2>&1
		# trace-cmd 3.1.6 is not always deterministic on the shared v7 files: when its
		# report was made here and disagrees, ask it once more.
		if ! cmp -s "$expect" "$TMP/$name.$suffix.out" && [ "$expect" = "$TMP/$name.$suffix.expected" ]; then
			echo "# $name $opts: trace-cmd report disagreed, running it again"
			# shellcheck disable=SC2086
			trace-cmd report $opts -i "$src" > "$expect" 2>/dev/null
		fi
		check_same "$name: trace-cmd report $opts" "$expect" "$TMP/$name.$suffix.out"
	done
}

if [ $# -gt 0 ]; then
	plan $((5 * $#))
	for f in "$@"; do
		golden "$(basename "$f" .dat)" "$f"
	done
	exit 0
fi

if ! command -v trace-cmd > /dev/null 2>&1 || ! command -v python3 > /dev/null 2>&1; then
	not_ok "trace-cmd and python3 are needed (scripts/deps.sh test)"
	exit 0
fi
# one check a mode
plan 11
# The modes with expected files (trace-cmd's -t on trappy_tests_trace once printed raw
# timestamps here: it reads the clock of a v6 file from an empty option).
golden trappy_tests_trace "$D/trappy_tests_trace.v6.dat" "- R"
golden trappy_tests_raw_trace "$D/trappy_tests_raw_trace.v7zstd.dat" "- R"
golden schedviz_cpu0 "$D/schedviz_cpu0.v6.dat" "- R l t"
golden synthetic_edge "$D/synthetic_edge.v6.dat" "- Rt l"
