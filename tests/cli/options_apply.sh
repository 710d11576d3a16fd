# An option of report (or info) that belongs to another format is refused naming the
# format read (exit 2), never "unknown option", never ignored: trace-cmd report's
# options on the other formats, the Darwin and kcdata ones (--csv, --format...) on
# trace.dat and the others. The options each format takes are listed here, from the
# manual (ktrace help report: TRACE.DAT OPTIONS, DARWIN OPTIONS...).
. "$(dirname "$0")/../lib.sh"
plan 124
D="$SHARED/data"
TD="$D/ftrace/schedviz_cpu0.v6.dat"
PG="$D/ftrace/schedviz_cpu0.trace_pipe_raw"
DW="$D/darwin/coreprofilesessiontap.bin"
KC="$D/kcdata/stackshot-sample"
KO="$ROOT/fuzz/corpus/fuzz_stream/koff-example"
echo "0x1 a_code" >"$TMP/codes"

# refused CMD FILE FORMAT-NAME OPTION [ARG]: exit 2, one line naming OPTION and the format
refused() {
	cmd=$1 file=$2 fmt=$3
	shift 3
	"$KTRACE" "$cmd" "$@" "$file" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ "$st" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
		grep -qF "ktrace: $cmd: $file: option $1 does not apply to $fmt" "$TMP/err" &&
		[ ! -s "$TMP/out" ]; then
		ok "$cmd $* on $fmt: refused"
	else
		not_ok "$cmd $* on $fmt: refused (exit $st)"
		sed 's/^/#   /' "$TMP/err" | head -3
	fi
}
# taken CMD FILE OPTION...: exit 0
taken() {
	cmd=$1 file=$2
	shift 2
	"$KTRACE" "$cmd" "$@" "$file" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ "$st" -eq 0 ] && [ -s "$TMP/out" ]; then ok "$cmd $* on $(basename "$file"): taken"
	else not_ok "$cmd $* on $(basename "$file"): taken (exit $st)"; sed 's/^/#   /' "$TMP/err" | head -3; fi
}

# Darwin's and kcdata's options (--pid is also trace-cmd's)
darwin_opts() {
	f=$1 name=$2
	refused report "$f" "$name" --csv
	refused report "$f" "$name" --process launchd
	refused report "$f" "$name" --timebase 1/1
	refused report "$f" "$name" --codes "$TMP/codes"
	refused report "$f" "$name" -C "$TMP/codes"
	refused report "$f" "$name" --filter ALL
	refused report "$f" "$name" --durations
}
# trace-cmd report's options (trace.dat only)
tracecmd_opts() {
	f=$1 name=$2
	for o in -t -R -l -E -P -I -S -w --profile --stat --cpus --first-event --ts-diff --raw-ts --debug; do
		refused report "$f" "$name" $o
	done
	refused report "$f" "$name" --cpu 0
	refused report "$f" "$name" --comm bash
	refused report "$f" "$name" -F sched_switch
	refused report "$f" "$name" --threads 2
}

darwin_opts "$TD" "trace-cmd trace.dat"
refused report "$TD" "trace-cmd trace.dat" --format json
# with trace-cmd's options around it, and the file given with -i
"$KTRACE" report -t --csv -R "$TD" >"$TMP/out" 2>"$TMP/err"
check "report -t --csv -R trace.dat: refused naming the format" grep -qF "option --csv does not apply to trace-cmd trace.dat" "$TMP/err"
"$KTRACE" report --csv -i "$TD" >"$TMP/out" 2>"$TMP/err"
check "report --csv -i trace.dat: refused naming the format" grep -qF "option --csv does not apply to trace-cmd trace.dat" "$TMP/err"

darwin_opts "$PG" "ftrace ring-buffer pages"
refused report "$PG" "ftrace ring-buffer pages" --pid 1
refused report "$PG" "ftrace ring-buffer pages" --format json
tracecmd_opts "$PG" "ftrace ring-buffer pages"

tracecmd_opts "$DW" "Darwin kdebug raw stream"

darwin_opts "$KC" "kcdata"
tracecmd_opts "$KC" "kcdata"

darwin_opts "$KO" "KOFF trace buffer"
refused report "$KO" "KOFF trace buffer" --format text
tracecmd_opts "$KO" "KOFF trace buffer"

# each where it belongs
taken report "$TD" --pid 1
taken report "$TD" -t
taken report "$TD" --cpu 0
taken report "$DW" --csv
taken report "$DW" --durations
taken report "$DW" --format json
taken report "$KC" --format json
taken report "$PG" --page-size 4096

# info: --raw-ts is trace.dat's, --timebase Darwin's
refused info "$PG" "ftrace ring-buffer pages" --raw-ts
refused info "$KC" "kcdata" --raw-ts
refused info "$TD" "trace-cmd trace.dat" --timebase 1/1
refused info "$KO" "KOFF trace buffer" --timebase 1/1
taken info "$TD" --raw-ts
taken info "$DW" --timebase 1/1
