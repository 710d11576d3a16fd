#!/bin/sh
# A recording of an instance whose sub-buffer size is not the top buffer's (Linux 6.8+,
# buffer_subbuf_size_kb): the file's header_page must be the recorded buffer's, the one
# that says its sub-buffer size (a version 6 reader checks the page size by it; the top's
# made ktrace refuse its own file). The top buffer is set to 8 KiB sub-buffers for the
# run, the instance keeps the default; both are put back and checked.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing
ID=ktrace-test-$$-sb
N=5
plan $N
[ "$(id -u)" = 0 ] || { skip $N "instance sub-buffers" "not root"; exit 0; }
[ -w $T/buffer_subbuf_size_kb ] ||
	{ skip $N "instance sub-buffers" "no buffer_subbuf_size_kb (Linux before 6.8)"; exit 0; }
command -v trace-cmd >/dev/null || { skip $N "instance sub-buffers" "trace-cmd is not installed"; exit 0; }
tracefs_lock
old=$(cat $T/buffer_subbuf_size_kb)
cleanup() {
	echo "$old" >$T/buffer_subbuf_size_kb
	[ -d "$T/instances/$ID" ] && rmdir "$T/instances/$ID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE
want=8
[ "$old" = 8 ] && want=16
echo $want >$T/buffer_subbuf_size_kb

for v in 6 7; do
	"$KTRACE" record -q -B "$ID" --file-version $v --compression none -e sched:sched_switch \
		-o "$TMP/r$v.dat" -- sleep 0.2 >"$TMP/rec.out" 2>&1
	st=$?
	"$KTRACE" report "$TMP/r$v.dat" >"$TMP/k.txt" 2>"$TMP/k.err"
	kst=$?
	trace-cmd report "$TMP/r$v.dat" >"$TMP/t.txt" 2>"$TMP/t.err"
	# (the same lines, not compared byte for byte: which comm a pid that exec'd shows
	# differs between ktrace and trace-cmd when the exec races the first switch)
	if [ $st = 0 ] && [ $kst = 0 ] && [ ! -s "$TMP/k.err" ] && [ ! -s "$TMP/t.err" ] &&
	   [ "$(wc -l <"$TMP/k.txt")" -gt 1 ] && [ "$(wc -l <"$TMP/k.txt")" = "$(wc -l <"$TMP/t.txt")" ]; then
		ok "version $v: the instance's recording reads clean, as many lines as trace-cmd's"
	else
		not_ok "version $v: record exit $st, report exit $kst, $(wc -l <"$TMP/k.txt") lines, trace-cmd $(wc -l <"$TMP/t.txt")"
		sed 's/^/#   /' "$TMP/rec.out" "$TMP/k.err" "$TMP/t.err" | head -5
	fi
	# header_page's data field ends where the instance's sub-buffers do
	python3 - "$TMP/r$v.dat" "$KTRACE" <<'EOF' && ok "version $v: header_page says the instance's sub-buffer size" ||
import json, re, subprocess, sys
info = json.loads(subprocess.run([sys.argv[2], 'info', '--json', sys.argv[1]],
                                 capture_output=True).stdout)
ps = [b for b in info['buffers'] if b['name']][0]['page_size']
d = open(sys.argv[1], 'rb').read()
m = re.search(rb'char data;\s*offset:(\d+);\s*size:(\d+);', d)
assert m and int(m[1]) + int(m[2]) == ps, (m and m.groups(), ps)
EOF
		not_ok "version $v: header_page is not the instance's"
done
echo "$old" >$T/buffer_subbuf_size_kb
[ "$(cat $T/buffer_subbuf_size_kb)" = "$old" ] && [ ! -d "$T/instances/$ID" ] &&
	ok "tracefs left as found (sub-buffers of $old KiB, no instance)" || not_ok "tracefs not as found"
