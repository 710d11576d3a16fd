# ktrace timeline: the command line, the SVG (valid XML, the same lanes as the page),
# damaged input, every input format, and the page in headless Chromium
# (tests/timeline/browser.py: a slice from each of the report's sched_switch lines,
# every record's line against `ktrace report`, the tooltip of a slice, the screenshot's
# lanes and colours, zoom and pan through the DevTools protocol).
. "$(dirname "$0")/../lib.sh"
T="$ROOT/tests/timeline"
D="$ROOT/tests/data"

zstd -q -d -o "$TMP/boot.dat" "$D/report/boot.v6.dat.zst"
zstd -q -d -o "$TMP/instance.dat" "$D/tracedat/instance.v6.dat.zst"
zstd -q -d -o "$TMP/dropped.dat" "$D/tracedat_write/kt_dropped.v6.dat.zst"
DEMO="$ROOT/examples/sched_demo.dat"

# the checks before the browser's: NSCRIPT; the browser's: as many as browser.py --plan
# says for the cases given to it (the plan is printed at the end, when the cases are
# known: a KOFF page is one only when the producer ran)
NSCRIPT=51

# ---- the command line ----
"$KTRACE" timeline "$TMP/boot.dat" >"$TMP/e" 2>&1; st=$?
check "no -o: usage error (2)" test "$st" = 2
check "no -o: says what is missing" grep -q 'no output' "$TMP/e"
"$KTRACE" timeline --from x "$TMP/boot.dat" -o "$TMP/x.html" >"$TMP/e" 2>&1; st=$?
check "bad --from: usage error (2)" test "$st" = 2
"$KTRACE" timeline --from 2 --to 1 "$TMP/boot.dat" -o "$TMP/x.html" >"$TMP/e" 2>&1; st=$?
check "--to before --from: usage error (2)" test "$st" = 2
"$KTRACE" timeline --threads 0 "$TMP/boot.dat" -o "$TMP/x.html" >"$TMP/e" 2>&1; st=$?
check "--threads 0: usage error (2)" sh -c "test $st = 2 && grep -q 'threads takes 1 to 8' '$TMP/e'"
"$KTRACE" timeline --codec zip "$TMP/boot.dat" -o "$TMP/x.html" >"$TMP/e" 2>&1; st=$?
check "--codec zip: usage error (2)" sh -c "test $st = 2 && grep -q 'lz4 or deflate' '$TMP/e'"
check "help timeline" sh -c "'$KTRACE' help timeline | grep -q 'ktrace timeline - draw a trace'"
"$KTRACE" timeline "$TMP/missing.dat" -o "$TMP/m.html" >"$TMP/e" 2>&1; st=$?
check "missing input: exit 1, message, no output" sh -c "test $st = 1 && grep -q 'missing.dat' '$TMP/e' && test ! -e '$TMP/m.html'"
echo keep >"$TMP/keep.html"
"$KTRACE" timeline -F 'sched_switch: (' "$TMP/boot.dat" -o "$TMP/keep.html" >"$TMP/e" 2>&1; st=$?
check "bad filter: exit 1, the old output kept, no temporary left" \
	sh -c "test $st = 1 && grep -qx keep '$TMP/keep.html' && test -z \"\$(ls -A '$TMP' | grep '^\\.keep')\""

# ---- pages ----
for t in boot instance dropped; do
	"$KTRACE" timeline -q "$TMP/$t.dat" -o "$TMP/$t.html" 2>"$TMP/$t.err"; st=$?
	check "$t: page written (exit $st)" sh -c "test $st = 0 && head -c 15 '$TMP/$t.html' | grep -q '<!DOCTYPE html>'"
	"$KTRACE" report "$TMP/$t.dat" >"$TMP/$t.txt" 2>/dev/null
done
"$KTRACE" timeline -q "$DEMO" -o "$TMP/demo.html"
"$KTRACE" report "$DEMO" >"$TMP/demo.txt"
# a trace big enough for the line threads to make chunks: every event of a VM, its
# pages repeated to 4 MB (98 k records; bench/read/mkbig.py)
zstd -q -d -o "$TMP/all.dat" "$D/report/allevents.v6.dat.zst"
python3 "$ROOT/bench/read/mkbig.py" "$TMP/all.dat" "$TMP/big.dat" 4
# (its line chunks in LZ4 blocks, as for big inputs; the other pages: deflate)
"$KTRACE" timeline -q --threads 3 --codec lz4 "$TMP/big.dat" -o "$TMP/big.html"
"$KTRACE" report "$TMP/big.dat" >"$TMP/big.txt"
check "--codec lz4: the line chunks and the column chunks are LZ4 blocks" \
	sh -c "test \$(grep -c 'id=\"l[0-9]*\" [^>]*data-c=\"lz4\"' '$TMP/big.html') -gt 10 &&
	       grep -q 'id=\"e0\" [^>]*data-c=\"lz4\"' '$TMP/big.html'"
"$KTRACE" timeline -q --threads 3 "$TMP/big.dat" -o "$TMP/bigdeflate.html"
check "a 4 MB input: the line chunks in deflate (the page's size before speed)" \
	sh -c "grep -q 'id=\"l0\"' '$TMP/bigdeflate.html' && ! grep -q '<script type=\"text/x-ktl\"[^>]*data-c=' '$TMP/bigdeflate.html'"
# a scheduler-heavy trace (the boot trace: one record in six a switch) on two line
# threads: the caller's thread hands the model to a model thread of its own after the
# first chunk, which takes the place of a line thread (timeline_write.c); the columns,
# intervals and wakeups are the bytes one line thread gives
python3 "$ROOT/bench/read/mkbig.py" "$TMP/boot.dat" "$TMP/bootbig.dat" 6
"$KTRACE" timeline -q --threads 2 "$TMP/bootbig.dat" -o "$TMP/bootbig.html"
"$KTRACE" timeline -q --threads 1 "$TMP/bootbig.dat" -o "$TMP/bootbig1.html"
"$KTRACE" report "$TMP/bootbig.dat" >"$TMP/bootbig.txt"
check "the model handed over: the column, state and wakeup chunks are one thread's bytes" python3 -c '
import re, sys
def blocks(path):
    s = open(path, "rb").read()
    return {m.group(1): s[m.end():s.index(b"</script>", m.end())]
            for m in re.finditer(rb"<script type=\"text/x-ktl\" id=\"([esw]\d+)\"[^>]*>", s)}
a, b = blocks(sys.argv[1]), blocks(sys.argv[2])
sys.exit(0 if a == b and len(a) > 3 and any(k.startswith(b"s") for k in a) else 1)' \
	"$TMP/bootbig.html" "$TMP/bootbig1.html"
# 17 MB of it: LZ4 by default
python3 "$ROOT/bench/read/mkbig.py" "$TMP/all.dat" "$TMP/big17.dat" 17
"$KTRACE" timeline -q "$TMP/big17.dat" -o "$TMP/big17.html"
check "a 17 MB input: the line chunks are LZ4 blocks by default" \
	sh -c "test \$(grep -c 'id=\"l[0-9]*\" [^>]*data-c=\"lz4\"' '$TMP/big17.html') -gt 10"
# the same as version 7 with zstd (a 2 MB file): its record data decides, not the file
"$KTRACE" convert --file-version 7 --compression zstd -i "$TMP/big17.dat" -o "$TMP/big17z.dat" 2>/dev/null
"$KTRACE" timeline -q "$TMP/big17z.dat" -o "$TMP/big17z.html"
check "a zstd trace.dat of 17 MB of data in a smaller file: LZ4 blocks by default" \
	sh -c "test \$(stat -c %s '$TMP/big17z.dat') -lt 16777216 &&
	       test \$(grep -c 'id=\"l[0-9]*\" [^>]*data-c=\"lz4\"' '$TMP/big17z.html') -gt 10"
rm -f "$TMP/big17.dat" "$TMP/big17.html" "$TMP/big17z.dat" "$TMP/big17z.html"
# and one CPU of it (the stream does not skip with --cpu: each thread reads all)
"$KTRACE" timeline -q --threads 3 --cpu 1 "$TMP/big.dat" -o "$TMP/bigcpu.html"
"$KTRACE" report --cpu 1 "$TMP/big.dat" >"$TMP/bigcpu.txt"
# a line thread that cannot open the trace (its open fails: tests/tools/failopen.c) is
# left out, the others make its chunks (the first thread's stream opens the input
# twice, then the line threads' do; the model's walk after them)
if [ -z "${SANFLAGS:-}" ]; then
	LD_PRELOAD="$ROOT/$B/tests/tools/failopen.so" FAILOPEN_PATH="$TMP/big.dat" FAILOPEN_NTH=3 \
		"$KTRACE" timeline -q --threads 3 "$TMP/big.dat" -o "$TMP/bigfail.html" 2>"$TMP/bigfail.err"
	st=$?
	check "a line thread that cannot open the trace: exit 0, every chunk made by the two others" \
		sh -c "test $st = 0 && test ! -s '$TMP/bigfail.err' &&
		       test \$(grep -o 'id=\"l[0-9]*\"' '$TMP/bigfail.html' | wc -l) = \$(grep -o 'id=\"l[0-9]*\"' '$TMP/big.html' | wc -l) &&
		       test \$(grep -o 'data-d=\"[0-9]\"' '$TMP/bigfail.html' | sort -u | wc -l) -le 2 &&
		       test \$(grep -o 'data-d=\"[0-9]\"' '$TMP/bigfail.html' | sort -u | wc -l) -ge 1"
else
	ok "a line thread that cannot open the trace # SKIP no preloading into a sanitized build"
fi
check "the line chunks come after the page's script (the picture is drawn before they are parsed)" python3 -c '
import sys
s = open(sys.argv[1], encoding="utf-8").read()
script, first_line = s.find("<script>"), s.find("id=\"l0\"")
sys.exit(0 if 0 < script < first_line and s.count("id=\"l") > 10 and s.endswith("</script>\n</body></html>\n") else 1)' "$TMP/big.html"
# no temporary file to be had (to a pipe, where the line chunks would wait in one): the
# line chunks go in place, before the script
{ TMPDIR="$TMP/none" "$KTRACE" timeline -q --threads 2 "$TMP/big.dat" -o -; echo $? >"$TMP/st"; } |
	cat >"$TMP/bignotmp.html"
st=$(cat "$TMP/st")
check "no temporary file for the line chunks: exit 0, the chunks before the script" python3 -c '
import sys
s = open(sys.argv[1], encoding="utf-8").read()
sys.exit(0 if sys.argv[2] == "0" and 0 < s.find("id=\"l0\"") < s.find("<script>") else 1)' "$TMP/bignotmp.html" "$st"
check "three line threads: the chunks made by more than one" \
	sh -c "test \$(grep -o 'data-d=\"[0-9]\"' '$TMP/big.html' | sort -u | wc -l) -ge 2"
# two files hours apart: record times far from those of the records before them
# a name of the command's pid registered before the first comm lookup (its CPU's idle
# task woke it) is kept beside the saved one, and trace-cmd's lookup finds one of them;
# the page's line thread formats the record and used to register it a second time
# (tests/data/comm/dupname.v6.dat.zst, recorded here: page 'ktrace-7823' against
# report's 'sh-7823')
zstd -q -d -o "$TMP/dupname.dat" "$D/comm/dupname.v6.dat.zst"
"$KTRACE" timeline -q --threads 1 "$TMP/dupname.dat" -o "$TMP/dupname.html"
"$KTRACE" report "$TMP/dupname.dat" >"$TMP/dupname.txt"
if command -v trace-cmd >/dev/null 2>&1; then
	check "comm registered twice: ktrace report prints trace-cmd report's names" \
		sh -c "trace-cmd report '$TMP/dupname.dat' 2>/dev/null | cmp - '$TMP/dupname.txt'"
else
	skip 1 "comm registered twice: ktrace report prints trace-cmd report's names" "no trace-cmd"
fi
"$KTRACE" timeline -q "$TMP/boot.dat" "$DEMO" -o "$TMP/two.html"
"$KTRACE" report "$TMP/boot.dat" "$DEMO" >"$TMP/two.txt"
check "self-contained: nothing the page would load (src=, href=, url(), import, http)" python3 -c '
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
s = re.sub(r"<script type=\"(text/x-ktl|application/json)\"[^>]*>.*?</script>", "", s, flags=re.S)
sys.exit(1 if re.search(r"(src|href)\s*=|url\(|@import|https?:|import\(|fetch\(|XMLHttpRequest", s) else 0)' "$TMP/demo.html"
chmod 640 "$TMP/demo.html"
"$KTRACE" timeline -q "$DEMO" -o "$TMP/demo.html"
check "rewriting keeps the file's mode" sh -c "stat -c %a '$TMP/demo.html' | grep -qx 640"
"$KTRACE" timeline -q "$DEMO" -o - >"$TMP/stdout.html"
check "-o - writes the page to standard output" cmp -s "$TMP/stdout.html" "$TMP/demo.html"
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/fromfifo.html" &
"$KTRACE" timeline -q "$DEMO" -o "$TMP/fifo"; wait
check "a FIFO is written to, not replaced" sh -c "test -p '$TMP/fifo' && cmp -s '$TMP/fromfifo.html' '$TMP/demo.html'"
# where the page's parts go (lib/sinks/timeline/timeline_layout.c): into an empty file on
# ext4/xfs the head from the start and the line chunks far beyond it, the hole between
# them collapsed at the end (else the lines copied down); on other file systems the
# line chunks go first and the head is put in front at the end (the lines copied up);
# after what a file already has, the lines wait
printf 'before\n' >"$TMP/appended.html"
"$KTRACE" timeline -q "$DEMO" -o - >>"$TMP/appended.html"
check "-o - appended to a file: what it had, then the same page" \
	sh -c "head -c 7 '$TMP/appended.html' | grep -qx before && tail -c +8 '$TMP/appended.html' | cmp -s - '$TMP/demo.html'"
"$KTRACE" timeline -q --threads 1 "$TMP/big.dat" -o "$TMP/big1.html"
check "the page's head is padded to 4096-byte blocks (the insertion's unit)" python3 -c '
import sys
s = open(sys.argv[1], "rb").read()
sys.exit(0 if s.find(b"<script type=\"text/x-ktl\" id=\"l0\"") % 4096 == 0 else 1)' "$TMP/big1.html"
if [ -z "${SANFLAGS:-}" ]; then
	LD_PRELOAD="$ROOT/$B/tests/tools/nofalloc.so" "$KTRACE" timeline -q --threads 1 "$TMP/big.dat" \
		-o "$TMP/big1copied.html"; st=$?
	check "without fallocate (the parts copied, not moved: $(stat -f -c %T "$TMP")) exit 0, the same bytes" \
		sh -c "test $st = 0 && cmp '$TMP/big1copied.html' '$TMP/big1.html'"
else
	ok "without fallocate, the same bytes # SKIP no preloading into a sanitized build"
fi
SHM=$(mktemp -d /dev/shm/ktrace-timeline.XXXXXX 2>/dev/null)
if [ -n "$SHM" ] && [ "$(stat -f -c %T "$SHM")" = tmpfs ]; then
	"$KTRACE" timeline -q --threads 1 "$TMP/big.dat" -o "$SHM/big1.html"
	check "on tmpfs (no block insertion: the lines copied up) the same bytes" cmp "$SHM/big1.html" "$TMP/big1.html"
	TMPDIR="$SHM" "$KTRACE" timeline -q --threads 1 "$TMP/big.dat" -o - | cat >"$TMP/big1pipe.html"
	check "to a pipe (the lines wait in a temporary file) the same bytes" cmp "$TMP/big1pipe.html" "$TMP/big1.html"
	"$KTRACE" timeline -q --threads 1 "$TMP/big.dat" -o - >"$SHM/stdout.html"; st=$?
	check "-o - into a file on tmpfs opened for writing only: exit 0, the same bytes" \
		sh -c "test $st = 0 && cmp '$SHM/stdout.html' '$TMP/big1.html'"
else
	skip 3 "the page written on tmpfs, to a pipe, to standard output on tmpfs" "no tmpfs at /dev/shm"
fi
[ -n "$SHM" ] && rm -rf "$SHM"
size=$(stat -c %s "$TMP/dropped.html"); tsize=$(stat -c %s "$TMP/dropped.dat")
# (1/4 before the page carried the model's thread intervals: 468 of 482 KB then; 0.27
# before its wakeup latencies (6 KB) and the script that draws them (9 KB): 513 KB; the
# page's script is 69 KB of it, the goal of 1/4 is the bench trace's)
check "page of kt_dropped is under 0.28 of its trace.dat ($size of $tsize bytes)" test $((size * 100)) -le $((tsize * 28))

# ---- SVG: valid XML, the page's lanes ----
svgcheck() {   # svg html: CPU lanes as in the page's metadata, the top threads in its order
	python3 - "$1" "$2" <<'EOF'
import json, re, sys, xml.etree.ElementTree as ET
svg = ET.parse(sys.argv[1]).getroot()
ns = '{http://www.w3.org/2000/svg}'
html = open(sys.argv[2], encoding='utf-8').read()
meta = json.loads(re.search(r'<script type="application/json" id="meta">(.*?)</script>', html, re.S).group(1))
cpus = [g.get('data-cpu') for g in svg.iter(ns + 'g') if g.get('class') == 'cpu']
want = [str(c[0]) for c in meta['cpus']]
th = [int(g.get('data-tid')) for g in svg.iter(ns + 'g') if g.get('class') == 'thread']
order = sorted([t for t in meta['threads'] if t[0] != 0 and (t[3] or t[4])],
               key=lambda t: (-t[3], -t[4], t[0]))
want_th = [t[0] for t in order[:meta['top']]]
ok = cpus == want and th == want_th and len(cpus + th) > 0
print('cpus %s (page %s), threads %s (page %s)' % (cpus, want, th[:6], want_th[:6]))
sys.exit(0 if ok else 1)
EOF
}
for t in boot instance dropped; do
	"$KTRACE" timeline -q "$TMP/$t.dat" -o "$TMP/$t.svg"
	check "$t: SVG is valid XML with the page's CPU and thread lanes" svgcheck "$TMP/$t.svg" "$TMP/$t.html"
done
check "SVG with --svg and a window" sh -c "'$KTRACE' timeline -q --svg --from 5406.75 --to 5406.95 '$TMP/boot.dat' -o '$TMP/w.out' && python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' '$TMP/w.out' && grep -q '5406.800000' '$TMP/w.out'"

# ---- damaged input: drawn up to the damage, marked, exit 1 ----
python3 - "$TMP/boot.dat" "$TMP/corrupt.dat" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 0x24000 + 5 * 4096        # a sub-buffer of CPU 0: its commit past the page
d[off + 8:off + 16] = (0xfffff).to_bytes(8, 'little')
open(sys.argv[2], 'wb').write(d)
EOF
"$KTRACE" report "$TMP/corrupt.dat" >/dev/null 2>"$TMP/report.err"
"$KTRACE" timeline -q "$TMP/corrupt.dat" -o "$TMP/corrupt.html" 2>"$TMP/corrupt.err"; st=$?
check "damaged trace.dat: exit 1, the page written" sh -c "test $st = 1 && test -s '$TMP/corrupt.html'"
check "damaged trace.dat: the same message as report" sh -c "test -s '$TMP/report.err' && cmp '$TMP/corrupt.err' '$TMP/report.err'"
check "damaged trace.dat: the page's metadata has the damage" grep -q '"damage":{"at":[0-9]*,"message":".*sub-buffer commit size exceeds the page' "$TMP/corrupt.html"
# three line threads that all meet the damage (a sub-buffer of CPU 1 in the middle of
# the big trace: 84 k records read, each thread has made chunks by then)
python3 - "$TMP/big.dat" "$TMP/bigbad.dat" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = (len(d) * 45 // 100) & ~4095
d[off + 8:off + 16] = (0xfffff).to_bytes(8, 'little')
open(sys.argv[2], 'wb').write(d)
EOF
"$KTRACE" report "$TMP/bigbad.dat" >"$TMP/bigbad.txt" 2>"$TMP/bigbad.rerr"
# (--lines-codec: the first name of --codec, still taken)
"$KTRACE" timeline -q --threads 3 --lines-codec lz4 "$TMP/bigbad.dat" -o "$TMP/bigbad.html" 2>"$TMP/bigbad.err"; st=$?
check "damaged, three line threads: exit 1, the same message as report" \
	sh -c "test $st = 1 && test -s '$TMP/bigbad.rerr' && cmp -s '$TMP/bigbad.err' '$TMP/bigbad.rerr'"
"$KTRACE" timeline -q "$TMP/corrupt.dat" -o "$TMP/corrupt.svg" 2>/dev/null; st=$?
check "damaged trace.dat: SVG written (exit 1), valid, damage drawn" \
	sh -c "test $st = 1 && python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' '$TMP/corrupt.svg' && grep -q 'class=\"damage\"' '$TMP/corrupt.svg'"
head -c 50000 "$ROOT/examples/sched_cpu0.trace_pipe_raw" >"$TMP/raw.trunc"
"$KTRACE" timeline -q "$TMP/raw.trunc" -o "$TMP/raw.html" 2>"$TMP/raw.err"; st=$?
check "truncated ring-buffer dump: exit 1, page written, offset named" \
	sh -c "test $st = 1 && test -s '$TMP/raw.html' && grep -q 'raw.trunc: offset 0x' '$TMP/raw.err'"

# ---- every format the stream reads ----
"$KTRACE" timeline -q "$ROOT/examples/sched_cpu0.trace_pipe_raw" -o "$TMP/pages.html"
check "raw ring-buffer pages: page written" test -s "$TMP/pages.html"
DW="$SHARED/data/darwin/coreprofilesessiontap.bin"
if [ -f "$DW" ]; then
	"$KTRACE" timeline -q "$DW" -o "$TMP/darwin.html"; st=$?
	check "Darwin ktrace file: page written (exit $st)" test "$st" = 0
	"$KTRACE" timeline -q "$DW" -o "$TMP/darwin.svg"
	check "Darwin: SVG with the page's lanes" svgcheck "$TMP/darwin.svg" "$TMP/darwin.html"
	check "Darwin: MACH_SCHED switches give slices" grep -q '"cpus":\[\[0,[1-9]' "$TMP/darwin.html"
else
	skip 3 "Darwin ktrace file" "$DW not found"
fi
BUF=/dev/shm/koff-test-$$-timeline
if "$ROOT/$B/tests/koff/test_koff_producer" example "$BUF" >/dev/null 2>&1; then
	"$KTRACE" timeline -q "$BUF" -o "$TMP/koff.html"; st=$?
	check "KOFF buffer: page written (exit $st)" test "$st" = 0
	"$KTRACE" timeline -q "$BUF" -o "$TMP/koff.svg"
	check "KOFF: SVG with one lane per thread" svgcheck "$TMP/koff.svg" "$TMP/koff.html"
	rm -f "$BUF"
else
	not_ok "KOFF buffer: the producer did not run"
	skip 1 "KOFF: SVG" "no buffer"
fi

# ---- a trace recorded now (root and tracefs), else the bundled one ----
REC="$DEMO"
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/sched ]; then
	tracefs_lock
	if "$KTRACE" record -e sched:sched_switch -e sched:sched_wakeup -e irq -e timer:hrtimer_expire_entry \
		-o "$TMP/rec.dat" -- sh -c 'for i in 1 2; do (i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done) & done; ls -R /usr/lib >/dev/null; wait' \
		>"$TMP/rec.log" 2>&1; then
		REC="$TMP/rec.dat"
		ok "recorded a trace with ktrace record"
	else
		not_ok "ktrace record"; sed 's/^/#   /' "$TMP/rec.log" | tail -5
	fi
	exec 9>&-
else
	ok "record a trace # SKIP needs root and tracefs (the bundled demo trace is used)"
fi
"$KTRACE" timeline -q "$REC" -o "$TMP/rec.html"
"$KTRACE" report "$REC" >"$TMP/rec.txt"

# trace-cmd's text of the traces, for the slices of each CPU (browser.py's oracle)
TC_REC= TC_DEMO= TC_BOOT= TC_INSTANCE= TC_BIG= TC_BIGCPU= TC_DROPPED=
if command -v trace-cmd >/dev/null 2>&1; then
	tc() {   # output, trace-cmd report options...
		o=$1; shift
		trace-cmd report -t "$@" >"$TMP/$o" 2>/dev/null && echo ",tracecmd=$TMP/$o"
	}
	TC_REC=$(tc rec.tc "$REC")
	TC_DEMO=$(tc demo.tc "$DEMO")
	TC_BOOT=$(tc boot.tc "$TMP/boot.dat")
	TC_INSTANCE=$(tc instance.tc "$TMP/instance.dat")
	TC_BIG=$(tc big.tc "$TMP/big.dat")
	TC_BIGCPU=$(tc bigcpu.tc --cpu 1 "$TMP/big.dat")
	TC_DROPPED=$(tc dropped.tc "$TMP/dropped.dat")
fi
# --pid: the records trace-cmd report keeps with the same option (ktrace report's
# without trace-cmd). (Not the boot trace: trace-cmd 3.1.6 dies of SIGSEGV there.)
"$KTRACE" timeline -q --pid 2423,2430 "$DEMO" -o "$TMP/demopid.html"
if command -v trace-cmd >/dev/null 2>&1; then
	trace-cmd report --pid 2423,2430 "$DEMO" >"$TMP/demopid.txt" 2>/dev/null
	TC_DEMOPID=$(tc demopid.tc --pid 2423,2430 "$DEMO")
else
	"$KTRACE" report --pid 2423,2430 "$DEMO" >"$TMP/demopid.txt"
	TC_DEMOPID=
fi
# the CPU time of each thread in the page's metadata against sched_slice in ktrace sql of
# the same inputs (the engine's model, docs/model.md; --cpu is the timeline's alone)
for p in rec:"$REC" demo:"$DEMO" boot:"$TMP/boot.dat" bootbig:"$TMP/bootbig.dat" instance:"$TMP/instance.dat" big:"$TMP/big.dat" \
	dropped:"$TMP/dropped.dat" two:"$TMP/boot.dat $DEMO"; do
	# shellcheck disable=SC2086
	checker python3 "$T/cputime.py" "${p%%:*}" "$TMP/${p%%:*}.html" "$KTRACE" ${p#*:}
done

# ---- Chromium ----
set -- \
	"recorded,$TMP/rec.html,report=$TMP/rec.txt$TC_REC,pictures,zoom" \
	"demo,$TMP/demo.html,report=$TMP/demo.txt$TC_DEMO,pictures,screenshot=$ROOT/$B/timeline-demo.png" \
	"boot,$TMP/boot.html,report=$TMP/boot.txt$TC_BOOT,pictures" \
	"instance,$TMP/instance.html,report=$TMP/instance.txt$TC_INSTANCE" \
	"demo --pid,$TMP/demopid.html,report=$TMP/demopid.txt$TC_DEMOPID" \
	"two files,$TMP/two.html,report=$TMP/two.txt" \
	"comm registered twice,$TMP/dupname.html,report=$TMP/dupname.txt" \
	"three threads,$TMP/big.html,report=$TMP/big.txt$TC_BIG,lost" \
	"the model handed over,$TMP/bootbig.html,report=$TMP/bootbig.txt" \
	"three threads on CPU 1,$TMP/bigcpu.html,report=$TMP/bigcpu.txt$TC_BIGCPU" \
	"without DecompressionStream,$TMP/bigdeflate.html,report=$TMP/big.txt,no_stream" \
	"lines before the script,$TMP/bignotmp.html,report=$TMP/big.txt" \
	$( [ -z "${SANFLAGS:-}" ] && echo "thread-left-out,$TMP/bigfail.html,report=$TMP/big.txt") \
	"dropped,$TMP/dropped.html,report=$TMP/dropped.txt$TC_DROPPED,lost" \
	"corrupt,$TMP/corrupt.html,damage" \
	"damaged three threads,$TMP/bigbad.html,report=$TMP/bigbad.txt,damage" \
	${DW:+$( [ -f "$TMP/darwin.html" ] && echo "darwin,$TMP/darwin.html,pictures")} \
	$( [ -f "$TMP/koff.html" ] && echo "koff,$TMP/koff.html,threads_only")
plan $((NSCRIPT + 7 + $(python3 "$T/browser.py" --plan "$@")))
checker python3 "$T/browser.py" "$@"
