# Every figure of ktrace summary --json equals what ktrace sql gives for the same
# question: its views (docs/sql.md) cpu_usage_by_cpu, cpu_time_by_thread,
# cpu_time_by_process, wakeup_latency_by_thread (quantiles within the summary's 0.4%
# histogram, counts and max exact), wait_time_by_thread, irq_by_handler,
# softirq_by_vector, syscall_by_name, syscall_by_process and event_count_by_name, on
# recorded traces (tests/data/model), the demo trace and a Darwin capture; and the
# views are in a database export --format sqlite writes.
. "$(dirname "$0")/../lib.sh"
plan 5
for t in lost uneven; do
	zstd -q -d -f "$ROOT/tests/data/model/$t.dat.zst" -o "$TMP/$t.dat" || not_ok "unpack $t"
done
cmp_views() {   # file
	f=$1
	"$KTRACE" summary --json --top 100000 "$f" >"$TMP/s.json"
	for v in cpu_usage_by_cpu cpu_time_by_thread cpu_time_by_process wakeup_latency_by_thread \
		 wait_time_by_thread irq_by_handler softirq_by_vector syscall_by_name syscall_by_process \
		 event_count_by_name; do
		"$KTRACE" sql --json "$f" "select * from $v" >"$TMP/$v.json" || echo "# $v failed"
	done
	checker python3 - "$TMP" "$(basename "$f")" <<'PY'
import json, os, sys
d, name = sys.argv[1], sys.argv[2]
s = json.load(open(os.path.join(d, 's.json')))['inputs'][0]
def view(v):
    return json.load(open(os.path.join(d, v + '.json')))
def rows(k):
    return s[k]['rows']
bad = []
def same(what, a, b):
    if a != b:
        x = sorted(set(a.items()) ^ set(b.items()))[:3] if isinstance(a, dict) else (a, b)
        bad.append('%s: %s' % (what, x))
same('cpu', {r['cpu']: (r['busy_ns'], r['idle_ns'], r['irq_ns'], r['irq_count'], r['softirq_ns'],
                        r['softirq_count']) for r in s['cpu'] if r['busy_ns'] or r['idle_ns'] or r['irq_ns'] or r['softirq_ns']},
     {r['cpu']: (r['busy_ns'], r['idle_ns'], r['irq_ns'], r['irq_count'], r['softirq_ns'], r['softirq_count'])
      for r in view('cpu_usage_by_cpu')})
same('cpu time by thread', {r['tid']: (r['cpu_ns'], r['slices']) for r in rows('threads_by_cpu_time')},
     {r['tid']: (r['cpu_ns'], r['slices']) for r in view('cpu_time_by_thread') if r['cpu_ns']})
same('cpu time by process', {r['pid']: r['cpu_ns'] for r in rows('processes_by_cpu_time')},
     {r['pid']: r['cpu_ns'] for r in view('cpu_time_by_process') if r['cpu_ns']})
lat = {r['tid']: r for r in view('wakeup_latency_by_thread')}
ours = {r['tid']: r for r in rows('threads_by_wakeup_latency')}
same('latency threads', sorted(ours), sorted(lat))
for t, r in ours.items():
    v = lat.get(t)
    if not v or (r['count'], r['max_ns']) != (v['count'], v['max_ns']) or \
       any(abs(r[k] - v[k]) > 0.004 * v[k] for k in ('p50_ns', 'p90_ns', 'p99_ns')):
        bad.append('latency of %d: summary %s, sql %s' % (t, r, v))
        break
waits = {r['tid']: (r['runnable_ns'], r['sleeping_ns'], r['blocked_ns']) for r in view('wait_time_by_thread')}
for k in ('threads_by_runnable_time', 'threads_by_sleeping_time', 'threads_by_blocked_time'):
    same(k, {r['tid']: (r['runnable_ns'], r['sleeping_ns'], r['blocked_ns']) for r in rows(k)},
         {t: w for t, w in waits.items() if t in {r['tid'] for r in rows(k)}})
for k, v in (('irq_handlers', 'irq_by_handler'), ('softirq_vectors', 'softirq_by_vector'),
             ('syscalls', 'syscall_by_name')):
    same(k, {r['name']: (r['count'], r['ns']) for r in rows(k)},
         {r['name']: (r['count'], r['ns']) for r in view(v)})
same('syscalls by process', {r['pid']: (r['count'], r['ns']) for r in rows('syscalls_by_process')},
     {r['pid']: (r['count'], r['ns']) for r in view('syscall_by_process')})
same('events', {(r['system'], r['name']): r['count'] for r in rows('events')},
     {(r['subsystem'], r['name']): r['count'] for r in view('event_count_by_name')})
n = len(rows('threads_by_cpu_time')) + len(ours) + len(rows('events'))
print('%s - %s: every figure of summary --json as the sql views give it (%d rows compared)'
      % ('not ok' if bad or not n else 'ok', name, n))
for b in bad[:5]:
    print('#   ' + b)
PY
}
cmp_views "$TMP/lost.dat"
cmp_views "$TMP/uneven.dat"
cmp_views "$ROOT/examples/sched_demo.dat"
cmp_views "$ROOT/examples/coreprofilesessiontap.bin"
# the views in an exported database, read by sqlite3 itself
rm -f "$TMP/x.db"
"$KTRACE" export --format sqlite -o "$TMP/x.db" "$TMP/lost.dat" &&
	a=$(sqlite3 "$TMP/x.db" "select count(*), sum(cpu_ns) from cpu_time_by_thread") &&
	b=$("$KTRACE" sql "$TMP/lost.dat" "select count(*), sum(cpu_ns) from cpu_time_by_thread" | tail -1 | tr '\t' '|') &&
	[ -n "$a" ] && [ "$a" = "$b" ] && ok "export --format sqlite: the views, read by sqlite3 ($a)" ||
	not_ok "views in the exported database: '$a' against '$b'"
