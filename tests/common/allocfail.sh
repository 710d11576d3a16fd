#!/bin/sh
# Allocation failures: small traces of every event format (trace.dat v6 and v7, raw
# ftrace pages, a Darwin kdebug stream, a KOFF snapshot) through report, info, export
# (json, perfetto, sqlite), sql, timeline and summary, with the N-th allocation failing for every
# N until a run needs no more (tests/tools/allocfail.c; N by a step where a run makes
# more than ALLOCFAIL_RUNS allocations). Each run must end with an error line and
# status 1, or succeed; never crash, hang, or (in build-san) leak.
. "$(dirname "$0")/../lib.sh"
AF="$ROOT/$B/tests/tools/ktrace_allocfail"
PROD="$ROOT/$B/tests/koff/test_koff_producer"
# (fewer runs under the sanitizers, where each costs ten times more)
if [ -n "${SANFLAGS:-}" ] || [ "${B%san}" != "$B" ]; then : "${ALLOCFAIL_RUNS:=60}"; else : "${ALLOCFAIL_RUNS:=300}"; fi
D="$ROOT/tests/data"

zstd -dcq "$D/tracedat/mixed.v6.dat.zst" >"$TMP/v6.dat"
cp "$D/report/unknown_events.v7.dat" "$TMP/v7.dat"
zstd -dcq "$D/pages/full_page_sched_switch.page.zst" >"$TMP/pages.raw"
# A kdebug RAW_VERSION2 stream: header, a map of 4 threads, padding to 4096, then 300
# 64-byte kd_bufs (see docs/darwin.md).
python3 - "$TMP/darwin.kdebug" <<'EOF'
import struct, sys
threads = [(0x1001 + i, 100 + i, b"proc%d" % i) for i in range(4)]
b = struct.pack("<iiQIIQ", 0x55aa0200, len(threads), 0, 0, 1, 24000000) + bytes(0x100)
for tid, pid, name in threads:
    b += struct.pack("<Qi20s", tid, pid, name)
b += bytes(-len(b) % 4096)
ids = [0x01400080, 0x040c0011, 0x040c0012, 0x25000001, 0x01400008, 0x0140003c]
for i in range(300):
    tid = threads[i % 4][0]
    b += struct.pack("<QQQQQQIIQ", 1000000 + 250 * i, i, 2 * i, 0, tid + 1, tid,
                     ids[i % len(ids)] | (1, 2, 0)[i % 3], i % 2, 0)
open(sys.argv[1], "wb").write(b)
EOF
# A KOFF snapshot of 2 threads x 150 records.
KOFF_BUFFER="$TMP/koff.buf" "$PROD" threads 2 150 exit >/dev/null 2>&1
"$KTRACE" dump --buffer "$TMP/koff.buf" -o "$TMP/koff.snap" >/dev/null 2>&1
rm -f "$TMP/koff.buf"

inputs="v6.dat v7.dat pages.raw darwin.kdebug koff.snap"
plan $((5 * 8))
cd "$TMP" || exit 1
for f in $inputs; do
	run() {   # NAME [--file OUT] -- ARGS...
		name=$1; shift
		if [ ! -s "$f" ]; then
			not_ok "$name of $f (input not made)"
		elif "$AF" --max-runs "$ALLOCFAIL_RUNS" "$@" >"$TMP/af.out" 2>&1; then
			ok "$name of $f: $(tail -1 "$TMP/af.out")"
		else
			not_ok "$name of $f"
			sed 's/^/#   /' "$TMP/af.out" | head -40
		fi
	}
	run report -- report "$f"
	run info -- info "$f"
	run "export json" -- export -o out.json "$f"
	run "export perfetto" -- export -o out.pftrace "$f"
	run "export sqlite" -- export -o out.db "$f"
	run sql -- sql "$f" 'SELECT count(*), max(ts) - min(ts) FROM event; SELECT count(*) FROM sched_slice JOIN thread USING (utid)'
	run timeline -- timeline "$f" -o out.html
	run summary -- summary --json "$f"
done
