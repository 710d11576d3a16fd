# Records read into reused buffers (TRACEDAT_READ_COPIES): a trace whose CPUs each hold
# far more than the bytes the reader keeps for records in flight, so that buffers are
# used again while the report goes on, prints what trace-cmd prints, with one thread and
# with several (each thread reads every record and prints its blocks of 4096 in turn:
# a buffer recycled too early, or a block out of turn, shows as wrong lines). With the
# default thread count, a big all-events trace, a big sched-only one (schedviz_cpu0
# repeated: every record teaches comms) and the first as v7 with zstd (counted by its
# pages, not its smaller file) start threads (strace shows it) and print what trace-cmd
# prints; so does a filtered report and one with --ts-diff, and one of a
# recording whose command changed its name at exec.
. "$(dirname "$0")/../lib.sh"
plan 15
if ! command -v trace-cmd >/dev/null 2>&1 || ! command -v zstd >/dev/null 2>&1; then
	not_ok "trace-cmd and zstd are needed (scripts/deps.sh test)"
	exit 0
fi
zstd -q -d -f "$ROOT/tests/data/report/allevents.v6.dat.zst" -o "$TMP/small.dat"
python3 "$ROOT/bench/read/mkbig.py" "$TMP/small.dat" "$TMP/big.dat" 40 >/dev/null
size=$(stat -c %s "$TMP/big.dat")
trace-cmd report "$TMP/big.dat" >"$TMP/tc.txt" 2>/dev/null
for threads in 1 2; do
	"$KTRACE" report --threads $threads "$TMP/big.dat" >"$TMP/kt.txt" 2>"$TMP/kt.err"
	if [ -s "$TMP/tc.txt" ] && cmp -s "$TMP/tc.txt" "$TMP/kt.txt"; then
		ok "report --threads $threads of a $((size >> 20)) MiB trace = trace-cmd report"
	else
		not_ok "report --threads $threads of a $((size >> 20)) MiB trace = trace-cmd report"
		diff "$TMP/tc.txt" "$TMP/kt.txt" | head -5
	fi
done

python3 "$ROOT/bench/read/mkbig.py" "$SHARED/data/ftrace/schedviz_cpu0.v6.dat" "$TMP/sched.dat" 40 >/dev/null
trace-cmd report "$TMP/sched.dat" >"$TMP/tc-sched.txt" 2>/dev/null
# the big trace as v7 with zstd: a file under 16 MiB that holds 40 MiB of pages
"$KTRACE" convert -q --file-version 7 --compression zstd "$TMP/big.dat" "$TMP/big7.dat"
for n in big sched big7; do
	f="$TMP/$n.dat" ref="$TMP/tc.txt"
	[ "$n" = sched ] && ref="$TMP/tc-sched.txt"
	"$KTRACE" report "$f" >"$TMP/kt.txt" 2>"$TMP/kt.err"
	st=$?
	if [ $st -eq 0 ] && [ -s "$ref" ] && cmp -s "$ref" "$TMP/kt.txt"; then
		ok "report of a $(($(stat -c %s "$f") >> 20)) MiB $n trace, default threads = trace-cmd report"
	else
		not_ok "report of the $n trace, default threads = trace-cmd report (exit $st)"
		diff "$ref" "$TMP/kt.txt" | head -5
	fi
	if [ "$(nproc)" -lt 2 ]; then
		ok "the $n trace is reported with threads # SKIP one CPU: one thread"
	elif [ -n "${SANFLAGS:-}" ]; then
		ok "the $n trace is reported with threads # SKIP the sanitizers start threads of their own"
	elif command -v strace >/dev/null 2>&1; then
		threads=$(strace -f -e trace=clone,clone3 "$KTRACE" report "$f" 2>&1 >/dev/null | grep -c '^clone')
		[ "$threads" -ge 1 ] &&
			ok "the $n trace is reported with threads" ||
			not_ok "the $n trace is reported with threads ($threads threads started)"
	else
		ok "the $n trace is reported with threads # SKIP strace is not installed"
	fi
done
"$KTRACE" report --threads 3 "$TMP/sched.dat" >"$TMP/kt.txt" 2>"$TMP/kt.err"
check_same "report --threads 3 of the sched trace = trace-cmd report" "$TMP/tc-sched.txt" "$TMP/kt.txt"
trace-cmd report --ts-diff "$TMP/big.dat" >"$TMP/tc-d.txt" 2>/dev/null
"$KTRACE" report --threads 2 --ts-diff "$TMP/big.dat" >"$TMP/kt.txt" 2>"$TMP/kt.err"
check_same "report --threads 2 --ts-diff of the big trace = trace-cmd report" "$TMP/tc-d.txt" "$TMP/kt.txt"
# a filter that leaves few records: the blocks are counted after it
trace-cmd report -F sched_switch "$TMP/big.dat" >"$TMP/tc-f.txt" 2>/dev/null
"$KTRACE" report --threads 2 -F sched_switch "$TMP/big.dat" >"$TMP/kt.txt" 2>"$TMP/kt.err"
st=$?
if [ $st -eq 0 ] && [ -s "$TMP/tc-f.txt" ] && cmp -s "$TMP/tc-f.txt" "$TMP/kt.txt"; then
	ok "report --threads 2 -F sched_switch of the big trace = trace-cmd report"
else
	not_ok "report -F sched_switch of the big trace = trace-cmd report (exit $st)"
	diff "$TMP/tc-f.txt" "$TMP/kt.txt" | head -5
fi
# A recording whose command changed its name at exec: `ktrace record -e sched -- sh ...`
# (bench/report's sched mix, recorded here on 2026-11-27; the first 2 and the last
# sub-buffer of each CPU kept by tools/slim.py --pages 2 --last 1). Its first record is
# the recorder's, and trace-cmd looks up its comm; then the idle task's sched_wakeup
# names the child 'ktrace', which the saved cmdlines call 'sh': after the first lookup a
# pid keeps its saved name. A thread that passes over the first block must make that
# first lookup at the same record, or its blocks print 'ktrace-PID' where trace-cmd
# prints 'sh-PID'. Repeated (mkbig.py) so that every thread prints blocks of that pid.
zstd -q -d -f "$ROOT/tests/data/comm/execstart.v6.dat.zst" -o "$TMP/exec1.dat"
python3 "$ROOT/bench/read/mkbig.py" "$TMP/exec1.dat" "$TMP/exec.dat" 3 >/dev/null
trace-cmd report "$TMP/exec.dat" >"$TMP/tc-exec.txt" 2>/dev/null
for t in 2 3; do
	"$KTRACE" report --threads $t "$TMP/exec.dat" >"$TMP/kt.txt" 2>"$TMP/kt.err"
	check_same "report --threads $t of a command renamed at exec = trace-cmd report" "$TMP/tc-exec.txt" "$TMP/kt.txt"
done
# a sub-buffer two thirds in overwritten: every thread count prints the records before
# it and the same error (a thread that gave up on the damage left the blocks after its
# own unwritten)
python3 -c "import sys
d = bytearray(open(sys.argv[1], 'rb').read()); o = len(d) * 2 // 3; o -= o % 4096
d[o:o + 16] = b'\xff' * 16; open(sys.argv[2], 'wb').write(d)" "$TMP/big.dat" "$TMP/bad.dat"
"$KTRACE" report --threads 1 "$TMP/bad.dat" >"$TMP/bad1.txt" 2>"$TMP/bad1.err"; r1=$?
for t in 2 3; do
	"$KTRACE" report --threads $t "$TMP/bad.dat" >"$TMP/bad$t.txt" 2>"$TMP/bad$t.err"; rt=$?
	if [ $r1 = 1 ] && [ $rt = 1 ] && [ -s "$TMP/bad1.txt" ] && [ -s "$TMP/bad1.err" ] && cmp -s "$TMP/bad1.txt" "$TMP/bad$t.txt" &&
	   cmp -s "$TMP/bad1.err" "$TMP/bad$t.err"; then
		ok "damaged trace, --threads $t: the lines and the error of one thread ($(wc -l <"$TMP/bad1.txt") lines)"
	else
		not_ok "damaged trace, --threads $t: exit $r1/$rt, $(wc -l <"$TMP/bad1.txt")/$(wc -l <"$TMP/bad$t.txt") lines"
	fi
done
