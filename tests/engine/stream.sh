# The event stream (<ktrace/stream.h>) through examples/stream_dump, for every format:
# - trace.dat: every record's line equals trace-cmd report's (shared and recorded traces,
#   v6/v7/zstd, instances, lost events, several files, a -F filter), and every field
#   value equals what trace-cmd report -R prints for it (tests/engine/fieldcmp.py);
# - raw pages: with the events directory, the texts equal those of the same data as
#   trace.dat; without it, the records equal ktrace report's page listing;
# - Darwin: the shared V2 sample's 15552 events equal ktrace report --csv, 1606 threads;
# - KOFF: the records of a buffer equal ktrace dump's lines;
# - damage: a truncated file gives the records before the damage, then the error with
#   the file and offset, exit 1.
. "$(dirname "$0")/../lib.sh"
SD="$ROOT/$B/examples/stream_dump"
FT="$SHARED/data/ftrace"
E="$ROOT/tests/engine"
# one check a trace.dat (the shared ones, the recorded ones, unknown_events), then 44
ndat=$(($(ls "$FT"/*.dat | wc -l) + $(ls "$ROOT"/tests/data/report/*.zst "$ROOT"/tests/data/tracedat/*.zst | wc -l) + 1))
plan $((ndat + 44))

command -v trace-cmd >/dev/null || { skip $((ndat + 44)) "stream against trace-cmd" "trace-cmd is not installed"; exit 0; }

# trace-cmd report without its "cpus=N" lines is what the stream's lines must be
lines_same() {   # name, files...
	name=$1; shift
	"$SD" "$@" >"$TMP/ours" 2>"$TMP/ours.err"
	st=$?
	args=""
	for f in "$@"; do args="$args -i $f"; done
	trace-cmd report $args 2>/dev/null | grep -Ev '^ *([^ ]+: )?cpus=[0-9]+$' >"$TMP/theirs"
	if [ $st -eq 0 ] && [ -s "$TMP/theirs" ] && cmp -s "$TMP/ours" "$TMP/theirs"; then
		ok "lines: $name ($(wc -l <"$TMP/theirs") lines)"
	else
		not_ok "lines: $name"; diff "$TMP/ours" "$TMP/theirs" | head -5 | sed 's/^/#   /'
		sed 's/^/#   /' "$TMP/ours.err" | head -3
	fi
}

fields_same() {   # file
	"$SD" --fields "$1" >"$TMP/of" 2>/dev/null
	trace-cmd report -R -t "$1" >"$TMP/tf" 2>/dev/null
	python3 "$E/fieldcmp.py" "$TMP/of" "$TMP/tf" >"$TMP/fc" 2>&1
	fst=$?
	sed "s|t\?f: | $(basename "$1"): |; s|- tf:|- $(basename "$1"):|" "$TMP/fc" | grep -v '^ok - ' | grep -v '^not ok - '
	# the checker's one verdict, and its exit status: one that died has no verdict
	if [ $fst -eq 0 ] && grep -q '^ok - ' "$TMP/fc"; then
		grep '^ok - ' "$TMP/fc" | sed "s|- tf:|- $(basename "$1"):|"
	else
		not_ok "fields: $(basename "$1") (fieldcmp.py exit $fst)"
		grep -v '^#' "$TMP/fc" | tail -3 | sed 's/^/#   /'
	fi
}

for f in "$FT"/*.dat; do
	lines_same "$(basename "$f")" "$f"
done
for z in "$ROOT"/tests/data/report/*.zst "$ROOT"/tests/data/tracedat/*.zst; do
	f="$TMP/$(basename "$z" .zst)"
	zstd -q -d -f "$z" -o "$f" || not_ok "unpack $z"
done
cp "$ROOT/tests/data/report/unknown_events.v7.dat" "$TMP/"
for f in "$TMP"/*.dat; do
	lines_same "$(basename "$f")" "$f"
done
lines_same "two files" "$TMP/mixed.v6.dat" "$TMP/kmem.v6.dat"
for f in "$TMP"/all.v6.dat "$TMP"/allevents.v6.dat "$TMP"/stacks.v6.dat "$TMP"/kmem.v6.dat \
	 "$TMP"/boot.v6.dat "$TMP"/instance.v6.dat "$TMP"/subbuf8k.v6.dat "$FT"/trappy_tests_trace.v6.dat; do
	fields_same "$f"
done

# a filter: the stream applies it as trace-cmd report -F does
"$SD" -F 'sched_switch: prev_pid > 100 && next_comm =~ "kworker.*"' -F 'irq' "$TMP/allevents.v6.dat" >"$TMP/fo"
trace-cmd report -F 'sched_switch: prev_pid > 100 && next_comm =~ "kworker.*"' -F 'irq' \
	"$TMP/allevents.v6.dat" 2>/dev/null | grep -v '^ *cpus=' >"$TMP/ft"
if [ -s "$TMP/ft" ] && cmp -s "$TMP/fo" "$TMP/ft"; then ok "filters as trace-cmd -F ($(wc -l <"$TMP/ft") lines)"
else not_ok "filters as trace-cmd -F"; diff "$TMP/fo" "$TMP/ft" | head -5 | sed 's/^/#   /'; fi
"$SD" -F 'sched_switch: (((' "$TMP/mixed.v6.dat" >"$TMP/bf" 2>&1
[ $? -eq 1 ] && grep -q 'failed to create event filter' "$TMP/bf" && ok "a bad filter is refused with libtraceevent's message" ||
	{ not_ok "a bad filter is refused"; cat "$TMP/bf" | head -3; }

# --cpu
"$SD" --cpu 1 "$TMP/mixed.v6.dat" >"$TMP/co"
trace-cmd report --cpu 1 "$TMP/mixed.v6.dat" 2>/dev/null | grep -v '^ *cpus=' >"$TMP/ct"
cmp -s "$TMP/co" "$TMP/ct" && [ -s "$TMP/ct" ] && ok "--cpu as trace-cmd --cpu" || not_ok "--cpu as trace-cmd --cpu"

# metadata and tasks
"$SD" --sources "$TMP/allevents.v6.dat" >"$TMP/src"
rel=$(trace-cmd report --uname "$TMP/allevents.v6.dat" 2>/dev/null | sed -n 2p | awk '{print $3}')
grep -q "sysname=Linux release=$rel machine=x86_64 clock=local cpus=2 buffers=1" "$TMP/src" && ok "sources: uname, clock, CPUs ($rel)" ||
	{ not_ok "sources: uname, clock, CPUs"; cat "$TMP/src"; }
"$SD" --tasks "$TMP/allevents.v6.dat" | sort >"$TMP/tasks"
trace-cmd dump --cmd-lines "$TMP/allevents.v6.dat" 2>/dev/null | grep -E '^[0-9]+ ' | sort >"$TMP/cmd"
sed 's/^\([0-9]*\) -\{0,1\}[0-9]* /\1 /' "$TMP/tasks" | sort >"$TMP/tasks2"
[ -s "$TMP/cmd" ] && cmp -s "$TMP/tasks2" "$TMP/cmd" && ok "tasks: the saved cmdlines ($(wc -l <"$TMP/cmd"))" ||
	{ not_ok "tasks: the saved cmdlines"; diff "$TMP/tasks2" "$TMP/cmd" | head -3 | sed 's/^/#   /'; }

# raw pages: with the formats, the same texts as the same data in a trace.dat
"$SD" --text -e "$FT/schedviz_formats" "$FT/schedviz_cpu0.trace_pipe_raw" >"$TMP/rt"
"$SD" --text "$FT/schedviz_cpu0.v6.dat" >"$TMP/dt"
cmp -s "$TMP/rt" "$TMP/dt" && [ -s "$TMP/dt" ] && ok "raw pages with formats: texts as the trace.dat's ($(wc -l <"$TMP/dt"))" ||
	{ not_ok "raw pages with formats"; diff "$TMP/rt" "$TMP/dt" | head -5 | sed 's/^/#   /'; }
"$SD" --fields -e "$FT/schedviz_formats" "$FT/schedviz_cpu0.trace_pipe_raw" | cut -d' ' -f2,3 >"$TMP/rts"
"$SD" --fields "$FT/schedviz_cpu0.v6.dat" | cut -d' ' -f2,3 >"$TMP/dts"
[ -s "$TMP/dts" ] && cmp -s "$TMP/rts" "$TMP/dts" && ok "raw pages: timestamps and CPU (from the path) as the trace.dat's" ||
	not_ok "raw pages: timestamps and CPU as the trace.dat's"
# without formats: the page listing of ktrace report (timestamps and event ids)
for f in "$FT/synthetic_edge_cpu0.trace_pipe_raw" "$FT/schedviz_cpu0.trace_pipe_raw"; do
	"$SD" --fields "$f" | awk '$1 == "E" {split($7, a, ":"); print $2, $8}' >"$TMP/ro"
	"$KTRACE" report "$f" | awk '$1 ~ /^0x/ {print $2, $4}' >"$TMP/rk"
	"$SD" --fields "$f" | awk '$1 == "E"' | sed 's/.*ftrace:id \([0-9]*\).*/\1/' >"$TMP/ids"
	"$SD" --fields "$f" | awk '$1 == "E" {print $2}' | paste -d' ' - "$TMP/ids" >"$TMP/ro"
	cmp -s "$TMP/ro" "$TMP/rk" && [ -s "$TMP/rk" ] && ok "raw pages without formats: $(basename "$f") as ktrace report ($(wc -l <"$TMP/rk"))" ||
		{ not_ok "raw pages without formats: $(basename "$f")"; diff "$TMP/ro" "$TMP/rk" | head -3 | sed 's/^/#   /'; }
done
n=$("$SD" --fields "$FT/synthetic_edge_cpu0.trace_pipe_raw" | grep -c '^L ')
k=$("$KTRACE" report "$FT/synthetic_edge_cpu0.trace_pipe_raw" | grep -c 'missed')
[ "$n" -gt 0 ] && [ "$n" = "$k" ] && ok "raw pages: a lost mark per page that lost events ($n)" || not_ok "raw pages: lost marks ($n, report $k)"

# Darwin
D="$SHARED/data/darwin/coreprofilesessiontap.bin"
"$SD" --fields "$D" >"$TMP/do"
"$KTRACE" report --csv "$D" >"$TMP/dr.csv"
checker python3 "$E/darwincmp.py" "$TMP/do" "$TMP/dr.csv"
n=$("$SD" --tasks "$D" | wc -l)
[ "$n" = 1606 ] && ok "Darwin: 1606 threads from the thread map" || not_ok "Darwin: threads ($n)"

# KOFF
BUF=/dev/shm/koff-test-$$-stream
"$ROOT/$B/tests/koff/test_koff_producer" example "$BUF" >/dev/null 2>&1
"$SD" --fields "$BUF" >"$TMP/ko"
TZ=UTC "$KTRACE" dump --buffer "$BUF" >"$TMP/kd"
checker python3 "$E/koffcmp.py" "$TMP/ko" "$TMP/kd"
rm -f "$BUF"
if python3 "$ROOT/tests/koff/mkcore.py" "$TMP/c" >/dev/null 2>&1; then
	"$SD" --fields "$TMP/c/buffer" >"$TMP/ko2" 2>/dev/null
	TZ=UTC "$KTRACE" report "$TMP/c/buffer" >"$TMP/kd2" 2>/dev/null
	checker python3 "$E/koffcmp.py" "$TMP/ko2" "$TMP/kd2" | sed 's/KOFF:/KOFF (crafted buffer):/'
else
	not_ok "KOFF (crafted buffer): tests/koff/mkcore.py failed"
fi

# several formats in one stream: merged in time order
"$SD" --fields "$TMP/mixed.v6.dat" "$D" | awk '{print $2}' >"$TMP/ts"
sort -n -c "$TMP/ts" 2>/dev/null && [ "$(wc -l <"$TMP/ts")" -gt 15552 ] && ok "trace.dat and Darwin merged in time order" ||
	not_ok "trace.dat and Darwin merged in time order"

# damage: what was read comes out, then the error naming the file and offset, exit 1
# a sub-buffer in the middle of CPU 0's data claims more than a page
python3 -c "
import json, subprocess, sys
info = json.loads(subprocess.run(['$KTRACE', 'info', '--json', '$TMP/allevents.v6.dat'], capture_output=True).stdout)
off = info['buffers'][0]['cpus'][0]['offset'] + 4096 * 10 + 8
d = bytearray(open('$TMP/allevents.v6.dat', 'rb').read())
d[off:off + 8] = (0x7ffff).to_bytes(8, 'little')
open('$TMP/bad.dat', 'wb').write(d)"
"$SD" "$TMP/bad.dat" >"$TMP/cut.out" 2>"$TMP/cut.err"
st=$?
"$KTRACE" report "$TMP/bad.dat" 2>/dev/null | grep -v '^cpus=' >"$TMP/cut.rep"
[ $st -eq 1 ] && grep -q "bad.dat: offset 0x3d000: CPU 0: sub-buffer commit size exceeds the page" "$TMP/cut.err" &&
	[ -s "$TMP/cut.out" ] && cmp -s "$TMP/cut.out" "$TMP/cut.rep" &&
	ok "damaged trace.dat: the records report prints, then the file and offset, exit 1 ($(wc -l <"$TMP/cut.out") lines)" ||
	{ not_ok "damaged trace.dat (exit $st)"; head -3 "$TMP/cut.err" | sed 's/^/#   /'; }
head -c 100000 "$D" >"$TMP/cut.bin"
"$SD" "$TMP/cut.bin" >"$TMP/cutd.out" 2>"$TMP/cutd.err"
st=$?
[ $st -eq 1 ] && grep -q "cut.bin" "$TMP/cutd.err" && [ -s "$TMP/cutd.out" ] &&
	ok "truncated Darwin file: records, then the error, exit 1" ||
	{ not_ok "truncated Darwin file (exit $st)"; head -3 "$TMP/cutd.err" | sed 's/^/#   /'; }
: >"$TMP/empty"
"$SD" "$TMP/empty" >/dev/null 2>"$TMP/e.err"
[ $? -eq 1 ] && grep -q 'empty: empty file' "$TMP/e.err" && ok "empty file: refused" || not_ok "empty file: refused"

# ktrace_stream_sched: every switch as trace-cmd's sched plugin prints it (prev_state
# letters included), on traces with many switches; Darwin's as its report's rows
for f in "$TMP/boot.v6.dat" "$TMP/allevents.v6.dat" "$FT/schedviz_cpu0.v6.dat" "$FT/synthetic_edge.v6.dat"; do
	"$SD" --sched "$f" | grep -v '^[0-9]* -\{0,1\}[0-9]* W ' >"$TMP/sched.ours"
	trace-cmd report -t "$f" 2>/dev/null | python3 -c "
import re, sys
for l in sys.stdin:
    m = re.match(r'^\s*(?:\S+: +)?.*?-\d+\s+\[(\d+)\]\s*(\d+)(?:\.(\d+))?: sched_switch:\s+(.*)$', l.rstrip('\n'))
    if m:
        ts = int(m.group(2)) if m.group(3) is None else int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, '0'))
        print(ts, int(m.group(1)), m.group(4))" >"$TMP/sched.tc"
	[ -s "$TMP/sched.tc" ] && cmp -s "$TMP/sched.ours" "$TMP/sched.tc" &&
		ok "ktrace_stream_sched: $(basename "$f"): $(wc -l <"$TMP/sched.tc") switches as trace-cmd's sched plugin prints them" ||
		{ not_ok "ktrace_stream_sched: $(basename "$f")"; diff "$TMP/sched.ours" "$TMP/sched.tc" | head -5 | sed 's/^/#   /'; }
done
n=$("$SD" --sched "$D" | grep -vc ' W ')
w=$("$SD" --sched "$D" | grep -c ' W ')
want=$(python3 -c "
import csv, sys
ids = [int(r['debugid'], 16) & ~3 for r in csv.DictReader(open(sys.argv[1]))]
print(sum(1 for i in ids if i in (0x01400000, 0x01400008)), sum(1 for i in ids if i == 0x01400018))" "$TMP/dr.csv")
[ "$n $w" = "$want" ] && ok "ktrace_stream_sched: Darwin: $n switches (MACH_SCHED, MACH_STACK_HANDOFF), $w wakeups (MACH_MAKE_RUNNABLE)" ||
	not_ok "ktrace_stream_sched: Darwin: $n $w, the report's rows $want"

# read-ahead (KTRACE_STREAM_READAHEAD): the same records, fields and switches from the
# copies the second thread makes, for every format; the same error at the same place
BUF=/dev/shm/koff-test-$$-stream-ra
"$ROOT/$B/tests/koff/test_koff_producer" example "$BUF" >/dev/null 2>&1
for f in "$TMP/allevents.v6.dat" "$TMP/stacks.v6.dat" "$TMP/instance.v6.dat" "$FT/trappy_tests_trace.v7zstd.dat" \
	 "$FT/synthetic_edge_cpu0.trace_pipe_raw" "$D" "$BUF"; do
	"$SD" --fields "$f" >"$TMP/ra.1" 2>&1
	"$SD" --fields --readahead "$f" >"$TMP/ra.2" 2>&1
	"$SD" --sched "$f" >"$TMP/ra.3" 2>&1
	"$SD" --sched --readahead "$f" >"$TMP/ra.4" 2>&1
	[ -s "$TMP/ra.1" ] && cmp -s "$TMP/ra.1" "$TMP/ra.2" && cmp -s "$TMP/ra.3" "$TMP/ra.4" &&
		ok "read-ahead: $(basename "$f"): the same $(wc -l <"$TMP/ra.1") records, fields and switches" ||
		{ not_ok "read-ahead: $(basename "$f")"; diff "$TMP/ra.1" "$TMP/ra.2" | head -3 | sed 's/^/#   /'; }
done
rm -f "$BUF"
"$SD" --fields -e "$FT/schedviz_formats" "$FT/schedviz_cpu0.trace_pipe_raw" >"$TMP/ra.1"
"$SD" --fields --readahead -e "$FT/schedviz_formats" "$FT/schedviz_cpu0.trace_pipe_raw" >"$TMP/ra.2"
[ -s "$TMP/ra.1" ] && cmp -s "$TMP/ra.1" "$TMP/ra.2" && ok "read-ahead: raw pages with formats" || not_ok "read-ahead: raw pages with formats"
"$SD" --fields "$TMP/mixed.v6.dat" "$D" >"$TMP/ra.1"
"$SD" --fields --readahead "$TMP/mixed.v6.dat" "$D" >"$TMP/ra.2"
[ -s "$TMP/ra.1" ] && cmp -s "$TMP/ra.1" "$TMP/ra.2" && ok "read-ahead: trace.dat and Darwin merged" || not_ok "read-ahead: trace.dat and Darwin merged"
for f in "$TMP/bad.dat" "$TMP/cut.bin"; do
	"$SD" --fields "$f" >"$TMP/ra.1" 2>"$TMP/ra.1e"; s1=$?
	"$SD" --fields --readahead "$f" >"$TMP/ra.2" 2>"$TMP/ra.2e"; s2=$?
	[ $s1 = 1 ] && [ $s2 = 1 ] && [ -s "$TMP/ra.1e" ] && cmp -s "$TMP/ra.1" "$TMP/ra.2" && cmp -s "$TMP/ra.1e" "$TMP/ra.2e" &&
		ok "read-ahead: damaged $(basename "$f"): the same records, then the same error ($(cat "$TMP/ra.2e" | head -c 80))" ||
		{ not_ok "read-ahead: damaged $(basename "$f") (exit $s1, $s2)"; cat "$TMP/ra.1e" "$TMP/ra.2e" | sed 's/^/#   /'; }
done
"$SD" --lines --readahead "$FT/synthetic_edge.v6.dat" >/dev/null 2>&1
[ $? -ne 0 ] && ok "read-ahead: lines are refused (formatting needs the records in order on one thread)" ||
	not_ok "read-ahead: lines are refused"
