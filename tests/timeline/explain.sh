# The timeline page's selection, markers and search (issue 33), driven in headless
# Chromium: a selected range's figures against `ktrace summary --from --to --json`, the
# search's matches against `ktrace sql` (tests/timeline/explain.py says what is checked).
. "$(dirname "$0")/../lib.sh"
T="$ROOT/tests/timeline"
N=$(python3 "$T/explain.py" --plan)
plan $((3 * N))

explain() {   # name files (comma-separated) event thread [picture]: the page of the files, checked
	# shellcheck disable=SC2046
	"$KTRACE" timeline -q $(echo "$2" | tr , ' ') -o "$TMP/$1.html"
	checker python3 "$T/explain.py" "$1" "$TMP/$1.html" "$KTRACE" "$2" "$3" "$4" ${5:+"$5"}
}

# the bundled demo
# (the picture of the page explaining: docs/timeline-demo.png is a copy)
explain demo "$ROOT/examples/sched_demo.dat" sched_wakeup python3 "$ROOT/$B/timeline-explain.png"
# a recorded trace with lost events (tests/data/model/record.sh)
zstd -q -d -o "$TMP/lost.dat" "$ROOT/tests/data/model/lost.dat.zst"
explain lost "$TMP/lost.dat" sys_enter sched-pipe
# both: two inputs, one block each in the panel as in summary
explain two "$TMP/lost.dat,$ROOT/examples/sched_demo.dat" sched_wakeup sched-pipe
