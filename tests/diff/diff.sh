# ktrace diff on recordings of a known workload (tests/data/diff, record.sh there): two
# runs of a baseline and one with a known change (a hog on the latency-sensitive
# thread's CPU, the background task's work doubled). The changed figures must be
# significant with the sign and size computed independently from `trace-cmd report`
# text (tests/model/oracle.py, docs/model.md's rules; diffcheck.py); the two baseline
# runs must show no significant change of the workload's threads; --fail-on must exit 3
# or 0 as the rules say; one trace as v7 and as v6 must diff as no change at all; then
# several runs a side, the text form, a damaged input and usage errors.
. "$(dirname "$0")/../lib.sh"
D="$ROOT/tests/data/diff"
C="$ROOT/tests/diff/diffcheck.py"
O="$ROOT/tests/model/oracle.py"
plan 25
for t in base1 base2 changed; do
	zstd -q -d -f "$D/$t.dat.zst" -o "$TMP/$t.dat" || not_ok "unpack $t"
done

# the known change, against the oracle
"$KTRACE" diff --json "$TMP/base1.dat" "$TMP/changed.dat" >"$TMP/c.json" 2>"$TMP/err"
check "diff --json base1 changed exits 0" [ $? -eq 0 ]
if ! command -v trace-cmd >/dev/null; then
	skip 4 "changes against trace-cmd report" "trace-cmd is not installed"
else
	for t in base1 changed; do
		trace-cmd report -N -t "$TMP/$t.dat" >"$TMP/$t.rep" 2>/dev/null
		python3 "$O" show "$TMP/$t.rep" >"$TMP/$t.orc"
	done
	checker python3 "$C" change "base1 -> changed" "$TMP/c.json" "$TMP/base1.rep" "$TMP/base1.orc" \
		"$TMP/changed.rep" "$TMP/changed.orc" latloop wakeup_latency.p50 wakeup_latency.p90 \
		wakeup_latency.p99
	checker python3 "$C" change "base1 -> changed" "$TMP/c.json" "$TMP/base1.rep" "$TMP/base1.orc" \
		"$TMP/changed.rep" "$TMP/changed.orc" bgwork cpu_time
fi
# the hog: new, never significant (one side only)
python3 - "$TMP/c.json" <<'PY' && ok "the hog is new (cpu_time of process hog, not significant)" || not_ok "the hog is new"
import json, sys
r = [r for r in json.load(open(sys.argv[1]))['rows'] if r['metric'] == 'cpu_time' and r['entity'] == 'hog']
sys.exit(0 if len(r) == 1 and r[0]['status'] == 'new' and r[0]['base'] is None and r[0]['new'] > 5e8
         and not r[0]['significant'] else 1)
PY

# two runs of the same workload: nothing significant for its threads
# the order: significant rows first; of those, a rate whose base is under 1% of the
# largest value its metric takes (either side, any entity) comes after the others;
# the others by |change|, those by |new - base| over that largest value
python3 - "$TMP/c.json" <<'PY' && ok "rows ranked: faint bases after the others, workload threads first" || not_ok "rows ranked"
import json, sys
rows = json.load(open(sys.argv[1]))['rows']
rate = ('ns/s', '1/s')
most = {}
for r in rows:
    for v in (r['base'], r['new']):
        if v is not None:
            most[r['metric']] = max(most.get(r['metric'], 0), v)
def key(r):
    both = r['base'] is not None and r['new'] is not None
    faint = both and r['unit'] in rate and r['metric'] not in ('complete',) and \
        most[r['metric']] > 0 and r['base'] < 0.01 * most[r['metric']]
    if faint:
        eff = abs(r['new'] - r['base']) / most[r['metric']]
    else:
        eff = float('inf') if r['change'] is None else abs(r['change'])
    return (not r['significant'], not both, faint, -eff)
sig = [r for r in rows if r['significant']]
keys = [key(r) for r in sig]
assert all(keys[i][:3] <= keys[i + 1][:3] for i in range(len(keys) - 1)), 'tiers out of order'
for i in range(len(keys) - 1):
    if keys[i][:3] == keys[i + 1][:3]:
        assert keys[i][3] <= keys[i + 1][3] + 1e-9, (sig[i], sig[i + 1])
top = [r['entity'] for r in sig[:2]]
assert all(e.split('/')[0] in ('latloop', 'bgwork') for e in top), top
assert any(key(r)[2] for r in sig), 'no faint row to rank'
PY
"$KTRACE" diff --json "$TMP/base1.dat" "$TMP/base2.dat" >"$TMP/s.json"
checker python3 "$C" quiet "base1 -> base2" "$TMP/s.json" latloop bgwork

# --fail-on
fail_on() {   # want, files, rules...
	want=$1 a=$2 b=$3
	shift 3
	rules=" $*"
	"$KTRACE" diff "$@" "$TMP/$a.dat" "$TMP/$b.dat" >"$TMP/f.out" 2>"$TMP/f.err"
	st=$?
	check "${rules#* }, $a -> $b: exit $want" [ "$st" -eq "$want" ]
}
fail_on 3 base1 changed --fail-on 'wakeup_latency.p99>20%'
fail_on 3 base1 changed --fail-on 'cpu_time:bgwork>10%'
fail_on 0 base1 changed --fail-on 'cpu_time:bgwork>50%'
fail_on 0 base1 changed --fail-on 'cpu_time:bgwork<-10%'
fail_on 3 base1 changed --fail-on 'wakeup_latency.*:latloop/*<-20%'
fail_on 0 base1 base2 --fail-on 'wakeup_latency.p99:latloop/*>20%' --fail-on 'cpu_time:bgwork>10%'
grep -q "^--fail-on 'cpu_time:bgwork>10%': passed" "$TMP/f.out" &&
	ok "the text names each rule and its outcome" || not_ok "the text names each rule and its outcome"

# the same trace as v7 and v6
"$KTRACE" convert -q --file-version 6 --compression none -i "$TMP/base1.dat" -o "$TMP/base1.v6.dat"
"$KTRACE" diff --json "$TMP/base1.dat" "$TMP/base1.v6.dat" >"$TMP/v.json"
checker python3 "$C" same "base1 v7 -> v6" "$TMP/v.json"
# and on traces recorded elsewhere, written by trace-cmd as v6 and v7 (../shared/data)
for t in schedviz_cpu0 trappy_tests_trace; do
	"$KTRACE" diff --json "$SHARED/data/ftrace/$t.v6.dat" "$SHARED/data/ftrace/$t.v7zstd.dat" >"$TMP/v.json"
	checker python3 "$C" same "$t v6 -> v7zstd" "$TMP/v.json"
done

# recordings from elsewhere, one without a context switch (trace-cmd's text has no
# sched_switch line), one with: what the first cannot compute is not compared (no
# "from 0" rows), and the JSON says why
S1="$SHARED/data/ftrace/trappy_tests_trace.v6.dat" S2="$SHARED/data/ftrace/trappy_tests_raw_trace.v7zstd.dat"
"$KTRACE" diff --json "$S1" "$S2" >"$TMP/n.json"
if ! command -v trace-cmd >/dev/null; then
	skip 1 "a side without context switches" "trace-cmd is not installed"
else
	b=$(trace-cmd report "$S1" 2>/dev/null | grep -c 'sched_switch:')
	n=$(trace-cmd report "$S2" 2>/dev/null | grep -c 'sched_switch:')
	python3 - "$TMP/n.json" "$b" "$n" <<'PY' && ok "no switch in base ($b vs $n): CPU and thread figures not compared" || not_ok "a side without context switches"
import json, sys
d = json.load(open(sys.argv[1]))
assert int(sys.argv[2]) == 0 and int(sys.argv[3]) > 0, sys.argv[2:]
cpu = ('cpu_time', 'cpu_busy', 'runnable_time', 'sleeping_time', 'blocked_time', 'wakeups')
assert not [r for r in d['rows'] if r['metric'] in cpu or r['metric'].startswith('wakeup_latency')], d['rows']
assert any('no context switch' in w for w in d['base']['not_computed']), d['base']
assert not any('no context switch' in w for w in d['new']['not_computed']), d['new']
assert any(r['metric'] == 'event_rate' for r in d['rows'])
PY
fi

# several runs a side: the change still significant, with its sign
"$KTRACE" diff --json --base "$TMP/base1.dat" --base "$TMP/base2.dat" --new "$TMP/changed.dat" \
	--new "$TMP/base1.v6.dat" >"$TMP/m.json"
python3 - "$TMP/m.json" <<'PY' && ok "2 runs a side: latloop's p90 up, significant; 120 base windows" || not_ok "2 runs a side"
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d['rows'] if r['metric'] == 'wakeup_latency.p90' and r['entity'] == 'latloop/latloop']
sys.exit(0 if len(d['base']['files']) == 2 and d['base']['windows'] == sum(f['windows'] for f in d['base']['files'])
         and len(r) == 1 and r[0]['significant'] and r[0]['change'] > 100 else 1)
PY

# the text form: the biggest significant changes first, each at most 100 columns
"$KTRACE" diff --top 5 "$TMP/base1.dat" "$TMP/changed.dat" >"$TMP/t.txt"
sed -n '/^metric /,/^$/p' "$TMP/t.txt" >"$TMP/t.rows"
check "text: a header, at most 5 rows, changes in falling size" python3 - "$TMP/t.rows" <<'PY'
import sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l and not l.startswith(('metric', '('))]
def size(l):
    c = l.split()[-2]
    return float('inf') if c == 'from' or c == '0' else abs(float(c.rstrip('%')))
sys.exit(0 if 0 < len(lines) <= 5 and [size(l) for l in lines] == sorted((size(l) for l in lines), reverse=True) else 1)
PY
check "text: lines of at most 100 columns" [ "$(awk 'length > 100' "$TMP/t.txt" | wc -l)" -eq 0 ]
"$KTRACE" diff --all "$TMP/base1.dat" "$TMP/changed.dat" >"$TMP/all.txt"
check "--all: every row of the JSON" [ "$(grep -c ' ' "$TMP/all.txt")" -gt \
	"$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['rows']))" "$TMP/c.json")" ]

# a damaged input: the diff of what could be read, the error named, exit 1
head -c 300000 "$TMP/base2.dat" >"$TMP/cut.dat"
"$KTRACE" diff "$TMP/base1.dat" "$TMP/cut.dat" >"$TMP/d.out" 2>"$TMP/d.err"
st=$?
check "a cut input: exit 1, its name in the error" [ "$st" -eq 1 ] && grep -q "cut.dat" "$TMP/d.err"

# usage errors exit 2
bad=0
for args in "$TMP/base1.dat" "--base $TMP/base1.dat" "--fail-on nosuch>10% $TMP/base1.dat $TMP/base2.dat" \
	"--fail-on cpu_time:x=10 $TMP/base1.dat $TMP/base2.dat" "--min-change x $TMP/base1.dat $TMP/base2.dat" \
	"--alpha 2 $TMP/base1.dat $TMP/base2.dat" "--base $TMP/base1.dat --new $TMP/base2.dat $TMP/base1.dat"; do
	# shellcheck disable=SC2086
	"$KTRACE" diff $args >/dev/null 2>&1
	st=$?
	[ "$st" -eq 2 ] || { bad=1; echo "#   ktrace diff $args: exit $st"; }
done
check "usage errors exit 2" [ "$bad" -eq 0 ]
