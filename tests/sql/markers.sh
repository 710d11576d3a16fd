# trace_marker slices and counters: a trace recorded here (ktrace record, on the live
# kernel, when the machine allows tracing) with "B|pid|name", "E|pid" and
# "C|pid|name|value" lines written to trace_marker; the slice and counter tables must
# equal what the print lines of trace-cmd report -t say.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing
CHECKS="trace_marker slices as the print lines say
trace_marker counters as the print lines say"
# one result a line of CHECKS
plan "$(echo "$CHECKS" | wc -l)"

skip_all() {
	echo "$CHECKS" | while read -r c; do echo "ok - $c # SKIP $1"; done
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "not root"
if [ ! -e $T/tracing_on ]; then
	grep -q tracefs /proc/filesystems || skip_all "no tracefs in this kernel"
fi
command -v trace-cmd >/dev/null || skip_all "trace-cmd is not installed"
tracefs_lock

if ! "$KTRACE" record -e sched:sched_switch -o "$TMP/m.dat" -- sh -c '
	m=/sys/kernel/tracing/trace_marker
	[ -w $m ] || exit 3
	for i in 1 2 3 4; do
		echo "B|$$|outer $i" >$m
		echo "C|$$|queue|$i" >$m
		echo "B|$$|inner" >$m
		sleep 0.01
		echo "E|$$" >$m
		echo "C|$$|queue|$((i * 10)).5" >$m
		echo "E|$$" >$m
	done' >"$TMP/rec.log" 2>&1; then
	skip_all "ktrace record could not record here ($(tail -1 "$TMP/rec.log"))"
fi

trace-cmd report -t "$TMP/m.dat" 2>/dev/null | grep ' print: ' >"$TMP/prints"
checker python3 - "$TMP/prints" "$KTRACE" "$TMP/m.dat" <<'EOF'
import re, subprocess, sys
stack, slices, counters = [], [], []
for line in open(sys.argv[1]):
    m = re.search(r'(\d+)\.(\d+): print: +\S+: ([BEC])\|(\d+)(?:\|(.*))?$', line.rstrip('\n'))
    if not m:
        continue
    ts = int(m.group(1)) * 10**9 + int(m.group(2))
    kind, rest = m.group(3), m.group(5)
    if kind == 'B':
        stack.append((ts, rest, len(stack)))
    elif kind == 'E' and stack:
        t0, name, depth = stack.pop()
        slices.append((t0, ts - t0, name, depth))
    elif kind == 'C':
        name, value = rest.rsplit('|', 1)
        counters.append((ts, name, float(value)))
def sql(q):
    out = subprocess.run([sys.argv[2], 'sql', sys.argv[3], q], capture_output=True, text=True).stdout
    return [l.split('\t') for l in out.split('\n')[1:] if l]
ours = sorted((int(a), int(b), c, int(d)) for a, b, c, d in
              sql("select ts, dur, name, depth from slice where category = 'trace_marker'"))
slices.sort()
if len(slices) == 8 and ours == slices:
    print('ok - trace_marker slices as the print lines say (8, nested two deep)')
else:
    print('not ok - trace_marker slices: %s against %s' % (ours[:3], slices[:3]))
cours = sorted((int(a), b, float(c)) for a, b, c in
               sql("select c.ts, t.name, c.value from counter c join counter_track t on t.id = c.track_id"))
if len(counters) == 8 and cours == sorted(counters):
    print('ok - trace_marker counters as the print lines say (8 values)')
else:
    print('not ok - trace_marker counters: %s against %s' % (cours[:3], counters[:3]))
EOF
