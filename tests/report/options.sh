#!/bin/sh
# trace-cmd report's other options through `ktrace report`, each compared with Debian's
# trace-cmd 3.1.6 on the same files: listings (-E -P -f --stat --uname --version --cpus
# --first-event --last-event -e -p), --ts-diff, --raw-ts, --nodate, timestamp options
# stored in the file, several input files (-i a -i b, with per-file filters), the
# default ./trace.dat; then errors (missing, truncated and corrupt files, bad options).
. "$(dirname "$0")/../lib.sh"
D="$SHARED/data/ftrace"
TOOLS="$ROOT/tests/tracedat/tools"
# the loops below (6 files x 16 options, 3 x 4, 6 x 3), then one check a line that
# starts with u, check or check_same
plan $((6 * 16 + 3 * 4 + 6 * 3 + $(grep -c '^u ' "$0") + $(grep -c '^check' "$0")))

if ! command -v trace-cmd > /dev/null 2>&1 || ! command -v zstd > /dev/null 2>&1; then
	not_ok "trace-cmd and zstd are needed (scripts/deps.sh test)"
	exit 0
fi
for n in allevents kmem stacks boot; do
	zstd -q -d -f -o "$TMP/$n.dat" "$ROOT/tests/data/report/$n.v6.dat.zst"
done
zstd -q -d -f -o "$TMP/instance.dat" "$ROOT/tests/data/tracedat/instance.v6.dat.zst"
cp "$D/schedviz_cpu0.v6.dat" "$TMP/sv.dat"
trace-cmd convert -i "$TMP/instance.dat" -o "$TMP/instance.v7.dat" --file-version 7 \
	--compression zstd > /dev/null 2>&1
python3 "$TOOLS/tdslim.py" --offset 123456789 "$TMP/sv.dat" "$TMP/sv_offset.dat"
python3 "$TOOLS/tdslim.py" --date 0x1000 "$TMP/sv.dat" "$TMP/sv_date.dat"
python3 "$TOOLS/tdslim.py" --tsc2nsec 5,2,100 "$TMP/sv.dat" "$TMP/sv_tsc.dat"

# u OPTIONS...: ktrace report and trace-cmd report agree (output and success; an empty
# output only where trace-cmd succeeds and prints nothing: -P and -f of some files);
# KTRACE_REPORT_THREADS=N runs ktrace with N worker threads
u() {
	# shellcheck disable=SC2086
	"$KTRACE" report ${KTRACE_REPORT_THREADS:+--threads $KTRACE_REPORT_THREADS} "$@" \
		> "$TMP/out" 2> "$TMP/err"
	ks=$?
	# trace-cmd, the reference, gets three tries (see golden.sh: it is not always the
	# same); ktrace runs once
	for try in 1 2 3; do
		trace-cmd report "$@" > "$TMP/expect" 2> /dev/null
		ts=$?
		[ $ts -ne 0 ] || cmp -s "$TMP/out" "$TMP/expect" && break
	done
	if [ $ts -eq 0 ] && [ $ks -eq 0 ] && cmp -s "$TMP/out" "$TMP/expect"; then
		ok "report $* ($(wc -l < "$TMP/expect") lines)" | sed "s|$TMP/||g"
	else
		not_ok "report $* (trace-cmd $ts, ktrace $ks, $(diff "$TMP/out" "$TMP/expect" | grep -c '^>') lines differ)" | sed "s|$TMP/||g"
		diff "$TMP/out" "$TMP/expect" | head -4 | sed 's/^/#   /'
		head -2 "$TMP/err" | sed 's/^/#   /'
	fi
}

for f in sv kmem instance instance.v7 boot stacks; do
	p=$TMP/$f.dat
	for o in -E -P -f --stat --uname --version --cpus --first-event --last-event \
		"--first-event --last-event -t" --ts-diff "--ts-diff -t" -e -p --raw-ts --nodate; do
		# shellcheck disable=SC2086
		u $o "$p"
	done
done
for f in D/trappy_tests_raw_trace.v7zstd D/trappy_tests_trace.v7zstd D/synthetic_edge.v6; do
	p=$D/${f#D/}.dat
	for o in --stat --cpus "--first-event --last-event" --ts-diff; do
		# shellcheck disable=SC2086
		u $o "$p"
	done
done
u "$TMP/sv_offset.dat"
u --raw-ts "$TMP/sv_offset.dat"
u "$TMP/sv_date.dat"
u --nodate "$TMP/sv_date.dat"
u "$TMP/sv_tsc.dat"
u -t "$TMP/sv_tsc.dat"
u --raw-ts "$TMP/sv_tsc.dat"

# --boundary, -r (raw fields for some events)
u --boundary "$TMP/sv.dat"
u --boundary "$TMP/kmem.dat"
u --boundary "$TMP/instance.dat"
u --boundary --debug "$TMP/sv.dat"
u -r sched_switch "$TMP/sv.dat"
u -r sched -r kmalloc "$TMP/kmem.dat"
u -r 'kmem.*' -l "$TMP/kmem.dat"
u -r kernel_stack "$TMP/stacks.dat"
trace-cmd report -r sched_switch "$TMP/kmem.dat" > "$TMP/expect" 2> /dev/null
"$KTRACE" report --threads 3 -r sched_switch "$TMP/kmem.dat" > "$TMP/out"
check_same "report -r with 3 threads" "$TMP/out" "$TMP/expect"

# several files, and the filters that follow each -i
# the same through the worker threads (ktrace only: --threads 3), for the options that
# keep something per record besides its text
KTRACE_REPORT_THREADS=3
for o in -l --ts-diff "--ts-diff -t" --debug --boundary "-l -R"; do
	for f in allevents instance instance.v7; do
		# shellcheck disable=SC2086
		u $o "$TMP/$f.dat"
	done
done
u -i "$TMP/kmem.dat" -i "$TMP/instance.v7.dat" -l
KTRACE_REPORT_THREADS=
u -i "$TMP/sv.dat" -i "$TMP/kmem.dat"
u -i "$TMP/kmem.dat" -i "$TMP/instance.dat" -t
u -i "$TMP/instance.v7.dat" -i "$TMP/boot.dat" -R
u -i "$TMP/kmem.dat" -l -i "$TMP/sv.dat"
u -i "$TMP/sv.dat" -i "$TMP/kmem.dat" --ts-diff
u -i "$TMP/sv.dat" -F sched_switch -i "$TMP/kmem.dat" -F sched_wakeup
u -F sched_switch -i "$TMP/sv.dat" -i "$TMP/kmem.dat"
u -i "$TMP/sv.dat" -i "$TMP/kmem.dat" --ts-offset 5000
u -i "$TMP/sv.dat" -i "$TMP/kmem.dat" --stat
u -i "$TMP/sv.dat" -i "$TMP/kmem.dat" --uname
u -i "$TMP/sv.dat" -i "$TMP/kmem.dat" --cpus
u -i "$TMP/sv.dat" -i "$TMP/kmem.dat" -E
u -i "$TMP/kmem.dat" -q
# ./trace.dat when no file is named
mkdir -p "$TMP/cwd"
cp "$TMP/kmem.dat" "$TMP/cwd/trace.dat"
(cd "$TMP/cwd" && trace-cmd report > "$TMP/expect" 2> /dev/null && "$KTRACE" report > "$TMP/out")
check_same "report with ./trace.dat by default" "$TMP/out" "$TMP/expect"

# errors: a message naming the file (and the offset), exit status 1 or 2
"$KTRACE" report "$TMP/nosuch.dat" > /dev/null 2> "$TMP/err"
st=$?
check "missing file: exit 1" [ $st -eq 1 ]
head -c 100000 "$TMP/kmem.dat" > "$TMP/trunc.dat"
"$KTRACE" report "$TMP/trunc.dat" > "$TMP/out" 2> "$TMP/err"
st=$?
check "truncated file: exit 1 and an error" sh -c "[ $st -eq 1 ] && grep -q 'trunc.dat' '$TMP/err'"
dd if="$TMP/kmem.dat" of="$TMP/cut.dat" bs=4096 count=$(( $(wc -c < "$TMP/kmem.dat") / 4096 - 3 )) 2> /dev/null
"$KTRACE" report "$TMP/cut.dat" > "$TMP/out" 2> "$TMP/err"
st=$?
check "file cut in its CPU data: exit 1, the offset named" \
	sh -c "[ $st -eq 1 ] && grep -q 'cut.dat: offset 0x' '$TMP/err'"
"$KTRACE" report -F 'sched_switch: prev_pid ==' "$TMP/sv.dat" > /dev/null 2> "$TMP/err"
st=$?
check "bad filter: exit 2 with a message" sh -c "[ $st -eq 2 ] && grep -q 'failed to create event filter' '$TMP/err'"
"$KTRACE" report -F 'sched_switch: prev_pid 1' "$TMP/sv.dat" > /dev/null 2> "$TMP/err"
check "bad filter: libtraceevent's message" grep -q 'Syntax error' "$TMP/err"
"$KTRACE" report --cpu 1-x "$TMP/sv.dat" > /dev/null 2> "$TMP/err"
st=$?
check "bad --cpu list: exit 2" [ $st -eq 2 ]
"$KTRACE" report -v -v -F x "$TMP/sv.dat" > /dev/null 2> "$TMP/err"
st=$?
check "two -v: exit 2" [ $st -eq 2 ]
"$KTRACE" report -N "$TMP/sv.dat" > /dev/null 2> "$TMP/err"
st=$?
check "unsupported trace-cmd option: exit 2 with a message" sh -c "[ $st -eq 2 ] && grep -q 'not supported' '$TMP/err'"
# trace.dat from a pipe (spooled to a temporary file): the same report as the file
cat "$TMP/sv.dat" | "$KTRACE" report - > "$TMP/pipe.txt" 2> "$TMP/err"
st=$?
"$KTRACE" report "$TMP/sv.dat" > "$TMP/file.txt"
check "trace.dat from a pipe: exit 0" [ $st -eq 0 ]
check_same "trace.dat from a pipe: the same report as the file" "$TMP/pipe.txt" "$TMP/file.txt"
cat "$TMP/sv.dat" | "$KTRACE" report -t -i - > "$TMP/pipe.txt" 2> "$TMP/err"
"$KTRACE" report -t -i "$TMP/sv.dat" > "$TMP/file.txt"
check_same "trace.dat from a pipe with -i - and options" "$TMP/pipe.txt" "$TMP/file.txt"
"$KTRACE" report -R "$TMP/sv.dat" | head -3 > "$TMP/out"
check "report | head ends quietly" [ "$(wc -l < "$TMP/out")" -eq 3 ]
"$KTRACE" help report | grep -q -- '--first-event'
check "help report documents the trace.dat options" [ $? -eq 0 ]
