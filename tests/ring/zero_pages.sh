# Raw ring-buffer dumps with sub-buffers whose every byte is zero (a buffer never
# written, or padding after a copy): they count neither for nor against a layout, so
# the layout the other sub-buffers fit is kept, and report/info list them as empty.
# The event counts are checked against a reader of the page headers written here
# (tests/ring/tools/count_events.py, from the kernel's record format), against
# the same pages without the padding, and against the kernel's own "read events".
. "$(dirname "$0")/../lib.sh"
plan 71
REL="$SHARED/data/reliability/pages_2real_2zero.raw"

# count_events FILE SIZE [LONG]: the data records in every SIZE-byte sub-buffer, from
# the record headers (type_len 1-28: 4*type_len bytes of data; 0: a length word; 29
# padding; 30, 31: 8-byte time records); "bad" when a walk does not end on the commit.
count_events() { python3 "$ROOT/tests/ring/tools/count_events.py" "$@"; }

# report FILE [options]: listing in $TMP/out, stderr in $TMP/err, exit status in $st
report() { f=$1; shift; "$KTRACE" report "$@" "$f" >"$TMP/out" 2>"$TMP/err"; st=$?; }
status_is() {   # name expected
	if [ "$st" -eq "$2" ]; then ok "$1"; else not_ok "$1 (exit $st)"; sed 's/^/#   /' "$TMP/err" | head -5; fi
}
# the event lines of a listing without their file offsets: timestamp, length, id
events_of() { grep '^  0x' "$1" | awk '{print $2, $3, $4}'; }
# zeros N SIZE: N all-zero sub-buffers of SIZE bytes
zeros() { head -c $(($1 * $2)) /dev/zero; }

# --- The reliability input: two real 4 KiB pages, then two zero ones. ---
n=$(count_events "$REL" 4096)
check "pages_2real_2zero: the page headers hold 71 events" test "$n" = 71
head -c 8192 "$REL" >"$TMP/two.raw"
check "pages_2real_2zero: 16 KiB, no byte after the two pages set" python3 -c "
import sys
d = open(sys.argv[1], 'rb').read()
sys.exit(len(d) != 16384 or any(d[8192:]) or not all(any(d[i:i + 4096]) for i in (0, 4096)))" "$REL"
report "$REL"
status_is "pages_2real_2zero: read with no options" 0
check "pages_2real_2zero: 4096-byte sub-buffers" grep -q "sub-buffers of 4096 bytes, little-endian, 8-byte kernel longs" "$TMP/out"
check "pages_2real_2zero: every event ($n)" grep -qx "# 4 sub-buffers (2 all zero), $n events" "$TMP/out"
check "pages_2real_2zero: the zero sub-buffers listed as such" sh -c "grep -qx 'sub-buffer 2 at 0x2000: empty, every byte zero (never written, or padding)' '$TMP/out' && grep -qx 'sub-buffer 3 at 0x3000: empty, every byte zero (never written, or padding)' '$TMP/out'"
check "pages_2real_2zero: nothing on stderr" test ! -s "$TMP/err"
cp "$TMP/out" "$TMP/padded.list"
report "$TMP/two.raw"
check "pages_2real_2zero: the same events as the two pages alone" sh -c "grep '^  0x' '$TMP/padded.list' >'$TMP/a'; grep '^  0x' '$TMP/out' >'$TMP/b'; cmp -s '$TMP/a' '$TMP/b' && test -s '$TMP/a'"
report "$REL" --page-size 4096
status_is "pages_2real_2zero: --page-size 4096 accepted" 0
check_same "pages_2real_2zero: --page-size 4096 lists the same" "$TMP/out" "$TMP/padded.list"
"$KTRACE" info "$REL" >"$TMP/info" 2>"$TMP/err"; st=$?
status_is "pages_2real_2zero: info exits 0" 0
check "pages_2real_2zero: info counts the zero sub-buffers" grep -qx "Sub-buffers:       4 (2 empty, 2 of them all zero)" "$TMP/info"
check "pages_2real_2zero: info counts every event" grep -qx "Events:            $n" "$TMP/info"
"$KTRACE" info --json "$REL" >"$TMP/info.json" 2>"$TMP/err"
check "pages_2real_2zero: info --json" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert (d['page_size'], d['sub_buffers'], d['empty_sub_buffers'], d['zero_sub_buffers'], d['events']) == (4096, 4, 2, 2, int(sys.argv[2])), d" "$TMP/info.json" "$n"
# the event stream (export, sql) infers the same layout
"$KTRACE" sql "$REL" 'select count(*) from event' >"$TMP/sql" 2>"$TMP/err"; st=$?
status_is "pages_2real_2zero: sql exits 0" 0
check "pages_2real_2zero: sql counts every event" test "$(tail -1 "$TMP/sql")" = "$n"

# --- Other paddings of real dumps: zero sub-buffers first, between, at the end. ---
# pad NAME SIZE FILE: twins of FILE (whole SIZE-byte sub-buffers) with zero ones, each
# read with no options as FILE is: the same layout, the same events in order.
pad() {
	what=$1 size=$2 file=$3
	report "$file"
	layout=$(sed -n 1p "$TMP/out" | sed 's/.*: ftrace/ftrace/')
	events_of "$TMP/out" >"$TMP/base.events"
	total=$(($(wc -c <"$file") / size))
	first=$(($(grep -c '^  0x' "$TMP/out")))
	check "$what: the listing agrees with the page headers" test "$(count_events "$file" "$size")" = "$first"
	for twin in front1 front3 between end1 end2 front_end; do
		case $twin in
		front1) { zeros 1 "$size"; cat "$file"; } ;;
		front3) { zeros 3 "$size"; cat "$file"; } ;;
		between) { head -c "$size" "$file"; zeros 2 "$size"; tail -c +$((size + 1)) "$file"; } ;;
		end1) { cat "$file"; zeros 1 "$size"; } ;;
		end2) { cat "$file"; zeros 2 "$size"; } ;;
		front_end) { zeros 2 "$size"; cat "$file"; zeros 1 "$size"; } ;;
		esac >"$TMP/twin.raw"
		# format detection looks at the first 64 KiB: past that many zeros, --pages
		case $twin in
		front*) lead=$size ;;
		*) lead=0 ;;
		esac
		[ "$twin" = front3 ] && lead=$((3 * size))
		[ "$twin" = front_end ] && lead=$((2 * size))
		if [ "$lead" -ge 65536 ]; then report "$TMP/twin.raw" --pages; else report "$TMP/twin.raw"; fi
		events_of "$TMP/out" >"$TMP/twin.events"
		nz=$(grep -c '^sub-buffer .*: empty, every byte zero' "$TMP/out")
		if [ "$st" -eq 0 ] && sed -n 1p "$TMP/out" | grep -qF "$layout" &&
			cmp -s "$TMP/base.events" "$TMP/twin.events" && [ -s "$TMP/twin.events" ] &&
			[ "$nz" -eq $(($(wc -c <"$TMP/twin.raw") / size - total)) ]; then
			ok "$what, zero sub-buffers $twin: the same layout and events"
		else
			not_ok "$what, zero sub-buffers $twin: the same layout and events (exit $st, $nz zero)"
			sed -n 1p "$TMP/out" | sed 's/^/#   /'
			head -3 "$TMP/err" | sed 's/^/#   /'
		fi
	done
}
pad "4 KiB pages" 4096 "$TMP/two.raw"
pad "4 KiB dump" 4096 "$SHARED/data/ftrace/schedviz_cpu0.trace_pipe_raw"
zstd -q -d -c "$ROOT/tests/data/subbuf8k_cpu0.raw.zst" >"$TMP/8k.raw"
head -c $((8 * 8192)) "$TMP/8k.raw" >"$TMP/8k_head.raw"
pad "8 KiB sub-buffers" 8192 "$TMP/8k_head.raw"
# its first four use less than half of their 8 KiB: zeros behind records, 4 KiB apart
head -c $((4 * 8192)) "$TMP/8k.raw" >"$TMP/8k_small.raw"
pad "8 KiB sub-buffers, half empty" 8192 "$TMP/8k_small.raw"
zstd -q -d -c "$ROOT/tests/data/subbuf64k/polled_cpu0.raw.zst" >"$TMP/64k.raw"
head -c $((6 * 65536)) "$TMP/64k.raw" >"$TMP/64k_head.raw"
pad "64 KiB sub-buffers, 1 KiB used" 65536 "$TMP/64k_head.raw"

# --- Real 64 KiB sub-buffers, each less than half used: what the kernel read. ---
report "$TMP/64k.raw"
status_is "64 KiB polled dump: read with no options" 0
check "64 KiB polled dump: 65536-byte sub-buffers" grep -q "sub-buffers of 65536 bytes" "$TMP/out"
check "64 KiB polled dump: the kernel's 312 events read" grep -qx "# 40 sub-buffers, 312 events" "$TMP/out"
check "64 KiB polled dump: the page headers agree" test "$(count_events "$TMP/64k.raw" 65536)" = 312
zstd -q -d -c "$ROOT/tests/data/subbuf64k/one_read_cpu0.raw.zst" >"$TMP/64k_one.raw"
report "$TMP/64k_one.raw"
check "64 KiB single read: one 65536-byte sub-buffer, the kernel's 527 events" sh -c "grep -q 'sub-buffers of 65536 bytes' '$TMP/out' && grep -qx '# 1 sub-buffers, 527 events' '$TMP/out'"

# --- Only zero bytes: no layout to tell, and no guess. ---
zeros 4 4096 >"$TMP/zero.raw"
report "$TMP/zero.raw"
status_is "only zeros: exit 1" 1
check "only zeros: says the bytes are zero" grep -qx "ktrace: $TMP/zero.raw: unrecognised file format: all 16384 bytes are zero (a ring buffer never written? see --pages)" "$TMP/err"
report "$TMP/zero.raw" --pages
status_is "only zeros, --pages: exit 1" 1
check "only zeros, --pages: no layout guessed" grep -qx "ktrace: $TMP/zero.raw: offset 0x0: all 16384 bytes are zero: no sub-buffer holds data to tell the layout by (a buffer never written?); --page-size, --long-size and --endian list them" "$TMP/err"
check "only zeros, --pages: nothing listed" test ! -s "$TMP/out"
report "$TMP/zero.raw" --page-size 4096
status_is "only zeros, --page-size alone: exit 1" 1
report "$TMP/zero.raw" --page-size 4096 --long-size 8 --endian little
status_is "only zeros, the whole layout given: exit 0" 0
check "only zeros, the whole layout given: four empty sub-buffers" sh -c "[ \$(grep -c ': empty, every byte zero' '$TMP/out') -eq 4 ] && grep -qx '# 4 sub-buffers (4 all zero), 0 events' '$TMP/out'"
"$KTRACE" info --page-size 4096 --long-size 8 --endian little "$TMP/zero.raw" >"$TMP/info" 2>&1
check "only zeros, info with the layout" grep -qx "Sub-buffers:       4 (4 empty, 4 of them all zero)" "$TMP/info"

# --- What the data cannot tell: every header at an even index, zeros after each. ---
# Two 4 KiB pages each followed by a zero one are also two 8 KiB sub-buffers less than
# half used (as the 64 KiB dump above is): the bigger size is taken, the events are the
# same, and --page-size says otherwise.
{ head -c 4096 "$REL"; zeros 1 4096; tail -c +4097 "$TMP/two.raw"; zeros 1 4096; } >"$TMP/alt.raw"
report "$TMP/alt.raw"
check "every other page zero: read as 8 KiB sub-buffers" grep -qx "# 2 sub-buffers, $n events" "$TMP/out"
report "$TMP/alt.raw" --page-size 4096
check "every other page zero, --page-size 4096: 4 sub-buffers" grep -qx "# 4 sub-buffers (2 all zero), $n events" "$TMP/out"

# --- A damaged page is not the unused end of a bigger sub-buffer. ---
# The second real page's commit word set to all ones: the kernel zeroes what a sub-buffer
# does not use, so the first page cannot be the start of an 8-64 KiB sub-buffer whose
# unused end holds that page (it was read so, 3 events and exit 0, found by the
# hostile-input campaign); no size fits, and the file is refused.
python3 -c "
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[4104:4112] = b'\xff' * 8
open(sys.argv[2], 'wb').write(d)" "$REL" "$TMP/bad2.raw"
report "$TMP/bad2.raw"
status_is "second page damaged: exit 1" 1
check "second page damaged: not read as a bigger sub-buffer" sh -c "! grep -q '^# 1 sub-buffers' '$TMP/out' && grep -qE 'unrecognised file format|no sub-buffer layout fits' '$TMP/err'"
report "$TMP/bad2.raw" --page-size 4096 --long-size 8 --endian little
status_is "second page damaged, the layout given: exit 1" 1
check "second page damaged, the layout given: the first page's events, the damage named" sh -c "grep -q '^# .*sub-buffers.*' '$TMP/out' && grep -q 'offset 0x1000' '$TMP/err'"
