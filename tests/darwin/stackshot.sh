#!/bin/sh
# Stackshots inside Darwin ktrace files, through the CLI. A V3 file written by our
# writer (tests/darwin/test_stackshot write) holds events and stackshot chunks built
# from shared kcdata samples: `ktrace report --format json` of it gives, for each
# stackshot, the very tree `ktrace report --format json` gives for the sample alone
# (its tasks and threads included), the text report lists the tasks with their thread
# counts, and `ktrace info` counts them.
. "$(dirname "$0")/../lib.sh"
plan 17
KC="$SHARED/data/kcdata"
W="$ROOT/$B/tests/darwin/test_stackshot"

if ! "$W" write "$TMP/s.ktrace" "$KC/stackshot-sample" "$KC/delta-stackshot-sample-new-arrays" \
	"$KC/stackshot-sample-thread-groups" 2>"$TMP/w.err"; then
	not_ok "write the V3 file"; cat "$TMP/w.err"; exit 0
fi
"$KTRACE" report --format json "$TMP/s.ktrace" >"$TMP/s.json" 2>"$TMP/s.err"
check "report --format json of the V3 file" test $? -eq 0
i=0
for name in stackshot-sample delta-stackshot-sample-new-arrays stackshot-sample-thread-groups; do
	"$KTRACE" report --format json "$KC/$name" >"$TMP/alone.json" 2>&1
	if python3 - "$TMP/s.json" "$TMP/alone.json" $i >"$TMP/cmp.txt" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
alone = json.load(open(sys.argv[2]))
shot = doc["stackshots"][int(sys.argv[3])]
tree = shot["kcdata"]
root = list(alone)[0]
tasks = alone[root]["task_snapshots"]
mine = tree[root]["task_snapshots"]
threads = sum(len(t.get("thread_snapshots", {})) + len(t.get("thread_delta_snapshot", []))
              for t in tasks.values())
assert sorted(mine) == sorted(tasks), "task pids differ"
for pid in tasks:
    assert mine[pid] == tasks[pid], "task %s differs" % pid
assert tree == alone, "trees differ"
assert shot["tasks"] == len(tasks), (shot["tasks"], len(tasks))
assert shot["threads"] == threads, (shot["threads"], threads)
print("%d tasks, %d threads" % (len(tasks), threads))
PY
	then
		ok "$name: the stackshot in the file reports as the sample alone ($(cat "$TMP/cmp.txt"))"
	else
		not_ok "$name: the stackshot in the file reports as the sample alone"; sed 's/^/#   /' "$TMP/cmp.txt" | tail -5
	fi
	i=$((i + 1))
done
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["events"]) == 3 and d["events"][0]["process"] == "stackshotter" and d["events"][0]["event"] == "STACKSHOT_RECORD", d["events"][0]' \
	"$TMP/s.json" && ok "report --format json: the events too" || not_ok "report --format json: the events"

# Text: the tasks listed under each stackshot chunk.
"$KTRACE" report "$TMP/s.ktrace" >"$TMP/s.txt" 2>&1
grep -q '^#   stackshot 0: 1 tasks, 4 threads$' "$TMP/s.txt" && grep -q '^#     pid 1 launchd: 4 threads$' "$TMP/s.txt" &&
	ok "text report lists the tasks of the stackshot" || { not_ok "text report lists the tasks"; grep '^#' "$TMP/s.txt" | head -8 | sed 's/^/#   /'; }
grep -q '^#   delta stackshot 1: 170 tasks, ' "$TMP/s.txt" && ok "text report: the delta stackshot" ||
	not_ok "text report: the delta stackshot"
[ "$(grep -vc '^#' "$TMP/s.txt")" -eq 3 ] && ok "text report: the 3 events" || not_ok "text report: the 3 events"

# info: the counts.
"$KTRACE" info "$TMP/s.ktrace" >"$TMP/i.txt" 2>&1
grep -q '^stackshots: 3 (' "$TMP/i.txt" && grep -q '^  stackshot 0 at 0x[0-9a-f]*: 1 tasks, 4 threads' "$TMP/i.txt" &&
	ok "info counts the stackshots' tasks and threads" || { not_ok "info counts the stackshots"; sed 's/^/#   /' "$TMP/i.txt" | tail -12; }
"$KTRACE" info --json "$TMP/s.ktrace" >"$TMP/i.json" 2>&1
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); s = d["stackshots"]; assert len(s) == 3 and s[0]["tasks"] == 1 and s[0]["threads"] == 4 and s[1]["tasks"] == 170, s' \
	"$TMP/i.json" && ok "info --json counts them" || { not_ok "info --json counts them"; tail -20 "$TMP/i.json" | sed 's/^/#   /'; }

# A corrupt stackshot chunk: said so, the events still reported.
python3 - "$TMP/s.ktrace" "$TMP/bad.ktrace" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
at = d.find(b"\x07\x58\xa2\x59")          # the first stackshot's begin magic
d[at + 4] ^= 0xff                           # its size
open(sys.argv[2], "wb").write(d)
PY
"$KTRACE" report "$TMP/bad.ktrace" >"$TMP/b.txt" 2>&1
grep -q '^#   stackshot 0 does not decode: ' "$TMP/b.txt" && [ "$(grep -vc '^#' "$TMP/b.txt")" -eq 3 ] &&
	ok "a corrupt stackshot is reported, the events still shown" || { not_ok "corrupt stackshot"; head -8 "$TMP/b.txt"; }
"$KTRACE" report --format json "$TMP/bad.ktrace" >/dev/null 2>"$TMP/b.err"
[ $? -eq 1 ] && grep -q 'stackshot chunk:' "$TMP/b.err" && ok "report --format json of a corrupt stackshot: error" ||
	{ not_ok "report --format json of a corrupt stackshot: error"; cat "$TMP/b.err"; }
"$KTRACE" report --format plist "$TMP/s.ktrace" >/dev/null 2>&1
[ $? -eq 2 ] && ok "--format plist of a Darwin file: usage error" || not_ok "--format plist of a Darwin file: usage error"

# The event stream (so export and SQL see them): a record per stackshot, in time order
# with the events, its tasks and threads as info counts them; a corrupt one says why.
SD="$ROOT/$B/examples/stream_dump"
"$SD" --fields "$TMP/s.ktrace" >"$TMP/st.txt" 2>&1
grep ' kcdata:' "$TMP/st.txt" | sed 's/^E [0-9]* //' >"$TMP/st.shots"
# info: "  stackshot 1 at 0xa60: 170 tasks, 718 threads (delta stackshot, ...)"
sed -n 's/^  stackshot [0-9]* at \(0x[0-9a-f]*\): \([0-9]*\) tasks, \([0-9]*\) threads (\([a-z ]*\),.*/\1 \4 \2 \3/p' \
	"$TMP/i.txt" | sed 's/delta stackshot/delta_stackshot/' | sort >"$TMP/want.shots"
sed -n 's/.*kcdata:\([a-z_]*\) offset=\([0-9]*\) size=[0-9]* tasks=\([0-9]*\) threads=\([0-9]*\) error=""$/\2 \1 \3 \4/p' \
	"$TMP/st.shots" | while read -r off rest; do printf '0x%x %s\n' "$off" "$rest"; done | sort >"$TMP/got.shots"
[ "$(wc -l <"$TMP/got.shots")" -eq 3 ] && cmp -s "$TMP/got.shots" "$TMP/want.shots" &&
	ok "stream: a record per stackshot, with info's tasks and threads" ||
	{ not_ok "stream: a record per stackshot"; sed 's/^/#   /' "$TMP/got.shots" "$TMP/want.shots"; }
awk '{print $2}' "$TMP/st.txt" >"$TMP/st.ts"
[ "$(grep -c '^E ' "$TMP/st.txt")" -eq 6 ] && sort -n -c "$TMP/st.ts" 2>/dev/null &&
	ok "stream: the 3 events and 3 stackshots in time order" || { not_ok "stream: events and stackshots in time order"; sed 's/^/#   /' "$TMP/st.txt"; }
"$SD" "$TMP/s.ktrace" | grep -q ' delta_stackshot *170 tasks, 718 threads$' &&
	ok "stream: the report line of a stackshot" || not_ok "stream: the report line of a stackshot"
"$SD" --fields "$TMP/bad.ktrace" >"$TMP/sb.txt" 2>&1
[ "$(grep -c 'kcdata:stackshot .* error="[^"]' "$TMP/sb.txt")" -eq 1 ] && [ "$(grep -c '^E ' "$TMP/sb.txt")" -eq 6 ] &&
	ok "stream: a corrupt stackshot is a record saying why, the rest still there" ||
	{ not_ok "stream: a corrupt stackshot"; sed 's/^/#   /' "$TMP/sb.txt"; }
