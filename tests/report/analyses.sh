#!/bin/sh
# report -w (wake-up latencies) and report --profile (per-task event times and stacks)
# against Debian's trace-cmd 3.1.6 on the same files: -w byte for byte, --profile line
# for line (trace-cmd prints some lines in an order that varies from run to run, so
# both are sorted). With filters, --cpu, --by-comm and -G too.
# tests/data/report/profile.v6.dat.zst was recorded here with `ktrace record -F -c -T
# -e sched_switch -e sched_wakeup -e sched_wakeup_new -e irq -e raw_syscalls
# -e sched_process_exec --file-version 6 -- sh -c 'for i in 1 2 3; do ls /usr; sleep
# 0.01; done'` and cut with tests/tracedat/tools/tdslim.py (no kallsyms: the stacks
# show addresses): pairs of every kind and kernel stacks with their times. A fresh
# recording is checked in tests/tracefs/live.sh. tests/data/comm/idlewake.v6.dat.zst is
# one of those (kept apart: trace-cmd -R prints bytes read past its pages, which no
# reader can match) (made the same way, converted to v6 and cut) whose first records are an <idle> CPU's:
# the first, a sched_wakeup naming the command's pid "ktrace" (before its exec) while
# the saved cmdlines say "sh", registers that name before any comm is looked up
# (<idle> needs none), so trace-cmd prints "ktrace" for the pid from then on.
. "$(dirname "$0")/../lib.sh"
D="$SHARED/data/ftrace"
TOOLS="$ROOT/tests/tracedat/tools"
# the two loops below (9 and 6 files), then one check a line starting with w, p or check
plan $((9 + 6 + $(grep -c '^[wp] ' "$0") + $(grep -c '^check' "$0")))

if ! command -v trace-cmd > /dev/null 2>&1 || ! command -v zstd > /dev/null 2>&1; then
	not_ok "trace-cmd and zstd are needed (scripts/deps.sh test)"
	exit 0
fi
for n in allevents kmem stacks boot profile; do
	zstd -q -d -f -o "$TMP/$n.dat" "$ROOT/tests/data/report/$n.v6.dat.zst"
done
zstd -q -d -f -o "$TMP/idlewake.dat" "$ROOT/tests/data/comm/idlewake.v6.dat.zst"
cp "$D/schedviz_cpu0.v6.dat" "$TMP/sv.dat"
python3 "$TOOLS/tdslim.py" --offset 123456789 "$TMP/sv.dat" "$TMP/sv_offset.dat"

# w FILE [OPTIONS...]: report -w, byte for byte
w() {
	f=$1; shift
	trace-cmd report -w "$@" -i "$f" > "$TMP/expect" 2> /dev/null
	ts=$?
	"$KTRACE" report -w "$@" -i "$f" > "$TMP/out" 2> "$TMP/err"
	n=$(grep -c ' Latency: ' "$TMP/expect")
	# (trace-cmd prints at least its "cpus=" line: two empty outputs agree on nothing)
	if [ $ts -eq 0 ] && [ -s "$TMP/expect" ] && cmp -s "$TMP/out" "$TMP/expect" && ! [ -s "$TMP/err" ]; then
		ok "report -w $* $(basename "$f") ($n latencies)"
	else
		not_ok "report -w $* $(basename "$f") (trace-cmd exit $ts, $(wc -l < "$TMP/expect") lines)"
		diff "$TMP/expect" "$TMP/out" | head -10 | sed 's/^/#   /'
		head -3 "$TMP/err" | sed 's/^/#   /'
	fi
}

# p FILE [OPTIONS...]: report --profile, the same lines
p() {
	f=$1; shift
	trace-cmd report --profile "$@" -i "$f" 2> /dev/null | sort > "$TMP/expect"
	"$KTRACE" report --profile "$@" -i "$f" 2> "$TMP/err" | sort > "$TMP/out"
	if grep -q 'Event:' "$TMP/expect" && cmp -s "$TMP/out" "$TMP/expect" && ! [ -s "$TMP/err" ]; then
		ok "report --profile $* $(basename "$f") ($(grep -c 'Event:' "$TMP/expect") events)"
	else
		not_ok "report --profile $* $(basename "$f")"
		diff "$TMP/expect" "$TMP/out" | head -10 | sed 's/^/#   /'
		head -3 "$TMP/err" | sed 's/^/#   /'
	fi
}

for f in "$TMP/sv.dat" "$D/schedviz_cpu0.v7zstd.dat" "$TMP/sv_offset.dat" "$TMP/allevents.dat" \
	"$TMP/kmem.dat" "$TMP/boot.dat" "$TMP/stacks.dat" "$D/trappy_tests_trace.v7zstd.dat" \
	"$TMP/profile.dat"; do
	w "$f"
done
w "$TMP/sv.dat" -t
w "$TMP/sv.dat" --cpu 0
w "$TMP/allevents.dat" -F 'sched_wakeup,sched_switch:next_pid>100'
w "$TMP/kmem.dat" -l
w "$TMP/idlewake.dat"

# the files with sched_switch and sched_wakeup (without sched_wakeup trace-cmd reads
# the pids of sched_switch from uninitialized memory; with instances it dies: "Handle
# not found?")
for f in "$TMP/sv.dat" "$D/schedviz_cpu0.v7zstd.dat" "$TMP/sv_offset.dat" "$TMP/allevents.dat" \
	"$TMP/kmem.dat" "$TMP/profile.dat"; do
	p "$f"
done
p "$TMP/profile.dat" --by-comm
p "$TMP/profile.dat" -G
grep -q 'time:[0-9]* max:[0-9]*(ts:' "$TMP/out" && grep -q 'Event: sys_enter:' "$TMP/out" &&
	grep -q 'Event: irq_handler_entry:\|Event: softirq' "$TMP/out"
check "profile.dat has stacks with times, system calls and interrupts" test $? = 0
p "$TMP/allevents.dat" --by-comm
p "$TMP/kmem.dat" -G
p "$TMP/allevents.dat" --cpu 0
p "$TMP/sv.dat" -F sched_switch

# files trace-cmd cannot profile: ktrace profiles their top buffer
"$KTRACE" report --profile "$TMP/boot.dat" > "$TMP/out" 2> "$TMP/err"
st=$?
check "report --profile of a file with an instance profiles its top buffer" \
	sh -c "[ $st = 0 ] && ! [ -s '$TMP/err' ] && grep -q '^task: .*-[0-9]' '$TMP/out' && grep -q 'sched_switch:' '$TMP/out'"

# usage
"$KTRACE" report -w -i "$TMP/sv.dat" -i "$TMP/kmem.dat" > /dev/null 2> "$TMP/err"
st=$?
check "report -w with two files is a usage error (trace-cmd refuses it too)" \
	sh -c "[ $st = 2 ] && grep -q 'single input file' '$TMP/err'"
exit 0
