# Safe writers and honest answers (issue 13): writers never replace a FIFO, a device or
# a symbolic link and keep a file's mode; an interrupted or failed writer leaves nothing
# behind; options that do not apply are refused; usage errors are one line; what a file
# holds is escaped in messages; info covers every format; damaged headers give the same
# error, with the offset, from every subcommand.
. "$(dirname "$0")/../lib.sh"
FT="$SHARED/data/ftrace"
V6="$FT/schedviz_cpu0.v6.dat"
V7="$FT/schedviz_cpu0.v7zstd.dat"
RAW="$FT/schedviz_cpu0.trace_pipe_raw"
DARWIN="$SHARED/data/darwin/coreprofilesessiontap.bin"
KC="$SHARED/data/kcdata"
plan 141

# run NAME CMD...: stdout in $TMP/out, stderr in $TMP/err, status in $st
run() { "$@" >"$TMP/out" 2>"$TMP/err"; st=$?; }
expect() {   # name status
	if [ "$st" -eq "$2" ]; then ok "$1"; else not_ok "$1 (exit $st, expected $2)"; sed 's/^/#   /' "$TMP/err" | head -5; fi
}
no_temporaries() {   # name dir
	if ls "$2" | grep -q '\.tmp'; then not_ok "$1"; ls "$2" | sed 's/^/#   /'; else ok "$1"; fi
}

# ---- writers: devices, FIFOs, standard output, links, modes ----
run "$KTRACE" convert -q "$V6" /dev/null
expect "convert -o /dev/null: exit 0" 0
check "/dev/null is still a character device" test -c /dev/null
run "$KTRACE" convert -q "$V6" /dev/full
expect "convert -o /dev/full: exit 1 (no space)" 1
check "/dev/full: the error says so" grep -q "/dev/full: .*No space left on device" "$TMP/err"
check "/dev/full is still a character device" test -c /dev/full

mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/from-fifo.dat" &
reader=$!
run "$KTRACE" convert -q "$V6" "$TMP/fifo"
wait $reader
expect "convert into a FIFO: exit 0" 0
check "the FIFO is still a FIFO" test -p "$TMP/fifo"
check "what came through the FIFO is the trace" sh -c "'$KTRACE' report '$TMP/from-fifo.dat' | tail -n +2 > '$TMP/a'; '$KTRACE' report '$V6' | tail -n +2 > '$TMP/b'; [ -s '$TMP/b' ] && cmp -s '$TMP/a' '$TMP/b'"

"$KTRACE" convert -q "$V6" - >"$TMP/stdout.dat" 2>"$TMP/err"
check "convert -o -: a trace on standard output" sh -c "'$KTRACE' info '$TMP/stdout.dat' | grep -q 'version 7'"
cat "$V6" | "$KTRACE" convert -q - - | "$KTRACE" report - >"$TMP/piped.txt" 2>"$TMP/err"
"$KTRACE" report "$V6" >"$TMP/file.txt"
check_same "pipe in, convert, pipe out, report from a pipe" "$TMP/piped.txt" "$TMP/file.txt"

echo old >"$TMP/target.dat"
chmod 640 "$TMP/target.dat"
ln -s target.dat "$TMP/link.dat"
run "$KTRACE" convert -q "$V6" "$TMP/link.dat"
expect "convert through a symbolic link: exit 0" 0
check "the link is still a link" test -L "$TMP/link.dat"
check "its target holds the trace" sh -c "'$KTRACE' info '$TMP/target.dat' | grep -q 'trace.dat, version 7'"
check "the target kept its mode (640)" sh -c "[ \$(stat -c %a '$TMP/target.dat') = 640 ]"
no_temporaries "no temporary file left beside the output" "$TMP"

# a directory, a missing directory: errors naming the output, nothing written
run "$KTRACE" convert -q "$V6" "$TMP"
expect "convert into a directory: exit 1" 1
: >"$TMP/empty.bin"
for c in info report convert; do
	if [ $c = convert ]; then run "$KTRACE" convert -q "$TMP/empty.bin" "$TMP/e.dat"; else run "$KTRACE" $c "$TMP/empty.bin"; fi
	check "an empty file: $c says so" sh -c "[ $st -eq 1 ] && grep -qx 'ktrace: $TMP/empty.bin: offset 0x0: empty file' '$TMP/err'"
done
run "$KTRACE" convert -q "$V6" "$TMP/no/such/dir.dat"
expect "convert into a missing directory: exit 1" 1
check "the error names the output" grep -q "$TMP/no/such/dir.dat" "$TMP/err"

# ---- SIGINT/SIGTERM during convert: the temporary goes, the process dies of it ----
zstd -q -d -c "$ROOT/tests/data/report/stacks.v6.dat.zst" >"$TMP/stacks.v6.dat"
python3 - "$ROOT/tests/tracedat/tools" "$TMP/stacks.v6.dat" "$TMP/big.v6.dat" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tdslim
v = tdslim.V6(open(sys.argv[2], 'rb').read())
v.top = [blob * 20 for blob in v.top]       # about 8 MiB of pages
tdslim.write(v, sys.argv[3])
PY
mkdir "$TMP/sig"
for sig in INT TERM; do
	# (a background job of sh starts with SIGINT ignored: give it back its default)
	env --default-signal=INT "$KTRACE" convert -q "$TMP/big.v6.dat" "$TMP/sig/out.dat" --level 19 &
	pid=$!
	i=0
	while [ $i -lt 500 ] && ! ls "$TMP/sig" | grep -q '\.tmp'; do sleep 0.01; i=$((i + 1)); done
	if ls "$TMP/sig" | grep -q '\.tmp'; then
		kill -$sig $pid
		{ wait $pid; } 2>/dev/null
		st=$?
		[ $st -gt 128 ] && ok "SIG$sig during convert: killed by it" || not_ok "SIG$sig during convert: killed by it (exit $st)"
		no_temporaries "SIG$sig during convert: no temporary left" "$TMP/sig"
		rm -f "$TMP/sig/out.dat.tmp"*
		check "SIG$sig during convert: no output" test ! -e "$TMP/sig/out.dat"
	else
		{ wait $pid; } 2>/dev/null
		skip 3 "SIG$sig during convert" "the conversion ended before the signal"
	fi
done

# ---- a progress line while convert writes, when stderr is a terminal ----
if command -v script >/dev/null; then
	script -qec "'$KTRACE' convert '$TMP/big.v6.dat' '$TMP/progress.dat'" /dev/null >"$TMP/tty.txt" 2>&1
	grep -q "ktrace convert: [0-9]*% (" "$TMP/tty.txt" && ok "convert shows progress on a terminal" ||
		{ not_ok "convert shows progress on a terminal"; head -c 300 "$TMP/tty.txt" | sed 's/^/#   /'; }
	"$KTRACE" convert "$TMP/big.v6.dat" "$TMP/progress.dat" 2>"$TMP/err"
	st=$?
	[ $st -eq 0 ] && ! grep -q "%" "$TMP/err" && ok "no progress line when stderr is not a terminal" ||
		not_ok "no progress line when stderr is not a terminal (exit $st)"
	# the readers' progress comes from the library's callback; the command prints it
	# (the library prints nothing), and clears it at the end
	for c in report timeline; do
		if [ $c = report ]; then o=">/dev/null"; else o="-o '$TMP/progress.html'"; fi
		script -qec "'$KTRACE' $c '$TMP/big.v6.dat' $o" /dev/null >"$TMP/tty.txt" 2>&1
		grep -q "ktrace $c: [1-9][0-9]* records" "$TMP/tty.txt" &&
			[ "$(tail -c 4 "$TMP/tty.txt" | od -An -c | tr -d ' ')" = '\r033[K' ] &&
			ok "$c shows progress on a terminal, cleared at the end" ||
			{ not_ok "$c shows progress on a terminal, cleared at the end"; tail -c 200 "$TMP/tty.txt" | od -c | head -5 | sed 's/^/#   /'; }
	done
	script -qec "'$KTRACE' report '$TMP/big.v6.dat'" /dev/null >"$TMP/tty.txt" 2>&1
	! grep -q "ktrace report: [0-9]* records" "$TMP/tty.txt" &&
		ok "no progress line when report's lines go to the terminal" ||
		not_ok "no progress line when report's lines go to the terminal"
else
	skip 2 "convert shows progress on a terminal, none elsewhere" "no script(1)"
	skip 3 "report and timeline show progress on a terminal" "no script(1)"
fi

# ---- a --comm no saved cmdline has: trace-cmd's warning, once a command ----
for c in report timeline export; do
	case $c in
	report) run "$KTRACE" report --comm nosuch-comm "$V6" ;;
	timeline) run "$KTRACE" timeline --comm nosuch-comm "$V6" -o "$TMP/comm.html" ;;
	export) run "$KTRACE" export --comm nosuch-comm "$V6" -o "$TMP/comm.json" ;;
	esac
	check "$c --comm of no saved cmdline: warned once, exit 0" sh -c "[ $st -eq 0 ] &&
		[ \"\$(cat '$TMP/err')\" = 'ktrace: comm: nosuch-comm not in the saved cmdlines' ]"
done

# ---- a writer checks what it copies as the reader does ----
python3 - "$V6" "$TMP/corrupt.dat" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
o = 4096 + 2 * 4096                                       # the third sub-buffer of CPU 0
d[o + 16:o + 24] = struct.pack('<II', 0, 0x7ffffff0)       # a record longer than the page
open(sys.argv[2], 'wb').write(d)
PY
run "$KTRACE" report "$TMP/corrupt.dat"
expect "corrupt sub-buffer: report exits 1" 1
cp "$TMP/err" "$TMP/report.err"
run "$KTRACE" convert -q "$TMP/corrupt.dat" "$TMP/conv.dat"
expect "corrupt sub-buffer: convert exits 1" 1
# (report skips the sub-buffer and reads on, saying so; convert copies all or nothing)
check "convert fails with the reader's message and offset" sh -c "grep -o 'offset 0x[0-9a-f]*: .*' '$TMP/report.err' | head -1 | sed 's/, sub-buffer skipped\$//' > '$TMP/r'; grep -o 'offset 0x[0-9a-f]*: .*' '$TMP/err' > '$TMP/c'; [ -s '$TMP/r' ] && cmp -s '$TMP/r' '$TMP/c'"
check "corrupt sub-buffer: no output left" test ! -e "$TMP/conv.dat"
no_temporaries "corrupt sub-buffer: no temporary left" "$TMP"

# ---- options the input has no use for are refused, naming the format ----
run "$KTRACE" report --csv "$RAW"
expect "--csv on raw pages: usage error" 2
check "--csv on raw pages: says why" grep -q "option --csv does not apply to ftrace ring-buffer pages" "$TMP/err"
run "$KTRACE" report --format json "$RAW"
expect "--format json on raw pages: usage error" 2
check "--format on raw pages: says why" grep -q "option --format does not apply to ftrace ring-buffer pages" "$TMP/err"
run "$KTRACE" report --format plist "$DARWIN"
expect "--format plist on Darwin data: usage error" 2
check "--format plist on Darwin data: says which formats" grep -q "text or json" "$TMP/err"
run "$KTRACE" info --raw-ts "$DARWIN"
expect "info --raw-ts on Darwin data: usage error" 2
run "$KTRACE" info --timebase 1/1 "$V6"
expect "info --timebase on trace.dat: usage error" 2
python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[0] ^= 0xff; open(sys.argv[2], 'wb').write(d)" \
	"$KC/stackshot-sample-thread-groups" "$TMP/damaged.kcdata"
run "$KTRACE" report --format json "$TMP/damaged.kcdata"
check "--format json on a damaged kcdata: an error, no listing" sh -c "[ $st -ne 0 ] && [ ! -s '$TMP/out' ]"
run "$KTRACE" report --pages "$V6"
check "--pages on a trace.dat: read as raw pages (no layout fits)" sh -c "[ $st -eq 1 ] && grep -q 'not a ring-buffer dump: no sub-buffer layout fits' '$TMP/err'"
run "$KTRACE" report --pages --page-size 4096 --long-size 8 --endian little "$V6"
check "--pages with a layout on a trace.dat: listed as pages" grep -q "^# $V6: ftrace ring-buffer sub-buffers of 4096 bytes" "$TMP/out"
run "$KTRACE" report -O foo "$V6"
expect "-O foo: usage error" 2
check "-O foo: names the option" grep -q "option '-O' of trace-cmd report is not supported" "$TMP/err"

# ---- usage errors: one line, one style ----
run "$KTRACE" info --bogus "$V6"
expect "info --bogus: usage error" 2
check "info --bogus: one line naming the option" sh -c "[ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qx \"ktrace: info: unknown option '--bogus' (see 'ktrace help info')\" '$TMP/err'"
run "$KTRACE" bogus
cp "$TMP/err" "$TMP/bogus1"
run "$KTRACE" help bogus
expect "help bogus: usage error" 2
check_same "ktrace bogus and ktrace help bogus say the same" "$TMP/err" "$TMP/bogus1"
run "$KTRACE" convert -i
check "a missing argument: one line" sh -c "[ $st -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q \"option '-i' needs an argument\" '$TMP/err'"

# ---- bytes from a file are escaped in messages ----
python3 - "$V7" "$TMP/badcomp.dat" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.index(b'zstd\0', 16)
d[i + 4] = 0x08                                # "zstd\b1.5.4": one string, a control byte
open(sys.argv[2], 'wb').write(d)
PY
run "$KTRACE" info "$TMP/badcomp.dat"
expect "a control byte in the compression name: exit 1" 1
check "the byte is shown as \\x08" grep -q 'zstd\\x08' "$TMP/err"
check "stderr is one line of printable UTF-8" python3 -c "
import sys
t = open(sys.argv[1], 'rb').read().decode('utf-8')
lines = t.split('\n')
assert lines[-1] == '' and len(lines) == 2, lines
assert all(c.isprintable() for c in lines[0]), repr(lines[0])" "$TMP/err"

# ---- info --json keeps valid UTF-8 and escapes invalid bytes ----
python3 - "$ROOT/tests/tracedat/tools" "$FT/synthetic_edge.v6.dat" "$TMP/uname.dat" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tdslim
v = tdslim.V6(open(sys.argv[2], 'rb').read())
tdslim.write(v, sys.argv[3], extra=[(5, 'Lé€ \t'.encode() + b'\xff\0')])
PY
run "$KTRACE" info --json "$TMP/uname.dat"
expect "info --json with a UTF-8 uname: exit 0" 0
check "info --json: valid JSON" python3 -m json.tool "$TMP/out"
check "info --json: UTF-8 kept, control and invalid bytes escaped" grep -q '"uname": "Lé€ \\t\\u00ff"' "$TMP/out"

# ---- info summarises every format ----
# the options line of a v6 file: the count and the names trace-cmd dump --options lists
if command -v trace-cmd >/dev/null 2>&1; then
	T6="$FT/trappy_tests_trace.v6.dat"
	trace-cmd dump --options -i "$T6" >"$TMP/opts" 2>&1
	want=$(python3 -c "
import collections, re, sys
names = re.findall(r'\[Option (\w+), ', open(sys.argv[1]).read())
c = collections.Counter(names)
print('Options:           %d (%s)' % (len(names), ', '.join(n + (' x%d' % c[n] if c[n] > 1 else '') for n in sorted(c))))
" "$TMP/opts")
	"$KTRACE" info "$T6" | grep '^Options:' >"$TMP/got"
	echo "$want" >"$TMP/want"
	check_same "info: the options line of a v6 file names what trace-cmd dump lists" "$TMP/want" "$TMP/got"
else
	skip 1 "info: the options line of a v6 file names what trace-cmd dump lists" "trace-cmd is not installed"
fi
run "$KTRACE" info "$RAW"
expect "info on raw pages: exit 0" 0
check "info on raw pages: layout and counts" sh -c "grep -q '^Sub-buffer size:   4096 bytes' '$TMP/out' && grep -q '^Events:            1366' '$TMP/out'"
run "$KTRACE" info --json "$RAW"
check "info --json on raw pages: valid JSON with the events" python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['events'] == 1366 and d['format'] == 'ftrace-pages'" "$TMP/out"
if python3 "$ROOT/tests/koff/mkcore.py" "$TMP/k" >/dev/null 2>&1; then
	run "$KTRACE" info "$TMP/k/buffer"
	expect "info on a KOFF buffer: exit 0" 0
	check "info on a KOFF buffer: its records" grep -q "^Records:           5 " "$TMP/out"
	"$KTRACE" dump -o "$TMP/snap.ktrace" --buffer "$TMP/k/buffer" 2>"$TMP/err"
	run "$KTRACE" info --json "$TMP/snap.ktrace"
	check "info --json on a KOFF snapshot" python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['format'] == 'koff-snapshot' and d['records'] == 5" "$TMP/out"
	head -c 264 "$TMP/snap.ktrace" >"$TMP/snap-cut"
	for c in info report; do
		run "$KTRACE" $c "$TMP/snap-cut"
		expect "KOFF snapshot cut at 264 bytes: $c exits 1" 1
		check "KOFF snapshot cut at 264 bytes: $c names the offset" grep -q "offset 0x108: truncated" "$TMP/err"
	done
	# dump -o into a FIFO and onto /dev/null: streams, never replaced
	cat "$TMP/fifo" >"$TMP/snap-fifo" &
	reader=$!
	run "$KTRACE" dump -o "$TMP/fifo" --buffer "$TMP/k/buffer"
	wait $reader
	# (two snapshots differ in their time of capture: their reports are compared)
	check "dump -o into a FIFO: exit 0, still a FIFO, the snapshot came through" sh -c "[ $st -eq 0 ] && test -p '$TMP/fifo' &&
		'$KTRACE' report '$TMP/snap-fifo' >'$TMP/snap-fifo.txt' && '$KTRACE' report '$TMP/snap.ktrace' >'$TMP/snap.txt' &&
		[ \$(wc -l <'$TMP/snap.txt') -ge 5 ] && cmp '$TMP/snap-fifo.txt' '$TMP/snap.txt'"
	run "$KTRACE" dump -o /dev/null --buffer "$TMP/k/buffer"
	check "dump -o /dev/null: exit 0, still a device" sh -c "[ $st -eq 0 ] && test -c /dev/null"
	run "$KTRACE" dump -o /dev/full --buffer "$TMP/k/buffer"
	check "dump -o /dev/full: exit 1, no space, still a device" sh -c "[ $st -eq 1 ] && grep -q 'No space left on device' '$TMP/err' && test -c /dev/full"
else
	not_ok "info on KOFF data: tests/koff/mkcore.py failed"
	skip 9 "info and dump on KOFF data" "no KOFF data"
fi

# ---- damaged trace.dat headers: the same error, with the offset, everywhere ----
patch() {   # in out offset struct-format value
	python3 -c "import struct, sys; d = bytearray(open(sys.argv[1], 'rb').read()); o = int(sys.argv[3]); d[o:o + struct.calcsize(sys.argv[4])] = struct.pack(sys.argv[4], int(sys.argv[5], 0)); open(sys.argv[2], 'wb').write(d)" "$@"
}
verdict() {   # name file expected-message
	for c in info report convert; do
		if [ $c = convert ]; then run "$KTRACE" convert -q "$2" "$TMP/v.dat"; else run "$KTRACE" $c "$2"; fi
		expect "$1: $c exits 1" 1
		check "$1: $c says $3" grep -q "$3" "$TMP/err"
	done
	check "$1: nothing converted" test ! -e "$TMP/v.dat"
}
for f in "$V6" "$V7"; do
	n=$(basename "$f")
	patch "$f" "$TMP/h.dat" 13 B 0
	verdict "$n, header long size 0" "$TMP/h.dat" "offset 0xd: header long size 0 (4 or 8 expected)"
	patch "$f" "$TMP/h.dat" 13 B 255
	verdict "$n, header long size 255" "$TMP/h.dat" "offset 0xd: header long size 255"
	patch "$f" "$TMP/h.dat" 14 '<I' 0
	verdict "$n, header page size 0" "$TMP/h.dat" "offset 0xe: header page size 0 "
	patch "$f" "$TMP/h.dat" 14 '<I' 0x80000000
	verdict "$n, header page size 0x80000000" "$TMP/h.dat" "offset 0xe: header page size 2147483648"
done
size=$(stat -c %s "$V7")
head -c $((size - 1)) "$V7" >"$TMP/cut7.dat"
verdict "v7 cut before the end of its last section" "$TMP/cut7.dat" "offset 0x3985: truncated"
exit 0
