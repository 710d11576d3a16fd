# The model's rules (docs/model.md) on a small trace worked through by hand:
# ../shared/data/ftrace/synthetic_edge.v6.dat has one CPU, four switches, lost events
# after 10.000000507 s (42 of them, before the record at 11 s) and after 11 s (before
# the record at 12.000000003 s). Expected rows, from the report lines and the rules:
#  - 100 sleeps (S) from its switch out at 1.000001 s to its switch in at 10.0000005 s,
#    runs 7 ns, leaves in S at 10.000000507 s: the gap starts there, so it is ? to the
#    end (rule 4);
#  - 200 runs 5 s (a switch begins it), then S until the gap, then ?;
#  - 300 runs until 10.0000005 s, S for 7 ns, then ?;
#  - 400 is switched in where the gap starts: a Running slice of 0 ns (a switch begins
#    it: kept) with no end state, then ?;
#  - 500's record at 11 s is the first after the gap: it runs there (0 ns, evidence:
#    left out) and switches out in S, but the second gap starts at 11 s, so ? until its
#    switch in at 12.000000003 s, then Running, still open;
#  - 600 is switched in at 11 s where the second gap starts (0 ns slice), ? until its
#    record at 12.000000003 s, which switches it out: S, still open.
# No wakeups: no latency.
# Then the IRQ, softirq and syscall rows of slice of five recorded traces against the
# same intervals paired from `trace-cmd report -t` text alone (tests/engine/kernelcmp.py).
. "$(dirname "$0")/../lib.sh"
plan 8
F="$SHARED/data/ftrace/synthetic_edge.v6.dat"
command -v trace-cmd >/dev/null && [ -f "$F" ] || { skip 8 "model rules" "no trace-cmd or no $F"; exit 0; }
"$KTRACE" sql "$F" "select t.tid, s.ts, s.dur, coalesce(s.cpu, ''), s.state
	from thread_state s join thread t using (utid) order by t.tid, s.ts" | tail -n +2 >"$TMP/got"
cat >"$TMP/want" <<'ROWS'
100	1000001000	8999999500	0	S
100	10000000500	7	0	Running
100	10000000507	-1		?
200	1000001000	5000000000	0	Running
200	6000001000	3999999507	0	S
200	10000000507	-1		?
300	6000001000	3999999500	0	Running
300	10000000500	7	0	S
300	10000000507	-1		?
400	10000000507	0	0	Running
400	10000000507	-1		?
500	11000000000	1000000003		?
500	12000000003	-1	0	Running
600	11000000000	0	0	Running
600	11000000000	1000000003		?
600	12000000003	-1	0	S
ROWS
check_same "thread_state of synthetic_edge as worked out by hand" "$TMP/want" "$TMP/got"
"$KTRACE" sql "$F" "select t.tid, s.ts, s.dur, coalesce(s.end_state, 'NULL')
	from sched_slice s join thread t using (utid) order by s.ts, t.tid" | tail -n +2 >"$TMP/got"
cat >"$TMP/want" <<'ROWS'
200	1000001000	5000000000	S
300	6000001000	3999999500	S
100	10000000500	7	S
400	10000000507	0	NULL
600	11000000000	0	NULL
500	12000000003	-1	NULL
ROWS
check_same "sched_slice of synthetic_edge: slices into a gap end there, end state unknown" "$TMP/want" "$TMP/got"
n=$("$KTRACE" sql "$F" "select count(*) from wakeup_latency" | tail -1)
[ "$n" = 0 ] && ok "no wakeups, no latencies" || not_ok "wakeup_latency has $n rows"

for z in all allevents mixed boot kmem; do
	zstd -q -d -f "$ROOT/tests/data/report/$z.v6.dat.zst" -o "$TMP/$z.dat" 2>/dev/null ||
		zstd -q -d -f "$ROOT/tests/data/tracedat/$z.v6.dat.zst" -o "$TMP/$z.dat" || not_ok "unpack $z"
	trace-cmd report -t "$TMP/$z.dat" >"$TMP/r" 2>/dev/null
	"$KTRACE" sql "$TMP/$z.dat" "select category, name, ts, dur, coalesce(cpu, -1) from slice
		where category in ('irq', 'softirq', 'syscall')" >"$TMP/s"
	# (all and allevents trace raw_syscalls too: their syscalls are not compared)
	case $z in all|allevents) set -- ;; *) set -- syscalls ;; esac
	python3 "$ROOT/tests/engine/kernelcmp.py" "$TMP/r" "$TMP/s" "$@" | sed "s/^\(not \)\{0,1\}ok - /&$z: /"
done
