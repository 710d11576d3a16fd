# The model's wakeup latencies and CPU time per thread (docs/model.md) against an
# independent computation from trace-cmd report -N -t's text (tests/model/oracle.py,
# written from docs/model.md alone): the latency count within 1%; nearest-rank p50,
# p99 and max within 1%; the CPU time (closed sched_slice rows, idle left out) of the
# oracle's 10 busiest threads each within 1%. The oracle is first checked on reports
# written by hand. On the traces recorded for it
# (tests/data/model, see its README.md: CPUs that start 1 s apart in overwrite mode,
# lost events midway, a quiet one), each also checked to have what it was recorded
# for; and on traces recorded elsewhere that have sched_switch: the shared ones
# (../shared/data/ftrace) and this tree's report and trace.dat test traces, those
# without instances (the oracle reads one buffer, and trace-cmd's text does not say which
# buffer a lost-events mark belongs to).
. "$(dirname "$0")/../lib.sh"
O="$ROOT/tests/model/oracle.py"
D="$ROOT/tests/data/model"
RECORDED="uneven lost quiet"
SHARED_DAT=$(ls "$SHARED"/data/ftrace/*.dat 2>/dev/null)
# 4 checks of the oracle itself, 6 for each recorded trace, 5 for each other trace that
# has sched_switch (which ones is known after reading them: the plan is printed last)
n=0
# the oracle itself, on reports written by hand
checker python3 "$O" selftest "$TMP/selftest"
n=$((n + 4))
if ! command -v trace-cmd >/dev/null; then
	skip $((6 * 3)) "model against trace-cmd report (recorded traces)" "trace-cmd is not installed"
	skip 1 "model against trace-cmd report (traces recorded elsewhere)" "trace-cmd is not installed"
	plan $((n + 6 * 3 + 1))
	exit 0
fi

compare() {   # file name [expectation...]
	f=$1
	nm=$2
	shift 2
	trace-cmd report -N -t "$f" >"$TMP/r" 2>/dev/null
	"$KTRACE" sql "$f" 'select dur from wakeup_latency' >"$TMP/lat" 2>"$TMP/err" ||
		sed 's/^/#   /' "$TMP/err"
	"$KTRACE" sql "$f" 'select t.tid, sum(s.dur) from sched_slice s join thread t using (utid)
		where s.dur >= 0 and t.tid != 0 group by t.tid' >"$TMP/cpu" 2>"$TMP/err" ||
		sed 's/^/#   /' "$TMP/err"
	checker python3 "$O" compare "$nm" "$TMP/r" "$TMP/lat" "$TMP/cpu" "$@"
}

for t in $RECORDED; do
	zstd -q -d -f "$D/$t.dat.zst" -o "$TMP/$t.dat" || not_ok "unpack $t.dat.zst"
done
compare "$TMP/uneven.dat" uneven.dat uneven 500
compare "$TMP/lost.dat" lost.dat lost
compare "$TMP/quiet.dat" quiet.dat quiet
n=$((n + 6 * 3))

for z in "$ROOT"/tests/data/report/*.dat.zst "$ROOT"/tests/data/tracedat/*.dat.zst; do
	zstd -q -d -f "$z" -o "$TMP/$(basename "$z" .zst)" || not_ok "unpack $z"
done
for f in $SHARED_DAT "$TMP"/*.v6.dat; do
	trace-cmd report "$f" >"$TMP/r0" 2>/dev/null
	grep -q ' sched_switch: ' "$TMP/r0" || continue
	grep -q '^[^ ]*: .*\[[0-9][0-9][0-9]\]' "$TMP/r0" && continue   # instances
	compare "$f" "$(basename "$f")"
	n=$((n + 5))
done
plan $n
