#!/bin/sh
# The Perfetto export's process tree (docs/export.md), read back by protoc
# (tools/perfetto_subset.proto, tools/pstree.py) and checked against trace-cmd report
# and the kernel (tools/treecheck.py):
# - trace.dat files recorded without saved tgids: every thread trace-cmd report shows
#   is a ProcessTree thread, the thread group of every thread a process;
# - a trace recorded here (saved tgids) while a program runs 3 threads: the threads
#   (their ids as the kernel gave them to the program) have its pid as tgid, the
#   process is named; trace-cmd report's threads are there too;
# - two inputs exported together stay apart: the second is machine 1, each machine's
#   threads and processes are those of its input exported alone, and trace-cmd's.
. "$(dirname "$0")/../lib.sh"

TOOLS="$ROOT/tests/export/tools"
FILES="allevents.v6 kmem.v6 boot.v6"
plan 9

tree() {   # tree TRACE JSON: the process tree of a Perfetto trace, via protoc
	protoc --decode=ktrace_test.Trace -I"$TOOLS" perfetto_subset.proto <"$1" >"$TMP/tree.txt" &&
		python3 "$TOOLS/pstree.py" "$TMP/tree.txt" >"$2"
}

if ! command -v protoc >/dev/null; then
	skip 9 "process tree" "no protoc"
	exit 0
fi

for f in $FILES; do
	zstd -dqf "$ROOT/tests/data/report/$f.dat.zst" -o "$TMP/$f.dat"
	"$KTRACE" export -q -o "$TMP/$f.pftrace" "$TMP/$f.dat"
	tree "$TMP/$f.pftrace" "$TMP/$f.json"
	trace-cmd report "$TMP/$f.dat" >"$TMP/$f.txt" 2>/dev/null
	checker python3 "$TOOLS/treecheck.py" report "$f.dat (no saved tgids)" "$TMP/$f.json" 0 "$TMP/$f.txt"
done
# a trace recorded elsewhere, some of whose threads trace-cmd names "<...>"
S="$SHARED/data/ftrace/schedviz_cpu0.v6.dat"
"$KTRACE" export -q -o "$TMP/sv.pftrace" "$S"
tree "$TMP/sv.pftrace" "$TMP/sv.json"
trace-cmd report "$S" >"$TMP/sv.txt" 2>/dev/null
grep -q '<\.\.\.>-[1-9]' "$TMP/sv.txt" || echo "# (no <...> thread in $S)"
checker python3 "$TOOLS/treecheck.py" report "schedviz_cpu0.v6.dat (recorded elsewhere)" "$TMP/sv.json" 0 "$TMP/sv.txt"

# two inputs: each its own machine, as alone
"$KTRACE" export -q -o "$TMP/two.pftrace" "$TMP/allevents.v6.dat" "$TMP/kmem.v6.dat"
tree "$TMP/two.pftrace" "$TMP/two.json"
checker python3 "$TOOLS/treecheck.py" same "allevents.v6.dat, kmem.v6.dat" "$TMP/two.json" 0 "$TMP/allevents.v6.json"
checker python3 "$TOOLS/treecheck.py" same "allevents.v6.dat, kmem.v6.dat" "$TMP/two.json" 1 "$TMP/kmem.v6.json"
checker python3 "$TOOLS/treecheck.py" report "kmem.v6.dat as the second input" "$TMP/two.json" 1 "$TMP/kmem.v6.txt"

# a recorded program with threads (saved tgids: ktrace record's default)
tracefs_lock
cat >"$TMP/threads.py" <<'PY'
import os, sys, threading, time
ids = []
def work():
    ids.append(threading.get_native_id())
    time.sleep(0.05)
ts = [threading.Thread(target=work) for _ in range(3)]
for t in ts:
    t.start()
for t in ts:
    t.join()
open(sys.argv[1], 'w').write('%d %s\n' % (os.getpid(), ' '.join(map(str, ids))))
PY
if "$KTRACE" record -q -o "$TMP/rec.dat" -e sched:sched_switch -e sched:sched_wakeup \
	-e task:task_newtask -- python3 "$TMP/threads.py" "$TMP/ids" >"$TMP/rec.out" 2>&1 &&
	[ -s "$TMP/ids" ]; then
	"$KTRACE" export -q -o "$TMP/rec.pftrace" "$TMP/rec.dat"
	tree "$TMP/rec.pftrace" "$TMP/rec.json"
	# shellcheck disable=SC2046
	checker python3 "$TOOLS/treecheck.py" group "recorded program with 3 threads" "$TMP/rec.json" 0 $(cat "$TMP/ids")
	trace-cmd report "$TMP/rec.dat" >"$TMP/rec.txt" 2>/dev/null
	checker python3 "$TOOLS/treecheck.py" report "recorded trace" "$TMP/rec.json" 0 "$TMP/rec.txt"
else
	sed 's/^/#   /' "$TMP/rec.out" | head -5
	skip 2 "recorded program with threads" "ktrace record failed here"
fi
