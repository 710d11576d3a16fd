# ktrace export --format perfetto, checked against trace-cmd and the other readers:
# - every export decodes with Debian's `protoc --decode_raw` and with the subset of
#   Perfetto's trace format written here (tools/perfetto_subset.proto), and with our own
#   wire-format decoder (tools/pftrace.py), which also checks the layout (sequence ids,
#   descriptors before their events, wire types, the process tree before the events);
# - trace.dat (shared and recorded traces, v6/v7/zstd, lost events, several files, -F,
#   --cpu, raw pages with formats): the records equal trace-cmd report's in number,
#   sched_switch included, and every field value equals trace-cmd report -R's
#   (tests/engine/fieldcmp.py); the uname release and the saved cmdlines' thread names
#   are there; lost events per CPU equal `ktrace info`;
# - the Darwin sample: 15552 events, 1606 named threads, its context switches and
#   wakeups as sched_switch / sched_waking as many as `ktrace report --csv` shows;
# - KOFF: every record, with its tag, text and correlator as `ktrace dump` prints them;
# - --legacy-generic: the same records as GenericFtraceEvent.
. "$(dirname "$0")/../lib.sh"
FT="$SHARED/data/ftrace"
D="$SHARED/data/darwin/coreprofilesessiontap.bin"
TOOLS="$ROOT/tests/export/tools"
PF="python3 $TOOLS/pftrace.py"
FIELDCMP="python3 $ROOT/tests/engine/fieldcmp.py"
# a trace.dat: tdcheck.py's 4, protoc's 2 (and fieldcmp.py's 1 for the shared v6 ones
# and two recorded ones); 8 more recorded ones; then 20
nft=$(ls "$FT"/*.dat | wc -l) nv6=$(ls "$FT"/*v6.dat | wc -l)
NPLAN=$((6 * nft + nv6 + 2 * 7 + 6 * 6 + 6 + 20))
plan $NPLAN

command -v trace-cmd >/dev/null || { skip $NPLAN "perfetto export" "trace-cmd is not installed"; exit 0; }
HAVE_PROTOC=1
command -v protoc >/dev/null || HAVE_PROTOC=0

# j FILE KEY...: a value of pftrace.py's summary
j() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2:]: d = d[k]
print(d if not isinstance(d, (dict, list)) else json.dumps(d, sort_keys=True))" "$@"
}

protoc_checks() {   # name, trace, expected events, expected sched_switch
	if [ $HAVE_PROTOC = 0 ]; then
		skip 2 "protoc: $1" "protoc is not installed (Debian protobuf-compiler)"
		return
	fi
	if protoc --decode_raw <"$2" >"$TMP/raw.txt" 2>"$TMP/raw.err"; then
		ok "protoc --decode_raw: $1"
	else
		not_ok "protoc --decode_raw: $1"; head -3 "$TMP/raw.err" | sed 's/^/#   /'
	fi
	if protoc --decode=ktrace_test.Trace -I"$TOOLS" perfetto_subset.proto <"$2" >"$TMP/sub.txt" 2>"$TMP/sub.err"; then
		e=$(grep -c '^    event {' "$TMP/sub.txt")
		s=$(grep -c '^      sched_switch {' "$TMP/sub.txt")
		[ "$e" = "$3" ] && [ "$s" = "$4" ] && ok "protoc --decode (subset .proto): $1: $e events, $s sched_switch" ||
			not_ok "protoc --decode (subset .proto): $1: $e events (want $3), $s sched_switch (want $4)"
	else
		not_ok "protoc --decode (subset .proto): $1"; head -3 "$TMP/sub.err" | sed 's/^/#   /'
	fi
}

# A trace.dat file against trace-cmd (tools/tdcheck.py): counts, uname, thread names,
# lost events; with fields=1 every field value against trace-cmd report -R.
tracedat() {   # file fields
	f=$1; name=$(basename "$f")
	out="$TMP/$name.pftrace"
	if ! "$KTRACE" export -q -o "$out" "$f" 2>"$TMP/err"; then
		not_ok "export $name"; head -3 "$TMP/err" | sed 's/^/#   /'; return
	fi
	trace-cmd report "$f" 2>/dev/null >"$TMP/tc.txt"
	trace-cmd report --uname "$f" 2>/dev/null >"$TMP/uname.txt"
	trace-cmd dump --cmd-lines "$f" 2>/dev/null >"$TMP/cmd.txt"
	"$KTRACE" info --json "$f" >"$TMP/info.json"
	if [ "$2" = 1 ]; then
		checker python3 "$TOOLS/tdcheck.py" "$name" "$out" "$TMP/tc.txt" "$TMP/uname.txt" "$TMP/cmd.txt" \
			"$TMP/info.json" "$TMP/fields.txt"
		trace-cmd report -R -t "$f" 2>/dev/null >"$TMP/tcR.txt"
		checker $FIELDCMP "$TMP/fields.txt" "$TMP/tcR.txt" | sed "s|tcR.txt|$name (from the Perfetto trace)|"
	else
		checker python3 "$TOOLS/tdcheck.py" "$name" "$out" "$TMP/tc.txt" "$TMP/uname.txt" "$TMP/cmd.txt" \
			"$TMP/info.json"
	fi
	records=$(grep -cE '^ *([^ ]+: +)?.*-[0-9]+ +\[[0-9]+\] *[0-9.]+: |\[UNKNOWN EVENT\]' "$TMP/tc.txt")
	switches=$(grep -cE '\] *[0-9.]+: sched_switch: ' "$TMP/tc.txt")
	protoc_checks "$name" "$out" "$records" "$switches"
}

for f in "$FT"/*.dat; do
	case $f in *v6.dat) tracedat "$f" 1 ;; *) tracedat "$f" 0 ;; esac
done
for z in "$ROOT"/tests/data/report/*.zst "$ROOT"/tests/data/tracedat/*.zst; do
	zstd -q -d -f "$z" -o "$TMP/$(basename "$z" .zst)" || not_ok "unpack $z"
done
tracedat "$TMP/allevents.v6.dat" 1
tracedat "$TMP/stacks.v6.dat" 1
for f in kmem mixed all subbuf8k boot instance; do
	tracedat "$TMP/$f.v6.dat" 0
done
tracedat "$ROOT/tests/data/report/unknown_events.v7.dat" 0

# lost events: the bundle after each dropped-events mark says so
"$KTRACE" export -q -o "$TMP/lost.pftrace" "$FT/synthetic_edge.v6.dat"
got=$($PF summary "$TMP/lost.pftrace" | python3 -c "import json,sys; print(json.load(sys.stdin)['lost_bundles'])")
want=$(trace-cmd report "$FT/synthetic_edge.v6.dat" 2>/dev/null | grep -c 'EVENTS DROPPED')
[ "$want" -gt 0 ] && [ "$got" = "$want" ] && ok "lost_events set on the $got bundles after a dropped-events mark" ||
	not_ok "lost_events bundles: $got, trace-cmd's marks $want"

# several files, a filter, a CPU selection: the records trace-cmd reports the same way
"$KTRACE" export -q -o "$TMP/two.pftrace" "$TMP/mixed.v6.dat" "$TMP/kmem.v6.dat"
want=$(trace-cmd report -i "$TMP/mixed.v6.dat" -i "$TMP/kmem.v6.dat" 2>/dev/null | grep -cE '\] *[0-9.]+: ')
got=$($PF summary "$TMP/two.pftrace" | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
[ "$got" = "$want" ] && ok "two files: $got events, as trace-cmd -i a -i b" || not_ok "two files: $got events, trace-cmd $want"
"$KTRACE" export -q -o "$TMP/filt.pftrace" -F 'sched_switch: prev_pid > 100' -F irq --cpu 1 "$TMP/allevents.v6.dat"
want=$(trace-cmd report -F 'sched_switch: prev_pid > 100' -F irq --cpu 1 "$TMP/allevents.v6.dat" 2>/dev/null | grep -cE '\] *[0-9.]+: ')
got=$($PF summary "$TMP/filt.pftrace" | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['events'])")
[ "$want" -gt 0 ] && [ "$got" = "$want" ] && ok "-F and --cpu: $got events, as trace-cmd report -F --cpu" ||
	not_ok "-F and --cpu: $got events, trace-cmd $want"

# raw pages with their formats: the same records and values as the same data in trace.dat
"$KTRACE" export -q -o "$TMP/raw.pftrace" -e "$FT/schedviz_formats" "$FT/schedviz_cpu0.trace_pipe_raw"
$PF fields "$TMP/raw.pftrace" >"$TMP/raw.fields"
trace-cmd report -R -t "$FT/schedviz_cpu0.v6.dat" 2>/dev/null >"$TMP/rawR.txt"
checker $FIELDCMP "$TMP/raw.fields" "$TMP/rawR.txt" | sed 's|rawR.txt|raw pages (schedviz_cpu0.trace_pipe_raw, from the Perfetto trace)|'

# --legacy-generic: every generic event as GenericFtraceEvent, the same values
"$KTRACE" export -q --legacy-generic -o "$TMP/legacy.pftrace" "$TMP/allevents.v6.dat"
$PF summary "$TMP/legacy.pftrace" >"$TMP/leg.json"
$PF fields "$TMP/legacy.pftrace" >"$TMP/leg.fields"
trace-cmd report -R -t "$TMP/allevents.v6.dat" 2>/dev/null >"$TMP/legR.txt"
[ "$(j "$TMP/leg.json" descriptors)" = 0 ] && [ "$(j "$TMP/leg.json" legacy_generic)" -gt 10000 ] &&
	ok "--legacy-generic: $(j "$TMP/leg.json" legacy_generic) GenericFtraceEvent, no descriptor" ||
	not_ok "--legacy-generic: $(j "$TMP/leg.json" legacy_generic) generic, $(j "$TMP/leg.json" descriptors) descriptors"
checker $FIELDCMP "$TMP/leg.fields" "$TMP/legR.txt" | sed 's|legR.txt|allevents --legacy-generic|'
if [ $HAVE_PROTOC = 1 ]; then
	protoc --decode=ktrace_test.Trace -I"$TOOLS" perfetto_subset.proto <"$TMP/legacy.pftrace" >"$TMP/leg.txt" 2>&1
	n=$(grep -c '^      generic {' "$TMP/leg.txt")
	[ "$n" -gt 0 ] && [ "$n" = "$(j "$TMP/leg.json" legacy_generic)" ] && ok "--legacy-generic: protoc reads $n generic events" ||
		not_ok "--legacy-generic: protoc reads $n generic events"
else
	skip 1 "--legacy-generic: protoc reads the generic events" "protoc is not installed"
fi

# Darwin: every event, the thread map's names, switches and wakeups as sched events
"$KTRACE" export -q -o "$TMP/d.pftrace" "$D" || not_ok "export the Darwin sample"
"$KTRACE" report --csv "$D" >"$TMP/d.csv"
$PF summary "$TMP/d.pftrace" >"$TMP/d.json"
$PF fields "$TMP/d.pftrace" >"$TMP/d.fields"
checker python3 - "$TMP/d.json" "$TMP/d.csv" "$TMP/d.fields" <<'EOF'
import csv, json, re, sys
s = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
ids = [int(r['debugid'], 16) & ~3 for r in rows]
want_sw = sum(1 for i in ids if i in (0x01400000, 0x01400008))
want_wk = sum(1 for i in ids if i == 0x01400018)
lost = sum(1 for i in ids if i == 0x07020008)
ok = s['events'] == 15552 - lost and s['first_named_threads'] == 1606 and not s['problems'] and \
     s['names'].get('sched_switch') == want_sw and s['names'].get('sched_waking') == want_wk
print('%s - Darwin sample: %d events, %d threads named from the thread map (%d with those the '
      'events name), %d sched_switch (MACH_SCHED and MACH_STACK_HANDOFF: %d), %d sched_waking '
      '(MACH_MAKE_RUNNABLE: %d)%s' % (
          'ok' if ok else 'not ok', s['events'], s['first_named_threads'], s['named_threads'],
          s['names'].get('sched_switch', 0),
          want_sw, s['names'].get('sched_waking', 0), want_wk, '' if not s['problems'] else ' %r' % s['problems']))
# each switch: the thread that logged it leaves for arg2, priorities arg3 -> arg4
want = sorted((int(r['time_ns']), int(r['cpu']), int(r['thread'], 16), int(r['arg2'], 16),
               int(r['arg3'], 16), int(r['arg4'], 16)) for r, i in zip(rows, ids) if i in (0x01400000, 0x01400008))
got = []
for l in open(sys.argv[3]):
    m = re.match(r'E (\d+) (\d+) (\d+) \S+ "" sched:sched_switch (.*)$', l)
    if m:
        f = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', m.group(4)))
        got.append((int(m.group(1)), int(m.group(2)), int(f['prev_pid']), int(f['next_pid']),
                    int(f['prev_prio']), int(f['next_prio'])))
print('%s - Darwin switches: thread, next thread and priorities as the report\'s %d MACH_SCHED rows'
      % ('ok' if got == want and want else 'not ok', len(want)))
EOF
if [ $HAVE_PROTOC = 1 ]; then
	protoc --decode=ktrace_test.Trace -I"$TOOLS" perfetto_subset.proto <"$TMP/d.pftrace" >"$TMP/d.txt" 2>&1
	e=$(grep -c '^    event {' "$TMP/d.txt"); t=$(grep -c '^      name: ' "$TMP/d.txt")
	[ "$e" = 15552 ] && [ "$t" -ge 1606 ] && ok "protoc --decode: Darwin sample: $e events, $t thread names" ||
		not_ok "protoc --decode: Darwin sample: $e events, $t thread names"
	protoc --decode_raw <"$TMP/d.pftrace" >/dev/null 2>&1 && ok "protoc --decode_raw: Darwin sample" ||
		not_ok "protoc --decode_raw: Darwin sample"
else
	skip 2 "protoc: Darwin sample" "protoc is not installed"
fi

# KOFF: one event per record, as ktrace dump prints them
BUF=/dev/shm/koff-test-$$-export
"$ROOT/$B/tests/koff/test_koff_producer" example "$BUF" >/dev/null 2>&1
"$KTRACE" export -q -o "$TMP/k.pftrace" "$BUF"
TZ=UTC "$KTRACE" dump --buffer "$BUF" >"$TMP/kd"
rm -f "$BUF"
# a record without a tag is an event named "unknown" (Perfetto needs a name)
$PF fields-file-order "$TMP/k.pftrace" | sed 's/ "" koff:unknown / "" koff: /' >"$TMP/k.fields"
checker python3 "$ROOT/tests/engine/koffcmp.py" "$TMP/k.fields" "$TMP/kd" | sed 's/KOFF/KOFF (from the Perfetto trace)/'
if [ $HAVE_PROTOC = 1 ]; then
	n=$(protoc --decode=ktrace_test.Trace -I"$TOOLS" perfetto_subset.proto <"$TMP/k.pftrace" |
		grep -c '^    event {'); d=$(grep -cE '^[0-9a-f]{8}:' "$TMP/kd")
	[ "$n" = "$d" ] && [ "$n" -gt 0 ] && ok "protoc --decode: KOFF buffer: $n events, one per record" ||
		not_ok "protoc --decode: KOFF buffer: $n events, $d records"
else
	skip 1 "protoc --decode: KOFF buffer" "protoc is not installed"
fi
if python3 "$ROOT/tests/koff/mkcore.py" "$TMP/c" >/dev/null 2>&1; then
	"$KTRACE" export -q -o "$TMP/kc.pftrace" "$TMP/c/buffer"
	$PF fields-file-order "$TMP/kc.pftrace" | sed 's/ "" koff:unknown / "" koff: /' >"$TMP/kc.fields"
	TZ=UTC "$KTRACE" report "$TMP/c/buffer" >"$TMP/kc.d" 2>/dev/null
	checker python3 "$ROOT/tests/engine/koffcmp.py" "$TMP/kc.fields" "$TMP/kc.d" | sed 's/KOFF/KOFF crafted buffer (from the Perfetto trace)/'
else
	not_ok "KOFF crafted buffer: tests/koff/mkcore.py failed"
fi

# Threads (--threads N, the default for 16 MiB or more): every thread reads every
# record and writes the blocks of 8192 it gets to first; the trace holds the same events, fields,
# threads, losses and descriptors as one thread's (only its bundles are cut at the
# blocks): traces of several blocks made of the recorded all-events trace and of the one with
# dropped events, and a damaged one with --partial (the same records, the same error).
zstd -q -d -f "$ROOT/tests/data/report/allevents.v6.dat.zst" -o "$TMP/ae.dat"
python3 "$ROOT/bench/read/mkbig.py" "$TMP/ae.dat" "$TMP/big.dat" 3 >/dev/null
zstd -q -d -f "$ROOT/tests/data/tracedat/mixed.v6.dat.zst" -o "$TMP/mx.dat"
python3 "$ROOT/bench/read/mkbig.py" "$TMP/mx.dat" "$TMP/bigdrop.dat" 3 >/dev/null
# a sub-buffer two thirds in overwritten: the records before it, then the error
python3 -c "import sys
d = bytearray(open(sys.argv[1], 'rb').read()); o = len(d) * 2 // 3; o -= o % 4096
d[o:o + 16] = b'\xff' * 16; open(sys.argv[2], 'wb').write(d)" "$TMP/big.dat" "$TMP/bigcut.dat"
# the same as one thread: field lines and the summary less the packet count
same_events() {   # NAME FILE1 FILE2
	$PF fields "$2" >"$TMP/f1"; $PF fields "$3" >"$TMP/f2"
	$PF summary "$2" | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("packets"); print(json.dumps(d, sort_keys=True))' >"$TMP/s1"
	$PF summary "$3" | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("packets"); print(json.dumps(d, sort_keys=True))' >"$TMP/s2"
	if [ -s "$TMP/f1" ] && cmp -s "$TMP/f1" "$TMP/f2" && cmp -s "$TMP/s1" "$TMP/s2" && grep -q '"problems": \[\]' "$TMP/s2"; then
		ok "$1 ($(wc -l <"$TMP/f1") events)"
	else
		not_ok "$1"; diff "$TMP/s1" "$TMP/s2" | head -4 | sed 's/^/#   /'; diff "$TMP/f1" "$TMP/f2" | head -4 | sed 's/^/#   /'
	fi
}
for f in big bigdrop; do
	"$KTRACE" export -q --threads 1 -o "$TMP/$f-1.pftrace" "$TMP/$f.dat"
	for t in 2 3; do
		"$KTRACE" export -q --threads $t -o "$TMP/$f-$t.pftrace" "$TMP/$f.dat"
		same_events "$f: --threads $t = --threads 1" "$TMP/$f-1.pftrace" "$TMP/$f-$t.pftrace"
	done
done
"$KTRACE" export -q --partial --threads 1 -o "$TMP/cut-1.pftrace" "$TMP/bigcut.dat" 2>"$TMP/e1"; r1=$?
"$KTRACE" export -q --partial --threads 2 -o "$TMP/cut-2.pftrace" "$TMP/bigcut.dat" 2>"$TMP/e2"; r2=$?
sed -i 's/cut-[12]\.pftrace/cut-N.pftrace/' "$TMP/e1" "$TMP/e2"
[ $r1 = 1 ] && [ $r2 = 1 ] && [ -s "$TMP/e1" ] && cmp -s "$TMP/e1" "$TMP/e2" && ok "damaged: the same error with 2 threads ($(head -1 "$TMP/e2" | cut -c1-60))" ||
	not_ok "damaged: exit $r1 and $r2, errors: $(cat "$TMP/e1" "$TMP/e2" | tr '\n' ' ')"
same_events "damaged, --partial: --threads 2 = --threads 1" "$TMP/cut-1.pftrace" "$TMP/cut-2.pftrace"
