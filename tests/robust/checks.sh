# The campaign's checks can fail: tests/robust/robust.py run on a ktrace that breaks
# one promise at a time (tests/robust/fake_ktrace.py) must report that failure, with
# what went wrong, as "not ok".
. "$(dirname "$0")/../lib.sh"
cat >"$TMP/ktrace" <<EOS
#!/bin/sh
exec python3 "$ROOT/tests/robust/fake_ktrace.py" "\$@"
EOS
chmod +x "$TMP/ktrace"
REAL_KTRACE=$KTRACE
export REAL_KTRACE
# the fake is a script: the mode (no address-space limit under ASan) is the real one's
mode=limit
grep -q -a __asan_init "$KTRACE" && mode=san

# expect FAULT RUNS TEXT [OPTIONS]: the campaign over one small trace.dat finds TEXT
expect() {
	fault=$1 runs=$2 text=$3
	shift 3
	ROBUST_FAKE=$fault python3 "$ROOT/tests/robust/robust.py" "$TMP/ktrace" "$ROOT" "$SHARED" \
		--seed 7 --runs "$runs" --only schedviz_cpu0.v6.dat --known /dev/null --mode "$mode" \
		--workdir "$TMP/w-$fault" "$@" >"$TMP/$fault.out" 2>&1
	if grep -q '^not ok ' "$TMP/$fault.out" && grep -q "^#.*$text" "$TMP/$fault.out"; then
		ok "a ktrace that does '$fault' fails the campaign: $text"
	else
		not_ok "a ktrace that does '$fault' fails the campaign: $text"
		grep -v '^ok' "$TMP/$fault.out" | head -10 | sed 's/^/#   /'
	fi
}
if [ ! -f "$SHARED/data/ftrace/schedviz_cpu0.v6.dat" ]; then
	echo 1..1
	ok "campaign checks # SKIP no shared data"
	exit 0
fi
echo 1..$(grep -c '^expect [a-z]' "$0")
expect crash 3 'killed by signal 11'
expect asan 3 'sanitizer: AddressSanitizer: heap-use-after-free in print_line (src/main.c:57)'
expect hang 3 'hang (no end after 2s)' --timeout 2
expect badjson 20 'invalid JSON on stdout'
expect tmpfile 3 'left in TMPDIR: spool'
expect oom 3 '"out of memory" below the limit'
expect noinput 3 "stderr line without a file name: 'ktrace: CPU 3"
expect unprintable 3 'stderr line not printable'
expect silent 40 'exit 0 with an empty stderr on a damaged file'
expect nooffset 40 'no offset in the error on a damaged file'
expect leftover 20 'left t\..*\.tmp-1234'
expect incomplete 20 'invalid JSON in t.json'
expect disk 20 'disk use.* beyond the bound' --disk-mib 4
