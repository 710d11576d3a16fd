# ktrace export's output file and bad input:
# - a damaged input exports what could be read, says where it stopped, exits 1, and
#   leaves no output unless --partial: then OUT is a valid, shorter trace (Perfetto and
#   JSON) holding exactly the records read before the damage;
# - OUT is written under a temporary name and renamed: an interrupted export leaves
#   neither OUT nor a temporary file; an existing OUT keeps its mode; a symlink is
#   followed (its target replaced); /dev/null and a FIFO are written in place;
# - the format follows OUT's ending; without -o, OUT is named after the input.
. "$(dirname "$0")/../lib.sh"
FT="$SHARED/data/ftrace"
D="$SHARED/data/darwin/coreprofilesessiontap.bin"
PF="python3 $ROOT/tests/export/tools/pftrace.py"
SD="$ROOT/$B/examples/stream_dump"
plan 21

zstd -q -d -f "$ROOT/tests/data/report/allevents.v6.dat.zst" -o "$TMP/allevents.v6.dat"
# a sub-buffer in the middle of CPU 0's data claims more than a page (as tests/engine)
python3 -c "
import json, subprocess
info = json.loads(subprocess.run(['$KTRACE', 'info', '--json', '$TMP/allevents.v6.dat'], capture_output=True).stdout)
off = info['buffers'][0]['cpus'][0]['offset'] + 4096 * 10 + 8
d = bytearray(open('$TMP/allevents.v6.dat', 'rb').read())
d[off:off + 8] = (0x7ffff).to_bytes(8, 'little')
open('$TMP/bad.dat', 'wb').write(d)"
before=$("$SD" "$TMP/bad.dat" 2>/dev/null | grep -vc 'EVENTS DROPPED')

mkdir -p "$TMP/out"
"$KTRACE" export -o "$TMP/out/bad.pftrace" "$TMP/bad.dat" 2>"$TMP/err"
st=$?
[ $st -eq 1 ] && grep -q "bad.dat: offset 0x3d000: CPU 0: sub-buffer commit size exceeds the page" "$TMP/err" &&
	[ ! -e "$TMP/out/bad.pftrace" ] && [ -z "$(ls -A "$TMP/out")" ] &&
	ok "damaged input: the error with file and offset, exit 1, no output left" ||
	{ not_ok "damaged input (exit $st)"; sed 's/^/#   /' "$TMP/err"; ls -A "$TMP/out" | sed 's/^/#   /'; }

"$KTRACE" export --partial -o "$TMP/out/bad.pftrace" "$TMP/bad.dat" 2>"$TMP/err"
st=$?
$PF summary "$TMP/out/bad.pftrace" >"$TMP/sum.json" 2>"$TMP/pf.err"
n=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['events'] if not d['problems'] else -1)" "$TMP/sum.json" 2>/dev/null)
[ $st -eq 1 ] && grep -q "offset 0x3d000" "$TMP/err" && [ "$n" = "$before" ] && [ "$before" -gt 0 ] &&
	ok "--partial: exit 1, OUT is a valid Perfetto trace of the $n records before the damage" ||
	{ not_ok "--partial perfetto (exit $st, $n events, $before records before the damage)"; sed 's/^/#   /' "$TMP/err" "$TMP/pf.err" | head -5; }
if command -v protoc >/dev/null; then
	protoc --decode_raw <"$TMP/out/bad.pftrace" >/dev/null 2>&1 && ok "--partial: protoc --decode_raw reads it" ||
		not_ok "--partial: protoc --decode_raw reads it"
else
	skip 1 "--partial: protoc --decode_raw reads it" "protoc is not installed"
fi
"$KTRACE" export --partial -o "$TMP/out/bad.json" "$TMP/bad.dat" 2>/dev/null
st=$?
n=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for e in d['traceEvents'] if e['ph'] == 'i' and e.get('s') == 't'))" "$TMP/out/bad.json" 2>/dev/null)
sw=$("$SD" --fields "$TMP/bad.dat" 2>/dev/null | grep -c ' sched:sched_switch ')
[ $st -eq 1 ] && [ -n "$n" ] && [ "$n" = $((before - sw)) ] &&
	ok "--partial: a valid JSON trace of the records before the damage ($n instants, $sw switches)" ||
	not_ok "--partial json (exit $st, $n instants, want $((before - sw)))"

head -c 300000 "$D" >"$TMP/cut.bin"
"$KTRACE" export --partial -o "$TMP/out/cut.pftrace" "$TMP/cut.bin" 2>"$TMP/err"
st=$?
want=$("$SD" "$TMP/cut.bin" 2>/dev/null | wc -l)
n=$($PF summary "$TMP/out/cut.pftrace" | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['events'] if not d['problems'] else -1)")
[ $st -eq 1 ] && grep -q "cut.bin" "$TMP/err" && [ "$n" = "$want" ] && [ "$n" -gt 0 ] &&
	ok "truncated Darwin file, --partial: the $n events before the end" ||
	not_ok "truncated Darwin file (exit $st, $n events, want $want)"
: >"$TMP/empty"
"$KTRACE" export -o "$TMP/out/e.pftrace" "$TMP/empty" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'empty file' "$TMP/err" && [ ! -e "$TMP/out/e.pftrace" ] &&
	ok "empty input: refused, no output" || not_ok "empty input"

# an interrupted export leaves nothing behind. The signal comes at a known moment, not
# when a race says: tests/export/tools/sigrename.c, preloaded, raises it from the
# rename() of the finished temporary file over OUT.
if [ -n "${SANFLAGS:-}" ]; then
	skip 2 "a signal during the export" "no preloading into a sanitized build"
elif ! ${CC:-cc} -O2 -shared -fPIC -o "$TMP/sigrename.so" "$ROOT/tests/export/tools/sigrename.c" -ldl 2>"$TMP/cc.err"; then
	not_ok "build tests/export/tools/sigrename.c"; sed 's/^/#   /' "$TMP/cc.err" | head -5
	skip 1 "a signal during the export" "no sigrename.so"
else
	for sig in INT:2 TERM:15; do
		n=${sig#*:} sig=${sig%:*}
		rm -rf "$TMP/int"; mkdir "$TMP/int"
		# (a background sh starts its jobs with SIGINT ignored: give it back its default)
		env --default-signal=INT LD_PRELOAD="$TMP/sigrename.so" SIGRENAME=$n \
			"$KTRACE" export -q -o "$TMP/int/big.pftrace" "$TMP/allevents.v6.dat" 2>"$TMP/err"
		st=$?
		grep -q "^sigrename: signal $n, $TMP/int/.*tmp.* exists" "$TMP/err" && [ -z "$(ls -A "$TMP/int")" ] &&
			[ $st -eq $((128 + n)) ] && ok "SIG$sig during the export: no OUT, no temporary file (status $st)" ||
			{ not_ok "SIG$sig during the export (status $st)"; ls -A "$TMP/int" | sed 's/^/#   /'; sed 's/^/#   /' "$TMP/err"; }
	done
fi

# the existing file's mode stays; a symlink is followed; devices and FIFOs in place
: >"$TMP/out/m.pftrace"; chmod 640 "$TMP/out/m.pftrace"
"$KTRACE" export -q -o "$TMP/out/m.pftrace" "$FT/synthetic_edge.v6.dat"
[ "$(stat -c %a "$TMP/out/m.pftrace")" = 640 ] && [ -s "$TMP/out/m.pftrace" ] &&
	ok "an existing OUT keeps its mode (640)" || not_ok "mode kept: $(stat -c %a "$TMP/out/m.pftrace")"
ln -sf m.pftrace "$TMP/out/link.pftrace"
: >"$TMP/out/m.pftrace"
"$KTRACE" export -q -o "$TMP/out/link.pftrace" "$FT/synthetic_edge.v6.dat"
[ -L "$TMP/out/link.pftrace" ] && [ -s "$TMP/out/m.pftrace" ] && ok "a symlink OUT: its target is written, the link stays" ||
	not_ok "symlink OUT"
"$KTRACE" export -q -o /dev/null "$FT/synthetic_edge.v6.dat" && [ -c /dev/null ] &&
	ok "-o /dev/null: written in place, still a device" || not_ok "-o /dev/null"
mkfifo "$TMP/out/fifo"
cat "$TMP/out/fifo" >"$TMP/fifo.data" &
"$KTRACE" export -q -o "$TMP/out/fifo" --format json "$FT/synthetic_edge.v6.dat"
wait
[ -p "$TMP/out/fifo" ] && python3 -m json.tool "$TMP/fifo.data" >/dev/null && ok "a FIFO OUT: written in place, still a FIFO" ||
	not_ok "FIFO OUT"

# formats by name and by ending; the default name
cd "$TMP/out" || exit 1
"$KTRACE" export -q "$FT/synthetic_edge.v6.dat" && [ -s synthetic_edge.v6.perfetto-trace ] &&
	ok "without -o: synthetic_edge.v6.perfetto-trace" || not_ok "without -o: $(ls)"
"$KTRACE" export -q --format json "$FT/synthetic_edge.v6.dat" && python3 -m json.tool synthetic_edge.v6.json >/dev/null &&
	ok "without -o, --format json: synthetic_edge.v6.json" || not_ok "without -o, --format json"
"$KTRACE" export -q -o x.json "$FT/synthetic_edge.v6.dat" && python3 -m json.tool x.json >/dev/null &&
	ok "OUT ending in .json: Chrome JSON" || not_ok "OUT ending in .json"
"$KTRACE" export -q -o x.pftrace "$FT/synthetic_edge.v6.dat" && $PF summary x.pftrace >/dev/null &&
	ok "OUT ending in .pftrace: Perfetto" || not_ok "OUT ending in .pftrace"
"$KTRACE" export --format bogus x.dat 2>"$TMP/err"; st=$?
[ $st -eq 2 ] && grep -q "unknown format 'bogus'" "$TMP/err" && ok "an unknown format: usage error" || not_ok "unknown format ($st)"
"$KTRACE" export -F 'sched_switch: (((' "$FT/synthetic_edge.v6.dat" 2>"$TMP/err"; st=$?
[ $st -eq 2 ] && grep -q 'filter' "$TMP/err" && ok "a bad -F filter: usage error with libtraceevent's message" ||
	not_ok "bad filter ($st)"

# standard input and a FIFO: the input is read once (its format looked at, then read),
# so it is copied first; the trace is the one of the file, the errors name "-"
"$KTRACE" export -q -o "$TMP/file.pftrace" "$TMP/allevents.v6.dat"
"$KTRACE" export -q -o "$TMP/stdin.pftrace" - <"$TMP/allevents.v6.dat"
st=$?
[ $st = 0 ] && [ -s "$TMP/file.pftrace" ] && cmp -s "$TMP/file.pftrace" "$TMP/stdin.pftrace" &&
	ok "a trace.dat on standard input exports as the file does" ||
	not_ok "a trace.dat on standard input (exit $st)"
mkfifo "$TMP/fifo"
cat "$D" >"$TMP/fifo" &
"$KTRACE" export -q -o "$TMP/fifo.pftrace" "$TMP/fifo"
st=$?
wait
"$KTRACE" export -q -o "$TMP/d.pftrace" "$D"
[ $st = 0 ] && [ -s "$TMP/d.pftrace" ] && cmp -s "$TMP/d.pftrace" "$TMP/fifo.pftrace" &&
	ok "a Darwin file through a FIFO exports as the file does" ||
	not_ok "a Darwin file through a FIFO (exit $st)"
head -c 100000 "$TMP/allevents.v6.dat" | "$KTRACE" export -q -o "$TMP/cut.pftrace" - 2>"$TMP/err"
st=$?
[ $st = 1 ] && grep -q '^ktrace: -: offset 0x' "$TMP/err" &&
	ok "a truncated trace.dat on standard input: the error names -" ||
	{ not_ok "truncated trace.dat on standard input (exit $st)"; sed 's/^/#   /' "$TMP/err"; }
