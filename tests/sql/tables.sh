# ktrace sql's tables against independent computations:
# - trace.dat (recorded and shared traces, v6/v7, instances): the count of every event
#   name equals trace-cmd report's; per-thread CPU time over the slices both of whose
#   switches were recorded equals the sum computed from the sched_switch lines of
#   trace-cmd report -N -t; every sched_slice row a switch begins (cpu, ts, dur, tid,
#   end_state, priority) equals the one computed from those lines (tests/sql/tracecmp.py;
#   the model's other rows: tests/model/);
# - two files together: both traces, their events, distinct utids;
# - Darwin: the shared sample's 15552 events (ktrace info, report --csv), the 1606
#   threads of its thread map, slices equal to report --csv's elapsed times;
# - KOFF: a buffer written here gives one event per record, and its begin/end pairs;
# - counters: rss_stat rows equal the rss_stat lines of trace-cmd report.
. "$(dirname "$0")/../lib.sh"
T="$ROOT/tests/sql/tracecmp.py"
FT="$SHARED/data/ftrace"
# 3 checks for each of 12 traces with switches, 1 for one without, then 14
plan $((12 * 3 + 1 + 14))

command -v trace-cmd >/dev/null || { skip $((12 * 3 + 1 + 14)) "tables against trace-cmd" "trace-cmd is not installed"; exit 0; }

for z in "$ROOT"/tests/data/report/*.zst "$ROOT"/tests/data/tracedat/*.zst; do
	zstd -q -d -f "$z" -o "$TMP/$(basename "$z" .zst)" || not_ok "unpack $z"
done

compare() {   # file [noswitch]
	f=$1
	n=$(basename "$f")
	trace-cmd report "$f" >"$TMP/r" 2>/dev/null
	"$KTRACE" sql "$f" 'select name, count(*) from event group by name' >"$TMP/s"
	checker python3 "$T" counts "$n" "$TMP/r" "$TMP/s"
	# a trace without sched_switch has no CPU time to compare
	[ "${2:-}" = noswitch ] && return 0
	trace-cmd report -N -t "$f" >"$TMP/r" 2>/dev/null
	"$KTRACE" sql "$f" 'select s.cpu, s.ts, s.dur, t.tid, s.end_state from sched_slice s
		join thread t using (utid) where s.dur >= 0' >"$TMP/s"
	checker python3 "$T" cputime "$n" "$TMP/r" "$TMP/s"
	# every column of every row a switch begins, the open slices at the end included,
	# from trace-cmd's text alone
	"$KTRACE" sql "$f" 'select s.cpu, s.ts, s.dur, t.tid, s.end_state, s.priority
		from sched_slice s join thread t using (utid)' >"$TMP/s"
	checker python3 "$T" slices "$n" "$TMP/r" "$TMP/s"
}

for f in "$TMP"/stacks.v6.dat "$TMP"/boot.v6.dat "$TMP"/allevents.v6.dat "$TMP"/kmem.v6.dat \
	 "$TMP"/all.v6.dat "$TMP"/mixed.v6.dat "$TMP"/subbuf8k.v6.dat "$TMP"/instance.v6.dat \
	 "$FT"/schedviz_cpu0.v6.dat "$FT"/schedviz_cpu0.v7zstd.dat "$FT"/trappy_tests_raw_trace.v7zstd.dat \
	 "$FT"/synthetic_edge.v6.dat; do
	compare "$f"
done
compare "$FT"/trappy_tests_trace.v6.dat noswitch

# every CPU's last slice is open (dur -1), one per CPU that switched
n=$("$KTRACE" sql "$TMP/stacks.v6.dat" 'select count(*) from sched_slice where dur = -1' | tail -1)
c=$(trace-cmd report "$TMP/stacks.v6.dat" 2>/dev/null | awk '/ sched_switch: / {print $2}' | sort -u | wc -l)
[ "$n" -gt 0 ] && [ "$n" = "$c" ] && ok "one open slice (dur -1) per CPU that switched ($n)" ||
	not_ok "open slices: $n, CPUs with switches: $c"

# wakeup latency: each starts at a wakeup of the thread and ends when a sched_switch puts
# it on a CPU
"$KTRACE" sql "$TMP/boot.v6.dat" "select l.ts, l.ts + l.dur, t.tid from wakeup_latency l
	join thread t using (utid)" >"$TMP/lat"
trace-cmd report -t "$TMP/boot.v6.dat" 2>/dev/null >"$TMP/r"
checker python3 - "$TMP/lat" "$TMP/r" <<'EOF'
import re, sys
rows = [tuple(map(int, l.split('\t'))) for l in open(sys.argv[1]).read().split('\n')[1:] if l]
wake, on = set(), set()
for line in open(sys.argv[2], errors='replace'):
    m = re.search(r'\[(\d+)\]\s*(\d+)(?:\.(\d+))?: (\S+)\s+(.*)$', line)
    if not m:
        continue
    ts = int(m.group(2)) if m.group(3) is None else int(m.group(2)) * 10**9 + int(m.group(3))
    if m.group(4) in ('sched_waking:', 'sched_wakeup:', 'sched_wakeup_new:'):
        p = re.search(r'pid=(\d+)', m.group(5)) or re.search(r':(\d+) \[', m.group(5))
        if p:
            wake.add((ts, int(p.group(1))))
    elif m.group(4) == 'sched_switch:':
        p = re.search(r'==> .*:(\d+) \[', m.group(5))
        if p:
            on.add((ts, int(p.group(1))))
bad = [r for r in rows if (r[0], r[2]) not in wake or (r[1], r[2]) not in on]
if rows and not bad:
    print('ok - %d wakeup latencies run from a wakeup of the thread to its switch in' % len(rows))
else:
    print('not ok - wakeup latencies (%d rows, %d not matching trace-cmd report)' % (len(rows), len(bad)))
    for r in bad[:5]:
        print('#   %s' % (r,))
EOF

# raw pages read with their formats: the same tables as the same data in a trace.dat
q='select cpu, ts, dur, end_state, priority from sched_slice order by cpu, ts; select count(*), count(distinct name) from event'
"$KTRACE" sql -e "$FT/schedviz_formats" "$FT/schedviz_cpu0.trace_pipe_raw" "$q" >"$TMP/rp"
"$KTRACE" sql "$FT/schedviz_cpu0.v6.dat" "$q" >"$TMP/td"
[ "$(wc -l <"$TMP/td")" -gt 700 ] && cmp -s "$TMP/rp" "$TMP/td" &&
	ok "raw pages with their formats: sched_slice and events as the trace.dat's" ||
	{ not_ok "raw pages against trace.dat"; diff "$TMP/rp" "$TMP/td" | head -3 | sed 's/^/#   /'; }

# two files: two traces side by side, ids unique across them
"$KTRACE" sql "$TMP/mixed.v6.dat" "$TMP/kmem.v6.dat" 'select count(*) from trace;
	select count(*) from event; select count(distinct trace_id) from event;
	select count(*) = count(distinct utid) from thread' >"$TMP/two"
e1=$("$KTRACE" sql "$TMP/mixed.v6.dat" 'select count(*) from event' | tail -1)
e2=$("$KTRACE" sql "$TMP/kmem.v6.dat" 'select count(*) from event' | tail -1)
[ "$(sed -n 2p "$TMP/two")" = 2 ] && [ "$(sed -n 4p "$TMP/two")" = $((e1 + e2)) ] &&
	[ "$(sed -n 6p "$TMP/two")" = 2 ] && [ "$(sed -n 8p "$TMP/two")" = 1 ] &&
	ok "two files: 2 traces, $((e1 + e2)) events, utids unique" || { not_ok "two files"; cat "$TMP/two"; }
# the same file has the same trace_id loaded alone or with others
a=$("$KTRACE" sql "$TMP/kmem.v6.dat" 'select trace_id from trace' | tail -1)
b=$("$KTRACE" sql "$TMP/mixed.v6.dat" "$TMP/kmem.v6.dat" "select trace_id from trace where path like '%kmem%'" | tail -1)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "trace_id depends on the file only" || not_ok "trace_id: $a vs $b"

# the trace table: what trace-cmd says about the machine
"$KTRACE" sql "$TMP/allevents.v6.dat" 'select hostname, machine, kernel_release, clock, cpus, events, lost from trace' |
	tail -1 >"$TMP/tr"
un=$(trace-cmd report --uname "$TMP/allevents.v6.dat" 2>/dev/null | sed -n 2p)
lost=$(trace-cmd report "$TMP/allevents.v6.dat" 2>/dev/null | sed -n 's/.*\[\([0-9]*\) EVENTS DROPPED\]/\1/p' | awk '{s += $1} END {print s}')
exp=$(echo "$un" | awk '{print $2 "\t" $NF "\t" $3}')
[ -n "$un" ] && [ "$(cut -f1-3 "$TMP/tr")" = "$exp" ] && [ "$(cut -f4-7 "$TMP/tr")" = "$(printf 'local\t2\t12266\t%s' "$lost")" ] &&
	ok "trace: host, machine, kernel, clock, CPUs, events, lost ($lost) as trace-cmd" ||
	{ not_ok "trace table"; cat "$TMP/tr"; echo "# $un / lost $lost"; }

# counters: one mem.rss.* value per rss_stat line of the current task (curr=1)
n=$("$KTRACE" sql "$TMP/allevents.v6.dat" "select count(*) from counter c join counter_track t on t.id = c.track_id
	where t.name like 'mem.%'" | tail -1)
m=$(trace-cmd report "$TMP/allevents.v6.dat" 2>/dev/null | grep ' rss_stat: ' | grep -c 'curr=1')
[ "$m" -gt 0 ] && [ "$n" = "$m" ] && ok "counters: $n rss_stat values of the current task" ||
	not_ok "counters: $n rows, trace-cmd $m rss_stat lines with curr=1"
"$KTRACE" sql "$TMP/allevents.v6.dat" "select c.ts, cast(c.value as integer) from counter c join counter_track t
	on t.id = c.track_id where t.name = 'mem.rss.anon' order by c.ts" | tail -n +2 >"$TMP/c1"
trace-cmd report -t "$TMP/allevents.v6.dat" 2>/dev/null | grep ' rss_stat: ' | grep 'curr=1' |
	grep 'type=MM_ANONPAGES' | sed 's/.*\] *\([0-9]*\)\.\([0-9]*\): .* size=\([0-9]*\)B.*/\1\2\t\3/' >"$TMP/c2"
[ -s "$TMP/c2" ] && cmp -s "$TMP/c1" "$TMP/c2" && ok "counters: mem.rss.anon values and times as trace-cmd report -t" ||
	{ not_ok "counters: mem.rss.anon"; diff "$TMP/c1" "$TMP/c2" | head -3 | sed 's/^/#   /'; }

# Darwin
D="$SHARED/data/darwin/coreprofilesessiontap.bin"
"$KTRACE" sql "$D" 'select count(*) from event' >"$TMP/dn"
ev=$("$KTRACE" info --json "$D" | python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])')
csv=$("$KTRACE" report --csv "$D" | tail -n +2 | wc -l)
[ "$(tail -1 "$TMP/dn")" = 15552 ] && [ "$ev" = 15552 ] && [ "$csv" = 15552 ] &&
	ok "Darwin: 15552 events (ktrace info and report --csv agree)" || not_ok "Darwin events: $(tail -1 "$TMP/dn"), info $ev, csv $csv"
"$ROOT/$B/examples/stream_dump" --tasks "$D" | awk '{print $1}' | sort -u >"$TMP/map"
"$KTRACE" report --csv "$D" | tail -n +2 | cut -d, -f4 | sort -u |
	python3 -c 'import sys; print("\n".join(str(int(l, 16)) for l in sys.stdin.read().split()))' | sort -u >"$TMP/evt"
sort -u "$TMP/map" "$TMP/evt" | wc -l >"$TMP/all"
"$KTRACE" sql "$D" 'select tid from thread' | tail -n +2 | sort -u >"$TMP/ours"
inmap=$(comm -12 "$TMP/ours" "$TMP/map" | wc -l)
[ "$(wc -l <"$TMP/map")" = 1606 ] && [ "$inmap" = 1606 ] && [ "$(wc -l <"$TMP/ours")" = "$(cat "$TMP/all")" ] &&
	ok "Darwin: the 1606 threads of the thread map, and $(($(cat "$TMP/all") - 1606)) more seen in events only" ||
	not_ok "Darwin threads: $inmap of the map's $(wc -l <"$TMP/map"), $(wc -l <"$TMP/ours") rows for $(cat "$TMP/all") ids"
# the elapsed_ns column by its name (report --csv has more columns after it: thread_name)
"$KTRACE" report --csv "$D" | python3 -c 'import csv, sys
r = csv.reader(sys.stdin); i = next(r).index("elapsed_ns")
print("\n".join(row[i] for row in r if row[i]))' | sort -n >"$TMP/el1"
"$KTRACE" sql "$D" 'select dur from slice where dur >= 0' | tail -n +2 | sort -n >"$TMP/el2"
[ -s "$TMP/el1" ] && cmp -s "$TMP/el1" "$TMP/el2" &&
	ok "Darwin: $(wc -l <"$TMP/el1") START/END slices with report --csv's elapsed times" ||
	not_ok "Darwin slices: $(wc -l <"$TMP/el2") against report's $(wc -l <"$TMP/el1")"
# context switches: each MACH_SCHED/MACH_STACK_HANDOFF begins or ends a slice on its CPU,
# and a slice with an end state ends at one (the others end where the model found a
# switch missing: docs/model.md)
"$KTRACE" report --csv "$D" | awk -F, 'NR > 1 && $7 ~ /^0x0140000[08]$/ {print $3, $1}' | sort -u >"$TMP/sw1"
"$KTRACE" sql "$D" "select cpu, ts from sched_slice union all
	select cpu, ts + dur from sched_slice where dur >= 0" | tail -n +2 | tr '\t' ' ' | sort -u >"$TMP/sw2"
"$KTRACE" sql "$D" "select cpu, ts + dur from sched_slice where end_state is not null" |
	tail -n +2 | tr '\t' ' ' | sort -u >"$TMP/sw3"
n=$(wc -l <"$TMP/sw1")
[ "$n" -gt 0 ] && [ -z "$(comm -23 "$TMP/sw1" "$TMP/sw2")" ] && [ -s "$TMP/sw3" ] &&
	[ -z "$(comm -23 "$TMP/sw3" "$TMP/sw1")" ] &&
	ok "Darwin: the $n context switches begin or end sched_slice rows; $(wc -l <"$TMP/sw3") end states at switches" ||
	{ not_ok "Darwin context switches"; comm -3 "$TMP/sw1" "$TMP/sw2" | head -3 | sed 's/^/#   /'; }

# KOFF: a buffer written here
cat >"$TMP/koff.c" <<'EOF'
#include <ktrace/koff.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	struct koff_buffer *b = koff_open(argv[1], 1024);
	if (!b)
		return 1;
	for (int i = 0; i < 10; i++) {
		KOFF_TRACE_TO(b, 1, 100 + i, "io: begin read %d", i);
		KOFF_TRACE_TO(b, 1, 0, "step: value %d", i * 3);
		KOFF_TRACE_TO(b, 1, 100 + i, "io: end read %d", i);
	}
	KOFF_TRACE_TO(b, 1, 0, "work: begin outer");
	KOFF_TRACE_TO(b, 1, 0, "work: begin inner");
	KOFF_TRACE_TO(b, 1, 0, "work: end");
	KOFF_TRACE_TO(b, 1, 0, "work: end");
	KOFF_TRACE_TO(b, 1, 7, "io: begin never ended");
	koff_close(b);
	return 0;
}
EOF
BUF=/dev/shm/ktrace-sql-test-$$
if ${CC:-cc} -std=c11 $SANFLAGS -I"$ROOT/include" -o "$TMP/koff" "$TMP/koff.c" -L"$ROOT/$B" -lktrace \
	-Wl,-rpath,"$ROOT/$B" 2>"$TMP/cc.err" && "$TMP/koff" "$BUF"; then
	TZ=UTC "$KTRACE" dump --buffer "$BUF" | grep -c ':........ ' >"$TMP/kd"
	"$KTRACE" sql "$BUF" "select count(*) from event; select count(*) from event where subsystem = 'koff';
		select name, count(*), sum(dur >= 0), max(depth) from slice group by name order by name" >"$TMP/ks"
	[ "$(sed -n 2p "$TMP/ks")" = 35 ] && [ "$(cat "$TMP/kd")" = 35 ] && [ "$(sed -n 4p "$TMP/ks")" = 35 ] &&
		ok "KOFF: one event per record (35, as ktrace dump)" || { not_ok "KOFF events"; cat "$TMP/ks" "$TMP/kd"; }
	[ "$(sed -n 6p "$TMP/ks")" = "$(printf 'io\t11\t10\t0')" ] && [ "$(sed -n 7p "$TMP/ks")" = "$(printf 'work\t2\t2\t1')" ] &&
		ok "KOFF: begin/end pairs by correlator id, nested by thread, one left open" ||
		{ not_ok "KOFF slices"; cat "$TMP/ks"; }
	rm -f "$BUF"
else
	not_ok "KOFF: could not write a buffer"; head -3 "$TMP/cc.err" | sed 's/^/#   /'
fi
