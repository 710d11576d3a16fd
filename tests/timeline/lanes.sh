# ktrace timeline's lanes are the engine's model's (docs/model.md, issue 32): on traces
# with lost events, the page (read in headless Chromium as it decodes itself) and the
# SVG against ktrace sql's sched_slice and thread_state of the same inputs
# (tests/timeline/lanes.py says what is checked).
. "$(dirname "$0")/../lib.sh"
T="$ROOT/tests/timeline"
D="$ROOT/tests/data"
N=$(python3 "$T/lanes.py" --plan)
plan $((1 + 4 * N))

lanes() {   # name file...: the page and SVG of the files, checked
	name=$1; shift
	"$KTRACE" timeline -q "$@" -o "$TMP/$name.html" && "$KTRACE" timeline -q "$@" -o "$TMP/$name.svg"
	checker python3 "$T/lanes.py" "$name" "$TMP/$name.html" "$TMP/$name.svg" "$KTRACE" "$@"
}

# a trace.dat whose sub-buffers were dropped
zstd -q -d -o "$TMP/dropped.dat" "$D/tracedat_write/kt_dropped.v6.dat.zst"
lanes dropped "$TMP/dropped.dat"
# with another input: each input's threads its own, CPU numbers shared
lanes "dropped and demo" "$ROOT/examples/sched_demo.dat" "$TMP/dropped.dat"
EDGE="$SHARED/data/ftrace/synthetic_edge.v6.dat"
if [ -f "$EDGE" ]; then
	# (lost-events marks of both kinds, in 16 KB)
	lanes edge "$EDGE"
else
	skip "$N" "synthetic_edge.v6.dat: the lanes against ktrace sql" "$EDGE not found"
fi
# recorded now with a ring buffer too small for the load: events lost on every CPU
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/sched ]; then
	tracefs_lock
	if "$KTRACE" record -b 8 -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking \
		-e raw_syscalls -o "$TMP/lost.dat" -- sh -c 'for i in 1 2; do (i=0; while [ $i -lt 200 ]; do i=$((i+1)); cat /dev/null; done) & done; wait' \
		>"$TMP/rec.log" 2>&1; then
		ok "recorded a trace with a small ring buffer"
		exec 9>&-
		lanes recorded "$TMP/lost.dat"
	else
		exec 9>&-
		not_ok "ktrace record"; sed 's/^/#   /' "$TMP/rec.log" | tail -5
		skip "$N" "recorded: the lanes against ktrace sql" "no recording"
	fi
else
	ok "record a trace # SKIP needs root and tracefs"
	skip "$N" "recorded: the lanes against ktrace sql" "no recording"
fi
