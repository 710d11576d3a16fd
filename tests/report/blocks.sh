# Records read into reused buffers (TRACEDAT_READ_COPIES): a trace whose CPUs each hold
# more than the bytes the reader keeps for records in flight (8 MiB a stream), so that
# buffers are used again while the report goes on, prints what trace-cmd prints, with
# one thread and with workers. (A buffer recycled too early shows as wrong lines.)
# With the default thread count, the first 65536 records decide between workers and
# one thread (more than a third of sched_switch/sched_wakeup-like records: one thread):
# a big sched-only trace (schedviz_cpu0 repeated) and the all-events one take the two
# ways, both printing what trace-cmd prints (strace shows which way was taken).
. "$(dirname "$0")/../lib.sh"
if ! command -v trace-cmd >/dev/null 2>&1 || ! command -v zstd >/dev/null 2>&1; then
	not_ok "trace-cmd and zstd are needed (scripts/deps.sh test)"
	exit 0
fi
zstd -q -d -f "$ROOT/tests/data/report/allevents.v6.dat.zst" -o "$TMP/small.dat"
python3 "$ROOT/bench/read/mkbig.py" "$TMP/small.dat" "$TMP/big.dat" 40 >/dev/null
size=$(stat -c %s "$TMP/big.dat")
trace-cmd report "$TMP/big.dat" >"$TMP/tc.txt" 2>/dev/null
for threads in 1 2; do
	"$KTRACE" report --threads $threads "$TMP/big.dat" >"$TMP/kt.txt" 2>"$TMP/kt.err"
	if cmp -s "$TMP/tc.txt" "$TMP/kt.txt"; then
		ok "report --threads $threads of a $((size >> 20)) MiB trace = trace-cmd report"
	else
		not_ok "report --threads $threads of a $((size >> 20)) MiB trace = trace-cmd report"
		diff "$TMP/tc.txt" "$TMP/kt.txt" | head -5
	fi
done

python3 "$ROOT/bench/read/mkbig.py" "$SHARED/data/ftrace/schedviz_cpu0.v6.dat" "$TMP/sched.dat" 40 >/dev/null
trace-cmd report "$TMP/sched.dat" >"$TMP/tc-sched.txt" 2>/dev/null
for t in "big:a worker" "sched:one thread"; do
	n=${t%%:*} way=${t#*:}
	f="$TMP/$n.dat" ref="$TMP/tc.txt"
	[ "$n" = sched ] && ref="$TMP/tc-sched.txt"
	"$KTRACE" report "$f" >"$TMP/kt.txt" 2>"$TMP/kt.err"
	st=$?
	if [ $st -eq 0 ] && cmp -s "$ref" "$TMP/kt.txt"; then
		ok "report of a $(($(stat -c %s "$f") >> 20)) MiB $n trace, default threads = trace-cmd report"
	else
		not_ok "report of the $n trace, default threads = trace-cmd report (exit $st)"
		diff "$ref" "$TMP/kt.txt" | head -5
	fi
	if [ "$way" = "a worker" ] && [ "$(nproc)" -lt 2 ]; then
		ok "the $n trace is reported with $way # SKIP one CPU: no workers"
	elif [ -n "${SANFLAGS:-}" ]; then
		ok "the $n trace is reported with $way # SKIP the sanitizers start threads of their own"
	elif command -v strace >/dev/null 2>&1; then
		threads=$(strace -f -e trace=clone,clone3 "$KTRACE" report "$f" 2>&1 >/dev/null | grep -c '^clone')
		if [ "$way" = "a worker" ]; then [ "$threads" -ge 1 ]; else [ "$threads" -eq 0 ]; fi &&
			ok "the $n trace is reported with $way" ||
			not_ok "the $n trace is reported with $way ($threads threads started)"
	else
		ok "the $n trace is reported with $way # SKIP strace is not installed"
	fi
done
# fewer records than the first 65536 after the filter: the whole report on one thread
trace-cmd report -F sched_switch "$TMP/big.dat" >"$TMP/tc-f.txt" 2>/dev/null
"$KTRACE" report -F sched_switch "$TMP/big.dat" >"$TMP/kt.txt" 2>"$TMP/kt.err"
st=$?
if [ $st -eq 0 ] && cmp -s "$TMP/tc-f.txt" "$TMP/kt.txt"; then
	ok "report -F sched_switch of the big trace (all its records before the decision) = trace-cmd report"
else
	not_ok "report -F sched_switch of the big trace = trace-cmd report (exit $st)"
	diff "$TMP/tc-f.txt" "$TMP/kt.txt" | head -5
fi
