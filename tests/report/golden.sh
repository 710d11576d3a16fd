#!/bin/sh
# Golden tests of `ktrace report` on trace.dat files: byte-identical to Debian's
# trace-cmd 3.1.6 `trace-cmd report`.
#  1. ../shared/data/ftrace: against the expected outputs made by trace-cmd 3.1.6, and
#     against trace-cmd run here for the modes without an expected file.
#  2. tests/data/report (traces recorded on a 2-CPU VM with tools/record.sh and cut
#     with tools/slim.py: every event enabled; the boot clock with an x86-tsc instance;
#     function traces with kernel and user stacks, print and raw_data; sched/kmem/timer/
#     syscalls/irq) and tests/data/tracedat, each as version 6, 7 and 7 with zstd
#     (made here with trace-cmd convert), against trace-cmd report run here, in the
#     default, -t, -R, -l and combined modes, and with several threads.
# Extra files can be checked with: golden.sh FILE.dat...
. "$(dirname "$0")/../lib.sh"
D="$SHARED/data/ftrace"
E="$D/expected"
LINES=0

# same NAME EXPECTED_FILE KTRACE_ARGS...: ktrace's output must equal the file
same() {
	name=$1 expect=$2
	shift 2
	"$KTRACE" report "$@" > "$TMP/out" 2> "$TMP/err"
	st=$?
	# (an empty expected output is a failed reference, or ktrace compared with itself
	# printing nothing twice)
	if [ $st -eq 0 ] && [ -s "$expect" ] && cmp -s "$TMP/out" "$expect"; then
		ok "$name"
		LINES=$((LINES + $(wc -l < "$expect")))
	else
		not_ok "$name (exit $st, $(diff "$TMP/out" "$expect" | grep -c '^>') of $(wc -l < "$expect") lines differ)"
		diff "$TMP/out" "$expect" | head -6 | sed 's/^/#   /'
		head -3 "$TMP/err" | sed 's/^/#   /'
	fi
}

# vs_tracecmd NAME FILE OPTIONS...: ktrace report and trace-cmd report, same options.
# (trace-cmd reads files whose TRACECLOCK option is empty the same way every time
# through tests/bin/trace-cmd; see tests/tools/malloc0.c.)
vs_tracecmd() {
	name=$1 file=$2
	shift 2
	if ! trace-cmd report "$@" "$file" > "$TMP/expect" 2> /dev/null; then
		not_ok "$name: trace-cmd report $* failed"
		return
	fi
	same "$name" "$TMP/expect" "$@" "$file"
}

if ! command -v trace-cmd > /dev/null 2>&1 || ! command -v zstd > /dev/null 2>&1; then
	not_ok "trace-cmd and zstd are needed (scripts/deps.sh test)"
	exit 0
fi

if [ $# -gt 0 ]; then
	plan $((7 * $#))
	for f in "$@"; do
		for m in "" -t -R -l "-R -t" "-l -R" "-l -t"; do
			# shellcheck disable=SC2086
			vs_tracecmd "$(basename "$f") report $m" "$f" $m
		done
	done
	echo "# $LINES lines identical"
	exit 0
fi

# 1. 34 checks; 2. 20 for each recorded trace; 2b. 2; 3. 7 for each file kept as it is
plan $((34 + 20 * $(ls "$ROOT"/tests/data/report/*.v6.dat.zst "$ROOT"/tests/data/tracedat/*.v6.dat.zst | wc -l) +
	2 + 7 * $(ls "$ROOT"/tests/data/report/*.dat | wc -l)))
# 1. the shared data and its expected outputs
for v in v6 v7none v7zstd; do
	f=$D/schedviz_cpu0.$v.dat
	same "schedviz $v default" "$E/schedviz_cpu0.report.txt" "$f"
	same "schedviz $v -t" "$E/schedviz_cpu0.report-t.txt" -t "$f"
	same "schedviz $v -R" "$E/schedviz_cpu0.report-R.txt" -R "$f"
	same "schedviz $v -l" "$E/schedviz_cpu0.report-l.txt" -l "$f"
done
for v in v6 v7zstd; do
	f=$D/synthetic_edge.$v.dat
	same "synthetic_edge $v default" "$E/synthetic_edge.report.txt" "$f"
	same "synthetic_edge $v -l" "$E/synthetic_edge.report-l.txt" -l "$f"
	same "synthetic_edge $v -R -t" "$E/synthetic_edge.report-R-t.txt" -R -t "$f"
	[ $v = v6 ] && same "synthetic_edge $v --debug" "$E/synthetic_edge.report-debug.txt" --debug "$f"
	vs_tracecmd "synthetic_edge $v --debug" "$f" --debug
	f=$D/trappy_tests_trace.$v.dat
	same "trappy_tests_trace $v default" "$E/trappy_tests_trace.report.txt" "$f"
	same "trappy_tests_trace $v -R" "$E/trappy_tests_trace.report-R.txt" -R "$f"
	vs_tracecmd "trappy_tests_trace $v -l" "$f" -l
	vs_tracecmd "trappy_tests_trace $v -t" "$f" -t
done
f=$D/trappy_tests_raw_trace.v7zstd.dat
same "trappy_tests_raw_trace default" "$E/trappy_tests_raw_trace.report.txt" "$f"
same "trappy_tests_raw_trace -R" "$E/trappy_tests_raw_trace.report-R.txt" -R "$f"
vs_tracecmd "trappy_tests_raw_trace -l" "$f" -l
vs_tracecmd "trappy_tests_raw_trace -t" "$f" -t
vs_tracecmd "schedviz -l -R" "$D/schedviz_cpu0.v6.dat" -l -R

# 2. recorded traces, as v6, v7 and v7 zstd
for z in "$ROOT"/tests/data/report/*.v6.dat.zst "$ROOT"/tests/data/tracedat/*.v6.dat.zst; do
	n=$(basename "$z" .v6.dat.zst)
	zstd -q -d -f -o "$TMP/$n.v6.dat" "$z" || { not_ok "$n: zstd"; continue; }
	trace-cmd convert -i "$TMP/$n.v6.dat" -o "$TMP/$n.v7.dat" --file-version 7 \
		--compression none > /dev/null 2>&1 || not_ok "$n: trace-cmd convert to v7"
	trace-cmd convert -i "$TMP/$n.v6.dat" -o "$TMP/$n.v7zstd.dat" --file-version 7 \
		--compression zstd > /dev/null 2>&1 || not_ok "$n: trace-cmd convert to v7 zstd"
	for v in v6 v7 v7zstd; do
		f=$TMP/$n.$v.dat
		[ -f "$f" ] || continue
		modes="-R -l --debug"
		[ $v = v6 ] && modes="-t -R -l -R,-t -l,-R -l,-t --debug"
		vs_tracecmd "$n $v default" "$f"
		for m in $modes; do
			# shellcheck disable=SC2046
			vs_tracecmd "$n $v $(echo $m | tr , ' ')" "$f" $(echo "$m" | tr , ' ')
		done
		if [ $v != v7 ]; then
			"$KTRACE" report "$f" > "$TMP/expect1" 2> /dev/null
			same "$n $v default, 3 threads, as with 1" "$TMP/expect1" --threads 3 "$f"
			"$KTRACE" report -R "$f" > "$TMP/expect1" 2> /dev/null
			same "$n $v -R, 3 threads, as with 1" "$TMP/expect1" --threads 3 -R "$f"
		fi
	done
	rm -f "$TMP/$n".*.dat
done
# 2b. a trace big enough that the reader hands pages back to the kernel while the
# worker threads still format records in place (allevents' pages repeated to 48 MB)
zstd -q -d -f -o "$TMP/big.src.dat" "$ROOT/tests/data/report/allevents.v6.dat.zst"
python3 "$ROOT/bench/read/mkbig.py" "$TMP/big.src.dat" "$TMP/big.dat" 48
"$KTRACE" report --threads 1 "$TMP/big.dat" > "$TMP/expect1" 2> /dev/null
same "48 MB trace, 3 threads, as with 1" "$TMP/expect1" --threads 3 "$TMP/big.dat"
"$KTRACE" report --threads 1 -l "$TMP/big.dat" > "$TMP/expect1" 2> /dev/null
same "48 MB trace -l, 2 threads, as with 1" "$TMP/expect1" --threads 2 -l "$TMP/big.dat"
rm -f "$TMP/big.src.dat" "$TMP/big.dat" "$TMP/expect1"
# 3. files kept as they are (a fuzzer-made v7 file: unknown events, TSC2NSEC, OFFSET)
for f in "$ROOT"/tests/data/report/*.dat; do
	for m in "" -t -R -l "-l -R" --debug --ts-diff; do
		# shellcheck disable=SC2086
		vs_tracecmd "$(basename "$f") $m" "$f" $m
	done
done
echo "# $LINES lines identical"
