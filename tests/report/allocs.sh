# No allocation per record in report's hot path: `ktrace report` (one thread, and
# worker threads) of a trace and of the same trace four times as long (its pages
# repeated, bench/read/mkbig.py) make about the same number of allocations. Counted by
# an LD_PRELOAD shim (tests/report/tools/malloc_count.c); skipped under the sanitizers,
# which bring their own allocator. The control: the shim sees a program that allocates
# per item. (This test found the event-name cache reallocating on slot collisions.)
. "$(dirname "$0")/../lib.sh"
plan 3
if [ -n "${SANFLAGS:-}" ]; then
	skip 3 "allocations do not grow with records" "sanitizer build (own allocator)"
	exit 0
fi
CC=${CC:-cc}
SHIM="$TMP/malloc_count.so"
if ! $CC -O2 -shared -fPIC -o "$SHIM" "$ROOT/tests/report/tools/malloc_count.c" 2>"$TMP/cc.err"; then
	not_ok "build the malloc counter"; cat "$TMP/cc.err"; exit 0
fi
zstd -q -d -f "$ROOT/tests/data/report/allevents.v6.dat.zst" -o "$TMP/small.dat"
python3 "$ROOT/bench/read/mkbig.py" "$TMP/small.dat" "$TMP/x1.dat" 2 >/dev/null
python3 "$ROOT/bench/read/mkbig.py" "$TMP/small.dat" "$TMP/x4.dat" 8 >/dev/null

count() {   # output file, command...
	out=$1; shift
	MALLOC_COUNT_OUT="$out" LD_PRELOAD="$SHIM" "$@" >/dev/null 2>&1
	cat "$out" 2>/dev/null || echo 0
}

for threads in 1 2; do
	a=$(count "$TMP/a" "$KTRACE" report --threads $threads "$TMP/x1.dat")
	b=$(count "$TMP/b" "$KTRACE" report --threads $threads "$TMP/x4.dat")
	r1=$("$KTRACE" info "$TMP/x1.dat" | awk '/events, lost/ {print $1}')
	r4=$("$KTRACE" info "$TMP/x4.dat" | awk '/events, lost/ {print $1}')
	# four times the records (r4 - r1 more) must not bring even one allocation per 1000
	if [ "$a" -gt 0 ] && [ $((b - a)) -lt $(((r4 - r1) / 1000 + 64)) ]; then
		ok "--threads $threads: $a allocations for $r1 records, $b for $r4"
	else
		not_ok "--threads $threads: $a allocations for $r1 records, $b for $r4"
	fi
done
# the counter sees per-item allocations where there are some (the check can fail)
a=$(PYTHONMALLOC=malloc MALLOC_COUNT_OUT="$TMP/e" LD_PRELOAD="$SHIM" python3 -c "x=[str(i) for i in range(20000)]" >/dev/null 2>&1; cat "$TMP/e")
b=$(PYTHONMALLOC=malloc MALLOC_COUNT_OUT="$TMP/f" LD_PRELOAD="$SHIM" python3 -c "x=[str(i) for i in range(80000)]" >/dev/null 2>&1; cat "$TMP/f")
[ $((b - a)) -gt 50000 ] && ok "the counter sees a program that allocates per item ($a, $b)" ||
	not_ok "the counter sees a program that allocates per item ($a, $b)"
