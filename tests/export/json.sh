# ktrace export --format json (Chrome's trace event format), checked against trace-cmd
# and the other readers (tools/jsoncheck.py): valid JSON (python3 -m json.tool), per
# CPU one scheduling slice more than its context switches, each ending at its switch
# to the nanosecond with the thread it took off; every other record an instant; lost
# events as global instants; thread names for the saved cmdlines and the Darwin thread
# map; the KOFF buffer's records.
. "$(dirname "$0")/../lib.sh"
FT="$SHARED/data/ftrace"
D="$SHARED/data/darwin/coreprofilesessiontap.bin"
TOOLS="$ROOT/tests/export/tools"
# six trace.dat files: 1 + jsoncheck.py's 5 each; two selections 5 each; Darwin 1 + 5 +
# 1; KOFF 1 + 3; 2
plan $((6 * 6 + 2 * 5 + 7 + 4 + 2 + 1))

command -v trace-cmd >/dev/null || { skip $((6 * 6 + 2 * 5 + 7 + 4 + 2)) "json export" "trace-cmd is not installed"; exit 0; }

json_tool() {   # name file
	python3 -m json.tool "$2" >/dev/null 2>"$TMP/jt.err" && ok "python3 -m json.tool: $1" ||
		{ not_ok "python3 -m json.tool: $1"; head -3 "$TMP/jt.err" | sed 's/^/#   /'; }
}

for z in allevents boot kmem; do
	zstd -q -d -f "$ROOT/tests/data/report/$z.v6.dat.zst" -o "$TMP/$z.v6.dat" 2>/dev/null ||
		zstd -q -d -f "$ROOT/tests/data/tracedat/$z.v6.dat.zst" -o "$TMP/$z.v6.dat"
done
for f in "$FT/trappy_tests_trace.v6.dat" "$FT/schedviz_cpu0.v7zstd.dat" "$FT/synthetic_edge.v6.dat" \
	 "$TMP/allevents.v6.dat" "$TMP/boot.v6.dat" "$TMP/kmem.v6.dat"; do
	name=$(basename "$f")
	if ! "$KTRACE" export -q -o "$TMP/$name.json" "$f" 2>"$TMP/err"; then
		not_ok "export $name"; head -3 "$TMP/err" | sed 's/^/#   /'
		skip 5 "jsoncheck.py $name" "no export"
		continue
	fi
	json_tool "$name" "$TMP/$name.json"
	trace-cmd report -R -t "$f" >"$TMP/R.txt" 2>/dev/null
	trace-cmd dump --cmd-lines "$f" >"$TMP/cmd.txt" 2>/dev/null
	checker python3 "$TOOLS/jsoncheck.py" "$name" "$TMP/$name.json" tracecmd "$TMP/R.txt" "$TMP/cmd.txt"
done

# --comm, --pid with -F: the records trace-cmd report keeps with the same options
trace-cmd dump --cmd-lines "$TMP/kmem.v6.dat" >"$TMP/cmd.txt" 2>/dev/null
set -- "comm" "--comm bash,gzip" "pid" "--pid 16292 -F sched_switch"
while [ $# -gt 0 ]; do
	# shellcheck disable=SC2086
	"$KTRACE" export -q $2 -o "$TMP/sel.json" "$TMP/kmem.v6.dat" 2>"$TMP/err" ||
		{ echo "#   export $2:"; head -3 "$TMP/err" | sed 's/^/#   /'; }
	# shellcheck disable=SC2086
	trace-cmd report -R -t $2 "$TMP/kmem.v6.dat" >"$TMP/R.txt" 2>/dev/null
	checker python3 "$TOOLS/jsoncheck.py" "kmem $2" "$TMP/sel.json" tracecmd "$TMP/R.txt" "$TMP/cmd.txt"
	shift 2
done

"$KTRACE" export -q -o "$TMP/d.json" "$D"
json_tool "Darwin sample" "$TMP/d.json"
"$KTRACE" report --csv "$D" >"$TMP/d.csv"
checker python3 "$TOOLS/jsoncheck.py" "Darwin sample" "$TMP/d.json" darwin "$TMP/d.csv"
n=$(grep -c '"name": "thread_name"' "$TMP/d.json")
[ "$n" -ge 1606 ] && ok "Darwin sample: $n thread names (1606 in its thread map)" || not_ok "Darwin sample: $n thread names"

BUF=/dev/shm/koff-test-$$-json
"$ROOT/$B/tests/koff/test_koff_producer" example "$BUF" >/dev/null 2>&1
"$KTRACE" export -q -o "$TMP/k.json" "$BUF"
n=$(TZ=UTC "$KTRACE" dump --buffer "$BUF" | grep -cE '^[0-9a-f]{8}:')
rm -f "$BUF"
json_tool "KOFF buffer" "$TMP/k.json"
checker python3 "$TOOLS/jsoncheck.py" "KOFF buffer" "$TMP/k.json" count "$n" | grep -v 'scheduling slices'

# -o - and a pipe: the same document
"$KTRACE" export -o - --format json "$FT/synthetic_edge.v6.dat" | python3 -m json.tool >/dev/null &&
	ok "-o - --format json: standard output, valid JSON" || not_ok "-o - --format json"
"$KTRACE" export -o - --format json "$FT/synthetic_edge.v6.dat" >"$TMP/so.json"
"$KTRACE" export -q -o "$TMP/se.json" "$FT/synthetic_edge.v6.dat"
check_same "-o - writes what -o FILE writes" "$TMP/so.json" "$TMP/se.json"

# two inputs stay apart: the second input's names are its own, alone, with pids and tids
# plus 1 << 32; the first input's are as alone
A="$TMP/allevents.v6.dat"; K="$TMP/kmem.v6.dat"
"$KTRACE" export -q --format json -o "$TMP/a1.json" "$A"
"$KTRACE" export -q --format json -o "$TMP/k1.json" "$K"
"$KTRACE" export -q --format json -o "$TMP/ak.json" "$A" "$K"
checker python3 - "$TMP/a1.json" "$TMP/k1.json" "$TMP/ak.json" <<'EOF2'
import json, sys
def names(path, off=0, sel=None):
    out = set()
    for e in json.load(open(path))['traceEvents']:
        if e['ph'] == 'M' and e['name'] in ('thread_name', 'process_name') and e['pid'] != 2147483647:
            pid, tid = e['pid'], e.get('tid', -1)
            if sel is not None and (pid >= 1 << 32) != sel:
                continue
            out.add((e['name'], pid - off, tid - off if tid >= 0 else -1, e['args']['name']))
    return out
a, k = names(sys.argv[1]), names(sys.argv[2])
a2, k2 = names(sys.argv[3], 0, False), names(sys.argv[3], 1 << 32, True)
if a and k and a2 == a and k2 == k:
    print('ok - two inputs: each one\'s %d and %d thread and process names as alone, apart' % (len(a), len(k)))
else:
    print('not ok - two inputs: first %d/%d, second %d/%d names as alone' % (len(a2 & a), len(a), len(k2 & k), len(k)))
EOF2
