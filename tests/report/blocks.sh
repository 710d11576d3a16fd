# Records read into reused buffers (TRACEDAT_READ_COPIES): a trace whose CPUs each hold
# more than the bytes the reader keeps for records in flight (8 MiB a stream), so that
# buffers are used again while the report goes on, prints what trace-cmd prints, with
# one thread and with workers. (A buffer recycled too early shows as wrong lines.)
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
