# A fixed-size array read past its record and past the end of its page: libtraceevent
# prints ftrace:kernel_stack's caller[8] (64 bytes) whatever the record holds, reading
# on into the next page of the decompressed chunk (version 7). A file built for it:
# tests/data/report/stacks.v6.dat with CPU 0 made of a page that ends with a 3-frame
# kernel_stack (commit = page end), then a real page. ktrace report -R must print what
# trace-cmd prints, for ktrace's and trace-cmd's own v7 conversions.
. "$(dirname "$0")/../lib.sh"
plan 8
command -v trace-cmd >/dev/null || { skip 8 "past the page" "trace-cmd is not installed"; exit 0; }
zstd -q -d -c "$ROOT/tests/data/report/stacks.v6.dat.zst" >"$TMP/stacks.v6.dat"
python3 - "$ROOT/tests/tracedat/tools" "$TMP/stacks.v6.dat" "$TMP/past.v6.dat" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import tdslim
v = tdslim.V6(open(sys.argv[2], 'rb').read())
real = v.top[0][4096:8192]
ts = struct.unpack_from('<Q', real, 0)[0]
page = bytearray(4096)
struct.pack_into('<QQ', page, 0, ts - 100000, 4080)          # commit: the whole page
struct.pack_into('<II', page, 16, 29, 4032)                   # padding up to the record
struct.pack_into('<I', page, 16 + 4036, 10 | (5 << 5))        # 40-byte event, delta 5
rec = struct.pack('<HBBiiI', 4, 0, 0, 1234, 3, 0)             # kernel_stack, pid 1234, 3 frames
rec += b''.join(struct.pack('<Q', 0xffffffff81000000 + i) for i in range(3))
page[16 + 4040:16 + 4080] = rec
v.top = [bytes(page) + real, v.top[1][:4096]]
tdslim.write(v, sys.argv[3])
PY
"$KTRACE" convert -q "$TMP/past.v6.dat" "$TMP/kt.v7.dat"
trace-cmd convert -i "$TMP/past.v6.dat" -o "$TMP/tc.v7.dat" --file-version 7 --compression zstd >/dev/null 2>&1
for f in kt.v7.dat tc.v7.dat; do
	trace-cmd report -R "$TMP/$f" >"$TMP/tc.txt" 2>/dev/null
	grep -q "1234 .*caller=ARRAY\[00, 00, 00, 81, ff, ff, ff, ff, 01, 00, 00, 81, ff, ff, ff, ff, 02, 00, 00, 81, ff, ff, ff, ff, .*, .*, .*, .*, .*, .*, .*, .*" "$TMP/tc.txt" &&
		ok "$f: trace-cmd reads the array on into the next page" ||
		not_ok "$f: trace-cmd reads the array on into the next page"
	for t in 1 2; do
		"$KTRACE" report -R --threads $t "$TMP/$f" >"$TMP/kt.txt" 2>&1
		check_same "$f: report -R like trace-cmd ($t threads)" "$TMP/kt.txt" "$TMP/tc.txt"
	done
	trace-cmd report "$TMP/$f" >"$TMP/tc.txt" 2>/dev/null
	"$KTRACE" report "$TMP/$f" >"$TMP/kt.txt" 2>&1
	check_same "$f: report like trace-cmd" "$TMP/kt.txt" "$TMP/tc.txt"
done
