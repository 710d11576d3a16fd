# ktrace summary --json against independent computations from trace-cmd's text
# (tests/summary/summarycmp.py): per thread CPU time (the oracle's 10 busiest) and wakeup
# latency count and quantiles, from tests/model/oracle.py (docs/model.md's rules,
# written from that page alone); IRQ, softirq and syscall counts and time from their
# entry/exit lines (tests/engine/kernelcmp.py). On the traces recorded for the model
# (uneven CPU starts, lost events midway, quiet: tests/data/model) and on traces
# recorded elsewhere (../shared/data/ftrace, this tree's report traces), those of one
# buffer. Then the text form, the window (--from/--to), --top, a damaged input and
# usage errors.
. "$(dirname "$0")/../lib.sh"
O="$ROOT/tests/model/oracle.py"
KC="$ROOT/tests/engine/kernelcmp.py"
C="$ROOT/tests/summary/summarycmp.py"
n=0
compare() {   # file name
	trace-cmd report -N -t "$1" >"$TMP/rn" 2>/dev/null
	trace-cmd report -t "$1" >"$TMP/rt" 2>/dev/null
	python3 "$O" show "$TMP/rn" >"$TMP/or"
	raw=$(grep -c ' sys_enter: ' "$TMP/rt")
	named=$(grep -c ' sys_enter_[a-z0-9_]*: ' "$TMP/rt")
	python3 "$KC" totals "$TMP/rt" syscalls >"$TMP/kt"
	"$KTRACE" summary --json --top 100000 "$1" >"$TMP/sj" 2>"$TMP/err" || sed 's/^/#   /' "$TMP/err"
	if [ "$raw" -gt 0 ] && [ "$named" -gt 0 ]; then
		checker python3 "$C" "$2" "$TMP/sj" "$TMP/or" "$TMP/kt" "raw_syscalls and syscalls both traced"
	else
		checker python3 "$C" "$2" "$TMP/sj" "$TMP/or" "$TMP/kt"
	fi
	n=$((n + 4))
}

if ! command -v trace-cmd >/dev/null; then
	skip 4 "summary against trace-cmd report" "trace-cmd is not installed"
	n=4
else
	for t in uneven lost quiet; do
		zstd -q -d -f "$ROOT/tests/data/model/$t.dat.zst" -o "$TMP/$t.dat" || not_ok "unpack $t"
		compare "$TMP/$t.dat" "$t.dat"
	done
	# a pause of 20 s in the demo trace (every CPU's sub-buffers from CPU 0's sixth
	# on start 20 s later): waits of 20 s, against the oracle, and in the text form
	# each latency column apart from the one before it, as --json gives it
	trace-cmd convert --file-version 6 -i "$ROOT/examples/sched_demo.dat" -o "$TMP/demo6.dat" \
		>/dev/null 2>&1 || not_ok "convert the demo to version 6"
	python3 "$ROOT/tests/tracedat/tools/damage.py" v6 "$TMP/demo6.dat" "$TMP/pause.dat" \
		late:0:5:20000000000
	compare "$TMP/pause.dat" "the demo with a pause of 20 s"
	"$KTRACE" summary "$TMP/pause.dat" >"$TMP/pause.txt" 2>&1
	checker python3 - "$TMP/pause.txt" "$TMP/sj" <<'PY'
import json, sys
rows = {}
for r in json.load(open(sys.argv[2]))['inputs'][0]['threads_by_wakeup_latency']['rows']:
    rows['%s %d' % (r['name'], r['tid'])] = r
text = open(sys.argv[1]).read().split('\n\n')
sec = [s for s in text if s.startswith('Threads by wakeup latency')][0].split('\n')[1:]
bad, long_ = [], 0
for line in sec:
    if not line or line.strip().startswith('('):
        continue
    t = line.split()
    r = rows.get(' '.join(t[:-5]))
    us = lambda ns: '%d.%03d' % (ns // 1000, ns % 1000)
    if not r or t[-5:] != [str(r['count'])] + [us(r[k]) for k in ('p50_ns', 'p90_ns', 'p99_ns', 'max_ns')]:
        bad.append(line)
    long_ += r is not None and r['max_ns'] >= 10 ** 10
ok = len(sec) >= 10 and long_ >= 3 and not bad
print('%s - text: latency columns of 20 s apart, as --json gives them (%d rows, %d of 10 s and more)'
      % ('ok' if ok else 'not ok', len(sec), long_))
for b in bad[:3]:
    print('#   ' + b)
PY
	n=$((n + 1))
	for z in "$ROOT"/tests/data/report/*.dat.zst; do
		zstd -q -d -f "$z" -o "$TMP/$(basename "$z" .zst)" || not_ok "unpack $z"
	done
	for f in $(ls "$SHARED"/data/ftrace/*.dat 2>/dev/null) "$TMP"/*.v6.dat; do
		trace-cmd report "$f" >"$TMP/r0" 2>/dev/null
		grep -q ' sched_switch: ' "$TMP/r0" || continue
		grep -q '^[^ ]*: .*\[[0-9][0-9][0-9]\]' "$TMP/r0" && continue   # instances
		compare "$f" "$(basename "$f")"
	done
fi

# events per name, as trace-cmd's lines count them, on every one of 500 runs: the
# summary once keyed a name by a mix of its pointers, and two names whose mixes met
# became one (1 run in 60 to 200 on this trace, by where the heap was)
if command -v trace-cmd >/dev/null; then
	zstd -q -d -f "$ROOT/tests/data/tracedat/all.v6.dat.zst" -o "$TMP/names.dat" || not_ok "unpack"
	trace-cmd report -t "$TMP/names.dat" 2>/dev/null |
		sed -n 's/^ *.*\[[0-9]*\]  *[0-9.]*: \([^ :]*\): .*/\1/p' | sort | uniq -c >"$TMP/names.want"
	i=0
	while [ $i -lt 500 ]; do
		"$KTRACE" summary --json --top 100000 "$TMP/names.dat" >"$TMP/names.$i.json" 2>/dev/null
		i=$((i + 1))
	done
	checker python3 - "$TMP/names.want" "$TMP" <<'PY'
import glob, json, sys
want = {}
for l in open(sys.argv[1]):
    c, name = l.split()
    want[name] = int(c)
bad = []
runs = glob.glob(sys.argv[2] + '/names.*.json')
for f in runs:
    ev = json.load(open(f))['inputs'][0]['events']
    got = {r['name']: r['count'] for r in ev['rows']}
    if got != want or ev['total'] != len(want):
        bad.append((f, ev['total'], sorted(set(got.items()) ^ set(want.items()))[:4]))
ok = len(want) > 100 and len(runs) == 500 and not bad
print('%s - events per name (%d names) equal trace-cmd\'s on each of %d runs'
      % ('ok' if ok else 'not ok', len(want), len(runs)))
for b in bad[:3]:
    print('#   %s: total %d, %s' % b)
PY
	n=$((n + 1))
fi

E="$ROOT/examples/sched_demo.dat"
# the text form: its sections, and the busiest thread with the CPU time sql gives
"$KTRACE" summary "$E" >"$TMP/t" 2>"$TMP/err"
# (a slice still open at the end: up to the trace's end, docs/model.md)
want=$("$KTRACE" sql "$E" "select t.name || ' ' || t.tid, sum(iif(s.dur >= 0, s.dur, tr.end_ts - s.ts))
	from sched_slice s join thread t using (utid) join trace tr
	where t.tid != 0 group by s.utid order by 2 desc limit 1" | tail -1)
who=${want%	*}; ns=${want##*	}
ms=$(printf '%d.%03d' $((ns / 1000000)) $((ns / 1000 % 1000)))
grep -q "^CPU  *known ms" "$TMP/t" && grep -q "^Threads by wakeup latency" "$TMP/t" &&
	grep -q "^IRQ handlers" "$TMP/t" && grep -q "^Events (" "$TMP/t" &&
	sed -n '/^Threads by CPU time/{n;p}' "$TMP/t" | grep -q "^  $who  *$ms " &&
	ok "text: the sections, and the busiest thread ($who, $ms ms) as sql gives it" ||
	{ not_ok "text form"; head -20 "$TMP/t" | sed 's/^/#   /'; }
n=$((n + 1))
# windows: the CPU time of each thread in [from, to) from sched_slice cut to it (a slice
# still open at the end: up to the trace's end), in the middle and at the end
"$KTRACE" sql "$E" "select start_ts, end_ts from trace" | tail -1 >"$TMP/span"
read -r t0 t1 <"$TMP/span"
secs() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
for w in middle end; do
	if [ $w = middle ]; then
		lo=$((t0 + (t1 - t0) / 4)); hi=$((t0 + (t1 - t0) / 2))
	else
		lo=$((t0 + (t1 - t0) * 3 / 4)); hi=$((t1 + 1))
	fi
	"$KTRACE" summary --json --top 100000 --from "$(secs $lo)" --to "$(secs $hi)" "$E" >"$TMP/w.json"
	"$KTRACE" sql "$E" "select t.tid, sum(min(e, $hi) - max(s.ts, $lo)), sum(s.dur < 0) from
		(select *, iif(dur >= 0, ts + dur, (select end_ts from trace)) as e from sched_slice) s
		join thread t using (utid) where t.tid != 0 and s.ts < $hi and e > $lo
		group by t.tid" | tail -n +2 >"$TMP/w.sql"
	checker python3 - "$TMP/w.json" "$TMP/w.sql" $w <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))['inputs'][0]
got = {r['tid']: r['cpu_ns'] for r in s['threads_by_cpu_time']['rows']}
rows = [l.split('\t') for l in open(sys.argv[2]) if l.strip()]
want = {int(a): int(b) for a, b, _ in rows if int(b)}
still = sum(int(c) for _, _, c in rows)
# (the window at the end has the slices still open there: the trace's last one on each CPU)
ok = want and got == want and (sys.argv[3] != 'end' or still > 0)
print('%s - --from/--to (%s): CPU time of %d threads cut to the window, as sched_slice cut to '
      'it gives (%d slices still open at the end)' % ('ok' if ok else 'not ok', sys.argv[3], len(want), still))
if not ok:
    print('#   %s' % sorted(set(got.items()) ^ set(want.items()))[:4])
PY
	n=$((n + 1))
done
# --top bounds every list, and the document stays small
"$KTRACE" summary --json --top 3 "$E" >"$TMP/t3.json"
checker python3 - "$TMP/t3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['inputs'][0]
lists = [v for v in s.values() if isinstance(v, dict) and 'rows' in v]
ok = d['schema'] == 'ktrace-summary/1' and lists and all(len(v['rows']) <= 3 for v in lists) and \
    any(v['total'] > 3 for v in lists)
print('%s - --top 3: %d lists of at most 3 rows (totals up to %d)' % ('ok' if ok else 'not ok', len(lists),
      max(v['total'] for v in lists)))
PY
n=$((n + 1))
# a damaged input: the summary of what could be read, one error line, exit 1
head -c 150000 "$E" >"$TMP/cut.dat"
"$KTRACE" summary "$TMP/cut.dat" >"$TMP/c.out" 2>"$TMP/c.err"; st=$?
[ $st = 1 ] && grep -q '^CPU ' "$TMP/c.out" && [ "$(wc -l <"$TMP/c.err")" -ge 1 ] &&
	grep -q "cut.dat" "$TMP/c.err" && ok "a cut trace.dat: its summary, the error named, exit 1" ||
	{ not_ok "cut input: exit $st"; sed 's/^/#   /' "$TMP/c.err"; }
n=$((n + 1))
"$KTRACE" summary >/dev/null 2>&1; a=$?
"$KTRACE" summary --top 0 "$E" >/dev/null 2>&1; b=$?
"$KTRACE" summary --from 2 --to 1 "$E" >/dev/null 2>&1; c=$?
[ $a = 2 ] && [ $b = 2 ] && [ $c = 2 ] && ok "usage errors exit 2" || not_ok "usage: $a $b $c"
n=$((n + 1))
plan $n
