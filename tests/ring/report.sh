# ktrace report on raw ring-buffer dumps: layout detection, lost events, streams,
# and clear errors for truncated or corrupt dumps.
. "$(dirname "$0")/../lib.sh"
D="$SHARED/data/ftrace"
plan 14

"$KTRACE" report "$D/schedviz_cpu0-32.trace_pipe_raw" >"$TMP/r32" 2>&1
check "32-bit dump detected as 4-byte longs" grep -q "4096 bytes, little-endian, 4-byte kernel longs" "$TMP/r32"
check "32-bit dump data starts at offset 12" grep -q "^  0x0000000c " "$TMP/r32"

# Recorded with buffer_subbuf_size_kb=8; the kernel counted 21200 events read.
zstd -q -d -c "$ROOT/tests/data/subbuf8k_cpu0.raw.zst" >"$TMP/8k.raw"
"$KTRACE" report "$TMP/8k.raw" >"$TMP/r8k" 2>&1
check "8 KiB sub-buffers detected" grep -q "sub-buffers of 8192 bytes" "$TMP/r8k"
check "8 KiB dump: every event listed" grep -q "^# 127 sub-buffers, 21200 events" "$TMP/r8k"

# The synthetic dump: 42 events lost (count stored) before page 1, an unknown count before page 2.
"$KTRACE" report "$D/synthetic_edge_cpu0.trace_pipe_raw" >"$TMP/edge"
check "stored lost-event count" grep -q "^sub-buffer 1 at 0x1000: .*missed 42 events before it" "$TMP/edge"
check "unknown lost-event count" grep -q "^sub-buffer 2 at 0x2000: .*missed events before it (count unknown)" "$TMP/edge"

# Standard input (a pipe) gives the same report as the mapped file, apart from the name.
"$KTRACE" report "$D/schedviz_cpu0.trace_pipe_raw" | tail -n +2 >"$TMP/file"
cat "$D/schedviz_cpu0.trace_pipe_raw" | "$KTRACE" report - | tail -n +2 >"$TMP/pipe"
check_same "pipe input reads like a file" "$TMP/pipe" "$TMP/file"

# Forced layout options.
check "--page-size/--long-size/--endian accepted" sh -c "'$KTRACE' report --page-size 4k --long-size 8 --endian little '$D/schedviz_cpu0.trace_pipe_raw' | tail -1 | grep -q '1366 events'"

# A truncated dump: everything before the cut is printed, then the error, exit 1.
head -c 10000 "$D/schedviz_cpu0.trace_pipe_raw" >"$TMP/cut.raw"
"$KTRACE" report "$TMP/cut.raw" >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 1 ]; then ok "truncated dump exits 1"; else not_ok "truncated dump exits 1 (got $st)"; fi
check "truncated dump error" grep -qx "ktrace: $TMP/cut.raw: offset 0x2000: truncated sub-buffer: 1808 of 4096 bytes" "$TMP/err"
check "truncated dump: earlier sub-buffers printed" grep -q "^sub-buffer 1 at 0x1000" "$TMP/out"

# A corrupt commit field (9999999 bytes in a 4096-byte page) in the second sub-buffer.
cp "$D/schedviz_cpu0.trace_pipe_raw" "$TMP/bad.raw"
printf '\177\226\230\000' | dd of="$TMP/bad.raw" bs=1 seek=$((4096 + 8)) conv=notrunc 2>/dev/null
"$KTRACE" report "$TMP/bad.raw" >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 1 ]; then ok "corrupt dump exits 1"; else not_ok "corrupt dump exits 1 (got $st)"; fi
check "corrupt dump error names the sub-buffer" grep -q "^ktrace: $TMP/bad.raw: offset 0x1000: sub-buffer 1 is corrupt" "$TMP/err"
check "corrupt dump: later sub-buffers still listed" grep -q "^sub-buffer 20 at 0x14000" "$TMP/out"
