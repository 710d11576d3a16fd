# Raw ftrace pages as real kernels write them (tests/data/pages, from Perfetto's reader
# tests): 64-bit commit words with the lost-events flags sign-extended, pages read one
# after the other, a commit that ends inside the last event, a zero-filled page; and data
# that two layouts explain equally well. Detection needs no options; a layout it cannot
# tell is an error (exit 1), never a listing of garbage.
. "$(dirname "$0")/../lib.sh"
P="$ROOT/tests/data/pages"
plan 37
for z in "$P"/*.page.zst; do
	zstd -q -d -c "$z" >"$TMP/$(basename "$z" .page.zst).page"
done

layout8="sub-buffers of 4096 bytes, little-endian, 8-byte kernel longs"
# report FILE: the listing in $TMP/out, stderr in $TMP/err, the exit status in $st
report() { "$KTRACE" report "$@" >"$TMP/out" 2>"$TMP/err"; st=$?; }
expect_status() {   # name status
	if [ "$st" -eq "$2" ]; then ok "$1"; else not_ok "$1 (exit $st)"; sed 's/^/#   /' "$TMP/err" | head -5; fi
}

for p in full_page_sched_switch full_page_ext4 switch_page_lost_events last_ts_test_page_2 abs_timestamp; do
	report "$TMP/$p.page"
	expect_status "$p: read with no options" 0
	check "$p: 4096-byte sub-buffers, 8-byte longs" grep -q "$layout8" "$TMP/out"
done
report "$TMP/full_page_sched_switch.page"
check "full page: 59 events" grep -q "^# 1 sub-buffers, 59 events$" "$TMP/out"
report "$TMP/switch_page_lost_events.page"
check "0xffffffff8000004c: one event, loss flagged" grep -q "^# 1 sub-buffers, 1 events; events lost before 1 sub-buffers" "$TMP/out"
check "0xffffffff8000004c: the event at offset 0x18" grep -q "^  0x00000018 " "$TMP/out"
report "$TMP/full_page_ext4.page"
check "0xffffffffc0000fc8: commit 4040 with a stored lost count" grep -q "^sub-buffer 0 at 0x0: timestamp [0-9]*, commit 4040, missed [0-9]* events before it" "$TMP/out"
report "$TMP/abs_timestamp.page"
check "absolute time stamp: 9 events of id 315" sh -c "[ \$(awk '\$4 == 315' '$TMP/out' | wc -l) -eq 9 ]"
check "absolute time stamp: the 4th at 1376833332542703" sh -c "awk '\$4 == 315' '$TMP/out' | sed -n 4p | grep -q ' 1376833332542703 '"

# Pages read one after the other stay 4096-byte pages (not 8192-byte sub-buffers).
cat "$TMP/last_ts_test_page_0.page" "$TMP/last_ts_test_page_1.page" "$TMP/last_ts_test_page_2.page" >"$TMP/three.raw"
report "$TMP/three.raw"
expect_status "three pages: read with no options" 0
check "three pages: 4096 bytes each" grep -q "$layout8" "$TMP/out"
check "three pages: the second print at 1308020252356549" grep -q "^  0x00001018 *1308020252356549 " "$TMP/out"
check "three pages: loss before the third" grep -q "^sub-buffer 2 at 0x2000: .*missed events before it" "$TMP/out"
cat "$TMP/full_page_sched_switch.page" "$TMP/full_page_ext4.page" "$TMP/switch_page_lost_events.page" \
	"$TMP/abs_timestamp.page" >"$TMP/four.raw"
report "$TMP/four.raw"
check "sign-extended pages among others: 4096 bytes each" grep -q "$layout8" "$TMP/out"
check "sign-extended pages among others: every event" grep -q "^# 4 sub-buffers, 199 events" "$TMP/out"

# A commit that ends inside the last event: not a page the kernel writes.
report "$TMP/invalid_page.page"
expect_status "commit inside the last event: refused" 1
cat "$TMP/full_page_sched_switch.page" "$TMP/invalid_page.page" "$TMP/full_page_ext4.page" \
	"$TMP/abs_timestamp.page" >"$TMP/bad.raw"
report "$TMP/bad.raw"
expect_status "a dump with that page: exit 1" 1
check "a dump with that page: the error names it" grep -q "offset 0x1000: sub-buffer 1 is corrupt" "$TMP/err"
check "a dump with that page: the others printed" grep -q "^sub-buffer 3 at 0x3000" "$TMP/out"
report "$TMP/zero_padded.page"
expect_status "zero-filled page (kernel bug) alone: refused" 1

# Two layouts that explain the data equally well: 8-byte longs read the commit word
# 48 and a 44-byte event; 4-byte longs read a 40-byte event from the same bytes.
python3 - "$TMP/ambiguous.raw" <<'PY'
import struct, sys
p = bytearray(4096)
p[0:8] = struct.pack('<Q', 1000000)
p[8:16] = struct.pack('<Q', 48)
p[16:20] = struct.pack('<I', 43)     # type_len 11, time delta 1
p[20:22] = struct.pack('<H', 300)
open(sys.argv[1], 'wb').write(p * 2)
PY
report "$TMP/ambiguous.raw"
expect_status "two layouts fit: exit 1" 1
check "two layouts fit: says which" grep -q "fit with more than one layout (8-byte longs little-endian, 4-byte longs little-endian)" "$TMP/err"
check "two layouts fit: nothing listed" test ! -s "$TMP/out"
report --long-size 8 "$TMP/ambiguous.raw"
expect_status "two layouts fit: --long-size 8 picks one" 0

# A kcdata buffer with a damaged magic is not taken for ring-buffer pages.
K="$SHARED/data/kcdata"
for n in stackshot-sample-aot stackshot-sample-thread-groups stackshot-sample-portlabels; do
	python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[0] ^= 0xff; open(sys.argv[2], 'wb').write(d)" "$K/$n" "$TMP/damaged"
	report "$TMP/damaged"
	expect_status "kcdata with a damaged magic ($n): exit 1" 1
	check "kcdata with a damaged magic ($n): not listed as pages" grep -q "unrecognised file format" "$TMP/err"
done
