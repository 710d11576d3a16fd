# The EXAMPLE program of kbuffer_alloc(3), taken unchanged from the manual page in
# ../shared/seeds, compiled once against libktrace and once against Debian's
# libtraceevent, must print the same bytes for every sub-buffer of the shared dumps
# and of the dumps recorded on a real machine (tests/data/recorded).
. "$(dirname "$0")/../lib.sh"
seed="$SHARED/seeds/004_667d9b37228e265e.txt"
CC=${CC:-cc}
# 3, one a dump (2 shared, the recorded ones), 2
plan $((3 + 2 + $(ls "$ROOT"/tests/data/recorded/*.raw.zst | wc -l) + 2))

# The program text lies between the EXAMPLE and FILES headings, indented by 11 spaces.
awk '/^EXAMPLE.*top$/ {on=1; next} /^FILES.*top$/ {on=0} on' "$seed" | sed 's/^           //' >"$TMP/example.c"
check "example extracted from the manual page" grep -q "kbuffer_read_event(kbuf, &ts)" "$TMP/example.c"

check "example builds against libktrace" \
	$CC -w $SANFLAGS -I"$ROOT/include/ktrace" -o "$TMP/ex_ktrace" "$TMP/example.c" "$ROOT/$B/libktrace.a" -lzstd -lz -lelf -lplist-2.0 -pthread
check "example builds against libtraceevent" \
	$CC -w -I/usr/include/traceevent -o "$TMP/ex_tep" "$TMP/example.c" -ltraceevent

compare_dump() {   # name, raw dump file
	mkdir -p "$TMP/pages"
	rm -f "$TMP"/pages/*
	split -b 4096 -a 5 -d "$2" "$TMP/pages/p"
	: >"$TMP/out_ktrace"
	: >"$TMP/out_tep"
	n=0
	for p in "$TMP"/pages/p*; do
		# (the manual's program never frees its buffer: no leak report for it)
		ASAN_OPTIONS=detect_leaks=0 "$TMP/ex_ktrace" "$p" >>"$TMP/out_ktrace" 2>&1
		"$TMP/ex_tep" "$p" >>"$TMP/out_tep" 2>&1
		n=$((n + 1))
	done
	events=$(grep -c ' event ' "$TMP/out_tep")
	echo "# $1: $n sub-buffers, $events events"
	if [ "$n" -gt 0 ] && [ "$events" -gt 0 ]; then
		check_same "example output identical: $1" "$TMP/out_ktrace" "$TMP/out_tep"
	else
		not_ok "example output identical: $1 (no events)"
	fi
}

compare_dump schedviz_cpu0 "$SHARED/data/ftrace/schedviz_cpu0.trace_pipe_raw"
compare_dump synthetic_edge_cpu0 "$SHARED/data/ftrace/synthetic_edge_cpu0.trace_pipe_raw"
for z in "$ROOT"/tests/data/recorded/*.raw.zst; do
	zstd -q -d -c "$z" >"$TMP/dump.raw"
	compare_dump "$(basename "$z" .raw.zst)" "$TMP/dump.raw"
done

# ktrace report lists the same events with the same timestamps as libtraceevent walks.
for name in schedviz_cpu0 synthetic_edge_cpu0; do
	f="$SHARED/data/ftrace/$name.trace_pipe_raw"
	rm -f "$TMP"/pages/*
	split -b 4096 -a 5 -d "$f" "$TMP/pages/p"
	for p in "$TMP"/pages/p*; do "$TMP/ex_tep" "$p"; done | sed -n 's/^ event *[0-9]* ts://p' >"$TMP/ts_tep"
	"$KTRACE" report "$f" | awk '/^  0x/ {print $2}' >"$TMP/ts_ktrace"
	check_same "ktrace report timestamps match libtraceevent: $name" "$TMP/ts_ktrace" "$TMP/ts_tep"
done
