#!/bin/sh
# ktrace flamegraph (docs/flamegraph.md) on a trace recorded here with `ktrace record -T`
# (tests/data/flamegraph/README.md): the off-CPU weights per thread, state and stack
# against trace-cmd report -t text (tests/flamegraph/oracle.py, written from the docs)
# and per thread and state against ktrace sql's thread_state; the on-CPU counts against
# the report too; the folded lines' shape; the SVG as XML and in Chromium (svg.py);
# filters, grouping, a trace without stacks, damaged input and usage errors.
. "$(dirname "$0")/../lib.sh"
T="$ROOT/tests/flamegraph"
D="$ROOT/tests/data"
NSCRIPT=19
plan $((NSCRIPT + $(python3 "$T/svg.py" --plan)))

zstd -q -d -f "$D/flamegraph/offcpu.dat.zst" -o "$TMP/off.dat"
zstd -q -d -f "$D/model/quiet.dat.zst" -o "$TMP/quiet.dat"
# (one still open at the end: until the trace's end, docs/model.md)
STATES="select t.tid, s.state, sum(iif(s.dur >= 0, s.dur, tr.model_end_ts - s.ts)) from thread_state s
        join thread t using (utid) join trace tr where (s.dur > 0 or (s.dur < 0 and
        substr(s.state, 1, 1) not in ('X', 'Z', 'x'))) and s.state not in ('Running', 'R', 'R+', '?')
        group by t.tid, s.state"

# ---- off-CPU (the default: the switches have stacks) ----
check "off-CPU folded lines of the recorded trace" "$KTRACE" flamegraph "$TMP/off.dat" -o "$TMP/off.folded"
checker python3 "$T/oracle.py" shape "$TMP/off.folded"
"$KTRACE" sql "$TMP/off.dat" "$STATES" >"$TMP/off.sql" 2>"$TMP/sql.err" || cat "$TMP/sql.err"
checker python3 "$T/oracle.py" sql "$TMP/off.sql" "$TMP/off.folded"
if command -v trace-cmd >/dev/null 2>&1 && trace-cmd report -t "$TMP/off.dat" >"$TMP/off.txt" 2>/dev/null; then
	checker python3 "$T/oracle.py" compare "$TMP/off.txt" "$TMP/off.folded"
else
	skip 4 "oracle: off-CPU weights against trace-cmd report -t" "no trace-cmd"
fi

# ---- the SVG ----
check "off-CPU SVG of the recorded trace" "$KTRACE" flamegraph "$TMP/off.dat" -o "$TMP/off.svg"
checker python3 "$T/svg.py" "$TMP/off.svg" "$TMP/off.folded"

# ---- filters and grouping: the full output's lines of those threads ----
dd=$(sed -n 's/^dd-\([0-9]*\);.*/\1/p' "$TMP/off.folded" | head -1)
"$KTRACE" flamegraph --pid "$dd" "$TMP/off.dat" -o "$TMP/pid.folded"
grep "^dd-$dd;" "$TMP/off.folded" >"$TMP/pid.want"
check_same "--pid $dd: that thread's lines alone" "$TMP/pid.want" "$TMP/pid.folded"
"$KTRACE" flamegraph --comm dd,sleep "$TMP/off.dat" -o "$TMP/comm.folded"
grep -E "^(dd|sleep)-[0-9]+;" "$TMP/off.folded" >"$TMP/comm.want"
check_same "--comm dd,sleep: the lines of those threads alone" "$TMP/comm.want" "$TMP/comm.folded"
"$KTRACE" flamegraph --by comm "$TMP/off.dat" -o "$TMP/bycomm.folded"
sumby() { awk '{ n = $NF; sub(/ [0-9]+$/, ""); split($0, f, ";"); r = f[1]; sub(/-[0-9]+$/, "", r); s[r] += n }
	       END { for (r in s) print r, s[r] }' "$1" | sort; }
sumby "$TMP/off.folded" >"$TMP/bycomm.want"
sumby "$TMP/bycomm.folded" | sed 's/^\([^ ]*\) /\1 /' >"$TMP/bycomm.got0"
awk '{ n = $NF; sub(/ [0-9]+$/, ""); split($0, f, ";"); s[f[1]] += n } END { for (r in s) print r, s[r] }' \
	"$TMP/bycomm.folded" | sort >"$TMP/bycomm.got"
check_same "--by comm: each name weighs what its threads do" "$TMP/bycomm.want" "$TMP/bycomm.got"
"$KTRACE" flamegraph --by process "$TMP/off.dat" -o "$TMP/byproc.folded"
a=$(awk '{ s += $NF } END { print s }' "$TMP/off.folded")
b=$(awk '{ s += $NF } END { print s }' "$TMP/byproc.folded")
check "--by process: the same total weight ($a ns)" test "$a" = "$b" -a -n "$a"

# ---- on-CPU ----
check "on-CPU folded lines" "$KTRACE" flamegraph --on-cpu "$TMP/off.dat" -o "$TMP/on.folded"
if [ -s "$TMP/off.txt" ]; then
	checker python3 "$T/oracle.py" oncpu "$TMP/off.txt" "$TMP/on.folded"
else
	skip 1 "on-CPU: stacks per thread and event against trace-cmd report" "no trace-cmd"
fi

# ---- a trace without stacks: --off-cpu weighs every interval under [no stack] ----
"$KTRACE" flamegraph --off-cpu "$TMP/quiet.dat" -o "$TMP/quiet.folded"
check "no stacks: every line under [no stack]" \
	sh -c "test -s '$TMP/quiet.folded' && ! grep -v '^[^;]*;\[[^]]*\];\[no stack\] [0-9]*$' '$TMP/quiet.folded'"
"$KTRACE" sql "$TMP/quiet.dat" "$STATES" >"$TMP/quiet.sql" 2>/dev/null
checker python3 "$T/oracle.py" sql "$TMP/quiet.sql" "$TMP/quiet.folded"
echo keep >"$TMP/kept.svg"
"$KTRACE" flamegraph "$TMP/quiet.dat" -o "$TMP/kept.svg" 2>"$TMP/nostack.err"
st=$?
check "no stacks, no mode asked: exit 1 naming -T, OUT left as it was" \
	sh -c "test $st = 1 && grep -q 'no kernel stacks.*-T' '$TMP/nostack.err' && test \"\$(cat '$TMP/kept.svg')\" = keep"

# ---- damaged input: what was read is written, exit 1 ----
size=$(wc -c <"$TMP/off.dat")
head -c $((size - 20000)) "$TMP/off.dat" >"$TMP/cut.dat"
"$KTRACE" flamegraph "$TMP/cut.dat" -o "$TMP/cut.folded" 2>"$TMP/cut.err"
st=$?
check "a truncated input: exit 1, errors naming it, folded lines of what was read" \
	sh -c "test $st = 1 && grep -q '^ktrace: .*cut.dat: ' '$TMP/cut.err' && test -s '$TMP/cut.folded'"

# ---- usage ----
"$KTRACE" flamegraph "$TMP/off.dat" 2>/dev/null; s1=$?
"$KTRACE" flamegraph --off-cpu --on-cpu "$TMP/off.dat" -o "$TMP/x.folded" 2>/dev/null; s2=$?
"$KTRACE" flamegraph --by foo "$TMP/off.dat" -o "$TMP/x.folded" 2>/dev/null; s3=$?
check "usage errors exit 2 (no -o; --off-cpu with --on-cpu; --by foo)" test "$s1$s2$s3" = 222
